//! One undecided (article, revision): a pending article (its manifest is in, some results may be
//! missing) or a group of results still waiting for their manifest. Each keeps the positions of
//! the messages it holds, so they are released when it is decided or dropped.

use std::collections::HashSet;

use chrono::{DateTime, Utc};

use super::held::Position;
use crate::decide::{ArticleCheck, Strictness, decide, decide_not_checked};
use crate::events::TraceContext;
use crate::events::{
    ArticleManifest, CheckKey, ClaimResult, Decision, DecisionReason, DraftPosition,
    ExtractionFailure, ExtractionOutcome, ManifestPart,
};

/// The extraction outcome of a split manifest whose parts cannot be put together: a block
/// (`internal_error`) saying why.
fn parts_do_not_fit(part: ManifestPart, known_count: Option<u32>) -> ExtractionOutcome {
    let after = known_count.map_or(String::new(), |c| format!(" after parts of {c}"));
    ExtractionOutcome::Failed {
        reason: ExtractionFailure::InternalError,
        message: format!(
            "the manifest's parts do not fit together (part {} of {}{after}): its checks cannot be known",
            u64::from(part.index) + 1,
            part.count
        ),
    }
}

/// An article whose manifest is in (all of it, or some of its parts).
#[derive(Debug)]
pub(crate) struct PendingArticle {
    /// The manifest; a split one with the claims and checks of every part received so far.
    pub(crate) manifest: ArticleManifest,
    /// Pending keys of the manifest still without a result.
    waiting: HashSet<CheckKey>,
    /// One result per answered key, in arrival order.
    results: Vec<ClaimResult>,
    /// Messages this article keeps: its manifest (parts) and every result accepted.
    pub(crate) held: Vec<Position>,
    /// The article's trace (its manifest's, else its first result's), so a decision made on no
    /// message, at the deadline, still belongs to it.
    pub(crate) trace: Option<TraceContext>,
    /// The parts of a split manifest received so far, by index; empty for a whole manifest.
    parts_seen: HashSet<u32>,
    /// Later publications of the same content while this one is in flight: their results
    /// answer the same checks.
    pub(crate) repeats: Vec<DraftPosition>,
}

impl PendingArticle {
    /// A pending article from its manifest (or its first part to arrive), read at `at`.
    pub(crate) fn new(mut manifest: ArticleManifest, at: Position) -> Self {
        if let Some(part) = manifest.part
            && (part.count < 2 || part.index >= part.count)
        {
            manifest.extraction = parts_do_not_fit(part, None);
        }
        let waiting = manifest.pending.iter().cloned().collect();
        let parts_seen = manifest.part.map(|p| p.index).into_iter().collect();
        Self {
            manifest,
            waiting,
            results: Vec::new(),
            held: vec![at],
            trace: None,
            parts_seen,
            repeats: Vec::new(),
        }
    }

    pub(crate) fn revision(&self) -> u64 {
        self.manifest.revision
    }

    pub(crate) fn deadline(&self) -> DateTime<Utc> {
        self.manifest.deadline
    }

    /// The publication this article is, when known.
    pub(crate) fn position(&self) -> Option<DraftPosition> {
        self.manifest.draft_position
    }

    /// Whether `other` (a manifest or one of its parts) is of this same publication: a replay, or
    /// another part.
    pub(crate) fn same_publication(&self, other: &ArticleManifest) -> bool {
        match (self.manifest.draft_position, other.draft_position) {
            (Some(mine), Some(theirs)) => mine == theirs,
            _ => self.manifest.content_digest == other.content_digest,
        }
    }

    /// Whether a result of the publication at `position` answers this article's checks: its
    /// own, a repeat of the same content, or one that does not say.
    pub(crate) fn accepts(&self, position: Option<DraftPosition>) -> bool {
        match (self.position(), position) {
            (Some(mine), Some(theirs)) => mine == theirs || self.repeats.contains(&theirs),
            _ => true,
        }
    }

    /// Adds part `manifest` of this article's split manifest, read at `at`. Returns whether it
    /// was new (a part already received, replayed, changes nothing). A whole manifest saying
    /// extraction failed, for a publication whose parts are coming in, is how extract answers
    /// when the broker refused a later part: the failure decides the article.
    pub(crate) fn add_part(&mut self, manifest: ArticleManifest, at: Position) -> bool {
        let Some(part) = manifest.part else {
            let failed = matches!(manifest.extraction, ExtractionOutcome::Failed { .. });
            if failed && self.manifest.part.is_some() && self.extraction_failed().is_none() {
                self.manifest.extraction = manifest.extraction;
                self.held.push(at);
                return true;
            }
            return false;
        };
        let known = self.manifest.part.map(|p| p.count);
        if known != Some(part.count) || part.index >= part.count {
            // Parts of two different splits of one publication (the draft extracted again under
            // another message limit), or a malformed marker: which checks the manifest holds can
            // no longer be known, so the article must not pass.
            self.manifest.extraction = parts_do_not_fit(part, known);
            self.held.push(at);
            return true;
        }
        if !self.parts_seen.insert(part.index) {
            return false;
        }
        for key in &manifest.pending {
            self.waiting.insert(key.clone());
        }
        self.manifest.claims.extend(manifest.claims);
        self.manifest.pending.extend(manifest.pending);
        self.held.push(at);
        true
    }

    /// Parts of a split manifest not received yet: while there are, a result for a check not
    /// known yet may be one of theirs.
    pub(crate) fn missing_parts(&self) -> u32 {
        match self.manifest.part {
            Some(part) => part
                .count
                .saturating_sub(u32::try_from(self.parts_seen.len()).unwrap_or(u32::MAX)),
            None => 0,
        }
    }

    /// Takes `result` if it answers a key still waiting, else gives it back. A result for a key
    /// already answered (a duplicate) or not pending, or of another publication, is refused.
    pub(crate) fn offer(
        &mut self,
        result: ClaimResult,
        at: Position,
    ) -> Result<(), Box<ClaimResult>> {
        if !self.accepts(result.draft_position) || !self.waiting.remove(&result.check_key()) {
            return Err(Box::new(result));
        }
        self.results.push(result);
        self.held.push(at);
        Ok(())
    }

    /// Whether the article can be decided now, without waiting: every part in and every pending
    /// check answered, or nothing to wait for because extraction failed.
    pub(crate) fn is_ready(&self) -> bool {
        self.extraction_failed().is_some() || (self.waiting.is_empty() && self.missing_parts() == 0)
    }

    fn extraction_failed(&self) -> Option<(&str, ExtractionFailure)> {
        match &self.manifest.extraction {
            ExtractionOutcome::Failed { message, reason } => Some((message, *reason)),
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

    /// Decides with what is in: a failed extraction blocks as such (`limit_exceeded` for a
    /// draft over a limit, `internal_error` for a failure of factgate's, else
    /// `extraction_failed`); parts of a split manifest still missing block as
    /// `deadline_exceeded` (the claims they hold were never seen); otherwise the claims, the
    /// results and the checks still unfinished (non-empty only at the deadline) go to
    /// [`decide`]. The decision answers the manifest's publication.
    pub(crate) fn decide(&self, strictness: Strictness, now: DateTime<Utc>) -> Decision {
        let mut decision = self.decide_on_time(strictness, now);
        if let Some(late) = arrived_late(&self.manifest) {
            let words = if self.manifest.deadline > late.checking_began_at {
                format!(
                    " This draft reached factgate {} after it was published (a backlog); it was \
                     checked on its merits, with a deadline of its own from when checking began.",
                    late.in_words()
                )
            } else {
                format!(
                    " This draft reached factgate {} after it was published (a backlog), past \
                     its deadline counted from publication (join.deadline_from = \"published\"): \
                     publish it again to have it checked.",
                    late.in_words()
                )
            };
            decision.report.recommendation_reason.push_str(&words);
            decision.arrived_late = Some(late);
        }
        decision
    }

    fn decide_on_time(&self, strictness: Strictness, now: DateTime<Utc>) -> Decision {
        let m = &self.manifest;
        let not_checked = |reason, message: &str| {
            decide_not_checked(
                &m.article_id,
                Some(m.revision),
                &m.content_digest,
                reason,
                message,
                Some(m.published_at),
                now,
            )
            .for_publication(m.draft_position)
        };
        if let Some((message, failure)) = self.extraction_failed() {
            let reason = if failure.is_limit() {
                DecisionReason::LimitExceeded
            } else if failure == ExtractionFailure::InternalError {
                DecisionReason::InternalError
            } else {
                DecisionReason::ExtractionFailed
            };
            return not_checked(reason, message);
        }
        let missing = self.missing_parts();
        if missing > 0 {
            let count = m.part.map_or(0, |p| p.count);
            return not_checked(
                DecisionReason::DeadlineExceeded,
                &format!("{missing} of the {count} parts of the article's manifest never arrived"),
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
        decide(&check, strictness, now).for_publication(m.draft_position)
    }
}

/// How late `manifest`'s draft reached factgate, when it did: checking began later after
/// publication than the verification time its deadline then gave it (under
/// `join.deadline_from = "published"` the deadline had already passed).
pub(crate) fn arrived_late(manifest: &ArticleManifest) -> Option<crate::events::ArrivedLate> {
    let began = manifest.extracted_at?;
    let late = began - manifest.published_at;
    let allowed = manifest.deadline - began;
    (late > allowed.max(chrono::TimeDelta::zero())).then(|| crate::events::ArrivedLate {
        by_ms: u64::try_from(late.num_milliseconds()).unwrap_or(0),
        checking_began_at: began,
    })
}

/// Blocks `manifest`'s revision because a newer revision of the article is known.
pub(crate) fn superseded(manifest: &ArticleManifest, newer: u64, now: DateTime<Utc>) -> Decision {
    let decision = decide_not_checked(
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
    );
    decision.for_publication(manifest.draft_position)
}

/// Results of one (article, revision) whose manifest has not come yet.
#[derive(Debug)]
pub(crate) struct Orphans {
    /// When the first of them arrived (processing time): the retention counts from here.
    pub(crate) first_seen: DateTime<Utc>,
    /// The check and publication of each result kept, so a duplicate is kept once.
    keys: HashSet<(CheckKey, Option<DraftPosition>)>,
    /// Each result with the position of its message.
    pub(crate) results: Vec<(ClaimResult, Position)>,
    /// The first result's trace, for a manifest that comes without one.
    pub(crate) trace: Option<TraceContext>,
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

    /// Keeps `result` unless one with its key (of the same publication) is already kept;
    /// returns whether it was kept.
    pub(crate) fn add(&mut self, result: ClaimResult, at: Position) -> bool {
        if !self
            .keys
            .insert((result.check_key(), result.draft_position))
        {
            return false;
        }
        self.results.push((result, at));
        true
    }
}
