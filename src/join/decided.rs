//! The (article, revision)s this join has already decided, so a replayed manifest or result
//! makes no second decision.
//!
//! Bounded twice: per article, the last [`RECENT_REVISIONS`] decided revisions are kept exactly
//! and every revision at or below the oldest one forgotten counts as decided (a *floor*); across
//! articles, the least recently decided article is forgotten once more than the configured number
//! are remembered. Forgetting can only cause a replay to be decided again, with the same derived
//! decision id, which the decision store drops as a duplicate; it never causes a revision to go
//! undecided.

use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Revisions of one article kept exactly before they are folded into the floor.
pub(crate) const RECENT_REVISIONS: usize = 16;

/// What is remembered of one article's decided revisions.
#[derive(Debug, Default)]
struct Revisions {
    /// Every revision at or below this counts as decided.
    floor: Option<u64>,
    /// Decided revisions above the floor.
    recent: BTreeSet<u64>,
    /// This article's place in the least-recently-decided order.
    seq: u64,
}

impl Revisions {
    fn contains(&self, revision: u64) -> bool {
        self.floor.is_some_and(|f| revision <= f) || self.recent.contains(&revision)
    }

    fn highest(&self) -> Option<u64> {
        self.recent.last().copied().or(self.floor)
    }

    fn insert(&mut self, revision: u64) {
        if self.contains(revision) {
            return;
        }
        self.recent.insert(revision);
        while self.recent.len() > RECENT_REVISIONS {
            // Why: keeps memory per article constant; see the module docs.
            self.floor = self.recent.pop_first();
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

    /// The highest decided revision of `article_id`, if any is remembered.
    pub(crate) fn highest(&self, article_id: &str) -> Option<u64> {
        self.articles.get(article_id).and_then(Revisions::highest)
    }

    /// Records a decision on (`article_id`, `revision`).
    pub(crate) fn insert(&mut self, article_id: &str, revision: u64) {
        let seq = self.next_seq;
        self.next_seq += 1;
        if let Some(known) = self.articles.get(article_id) {
            self.order.remove(&known.seq);
        }
        let entry = self.articles.entry(article_id.to_owned()).or_default();
        entry.seq = seq;
        entry.insert(revision);
        self.order.insert(seq, article_id.to_owned());
        while self.articles.len() > self.max_articles {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            self.articles.remove(&oldest);
        }
    }

    /// Articles remembered.
    pub(crate) fn len(&self) -> usize {
        self.articles.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_revisions_and_folds_old_ones_into_a_floor() {
        let mut memory = DecidedMemory::new(10);
        memory.insert("a", 3);
        assert!(memory.contains("a", 3));
        assert!(!memory.contains("a", 2), "2 was never decided");
        assert!(!memory.contains("b", 3));
        for revision in 10..10 + RECENT_REVISIONS as u64 + 1 {
            memory.insert("a", revision);
        }
        // 3 and 10 were folded: everything up to 10 now counts as decided.
        assert!(memory.contains("a", 2));
        assert!(memory.contains("a", 10));
        assert!(!memory.contains("a", 11 + RECENT_REVISIONS as u64));
        assert_eq!(memory.highest("a"), Some(10 + RECENT_REVISIONS as u64));
    }

    #[test]
    fn forgets_the_least_recently_decided_article() {
        let mut memory = DecidedMemory::new(2);
        memory.insert("a", 1);
        memory.insert("b", 1);
        memory.insert("a", 2); // a is now the most recent
        memory.insert("c", 1);
        assert_eq!(memory.len(), 2);
        assert!(!memory.contains("b", 1), "b was least recently decided");
        assert!(memory.contains("a", 1) && memory.contains("c", 1));
    }
}
