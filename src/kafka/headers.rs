//! The message headers every factgate event carries: `traceparent` (and `tracestate` when there
//! is one), so one draft's path through the roles can be followed as one trace (W3C Trace
//! Context), and `factgate-schema`, the event's schema version, so a consumer can tell what it is
//! reading before parsing the payload.
//!
//! The trace context is read from and written to the record's headers by OpenTelemetry's W3C
//! propagator, through [`HeaderExtractor`] and [`HeaderInjector`].

use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use rdkafka::Message;
use rdkafka::message::{Header, Headers, OwnedHeaders};

pub use crate::telemetry::{TRACEPARENT_HEADER, TRACESTATE_HEADER};
use factgate_core::events::TraceContext;

/// Name of the header holding the event's schema version (`factgate.draft.v1`, …).
pub const SCHEMA_HEADER: &str = "factgate-schema";

/// A Kafka record's headers as read by an OpenTelemetry propagator: a header's last value wins
/// (see [`header_str`]); a null or non-UTF-8 value reads as absent.
pub struct HeaderExtractor<'h, H: Headers>(pub &'h H);

impl<H: Headers> Extractor for HeaderExtractor<'_, H> {
    fn get(&self, key: &str) -> Option<&str> {
        last_value(self.0, key)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.iter().map(|h| h.key).collect()
    }
}

/// Kafka record headers written by an OpenTelemetry propagator. An empty value (the W3C
/// propagator writes an empty `tracestate` when there is none) is left out.
#[derive(Default)]
pub struct HeaderInjector(Option<OwnedHeaders>);

impl HeaderInjector {
    /// Headers to add to: `headers` (or none yet).
    pub fn new(headers: Option<OwnedHeaders>) -> Self {
        Self(headers)
    }

    /// The headers written.
    pub fn into_headers(self) -> OwnedHeaders {
        self.0.unwrap_or_default()
    }
}

impl Injector for HeaderInjector {
    fn set(&mut self, key: &str, value: String) {
        if value.is_empty() {
            return;
        }
        let headers = self.0.take().unwrap_or_default().insert(Header {
            key,
            value: Some(value.as_bytes()),
        });
        self.0 = Some(headers);
    }
}

/// The factgate headers of one event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventHeaders {
    /// The trace this event belongs to, written as the W3C `traceparent` and `tracestate`
    /// headers.
    pub trace: TraceContext,
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
    pub fn new(schema: impl Into<String>, incoming: Option<&TraceContext>) -> Self {
        Self {
            trace: crate::telemetry::outgoing(incoming),
            schema: schema.into(),
            extra: Vec::new(),
        }
    }

    /// The bytes these headers take in a record at most: names and values, before the record's
    /// own framing.
    pub fn encoded_len(&self) -> usize {
        TRACEPARENT_HEADER.len()
            + self.trace.traceparent().len()
            + self
                .trace
                .tracestate()
                .map_or(0, |state| TRACESTATE_HEADER.len() + state.len())
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

    /// As Kafka record headers: the trace context as the W3C propagator writes it (nothing when
    /// it does not read as one), then the schema and the further headers.
    pub fn to_kafka(&self) -> OwnedHeaders {
        let mut injector =
            HeaderInjector::new(Some(OwnedHeaders::new_with_capacity(3 + self.extra.len())));
        TraceContextPropagator::new()
            .inject_context(&crate::telemetry::context_of(&self.trace), &mut injector);
        let mut headers = injector.into_headers().insert(Header {
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

/// The header a CMS may set on a draft record to give its revision, read when the payload
/// cannot be (its key gives the article).
pub const REVISION_HEADER: &str = "factgate-revision";

/// The value of header `name` on `message` as UTF-8, the last one if it appears more than once
/// (the latest writer wins, as in Kafka's own header handling). `None` when absent, null or not
/// UTF-8.
pub fn header_str<'m, M: Message + ?Sized>(message: &'m M, name: &str) -> Option<&'m str> {
    last_value(message.headers()?, name)
}

fn last_value<'h, H: Headers>(headers: &'h H, name: &str) -> Option<&'h str> {
    headers
        .iter()
        .filter(|h| h.key == name)
        .last()
        .and_then(|h| h.value)
        .and_then(|v| std::str::from_utf8(v).ok())
}

/// The trace context a message carries (`traceparent`, with its `tracestate`), read by the W3C
/// propagator. `None` when `traceparent` is absent or invalid: an invalid trace context is
/// dropped, never an error, so a consumer starts a new trace (W3C's rule).
pub fn read_trace_context<M: Message + ?Sized>(message: &M) -> Option<TraceContext> {
    let headers = message.headers()?;
    let cx = TraceContextPropagator::new().extract(&HeaderExtractor(headers));
    crate::telemetry::trace_of(&cx)
}

/// The schema version a message declares in its `factgate-schema` header.
pub fn read_schema<M: Message + ?Sized>(message: &M) -> Option<&str> {
    header_str(message, SCHEMA_HEADER)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::telemetry::SpanContextOf;
    use rdkafka::message::{OwnedMessage, Timestamp};

    const SPEC_EXAMPLE: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    fn message(headers: &[(&str, &str)]) -> OwnedMessage {
        let headers = headers
            .iter()
            .fold(OwnedHeaders::new(), |all, (key, value)| {
                all.insert(Header {
                    key,
                    value: Some(*value),
                })
            });
        OwnedMessage::new(
            None,
            None,
            "t".into(),
            Timestamp::NotAvailable,
            0,
            0,
            Some(headers),
        )
    }

    #[test]
    fn encoded_len_counts_what_the_record_carries() {
        let mut headers = EventHeaders::new("factgate.dead_letter.v1", None)
            .with("factgate-error-message", "the body is not readable text")
            .with("factgate-original-offset", "42");
        for state in [None, Some("rojo=00f067aa0ba902b7".to_owned())] {
            headers.trace = headers.trace.clone().with_tracestate(state);
            let carried: usize = headers
                .to_kafka()
                .iter()
                .map(|h| h.key.len() + h.value.map_or(0, <[u8]>::len))
                .sum();
            assert_eq!(headers.encoded_len(), carried);
        }
    }

    #[test]
    fn the_specification_example_is_read_with_its_state() {
        let read = read_trace_context(&message(&[
            (TRACEPARENT_HEADER, SPEC_EXAMPLE),
            (TRACESTATE_HEADER, "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"),
        ]))
        .expect("the specification's example");
        assert_eq!(read.traceparent(), SPEC_EXAMPLE);
        assert_eq!(
            read.tracestate(),
            Some("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")
        );
        let ids = read.span_context();
        assert_eq!(
            ids.trace_id().to_string(),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        assert_eq!(ids.span_id().to_string(), "00f067aa0ba902b7");
    }

    #[test]
    fn what_the_specification_rejects_reads_as_no_trace() {
        let rejected = [
            "",
            "not-a-trace",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",
        ];
        for value in rejected {
            let read = read_trace_context(&message(&[(TRACEPARENT_HEADER, value)]));
            assert_eq!(read, None, "{value:?}");
        }
    }

    #[test]
    fn a_later_version_is_read_by_its_first_fields_and_written_as_00() {
        let read = read_trace_context(&message(&[(
            TRACEPARENT_HEADER,
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more",
        )]))
        .expect("a future version");
        assert_eq!(read.traceparent(), SPEC_EXAMPLE);
    }

    #[test]
    fn the_last_traceparent_header_wins() {
        let read = read_trace_context(&message(&[
            (TRACEPARENT_HEADER, "not-a-trace"),
            (TRACEPARENT_HEADER, SPEC_EXAMPLE),
        ]));
        assert_eq!(
            read.map(|t| t.traceparent().to_owned()).as_deref(),
            Some(SPEC_EXAMPLE)
        );
    }

    #[test]
    fn headers_round_trip_through_a_kafka_message() {
        let mut sent = EventHeaders::new("factgate.manifest.v1", None);
        sent.trace = sent
            .trace
            .with_tracestate(Some("rojo=00f067aa0ba902b7".into()));
        let message = OwnedMessage::new(
            None,
            None,
            "t".into(),
            Timestamp::NotAvailable,
            0,
            0,
            Some(sent.to_kafka()),
        );
        assert_eq!(read_trace_context(&message), Some(sent.trace));
        assert_eq!(read_schema(&message), Some("factgate.manifest.v1"));
    }

    #[test]
    fn an_invalid_traceparent_header_reads_as_none_and_is_not_written() {
        let message = message(&[(TRACEPARENT_HEADER, "not-a-trace")]);
        assert_eq!(read_trace_context(&message), None);
        assert_eq!(read_schema(&message), None);
        let unreadable = EventHeaders {
            trace: TraceContext::new("not-a-trace").expect("opaque text is kept"),
            schema: "factgate.manifest.v1".into(),
            extra: Vec::new(),
        };
        let written = unreadable.to_kafka();
        assert!(
            written.iter().all(|h| h.key != TRACEPARENT_HEADER),
            "only a trace context the propagator reads is written"
        );
    }
}
