//! The trace context an event carries (W3C Trace Context: the `traceparent` and `tracestate`
//! headers), held as the opaque text it travels as.
//!
//! The join keeps an article's trace context while the article waits, so a decision made on no
//! message (at its deadline) still lands in the article's trace. It needs only to store the
//! context and hand it back: reading its fields, starting a trace and continuing one belong to
//! the telemetry side (OpenTelemetry's propagator), which builds and reads these values. Here a
//! trace context is only bounded, so what the join holds per article stays small whatever a
//! producer writes.

use serde::{Deserialize, Serialize};

/// The longest `traceparent` kept. Version 00 is 55 characters; later versions may append
/// fields, which readers ignore.
pub const MAX_TRACEPARENT_BYTES: usize = 256;
/// The longest `tracestate` kept: the 512 characters W3C asks vendors to propagate at least. A
/// longer one is dropped (the trace is kept), as the specification allows.
pub const MAX_TRACESTATE_BYTES: usize = 512;

/// One event's trace context: its `traceparent` and, when there is one, its `tracestate`.
///
/// Built by the telemetry side from a message's headers or a span; the values are text of
/// printable ASCII within [`MAX_TRACEPARENT_BYTES`] and [`MAX_TRACESTATE_BYTES`], and are not
/// otherwise interpreted here.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "RawTraceContext")]
pub struct TraceContext {
    traceparent: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tracestate: Option<String>,
}

/// The serialized shape, checked into a [`TraceContext`].
#[derive(Deserialize)]
struct RawTraceContext {
    traceparent: String,
    #[serde(default)]
    tracestate: Option<String>,
}

impl TryFrom<RawTraceContext> for TraceContext {
    type Error = &'static str;

    fn try_from(raw: RawTraceContext) -> Result<Self, Self::Error> {
        let trace = TraceContext::new(raw.traceparent)
            .ok_or("traceparent is empty, too long or not printable ASCII")?;
        Ok(trace.with_tracestate(raw.tracestate))
    }
}

impl TraceContext {
    /// A trace context from a `traceparent` value (surrounding whitespace removed). `None` when
    /// it is empty, longer than [`MAX_TRACEPARENT_BYTES`] or not printable ASCII without spaces:
    /// no trace context then, never an error (W3C's rule for a value that cannot be read).
    pub fn new(traceparent: impl Into<String>) -> Option<Self> {
        let mut traceparent = traceparent.into();
        let trimmed = traceparent.trim();
        if trimmed.len() != traceparent.len() {
            traceparent = trimmed.to_owned();
        }
        let fits = !traceparent.is_empty()
            && traceparent.len() <= MAX_TRACEPARENT_BYTES
            && traceparent.bytes().all(|b| b.is_ascii_graphic());
        fits.then_some(Self {
            traceparent,
            tracestate: None,
        })
    }

    /// This context with `tracestate`; an empty one, one longer than [`MAX_TRACESTATE_BYTES`]
    /// or one that is not printable ASCII is dropped (the `traceparent` is kept).
    #[must_use]
    pub fn with_tracestate(mut self, tracestate: Option<String>) -> Self {
        self.tracestate = tracestate.map(|s| s.trim().to_owned()).filter(|s| {
            !s.is_empty()
                && s.len() <= MAX_TRACESTATE_BYTES
                && s.bytes().all(|b| b == b' ' || b.is_ascii_graphic())
        });
        self
    }

    /// The `traceparent` header value.
    pub fn traceparent(&self) -> &str {
        &self.traceparent
    }

    /// The `tracestate` header value, when there is one.
    pub fn tracestate(&self) -> Option<&str> {
        self.tracestate.as_deref()
    }
}

impl std::fmt::Display for TraceContext {
    /// The `traceparent`, which names the trace in logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.traceparent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC_EXAMPLE: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn a_trace_context_keeps_what_it_was_given_trimmed() {
        let trace = TraceContext::new(format!(" {SPEC_EXAMPLE}\n"))
            .expect("the specification's example")
            .with_tracestate(Some("rojo=00f067aa0ba902b7".into()));
        assert_eq!(trace.traceparent(), SPEC_EXAMPLE);
        assert_eq!(trace.tracestate(), Some("rojo=00f067aa0ba902b7"));
        assert_eq!(trace.to_string(), SPEC_EXAMPLE);
    }

    #[test]
    fn what_cannot_be_a_trace_context_is_none_and_an_unfit_tracestate_is_dropped() {
        assert_eq!(TraceContext::new(""), None);
        assert_eq!(TraceContext::new("00-a b-c-01"), None);
        assert_eq!(
            TraceContext::new("x".repeat(MAX_TRACEPARENT_BYTES + 1)),
            None
        );
        assert_eq!(TraceContext::new("00-\u{e9}-01"), None);
        let trace = TraceContext::new(SPEC_EXAMPLE).expect("valid");
        for unfit in ["", "   ", "k=\u{e9}", &"k=v,".repeat(200)] {
            let kept = trace.clone().with_tracestate(Some(unfit.to_owned()));
            assert_eq!(kept.tracestate(), None, "{unfit:?}");
            assert_eq!(kept.traceparent(), SPEC_EXAMPLE);
        }
    }

    #[test]
    fn serde_round_trips_and_refuses_what_new_refuses() {
        let trace = TraceContext::new(SPEC_EXAMPLE)
            .expect("valid")
            .with_tracestate(Some("congo=t61rcWkgMzE".into()));
        let json = serde_json::to_string(&trace).expect("serializes");
        assert_eq!(
            serde_json::from_str::<TraceContext>(&json).expect("reads back"),
            trace
        );
        let untraced = TraceContext::new(SPEC_EXAMPLE).expect("valid");
        assert_eq!(
            serde_json::to_string(&untraced).expect("serializes"),
            format!(r#"{{"traceparent":"{SPEC_EXAMPLE}"}}"#)
        );
        assert!(serde_json::from_str::<TraceContext>(r#"{"traceparent":""}"#).is_err());
    }
}
