//! The decision the join sends on `decisions` (keyed by article id): pass or block, why, and the
//! report. One decision is made per (article, revision).
//!
//! # Decision ids
//! A decision id is derived, never drawn at random, so a replayed draft yields the same id and a
//! consumer can drop duplicates:
//!
//! ```text
//! content_digest = hex(sha256(content))                      // 64 hex chars
//! decision_id    = hex(sha256("factgate.decision.v1" ‖ field(article_id)
//!                             ‖ field(revision or "") ‖ field(content_digest)))[..32]
//! field(x)       = len(x) as u64, big-endian ‖ x
//! ```
//!
//! The content of a readable draft is what factgate checks: its body format, body and title
//! ([`DraftEvent::content_digest`](super::DraftEvent::content_digest)), so a change to other
//! fields (a CMS flag, the section) is the same decision. The content of an unreadable draft is its
//! raw event bytes. The id does not depend on the outcome: it names the slot, and two decisions
//! with one id are one decision delivered twice.
//!
//! When the decision answers a draft read from Kafka, the draft's position on the drafts topic
//! ([`DraftPosition`]) is a fourth field, `field(partition ":" offset)` (e.g. `"2:417"`), and the
//! decision carries it in `draft_position`: each publication of a revision (a retry, a corrected
//! body) gets a decision of its own, and a replay of one publication the same id again. For one
//! (article, revision), the decision with the latest `draft_position` is the one that counts.
//! Without a position (`factgate check`, a manifest that could not be read) the field is absent
//! from the hash.
//!
//! A decision of a re-check run (`factgate recheck`) carries the run's id in `run_id`, and
//! `field("run:" run_id)` is a fifth field of its id: the live decision and each run's decision
//! of the same publication have ids of their own, so a changed verdict is never taken for a
//! duplicate.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::outcome::Outcome;
use super::position::DraftPosition;
use super::report::Report;
use super::version::DecisionV1;
use crate::model::BodyFormat;

/// Hex characters kept of the decision id's hash: 128 bits, ample against collisions.
const DECISION_ID_HEX_CHARS: usize = 32;

/// Why a draft is blocked, machine-readable. A decision may carry several.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum DecisionReason {
    /// At least one high-severity issue.
    HighSeverityIssue,
    /// Medium-severity issues beyond what the configured strictness allows.
    MediumSeverityIssue,
    /// A low-severity issue, under strict strictness, which blocks on any issue.
    LowSeverityIssue,
    /// The draft event could not be read (invalid JSON, missing or ill-typed field).
    DraftUnreadable,
    /// The body could not be read or extraction failed.
    ExtractionFailed,
    /// Verification results were still missing at the deadline.
    DeadlineExceeded,
    /// A cited source could not be fetched or judged, and strictness does not allow it.
    SourceUnjudgeable,
    /// A newer revision of the article arrived before this one was decided.
    Superseded,
    /// factgate failed internally.
    InternalError,
    /// The draft is over a per-draft limit (body size, links, claims, checks, nesting depth), or
    /// what it produces cannot fit the broker's message limit; the report names the limit.
    LimitExceeded,
}

impl DecisionReason {
    /// Every reason, in declaration order.
    pub const ALL: [DecisionReason; 10] = [
        DecisionReason::HighSeverityIssue,
        DecisionReason::MediumSeverityIssue,
        DecisionReason::LowSeverityIssue,
        DecisionReason::DraftUnreadable,
        DecisionReason::ExtractionFailed,
        DecisionReason::DeadlineExceeded,
        DecisionReason::SourceUnjudgeable,
        DecisionReason::Superseded,
        DecisionReason::InternalError,
        DecisionReason::LimitExceeded,
    ];

    /// Whether the reason says the article was not (fully) checked, rather than that a claim
    /// was found at fault: a report then has no claim to point at for it.
    pub fn is_not_checked(self) -> bool {
        match self {
            DecisionReason::HighSeverityIssue
            | DecisionReason::MediumSeverityIssue
            | DecisionReason::LowSeverityIssue => false,
            DecisionReason::DraftUnreadable
            | DecisionReason::ExtractionFailed
            | DecisionReason::DeadlineExceeded
            | DecisionReason::SourceUnjudgeable
            | DecisionReason::Superseded
            | DecisionReason::InternalError
            | DecisionReason::LimitExceeded => true,
        }
    }

    /// Whether the block says the check could not complete (rather than what the content
    /// holds), so the same content published again is checked again: a source that could not
    /// be judged, a deadline passed, an internal error.
    pub fn is_retryable(self) -> bool {
        matches!(
            self,
            DecisionReason::SourceUnjudgeable
                | DecisionReason::DeadlineExceeded
                | DecisionReason::InternalError
        )
    }
}

/// The answer for one (article, revision).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// Always [`super::DECISION_V1`].
    pub schema_version: DecisionV1,
    /// See the module docs: derived from article, revision and content.
    pub decision_id: String,
    pub article_id: String,
    /// Null only for a draft that could not be read and whose revision could not be recovered
    /// (reason `draft_unreadable`).
    pub revision: Option<u64>,
    pub outcome: Outcome,
    /// Empty for a pass; at least one for a block.
    pub reasons: Vec<DecisionReason>,
    pub decided_at: DateTime<Utc>,
    pub report: Report,
    /// The publication this decision answers: where the draft sat on the drafts topic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draft_position: Option<DraftPosition>,
    /// The digest of the content decided (see the module docs), so a reader can tell which body
    /// of a revision the decision is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_digest: Option<String>,
    /// The re-check run that made this decision; absent from live decisions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The editor's override this decision answers (docs/events.md, "Overrides"): the decision
    /// it overrides, who, why, and the finding waived. Absent from decisions the checks made.
    #[serde(rename = "override", default, skip_serializing_if = "Option::is_none")]
    pub override_applied: Option<super::overrides::AppliedOverride>,
    /// Set when the draft reached factgate later than its verification time after publication
    /// (a backlog): it was checked on its merits, with a deadline from when checking began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrived_late: Option<ArrivedLate>,
}

/// How late a draft reached factgate: from its `published_at` to when checking began.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArrivedLate {
    pub by_ms: u64,
    pub checking_began_at: DateTime<Utc>,
}

impl ArrivedLate {
    /// How late, in words: "11 minutes", "2 hours 5 minutes", "40 seconds".
    pub fn in_words(&self) -> String {
        let seconds = self.by_ms / 1000;
        let (hours, minutes, secs) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
        let unit = |n: u64, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
        match (hours, minutes) {
            (0, 0) => unit(secs, "second"),
            (0, m) => unit(m, "minute"),
            (h, 0) => unit(h, "hour"),
            (h, m) => format!("{} {}", unit(h, "hour"), unit(m, "minute")),
        }
    }
}

impl Decision {
    /// This decision as the answer to the publication at `position`: the position is recorded
    /// and the id derived again with it.
    pub fn for_publication(mut self, position: Option<DraftPosition>) -> Decision {
        if let (Some(position), Some(digest)) = (position, self.content_digest.as_deref()) {
            self.decision_id =
                decision_id_at(&self.article_id, self.revision, digest, Some(position));
            self.draft_position = Some(position);
        }
        self
    }

    /// This decision as re-check run `run_id`'s answer to the publication at `position`: both
    /// are recorded and the id derived again with them (see the module docs).
    pub fn for_recheck(mut self, run_id: &str, position: DraftPosition) -> Decision {
        let digest = self.content_digest.clone().unwrap_or_default();
        self.decision_id =
            decision_id_for_run(&self.article_id, self.revision, &digest, position, run_id);
        self.draft_position = Some(position);
        self.run_id = Some(run_id.to_owned());
        self
    }

    /// Whether this block says the check could not complete, so the same content is checked
    /// again when published again (see [`DecisionReason::is_retryable`]).
    pub fn is_retryable(&self) -> bool {
        self.outcome == Outcome::Block && self.reasons.iter().any(|r| r.is_retryable())
    }
}

/// The hex SHA-256 digest of `content`, as used in [`decision_id`].
pub fn content_digest(content: &[u8]) -> String {
    hex::encode(Sha256::digest(content))
}

/// The content digest of a readable draft: its body format, body and, when it has one, its
/// title (which is read for claims as a heading is, so a new title is new content). `factgate
/// run`, `factgate check` and `factgate recheck` all name the content they decided by it.
pub fn draft_content_digest(format: BodyFormat, title: Option<&str>, body: &str) -> String {
    let mut hasher = Sha256::new();
    length_prefixed(&mut hasher, format.as_str().as_bytes());
    length_prefixed(&mut hasher, body.as_bytes());
    if let Some(title) = title {
        length_prefixed(&mut hasher, title.as_bytes());
    }
    hex::encode(hasher.finalize())
}

/// Derives the id of the decision on (`article_id`, `revision`) for content whose digest is
/// `content_digest`; see the module docs for the exact derivation.
pub fn decision_id(article_id: &str, revision: Option<u64>, content_digest: &str) -> String {
    decision_id_at(article_id, revision, content_digest, None)
}

/// [`decision_id`] for the publication at `position` on the drafts topic (see the module docs).
pub fn decision_id_at(
    article_id: &str,
    revision: Option<u64>,
    content_digest: &str,
    position: Option<DraftPosition>,
) -> String {
    derive_decision_id(article_id, revision, content_digest, position, None)
}

/// [`decision_id_at`] for re-check run `run_id`: the run is a fifth field (see the module docs).
pub fn decision_id_for_run(
    article_id: &str,
    revision: Option<u64>,
    content_digest: &str,
    position: DraftPosition,
    run_id: &str,
) -> String {
    derive_decision_id(
        article_id,
        revision,
        content_digest,
        Some(position),
        Some(run_id),
    )
}

/// The one derivation of decision ids: the fields length-prefixed in order, the position and
/// the run only when there is one.
fn derive_decision_id(
    article_id: &str,
    revision: Option<u64>,
    content_digest: &str,
    position: Option<DraftPosition>,
    run_id: Option<&str>,
) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"factgate.decision.v1");
    length_prefixed(&mut hasher, article_id.as_bytes());
    let revision = revision.map(|r| r.to_string()).unwrap_or_default();
    length_prefixed(&mut hasher, revision.as_bytes());
    length_prefixed(&mut hasher, content_digest.as_bytes());
    if let Some(position) = position {
        length_prefixed(
            &mut hasher,
            format!("{}:{}", position.partition, position.offset).as_bytes(),
        );
    }
    if let Some(run_id) = run_id {
        length_prefixed(&mut hasher, format!("run:{run_id}").as_bytes());
    }
    let mut id = hex::encode(hasher.finalize());
    id.truncate(DECISION_ID_HEX_CHARS);
    id
}

/// Feeds `bytes` with its length in front, so that no two different field lists hash alike
/// ("ab" ‖ "c" vs "a" ‖ "bc").
fn length_prefixed(hasher: &mut Sha256, bytes: &[u8]) {
    hasher.update((bytes.len() as u64).to_be_bytes());
    hasher.update(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decision_id_is_stable_and_documented_length() {
        let digest = content_digest(b"body");
        let id = decision_id("a-1", Some(3), &digest);
        assert_eq!(id, decision_id("a-1", Some(3), &digest));
        assert_eq!(id.len(), 32);
        assert!(
            id.chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        // Pinned to the value an independent implementation of the documented derivation gives
        // (Python hashlib): a change here breaks deduplication across versions.
        assert_eq!(id, "8dd790b05c50b47d1c3270ee4a68e8e8");
    }

    #[test]
    fn decision_id_differs_by_revision_article_and_content() {
        let digest = content_digest(b"body");
        let base = decision_id("a-1", Some(3), &digest);
        assert_ne!(base, decision_id("a-1", Some(4), &digest));
        assert_ne!(base, decision_id("a-1", None, &digest));
        assert_ne!(base, decision_id("a-2", Some(3), &digest));
        assert_ne!(base, decision_id("a-1", Some(3), &content_digest(b"body!")));
    }

    #[test]
    fn each_publication_gets_its_own_id_and_a_replay_the_same() {
        let digest = content_digest(b"body");
        let at = |partition, offset| Some(DraftPosition { partition, offset });
        let first = decision_id_at("a-1", Some(3), &digest, at(2, 417));
        assert_eq!(first, decision_id_at("a-1", Some(3), &digest, at(2, 417)));
        assert_ne!(first, decision_id_at("a-1", Some(3), &digest, at(2, 418)));
        assert_ne!(first, decision_id("a-1", Some(3), &digest));
        // Pinned like the id without a position (Python hashlib over the documented fields).
        assert_eq!(first, "7003608eb17e5ad99587c37a353588c8");
    }

    #[test]
    fn each_run_gets_ids_of_its_own() {
        let digest = content_digest(b"body");
        let at = DraftPosition {
            partition: 2,
            offset: 417,
        };
        let live = decision_id_at("a-1", Some(3), &digest, Some(at));
        let run1 = decision_id_for_run("a-1", Some(3), &digest, at, "r1");
        assert_ne!(live, run1);
        assert_ne!(run1, decision_id_for_run("a-1", Some(3), &digest, at, "r2"));
        assert_eq!(run1, decision_id_for_run("a-1", Some(3), &digest, at, "r1"));
    }

    #[test]
    fn fields_are_framed_so_boundaries_matter() {
        // Without length prefixes, "a-1" + "23" and "a-12" + "3" would hash alike.
        let digest = content_digest(b"x");
        assert_ne!(
            decision_id("a-1", Some(23), &digest),
            decision_id("a-12", Some(3), &digest)
        );
        assert_ne!(
            draft_content_digest(BodyFormat::Text, None, "markdown"),
            draft_content_digest(BodyFormat::Markdown, None, "text")
        );
    }

    #[test]
    fn a_new_title_is_new_content() {
        // A title is read for claims, so a draft republished with only its title changed must be
        // checked again, never answered by the decision on the old title.
        let body = "Prices rose 4%.";
        let untitled = draft_content_digest(BodyFormat::Markdown, None, body);
        let titled = draft_content_digest(BodyFormat::Markdown, Some("Prices soar"), body);
        assert_ne!(untitled, titled);
        assert_ne!(
            titled,
            draft_content_digest(BodyFormat::Markdown, Some("Unemployment hit 40%"), body)
        );
        // The fields stay framed: text moved between body and title is other content.
        assert_ne!(
            draft_content_digest(BodyFormat::Markdown, Some("b"), "a"),
            draft_content_digest(BodyFormat::Markdown, Some(""), "ab")
        );
    }

    #[test]
    fn draft_digest_depends_on_format_and_body() {
        let md = draft_content_digest(BodyFormat::Markdown, None, "Prices rose 4%.");
        assert_eq!(
            md,
            draft_content_digest(BodyFormat::Markdown, None, "Prices rose 4%.")
        );
        assert_ne!(
            md,
            draft_content_digest(BodyFormat::Html, None, "Prices rose 4%.")
        );
        assert_ne!(
            md,
            draft_content_digest(BodyFormat::Markdown, None, "Prices rose 5%.")
        );
        assert_eq!(md.len(), 64);
    }
}
