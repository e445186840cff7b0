//! Resuming a newly assigned partition exactly at its committed offset, also on a broker that
//! serves a record batch only from its first record.
//!
//! A consumer given a partition reads it from the group's committed offset. Apache Kafka answers
//! a fetch from inside a record batch with the whole batch, and librdkafka drops the records
//! before the offset it asked for. tansu 0.6 answers with the *next* batch: the records between
//! the committed offset and the end of its batch are never read (a restarted verify role would
//! never check the requests its killed predecessor had in hand, and their articles would be
//! blocked at their deadline). The committed offset often falls inside a batch: producers batch
//! what they send together (one draft's requests, a CMS's drafts), and offsets are committed per
//! message.
//!
//! So when a partition is assigned with a committed offset, the assignment itself starts the
//! read [`REWIND`] messages before it (never before the partition's first offset):
//! [`move_back_assignment`], run by the consumer's context inside the rebalance. The
//! role's [`ResumeAtCommitted`] then skips what comes before the committed offset, which was
//! handled already; and if the broker still answers past it (a batch longer than the rewind), it
//! moves the read back further, twice as far each time. On a broker that serves batches whole
//! this costs an offset query per assignment and up to [`REWIND`] records read and skipped per
//! partition. The join's assignments are moved back too, without the skipping: it reads what it
//! decided again as replays (`pipeline::history`).

use std::collections::HashMap;
use std::time::Duration;

use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext};
use rdkafka::{Offset, TopicPartitionList};

use super::RoleConsumer;
use factgate_core::events::TopicPartition;

/// How far before the committed offset a read moves back first, in messages.
pub const REWIND: i64 = 1_000;
/// Bound on the offset queries made when partitions are assigned.
const QUERY_TIMEOUT: Duration = Duration::from_secs(10);

/// What the role does with a message it read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// Handle it: it is at or past where the partition resumed.
    Handle,
    /// Leave it unhandled and its offset unstored: it precedes the committed offset (handled
    /// before), or the read was moved back and it will come again.
    Skip,
}

/// A partition assigned whose read was moved back, until its first message at or past the
/// committed offset comes.
#[derive(Debug, Clone)]
pub(crate) struct Resuming {
    committed: i64,
    /// The partition's first offset held by the broker.
    low: i64,
    /// Where the read was last moved back to.
    moved_to: i64,
    /// Whether a message before the committed offset came since: the read began at or before
    /// the batch holding the committed offset, so what comes next is what follows it.
    before_seen: bool,
}

/// Per role consumer: see the module docs. Make it before the consumer's first read, and call
/// [`ResumeAtCommitted::admit`] for every message read, before handling it.
#[derive(Debug)]
pub struct ResumeAtCommitted {
    resuming: HashMap<TopicPartition, Resuming>,
}

impl ResumeAtCommitted {
    /// Makes `consumer`'s assignments from now on start before their committed offsets, for
    /// [`Self::admit`] to skip what was handled.
    pub fn new(consumer: &RoleConsumer) -> Self {
        consumer.context().move_reads_back(true);
        Self {
            resuming: HashMap::new(),
        }
    }

    /// Whether to handle the message at `offset` of `topic`/`partition` that `consumer` just
    /// returned. Takes the consumer's partitions assigned and revoked since the last call, so call
    /// it after every read.
    pub fn admit(
        &mut self,
        consumer: &RoleConsumer,
        topic: &str,
        partition: i32,
        offset: i64,
    ) -> Admit {
        let context = consumer.context();
        for tp in context.take_revoked() {
            self.resuming.remove(&tp);
        }
        self.resuming.extend(context.take_resuming());
        let tp = TopicPartition::new(topic, partition);
        let Some(resuming) = self.resuming.get_mut(&tp) else {
            return Admit::Handle;
        };
        if offset < resuming.committed {
            resuming.before_seen = true;
            return Admit::Skip;
        }
        // At the committed offset; or past it after the read began before it (a gap the broker
        // holds, not one it skipped); or past it with nowhere further back to read from.
        let nowhere_back = resuming.moved_to <= resuming.low;
        if offset == resuming.committed || resuming.before_seen || nowhere_back {
            self.resuming.remove(&tp);
            return Admit::Handle;
        }
        let back = (resuming.committed - resuming.moved_to).saturating_mul(2);
        let to = resuming.committed.saturating_sub(back).max(resuming.low);
        match consumer.seek(topic, partition, Offset::Offset(to), Duration::ZERO) {
            Ok(()) => {
                crate::internal_events::read_moved_back(
                    context.role(),
                    topic,
                    partition,
                    resuming.committed,
                    offset,
                    to,
                );
                resuming.moved_to = to;
                Admit::Skip
            }
            Err(err) => {
                // Reading on from here loses what the broker skipped; say so and go on, as a
                // consumer without this guard would.
                crate::internal_events::read_not_moved_back(
                    &err,
                    context.role(),
                    topic,
                    partition,
                    resuming.committed,
                    offset,
                );
                self.resuming.remove(&tp);
                Admit::Handle
            }
        }
    }
}

/// Run inside the rebalance, before `assigned` is handed to librdkafka: asks the group's
/// committed offsets and each partition's first offset, and sets the assignment of each partition
/// committed past its first offset to start [`REWIND`] messages before the committed offset.
/// Returns those partitions, for [`ResumeAtCommitted`]. A partition without a committed offset
/// starts at its first or last offset (`auto.offset.reset`), a batch boundary, and is not moved.
/// (The end of a partition is not asked: tansu 0.6 reports it wrong.) A failed query leaves the
/// assignment as it was, as a consumer without this would be.
pub(crate) fn move_back_assignment<C: ConsumerContext>(
    consumer: &BaseConsumer<C>,
    role: &str,
    assigned: &TopicPartitionList,
) -> Vec<(TopicPartition, Resuming)> {
    let committed = match super::block_in_callback(|| {
        consumer.committed_offsets(assigned.clone(), QUERY_TIMEOUT)
    }) {
        Ok(committed) => committed,
        Err(err) => {
            crate::internal_events::committed_offsets_unknown(&err, role);
            return Vec::new();
        }
    };
    let mut moved = Vec::new();
    for element in committed.elements() {
        let Offset::Offset(at) = element.offset() else {
            continue;
        };
        let (topic, partition) = (element.topic(), element.partition());
        let low = match super::block_in_callback(|| {
            consumer.fetch_watermarks(topic, partition, QUERY_TIMEOUT)
        }) {
            Ok((low, _high)) => low,
            Err(err) => {
                crate::internal_events::committed_offsets_unknown(&err, role);
                continue;
            }
        };
        if at <= low {
            continue;
        }
        let to = at.saturating_sub(REWIND).max(low);
        let Some(mut assigning) = assigned.find_partition(topic, partition) else {
            continue;
        };
        if assigning.set_offset(Offset::Offset(to)).is_err() {
            continue;
        }
        tracing::debug!(
            role,
            topic,
            partition,
            committed = at,
            from = to,
            "assigned partition read from before its committed offset"
        );
        moved.push((
            TopicPartition::new(topic, partition),
            Resuming {
                committed: at,
                low,
                moved_to: to,
                before_seen: false,
            },
        ));
    }
    moved
}
