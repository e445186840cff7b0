//! Logs and traces: the process's `tracing` subscriber, and the bridge between the `traceparent`
//! Kafka header and OpenTelemetry spans exported over OTLP.
//!
//! Logs go to stderr as text or JSON (`[log]`). When `[trace]` names an OTLP endpoint (or the
//! standard `OTEL_EXPORTER_OTLP_ENDPOINT` is set), spans are also exported over OTLP/HTTP in
//! protobuf. Each span that handles a message is parented on the message's `traceparent`
//! ([`adopt`]), and what it produces carries a `traceparent` naming that span ([`outgoing`]), so
//! an article's spans in every role form one tree in the collector.
//!
//! Export never holds up the pipeline: spans are queued (bounded; dropped when full) and sent by
//! the SDK's batch thread with a bounded timeout, and a failing collector is reported once per
//! outage (a warning, then an info line when it answers again), never per span.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use opentelemetry::trace::{
    SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState, TracerProvider as _,
};
use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{
    BatchConfigBuilder, BatchSpanProcessor, Sampler, SdkTracerProvider, SpanData, SpanExporter,
};
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::config::{Checks, Config, ConfigError, LogFormat};
use crate::kafka::TraceParent;

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
    #[error("building the OTLP HTTP client: {0}")]
    Client(String),
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
            tracing::warn!(error = %err, "trace export: spans not flushed");
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
        let mut checks = Checks::default();
        checks.http_url(OTEL_ENDPOINT_ENV, env);
        checks.finish().map_err(TelemetryError::Endpoint)?;
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
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_ansi(stderr_wants_colour())
            .with_writer(std::io::stderr)
            .boxed(),
    };
    tracing_subscriber::registry()
        .with(otel)
        .with(logs)
        .with(filter)
        .try_init()
        .map_err(TelemetryError::AlreadyInstalled)?;
    Ok(TelemetryGuard { provider, endpoint })
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
                tracing::warn!(error = %err, spans, "trace export failing: spans are dropped until the collector answers");
            }
            Ok(()) if self.failing.swap(false, Ordering::Relaxed) => {
                tracing::info!("trace export recovered");
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
        .map_err(|_| TelemetryError::Client("the builder thread panicked".to_owned()))?
        .map(Self)
        .map_err(|err| TelemetryError::Client(err.to_string()))
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
pub fn adopt(span: &Span, incoming: Option<&TraceParent>) -> TraceParent {
    if let Some(parent) = incoming {
        // Fails only when no OpenTelemetry layer is installed: nothing to parent then.
        let _ = span.set_parent(
            opentelemetry::Context::new().with_remote_span_context(remote_span_context(parent)),
        );
    }
    span_trace(span)
        .or_else(|| incoming.copied())
        .unwrap_or_else(TraceParent::new_root)
}

/// The `traceparent` for an event produced now, caused by a message that carried `incoming`:
/// the current span when it is exported (so the consumer's span is its child), else a child of
/// `incoming`, else a new trace.
pub fn outgoing(incoming: Option<&TraceParent>) -> TraceParent {
    span_trace(&Span::current()).unwrap_or_else(|| TraceParent::continue_or_start(incoming))
}

/// `span` as a trace context, when an OpenTelemetry span backs it.
fn span_trace(span: &Span) -> Option<TraceParent> {
    let context = span.context();
    let otel = context.span();
    let sc = otel.span_context();
    if !sc.is_valid() {
        return None;
    }
    TraceParent::from_parts(
        sc.trace_id().to_bytes(),
        sc.span_id().to_bytes(),
        sc.is_sampled(),
    )
}

fn remote_span_context(parent: &TraceParent) -> SpanContext {
    let flags = if parent.sampled() {
        TraceFlags::SAMPLED
    } else {
        TraceFlags::default()
    };
    SpanContext::new(
        TraceId::from_bytes(parent.trace_id_bytes()),
        SpanId::from_bytes(parent.span_id_bytes()),
        flags,
        true,
        TraceState::default(),
    )
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn without_export_a_message_span_keeps_the_incoming_trace() {
        let incoming = TraceParent::new_root();
        let span = tracing::info_span!("x");
        assert_eq!(adopt(&span, Some(&incoming)), incoming);
        let out = outgoing(Some(&incoming));
        assert_eq!(out.trace_id(), incoming.trace_id());
        assert_ne!(out.span_id(), incoming.span_id());
    }

    #[test]
    fn an_exported_span_continues_the_incoming_trace_and_names_itself_downstream() {
        let provider = SdkTracerProvider::builder().build();
        let subscriber = tracing_subscriber::registry()
            .with(tracing_opentelemetry::layer().with_tracer(provider.tracer(SCOPE)));
        tracing::subscriber::with_default(subscriber, || {
            let incoming =
                TraceParent::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                    .expect("valid");
            let span = tracing::info_span!("message");
            let own = adopt(&span, Some(&incoming));
            assert_eq!(own.trace_id(), incoming.trace_id());
            assert_ne!(own.span_id(), incoming.span_id(), "the span's own id");
            let produced = span.in_scope(|| outgoing(Some(&incoming)));
            assert_eq!(produced, own, "what the span produces names the span");

            let root = tracing::info_span!("draft");
            let started = adopt(&root, None);
            assert_ne!(started.trace_id(), incoming.trace_id(), "a new trace");
            assert!(started.sampled());
        });
    }
}
