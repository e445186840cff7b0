//! The message headers every factgate event carries: `traceparent`, so one draft's path through
//! the roles can be followed as one trace (W3C Trace Context), and `factgate-schema`, the event's
//! schema version, so a consumer can tell what it is reading before parsing the payload.

use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use factgate_core::events::TraceContext;
use rdkafka::Message;
use rdkafka::message::{Header, Headers, OwnedHeaders};

/// Name of the W3C trace-context header.
pub const TRACEPARENT_HEADER: &str = "traceparent";
/// Name of the header holding the event's schema version (`factgate.draft.v1`, …).
pub const SCHEMA_HEADER: &str = "factgate-schema";

/// The only trace-context version this code writes; later versions are read as their first four
/// fields, as the W3C specification asks.
const VERSION: u8 = 0x00;
/// The `sampled` trace flag.
const FLAG_SAMPLED: u8 = 0x01;

/// A W3C `traceparent`: `00-<32 hex trace id>-<16 hex parent span id>-<2 hex flags>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TraceParent {
    trace_id: [u8; 16],
    span_id: [u8; 8],
    flags: u8,
}

/// Why a `traceparent` value was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TraceParentError {
    /// Not `version-traceid-spanid-flags` with the right lengths and lowercase hex.
    #[error("traceparent is not version-traceid-spanid-flags in lowercase hex")]
    Malformed,
    /// Version `ff` is forbidden by the specification.
    #[error("traceparent version ff is invalid")]
    ForbiddenVersion,
    /// An all-zero trace id or span id means "none" and must be rejected.
    #[error("traceparent has an all-zero trace id or span id")]
    ZeroId,
    /// Version 00 allows nothing after the flags.
    #[error("traceparent version 00 has trailing data")]
    TrailingData,
}

impl TraceParent {
    /// A new trace: random trace id and span id, sampled.
    pub fn new_root() -> Self {
        let mut trace_id = [0; 16];
        trace_id[..8].copy_from_slice(&nonzero_random().to_be_bytes());
        trace_id[8..].copy_from_slice(&nonzero_random().to_be_bytes());
        Self {
            trace_id,
            span_id: nonzero_random().to_be_bytes(),
            flags: FLAG_SAMPLED,
        }
    }

    /// The context for work caused by this one: the same trace and flags, a new span id.
    pub fn child(&self) -> Self {
        Self {
            span_id: nonzero_random().to_be_bytes(),
            ..*self
        }
    }

    /// What an outgoing event should carry: a child of the incoming context when there is one,
    /// else a new trace.
    pub fn continue_or_start(incoming: Option<&TraceParent>) -> Self {
        incoming.map_or_else(Self::new_root, Self::child)
    }

    /// Parses a header value. Versions above 00 (except ff) are read by their first four fields.
    ///
    /// # Errors
    /// [`TraceParentError`] when the value is not a valid trace context.
    pub fn parse(value: &str) -> Result<Self, TraceParentError> {
        let mut parts = value.splitn(5, '-');
        let (Some(version), Some(trace), Some(span), Some(flags)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(TraceParentError::Malformed);
        };
        let rest = parts.next();
        let version = decode_hex::<1>(version)?[0];
        if version == 0xff {
            return Err(TraceParentError::ForbiddenVersion);
        }
        // Only version 00 fixes the length; a later version may append fields after a dash.
        if version == VERSION && rest.is_some() {
            return Err(TraceParentError::TrailingData);
        }
        let trace_id = decode_hex::<16>(trace)?;
        let span_id = decode_hex::<8>(span)?;
        let flags = decode_hex::<1>(flags)?[0];
        if trace_id == [0; 16] || span_id == [0; 8] {
            return Err(TraceParentError::ZeroId);
        }
        Ok(Self {
            trace_id,
            span_id,
            flags,
        })
    }

    /// A trace context from its parts, e.g. an exported span's ids; `None` when an id is all
    /// zero (invalid).
    pub fn from_parts(trace_id: [u8; 16], span_id: [u8; 8], sampled: bool) -> Option<Self> {
        (trace_id != [0; 16] && span_id != [0; 8]).then_some(Self {
            trace_id,
            span_id,
            flags: if sampled { FLAG_SAMPLED } else { 0 },
        })
    }

    /// The context as the core carries it from event to event.
    pub fn to_context(&self) -> TraceContext {
        TraceContext::new(&self.to_string(), None).expect("a traceparent is 55 characters")
    }

    /// The context the core carried, when it is a valid `traceparent`.
    pub fn from_context(context: &TraceContext) -> Option<Self> {
        Self::parse(context.traceparent()).ok()
    }

    /// The trace id's 16 bytes.
    pub fn trace_id_bytes(&self) -> [u8; 16] {
        self.trace_id
    }

    /// The parent span id's 8 bytes.
    pub fn span_id_bytes(&self) -> [u8; 8] {
        self.span_id
    }

    /// The trace id as 32 lowercase hex digits.
    pub fn trace_id(&self) -> String {
        hex::encode(self.trace_id)
    }

    /// The parent span id as 16 lowercase hex digits.
    pub fn span_id(&self) -> String {
        hex::encode(self.span_id)
    }

    /// Whether the caller asked for this trace to be recorded.
    pub fn sampled(&self) -> bool {
        self.flags & FLAG_SAMPLED != 0
    }
}

impl fmt::Display for TraceParent {
    /// Always written as version 00, whatever version it was read from (as the specification asks).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{VERSION:02x}-{}-{}-{:02x}",
            hex::encode(self.trace_id),
            hex::encode(self.span_id),
            self.flags
        )
    }
}

fn decode_hex<const N: usize>(field: &str) -> Result<[u8; N], TraceParentError> {
    // Upper case is invalid in trace context, and `hex` would accept it.
    if field.len() != 2 * N
        || !field
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return Err(TraceParentError::Malformed);
    }
    let mut out = [0; N];
    hex::decode_to_slice(field, &mut out).map_err(|_| TraceParentError::Malformed)?;
    Ok(out)
}

/// 64 random-enough bits for ids that need to be unique, not secret: std's per-instance random
/// hasher keys, a process-wide counter and the clock. Never zero (an all-zero id is invalid).
fn nonzero_random() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    loop {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        hasher.write_u128(nanos);
        let value = hasher.finish();
        if value != 0 {
            return value;
        }
    }
}

/// The factgate headers of one event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventHeaders {
    /// The trace this event belongs to.
    pub traceparent: TraceParent,
    /// The schema version of the payload (`factgate.manifest.v1`, …); see `events::version`.
    pub schema: String,
    /// Further headers, written after these two: the cause of a dead letter
    /// (see [`super::dead_letter`]).
    pub extra: Vec<(String, String)>,
}

impl EventHeaders {
    /// Headers for an event caused by a message that carried `incoming`: the current span when it
    /// is exported over OTLP, else a child span of the same trace, or a new trace when there is
    /// none (see [`crate::telemetry::outgoing`]).
    pub fn new(schema: impl Into<String>, incoming: Option<&TraceParent>) -> Self {
        Self {
            traceparent: crate::telemetry::outgoing(incoming),
            schema: schema.into(),
            extra: Vec::new(),
        }
    }

    /// The bytes these headers take in a record: names and values, before the record's own
    /// framing.
    pub fn encoded_len(&self) -> usize {
        let traceparent = self.traceparent.to_string();
        TRACEPARENT_HEADER.len()
            + traceparent.len()
            + SCHEMA_HEADER.len()
            + self.schema.len()
            + self
                .extra
                .iter()
                .map(|(name, value)| name.len() + value.len())
                .sum::<usize>()
    }

    /// These headers and one more, `name: value`.
    #[must_use]
    pub fn with(mut self, name: &str, value: impl Into<String>) -> Self {
        self.extra.push((name.to_owned(), value.into()));
        self
    }

    /// As Kafka record headers.
    pub fn to_kafka(&self) -> OwnedHeaders {
        let traceparent = self.traceparent.to_string();
        let mut headers = OwnedHeaders::new_with_capacity(2 + self.extra.len())
            .insert(Header {
                key: TRACEPARENT_HEADER,
                value: Some(traceparent.as_bytes()),
            })
            .insert(Header {
                key: SCHEMA_HEADER,
                value: Some(self.schema.as_bytes()),
            });
        for (name, value) in &self.extra {
            headers = headers.insert(Header {
                key: name,
                value: Some(value.as_bytes()),
            });
        }
        headers
    }
}

/// The value of header `name` on `message` as UTF-8, the last one if it appears more than once
/// (the latest writer wins, as in Kafka's own header handling). `None` when absent, null or not
/// UTF-8.
pub fn header_str<'m, M: Message + ?Sized>(message: &'m M, name: &str) -> Option<&'m str> {
    let headers = message.headers()?;
    headers
        .iter()
        .filter(|h| h.key == name)
        .last()
        .and_then(|h| h.value)
        .and_then(|v| std::str::from_utf8(v).ok())
}

/// The trace context a message carries. `None` when the header is absent or invalid: an invalid
/// trace context is dropped, never an error, so a consumer starts a new trace (W3C's rule).
pub fn read_traceparent<M: Message + ?Sized>(message: &M) -> Option<TraceParent> {
    header_str(message, TRACEPARENT_HEADER).and_then(|v| TraceParent::parse(v.trim()).ok())
}

/// The schema version a message declares in its `factgate-schema` header.
pub fn read_schema<M: Message + ?Sized>(message: &M) -> Option<&str> {
    header_str(message, SCHEMA_HEADER)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdkafka::message::{OwnedMessage, Timestamp};

    #[test]
    fn encoded_len_counts_what_the_record_carries() {
        let headers = EventHeaders::new("factgate.dead_letter.v1", None)
            .with("factgate-error-message", "the body is not readable text")
            .with("factgate-original-offset", "42");
        let carried: usize = headers
            .to_kafka()
            .iter()
            .map(|h| h.key.len() + h.value.map_or(0, <[u8]>::len))
            .sum();
        assert_eq!(headers.encoded_len(), carried);
    }

    #[test]
    fn generated_traceparent_has_the_w3c_shape_and_parses_back() {
        let tp = TraceParent::new_root();
        let text = tp.to_string();
        let re = regex::Regex::new(r"^00-[0-9a-f]{32}-[0-9a-f]{16}-01$").expect("valid regex");
        assert!(re.is_match(&text), "{text}");
        assert_eq!(TraceParent::parse(&text), Ok(tp));
        assert!(tp.sampled());
    }

    #[test]
    fn roots_differ_and_children_keep_the_trace() {
        let a = TraceParent::new_root();
        let b = TraceParent::new_root();
        assert_ne!(a.trace_id(), b.trace_id());
        let child = a.child();
        assert_eq!(child.trace_id(), a.trace_id());
        assert_ne!(child.span_id(), a.span_id());
        let continued = TraceParent::continue_or_start(Some(&a));
        assert_eq!(continued.trace_id(), a.trace_id());
    }

    #[test]
    fn parse_accepts_the_specification_example() {
        let tp = TraceParent::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
            .expect("spec example");
        assert_eq!(tp.trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(tp.span_id(), "00f067aa0ba902b7");
    }

    #[test]
    fn parse_rejects_what_the_specification_rejects() {
        use TraceParentError::*;
        let cases = [
            ("", Malformed),
            (
                "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
                Malformed,
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
                Malformed,
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
                Malformed,
            ),
            (
                "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                ForbiddenVersion,
            ),
            (
                "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                ZeroId,
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                ZeroId,
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",
                TrailingData,
            ),
        ];
        for (value, want) in cases {
            assert_eq!(TraceParent::parse(value), Err(want), "{value:?}");
        }
    }

    #[test]
    fn a_later_version_is_read_by_its_first_fields_and_written_as_00() {
        let tp = TraceParent::parse("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more")
            .expect("future version");
        assert_eq!(
            tp.to_string(),
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        );
    }

    #[test]
    fn headers_round_trip_through_a_kafka_message() {
        let sent = EventHeaders::new("factgate.manifest.v1", None);
        let message = OwnedMessage::new(
            None,
            None,
            "t".into(),
            Timestamp::NotAvailable,
            0,
            0,
            Some(sent.to_kafka()),
        );
        assert_eq!(read_traceparent(&message), Some(sent.traceparent));
        assert_eq!(read_schema(&message), Some("factgate.manifest.v1"));
    }

    #[test]
    fn an_invalid_traceparent_header_reads_as_none() {
        let headers = OwnedHeaders::new().insert(Header {
            key: TRACEPARENT_HEADER,
            value: Some("not-a-trace"),
        });
        let message = OwnedMessage::new(
            None,
            None,
            "t".into(),
            Timestamp::NotAvailable,
            0,
            0,
            Some(headers),
        );
        assert_eq!(read_traceparent(&message), None);
        assert_eq!(read_schema(&message), None);
    }
}
