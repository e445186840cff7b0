//! `factgate demo`: the whole pipeline on the embedded broker, with a local HTTP origin serving
//! the example sources of `examples/demo/` and the example drafts published to it; one line per
//! decision with its reasons.
//!
//! The origin listens on 127.0.0.1 only and is the only address the demo's configuration
//! allowlists. `/slow/…` answers too slowly for the demo's deadline.

use crate::config::Config;
use crate::kafka::{self, EventHeaders, EventProducer};
use crate::pipeline::{self, Role};
use axum::Router;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use factgate_core::events::{Decision, Outcome};
use rdkafka::Message;
use rdkafka::consumer::Consumer;
use std::collections::BTreeMap;
use std::time::Duration;

/// The demo's drafts, by file name: `{{origin}}` and `{{published_at}}` are filled in at start.
/// Public so tests drive the pipeline with the same content.
pub const DRAFTS: [(&str, &str); 6] = [
    ("clean", include_str!("../examples/demo/drafts/clean.json")),
    (
        "wrong-figure",
        include_str!("../examples/demo/drafts/wrong-figure.json"),
    ),
    (
        "dead-link",
        include_str!("../examples/demo/drafts/dead-link.json"),
    ),
    (
        "fabricated",
        include_str!("../examples/demo/drafts/fabricated.json"),
    ),
    (
        "unsourced-statistic",
        include_str!("../examples/demo/drafts/unsourced-statistic.json"),
    ),
    (
        "slow-source",
        include_str!("../examples/demo/drafts/slow-source.json"),
    ),
];

/// The demo's cited sources, by file name, as its origin serves them.
pub const SOURCES: [(&str, &str); 3] = [
    (
        "survey.html",
        include_str!("../examples/demo/sources/survey.html"),
    ),
    (
        "pricing.html",
        include_str!("../examples/demo/sources/pricing.html"),
    ),
    (
        "market.html",
        include_str!("../examples/demo/sources/market.html"),
    ),
];

/// The demo's deadline: well short of the slow source, so it visibly blocks, and long enough for
/// the other checks on a busy machine (at 4 s, every draft blocked on a 2-core machine at a load
/// of 10).
pub const DEMO_DEADLINE_MS: u64 = 15_000;
/// The demo's `fetch.timeout_ms`: past the slow source, so the deadline comes first.
const DEMO_FETCH_TIMEOUT_MS: u64 = 60_000;
/// How long the slow source takes: well past the deadline.
const SLOW_SOURCE: Duration = Duration::from_secs(30);
/// How long the demo waits for all its decisions.
const DEMO_TIMEOUT: Duration = Duration::from_secs(90);

/// Faults that stop the demo.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error("starting the demo's HTTP origin")]
    Origin(#[source] std::io::Error),
    #[error(transparent)]
    Pipeline(#[from] pipeline::PipelineError),
    #[error(transparent)]
    Kafka(#[from] kafka::KafkaSetupError),
    #[error("Kafka client error")]
    Client(#[from] rdkafka::error::KafkaError),
    #[error("the demo's configuration")]
    Config(#[source] crate::config::ConfigError),
    #[error("the pipeline stopped before it started")]
    NotStarted,
    #[error("only {decided} of {expected} drafts were decided within {timeout_s} s")]
    Incomplete {
        decided: usize,
        expected: usize,
        timeout_s: u64,
    },
}

/// Runs the demo, writing one line per decision to `out`; returns the decisions by article.
///
/// # Errors
/// When the pipeline cannot start, or not every draft is decided in time.
pub async fn run(
    mut out: impl std::io::Write + Send,
) -> Result<BTreeMap<String, Decision>, DemoError> {
    let origin = start_origin().await?;
    // The fetch timeout outlasts the slow source, so it is the deadline that blocks it.
    let mut config = Config::from_toml_str(&format!(
        "[fetch]\naddress_allowlist = [\"127.0.0.1/32\"]\ntimeout_ms = {DEMO_FETCH_TIMEOUT_MS}\n\
         [join]\ndeadline_ms = {DEMO_DEADLINE_MS}\n[log]\nlevel = \"warn\"\n"
    ))
    .map_err(DemoError::Config)?;
    config.kafka.bootstrap_servers = None;
    let kafka_config = config.kafka.clone();

    let (started_tx, started_rx) = tokio::sync::oneshot::channel::<String>();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let pipeline = tokio::spawn(pipeline::run(
        config,
        &Role::ALL,
        false,
        async move {
            let _ = stop_rx.await;
        },
        move |running| {
            let _ = started_tx.send(running.bootstrap.clone());
        },
    ));
    let Ok(bootstrap) = started_rx.await else {
        // The pipeline stopped before starting: its error says why.
        return match pipeline.await {
            Ok(Err(err)) => Err(err.into()),
            _ => Err(DemoError::NotStarted),
        };
    };
    let _ = writeln!(
        out,
        "embedded Kafka broker at {bootstrap}; sources served at {origin}"
    );

    let decisions_consumer = kafka::consumer(&kafka_config, &bootstrap, "demo-reader")?;
    decisions_consumer.subscribe(&[kafka_config.topics.decisions.as_str()])?;
    let producer = EventProducer::new(&kafka_config, &bootstrap)?;
    let published_at = chrono::Utc::now().to_rfc3339();
    let mut expected = Vec::new();
    for (name, template) in DRAFTS {
        let draft = template
            .replace("{{origin}}", &origin)
            .replace("{{published_at}}", &published_at);
        let article_id = serde_json::from_str::<serde_json::Value>(&draft)
            .ok()
            .and_then(|v| v["article_id"].as_str().map(str::to_owned))
            .unwrap_or_else(|| name.to_owned());
        let headers = EventHeaders::new(factgate_core::events::DRAFT_V1, None);
        producer
            .produce(
                &kafka_config.topics.drafts,
                &article_id,
                draft.as_bytes(),
                &headers,
            )
            .await?;
        expected.push(article_id);
    }
    let _ = writeln!(
        out,
        "published {} drafts; waiting for decisions…",
        expected.len()
    );

    let mut decided: BTreeMap<String, Decision> = BTreeMap::new();
    let deadline = tokio::time::Instant::now() + DEMO_TIMEOUT;
    while decided.len() < expected.len() {
        let received = tokio::time::timeout_at(deadline, decisions_consumer.recv()).await;
        let Ok(received) = received else { break };
        let Ok(message) = received else { continue };
        let Ok(decision) =
            serde_json::from_slice::<Decision>(message.payload().unwrap_or_default())
        else {
            continue;
        };
        if expected.contains(&decision.article_id) && !decided.contains_key(&decision.article_id) {
            let _ = writeln!(out, "{}", line(&decision));
            decided.insert(decision.article_id.clone(), decision);
        }
    }
    let _ = stop_tx.send(());
    let _ = pipeline.await;
    if decided.len() < expected.len() {
        return Err(DemoError::Incomplete {
            decided: decided.len(),
            expected: expected.len(),
            timeout_s: DEMO_TIMEOUT.as_secs(),
        });
    }
    Ok(decided)
}

/// One line for a decision: outcome, article, reasons, and what the editor reads first.
pub fn line(decision: &Decision) -> String {
    let outcome = match decision.outcome {
        Outcome::Pass => "PASS ",
        Outcome::Block => "BLOCK",
    };
    let reasons: Vec<String> = decision
        .reasons
        .iter()
        .filter_map(|r| serde_json::to_value(r).ok())
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    let first_issue = decision
        .report
        .issues
        .first()
        .map(|i| format!(" — {}", i.problem))
        .unwrap_or_default();
    format!(
        "{outcome} {:<24} {:<22}{}",
        decision.article_id,
        if reasons.is_empty() {
            "-".to_owned()
        } else {
            reasons.join(",")
        },
        first_issue
    )
}

/// Serves the example sources on 127.0.0.1; returns the origin (`http://127.0.0.1:PORT`).
async fn start_origin() -> Result<String, DemoError> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(DemoError::Origin)?;
    let port = listener.local_addr().map_err(DemoError::Origin)?.port();
    let app = Router::new()
        .route("/slow/{name}", get(slow))
        .route("/{name}", get(source));
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(format!("http://127.0.0.1:{port}"))
}

async fn source(Path(name): Path<String>) -> Response {
    match SOURCES.iter().find(|(n, _)| *n == name) {
        Some((_, html)) => Html(*html).into_response(),
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

async fn slow(Path(name): Path<String>) -> Response {
    tokio::time::sleep(SLOW_SOURCE).await;
    source(Path(name)).await
}
