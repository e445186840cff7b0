//! `GET /metrics` of a running stream processor shows what it did: the whole pipeline runs in
//! this process on the embedded broker (librdkafka's mock cluster on 127.0.0.1), with the cited
//! sources served by a local axum origin; three drafts go in (one that passes, one citing a dead
//! link, one unreadable), and once they are decided the metrics must count them.
//!
//! The registry is process-wide, so every count is read as a change from a scrape taken before
//! the drafts were published.

// The pipeline starter and origin alone; the rest serves the integration suite.
#[allow(dead_code)]
mod support;

use std::collections::BTreeMap;
use std::time::Duration;

use axum::Router;
use factgate::config::Config;
use factgate::kafka::{EmbeddedBroker, EventProducer};
use support::pipeline::{decided, demo_draft, publish_draft};
use tokio::time::{Instant, sleep};

/// The longest the test waits for all decisions: group joins on the mock cluster take seconds.
const ALL_DECIDED_WITHIN: Duration = Duration::from_secs(90);
/// How long it waits for librdkafka's first statistics report (set to every second below).
const LAG_REPORTED_WITHIN: Duration = Duration::from_secs(20);

fn config(bootstrap: &str, port: u16) -> Config {
    let mut config = Config::from_toml_str(&format!(
        "[fetch]\naddress_allowlist = [\"127.0.0.1/32\"]\n[http]\nlisten = \"127.0.0.1:{port}\"\n"
    ))
    .expect("test configuration is valid");
    config.kafka.bootstrap_servers = Some(bootstrap.to_owned());
    // Lag comes from librdkafka's statistics; the default interval would outlast the test.
    config
        .kafka
        .properties
        .insert("statistics.interval.ms".into(), "1000".into());
    config
}

/// Every sample of a scrape, by its series (`name{labels}` exactly as rendered).
fn parse(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let (series, value) = l.rsplit_once(' ')?;
            Some((series.to_owned(), value.parse().ok()?))
        })
        .collect()
}

async fn scrape(client: &reqwest::Client, base: &str) -> BTreeMap<String, f64> {
    let response = client
        .get(format!("{base}/metrics"))
        .send()
        .await
        .expect("/metrics answers");
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .expect("ASCII header")
        .to_owned();
    assert_eq!(content_type, "text/plain; version=0.0.4");
    parse(&response.text().await.expect("a text body"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn metrics_count_what_the_pipeline_did() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
    let origin = support::origin::start_demo(Router::new()).await;
    // The broker outlives the roles: closing a consumer waits for it.
    let broker: &'static EmbeddedBroker = Box::leak(Box::new(
        EmbeddedBroker::start(&Config::default().kafka).expect("embedded broker starts"),
    ));
    let port = support::pipeline::free_port();
    let config = config(broker.bootstrap_servers(), port);
    let base = format!("http://127.0.0.1:{port}");

    let client = support::pipeline::http_client();
    let running = support::pipeline::start(config.clone(), &client).await;
    let admin = running.admin.clone();
    let before = scrape(&client, &admin).await;

    let producer = EventProducer::new(&config.kafka, broker.bootstrap_servers()).expect("producer");
    let drafts: [(&str, Vec<u8>); 3] = [
        (
            "metrics-clean",
            demo_draft(
                include_str!("../examples/demo/drafts/clean.json"),
                "metrics-clean",
                &origin,
            ),
        ),
        (
            "metrics-dead-link",
            demo_draft(
                include_str!("../examples/demo/drafts/dead-link.json"),
                "metrics-dead-link",
                &origin,
            ),
        ),
        (
            "metrics-unreadable",
            br#"{"schema_version":"factgate.draft.v1","article_id":"metrics-unreadable","revision":2,"title":"no body"}"#.to_vec(),
        ),
    ];
    for (key, payload) in &drafts {
        publish_draft(&producer, &config, key, payload).await;
    }
    let until = Instant::now() + ALL_DECIDED_WITHIN;
    let mut outcomes = Vec::new();
    for (article_id, _) in &drafts {
        let decision = decided(&client, &base, article_id, until).await;
        outcomes.push((*article_id, decision["outcome"].clone()));
    }
    // The counts below hold only if each draft got the outcome its content calls for: the dead
    // link's check cannot complete, so it must block, never pass.
    assert_eq!(
        outcomes,
        [
            ("metrics-clean", "pass".into()),
            ("metrics-dead-link", "block".into()),
            ("metrics-unreadable", "block".into()),
        ]
    );

    // Every role has decided something, so each has partitions and a broker: the process is
    // ready, as its consumers report it.
    let readyz = client
        .get(format!("{admin}/readyz"))
        .send()
        .await
        .expect("/readyz answers");
    let status = readyz.status();
    let body = readyz.text().await.unwrap_or_default();
    assert_eq!(status.as_u16(), 200, "/readyz: {body}");

    // Lag needs a statistics report after the roles got their partitions.
    let until = Instant::now() + LAG_REPORTED_WITHIN;
    // A partition's lag is known once an offset is committed in it: one the drafts went to.
    // Labels render sorted: group, partition, role, topic.
    let extract_lag = format!(
        "role=\"extract\",topic=\"{}\"}}",
        config.kafka.topics.drafts
    );
    let extract_group = format!("group=\"{}-extract\"", config.kafka.group_prefix);
    let has_lag = |scrape: &BTreeMap<String, f64>| {
        scrape.keys().any(|s| {
            s.starts_with("factgate_consumer_lag_messages{")
                && s.contains(&extract_group)
                && s.ends_with(&extract_lag)
        })
    };
    let after = loop {
        let after = scrape(&client, &admin).await;
        if has_lag(&after) || Instant::now() >= until {
            break after;
        }
        sleep(Duration::from_millis(250)).await;
    };

    let delta = |series: &str| {
        let now = after.get(series).copied();
        assert!(now.is_some(), "{series} is not in the scrape");
        now.unwrap_or_default() - before.get(series).copied().unwrap_or_default()
    };
    let at_least = |series: &str, n: f64| {
        let d = delta(series);
        assert!(d >= n, "{series} rose by {d}, expected at least {n}");
    };
    at_least("factgate_drafts_consumed_total", 3.0);
    at_least("factgate_dead_letters_total", 1.0);
    // Each decision counts once, whatever its number of reasons (the dead link's block has more
    // than one), the unreadable draft's block included; this is the only test of this binary, so
    // the counts are exact.
    assert_eq!(delta("factgate_decisions_total{outcome=\"block\"}"), 2.0);
    assert_eq!(delta("factgate_decisions_total{outcome=\"pass\"}"), 1.0);
    at_least(
        "factgate_decision_reasons_total{reason=\"high_severity_issue\"}",
        1.0,
    );
    assert_eq!(
        delta("factgate_decision_reasons_total{reason=\"draft_unreadable\"}"),
        1.0
    );
    // The latency histogram observes every decision, the unreadable draft's too (timed from its
    // record's timestamp).
    assert_eq!(
        delta("factgate_decision_latency_seconds_count{outcome=\"pass\"}"),
        1.0
    );
    assert_eq!(
        delta("factgate_decision_latency_seconds_count{outcome=\"block\"}"),
        2.0
    );
    assert_eq!(
        after.get(&format!(
            "factgate_build_info{{version=\"{}\"}}",
            env!("CARGO_PKG_VERSION")
        )),
        Some(&1.0)
    );
    for family in ["process_cpu_seconds_total", "process_resident_memory_bytes"] {
        assert!(after.contains_key(family), "{family} missing");
    }
    at_least("factgate_fetches_total{status=\"not_found\"}", 1.0);
    at_least("factgate_fetches_total{status=\"ok\"}", 1.0);
    at_least("factgate_fetch_duration_seconds_count", 2.0);
    at_least("factgate_cache_misses_total", 2.0);
    at_least("factgate_rate_limit_wait_seconds_count", 2.0);
    at_least("factgate_judge_duration_seconds_count", 1.0);
    at_least("factgate_verifications_total{verdict=\"supported\"}", 1.0);
    // The dead link leaves its claim unjudged.
    at_least("factgate_verifications_total{verdict=\"unconfirmed\"}", 1.0);
    // The clean draft's claim is a percentage, "28% … in 2023".
    at_least("factgate_claims_extracted_total{kind=\"percentage\"}", 1.0);
    assert!(
        after.contains_key("factgate_cache_bytes"),
        "factgate_cache_bytes missing"
    );
    assert_eq!(
        after.get("factgate_join_in_flight_articles").copied(),
        Some(0.0),
        "every article is decided, so none is in flight"
    );
    assert!(
        has_lag(&after),
        "no consumer lag for the extract role's drafts topic"
    );
    // No label carries an article id or a URL.
    for series in after.keys() {
        assert!(
            !series.contains("metrics-") && !series.contains("http"),
            "a high-cardinality label: {series}"
        );
    }

    running.stop().await;
}
