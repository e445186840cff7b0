use super::*;
use crate::events::{
    CheckKey, ClaimResult, Evidence, FetchStatus, Issue, IssueType, Recommendation,
};
use crate::model::{
    Citation, CitationRule, CitationStyle, Claim, ClaimKind, Location, Prejudgment, Severity,
    UnsourcedKind, Verdict,
};
use chrono::TimeZone;

fn at(seconds: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(1_767_225_600 + seconds, 0)
        .single()
        .expect("a valid timestamp")
}

fn claim(id: &str, text: &str, url: Option<&str>) -> Claim {
    Claim {
        id: id.to_owned(),
        text: text.to_owned(),
        kinds: vec![ClaimKind::Percentage],
        figures: Vec::new(),
        quotes: Vec::new(),
        attributed_to: None,
        location: Location {
            section: Some("Market".to_owned()),
            paragraph: 1,
            sentence: 0,
            span: None,
            block: None,
        },
        citations: url
            .map(|u| Citation {
                url: u.to_owned(),
                style: CitationStyle::InlineLink,
                label: None,
            })
            .into_iter()
            .collect(),
        citation_rule: if url.is_some() {
            CitationRule::SameSentence
        } else {
            CitationRule::None
        },
        prejudgment: url.is_none().then(|| Prejudgment {
            kind: UnsourcedKind::FirstPersonData,
            severity: Severity::High,
            problem: "No source provided for first-person data".to_owned(),
            recommendation: "Remove claim or provide verifiable source".to_owned(),
        }),
    }
}

fn result(
    claim: &Claim,
    status: FetchStatus,
    verdict: Verdict,
    issue: Option<Severity>,
) -> ClaimResult {
    let url = claim.citations[0].url.clone();
    ClaimResult {
        schema_version: Default::default(),
        article_id: "a-1".to_owned(),
        revision: 3,
        claim_id: claim.id.clone(),
        source_url: url.clone(),
        fetch_status: status,
        http_status: Some(200),
        fetch_attempts: 1,
        verdict,
        support: if verdict == Verdict::Supported {
            0.8
        } else {
            0.1
        },
        source_credibility: 0.5,
        evidence: Some(Evidence {
            quote: "Prices start at $9/month.".to_owned(),
            span: None,
            sentence: None,
        }),
        correction: (verdict == Verdict::Refuted).then(|| "source says $9/month".to_owned()),
        issue: issue.map(|severity| Issue {
            severity,
            issue_type: IssueType::FigureMismatch,
            claim: claim.text.clone(),
            location: claim.location.to_string(),
            problem: "Pricing contradicts source".to_owned(),
            evidence: "Source shows $9/month".to_owned(),
            recommendation: "Correct to $9/month per source".to_owned(),
            claim_id: Some(claim.id.clone()),
            source_url: Some(url),
            element: None,
        }),
        reason: "judged".to_owned(),
        judged_at: at(5),
        draft_position: None,
    }
}

fn check<'a>(
    claims: &'a [Claim],
    results: &'a [ClaimResult],
    unfinished: &'a [CheckKey],
) -> ArticleCheck<'a> {
    ArticleCheck {
        article_id: "a-1",
        revision: 3,
        content_digest: "d1",
        published_at: at(0),
        claims,
        results,
        unfinished,
    }
}

#[test]
fn an_article_read_with_no_claims_passes_and_says_so() {
    let d = decide(&check(&[], &[], &[]), Strictness::Normal, at(2));
    assert_eq!(d.outcome, Outcome::Pass);
    assert!(d.reasons.is_empty());
    assert_eq!(d.report.recommendation, Recommendation::Accept);
    assert!(
        d.report
            .recommendation_reason
            .contains("no check-worthy claims")
    );
    assert_eq!(d.report.verification_details.processing_time_seconds, 2.0);
}

#[test]
fn a_supported_claim_passes_with_full_accuracy() {
    let claims = [claim(
        "c1",
        "Prices start at $9/month.",
        Some("https://s.example/p"),
    )];
    let results = [result(
        &claims[0],
        FetchStatus::Ok,
        Verdict::Supported,
        None,
    )];
    let d = decide(&check(&claims, &results, &[]), Strictness::Normal, at(3));
    assert_eq!(d.outcome, Outcome::Pass, "{:?}", d.report);
    assert_eq!(d.report.summary.verification_results.verified_true, 1);
    assert_eq!(d.report.summary.accuracy_score, 100.0);
    assert_eq!(d.report.summary.citations_working, 1);
    assert_eq!(d.report.summary.cited_statements_checked, 1);
    assert_eq!(d.report.claims[0].verdict, Some(Verdict::Supported));
}

#[test]
fn unsourced_first_person_data_blocks_and_leads_the_priorities() {
    let claims = [claim(
        "c1",
        "Our pilot with 500 students showed 73% improvement",
        None,
    )];
    let d = decide(&check(&claims, &[], &[]), Strictness::Lenient, at(1));
    assert_eq!(d.outcome, Outcome::Block);
    assert_eq!(d.reasons, vec![DecisionReason::HighSeverityIssue]);
    let issue = &d.report.issues[0];
    assert_eq!(issue.issue_type, IssueType::Unsourced);
    assert!(issue.evidence.contains("fabricated"));
    assert_eq!(issue.location, "Market, paragraph 2");
    assert!(d.report.top_priorities[0].starts_with("Priority 1: Remove claim"));
    assert!(d.report.top_priorities[0].ends_with("(High)"));
    assert!(
        d.report
            .recommendation_reason
            .contains("1 high-severity issue")
    );
    assert_eq!(d.report.summary.unsourced_claims, 1);
}

#[test]
fn a_refuted_figure_blocks_with_its_correction() {
    let claims = [claim(
        "c1",
        "$4/month or $44/year [6]",
        Some("https://s.example/p"),
    )];
    let results = [result(
        &claims[0],
        FetchStatus::Ok,
        Verdict::Refuted,
        Some(Severity::High),
    )];
    let d = decide(&check(&claims, &results, &[]), Strictness::Normal, at(1));
    assert_eq!(d.outcome, Outcome::Block);
    assert_eq!(
        d.report.claims[0].correction.as_deref(),
        Some("source says $9/month")
    );
    assert_eq!(d.report.summary.verification_results.verified_false, 1);
    assert_eq!(d.report.summary.accuracy_score, 0.0);
}

#[test]
fn strictness_decides_medium_and_low_issues() {
    let claims: Vec<Claim> = (0..3)
        .map(|i| {
            claim(
                &format!("c{i}"),
                "A figure",
                Some(&format!("https://s.example/{i}")),
            )
        })
        .collect();
    let medium = |n: usize| -> Vec<ClaimResult> {
        claims
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let sev = (i < n).then_some(Severity::Medium);
                result(c, FetchStatus::Ok, Verdict::Supported, sev)
            })
            .collect()
    };
    let two = medium(2);
    let three = medium(3);
    let outcome = |r: &[ClaimResult], s| decide(&check(&claims, r, &[]), s, at(1)).outcome;
    assert_eq!(outcome(&two, Strictness::Normal), Outcome::Block);
    assert_eq!(outcome(&two, Strictness::Lenient), Outcome::Pass);
    assert_eq!(outcome(&three, Strictness::Lenient), Outcome::Block);

    let low = [result(
        &claims[0],
        FetchStatus::Ok,
        Verdict::Supported,
        Some(Severity::Low),
    )];
    let normal = decide(&check(&claims[..1], &low, &[]), Strictness::Normal, at(1));
    assert_eq!(normal.outcome, Outcome::Pass);
    let strict = decide(&check(&claims[..1], &low, &[]), Strictness::Strict, at(1));
    assert_eq!(strict.reasons, vec![DecisionReason::LowSeverityIssue]);
}

#[test]
fn a_source_left_unjudged_blocks_even_when_lenient() {
    let claims = [claim("c1", "A figure", Some("https://s.example/slow"))];
    let results = [result(
        &claims[0],
        FetchStatus::Timeout,
        Verdict::Inconclusive,
        None,
    )];
    let d = decide(&check(&claims, &results, &[]), Strictness::Lenient, at(1));
    assert_eq!(d.outcome, Outcome::Block);
    assert_eq!(d.reasons, vec![DecisionReason::SourceUnjudgeable]);
    assert_eq!(d.report.summary.verification_results.unverifiable, 1);
    // A cited statement whose source was never read was not checked.
    assert_eq!(d.report.summary.cited_statements_checked, 0);
}

#[test]
fn unfinished_checks_block_as_deadline_exceeded_and_are_listed() {
    let claims = [claim("c1", "A figure", Some("https://s.example/p"))];
    let pending = [CheckKey {
        claim_id: "c1".to_owned(),
        source_url: "https://s.example/p".to_owned(),
    }];
    let d = decide(&check(&claims, &[], &pending), Strictness::Lenient, at(61));
    assert!(d.reasons.contains(&DecisionReason::DeadlineExceeded));
    assert!(
        d.report
            .issues
            .iter()
            .any(|i| i.issue_type == IssueType::Error
                && i.source_url.as_deref() == Some("https://s.example/p"))
    );
    assert_eq!(d.report.claims[0].verdict, None);
}

#[test]
fn duplicate_results_count_once() {
    let claims = [claim("c1", "A figure", Some("https://s.example/p"))];
    let one = result(&claims[0], FetchStatus::Ok, Verdict::Supported, None);
    let results = [one.clone(), one];
    let d = decide(&check(&claims, &results, &[]), Strictness::Normal, at(1));
    assert_eq!(d.report.summary.citations_checked, 1);
    assert_eq!(d.report.verification_details.fetch_attempts, 1);
}

#[test]
fn a_replayed_decision_has_the_same_id_and_another_revision_does_not() {
    let a = decide(&check(&[], &[], &[]), Strictness::Normal, at(1));
    let b = decide(&check(&[], &[], &[]), Strictness::Normal, at(9));
    assert_eq!(a.decision_id, b.decision_id);
    let mut other = check(&[], &[], &[]);
    other.revision = 4;
    assert_ne!(
        decide(&other, Strictness::Normal, at(1)).decision_id,
        a.decision_id
    );
}

#[test]
fn a_draft_not_checked_blocks_with_its_reason() {
    let d = decide_not_checked(
        "a-9",
        None,
        "d",
        DecisionReason::DraftUnreadable,
        "missing field `revision`",
        None,
        at(0),
    );
    assert_eq!(d.outcome, Outcome::Block);
    assert_eq!(d.reasons, vec![DecisionReason::DraftUnreadable]);
    assert_eq!(d.report.recommendation, Recommendation::Reject);
    assert_eq!(d.report.issues[0].evidence, "missing field `revision`");
}

#[test]
fn a_cited_source_never_checked_blocks_as_an_internal_error() {
    let claims = [claim("c1", "A figure", Some("https://s.example/p"))];
    // No result, and not among the unfinished checks either.
    let d = decide(&check(&claims, &[], &[]), Strictness::Lenient, at(1));
    assert_eq!(d.outcome, Outcome::Block);
    assert!(
        d.reasons.contains(&DecisionReason::InternalError),
        "{:?}",
        d.reasons
    );
    assert!(
        d.report
            .issues
            .iter()
            .any(|i| i.problem == "This source was never checked")
    );
}

#[test]
fn a_refuted_or_inconclusive_result_without_an_issue_blocks() {
    // The issue is optional on the wire: a result missing it must not read as nothing wrong.
    let claims = [claim(
        "c1",
        "Prices start at $4/month",
        Some("https://s.example/p"),
    )];
    for (status, verdict) in [
        (FetchStatus::Ok, Verdict::Refuted),
        (FetchStatus::Ok, Verdict::Inconclusive),
        (FetchStatus::NotFound, Verdict::Inconclusive),
    ] {
        let results = [result(&claims[0], status, verdict, None)];
        let d = decide(&check(&claims, &results, &[]), Strictness::Lenient, at(1));
        assert_eq!(d.outcome, Outcome::Block, "{status} {verdict:?}");
        assert!(
            d.reasons.contains(&DecisionReason::InternalError),
            "{:?}",
            d.reasons
        );
    }
}

#[test]
fn a_result_about_no_claim_of_the_article_blocks_and_keeps_its_issue() {
    // An inconsistent manifest: the result answers a check of a claim the article lacks.
    let claims = [claim("c1", "A figure", Some("https://s.example/p"))];
    let stray = claim(
        "c9",
        "Prices start at $4/month",
        Some("https://s.example/q"),
    );
    let results = [
        result(&claims[0], FetchStatus::Ok, Verdict::Supported, None),
        result(
            &stray,
            FetchStatus::Ok,
            Verdict::Refuted,
            Some(Severity::High),
        ),
    ];
    let d = decide(&check(&claims, &results, &[]), Strictness::Lenient, at(1));
    assert_eq!(d.outcome, Outcome::Block);
    assert!(
        d.reasons.contains(&DecisionReason::InternalError),
        "{:?}",
        d.reasons
    );
    assert!(
        d.report
            .issues
            .iter()
            .any(|i| i.problem == "Pricing contradicts source")
    );
}

#[test]
fn a_result_of_another_revision_does_not_count_for_this_one() {
    let claims = [claim("c1", "A figure", Some("https://s.example/p"))];
    let mut stale = result(&claims[0], FetchStatus::Ok, Verdict::Supported, None);
    stale.revision = 2;
    let d = decide(&check(&claims, &[stale], &[]), Strictness::Lenient, at(1));
    assert_eq!(d.outcome, Outcome::Block);
    assert!(
        d.reasons.contains(&DecisionReason::InternalError),
        "{:?}",
        d.reasons
    );
}

#[test]
fn sources_that_disagree_make_a_contested_claim_decided_by_the_refutation() {
    let mut two = claim(
        "c1",
        "Prices start at $4/month.",
        Some("https://a.example/p"),
    );
    two.citations.push(Citation {
        url: "https://b.example/p".to_owned(),
        style: CitationStyle::InlineLink,
        label: None,
    });
    let claims = [two];
    let supported = result(&claims[0], FetchStatus::Ok, Verdict::Supported, None);
    let mut refuted = result(
        &claims[0],
        FetchStatus::Ok,
        Verdict::Refuted,
        Some(Severity::High),
    );
    refuted.source_url = "https://b.example/p".to_owned();
    refuted.source_credibility = 0.95;
    let results = [supported.clone(), refuted];
    let d = decide(&check(&claims, &results, &[]), Strictness::Normal, at(1));
    let verdict = &d.report.claims[0];
    assert!(verdict.contested, "{verdict:?}");
    assert_eq!(verdict.verdict, Some(Verdict::Refuted));
    assert_eq!(verdict.source_url.as_deref(), Some("https://b.example/p"));
    assert_eq!(verdict.source_credibility, Some(0.95));
    assert_eq!(d.outcome, Outcome::Block);

    // One source alone is not a disagreement.
    let alone = [claim(
        "c1",
        "Prices start at $9/month.",
        Some("https://a.example/p"),
    )];
    let results = [supported];
    let d = decide(&check(&alone, &results, &[]), Strictness::Normal, at(1));
    assert!(!d.report.claims[0].contested);
    assert_eq!(d.report.claims[0].source_credibility, Some(0.5));

    // A source never judged (not fetched) has no credibility to report.
    let mut unread = result(
        &alone[0],
        FetchStatus::NotFound,
        Verdict::Inconclusive,
        None,
    );
    unread.source_credibility = 0.0;
    let results = [unread];
    let d = decide(&check(&alone, &results, &[]), Strictness::Normal, at(1));
    assert_eq!(d.report.claims[0].source_credibility, None);
}
