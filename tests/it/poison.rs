//! Hostile and unusual drafts through the whole pipeline on the embedded broker, published
//! between ordinary drafts: the process stays up, every draft gets exactly one decision (a block
//! with the right reason for the hostile ones; a dead letter too for those that cannot be
//! read), the ordinary drafts get their normal outcome, and the process's peak memory stays
//! bounded.
//!
//! The limits are set small here (a 64 KiB body, 50 links, 60 claims, 60 checks, 64 levels of
//! nesting, 12 KiB records) so that each hostile draft is only just past its limit: the same code
//! runs as with the defaults, in a fraction of the time.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use crate::support::origin::start_demo;
use crate::support::pipeline::{demo_draft, outside_reader, publish_draft, start_roles};
use crate::support::schema::{errors, validator};
use axum::Router;
use axum::response::Html;
use axum::routing::get;
use chrono::Utc;
use factgate::config::Config;
use factgate::kafka::{EmbeddedBroker, EventProducer};
use factgate::pipeline::Role;
use factgate_core::events::{Decision, DecisionReason, Outcome};
use rdkafka::Message;
use rdkafka::consumer::StreamConsumer;
use serde_json::{Value, json};
use tokio::time::{Instant, timeout_at};

/// The longest the test waits for all its decisions.
const ALL_DECIDED_WITHIN: Duration = Duration::from_secs(120);
/// After the last expected decision, how long the test keeps reading to catch a second one.
const QUIET: Duration = Duration::from_secs(4);
/// The peak resident memory the process may reach: generous, so it is no timing-like flake, and
/// far below what an unbounded draft took (gigabytes).
const MAX_PEAK_RSS_BYTES: u64 = 1024 * 1024 * 1024;

const MAX_BODY_BYTES: usize = 64 * 1024;
const MAX_NESTING: usize = 64;
const MAX_LINKS: usize = 50;
const MAX_CLAIMS: usize = 60;
const MAX_CHECKS: usize = 60;
const MESSAGE_MAX_BYTES: usize = 12 * 1024;
/// Supported claims of the draft whose manifest and decision are too large for one record.
const SPLIT_CLAIMS: usize = 45;

/// An (article, revision) as a decision names it.
type Key = (String, Option<u64>);

/// What a draft's decision must be.
#[derive(Debug, Clone, PartialEq)]
enum Expect {
    /// This outcome with exactly these reasons.
    Exactly(Outcome, Vec<DecisionReason>),
    /// A block whose reasons include this one.
    BlockWith(DecisionReason),
    /// No decision at all (its id cannot be read), but a dead letter.
    DeadLetterOnly,
}

struct Draft {
    name: &'static str,
    article_id: String,
    /// The revision the decision names (`None`: the draft's revision cannot be read).
    revision: Option<u64>,
    payload: Vec<u8>,
    expect: Expect,
    /// It cannot be read, so it must reach the dead-letter topic.
    dead_letter: bool,
}

fn config(bootstrap: &str) -> Config {
    let mut config = crate::support::pipeline::mock_cluster_config(
        bootstrap,
        &format!(
            "[join]\ndeadline_ms = 45000\n[extract]\nmax_body_bytes = {MAX_BODY_BYTES}\n\
             max_nesting_depth = {MAX_NESTING}\nmax_links_per_article = {MAX_LINKS}\n\
             max_claims_per_article = {MAX_CLAIMS}\nmax_checks_per_article = {MAX_CHECKS}\n"
        ),
    );
    config.fetch.max_nesting_depth = MAX_NESTING;
    config
        .kafka
        .properties
        .insert("message.max.bytes".into(), MESSAGE_MAX_BYTES.to_string());
    config
        .validate()
        .expect("the test's configuration is valid");
    config
}

/// A draft event with `body` in `format`, published now.
fn draft_json(article_id: &str, body: &str, format: &str) -> Value {
    json!({
        "schema_version": "factgate.draft.v1",
        "article_id": article_id,
        "revision": 1,
        "published_at": Utc::now().to_rfc3339(),
        "body": body,
        "body_format": format,
    })
}

fn readable(name: &'static str, body: String, format: &str, expect: Expect) -> Draft {
    let article_id = format!("poison-{name}");
    Draft {
        name,
        payload: serde_json::to_vec(&draft_json(&article_id, &body, format)).expect("JSON"),
        article_id,
        revision: Some(1),
        expect,
        dead_letter: false,
    }
}

fn limit(name: &'static str, body: String, format: &str) -> Draft {
    readable(
        name,
        body,
        format,
        Expect::Exactly(Outcome::Block, vec![DecisionReason::LimitExceeded]),
    )
}

fn unreadable(name: &'static str, payload: Vec<u8>, revision: Option<u64>) -> Draft {
    Draft {
        name,
        article_id: format!("poison-{name}"),
        revision,
        payload,
        expect: Expect::Exactly(Outcome::Block, vec![DecisionReason::DraftUnreadable]),
        dead_letter: true,
    }
}

/// The demo's supported claim, citing the origin's survey.
fn supported_claim(origin: &str) -> String {
    format!(
        "Online tutoring accounted for 28% of spending on private tutoring in 2023, according to [a survey]({origin}/survey.html)."
    )
}

/// The hostile drafts, each just past the limit it tests, and the unusual ones that must come
/// through with their normal outcome.
fn hostile(origin: &str) -> Vec<Draft> {
    let now = Utc::now().to_rfc3339();
    let claim = supported_claim(origin);
    let mut drafts = Vec::new();

    // Events that cannot be read: dead-lettered, and blocked when the id can be recovered.
    drafts.push(unreadable(
        "huge-revision",
        format!(
            r#"{{"schema_version":"factgate.draft.v1","article_id":"poison-huge-revision","revision":1e400,"published_at":"{now}","body":"Prices rose 4%.","body_format":"text"}}"#
        )
        .into_bytes(),
        None,
    ));
    let mut bad_utf8 = format!(
        r#"{{"schema_version":"factgate.draft.v1","article_id":"poison-bad-utf8","revision":1,"published_at":"{now}","title":"caf"#
    )
    .into_bytes();
    bad_utf8.extend_from_slice(&[0xc3, 0x28, 0xff]);
    bad_utf8.extend_from_slice(br#"","body":"Prices rose 4%.","body_format":"text"}"#);
    drafts.push(unreadable("bad-utf8", bad_utf8, Some(1)));
    let mut deep = draft_json("poison-deep-json", "Prices rose 4%.", "text");
    deep["metadata"] = json!({});
    let deep = serde_json::to_string(&deep).expect("JSON").replacen(
        "\"metadata\":{}",
        &format!("\"metadata\":{}{}", "[".repeat(5_000), "]".repeat(5_000)),
        1,
    );
    drafts.push(unreadable("deep-json", deep.into_bytes(), Some(1)));
    let long_id = "x".repeat(600);
    drafts.push(Draft {
        name: "long-id",
        payload: serde_json::to_vec(&draft_json(&long_id, "Prices rose 4%.", "text"))
            .expect("JSON"),
        article_id: long_id,
        revision: Some(1),
        expect: Expect::DeadLetterOnly,
        dead_letter: true,
    });
    drafts.push(Draft {
        name: "not-json",
        article_id: "poison-not-json".into(),
        revision: None,
        payload: b"\x00\xff{\"article_id\": \"poison-not-json\"".to_vec(),
        // Not JSON, but keyed by its article as the CMS keys drafts: blocked for it.
        expect: Expect::BlockWith(DecisionReason::DraftUnreadable),
        dead_letter: true,
    });

    // Bodies that cannot be read.
    drafts.push(readable(
        "empty-body",
        "   \n\t ".into(),
        "text",
        Expect::Exactly(Outcome::Block, vec![DecisionReason::ExtractionFailed]),
    ));
    drafts.push(readable(
        "binary-body",
        "\u{0}\u{1}\u{2}PNG\u{0}\u{0}".repeat(50),
        "text",
        Expect::Exactly(Outcome::Block, vec![DecisionReason::ExtractionFailed]),
    ));

    // An input the extractor's fuzzing once crashed on: an unsourced figure.
    drafts.push(readable(
        "fuzz-regression",
        ":84".into(),
        "text",
        Expect::Exactly(Outcome::Block, vec![DecisionReason::HighSeverityIssue]),
    ));

    // Each per-draft limit, just past it.
    drafts.push(limit(
        "body-too-large",
        "Prices rose 4% last year. ".repeat(MAX_BODY_BYTES / 20),
        "text",
    ));
    let links: String = (0..=MAX_LINKS)
        .map(|i| format!("See [source {i}]({origin}/survey.html?n={i}). "))
        .collect();
    drafts.push(limit(
        "many-links",
        format!("{claim}\n\n{links}\n"),
        "markdown",
    ));
    let claims: String = (0..=MAX_CLAIMS)
        .map(|i| format!("Sales rose {}% in {}.\n\n", i + 1, 1990 + i))
        .collect();
    drafts.push(limit("many-claims", claims, "markdown"));
    // Two sources, borrowed by every claim of the paragraph: checks pass the limit long before
    // links or claims do.
    let borrowing: String = (0..MAX_CHECKS / 2 + 1)
        .map(|i| format!("Sales rose {}% in {}. ", i + 1, 1990 + i))
        .collect();
    drafts.push(limit(
        "many-checks",
        format!(
            "{borrowing}Both figures come from [one]({origin}/survey.html) and [two]({origin}/pricing.html).\n"
        ),
        "markdown",
    ));
    drafts.push(limit(
        "deep-html",
        format!(
            "<html><body>{}<p>Prices rose 4% in 2023.</p>{}</body></html>",
            "<div>".repeat(MAX_NESTING + 1),
            "</div>".repeat(MAX_NESTING + 1)
        ),
        "html",
    ));
    drafts.push(limit(
        "deep-inline-html",
        format!(
            "<p>{}Prices rose 4% in 2023.</p>",
            "<b><i>".repeat(MAX_NESTING / 2 + 1)
        ),
        "html",
    ));
    let deep_list: String = (0..=MAX_NESTING)
        .map(|i| format!("{}- level {i}\n", "  ".repeat(i)))
        .collect();
    drafts.push(limit(
        "deep-list",
        format!("{deep_list}\nPrices rose 4% in 2023.\n"),
        "markdown",
    ));
    drafts.push(limit(
        "deep-quote",
        format!("{} Prices rose 4% in 2023.\n", ">".repeat(MAX_NESTING + 1)),
        "markdown",
    ));
    // One claim whose verification request cannot fit a record: nothing to split.
    let long_claim = format!(
        "Online tutoring accounted for 28% of spending on private tutoring in 2023 {} according to [a survey]({origin}/survey.html).",
        "and the share kept growing".repeat(MESSAGE_MAX_BYTES / 25)
    );
    drafts.push(limit("oversize-claim", long_claim, "markdown"));

    // A cited page nested too deep to parse: its source is left unjudged.
    drafts.push(readable(
        "deep-source",
        format!("Online tutoring accounted for 28% of spending on private tutoring in 2023, according to [a survey]({origin}/deep.html).\n"),
        "markdown",
        Expect::BlockWith(DecisionReason::SourceUnjudgeable),
    ));

    // Unusual but within every limit: the normal outcome of their content.
    let pass = Expect::Exactly(Outcome::Pass, vec![]);
    // A long title within `extract.max_field_bytes` (64 KiB) is read; one over it is refused
    // before anything is read, naming the field (a block, never a pass unchecked).
    let mut titled = draft_json("poison-long-title", &claim, "markdown");
    titled["title"] = Value::from("Tutoring ".repeat(6_000));
    drafts.push(Draft {
        name: "long-title",
        article_id: "poison-long-title".into(),
        revision: Some(1),
        payload: serde_json::to_vec(&titled).expect("JSON"),
        expect: pass.clone(),
        dead_letter: false,
    });
    let mut titled = draft_json("poison-huge-title", &claim, "markdown");
    titled["title"] = Value::from("Tutoring ".repeat(30_000));
    drafts.push(Draft {
        name: "huge-title",
        article_id: "poison-huge-title".into(),
        revision: Some(1),
        payload: serde_json::to_vec(&titled).expect("JSON"),
        expect: Expect::Exactly(Outcome::Block, vec![DecisionReason::LimitExceeded]),
        dead_letter: false,
    });
    let headings: String = (0..3_000).map(|i| format!("## Part {i}\n\n")).collect();
    drafts.push(readable(
        "many-headings",
        format!("{headings}{claim}\n"),
        "markdown",
        pass.clone(),
    ));
    // Many supported claims: the manifest is split in parts and the decision's report
    // shortened, and it still passes.
    let many: String = (0..SPLIT_CLAIMS).map(|_| format!("{claim}\n\n")).collect();
    drafts.push(readable("split-manifest", many, "markdown", pass));
    drafts
}

/// Ordinary drafts, one of each kind, named after their place among the hostile ones.
fn ordinary(origin: &str, n: usize) -> Vec<Draft> {
    let kinds = [
        (
            include_str!("../../examples/demo/drafts/clean.json"),
            Expect::Exactly(Outcome::Pass, vec![]),
        ),
        (
            include_str!("../../examples/demo/drafts/wrong-figure.json"),
            Expect::Exactly(Outcome::Block, vec![DecisionReason::HighSeverityIssue]),
        ),
        (
            include_str!("../../examples/demo/drafts/unsourced-statistic.json"),
            Expect::Exactly(Outcome::Block, vec![DecisionReason::HighSeverityIssue]),
        ),
    ];
    (0..n)
        .map(|i| {
            let (template, expect) = &kinds[i % kinds.len()];
            let article_id = format!("ordinary-{i}");
            Draft {
                name: "ordinary",
                payload: demo_draft(template, &article_id, origin),
                article_id,
                revision: Some(1),
                expect: expect.clone(),
                dead_letter: false,
            }
        })
        .collect()
}

/// Peak resident memory of this process so far, from `/proc/self/status` (`VmHWM`).
fn peak_rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("VmHWM in /proc/self/status");
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("VmHWM in kB");
    kib * 1024
}

async fn read_decisions(reader: &StreamConsumer, wanted: &BTreeSet<Key>) -> Vec<(Value, Decision)> {
    let mut seen: Vec<(Value, Decision)> = Vec::new();
    let mut have = BTreeSet::new();
    let until = Instant::now() + ALL_DECIDED_WITHIN;
    let mut quiet_until = None;
    loop {
        let deadline = match quiet_until {
            Some(q) => q,
            None if wanted.is_subset(&have) => {
                let q = Instant::now() + QUIET;
                quiet_until = Some(q);
                q
            }
            None => until,
        };
        let Ok(received) = timeout_at(deadline, reader.recv()).await else {
            break;
        };
        let Ok(message) = received else { continue };
        let value: Value =
            serde_json::from_slice(message.payload().unwrap_or_default()).expect("decision JSON");
        let decision: Decision = serde_json::from_value(value.clone()).expect("a decision");
        have.insert((decision.article_id.clone(), decision.revision));
        seen.push((value, decision));
    }
    seen
}

async fn read_dead_letters(reader: &StreamConsumer, want: usize) -> BTreeMap<String, usize> {
    let mut keys: BTreeMap<String, usize> = BTreeMap::new();
    let until = Instant::now() + ALL_DECIDED_WITHIN;
    let mut quiet_until = None;
    loop {
        let deadline = match quiet_until {
            Some(q) => q,
            None if keys.values().sum::<usize>() >= want => {
                let q = Instant::now() + QUIET;
                quiet_until = Some(q);
                q
            }
            None => until,
        };
        let Ok(received) = timeout_at(deadline, reader.recv()).await else {
            break;
        };
        let Ok(message) = received else { continue };
        let key = String::from_utf8_lossy(message.key().unwrap_or_default()).into_owned();
        *keys.entry(key).or_default() += 1;
    }
    keys
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn hostile_drafts_are_blocked_for_the_right_reason_and_stop_nothing() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
    let deep_page = format!(
        "<html><body>{}<p>Online tutoring accounted for 28% of spending on private tutoring in 2023.</p></body></html>",
        "<div>".repeat(MAX_NESTING * 4)
    );
    let origin = start_demo(Router::new().route(
        "/deep.html",
        get(move || {
            let page = deep_page.clone();
            async move { Html(page) }
        }),
    ))
    .await;
    let mut kafka = Config::default().kafka;
    kafka.partitions = 3;
    let broker: &'static EmbeddedBroker = Box::leak(Box::new(
        EmbeddedBroker::start(&kafka).expect("embedded broker starts"),
    ));
    let config = config(broker.bootstrap_servers());
    let roles = start_roles(&config, &Role::ALL).await;
    let decisions = outside_reader(&config, &config.kafka.topics.decisions, "cms");
    let dead_letters = outside_reader(&config, &config.kafka.topics.dead_letter, "ops");
    // The CMS's producer, without factgate's small record limit: its drafts are large.
    let producer = EventProducer::new(&kafka, broker.bootstrap_servers()).expect("producer");

    // Ordinary drafts between the hostile ones, so each hostile one has neighbours to disturb.
    let hostile = hostile(&origin);
    let mut ordinary = ordinary(&origin, hostile.len() + 1).into_iter();
    let mut drafts = Vec::new();
    drafts.extend(ordinary.next());
    for draft in hostile {
        drafts.push(draft);
        drafts.extend(ordinary.next());
    }
    for draft in &drafts {
        publish_draft(&producer, &config, &draft.article_id, &draft.payload).await;
    }

    let wanted: BTreeSet<Key> = drafts
        .iter()
        .filter(|d| d.expect != Expect::DeadLetterOnly)
        .map(|d| (d.article_id.clone(), d.revision))
        .collect();
    let seen = read_decisions(&decisions, &wanted).await;
    let letters = read_dead_letters(
        &dead_letters,
        drafts.iter().filter(|d| d.dead_letter).count(),
    )
    .await;
    assert!(
        !roles.is_finished(),
        "the pipeline stopped while hostile drafts were handled"
    );

    let schema = validator("decision.v1");
    let mut by_key: BTreeMap<Key, Vec<&(Value, Decision)>> = BTreeMap::new();
    for entry in &seen {
        let errors = errors(&schema, &entry.0);
        assert!(
            errors.is_empty(),
            "{} violates decision.v1: {errors:?}",
            entry.1.article_id
        );
        by_key
            .entry((entry.1.article_id.clone(), entry.1.revision))
            .or_default()
            .push(entry);
    }
    let mut failures = Vec::new();
    for draft in &drafts {
        let key = (draft.article_id.clone(), draft.revision);
        let got = by_key.get(&key);
        if draft.dead_letter && letters.get(&draft.article_id) != Some(&1) {
            failures.push(format!(
                "{}: dead-lettered {} times, expected once",
                draft.name,
                letters.get(&draft.article_id).copied().unwrap_or(0)
            ));
        }
        let Some(copies) = got else {
            if draft.expect != Expect::DeadLetterOnly {
                failures.push(format!(
                    "{} ({}): no decision",
                    draft.name, draft.article_id
                ));
            }
            continue;
        };
        if draft.expect == Expect::DeadLetterOnly {
            failures.push(format!(
                "{}: decided, though its id cannot be read",
                draft.name
            ));
            continue;
        }
        let first = &copies[0].1;
        if copies.iter().any(|(_, d)| {
            (&d.decision_id, d.outcome, &d.reasons)
                != (&first.decision_id, first.outcome, &first.reasons)
        }) {
            failures.push(format!(
                "{}: decided more than once, differently",
                draft.name
            ));
        }
        let mut reasons = first.reasons.clone();
        reasons.sort();
        let ok = match &draft.expect {
            Expect::Exactly(outcome, want) => {
                let mut want = want.clone();
                want.sort();
                first.outcome == *outcome && reasons == want
            }
            Expect::BlockWith(reason) => {
                first.outcome == Outcome::Block && reasons.contains(reason)
            }
            Expect::DeadLetterOnly => false,
        };
        if !ok {
            failures.push(format!(
                "{} ({}): expected {:?}, got {:?} {:?}: {}",
                draft.name,
                draft.article_id,
                draft.expect,
                first.outcome,
                first.reasons,
                first.report.recommendation_reason
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // The split manifest's decision had to be shortened to fit a record, and says so.
    let split = &by_key[&("poison-split-manifest".to_owned(), Some(1))][0].1;
    assert_eq!(split.report.summary.total_claims as usize, SPLIT_CLAIMS);
    assert!(
        split
            .report
            .recommendation_reason
            .contains("Report shortened"),
        "{}",
        split.report.recommendation_reason
    );
    // A limit's block names its configuration key.
    let links = &by_key[&("poison-many-links".to_owned(), Some(1))][0].1;
    assert!(
        links.report.issues[0]
            .evidence
            .contains("extract.max_links_per_article"),
        "{:?}",
        links.report.issues
    );

    let peak = peak_rss_bytes();
    eprintln!(
        "{} drafts decided; peak RSS {:.0} MiB",
        wanted.len(),
        peak as f64 / 1024.0 / 1024.0
    );
    assert!(
        peak < MAX_PEAK_RSS_BYTES,
        "peak RSS {peak} bytes over the bound {MAX_PEAK_RSS_BYTES}"
    );
    roles.stop().await;
}
