//! The join: gathers the manifest and the claim results of each (article, revision) and makes
//! exactly one decision for it. Pure logic: no Kafka, no clock, no I/O. The caller feeds it the
//! messages it consumes with their (topic, partition, offset), calls [`JoinState::on_tick`]
//! regularly, sends every decision returned, and commits offsets from
//! [`JoinState::commit_watermark`].
//!
//! # Rules
//! - **Any order.** Results that come before their manifest are kept (see *Bounded*) and taken
//!   when it comes. Results count once per [`CheckKey`](crate::events::CheckKey); once the manifest is known, a result for
//!   a key it does not list as pending is ignored.
//! - **Decide as soon as possible.** When every pending key has a result, the article is decided
//!   with [`crate::decide::decide`]. A manifest whose extraction failed blocks at once
//!   (`extraction_failed`); one with nothing pending (no claims, or only unsourced ones) is decided
//!   at once.
//! - **Event-time deadline.** An article still waiting at its manifest's `deadline` (the draft's
//!   timestamp plus `join.deadline_ms`, set by extract) is blocked by the next
//!   [`JoinState::on_tick`] with `deadline_exceeded`, listing the unfinished checks. A manifest
//!   that arrives already past its deadline (a restart after a long stop) is blocked by the next
//!   tick, not inside [`JoinState::on_manifest`]: results that come in the same poll (typically
//!   when the partition is re-read after a restart) still count, so a replay decides as the first
//!   run did whenever its results are at hand. It is decided at once like any other if nothing is
//!   pending or every result is already in.
//! - **Supersede.** A manifest for a newer revision blocks the pending older one (`superseded`).
//!   A manifest for a revision older than one pending or decided, and never decided itself, is
//!   blocked `superseded` at once, so every revision whose manifest is seen gets exactly one
//!   decision. Results for a revision older than one pending or decided are ignored: a
//!   superseded revision needs none.
//! - **Unreadable manifests.** A manifest that cannot be decoded but names its article and
//!   revision blocks that revision at once (`internal_error`), superseding an older pending one,
//!   so its draft is never left undecided.
//! - **Publications.** A manifest names the publication it comes from (the draft's position on
//!   the drafts topic), and results echo it, so a replay is told from a new publication of the
//!   same revision. Decided (article, revision)s are remembered with the content and publication
//!   they were decided on (bounded; see `decided`): a replay of a manifest or result changes
//!   nothing; the same content published again is checked again when its decision was a block
//!   that could not complete ([`crate::events::DecisionReason::is_retryable`]), else only noted
//!   ([`JoinNote`]); other content is decided again. While a revision is in flight, the same
//!   content published again shares its check, and other content replaces it (only the content
//!   published last is decided). Results count only for their own publication or a repeat of
//!   it; a result of a later publication waits for its manifest.
//! - **Split manifests.** A manifest too large for one message comes in parts
//!   ([`crate::events::ManifestPart`]); the article waits for all of them, and a part missing at
//!   the deadline blocks it (`deadline_exceeded`), never a pass on the claims that came.
//! - **Bounded, with back-pressure.** Nothing given to the state is dropped for lack of room;
//!   instead [`JoinState::backpressure`] says which input to pause: manifests when
//!   `join.max_in_flight_articles` articles await results, results when the cap on results
//!   without a manifest is reached. Each input is paused alone, so the other can free room:
//!   results complete the waiting articles, manifests claim the waiting results (pausing all
//!   reading at the cap would leave the results of a full state unread until its deadlines).
//!   When both caps are reached at once, manifests go on being read up to twice the article
//!   cap; only past that are both paused. It can overshoot a cap only by the messages it had
//!   already fetched. Deadlines keep running
//!   while paused, so room always comes back. Results without a manifest are dropped by a tick
//!   once older than [`JoinSettings::orphan_retention`] (counted from the first one's arrival);
//!   if their manifest comes later it is blocked at its deadline, failing closed.
//! - **Offsets.** A message is held while an undecided article keeps what it brought (see
//!   `offsets`). Commit only [`JoinState::commit_watermark`], and only once every decision
//!   returned so far is acknowledged by the broker: then a crash loses nothing, since reading
//!   again from the committed offsets rebuilds every undecided article. A decision made again
//!   after a replay carries the same derived decision id.
//! - **Traces.** Each in-flight article keeps the trace context (`traceparent`) of its manifest,
//!   else of its first result, and every decision about it is returned with it
//!   ([`TracedDecision`]), so a deadline decision, made on no message, is still part of the
//!   article's trace. It is freed with the article.
//! - **Partitions.** The manifest and the results of one article must reach the same join
//!   instance: their two topics (they must differ) are keyed by article and co-partitioned. When
//!   a partition is revoked, [`JoinState::revoke`] drops what it held (and what was decided
//!   there); its new owner reads it again from the committed offset.
//! - **A new owner.** The committed offsets of the manifests and the results partitions move
//!   apart (each never passes the earliest undecided article's messages on its own topic), so a
//!   new owner, after a rebalance or a crash, may read again the manifest of an article already
//!   decided without its results. Before it reads anything of a partition newly assigned, the
//!   caller feeds it every decision of the decisions topic that may concern what it will read
//!   again ([`JoinState::on_past_decision`]): those revisions are then replays, and no revision
//!   is ever decided a second time with another outcome under the same decision id.

mod article;
mod decided;
mod held;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, TimeDelta, Utc};

pub use held::TopicPartition;

use crate::decide::{Strictness, decide_not_checked};
use crate::events::TraceContext;
use crate::events::{ArticleManifest, ClaimResult, Decision, DecisionReason, DraftPosition};
use article::{Orphans, PendingArticle, superseded};
use decided::{Decided, DecidedMemory};
use held::{HeldOffsets, Position};

/// Default number of articles whose decided revisions are remembered against replays.
pub const DEFAULT_REMEMBERED_ARTICLES: usize = 100_000;
/// Default cap on results waiting for their manifest, per in-flight article allowed.
pub const DEFAULT_ORPHAN_RESULTS_PER_ARTICLE: usize = 4;

/// What [`JoinState::backpressure`] asks the caller to stop reading for now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Backpressure {
    /// Pause the manifests topic: no room for another article.
    pub manifests: bool,
    /// Pause the results topic: no room for another result without its manifest.
    pub results: bool,
}

/// The join's limits and policy.
#[derive(Debug, Clone, PartialEq)]
pub struct JoinSettings {
    /// Articles awaiting results at which [`JoinState::backpressure`] pauses manifests.
    pub max_in_flight_articles: usize,
    /// Results without a manifest at which [`JoinState::backpressure`] pauses results.
    pub max_orphan_results: usize,
    /// How long results wait for their manifest before a tick drops them.
    pub orphan_retention: TimeDelta,
    /// Articles whose decided revisions are remembered, least recently decided forgotten first.
    pub remembered_articles: usize,
    pub strictness: Strictness,
}

impl JoinSettings {
    /// Settings from `[join]` (`max_in_flight_articles`, `deadline_ms`) and the policy's
    /// strictness. Results wait for their manifest twice the deadline: past that, the manifest
    /// would be blocked at once anyway.
    pub fn new(max_in_flight_articles: usize, deadline_ms: u64, strictness: Strictness) -> Self {
        let deadline = TimeDelta::milliseconds(i64::try_from(deadline_ms).unwrap_or(i64::MAX));
        Self {
            max_in_flight_articles,
            max_orphan_results: max_in_flight_articles
                .saturating_mul(DEFAULT_ORPHAN_RESULTS_PER_ARTICLE),
            orphan_retention: deadline.checked_mul(2).unwrap_or(TimeDelta::MAX),
            remembered_articles: DEFAULT_REMEMBERED_ARTICLES,
            strictness,
        }
    }
}

/// What the join knows of an (article, revision), for diagnostics and tests. The HTTP endpoint
/// answers from the service's decision board, not from here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArticleStatus {
    /// In flight: a manifest or results are in, no decision yet.
    Pending { revision: u64 },
    /// Not in flight here: never seen, or already decided.
    Unknown,
}

/// A decision and the trace context of the article it decides, when one is known.
#[derive(Debug, Clone, PartialEq)]
pub struct TracedDecision {
    pub decision: Decision,
    /// The `traceparent` the article's manifest (else its first result) carried.
    pub trace: Option<TraceContext>,
}

fn untraced(decisions: Vec<TracedDecision>) -> Vec<Decision> {
    decisions.into_iter().map(|d| d.decision).collect()
}

/// The state of one join task: every undecided (article, revision) of the partitions it reads.
#[derive(Debug)]
pub struct JoinState {
    settings: JoinSettings,
    /// At most one undecided revision with a manifest per article: a newer one supersedes it.
    pending: HashMap<String, PendingArticle>,
    /// Results waiting for their manifest, by (article, revision).
    orphans: BTreeMap<(String, u64), Orphans>,
    orphan_results: usize,
    decided: DecidedMemory,
    offsets: HeldOffsets,
    /// Events for the caller to log and count; see [`JoinState::take_notes`].
    notes: Vec<JoinNote>,
}

/// How a new publication of an (article, revision) seen before is handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Republished {
    /// The same content, decided with a block that says the check could not complete
    /// (`source_unjudgeable`, `deadline_exceeded`, `internal_error`): checked again, and decided
    /// again under the new publication.
    Rechecked,
    /// The same content, already decided otherwise: the decision stands; nothing is checked.
    Acknowledged,
    /// The same content, still being checked: its check answers both publications.
    InFlight,
    /// Other content: decided (again) on the content published last.
    NewContent,
}

impl Republished {
    /// The name used in logs and as the metric label.
    pub fn as_str(self) -> &'static str {
        match self {
            Republished::Rechecked => "rechecked",
            Republished::Acknowledged => "acknowledged",
            Republished::InFlight => "in_flight",
            Republished::NewContent => "new_content",
        }
    }
}

/// Something the join did that its caller logs and counts (the join itself does no I/O).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JoinNote {
    /// A new publication of an (article, revision) seen before.
    Republished {
        article_id: String,
        revision: u64,
        position: Option<DraftPosition>,
        handling: Republished,
    },
}

/// Whether a message of the publication at `position` may come from a publication after
/// `known`'s (so it must wait for its own manifest rather than be dropped). Unknown positions
/// cannot be ordered: only a known, later one counts.
fn later(position: Option<DraftPosition>, known: Option<DraftPosition>) -> bool {
    match (position, known) {
        (Some(p), Some(k)) => p.is_after(&k),
        _ => false,
    }
}

impl JoinState {
    /// An empty state.
    pub fn new(settings: JoinSettings) -> Self {
        let decided = DecidedMemory::new(settings.remembered_articles);
        Self {
            settings,
            pending: HashMap::new(),
            orphans: BTreeMap::new(),
            orphan_results: 0,
            decided,
            offsets: HeldOffsets::default(),
            notes: Vec::new(),
        }
    }

    /// Takes a manifest read at `offset` of `tp`; returns the decisions it makes ready (its own,
    /// and a superseded older revision's).
    pub fn on_manifest(
        &mut self,
        tp: &TopicPartition,
        offset: i64,
        manifest: ArticleManifest,
        now: DateTime<Utc>,
    ) -> Vec<Decision> {
        untraced(self.on_manifest_traced(tp, offset, manifest, None, now))
    }

    /// [`JoinState::on_manifest`] for a manifest whose message carried `trace`: each decision
    /// comes with its article's trace.
    pub fn on_manifest_traced(
        &mut self,
        tp: &TopicPartition,
        offset: i64,
        manifest: ArticleManifest,
        trace: Option<TraceContext>,
        now: DateTime<Utc>,
    ) -> Vec<TracedDecision> {
        let (id, revision) = (manifest.article_id.clone(), manifest.revision);
        let position = manifest.draft_position;
        let at: Position = (tp.clone(), offset);

        // This publication is in flight: a replay, or another part of its manifest.
        if let Some(article) = self.pending.get_mut(&id)
            && article.revision() == revision
            && article.same_publication(&manifest)
        {
            if !article.add_part(manifest, at.clone()) {
                return Vec::new();
            }
            self.offsets.hold(&at);
            self.claim_orphans(&id, revision);
            return self.conclude_if_ready(&id, now).into_iter().collect();
        }

        let mut decisions = Vec::new();
        let mut replaced_in_flight = false;
        if let Some(article) = self.pending.get_mut(&id)
            && article.revision() == revision
        {
            // Another publication of the revision in flight.
            if earlier(position, article.position()) {
                // An older publication read again after a later one (extract replayed its input
                // after a restart): the content published last is the one decided.
                self.drop_orphans_of(&id, revision, position);
                return Vec::new();
            }
            if article.manifest.content_digest == manifest.content_digest {
                // The same content is being checked: its results answer this one too.
                if let Some(p) = position {
                    article.repeats.push(p);
                }
                self.claim_orphans(&id, revision);
                self.note(&id, revision, position, Republished::InFlight);
                return self.conclude_if_ready(&id, now).into_iter().collect();
            }
            // New content for the revision before the old was decided: the content published
            // last is the one decided; the old one gets no decision.
            self.note(&id, revision, position, Republished::NewContent);
            if let Some(older) = self.pending.remove(&id) {
                self.release(&older.held);
            }
            replaced_in_flight = true;
        } else if self.decided.contains(&id, revision) {
            // A new publication of a decided revision: a replay changes nothing; the same
            // content is checked again only when its block said the check could not complete.
            let Some(done) = self.decided.get(&id, revision) else {
                return Vec::new(); // decided long ago (folded into the floor)
            };
            if done.covers(position, Some(&manifest.content_digest))
                || earlier(position, done.position)
            {
                // A replay, or an older publication read again after the one decided: the
                // decision stands on the content published last.
                self.drop_orphans_of(&id, revision, position);
                return Vec::new();
            }
            if done.content_digest == manifest.content_digest && !done.retryable {
                if let Some(done) = self.decided.get_mut(&id, revision) {
                    done.acknowledge(position);
                }
                self.drop_orphans_of(&id, revision, position);
                self.note(&id, revision, position, Republished::Acknowledged);
                return Vec::new();
            }
            let handling = if done.content_digest == manifest.content_digest {
                Republished::Rechecked
            } else {
                Republished::NewContent
            };
            self.note(&id, revision, position, handling);
        }

        let newest_other = self
            .pending
            .get(&id)
            .map(PendingArticle::revision)
            .into_iter()
            .chain(self.decided.highest(&id))
            .filter(|r| *r != revision)
            .max();
        if let Some(newer) = newest_other.filter(|n| *n > revision) {
            // An older revision published after a newer one: blocked at once, so every
            // publication seen gets its decision.
            let decision = superseded(&manifest, newer, now);
            self.remember(&manifest, decision.is_retryable(), Vec::new(), tp);
            decisions.push(TracedDecision { decision, trace });
            self.drop_orphans(&id, ..=revision);
            return decisions;
        }
        if !replaced_in_flight {
            decisions.extend(self.supersede_pending(&id, revision, now));
        }
        self.drop_orphans(&id, ..revision);

        self.offsets.hold(&at);
        let mut article = PendingArticle::new(manifest, at);
        article.trace = trace;
        if article.trace.is_none()
            && let Some(orphans) = self.orphans.get(&(id.clone(), revision))
        {
            article.trace.clone_from(&orphans.trace);
        }
        self.pending.insert(id.clone(), article);
        self.claim_orphans(&id, revision);
        decisions.extend(self.conclude_if_ready(&id, now));
        decisions
    }

    /// Offers the results of (`article_id`, `revision`) waiting for their manifest to its pending
    /// article: those of its publication (or a repeat of it) are taken, those of a later
    /// publication keep waiting, the rest are dropped.
    fn claim_orphans(&mut self, article_id: &str, revision: u64) {
        let key = (article_id.to_owned(), revision);
        let Some(article) = self.pending.get_mut(article_id) else {
            return;
        };
        let Some(mut group) = self.orphans.remove(&key) else {
            return;
        };
        self.orphan_results -= group.results.len();
        let mut waiting = Vec::new();
        for (result, at) in std::mem::take(&mut group.results) {
            if article.accepts(result.draft_position) {
                match article.offer(result, at.clone()) {
                    Ok(()) => {}
                    // Perhaps a check of a part still to come.
                    Err(result) if article.missing_parts() > 0 => waiting.push((*result, at)),
                    Err(_) => self.offsets.release(&at),
                }
            } else if later(result.draft_position, article.position()) {
                waiting.push((result, at));
            } else {
                self.offsets.release(&at);
            }
        }
        if !waiting.is_empty() {
            let mut kept = Orphans::new(group.first_seen);
            kept.trace = group.trace.take();
            for (result, at) in waiting {
                if kept.add(result, at.clone()) {
                    self.orphan_results += 1;
                } else {
                    self.offsets.release(&at);
                }
            }
            self.orphans.insert(key, kept);
        }
    }

    /// Decides the pending article of `article_id` if it is ready.
    fn conclude_if_ready(
        &mut self,
        article_id: &str,
        now: DateTime<Utc>,
    ) -> Option<TracedDecision> {
        if !self.pending.get(article_id)?.is_ready() {
            return None;
        }
        let article = self.pending.remove(article_id)?;
        Some(self.conclude(article, now))
    }

    /// Records a new publication of a revision seen before, for the caller to log and count.
    fn note(
        &mut self,
        article_id: &str,
        revision: u64,
        position: Option<DraftPosition>,
        handling: Republished,
    ) {
        self.notes.push(JoinNote::Republished {
            article_id: article_id.to_owned(),
            revision,
            position,
            handling,
        });
    }

    /// What happened since the last call that the caller should log and count.
    pub fn take_notes(&mut self) -> Vec<JoinNote> {
        std::mem::take(&mut self.notes)
    }

    /// Takes a manifest that could not be decoded, of `article_id` at `revision` (both recovered
    /// from it), and blocks that revision at once as an internal error: its checks are unknown,
    /// so there is nothing to wait for, and skipping it would leave the draft undecided forever.
    /// Like a readable manifest it supersedes an older pending revision and is remembered against
    /// replays; it is ignored if the revision is decided or pending already. Without a revision
    /// the block names none and nothing is remembered. `content_digest` is the message's, so a
    /// replay carries the same decision id.
    pub fn on_unreadable_manifest_traced(
        &mut self,
        article_id: &str,
        revision: Option<u64>,
        content_digest: &str,
        error: &str,
        trace: Option<TraceContext>,
        now: DateTime<Utc>,
    ) -> Vec<TracedDecision> {
        let block = |revision| TracedDecision {
            decision: decide_not_checked(
                article_id,
                revision,
                content_digest,
                DecisionReason::InternalError,
                &format!("the article's manifest could not be read: {error}"),
                None,
                now,
            ),
            trace,
        };
        let Some(revision) = revision else {
            return vec![block(None)];
        };
        if self.decided.contains(article_id, revision) {
            return Vec::new();
        }
        let mut decisions = Vec::new();
        match self.pending.get(article_id).map(PendingArticle::revision) {
            Some(pending) if pending == revision => return decisions,
            Some(pending) if pending < revision => {
                decisions.extend(self.supersede_pending(article_id, revision, now));
            }
            _ => {}
        }
        decisions.push(block(Some(revision)));
        let decided = Decided {
            content_digest: content_digest.to_owned(),
            position: None,
            retryable: true,
            repeats: Vec::new(),
        };
        self.decided.insert(article_id, revision, decided, None);
        self.drop_orphans(article_id, ..=revision);
        decisions
    }

    /// Takes a claim result read at `offset` of `tp`; returns the decision it completes, if any.
    pub fn on_result(
        &mut self,
        tp: &TopicPartition,
        offset: i64,
        result: ClaimResult,
        now: DateTime<Utc>,
    ) -> Vec<Decision> {
        untraced(self.on_result_traced(tp, offset, result, None, now))
    }

    /// [`JoinState::on_result`] for a result whose message carried `trace`: the decision comes
    /// with its article's trace (the manifest's when it had one).
    pub fn on_result_traced(
        &mut self,
        tp: &TopicPartition,
        offset: i64,
        result: ClaimResult,
        trace: Option<TraceContext>,
        now: DateTime<Utc>,
    ) -> Vec<TracedDecision> {
        let (id, revision, position) = (
            result.article_id.clone(),
            result.revision,
            result.draft_position,
        );
        if self.decided.highest(&id).is_some_and(|h| h > revision) {
            return Vec::new();
        }
        if self.decided.contains(&id, revision) {
            match self.decided.get(&id, revision) {
                // Of the publication decided or a repeat acknowledged: a replay.
                Some(done) if done.covers(position, None) => return Vec::new(),
                // Of a later publication whose manifest has not come yet: it waits below.
                Some(done) if later(position, done.position) => {}
                _ => return Vec::new(),
            }
        }
        let at: Position = (tp.clone(), offset);
        let mut result = result;
        if let Some(article) = self.pending.get_mut(&id) {
            if revision < article.revision() {
                return Vec::new();
            }
            if revision == article.revision() {
                if article.accepts(position) {
                    match article.offer(result, at.clone()) {
                        Ok(()) => {
                            self.offsets.hold(&at);
                            article.trace = article.trace.take().or(trace);
                            return self.conclude_if_ready(&id, now).into_iter().collect();
                        }
                        // Perhaps a check of a part of the manifest still to come: it waits.
                        Err(refused) if article.missing_parts() > 0 => result = *refused,
                        Err(_) => return Vec::new(),
                    }
                } else if !later(position, article.position()) {
                    return Vec::new();
                }
            }
        }
        let orphans = self
            .orphans
            .entry((id, revision))
            .or_insert_with(|| Orphans::new(now));
        if orphans.add(result, at.clone()) {
            orphans.trace = orphans.trace.take().or(trace);
            self.offsets.hold(&at);
            self.orphan_results += 1;
        }
        Vec::new()
    }

    /// Blocks every article whose deadline is at or before `now` (`deadline_exceeded`, listing
    /// the unfinished checks) and drops results that waited for their manifest longer than the
    /// retention. Returns the decisions, earliest deadline first.
    pub fn on_tick(&mut self, now: DateTime<Utc>) -> Vec<Decision> {
        untraced(self.on_tick_traced(now))
    }

    /// [`JoinState::on_tick`], each decision with its article's trace.
    pub fn on_tick_traced(&mut self, now: DateTime<Utc>) -> Vec<TracedDecision> {
        let mut due: Vec<(DateTime<Utc>, String)> = self
            .pending
            .iter()
            .filter(|(_, a)| a.deadline() <= now)
            .map(|(id, a)| (a.deadline(), id.clone()))
            .collect();
        due.sort();
        let mut decisions = Vec::with_capacity(due.len());
        for (_, id) in due {
            if let Some(article) = self.pending.remove(&id) {
                decisions.push(self.conclude(article, now));
            }
        }
        let retention = self.settings.orphan_retention;
        let stale: Vec<(String, u64)> = self
            .orphans
            .iter()
            .filter(|(_, o)| o.first_seen + retention <= now)
            .map(|(key, _)| key.clone())
            .collect();
        for key in stale {
            self.drop_orphan_group(&key);
        }
        decisions
    }

    /// The offset safe to commit for (`topic`, `partition`), given that every message of it up to
    /// `consumed_up_to` was fed to this state: the lowest offset still held by an undecided
    /// article, or `consumed_up_to + 1` when none is. `None` when nothing was consumed
    /// (`consumed_up_to < 0`). Commit it only once every decision returned so far is
    /// acknowledged.
    pub fn commit_watermark(
        &self,
        topic: &str,
        partition: i32,
        consumed_up_to: i64,
    ) -> Option<i64> {
        self.offsets
            .watermark(&TopicPartition::new(topic, partition), consumed_up_to)
    }

    /// Which inputs the caller should pause: manifests while the articles awaiting results are
    /// at `max_in_flight_articles` (results go on being read, so those articles can complete
    /// and make room), results while the results waiting for a manifest are at their cap
    /// (manifests go on being read, so they can claim those results).
    ///
    /// Both caps can be reached at once: the waiting articles' results sit behind results whose
    /// manifests are not read yet. Pausing both would stop all reading until deadlines blocked
    /// the waiting articles, so then manifests go on being read, up to twice the article cap
    /// ([`JoinState::article_ceiling`]): a manifest read claims the results held for it, which
    /// frees the results input. Only past that ceiling are both paused, and ticks (deadlines,
    /// the orphans' retention) make room.
    pub fn backpressure(&self) -> Backpressure {
        let results = self.orphan_results >= self.settings.max_orphan_results;
        let cap = if results {
            self.article_ceiling()
        } else {
            self.settings.max_in_flight_articles
        };
        Backpressure {
            manifests: self.pending.len() >= cap,
            results,
        }
    }

    /// The most articles awaiting results the join reads manifests for: twice
    /// `max_in_flight_articles`, reached only while results are paused as well.
    pub fn article_ceiling(&self) -> usize {
        self.settings.max_in_flight_articles.saturating_mul(2)
    }

    /// Undecided (article, revision)s: pending articles plus revisions with results but no
    /// manifest yet.
    pub fn in_flight(&self) -> usize {
        self.pending.len() + self.orphans.len()
    }

    /// Articles whose manifest is in and which await results.
    pub fn awaiting_results(&self) -> usize {
        self.pending.len()
    }

    /// Results held while waiting for their manifest.
    pub fn orphan_results(&self) -> usize {
        self.orphan_results
    }

    /// Articles whose decided revisions are remembered against replays.
    pub fn remembered_articles(&self) -> usize {
        self.decided.len()
    }

    /// The revision of `article_id` pending here: the one whose manifest is in, else the newest
    /// with results waiting for their manifest.
    pub fn pending_of(&self, article_id: &str) -> Option<u64> {
        self.pending
            .get(article_id)
            .map(PendingArticle::revision)
            .or_else(|| self.orphan_revisions(article_id).last())
    }

    /// Whether (`article_id`, `revision`) is in flight here; with no revision, whether any
    /// revision of the article is.
    pub fn status(&self, article_id: &str, revision: Option<u64>) -> ArticleStatus {
        let found = match revision {
            None => self.pending_of(article_id),
            Some(r) => {
                let with_manifest = self.pending.get(article_id).map(PendingArticle::revision);
                (with_manifest == Some(r) || self.orphans.contains_key(&(article_id.to_owned(), r)))
                    .then_some(r)
            }
        };
        found.map_or(ArticleStatus::Unknown, |revision| ArticleStatus::Pending {
            revision,
        })
    }

    /// Takes a decision read back from the decisions topic, made by this instance or another
    /// (the article's previous owner, before a rebalance or a crash): its revision counts as
    /// decided on that content and publication, as if this state had made it. Feed every
    /// decision that may concern a message about to be read again, before reading it: a
    /// manifest or result read again then changes nothing, and a revision is never decided a
    /// second time with another outcome under the same decision id. A pending article the
    /// decision answers is dropped without a decision of its own. Decisions of re-check runs
    /// and without a revision are ignored. Returns whether the decision was taken.
    pub fn on_past_decision(&mut self, decision: &Decision) -> bool {
        let Some(revision) = decision.revision else {
            return false;
        };
        if decision.run_id.is_some() {
            return false;
        }
        let id = decision.article_id.as_str();
        let digest = decision.content_digest.clone().unwrap_or_default();
        if let Some(article) = self.pending.get(id)
            && article.revision() <= revision
        {
            // Decided elsewhere: this revision, or an older one a newer decision supersedes.
            if let Some(article) = self.pending.remove(id) {
                self.release(&article.held);
            }
        }
        let mut decided = Decided {
            content_digest: digest,
            position: decision.draft_position,
            retryable: decision.is_retryable(),
            repeats: Vec::new(),
        };
        if let Some(known) = self.decided.get(id, revision)
            && known.content_digest == decided.content_digest
            && known.position == decided.position
        {
            decided.repeats.clone_from(&known.repeats);
        }
        self.decided.insert(id, revision, decided, None);
        // Results waiting for a manifest of this revision or an older one are not needed.
        let keep_later = decision.draft_position;
        self.drop_orphans(id, ..revision);
        self.drop_orphans_of(id, revision, keep_later);
        true
    }

    /// Forgets every undecided article that holds a message of `tp`, after the partition was
    /// revoked: its new owner rebuilds them by reading again. Returns how many were dropped.
    pub fn revoke(&mut self, tp: &TopicPartition) -> usize {
        let holds = |held: &[Position]| held.iter().any(|(t, _)| t == tp);
        let articles: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, a)| holds(&a.held))
            .map(|(id, _)| id.clone())
            .collect();
        let groups: Vec<(String, u64)> = self
            .orphans
            .iter()
            .filter(|(_, o)| o.results.iter().any(|(_, (t, _))| t == tp))
            .map(|(key, _)| key.clone())
            .collect();
        let dropped = articles.len() + groups.len();
        for id in articles {
            if let Some(article) = self.pending.remove(&id) {
                self.release(&article.held);
            }
        }
        for key in groups {
            self.drop_orphan_group(&key);
        }
        self.decided.forget_partition(tp);
        self.decided.forget_unplaced();
        dropped
    }

    /// Decides `article` with what it has, records it decided and releases its messages.
    fn conclude(&mut self, article: PendingArticle, now: DateTime<Utc>) -> TracedDecision {
        let decision = article.decide(self.settings.strictness, now);
        let retryable = decision.is_retryable();
        let decision = TracedDecision {
            decision,
            trace: article.trace.clone(),
        };
        self.finish(article, retryable);
        decision
    }

    /// Blocks the pending revision of `article_id`, if any, as superseded by `newer`.
    fn supersede_pending(
        &mut self,
        article_id: &str,
        newer: u64,
        now: DateTime<Utc>,
    ) -> Option<TracedDecision> {
        let older = self.pending.remove(article_id)?;
        let decision = TracedDecision {
            decision: superseded(&older.manifest, newer, now),
            trace: older.trace.clone(),
        };
        self.finish(older, false);
        Some(decision)
    }

    /// Records a decided article and releases its messages.
    fn finish(&mut self, article: PendingArticle, retryable: bool) {
        let partition = article.held.first().map(|(tp, _)| tp.clone());
        self.decided.insert(
            &article.manifest.article_id,
            article.revision(),
            Decided {
                content_digest: article.manifest.content_digest.clone(),
                position: article.position(),
                retryable,
                repeats: article.repeats.clone(),
            },
            partition.as_ref(),
        );
        self.release(&article.held);
    }

    /// Records `manifest`'s revision decided without it ever being pending.
    fn remember(
        &mut self,
        manifest: &ArticleManifest,
        retryable: bool,
        repeats: Vec<DraftPosition>,
        tp: &TopicPartition,
    ) {
        self.decided.insert(
            &manifest.article_id,
            manifest.revision,
            Decided {
                content_digest: manifest.content_digest.clone(),
                position: manifest.draft_position,
                retryable,
                repeats,
            },
            Some(tp),
        );
    }

    /// Drops the results of (`article_id`, `revision`) of the publication at `position` waiting
    /// for a manifest: it was acknowledged without a check, so they are not needed.
    fn drop_orphans_of(
        &mut self,
        article_id: &str,
        revision: u64,
        position: Option<DraftPosition>,
    ) {
        let key = (article_id.to_owned(), revision);
        let Some(group) = self.orphans.get_mut(&key) else {
            return;
        };
        let (drop, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut group.results)
            .into_iter()
            .partition(|(r, _)| position.is_none() || r.draft_position == position);
        let mut kept = Orphans::new(group.first_seen);
        kept.trace = group.trace.take();
        self.orphan_results -= drop.len() + keep.len();
        for (_, at) in &drop {
            self.offsets.release(at);
        }
        for (result, at) in keep {
            if kept.add(result, at.clone()) {
                self.orphan_results += 1;
            } else {
                self.offsets.release(&at);
            }
        }
        if kept.results.is_empty() {
            self.orphans.remove(&key);
        } else {
            self.orphans.insert(key, kept);
        }
    }

    fn release(&mut self, held: &[Position]) {
        for at in held {
            self.offsets.release(at);
        }
    }

    fn orphan_revisions<'a>(
        &'a self,
        article_id: &'a str,
    ) -> impl DoubleEndedIterator<Item = u64> + 'a {
        self.orphans
            .range((article_id.to_owned(), 0)..=(article_id.to_owned(), u64::MAX))
            .map(|((_, revision), _)| *revision)
    }

    /// Drops the results of `article_id` waiting for a manifest of a revision in `revisions`.
    fn drop_orphans(&mut self, article_id: &str, revisions: impl std::ops::RangeBounds<u64>) {
        let stale: Vec<u64> = self
            .orphan_revisions(article_id)
            .filter(|r| revisions.contains(r))
            .collect();
        for revision in stale {
            self.drop_orphan_group(&(article_id.to_owned(), revision));
        }
    }

    fn drop_orphan_group(&mut self, key: &(String, u64)) {
        if let Some(group) = self.orphans.remove(key) {
            self.orphan_results -= group.results.len();
            for (_, at) in &group.results {
                self.offsets.release(at);
            }
        }
    }
}

/// Whether the publication at `position` came before `known` on the same partition of the
/// drafts topic (one article's drafts share a partition, so their order there is the CMS's).
fn earlier(position: Option<DraftPosition>, known: Option<DraftPosition>) -> bool {
    matches!(
        (position, known),
        (Some(p), Some(k)) if p.partition == k.partition && p.offset < k.offset
    )
}
