use super::*;
use crate::events::{
    CheckKey, ClaimResult, ClaimStatus, Evidence, FetchStatus, Issue, IssueType, Recommendation,
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
                paragraph: None,
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
        unbacked: None,
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
        confidence: None,
        source_credibility: 0.5,
        evidence: Some(Evidence {
            quote: "Prices start at $9/month.".to_owned(),
            span: None,
            sentence: None,
            page: None,
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
            difference: None,
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
    assert_eq!(d.report.claims[0].verdict, Some(ClaimStatus::Supported));
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
        Verdict::Unconfirmed,
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
        (FetchStatus::Ok, Verdict::Unconfirmed),
        (FetchStatus::NotFound, Verdict::Unconfirmed),
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

/// A claim citing two sources, `a.example` and `b.example`.
fn two_source_claim(text: &str) -> Claim {
    let mut two = claim("c1", text, Some("https://a.example/p"));
    two.citations.push(Citation {
        url: "https://b.example/p".to_owned(),
        style: CitationStyle::InlineLink,
        label: None,
        paragraph: None,
    });
    two
}

/// `a.example` supports the claim; `b.example`, of `refuting_credibility`, refutes it with a
/// high issue of its own.
fn disagreeing(claim: &Claim, refuting_credibility: f64) -> [ClaimResult; 2] {
    let mut supported = result(claim, FetchStatus::Ok, Verdict::Supported, None);
    supported.evidence = Some(Evidence {
        quote: "Plans start at $4/month.".to_owned(),
        span: None,
        sentence: None,
        page: None,
    });
    let mut refuted = result(
        claim,
        FetchStatus::Ok,
        Verdict::Refuted,
        Some(Severity::High),
    );
    refuted.source_url = "https://b.example/p".to_owned();
    refuted.source_credibility = refuting_credibility;
    [supported, refuted]
}

#[test]
fn sources_that_disagree_make_a_contested_claim_with_both_quoted() {
    let claims = [two_source_claim("Prices start at $4/month.")];
    // A generic source refutes what another generic source supports: medium.
    let results = disagreeing(&claims[0], 0.5);
    let d = decide(&check(&claims, &results, &[]), Strictness::Normal, at(1));
    let verdict = &d.report.claims[0];
    assert_eq!(verdict.verdict, Some(ClaimStatus::Contested), "{verdict:?}");
    assert!(verdict.contested, "the flag kept for older readers");
    assert_eq!(verdict.source_url.as_deref(), Some("https://b.example/p"));
    let backing = verdict
        .supporting_source
        .as_ref()
        .expect("the supporting source");
    assert_eq!(backing.source_url, "https://a.example/p");
    assert_eq!(
        backing.evidence_quote.as_deref(),
        Some("Plans start at $4/month.")
    );
    assert_eq!(verdict.severity, Some(Severity::Medium));
    // One issue for the disagreement, in place of the refutation's own high one.
    assert_eq!(d.report.issues.len(), 1, "{:?}", d.report.issues);
    let issue = &d.report.issues[0];
    assert_eq!(issue.issue_type, IssueType::Contested);
    assert_eq!(issue.severity, Severity::Medium);
    assert!(
        issue.evidence.contains("https://b.example/p")
            && issue.evidence.contains("Prices start at $9/month.")
            && issue.evidence.contains("https://a.example/p")
            && issue.evidence.contains("Plans start at $4/month."),
        "both sources quoted: {}",
        issue.evidence
    );
    let v = &d.report.summary.verification_results;
    assert_eq!((v.contested, v.verified_false, v.verified_true), (1, 0, 0));
    // Medium blocks under the default strictness, not under lenient.
    assert_eq!(d.outcome, Outcome::Block);
    assert_eq!(d.reasons, vec![DecisionReason::MediumSeverityIssue]);
    let lenient = decide(&check(&claims, &results, &[]), Strictness::Lenient, at(1));
    assert_eq!(lenient.outcome, Outcome::Pass);
}

#[test]
fn a_highly_credible_refuting_source_makes_a_contested_claim_high() {
    let claims = [two_source_claim("Prices start at $4/month.")];
    for (credibility, severity) in [
        (0.95, Severity::High),
        (0.70, Severity::Medium),
        (0.30, Severity::Medium),
    ] {
        let results = disagreeing(&claims[0], credibility);
        let d = decide(&check(&claims, &results, &[]), Strictness::Lenient, at(1));
        assert_eq!(d.report.claims[0].verdict, Some(ClaimStatus::Contested));
        assert_eq!(
            d.report.issues[0].severity, severity,
            "credibility {credibility}"
        );
        assert_eq!(d.report.claims[0].source_credibility, Some(credibility));
        let blocks = severity == Severity::High;
        assert_eq!(
            d.outcome == Outcome::Block,
            blocks,
            "credibility {credibility}"
        );
    }
    // The supporting source's credibility does not soften a highly credible refutation.
    let mut results = disagreeing(&claims[0], 0.95);
    results[0].source_credibility = 0.95;
    let d = decide(&check(&claims, &results, &[]), Strictness::Normal, at(1));
    assert_eq!(d.report.issues[0].severity, Severity::High);
}

#[test]
fn synthesis_ranks_contested_over_refuted_over_supported_over_inconclusive() {
    use Verdict::{Refuted as R, Supported as S, Unconfirmed as I};
    let of = |v: &[Verdict]| ClaimStatus::synthesize(v.iter().copied());
    assert_eq!(of(&[S, R]), Some(ClaimStatus::Contested));
    assert_eq!(of(&[I, R, S]), Some(ClaimStatus::Contested));
    assert_eq!(of(&[R, I]), Some(ClaimStatus::Refuted));
    assert_eq!(of(&[R, R]), Some(ClaimStatus::Refuted));
    assert_eq!(of(&[I, S]), Some(ClaimStatus::Supported));
    assert_eq!(of(&[I, I]), Some(ClaimStatus::Unconfirmed));
    assert_eq!(of(&[]), None);
    assert!(ClaimStatus::Contested > ClaimStatus::Refuted);
    assert!(ClaimStatus::Refuted > ClaimStatus::Supported);
    assert!(ClaimStatus::Supported > ClaimStatus::Unconfirmed);
}

#[test]
fn a_claim_refuted_by_every_source_is_refuted_not_contested() {
    let claims = [two_source_claim("Prices start at $4/month.")];
    let [_, refuted] = disagreeing(&claims[0], 0.5);
    let mut other = refuted.clone();
    other.source_url = "https://a.example/p".to_owned();
    let d = decide(
        &check(&claims, &[other, refuted], &[]),
        Strictness::Normal,
        at(1),
    );
    let verdict = &d.report.claims[0];
    assert_eq!(verdict.verdict, Some(ClaimStatus::Refuted));
    assert!(!verdict.contested && verdict.supporting_source.is_none());
    assert!(
        d.report
            .issues
            .iter()
            .all(|i| i.issue_type == IssueType::FigureMismatch && i.severity == Severity::High)
    );
}

#[test]
fn one_source_is_no_disagreement_and_an_unread_one_has_no_credibility() {
    // One source alone is not a disagreement.
    let alone = [claim(
        "c1",
        "Prices start at $9/month.",
        Some("https://a.example/p"),
    )];
    let results = [result(&alone[0], FetchStatus::Ok, Verdict::Supported, None)];
    let d = decide(&check(&alone, &results, &[]), Strictness::Normal, at(1));
    assert!(!d.report.claims[0].contested);
    assert_eq!(d.report.claims[0].source_credibility, Some(0.5));

    // A source never judged (not fetched) has no credibility to report.
    let mut unread = result(&alone[0], FetchStatus::NotFound, Verdict::Unconfirmed, None);
    unread.source_credibility = 0.0;
    let results = [unread];
    let d = decide(&check(&alone, &results, &[]), Strictness::Normal, at(1));
    assert_eq!(d.report.claims[0].source_credibility, None);
}

// ---------------------------------------------------------------------------------------------
// Revisions: what changed since the previous one

mod revisions_since {
    use super::*;
    use crate::decide::revisions::{
        RevisionDigest, RevisionHistory, annotate_from, compare, headline,
    };
    use crate::events::{Decision, Resolution};

    /// A decided revision of `a-1` with `claims` and `results`.
    fn revision(revision: u64, claims: &[Claim], results: &[ClaimResult]) -> Decision {
        let results: Vec<ClaimResult> = results
            .iter()
            .cloned()
            .map(|mut r| {
                r.revision = revision;
                r
            })
            .collect();
        let check = ArticleCheck {
            article_id: "a-1",
            revision,
            content_digest: "d",
            published_at: at(0),
            claims,
            results: &results,
            unfinished: &[],
        };
        decide(&check, Strictness::Normal, at(1))
    }

    fn cited(id: &str, text: &str, url: &str) -> Claim {
        claim(id, text, Some(url))
    }

    #[test]
    fn fixed_still_open_and_new_issues_are_matched_by_claim_and_type() {
        // Revision 1: a wrong price, a dead citation, fabricated pilot data.
        let price = cited(
            "p1",
            "Basic costs $4/month, the company said.",
            "https://a.example/p",
        );
        let dead = cited(
            "d1",
            "Tutoring doubles learning gains in a year.",
            "https://b.example/gone",
        );
        let pilot = claim(
            "u1",
            "Our pilot with 500 students showed 73% improvement.",
            None,
        );
        let mut gone = result(
            &dead,
            FetchStatus::NotFound,
            Verdict::Unconfirmed,
            Some(Severity::High),
        );
        if let Some(issue) = gone.issue.as_mut() {
            issue.issue_type = IssueType::Unverifiable;
            issue.problem = "Citation returns 404 error".to_owned();
        }
        let first = revision(
            1,
            &[price.clone(), dead.clone(), pilot.clone()],
            &[
                result(
                    &price,
                    FetchStatus::Ok,
                    Verdict::Refuted,
                    Some(Severity::High),
                ),
                gone,
            ],
        );
        assert_eq!(first.report.issues.len(), 3, "{:?}", first.report.issues);

        // Revision 2: the price edited (another sentence, same source), the dead citation
        // replaced by a source that backs the claim, the pilot kept, an unsourced figure added.
        let price_now = cited(
            "p2",
            "Basic costs $9/month, the company said.",
            "https://a.example/p",
        );
        let dead_now = cited(
            "d1",
            "Tutoring doubles learning gains in a year.",
            "https://c.example/study",
        );
        let added = claim(
            "u2",
            "Teachers say 87% of students use tutoring apps daily.",
            None,
        );
        let second = revision(
            2,
            &[
                price_now.clone(),
                dead_now.clone(),
                pilot.clone(),
                added.clone(),
            ],
            &[
                result(&price_now, FetchStatus::Ok, Verdict::Supported, None),
                result(&dead_now, FetchStatus::Ok, Verdict::Supported, None),
            ],
        );
        let digest = RevisionDigest::of(&first).expect("a checked revision");
        let changes = compare(&digest, &second.report);
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
        let fixed_price = changes
            .fixed
            .iter()
            .find(|i| i.issue_type == IssueType::FigureMismatch)
            .expect("the price fixed");
        assert_eq!(fixed_price.resolution, Some(Resolution::ClaimEdited));
        assert_eq!(
            fixed_price.claim_now.as_deref(),
            Some(price_now.text.as_str())
        );
        assert_eq!(changes.still_open[0].issue_type, IssueType::Unsourced);
        assert_eq!(changes.new[0].claim, added.text);
        assert_eq!(changes.citations_replaced.len(), 1, "{changes:#?}");
        let replaced = &changes.citations_replaced[0];
        assert_eq!(replaced.previous_url, "https://b.example/gone");
        assert_eq!(
            replaced.replacements,
            vec!["https://c.example/study".to_owned()]
        );
        assert_eq!(
            headline(Some(2), &changes),
            "Revision 2: 2 of 3 issues fixed; 1 still open; 1 new; 1 citation replaced (since revision 1, blocked)"
        );

        // Revision 3: clean. Both remaining issues fixed, the claims removed.
        let third = revision(
            3,
            &[price_now.clone(), dead_now.clone()],
            &[
                result(&price_now, FetchStatus::Ok, Verdict::Supported, None),
                result(&dead_now, FetchStatus::Ok, Verdict::Supported, None),
            ],
        );
        let mut history = RevisionHistory::new(1 << 20);
        let mut first = first;
        let mut second = second;
        let mut third = third;
        history.annotate_and_record(&mut first);
        history.annotate_and_record(&mut second);
        history.annotate_and_record(&mut third);
        assert!(first.report.changes_since_previous.is_none());
        assert_eq!(second.report.changes_since_previous, Some(changes));
        let last = third.report.changes_since_previous.expect("changes");
        assert_eq!(last.previous_revision, 2);
        assert_eq!(
            (last.counts.fixed, last.counts.still_open, last.counts.new),
            (2, 0, 0)
        );
        assert!(
            last.fixed
                .iter()
                .all(|i| i.resolution == Some(Resolution::ClaimRemoved)),
            "{last:#?}"
        );
        assert_eq!(third.outcome, Outcome::Pass);
    }

    #[test]
    fn a_different_claim_is_not_taken_for_an_edit() {
        let before = cited(
            "x1",
            "Revenue grew 40% in 2023 across Europe.",
            "https://a.example/r",
        );
        let after = cited(
            "x2",
            "The company hired 200 engineers in Berlin.",
            "https://z.example/h",
        );
        let first = revision(
            1,
            std::slice::from_ref(&before),
            &[result(
                &before,
                FetchStatus::Ok,
                Verdict::Refuted,
                Some(Severity::High),
            )],
        );
        let second = revision(
            2,
            std::slice::from_ref(&after),
            &[result(
                &after,
                FetchStatus::Ok,
                Verdict::Refuted,
                Some(Severity::High),
            )],
        );
        let changes = compare(&RevisionDigest::of(&first).expect("digest"), &second.report);
        // The same type of issue on an unrelated claim: one fixed (claim removed), one new.
        assert_eq!(
            (
                changes.counts.fixed,
                changes.counts.still_open,
                changes.counts.new
            ),
            (1, 0, 1)
        );
        assert_eq!(changes.fixed[0].resolution, Some(Resolution::ClaimRemoved));
    }

    #[test]
    fn a_re_decided_revision_compares_with_the_one_before_and_the_history_stays_bounded() {
        let c = cited("c1", "Prices start at $4/month.", "https://a.example/p");
        let refuted = [result(
            &c,
            FetchStatus::Ok,
            Verdict::Refuted,
            Some(Severity::High),
        )];
        let mut history = RevisionHistory::new(1 << 20);
        let mut one = revision(1, std::slice::from_ref(&c), &refuted);
        history.annotate_and_record(&mut one);
        let mut two = revision(2, std::slice::from_ref(&c), &refuted);
        history.annotate_and_record(&mut two);
        // Revision 2 decided again (new content published under it): still against revision 1.
        let mut again = revision(2, std::slice::from_ref(&c), &refuted);
        history.annotate_and_record(&mut again);
        let changes = again.report.changes_since_previous.expect("changes");
        assert_eq!(
            (changes.previous_revision, changes.counts.still_open),
            (1, 1)
        );

        // A budget for about one article: the least recently decided is forgotten.
        let budget = RevisionDigest::of(&one).expect("digest").approx_bytes() * 3;
        let mut small = RevisionHistory::new(budget);
        for n in 0..20 {
            let mut d = revision(1, std::slice::from_ref(&c), &refuted);
            d.article_id = format!("a-{n}");
            small.record(&d);
            assert!(
                small.bytes() <= budget,
                "{} bytes over {budget}",
                small.bytes()
            );
        }
        assert!(small.len() < 20, "{} articles kept", small.len());
        assert!(small.previous("a-19", 2).is_some(), "the newest is kept");
        assert!(
            small.previous("a-0", 2).is_none(),
            "the oldest is forgotten"
        );
    }

    #[test]
    fn a_previous_report_file_matches_by_article_or_is_the_only_one() {
        let c = cited("c1", "Prices start at $4/month.", "https://a.example/p");
        let refuted = [result(
            &c,
            FetchStatus::Ok,
            Verdict::Refuted,
            Some(Severity::High),
        )];
        let supported = [result(&c, FetchStatus::Ok, Verdict::Supported, None)];
        let before = revision(1, std::slice::from_ref(&c), &refuted);
        let text = format!("{}\n", serde_json::to_string(&before).expect("serializes"));
        let previous = crate::decide::revisions::parse_decisions(&text).expect("readable");
        let mut now = revision(1, std::slice::from_ref(&c), &supported);
        now.article_id = "renamed".to_owned();
        // Checked among other articles, an article the file does not name has no basis.
        assert!(!annotate_from(&mut now.clone(), &previous, false));
        assert!(
            annotate_from(&mut now, &previous, true),
            "the only decision of the file"
        );
        let changes = now.report.changes_since_previous.expect("changes");
        assert_eq!(
            (changes.counts.fixed, changes.fixed[0].resolution),
            (1, Some(Resolution::Resolved))
        );
        assert!(crate::decide::revisions::parse_decisions("{\"not\": 1}\n").is_err());
    }
}
