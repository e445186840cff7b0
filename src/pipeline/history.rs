//! The join role's memory of each article's last decided revisions
//! ([`crate::decide::revisions::RevisionHistory`]), rebuilt at start-up by reading the decisions
//! topic: every partition from its earliest retained offset (at most
//! [`REBUILD_MAX_PER_PARTITION`] messages back from its end) up to the end it had when the read
//! began, within [`REBUILD_TIME_LIMIT`]. A decision that cannot be read is skipped; a rebuild
//! that cannot finish leaves what it read, and the reports say less about what changed, never
//! anything wrong.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::{ClientConfig, Message, Offset, TopicPartitionList};
use tracing::{info, warn};

use crate::config::KafkaConfig;
use crate::decide::revisions::RevisionHistory;
use crate::events::Decision;

/// The most decisions read back per partition at start-up.
pub const REBUILD_MAX_PER_PARTITION: i64 = 200_000;
/// The longest the rebuild may take before the join starts without the rest.
pub const REBUILD_TIME_LIMIT: Duration = Duration::from_secs(60);
/// Broker requests of the rebuild.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Reads the decisions topic into `history` (blocking: run it off the async workers).
pub(super) fn rebuild(
    config: &KafkaConfig,
    bootstrap: &str,
    topic: &str,
    history: &mut RevisionHistory,
) -> Result<usize, rdkafka::error::KafkaError> {
    let started = Instant::now();
    let mut client: ClientConfig = crate::kafka::client::base_config(config, bootstrap);
    // Assigned partitions, nothing committed: the group only names the client.
    client
        .set("group.id", crate::kafka::group_id(config, "join-history"))
        .set("enable.auto.commit", "false")
        .set("enable.partition.eof", "false");
    let consumer: BaseConsumer = client.create()?;
    let metadata = consumer.fetch_metadata(Some(topic), REQUEST_TIMEOUT)?;
    let mut ends: HashMap<i32, i64> = HashMap::new();
    let mut assignment = TopicPartitionList::new();
    for partition in metadata
        .topics()
        .iter()
        .filter(|t| t.name() == topic)
        .flat_map(|t| t.partitions())
    {
        let (low, high) = consumer.fetch_watermarks(topic, partition.id(), REQUEST_TIMEOUT)?;
        if high > low {
            let from = low.max(high - REBUILD_MAX_PER_PARTITION);
            assignment.add_partition_offset(topic, partition.id(), Offset::Offset(from))?;
            ends.insert(partition.id(), high);
        }
    }
    if ends.is_empty() {
        return Ok(0);
    }
    consumer.assign(&assignment)?;
    let mut read = 0usize;
    while !ends.is_empty() && started.elapsed() < REBUILD_TIME_LIMIT {
        let Some(message) = consumer.poll(Duration::from_millis(200)) else {
            continue;
        };
        let message = match message {
            Ok(m) => m,
            Err(err) => {
                warn!(error = %err, "reading past decisions; reading on");
                continue;
            }
        };
        if let Some(payload) = message.payload()
            && let Ok(decision) = serde_json::from_slice::<Decision>(payload)
        {
            history.record(&decision);
            read += 1;
        }
        if ends
            .get(&message.partition())
            .is_some_and(|end| message.offset() + 1 >= *end)
        {
            ends.remove(&message.partition());
        }
    }
    if !ends.is_empty() {
        warn!(
            partitions_unfinished = ends.len(),
            "past decisions not all read in time; revision changes may be missing for some articles"
        );
    }
    info!(
        decisions = read,
        articles = history.len(),
        bytes = history.bytes(),
        "revision history rebuilt from the decisions topic"
    );
    Ok(read)
}
