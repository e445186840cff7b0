//! The draft of issue 29 that stalled the gate, beside a clean draft, on the embedded pipeline
//! with every role and the HTTP endpoint in one process (as `factgate run` with no brokers).
//!
//! The hostile draft is about 630 KB (inside the broker's 1 MB message limit): six claims of
//! 10,000 figures each, every one citing a page that states them all, in sentences of 5,000
//! figures. Judging such a claim took minutes of a core on the async threads: `/healthz` went
//! silent for about two minutes and a clean draft published two seconds later was blocked
//! `deadline_exceeded`. Now the draft is refused at extraction (`limit_exceeded`, naming the
//! key), the CPU-heavy work runs on the bounded pool, and the clean draft passes.
//!
//! Everything listens on, and connects to, 127.0.0.1 only.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::support::origin::start_demo;
use crate::support::pipeline::{
    decided, demo_draft, free_port, http_client, mock_cluster_config, publish_draft, start,
};
use axum::Router;
use axum::response::Html;
use axum::routing::get;
use factgate::config::Config;
use factgate::kafka::{EmbeddedBroker, EventProducer};
use serde_json::{Value, json};
use tokio::time::{Instant, sleep};

/// Claims in the hostile draft.
const CLAIMS: usize = 6;
/// Pairs of figures ("4.7% to $312 million") in each of its claims.
const PAIRS_PER_CLAIM: usize = 5_000;
/// Figures per sentence of the page they cite.
const PAGE_SENTENCE: usize = 5_000;
/// Every draft's deadline.
const DEADLINE: Duration = Duration::from_secs(60);
/// How long one `/healthz` may take before the probe counts it as unanswered: a handler that
/// returns a constant, kept generous for a loaded 2-core machine. The stall it guards against
/// lasted two minutes.
const PROBE_LIMIT: Duration = Duration::from_secs(5);
/// Between probes.
const PROBE_EVERY: Duration = Duration::from_millis(100);

/// The `i`-th claim: one sentence of [`PAIRS_PER_CLAIM`] figure pairs, citing `url`.
fn hostile_claim(i: usize, url: &str) -> String {
    let mut text = format!("In region {i} revenue rose");
    for k in 0..PAIRS_PER_CLAIM {
        let sep = if k == 0 { " " } else { ", then " };
        text.push_str(&format!("{sep}{}.{}% to ${}", k % 97, k % 10, 3 * k + i));
    }
    format!("{text} million, according to [the regional report]({url}).")
}

/// The page every hostile claim cites: all their figures, in sentences of [`PAGE_SENTENCE`].
fn figure_page() -> String {
    let mut page = String::from("<html><head><title>Regional report</title></head><body><p>");
    let mut n = 0;
    for i in 0..CLAIMS {
        for k in 0..PAIRS_PER_CLAIM {
            if n % PAGE_SENTENCE == 0 {
                page.push_str("</p><p>In the region revenue rose");
            }
            page.push_str(&format!(
                " {}.{}% to ${} million,",
                k % 97,
                k % 10,
                3 * k + i
            ));
            if n % PAGE_SENTENCE == PAGE_SENTENCE - 1 {
                page.push_str(" in the year.");
            }
            n += 1;
        }
    }
    page.push_str(" in the year.</p></body></html>");
    page
}

/// Probes `/healthz` until `done`, recording the slowest answer and every probe that did not
/// answer 200 within [`PROBE_LIMIT`].
async fn probe(base: String, done: Arc<AtomicBool>) -> (Duration, Vec<String>, usize) {
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(PROBE_LIMIT)
        .build()
        .expect("a probe client");
    let mut slowest = Duration::ZERO;
    let mut failures = Vec::new();
    let mut probes = 0;
    let started = Instant::now();
    while !done.load(Ordering::Relaxed) {
        let sent = Instant::now();
        let answer = client.get(format!("{base}/healthz")).send().await;
        let took = sent.elapsed();
        slowest = slowest.max(took);
        probes += 1;
        match answer {
            Ok(response) if response.status() == 200 => {}
            Ok(response) => failures.push(format!(
                "at {:.1} s: status {}",
                started.elapsed().as_secs_f64(),
                response.status()
            )),
            Err(err) => failures.push(format!(
                "at {:.1} s: no answer in {took:?}: {err}",
                started.elapsed().as_secs_f64()
            )),
        }
        sleep(PROBE_EVERY).await;
    }
    (slowest, failures, probes)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draft_built_to_stall_the_gate_is_refused_and_a_clean_one_beside_it_passes() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
    let page = Arc::new(figure_page());
    let origin = start_demo(Router::new().route(
        "/figures/report.html",
        get(move || {
            let page = Arc::clone(&page);
            async move { Html(page.as_str().to_owned()) }
        }),
    ))
    .await;
    let broker: &'static EmbeddedBroker = Box::leak(Box::new(
        EmbeddedBroker::start(&Config::default().kafka).expect("embedded broker starts"),
    ));
    let mut config = mock_cluster_config(
        broker.bootstrap_servers(),
        &format!("[join]\ndeadline_ms = {}\n", DEADLINE.as_millis()),
    );
    config.kafka.partitions = Config::default().kafka.partitions;
    config.http.listen = format!("127.0.0.1:{}", free_port())
        .parse()
        .expect("a loopback address");
    let base = format!("http://{}", config.http.listen);
    let client = http_client();
    let running = start(config.clone(), &client).await;
    let done = Arc::new(AtomicBool::new(false));
    let probes = tokio::spawn(probe(base.clone(), Arc::clone(&done)));

    let url = format!("{origin}/figures/report.html");
    let body = (0..CLAIMS)
        .map(|i| hostile_claim(i, &url))
        .collect::<Vec<_>>()
        .join("\n\n");
    let hostile = json!({
        "schema_version": "factgate.draft.v1",
        "article_id": "stall-hostile",
        "revision": 1,
        "published_at": chrono::Utc::now().to_rfc3339(),
        "title": "Regional revenue",
        "body": body,
        "body_format": "markdown",
    })
    .to_string();
    let producer =
        EventProducer::new(&config.kafka, broker.bootstrap_servers()).expect("a producer");
    assert!(
        hostile.len() > 600_000 && (hostile.len() as u64) < config.kafka.message_max_bytes(),
        "the hostile draft is {} bytes",
        hostile.len()
    );
    publish_draft(&producer, &config, "stall-hostile", hostile.as_bytes()).await;
    sleep(Duration::from_secs(2)).await;
    let clean = demo_draft(
        include_str!("../../examples/demo/drafts/clean.json"),
        "stall-clean",
        &origin,
    );
    let clean_published = Instant::now();
    publish_draft(&producer, &config, "stall-clean", &clean).await;

    // Decided within the deadline, or the test fails at it.
    let until = clean_published + DEADLINE;
    let clean_decision: Value = decided(&client, &base, "stall-clean", until).await;
    let clean_took = clean_published.elapsed();
    let hostile_decision: Value = decided(&client, &base, "stall-hostile", until).await;
    done.store(true, Ordering::Relaxed);
    let (slowest, failures, count) = probes.await.expect("the probe task");
    running.stop().await;

    assert_eq!(
        clean_decision["outcome"], "pass",
        "the clean draft: {clean_decision}"
    );
    assert_eq!(clean_decision["reasons"], json!([]), "{clean_decision}");
    assert_eq!(
        hostile_decision["outcome"], "block",
        "the hostile draft: {hostile_decision}"
    );
    assert_eq!(
        hostile_decision["reasons"],
        json!(["limit_exceeded"]),
        "{hostile_decision}"
    );
    let evidence = hostile_decision["report"]["issues"][0]["evidence"]
        .as_str()
        .unwrap_or_default();
    assert!(
        evidence.contains("extract.max_words_per_claim")
            || evidence.contains("extract.max_figures_per_claim"),
        "the block names the limit's key: {hostile_decision}"
    );
    assert!(
        failures.is_empty(),
        "/healthz went unanswered while the hostile draft was handled: {failures:?}"
    );
    eprintln!(
        "stall: clean draft passed {:.1} s after it was published; {count} /healthz probes, \
         the slowest {slowest:?}",
        clean_took.as_secs_f64()
    );
}
