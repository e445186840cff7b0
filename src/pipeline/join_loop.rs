//! The join role: [`JoinState`] over manifests and results, decisions published as they become
//! ready, offsets stored only up to each partition's earliest undecided article (and only after
//! the decisions are acknowledged), deadlines ticked on event time.
//!
//! The join reads on while its decisions are delivered: decisions are queued in the order made
//! (so one article's decisions keep their order on the topic) and their deliveries awaited in
//! batches, in order; the offsets a batch makes safe are stored only once it and every batch
//! before it are acknowledged. At most [`MAX_UNACKNOWLEDGED`] batches wait at once.
//!
//! At start-up the deadline tick waits until the consumer has caught up (a read came back empty)
//! or [`TICK_HOLDOFF`] passed, so an article re-read after a restart gets its results back before
//! its deadline is judged. Back-pressure pauses the manifests or the results partitions, each
//! alone, as [`JoinState::backpressure`] asks (see `factgate_core::join`); ticks go on, so deadlines
//! make room too. The pause is asserted again on every tick, since a rebalance hands out
//! partitions unpaused.
//!
//! Partitions revoked by a rebalance are dropped from the state before anything else is read
//! (see [`crate::kafka::RoleContext::take_revoked`]): their articles are decided by the new
//! owner only. Before they go, the decisions already queued are flushed to the broker, inside
//! the rebalance ([`crate::kafka::RoleContext::before_revoke`]), so the group hands the
//! partitions on only once those decisions are on the topic. Partitions newly assigned are
//! read from only once the decisions that may concern what will be read again of them are read
//! back ([`super::history::read_back`], [`JoinState::on_past_decision`]): a new owner never
//! decides again what its predecessor decided.

use super::{PipelineError, Role, Services, StopCause, error_chain, stopped};
use crate::config::TopicsConfig;
use crate::kafka::offsets::store_next_offset;
use crate::kafka::{self, read_trace_context};
use chrono::{DateTime, TimeDelta, Utc};
use factgate_core::decide::revisions::{DEFAULT_HISTORY_BYTES, RevisionHistory};
use factgate_core::events::{
    ArticleManifest, ClaimResult, Decision, content_digest, recover_article_id,
};
use factgate_core::join::{
    Backpressure, JoinNote, JoinSettings, JoinState, TopicPartition, TracedDecision,
};
use futures::future::BoxFuture;
use futures::stream::FuturesOrdered;
use futures::{FutureExt, StreamExt};
use rdkafka::Message;
use rdkafka::TopicPartitionList;
use rdkafka::consumer::{Consumer, ConsumerContext};
use rdkafka::error::RDKafkaErrorCode;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use tracing::Instrument;

/// How often deadlines are checked.
pub const TICK: Duration = Duration::from_millis(250);
/// The longest the first deadline tick waits for the consumer to catch up after a start.
pub const TICK_HOLDOFF: Duration = Duration::from_secs(5);
/// A read that brings nothing within this long means the consumer has caught up.
const IDLE: Duration = Duration::from_millis(300);
/// Batches of decisions queued and not yet acknowledged before the join stops reading, so a
/// slow broker holds the join back rather than letting the producer's queue grow.
pub const MAX_UNACKNOWLEDGED: usize = 1024;
/// The longest the join waits, as its partitions are revoked, for the decisions it queued to be
/// acknowledged. Past it the rebalance goes on: a decision still unacknowledged then may be
/// made again by the next owner (the same decision, if every result was read again).
pub const REVOKE_FLUSH_TIMEOUT: Duration = Duration::from_secs(10);
/// Attempts at reading back past decisions for new partitions before the join gives up (and
/// stops, to be restarted) rather than decide without them.
const READ_BACK_ATTEMPTS: u32 = 3;
/// How many messages before its committed offset the join starts reading a partition newly
/// assigned to it. Some Kafka-protocol brokers serve a batch of records only from its first
/// record (tansu 0.6 answers a fetch from an offset inside a batch with the batches after it),
/// so a read starting at a committed offset inside a batch would skip the rest of that batch:
/// an undecided article would never be decided. factgate's producers batch what they send
/// within `linger.ms` (5 ms), far fewer records than this; the messages read again before the
/// committed offset belong to articles already decided, which the decisions read back make
/// replays.
pub const REWIND_ON_ASSIGN: i64 = crate::kafka::resume::REWIND;

/// What the join decides on one message read at `offset` of `tp`: a manifest or a claim result.
/// An unreadable manifest that names its article blocks that revision (fail closed: its draft
/// would otherwise never be decided); an unreadable result is counted and skipped.
fn on_message(
    state: &mut JoinState,
    topics: &TopicsConfig,
    tp: &TopicPartition,
    offset: i64,
    message: &rdkafka::message::BorrowedMessage<'_>,
) -> Vec<TracedDecision> {
    let payload = message.payload().unwrap_or_default();
    // The article's trace, set at extract: the join keeps it with the article.
    let trace = read_trace_context(message);
    let now = Utc::now();
    if tp.topic == topics.manifests {
        match serde_json::from_slice::<ArticleManifest>(payload) {
            Ok(manifest) => {
                tracing::debug!(article_id = %manifest.article_id, revision = manifest.revision, partition = tp.partition, offset, "manifest read");
                state.on_manifest_traced(tp, offset, manifest, trace, now)
            }
            Err(err) => match recover_article_id(payload) {
                // Fail closed: its draft would otherwise never be decided.
                Some(id) => {
                    crate::internal_events::join_manifest_unreadable(
                        &err,
                        &id.article_id,
                        &tp.topic,
                        tp.partition,
                        offset,
                    );
                    state.on_unreadable_manifest_traced(
                        &id.article_id,
                        id.revision,
                        &content_digest(payload),
                        &err.to_string(),
                        trace,
                        now,
                    )
                }
                None => {
                    crate::internal_events::join_manifest_unreadable_unnamed(
                        &err,
                        &tp.topic,
                        tp.partition,
                        offset,
                    );
                    Vec::new()
                }
            },
        }
    } else {
        match serde_json::from_slice::<ClaimResult>(payload) {
            Ok(result) => {
                tracing::debug!(article_id = %result.article_id, revision = result.revision, partition = tp.partition, offset, "result read");
                state.on_result_traced(tp, offset, result, trace, now)
            }
            Err(err) => {
                crate::internal_events::join_result_unreadable(
                    &err,
                    &tp.topic,
                    tp.partition,
                    offset,
                );
                Vec::new()
            }
        }
    }
}

/// Decisions queued for the broker: resolves to the offsets they make safe to store.
type Acknowledged<'a> =
    BoxFuture<'a, Result<Vec<(TopicPartition, i64)>, rdkafka::error::KafkaError>>;

pub(super) async fn run(
    services: Arc<Services>,
    stop: watch::Receiver<bool>,
) -> Result<(), PipelineError> {
    let config = &services.config;
    let topics = &config.kafka.topics;
    let consumer = kafka::consumer(&config.kafka, &services.bootstrap, "join")?;
    let producer = services.producer.clone();
    consumer
        .context()
        .before_revoke(Box::new(move || flush_before_handover(&producer)));
    // Each new partition is read from [`REWIND_ON_ASSIGN`] messages before its committed offset
    // from its first fetch: a broker that serves a batch only from its first record (tansu)
    // would otherwise send nothing of the batch holding the committed offset, and an article
    // whose manifest is there would never be decided (see `kafka::resume`).
    consumer.context().move_reads_back(false);
    consumer.subscribe(&[topics.manifests.as_str(), topics.verified.as_str()])?;
    services
        .readiness
        .watch("join", consumer.context().health());
    let mut state = JoinState::new(JoinSettings::new(
        config.join.max_in_flight_articles,
        config.join.deadline_ms,
        config.policy.strictness,
    ));
    let mut history = revision_history(&services).await;
    // The newest offset read per partition: the watermark's upper bound.
    let mut consumed: HashMap<TopicPartition, i64> = HashMap::new();
    let mut stored = StoredMarks::default();
    let started = tokio::time::Instant::now();
    let mut caught_up = false;
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut stop_signal = stop.clone();
    let stop = stopped(stop);
    tokio::pin!(stop);
    let mut paused = Paused::default();
    // Decisions queued and not yet acknowledged, batch by batch in the order made, each with
    // the offsets that become safe to store once it and every batch before it are.
    let mut unacknowledged: FuturesOrdered<Acknowledged<'_>> = FuturesOrdered::new();
    let outcome: Result<(), PipelineError> = loop {
        let wanted = state.backpressure();
        if wanted != paused.applied {
            paused.apply(&consumer, topics, wanted);
        }
        tokio::select! {
            biased;
            () = &mut stop => break Ok(()),
            Some(acknowledged) = unacknowledged.next(), if !unacknowledged.is_empty() => match acknowledged {
                Ok(marks) => {
                    // A rebalance may have run in a `recv` that returned an error: what it
                    // revoked is dropped before anything is stored.
                    drop_revoked(&consumer, &mut state, &mut consumed, &mut stored);
                    stored.store(&consumer, &marks);
                }
                Err(err) => break Err(PipelineError::Client(err)),
            },
            _ = tick.tick() => {
                paused.on_tick(&consumer, topics);
                if !caught_up && started.elapsed() < TICK_HOLDOFF {
                    continue;
                }
                drop_revoked(&consumer, &mut state, &mut consumed, &mut stored);
                let decisions = state.on_tick_traced(Utc::now());
                note_in_flight(&state);
                if decisions.is_empty() {
                    continue;
                }
                // Deadline decisions come from no message: each continues the trace its article
                // kept from its manifest.
                let marks = watermarks(&state, &consumed);
                unacknowledged.push_back(publish_all(&services, &mut history, decisions, marks).await);
            }
            received = tokio::time::timeout(IDLE, consumer.recv()), if !(wanted.manifests && wanted.results) && unacknowledged.len() < MAX_UNACKNOWLEDGED => {
                let message = match received {
                    Err(_idle) => {
                        caught_up = true;
                        continue;
                    }
                    Ok(Ok(message)) => message,
                    Ok(Err(err)) if err.rdkafka_error_code() == Some(RDKafkaErrorCode::Fatal) => {
                        break Err(PipelineError::Client(err));
                    }
                    Ok(Err(err)) => {
                        crate::internal_events::join_consumer_error(&err);
                        continue;
                    }
                };
                // A revocation runs inside `recv`: drop what the join no longer owns before
                // taking anything of the new assignment, and read back what was decided of it.
                drop_revoked(&consumer, &mut state, &mut consumed, &mut stored);
                let assigned = consumer.context().take_assigned();
                if !assigned.is_empty() {
                    match read_back_decided(&services, &mut state, &mut history, assigned, &mut stop_signal).await {
                        Ok(true) => {}
                        // Asked to stop meanwhile: nothing of the new partitions is taken.
                        Ok(false) => break Ok(()),
                        Err(err) => break Err(err),
                    }
                }
                let tp = TopicPartition {
                    topic: message.topic().to_owned(),
                    partition: message.partition(),
                };
                let offset = message.offset();
                let decisions = on_message(&mut state, topics, &tp, offset, &message);
                consumed.insert(tp, offset);
                log_notes(&mut state);
                note_in_flight(&state);
                let marks = watermarks(&state, &consumed);
                if decisions.is_empty() && unacknowledged.is_empty() {
                    stored.store(&consumer, &marks);
                } else {
                    unacknowledged.push_back(publish_all(&services, &mut history, decisions, marks).await);
                }
            }
        }
    };
    kafka::close_consumer(consumer).await?;
    outcome.map_err(|err| match err {
        PipelineError::Client(e) => PipelineError::Role {
            role: Role::Join,
            source: e.into(),
        },
        other => other,
    })
}

/// Which of the join's inputs are paused, as last applied to the consumer, and the assignment
/// it was applied to.
#[derive(Debug, Default)]
struct Paused {
    applied: Backpressure,
    assignment: Vec<TopicPartition>,
}

impl Paused {
    /// Pauses or resumes each input's assigned partitions to match `wanted`.
    fn apply<C: Consumer<K>, K: ConsumerContext>(
        &mut self,
        consumer: &C,
        topics: &TopicsConfig,
        wanted: Backpressure,
    ) {
        for (topic, was, now) in [
            (&topics.manifests, self.applied.manifests, wanted.manifests),
            (&topics.verified, self.applied.results, wanted.results),
        ] {
            if was != now {
                set_paused(consumer, topic, now);
            }
        }
        crate::internal_events::join_inputs_paused(wanted.manifests, wanted.results);
        self.applied = wanted;
    }

    /// Keeps the consumer as applied across rebalances: partitions assigned since arrive
    /// unpaused (or, revoked while paused, may come back paused), so after a change of
    /// assignment both inputs are set again; a pause is also asserted again on every call.
    fn on_tick<C: Consumer<K>, K: ConsumerContext>(&mut self, consumer: &C, topics: &TopicsConfig) {
        let assignment: Vec<TopicPartition> = match consumer.assignment() {
            Ok(list) => list
                .elements()
                .iter()
                .map(|e| TopicPartition::new(e.topic(), e.partition()))
                .collect(),
            Err(err) => {
                crate::internal_events::join_assignment_unread(&err, None);
                return;
            }
        };
        let changed = assignment != self.assignment;
        self.assignment = assignment;
        for (topic, pause) in [
            (&topics.manifests, self.applied.manifests),
            (&topics.verified, self.applied.results),
        ] {
            if pause || changed {
                set_paused(consumer, topic, pause);
            }
        }
    }
}

/// Pauses (or resumes) fetching from the consumer's assigned partitions of `topic`. A failure is
/// logged, not fatal: the state stays bounded either way (it only overshoots by what arrives).
fn set_paused<C: Consumer<K>, K: ConsumerContext>(consumer: &C, topic: &str, pause: bool) {
    let assignment = match consumer.assignment() {
        Ok(assignment) => assignment,
        Err(err) => {
            crate::internal_events::join_assignment_unread(&err, Some(topic));
            return;
        }
    };
    let mut partitions = TopicPartitionList::new();
    for element in assignment.elements_for_topic(topic) {
        partitions.add_partition(topic, element.partition());
    }
    if partitions.count() == 0 {
        return;
    }
    let result = if pause {
        consumer.pause(&partitions)
    } else {
        consumer.resume(&partitions)
    };
    match result {
        Ok(()) => tracing::debug!(topic, pause, "join back-pressure"),
        Err(err) => crate::internal_events::join_pause_failed(&err, topic, pause),
    }
}

/// Drops the state of the partitions revoked since the last call: their articles are decided
/// by the new owner, which reads them again from the committed offset (never past the earliest
/// article undecided here). The offsets stored for them were committed at revocation.
fn drop_revoked(
    consumer: &kafka::RoleConsumer,
    state: &mut JoinState,
    consumed: &mut HashMap<TopicPartition, i64>,
    stored: &mut StoredMarks,
) {
    for tp in consumer.context().take_revoked() {
        let dropped = state.revoke(&tp);
        consumed.remove(&tp);
        stored.forget(&tp);
        crate::internal_events::join_partition_revoked(&tp.topic, tp.partition, dropped);
    }
}

/// Flushes the producer as partitions are revoked, inside the rebalance: the decisions already
/// queued reach the topic before the next owner reads it back. The rebalance callback runs on
/// the thread polling the consumer, an async worker: the wait is handed to tokio
/// (`block_in_place`) so the worker's other tasks move on.
fn flush_before_handover(producer: &kafka::EventProducer) {
    use rdkafka::producer::Producer;
    let flushed = kafka::block_in_callback(|| producer.inner().flush(REVOKE_FLUSH_TIMEOUT));
    if let Err(err) = flushed {
        crate::internal_events::join_revoked_unacknowledged(&err, REVOKE_FLUSH_TIMEOUT.as_secs());
    }
}

/// Reads back the decisions that may concern what the join will read again of the partitions
/// just `assigned`, into the state (and the revision history), before any message of them is
/// taken. Retried a few times; if it cannot be done the join stops rather than decide blind.
/// `Ok(false)` when `stop` was raised first.
async fn read_back_decided(
    services: &Arc<Services>,
    state: &mut JoinState,
    history: &mut RevisionHistory,
    assigned: Vec<TopicPartition>,
    stop: &mut watch::Receiver<bool>,
) -> Result<bool, PipelineError> {
    let started = tokio::time::Instant::now();
    let mut attempt = 0;
    loop {
        attempt += 1;
        let reader = Arc::clone(services);
        let partitions = assigned.clone();
        let reading = tokio::task::spawn_blocking(move || {
            let kafka = &reader.config.kafka;
            super::history::read_back(
                kafka,
                &reader.bootstrap,
                &kafka::group_id(kafka, "join"),
                &partitions,
                &kafka.topics.decisions,
                REWIND_ON_ASSIGN,
            )
        });
        // The read is left to end on its own thread when the role stops.
        let read = tokio::select! {
            read = reading => read,
            _ = stop.wait_for(|s| *s) => return Ok(false),
        };
        let failure = match read {
            Ok(Ok(read)) => {
                let taken = read
                    .decisions
                    .iter()
                    .filter(|d| {
                        history.record(d);
                        state.on_past_decision(d)
                    })
                    .count();
                crate::internal_events::join_read_back(
                    assigned.len(),
                    taken,
                    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                );
                return Ok(true);
            }
            Ok(Err(err)) => error_chain(&err),
            Err(join_error) => join_error.to_string(),
        };
        if attempt >= READ_BACK_ATTEMPTS {
            return Err(PipelineError::Role {
                role: Role::Join,
                source: StopCause::ReadBack(failure),
            });
        }
        crate::internal_events::join_read_back_retried(&failure, attempt);
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(1)) => {}
            _ = stop.wait_for(|s| *s) => return Ok(false),
        }
    }
}

/// Reports what the join noted.
fn log_notes(state: &mut JoinState) {
    for note in state.take_notes() {
        match note {
            JoinNote::Republished {
                article_id,
                revision,
                position,
                handling,
            } => {
                crate::internal_events::draft_republished(&article_id, revision, position, handling)
            }
        }
    }
}

/// Queues decisions in the order made, each in a span of its article's trace, and returns what
/// resolves, once all are acknowledged, to `marks`: the offsets they make safe to store.
/// Decisions of one article keep their order on the decisions topic (they are queued in order
/// and the producer is idempotent).
async fn publish_all<'s>(
    services: &'s Services,
    history: &mut RevisionHistory,
    decisions: Vec<TracedDecision>,
    marks: Vec<(TopicPartition, i64)>,
) -> Acknowledged<'s> {
    let mut queued = Vec::with_capacity(decisions.len());
    for TracedDecision {
        mut decision,
        trace,
    } in decisions
    {
        // What changed since the article's previous decided revision.
        history.annotate_and_record(&mut decision);
        let trace = trace.as_ref();
        let span = tracing::info_span!(
            "decision",
            article_id = %decision.article_id,
            revision = decision.revision,
            trace_id = crate::telemetry::trace_id(trace),
        );
        crate::telemetry::adopt(&span, trace);
        let published_at = draft_published_at(&decision);
        let delivery = services
            .enqueue_decision(decision, Some(published_at), trace)
            .instrument(span.clone())
            .await;
        queued.push(delivery.instrument(span));
    }
    async move {
        futures::future::try_join_all(queued).await?;
        Ok(marks)
    }
    .boxed()
}

/// The revision history, rebuilt from the decisions topic (see `super::history`).
async fn revision_history(services: &Arc<Services>) -> RevisionHistory {
    let services = Arc::clone(services);
    let rebuilt = tokio::task::spawn_blocking(move || {
        let mut history = RevisionHistory::new(DEFAULT_HISTORY_BYTES);
        let kafka = &services.config.kafka;
        super::history::rebuild(
            kafka,
            &services.bootstrap,
            &kafka.topics.decisions,
            &mut history,
        )
        .map(|_| history)
    })
    .await;
    match rebuilt {
        Ok(Ok(history)) => history,
        Ok(Err(err)) => {
            crate::internal_events::join_history_unread(&err);
            RevisionHistory::new(DEFAULT_HISTORY_BYTES)
        }
        Err(err) => {
            crate::internal_events::join_history_unread(&err);
            RevisionHistory::new(DEFAULT_HISTORY_BYTES)
        }
    }
}

/// The draft's `published_at`: every decision the join makes comes from a manifest, and its
/// report's processing time is measured from the manifest's `published_at` to `decided_at`.
fn draft_published_at(decision: &Decision) -> DateTime<Utc> {
    let processing = decision.report.verification_details.processing_time_seconds;
    let millis = (processing * 1000.0).round();
    // Finite and within chrono's range for any real draft; otherwise fall back to decided_at.
    if millis.is_finite() && millis.abs() < 1e15 {
        decision.decided_at - TimeDelta::milliseconds(millis as i64)
    } else {
        decision.decided_at
    }
}

/// Sets the in-flight gauge after the state changed.
fn note_in_flight(state: &JoinState) {
    crate::internal_events::join_in_flight(state.in_flight());
}

/// For every partition read, the offset that is safe to commit once the decisions made so far
/// are acknowledged: never past the earliest undecided article.
fn watermarks(
    state: &JoinState,
    consumed: &HashMap<TopicPartition, i64>,
) -> Vec<(TopicPartition, i64)> {
    consumed
        .iter()
        .filter_map(|(tp, &up_to)| {
            let offset = state.commit_watermark(&tp.topic, tp.partition, up_to)?;
            Some((tp.clone(), offset))
        })
        .collect()
}

/// The offset last stored for each partition the join owns. Every message recomputes the
/// watermark of every partition read, and most do not move: storing only those that did spares
/// the consumer a partition list per partition per message. A revoked partition is forgotten, so
/// its watermark is stored again if it comes back.
#[derive(Debug, Default)]
struct StoredMarks(HashMap<TopicPartition, i64>);

impl StoredMarks {
    /// Stores offsets [`watermarks`] computed, once what came before them is acknowledged.
    fn store(&mut self, consumer: &kafka::RoleConsumer, marks: &[(TopicPartition, i64)]) {
        for (tp, offset) in marks {
            if self.0.get(tp) == Some(offset) {
                continue;
            }
            match store_next_offset(consumer, &tp.topic, tp.partition, *offset) {
                Ok(()) => {
                    tracing::debug!(topic = %tp.topic, partition = tp.partition, offset, "offset stored");
                    self.0.insert(tp.clone(), *offset);
                }
                Err(err) => {
                    crate::internal_events::join_offset_not_stored(&err, &tp.topic, tp.partition);
                }
            }
        }
    }

    fn forget(&mut self, tp: &TopicPartition) {
        self.0.remove(tp);
    }
}
