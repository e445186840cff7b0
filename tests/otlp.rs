//! OTLP trace export against a real OTLP/HTTP receiver on 127.0.0.1, with the whole pipeline in
//! this process on the embedded broker: the spans of an article's draft, checks and decision
//! reach the collector in the trace of the `traceparent` its draft came with, with its ids as
//! attributes, each role's span the child of the one before; and once the collector is gone,
//! drafts are still decided and the exporter still shuts down in bounded time.
//!
//! The subscriber is global and set once per process, hence this file's single test.

// The pipeline starter and origin alone; the rest serves the integration suite.
#[allow(dead_code)]
mod support;

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::pipeline::{demo_draft, outside_reader, publish_draft_with, start_roles};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use factgate::config::Config;
use factgate::kafka::{EmbeddedBroker, EventHeaders, EventProducer, read_trace_context};
use factgate::pipeline::Role;
use factgate::telemetry::SpanContextOf;
use factgate_core::events::DRAFT_V1;
use factgate_core::events::TraceContext;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use prost::Message as _;
use rdkafka::Message;
use serde_json::Value;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep, timeout, timeout_at};

/// The longest the test waits for decisions: group joins on the mock cluster take seconds.
const DECIDED_WITHIN: Duration = Duration::from_secs(90);
/// The longest it waits for spans once the drafts are decided.
const SPANS_WITHIN: Duration = Duration::from_secs(30);
/// The `service.name` the test configures, to see it on the spans.
const SERVICE_NAME: &str = "factgate-otlp-test";

// ---------------------------------------------------------------------------------------------
// The collector

/// One span as the collector received it.
#[derive(Debug, Clone)]
struct ReceivedSpan {
    name: String,
    trace_id: String,
    span_id: String,
    parent_span_id: String,
    attributes: HashMap<String, String>,
    service_name: String,
}

/// An OTLP/HTTP receiver: POST /v1/traces with protobuf bodies.
struct Collector {
    port: u16,
    spans: Arc<Mutex<Vec<ReceivedSpan>>>,
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

impl Collector {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("collector binds on loopback");
        let port = listener.local_addr().expect("collector address").port();
        let spans = Arc::new(Mutex::new(Vec::new()));
        let app = Router::new()
            .route("/v1/traces", post(receive))
            .with_state(Arc::clone(&spans));
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = stopped.await;
                })
                .await;
        });
        Self {
            port,
            spans,
            stop,
            task,
        }
    }

    fn spans(&self) -> Vec<ReceivedSpan> {
        self.spans.lock().expect("spans lock").clone()
    }

    /// Stops serving and closes the port.
    async fn stop(self) {
        let _ = self.stop.send(());
        timeout(Duration::from_secs(30), self.task)
            .await
            .expect("the collector stops in time")
            .expect("the collector task did not panic");
    }
}

async fn receive(State(spans): State<Arc<Mutex<Vec<ReceivedSpan>>>>, body: Bytes) -> Response {
    let request = match ExportTraceServiceRequest::decode(body) {
        Ok(request) => request,
        Err(err) => return (StatusCode::BAD_REQUEST, err.to_string()).into_response(),
    };
    let mut received = Vec::new();
    for resource_spans in request.resource_spans {
        let resource = resource_spans
            .resource
            .map(|r| attributes(&r.attributes))
            .unwrap_or_default();
        let service_name = resource.get("service.name").cloned().unwrap_or_default();
        for scope in resource_spans.scope_spans {
            for span in scope.spans {
                received.push(ReceivedSpan {
                    name: span.name,
                    trace_id: hex::encode(&span.trace_id),
                    span_id: hex::encode(&span.span_id),
                    parent_span_id: hex::encode(&span.parent_span_id),
                    attributes: attributes(&span.attributes),
                    service_name: service_name.clone(),
                });
            }
        }
    }
    spans.lock().expect("spans lock").extend(received);
    let reply = ExportTraceServiceResponse::default().encode_to_vec();
    ([(header::CONTENT_TYPE, "application/x-protobuf")], reply).into_response()
}

fn attributes(list: &[KeyValue]) -> HashMap<String, String> {
    list.iter()
        .map(|kv| (kv.key.clone(), any_value_text(kv.value.as_ref())))
        .collect()
}

fn any_value_text(value: Option<&AnyValue>) -> String {
    match value.and_then(|v| v.value.as_ref()) {
        Some(any_value::Value::StringValue(s)) => s.clone(),
        Some(any_value::Value::IntValue(i)) => i.to_string(),
        Some(any_value::Value::BoolValue(b)) => b.to_string(),
        Some(any_value::Value::DoubleValue(d)) => d.to_string(),
        Some(other) => format!("{other:?}"),
        None => String::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// The origin, the drafts, the pipeline

fn config(bootstrap: &str, collector_port: u16) -> Config {
    support::pipeline::mock_cluster_config(
        bootstrap,
        &format!(
            "[join]\ndeadline_ms = 45000\n\
             [trace]\notlp_endpoint = \"http://127.0.0.1:{collector_port}\"\n\
             service_name = \"{SERVICE_NAME}\"\n"
        ),
    )
}

async fn send_draft(producer: &EventProducer, config: &Config, article_id: &str, origin: &str) {
    let headers = EventHeaders::new(DRAFT_V1, None);
    send_draft_traced(producer, config, article_id, origin, headers.trace).await;
}

/// Publishes the demo's clean draft (one sourced claim: one check) as `article_id`, with
/// `traceparent`.
async fn send_draft_traced(
    producer: &EventProducer,
    config: &Config,
    article_id: &str,
    origin: &str,
    trace: TraceContext,
) {
    let headers = EventHeaders {
        trace,
        schema: DRAFT_V1.to_owned(),
        extra: Vec::new(),
    };
    let draft = demo_draft(
        include_str!("../examples/demo/drafts/clean.json"),
        article_id,
        origin,
    );
    publish_draft_with(producer, config, article_id, &draft, &headers).await;
}

/// Reads the decisions topic from the start until every article in `wanted` is decided; returns
/// each decision's `traceparent`.
async fn decisions(
    config: &Config,
    group: &str,
    wanted: &[&str],
) -> HashMap<String, Option<TraceContext>> {
    let reader = outside_reader(config, &config.kafka.topics.decisions, group);
    let wanted: BTreeSet<&str> = wanted.iter().copied().collect();
    let until = Instant::now() + DECIDED_WITHIN;
    let mut seen = HashMap::new();
    while seen.len() < wanted.len() {
        let message = timeout_at(until, reader.recv())
            .await
            .unwrap_or_else(|_| panic!("decided only {:?} of {wanted:?}", seen.keys()))
            .expect("the reader reads");
        let value: Value =
            serde_json::from_slice(message.payload().unwrap_or_default()).unwrap_or_default();
        let id = value["article_id"].as_str().unwrap_or_default();
        if wanted.contains(id) {
            seen.insert(id.to_owned(), read_trace_context(&message));
        }
    }
    seen
}

// ---------------------------------------------------------------------------------------------
// The test

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_articles_spans_reach_the_collector_as_one_trace_and_a_lost_collector_blocks_nothing() {
    let collector = Collector::start().await;
    let origin = support::origin::start_demo(Router::new()).await;
    let mut kafka = Config::default().kafka;
    kafka.partitions = 3;
    // Leaked: closing consumers wait for the broker, which must outlive them even on failure.
    let broker: &'static EmbeddedBroker = Box::leak(Box::new(
        EmbeddedBroker::start(&kafka).expect("embedded broker starts"),
    ));
    let config = config(broker.bootstrap_servers(), collector.port);
    let telemetry = factgate::telemetry::init(&config).expect("telemetry starts");
    assert_eq!(
        telemetry.endpoint(),
        Some(format!("http://127.0.0.1:{}/v1/traces", collector.port).as_str())
    );
    let roles = start_roles(&config, &Role::ALL).await;
    let producer = EventProducer::new(&config.kafka, broker.bootstrap_servers()).expect("producer");

    // Two drafts, each sent by a CMS with its own trace context.
    let cms = [
        ("otlp-a", factgate::telemetry::new_root()),
        ("otlp-b", factgate::telemetry::new_root()),
    ];
    for (id, trace) in &cms {
        send_draft_traced(&producer, &config, id, &origin, trace.clone()).await;
    }
    let decided = decisions(&config, "otlp-decisions-1", &["otlp-a", "otlp-b"]).await;
    tokio::task::block_in_place(|| telemetry.flush());

    // One check span per (claim, cited source) check of the draft, as extract finds them.
    let clean = factgate_core::events::DraftEvent::from_json(&demo_draft(
        include_str!("../examples/demo/drafts/clean.json"),
        "otlp-a",
        &origin,
    ))
    .expect("the demo draft reads");
    let extraction = factgate_core::extract::extract_titled(
        &clean.body,
        clean.body_format,
        clean.title.as_deref(),
    )
    .expect("the demo draft extracts");
    let checks = factgate_core::roles::check_keys(&extraction).len();
    assert!(checks >= 1, "the clean demo draft cites its sources");

    for (id, cms_trace) in &cms {
        let trace_id = cms_trace.span_context().trace_id().to_string();
        // Spans come in batches: wait until the three roles' spans of this trace are in.
        let until = Instant::now() + SPANS_WITHIN;
        let spans = loop {
            let spans: Vec<ReceivedSpan> = collector
                .spans()
                .into_iter()
                .filter(|s| s.trace_id == trace_id)
                .collect();
            let names: BTreeSet<&str> = spans.iter().map(|s| s.name.as_str()).collect();
            let check_spans = spans.iter().filter(|s| s.name == "check").count();
            if ["draft", "decision"].iter().all(|n| names.contains(n)) && check_spans >= checks {
                break spans;
            }
            assert!(
                Instant::now() < until,
                "{id}: spans of trace {trace_id} received: {names:?}; all spans: {:?}",
                collector.spans()
            );
            sleep(Duration::from_millis(200)).await;
        };
        let one = |name: &str| -> ReceivedSpan {
            let found: Vec<&ReceivedSpan> = spans.iter().filter(|s| s.name == name).collect();
            assert_eq!(found.len(), 1, "{id}: one {name} span: {spans:?}");
            found[0].clone()
        };
        let (draft, decision) = (one("draft"), one("decision"));
        let check_spans: Vec<&ReceivedSpan> = spans.iter().filter(|s| s.name == "check").collect();
        assert_eq!(
            check_spans.len(),
            checks,
            "{id}: one check span per check: {spans:?}"
        );
        for span in [&draft, &decision]
            .into_iter()
            .chain(check_spans.iter().copied())
        {
            assert_eq!(
                span.attributes.get("article_id").map(String::as_str),
                Some(*id)
            );
            assert_eq!(
                span.attributes.get("revision").map(String::as_str),
                Some("1")
            );
            assert_eq!(span.service_name, SERVICE_NAME);
        }
        for check in &check_spans {
            assert!(
                check
                    .attributes
                    .get("claim_id")
                    .is_some_and(|c| !c.is_empty()),
                "{id}: the check names its claim: {check:?}"
            );
            assert_eq!(check.parent_span_id, draft.span_id, "{id}: check");
        }
        // Parent links across the roles: the CMS's span, then extract, then verify and join.
        assert_eq!(
            draft.parent_span_id,
            cms_trace.span_context().span_id().to_string(),
            "{id}: draft"
        );
        assert!(
            std::iter::once(&draft.span_id)
                .chain(check_spans.iter().map(|c| &c.span_id))
                .any(|s| *s == decision.parent_span_id),
            "{id}: the decision's parent is a span of the article: {spans:?}"
        );
        // The decision event names the span that produced it.
        let header = decided[*id]
            .as_ref()
            .expect("the decision carries a traceparent")
            .span_context();
        assert_eq!(
            header.trace_id().to_string(),
            trace_id,
            "{id}: decision header"
        );
        assert_eq!(
            header.span_id().to_string(),
            decision.span_id,
            "{id}: decision header"
        );
    }

    // The collector goes away: drafts are still decided, and nothing waits on the exporter.
    let port = collector.port;
    collector.stop().await;
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the collector's port is closed"
    );
    let later = ["otlp-c", "otlp-d", "otlp-e"];
    let started = Instant::now();
    for id in later {
        send_draft(&producer, &config, id, &origin).await;
    }
    let decided = decisions(&config, "otlp-decisions-2", &later).await;
    assert_eq!(decided.len(), later.len());
    assert!(
        decided.values().all(Option::is_some),
        "decisions still carry their trace: {decided:?}"
    );
    // The same drafts took seconds with the collector up; well under the deadline without it.
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "decided in {:?}",
        started.elapsed()
    );
    roles.stop().await;
    let shutting_down = std::time::Instant::now();
    tokio::task::block_in_place(|| telemetry.shutdown());
    assert!(
        shutting_down.elapsed() < Duration::from_secs(20),
        "the exporter shut down in {:?} with no collector",
        shutting_down.elapsed()
    );
}
