//! The join as a consumer drives it: messages of many articles in any order, duplicated, spread
//! over partitions; decisions that satisfy `schemas/decision.v1.json`; back-pressure; and a crash
//! after which reading again from the committed offsets decides every article.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, TimeDelta, Utc};
use factgate_core::decide::Strictness;
use factgate_core::events::{ArticleManifest, ClaimResult, Decision, DecisionReason, Outcome};
use factgate_core::join::{ArticleStatus, JoinSettings, JoinState, TopicPartition};
use factgate_core::model::Verdict;
use factgate_core::test_support::{DEADLINE_S, at, manifest, result, url};
use jsonschema::Validator;

const TOPIC: &str = "claims.verified";

fn decision_validator() -> Validator {
    crate::support::schema::validator("decision.v1")
}

#[track_caller]
fn assert_schema_valid(validator: &Validator, decision: &Decision) {
    let value = serde_json::to_value(decision).expect("a decision serializes");
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{}:\n{}",
        decision.article_id,
        errors.join("\n")
    );
}

fn settings(max_in_flight_articles: usize) -> JoinSettings {
    JoinSettings {
        max_in_flight_articles,
        max_orphan_results: 1_000,
        orphan_retention: TimeDelta::seconds(2 * DEADLINE_S),
        remembered_articles: 10_000,
        strictness: Strictness::Normal,
    }
}

#[derive(Clone)]
enum Msg {
    Manifest(Box<ArticleManifest>),
    Result(Box<ClaimResult>),
}

/// What article `a` of a generated run is, and so how it must be decided.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    NoClaims,
    AllSupported,
    OneRefuted,
    SlowSource,
}

fn kind(a: usize) -> Kind {
    [
        Kind::NoClaims,
        Kind::AllSupported,
        Kind::OneRefuted,
        Kind::SlowSource,
    ][a % 4]
}

/// `n` articles of every kind, each message duplicated, shuffled by `seed`; each article's
/// messages go to partition `a % 2`, as keying by article would place them.
fn workload(n: usize, seed: u64) -> Vec<(i32, Msg)> {
    let mut msgs = Vec::new();
    for a in 0..n {
        let id = format!("a{a}");
        let partition = (a % 2) as i32;
        let claims = if kind(a) == Kind::NoClaims { 0 } else { 3 };
        for _ in 0..2 {
            msgs.push((partition, Msg::Manifest(Box::new(manifest(&id, 1, claims)))));
            for i in 0..claims {
                let verdict = match (kind(a), i) {
                    (Kind::OneRefuted, 1) => Verdict::Refuted,
                    (Kind::SlowSource, 2) => continue, // never answered in time
                    _ => Verdict::Supported,
                };
                msgs.push((partition, Msg::Result(Box::new(result(&id, 1, i, verdict)))));
            }
        }
    }
    let mut state = seed;
    for i in (1..msgs.len()).rev() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        msgs.swap(i, ((state >> 33) % (i as u64 + 1)) as usize);
    }
    msgs
}

/// Feeds the partitions' messages from `from` (offset per partition) on, as a consumer polls
/// them; returns the decisions and, per partition, the last offset consumed.
fn consume(
    join: &mut JoinState,
    log: &BTreeMap<i32, Vec<Msg>>,
    from: &BTreeMap<i32, i64>,
    until: Option<usize>,
    now: DateTime<Utc>,
) -> (Vec<Decision>, BTreeMap<i32, i64>) {
    let mut decisions = Vec::new();
    let mut consumed = BTreeMap::new();
    let mut fed = 0;
    for (&partition, msgs) in log {
        let tp = TopicPartition::new(TOPIC, partition);
        let start = from.get(&partition).copied().unwrap_or(0);
        for (offset, msg) in msgs.iter().enumerate().skip(start as usize) {
            if until.is_some_and(|u| fed >= u) {
                break;
            }
            fed += 1;
            let offset = offset as i64;
            decisions.extend(match msg.clone() {
                Msg::Manifest(m) => join.on_manifest(&tp, offset, *m, now),
                Msg::Result(r) => join.on_result(&tp, offset, *r, now),
            });
            consumed.insert(partition, offset);
        }
    }
    (decisions, consumed)
}

fn by_partition(msgs: Vec<(i32, Msg)>) -> BTreeMap<i32, Vec<Msg>> {
    let mut log: BTreeMap<i32, Vec<Msg>> = BTreeMap::new();
    for (partition, msg) in msgs {
        log.entry(partition).or_default().push(msg);
    }
    log
}

#[track_caller]
fn assert_expected(decision: &Decision) {
    let a: usize = decision.article_id[1..].parse().expect("article number");
    let (outcome, reason) = match kind(a) {
        Kind::NoClaims | Kind::AllSupported => (Outcome::Pass, None),
        Kind::OneRefuted => (Outcome::Block, Some(DecisionReason::HighSeverityIssue)),
        Kind::SlowSource => (Outcome::Block, Some(DecisionReason::DeadlineExceeded)),
    };
    assert_eq!(
        decision.outcome, outcome,
        "{}: {:?}",
        decision.article_id, decision.reasons
    );
    if let Some(reason) = reason {
        assert!(
            decision.reasons.contains(&reason),
            "{}",
            decision.article_id
        );
    }
}

#[test]
fn shuffled_duplicated_articles_get_one_valid_decision_each() {
    let validator = decision_validator();
    for seed in [3, 17, 2024] {
        let log = by_partition(workload(24, seed));
        let mut join = JoinState::new(settings(1_000));
        let (mut decisions, consumed) = consume(&mut join, &log, &BTreeMap::new(), None, at(2));
        assert_eq!(
            join.in_flight(),
            6,
            "the slow-source articles wait for their deadline"
        );
        assert_eq!(
            join.status("a3", Some(1)),
            ArticleStatus::Pending { revision: 1 }
        );
        decisions.extend(join.on_tick(at(DEADLINE_S)));
        let mut seen = HashMap::new();
        for d in &decisions {
            assert_schema_valid(&validator, d);
            assert_expected(d);
            assert!(
                seen.insert(d.article_id.clone(), d).is_none(),
                "{} twice",
                d.article_id
            );
        }
        assert_eq!(seen.len(), 24, "seed {seed}");
        for (partition, last) in consumed {
            assert_eq!(
                join.commit_watermark(TOPIC, partition, last),
                Some(last + 1)
            );
        }
    }
}

#[test]
fn after_a_crash_reading_again_from_the_watermark_decides_every_article() {
    for (seed, crash_after) in [(1, 10), (5, 40), (9, 75), (11, 120)] {
        let log = by_partition(workload(24, seed));
        let mut first = JoinState::new(settings(1_000));
        let (before, consumed) =
            consume(&mut first, &log, &BTreeMap::new(), Some(crash_after), at(2));
        // Every decision so far is acknowledged: commit the watermark of each partition.
        let committed: BTreeMap<i32, i64> = log
            .keys()
            .map(|&p| {
                let last = consumed.get(&p).copied().unwrap_or(-1);
                (p, first.commit_watermark(TOPIC, p, last).unwrap_or(0))
            })
            .collect();
        drop(first); // the crash: everything in memory is lost

        let mut second = JoinState::new(settings(1_000));
        let (mut after, _) = consume(&mut second, &log, &committed, None, at(3));
        after.extend(second.on_tick(at(DEADLINE_S)));
        let mut outcomes: HashMap<String, Vec<&Decision>> = HashMap::new();
        for d in before.iter().chain(&after) {
            assert_expected(d);
            outcomes.entry(d.article_id.clone()).or_default().push(d);
        }
        assert_eq!(
            outcomes.len(),
            24,
            "seed {seed}, crash after {crash_after}: all decided"
        );
        for (id, ds) in outcomes {
            // Decided again only when replayed, and then as the same decision.
            assert!(
                ds.iter().all(|d| d.decision_id == ds[0].decision_id),
                "{id}"
            );
            assert!(ds.iter().all(|d| d.outcome == ds[0].outcome), "{id}");
        }
        let mut once = HashMap::new();
        for d in &after {
            assert!(
                once.insert(&d.article_id, ()).is_none(),
                "{} twice in one run",
                d.article_id
            );
        }
    }
}

#[test]
fn watermark_never_passes_a_message_of_an_undecided_article() {
    for seed in [2, 8, 31] {
        let msgs = workload(16, seed);
        let mut join = JoinState::new(settings(1_000));
        let tp = TopicPartition::new(TOPIC, 0);
        // First offset of each article's messages, all in one partition.
        let mut first_offset: HashMap<String, i64> = HashMap::new();
        let mut decided: HashMap<String, ()> = HashMap::new();
        for (offset, (_, msg)) in msgs.into_iter().enumerate() {
            let offset = offset as i64;
            let decisions = match msg {
                Msg::Manifest(m) => {
                    first_offset.entry(m.article_id.clone()).or_insert(offset);
                    join.on_manifest(&tp, offset, *m, at(2))
                }
                Msg::Result(r) => {
                    first_offset.entry(r.article_id.clone()).or_insert(offset);
                    join.on_result(&tp, offset, *r, at(2))
                }
            };
            for d in decisions {
                decided.insert(d.article_id, ());
            }
            let earliest_undecided = first_offset
                .iter()
                .filter(|(id, _)| !decided.contains_key(*id))
                .map(|(_, &o)| o)
                .min();
            let watermark = join.commit_watermark(TOPIC, 0, offset).expect("consumed");
            assert_eq!(
                watermark,
                earliest_undecided.unwrap_or(offset + 1),
                "seed {seed} @{offset}"
            );
        }
    }
}

#[test]
fn deadline_late_manifest_and_superseded_decisions_are_valid_and_say_why() {
    let validator = decision_validator();
    let tp = TopicPartition::new(TOPIC, 0);
    let mut join = JoinState::new(settings(100));

    // A manifest read long after its deadline (a restart): blocked by the next tick.
    assert!(
        join.on_manifest(&tp, 0, manifest("late", 1, 2), at(600))
            .is_empty()
    );
    let late = join.on_tick(at(600));
    assert_eq!(late.len(), 1);
    assert_eq!(late[0].outcome, Outcome::Block);
    assert!(late[0].reasons.contains(&DecisionReason::DeadlineExceeded));
    let unfinished: Vec<_> = late[0]
        .report
        .issues
        .iter()
        .filter_map(|i| i.source_url.clone())
        .collect();
    assert_eq!(
        unfinished,
        vec![url(0), url(1)],
        "the unfinished checks are listed"
    );

    // Revision 2 supersedes pending revision 1, and is itself decided normally.
    join.on_manifest(&tp, 1, manifest("news", 1, 1), at(1));
    let d = join.on_manifest(&tp, 2, manifest("news", 2, 1), at(2));
    assert_eq!(d.len(), 1);
    assert_eq!((d[0].revision, d[0].outcome), (Some(1), Outcome::Block));
    assert_eq!(d[0].reasons, vec![DecisionReason::Superseded]);
    let newer = join.on_result(&tp, 3, result("news", 2, 0, Verdict::Supported), at(3));
    assert_eq!(
        (newer[0].revision, newer[0].outcome),
        (Some(2), Outcome::Pass)
    );
    assert!(
        join.on_result(&tp, 4, result("news", 1, 0, Verdict::Supported), at(3))
            .is_empty()
    );

    for decision in late.iter().chain(&d).chain(&newer) {
        assert_schema_valid(&validator, decision);
    }
    assert_eq!(join.in_flight(), 0);
    assert_eq!(join.commit_watermark(TOPIC, 0, 4), Some(5));
}

#[test]
fn a_consumer_that_pauses_each_input_at_its_cap_decides_everything_on_its_results() {
    const CAP: usize = 4;
    const N: usize = 20;
    // The manifests topic and the results topic, as the join reads them: each in order.
    let (mut manifests, mut results): (Vec<_>, Vec<_>) = workload(N, 77)
        .into_iter()
        .map(|(_, msg)| msg)
        .partition(|msg| matches!(msg, Msg::Manifest(_)));
    manifests.reverse();
    results.reverse();
    let manifests_tp = TopicPartition::new("articles.manifest", 0);
    let results_tp = TopicPartition::new(TOPIC, 0);
    let mut join = JoinState::new(settings(CAP));
    let mut decisions = Vec::new();
    let mut now = at(2);
    let mut offset = 0i64;
    let mut paused_manifests = 0;
    let mut ticks = 0;
    let mut turn = 0usize;
    while !manifests.is_empty() || !results.is_empty() {
        let pressure = join.backpressure();
        paused_manifests += usize::from(pressure.manifests && !manifests.is_empty());
        let manifests_open = !pressure.manifests && !manifests.is_empty();
        let results_open = !pressure.results && !results.is_empty();
        // Alternate between the inputs that are open, as a consumer polls both topics.
        turn += 1;
        let take_manifest = manifests_open && (!results_open || turn.is_multiple_of(2));
        let msg = if take_manifest {
            manifests.pop()
        } else if results_open {
            results.pop()
        } else {
            // Nothing to read: only time moves, and deadlines free room. With every result
            // read, what still waits lacks one for good.
            assert!(results.is_empty(), "results paused: {pressure:?}");
            now += TimeDelta::seconds(DEADLINE_S);
            decisions.extend(join.on_tick(now));
            ticks += 1;
            assert!(ticks < 100, "room never came back");
            continue;
        };
        offset += 1;
        decisions.extend(match msg {
            Some(Msg::Manifest(m)) => join.on_manifest(&manifests_tp, offset, *m, now),
            Some(Msg::Result(r)) => join.on_result(&results_tp, offset, *r, now),
            None => unreachable!("an open input has a message"),
        });
        let waiting = join.awaiting_results();
        assert!(waiting <= CAP, "{waiting} articles await results");
    }
    assert!(paused_manifests > 0, "the cap was reached");
    // Every article whose results all came was decided on them, not at a deadline.
    decisions.extend(join.on_tick(now + TimeDelta::seconds(DEADLINE_S)));
    let mut ids: Vec<_> = decisions.iter().map(|d| d.article_id.clone()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), N);
    assert_eq!(decisions.len(), N, "one decision each, even while paused");
    let at_deadline: Vec<usize> = decisions
        .iter()
        .filter(|d| d.reasons.contains(&DecisionReason::DeadlineExceeded))
        .map(|d| d.article_id[1..].parse().expect("ids are a<n>"))
        .collect();
    assert!(
        at_deadline.iter().all(|&a| kind(a) == Kind::SlowSource),
        "only articles missing a result wait for their deadline: {at_deadline:?}"
    );
    assert_eq!(at_deadline.len(), N / 4);
}

// ---------------------------------------------------------------------------------------------
// Scaling the join on the embedded broker

mod rebalance {
    use std::collections::{BTreeMap, BTreeSet};
    use std::time::Duration;

    use crate::support::origin::{demo_source, start_demo};
    use crate::support::pipeline::{demo_draft, outside_reader, publish_draft, start_roles};
    use axum::Router;
    use axum::extract::Path as UrlPath;
    use axum::routing::get;
    use factgate::config::Config;
    use factgate::kafka::{EmbeddedBroker, EventProducer};
    use factgate::pipeline::Role;
    use factgate_core::events::{Decision, DecisionReason, Outcome};
    use rdkafka::Message;
    use rdkafka::consumer::StreamConsumer;
    use tokio::time::{Instant, sleep, timeout_at};

    /// Partitions of every topic: more than instances, so rebalances move some of them.
    const PARTITIONS: u32 = 6;
    const ALL_DECIDED_WITHIN: Duration = Duration::from_secs(150);
    /// Every draft's deadline. A join instance that kept the articles of partitions it lost
    /// would block them when it passes (`deadline_exceeded`): a second decision, which the test
    /// waits long enough to see.
    const DEADLINE: Duration = Duration::from_secs(35);
    /// How long each source takes to answer: articles are in flight while the group changes.
    const LAG: Duration = Duration::from_secs(6);

    /// A draft's template and the decision its content calls for.
    const KINDS: [(&str, Outcome, &[DecisionReason]); 4] = [
        (
            include_str!("../../examples/demo/drafts/clean.json"),
            Outcome::Pass,
            &[],
        ),
        (
            include_str!("../../examples/demo/drafts/wrong-figure.json"),
            Outcome::Block,
            &[DecisionReason::HighSeverityIssue],
        ),
        (
            include_str!("../../examples/demo/drafts/dead-link.json"),
            Outcome::Block,
            &[DecisionReason::HighSeverityIssue],
        ),
        (
            include_str!("../../examples/demo/drafts/unsourced-statistic.json"),
            Outcome::Block,
            &[DecisionReason::HighSeverityIssue],
        ),
    ];

    struct Draft {
        article_id: String,
        payload: Vec<u8>,
        outcome: Outcome,
        reasons: Vec<DecisionReason>,
    }

    /// `n` drafts of every kind, whose sources answer after [`LAG`] at URLs of their own.
    fn batch(prefix: &str, n: usize, origin: &str) -> Vec<Draft> {
        (0..n)
            .map(|i| {
                let (template, outcome, reasons) = KINDS[i % KINDS.len()];
                let article_id = format!("{prefix}-{i:02}");
                let lagged =
                    template.replace("{{origin}}/", &format!("{{{{origin}}}}/lag/{article_id}/"));
                Draft {
                    payload: demo_draft(&lagged, &article_id, origin),
                    article_id,
                    outcome,
                    reasons: reasons.to_vec(),
                }
            })
            .collect()
    }

    async fn read_until(
        reader: &StreamConsumer,
        seen: &mut Vec<Decision>,
        wanted: &BTreeSet<String>,
        until: Instant,
    ) {
        loop {
            let have: BTreeSet<String> = seen.iter().map(|d| d.article_id.clone()).collect();
            if wanted.is_subset(&have) {
                return;
            }
            let Ok(received) = timeout_at(until, reader.recv()).await else {
                return;
            };
            if let Ok(message) = received {
                let decision: Decision =
                    serde_json::from_slice(message.payload().unwrap_or_default())
                        .expect("a decision");
                seen.push(decision);
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn join_instances_joining_and_leaving_mid_run_decide_every_article_once() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_test_writer()
            .try_init();
        let origin = start_demo(Router::new().route(
            "/lag/{article}/{name}",
            get(|UrlPath((_, name)): UrlPath<(String, String)>| async move {
                sleep(LAG).await;
                demo_source(UrlPath(name)).await
            }),
        ))
        .await;
        let mut kafka = Config::default().kafka;
        kafka.partitions = PARTITIONS;
        let broker: &'static EmbeddedBroker = Box::leak(Box::new(
            EmbeddedBroker::start(&kafka).expect("embedded broker starts"),
        ));
        let mut config = crate::support::pipeline::mock_cluster_config(
            broker.bootstrap_servers(),
            &format!("[join]\ndeadline_ms = {}\n", DEADLINE.as_millis()),
        );
        config.kafka.partitions = PARTITIONS;
        // Many checks of one host at once: the limiter must not be what the test waits for.
        config.fetch.per_host_requests_per_second = 50.0;
        config.fetch.per_host_burst = 50;
        config.fetch.per_host_concurrency = 50;

        let extract = start_roles(&config, &[Role::Extract]).await;
        let verify = [
            start_roles(&config, &[Role::Verify]).await,
            start_roles(&config, &[Role::Verify]).await,
        ];
        let first_join = start_roles(&config, &[Role::Join]).await;
        let second_join = start_roles(&config, &[Role::Join]).await;
        let reader = outside_reader(&config, &config.kafka.topics.decisions, "cms");
        let producer =
            EventProducer::new(&config.kafka, broker.bootstrap_servers()).expect("producer");
        let mut drafts = Vec::new();
        let mut seen: Vec<Decision> = Vec::new();
        let publish = async |name: &str, n: usize, drafts: &mut Vec<Draft>| {
            let batch = batch(name, n, &origin);
            for d in &batch {
                publish_draft(&producer, &config, &d.article_id, &d.payload).await;
            }
            drafts.extend(batch);
        };

        // Two join instances share the partitions; articles are in flight (their sources take
        // [`LAG`] to answer) when a third joins: every instance's partitions are revoked and
        // handed out again, some to another instance.
        publish("before", 12, &mut drafts).await;
        let third_join = start_roles(&config, &[Role::Join]).await;
        sleep(Duration::from_secs(3)).await;
        publish("joined", 12, &mut drafts).await;
        sleep(Duration::from_secs(3)).await;
        // One leaves: its partitions go to the other two, with articles still undecided.
        first_join.stop().await;
        publish("left", 12, &mut drafts).await;
        // Past every deadline, by when a stale instance would have decided again.
        let stale_by = Instant::now() + DEADLINE + Duration::from_secs(5);

        let wanted: BTreeSet<String> = drafts.iter().map(|d| d.article_id.clone()).collect();
        read_until(
            &reader,
            &mut seen,
            &wanted,
            Instant::now() + ALL_DECIDED_WITHIN,
        )
        .await;
        read_until(
            &reader,
            &mut seen,
            &BTreeSet::from(["never".to_owned()]),
            stale_by.max(Instant::now() + Duration::from_secs(3)),
        )
        .await;

        let mut by_article: BTreeMap<&str, Vec<&Decision>> = BTreeMap::new();
        for d in &seen {
            by_article.entry(&d.article_id).or_default().push(d);
        }
        let mut failures = Vec::new();
        let mut repeats = 0;
        for draft in &drafts {
            let Some(decisions) = by_article.get(draft.article_id.as_str()) else {
                failures.push(format!("{}: no decision", draft.article_id));
                continue;
            };
            let ids: BTreeSet<&str> = decisions.iter().map(|d| d.decision_id.as_str()).collect();
            if ids.len() != 1
                || decisions.iter().any(|d| {
                    (d.outcome, &d.reasons) != (decisions[0].outcome, &decisions[0].reasons)
                })
            {
                failures.push(format!(
                    "{}: more than one decision: {:?}",
                    draft.article_id,
                    decisions
                        .iter()
                        .map(|d| (&d.decision_id, d.outcome, &d.reasons))
                        .collect::<Vec<_>>()
                ));
                continue;
            }
            repeats += decisions.len() - 1;
            let d = decisions[0];
            let mut reasons = d.reasons.clone();
            reasons.sort();
            if (d.outcome, &reasons) != (draft.outcome, &draft.reasons) {
                failures.push(format!(
                    "{}: expected {:?} {:?}, got {:?} {:?}",
                    draft.article_id, draft.outcome, draft.reasons, d.outcome, d.reasons
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        eprintln!(
            "{} articles decided once each through two rebalances ({repeats} delivered again)",
            drafts.len()
        );
        for roles in [extract, second_join, third_join] {
            roles.stop().await;
        }
        for roles in verify {
            roles.stop().await;
        }
    }
}
