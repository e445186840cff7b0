//! `factgate recheck` end to end: an archive of 210 drafts decided live by the pipeline, the
//! cited pages changed on a 127.0.0.1 origin (links now dead, pages corrected, pages now
//! contradicting their articles, dead links back), then re-checked as runs of their own: the
//! diff against the live decision asserted article by article, a second run that must not see
//! the first's decisions, a run interrupted and resumed, and the live topics left untouched.
//!
//! On the embedded broker the runs go through the library; on tansu (an independent
//! Kafka-protocol broker; `cargo install tansu --features dynostore`) a kafka-python CMS
//! (`tests/e2e/cms.py`) publishes the archive and reads the live decisions, and the runs are the
//! `factgate recheck` command, its exit status and its JSON, CSV and Markdown reports. The tansu
//! test fails, never skips, when tansu or kafka-python is missing (.ci/test.sh installs both).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::origin::{self, Server, respond};
use crate::support::tansu::tansu_binary;
use factgate::config::Config;
use factgate::kafka::{EmbeddedBroker, EventProducer};
use factgate::pipeline::Role;
use factgate::recheck::{self, Change, FindingKind, RecheckError, RecheckOptions, RunReport};
use factgate_core::events::{Decision, Outcome};
use rdkafka::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Message;
use serde_json::{Value, json};
use tokio::time::{Instant, sleep, timeout};

/// Drafts in the archive: 30 articles of each case (the revised ones twice).
const ARTICLES: usize = 210;
/// What the live pipeline and each run may take, at most.
const LIVE_WAIT: Duration = Duration::from_secs(180);
const RUN_WAIT: Duration = Duration::from_secs(240);

/// How an article's cited page changes between its live decision and the re-check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Case {
    /// The page backs the article both times.
    Unchanged,
    /// The page backed it live and is gone now (404).
    NowDead,
    /// The page gave another figure live and was corrected since.
    Corrected,
    /// The page backed it live and gives another figure now.
    NowWrong,
    /// The page was gone live and is back now.
    Revived,
    /// The article was revised: revision 1 misquoted the page, revision 2 (the latest) is right.
    Revised,
    /// The page gives another figure both times.
    StillWrong,
}

const CASES: [Case; 7] = [
    Case::Unchanged,
    Case::NowDead,
    Case::Corrected,
    Case::NowWrong,
    Case::Revived,
    Case::Revised,
    Case::StillWrong,
];

fn case_of(i: usize) -> Case {
    CASES[i % CASES.len()]
}

fn article_id(i: usize) -> String {
    format!("port-{i:03}")
}

/// What the origin serves for a page: 200 with the figure, or 404.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Page {
    Figure(u32),
    Gone,
}

/// The figure every article states; a page with another figure contradicts it by far.
const TRUE_FIGURE: u32 = 12;
const OTHER_FIGURE: u32 = 31;

fn live_page(case: Case) -> Page {
    match case {
        Case::Corrected | Case::StillWrong => Page::Figure(OTHER_FIGURE),
        Case::Revived => Page::Gone,
        _ => Page::Figure(TRUE_FIGURE),
    }
}

fn recheck_page(case: Case) -> Page {
    match case {
        Case::NowDead => Page::Gone,
        Case::NowWrong | Case::StillWrong => Page::Figure(OTHER_FIGURE),
        _ => Page::Figure(TRUE_FIGURE),
    }
}

/// The cited pages, changed by the test between phases; an optional delay per request.
#[derive(Default)]
struct Pages {
    pages: Mutex<HashMap<String, Page>>,
    delay_ms: Mutex<u64>,
}

impl Pages {
    fn set_all(&self, page_of: impl Fn(Case) -> Page) {
        let mut pages = self.pages.lock().unwrap();
        for i in 0..ARTICLES {
            pages.insert(format!("/port/{i}"), page_of(case_of(i)));
        }
    }
}

fn page_html(i: usize, figure: u32) -> String {
    format!(
        "<!doctype html><html><head><title>Harbour freight report {i}</title></head><body>\
         <h1>Harbour freight report {i}</h1><p>In 2025, container traffic through the harbour \
         of Port {i} rose {figure}% to 41,000 boxes, the port authority said.</p>\
         <p>Bulk cargo was flat.</p></body></html>"
    )
}

async fn start_origin(pages: Arc<Pages>) -> Server {
    origin::start(move |hit| {
        let pages = Arc::clone(&pages);
        async move {
            let delay = *pages.delay_ms.lock().unwrap();
            if delay > 0 {
                sleep(Duration::from_millis(delay)).await;
            }
            let page = pages.pages.lock().unwrap().get(&hit.path).copied();
            let i: Option<usize> = hit.path.strip_prefix("/port/").and_then(|n| n.parse().ok());
            match (page, i) {
                (Some(Page::Figure(figure)), Some(i)) => respond(
                    200,
                    &[("content-type", "text/html; charset=utf-8")],
                    page_html(i, figure),
                ),
                _ => respond(404, &[("content-type", "text/plain")], "not found"),
            }
        }
    })
    .await
}

/// The draft events of the archive, in publication order: revision 1 of the revised articles
/// first, then every article's latest revision.
fn archive(origin_port: u16) -> Vec<(String, Vec<u8>)> {
    let draft = |i: usize, revision: u64, figure: u32| {
        let body = format!(
            "Container traffic through the harbour of Port {i} rose \
             {figure}% in 2025, according to [the port authority](http://127.0.0.1:{origin_port}/port/{i}).\n"
        );
        let section = if i.is_multiple_of(2) {
            "Business"
        } else {
            "Transport"
        };
        let event = json!({
            "schema_version": "factgate.draft.v1",
            "article_id": article_id(i),
            "revision": revision,
            "published_at": chrono::Utc::now().to_rfc3339(),
            // A title that restates no claim: each article has one claim, the cited sentence.
            "title": "Weekly freight column",
            "body": body,
            "body_format": "markdown",
            "section": section,
        });
        (article_id(i), serde_json::to_vec(&event).unwrap())
    };
    let mut drafts: Vec<(String, Vec<u8>)> = (0..ARTICLES)
        .filter(|i| case_of(*i) == Case::Revised)
        .map(|i| draft(i, 1, 30))
        .collect();
    drafts.extend((0..ARTICLES).map(|i| {
        let revision = if case_of(i) == Case::Revised { 2 } else { 1 };
        draft(i, revision, TRUE_FIGURE)
    }));
    drafts
}

/// (article, revision) pairs the live pipeline must decide.
fn live_decision_count() -> usize {
    ARTICLES
        + (0..ARTICLES)
            .filter(|i| case_of(*i) == Case::Revised)
            .count()
}

fn config_for(bootstrap: &str) -> Config {
    let mut config = crate::support::pipeline::mock_cluster_config(bootstrap, "");
    config.fetch.per_host_requests_per_second = 500.0;
    config.fetch.per_host_burst = 500;
    config.fetch.per_host_concurrency = 32;
    config.fetch.global_requests_per_second = 1000.0;
    config.kafka.group_prefix = format!("recheck-it-{}", std::process::id());
    config
}

fn producer(config: &Config) -> EventProducer {
    EventProducer::new(
        &config.kafka,
        config.kafka.bootstrap_servers.as_deref().unwrap_or(""),
    )
    .expect("producer")
}

/// Every record of `topic` now, read without a group: (key, payload). Read until nothing
/// comes for a while rather than to the high watermark, which tansu reports short after a
/// batch.
fn read_all(config: &Config, topic: &str) -> Vec<(String, Vec<u8>)> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set(
            "bootstrap.servers",
            config.kafka.bootstrap_servers.as_deref().unwrap_or(""),
        )
        .set("enable.auto.commit", "false")
        // Assigned partitions need a group id; this one never joins or commits.
        .set("group.id", "recheck-test-reader")
        .create()
        .expect("reader");
    let metadata = consumer
        .fetch_metadata(Some(topic), Duration::from_secs(10))
        .expect("metadata");
    let mut list = rdkafka::TopicPartitionList::new();
    for p in metadata.topics()[0].partitions() {
        list.add_partition_offset(topic, p.id(), rdkafka::Offset::Beginning)
            .unwrap();
    }
    consumer.assign(&list).expect("assign");
    let mut records = Vec::new();
    let mut last = std::time::Instant::now();
    while last.elapsed() < Duration::from_millis(1500) {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(100)) {
            last = std::time::Instant::now();
            records.push((
                String::from_utf8_lossy(m.key().unwrap_or_default()).into_owned(),
                m.payload().unwrap_or_default().to_vec(),
            ));
        }
    }
    records
}

fn decisions_on(config: &Config, topic: &str) -> Vec<Decision> {
    read_all(config, topic)
        .into_iter()
        .map(|(_, payload)| serde_json::from_slice(&payload).expect("a decision"))
        .collect()
}

/// Publishes the archive with factgate's producer (the embedded test) and waits until the live
/// pipeline has decided every (article, revision).
async fn live_decisions_complete(config: &Config) -> Vec<Decision> {
    let until = Instant::now() + LIVE_WAIT;
    loop {
        let decisions = decisions_on(config, &config.kafka.topics.decisions);
        let keys: BTreeSet<(String, Option<u64>)> = decisions
            .iter()
            .map(|d| (d.article_id.clone(), d.revision))
            .collect();
        if keys.len() >= live_decision_count() {
            return decisions;
        }
        assert!(
            Instant::now() < until,
            "the live pipeline decided {} of {} drafts in time",
            keys.len(),
            live_decision_count()
        );
        sleep(Duration::from_millis(500)).await;
    }
}

/// The live outcomes the pages call for, checked so the re-check's diff starts from known
/// ground.
fn assert_live_outcomes(decisions: &[Decision]) {
    let mut latest: BTreeMap<String, &Decision> = BTreeMap::new();
    for d in decisions {
        if latest
            .get(&d.article_id)
            .is_none_or(|c| d.revision >= c.revision)
        {
            latest.insert(d.article_id.clone(), d);
        }
    }
    for i in 0..ARTICLES {
        let d = latest[&article_id(i)];
        let want = match live_page(case_of(i)) {
            Page::Figure(TRUE_FIGURE) => Outcome::Pass,
            _ => Outcome::Block,
        };
        assert_eq!(
            d.outcome,
            want,
            "live {} ({:?}): {:?}",
            d.article_id,
            case_of(i),
            d.reasons
        );
    }
}

/// What each article's diff must say, for sources changed by [`recheck_page`] (and, when
/// `revived_dead` is set, the dead links of `NowDead` back again).
fn expected(
    case: Case,
    revived_dead: bool,
) -> (Change, Outcome, Vec<FindingKind>, Vec<FindingKind>) {
    use FindingKind::*;
    match case {
        Case::Unchanged | Case::Revised => (Change::Unchanged, Outcome::Pass, vec![], vec![]),
        Case::NowDead if revived_dead => (Change::Unchanged, Outcome::Pass, vec![], vec![]),
        Case::NowDead => (
            Change::NewlyBlocked,
            Outcome::Block,
            vec![CitationDead],
            vec![],
        ),
        Case::Corrected => (
            Change::Fixed,
            Outcome::Pass,
            vec![SourceChanged],
            vec![FigureMismatch],
        ),
        Case::NowWrong => (
            Change::NewlyBlocked,
            Outcome::Block,
            vec![FigureMismatch, SourceChanged],
            vec![],
        ),
        Case::Revived => (Change::Fixed, Outcome::Pass, vec![], vec![CitationDead]),
        Case::StillWrong => (Change::Unchanged, Outcome::Block, vec![], vec![]),
    }
}

/// Asserts every article's diff in a report (as JSON, the format users read back).
fn assert_diff(report: &Value, articles: &[usize], revived_dead: bool) {
    let by_id: HashMap<&str, &Value> = report["articles"]
        .as_array()
        .expect("articles")
        .iter()
        .map(|a| (a["article_id"].as_str().unwrap(), a))
        // The late draft, published after the archive, has its own assertions.
        .filter(|(id, _)| id.starts_with("port-"))
        .collect();
    assert_eq!(by_id.len(), articles.len(), "one entry per article");
    for &i in articles {
        let a = by_id[article_id(i).as_str()];
        let (change, outcome, new, resolved) = expected(case_of(i), revived_dead);
        let kinds = |key: &str| -> Vec<String> {
            let mut k: Vec<String> = a[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["kind"].as_str().unwrap().to_owned())
                .collect();
            k.sort();
            k
        };
        let names = |list: Vec<FindingKind>| -> Vec<String> {
            let mut k: Vec<String> = list.iter().map(|f| f.as_str().to_owned()).collect();
            k.sort();
            k
        };
        let context = format!("{} ({:?}): {a}", article_id(i), case_of(i));
        assert_eq!(a["change"], change.as_str(), "{context}");
        assert_eq!(
            a["recheck"]["outcome"],
            if outcome == Outcome::Pass {
                "pass"
            } else {
                "block"
            },
            "{context}"
        );
        assert_eq!(kinds("new_findings"), names(new), "{context}");
        assert_eq!(kinds("resolved_findings"), names(resolved), "{context}");
        let revision = if case_of(i) == Case::Revised { 2 } else { 1 };
        assert_eq!(
            a["recheck"]["revision"], revision,
            "the latest revision: {context}"
        );
        assert_eq!(a["live"]["revision"], revision, "{context}");
        assert_ne!(
            a["live"]["decision_id"], a["recheck"]["decision_id"],
            "a re-check decision has an id of its own: {context}"
        );
    }
}

fn options(run_id: &str) -> RecheckOptions {
    RecheckOptions {
        run_id: run_id.to_owned(),
        ..RecheckOptions::default()
    }
}

async fn run_to_end(config: &Config, options: RecheckOptions) -> RunReport {
    timeout(
        RUN_WAIT,
        recheck::run(config, options, std::future::pending(), |_| {}),
    )
    .await
    .expect("the run ends in time")
    .expect("the run completes")
}

/// The high watermarks of the live topics: a re-check must leave them as they are.
fn live_marks(config: &Config) -> Vec<(String, i32, i64)> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set(
            "bootstrap.servers",
            config.kafka.bootstrap_servers.as_deref().unwrap_or(""),
        )
        .create()
        .expect("reader");
    let t = &config.kafka.topics;
    let mut marks = Vec::new();
    for topic in [
        &t.verify,
        &t.verified,
        &t.manifests,
        &t.decisions,
        &t.dead_letter,
    ] {
        for p in 0..i32::try_from(config.kafka.partitions).unwrap() {
            let (_, high) = consumer
                .fetch_watermarks(topic, p, Duration::from_secs(10))
                .expect("watermarks");
            marks.push((topic.clone(), p, high));
        }
    }
    marks
}

fn all_articles() -> Vec<usize> {
    (0..ARTICLES).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_archive_is_rechecked_in_isolated_bounded_resumable_runs_on_the_embedded_broker() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
    let pages = Arc::new(Pages::default());
    pages.set_all(live_page);
    let origin = start_origin(Arc::clone(&pages)).await;
    let mut kafka = Config::default().kafka;
    kafka.partitions = 3;
    // Kept for the whole test process: consumers still closing need it.
    let broker: &'static EmbeddedBroker = Box::leak(Box::new(
        EmbeddedBroker::start(&kafka).expect("embedded broker starts"),
    ));
    let config = config_for(broker.bootstrap_servers());

    // Live: the pipeline decides the archive.
    let live = crate::support::pipeline::start_roles(&config, &Role::ALL).await;
    let producer = producer(&config);
    for (key, payload) in archive(origin.port) {
        crate::support::pipeline::publish_draft(&producer, &config, &key, &payload).await;
    }
    let live_decisions = live_decisions_complete(&config).await;
    assert_live_outcomes(&live_decisions);
    live.stop().await;
    let marks_before = live_marks(&config);

    // The sources change; run 1 re-checks the archive.
    pages.set_all(recheck_page);
    let run1 = run_to_end(&config, options("run-1")).await;
    let json1: Value = serde_json::to_value(&run1).unwrap();
    assert_diff(&json1, &all_articles(), false);
    let per_case = ARTICLES / CASES.len();
    assert_eq!(run1.summary.articles, ARTICLES);
    assert_eq!(run1.summary.changes["newly_blocked"], 2 * per_case);
    assert_eq!(run1.summary.changes["fixed"], 2 * per_case);
    assert_eq!(run1.summary.new_findings["citation_dead"], per_case);

    // A re-check's decisions follow the decision contract, run id included.
    let validator = crate::support::schema::validator("decision.v1");
    let run1_decisions: Vec<Decision> =
        decisions_on(&config, &config.kafka.topics.recheck_decisions)
            .into_iter()
            .filter(|d| d.run_id.as_deref() == Some("run-1"))
            .collect();
    assert_eq!(run1_decisions.len(), ARTICLES, "one decision per article");
    for d in &run1_decisions {
        crate::support::schema::assert_valid(&validator, d);
    }

    // The dead links come back; run 2 must judge them on what it fetches, not on run 1's 404s.
    pages.set_all(|case| match case {
        Case::NowDead => Page::Figure(TRUE_FIGURE),
        other => recheck_page(other),
    });
    let run2 = run_to_end(&config, options("run-2")).await;
    let json2: Value = serde_json::to_value(&run2).unwrap();
    assert_diff(&json2, &all_articles(), true);
    assert_eq!(run2.summary.changes["newly_blocked"], per_case);
    let ids1: BTreeSet<&str> = run1
        .articles
        .iter()
        .map(|a| a.recheck.decision_id.as_str())
        .collect();
    assert!(
        run2.articles
            .iter()
            .all(|a| !ids1.contains(a.recheck.decision_id.as_str())),
        "run 2 reported a decision of run 1"
    );

    // Run 3 is interrupted part way, a draft is published meanwhile, and run 3 resumes.
    *pages.delay_ms.lock().unwrap() = 20;
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let mut stop_tx = Some(stop_tx);
    let interrupted = timeout(
        RUN_WAIT,
        recheck::run(
            &config,
            RecheckOptions {
                max_in_flight_checks: Some(2),
                ..options("run-3")
            },
            async move {
                let _ = stop_rx.await;
            },
            move |tally| {
                if tally.decided >= 40
                    && let Some(tx) = stop_tx.take()
                {
                    let _ = tx.send(());
                }
            },
        ),
    )
    .await
    .expect("the interrupted run stops in time");
    let Err(RecheckError::Interrupted { decided, total, .. }) = interrupted else {
        panic!("run 3 was not interrupted: {interrupted:?}");
    };
    assert!(decided >= 40 && decided < total, "{decided}/{total}");
    *pages.delay_ms.lock().unwrap() = 0;
    let late = archive(origin.port)
        .into_iter()
        .map(|(_, payload)| {
            let mut v: Value = serde_json::from_slice(&payload).unwrap();
            v["article_id"] = json!("late-article");
            serde_json::to_vec(&v).unwrap()
        })
        .next()
        .unwrap();
    crate::support::pipeline::publish_draft(&producer, &config, "late-article", &late).await;
    let run3 = run_to_end(&config, options("run-3")).await;
    assert_eq!(
        run3.summary.articles, ARTICLES,
        "published after the run started: not in it"
    );
    assert!(run3.articles.iter().all(|a| a.article_id != "late-article"));
    assert_diff(&serde_json::to_value(&run3).unwrap(), &all_articles(), true);
    let run3_decisions = decisions_on(&config, &config.kafka.topics.recheck_decisions)
        .into_iter()
        .filter(|d| d.run_id.as_deref() == Some("run-3"))
        .count();
    assert!(
        run3_decisions < ARTICLES + 10,
        "resumed, not started over: {run3_decisions} decisions for {ARTICLES} articles"
    );

    // Two instances of one run share its work and end with the same report.
    let (a, b) = tokio::join!(
        run_to_end(&config, options("run-shared")),
        run_to_end(&config, options("run-shared")),
    );
    assert_diff(&serde_json::to_value(&a).unwrap(), &all_articles(), true);
    assert_eq!(a.summary, b.summary);
    assert_eq!(
        a.summary.articles,
        ARTICLES + 1,
        "a run started after the late draft includes it"
    );
    let shared = decisions_on(&config, &config.kafka.topics.recheck_decisions)
        .into_iter()
        .filter(|d| d.run_id.as_deref() == Some("run-shared"))
        .count();
    assert!(
        shared < ARTICLES + 20,
        "the instances shared the work rather than each doing it all: {shared} decisions"
    );

    // --sections and --articles narrow a run.
    let narrowed = run_to_end(
        &config,
        RecheckOptions {
            sections: vec!["business".into()],
            articles: vec![
                article_id(0),
                article_id(1),
                article_id(2),
                "no-such".into(),
            ],
            ..options("run-4")
        },
    )
    .await;
    let chosen: Vec<&str> = narrowed
        .articles
        .iter()
        .map(|a| a.article_id.as_str())
        .collect();
    assert_eq!(chosen.len(), 2, "{chosen:?}");
    assert!(chosen.contains(&"port-000") && chosen.contains(&"port-002"));
    assert_eq!(narrowed.missing_articles, ["no-such", "port-001"]);

    // Nothing was written where the live deployment reads or the CMS gates.
    assert_eq!(
        live_marks(&config),
        marks_before,
        "a re-check wrote to a live topic"
    );
    // The run's metrics carry its id.
    let metrics = factgate::metrics::render();
    assert!(
        metrics.contains("factgate_recheck_articles{run=\"run-1\"} 210"),
        "{}",
        metrics
            .lines()
            .filter(|l| l.contains("recheck"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// tansu, with the command and a kafka-python CMS

fn write_config(dir: &Path, port: u16) -> PathBuf {
    let path = dir.join("factgate.toml");
    std::fs::write(
        &path,
        format!(
            r#"[kafka]
bootstrap_servers = "127.0.0.1:{port}"
group_prefix = "factgate-recheck-e2e"
partitions = 3

[kafka.properties]
"session.timeout.ms" = "6000"
"heartbeat.interval.ms" = "1000"

[fetch]
address_allowlist = ["127.0.0.1/32"]
per_host_requests_per_second = 500.0
per_host_burst = 500
per_host_concurrency = 32
global_requests_per_second = 1000.0

[log]
level = "info"
"#
        ),
    )
    .unwrap();
    path
}

/// `factgate recheck` as a user runs it.
fn recheck_command(config: &Path, args: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_factgate"));
    command
        .arg("recheck")
        .arg("--config")
        .arg(config)
        .args(args)
        .env_remove("FACTGATE_CONFIG")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("FACTGATE_") {
            command.env_remove(key);
        }
    }
    command
}

async fn run_command(config: &Path, args: &[&str]) -> (i32, String, String) {
    let dir = config.parent().expect("the config's directory");
    let log = dir.join(format!(
        "recheck-{}.stderr",
        std::process::id() ^ rand_suffix()
    ));
    let mut command = recheck_command(config, args);
    command.stderr(std::fs::File::create(&log).unwrap());
    let child = command.spawn().expect("factgate recheck starts");
    let output = timeout(RUN_WAIT, child.wait_with_output()).await;
    let stderr = std::fs::read_to_string(&log).unwrap_or_default();
    let Ok(output) = output else {
        panic!("factgate recheck {args:?} did not end in time; its stderr:\n{stderr}");
    };
    let output = output.expect("factgate recheck runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr,
    )
}

/// A number that differs between calls, for file names.
fn rand_suffix() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_recheck_command_diffs_isolates_and_resumes_runs_on_tansu() {
    let tansu = tansu_binary();
    let imported = std::process::Command::new("python3")
        .args(["-c", "import kafka"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    assert!(
        imported.is_ok_and(|s| s.success()),
        "python3 cannot import kafka-python: run `pip install kafka-python` (.ci/test.sh does it)"
    );
    let dir = tempfile::tempdir().unwrap();
    let port = crate::support::pipeline::free_port();
    let url = format!("tcp://127.0.0.1:{port}");
    let _broker = tokio::process::Command::new(&tansu)
        .args(["broker", "--cluster-id", "factgate-recheck"])
        .args(["--listener-url", &url, "--advertised-listener-url", &url])
        .args(["--storage-engine", "memory://tansu/"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.path().join("tansu.stderr")).unwrap())
        .kill_on_drop(true)
        .spawn()
        .expect("tansu starts");
    let until = Instant::now() + Duration::from_secs(30);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(Instant::now() < until, "tansu did not listen on {port}");
        sleep(Duration::from_millis(100)).await;
    }

    let pages = Arc::new(Pages::default());
    pages.set_all(live_page);
    let origin = start_origin(Arc::clone(&pages)).await;
    let config_path = write_config(dir.path(), port);
    let config = Config::load_with_env(Some(&config_path), Vec::new()).expect("config loads");

    // Live: the pipeline on tansu; the CMS publishes the archive and reads every decision.
    let live = crate::support::pipeline::start_roles(&config, &Role::ALL).await;
    let drafts_file = dir.path().join("drafts.jsonl");
    let lines: Vec<String> = archive(origin.port)
        .into_iter()
        .map(|(_, p)| String::from_utf8(p).unwrap())
        .collect();
    std::fs::write(&drafts_file, lines.join("\n") + "\n").unwrap();
    let cms = timeout(
        LIVE_WAIT,
        tokio::process::Command::new("python3")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/e2e/cms.py"))
            .args(["--bootstrap", &format!("127.0.0.1:{port}")])
            .arg("--drafts")
            .arg(&drafts_file)
            .args(["--expect", &live_decision_count().to_string()])
            .args(["--timeout", "170", "--settle", "1"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the CMS ends in time")
    .expect("the CMS starts");
    assert!(
        cms.status.success(),
        "the CMS did not see every live decision: {}",
        String::from_utf8_lossy(&cms.stderr)
    );
    assert_live_outcomes(&decisions_on(&config, &config.kafka.topics.decisions));
    live.stop().await;
    let marks_before = live_marks(&config);

    // Run 1: sources changed; exit 1, since articles that passed are blocked now.
    pages.set_all(recheck_page);
    let json = dir.path().join("run-1.json");
    let csv = dir.path().join("run-1.csv");
    let md = dir.path().join("run-1.md");
    let (code, stdout, stderr) = run_command(
        &config_path,
        &[
            "--run-id",
            "tansu-1",
            "--report",
            json.to_str().unwrap(),
            "--report",
            csv.to_str().unwrap(),
            "--report",
            md.to_str().unwrap(),
        ],
    )
    .await;
    assert_eq!(code, 1, "stdout: {stdout}\nstderr: {stderr}");
    let per_case = ARTICLES / CASES.len();
    assert!(
        stdout.contains(&format!(
            "{ARTICLES} articles decided: {} passed, {} blocked",
            4 * per_case,
            3 * per_case
        )) && stdout.contains(&format!(
            "{} newly blocked, {} fixed",
            2 * per_case,
            2 * per_case
        )),
        "{stdout}"
    );
    // stderr is not a terminal here: plain progress lines, no bar.
    assert!(stderr.contains("recheck tansu-1: "), "{stderr}");
    // Reading a topic to its end is normal, not an error (issue 31).
    assert!(
        !stderr.contains("PartitionEOF") && !stderr.contains(" ERROR "),
        "{stderr}"
    );
    assert!(!stderr.contains('\r'), "{stderr}");
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_diff(&report, &all_articles(), false);
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), ARTICLES);
    for row in &rows {
        let i: usize = row[col("article_id")][5..].parse().unwrap();
        let (change, _, new, _) = expected(case_of(i), false);
        assert_eq!(&row[col("change")], change.as_str(), "{row:?}");
        let mut kinds: Vec<&str> = row[col("new_findings")]
            .split(';')
            .filter(|k| !k.is_empty())
            .collect();
        kinds.sort();
        let mut want: Vec<&str> = new.iter().map(|k| k.as_str()).collect();
        want.sort();
        assert_eq!(kinds, want, "{row:?}");
    }
    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(
        markdown.contains(&format!("| newly_blocked | {} |", 2 * per_case)),
        "{markdown}"
    );
    assert!(
        markdown.contains("citation_dead (http://127.0.0.1:"),
        "{markdown}"
    );

    // Run 2, on the articles whose links came back and the corrected ones: nothing got worse.
    pages.set_all(|case| match case {
        Case::NowDead => Page::Figure(TRUE_FIGURE),
        other => recheck_page(other),
    });
    let chosen: Vec<usize> = (0..ARTICLES)
        .filter(|i| matches!(case_of(*i), Case::NowDead | Case::Corrected))
        .collect();
    let ids: Vec<String> = chosen.iter().map(|i| article_id(*i)).collect();
    let json2 = dir.path().join("run-2.json");
    let (code, stdout, stderr) = run_command(
        &config_path,
        &[
            "--run-id",
            "tansu-2",
            "--no-progress",
            "--articles",
            &ids.join(","),
            "--report",
            json2.to_str().unwrap(),
        ],
    )
    .await;
    assert_eq!(code, 0, "stdout: {stdout}\nstderr: {stderr}");
    assert!(
        !stderr.contains("recheck tansu-2: "),
        "--no-progress: {stderr}"
    );
    let report2: Value = serde_json::from_slice(&std::fs::read(&json2).unwrap()).unwrap();
    assert_diff(&report2, &chosen, true);

    // Run 3 is interrupted (SIGINT) part way and resumed with its id.
    *pages.delay_ms.lock().unwrap() = 60;
    let metrics_addr = format!("127.0.0.1:{}", crate::support::pipeline::free_port());
    let child = recheck_command(
        &config_path,
        &[
            "--run-id",
            "tansu-3",
            "--max-in-flight-checks",
            "1",
            "--metrics-listen",
            &metrics_addr,
        ],
    )
    .spawn()
    .unwrap();
    // The run's progress, as Prometheus would scrape it.
    let client = crate::support::pipeline::http_client();
    let until = Instant::now() + RUN_WAIT;
    loop {
        let text = match client
            .get(format!("http://{metrics_addr}/metrics"))
            .send()
            .await
        {
            Ok(r) => r.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        let decided: f64 = text
            .lines()
            .filter(|l| {
                l.starts_with("factgate_recheck_decided_articles{") && l.contains("run=\"tansu-3\"")
            })
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum();
        if decided >= 30.0 {
            break;
        }
        assert!(Instant::now() < until, "run 3 made no progress");
        sleep(Duration::from_millis(100)).await;
    }
    let pid = child.id().expect("run 3 is running");
    let _ = std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status();
    let output = timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("run 3 stops on SIGINT")
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--run-id tansu-3 to resume"), "{stderr}");
    *pages.delay_ms.lock().unwrap() = 0;
    let json3 = dir.path().join("run-3.json");
    let (code, stdout, stderr) = run_command(
        &config_path,
        &["--run-id", "tansu-3", "--report", json3.to_str().unwrap()],
    )
    .await;
    assert_eq!(code, 1, "stdout: {stdout}\nstderr: {stderr}");
    let report3: Value = serde_json::from_slice(&std::fs::read(&json3).unwrap()).unwrap();
    assert_diff(&report3, &all_articles(), true);
    let run3_decisions = decisions_on(&config, &config.kafka.topics.recheck_decisions)
        .into_iter()
        .filter(|d| d.run_id.as_deref() == Some("tansu-3"))
        .count();
    assert!(
        run3_decisions < ARTICLES + 10,
        "resumed, not started over: {run3_decisions} decisions for {ARTICLES} articles"
    );
    assert_eq!(
        live_marks(&config),
        marks_before,
        "a re-check wrote to a live topic"
    );
}
