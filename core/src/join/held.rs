//! Which consumed messages the join still needs, per (topic, partition), and so how far each
//! partition's committed offset may go.
//!
//! A message is *held* while an undecided (article, revision) keeps something it brought: a
//! manifest, or a result (kept by a pending article or waiting for its manifest). Messages that
//! changed nothing (duplicates, replays, stale revisions) are never held. The committed offset of
//! a partition must stay at or below its lowest held offset: after a crash the consumer reads
//! again from there and rebuilds every undecided article.

use std::collections::{BTreeMap, HashMap};

/// Manifests and results may come from different topics, so offsets are tracked per (topic,
/// partition).
pub use crate::events::TopicPartition;

/// Where a consumed message sits: its partition and offset.
pub(crate) type Position = (TopicPartition, i64);

/// The offsets held by undecided articles, as a multiset per partition (one offset may be held
/// twice if the caller delivers the same message twice and both copies were kept).
#[derive(Debug, Default)]
pub(crate) struct HeldOffsets {
    held: HashMap<TopicPartition, BTreeMap<i64, usize>>,
}

impl HeldOffsets {
    /// Marks a message as needed until [`Self::release`] is called for it.
    pub(crate) fn hold(&mut self, (tp, offset): &Position) {
        *self
            .held
            .entry(tp.clone())
            .or_default()
            .entry(*offset)
            .or_default() += 1;
    }

    /// Gives up one hold on a message; releasing what is not held does nothing.
    pub(crate) fn release(&mut self, (tp, offset): &Position) {
        let Some(offsets) = self.held.get_mut(tp) else {
            return;
        };
        if let Some(count) = offsets.get_mut(offset) {
            *count -= 1;
            if *count == 0 {
                offsets.remove(offset);
            }
        }
        if offsets.is_empty() {
            self.held.remove(tp);
        }
    }

    /// The lowest offset of `tp` still held.
    pub(crate) fn lowest(&self, tp: &TopicPartition) -> Option<i64> {
        self.held
            .get(tp)
            .and_then(|offsets| offsets.keys().next().copied())
    }

    /// The offset safe to commit for `tp` when every message up to `consumed_up_to` has been
    /// consumed and its outputs acknowledged: the lowest held offset, or `consumed_up_to + 1` when
    /// nothing is held. `None` when nothing was consumed yet (`consumed_up_to < 0`).
    pub(crate) fn watermark(&self, tp: &TopicPartition, consumed_up_to: i64) -> Option<i64> {
        if consumed_up_to < 0 {
            return None;
        }
        let next = consumed_up_to.saturating_add(1);
        Some(self.lowest(tp).map_or(next, |lowest| lowest.min(next)))
    }

    /// Messages held, over all partitions (duplicates counted).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.held.values().flat_map(|o| o.values()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(partition: i32, offset: i64) -> Position {
        (TopicPartition::new("claims.verified", partition), offset)
    }

    #[test]
    fn watermark_is_the_lowest_held_offset_whatever_the_order() {
        let mut held = HeldOffsets::default();
        let tp = TopicPartition::new("claims.verified", 0);
        assert_eq!(held.watermark(&tp, -1), None);
        assert_eq!(held.watermark(&tp, 4), Some(5));
        for offset in [7, 3, 9] {
            held.hold(&pos(0, offset));
        }
        assert_eq!(held.watermark(&tp, 9), Some(3));
        held.release(&pos(0, 7));
        assert_eq!(held.watermark(&tp, 9), Some(3), "3 still held");
        held.release(&pos(0, 3));
        assert_eq!(held.watermark(&tp, 9), Some(9));
        held.release(&pos(0, 9));
        assert_eq!(held.watermark(&tp, 9), Some(10));
        assert_eq!(held.len(), 0);
    }

    #[test]
    fn partitions_and_topics_are_independent() {
        let mut held = HeldOffsets::default();
        held.hold(&pos(0, 2));
        held.hold(&pos(1, 8));
        let other_topic = (TopicPartition::new("claims.results", 0), 1);
        held.hold(&other_topic);
        assert_eq!(
            held.watermark(&TopicPartition::new("claims.verified", 0), 10),
            Some(2)
        );
        assert_eq!(
            held.watermark(&TopicPartition::new("claims.verified", 1), 10),
            Some(8)
        );
        assert_eq!(held.watermark(&other_topic.0, 10), Some(1));
        held.release(&other_topic);
        assert_eq!(held.watermark(&other_topic.0, 10), Some(11));
        assert_eq!(
            held.watermark(&TopicPartition::new("claims.verified", 0), 10),
            Some(2)
        );
    }

    #[test]
    fn an_offset_held_twice_stays_held_until_both_release() {
        let mut held = HeldOffsets::default();
        let tp = TopicPartition::new("t", 0);
        held.hold(&(tp.clone(), 5));
        held.hold(&(tp.clone(), 5));
        held.release(&(tp.clone(), 5));
        assert_eq!(held.watermark(&tp, 20), Some(5));
        held.release(&(tp.clone(), 5));
        assert_eq!(held.watermark(&tp, 20), Some(21));
        held.release(&(tp.clone(), 5));
        assert_eq!(
            held.watermark(&tp, 20),
            Some(21),
            "over-release is harmless"
        );
    }

    #[test]
    fn watermark_never_passes_what_was_consumed() {
        let mut held = HeldOffsets::default();
        let tp = TopicPartition::new("t", 0);
        held.hold(&(tp.clone(), 50));
        // Outputs acknowledged only up to 10: commit no further than 11.
        assert_eq!(held.watermark(&tp, 10), Some(11));
    }
}
