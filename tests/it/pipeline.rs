//! The stream processor end to end on the embedded broker (librdkafka's mock cluster on
//! 127.0.0.1), with the cited sources served by a local axum origin: every draft gets exactly one
//! decision with the outcome its content calls for, unreadable drafts are dead-lettered and
//! blocked, and that still holds through injected request errors, a broker outage and a role
//! stopped and started again mid-run. Every wait is bounded, so a failure fails rather than hangs.
//!
//! Each test starts its own broker (so it can inject faults) and passes its address in
//! `kafka.bootstrap_servers`, the way an operator points factgate at a cluster.

use crate::support::origin::{demo_source, start_demo};
use crate::support::pipeline::{outside_reader, publish_draft, publish_draft_with, start_roles};
use crate::support::schema::{errors, validator};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use axum::Router;
use axum::extract::Path as UrlPath;
use axum::response::IntoResponse;
use axum::routing::get;
use chrono::{DateTime, Utc};
use factgate::config::Config;
use factgate::kafka::headers::read_schema;
use factgate::kafka::{EmbeddedBroker, EventHeaders, EventProducer, RDKafkaApiKey, RDKafkaRespErr};
use factgate::pipeline::Role;
use factgate_core::events::{DRAFT_V1, Decision, DecisionReason, IssueType, Outcome};
use rdkafka::consumer::StreamConsumer;
use rdkafka::{ClientConfig, Message};
use serde_json::Value;
use tokio::time::{Instant, timeout, timeout_at};

/// The longest a test waits for all its decisions: group joins on the mock cluster take seconds,
/// restarts and outages several more.
const ALL_DECIDED_WITHIN: Duration = Duration::from_secs(90);
/// After the last expected decision, how long a test keeps reading to catch a second one.
const QUIET: Duration = Duration::from_secs(4);
/// The deadline of every draft, generous enough that no fault below makes a clean draft miss it.
const DEADLINE_MS: u64 = 45_000;
/// How long after it is produced the slow-source draft reaches its deadline: it is published
/// (event time) this much less than [`DEADLINE_MS`] in the past, so its deadline comes quickly
/// while every other draft keeps the generous one.
const SLOW_DRAFT_REMAINING: Duration = Duration::from_secs(6);
/// How long `/slow/…` takes: far past any deadline here.
const SLOW_SOURCE: Duration = Duration::from_secs(120);
/// How long `/lag/…` takes, so checks are in flight when a role is stopped.
const LAGGED_SOURCE: Duration = Duration::from_millis(1_500);

// ---------------------------------------------------------------------------------------------
// The origin and the drafts

/// Serves the demo's sources on 127.0.0.1; `/slow/…` and `/lag/…` answer late, anything else 404.
async fn start_origin() -> String {
    let late = |delay: Duration| {
        get(move |name: UrlPath<String>| async move {
            tokio::time::sleep(delay).await;
            demo_source(name).await
        })
    };
    start_demo(
        Router::new()
            .route("/slow/{name}", late(SLOW_SOURCE))
            .route("/lag/{name}", late(LAGGED_SOURCE)),
    )
    .await
}

/// What a draft contains, and so what its decision must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A claim its source supports: pass.
    Clean,
    /// $4/month where the source says $9/month.
    WrongFigure,
    /// A citation that answers 404.
    DeadLink,
    /// A percentage with no citation.
    Unsourced,
    /// "Our pilot with 500 students showed…", no source.
    Fabricated,
    /// A source slower than the deadline.
    SlowSource,
}

impl Kind {
    fn template(self) -> &'static str {
        match self {
            Kind::Clean => include_str!("../../examples/demo/drafts/clean.json"),
            Kind::WrongFigure => include_str!("../../examples/demo/drafts/wrong-figure.json"),
            Kind::DeadLink => include_str!("../../examples/demo/drafts/dead-link.json"),
            Kind::Unsourced => include_str!("../../examples/demo/drafts/unsourced-statistic.json"),
            Kind::Fabricated => include_str!("../../examples/demo/drafts/fabricated.json"),
            Kind::SlowSource => include_str!("../../examples/demo/drafts/slow-source.json"),
        }
    }

    /// The outcome, the exact reasons and the type of issue the editor must see.
    fn expected(self) -> (Outcome, Vec<DecisionReason>, Option<IssueType>) {
        use DecisionReason::*;
        match self {
            Kind::Clean => (Outcome::Pass, vec![], None),
            Kind::WrongFigure => (
                Outcome::Block,
                vec![HighSeverityIssue],
                Some(IssueType::FigureMismatch),
            ),
            Kind::DeadLink => (
                Outcome::Block,
                vec![HighSeverityIssue],
                Some(IssueType::Unverifiable),
            ),
            Kind::Unsourced | Kind::Fabricated => (
                Outcome::Block,
                vec![HighSeverityIssue],
                Some(IssueType::Unsourced),
            ),
            // The unfinished check is a high issue of type error, and the deadline the reason.
            Kind::SlowSource => (
                Outcome::Block,
                vec![HighSeverityIssue, DeadlineExceeded],
                Some(IssueType::Error),
            ),
        }
    }
}

/// The mix of tests 1 and 3: twelve drafts, five kinds, four of them clean.
const MIX: [Kind; 12] = [
    Kind::Clean,
    Kind::WrongFigure,
    Kind::DeadLink,
    Kind::Unsourced,
    Kind::Fabricated,
    Kind::Clean,
    Kind::WrongFigure,
    Kind::DeadLink,
    Kind::Clean,
    Kind::Unsourced,
    Kind::Fabricated,
    Kind::Clean,
];

#[derive(Debug, Clone)]
struct TestDraft {
    article_id: String,
    revision: u64,
    kind: Kind,
    payload: Vec<u8>,
}

/// A draft of `kind` for `article_id`, citing `origin`; with `lag`, its sources answer after
/// [`LAGGED_SOURCE`] at a URL of its own (so the fetch cache does not answer for it).
fn draft(kind: Kind, article_id: &str, origin: &str, lag: bool) -> TestDraft {
    let published_at: DateTime<Utc> = if kind == Kind::SlowSource {
        let remaining = chrono::Duration::from_std(SLOW_DRAFT_REMAINING).expect("small duration");
        Utc::now() - chrono::Duration::milliseconds(DEADLINE_MS as i64) + remaining
    } else {
        Utc::now()
    };
    let text = kind
        .template()
        .replace("{{published_at}}", &published_at.to_rfc3339());
    let mut value: Value = serde_json::from_str(&text).expect("draft template is JSON");
    value["article_id"] = Value::from(article_id);
    let revision = 1;
    value["revision"] = Value::from(revision);
    let body = value["body"]
        .as_str()
        .expect("template has a body")
        .to_owned();
    let body = if lag {
        let mut lagged = body.clone();
        for name in ["survey.html", "pricing.html", "market.html", "missing.html"] {
            lagged = lagged.replace(
                &format!("{{{{origin}}}}/{name}"),
                &format!("{{{{origin}}}}/lag/{name}?for={article_id}"),
            );
        }
        lagged
    } else {
        body
    };
    value["body"] = Value::from(body.replace("{{origin}}", origin));
    TestDraft {
        article_id: article_id.to_owned(),
        revision,
        kind,
        payload: serde_json::to_vec(&value).expect("serializes"),
    }
}

fn drafts(prefix: &str, kinds: &[Kind], origin: &str, lag: bool) -> Vec<TestDraft> {
    kinds
        .iter()
        .enumerate()
        .map(|(i, kind)| draft(*kind, &format!("{prefix}-{i:02}-{kind:?}"), origin, lag))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The broker, the configuration and the roles

/// Deadlines count from publication here (event time), so the slow-source draft, published
/// [`SLOW_DRAFT_REMAINING`] short of its deadline, reaches it quickly while the others keep the
/// generous one.
fn config(bootstrap: &str) -> Config {
    crate::support::pipeline::mock_cluster_config(
        bootstrap,
        &format!("[join]\ndeadline_ms = {DEADLINE_MS}\ndeadline_from = \"published\"\n"),
    )
}

/// A broker with factgate's topics, the configuration pointing at it, and the origin.
///
/// The broker lives until the test process ends: a test that fails drops its runtime with
/// consumers still closing, and closing a consumer waits for a broker that must still be there.
async fn setup() -> (&'static EmbeddedBroker, Config, String) {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
    let origin = start_origin().await;
    let mut kafka = Config::default().kafka;
    kafka.partitions = 3;
    let broker: &'static EmbeddedBroker = Box::leak(Box::new(
        EmbeddedBroker::start(&kafka).expect("embedded broker starts"),
    ));
    let config = config(broker.bootstrap_servers());
    (broker, config, origin)
}

fn producer(config: &Config) -> EventProducer {
    EventProducer::new(
        &config.kafka,
        config.kafka.bootstrap_servers.as_deref().unwrap_or(""),
    )
    .expect("producer")
}

async fn publish_all(producer: &EventProducer, config: &Config, drafts: &[TestDraft]) {
    for d in drafts {
        publish_draft(producer, config, &d.article_id, &d.payload).await;
    }
}

// ---------------------------------------------------------------------------------------------
// Reading and checking decisions

/// Every decision read, as sent (JSON) and typed.
#[derive(Default)]
struct Seen {
    decisions: Vec<(Value, Decision)>,
}

impl Seen {
    fn keys(&self) -> BTreeSet<(String, Option<u64>)> {
        self.decisions
            .iter()
            .map(|(_, d)| (d.article_id.clone(), d.revision))
            .collect()
    }

    fn has_all(&self, drafts: &[TestDraft]) -> bool {
        let keys = self.keys();
        drafts
            .iter()
            .all(|d| keys.contains(&(d.article_id.clone(), Some(d.revision))))
    }

    /// Reads decisions until every draft of `drafts` has one or `until` passes.
    async fn read_until_decided(
        &mut self,
        reader: &StreamConsumer,
        drafts: &[TestDraft],
        until: Instant,
    ) {
        while !self.has_all(drafts) {
            let Ok(received) = timeout_at(until, reader.recv()).await else {
                return;
            };
            self.take(received);
        }
    }

    /// Reads every decision that arrives within `quiet`.
    async fn read_for(&mut self, reader: &StreamConsumer, quiet: Duration) {
        let until = Instant::now() + quiet;
        while let Ok(received) = timeout_at(until, reader.recv()).await {
            self.take(received);
        }
    }

    fn take(
        &mut self,
        received: Result<rdkafka::message::BorrowedMessage<'_>, rdkafka::error::KafkaError>,
    ) {
        let message = match received {
            Ok(message) => message,
            // The reader rides out the same faults as the pipeline.
            Err(err) => {
                eprintln!("decision reader: {err}");
                return;
            }
        };
        let payload = message.payload().unwrap_or_default();
        let value: Value = serde_json::from_slice(payload).unwrap_or_else(|e| {
            panic!(
                "a decision is not JSON ({e}): {}",
                String::from_utf8_lossy(payload)
            )
        });
        let decision: Decision = serde_json::from_value(value.clone())
            .unwrap_or_else(|e| panic!("a decision does not fit its type ({e}): {value}"));
        assert_eq!(
            message.key(),
            Some(decision.article_id.as_bytes()),
            "decisions are keyed by article"
        );
        self.decisions.push((value, decision));
    }

    fn decided_count(&self, drafts: &[TestDraft]) -> usize {
        let keys = self.keys();
        drafts
            .iter()
            .filter(|d| keys.contains(&(d.article_id.clone(), Some(d.revision))))
            .count()
    }
}

/// Reads decisions until all `drafts` are decided, then for [`QUIET`] more, and checks them.
async fn expect_decisions(reader: &StreamConsumer, seen: &mut Seen, drafts: &[TestDraft]) {
    seen.read_until_decided(reader, drafts, Instant::now() + ALL_DECIDED_WITHIN)
        .await;
    seen.read_for(reader, QUIET).await;
    check_decisions(seen, drafts);
}

/// Exactly one decision per (article, revision) of `drafts`, with the outcome, reasons and issue
/// their kind calls for, each valid against schemas/decision.v1.json. A decision seen twice (at
/// least once delivery after a fault) must be the same decision: same id, outcome and reasons.
/// Returns how many repeats were seen.
#[track_caller]
fn check_decisions(seen: &Seen, drafts: &[TestDraft]) -> usize {
    let validator = validator("decision.v1");
    let mut by_key: BTreeMap<(String, Option<u64>), Vec<&Decision>> = BTreeMap::new();
    for (value, decision) in &seen.decisions {
        let errors = errors(&validator, value);
        assert!(
            errors.is_empty(),
            "decision for {} violates decision.v1: {errors:?}\n{value}",
            decision.article_id
        );
        by_key
            .entry((decision.article_id.clone(), decision.revision))
            .or_default()
            .push(decision);
    }
    let missing: Vec<&str> = drafts
        .iter()
        .filter(|d| !by_key.contains_key(&(d.article_id.clone(), Some(d.revision))))
        .map(|d| d.article_id.as_str())
        .collect();
    assert!(
        missing.is_empty(),
        "{} of {} drafts were not decided within {:?}: {missing:?}",
        missing.len(),
        drafts.len(),
        ALL_DECIDED_WITHIN
    );
    let mut repeats = 0;
    for d in drafts {
        let copies = &by_key[&(d.article_id.clone(), Some(d.revision))];
        let first = copies[0];
        for again in &copies[1..] {
            assert_eq!(
                (&again.decision_id, again.outcome, &again.reasons),
                (&first.decision_id, first.outcome, &first.reasons),
                "{} was decided twice, differently",
                d.article_id
            );
        }
        repeats += copies.len() - 1;
        let (outcome, reasons, issue) = d.kind.expected();
        let mut got = first.reasons.clone();
        got.sort();
        assert_eq!(
            (first.outcome, got),
            (outcome, reasons),
            "{} ({:?}): wrong decision; issues: {:?}",
            d.article_id,
            d.kind,
            first
                .report
                .issues
                .iter()
                .map(|i| &i.problem)
                .collect::<Vec<_>>()
        );
        match issue {
            Some(issue_type) => assert!(
                first
                    .report
                    .issues
                    .iter()
                    .any(|i| i.issue_type == issue_type),
                "{} ({:?}) lacks an issue of type {issue_type:?}: {:?}",
                d.article_id,
                d.kind,
                first.report.issues
            ),
            None => assert!(
                first.report.issues.is_empty(),
                "{}: a pass lists issues {:?}",
                d.article_id,
                first.report.issues
            ),
        }
    }
    let expected: BTreeSet<(String, Option<u64>)> = drafts
        .iter()
        .map(|d| (d.article_id.clone(), Some(d.revision)))
        .collect();
    let strays: Vec<_> = by_key.keys().filter(|k| !expected.contains(k)).collect();
    assert!(
        strays.is_empty(),
        "decisions for drafts never sent: {strays:?}"
    );
    if repeats > 0 {
        eprintln!("{repeats} decision(s) were delivered again, each identical to the first");
    }
    repeats
}

// ---------------------------------------------------------------------------------------------
// 1. All roles in one process

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_draft_gets_exactly_one_decision_with_the_outcome_its_content_calls_for() {
    let (_broker, config, origin) = setup().await;
    let roles = start_roles(&config, &Role::ALL).await;
    let reader = outside_reader(&config, &config.kafka.topics.decisions, "cms");
    let producer = producer(&config);
    let drafts = drafts("once", &MIX, &origin, false);
    publish_all(&producer, &config, &drafts).await;

    let mut seen = Seen::default();
    expect_decisions(&reader, &mut seen, &drafts).await;
    assert_eq!(
        seen.decisions.len(),
        drafts.len(),
        "one decision per draft, no repeats without a fault"
    );
    roles.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn drafts_published_twice_still_get_one_decision_each() {
    let (_broker, config, origin) = setup().await;
    let roles = start_roles(&config, &Role::ALL).await;
    let reader = outside_reader(&config, &config.kafka.topics.decisions, "cms");
    let producer = producer(&config);
    let drafts = drafts("twice", &MIX, &origin, false);
    let (early, late) = drafts.split_at(6);

    // The first half twice in a row, so the copies meet while the article is in flight.
    for d in early {
        publish_draft(&producer, &config, &d.article_id, &d.payload).await;
        publish_draft(&producer, &config, &d.article_id, &d.payload).await;
    }
    publish_all(&producer, &config, late).await;
    let mut seen = Seen::default();
    seen.read_until_decided(&reader, &drafts, Instant::now() + ALL_DECIDED_WITHIN)
        .await;
    // The second half again once decided: the copy meets a decided article.
    publish_all(&producer, &config, late).await;
    expect_decisions(&reader, &mut seen, &drafts).await;
    assert_eq!(
        seen.decisions.len(),
        drafts.len(),
        "a duplicated draft was decided again"
    );
    roles.stop().await;
}

// ---------------------------------------------------------------------------------------------
// 2. Unreadable drafts

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn unreadable_drafts_are_dead_lettered_as_sent_and_blocked_when_their_id_is_known() {
    let (_broker, config, origin) = setup().await;
    let roles = start_roles(&config, &Role::ALL).await;
    let decisions = outside_reader(&config, &config.kafka.topics.decisions, "cms");
    let dead_letters = outside_reader(&config, &config.kafka.topics.dead_letter, "ops");
    let producer = producer(&config);

    // JSON with its article id and revision, but no published_at or body: blocked.
    let with_id = br#"{"schema_version":"factgate.draft.v1","article_id":"unreadable-with-id","revision":4,"title":"half a draft"}"#;
    // Not JSON at all (cut short): nothing is guessed from its bytes, but its record's key names
    // its article, as the CMS keys drafts: blocked for that article, its revision unknown.
    let without_id = br#"{"schema_version":"factgate.draft.v1","article_id":"unreadable-cut","revision":1,"body":"Prices ro"#;
    // And a readable one, decided as usual, to show the role goes on.
    let clean = draft(Kind::Clean, "readable-after", &origin, false);
    publish_draft(&producer, &config, "unreadable-with-id", with_id).await;
    publish_draft(&producer, &config, "unreadable-cut", without_id).await;
    publish_draft(&producer, &config, &clean.article_id, &clean.payload).await;

    let mut letters: Vec<(String, Vec<u8>, Option<String>)> = Vec::new();
    let until = Instant::now() + ALL_DECIDED_WITHIN;
    while letters.len() < 2 {
        let message = timeout_at(until, dead_letters.recv())
            .await
            .unwrap_or_else(|_| panic!("only {} of 2 drafts were dead-lettered", letters.len()))
            .expect("dead letter read");
        letters.push((
            String::from_utf8_lossy(message.key().unwrap_or_default()).into_owned(),
            message.payload().unwrap_or_default().to_vec(),
            read_schema(&message).map(str::to_owned),
        ));
    }
    let mut seen = Seen::default();
    let expected = [
        ("unreadable-with-id", Some(4)),
        ("unreadable-cut", None),
        ("readable-after", Some(1)),
    ];
    let until = Instant::now() + ALL_DECIDED_WITHIN;
    while !expected
        .iter()
        .all(|(a, r)| seen.keys().contains(&((*a).to_owned(), *r)))
    {
        let Ok(received) = timeout_at(until, decisions.recv()).await else {
            break;
        };
        seen.take(received);
    }
    seen.read_for(&decisions, QUIET).await;
    // Anything dead-lettered a second time would have arrived by now.
    while let Ok(Ok(message)) = timeout(Duration::from_millis(500), dead_letters.recv()).await {
        letters.push((
            String::from_utf8_lossy(message.key().unwrap_or_default()).into_owned(),
            message.payload().unwrap_or_default().to_vec(),
            read_schema(&message).map(str::to_owned),
        ));
    }

    letters.sort();
    let schema = Some("factgate.dead_letter.v1".to_owned());
    assert_eq!(
        letters,
        vec![
            (
                "unreadable-cut".to_owned(),
                without_id.to_vec(),
                schema.clone()
            ),
            ("unreadable-with-id".to_owned(), with_id.to_vec(), schema),
        ],
        "each unreadable draft is dead-lettered once, byte for byte"
    );

    let validator = validator("decision.v1");
    let mut by_article: BTreeMap<&str, Vec<&(Value, Decision)>> = BTreeMap::new();
    for entry in &seen.decisions {
        by_article
            .entry(&entry.1.article_id)
            .or_default()
            .push(entry);
    }
    assert_eq!(
        by_article.keys().copied().collect::<Vec<_>>(),
        vec!["readable-after", "unreadable-cut", "unreadable-with-id"],
        "one decision each, the draft that is not JSON blocked for the article its key names"
    );
    let [(value, blocked)] = by_article["unreadable-with-id"][..] else {
        panic!("one decision for the unreadable draft");
    };
    assert!(validator.is_valid(value), "{value}");
    assert_eq!(blocked.outcome, Outcome::Block);
    assert_eq!(blocked.reasons, vec![DecisionReason::DraftUnreadable]);
    assert_eq!(blocked.revision, Some(4));
    let [(value, cut)] = by_article["unreadable-cut"][..] else {
        panic!("one decision for the draft that is not JSON");
    };
    assert!(validator.is_valid(value), "{value}");
    assert_eq!(cut.outcome, Outcome::Block);
    assert_eq!(cut.reasons, vec![DecisionReason::DraftUnreadable]);
    let [(value, passed)] = by_article["readable-after"][..] else {
        panic!("one decision for the readable draft");
    };
    assert!(validator.is_valid(value), "{value}");
    assert_eq!(passed.outcome, Outcome::Pass);
    roles.stop().await;
}

// ---------------------------------------------------------------------------------------------
// 3. Faults

/// The mix plus one draft whose source is slower than its deadline.
fn fault_drafts(prefix: &str, origin: &str, lag: bool) -> Vec<TestDraft> {
    let mut kinds = MIX.to_vec();
    kinds.push(Kind::SlowSource);
    drafts(prefix, &kinds, origin, lag)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn request_errors_on_produce_fetch_and_offset_commit_change_no_decision() {
    use RDKafkaRespErr::*;
    let (broker, config, origin) = setup().await;
    let inject = || {
        broker
            .inject_request_errors(
                RDKafkaApiKey::Produce,
                &[
                    RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
                    RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
                    RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS,
                    RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE,
                ],
            )
            .expect("inject on Produce");
        broker
            .inject_request_errors(
                RDKafkaApiKey::Fetch,
                &[
                    RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
                    RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
                    RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
                ],
            )
            .expect("inject on Fetch");
        broker
            .inject_request_errors(
                RDKafkaApiKey::OffsetCommit,
                &[
                    RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
                    RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE,
                    RD_KAFKA_RESP_ERR_NOT_COORDINATOR,
                ],
            )
            .expect("inject on OffsetCommit");
    };
    let roles = start_roles(&config, &Role::ALL).await;
    let reader = outside_reader(&config, &config.kafka.topics.decisions, "cms");
    let producer = producer(&config);
    let drafts = fault_drafts("errors", &origin, false);
    let (early, late) = drafts.split_at(6);

    inject();
    publish_all(&producer, &config, early).await;
    // Once work is flowing, the errors again, mid-run.
    let mut seen = Seen::default();
    seen.read_until_decided(&reader, &early[..1], Instant::now() + ALL_DECIDED_WITHIN)
        .await;
    inject();
    publish_all(&producer, &config, late).await;
    expect_decisions(&reader, &mut seen, &drafts).await;
    roles.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_broker_taken_down_and_brought_back_changes_no_decision() {
    let (broker, config, origin) = setup().await;
    let roles = start_roles(&config, &Role::ALL).await;
    let reader = outside_reader(&config, &config.kafka.topics.decisions, "cms");
    let producer = producer(&config);
    let drafts = fault_drafts("outage", &origin, true);
    let (early, late) = drafts.split_at(6);

    publish_all(&producer, &config, early).await;
    let mut seen = Seen::default();
    seen.read_until_decided(&reader, &early[..1], Instant::now() + ALL_DECIDED_WITHIN)
        .await;
    assert!(
        seen.decided_count(&drafts) < drafts.len(),
        "the outage must come mid-run"
    );
    broker.broker_down(1).expect("broker down");
    // Drafts published during the outage wait in the producer's queue.
    let during = {
        let producer = producer.clone();
        let config = config.clone();
        let late = late.to_vec();
        tokio::spawn(async move { publish_all(&producer, &config, &late).await })
    };
    // Under the 6 s session timeout, so the groups survive; the clients reconnect.
    tokio::time::sleep(Duration::from_secs(3)).await;
    broker.broker_up(1).expect("broker up");
    timeout(Duration::from_secs(60), during)
        .await
        .expect("drafts published during the outage are delivered after it")
        .expect("publishing task");
    expect_decisions(&reader, &mut seen, &drafts).await;
    roles.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn roles_stopped_mid_run_and_started_again_decide_every_draft_once() {
    let (_broker, config, origin) = setup().await;
    // Each role as its own process would run it.
    let extract = start_roles(&config, &[Role::Extract]).await;
    let mut verify = start_roles(&config, &[Role::Verify]).await;
    let join = start_roles(&config, &[Role::Join]).await;
    let reader = outside_reader(&config, &config.kafka.topics.decisions, "cms");
    let producer = producer(&config);
    // Every source answers late, so checks are in flight when verify stops.
    let drafts = fault_drafts("restart", &origin, true);
    let (early, late) = drafts.split_at(8);

    // One sourced draft decided first, so verify has answered before it is stopped.
    let (first, rest) = early.split_at(1);
    assert_eq!(first[0].kind, Kind::Clean);
    publish_all(&producer, &config, first).await;
    let mut seen = Seen::default();
    seen.read_until_decided(&reader, first, Instant::now() + ALL_DECIDED_WITHIN)
        .await;
    assert!(
        seen.has_all(first),
        "verify answered nothing before it was stopped"
    );
    // The rest of the early drafts, then verify stopped well within the sources' lag, while
    // their checks are in flight (all at once: the roles keep work in flight): abandoned, their
    // offsets unstored.
    publish_all(&producer, &config, rest).await;
    tokio::time::sleep(LAGGED_SOURCE / 3).await;
    verify.stop().await;
    let decided_at_stop = seen.decided_count(&drafts);
    assert!(
        decided_at_stop < early.len(),
        "verify must be stopped mid-run: {decided_at_stop} of {} already decided",
        early.len()
    );
    publish_all(&producer, &config, late).await;
    // The join too, holding undecided articles; it rebuilds them by reading again.
    join.stop().await;
    seen.read_for(&reader, Duration::from_secs(1)).await;
    let join = start_roles(&config, &[Role::Join]).await;
    verify = start_roles(&config, &[Role::Verify]).await;

    expect_decisions(&reader, &mut seen, &drafts).await;
    for roles in [extract, verify, join] {
        roles.stop().await;
    }
}

// ---------------------------------------------------------------------------------------------
// Tracing: one article's work is one trace across the roles.

/// The trace ids of every message on `topic` about `article_id`, read until `expected` were seen.
/// The trace ids of the first `expected` messages about `article_id` on `topic`, with the
/// messages' JSON.
async fn trace_ids(
    config: &Config,
    topic: &str,
    article_id: &str,
    expected: usize,
) -> Vec<(String, Value)> {
    let reader = outside_reader(config, topic, &format!("trace-{topic}-{article_id}"));
    let until = Instant::now() + ALL_DECIDED_WITHIN;
    let mut ids = Vec::new();
    while ids.len() < expected {
        let message = timeout_at(until, reader.recv())
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "{topic}: only {} of {expected} messages for {article_id}",
                    ids.len()
                )
            })
            .expect("the reader reads");
        let value = serde_json::from_slice::<Value>(message.payload().unwrap_or_default())
            .unwrap_or_default();
        if value["article_id"] == article_id {
            let trace = factgate::kafka::read_trace_context(&message)
                .unwrap_or_else(|| panic!("{topic}: a message without a valid traceparent"));
            ids.push((factgate::telemetry::trace_id(Some(&trace)), value));
        }
    }
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_articles_work_is_one_trace_across_the_roles() {
    let (_broker, config, origin) = setup().await;
    let roles = start_roles(&config, &Role::ALL).await;
    let topics = &config.kafka.topics;

    // A CMS that sends a trace context: factgate continues it.
    let traced = draft(Kind::Clean, "trace-cms", &origin, false);
    let headers = EventHeaders::new(DRAFT_V1, None);
    let cms_trace = factgate::telemetry::trace_id(Some(&headers.trace));
    publish_draft_with(
        &producer(&config),
        &config,
        &traced.article_id,
        &traced.payload,
        &headers,
    )
    .await;

    // A CMS that sends none: factgate starts one trace for the whole article.
    let untraced = draft(Kind::Clean, "trace-none", &origin, false);
    let plain: rdkafka::producer::FutureProducer = ClientConfig::new()
        .set(
            "bootstrap.servers",
            config.kafka.bootstrap_servers.as_deref().unwrap_or(""),
        )
        .create()
        .expect("plain producer");
    plain
        .send(
            rdkafka::producer::FutureRecord::to(&topics.drafts)
                .key(&untraced.article_id)
                .payload(&untraced.payload),
            Duration::from_secs(30),
        )
        .await
        .expect("the draft is delivered");

    for (article, expected_trace) in [("trace-cms", Some(cms_trace)), ("trace-none", None)] {
        let mut all = Vec::new();
        for topic in [
            &topics.manifests,
            &topics.verify,
            &topics.verified,
            &topics.decisions,
        ] {
            all.extend(
                trace_ids(&config, topic, article, 1)
                    .await
                    .into_iter()
                    .map(|(id, _)| id),
            );
        }
        let first = all[0].clone();
        assert!(
            all.iter().all(|id| *id == first),
            "{article}: manifest, request, result and decision share one trace: {all:?}"
        );
        if let Some(cms) = expected_trace {
            assert_eq!(first, cms, "{article}: the CMS's trace is continued");
        }
    }

    // An article decided at its deadline, on no message, is still decided in its own trace.
    let late = draft(Kind::SlowSource, "trace-deadline", &origin, false);
    let late_headers = EventHeaders::new(DRAFT_V1, None);
    let late_trace = factgate::telemetry::trace_id(Some(&late_headers.trace));
    publish_draft_with(
        &producer(&config),
        &config,
        &late.article_id,
        &late.payload,
        &late_headers,
    )
    .await;
    let (manifest_trace, _) = trace_ids(&config, &topics.manifests, "trace-deadline", 1)
        .await
        .remove(0);
    assert_eq!(manifest_trace, late_trace);
    let (decision_trace, decision) = trace_ids(&config, &topics.decisions, "trace-deadline", 1)
        .await
        .remove(0);
    let reasons = decision["reasons"].as_array().cloned().unwrap_or_default();
    assert!(
        reasons.contains(&Value::from("deadline_exceeded")),
        "decided at its deadline: {decision}"
    );
    assert_eq!(
        decision_trace, late_trace,
        "the deadline decision continues the article's trace"
    );
    roles.stop().await;
}

// ---------------------------------------------------------------------------------------------
// 7. Re-checking an archive

/// `draft` as if the CMS had published it a year ago: a replayed archive.
/// `draft` as published `ago` before now.
fn published_ago(mut draft: TestDraft, ago: chrono::Duration) -> TestDraft {
    let mut value: Value = serde_json::from_slice(&draft.payload).expect("draft is JSON");
    value["published_at"] = Value::from((Utc::now() - ago).to_rfc3339());
    draft.payload = serde_json::to_vec(&value).expect("serializes");
    draft
}

fn archived(draft: TestDraft) -> TestDraft {
    published_ago(draft, chrono::Duration::days(365))
}

/// A backlog published while factgate was down (eleven minutes of drafts, the deadline one
/// minute) is checked on its merits once factgate starts, by default: each draft gets the
/// decision its content calls for, and says it arrived late, how late in a field and in words.
/// Under `join.deadline_from = "published"` (strict event time) the same backlog blocks at
/// once, `deadline_exceeded`, the decision saying it must be published again.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_backlog_published_while_factgate_was_down_is_checked_on_its_merits() {
    let kinds = [Kind::Clean, Kind::WrongFigure, Kind::Clean];
    let ago = chrono::Duration::minutes(11);

    // Down: the drafts wait on the topic; then factgate starts and reads them. The default
    // counts deadlines from when checking begins.
    let (_broker, mut config, origin) = setup().await;
    assert_eq!(
        Config::default().join.deadline_from,
        factgate::config::DeadlineFrom::Extracted
    );
    config.join.deadline_from = factgate::config::DeadlineFrom::Extracted;
    assert!(
        config.join.deadline_ms < 120_000,
        "eleven minutes late is late"
    );
    let late: Vec<TestDraft> = drafts("backlog", &kinds, &origin, false)
        .into_iter()
        .map(|d| published_ago(d, ago))
        .collect();
    publish_all(&producer(&config), &config, &late).await;
    let roles = start_roles(&config, &Role::ALL).await;
    let reader = outside_reader(&config, &config.kafka.topics.decisions, "cms");
    let mut seen = Seen::default();
    expect_decisions(&reader, &mut seen, &late).await;
    for (value, decision) in &seen.decisions {
        let arrived = decision
            .arrived_late
            .expect("the decision says it arrived late");
        assert!(arrived.by_ms >= 660_000, "{value}");
        assert_eq!(
            value["arrived_late"]["by_ms"], arrived.by_ms,
            "a field of the decision"
        );
        let reason = &decision.report.recommendation_reason;
        assert!(
            reason.contains("reached factgate 11 minutes after it was published")
                && reason.contains("checked on its merits"),
            "{reason}"
        );
        assert!(!decision.reasons.contains(&DecisionReason::DeadlineExceeded));
    }
    roles.stop().await;

    // Strict event time: a year-old archive replayed is past its deadline, blocked at once.
    let (_broker, config, origin) = setup().await;
    assert_eq!(
        config.join.deadline_from,
        factgate::config::DeadlineFrom::Published
    );
    let roles = start_roles(&config, &Role::ALL).await;
    let reader = outside_reader(&config, &config.kafka.topics.decisions, "cms");
    let old: Vec<TestDraft> = drafts("archive-live", &kinds, &origin, false)
        .into_iter()
        .map(archived)
        .collect();
    publish_all(&producer(&config), &config, &old).await;
    let mut seen = Seen::default();
    seen.read_until_decided(&reader, &old, Instant::now() + ALL_DECIDED_WITHIN)
        .await;
    assert_eq!(
        seen.decided_count(&old),
        old.len(),
        "every draft is decided"
    );
    for (_, decision) in &seen.decisions {
        assert_eq!(decision.outcome, Outcome::Block, "{decision:?}");
        assert!(
            decision.reasons.contains(&DecisionReason::DeadlineExceeded),
            "counted from publication, a year-old draft is past its deadline: {decision:?}"
        );
        assert!(
            decision
                .report
                .recommendation_reason
                .contains("publish it again to have it checked"),
            "{}",
            decision.report.recommendation_reason
        );
    }
    roles.stop().await;
}

// ---------------------------------------------------------------------------------------------
// 8. Back-pressure

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_join_at_its_cap_still_reads_results_and_decides_on_them() {
    let (_broker, mut config, origin) = setup().await;
    // Two articles awaiting results fill the join; the sources answer late, so manifests are
    // always ahead of their results. Pausing all reading at the cap would leave those results
    // unread until the deadline blocked the articles.
    config.join.max_in_flight_articles = 2;
    let roles = start_roles(&config, &Role::ALL).await;
    let reader = outside_reader(&config, &config.kafka.topics.decisions, "cms");
    let kinds = [
        Kind::Clean,
        Kind::WrongFigure,
        Kind::Clean,
        Kind::DeadLink,
        Kind::Clean,
        Kind::WrongFigure,
        Kind::Clean,
        Kind::Clean,
    ];
    let drafts = drafts("capped", &kinds, &origin, true);
    publish_all(&producer(&config), &config, &drafts).await;
    let mut seen = Seen::default();
    expect_decisions(&reader, &mut seen, &drafts).await;
    roles.stop().await;
}

// ---------------------------------------------------------------------------------------------
// 9. The same (article, revision) published again

/// A broker, a configuration that does not retry fetches, and an origin whose `/flaky/{name}`
/// answers 503 while `down` is set and the demo's source once it is not.
async fn setup_with_flaky_source() -> (
    &'static EmbeddedBroker,
    Config,
    String,
    std::sync::Arc<std::sync::atomic::AtomicBool>,
) {
    use std::sync::atomic::{AtomicBool, Ordering};
    let (broker, mut config, _) = setup().await;
    config.fetch.max_retries = 0;
    let down = std::sync::Arc::new(AtomicBool::new(true));
    let flag = std::sync::Arc::clone(&down);
    let origin = start_demo(Router::new().route(
        "/flaky/{name}",
        get(move |name: UrlPath<String>| {
            let flag = std::sync::Arc::clone(&flag);
            async move {
                if flag.load(Ordering::SeqCst) {
                    axum::http::StatusCode::SERVICE_UNAVAILABLE.into_response()
                } else {
                    demo_source(name).await
                }
            }
        }),
    ))
    .await;
    (broker, config, origin, down)
}

/// Every decision on `article_id` read within `wait`, after those already in `seen`.
async fn decisions_on(
    reader: &StreamConsumer,
    seen: &mut Seen,
    article_id: &str,
    count: usize,
    wait: Duration,
) -> Vec<Decision> {
    let until = Instant::now() + wait;
    loop {
        let on: Vec<Decision> = seen
            .decisions
            .iter()
            .filter(|(_, d)| d.article_id == article_id)
            .map(|(_, d)| d.clone())
            .collect();
        if on.len() >= count {
            return on;
        }
        let Ok(received) = timeout_at(until, reader.recv()).await else {
            return on;
        };
        seen.take(received);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_draft_blocked_for_a_source_that_was_down_is_checked_again_when_published_again() {
    let (_broker, config, origin, down) = setup_with_flaky_source().await;
    let roles = start_roles(&config, &Role::ALL).await;
    let reader = outside_reader(&config, &config.kafka.topics.decisions, "cms");
    let producer = producer(&config);
    let mut draft = draft(Kind::Clean, "retry-1", &origin, false);
    let flaky = String::from_utf8(draft.payload.clone())
        .expect("UTF-8")
        .replace("/survey.html", "/flaky/survey.html");
    draft.payload = flaky.into_bytes();
    let mut seen = Seen::default();

    publish_draft(&producer, &config, &draft.article_id, &draft.payload).await;
    let first = decisions_on(&reader, &mut seen, "retry-1", 1, ALL_DECIDED_WITHIN).await;
    assert_eq!(first.len(), 1, "decided once");
    assert_eq!(first[0].outcome, Outcome::Block);
    assert!(
        first[0]
            .reasons
            .contains(&DecisionReason::SourceUnjudgeable),
        "{:?}",
        first[0].reasons
    );

    // The source is back; the CMS publishes the same draft again to retry, as the runbook says.
    down.store(false, std::sync::atomic::Ordering::SeqCst);
    publish_draft(&producer, &config, &draft.article_id, &draft.payload).await;
    let both = decisions_on(&reader, &mut seen, "retry-1", 2, ALL_DECIDED_WITHIN).await;
    assert_eq!(both.len(), 2, "checked again: {both:?}");
    let second = &both[1];
    assert_eq!((second.outcome, second.revision), (Outcome::Pass, Some(1)));
    assert_ne!(second.decision_id, first[0].decision_id);
    assert_eq!(second.content_digest, first[0].content_digest);
    let (Some(was), Some(now)) = (first[0].draft_position, second.draft_position) else {
        panic!("decisions name their publication: {both:?}");
    };
    assert!(now.is_after(&was), "{was} then {now}");

    // Published once more: the pass stands, nothing is checked or decided again.
    publish_draft(&producer, &config, &draft.article_id, &draft.payload).await;
    let after = decisions_on(&reader, &mut seen, "retry-1", 3, QUIET * 2).await;
    assert_eq!(
        after.len(),
        2,
        "a repeat of a settled decision is only acknowledged"
    );
    roles.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_revision_published_again_with_other_content_is_decided_on_the_content_published_last() {
    let (_broker, config, origin) = setup().await;
    let roles = start_roles(&config, &Role::ALL).await;
    let reader = outside_reader(&config, &config.kafka.topics.decisions, "cms");
    let producer = producer(&config);
    let digest = |d: &TestDraft| {
        factgate_core::events::DraftEvent::from_json(&d.payload)
            .expect("a readable draft")
            .content_digest()
    };
    let mut seen = Seen::default();

    // After a pass: a wrong figure under the same revision is decided again, and blocks.
    let right = draft(Kind::Clean, "conflict-decided", &origin, false);
    let wrong = draft(Kind::WrongFigure, "conflict-decided", &origin, false);
    publish_draft(&producer, &config, &right.article_id, &right.payload).await;
    let first = decisions_on(
        &reader,
        &mut seen,
        "conflict-decided",
        1,
        ALL_DECIDED_WITHIN,
    )
    .await;
    assert_eq!(first[0].outcome, Outcome::Pass);
    publish_draft(&producer, &config, &wrong.article_id, &wrong.payload).await;
    let both = decisions_on(
        &reader,
        &mut seen,
        "conflict-decided",
        2,
        ALL_DECIDED_WITHIN,
    )
    .await;
    assert_eq!(both.len(), 2, "{both:?}");
    assert_eq!(both[1].outcome, Outcome::Block);
    assert_eq!(
        both[1].content_digest.as_deref(),
        Some(digest(&wrong).as_str())
    );
    assert_eq!(
        both[0].content_digest.as_deref(),
        Some(digest(&right).as_str())
    );

    // Back to back, the second before the first is decided: whatever the first got, the last
    // decision is about the second body, and no pass is ever about it.
    let right = draft(Kind::Clean, "conflict-in-flight", &origin, true);
    let wrong = draft(Kind::WrongFigure, "conflict-in-flight", &origin, true);
    publish_draft(&producer, &config, &right.article_id, &right.payload).await;
    publish_draft(&producer, &config, &wrong.article_id, &wrong.payload).await;
    let until = Instant::now() + ALL_DECIDED_WITHIN;
    let mut on = Vec::new();
    while Instant::now() < until {
        on = decisions_on(
            &reader,
            &mut seen,
            "conflict-in-flight",
            on.len() + 1,
            QUIET,
        )
        .await;
        if on
            .last()
            .is_some_and(|d| d.content_digest.as_deref() == Some(digest(&wrong).as_str()))
        {
            break;
        }
    }
    let last = on.last().expect("a decision");
    assert_eq!(
        last.content_digest.as_deref(),
        Some(digest(&wrong).as_str()),
        "{on:?}"
    );
    assert_eq!(last.outcome, Outcome::Block);
    for d in &on {
        assert!(
            d.outcome == Outcome::Block
                || d.content_digest.as_deref() == Some(digest(&right).as_str()),
            "a pass about content that was not checked: {d:?}"
        );
    }
    roles.stop().await;
}

// ---------------------------------------------------------------------------------------------
// 10. A draft whose outputs the broker refuses

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_draft_whose_outputs_the_broker_refuses_is_blocked_and_dead_lettered_and_reading_goes_on()
{
    let (broker, config, origin) = setup().await;
    let decisions = outside_reader(&config, &config.kafka.topics.decisions, "cms");
    let dead_letters = outside_reader(&config, &config.kafka.topics.dead_letter, "ops");
    let producer = producer(&config);
    let refused = draft(Kind::Unsourced, "refused-by-broker", &origin, false);
    publish_draft(&producer, &config, &refused.article_id, &refused.payload).await;
    // The next record the broker is sent, the draft's manifest, is refused as too large: a
    // fault of the record, which no retry can mend.
    broker
        .inject_request_errors(
            RDKafkaApiKey::Produce,
            &[RDKafkaRespErr::RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE],
        )
        .expect("inject on Produce");
    let roles = start_roles(&config, &Role::ALL).await;

    let letter = timeout(ALL_DECIDED_WITHIN, dead_letters.recv())
        .await
        .expect("the draft is dead-lettered in time")
        .expect("dead letter read");
    assert_eq!(letter.key(), Some(refused.article_id.as_bytes()));
    assert_eq!(letter.payload(), Some(refused.payload.as_slice()));
    let mut seen = Seen::default();
    let blocked = decisions_on(
        &decisions,
        &mut seen,
        &refused.article_id,
        1,
        ALL_DECIDED_WITHIN,
    )
    .await;
    assert_eq!(blocked.len(), 1, "{blocked:?}");
    assert_eq!(blocked[0].outcome, Outcome::Block);
    assert_eq!(blocked[0].reasons, vec![DecisionReason::InternalError]);
    assert!(
        blocked[0].report.issues[0].evidence.contains("refused"),
        "{:?}",
        blocked[0].report.issues
    );

    // The role read on: the next draft is decided as its content calls for.
    let next = draft(Kind::Clean, "after-the-refusal", &origin, false);
    publish_draft(&producer, &config, &next.article_id, &next.payload).await;
    let passed = decisions_on(
        &decisions,
        &mut seen,
        &next.article_id,
        1,
        ALL_DECIDED_WITHIN,
    )
    .await;
    assert_eq!(
        passed.first().map(|d| d.outcome),
        Some(Outcome::Pass),
        "{passed:?}"
    );
    assert!(!roles.is_finished(), "the pipeline is still running");
    roles.stop().await;
}

// ---------------------------------------------------------------------------------------------
// 10. Revisions: each decision says what changed since the article's previous revision

/// A draft of `revision-1` at `revision` whose body is `paragraphs`.
fn revision_draft(revision: u64, paragraphs: &[String]) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "schema_version": "factgate.draft.v1",
        "article_id": "revision-1",
        "revision": revision,
        "published_at": Utc::now().to_rfc3339(),
        "title": "Tutoring",
        "body": format!("# Tutoring\n\n{}\n", paragraphs.join("\n\n")),
        "body_format": "markdown",
    }))
    .expect("serializes")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn each_revision_says_what_changed_since_the_previous_one_also_after_a_restart() {
    let (_broker, config, origin) = setup().await;
    let reader = outside_reader(&config, &config.kafka.topics.decisions, "cms");
    let producer = producer(&config);
    let survey = format!(
        "Online tutoring accounted for 28% of spending on private tutoring in 2023, according to [a survey]({origin}/survey.html)."
    );
    let wrong_price =
        format!("BudgetTutor Basic costs $4/month ([pricing]({origin}/pricing.html)).");
    let right_price =
        format!("BudgetTutor Basic costs $9/month ([pricing]({origin}/pricing.html)).");
    let dead = format!("AI tutoring doubles learning gains ([a study]({origin}/missing.html)).");
    let pilot = "Our pilot with 500 students showed 73% improvement.".to_owned();
    let unsourced =
        "Teachers are divided. 87% of students use digital learning tools daily.".to_owned();
    let mut seen = Seen::default();

    // Revision 1: a wrong price, a dead citation, fabricated pilot data; the survey is right.
    let roles = start_roles(&config, &Role::ALL).await;
    let body = [survey.clone(), wrong_price, dead, pilot.clone()];
    publish_draft(&producer, &config, "revision-1", &revision_draft(1, &body)).await;
    let got = decisions_on(&reader, &mut seen, "revision-1", 1, ALL_DECIDED_WITHIN).await;
    let first = got.last().expect("revision 1 decided");
    assert_eq!((first.revision, first.outcome), (Some(1), Outcome::Block));
    assert_eq!(first.report.issues.len(), 3, "{:#?}", first.report.issues);
    assert!(first.report.changes_since_previous.is_none());

    // Revision 2: the price corrected in place, the dead citation's sentence removed, the pilot
    // kept, an unsourced statistic added.
    let body = [survey.clone(), right_price.clone(), pilot, unsourced];
    publish_draft(&producer, &config, "revision-1", &revision_draft(2, &body)).await;
    let got = decisions_on(&reader, &mut seen, "revision-1", 2, ALL_DECIDED_WITHIN).await;
    let second = got.last().expect("revision 2 decided");
    assert_eq!(second.revision, Some(2));
    let changes = second
        .report
        .changes_since_previous
        .as_ref()
        .expect("revision 2 says what changed");
    assert_eq!(changes.previous_revision, 1);
    assert_eq!(
        (
            changes.counts.fixed,
            changes.counts.still_open,
            changes.counts.new
        ),
        (2, 1, 1),
        "{changes:#?}"
    );
    assert!(
        changes
            .fixed
            .iter()
            .any(|i| i.issue_type == IssueType::FigureMismatch
                && i.resolution == Some(factgate_core::events::Resolution::ClaimEdited))
    );
    assert!(
        changes
            .fixed
            .iter()
            .any(|i| i.issue_type == IssueType::Unverifiable
                && i.resolution == Some(factgate_core::events::Resolution::ClaimRemoved))
    );
    assert!(changes.still_open[0].claim.contains("Our pilot"));
    assert!(changes.new[0].claim.contains("87%"));
    // The unchanged survey claim was checked again; its source came from the fetch cache.
    let survey_check = changes
        .rechecked
        .iter()
        .find(|r| r.claim.contains("28%"))
        .expect("the unchanged claim is rechecked");
    assert!(survey_check.from_cache, "{survey_check:?}");

    // The roles restart between revisions: the join rebuilds what it knows of revision 2 from
    // the decisions topic, and the verifier's cache starts empty.
    roles.stop().await;
    let roles = start_roles(&config, &Role::ALL).await;

    // Revision 3: clean.
    let body = [survey, right_price];
    publish_draft(&producer, &config, "revision-1", &revision_draft(3, &body)).await;
    let got = decisions_on(&reader, &mut seen, "revision-1", 3, ALL_DECIDED_WITHIN).await;
    let third = got.last().expect("revision 3 decided");
    assert_eq!((third.revision, third.outcome), (Some(3), Outcome::Pass));
    let changes = third
        .report
        .changes_since_previous
        .as_ref()
        .expect("revision 3 says what changed, after the restart");
    assert_eq!(changes.previous_revision, 2);
    assert_eq!(
        (
            changes.counts.fixed,
            changes.counts.still_open,
            changes.counts.new
        ),
        (2, 0, 0),
        "{changes:#?}"
    );
    let survey_check = changes
        .rechecked
        .iter()
        .find(|r| r.claim.contains("28%"))
        .expect("the unchanged claim is rechecked");
    assert!(!survey_check.from_cache, "fetched again after the restart");
    let text = factgate::render::decision_text("revision-1", third);
    assert!(
        text.starts_with("Revision 3: 2 of 2 issues fixed; 0 still open; 0 new"),
        "{text}"
    );
    roles.stop().await;
}
