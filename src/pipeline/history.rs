//! What the join reads back from the decisions topic.
//!
//! - [`rebuild`]: each article's last decided revisions
//!   ([`factgate_core::decide::revisions::RevisionHistory`]), at start-up: every partition from its
//!   earliest retained offset (at most [`REBUILD_MAX_PER_PARTITION`] messages back from its end)
//!   up to its end, within [`REBUILD_TIME_LIMIT`]. A decision that
//!   cannot be read is skipped; a rebuild that cannot finish leaves what it read, and the reports
//!   say less about what changed, never anything wrong.
//! - [`read_back`]: at every assignment, the decisions that may concern what the join is about
//!   to read again of its new partitions (see [`factgate_core::join::JoinState::on_past_decision`]): those
//!   written since the oldest message it will read again, less [`CLOCK_SKEW`], up to the end of
//!   the topic. This one must finish: a new owner that decided without it could decide a
//!   revision a second time.
//!
//! Both read each partition until the broker has nothing more (see `read_to_end`), not only up to
//! the high watermark it reports, which some brokers report short.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::{ClientConfig, Message, Offset, TopicPartitionList};

use crate::config::KafkaConfig;
use crate::kafka::client::ReaderContext;
use factgate_core::decide::revisions::RevisionHistory;
use factgate_core::events::Decision;

/// The most decisions read back per partition at start-up.
pub const REBUILD_MAX_PER_PARTITION: i64 = 200_000;
/// The longest the rebuild may take before the join starts without the rest.
pub const REBUILD_TIME_LIMIT: Duration = Duration::from_secs(60);
/// Broker requests of the rebuild.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// How far back of the oldest message read again [`read_back`] starts: a decision's timestamp
/// is written by the join's host, the messages' by extract's and verify's, whose clocks may be
/// behind.
pub const CLOCK_SKEW: Duration = Duration::from_secs(300);
/// The longest [`read_back`] may take.
pub const READ_BACK_TIME_LIMIT: Duration = Duration::from_secs(60);

/// Why [`read_back`] could not finish.
#[derive(Debug, thiserror::Error)]
pub enum ReadBackError {
    #[error("reading back past decisions")]
    Client(#[from] rdkafka::error::KafkaError),
    #[error("past decisions not read back within {0:?} (partitions {1:?} unfinished)")]
    Unfinished(Duration, Vec<String>),
}

/// What [`read_back`] found.
#[derive(Debug, Default)]
pub(super) struct ReadBack {
    /// The decisions that may concern what is read again.
    pub decisions: Vec<Decision>,
}

/// The decisions that may concern the messages of `assigned` (the join's new partitions) the
/// join will read again from `rewind` messages before their committed offsets: every decision
/// of `decisions_topic` written since the oldest of those messages, less [`CLOCK_SKEW`], up to
/// the end of the topic. (The join's consumer starts those reads there by itself: its
/// assignments are moved back the same way, `kafka::resume`.) No decision when nothing is read
/// again. Blocking: run it off the async workers.
///
/// # Errors
/// The broker could not be read, or not to the end within [`READ_BACK_TIME_LIMIT`].
pub(super) fn read_back(
    config: &KafkaConfig,
    bootstrap: &str,
    group: &str,
    assigned: &[factgate_core::events::TopicPartition],
    decisions_topic: &str,
    rewind: i64,
) -> Result<ReadBack, ReadBackError> {
    let started = Instant::now();
    let mut client: ClientConfig = crate::kafka::client::base_config(config, bootstrap);
    // The join's own group, to read its committed offsets; this client never joins it (no
    // subscription) and commits nothing.
    client
        .set("group.id", group)
        .set("enable.auto.commit", "false")
        .set("enable.auto.offset.store", "false")
        .set("enable.partition.eof", "true")
        .set("auto.offset.reset", "earliest");
    let consumer: BaseConsumer<ReaderContext> = client.create_with_context(ReaderContext)?;

    let by_topic = join_starts(&consumer, assigned, rewind)?;
    tracing::debug!(committed = ?by_topic, "the join's new partitions start at");
    let mut oldest: Option<i64> = None;
    for (topic, froms) in &by_topic {
        let firsts = timestamps_at(&consumer, topic, froms, false, started)?;
        if let Some(&at) = firsts.values().min() {
            oldest = Some(oldest.map_or(at, |o| o.min(at)));
        }
    }
    let Some(oldest) = oldest else {
        return Ok(ReadBack::default());
    };
    let since = oldest - i64::try_from(CLOCK_SKEW.as_millis()).unwrap_or(i64::MAX);

    let (assignment, ends) = decision_reads(&consumer, decisions_topic, since, started)?;
    tracing::debug!(
        since_ms = since,
        ranges = ?assignment
            .elements()
            .iter()
            .map(|e| (e.partition(), e.offset().to_raw(), ends.get(&e.partition()).copied()))
            .collect::<Vec<_>>(),
        "reading back past decisions"
    );
    if ends.is_empty() {
        return Ok(ReadBack::default());
    }
    let mut decisions = Vec::new();
    let unfinished = read_to_end(
        &consumer,
        &assignment,
        ends,
        started + READ_BACK_TIME_LIMIT,
        |decision| decisions.push(decision),
    )?;
    if !unfinished.is_empty() {
        return Err(ReadBackError::Unfinished(
            READ_BACK_TIME_LIMIT,
            unfinished
                .iter()
                .map(|p| format!("{decisions_topic}/{p}"))
                .collect(),
        ));
    }
    Ok(ReadBack { decisions })
}

/// Reads the decisions of `assignment` (one topic's partitions) from where it says to the end of each partition, passing each
/// to `take`, until `until`; returns the partitions whose end was not reached by then.
///
/// A partition's end is where librdkafka reports it reached (its end-of-partition event) at or
/// past the high watermark `ends` gives: a watermark can be short (tansu reports the first
/// offset of its last batch of records plus one, less than it serves), so the records read past
/// it count, and the read stops only once the broker has nothing more.
fn read_to_end(
    consumer: &BaseConsumer<ReaderContext>,
    assignment: &TopicPartitionList,
    mut ends: HashMap<i32, i64>,
    until: Instant,
    mut take: impl FnMut(Decision),
) -> Result<Vec<i32>, rdkafka::error::KafkaError> {
    // The next offset to read of each partition: where it starts, then past each record read.
    let mut next: HashMap<i32, i64> = assignment
        .elements()
        .iter()
        .filter_map(|e| Some((e.partition(), e.offset().to_raw()?)))
        .collect();
    consumer.assign(assignment)?;
    while !ends.is_empty() && Instant::now() < until {
        let Some(message) = consumer.poll(Duration::from_millis(200)) else {
            continue;
        };
        let message = match message {
            Ok(m) => m,
            Err(rdkafka::error::KafkaError::PartitionEOF(partition)) => {
                if let Some(end) = ends.get(&partition)
                    && next.get(&partition).is_some_and(|at| at >= end)
                {
                    ends.remove(&partition);
                }
                continue;
            }
            Err(err) => {
                crate::internal_events::decisions_read_error(&err, false);
                continue;
            }
        };
        next.insert(message.partition(), message.offset() + 1);
        if let Some(payload) = message.payload()
            && let Ok(decision) = serde_json::from_slice::<Decision>(payload)
        {
            take(decision);
        }
    }
    consumer.unassign()?;
    Ok(ends.into_keys().collect())
}

/// Where the join will start reading each of its new partitions `assigned` (its committed
/// offset less `rewind`, not before the partition's lowest), by topic: so the oldest message it
/// will read again.
fn join_starts(
    consumer: &BaseConsumer<ReaderContext>,
    assigned: &[factgate_core::events::TopicPartition],
    rewind: i64,
) -> Result<HashMap<String, HashMap<i32, i64>>, ReadBackError> {
    let mut asked = TopicPartitionList::new();
    let unique: std::collections::BTreeSet<(&str, i32)> = assigned
        .iter()
        .map(|tp| (tp.topic.as_str(), tp.partition))
        .collect();
    for (topic, partition) in unique {
        asked.add_partition(topic, partition);
    }
    let committed = consumer.committed_offsets(asked, REQUEST_TIMEOUT)?;
    // Every partition, even one whose reported end is at its committed offset: the end can be
    // reported short (see `read_to_end`). One topic at a time: librdkafka's end-of-partition
    // event names the partition, not its topic.
    let mut by_topic: HashMap<String, HashMap<i32, i64>> = HashMap::new();
    for element in committed.elements() {
        let (low, _) =
            consumer.fetch_watermarks(element.topic(), element.partition(), REQUEST_TIMEOUT)?;
        let from = match element.offset() {
            Offset::Offset(at) => at.saturating_sub(rewind).max(low),
            // Nothing committed: the join starts at the earliest offset.
            _ => low,
        };
        by_topic
            .entry(element.topic().to_owned())
            .or_default()
            .insert(element.partition(), from);
    }
    Ok(by_topic)
}

/// The partitions of `decisions_topic` to read from the first decision written at or after
/// `since` (as the broker says, checked), with the end each read goes to.
fn decision_reads(
    consumer: &BaseConsumer<ReaderContext>,
    decisions_topic: &str,
    since: i64,
    started: Instant,
) -> Result<(TopicPartitionList, HashMap<i32, i64>), ReadBackError> {
    // Every partition of the topic, asked for its first decision at or after `since`.
    let metadata = consumer.fetch_metadata(Some(decisions_topic), REQUEST_TIMEOUT)?;
    let mut wanted = TopicPartitionList::new();
    for partition in metadata
        .topics()
        .iter()
        .filter(|t| t.name() == decisions_topic)
        .flat_map(|t| t.partitions())
    {
        wanted.add_partition_offset(decisions_topic, partition.id(), Offset::Offset(since))?;
    }
    let found = consumer.offsets_for_times(wanted, REQUEST_TIMEOUT)?;
    // Where each partition's read starts, as the broker says, with its lowest offset and end.
    let mut ranges: HashMap<i32, (i64, i64, i64)> = HashMap::new();
    for element in found.elements() {
        let (low, high) =
            consumer.fetch_watermarks(decisions_topic, element.partition(), REQUEST_TIMEOUT)?;
        let from = match element.offset() {
            Offset::Offset(at) => at.clamp(low, high.max(low)),
            // No decision written since then, as far as the broker says: read from its reported
            // end, which may be short.
            _ => high,
        };
        ranges.insert(element.partition(), (from, low, high));
    }
    // The broker's answer is checked: the decision just before each start must be older than
    // `since`. librdkafka's mock cluster (the embedded broker) answers every time with the end.
    // Where it is not, or cannot be told, the partition is read from its lowest offset.
    let probes: HashMap<i32, i64> = ranges
        .iter()
        .filter(|(_, (from, low, _))| from > low)
        .map(|(&partition, (from, _, _))| (partition, from - 1))
        .collect();
    let before = timestamps_at(consumer, decisions_topic, &probes, true, started)?;
    let mut ends: HashMap<i32, i64> = HashMap::new();
    let mut assignment = TopicPartitionList::new();
    for (&partition, &(from, low, high)) in &ranges {
        let trusted = !probes.contains_key(&partition)
            || before.get(&partition).is_some_and(|&at| at < since);
        let from = if trusted { from } else { low };
        assignment.add_partition_offset(decisions_topic, partition, Offset::Offset(from))?;
        ends.insert(partition, from.min(high));
    }
    Ok((assignment, ends))
}

/// The timestamp (in milliseconds) of the first message read from each partition's offset in
/// `at` of `topic`, for the partitions where there is one: a message without a time counts as 0
/// (the oldest). With `exact`, a message at another offset than asked (tansu serves a batch only
/// from its first record; a record may be gone) is left out. A partition read to its end is.
fn timestamps_at(
    consumer: &BaseConsumer<ReaderContext>,
    topic: &str,
    at: &HashMap<i32, i64>,
    exact: bool,
    started: Instant,
) -> Result<HashMap<i32, i64>, ReadBackError> {
    let mut found = HashMap::new();
    if at.is_empty() {
        return Ok(found);
    }
    let mut starts = TopicPartitionList::new();
    for (&partition, &offset) in at {
        starts.add_partition_offset(topic, partition, Offset::Offset(offset))?;
    }
    consumer.assign(&starts)?;
    let mut waiting: Vec<i32> = at.keys().copied().collect();
    while !waiting.is_empty() {
        if started.elapsed() > READ_BACK_TIME_LIMIT {
            return Err(ReadBackError::Unfinished(
                READ_BACK_TIME_LIMIT,
                waiting.iter().map(|p| format!("{topic}/{p}")).collect(),
            ));
        }
        match consumer.poll(Duration::from_millis(200)) {
            None => {}
            Some(Ok(message)) => {
                let partition = message.partition();
                if waiting.contains(&partition) {
                    waiting.retain(|p| *p != partition);
                    if !exact || at.get(&partition) == Some(&message.offset()) {
                        found.insert(partition, message.timestamp().to_millis().unwrap_or(0));
                    }
                    let mut done = TopicPartitionList::new();
                    done.add_partition(topic, partition);
                    let _ = consumer.pause(&done);
                }
            }
            // Nothing from there to the end. (A message from there would have come before this
            // event.)
            Some(Err(rdkafka::error::KafkaError::PartitionEOF(partition))) => {
                waiting.retain(|p| *p != partition);
            }
            Some(Err(err)) => crate::internal_events::decisions_read_error(&err, true),
        }
    }
    // A pause outlives the assignment: the next read of these partitions would wait forever.
    consumer.resume(&starts)?;
    consumer.unassign()?;
    Ok(found)
}

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
        .set("enable.partition.eof", "true");
    let consumer: BaseConsumer<ReaderContext> = client.create_with_context(ReaderContext)?;
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
    let mut read = 0usize;
    let unfinished = read_to_end(
        &consumer,
        &assignment,
        ends,
        started + REBUILD_TIME_LIMIT,
        |decision| {
            history.record(&decision);
            read += 1;
        },
    )?;
    crate::internal_events::history_rebuilt(read, history.len(), history.bytes(), unfinished.len());
    Ok(read)
}
