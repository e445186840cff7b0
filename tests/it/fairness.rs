//! No draft holds up another: the heaviest draft inside every limit (990 claims of 98 figures
//! each, citing one page of figures), on the embedded pipeline with every role in one process,
//! beside clean drafts published 2 s after it.
//!
//! Judging the heavy draft took both cores for about 40 s, and the clean drafts published after
//! it waited behind every one of its judgments: each was blocked `deadline_exceeded`. Now drafts
//! take turns at the judge (a clean draft's judgments wait behind at most one of the heavy
//! draft's) and each draft has a judging budget (`judge.max_draft_judge_ms`) past which it is
//! blocked `limit_exceeded`: the clean drafts pass well inside a deadline shorter than the heavy
//! draft's judging would take, and the heavy draft fails closed. (The budget's own block,
//! `limit_exceeded` naming `judge.max_draft_judge_ms`, is shown by `factgate check` in
//! `src/verify` and the unit tests of `src/fair.rs`.)
//!
//! Everything listens on, and connects to, 127.0.0.1 only.

use std::sync::Arc;
use std::time::Duration;

use crate::support::origin::start_demo;
use crate::support::pipeline::{
    decided, demo_draft, free_port, http_client, mock_cluster_config, publish_draft, start,
};
use axum::Router;
use axum::http::header;
use axum::routing::get;
use factgate::config::Config;
use factgate::kafka::{EmbeddedBroker, EventProducer};
use serde_json::{Value, json};
use tokio::time::Instant;

/// Claims in the heavy draft, and figures in each: inside the default limits (1,000 claims,
/// 100 figures a claim) and the broker's 1 MB message.
const CLAIMS: usize = 990;
const FIGURES_PER_CLAIM: usize = 98;
/// Figures on the page every heavy claim cites: a fifth of the 10,000, so that one
/// judgment of a heavy claim takes seconds in a debug build, as it takes a fraction of a second
/// in a release build against the full page; the draft's judging still runs to minutes.
const PAGE_FIGURES: usize = 2_000;
/// Every draft's deadline: shorter than the heavy draft's judging would take on its own (about
/// 40 s of both cores), so a clean draft waiting behind all of it would be blocked.
const DEADLINE: Duration = Duration::from_secs(25);
/// Clean drafts published beside it.
const CLEAN: usize = 4;

fn heavy_claim(i: usize, url: &str) -> String {
    let figures: Vec<String> = (0..FIGURES_PER_CLAIM)
        .map(|k| format!("{}.{}%", (i * 7 + k) % 97, k % 10))
        .collect();
    format!(
        "District {i} rates were {}, says [the ledger]({url}).",
        figures.join(", ")
    )
}

fn figure_page() -> String {
    let mut page = String::from("District ledger\n\n");
    for n in 0..PAGE_FIGURES {
        if n % 50 == 0 {
            page.push_str("\nDistrict rates were");
        }
        page.push_str(&format!(" {}.{}%,", n % 97, n % 10));
        if n % 50 == 49 {
            page.push_str(" in the year.");
        }
    }
    page.push('\n');
    page
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clean_drafts_beside_the_heaviest_draft_in_limits_are_decided_on_time() {
    let page = Arc::new(figure_page());
    let origin = start_demo(Router::new().route(
        "/ledger.txt",
        get(move || {
            let page = Arc::clone(&page);
            async move {
                (
                    [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                    page.as_str().to_owned(),
                )
            }
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
    let producer =
        EventProducer::new(&config.kafka, broker.bootstrap_servers()).expect("a producer");

    // The usual latency of a clean draft, alone.
    let alone_at = Instant::now();
    let alone = demo_draft(
        include_str!("../../examples/demo/drafts/clean.json"),
        "fair-alone",
        &origin,
    );
    publish_draft(&producer, &config, "fair-alone", &alone).await;
    let decision = decided(&client, &base, "fair-alone", alone_at + DEADLINE).await;
    assert_eq!(decision["outcome"], "pass", "{decision}");
    let usual = alone_at.elapsed();

    let url = format!("{origin}/ledger.txt");
    let body = (0..CLAIMS)
        .map(|i| heavy_claim(i, &url))
        .collect::<Vec<_>>()
        .join("\n\n");
    let heavy = json!({
        "schema_version": "factgate.draft.v1",
        "article_id": "fair-heavy",
        "revision": 1,
        "published_at": chrono::Utc::now().to_rfc3339(),
        "body": body,
        "body_format": "markdown",
    })
    .to_string();
    assert!(
        (heavy.len() as u64) < config.kafka.message_max_bytes(),
        "the heavy draft is {} bytes",
        heavy.len()
    );
    publish_draft(&producer, &config, "fair-heavy", heavy.as_bytes()).await;
    let heavy_at = Instant::now();
    tokio::time::sleep(Duration::from_secs(2)).await;

    let mut cleans = Vec::new();
    for n in 0..CLEAN {
        let article = format!("fair-clean-{n}");
        let clean = demo_draft(
            include_str!("../../examples/demo/drafts/clean.json"),
            &article,
            &origin,
        );
        publish_draft(&producer, &config, &article, &clean).await;
        cleans.push((article, Instant::now()));
    }
    let mut slowest = Duration::ZERO;
    for (article, at) in &cleans {
        let decision: Value = decided(&client, &base, article, *at + DEADLINE).await;
        let took = at.elapsed();
        slowest = slowest.max(took);
        assert_eq!(
            decision["outcome"], "pass",
            "{article}, published beside the heavy draft: {decision}"
        );
    }
    let heavy: Value = decided(&client, &base, "fair-heavy", heavy_at + DEADLINE * 3).await;
    eprintln!(
        "a clean draft alone: {:.1} s; beside the heavy draft: {:.1} s at the slowest; the \
         heavy draft decided after {:.1} s: {} {}",
        usual.as_secs_f64(),
        slowest.as_secs_f64(),
        heavy_at.elapsed().as_secs_f64(),
        heavy["outcome"],
        heavy["reasons"]
    );
    // The heavy draft fails closed: blocked for the judging time it went over, or, where its
    // deadline comes first, for the deadline.
    assert_eq!(heavy["outcome"], "block", "{heavy}");
    let reasons = heavy["reasons"].as_array().expect("reasons");
    assert!(
        reasons.contains(&Value::from("limit_exceeded"))
            || reasons.contains(&Value::from("deadline_exceeded")),
        "{reasons:?}"
    );
    running.stop().await;
}
