//! What an editor should look at besides what blocks: claims the check could not confirm (the
//! source does not clearly state them), confirmed only with low confidence, and issues the
//! policy lets through. Listed apart from the findings that block, so nothing unsure is silent
//! and nothing unsure is a block unless the policy says so.

use crate::events::{ClaimStatus, Decision, DecisionReason, Issue};
use crate::model::Severity;

/// Below this calibrated confidence a supported claim is listed for review.
pub const LOW_CONFIDENCE: f64 = 0.5;

/// A claim listed for review, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewItem {
    pub claim_id: String,
    pub claim: String,
    pub location: String,
    /// Why, for a person: "the source does not clearly state it".
    pub why: String,
}

/// Whether `issue` counts toward the decision's block: its severity is one the decision's
/// reasons name.
pub fn blocks(decision: &Decision, issue: &Issue) -> bool {
    let reason = match issue.severity {
        Severity::High => DecisionReason::HighSeverityIssue,
        Severity::Medium => DecisionReason::MediumSeverityIssue,
        Severity::Low => DecisionReason::LowSeverityIssue,
    };
    decision.reasons.contains(&reason) || issue.issue_type == crate::events::IssueType::Error
}

/// The claims of `decision` for review, in reading order; a claim with a blocking finding is
/// not listed (it is among the findings).
pub fn for_review(decision: &Decision) -> Vec<ReviewItem> {
    let report = &decision.report;
    let mut out = Vec::new();
    for claim in &report.claims {
        let own: Vec<&Issue> = report
            .issues
            .iter()
            .filter(|i| i.claim_id.as_deref() == Some(claim.claim_id.as_str()))
            .collect();
        if own.iter().any(|i| blocks(decision, i)) {
            continue;
        }
        let why = if let Some(issue) = own.first() {
            format!(
                "{} (not blocking under this policy)",
                issue.problem.trim_end_matches('.')
            )
        } else {
            match claim.verdict {
                Some(ClaimStatus::Inconclusive) => {
                    "the source does not clearly state it: unconfirmed".to_owned()
                }
                Some(ClaimStatus::Supported)
                    if claim.confidence.is_some_and(|c| c < LOW_CONFIDENCE) =>
                {
                    format!(
                        "confirmed with low confidence ({:.0}%)",
                        claim.confidence.unwrap_or_default() * 100.0
                    )
                }
                _ => continue,
            }
        };
        out.push(ReviewItem {
            claim_id: claim.claim_id.clone(),
            claim: claim.text.clone(),
            location: claim.location.clone(),
            why,
        });
    }
    out
}
