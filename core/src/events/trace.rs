//! The trace context an event travels in (W3C Trace Context), as the core holds it: opaque.
//!
//! The service reads and writes the `traceparent` and `tracestate` headers through
//! opentelemetry's propagator; the core only carries the values from the event that brought them
//! (a manifest, a result) to the event they cause (the decision), so one draft's path through the
//! roles is one trace.

/// The longest header value kept; a W3C `traceparent` is 55 characters and `tracestate` at most
/// 512, so anything longer is not a trace context.
const MAX_VALUE_BYTES: usize = 512;

/// A `traceparent` header value and its optional `tracestate`, unparsed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TraceContext {
    traceparent: String,
    tracestate: Option<String>,
}

impl TraceContext {
    /// The context carried by `traceparent` (and `tracestate`), or `None` for a value too long
    /// to be one. The values are not interpreted here.
    pub fn new(traceparent: &str, tracestate: Option<&str>) -> Option<Self> {
        (traceparent.len() <= 64).then(|| Self {
            traceparent: traceparent.to_owned(),
            tracestate: tracestate
                .filter(|s| s.len() <= MAX_VALUE_BYTES)
                .map(str::to_owned),
        })
    }

    /// The `traceparent` value.
    pub fn traceparent(&self) -> &str {
        &self.traceparent
    }

    /// The `tracestate` value, when the event had one.
    pub fn tracestate(&self) -> Option<&str> {
        self.tracestate.as_deref()
    }

    /// The trace id: the second dash-separated field of `traceparent` (empty when absent).
    pub fn trace_id(&self) -> &str {
        self.traceparent.split('-').nth(1).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_values_and_refuses_what_cannot_be_a_trace_context() {
        let value = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let ctx = TraceContext::new(value, Some("vendor=1")).expect("fits");
        assert_eq!(ctx.traceparent(), value);
        assert_eq!(ctx.tracestate(), Some("vendor=1"));
        assert_eq!(ctx.trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(TraceContext::new(&"0".repeat(65), None), None);
        let long_state = "x".repeat(MAX_VALUE_BYTES + 1);
        assert_eq!(
            TraceContext::new(value, Some(&long_state)).and_then(|c| c.tracestate().map(str::len)),
            None
        );
    }
}
