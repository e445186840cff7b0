//! The report a decision carries, in the JSON structure of reference/fact-checker-agent-spec.md
//! ("JSON Structure"), plus the verdict each claim received.
//!
//! Differences from the spec's report, and why:
//! - `timestamp` is the decision's `decided_at`, and `analysis_path` its `article_id`: the
//!   decision holds them once.
//! - `verification_details` counts fetches (`fetch_attempts`, `fetch_successful`); there is no
//!   web search, so no `websearch_fallbacks`.
//! - `claims` lists every claim with its verdict, which the spec leaves to the issues.

use serde::{Deserialize, Serialize};

use crate::model::{ClaimElement, Severity, Verdict};

/// The report's recommendation, in the spec's words: `reject` blocks, `accept` passes.
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
    /// (high), or a qualitative claim (low).
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
    /// The check itself did not complete: deadline, internal error. Always blocks.
    Error,
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
}

/// Counts of sourced claims by verification state, after the spec.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerificationResults {
    /// Claims whose verdict is `supported`.
    pub verified_true: u32,
    /// Claims whose verdict is `refuted`.
    pub verified_false: u32,
    /// Sourced claims whose verdict is `inconclusive`, or that got no verdict.
    pub unverifiable: u32,
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

/// The verdict one claim received, over all the sources it cites.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimVerdict {
    pub claim_id: String,
    pub text: String,
    /// Where the claim is, for a person.
    pub location: String,
    /// Absent for a claim that cites nothing (judged at extraction; see the issues) or whose
    /// check did not finish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// The support score of the deciding check, in [0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub support: Option<f64>,
    /// The source whose check decided the verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence_quote: Option<String>,
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
    /// The claim's sources disagree: one supports it and another refutes it
    /// (reference/fact-analyst-node.md's "contested"). The verdict is then the refutation.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub contested: bool,
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
        }
    }
}
