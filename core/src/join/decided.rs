//! The (article, revision)s this join has already decided, and what it decided them on, so a
//! replayed manifest or result makes no second decision, while a new publication of a decided
//! revision is told apart: the same content again (a retry: checked again when the block was
//! fail-closed, otherwise acknowledged) or new content (decided again).
//!
//! Bounded twice: per article, the last [`RECENT_REVISIONS`] decided revisions are kept exactly
//! and every revision at or below the oldest one forgotten counts as decided (a *floor*); across
//! articles, the least recently decided article is forgotten once more than the configured number
//! are remembered. Forgetting can only cause a replay to be decided again, with the same derived
//! decision id, which the decision store drops as a duplicate; it never causes a revision to go
//! undecided.

use std::collections::{BTreeMap, HashMap};

use super::held::TopicPartition;
use crate::events::DraftPosition;

/// Revisions of one article kept exactly before they are folded into the floor.
pub(crate) const RECENT_REVISIONS: usize = 16;
/// Publications of the same content acknowledged per revision whose late results are still
/// recognised (and dropped at once); older ones wait out the orphan retention instead.
const REMEMBERED_REPEATS: usize = 8;

/// What the join decided one revision on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decided {
    /// The digest of the content decided.
    pub(crate) content_digest: String,
    /// The publication decided, when known.
    pub(crate) position: Option<DraftPosition>,
    /// The decision was a block that says the check could not complete: the same content
    /// published again is checked again.
    pub(crate) retryable: bool,
    /// Later publications of the same content, acknowledged without a new check: their results
    /// change nothing.
    pub(crate) repeats: Vec<DraftPosition>,
}

impl Decided {
    /// Whether a message of the publication at `position` (with content `digest`) is this one's
    /// or a repeat already acknowledged: a replay, which changes nothing.
    pub(crate) fn covers(&self, position: Option<DraftPosition>, digest: Option<&str>) -> bool {
        match (self.position, position) {
            (Some(decided), Some(p)) => decided == p || self.repeats.contains(&p),
            // Without positions (events of an older factgate) a publication is its content.
            _ => digest.is_none_or(|d| d == self.content_digest),
        }
    }

    /// Records a repeat acknowledged without a check.
    pub(crate) fn acknowledge(&mut self, position: Option<DraftPosition>) {
        if let Some(p) = position
            && !self.repeats.contains(&p)
        {
            if self.repeats.len() == REMEMBERED_REPEATS {
                self.repeats.remove(0);
            }
            self.repeats.push(p);
        }
    }
}

/// What is remembered of one article's decided revisions.
#[derive(Debug, Default)]
struct Revisions {
    /// Every revision at or below this counts as decided.
    floor: Option<u64>,
    /// Decided revisions above the floor, boxed: most articles have one, and a map's first node
    /// has room for eleven values, so inline values would weigh about 1 KiB per article.
    recent: BTreeMap<u64, Box<Decided>>,
    /// This article's place in the least-recently-decided order.
    seq: u64,
    /// The partition its manifests were read from: forgotten when it is revoked.
    partition: Option<TopicPartition>,
}

impl Revisions {
    fn contains(&self, revision: u64) -> bool {
        self.floor.is_some_and(|f| revision <= f) || self.recent.contains_key(&revision)
    }

    fn highest(&self) -> Option<u64> {
        self.recent.keys().next_back().copied().or(self.floor)
    }

    fn insert(&mut self, revision: u64, decided: Decided) {
        if self.floor.is_some_and(|f| revision <= f) {
            return;
        }
        self.recent.insert(revision, Box::new(decided));
        while self.recent.len() > RECENT_REVISIONS {
            // Why: keeps memory per article constant; see the module docs.
            self.floor = self.recent.pop_first().map(|(r, _)| r);
        }
    }
}

/// Decided revisions per article, least recently decided forgotten first.
#[derive(Debug)]
pub(crate) struct DecidedMemory {
    articles: HashMap<String, Revisions>,
    /// seq → article id: the eviction order.
    order: BTreeMap<u64, String>,
    next_seq: u64,
    max_articles: usize,
}

impl DecidedMemory {
    /// Remembers at most `max_articles` articles (at least one).
    pub(crate) fn new(max_articles: usize) -> Self {
        Self {
            articles: HashMap::new(),
            order: BTreeMap::new(),
            next_seq: 0,
            max_articles: max_articles.max(1),
        }
    }

    /// Whether (`article_id`, `revision`) counts as decided.
    pub(crate) fn contains(&self, article_id: &str, revision: u64) -> bool {
        self.articles
            .get(article_id)
            .is_some_and(|r| r.contains(revision))
    }

    /// What (`article_id`, `revision`) was decided on, when it is remembered exactly (not only
    /// through the floor).
    pub(crate) fn get(&self, article_id: &str, revision: u64) -> Option<&Decided> {
        self.articles
            .get(article_id)?
            .recent
            .get(&revision)
            .map(|d| &**d)
    }

    /// [`DecidedMemory::get`], to record an acknowledged repeat.
    pub(crate) fn get_mut(&mut self, article_id: &str, revision: u64) -> Option<&mut Decided> {
        self.articles
            .get_mut(article_id)?
            .recent
            .get_mut(&revision)
            .map(|d| &mut **d)
    }

    /// The highest decided revision of `article_id`, if any is remembered.
    pub(crate) fn highest(&self, article_id: &str) -> Option<u64> {
        self.articles.get(article_id).and_then(Revisions::highest)
    }

    /// Records a decision on (`article_id`, `revision`), whose manifest came from `partition`
    /// (when one did).
    pub(crate) fn insert(
        &mut self,
        article_id: &str,
        revision: u64,
        decided: Decided,
        partition: Option<&TopicPartition>,
    ) {
        let seq = self.next_seq;
        self.next_seq += 1;
        if let Some(known) = self.articles.get(article_id) {
            self.order.remove(&known.seq);
        }
        let entry = self.articles.entry(article_id.to_owned()).or_default();
        entry.seq = seq;
        if let Some(partition) = partition {
            entry.partition = Some(partition.clone());
        }
        entry.insert(revision, decided);
        self.order.insert(seq, article_id.to_owned());
        while self.articles.len() > self.max_articles {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            self.articles.remove(&oldest);
        }
    }

    /// Forgets the articles whose manifests came from `partition`, once it is revoked: its new
    /// owner decides what is published there from now on, so what this instance remembers
    /// could be stale when the partition comes back. Returns how many were forgotten.
    pub(crate) fn forget_partition(&mut self, partition: &TopicPartition) -> usize {
        let gone: Vec<(String, u64)> = self
            .articles
            .iter()
            .filter(|(_, r)| r.partition.as_ref() == Some(partition))
            .map(|(id, r)| (id.clone(), r.seq))
            .collect();
        for (id, seq) in &gone {
            self.articles.remove(id);
            self.order.remove(seq);
        }
        gone.len()
    }

    /// Forgets the articles known only from decisions read back
    /// ([`super::JoinState::on_past_decision`]), whose partition is not known: they are read
    /// back again at the next assignment, for the partitions it brings.
    pub(crate) fn forget_unplaced(&mut self) -> usize {
        let gone: Vec<(String, u64)> = self
            .articles
            .iter()
            .filter(|(_, r)| r.partition.is_none())
            .map(|(id, r)| (id.clone(), r.seq))
            .collect();
        for (id, seq) in &gone {
            self.articles.remove(id);
            self.order.remove(seq);
        }
        gone.len()
    }

    /// Articles remembered.
    pub(crate) fn len(&self) -> usize {
        self.articles.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decided(digest: &str, offset: i64) -> Decided {
        Decided {
            content_digest: digest.to_owned(),
            position: Some(DraftPosition {
                partition: 0,
                offset,
            }),
            retryable: false,
            repeats: Vec::new(),
        }
    }

    #[test]
    fn remembers_revisions_and_folds_old_ones_into_a_floor() {
        let mut memory = DecidedMemory::new(10);
        memory.insert("a", 3, decided("d", 1), None);
        assert!(memory.contains("a", 3));
        assert!(!memory.contains("a", 2), "2 was never decided");
        assert!(!memory.contains("b", 3));
        for revision in 10..10 + RECENT_REVISIONS as u64 + 1 {
            memory.insert("a", revision, decided("d", 1), None);
        }
        // 3 and 10 were folded: everything up to 10 now counts as decided.
        assert!(memory.contains("a", 2));
        assert!(memory.contains("a", 10));
        assert!(
            memory.get("a", 10).is_none(),
            "folded revisions keep no detail"
        );
        assert!(!memory.contains("a", 11 + RECENT_REVISIONS as u64));
        assert_eq!(memory.highest("a"), Some(10 + RECENT_REVISIONS as u64));
    }

    #[test]
    fn forgets_the_least_recently_decided_article() {
        let mut memory = DecidedMemory::new(2);
        memory.insert("a", 1, decided("d", 1), None);
        memory.insert("b", 1, decided("d", 2), None);
        memory.insert("a", 2, decided("d", 3), None); // a is now the most recent
        memory.insert("c", 1, decided("d", 4), None);
        assert_eq!(memory.len(), 2);
        assert!(!memory.contains("b", 1), "b was least recently decided");
        assert!(memory.contains("a", 1) && memory.contains("c", 1));
    }

    #[test]
    fn a_publication_is_told_from_a_replay_by_its_position() {
        let mut done = decided("d1", 5);
        let at = |offset| {
            Some(DraftPosition {
                partition: 0,
                offset,
            })
        };
        assert!(done.covers(at(5), Some("d1")));
        assert!(
            !done.covers(at(9), Some("d1")),
            "a republish is not a replay"
        );
        done.acknowledge(at(9));
        assert!(done.covers(at(9), Some("d1")));
        // Without positions, the content decides.
        assert!(done.covers(None, Some("d1")));
        assert!(!done.covers(None, Some("d2")));
    }

    #[test]
    fn a_revoked_partition_takes_its_articles_with_it() {
        let mut memory = DecidedMemory::new(10);
        let p0 = TopicPartition::new("articles.manifest", 0);
        let p1 = TopicPartition::new("articles.manifest", 1);
        memory.insert("a", 1, decided("d", 1), Some(&p0));
        memory.insert("b", 1, decided("d", 2), Some(&p1));
        assert_eq!(memory.forget_partition(&p0), 1);
        assert!(!memory.contains("a", 1));
        assert!(memory.contains("b", 1));
    }
}
