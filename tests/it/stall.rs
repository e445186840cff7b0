//! The draft of issue 29 that stalled the gate, beside a clean draft, on the embedded pipeline
//! with every role and the HTTP endpoint in one process (as `factgate run` with no brokers).
//!
//! The hostile draft is about 630 KB (inside the broker's 1 MB message limit): six claims of
//! 10,000 figures each, every one citing a page (plain text) that states them all, in sentences
//! of 5,000 figure pairs. Judging such a claim took minutes of a core on the async threads: `/healthz` went
//! silent for about two minutes and a clean draft published two seconds later was blocked
//! `deadline_exceeded`. Now the draft is refused at extraction (`limit_exceeded`, naming the
//! key), the CPU-heavy work runs on the bounded pool, and clean drafts published from 2 s after
//! it until it is decided all pass.
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
use axum::http::header;
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
/// Every draft's deadline: long enough for the hostile draft to reach judging where nothing
/// refuses it (its page is fetched, parsed and indexed first), so clean drafts come while it is
/// judged.
const DEADLINE: Duration = Duration::from_secs(120);
/// Between clean drafts, while the hostile one is not decided.
const CLEAN_EVERY: Duration = Duration::from_secs(10);
/// The most clean drafts published.
const MAX_CLEAN: usize = 12;
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

/// The page every hostile claim cites, as plain text (cheap to read, so judging starts soon):
/// all their figures, in sentences of [`PAGE_SENTENCE`].
fn figure_page() -> String {
    let mut page = String::from("Regional report\n\n");
    let mut n = 0;
    for i in 0..CLAIMS {
        for k in 0..PAIRS_PER_CLAIM {
            if n % PAGE_SENTENCE == 0 {
                page.push_str("\nIn the region revenue rose");
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
    page.push_str(" in the year.\n");
    page
}

/// What the probe saw.
struct Probed {
    slowest: Duration,
    unanswered: Vec<String>,
    count: usize,
}

/// Probes `/healthz` every [`PROBE_EVERY`] until `done`, from a thread of its own (a probe on the
/// runtime under test would stall with it and see nothing), recording the slowest answer and
/// every probe not answered 200 within [`PROBE_LIMIT`].
fn probe(base: String, done: Arc<AtomicBool>) -> std::thread::JoinHandle<Probed> {
    std::thread::spawn(move || {
        let client = reqwest::blocking::Client::builder()
            .no_proxy()
            .timeout(PROBE_LIMIT)
            .build()
            .expect("a probe client");
        let mut probed = Probed {
            slowest: Duration::ZERO,
            unanswered: Vec::new(),
            count: 0,
        };
        let started = std::time::Instant::now();
        while !done.load(Ordering::Relaxed) {
            let sent = std::time::Instant::now();
            let answer = client.get(format!("{base}/healthz")).send();
            let took = sent.elapsed();
            probed.slowest = probed.slowest.max(took);
            probed.count += 1;
            let at = started.elapsed().as_secs_f64();
            match answer {
                Ok(response) if response.status() == 200 => {}
                Ok(response) => probed
                    .unanswered
                    .push(format!("at {at:.1} s: status {}", response.status())),
                Err(err) => probed
                    .unanswered
                    .push(format!("at {at:.1} s: no answer in {took:?}: {err}")),
            }
            std::thread::sleep(PROBE_EVERY);
        }
        probed
    })
}

/// What a run of the scenario saw.
struct Seen {
    /// Each clean draft's decision, with its time from `published_at` to the decision.
    cleans: Vec<(String, Value, f64)>,
    hostile: Value,
    probed: Probed,
}

/// The hostile draft, then clean drafts (the first 2 s after it, as in the report, then one
/// every [`CLEAN_EVERY`] until the hostile one is decided), on a pipeline configured with
/// `extra` TOML, with `/healthz` probed throughout.
async fn scenario(extra: &str) -> Seen {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
    let page = Arc::new(figure_page());
    let origin = start_demo(Router::new().route(
        "/figures/report.html",
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
        &format!("[join]\ndeadline_ms = {}\n{extra}", DEADLINE.as_millis()),
    );
    config.kafka.partitions = Config::default().kafka.partitions;
    config.http.listen = format!("127.0.0.1:{}", free_port())
        .parse()
        .expect("a loopback address");
    let base = format!("http://{}", config.http.listen);
    let client = http_client();
    let running = start(config.clone(), &client).await;
    let done = Arc::new(AtomicBool::new(false));
    // The probes go to the admin listener, where a cluster's probes go.
    let probes = probe(running.admin.clone(), Arc::clone(&done));

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
    let published = Instant::now();

    let mut cleans = Vec::new();
    tokio::time::sleep_until(published + Duration::from_secs(2)).await;
    loop {
        let article = format!("stall-clean-{}", cleans.len());
        let clean = demo_draft(
            include_str!("../../examples/demo/drafts/clean.json"),
            &article,
            &origin,
        );
        publish_draft(&producer, &config, &article, &clean).await;
        cleans.push((article, Instant::now()));
        let hostile_decided = client
            .get(format!("{base}/v1/decisions/stall-hostile"))
            .send()
            .await
            .is_ok_and(|r| r.status() == 200);
        if hostile_decided || cleans.len() >= MAX_CLEAN {
            break;
        }
        sleep(CLEAN_EVERY).await;
    }

    // Each decided by its deadline, or the test fails at it.
    let mut decided_cleans = Vec::new();
    for (article, at) in cleans {
        let decision: Value = decided(&client, &base, &article, at + DEADLINE).await;
        // From the draft's published_at to the decision.
        let took = decision["report"]["verification_details"]["processing_time_seconds"]
            .as_f64()
            .unwrap_or(f64::NAN);
        decided_cleans.push((article, decision, took));
    }
    let hostile: Value = decided(&client, &base, "stall-hostile", published + DEADLINE * 2).await;
    done.store(true, Ordering::Relaxed);
    let probed = tokio::task::spawn_blocking(move || probes.join().expect("the probe thread"))
        .await
        .expect("joining the probe");
    running.stop().await;
    Seen {
        cleans: decided_cleans,
        hostile,
        probed,
    }
}

/// Every probe answered, or why not.
fn probes_answered(probed: &Probed) -> Option<String> {
    (!probed.unanswered.is_empty()).then(|| {
        format!(
            "/healthz went unanswered while the hostile draft was handled: {:?}",
            probed.unanswered
        )
    })
}

fn describe(seen: &Seen) -> String {
    let latencies: Vec<String> = seen
        .cleans
        .iter()
        .map(|(_, d, took)| format!("{} in {took:.1} s", d["outcome"]))
        .collect();
    format!(
        "clean drafts decided {}; hostile: {} {}; {} /healthz probes, the slowest {:?}",
        latencies.join(", "),
        seen.hostile["outcome"],
        seen.hostile["reasons"],
        seen.probed.count,
        seen.probed.slowest
    )
}

// One async worker thread, so a single piece of CPU-heavy work on it would stall every task.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_draft_built_to_stall_the_gate_is_refused_and_clean_ones_beside_it_pass() {
    let seen = scenario("").await;
    eprintln!("stall, default limits: {}", describe(&seen));
    let mut failures: Vec<String> = seen
        .cleans
        .iter()
        .filter(|(_, d, _)| d["outcome"] != "pass" || d["reasons"] != json!([]))
        .map(|(article, d, _)| {
            format!(
                "{article} was not passed: {} {}",
                d["outcome"], d["reasons"]
            )
        })
        .collect();
    let evidence = seen.hostile["report"]["issues"][0]["evidence"]
        .as_str()
        .unwrap_or_default();
    if seen.hostile["outcome"] != "block"
        || seen.hostile["reasons"] != json!(["limit_exceeded"])
        || !(evidence.contains("extract.max_words_per_claim")
            || evidence.contains("extract.max_figures_per_claim"))
    {
        failures.push(format!(
            "the hostile draft was not blocked limit_exceeded naming the key: {evidence}"
        ));
    }
    failures.extend(probes_answered(&seen.probed));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// With the per-claim caps raised, the hostile claims reach the judge. It compares a claim's
/// first 100 figures and reports the others as not compared (high: the draft is blocked at every
/// strictness, never passed on the figures it compared), in about a second a claim in a debug build; the work runs on the
/// bounded pool and never on the async threads, so `/healthz` still answers throughout and the
/// clean drafts are decided beside it (how long they took is printed).
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn claims_past_the_caps_are_judged_off_the_async_threads() {
    let seen =
        scenario("[extract]\nmax_figures_per_claim = 100000\nmax_words_per_claim = 100000\n").await;
    eprintln!("stall, caps raised: {}", describe(&seen));
    assert_ne!(
        seen.hostile["reasons"],
        json!(["limit_exceeded"]),
        "the hostile draft reached the judge"
    );
    assert_eq!(
        seen.hostile["outcome"],
        "block",
        "claims whose figures were not all compared are never passed: {}",
        describe(&seen)
    );
    assert!(
        seen.cleans.iter().all(|(_, d, _)| d["outcome"].is_string()),
        "every clean draft was decided"
    );
    if let Some(failure) = probes_answered(&seen.probed) {
        panic!("{failure}");
    }
}
