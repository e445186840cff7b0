//! What an editor should look at besides what blocks: claims the check could not confirm (the
//! source does not clearly state them), confirmed only with low confidence, and issues the
//! policy lets through. Listed apart from the findings that block, so nothing unsure is silent
//! and nothing unsure is a block unless the policy says so.

use crate::events::{ClaimStatus, Decision, DecisionReason, Issue};
use crate::model::Severity;

/// Below this calibrated confidence a supported claim is listed for review.
pub(crate) const LOW_CONFIDENCE: f64 = 0.5;

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
                Some(ClaimStatus::Unconfirmed) => {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::{ClaimVerdict, IssueType};

    fn verdict(id: &str, status: ClaimStatus, confidence: Option<f64>) -> ClaimVerdict {
        ClaimVerdict {
            claim_id: id.into(),
            text: format!("claim {id}"),
            location: "paragraph 1".into(),
            verdict: Some(status),
            support: None,
            confidence,
            source_url: None,
            evidence_quote: None,
            evidence_page: None,
            correction: None,
            severity: None,
            source_credibility: None,
            contested: false,
            from_cache: None,
            supporting_source: None,
            backed_by: None,
        }
    }

    fn issue(id: &str, severity: Severity) -> Issue {
        Issue {
            severity,
            issue_type: IssueType::Unverifiable,
            claim: format!("claim {id}"),
            location: "paragraph 1".into(),
            problem: "The source is ambiguous".into(),
            evidence: String::new(),
            recommendation: String::new(),
            claim_id: Some(id.into()),
            source_url: None,
            element: None,
            difference: None,
        }
    }

    #[test]
    fn unsure_claims_are_listed_for_review_and_blocking_ones_are_not() {
        let mut d = crate::decide::decide_not_checked(
            "a",
            Some(1),
            "d",
            DecisionReason::InternalError,
            "x",
            None,
            chrono::Utc::now(),
        );
        d.reasons = vec![DecisionReason::HighSeverityIssue];
        d.report.issues = vec![issue("bad", Severity::High), issue("minor", Severity::Low)];
        d.report.claims = vec![
            verdict("bad", ClaimStatus::Refuted, Some(0.05)),
            verdict("minor", ClaimStatus::Supported, Some(0.9)),
            verdict("unsure", ClaimStatus::Unconfirmed, None),
            verdict("weak", ClaimStatus::Supported, Some(0.3)),
            verdict("fine", ClaimStatus::Supported, Some(0.9)),
        ];
        let review: Vec<(String, String)> = for_review(&d)
            .into_iter()
            .map(|r| (r.claim_id, r.why))
            .collect();
        let ids: Vec<&str> = review.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["minor", "unsure", "weak"], "{review:?}");
        assert!(review[0].1.contains("not blocking"));
        assert!(review[1].1.contains("unconfirmed"));
        assert!(review[2].1.contains("low confidence"));
        assert!(blocks(&d, &d.report.issues[0]));
        assert!(!blocks(&d, &d.report.issues[1]));
    }
}
