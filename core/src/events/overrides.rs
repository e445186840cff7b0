//! Waivers: a finding a person has checked and accepts, with their name and reason.
//!
//! - On the stream, an editor's **override** ([`OverrideEvent`], `schemas/override.v1.json`,
//!   topic `kafka.topics.overrides`, key: article) names one finding of one decision; the join
//!   answers it with a new decision on the same revision (see
//!   [`crate::decide::waive::apply_override`]), which records the override in
//!   [`Decision::override_applied`](super::Decision) and lists the finding under the report's
//!   `waived`.
//! - In `factgate check`, an inline waiver in the draft or an entry of a waivers file does the
//!   same for one run.
//!
//! A finding is named by its issue type and the claim it is about ([`FindingRef`]): an override
//! never waives a finding it does not name, and never one of another revision or decision.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::report::{Issue, IssueType};
pub use super::report::{WaivedIssue, Waiver, WaiverKind};
use super::version::OverrideV1;

/// The most characters of an editor's name and of a reason an override may carry.
pub const MAX_EDITOR_CHARS: usize = 200;
/// See [`MAX_EDITOR_CHARS`].
pub const MAX_REASON_CHARS: usize = 2000;

/// One finding of a report: its issue type and the claim it is about (none for a finding about
/// the whole article).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FindingRef {
    #[serde(rename = "type")]
    pub issue_type: IssueType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_id: Option<String>,
}

impl FindingRef {
    /// The finding `issue` is.
    pub fn of(issue: &Issue) -> FindingRef {
        FindingRef {
            issue_type: issue.issue_type,
            claim_id: issue.claim_id.clone(),
        }
    }

    /// Whether `issue` is this finding.
    pub fn names(&self, issue: &Issue) -> bool {
        issue.issue_type == self.issue_type && issue.claim_id == self.claim_id
    }
}

/// An editor's override of one finding of one decision (`schemas/override.v1.json`). A field the
/// schema does not have is refused, as the schema's `additionalProperties: false` says: an
/// override is an audit record, and nothing in it goes unread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OverrideEvent {
    /// Always [`super::OVERRIDE_V1`].
    pub schema_version: OverrideV1,
    /// Derived from the fields below ([`override_id`]): the same override sent twice is one.
    pub override_id: String,
    pub article_id: String,
    pub revision: u64,
    /// The decision whose finding is waived: an override answers exactly that decision, so a
    /// later publication or revision, judged afresh, is not waived by it.
    pub decision_id: String,
    pub finding: FindingRef,
    /// Who overrides: the name the editor logged in as.
    pub editor: String,
    /// Why the finding is wrong or acceptable, in the editor's words.
    pub reason: String,
    pub overridden_at: DateTime<Utc>,
}

impl OverrideEvent {
    /// An override of `finding` of `decision_id`, its id derived.
    pub fn new(
        article_id: &str,
        revision: u64,
        decision_id: &str,
        finding: FindingRef,
        editor: &str,
        reason: &str,
        overridden_at: DateTime<Utc>,
    ) -> OverrideEvent {
        OverrideEvent {
            schema_version: OverrideV1,
            override_id: override_id(decision_id, &finding, editor, reason),
            article_id: article_id.to_owned(),
            revision,
            decision_id: decision_id.to_owned(),
            finding,
            editor: editor.trim().to_owned(),
            reason: reason.trim().to_owned(),
            overridden_at,
        }
    }
}

/// The id of an override: the first 32 hex characters of SHA-256 over
/// `"factgate.override.v1"`, then each of the decision id, the finding's type, its claim id (or
/// ""), the editor and the reason, each length-prefixed (8 bytes, big-endian).
pub fn override_id(decision_id: &str, finding: &FindingRef, editor: &str, reason: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"factgate.override.v1");
    let kind = serde_json::to_value(finding.issue_type)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    for field in [
        decision_id,
        &kind,
        finding.claim_id.as_deref().unwrap_or(""),
        editor.trim(),
        reason.trim(),
    ] {
        hasher.update((field.len() as u64).to_be_bytes());
        hasher.update(field.as_bytes());
    }
    let mut id = hex::encode(hasher.finalize());
    id.truncate(32);
    id
}

/// The override a decision answers: what the join applied to the decision `overrides` to make
/// this one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppliedOverride {
    pub override_id: String,
    /// The decision overridden.
    pub overrides: String,
    pub editor: String,
    pub reason: String,
    pub finding: FindingRef,
    pub overridden_at: DateTime<Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_covers_every_field() {
        let finding = FindingRef {
            issue_type: IssueType::FigureMismatch,
            claim_id: Some("c1".into()),
        };
        let id = override_id("d1", &finding, "ana", "checked by phone");
        assert_eq!(id.len(), 32);
        assert_eq!(id, override_id("d1", &finding, " ana ", "checked by phone"));
        assert_ne!(id, override_id("d2", &finding, "ana", "checked by phone"));
        assert_ne!(id, override_id("d1", &finding, "bob", "checked by phone"));
        assert_ne!(id, override_id("d1", &finding, "ana", "checked"));
        let other = FindingRef {
            issue_type: IssueType::Unsourced,
            ..finding.clone()
        };
        assert_ne!(id, override_id("d1", &other, "ana", "checked by phone"));
    }
}
