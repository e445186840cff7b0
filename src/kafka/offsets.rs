//! Offsets for a role that handles messages concurrently: a partition's offset may only move past
//! a message once it and every message before it are done, so a crash never skips one in flight.

use rdkafka::consumer::{Consumer, ConsumerContext};
use rdkafka::error::KafkaResult;
use rdkafka::{Offset, TopicPartitionList};
use std::collections::{BTreeSet, HashMap};

use factgate_core::events::TopicPartition;

/// Stores `next`, the offset the partition should be read from after a restart, for the next
/// commit.
///
/// Not `Consumer::store_offset`: that is librdkafka's `rd_kafka_offset_store`, which takes the
/// offset of the last message handled and commits it plus one, so passing the next offset there
/// would skip the message at `next` (an undecided article's manifest, a request still in flight)
/// after a restart. `rd_kafka_offsets_store`, behind `store_offsets`, stores the offset as given.
///
/// # Errors
/// When the partition is not assigned to this consumer (revoked meanwhile); its new owner reads
/// from the last commit.
pub fn store_next_offset<C: ConsumerContext>(
    consumer: &impl Consumer<C>,
    topic: &str,
    partition: i32,
    next: i64,
) -> KafkaResult<()> {
    let mut list = TopicPartitionList::new();
    list.add_partition_offset(topic, partition, Offset::Offset(next))?;
    consumer.store_offsets(&list)
}

/// Messages started and not yet done, per (topic, partition).
#[derive(Debug, Default)]
pub struct InOrderOffsets {
    partitions: HashMap<TopicPartition, Partition>,
}

#[derive(Debug, Default)]
struct Partition {
    in_flight: BTreeSet<i64>,
    highest_done: Option<i64>,
}

impl InOrderOffsets {
    /// A message was taken up.
    pub fn start(&mut self, topic: &str, partition: i32, offset: i64) {
        self.partitions
            .entry(TopicPartition::new(topic, partition))
            .or_default()
            .in_flight
            .insert(offset);
    }

    /// Messages started and not yet done, over every partition.
    pub fn in_flight(&self) -> usize {
        self.partitions.values().map(|p| p.in_flight.len()).sum()
    }

    /// A message is done (its outputs acknowledged). Returns the offset now safe to store for the
    /// partition, the next one to read after a restart, when it moved.
    pub fn done(&mut self, topic: &str, partition: i32, offset: i64) -> Option<i64> {
        let p = self
            .partitions
            .get_mut(&TopicPartition::new(topic, partition))?;
        let before = p.safe();
        p.in_flight.remove(&offset);
        p.highest_done = Some(p.highest_done.map_or(offset, |h| h.max(offset)));
        let after = p.safe();
        (after != before).then_some(after).flatten()
    }
}

impl Partition {
    /// The lowest offset still in flight, or one past the highest done.
    fn safe(&self) -> Option<i64> {
        match self.in_flight.first() {
            Some(&lowest) => Some(lowest),
            None => self.highest_done.map(|h| h + 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_offset_waits_for_the_earliest_message_in_flight() {
        let mut offsets = InOrderOffsets::default();
        for o in 10..13 {
            offsets.start("t", 0, o);
        }
        // 11 and 12 finish first: nothing may be stored past 10.
        assert_eq!(offsets.done("t", 0, 12), None);
        assert_eq!(offsets.done("t", 0, 11), None);
        assert_eq!(offsets.done("t", 0, 10), Some(13));
        offsets.start("t", 0, 13);
        assert_eq!(offsets.done("t", 0, 13), Some(14));
    }

    #[test]
    fn partitions_are_independent() {
        let mut offsets = InOrderOffsets::default();
        offsets.start("t", 0, 5);
        offsets.start("t", 1, 7);
        assert_eq!(offsets.done("t", 1, 7), Some(8));
        assert_eq!(offsets.done("t", 0, 5), Some(6));
        assert_eq!(offsets.done("t", 2, 1), None, "unknown partition");
    }
}
