//! The comparison of a re-check with the live decisions: what each decision found, as findings
//! of a kind precise enough to compare (`citation_dead`, `figure_mismatch`, `source_changed`…),
//! and per article what changed. Pure: decisions in, differences out.

use std::collections::BTreeMap;

use serde::Serialize;

use factgate_core::events::{ClaimStatus, Decision, DecisionReason, Issue, IssueType, Outcome};
use factgate_core::model::Severity;

/// What kind of problem a finding is. Finer than the decision's reasons (which say only how
/// severe) and than the report's issue types (where a dead link and a paywall are both
/// `unverifiable`), so that two decisions on one article can be compared finding by finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// The cited page is gone (404 or 410).
    CitationDead,
    /// The cited page refuses access (401 or 403).
    CitationForbidden,
    /// The source is behind a paywall.
    SourcePaywalled,
    /// The source could not be read for a technical reason: timeout, server error, network.
    SourceUnreachable,
    /// The source does not clearly back the claim.
    UnclearSupport,
    /// The claim contradicts its source, or the source does not say it.
    ClaimRefuted,
    /// The claim's sources disagree: one supports it, another refutes it.
    ClaimContested,
    /// A figure of the claim differs from the source's.
    FigureMismatch,
    /// Quoted words are not in the source.
    QuoteMismatch,
    /// A quote or statement given to someone the source does not attribute it to.
    Misattributed,
    /// The claim adds a specific (a superlative, a multiplier, a place…) the source lacks.
    UnsupportedDetail,
    /// The source's data is older than allowed for its subject.
    OutdatedSource,
    /// The claim cites nothing where it must.
    Unsourced,
    /// The source's passage for the claim is not what it was at the earlier decision: the page
    /// was edited (only in a comparison, never in one decision).
    SourceChanged,
    /// The check did not complete: a deadline, an internal error.
    CheckIncomplete,
    /// The draft event could not be read.
    DraftUnreadable,
    /// The body could not be read.
    ExtractionFailed,
    /// The draft is over a per-draft limit.
    LimitExceeded,
}

impl FindingKind {
    /// The snake_case name, as in the reports.
    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::CitationDead => "citation_dead",
            FindingKind::CitationForbidden => "citation_forbidden",
            FindingKind::SourcePaywalled => "source_paywalled",
            FindingKind::SourceUnreachable => "source_unreachable",
            FindingKind::UnclearSupport => "unclear_support",
            FindingKind::ClaimRefuted => "claim_refuted",
            FindingKind::ClaimContested => "claim_contested",
            FindingKind::FigureMismatch => "figure_mismatch",
            FindingKind::QuoteMismatch => "quote_mismatch",
            FindingKind::Misattributed => "misattributed",
            FindingKind::UnsupportedDetail => "unsupported_detail",
            FindingKind::OutdatedSource => "outdated_source",
            FindingKind::Unsourced => "unsourced",
            FindingKind::SourceChanged => "source_changed",
            FindingKind::CheckIncomplete => "check_incomplete",
            FindingKind::DraftUnreadable => "draft_unreadable",
            FindingKind::ExtractionFailed => "extraction_failed",
            FindingKind::LimitExceeded => "limit_exceeded",
        }
    }
}

/// One problem a decision found, or one change between two decisions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub kind: FindingKind,
    pub severity: Severity,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_url: Option<String>,
    /// What is wrong, in the report's words.
    pub problem: String,
}

impl Finding {
    /// What makes two findings the same: their kind, claim and source.
    fn identity(&self) -> (FindingKind, Option<&str>, Option<&str>) {
        (
            self.kind,
            self.claim_id.as_deref(),
            self.source_url.as_deref(),
        )
    }
}

/// The kind of a report's issue. An unreadable source is told apart by the problem the
/// verifier writes for it ("Citation returns 404 error", "…refuses access", "Source is
/// paywalled", "Source could not be checked"); the judge's own doubts keep `unclear_support`.
fn issue_kind(issue: &Issue, reasons: &[DecisionReason]) -> FindingKind {
    match issue.issue_type {
        IssueType::Unsourced => FindingKind::Unsourced,
        IssueType::VerifiedFalse => FindingKind::ClaimRefuted,
        IssueType::Contested => FindingKind::ClaimContested,
        IssueType::FigureMismatch => FindingKind::FigureMismatch,
        IssueType::QuoteMismatch => FindingKind::QuoteMismatch,
        IssueType::Misattributed => FindingKind::Misattributed,
        IssueType::UnsupportedDetail => FindingKind::UnsupportedDetail,
        IssueType::OutdatedSource => FindingKind::OutdatedSource,
        IssueType::Unverifiable => {
            let problem = issue.problem.to_ascii_lowercase();
            if problem.starts_with("citation returns") {
                if problem.contains("refuses access") {
                    FindingKind::CitationForbidden
                } else {
                    FindingKind::CitationDead
                }
            } else if problem.contains("paywalled") {
                FindingKind::SourcePaywalled
            } else if problem.starts_with("source could not be checked") {
                FindingKind::SourceUnreachable
            } else {
                FindingKind::UnclearSupport
            }
        }
        IssueType::Error => {
            if reasons.contains(&DecisionReason::DraftUnreadable) {
                FindingKind::DraftUnreadable
            } else if reasons.contains(&DecisionReason::ExtractionFailed) {
                FindingKind::ExtractionFailed
            } else if reasons.contains(&DecisionReason::LimitExceeded) {
                FindingKind::LimitExceeded
            } else {
                FindingKind::CheckIncomplete
            }
        }
    }
}

/// The findings of one decision: one per issue of its report.
pub fn findings(decision: &Decision) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    for issue in &decision.report.issues {
        let finding = Finding {
            kind: issue_kind(issue, &decision.reasons),
            severity: issue.severity,
            claim_id: issue.claim_id.clone(),
            source_url: issue.source_url.clone(),
            problem: issue.problem.clone(),
        };
        // A report can list one problem of a claim and source twice (a claim judged against
        // a source that backs it twice): it is one finding, new or resolved once.
        if !out.iter().any(|f| f.identity() == finding.identity()) {
            out.push(finding);
        }
    }
    out
}

/// The claims whose source says something else now: the same (claim, source) was read both
/// times, and its evidence or its verdict differs.
fn changed_sources(live: &Decision, recheck: &Decision) -> Vec<Finding> {
    let mut changed = Vec::new();
    for now in &recheck.report.claims {
        let Some(before) = live
            .report
            .claims
            .iter()
            .find(|c| c.claim_id == now.claim_id && c.source_url == now.source_url)
        else {
            continue;
        };
        let (Some(then_quote), Some(now_quote)) = (&before.evidence_quote, &now.evidence_quote)
        else {
            continue;
        };
        let verdict_changed = before.verdict != now.verdict;
        if then_quote != now_quote || verdict_changed {
            let verdict = |v: Option<ClaimStatus>| match v {
                Some(ClaimStatus::Supported) => "supported",
                Some(ClaimStatus::Refuted) => "refuted",
                Some(ClaimStatus::Contested) => "contested",
                Some(ClaimStatus::Unconfirmed) | None => "unconfirmed",
            };
            changed.push(Finding {
                kind: FindingKind::SourceChanged,
                severity: now.severity.unwrap_or(Severity::Low),
                claim_id: Some(now.claim_id.clone()),
                source_url: now.source_url.clone(),
                problem: format!(
                    "the source's passage changed ({} before, {} now): \"{}\" became \"{}\"",
                    verdict(before.verdict),
                    verdict(now.verdict),
                    shorten(then_quote),
                    shorten(now_quote)
                ),
            });
        }
    }
    changed
}

/// A quote cut for a one-line problem.
fn shorten(quote: &str) -> String {
    const MAX_CHARS: usize = 120;
    if quote.chars().count() <= MAX_CHARS {
        quote.to_owned()
    } else {
        let cut: String = quote.chars().take(MAX_CHARS).collect();
        format!("{cut}…")
    }
}

/// How an article's decision changed against the live one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// It passed live and is blocked now: the case to act on.
    NewlyBlocked,
    /// It was blocked live and passes now.
    Fixed,
    /// The same outcome (its findings may still differ; see the article's lists).
    Unchanged,
    /// No live decision was found on the decisions topic.
    NoLiveDecision,
}

impl Change {
    /// Every change, in report order.
    pub const ALL: [Change; 4] = [
        Change::NewlyBlocked,
        Change::Fixed,
        Change::Unchanged,
        Change::NoLiveDecision,
    ];

    /// The snake_case name, as in the reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::NewlyBlocked => "newly_blocked",
            Change::Fixed => "fixed",
            Change::Unchanged => "unchanged",
            Change::NoLiveDecision => "no_live_decision",
        }
    }
}

/// What one decision said, in brief.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecisionBrief {
    pub decision_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<u64>,
    pub outcome: Outcome,
    pub reasons: Vec<DecisionReason>,
    pub decided_at: chrono::DateTime<chrono::Utc>,
}

impl From<&Decision> for DecisionBrief {
    fn from(d: &Decision) -> Self {
        DecisionBrief {
            decision_id: d.decision_id.clone(),
            revision: d.revision,
            outcome: d.outcome,
            reasons: d.reasons.clone(),
            decided_at: d.decided_at,
        }
    }
}

/// One article's re-check against its latest live decision.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArticleDiff {
    pub article_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub change: Change,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live: Option<DecisionBrief>,
    pub recheck: DecisionBrief,
    /// Found now and not live (with `source_changed` for every claim whose source reads
    /// differently now).
    pub new_findings: Vec<Finding>,
    /// Found live and not now.
    pub resolved_findings: Vec<Finding>,
    /// Found both times.
    pub unchanged_findings: usize,
}

/// Compares the re-check's decision on an article with its latest live decision.
pub fn compare(live: Option<&Decision>, recheck: &Decision) -> ArticleDiff {
    let now = findings(recheck);
    let (change, new_findings, resolved, kept) = match live {
        None => (Change::NoLiveDecision, now, Vec::new(), 0),
        Some(live) => {
            let then = findings(live);
            let change = match (live.outcome, recheck.outcome) {
                (Outcome::Pass, Outcome::Block) => Change::NewlyBlocked,
                (Outcome::Block, Outcome::Pass) => Change::Fixed,
                _ => Change::Unchanged,
            };
            let same =
                |a: &Finding, list: &[Finding]| list.iter().any(|b| b.identity() == a.identity());
            let mut new_findings: Vec<Finding> =
                now.iter().filter(|f| !same(f, &then)).cloned().collect();
            let resolved: Vec<Finding> = then.iter().filter(|f| !same(f, &now)).cloned().collect();
            let kept = now.len() - new_findings.len();
            new_findings.extend(changed_sources(live, recheck));
            (change, new_findings, resolved, kept)
        }
    };
    ArticleDiff {
        article_id: recheck.article_id.clone(),
        section: None,
        title: None,
        change,
        live: live.map(DecisionBrief::from),
        recheck: DecisionBrief::from(recheck),
        new_findings,
        resolved_findings: resolved,
        unchanged_findings: kept,
    }
}

/// Counts over a run's articles.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Articles in the run's scope.
    pub articles: usize,
    /// Articles decided by the re-check.
    pub decided: usize,
    pub passed: usize,
    pub blocked: usize,
    /// Per change (`newly_blocked`, `fixed`, `unchanged`, `no_live_decision`).
    pub changes: BTreeMap<&'static str, usize>,
    /// Per kind, the findings new in the re-check.
    pub new_findings: BTreeMap<&'static str, usize>,
    /// Per kind, the findings no longer found.
    pub resolved_findings: BTreeMap<&'static str, usize>,
}

impl Summary {
    /// The counts of `diffs`, for a run of `articles` articles.
    pub fn of(articles: usize, diffs: &[ArticleDiff]) -> Summary {
        let mut summary = Summary {
            articles,
            decided: diffs.len(),
            ..Summary::default()
        };
        for change in Change::ALL {
            summary.changes.insert(change.as_str(), 0);
        }
        for diff in diffs {
            match diff.recheck.outcome {
                Outcome::Pass => summary.passed += 1,
                Outcome::Block => summary.blocked += 1,
            }
            *summary.changes.entry(diff.change.as_str()).or_default() += 1;
            for f in &diff.new_findings {
                *summary.new_findings.entry(f.kind.as_str()).or_default() += 1;
            }
            for f in &diff.resolved_findings {
                *summary
                    .resolved_findings
                    .entry(f.kind.as_str())
                    .or_default() += 1;
            }
        }
        summary
    }

    /// Articles that passed live and are blocked now.
    pub fn newly_blocked(&self) -> usize {
        self.changes
            .get(Change::NewlyBlocked.as_str())
            .copied()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use factgate_core::decide::decide_not_checked;
    use factgate_core::events::{ClaimVerdict, content_digest};
    use factgate_core::model::Verdict;

    fn issue(issue_type: IssueType, severity: Severity, problem: &str, claim: &str) -> Issue {
        Issue {
            severity,
            issue_type,
            claim: "Sales rose 4%.".into(),
            location: "paragraph 1".into(),
            problem: problem.into(),
            evidence: String::new(),
            recommendation: String::new(),
            claim_id: Some(claim.into()),
            source_url: Some(format!("http://127.0.0.1/{claim}")),
            element: None,
            difference: None,
        }
    }

    fn decision(outcome: Outcome, issues: Vec<Issue>, claims: Vec<ClaimVerdict>) -> Decision {
        let mut d = decide_not_checked(
            "a-1",
            Some(1),
            &content_digest(b"x"),
            DecisionReason::HighSeverityIssue,
            "x",
            None,
            chrono::Utc::now(),
        );
        d.outcome = outcome;
        d.reasons = if outcome == Outcome::Pass {
            Vec::new()
        } else {
            vec![DecisionReason::HighSeverityIssue]
        };
        d.report.issues = issues;
        d.report.claims = claims;
        d
    }

    fn verdict(claim: &str, verdict: Verdict, quote: &str) -> ClaimVerdict {
        ClaimVerdict {
            claim_id: claim.into(),
            text: "Sales rose 4%.".into(),
            location: "paragraph 1".into(),
            verdict: Some(verdict.into()),
            support: None,
            source_url: Some(format!("http://127.0.0.1/{claim}")),
            evidence_quote: Some(quote.into()),
            evidence_page: None,
            correction: None,
            severity: None,
            contested: false,
            source_credibility: None,
            confidence: None,
            from_cache: None,
            supporting_source: None,
            backed_by: None,
        }
    }

    #[test]
    fn unreadable_sources_are_told_apart() {
        let kinds: Vec<FindingKind> = [
            "Citation returns 404 error",
            "Citation returns 403: the source refuses access",
            "Source is paywalled (subscribe)",
            "Source could not be checked: timed out",
            "The source does not clearly back the claim",
        ]
        .iter()
        .map(|p| issue_kind(&issue(IssueType::Unverifiable, Severity::High, p, "c"), &[]))
        .collect();
        assert_eq!(
            kinds,
            [
                FindingKind::CitationDead,
                FindingKind::CitationForbidden,
                FindingKind::SourcePaywalled,
                FindingKind::SourceUnreachable,
                FindingKind::UnclearSupport,
            ]
        );
    }

    #[test]
    fn a_pass_now_blocked_by_a_dead_link_is_newly_blocked_with_that_finding() {
        let live = decision(
            Outcome::Pass,
            vec![],
            vec![verdict("c1", Verdict::Supported, "Sales rose 4%")],
        );
        let now = decision(
            Outcome::Block,
            vec![issue(
                IssueType::Unverifiable,
                Severity::High,
                "Citation returns 404 error",
                "c1",
            )],
            vec![],
        );
        let diff = compare(Some(&live), &now);
        assert_eq!(diff.change, Change::NewlyBlocked);
        let kinds: Vec<_> = diff.new_findings.iter().map(|f| f.kind).collect();
        assert_eq!(kinds, [FindingKind::CitationDead]);
        assert!(diff.resolved_findings.is_empty());
    }

    #[test]
    fn a_corrected_page_shows_as_fixed_with_the_source_changed() {
        let live = decision(
            Outcome::Block,
            vec![issue(
                IssueType::FigureMismatch,
                Severity::High,
                "A figure differs from the source",
                "c1",
            )],
            vec![verdict("c1", Verdict::Refuted, "Sales rose 9%")],
        );
        let now = decision(
            Outcome::Pass,
            vec![],
            vec![verdict("c1", Verdict::Supported, "Sales rose 4%")],
        );
        let diff = compare(Some(&live), &now);
        assert_eq!(diff.change, Change::Fixed);
        assert_eq!(diff.resolved_findings[0].kind, FindingKind::FigureMismatch);
        assert_eq!(diff.new_findings[0].kind, FindingKind::SourceChanged);

        let same = compare(Some(&now), &now);
        assert_eq!(same.change, Change::Unchanged);
        assert!(same.new_findings.is_empty() && same.resolved_findings.is_empty());

        let summary = Summary::of(3, &[diff, same]);
        assert_eq!(summary.changes["fixed"], 1);
        assert_eq!(summary.changes["unchanged"], 1);
        assert_eq!(summary.changes["newly_blocked"], 0);
        assert_eq!(summary.new_findings["source_changed"], 1);
        assert_eq!(summary.decided, 2);
    }
}
