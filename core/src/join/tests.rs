use super::*;
use crate::events::TraceContext;
use crate::events::{
    DecisionReason, DraftPosition, ExtractionFailure, ExtractionOutcome, IssueType, Outcome,
    content_digest,
};
use crate::model::Verdict;
use crate::test_support::{DEADLINE_S, MANIFEST, at, manifest, result, url};

fn tp(partition: i32) -> TopicPartition {
    TopicPartition::new("claims.verified", partition)
}

fn settings(max_in_flight: usize) -> JoinSettings {
    JoinSettings {
        max_in_flight_articles: max_in_flight,
        max_orphan_results: 4 * max_in_flight,
        orphan_retention: TimeDelta::seconds(120),
        remembered_articles: 1_000,
        strictness: Strictness::Normal,
    }
}

fn state() -> JoinState {
    JoinState::new(settings(100))
}

/// A tiny deterministic generator, so shuffles are reproducible.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as usize
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

enum Msg {
    Manifest(ArticleManifest),
    Result(Box<ClaimResult>),
}

fn feed(join: &mut JoinState, offset: i64, msg: Msg, now: DateTime<Utc>) -> Vec<Decision> {
    match msg {
        Msg::Manifest(m) => join.on_manifest(&tp(0), offset, m, now),
        Msg::Result(r) => join.on_result(&tp(0), offset, *r, now),
    }
}

#[test]
fn shuffled_articles_with_duplicates_get_one_decision_each() {
    for seed in 1..=5 {
        let mut rng = Lcg(seed);
        let mut msgs = Vec::new();
        for a in 0..12 {
            let id = format!("a{a}");
            msgs.push(Msg::Manifest(manifest(&id, 1, a % 4)));
            msgs.push(Msg::Manifest(manifest(&id, 1, a % 4)));
            for i in 0..a % 4 {
                // Article a3, a7, a11 have one refuted claim (claim 2).
                let verdict = if i == 2 {
                    Verdict::Refuted
                } else {
                    Verdict::Supported
                };
                msgs.push(Msg::Result(Box::new(result(&id, 1, i, verdict))));
                msgs.push(Msg::Result(Box::new(result(&id, 1, i, verdict))));
            }
        }
        rng.shuffle(&mut msgs);
        let mut join = state();
        let mut decisions = Vec::new();
        let last = msgs.len() as i64 - 1;
        for (offset, msg) in msgs.into_iter().enumerate() {
            decisions.extend(feed(&mut join, offset as i64, msg, at(2)));
        }
        decisions.extend(join.on_tick(at(DEADLINE_S + 1)));
        assert_eq!(decisions.len(), 12, "seed {seed}: one decision per article");
        for d in &decisions {
            let a: usize = d.article_id[1..].parse().expect("article number");
            let expected = if a % 4 == 3 {
                Outcome::Block
            } else {
                Outcome::Pass
            };
            assert_eq!(
                d.outcome, expected,
                "seed {seed}: {} {:?}",
                d.article_id, d.reasons
            );
            assert_eq!(d.revision, Some(1));
            assert!(!d.reasons.contains(&DecisionReason::DeadlineExceeded));
        }
        assert_eq!(join.in_flight(), 0);
        assert_eq!(
            join.commit_watermark("claims.verified", 0, last),
            Some(last + 1)
        );
    }
}

#[test]
fn results_before_the_manifest_are_kept_until_it_comes() {
    let mut join = state();
    assert!(
        join.on_result(&tp(0), 0, result("a", 1, 1, Verdict::Supported), at(1))
            .is_empty()
    );
    assert!(
        join.on_result(&tp(0), 1, result("a", 1, 0, Verdict::Supported), at(1))
            .is_empty()
    );
    assert_eq!(join.orphan_results(), 2);
    assert_eq!(
        join.status("a", Some(1)),
        ArticleStatus::Pending { revision: 1 }
    );
    assert_eq!(join.commit_watermark("claims.verified", 0, 1), Some(0));
    let decisions = join.on_manifest(&tp(0), 2, manifest("a", 1, 2), at(2));
    assert_eq!(decisions.len(), 1);
    assert_eq!(decisions[0].outcome, Outcome::Pass);
    assert_eq!(decisions[0].report.summary.citations_checked, 2);
    assert_eq!(join.orphan_results(), 0);
    assert_eq!(join.in_flight(), 0);
    assert_eq!(join.commit_watermark("claims.verified", 0, 2), Some(3));
}

#[test]
fn a_result_for_a_key_not_pending_is_ignored_and_not_held() {
    let mut join = state();
    join.on_manifest(&tp(0), 0, manifest("a", 1, 2), at(1));
    let mut stranger = result("a", 1, 0, Verdict::Refuted);
    stranger.source_url = "https://elsewhere.example/".to_owned();
    assert!(join.on_result(&tp(0), 1, stranger, at(1)).is_empty());
    join.on_result(&tp(0), 2, result("a", 1, 0, Verdict::Supported), at(1));
    let d = join.on_result(&tp(0), 3, result("a", 1, 1, Verdict::Supported), at(1));
    assert_eq!(d.len(), 1);
    assert_eq!(
        d[0].outcome,
        Outcome::Pass,
        "the stranger's refutation did not count"
    );
}

#[test]
fn an_orphan_result_not_pending_in_its_manifest_is_released() {
    let mut join = state();
    let mut stranger = result("a", 1, 0, Verdict::Supported);
    stranger.claim_id = "c99".to_owned();
    join.on_result(&tp(0), 0, stranger, at(1));
    join.on_manifest(&tp(0), 1, manifest("a", 1, 1), at(1));
    assert_eq!(join.orphan_results(), 0);
    assert_eq!(
        join.commit_watermark("claims.verified", 0, 1),
        Some(1),
        "only the manifest"
    );
}

#[test]
fn extraction_failure_no_claims_and_only_unsourced_claims_decide_at_once() {
    let mut join = state();
    let mut failed = manifest("f", 1, 0);
    failed.extraction = ExtractionOutcome::Failed {
        reason: ExtractionFailure::UnreadableBody,
        message: "invalid UTF-8 at byte 12".to_owned(),
    };
    let d = join.on_manifest(&tp(0), 0, failed, at(1));
    assert_eq!(d[0].reasons, vec![DecisionReason::ExtractionFailed]);
    assert_eq!(d[0].report.issues[0].evidence, "invalid UTF-8 at byte 12");

    let d = join.on_manifest(&tp(0), 1, manifest("empty", 1, 0), at(1));
    assert_eq!((d.len(), d[0].outcome), (1, Outcome::Pass));

    let mut unsourced: ArticleManifest = serde_json::from_str(MANIFEST).expect("example");
    unsourced.claims.truncate(1); // the pilot-study claim, which cites nothing
    unsourced.pending.clear();
    let d = join.on_manifest(&tp(0), 2, unsourced, at(1));
    assert_eq!(d[0].reasons, vec![DecisionReason::HighSeverityIssue]);
    assert_eq!(join.in_flight(), 0);
    assert_eq!(join.commit_watermark("claims.verified", 0, 2), Some(3));
}

#[test]
fn the_deadline_blocks_and_lists_the_unfinished_checks() {
    let mut join = state();
    join.on_manifest(&tp(0), 0, manifest("a", 1, 3), at(1));
    join.on_result(&tp(0), 1, result("a", 1, 1, Verdict::Supported), at(2));
    assert!(
        join.on_tick(at(DEADLINE_S) - TimeDelta::milliseconds(1))
            .is_empty()
    );
    let d = join.on_tick(at(DEADLINE_S));
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].outcome, Outcome::Block);
    assert!(d[0].reasons.contains(&DecisionReason::DeadlineExceeded));
    let unfinished: Vec<_> = d[0]
        .report
        .issues
        .iter()
        .filter(|i| i.issue_type == IssueType::Error)
        .filter_map(|i| i.source_url.clone())
        .collect();
    assert_eq!(unfinished, vec![url(0), url(2)]);
    assert!(join.on_tick(at(DEADLINE_S + 5)).is_empty(), "decided once");
    assert!(
        join.on_result(&tp(0), 2, result("a", 1, 0, Verdict::Supported), at(70))
            .is_empty()
    );
    assert_eq!(join.commit_watermark("claims.verified", 0, 2), Some(3));
}

#[test]
fn a_manifest_past_its_deadline_is_blocked_by_the_next_tick() {
    let mut join = state();
    let late = at(DEADLINE_S + 300);
    assert!(
        join.on_manifest(&tp(0), 0, manifest("a", 1, 1), late)
            .is_empty()
    );
    let d = join.on_tick(late);
    assert_eq!(d.len(), 1);
    assert!(d[0].reasons.contains(&DecisionReason::DeadlineExceeded));

    // Results read in the same poll, before the tick, still count.
    join.on_manifest(&tp(0), 1, manifest("b", 1, 1), late);
    let d = join.on_result(&tp(0), 2, result("b", 1, 0, Verdict::Supported), late);
    assert_eq!(d[0].outcome, Outcome::Pass);
    assert!(join.on_tick(late).is_empty());
}

#[test]
fn a_newer_revision_supersedes_the_pending_older_one() {
    let mut join = state();
    join.on_manifest(&tp(0), 0, manifest("a", 1, 1), at(1));
    join.on_result(&tp(0), 1, result("a", 2, 0, Verdict::Supported), at(1));
    let d = join.on_manifest(&tp(0), 2, manifest("a", 2, 1), at(2));
    assert_eq!(d.len(), 2, "{d:?}");
    assert_eq!(d[0].revision, Some(1));
    assert_eq!(d[0].reasons, vec![DecisionReason::Superseded]);
    assert_eq!(d[1].revision, Some(2));
    assert_eq!(d[1].outcome, Outcome::Pass);
    // The older revision's result and manifest, late or replayed, change nothing.
    assert!(
        join.on_result(&tp(0), 3, result("a", 1, 0, Verdict::Supported), at(3))
            .is_empty()
    );
    assert!(
        join.on_manifest(&tp(0), 4, manifest("a", 1, 1), at(3))
            .is_empty()
    );
    assert_eq!(join.commit_watermark("claims.verified", 0, 4), Some(5));
}

#[test]
fn an_older_revision_seen_late_is_superseded_once() {
    let mut join = state();
    join.on_manifest(&tp(0), 0, manifest("a", 3, 1), at(1));
    let d = join.on_manifest(&tp(0), 1, manifest("a", 2, 1), at(1));
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0].revision, d[0].reasons.clone()),
        (Some(2), vec![DecisionReason::Superseded])
    );
    assert!(
        join.on_manifest(&tp(0), 2, manifest("a", 2, 1), at(1))
            .is_empty()
    );
    assert_eq!(join.pending_of("a"), Some(3), "the newer one still waits");
    assert_eq!(join.commit_watermark("claims.verified", 0, 2), Some(0));
}

#[test]
fn a_replay_after_the_decision_makes_nothing_and_holds_nothing() {
    let mut join = state();
    join.on_manifest(&tp(0), 0, manifest("a", 1, 1), at(1));
    assert_eq!(
        join.on_result(&tp(0), 1, result("a", 1, 0, Verdict::Supported), at(1))
            .len(),
        1
    );
    assert!(
        join.on_manifest(&tp(0), 2, manifest("a", 1, 1), at(2))
            .is_empty()
    );
    assert!(
        join.on_result(&tp(0), 3, result("a", 1, 0, Verdict::Refuted), at(2))
            .is_empty()
    );
    assert!(join.on_tick(at(DEADLINE_S * 10)).is_empty());
    assert_eq!(join.in_flight(), 0);
    assert_eq!(join.status("a", Some(1)), ArticleStatus::Unknown);
    assert_eq!(join.commit_watermark("claims.verified", 0, 3), Some(4));
}

#[test]
fn manifests_pause_at_the_cap_and_resume_after_a_decision() {
    let mut join = JoinState::new(settings(2));
    let none = Backpressure::default();
    join.on_manifest(&tp(0), 0, manifest("a", 1, 1), at(1));
    assert_eq!(join.backpressure(), none);
    join.on_result(&tp(0), 1, result("b", 1, 0, Verdict::Supported), at(1));
    assert_eq!(
        join.backpressure(),
        none,
        "a result awaiting its manifest takes no article's room"
    );
    join.on_manifest(&tp(0), 2, manifest("c", 1, 1), at(1));
    assert_eq!(
        join.backpressure(),
        Backpressure {
            manifests: true,
            results: false
        },
        "two articles await results: no room for a third, but their results are still read"
    );
    // Nothing already consumed is dropped: another manifest is still taken, over the cap.
    join.on_manifest(&tp(0), 3, manifest("d", 1, 1), at(1));
    assert_eq!(join.in_flight(), 4);
    // Results still come in and complete articles, which makes room for manifests again.
    join.on_result(&tp(0), 4, result("a", 1, 0, Verdict::Supported), at(1));
    join.on_result(&tp(0), 5, result("c", 1, 0, Verdict::Supported), at(1));
    assert_eq!(join.backpressure(), none);
    join.on_manifest(&tp(0), 6, manifest("b", 1, 1), at(1));
    assert_eq!(
        join.in_flight(),
        1,
        "b took its waiting result and was decided"
    );
}

#[test]
fn too_many_results_without_a_manifest_also_fill_the_state() {
    let mut join = JoinState::new(JoinSettings {
        max_orphan_results: 3,
        ..settings(100)
    });
    for i in 0..3 {
        join.on_result(
            &tp(0),
            i as i64,
            result("a", 1, i, Verdict::Supported),
            at(1),
        );
    }
    assert_eq!(
        join.backpressure(),
        Backpressure {
            manifests: false,
            results: true
        },
        "results pause; manifests are still read, to claim them"
    );
    assert_eq!(join.in_flight(), 1);
}

#[test]
fn with_both_caps_reached_manifests_are_still_read_up_to_twice_the_article_cap() {
    let mut join = JoinState::new(JoinSettings {
        max_orphan_results: 2,
        ..settings(2)
    });
    // Two articles await results; the results read next belong to articles whose manifests
    // are not read yet.
    join.on_manifest(&tp(0), 0, manifest("a", 1, 1), at(1));
    join.on_manifest(&tp(0), 1, manifest("b", 1, 1), at(1));
    join.on_result(&tp(1), 0, result("x", 1, 0, Verdict::Supported), at(1));
    join.on_result(&tp(1), 1, result("y", 1, 0, Verdict::Supported), at(1));
    assert_eq!(
        join.backpressure(),
        Backpressure {
            manifests: false,
            results: true
        },
        "pausing both would leave a's and b's results unread until their deadline"
    );
    // The manifests read claim the held results, which frees the results input.
    assert_eq!(
        join.on_manifest(&tp(0), 2, manifest("x", 1, 1), at(1))
            .len(),
        1
    );
    assert_eq!(
        join.backpressure(),
        Backpressure {
            manifests: true,
            results: false
        }
    );
    // With both caps reached, manifests that claim nothing fill up to twice the article cap.
    join.on_result(&tp(1), 2, result("z", 1, 0, Verdict::Supported), at(1));
    join.on_manifest(&tp(0), 3, manifest("c", 1, 1), at(1));
    assert!(!join.backpressure().manifests);
    join.on_manifest(&tp(0), 4, manifest("d", 1, 1), at(1));
    assert_eq!(join.awaiting_results(), 4);
    assert_eq!(
        join.backpressure(),
        Backpressure {
            manifests: true,
            results: true
        },
        "past the ceiling both wait for deadlines"
    );
    // A deadline makes room again.
    assert_eq!(join.on_tick(at(DEADLINE_S + 2)).len(), 4);
    assert!(!join.backpressure().manifests);
}

#[test]
fn results_without_a_manifest_are_dropped_after_the_retention() {
    let mut join = state();
    join.on_result(&tp(0), 0, result("a", 1, 0, Verdict::Supported), at(10));
    join.on_result(&tp(0), 1, result("b", 1, 0, Verdict::Supported), at(100));
    assert!(join.on_tick(at(129)).is_empty());
    assert_eq!(join.orphan_results(), 2);
    join.on_tick(at(130));
    assert_eq!(join.orphan_results(), 1);
    assert_eq!(join.status("a", None), ArticleStatus::Unknown);
    assert_eq!(
        join.status("b", None),
        ArticleStatus::Pending { revision: 1 }
    );
    assert_eq!(join.commit_watermark("claims.verified", 0, 1), Some(1));
    // Its manifest, if it ever comes, waits and is blocked at its deadline: fail closed.
    join.on_manifest(&tp(0), 2, manifest("a", 1, 1), at(131));
    let d = join.on_tick(at(131));
    assert!(d[0].reasons.contains(&DecisionReason::DeadlineExceeded));
}

#[test]
fn watermark_stays_at_the_earliest_undecided_article() {
    let mut join = state();
    let tp0 = tp(0);
    let wm = |j: &JoinState, consumed| j.commit_watermark("claims.verified", 0, consumed);
    join.on_manifest(&tp0, 10, manifest("a", 1, 2), at(1)); // a: 10
    join.on_manifest(&tp0, 11, manifest("b", 1, 1), at(1)); // b: 11
    join.on_result(&tp0, 12, result("a", 1, 0, Verdict::Supported), at(1)); // a: 10, 12
    assert_eq!(wm(&join, 12), Some(10));
    join.on_result(&tp0, 13, result("c", 1, 0, Verdict::Supported), at(1)); // c (orphan): 13
    join.on_result(&tp0, 14, result("b", 1, 0, Verdict::Supported), at(1)); // b decided
    assert_eq!(wm(&join, 14), Some(10), "b decided, a still holds 10");
    join.on_result(&tp0, 15, result("a", 1, 1, Verdict::Supported), at(1)); // a decided
    assert_eq!(
        wm(&join, 15),
        Some(13),
        "the orphan of c is the earliest now"
    );
    join.on_manifest(&tp0, 16, manifest("c", 1, 2), at(1)); // c: 13, 16
    assert_eq!(wm(&join, 16), Some(13));
    assert_eq!(
        join.on_tick(at(DEADLINE_S)).len(),
        1,
        "c blocked at its deadline"
    );
    assert_eq!(wm(&join, 16), Some(17));
    assert_eq!(wm(&join, 15), Some(16), "never past what was consumed");
}

#[test]
fn watermarks_are_kept_per_topic_and_partition() {
    let mut join = state();
    let results_topic = TopicPartition::new("claims.results", 0);
    join.on_manifest(&tp(1), 5, manifest("a", 1, 2), at(1));
    join.on_manifest(&tp(0), 7, manifest("b", 1, 1), at(1));
    // A result of a pending article holds its own topic's offset, even after its manifest.
    join.on_result(
        &results_topic,
        2,
        result("a", 1, 0, Verdict::Supported),
        at(1),
    );
    join.on_result(
        &results_topic,
        3,
        result("b", 1, 0, Verdict::Refuted),
        at(1),
    );
    assert_eq!(join.commit_watermark("claims.results", 0, 3), Some(2));
    join.on_result(
        &results_topic,
        4,
        result("a", 1, 1, Verdict::Supported),
        at(1),
    );
    assert_eq!(join.commit_watermark("claims.results", 0, 4), Some(5));
    join.on_manifest(&tp(1), 6, manifest("c", 1, 1), at(1));
    assert_eq!(
        join.commit_watermark("claims.verified", 1, 9),
        Some(6),
        "a decided, c holds 6"
    );
    assert_eq!(
        join.commit_watermark("claims.verified", 0, 9),
        Some(10),
        "b is decided"
    );
    assert_eq!(join.commit_watermark("claims.results", 0, 3), Some(4));
    assert_eq!(join.commit_watermark("claims.verified", 2, -1), None);
}

#[test]
fn status_and_pending_of_answer_for_the_http_endpoint() {
    let mut join = state();
    join.on_manifest(&tp(0), 0, manifest("a", 4, 1), at(1));
    join.on_result(&tp(0), 1, result("a", 5, 0, Verdict::Supported), at(1));
    assert_eq!(join.pending_of("a"), Some(4));
    assert_eq!(
        join.status("a", Some(4)),
        ArticleStatus::Pending { revision: 4 }
    );
    assert_eq!(
        join.status("a", Some(5)),
        ArticleStatus::Pending { revision: 5 }
    );
    assert_eq!(join.status("a", Some(3)), ArticleStatus::Unknown);
    assert_eq!(join.status("zz", None), ArticleStatus::Unknown);
    assert_eq!(join.pending_of("zz"), None);
}

#[test]
fn revoking_a_partition_forgets_what_it_held() {
    let mut join = state();
    join.on_manifest(&tp(0), 0, manifest("a", 1, 1), at(1));
    join.on_manifest(&tp(1), 0, manifest("b", 1, 1), at(1));
    join.on_result(&tp(1), 1, result("c", 1, 0, Verdict::Supported), at(1));
    assert_eq!(join.revoke(&tp(1)), 2);
    assert_eq!(join.in_flight(), 1);
    assert_eq!(join.orphan_results(), 0);
    assert_eq!(join.commit_watermark("claims.verified", 1, 1), Some(2));
    assert_eq!(join.commit_watermark("claims.verified", 0, 0), Some(0));
    // Not decided, so when read again it is taken afresh.
    join.on_manifest(&tp(1), 0, manifest("b", 1, 1), at(1));
    assert_eq!(join.pending_of("b"), Some(1));
}

#[test]
fn settings_follow_the_join_section() {
    let s = JoinSettings::new(7, 5_000, Strictness::Strict);
    assert_eq!(s.max_in_flight_articles, 7);
    assert_eq!(s.max_orphan_results, 7 * DEFAULT_ORPHAN_RESULTS_PER_ARTICLE);
    assert_eq!(s.orphan_retention, TimeDelta::seconds(10));
    assert_eq!(s.strictness, Strictness::Strict);
}

#[test]
fn every_decision_carries_its_articles_trace_even_at_the_deadline() {
    let mut join = state();
    let trace = |traceparent: &str| TraceContext::new(traceparent).expect("a W3C traceparent");
    let late = trace("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    let late_result = trace("00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01");
    let early = trace("00-0af7651916cd43dd8448eb211c80319c-b9c7c989f97918e1-01");
    // Waiting for two results at its deadline: decided on no message, in its manifest's trace.
    let decided =
        join.on_manifest_traced(&tp(0), 0, manifest("late", 1, 2), Some(late.clone()), at(1));
    assert!(decided.is_empty());
    let decided = join.on_result_traced(
        &tp(0),
        1,
        result("late", 1, 0, Verdict::Supported),
        Some(late_result),
        at(2),
    );
    assert!(decided.is_empty());
    // Results before their manifest, and a manifest without a trace: the first result's trace.
    join.on_result_traced(
        &tp(0),
        2,
        result("early", 1, 0, Verdict::Supported),
        Some(early.clone()),
        at(2),
    );
    let decided = join.on_manifest_traced(&tp(0), 3, manifest("early", 1, 1), None, at(3));
    assert_eq!(decided.len(), 1);
    assert_eq!(decided[0].trace, Some(early));

    let due = join.on_tick_traced(at(DEADLINE_S + 1));
    assert_eq!(due.len(), 1);
    assert!(
        due[0]
            .decision
            .reasons
            .contains(&DecisionReason::DeadlineExceeded)
    );
    assert_eq!(
        due[0].trace,
        Some(late.clone()),
        "the manifest's trace, not the result's"
    );
    assert_eq!(join.in_flight(), 0, "the trace is freed with the article");
}

#[test]
fn an_unreadable_manifest_blocks_its_revision_once_and_supersedes_the_older() {
    let mut join = state();
    assert!(
        join.on_manifest(&tp(0), 0, manifest("a", 1, 1), at(1))
            .is_empty()
    );
    let blocked = join.on_unreadable_manifest_traced("a", Some(2), "d", "bad json", None, at(2));
    let decided: Vec<(Option<u64>, Outcome, Vec<DecisionReason>)> = blocked
        .iter()
        .map(|d| {
            (
                d.decision.revision,
                d.decision.outcome,
                d.decision.reasons.clone(),
            )
        })
        .collect();
    assert_eq!(
        decided,
        vec![
            (Some(1), Outcome::Block, vec![DecisionReason::Superseded]),
            (Some(2), Outcome::Block, vec![DecisionReason::InternalError]),
        ]
    );
    // A replay of it, and results for it, decide nothing more.
    assert!(
        join.on_unreadable_manifest_traced("a", Some(2), "d", "bad json", None, at(3))
            .is_empty()
    );
    assert!(
        join.on_result(&tp(0), 5, result("a", 2, 0, Verdict::Supported), at(3))
            .is_empty()
    );
    assert_eq!(join.in_flight(), 0);
    // Without a revision, the article is still blocked.
    let unnamed = join.on_unreadable_manifest_traced("b", None, "d", "bad json", None, at(3));
    assert_eq!(unnamed.len(), 1);
    assert_eq!(unnamed[0].decision.outcome, Outcome::Block);
}

// ---------------------------------------------------------------------------------------------
// Publications: the same (article, revision) published again

/// `m` as the publication at `offset` of the drafts topic.
fn published(mut m: ArticleManifest, offset: i64) -> ArticleManifest {
    m.draft_position = Some(DraftPosition {
        partition: 0,
        offset,
    });
    m
}

/// `r` as a result for the publication at `offset`.
fn for_publication(mut r: ClaimResult, offset: i64) -> ClaimResult {
    r.draft_position = Some(DraftPosition {
        partition: 0,
        offset,
    });
    r
}

/// A result whose source could not be fetched (the site was down): a fail-closed block.
fn unjudged(article: &str, revision: u64, i: usize) -> ClaimResult {
    let mut r = result(article, revision, i, Verdict::Unconfirmed);
    r.fetch_status = crate::events::FetchStatus::ServerError;
    r.issue = None;
    r.correction = None;
    r
}

fn notes(join: &mut JoinState) -> Vec<Republished> {
    join.take_notes()
        .into_iter()
        .map(|n| match n {
            JoinNote::Republished { handling, .. } => handling,
        })
        .collect()
}

#[test]
fn the_same_content_published_again_after_a_fail_closed_block_is_checked_again() {
    let mut join = state();
    join.on_manifest(&tp(0), 0, published(manifest("a", 1, 1), 10), at(1));
    let first = join.on_result(&tp(0), 1, for_publication(unjudged("a", 1, 0), 10), at(2));
    assert_eq!(first.len(), 1);
    assert!(
        first[0]
            .reasons
            .contains(&DecisionReason::SourceUnjudgeable)
    );

    // The source is back; the CMS publishes the same draft again.
    let again = join.on_manifest(&tp(0), 2, published(manifest("a", 1, 1), 20), at(3));
    assert!(again.is_empty(), "checked again, not decided at once");
    assert_eq!(notes(&mut join), vec![Republished::Rechecked]);
    // A late copy of the first publication's result does not answer the new check.
    assert!(
        join.on_result(&tp(0), 3, for_publication(unjudged("a", 1, 0), 10), at(3))
            .is_empty()
    );
    let second = join.on_result(
        &tp(0),
        4,
        for_publication(result("a", 1, 0, Verdict::Supported), 20),
        at(4),
    );
    assert_eq!(second.len(), 1);
    assert_eq!(second[0].outcome, Outcome::Pass);
    assert_ne!(
        second[0].decision_id, first[0].decision_id,
        "a new publication, a new decision"
    );
    assert_eq!(second[0].draft_position.map(|p| p.offset), Some(20));
    assert_eq!(join.commit_watermark("claims.verified", 0, 4), Some(5));
}

#[test]
fn the_same_content_published_again_after_a_settled_decision_is_acknowledged() {
    let mut join = state();
    join.on_manifest(&tp(0), 0, published(manifest("a", 1, 1), 10), at(1));
    let refuted = for_publication(result("a", 1, 0, Verdict::Refuted), 10);
    let first = join.on_result(&tp(0), 1, refuted, at(2));
    assert_eq!(first[0].reasons, vec![DecisionReason::HighSeverityIssue]);

    // Its results may come before its manifest; neither makes a decision or holds an offset.
    let late = for_publication(result("a", 1, 0, Verdict::Supported), 20);
    assert!(join.on_result(&tp(0), 2, late.clone(), at(3)).is_empty());
    assert!(
        join.on_manifest(&tp(0), 3, published(manifest("a", 1, 1), 20), at(3))
            .is_empty()
    );
    assert_eq!(notes(&mut join), vec![Republished::Acknowledged]);
    assert!(join.on_result(&tp(0), 4, late, at(3)).is_empty());
    assert_eq!(join.orphan_results(), 0);
    assert_eq!(join.in_flight(), 0);
    assert_eq!(join.commit_watermark("claims.verified", 0, 4), Some(5));
    // A replay of the first publication changes nothing either.
    assert!(
        join.on_manifest(&tp(0), 5, published(manifest("a", 1, 1), 10), at(4))
            .is_empty()
    );
    assert!(notes(&mut join).is_empty());
}

#[test]
fn new_content_for_a_decided_revision_is_decided_again_on_that_content() {
    let mut join = state();
    join.on_manifest(&tp(0), 0, published(manifest("a", 1, 1), 10), at(1));
    let pass = join.on_result(
        &tp(0),
        1,
        for_publication(result("a", 1, 0, Verdict::Supported), 10),
        at(2),
    );
    assert_eq!(pass[0].outcome, Outcome::Pass);

    let mut corrected = published(manifest("a", 1, 1), 20);
    corrected.content_digest = content_digest(b"a wrong figure this time");
    assert!(join.on_manifest(&tp(0), 2, corrected, at(3)).is_empty());
    assert_eq!(notes(&mut join), vec![Republished::NewContent]);
    // The pass was about other content: the old publication's results do not count.
    assert!(
        join.on_result(
            &tp(0),
            3,
            for_publication(result("a", 1, 0, Verdict::Supported), 10),
            at(3)
        )
        .is_empty()
    );
    let block = join.on_result(
        &tp(0),
        4,
        for_publication(result("a", 1, 0, Verdict::Refuted), 20),
        at(4),
    );
    assert_eq!(block.len(), 1);
    assert_eq!(block[0].outcome, Outcome::Block);
    assert_ne!(block[0].decision_id, pass[0].decision_id);
    assert_ne!(block[0].content_digest, pass[0].content_digest);
}

#[test]
fn new_content_while_the_old_is_in_flight_is_the_one_decided() {
    let mut join = state();
    join.on_manifest(&tp(0), 0, published(manifest("a", 1, 1), 10), at(1));
    let mut corrected = published(manifest("a", 1, 1), 20);
    corrected.content_digest = content_digest(b"corrected");
    assert!(
        join.on_manifest(&tp(0), 1, corrected, at(2)).is_empty(),
        "the old content gets no decision"
    );
    assert_eq!(notes(&mut join), vec![Republished::NewContent]);
    assert!(
        join.on_result(
            &tp(0),
            2,
            for_publication(result("a", 1, 0, Verdict::Supported), 10),
            at(2)
        )
        .is_empty(),
        "a result for the old content does not decide the new"
    );
    let d = join.on_result(
        &tp(0),
        3,
        for_publication(result("a", 1, 0, Verdict::Refuted), 20),
        at(3),
    );
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].outcome, Outcome::Block);
    assert_eq!(d[0].draft_position.map(|p| p.offset), Some(20));
    assert_eq!(join.commit_watermark("claims.verified", 0, 3), Some(4));
}

#[test]
fn the_same_content_published_twice_in_flight_is_decided_once() {
    let mut join = state();
    join.on_manifest(&tp(0), 0, published(manifest("a", 1, 2), 10), at(1));
    assert!(
        join.on_manifest(&tp(0), 1, published(manifest("a", 1, 2), 20), at(1))
            .is_empty()
    );
    assert_eq!(notes(&mut join), vec![Republished::InFlight]);
    // Either publication's results answer the one check.
    assert!(
        join.on_result(
            &tp(0),
            2,
            for_publication(result("a", 1, 0, Verdict::Supported), 20),
            at(2)
        )
        .is_empty()
    );
    let d = join.on_result(
        &tp(0),
        3,
        for_publication(result("a", 1, 1, Verdict::Supported), 10),
        at(2),
    );
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].outcome, Outcome::Pass);
    // The rest of the second publication's results change nothing and hold nothing.
    assert!(
        join.on_result(
            &tp(0),
            4,
            for_publication(result("a", 1, 1, Verdict::Refuted), 20),
            at(3)
        )
        .is_empty()
    );
    assert_eq!(join.in_flight(), 0);
    assert_eq!(join.commit_watermark("claims.verified", 0, 4), Some(5));
}

// ---------------------------------------------------------------------------------------------
// Manifests split in parts

fn parts(m: ArticleManifest, count: u32) -> Vec<ArticleManifest> {
    let per = m.claims.len().div_ceil(count as usize);
    (0..count)
        .map(|index| {
            let from = index as usize * per;
            let to = (from + per).min(m.claims.len());
            let claims = m.claims[from..to].to_vec();
            let pending = m
                .pending
                .iter()
                .filter(|k| claims.iter().any(|c| c.id == k.claim_id))
                .cloned()
                .collect();
            ArticleManifest {
                claims,
                pending,
                part: Some(crate::events::ManifestPart { index, count }),
                ..m.clone()
            }
        })
        .collect()
}

#[test]
fn a_split_manifest_is_decided_once_every_part_and_result_is_in() {
    let mut join = state();
    let [p0, p1, p2]: [ArticleManifest; 3] = parts(published(manifest("a", 1, 6), 10), 3)
        .try_into()
        .expect("three parts");
    assert!(join.on_manifest(&tp(0), 0, p1.clone(), at(1)).is_empty());
    for i in 0..6 {
        let r = for_publication(result("a", 1, i, Verdict::Supported), 10);
        assert!(join.on_result(&tp(0), 1 + i as i64, r, at(1)).is_empty());
    }
    assert!(join.on_manifest(&tp(0), 7, p0, at(2)).is_empty());
    assert!(
        join.on_manifest(&tp(0), 8, p1, at(2)).is_empty(),
        "a replayed part changes nothing"
    );
    let d = join.on_manifest(&tp(0), 9, p2, at(2));
    assert_eq!(d.len(), 1, "decided when the last part comes");
    assert_eq!(d[0].outcome, Outcome::Pass);
    assert_eq!(d[0].report.summary.total_claims, 6);
    assert_eq!(join.commit_watermark("claims.verified", 0, 9), Some(10));
}

#[test]
fn a_part_missing_at_the_deadline_blocks_even_with_every_known_check_answered() {
    let mut join = state();
    let all = parts(published(manifest("a", 1, 4), 10), 2);
    join.on_manifest(&tp(0), 0, all[0].clone(), at(1));
    for i in 0..2 {
        let r = for_publication(result("a", 1, i, Verdict::Supported), 10);
        join.on_result(&tp(0), 1 + i as i64, r, at(1));
    }
    assert_eq!(join.in_flight(), 1, "still waiting for the other part");
    let d = join.on_tick(at(DEADLINE_S));
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].outcome, Outcome::Block);
    assert_eq!(d[0].reasons, vec![DecisionReason::DeadlineExceeded]);
}

#[test]
fn revoking_a_partition_also_forgets_what_was_decided_there() {
    let mut join = state();
    let manifests = TopicPartition::new("articles.manifest", 0);
    join.on_manifest(&manifests, 0, published(manifest("a", 1, 0), 10), at(1));
    assert_eq!(join.remembered_articles(), 1);
    join.revoke(&manifests);
    assert_eq!(join.remembered_articles(), 0);
}

#[test]
fn parts_of_two_different_splits_never_pass() {
    let mut join = state();
    let draft = published(manifest("a", 1, 6), 10);
    // The draft extracted twice under different message limits: 2 parts, then 3.
    let halves = parts(draft.clone(), 2);
    let thirds = parts(draft, 3);
    assert!(
        join.on_manifest(&tp(0), 0, halves[0].clone(), at(1))
            .is_empty()
    );
    for i in 0..3 {
        let r = for_publication(result("a", 1, i, Verdict::Supported), 10);
        assert!(join.on_result(&tp(0), 1 + i as i64, r, at(1)).is_empty());
    }
    // Two parts are now in by count, yet claims 4 and 5 were never seen.
    let d = join.on_manifest(&tp(0), 4, thirds[1].clone(), at(2));
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].outcome, Outcome::Block);
    assert_eq!(d[0].reasons, vec![DecisionReason::InternalError]);
}

#[test]
fn a_failure_after_the_first_part_decides_at_once_with_its_reason() {
    let mut join = state();
    let draft = published(manifest("a", 1, 6), 10);
    let halves = parts(draft.clone(), 2);
    assert!(
        join.on_manifest(&tp(0), 0, halves[0].clone(), at(1))
            .is_empty()
    );
    // The broker refused the second part: extract answers with a failed manifest.
    let failed = ArticleManifest {
        extraction: crate::events::ExtractionOutcome::Failed {
            reason: crate::events::ExtractionFailure::InternalError,
            message: "the broker refused what its check produced".into(),
        },
        claims: Vec::new(),
        pending: Vec::new(),
        part: None,
        ..draft
    };
    let d = join.on_manifest(&tp(0), 1, failed.clone(), at(2));
    assert_eq!(d.len(), 1, "decided at once, not at the deadline");
    assert_eq!(d[0].outcome, Outcome::Block);
    assert_eq!(d[0].reasons, vec![DecisionReason::InternalError]);
    assert!(
        join.on_manifest(&tp(0), 2, failed, at(2)).is_empty(),
        "a replay of the failure changes nothing"
    );
}

#[test]
fn a_malformed_part_marker_blocks() {
    let mut join = state();
    let mut lone = published(manifest("a", 1, 2), 10);
    lone.part = Some(crate::events::ManifestPart { index: 0, count: 1 });
    let d = join.on_manifest(&tp(0), 0, lone, at(1));
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].outcome, Outcome::Block);
}

#[test]
fn an_older_publication_replayed_after_a_later_one_changes_nothing() {
    let mut join = state();
    let original = published(manifest("a", 1, 1), 10);
    let mut corrected = published(manifest("a", 1, 1), 20);
    corrected.content_digest = content_digest(b"a wrong figure this time");
    join.on_manifest(&tp(0), 0, original.clone(), at(1));
    join.on_manifest(&tp(0), 1, corrected.clone(), at(1));
    let block = join.on_result(
        &tp(0),
        2,
        for_publication(result("a", 1, 0, Verdict::Refuted), 20),
        at(2),
    );
    assert_eq!(block[0].outcome, Outcome::Block);
    // Extract restarted and read both drafts again: the older one comes first.
    assert!(
        join.on_manifest(&tp(0), 3, original.clone(), at(3))
            .is_empty()
    );
    assert!(
        join.on_result(
            &tp(0),
            4,
            for_publication(result("a", 1, 0, Verdict::Supported), 10),
            at(3)
        )
        .is_empty(),
        "the older content's pass must not follow the block on what was published last"
    );
    assert!(join.on_manifest(&tp(0), 5, corrected, at(3)).is_empty());
    assert_eq!(join.in_flight(), 0);

    // And while the later publication is still in flight.
    let mut join = state();
    let mut later = published(manifest("b", 1, 1), 20);
    later.content_digest = content_digest(b"later content");
    join.on_manifest(&tp(0), 0, later, at(1));
    let older = published(manifest("b", 1, 1), 10);
    assert!(join.on_manifest(&tp(0), 1, older, at(1)).is_empty());
    assert!(
        join.on_result(
            &tp(0),
            2,
            for_publication(result("b", 1, 0, Verdict::Supported), 10),
            at(2)
        )
        .is_empty()
    );
    let d = join.on_result(
        &tp(0),
        3,
        for_publication(result("b", 1, 0, Verdict::Refuted), 20),
        at(2),
    );
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].outcome, Outcome::Block);
}

// ---------------------------------------------------------------------------------------------
// A new owner after a rebalance or a crash: decisions read back from the decisions topic

/// The committed offsets of one partition pair as the previous owner left them: `b` (manifest at
/// 0) is undecided and holds the manifests watermark at 0; `a` (manifest at 1) was decided, and
/// its results (at 0 and 1 of the results partition, before any of `b`'s) are past the results
/// watermark. So a new owner reads `a`'s manifest again, but not its results.
fn left_by_the_previous_owner() -> (JoinState, Decision, TopicPartition, TopicPartition) {
    let manifests = TopicPartition::new("articles.manifest", 0);
    let results = TopicPartition::new("claims.verified", 0);
    let mut old = state();
    old.on_manifest(&manifests, 0, published(manifest("b", 1, 1), 10), at(1));
    old.on_manifest(&manifests, 1, published(manifest("a", 1, 2), 11), at(1));
    let first = for_publication(result("a", 1, 0, Verdict::Supported), 11);
    let second = for_publication(result("a", 1, 1, Verdict::Supported), 11);
    assert!(old.on_result(&results, 0, first, at(2)).is_empty());
    let decided = old.on_result(&results, 1, second, at(2));
    assert_eq!(decided.len(), 1, "a passes on its two results");
    assert_eq!(decided[0].outcome, Outcome::Pass);
    assert_eq!(old.commit_watermark(&manifests.topic, 0, 1), Some(0));
    assert_eq!(old.commit_watermark(&results.topic, 0, 1), Some(2));
    let mut decision = decided[0].clone();
    decision.draft_position = Some(DraftPosition {
        partition: 0,
        offset: 11,
    });
    (old, decision, manifests, results)
}

#[test]
fn a_new_owner_that_reads_the_past_decisions_first_never_decides_again() {
    let (_, passed, manifests, _) = left_by_the_previous_owner();

    // Without the decisions read back, the new owner blocks `a` at its deadline: a second
    // decision for the same publication, same id, another outcome (issue 29).
    let mut blind = state();
    blind.on_manifest(&manifests, 0, published(manifest("b", 1, 1), 10), at(3));
    blind.on_manifest(&manifests, 1, published(manifest("a", 1, 2), 11), at(3));
    let late = blind.on_tick(at(DEADLINE_S));
    let again = late
        .iter()
        .find(|d| d.article_id == "a")
        .expect("the blind owner decides a again");
    assert_eq!(again.decision_id, passed.decision_id);
    assert_eq!(again.outcome, Outcome::Block);
    assert!(again.reasons.contains(&DecisionReason::DeadlineExceeded));

    // With them, `a` is a replay: nothing is decided for it, and nothing of it is held.
    let mut owner = state();
    assert!(owner.on_past_decision(&passed));
    assert!(
        owner
            .on_manifest(&manifests, 0, published(manifest("b", 1, 1), 10), at(3))
            .is_empty()
    );
    assert!(
        owner
            .on_manifest(&manifests, 1, published(manifest("a", 1, 2), 11), at(3))
            .is_empty()
    );
    assert_eq!(owner.awaiting_results(), 1, "only b waits");
    let late = owner.on_tick(at(DEADLINE_S));
    assert_eq!(late.len(), 1);
    assert_eq!(late[0].article_id, "b", "{late:?}");
}

#[test]
fn results_of_a_revision_decided_elsewhere_are_not_held() {
    let (_, passed, _, results) = left_by_the_previous_owner();
    let mut owner = state();
    owner.on_past_decision(&passed);
    let replayed = for_publication(result("a", 1, 0, Verdict::Supported), 11);
    assert!(owner.on_result(&results, 0, replayed, at(3)).is_empty());
    assert_eq!(
        owner.orphan_results(),
        0,
        "a replayed result waits for nothing"
    );
    assert_eq!(owner.commit_watermark(&results.topic, 0, 0), Some(1));
    // A later publication of the same revision is still checked: it is new content.
    let mut newer = published(manifest("a", 1, 1), 20);
    newer.content_digest = content_digest(b"new content");
    assert!(
        owner
            .on_manifest(
                &TopicPartition::new("articles.manifest", 0),
                2,
                newer,
                at(3)
            )
            .is_empty()
    );
    assert_eq!(owner.awaiting_results(), 1);
}

#[test]
fn a_decision_made_elsewhere_answers_the_article_pending_here() {
    let (_, passed, manifests, _) = left_by_the_previous_owner();
    let mut owner = state();
    owner.on_manifest(&manifests, 1, published(manifest("a", 1, 2), 11), at(3));
    assert_eq!(owner.awaiting_results(), 1);
    owner.on_past_decision(&passed);
    assert_eq!(owner.awaiting_results(), 0);
    assert!(
        owner.on_tick(at(DEADLINE_S)).is_empty(),
        "no second decision"
    );
    assert_eq!(owner.commit_watermark(&manifests.topic, 0, 1), Some(2));
    // Decisions of re-check runs and without a revision are not this join's.
    let mut rechecked = passed.clone();
    rechecked.run_id = Some("run-1".to_owned());
    assert!(!owner.on_past_decision(&rechecked));
    let mut unnamed = passed;
    unnamed.revision = None;
    assert!(!owner.on_past_decision(&unnamed));
}
