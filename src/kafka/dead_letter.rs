//! Why a record was dead-lettered, in the dead-letter record's own headers, as Kafka Connect's
//! `errors.deadletterqueue.context.headers.enable` does: whoever reads the dead-letter topic sees
//! the error and where the record came from without searching the logs, and can replay it to its
//! original topic.
//!
//! | header | value |
//! |---|---|
//! | `factgate-error-stage` | the role that gave up on the record (`extract`) |
//! | `factgate-error-class` | the error's kind: its type and variant (`DraftError::MissingField`), as Connect gives the exception's class |
//! | `factgate-error-message` | the error as logged, cut to [`MAX_ERROR_MESSAGE_BYTES`] |
//! | `factgate-original-topic`, `-partition`, `-offset` | where the record was read |
//! | `factgate-original-timestamp` | its timestamp in milliseconds since the epoch, when it had one |
//!
//! `schemas/dead_letter.v1.json` describes these headers, with `traceparent` and
//! `factgate-schema` (`factgate.dead_letter.v1`), as a JSON object.

use std::fmt::{Debug, Display};

use chrono::{DateTime, Utc};
use rdkafka::Message;

use super::headers::EventHeaders;

/// Header naming the role that gave up on the record.
pub const ERROR_STAGE_HEADER: &str = "factgate-error-stage";
/// Header holding the error's kind.
pub const ERROR_CLASS_HEADER: &str = "factgate-error-class";
/// Header holding the error's message.
pub const ERROR_MESSAGE_HEADER: &str = "factgate-error-message";
/// Header holding the topic the record was read from.
pub const ORIGINAL_TOPIC_HEADER: &str = "factgate-original-topic";
/// Header holding the partition the record was read from.
pub const ORIGINAL_PARTITION_HEADER: &str = "factgate-original-partition";
/// Header holding the record's offset in that partition.
pub const ORIGINAL_OFFSET_HEADER: &str = "factgate-original-offset";
/// Header holding the record's timestamp (milliseconds since the epoch).
pub const ORIGINAL_TIMESTAMP_HEADER: &str = "factgate-original-timestamp";
/// Longest error message carried, in bytes: headers travel with every fetch of the record, and a
/// message quoting a large field must not make the record larger than the broker accepts.
pub const MAX_ERROR_MESSAGE_BYTES: usize = 1024;

/// Adds the dead-letter headers to `headers`: `stage` gave up on `original` because of `error`.
pub fn with_cause<M, E>(headers: EventHeaders, stage: &str, original: &M, error: &E) -> EventHeaders
where
    M: Message + ?Sized,
    E: Display + Debug,
{
    let mut headers = headers
        .with(ERROR_STAGE_HEADER, stage)
        .with(ERROR_CLASS_HEADER, error_class(error))
        .with(
            ERROR_MESSAGE_HEADER,
            truncate(&error.to_string(), MAX_ERROR_MESSAGE_BYTES),
        )
        .with(ORIGINAL_TOPIC_HEADER, original.topic())
        .with(ORIGINAL_PARTITION_HEADER, original.partition().to_string())
        .with(ORIGINAL_OFFSET_HEADER, original.offset().to_string());
    if let Some(millis) = original.timestamp().to_millis() {
        headers = headers.with(ORIGINAL_TIMESTAMP_HEADER, millis.to_string());
    }
    headers
}

/// The key a dead letter carries: the original record's key byte for byte, so the letter is found
/// by it whatever it holds (text or not), unless it is longer than `max` bytes; then it is cut,
/// on a character boundary when it is text. The headers say where the record was read, so the
/// original can be found whole.
pub fn letter_key<M: Message + ?Sized>(original: &M, max: usize) -> &[u8] {
    let key = original.key().unwrap_or_default();
    if key.len() <= max {
        return key;
    }
    match std::str::from_utf8(key) {
        Ok(text) => &key[..text.floor_char_boundary(max)],
        Err(_) => &key[..max],
    }
}

/// The time a record carries (the producer's create time, or the broker's log-append time), for a
/// draft whose own `published_at` could not be read.
pub fn record_time<M: Message + ?Sized>(message: &M) -> Option<DateTime<Utc>> {
    message
        .timestamp()
        .to_millis()
        .and_then(DateTime::from_timestamp_millis)
}

/// The error's type and variant, `DraftError::MissingField` for `MissingField { .. }` of
/// `factgate_core::events::DraftError`: read from its `Debug` form, so a variant added later is named
/// without this function knowing it.
fn error_class<E: Debug + ?Sized>(error: &E) -> String {
    let type_name = std::any::type_name::<E>();
    let type_name = type_name.rsplit("::").next().unwrap_or(type_name);
    let debug = format!("{error:?}");
    let variant: String = debug
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if variant.is_empty() || variant == type_name {
        type_name.to_owned()
    } else {
        format!("{type_name}::{variant}")
    }
}

/// `text` cut to at most `max` bytes on a character boundary, with `…` when cut.
fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kafka::headers::header_str;
    use rdkafka::message::{OwnedMessage, Timestamp};

    #[derive(Debug, thiserror::Error)]
    enum SampleError {
        #[error("the draft lacks the required field `{field}`")]
        MissingField { field: &'static str },
        #[error("not an object")]
        NotAnObject,
    }

    fn original() -> OwnedMessage {
        OwnedMessage::new(
            Some(b"{}".to_vec()),
            Some(b"a-1".to_vec()),
            "drafts.published".into(),
            Timestamp::CreateTime(1_700_000_000_123),
            4,
            97,
            None,
        )
    }

    fn read_back(headers: &EventHeaders) -> OwnedMessage {
        OwnedMessage::new(
            None,
            None,
            "drafts.dlq".into(),
            Timestamp::NotAvailable,
            0,
            0,
            Some(headers.to_kafka()),
        )
    }

    #[test]
    fn the_cause_and_the_origin_travel_in_headers() {
        let error = SampleError::MissingField { field: "body" };
        let headers = with_cause(
            EventHeaders::new("factgate.dead_letter.v1", None),
            "extract",
            &original(),
            &error,
        );
        let message = read_back(&headers);
        let get = |name| header_str(&message, name);
        assert_eq!(get("factgate-schema"), Some("factgate.dead_letter.v1"));
        assert_eq!(get(ERROR_STAGE_HEADER), Some("extract"));
        assert_eq!(get(ERROR_CLASS_HEADER), Some("SampleError::MissingField"));
        assert_eq!(
            get(ERROR_MESSAGE_HEADER),
            Some("the draft lacks the required field `body`")
        );
        assert_eq!(get(ORIGINAL_TOPIC_HEADER), Some("drafts.published"));
        assert_eq!(get(ORIGINAL_PARTITION_HEADER), Some("4"));
        assert_eq!(get(ORIGINAL_OFFSET_HEADER), Some("97"));
        assert_eq!(get(ORIGINAL_TIMESTAMP_HEADER), Some("1700000000123"));
        assert!(get("traceparent").is_some());
    }

    #[test]
    fn a_unit_variant_is_named_too() {
        assert_eq!(
            error_class(&SampleError::NotAnObject),
            "SampleError::NotAnObject"
        );
    }

    #[test]
    fn a_long_message_is_cut_on_a_character_boundary() {
        let long = "é".repeat(2000);
        let cut = truncate(&long, MAX_ERROR_MESSAGE_BYTES);
        assert!(cut.len() <= MAX_ERROR_MESSAGE_BYTES, "{}", cut.len());
        assert!(cut.ends_with('…'));
        assert_eq!(truncate("short", 10), "short");
    }

    #[test]
    fn a_letter_keeps_its_key_byte_for_byte_and_cuts_only_a_long_one() {
        let keyed = |key: &[u8]| {
            OwnedMessage::new(
                None,
                Some(key.to_vec()),
                "drafts.published".into(),
                Timestamp::NotAvailable,
                0,
                0,
                None,
            )
        };
        let binary = [0xff, 0xfe, 0x00, b'a', 0xc3];
        assert_eq!(letter_key(&keyed(&binary), 64), binary);
        assert_eq!(letter_key(&keyed(b"a-1"), 64), b"a-1");
        assert_eq!(letter_key(&keyed("ééé".as_bytes()), 3), "é".as_bytes());
        assert_eq!(letter_key(&keyed(&binary), 2), &binary[..2]);
        let none = OwnedMessage::new(None, None, "t".into(), Timestamp::NotAvailable, 0, 0, None);
        assert_eq!(letter_key(&none, 64), b"");
    }

    #[test]
    fn the_record_time_is_the_timestamp_it_carries() {
        let time = record_time(&original()).expect("a create time");
        assert_eq!(time.timestamp_millis(), 1_700_000_000_123);
        let without =
            OwnedMessage::new(None, None, "t".into(), Timestamp::NotAvailable, 0, 0, None);
        assert_eq!(record_time(&without), None);
    }
}
