//! The decision board: the newest decisions and drafts, by article, that the HTTP endpoints answer
//! from ([`crate::http`]), and its feeder ([`feed`]), the consumer every process runs to read
//! drafts and decisions into it, so any instance can answer for any article.

mod feed;

pub use feed::{FeedError, feed};

use chrono::{DateTime, Utc};
use factgate_core::events::{Decision, DecisionReason, DraftEvent, DraftPosition, Outcome};
use factgate_core::extract::ExtractLimits;
use factgate_core::model::BodyFormat;
use factgate_core::roles::{Known, later_or_unknown, replaces};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// What the board knows of one revision.
#[derive(Debug, Clone, PartialEq)]
pub enum RevisionState {
    /// The draft was seen; no decision yet.
    Pending,
    Decided(Box<Decision>),
}

/// Decisions and in-flight drafts by article, bounded. Cheap to clone (shared).
#[derive(Debug, Clone)]
pub struct DecisionBoard {
    inner: Arc<Mutex<Board>>,
}

/// One revision on the board: its state, and which publication of it (position on the drafts
/// topic, content digest) that state is about, when known.
#[derive(Debug, Clone)]
struct Slot {
    state: HeldState,
    position: Option<DraftPosition>,
    digest: Option<String>,
}

/// What the board holds of one revision: pending, or decided.
#[derive(Debug, Clone)]
enum HeldState {
    Pending,
    Decided(HeldDecision),
}

/// A decision as the board holds it: the decision as JSON (what its budget counts, parsed again,
/// outside the board's lock, when a page or the API asks for it), and beside it what the desk's
/// figures read of every decision.
#[derive(Debug, Clone)]
struct HeldDecision {
    summary: DecisionSummary,
    json: Arc<[u8]>,
}

/// What the desk reads of every decision held, without parsing it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DecisionSummary {
    pub(crate) outcome: Outcome,
    pub(crate) decided_at: DateTime<Utc>,
    pub(crate) reasons: Box<[DecisionReason]>,
    pub(crate) decision_id: Box<str>,
    /// Whether the decision answers an editor's override.
    pub(crate) overridden: bool,
    /// Findings waived in it (by overrides).
    pub(crate) waived: u32,
}

impl HeldDecision {
    /// `decision` held as `json`, which must be `decision` as JSON: written from it, or what it
    /// was read from.
    fn new(decision: &Decision, json: Arc<[u8]>) -> HeldDecision {
        HeldDecision {
            summary: DecisionSummary {
                outcome: decision.outcome,
                decided_at: decision.decided_at,
                reasons: decision.reasons.clone().into_boxed_slice(),
                decision_id: decision.decision_id.clone().into_boxed_str(),
                overridden: decision.override_applied.is_some(),
                waived: u32::try_from(decision.report.waived.len()).unwrap_or(u32::MAX),
            },
            json,
        }
    }

    /// The decision again. Its JSON is the decision written or read, so it reads back.
    fn decision(&self) -> Option<Decision> {
        match serde_json::from_slice(&self.json) {
            Ok(decision) => Some(decision),
            Err(err) => {
                crate::internal_events::board_decision_unreadable(&err);
                None
            }
        }
    }
}

impl Slot {
    /// What the slot weighs toward [`BOARD_DECISION_BYTES`]: its decision's size as JSON.
    fn bytes(&self) -> usize {
        match &self.state {
            HeldState::Decided(held) => held.json.len(),
            HeldState::Pending => 0,
        }
    }
}

impl HeldState {
    fn summary(&self) -> Option<&DecisionSummary> {
        match self {
            HeldState::Decided(held) => Some(&held.summary),
            HeldState::Pending => None,
        }
    }

    fn revision_state(&self) -> Option<RevisionState> {
        Some(match self {
            HeldState::Pending => RevisionState::Pending,
            HeldState::Decided(held) => RevisionState::Decided(Box::new(held.decision()?)),
        })
    }
}

/// The default of `http.page_body_bytes` (see [`crate::config::DEFAULT_PAGE_BODY_BYTES`]).
pub const BOARD_BODY_BYTES: usize = crate::config::DEFAULT_PAGE_BODY_BYTES;

/// Characters of a draft's title and section kept for the pages.
const MAX_LABEL_CHARS: usize = 300;

/// What the board keeps of an article's newest draft for the pages: its title and section.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArticleLabels {
    pub title: Option<String>,
    pub section: Option<String>,
}

/// A draft body held for the pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldBody {
    pub body: Arc<str>,
    pub format: BodyFormat,
}

/// The default of `http.decision_bytes`: bytes of decisions (as JSON) the board holds; past them
/// the oldest articles are forgotten, as past its article count. A report runs to a few KiB, so
/// the count alone (100,000 articles) could hold hundreds of MiB. A forgotten article's decision
/// stays on the decisions topic.
pub const BOARD_DECISION_BYTES: usize = crate::config::DEFAULT_DECISION_BYTES;

#[derive(Debug)]
pub(super) struct Board {
    capacity: usize,
    /// Bytes of the decisions held, and the most to hold.
    pub(super) decision_bytes: usize,
    decision_budget: usize,
    /// Slots are boxed: most articles have one revision, and a map's first node has room for
    /// eleven values, so inline slots would weigh about 1 KiB per article.
    articles: HashMap<String, BTreeMap<u64, Box<Slot>>>,
    /// Articles in the order first seen, oldest first, for eviction.
    order: VecDeque<String>,
    labels: HashMap<String, ArticleLabels>,
    /// Each body with the number it was held under (see `body_order`).
    pub(super) bodies: HashMap<(String, u64), (u64, HeldBody)>,
    /// Bodies in the order received, oldest first, for eviction, each with the number it was
    /// held under. A body forgotten or replaced leaves its entry behind, told apart by its
    /// number and dropped when reached or when such entries outnumber the bodies held: forgetting
    /// an article costs no walk over every body.
    pub(super) body_order: VecDeque<((String, u64), u64)>,
    /// The number the next body is held under.
    next_body: u64,
    pub(super) body_bytes: usize,
    body_budget: usize,
    /// The extraction limits of the drafts: a body over one is never held (its page would
    /// parse it again).
    limits: ExtractLimits,
    /// Drafts read lately that could not be read, newest last: where, why, when.
    unreadable: VecDeque<(String, String, DateTime<Utc>)>,
}

/// Unreadable drafts the desk lists, at most.
pub const BOARD_UNREADABLE: usize = 50;

impl DecisionBoard {
    /// A board remembering at most `capacity` articles (at least one).
    pub fn new(capacity: usize) -> DecisionBoard {
        DecisionBoard::with_body_budget(capacity, BOARD_BODY_BYTES)
    }

    /// A board remembering at most `capacity` articles and `body_bytes` bytes of draft bodies.
    pub fn with_body_budget(capacity: usize, body_bytes: usize) -> DecisionBoard {
        DecisionBoard {
            inner: Arc::new(Mutex::new(Board {
                capacity: capacity.max(1),
                decision_bytes: 0,
                decision_budget: BOARD_DECISION_BYTES,
                articles: HashMap::new(),
                order: VecDeque::new(),
                labels: HashMap::new(),
                bodies: HashMap::new(),
                body_order: VecDeque::new(),
                next_body: 0,
                body_bytes: 0,
                body_budget: body_bytes,
                limits: ExtractLimits::default(),
                unreadable: VecDeque::new(),
            })),
        }
    }

    /// The board, holding decisions up to `bytes` (as JSON) rather than [`BOARD_DECISION_BYTES`].
    pub fn with_decision_budget(self, bytes: usize) -> DecisionBoard {
        self.with(|b| b.decision_budget = bytes);
        self
    }

    /// The board, holding only bodies within `limits` (the configuration's `extract` limits):
    /// a page parses its body again, so a body extraction refused is not held.
    pub fn with_extract_limits(self, limits: ExtractLimits) -> DecisionBoard {
        self.with(|b| b.limits = limits);
        self
    }

    /// A draft was read in full: pending as [`note_draft`](Self::note_draft), and its title,
    /// section and body are kept for the pages (the body within the board's byte budget).
    pub fn note_draft_event(&self, draft: &DraftEvent, position: Option<DraftPosition>) {
        self.note_publication(
            &draft.article_id,
            draft.revision,
            position,
            Some(draft.content_digest()),
        );
        let label = |s: &Option<String>| {
            s.as_deref()
                .map(|t| t.chars().take(MAX_LABEL_CHARS).collect::<String>())
                .filter(|t| !t.trim().is_empty())
        };
        let limits = self.with(|b| b.limits);
        // Checked outside the lock: a scan of the whole body.
        let holdable =
            factgate_core::extract::within_parse_limits(&draft.body, draft.body_format, &limits)
                .is_ok();
        self.with(|b| {
            let newest = b
                .articles
                .get(&draft.article_id)
                .and_then(|r| r.keys().next_back())
                .is_none_or(|newest| *newest <= draft.revision);
            if newest {
                b.labels.insert(
                    draft.article_id.clone(),
                    ArticleLabels {
                        title: label(&draft.title),
                        section: label(&draft.section),
                    },
                );
            }
            b.hold_body(
                &draft.article_id,
                draft.revision,
                holdable.then_some(draft.body.as_str()),
                draft.body_format,
            );
        });
    }

    /// A draft could not be read: the desk lists where it was and why (the error shortened),
    /// the newest [`BOARD_UNREADABLE`].
    pub fn note_unreadable(&self, at: &str, error: &str) {
        let error: String = error.chars().take(MAX_LABEL_CHARS).collect();
        self.with(|b| {
            if b.unreadable.len() >= BOARD_UNREADABLE {
                b.unreadable.pop_front();
            }
            b.unreadable.push_back((at.to_owned(), error, Utc::now()));
        });
    }

    /// The unreadable drafts noted, newest first.
    pub fn unreadable(&self) -> Vec<(String, String, DateTime<Utc>)> {
        self.with(|b| b.unreadable.iter().rev().cloned().collect())
    }

    /// The title and section of the article's newest draft seen.
    pub fn labels(&self, article_id: &str) -> ArticleLabels {
        self.with(|b| b.labels.get(article_id).cloned().unwrap_or_default())
    }

    /// The body of `revision` of `article_id`, while the board holds it.
    pub fn body(&self, article_id: &str, revision: u64) -> Option<HeldBody> {
        self.with(|b| {
            b.bodies
                .get(&(article_id.to_owned(), revision))
                .map(|(_, held)| held.clone())
        })
    }

    /// The decision on the newest revision before `revision` that has one.
    pub fn previous_decision(&self, article_id: &str, revision: u64) -> Option<Decision> {
        self.with(|b| {
            b.articles
                .get(article_id)?
                .range(..revision)
                .rev()
                .find_map(|(_, slot)| match &slot.state {
                    HeldState::Decided(held) => Some(held.clone()),
                    HeldState::Pending => None,
                })
        })?
        .decision()
    }

    /// Calls `f` with every article's revisions (oldest first; `None` while pending) and labels,
    /// under the board's lock: keep it short.
    pub(crate) fn for_each(
        &self,
        mut f: impl FnMut(&str, &[(u64, Option<&DecisionSummary>)], Option<&ArticleLabels>),
    ) {
        self.with(|b| {
            for (id, revisions) in &b.articles {
                let states: Vec<(u64, Option<&DecisionSummary>)> = revisions
                    .iter()
                    .map(|(revision, slot)| (*revision, slot.state.summary()))
                    .collect();
                f(id, &states, b.labels.get(id));
            }
        });
    }

    pub(super) fn with<T>(&self, f: impl FnOnce(&mut Board) -> T) -> T {
        // A panic while holding the lock leaves plain data behind; keep serving it.
        let mut board = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut board)
    }

    /// A draft revision was published: pending until its decision arrives. A decision that
    /// arrived first (replays, ordering across topics) is kept.
    pub fn note_draft(&self, article_id: &str, revision: u64) {
        self.note_publication(article_id, revision, None, None);
    }

    /// A draft revision was published at `position` with content `digest`. It is pending until
    /// its decision arrives; a revision already decided on other content becomes pending again
    /// (its new content is being checked, so the old decision no longer answers for it), while
    /// the same content published again leaves the decision in place.
    pub fn note_publication(
        &self,
        article_id: &str,
        revision: u64,
        position: Option<DraftPosition>,
        digest: Option<String>,
    ) {
        self.with(|b| {
            let revisions = b.entry(article_id);
            let pending = Slot {
                state: HeldState::Pending,
                position,
                digest: digest.clone(),
            };
            let Some(slot) = revisions.get_mut(&revision) else {
                revisions.insert(revision, Box::new(pending));
                return;
            };
            let new_content = match (&slot.digest, &digest) {
                (Some(known), Some(new)) => known != new,
                _ => false,
            };
            if new_content && later_or_unknown(position, slot.position) {
                let freed = std::mem::replace(&mut **slot, pending).bytes();
                b.decision_bytes -= freed;
            }
        });
    }

    /// A decision was made. A decision without a revision (an unreadable draft) is kept under
    /// revision 0 only if nothing else is known of the article. For a revision already known:
    /// - a decision on a later publication (a retry, corrected content) replaces the one before;
    ///   one on an earlier publication (a replay arriving late) does not;
    /// - a second decision on the same publication (a replay decided again, after a restart, on
    ///   results the first run lacked) never turns a block into a pass;
    /// - a revision pending on new content is not answered by a decision on older content.
    pub fn record(&self, decision: Decision) {
        let json = Arc::from(factgate_core::events::to_json(&decision));
        self.hold(decision, json);
    }

    /// [`DecisionBoard::record`] for a decision read from the decisions topic: held as the JSON
    /// it was read from, not written again.
    pub fn record_read(&self, decision: Decision, json: &[u8]) {
        self.hold(decision, Arc::from(json));
    }

    /// Records `decision`, held as `json`, built outside the board's lock.
    fn hold(&self, decision: Decision, json: Arc<[u8]>) {
        let held = HeldDecision::new(&decision, json);
        self.with(|b| {
            let revisions = b.entry(&decision.article_id);
            let revision = match decision.revision {
                Some(r) => r,
                None if revisions.is_empty() => 0,
                None => return,
            };
            if let Some(slot) = revisions.get(&revision) {
                let known = match &slot.state {
                    HeldState::Decided(known) => Known::Decided {
                        outcome: known.summary.outcome,
                        position: slot.position,
                        decision_id: &known.summary.decision_id,
                        overridden: known.summary.overridden,
                    },
                    HeldState::Pending => Known::Pending {
                        position: slot.position,
                        digest: slot.digest.as_deref(),
                    },
                };
                if !replaces(known, &decision) {
                    return;
                }
            }
            let slot = Slot {
                position: decision.draft_position,
                digest: decision.content_digest,
                state: HeldState::Decided(held),
            };
            let bytes = slot.bytes();
            let article_id = decision.article_id;
            let freed = revisions
                .insert(revision, Box::new(slot))
                .map_or(0, |old| old.bytes());
            b.decision_bytes = b.decision_bytes - freed + bytes;
            b.forget_past_decision_budget(&article_id);
        });
    }

    /// The state of `revision` of `article_id`, or of its newest revision when `None`.
    pub fn lookup(&self, article_id: &str, revision: Option<u64>) -> Option<(u64, RevisionState)> {
        let (rev, state) = self.with(|b| {
            let revisions = b.articles.get(article_id)?;
            let (rev, slot) = match revision {
                Some(r) => (r, revisions.get(&r)?),
                None => revisions.iter().next_back().map(|(r, s)| (*r, s))?,
            };
            Some((rev, slot.state.clone()))
        })?;
        Some((rev, state.revision_state()?))
    }
}

impl Board {
    /// Holds `body` for the revision's page (`None`: a body not to hold, over the extraction
    /// limits), replacing what was held for it.
    fn hold_body(
        &mut self,
        article_id: &str,
        revision: u64,
        body: Option<&str>,
        format: BodyFormat,
    ) {
        let key = (article_id.to_owned(), revision);
        // A revision published again with other content: the page shows what was published last.
        self.drop_body(&key);
        let Some(body) = body.filter(|b| b.len() <= self.body_budget) else {
            return;
        };
        while self.body_bytes + body.len() > self.body_budget {
            let Some((oldest, number)) = self.body_order.pop_front() else {
                break;
            };
            if self.bodies.get(&oldest).is_some_and(|(n, _)| *n == number) {
                self.drop_body(&oldest);
            }
        }
        let number = self.next_body;
        self.next_body += 1;
        self.body_bytes += body.len();
        self.body_order.push_back((key.clone(), number));
        self.bodies.insert(
            key,
            (
                number,
                HeldBody {
                    body: Arc::from(body),
                    format,
                },
            ),
        );
    }

    /// Drops the body held for `key`, if any. Its entry in `body_order` stays until reached, or
    /// until such entries outnumber the bodies held, when they are swept in one pass: each
    /// entry is swept at most once, so holding and dropping stay O(1) amortized.
    fn drop_body(&mut self, key: &(String, u64)) {
        if let Some((_, held)) = self.bodies.remove(key) {
            self.body_bytes -= held.body.len();
        }
        if self.body_order.len() > 2 * self.bodies.len() + 16 {
            let bodies = &self.bodies;
            self.body_order
                .retain(|(key, number)| bodies.get(key).is_some_and(|(n, _)| n == number));
        }
    }

    fn entry(&mut self, article_id: &str) -> &mut BTreeMap<u64, Box<Slot>> {
        if !self.articles.contains_key(article_id) {
            while self.articles.len() >= self.capacity && self.forget_oldest() {}
            self.order.push_back(article_id.to_owned());
        }
        self.articles.entry(article_id.to_owned()).or_default()
    }

    /// Forgets the oldest articles while the decisions held weigh more than their budget, never
    /// `decided`, the article whose decision was just recorded (whatever it weighs): it moves
    /// behind the others instead, as the article decided last.
    fn forget_past_decision_budget(&mut self, decided: &str) {
        while self.decision_bytes > self.decision_budget && self.order.len() > 1 {
            if self.order.front().is_some_and(|oldest| oldest == decided) {
                self.order.rotate_left(1);
            }
            self.forget_oldest();
        }
    }

    /// Forgets the oldest article, its decisions, labels and bodies; false when none is left.
    fn forget_oldest(&mut self) -> bool {
        let Some(oldest) = self.order.pop_front() else {
            return false;
        };
        if let Some(revisions) = self.articles.remove(&oldest) {
            for (revision, slot) in &revisions {
                self.decision_bytes -= slot.bytes();
                self.drop_body(&(oldest.clone(), *revision));
            }
        }
        self.labels.remove(&oldest);
        true
    }
}
