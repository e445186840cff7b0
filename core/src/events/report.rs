//! The report a decision carries (docs/report.md), plus the verdict each claim received.
//!
//! - When and what was checked are the decision's (`decided_at`, `article_id`): the decision
//!   holds them once.
//! - `verification_details` counts fetches (`fetch_attempts`, `fetch_successful`); factgate
//!   fetches the cited sources only and searches for none.
//! - `claims` lists every claim with its verdict, not only those with an issue.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::outcome::Outcome;
use crate::model::{ClaimElement, Difference, Severity, Verdict};

/// The report's recommendation: `reject` blocks, `accept` passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recommendation {
    Accept,
    Reject,
}

/// What kind of problem an issue is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IssueType {
    /// The claim cites nothing: an unsourced statistic, market figure or first-person data
    /// (high), or a qualitative claim (low). Also a statistic its cited page never gives in any
    /// form: it does not come from that source (high).
    Unsourced,
    /// The claim contradicts or significantly misrepresents its source: a direction, negation,
    /// date, unit, currency, title or subject the source states otherwise, a source that does
    /// not say it at all, or a cited fact-check that rates it false. High.
    VerifiedFalse,
    /// A figure of the claim differs from the source's: over 20% high, 10–20% medium, under 10%
    /// low.
    FigureMismatch,
    /// A quoted span does not appear in the source.
    QuoteMismatch,
    /// A quote or reported statement given to someone the source does not attribute it to:
    /// high when the source names someone else, medium when it names no one the claim does.
    Misattributed,
    /// The claim adds a specific its source does not state (a superlative or record, a
    /// multiplier, a quantifier, a place): medium.
    UnsupportedDetail,
    /// The source could not be read or does not settle the claim: a dead citation (404/410,
    /// 401/403) is high; a paywalled or ambiguous source medium.
    Unverifiable,
    /// The source's data is older than the configured age for its subject.
    OutdatedSource,
    /// The claim's sources disagree: one supports it, another refutes it
    /// (docs/contested-evidence.md). Medium; high when a refuting source is of
    /// high credibility (fact-checker, government, education). The evidence quotes both.
    Contested,
    /// The check itself did not complete: deadline, internal error. Always blocks.
    Error,
}

impl IssueType {
    /// Every issue type, in declaration order.
    pub const ALL: [IssueType; 10] = [
        IssueType::Unsourced,
        IssueType::VerifiedFalse,
        IssueType::FigureMismatch,
        IssueType::QuoteMismatch,
        IssueType::Misattributed,
        IssueType::UnsupportedDetail,
        IssueType::Unverifiable,
        IssueType::OutdatedSource,
        IssueType::Contested,
        IssueType::Error,
    ];

    /// The type as events and metric labels name it: `figure_mismatch`.
    pub fn as_str(self) -> &'static str {
        match self {
            IssueType::Unsourced => "unsourced",
            IssueType::VerifiedFalse => "verified_false",
            IssueType::FigureMismatch => "figure_mismatch",
            IssueType::QuoteMismatch => "quote_mismatch",
            IssueType::Misattributed => "misattributed",
            IssueType::UnsupportedDetail => "unsupported_detail",
            IssueType::Unverifiable => "unverifiable",
            IssueType::OutdatedSource => "outdated_source",
            IssueType::Contested => "contested",
            IssueType::Error => "error",
        }
    }
}

/// One problem found in the article, for the editor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Issue {
    pub severity: Severity,
    #[serde(rename = "type")]
    pub issue_type: IssueType,
    /// The claim's text, as the reader sees it.
    pub claim: String,
    /// Where the claim is, for a person: "Business Model, paragraph 4".
    pub location: String,
    /// What is wrong: "Pricing contradicts source".
    pub problem: String,
    /// What the check found: "Source shows $9/month, no annual pricing mentioned".
    pub evidence: String,
    /// What to do: "Correct to $9/month per source".
    pub recommendation: String,
    /// The claim the issue is about, when it is about one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_id: Option<String>,
    /// The source the issue is about, when it is about one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_url: Option<String>,
    /// The element of the claim the source disagrees with, when the check compared one:
    /// direction, negation, subject, unit, currency, date, speaker, title, a specific…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<ClaimElement>,
    /// For a contradiction: the claim's words and the source's for the element that differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difference: Option<Difference>,
}

/// Counts of sourced claims by verification state (docs/report.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerificationResults {
    /// Claims whose verdict is `supported`.
    pub verified_true: u32,
    /// Claims whose verdict is `refuted`.
    pub verified_false: u32,
    /// Sourced claims whose verdict is `inconclusive`, or that got no verdict.
    pub unverifiable: u32,
    /// Claims whose verdict is `contested`: one source supports them, another refutes them.
    /// Absent from reports written before contested claims were counted apart (they were
    /// counted in `verified_false`).
    #[serde(default)]
    pub contested: u32,
}

/// Counts of issues by severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeverityCounts {
    pub high: u32,
    pub medium: u32,
    pub low: u32,
}

impl SeverityCounts {
    /// Counts the severities of `issues`.
    pub fn of<'a>(issues: impl IntoIterator<Item = &'a Issue>) -> SeverityCounts {
        let mut counts = SeverityCounts::default();
        for issue in issues {
            match issue.severity {
                Severity::High => counts.high += 1,
                Severity::Medium => counts.medium += 1,
                Severity::Low => counts.low += 1,
            }
        }
        counts
    }
}

/// The report's headline figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub total_claims: u32,
    /// Claims with at least one citation.
    pub sourced_claims: u32,
    pub unsourced_claims: u32,
    pub verification_results: VerificationResults,
    /// `verified_true` as a percentage of sourced claims, 0–100; 100 when nothing is sourced.
    pub accuracy_score: f64,
    /// Distinct (claim, source) checks requested.
    pub citations_checked: u32,
    /// Checks whose source was fetched and read (`fetch_status` ok).
    pub citations_working: u32,
    /// Cited statements (sourced claims) judged against at least one source that was read.
    /// Absent from reports written before it was counted.
    #[serde(default)]
    pub cited_statements_checked: u32,
    pub severity_counts: SeverityCounts,
}

/// How the check went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerificationDetails {
    /// HTTP fetch attempts, retries included, over all checks.
    pub fetch_attempts: u32,
    /// Checks whose source was read.
    pub fetch_successful: u32,
    /// From the draft's `published_at` to the decision, in seconds.
    pub processing_time_seconds: f64,
}

/// A claim's verdict over all the sources it cites: the per-claim synthesis of
/// docs/contested-evidence.md. One source's [`Verdict`] is `supported`, `refuted` or
/// `unconfirmed`; over several sources, one that supports and one that refutes make the claim
/// `contested`. Ordered by priority, lowest first: `contested` outranks `refuted` (the analyst
/// node's not_supported), which outranks `supported`, which outranks `unconfirmed` (its
/// insufficient).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimStatus {
    /// No source states the claim clearly, none contradicts it. Reports written before this name
    /// said `inconclusive`, which reads as this.
    #[serde(alias = "inconclusive")]
    Unconfirmed,
    Supported,
    Refuted,
    Contested,
}

impl ClaimStatus {
    /// The synthesis of a claim's per-source verdicts; `None` when it has none.
    pub(crate) fn synthesize(verdicts: impl IntoIterator<Item = Verdict>) -> Option<ClaimStatus> {
        let (mut supported, mut refuted, mut any) = (false, false, false);
        for verdict in verdicts {
            any = true;
            supported |= verdict == Verdict::Supported;
            refuted |= verdict == Verdict::Refuted;
        }
        match (supported, refuted) {
            (true, true) => Some(ClaimStatus::Contested),
            (false, true) => Some(ClaimStatus::Refuted),
            (true, false) => Some(ClaimStatus::Supported),
            (false, false) => any.then_some(ClaimStatus::Unconfirmed),
        }
    }
}

impl From<Verdict> for ClaimStatus {
    fn from(verdict: Verdict) -> ClaimStatus {
        match verdict {
            Verdict::Supported => ClaimStatus::Supported,
            Verdict::Refuted => ClaimStatus::Refuted,
            Verdict::Unconfirmed => ClaimStatus::Unconfirmed,
        }
    }
}

/// The source that backs a contested claim, beside the refuting one the claim's verdict names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SupportingSource {
    pub source_url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence_quote: Option<String>,
    /// The raw support score of that check, in [0, 1].
    pub support: f64,
    /// The calibrated probability that this source supports the claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// The source's credibility in [0, 1].
    pub source_credibility: f64,
}

/// The verdict one claim received, over all the sources it cites.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimVerdict {
    pub claim_id: String,
    pub text: String,
    /// Where the claim is, for a person.
    pub location: String,
    /// The synthesis over the claim's sources. Absent for a claim that cites nothing (judged at
    /// extraction; see the issues) or whose check did not finish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<ClaimStatus>,
    /// The raw support score of the deciding check, in [0, 1]: for a contested claim, the
    /// refuting one. A ranking, not a probability; see `confidence`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub support: Option<f64>,
    /// The calibrated probability that the deciding check's source supports the claim (see
    /// [`ClaimResult::confidence`](crate::events::ClaimResult)); absent when that source was not
    /// judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// The source whose check decided the verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence_quote: Option<String>,
    /// For a source of pages (a PDF), the 1-based page `evidence_quote` is on (the deciding
    /// result's `evidence.page`); absent for a web page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence_page: Option<u32>,
    /// "source says $9/month".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correction: Option<String>,
    /// The highest severity among the claim's issues; absent when it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    /// The credibility in [0, 1] of the source whose check decided the verdict, from the
    /// configured domain lists; absent when that check did not judge its source (not fetched).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_credibility: Option<f64>,
    /// `verdict == contested`, kept for readers of reports written before `contested` was a
    /// verdict (they then read `verdict: refuted` and this flag).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub contested: bool,
    /// Whether the deciding source was served from the fetch cache (true) or fetched for this
    /// check (false); absent when it was not read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_cache: Option<bool>,
    /// For a contested claim, the source that supports it; the fields above name the refuting
    /// source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supporting_source: Option<SupportingSource>,
    /// For a statement without a source of its own, which of the sources it borrows decided its
    /// verdict, in words: "the article's source in paragraph 1".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backed_by: Option<String>,
}

/// The report an editor acts on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub recommendation: Recommendation,
    /// One or two sentences: "3 high-severity issues found: …".
    pub recommendation_reason: String,
    pub summary: Summary,
    /// Ordered by severity, high first.
    pub issues: Vec<Issue>,
    pub verification_details: VerificationDetails,
    /// The most important fixes, most important first: "Priority 1: Remove fabricated pilot
    /// study claim (High)".
    pub top_priorities: Vec<String>,
    /// Every claim of the article with its verdict, in reading order.
    pub claims: Vec<ClaimVerdict>,
    /// What changed since the article's previous decided revision, when it is known
    /// (docs/revisions.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes_since_previous: Option<RevisionChanges>,
    /// Findings a person checked and accepted (an editor's override, a waiver in `check`):
    /// listed here with who and why, never dropped, and no longer counted in `issues`,
    /// `severity_counts` or the decision.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waived: Vec<WaivedIssue>,
}

/// What changed between the article's previous decided revision and this one: which of its
/// issues were fixed, which are still open, which are new, and which cited sources were
/// replaced. An issue is the same issue when it is about the same claim (the same claim id or
/// text, or an edited sentence matched by `crate::decide::revisions`) and of the same type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RevisionChanges {
    pub previous_revision: u64,
    pub previous_outcome: Outcome,
    /// Issues of the previous revision (the lists below may be cut to fit a message; counts
    /// are of the whole).
    pub previous_issues: u32,
    /// Issues of the previous revision this one no longer has.
    pub fixed: Vec<IssueChange>,
    /// Issues of the previous revision this one still has.
    pub still_open: Vec<IssueChange>,
    /// Issues of this revision the previous one did not have.
    pub new: Vec<IssueChange>,
    /// Sources cited by the previous revision, with an issue there, that the claim no longer
    /// cites.
    pub citations_replaced: Vec<CitationReplaced>,
    /// Claims unchanged since the previous revision, checked again all the same (every claim is
    /// re-verified on every revision), and whether their source was fetched again or served
    /// from the fetch cache (`cache.ttl_ok_s` decides).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rechecked: Vec<Rechecked>,
    /// Counts of the lists, before any cut.
    pub counts: ChangeCounts,
}

/// The sizes of a [`RevisionChanges`]' lists before any cut.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeCounts {
    pub fixed: u32,
    pub still_open: u32,
    pub new: u32,
    pub citations_replaced: u32,
    pub rechecked: u32,
}

/// One issue in a comparison of revisions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssueChange {
    #[serde(rename = "type")]
    pub issue_type: IssueType,
    pub severity: Severity,
    /// The claim as it reads in the revision the issue is from (the previous one for a fixed
    /// issue); empty for an issue about the whole article.
    pub claim: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_id: Option<String>,
    pub problem: String,
    /// For an issue still open or fixed on a claim that was edited, the claim as it reads now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_now: Option<String>,
    /// For a fixed issue, how: `claim_removed`, `claim_edited` or `resolved` (the claim reads
    /// the same; its source now backs it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<Resolution>,
}

/// How a fixed issue went away.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resolution {
    /// The claim is no longer in the article.
    ClaimRemoved,
    /// The claim was reworded.
    ClaimEdited,
    /// The claim reads the same; its check no longer raises the issue.
    Resolved,
}

/// A cited source with an issue in the previous revision that the claim no longer cites.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CitationReplaced {
    /// The claim as it reads now.
    pub claim: String,
    pub previous_url: String,
    /// The issue the old source had: "Citation returns 404 error".
    pub previous_problem: String,
    /// The sources the claim cites now that it did not before; empty when the citation was
    /// removed without a replacement.
    pub replacements: Vec<String>,
}

/// A claim unchanged since the previous revision, checked again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rechecked {
    pub claim: String,
    pub source_url: String,
    /// True when the source was served from the fetch cache, false when fetched again.
    pub from_cache: bool,
}

impl Report {
    /// The report of a draft blocked before any claim could be checked (unreadable draft, failed
    /// extraction, internal error): no claims, no checks, one issue saying why.
    pub fn not_checked(reason: &str, issue: Issue, processing_time_seconds: f64) -> Report {
        let issues = vec![issue];
        Report {
            recommendation: Recommendation::Reject,
            recommendation_reason: reason.to_owned(),
            summary: Summary {
                total_claims: 0,
                sourced_claims: 0,
                unsourced_claims: 0,
                verification_results: VerificationResults::default(),
                accuracy_score: 0.0,
                citations_checked: 0,
                citations_working: 0,
                cited_statements_checked: 0,
                severity_counts: SeverityCounts::of(&issues),
            },
            top_priorities: issues
                .iter()
                .enumerate()
                .map(|(i, issue)| format!("Priority {}: {}", i + 1, issue.recommendation))
                .collect(),
            issues,
            verification_details: VerificationDetails {
                fetch_attempts: 0,
                fetch_successful: 0,
                processing_time_seconds,
            },
            claims: Vec::new(),
            changes_since_previous: None,
            waived: Vec::new(),
        }
    }
}

/// How a finding came to be waived.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaiverKind {
    /// An editor's override on the stream.
    Override,
    /// A waiver written in the draft (`factgate check`).
    Inline,
    /// An entry of a waivers file (`factgate check --waivers`).
    File,
}

/// Who waived a finding and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Waiver {
    pub kind: WaiverKind,
    /// The editor, for an override; absent for a waiver in a draft or file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub editor: Option<String>,
    pub reason: String,
    /// The override's id, for an override.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub override_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waived_at: Option<DateTime<Utc>>,
}

/// A finding listed as waived, never dropped: the issue as it was found, and its waiver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaivedIssue {
    pub issue: Issue,
    pub waiver: Waiver,
}
