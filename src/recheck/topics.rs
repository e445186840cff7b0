//! Reading Kafka topics for a run without a consumer group: the drafts and the live decisions up
//! to fixed offsets, the runs topic, and the run's own decisions as they arrive. Nothing here
//! joins a group or commits an offset, so the live groups never see a re-check.

use std::collections::BTreeMap;
use std::time::Duration;

use rdkafka::consumer::{BaseConsumer, Consumer, StreamConsumer};
use rdkafka::error::KafkaError;
use rdkafka::message::Message;
use rdkafka::{Offset, TopicPartitionList};

use super::RecheckError;
use crate::config::KafkaConfig;
use crate::kafka::client::{ReaderContext, base_config, redact_config_error};
use factgate_core::events::DraftPosition;

/// How long metadata and watermark requests may take.
const ADMIN_WAIT: Duration = Duration::from_secs(30);
/// How long a bounded read may go without a record before it is taken as stalled.
const STALL: Duration = Duration::from_secs(60);

/// A consumer that reads what it is assigned and commits nothing. librdkafka wants a group id
/// to assign partitions; this one never joins (no subscription) and never commits, so the
/// broker keeps no state for it.
fn reader_config(config: &KafkaConfig, bootstrap: &str) -> rdkafka::ClientConfig {
    let mut client = base_config(config, bootstrap);
    client
        .set(
            "group.id",
            format!("{}-recheck-reader", config.group_prefix),
        )
        .set("enable.auto.commit", "false")
        .set("enable.auto.offset.store", "false")
        .set("enable.partition.eof", "true")
        .set("allow.auto.create.topics", "false");
    client
}

fn client_error(source: KafkaError) -> RecheckError {
    RecheckError::Client(redact_config_error(source))
}

/// Each partition of `topic` with its (low, high) watermarks now; `None` when the topic does
/// not exist.
///
/// # Errors
/// The brokers cannot be reached.
pub async fn watermarks(
    config: &KafkaConfig,
    bootstrap: &str,
    topic: &str,
) -> Result<Option<BTreeMap<i32, (i64, i64)>>, RecheckError> {
    let consumer: BaseConsumer<ReaderContext> = reader_config(config, bootstrap)
        .create_with_context(ReaderContext)
        .map_err(client_error)?;
    let topic = topic.to_owned();
    tokio::task::spawn_blocking(move || {
        let metadata = consumer
            .fetch_metadata(Some(&topic), ADMIN_WAIT)
            .map_err(client_error)?;
        let Some(found) = metadata.topics().iter().find(|t| t.name() == topic) else {
            return Ok(None);
        };
        if found.error().is_some() || found.partitions().is_empty() {
            return Ok(None);
        }
        let mut marks = BTreeMap::new();
        for partition in found.partitions() {
            let id = partition.id();
            let mark = consumer
                .fetch_watermarks(&topic, id, ADMIN_WAIT)
                .map_err(client_error)?;
            marks.insert(id, mark);
        }
        Ok(Some(marks))
    })
    .await
    .map_err(RecheckError::Task)?
}

/// How long a read past the reported end waits for another record before taking the end as
/// reached.
pub const PAST_END_IDLE: Duration = Duration::from_millis(1500);

/// One record of a bounded read.
pub struct Record<'a> {
    pub position: DraftPosition,
    pub key: Option<&'a [u8]>,
    pub payload: Option<&'a [u8]>,
}

/// Reads `topic` from each partition's start to its offset in `ends` (exclusive), handing each
/// record to `take`, on the blocking pool; returns `state` as `take` left it, and the end
/// offsets reached.
///
/// With `written_by`, the ends are the high watermarks as reported and the read goes on past
/// them for records written at or before that time. Kafka's watermark is exact; some
/// Kafka-protocol brokers (tansu, after a batch of records) report less than they serve, and a
/// run that trusted it would miss drafts.
///
/// # Errors
/// The brokers cannot be reached, or a partition gives nothing for [`STALL`] before its end.
pub async fn read_until<S, F>(
    config: &KafkaConfig,
    bootstrap: &str,
    topic: &str,
    ends: &BTreeMap<i32, i64>,
    written_by: Option<chrono::DateTime<chrono::Utc>>,
    mut state: S,
    mut take: F,
) -> Result<(S, BTreeMap<i32, i64>), RecheckError>
where
    S: Send + 'static,
    F: FnMut(&mut S, Record<'_>) + Send + 'static,
{
    let consumer: BaseConsumer<ReaderContext> = reader_config(config, bootstrap)
        .create_with_context(ReaderContext)
        .map_err(client_error)?;
    let topic = topic.to_owned();
    let mut ends = ends.clone();
    let cutoff = written_by.map(|t| t.timestamp_millis());
    tokio::task::spawn_blocking(move || {
        let mut list = TopicPartitionList::new();
        // Partitions still read, with whether the read is past the reported end.
        let mut open: BTreeMap<i32, bool> = BTreeMap::new();
        for (&partition, &end) in &ends {
            let (low, _) = consumer
                .fetch_watermarks(&topic, partition, ADMIN_WAIT)
                .map_err(client_error)?;
            if low < end || cutoff.is_some() {
                list.add_partition_offset(&topic, partition, Offset::Offset(low))
                    .map_err(client_error)?;
                open.insert(partition, low >= end);
            }
        }
        if open.is_empty() {
            return Ok((state, ends));
        }
        consumer.assign(&list).map_err(client_error)?;
        let mut last_record = std::time::Instant::now();
        while !open.is_empty() {
            match consumer.poll(Duration::from_millis(200)) {
                None => {}
                Some(Ok(message)) => {
                    last_record = std::time::Instant::now();
                    let partition = message.partition();
                    let offset = message.offset();
                    let (Some(&past), Some(end)) = (open.get(&partition), ends.get_mut(&partition))
                    else {
                        continue;
                    };
                    let written = message.timestamp().to_millis().unwrap_or(i64::MIN);
                    let within = offset < *end || cutoff.is_some_and(|cutoff| written <= cutoff);
                    if !within {
                        open.remove(&partition);
                        continue;
                    }
                    *end = (*end).max(offset + 1);
                    take(
                        &mut state,
                        Record {
                            position: DraftPosition { partition, offset },
                            key: message.key(),
                            payload: message.payload(),
                        },
                    );
                    if offset + 1 >= *end && !past {
                        if cutoff.is_some() {
                            open.insert(partition, true);
                        } else {
                            open.remove(&partition);
                        }
                    }
                }
                // Past a reported end only a pause in records is trusted (see above).
                Some(Err(KafkaError::PartitionEOF(partition))) if cutoff.is_none() => {
                    if let Some(&end) = ends.get(&partition)
                        && position_of(&consumer, &topic, partition).is_some_and(|p| p >= end)
                    {
                        open.remove(&partition);
                    }
                }
                Some(Err(KafkaError::PartitionEOF(_))) => {}
                Some(Err(err)) => {
                    crate::internal_events::recheck_read_retried(
                        "a topic",
                        Some(topic.as_str()),
                        &err,
                    );
                }
            }
            let idle = last_record.elapsed();
            if idle > PAST_END_IDLE {
                open.retain(|_, past| !*past);
            }
            if idle > STALL && !open.is_empty() {
                return Err(RecheckError::Stalled {
                    topic: topic.clone(),
                    partitions: open.keys().copied().collect(),
                });
            }
        }
        Ok((state, ends))
    })
    .await
    .map_err(RecheckError::Task)?
}

/// The offset `consumer` reads `partition` of `topic` from next, when known.
pub fn position_of<C: Consumer<X>, X: rdkafka::consumer::ConsumerContext>(
    consumer: &C,
    topic: &str,
    partition: i32,
) -> Option<i64> {
    let positions = consumer.position().ok()?;
    match positions.find_partition(topic, partition)?.offset() {
        Offset::Offset(o) => Some(o),
        _ => None,
    }
}

/// A consumer of every partition of `topic` from its start, with no group, for records as they
/// arrive (the run's decisions).
///
/// # Errors
/// The client cannot be created or assigned.
pub fn tail_from_start(
    config: &KafkaConfig,
    bootstrap: &str,
    topic: &str,
    partitions: impl IntoIterator<Item = i32>,
) -> Result<StreamConsumer<ReaderContext>, RecheckError> {
    let consumer: StreamConsumer<ReaderContext> = reader_config(config, bootstrap)
        .create_with_context(ReaderContext)
        .map_err(client_error)?;
    let mut list = TopicPartitionList::new();
    for partition in partitions {
        list.add_partition_offset(topic, partition, Offset::Beginning)
            .map_err(client_error)?;
    }
    consumer.assign(&list).map_err(client_error)?;
    Ok(consumer)
}
