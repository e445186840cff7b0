//! Hand-written article/source pairs (`tests/fixtures/claims/`, format in its README), each with
//! the decision a newsroom expects: run through `factgate check` as a user runs it and through
//! the stream processor on the embedded broker, with every cited page served by an origin on
//! 127.0.0.1.
//!
//! A blocked case must block because of the claim it is about: some issue of medium or high
//! severity must concern a claim containing the case's `claim_contains`; a `review` case passes
//! with that claim listed for review. The tuning cases must all come out as expected. The other
//! sets are held to floors, each the figure measured when the judge was last changed: the
//! held-out cases (written before the alignment rules), `blind-dev` (written blind, used while
//! developing) and `blind-test` (written blind, never used while developing: its figures are the
//! ones docs/quality.md reports as held out).

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use crate::support::cases::{Case, Expect, load_set, serve as serve_cases};
use crate::support::pipeline::{mock_cluster_config, outside_reader, publish_draft, start_roles};
use chrono::Utc;
use factgate::kafka::{EmbeddedBroker, EventProducer};
use factgate::pipeline::Role;
use factgate_core::events::Decision;
use rdkafka::Message;
use serde_json::Value;
use tokio::time::{Instant, timeout_at};

fn load(set: &str) -> Vec<Case> {
    load_set(set).unwrap_or_else(|e| panic!("{set}: {e}"))
}

async fn serve(cases: &[Case]) -> String {
    serve_cases(cases).await.expect("origin binds on loopback")
}

fn format_of(case: &Case) -> &str {
    case.format.as_deref().unwrap_or("markdown")
}

/// The draft event a CMS would send for the case.
fn draft_event(case: &Case, origin: &str) -> Value {
    let mut draft = serde_json::json!({
        "schema_version": "factgate.draft.v1",
        "article_id": case.id(),
        "revision": 1,
        "published_at": Utc::now().to_rfc3339(),
        "body": case.body(origin),
        "body_format": format_of(case),
    });
    if let Some(title) = &case.title {
        draft["title"] = Value::from(title.clone());
    }
    draft
}

/// Whether `decision` is what the case expects; otherwise why not.
fn verdict(case: &Case, decision: &Value) -> Result<(), String> {
    let outcome = decision["outcome"].as_str().unwrap_or("?");
    let issues: Vec<&Value> = decision["report"]["issues"]
        .as_array()
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let describe = || {
        issues
            .iter()
            .map(|i| {
                format!(
                    "[{} {}] {} | {} | {}",
                    i["severity"].as_str().unwrap_or("?"),
                    i["type"].as_str().unwrap_or("?"),
                    i["claim"].as_str().unwrap_or(""),
                    i["problem"].as_str().unwrap_or(""),
                    i["evidence"].as_str().unwrap_or("")
                )
            })
            .collect::<Vec<_>>()
            .join("\n      ")
    };
    let about = case.claim_contains.as_deref().unwrap_or("").to_lowercase();
    let concerns = |i: &&Value, severities: &[&str]| {
        i["severity"]
            .as_str()
            .is_some_and(|s| severities.contains(&s))
            && i["claim"]
                .as_str()
                .is_some_and(|c| c.to_lowercase().contains(&about))
    };
    match case.expect {
        Expect::Pass if outcome == "pass" => {
            // A clean article's every cited statement was judged against a page it read.
            let summary = &decision["report"]["summary"];
            if summary["cited_statements_checked"] == summary["sourced_claims"] {
                Ok(())
            } else {
                Err(format!("not every cited statement was checked: {summary}"))
            }
        }
        Expect::Pass => Err(format!(
            "expected pass, got {outcome}:\n      {}",
            describe()
        )),
        Expect::Review => {
            if outcome == "pass" && issues.iter().any(|i| concerns(i, &["low"])) {
                Ok(())
            } else {
                Err(format!(
                    "expected a pass with {about:?} listed for review, got {outcome}:\n      {}",
                    describe()
                ))
            }
        }
        Expect::Block => {
            if outcome == "block" && issues.iter().any(|i| concerns(i, &["medium", "high"])) {
                Ok(())
            } else {
                Err(format!(
                    "expected a block about {about:?}, got {outcome}:\n      {}",
                    describe()
                ))
            }
        }
    }
}

const LOOPBACK_CONFIG: &str = "[fetch]\naddress_allowlist = [\"127.0.0.1/32\"]\n";

/// Runs `factgate check --json` on every case, a few at a time; returns each case's decision.
async fn check_all(cases: &[Case], origin: &str) -> Vec<Value> {
    let dir = Arc::new(tempfile::tempdir().expect("temp dir"));
    let config = dir.path().join("local.toml");
    std::fs::write(&config, LOOPBACK_CONFIG).expect("write config");
    let runs = cases.iter().map(|case| {
        let dir = Arc::clone(&dir);
        let config = config.clone();
        // A case with a headline goes as the draft event a CMS sends (the title apart from the
        // body); the others as the file a writer checks.
        let (extension, content) = match (&case.title, format_of(case)) {
            (Some(_), _) => ("json", draft_event(case, origin).to_string()),
            (None, "html") => ("html", case.body(origin)),
            (None, _) => ("md", case.body(origin)),
        };
        let file = dir.path().join(format!("{}.{extension}", case.id()));
        std::fs::write(&file, content).expect("write article");
        let id = case.id();
        async move {
            tokio::task::spawn_blocking(move || {
                let out = Command::new(env!("CARGO_BIN_EXE_factgate"))
                    .arg("check")
                    .arg(&file)
                    .arg("--json")
                    .arg("--config")
                    .arg(&config)
                    .env("RUST_LOG", "error")
                    .output()
                    .expect("factgate runs");
                let code = out.status.code();
                assert!(
                    matches!(code, Some(0 | 1)),
                    "{id}: factgate check failed ({code:?}): {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                let decision: Value = serde_json::from_slice(&out.stdout)
                    .unwrap_or_else(|e| panic!("{id}: the decision is not JSON: {e}"));
                let exit_says_block = code == Some(1);
                assert_eq!(
                    exit_says_block,
                    decision["outcome"] == "block",
                    "{id}: the exit status agrees with the decision"
                );
                drop(dir);
                decision
            })
            .await
            .expect("check finishes")
        }
    });
    use futures::StreamExt;
    futures::stream::iter(runs).buffered(4).collect().await
}

/// What came out of a set: per kind (the blind sets' kind, else the category), the cases as
/// expected and all; the cases that were not, with why.
struct Tally {
    by_kind: BTreeMap<String, (usize, usize)>,
    failures: Vec<String>,
}

impl Tally {
    /// A wrong case of the blind sets counts only when its clean twin passes: it must block
    /// because of its wrong statement, not for something the clean copy has too.
    fn of(cases: &[Case], decisions: &[Value]) -> Tally {
        let passed: BTreeMap<String, bool> = cases
            .iter()
            .zip(decisions)
            .map(|(c, d)| (c.id(), d["outcome"] == "pass"))
            .collect();
        let mut by_kind: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        let mut failures = Vec::new();
        for (case, decision) in cases.iter().zip(decisions) {
            let entry = by_kind.entry(case.kind_label()).or_default();
            entry.1 += 1;
            let twin_passes = case.twin_id().is_none_or(|t| passed.get(&t) == Some(&true));
            match verdict(case, decision) {
                Ok(()) if twin_passes => entry.0 += 1,
                Ok(()) => failures.push(format!(
                    "  {} ({}): blocked, but so is its clean twin",
                    case.id(),
                    case.kind_label()
                )),
                Err(why) => {
                    failures.push(format!("  {} ({}): {why}", case.id(), case.kind_label()))
                }
            }
        }
        Tally { by_kind, failures }
    }

    fn print(&self, set: &str) {
        eprintln!("{set}:");
        for (kind, (ok, all)) in &self.by_kind {
            eprintln!("  {kind:14} {ok:3}/{all}");
        }
        let (clean, wrong) = self.clean_and_wrong();
        eprintln!(
            "  clean that pass {}/{}; wrong blocked because of their wrong statement {}/{}",
            clean.0, clean.1, wrong.0, wrong.1
        );
    }

    /// (as expected, all) for the clean cases and for the wrong ones.
    fn clean_and_wrong(&self) -> ((usize, usize), (usize, usize)) {
        let mut clean = (0, 0);
        let mut wrong = (0, 0);
        for (kind, (ok, all)) in &self.by_kind {
            let into = if kind == "clean" {
                &mut clean
            } else {
                &mut wrong
            };
            into.0 += ok;
            into.1 += all;
        }
        (clean, wrong)
    }

    fn agreement(&self) -> f64 {
        let (ok, all) = self
            .by_kind
            .values()
            .fold((0, 0), |(a, b), (x, y)| (a + x, b + y));
        ok as f64 / all.max(1) as f64
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn tuning_cases_through_factgate_check() {
    let cases = load("tuning");
    assert!(cases.len() >= 40, "{} tuning cases", cases.len());
    let origin = serve(&cases).await;
    let decisions = check_all(&cases, &origin).await;
    let tally = Tally::of(&cases, &decisions);
    tally.print("tuning, factgate check");
    for failure in &tally.failures {
        eprintln!("{failure}");
    }
    assert!(
        tally.agreement() >= TUNING_FLOOR,
        "tuning agreement {:.3} fell below {TUNING_FLOOR}:\n{}",
        tally.agreement(),
        tally.failures.join("\n")
    );
}

/// The share of tuning cases decided as expected when the judge was last changed (72 of 80).
/// The misses are wrong statements the judge leaves for review or does not judge: a quantifier
/// or a place changed in a one-sentence page, a figure given to another subject (docs/quality.md
/// lists them).
const TUNING_FLOOR: f64 = 0.89;

/// The share of held-out cases decided as expected when the judge was last changed: a floor, so
/// that later changes cannot lose what the rules generalised to.
const HELDOUT_FLOOR: f64 = 0.97;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn heldout_cases_through_factgate_check() {
    let cases = load("heldout");
    let origin = serve(&cases).await;
    let decisions = check_all(&cases, &origin).await;
    let tally = Tally::of(&cases, &decisions);
    tally.print("held out, factgate check");
    for failure in &tally.failures {
        eprintln!("{failure}");
    }
    assert!(
        tally.agreement() >= HELDOUT_FLOOR,
        "held-out agreement {:.3} fell below {HELDOUT_FLOOR}:\n{}",
        tally.agreement(),
        tally.failures.join("\n")
    );
}

/// A blind set's floors: clean articles that pass, and wrong articles blocked because of their
/// wrong statement (their clean twin passing), as measured when the judge was last changed.
struct Floors {
    clean_pass: usize,
    wrong_caught: usize,
}

async fn blind_set_through_factgate_check(set: &str, floors: Floors) {
    let cases = load(set);
    let origin = serve(&cases).await;
    let decisions = check_all(&cases, &origin).await;
    let tally = Tally::of(&cases, &decisions);
    tally.print(&format!("{set}, factgate check"));
    for failure in &tally.failures {
        eprintln!("{failure}");
    }
    let (clean, wrong) = tally.clean_and_wrong();
    assert!(clean.1 >= 20 && wrong.1 >= 40, "{set}: {clean:?} {wrong:?}");
    assert!(
        clean.0 >= floors.clean_pass,
        "{set}: {} of {} clean articles pass, below the floor of {}",
        clean.0,
        clean.1,
        floors.clean_pass
    );
    assert!(
        wrong.0 >= floors.wrong_caught,
        "{set}: {} of {} wrong articles blocked because of their wrong statement, below the floor of {}",
        wrong.0,
        wrong.1,
        floors.wrong_caught
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn blind_dev_cases_through_factgate_check() {
    blind_set_through_factgate_check(
        "blind-dev",
        Floors {
            clean_pass: BLIND_DEV_FLOORS.0,
            wrong_caught: BLIND_DEV_FLOORS.1,
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn blind_test_cases_through_factgate_check() {
    blind_set_through_factgate_check(
        "blind-test",
        Floors {
            clean_pass: BLIND_TEST_FLOORS.0,
            wrong_caught: BLIND_TEST_FLOORS.1,
        },
    )
    .await;
}

/// The news stories of `tests/fixtures/news/` by the writers `sets`, checked together as
/// `factgate check` checks them, held to `floors`.
async fn news_writers_through_factgate_check(sets: &[&str], floors: Floors) {
    let cases: Vec<Case> = sets.iter().flat_map(|set| load(set)).collect();
    let origin = serve(&cases).await;
    let decisions = check_all(&cases, &origin).await;
    let tally = Tally::of(&cases, &decisions);
    let name = sets.join(" ");
    tally.print(&format!("news writers {name}, factgate check"));
    let (clean, wrong) = tally.clean_and_wrong();
    assert!(
        clean.1 >= 20 && wrong.1 >= 40,
        "{name}: {clean:?} {wrong:?}"
    );
    assert!(
        clean.0 >= floors.clean_pass && wrong.0 >= floors.wrong_caught,
        "{name}: {}/{} clean stories pass (floor {}), {}/{} wrong ones blocked because of their wrong statement (floor {})",
        clean.0,
        clean.1,
        floors.clean_pass,
        wrong.0,
        wrong.1,
        floors.wrong_caught
    );
}

/// The news writers the judge was tuned on (docs/quality.md): 64 clean stories, 136 wrong.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn news_development_writers_through_factgate_check() {
    news_writers_through_factgate_check(
        &["w2", "w4", "w6", "w8"],
        Floors {
            clean_pass: 54,
            wrong_caught: 32,
        },
    )
    .await;
}

/// The news writers held out (measured in aggregate only) and the two written at the end of
/// the work and run once (w9, w10): floors at the figures docs/quality.md reports, so a change
/// that loses ground on writers it was not tuned on fails.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn news_held_out_writers_through_factgate_check() {
    news_writers_through_factgate_check(
        &["w1", "w3", "w5", "w7", "w9", "w10"],
        Floors {
            clean_pass: 48,
            wrong_caught: 16,
        },
    )
    .await;
}

/// (clean articles that pass, wrong articles caught) on `blind-dev`, of 30 and 50. Two of its
/// `unsourced` cases state a figure another source of the same article gives; a statement
/// without a link of its own is now backed by the article's sources, so they pass by design.
const BLIND_DEV_FLOORS: (usize, usize) = (29, 26);
/// The same on `blind-test`, measured once, after the judge was built (docs/quality.md).
const BLIND_TEST_FLOORS: (usize, usize) = (41, 16);

/// Publishes every case as a draft to the embedded broker, with the extract, verify and join
/// roles running; returns each case's decision.
async fn pipeline_all(cases: &[Case], origin: &str) -> Vec<Value> {
    let mut kafka = factgate::config::Config::default().kafka;
    kafka.partitions = 3;
    let broker: &'static EmbeddedBroker = Box::leak(Box::new(
        EmbeddedBroker::start(&kafka).expect("embedded broker starts"),
    ));
    // A deadline far beyond the run, so that a loaded machine does not decide by the clock: the
    // decisions compared are the judge's.
    let config = mock_cluster_config(broker.bootstrap_servers(), "[join]\ndeadline_ms = 900000\n");
    let roles = start_roles(&config, &Role::ALL).await;
    let reader = outside_reader(
        &config,
        &config.kafka.topics.decisions,
        "claims-test-reader",
    );
    let producer = EventProducer::new(
        &config.kafka,
        config.kafka.bootstrap_servers.as_deref().unwrap_or(""),
    )
    .expect("producer");
    for case in cases {
        let payload = serde_json::to_vec(&draft_event(case, origin)).expect("draft serializes");
        publish_draft(&producer, &config, &case.id(), &payload).await;
    }
    let mut decided: BTreeMap<String, Value> = BTreeMap::new();
    let until = Instant::now() + Duration::from_secs(600);
    while decided.len() < cases.len() {
        let Ok(received) = timeout_at(until, reader.recv()).await else {
            break;
        };
        let Ok(message) = received else { continue };
        let value: Value =
            serde_json::from_slice(message.payload().unwrap_or_default()).expect("decision JSON");
        let decision: Decision =
            serde_json::from_value(value.clone()).expect("decision fits its type");
        decided.insert(decision.article_id.clone(), value);
    }
    roles.stop().await;
    let missing: Vec<String> = cases
        .iter()
        .map(Case::id)
        .filter(|id| !decided.contains_key(id))
        .collect();
    assert!(missing.is_empty(), "not decided in time: {missing:?}");
    cases.iter().map(|c| decided[&c.id()].clone()).collect()
}

/// Every tuning case, all categories, through the extract, verify and join roles on the embedded
/// broker: the same decisions as `factgate check`.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn tuning_cases_through_the_pipeline() {
    let cases = load("tuning");
    let origin = serve(&cases).await;
    let decisions = pipeline_all(&cases, &origin).await;
    let tally = Tally::of(&cases, &decisions);
    tally.print("tuning, pipeline");
    for category in 1..=8 {
        assert!(
            tally.by_kind.contains_key(&format!("category-{category}")),
            "category {category} has cases in the pipeline run"
        );
    }
    assert!(
        tally.agreement() >= TUNING_FLOOR,
        "tuning agreement {:.3} on the stream fell below {TUNING_FLOOR}:\n{}",
        tally.agreement(),
        tally.failures.join("\n")
    );
}

/// Every blind-dev case, each kind, as the draft event a CMS sends (headline in `title`, apart
/// from the body) through the roles on the embedded broker: the stream decides every draft as
/// `factgate check` decides the same event (a headline included: it is judged as `check`
/// judges it).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn blind_dev_drafts_through_the_pipeline_decide_as_check_does() {
    let cases = load("blind-dev");
    assert!(cases.iter().filter(|c| c.title.is_some()).count() >= 20);
    let origin = serve(&cases).await;
    let streamed = pipeline_all(&cases, &origin).await;
    let checked = check_all(&cases, &origin).await;
    let mut differ = Vec::new();
    for ((case, s), c) in cases.iter().zip(&streamed).zip(&checked) {
        if s["outcome"] != c["outcome"] {
            let first = |d: &Value| {
                d["report"]["issues"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|i| matches!(i["severity"].as_str(), Some("medium" | "high")))
                    .map(|i| format!("{} {}", i["claim"], i["problem"]))
                    .unwrap_or_default()
            };
            differ.push(format!(
                "  {}: stream {} {} ({}) / check {} ({})",
                case.id(),
                s["outcome"],
                s["reasons"],
                first(s),
                c["outcome"],
                first(c)
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "decided otherwise on the stream:\n{}",
        differ.join("\n")
    );
    let tally = Tally::of(&cases, &streamed);
    tally.print("blind-dev, pipeline");
    let (clean, wrong) = tally.clean_and_wrong();
    assert!(clean.0 >= BLIND_DEV_FLOORS.0 && wrong.0 >= BLIND_DEV_FLOORS.1);
    assert!(
        tally.by_kind.len() >= 10,
        "every kind: {:?}",
        tally.by_kind.keys()
    );
}
