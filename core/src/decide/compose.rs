//! Assembling the report (docs/report.md) from an article's claims and check results.

use super::{ArticleCheck, distinct_results, unjudged};
use crate::events::{
    ClaimResult, ClaimStatus, ClaimVerdict, DecisionReason, Issue, IssueType, Recommendation,
    Report, SeverityCounts, Summary, SupportingSource, VerificationDetails, VerificationResults,
};
use crate::judge::CredibilityLevel;
use crate::model::{Claim, Severity, UnsourcedKind, Verdict};

/// How many fixes `top_priorities` lists.
const TOP_PRIORITIES: usize = 5;
/// Claim text longer than this is shortened in priorities.
const PRIORITY_CLAIM_CHARS: usize = 80;

pub(super) struct Built {
    pub report: Report,
    /// Checks that cannot be accounted for, each a fault: a cited source never checked (neither
    /// answered nor unfinished), a result about another (article, revision) or about no claim of
    /// the article, a result that says the
    /// claim is not supported (or its source not read) yet raises no issue.
    pub missing_checks: usize,
    /// Checks whose source could not be read for a technical reason.
    pub unjudged_sources: usize,
    /// Checks whose source did not answer in the time the deadline left them.
    pub deadline_timeouts: usize,
    /// Claims left unjudged because their draft spent its judging time.
    pub over_judging_budget: usize,
}

/// The issues of a claim's results `own`: as they are, but where a source contradicts it and
/// another supports it (`deciding`, `supporting`) one issue says the sources disagree; and what
/// one source does not state, where another the claim cites states it, is for review.
fn result_issues(
    own: &[&ClaimResult],
    deciding: Option<&ClaimResult>,
    supporting: Option<&ClaimResult>,
    claim: &Claim,
    issues: &mut Vec<Issue>,
) {
    match (deciding, supporting) {
        (Some(refuting), Some(supporting)) => {
            // One issue says the sources disagree, quoting both; it stands for the
            // refutations, whose own issues would judge the claim by one source alone.
            issues.extend(
                own.iter()
                    .filter(|r| r.verdict != Verdict::Refuted)
                    .filter_map(|r| r.issue.clone()),
            );
            let refuting_issues: Vec<&Issue> = own
                .iter()
                .filter(|r| r.verdict == Verdict::Refuted)
                .filter_map(|r| r.issue.as_ref())
                .collect();
            issues.push(contested_issue(
                claim,
                refuting,
                supporting,
                &refuting_issues,
            ));
        }
        _ => {
            // A claim that cites several sources, each for part of it ("… 310,000 visits [1],
            // and it has since been extended [2]"), is stated when one states it: what another
            // does not state is for review, not a block. A source that could not be read
            // keeps its own issue.
            let stated_elsewhere = own.iter().any(|r| r.verdict == Verdict::Supported);
            for r in own {
                let Some(mut issue) = r.issue.clone() else {
                    continue;
                };
                if stated_elsewhere
                    && r.verdict == Verdict::Unconfirmed
                    && r.fetch_status.is_ok()
                    && issue.severity > Severity::Low
                {
                    issue.severity = Severity::Low;
                    issue.problem = format!(
                        "{} (another source the claim cites states it)",
                        issue.problem
                    );
                }
                issues.push(issue);
            }
        }
    }
}

/// Fails closed on results the claims cannot account for: each gets an issue; returns how many.
fn unaccounted(
    check: &ArticleCheck<'_>,
    results: &[&ClaimResult],
    issues: &mut Vec<Issue>,
) -> usize {
    let mut missing = 0;
    // Fail closed on results the claims above cannot account for. A result of another revision
    // would count for this one; a result about no claim of the article (an inconsistent
    // manifest) would lose its issue; a result that is not a clean support but carries no issue
    // (the field is optional on the wire) would count as nothing wrong. Sources left unjudged
    // block already, under their own reason.
    for result in results {
        let about_a_claim = check.claims.iter().any(|c| c.id == result.claim_id);
        let clean = result.verdict == Verdict::Supported && result.fetch_status.is_ok();
        if result.article_id != check.article_id || result.revision != check.revision {
            missing += 1;
            let other = format!(
                "it answers {} revision {}",
                result.article_id, result.revision
            );
            issues.push(unaccounted_issue(result, &other));
        } else if !about_a_claim {
            missing += 1;
            issues.extend(result.issue.clone());
            issues.push(unaccounted_issue(
                result,
                "it is about no claim of the article",
            ));
        } else if result.issue.is_none() && !clean && !unjudged(result) {
            missing += 1;
            issues.push(unaccounted_issue(
                result,
                "it is not a clean support but raises no issue",
            ));
        }
    }
    missing
}

/// The report's line for `claim`: its status, and the result that decided it (and the one that
/// supports it, when the sources disagree).
fn claim_verdict(
    claim: &Claim,
    status: Option<ClaimStatus>,
    deciding: Option<&ClaimResult>,
    supporting: Option<&ClaimResult>,
    severity: Option<Severity>,
) -> ClaimVerdict {
    ClaimVerdict {
        claim_id: claim.id.clone(),
        text: claim.text.clone(),
        location: claim.location.to_string(),
        verdict: status,
        support: deciding.map(|r| r.support),
        confidence: deciding.and_then(|r| r.confidence),
        source_url: deciding.map(|r| r.source_url.clone()),
        evidence_quote: deciding.and_then(|r| r.evidence.as_ref().map(|e| e.quote.clone())),
        evidence_page: deciding.and_then(|r| r.evidence.as_ref().and_then(|e| e.page)),
        correction: deciding.and_then(|r| r.correction.clone()),
        severity,
        // A check that never judged its source (not fetched, refused) carries 0: no class.
        source_credibility: deciding.map(|r| r.source_credibility).filter(|s| *s > 0.0),
        // A read source with no HTTP attempt came from the cache.
        from_cache: deciding
            .filter(|r| r.fetch_status.is_ok())
            .map(|r| r.fetch_attempts == 0),
        contested: supporting.is_some(),
        backed_by: None,
        supporting_source: supporting.map(|r| SupportingSource {
            source_url: r.source_url.clone(),
            evidence_quote: r.evidence.as_ref().map(|e| e.quote.clone()),
            support: r.support,
            confidence: r.confidence,
            source_credibility: r.source_credibility,
        }),
    }
}

pub(super) fn build(check: &ArticleCheck<'_>, processing_time_seconds: f64) -> Built {
    let results = distinct_results(check.results);
    let mut issues = Vec::new();
    let mut claims = Vec::with_capacity(check.claims.len());
    let mut verification = VerificationResults::default();
    let mut sourced = 0u32;
    let mut cited_checked = 0u32;
    let mut missing_checks = 0usize;

    for claim in check.claims {
        let own: Vec<&ClaimResult> = results
            .iter()
            .copied()
            .filter(|r| r.claim_id == claim.id)
            .collect();
        let first_issue = issues.len();
        if let Some(pre) = &claim.prejudgment {
            issues.push(unsourced_issue(claim, pre));
        }
        let (status, deciding, supporting, backed_by) = if claim.unbacked.is_some() {
            // A statement without a source of its own: backed by whichever of the sources it
            // borrows states it (judge::backing).
            let backing = crate::judge::backing::choose(claim, &own);
            issues.extend(backing.issues);
            (backing.status, backing.deciding, None, backing.backed_by)
        } else {
            let status = ClaimStatus::synthesize(own.iter().map(|r| r.verdict));
            let deciding = deciding_result(&own);
            let supporting = (status == Some(ClaimStatus::Contested))
                .then(|| most_credible(&own, Verdict::Supported))
                .flatten();
            result_issues(&own, deciding, supporting, claim, &mut issues);
            (status, deciding, supporting, None)
        };
        for key in check.unfinished.iter().filter(|k| k.claim_id == claim.id) {
            issues.push(unfinished_issue(claim, &key.source_url));
        }
        // A cited source with neither a result nor a place among the unfinished checks was never
        // checked at all: that is a fault, and it blocks.
        for citation in &claim.citations {
            let answered = own.iter().any(|r| r.source_url == citation.url)
                || check
                    .unfinished
                    .iter()
                    .any(|k| k.claim_id == claim.id && k.source_url == citation.url);
            if !answered {
                missing_checks += 1;
                issues.push(unchecked_issue(claim, &citation.url));
            }
        }
        if !claim.citations.is_empty() {
            sourced += 1;
            cited_checked += u32::from(own.iter().any(|r| r.fetch_status.is_ok()));
            match status {
                Some(ClaimStatus::Supported) => verification.verified_true += 1,
                Some(ClaimStatus::Refuted) => verification.verified_false += 1,
                Some(ClaimStatus::Contested) => verification.contested += 1,
                Some(ClaimStatus::Unconfirmed) | None => verification.unverifiable += 1,
            }
        }
        let severity = issues[first_issue..].iter().map(|i| i.severity).max();
        let mut verdict = claim_verdict(claim, status, deciding, supporting, severity);
        verdict.backed_by = backed_by;
        claims.push(verdict);
    }
    missing_checks += unaccounted(check, &results, &mut issues);
    // Stable: within a severity, issues stay in reading order.
    issues.sort_by_key(|issue| std::cmp::Reverse(issue.severity));

    let total = check.claims.len() as u32;
    let accuracy_score = if sourced == 0 {
        100.0
    } else {
        (f64::from(verification.verified_true) * 1000.0 / f64::from(sourced)).round() / 10.0
    };
    let summary = Summary {
        total_claims: total,
        sourced_claims: sourced,
        unsourced_claims: total - sourced,
        verification_results: verification,
        accuracy_score,
        citations_checked: (results.len() + check.unfinished.len()) as u32,
        citations_working: results.iter().filter(|r| r.fetch_status.is_ok()).count() as u32,
        cited_statements_checked: cited_checked,
        severity_counts: SeverityCounts::of(&issues),
    };
    let verification_details = VerificationDetails {
        fetch_attempts: results.iter().map(|r| r.fetch_attempts).sum(),
        fetch_successful: summary.citations_working,
        processing_time_seconds,
    };
    let top_priorities = top_priorities(&issues);
    Built {
        missing_checks,
        unjudged_sources: results
            .iter()
            .filter(|r| unjudged(r) && !r.ran_out_of_deadline())
            .count(),
        deadline_timeouts: results.iter().filter(|r| r.ran_out_of_deadline()).count(),
        over_judging_budget: results.iter().filter(|r| r.over_judging_budget()).count(),
        report: Report {
            recommendation: Recommendation::Reject,
            recommendation_reason: String::new(),
            summary,
            issues,
            verification_details,
            top_priorities,
            claims,
            changes_since_previous: None,
            waived: Vec::new(),
        },
    }
}

/// The result the claim's verdict names: a refutation first (one source contradicting the claim
/// is enough to fix it, and a contested claim is named by its refuting source), then support,
/// then the first inconclusive. Among several of a kind, the most credible source.
fn deciding_result<'a>(own: &[&'a ClaimResult]) -> Option<&'a ClaimResult> {
    most_credible(own, Verdict::Refuted)
        .or_else(|| most_credible(own, Verdict::Supported))
        .or_else(|| own.first().copied())
}

/// The result with `verdict` from the most credible source; the first one on a tie.
fn most_credible<'a>(own: &[&'a ClaimResult], verdict: Verdict) -> Option<&'a ClaimResult> {
    own.iter().copied().filter(|r| r.verdict == verdict).fold(
        None,
        |best: Option<&ClaimResult>, r| match best {
            Some(b) if b.source_credibility >= r.source_credibility => Some(b),
            _ => Some(r),
        },
    )
}

/// Whether a source's credibility score is the top class's (fact-checkers, government,
/// education): a refutation from such a source weighs more than another source's support.
fn highly_credible(score: f64) -> bool {
    score >= CredibilityLevel::High.score() - 1e-9
}

/// The issue of a contested claim: medium, since one source backs it, and high when a refuting
/// source is highly credible; the evidence quotes the refuting and the supporting source.
fn contested_issue(
    claim: &Claim,
    refuting: &ClaimResult,
    supporting: &ClaimResult,
    refuting_issues: &[&Issue],
) -> Issue {
    let severity = if highly_credible(refuting.source_credibility) {
        Severity::High
    } else {
        Severity::Medium
    };
    let says = |r: &ClaimResult| {
        let quote = r.evidence.as_ref().map_or_else(
            || "no passage quoted".to_owned(),
            |e| format!("\"{}\"", e.quote),
        );
        format!(
            "{} (credibility {:.2}) says {quote}",
            r.source_url, r.source_credibility
        )
    };
    let mut evidence = format!("Refuting: {}", says(refuting));
    if let Some(correction) = &refuting.correction {
        evidence.push_str(&format!(" ({correction})"));
    }
    evidence.push_str(&format!("; supporting: {}", says(supporting)));
    let recommendation = if severity == Severity::High {
        "A highly credible source refutes the claim: correct the claim to it, or explain why the other source is right"
    } else {
        "Check which source is right; correct the claim or cite only the source that backs it, saying why the other differs"
    };
    Issue {
        severity,
        issue_type: IssueType::Contested,
        claim: claim.text.clone(),
        location: claim.location.to_string(),
        problem: "The cited sources disagree: one supports the claim, another refutes it"
            .to_owned(),
        evidence,
        recommendation: recommendation.to_owned(),
        claim_id: Some(claim.id.clone()),
        source_url: Some(refuting.source_url.clone()),
        element: refuting_issues.iter().find_map(|i| i.element),
        difference: refuting_issues.iter().find_map(|i| i.difference.clone()),
    }
}

fn unsourced_issue(claim: &Claim, pre: &crate::model::Prejudgment) -> Issue {
    let evidence = match pre.kind {
        UnsourcedKind::FirstPersonData => "No citation found, appears to be fabricated",
        UnsourcedKind::Statistic | UnsourcedKind::MarketFigure => {
            "No source provided for the figure"
        }
        UnsourcedKind::Allegation => "No source provided for the allegation",
        UnsourcedKind::Qualitative => "No citation found",
        UnsourcedKind::ReportedSpeech => "No source holds it: what the reporter heard",
    };
    Issue {
        severity: pre.severity,
        issue_type: IssueType::Unsourced,
        claim: claim.text.clone(),
        location: claim.location.to_string(),
        problem: pre.problem.clone(),
        evidence: evidence.to_owned(),
        recommendation: pre.recommendation.clone(),
        claim_id: Some(claim.id.clone()),
        source_url: None,
        element: None,
        difference: None,
    }
}

fn unfinished_issue(claim: &Claim, source_url: &str) -> Issue {
    Issue {
        severity: Severity::High,
        issue_type: IssueType::Error,
        claim: claim.text.clone(),
        location: claim.location.to_string(),
        problem: "factgate did not finish checking this source by the deadline: its checks ran \
                  behind (a backlog of checks, or the source host's rate limit), so the source \
                  was never judged"
            .to_owned(),
        evidence: format!(
            "{source_url}: no result before the deadline (a source whose fetch times out is \
             answered as one that could not be fetched)"
        ),
        recommendation: "Publish the draft again once factgate has caught up, or check the source \
                         by hand"
            .to_owned(),
        claim_id: Some(claim.id.clone()),
        source_url: Some(source_url.to_owned()),
        element: None,
        difference: None,
    }
}

fn unchecked_issue(claim: &Claim, source_url: &str) -> Issue {
    Issue {
        severity: Severity::High,
        issue_type: IssueType::Error,
        claim: claim.text.clone(),
        location: claim.location.to_string(),
        problem: "This source was never checked".to_owned(),
        evidence: format!("{source_url}: no check was requested or answered"),
        recommendation: "Publish the draft again; if it recurs, report it to the platform team"
            .to_owned(),
        claim_id: Some(claim.id.clone()),
        source_url: Some(source_url.to_owned()),
        element: None,
        difference: None,
    }
}

fn unaccounted_issue(result: &ClaimResult, why: &str) -> Issue {
    Issue {
        severity: Severity::High,
        issue_type: IssueType::Error,
        claim: String::new(),
        location: "whole article".to_owned(),
        problem: "A check result could not be accounted for".to_owned(),
        evidence: format!(
            "{} on {} ({}, {}): {why}",
            result.claim_id,
            result.source_url,
            result.fetch_status,
            result.verdict.as_str()
        ),
        recommendation: "Publish the draft again; if it recurs, report it to the platform team"
            .to_owned(),
        claim_id: Some(result.claim_id.clone()),
        source_url: Some(result.source_url.clone()),
        element: None,
        difference: None,
    }
}

pub(super) fn top_priorities(issues: &[Issue]) -> Vec<String> {
    issues
        .iter()
        .filter(|i| i.severity > Severity::Low)
        .take(TOP_PRIORITIES)
        .enumerate()
        .map(|(n, issue)| {
            let claim = shorten(&issue.claim, PRIORITY_CLAIM_CHARS);
            let about = if claim.is_empty() {
                String::new()
            } else {
                format!(": \"{claim}\"")
            };
            format!(
                "Priority {}: {}{} ({})",
                n + 1,
                issue.recommendation,
                about,
                severity_word(issue.severity)
            )
        })
        .collect()
}

fn shorten(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

fn severity_word(severity: Severity) -> &'static str {
    match severity {
        Severity::High => "High",
        Severity::Medium => "Medium",
        Severity::Low => "Low",
    }
}

/// Sets the recommendation and its reason from the decision's reasons.
pub(super) fn set_recommendation(report: &mut Report, reasons: &[DecisionReason]) {
    if reasons.is_empty() {
        report.recommendation = Recommendation::Accept;
        let s = &report.summary;
        report.recommendation_reason = if s.total_claims == 0 {
            "Accepted: the article was read and holds no check-worthy claims.".to_owned()
        } else {
            format!(
                "Accepted: {} of {} sourced claims verified against their sources; no blocking issues.",
                s.verification_results.verified_true, s.sourced_claims
            )
        };
        return;
    }
    report.recommendation = Recommendation::Reject;
    if !report.recommendation_reason.is_empty() {
        // Set already by a not-checked report, which says why better than counts can.
        return;
    }
    let counts = &report.summary.severity_counts;
    let mut parts: Vec<String> = Vec::new();
    for reason in reasons {
        let part = match reason {
            DecisionReason::HighSeverityIssue => {
                format!(
                    "{} high-severity {}",
                    counts.high,
                    plural(counts.high, "issue")
                )
            }
            DecisionReason::MediumSeverityIssue => format!(
                "{} medium-severity {}",
                counts.medium,
                plural(counts.medium, "issue")
            ),
            DecisionReason::LowSeverityIssue => format!(
                "{} low-severity {} (strict)",
                counts.low,
                plural(counts.low, "issue")
            ),
            DecisionReason::DeadlineExceeded => {
                "checks still unfinished at the deadline".to_owned()
            }
            DecisionReason::SourceUnjudgeable => {
                "a cited source could not be fetched or judged".to_owned()
            }
            other => format!("{other:?}"),
        };
        parts.push(part);
    }
    let kinds = issue_kinds(&report.issues);
    report.recommendation_reason = if kinds.is_empty() {
        format!("Rejected: {}.", parts.join("; "))
    } else {
        format!("Rejected: {}: {}.", parts.join("; "), kinds.join(", "))
    };
}

/// The distinct problems of the blocking issues, most severe first, for the reason line.
fn issue_kinds(issues: &[Issue]) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    for issue in issues.iter().filter(|i| i.severity > Severity::Low) {
        let kind = issue.problem.trim_end_matches('.').to_lowercase();
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    kinds
}

fn plural(n: u32, word: &str) -> String {
    if n == 1 {
        word.to_owned()
    } else {
        format!("{word}s")
    }
}
