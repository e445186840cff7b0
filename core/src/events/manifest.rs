//! The article manifest extraction sends to the join (`articles.manifest`, keyed by article id):
//! everything extraction found in one (article, revision), and the checks the join must wait
//! for. See the module docs of [`crate::events`] for how results are counted.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::check::CheckKey;
use super::position::DraftPosition;
use super::version::ManifestV1;
use crate::model::Claim;

/// Why extraction failed, machine-readable. Every variant blocks the draft.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtractionFailure {
    /// The body holds nothing but whitespace.
    EmptyBody,
    /// The body is not readable text (invalid encoding, binary data).
    UnreadableBody,
    /// The body is longer than the configured cap.
    BodyTooLarge,
    /// The article is over another per-article limit (links, claims, checks, nesting depth),
    /// or what extraction would send does not fit the broker's message limit; the message
    /// names the limit.
    LimitExceeded,
    /// Extraction itself failed.
    InternalError,
}

/// Whether extraction read the article.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ExtractionOutcome {
    /// The whole body was read. With no claims, this says the article holds none.
    Ok {
        /// Paragraphs (blocks) read.
        paragraphs: usize,
        /// Sentences read.
        sentences: usize,
    },
    /// The body could not be read; the manifest has no claims and nothing pending.
    Failed {
        reason: ExtractionFailure,
        /// For a person: "the body is not readable text: invalid UTF-8 at byte 12".
        message: String,
    },
}

/// What extraction found in one (article, revision).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArticleManifest {
    /// Always [`super::MANIFEST_V1`].
    pub schema_version: ManifestV1,
    pub article_id: String,
    pub revision: u64,
    /// The draft's event time.
    pub published_at: DateTime<Utc>,
    /// When the join blocks the draft if results are still missing: the moment checking began
    /// (or `published_at`, under `join.deadline_from = "published"`) plus the configured
    /// verification time.
    pub deadline: DateTime<Utc>,
    /// When extract read the draft: checking began then. Later than `published_at` by more than
    /// the verification time, the draft arrived late (a backlog after an outage), and its
    /// decision says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extracted_at: Option<DateTime<Utc>>,
    /// The digest of the draft's content ([`super::content_digest`]), from which the decision id
    /// is derived.
    pub content_digest: String,
    pub extraction: ExtractionOutcome,
    /// Every claim found, in reading order, with the prejudgment of those that cite nothing.
    pub claims: Vec<Claim>,
    /// The checks requested, one per (claim, distinct cited source URL), each answered by exactly
    /// one claim result. Empty when no claim cites a source.
    pub pending: Vec<CheckKey>,
    /// Where the draft was read on the drafts topic: which publication of the revision this is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draft_position: Option<DraftPosition>,
    /// Set when the manifest is too large for one message and is sent in parts: each part holds
    /// some of the claims and their pending checks, and the join waits for all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<ManifestPart>,
}

/// Which part of a split manifest this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ManifestPart {
    /// From 0.
    pub index: u32,
    /// How many parts the manifest has; at least 2.
    pub count: u32,
}

impl ExtractionFailure {
    /// Whether the draft was refused for exceeding a limit rather than for being unreadable.
    pub(crate) fn is_limit(self) -> bool {
        matches!(
            self,
            ExtractionFailure::BodyTooLarge | ExtractionFailure::LimitExceeded
        )
    }
}
