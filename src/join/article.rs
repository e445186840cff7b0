//! One undecided (article, revision): a pending article (its manifest is in, some results may be
//! missing) or a group of results still waiting for their manifest. Each keeps the positions of
//! the messages it holds, so they are released when it is decided or dropped.

use std::collections::HashSet;

use chrono::{DateTime, Utc};

use super::offsets::Position;
use crate::decide::{ArticleCheck, Strictness, decide, decide_not_checked};
use crate::events::{
    ArticleManifest, CheckKey, ClaimResult, Decision, DecisionReason, ExtractionOutcome,
};
use crate::kafka::TraceParent;

/// An article whose manifest is in.
#[derive(Debug)]
pub(crate) struct PendingArticle {
    pub(crate) manifest: ArticleManifest,
    /// Pending keys of the manifest still without a result.
    waiting: HashSet<CheckKey>,
    /// One result per answered key, in arrival order.
    results: Vec<ClaimResult>,
    /// Messages this article keeps: its manifest and every result accepted.
    pub(crate) held: Vec<Position>,
    /// The article's trace (its manifest's, else its first result's), so a decision made on no
    /// message, at the deadline, still belongs to it.
    pub(crate) trace: Option<TraceParent>,
}

impl PendingArticle {
    /// A pending article from its manifest, read at `at`.
    pub(crate) fn new(manifest: ArticleManifest, at: Position) -> Self {
        let waiting = manifest.pending.iter().cloned().collect();
        Self {
            manifest,
            waiting,
            results: Vec::new(),
            held: vec![at],
            trace: None,
        }
    }

    pub(crate) fn revision(&self) -> u64 {
        self.manifest.revision
    }

    pub(crate) fn deadline(&self) -> DateTime<Utc> {
        self.manifest.deadline
    }

    /// Takes `result` if it answers a key still waiting; returns whether it was taken. A result
    /// for a key already answered (a duplicate) or not pending is refused.
    pub(crate) fn offer(&mut self, result: ClaimResult, at: Position) -> bool {
        if !self.waiting.remove(&result.check_key()) {
            return false;
        }
        self.results.push(result);
        self.held.push(at);
        true
    }

    /// Whether the article can be decided now, without waiting: every pending check answered,
    /// or nothing to wait for because extraction failed.
    pub(crate) fn is_ready(&self) -> bool {
        self.waiting.is_empty() || self.extraction_failed().is_some()
    }

    fn extraction_failed(&self) -> Option<&str> {
        match &self.manifest.extraction {
            ExtractionOutcome::Failed { message, .. } => Some(message),
            ExtractionOutcome::Ok { .. } => None,
        }
    }

    /// The checks still without a result, in the manifest's order.
    pub(crate) fn unfinished(&self) -> Vec<CheckKey> {
        let mut seen = HashSet::new();
        self.manifest
            .pending
            .iter()
            .filter(|k| self.waiting.contains(*k) && seen.insert(*k))
            .cloned()
            .collect()
    }

    /// Decides with what is in: a failed extraction blocks as such; otherwise the claims, the
    /// results and the checks still unfinished (non-empty only at the deadline) go to
    /// [`decide`].
    pub(crate) fn decide(&self, strictness: Strictness, now: DateTime<Utc>) -> Decision {
        let m = &self.manifest;
        if let Some(message) = self.extraction_failed() {
            return decide_not_checked(
                &m.article_id,
                Some(m.revision),
                &m.content_digest,
                DecisionReason::ExtractionFailed,
                message,
                Some(m.published_at),
                now,
            );
        }
        let unfinished = self.unfinished();
        let check = ArticleCheck {
            article_id: &m.article_id,
            revision: m.revision,
            content_digest: &m.content_digest,
            published_at: m.published_at,
            claims: &m.claims,
            results: &self.results,
            unfinished: &unfinished,
        };
        decide(&check, strictness, now)
    }
}

/// Blocks `manifest`'s revision because a newer revision of the article is known.
pub(crate) fn superseded(manifest: &ArticleManifest, newer: u64, now: DateTime<Utc>) -> Decision {
    decide_not_checked(
        &manifest.article_id,
        Some(manifest.revision),
        &manifest.content_digest,
        DecisionReason::Superseded,
        &format!(
            "revision {} was superseded by revision {newer} before it was decided",
            manifest.revision
        ),
        Some(manifest.published_at),
        now,
    )
}

/// Results of one (article, revision) whose manifest has not come yet.
#[derive(Debug)]
pub(crate) struct Orphans {
    /// When the first of them arrived (processing time): the retention counts from here.
    pub(crate) first_seen: DateTime<Utc>,
    keys: HashSet<CheckKey>,
    /// Each result with the position of its message.
    pub(crate) results: Vec<(ClaimResult, Position)>,
    /// The first result's trace, for a manifest that comes without one.
    pub(crate) trace: Option<TraceParent>,
}

impl Orphans {
    pub(crate) fn new(first_seen: DateTime<Utc>) -> Self {
        Self {
            first_seen,
            keys: HashSet::new(),
            results: Vec::new(),
            trace: None,
        }
    }

    /// Keeps `result` unless one with its key is already kept; returns whether it was kept.
    pub(crate) fn add(&mut self, result: ClaimResult, at: Position) -> bool {
        if !self.keys.insert(result.check_key()) {
            return false;
        }
        self.results.push((result, at));
        true
    }
}
