//! Where a draft sits on the drafts topic, which names one publication of it.
//!
//! A CMS may publish the same (article, revision) more than once: to retry a check that could not
//! complete, or with a corrected body. Each publication is a record at its own partition and
//! offset of `drafts.published`; a replay of that record (a role restarted, a partition moved)
//! is at the same place. So the position tells a publication from a replay, which neither the
//! content nor the revision can. Extract copies it into the manifest and every verification
//! request, verify into every result, and the join into the decision, whose id derives from it.

use serde::{Deserialize, Serialize};

/// The partition and offset of a draft on `drafts.published`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct DraftPosition {
    pub partition: i32,
    pub offset: i64,
}

impl DraftPosition {
    /// Whether this publication came after `other`. Drafts of one article share a partition
    /// (they are keyed by article), where offsets grow with time; across partitions (after
    /// partitions were added) the order is unknown and taken as "later".
    pub fn is_after(&self, other: &DraftPosition) -> bool {
        self.partition != other.partition || self.offset > other.offset
    }
}

/// A partition of one Kafka topic: the key of whatever is tracked per partition (offsets held by
/// the join, offsets in flight, consumer lag, partitions revoked).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TopicPartition {
    pub topic: String,
    pub partition: i32,
}

impl TopicPartition {
    /// The partition `partition` of `topic`.
    pub fn new(topic: impl Into<String>, partition: i32) -> Self {
        Self {
            topic: topic.into(),
            partition,
        }
    }
}

impl std::fmt::Display for DraftPosition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@{}", self.partition, self.offset)
    }
}
