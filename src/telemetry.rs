//! Logs and traces: the process's `tracing` subscriber, and the bridge between the `traceparent`
//! Kafka header and OpenTelemetry spans exported over OTLP.
//!
//! Logs go to stderr as text or JSON (`[log]`). When `[trace]` names an OTLP endpoint (or the
//! standard `OTEL_EXPORTER_OTLP_ENDPOINT` is set), spans are also exported over OTLP/HTTP in
//! protobuf. Each span that handles a message is parented on the message's `traceparent`
//! ([`adopt`]), and what it produces carries a `traceparent` naming that span ([`outgoing`]), so
//! an article's spans in every role form one tree in the collector.
//!
//! A trace context travels between the roles as a plain [`TraceContext`] (the header text); it
//! is read into an OpenTelemetry context and written back from one by the W3C
//! `TraceContextPropagator` ([`context_of`], [`trace_of`]), never parsed by hand.
//!
//! Export never holds up the pipeline: spans are queued (bounded; dropped when full) and sent by
//! the SDK's batch thread with a bounded timeout, and a failing collector is reported once per
//! outage (a warning, then an info line when it answers again), never per span.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use opentelemetry::Context;
use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::{
    SpanContext, TraceContextExt, TraceFlags, TraceState, TracerProvider as _,
};
use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{
    BatchConfigBuilder, BatchSpanProcessor, IdGenerator, RandomIdGenerator, Sampler,
    SdkTracerProvider, SpanData, SpanExporter,
};
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::config::{Config, ConfigError, LogFormat, Validation};
use factgate_core::events::TraceContext;

/// Name of the W3C header holding the trace id, the parent span id and the sampled flag.
pub const TRACEPARENT_HEADER: &str = "traceparent";
/// Name of the W3C header holding vendors' trace state, carried along with `traceparent`.
pub const TRACESTATE_HEADER: &str = "tracestate";
/// The standard variable naming the collector, honoured when `trace.otlp_endpoint` is empty.
pub const OTEL_ENDPOINT_ENV: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
/// Spans waiting for export at most; more are dropped rather than held in memory.
pub const EXPORT_QUEUE_SPANS: usize = 4_096;
/// How long one export request may take before it is abandoned.
pub const EXPORT_TIMEOUT: Duration = Duration::from_secs(5);
/// How often queued spans are sent.
const EXPORT_INTERVAL: Duration = Duration::from_secs(2);
/// The instrumentation scope of factgate's spans.
const SCOPE: &str = "factgate";

/// Faults setting up logs and traces.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// The OTLP exporter could not be built (a malformed endpoint).
    #[error("building the OTLP exporter for {endpoint}")]
    Exporter {
        endpoint: String,
        #[source]
        source: opentelemetry_otlp::ExporterBuildError,
    },
    /// The endpoint from `OTEL_EXPORTER_OTLP_ENDPOINT` fails the check the configured one gets
    /// (an http(s) URL without credentials, which would end up in logs).
    #[error("the OTLP endpoint is refused")]
    Endpoint(#[source] ConfigError),
    /// The HTTP client for the exporter could not be built.
    #[error("building the OTLP HTTP client")]
    Client(#[source] reqwest::Error),
    /// The thread building the exporter's HTTP client panicked.
    #[error("the thread building the OTLP HTTP client panicked")]
    ClientThreadPanicked,
    /// A global subscriber was installed already (tests that call [`init`] twice).
    #[error("a tracing subscriber is already installed")]
    AlreadyInstalled(#[source] tracing_subscriber::util::TryInitError),
}

/// Keeps the trace exporter alive; [`TelemetryGuard::shutdown`] (or dropping it) sends the spans
/// still queued, so the last ones of a run are not lost.
#[derive(Debug)]
#[must_use = "dropping the guard stops the trace export"]
pub struct TelemetryGuard {
    provider: Option<SdkTracerProvider>,
    endpoint: Option<String>,
}

impl TelemetryGuard {
    /// Where spans are exported, when they are.
    pub fn endpoint(&self) -> Option<&str> {
        self.endpoint.as_deref()
    }

    /// Sends the queued spans now (bounded by the export timeout). Call it from a thread that
    /// may block, not from an async task.
    pub fn flush(&self) {
        if let Some(provider) = &self.provider
            && let Err(err) = provider.force_flush()
        {
            crate::internal_events::traces_not_flushed(&err);
        }
    }

    /// Sends the queued spans and stops the exporter. Blocks up to the export timeout.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        if let Some(provider) = self.provider.take()
            && let Err(err) = provider.shutdown()
        {
            // Logged to stderr: the subscriber may be the one being shut down.
            eprintln!("factgate: trace export: {err}");
        }
    }
}

impl Drop for TelemetryGuard {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Installs the process's subscriber: logs to stderr per `[log]` (`RUST_LOG` overrides
/// `log.level`), and the OTLP span export per `[trace]` when an endpoint is configured.
///
/// # Errors
/// [`TelemetryError`] when the exporter cannot be built or a subscriber is already installed.
pub fn init(config: &Config) -> Result<TelemetryGuard, TelemetryError> {
    init_with(config, std::env::var(OTEL_ENDPOINT_ENV).ok())
}

/// [`init`] with `OTEL_EXPORTER_OTLP_ENDPOINT`'s value given.
fn init_with(config: &Config, otel_env: Option<String>) -> Result<TelemetryGuard, TelemetryError> {
    let endpoint = config.trace.traces_url(otel_env.as_deref());
    // The configured endpoint was checked with the configuration; the standard variable is
    // read here, so it gets the same check here.
    if config.trace.otlp_endpoint.trim().is_empty()
        && let Some(env) = otel_env.as_deref().map(str::trim).filter(|s| !s.is_empty())
    {
        let mut validation = Validation::default();
        validation.http_url(OTEL_ENDPOINT_ENV, env);
        validation.finish().map_err(TelemetryError::Endpoint)?;
    }
    let provider = match &endpoint {
        Some(url) => Some(provider(config, url)?),
        None => None,
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(&config.log.level));
    let otel = provider
        .as_ref()
        .map(|p| tracing_opentelemetry::layer().with_tracer(p.tracer(SCOPE)));
    let logs = match config.log.format {
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .with_writer(std::io::stderr)
            .boxed(),
        // Colour only for a person at a terminal: a CI log or a file gets plain text.
        // A text record is one line whatever its fields hold: a draft's, a file's or a URL's
        // line breaks and control characters are escaped, so no record can forge another (or a
        // CI runner's workflow command) or move a terminal's cursor. JSON escapes them itself.
        LogFormat::Text => {
            let ansi = stderr_wants_colour();
            tracing_subscriber::fmt::layer()
                .with_ansi(ansi)
                .with_writer(move || OneLineRecords {
                    inner: std::io::stderr(),
                    ansi,
                })
                .boxed()
        }
    };
    tracing_subscriber::registry()
        .with(otel)
        .with(logs)
        .with(filter)
        .try_init()
        .map_err(TelemetryError::AlreadyInstalled)?;
    Ok(TelemetryGuard { provider, endpoint })
}

/// A text log's writer: each write is one formatted record, written with every control
/// character in it escaped (`\n` as `\\n`, others as `\\u{1b}`) but its closing line feed, and,
/// when the log is coloured, the escape character its colours are made of (the formatter
/// escapes those in field values itself).
struct OneLineRecords<W> {
    inner: W,
    ansi: bool,
}

impl<W: std::io::Write> std::io::Write for OneLineRecords<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let (record, end) = match text.strip_suffix('\n') {
            Some(record) => (record, "\n"),
            None => (&*text, ""),
        };
        let mut out = String::with_capacity(buf.len());
        for c in record.chars() {
            match c {
                '\n' => out.push_str("\\n"),
                '\u{1b}' if self.ansi => out.push(c),
                '\t' => out.push(c),
                c if c.is_control() => {
                    use std::fmt::Write as _;
                    let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
                }
                c => out.push(c),
            }
        }
        out.push_str(end);
        self.inner.write_all(out.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Whether stderr is a terminal and the user did not ask for no colour (`NO_COLOR`, see
/// no-color.org): what decides ANSI colour in logs and in `factgate check`'s progress.
pub fn stderr_wants_colour() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

fn provider(config: &Config, url: &str) -> Result<SdkTracerProvider, TelemetryError> {
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_http_client(BlockingClient::new()?)
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(url)
        .with_timeout(EXPORT_TIMEOUT)
        .build()
        .map_err(|source| TelemetryError::Exporter {
            endpoint: url.to_owned(),
            source,
        })?;
    let batch = BatchConfigBuilder::default()
        .with_max_queue_size(EXPORT_QUEUE_SPANS)
        .with_scheduled_delay(EXPORT_INTERVAL)
        .build();
    let exporter = Reporting {
        inner: exporter,
        failing: AtomicBool::new(false),
    };
    let processor = BatchSpanProcessor::builder(exporter)
        .with_batch_config(batch)
        .build();
    // A continued trace keeps its caller's decision, so an article is recorded in every role or
    // in none; only new traces are sampled by ratio.
    let sampler = Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(
        config.trace.sample_ratio,
    )));
    Ok(SdkTracerProvider::builder()
        .with_span_processor(processor)
        .with_sampler(sampler)
        .with_resource(
            Resource::builder()
                .with_service_name(config.trace.service_name.clone())
                .build(),
        )
        .build())
}

/// An exporter that says when export starts failing and when it recovers: one warning per
/// outage, not one per batch or per span.
#[derive(Debug)]
struct Reporting<E> {
    inner: E,
    failing: AtomicBool,
}

impl<E: SpanExporter> SpanExporter for Reporting<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let spans = batch.len();
        let result = self.inner.export(batch).await;
        match &result {
            Err(err) if !self.failing.swap(true, Ordering::Relaxed) => {
                crate::internal_events::trace_export_failing(err, spans);
            }
            Ok(()) if self.failing.swap(false, Ordering::Relaxed) => {
                crate::internal_events::trace_export_recovered();
            }
            _ => {}
        }
        result
    }

    fn shutdown_with_timeout(&mut self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&mut self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// The exporter's HTTP client: reqwest's blocking client (the crate factgate already fetches
/// with), run on the SDK's own batch thread, so the export needs no async runtime and never
/// takes a worker from the pipeline.
#[derive(Debug)]
struct BlockingClient(reqwest::blocking::Client);

impl BlockingClient {
    fn new() -> Result<Self, TelemetryError> {
        // reqwest's blocking client starts a runtime of its own, which must not be created
        // inside an async context (`factgate run` is fine, a test's runtime is not): build it on
        // a plain thread.
        std::thread::spawn(|| {
            reqwest::blocking::Client::builder()
                .timeout(EXPORT_TIMEOUT)
                .build()
        })
        .join()
        .map_err(|_| TelemetryError::ClientThreadPanicked)?
        .map(Self)
        .map_err(TelemetryError::Client)
    }
}

impl HttpClient for BlockingClient {
    fn send_bytes<'a, 'b>(
        &'a self,
        request: Request<Bytes>,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<Response<Bytes>, HttpError>> + Send + 'b>>
    where
        'a: 'b,
        Self: 'b,
    {
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let response = self
                .0
                .request(parts.method, parts.uri.to_string())
                .headers(parts.headers)
                .body(body.to_vec())
                .send()?
                .error_for_status()?;
            let status = response.status();
            let headers = response.headers().clone();
            let body = response.bytes()?;
            let mut out = Response::builder().status(status).body(body)?;
            *out.headers_mut() = headers;
            Ok(out)
        })
    }
}

/// Makes `span` (just created, not yet entered) continue `incoming` in exported traces, and
/// returns the trace context of the span's work: its own span when it is exported, else
/// `incoming`, else a new trace. Without OTLP export this is `incoming` or a new root.
pub fn adopt(span: &Span, incoming: Option<&TraceContext>) -> TraceContext {
    // Read once: it says whether `incoming` is a trace, and is the span's parent if so.
    let parent = incoming
        .map(context_of)
        .filter(|cx| cx.span().span_context().is_valid());
    let incoming = incoming.filter(|_| parent.is_some());
    // A span no subscriber records has neither a parent to set nor a context of its own.
    if span.is_disabled() {
        return incoming.cloned().unwrap_or_else(new_root);
    }
    if let Some(parent) = parent {
        // Fails only when no OpenTelemetry layer is installed: nothing to parent then.
        let _ = span.set_parent(parent);
    }
    span_trace(span)
        .or_else(|| incoming.cloned())
        .unwrap_or_else(new_root)
}

/// The trace context for an event produced now, caused by a message that carried `incoming`:
/// the current span when it is exported (so the consumer's span is its child), else a child of
/// `incoming`, else a new trace.
pub fn outgoing(incoming: Option<&TraceContext>) -> TraceContext {
    span_trace(&Span::current())
        .or_else(|| incoming.and_then(child))
        .unwrap_or_else(new_root)
}

/// A new trace: random trace and span ids, sampled (the exporter's sampler still decides what
/// is recorded of it).
pub fn new_root() -> TraceContext {
    let ids = RandomIdGenerator::default();
    let root = SpanContext::new(
        ids.new_trace_id(),
        ids.new_span_id(),
        TraceFlags::SAMPLED,
        false,
        TraceState::default(),
    );
    // The propagator writes any valid span context, and a fresh one is valid.
    trace_of(&Context::new().with_remote_span_context(root))
        .expect("a new span context is written as a trace context")
}

/// The OpenTelemetry context `trace` names, read by the W3C propagator: a remote span context,
/// or an empty context when `trace` is not a valid trace context.
pub fn context_of(trace: &TraceContext) -> Context {
    TraceContextPropagator::new().extract(&Carried(trace))
}

/// The trace context naming `cx`'s span, written by the W3C propagator. `None` when `cx` has
/// no valid span context.
pub fn trace_of(cx: &Context) -> Option<TraceContext> {
    let mut carrier = Carrier::default();
    TraceContextPropagator::new().inject_context(cx, &mut carrier);
    Some(TraceContext::new(carrier.traceparent?)?.with_tracestate(carrier.tracestate))
}

/// The trace id of `trace` as 32 lowercase hex digits, for logs: empty when there is no trace
/// context or it does not read as one.
pub fn trace_id(trace: Option<&TraceContext>) -> String {
    trace
        .map(SpanContextOf::span_context)
        .filter(SpanContext::is_valid)
        .map(|ids| ids.trace_id().to_string())
        .unwrap_or_default()
}

/// The ids of a trace context, read by the W3C propagator.
pub trait SpanContextOf {
    /// The span context this trace context names: its trace id, parent span id, sampled flag
    /// and trace state. [`SpanContext::NONE`] (not valid) when it does not read as W3C trace
    /// context.
    fn span_context(&self) -> SpanContext;
}

impl SpanContextOf for TraceContext {
    fn span_context(&self) -> SpanContext {
        context_of(self).span().span_context().clone()
    }
}

/// The context for work caused by `parent`: the same trace, flags and state, a new span id.
fn child(parent: &TraceContext) -> Option<TraceContext> {
    let parent = parent.span_context();
    if !parent.is_valid() {
        return None;
    }
    let child = SpanContext::new(
        parent.trace_id(),
        RandomIdGenerator::default().new_span_id(),
        parent.trace_flags(),
        false,
        parent.trace_state().clone(),
    );
    trace_of(&Context::new().with_remote_span_context(child))
}

/// `span` as a trace context, when an OpenTelemetry span backs it.
fn span_trace(span: &Span) -> Option<TraceContext> {
    trace_of(&span.context())
}

/// A [`TraceContext`] read by the propagator.
struct Carried<'a>(&'a TraceContext);

impl Extractor for Carried<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            TRACEPARENT_HEADER => Some(self.0.traceparent()),
            TRACESTATE_HEADER => self.0.tracestate(),
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        let mut keys = vec![TRACEPARENT_HEADER];
        keys.extend(self.0.tracestate().map(|_| TRACESTATE_HEADER));
        keys
    }
}

/// What the propagator writes, made into a [`TraceContext`].
#[derive(Default)]
struct Carrier {
    traceparent: Option<String>,
    tracestate: Option<String>,
}

impl Injector for Carrier {
    fn set(&mut self, key: &str, value: String) {
        match key {
            TRACEPARENT_HEADER => self.traceparent = Some(value),
            TRACESTATE_HEADER => self.tracestate = Some(value),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_text_record_stays_one_line_whatever_its_fields_hold() {
        use std::io::Write as _;
        let mut plain = super::OneLineRecords {
            inner: Vec::new(),
            ansi: false,
        };
        plain
            .write_all(b"WARN waiver ignored article=a\n::error::forged\r\x1b[2K.md\n")
            .expect("written");
        assert_eq!(
            String::from_utf8(plain.inner).expect("text"),
            "WARN waiver ignored article=a\\n::error::forged\\u{d}\\u{1b}[2K.md\n"
        );
        let mut coloured = super::OneLineRecords {
            inner: Vec::new(),
            ansi: true,
        };
        coloured
            .write_all(b"\x1b[33mWARN\x1b[0m x\n")
            .expect("written");
        assert_eq!(coloured.inner, b"\x1b[33mWARN\x1b[0m x\n");
    }

    use super::*;

    #[test]
    fn an_endpoint_with_credentials_is_refused_before_anything_is_installed() {
        let err = init_with(
            &Config::default(),
            Some("http://tracer:hunter2@127.0.0.1:4318".into()),
        )
        .expect_err("credentials in the standard variable are refused");
        assert!(matches!(err, TelemetryError::Endpoint(_)), "{err:?}");
        let chain = format!("{err}: {:?}", std::error::Error::source(&err));
        assert!(chain.contains(OTEL_ENDPOINT_ENV), "{chain}");
        assert!(chain.contains("credentials"), "{chain}");
        assert!(!chain.contains("hunter2"), "{chain}");
    }

    const SPEC_EXAMPLE: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    fn spec_example() -> TraceContext {
        TraceContext::new(SPEC_EXAMPLE)
            .expect("the specification's example")
            .with_tracestate(Some("rojo=00f067aa0ba902b7".into()))
    }

    #[test]
    fn a_new_trace_has_the_w3c_shape_and_reads_back() {
        let root = new_root();
        let re = regex::Regex::new(r"^00-[0-9a-f]{32}-[0-9a-f]{16}-01$").expect("valid regex");
        assert!(re.is_match(root.traceparent()), "{root}");
        assert_eq!(root.tracestate(), None);
        let ids = root.span_context();
        assert!(ids.is_valid() && ids.is_sampled());
        assert_eq!(
            root.traceparent(),
            format!("00-{}-{}-01", ids.trace_id(), ids.span_id())
        );
        assert_ne!(new_root().span_context().trace_id(), ids.trace_id());
    }

    #[test]
    fn a_trace_context_reads_as_its_ids_and_state_and_writes_back_the_same() {
        let trace = spec_example();
        let ids = trace.span_context();
        assert_eq!(
            ids.trace_id().to_string(),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        assert_eq!(ids.span_id().to_string(), "00f067aa0ba902b7");
        assert_eq!(ids.trace_state().header(), "rojo=00f067aa0ba902b7");
        assert_eq!(trace_of(&context_of(&trace)), Some(trace));
    }

    #[test]
    fn what_the_propagator_cannot_read_names_no_span_and_continues_nothing() {
        let unreadable = TraceContext::new("not-a-trace").expect("opaque text is kept");
        assert!(!unreadable.span_context().is_valid());
        assert_eq!(trace_of(&context_of(&unreadable)), None);
        let started = outgoing(Some(&unreadable));
        assert!(started.span_context().is_valid(), "a new trace instead");
        let span = tracing::info_span!("x");
        assert!(adopt(&span, Some(&unreadable)).span_context().is_valid());
    }

    #[test]
    fn without_export_a_message_span_keeps_the_incoming_trace() {
        let incoming = spec_example();
        let span = tracing::info_span!("x");
        assert_eq!(adopt(&span, Some(&incoming)), incoming);
        let out = outgoing(Some(&incoming)).span_context();
        let parent = incoming.span_context();
        assert_eq!(out.trace_id(), parent.trace_id());
        assert_ne!(out.span_id(), parent.span_id());
        assert_eq!(
            out.trace_state(),
            parent.trace_state(),
            "the state travels on"
        );
    }

    #[test]
    fn an_exported_span_continues_the_incoming_trace_and_names_itself_downstream() {
        let provider = SdkTracerProvider::builder().build();
        let subscriber = tracing_subscriber::registry()
            .with(tracing_opentelemetry::layer().with_tracer(provider.tracer(SCOPE)));
        tracing::subscriber::with_default(subscriber, || {
            let incoming = spec_example();
            let span = tracing::info_span!("message");
            let own = adopt(&span, Some(&incoming)).span_context();
            assert_eq!(own.trace_id(), incoming.span_context().trace_id());
            assert_ne!(
                own.span_id(),
                incoming.span_context().span_id(),
                "the span's own id"
            );
            let produced = span.in_scope(|| outgoing(Some(&incoming)));
            assert_eq!(
                produced.span_context().span_id(),
                own.span_id(),
                "what the span produces names the span"
            );

            let root = tracing::info_span!("draft");
            let started = adopt(&root, None).span_context();
            assert_ne!(
                started.trace_id(),
                incoming.span_context().trace_id(),
                "a new trace"
            );
            assert!(started.is_sampled());
        });
    }
}
