//! The decision: the issues of one (article, revision) become pass or block under the configured
//! strictness (docs/severity.md), and the report an editor acts on is assembled (docs/report.md).
//!
//! Fail closed. Some reasons block whatever the strictness, because the check did not complete:
//! a draft that could not be read, an extraction that failed, checks still missing at the
//! deadline, a source that could not be fetched or judged for technical reasons (timeout, server
//! error, refused by policy…; see [`FetchStatus::leaves_source_unjudged`]), a superseded
//! revision, an internal error. Editorial issues (a contradicted figure, a dead citation, an
//! unsourced statistic) block according to [`Strictness`].
//!
//! A claim's verdict is the synthesis over its sources (`contested` when they disagree; see
//! `report`), and [`revisions`] says what changed since the article's previous revision.

mod compose;
pub mod review;
pub mod revisions;
#[cfg(test)]
mod tests;
pub mod waive;

use crate::events::{
    CheckKey, ClaimResult, Decision, DecisionReason, FetchStatus, Issue, IssueType, Outcome,
    Report, SeverityCounts, decision_id,
};
use crate::model::Claim;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// How strict the policy is about editorial issues. Fail-closed reasons block at every level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strictness {
    /// Block on any high issue or three or more medium ones (docs/severity.md).
    Lenient,
    /// The default: block on any high or medium issue.
    #[default]
    Normal,
    /// Block on any issue at all, low included.
    Strict,
}

impl Strictness {
    /// The editorial reasons to block, given the article's issue counts.
    pub fn blocking_reasons(self, counts: &SeverityCounts) -> Vec<DecisionReason> {
        let medium_allowed = match self {
            Strictness::Lenient => 2,
            Strictness::Normal | Strictness::Strict => 0,
        };
        let mut reasons = Vec::new();
        if counts.high > 0 {
            reasons.push(DecisionReason::HighSeverityIssue);
        }
        if counts.medium > medium_allowed {
            reasons.push(DecisionReason::MediumSeverityIssue);
        }
        if self == Strictness::Strict && counts.low > 0 {
            reasons.push(DecisionReason::LowSeverityIssue);
        }
        reasons
    }
}

impl std::str::FromStr for Strictness {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "lenient" => Ok(Strictness::Lenient),
            "normal" => Ok(Strictness::Normal),
            "strict" => Ok(Strictness::Strict),
            other => Err(format!(
                "unknown strictness {other:?}: expected lenient, normal or strict"
            )),
        }
    }
}

/// Everything known about one (article, revision) when it is decided.
#[derive(Debug, Clone, Copy)]
pub struct ArticleCheck<'a> {
    pub article_id: &'a str,
    pub revision: u64,
    /// [`crate::events::content_digest`] of the draft's content, for the decision id.
    pub content_digest: &'a str,
    /// The draft event's timestamp: processing time counts from it.
    pub published_at: DateTime<Utc>,
    /// Every claim extraction found.
    pub claims: &'a [Claim],
    /// The results received. Duplicates (same claim and source) count once.
    pub results: &'a [ClaimResult],
    /// Checks requested but still without a result: non-empty only when the deadline passed.
    pub unfinished: &'a [CheckKey],
}

/// Decides a checked article: its issues under `strictness`, plus the fail-closed reasons.
pub fn decide(
    check: &ArticleCheck<'_>,
    strictness: Strictness,
    decided_at: DateTime<Utc>,
) -> Decision {
    let processing = seconds_between(check.published_at, decided_at);
    let built = compose::build(check, processing);
    let mut reasons = strictness.blocking_reasons(&built.report.summary.severity_counts);
    if !check.unfinished.is_empty() || built.deadline_timeouts > 0 {
        reasons.push(DecisionReason::DeadlineExceeded);
    }
    if built.unjudged_sources > 0 {
        reasons.push(DecisionReason::SourceUnjudgeable);
    }
    if built.over_judging_budget > 0 {
        reasons.push(DecisionReason::LimitExceeded);
    }
    if built.missing_checks > 0 {
        reasons.push(DecisionReason::InternalError);
    }
    finish(
        check.article_id,
        Some(check.revision),
        check.content_digest,
        reasons,
        built.report,
        decided_at,
    )
}

/// Blocks a draft that could not be checked at all: unreadable, extraction failed, superseded,
/// internal error. The report says why, with `message` as the evidence.
pub fn decide_not_checked(
    article_id: &str,
    revision: Option<u64>,
    content_digest: &str,
    reason: DecisionReason,
    message: &str,
    published_at: Option<DateTime<Utc>>,
    decided_at: DateTime<Utc>,
) -> Decision {
    let (problem, recommendation) = match reason {
        DecisionReason::DraftUnreadable => (
            "The draft event could not be read",
            "Fix the draft event in the CMS and publish it again",
        ),
        DecisionReason::ExtractionFailed => (
            "The article body could not be read, so no claim was checked",
            "Check the body and its format, then publish it again",
        ),
        DecisionReason::Superseded => (
            "A newer revision arrived before this one was decided",
            "Nothing to do: the newer revision is checked instead",
        ),
        DecisionReason::DeadlineExceeded => (
            "The check did not finish by the deadline",
            "Publish the draft again, or check its sources by hand",
        ),
        DecisionReason::LimitExceeded => (
            "The article is over a limit of what one draft may ask factgate to do, so no claim was checked",
            "Split the article, or remove what the limit counts; the platform team can raise the limit",
        ),
        _ => (
            "The fact check failed internally",
            "Publish the draft again; if it fails again, report it to the platform team",
        ),
    };
    let issue = Issue {
        severity: crate::model::Severity::High,
        issue_type: IssueType::Error,
        claim: String::new(),
        location: "whole article".to_owned(),
        problem: problem.to_owned(),
        evidence: message.to_owned(),
        recommendation: recommendation.to_owned(),
        claim_id: None,
        source_url: None,
        element: None,
        difference: None,
    };
    let processing = published_at.map_or(0.0, |at| seconds_between(at, decided_at));
    let report = Report::not_checked(&format!("Blocked: {problem}."), issue, processing);
    finish(
        article_id,
        revision,
        content_digest,
        vec![reason],
        report,
        decided_at,
    )
}

fn finish(
    article_id: &str,
    revision: Option<u64>,
    content_digest: &str,
    mut reasons: Vec<DecisionReason>,
    mut report: Report,
    decided_at: DateTime<Utc>,
) -> Decision {
    reasons.sort();
    reasons.dedup();
    let outcome = if reasons.is_empty() {
        Outcome::Pass
    } else {
        Outcome::Block
    };
    compose::set_recommendation(&mut report, &reasons);
    Decision {
        schema_version: Default::default(),
        decision_id: decision_id(article_id, revision, content_digest),
        article_id: article_id.to_owned(),
        revision,
        outcome,
        reasons,
        decided_at,
        report,
        draft_position: None,
        content_digest: Some(content_digest.to_owned()),
        run_id: None,
        override_applied: None,
        arrived_late: None,
    }
}

fn seconds_between(from: DateTime<Utc>, to: DateTime<Utc>) -> f64 {
    let millis = (to - from).num_milliseconds().max(0);
    millis as f64 / 1000.0
}

/// Results with duplicates removed, first one kept, in arrival order.
fn distinct_results(results: &[ClaimResult]) -> Vec<&ClaimResult> {
    let mut seen = std::collections::HashSet::new();
    results
        .iter()
        .filter(|r| seen.insert((r.claim_id.as_str(), r.source_url.as_str())))
        .collect()
}

/// Whether this result's source could not be read for a technical reason.
fn unjudged(result: &ClaimResult) -> bool {
    FetchStatus::leaves_source_unjudged(result.fetch_status)
}
