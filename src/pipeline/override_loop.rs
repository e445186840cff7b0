//! The join's overrides: editors' overrides read from `kafka.topics.overrides` (consumer group
//! `{group_prefix}-join-overrides`, beside the join's own), each answered with a new decision on
//! its revision ([`factgate_core::decide::waive::apply_override`]) or refused with a log line and a
//! metric. Kept apart from the join's loop over manifests and results: an override answers a
//! decision already made, which the process's board holds (read from the decisions topic), so it
//! needs none of the join's state.
//!
//! An override names the decision it answers. Until the board has read that decision (just
//! after a start, or an override sent the moment the decision was made), the override waits
//! aside, up to [`WAIT_FOR_DECISION`], then is refused; the overrides after it are answered
//! meanwhile, so one naming a decision that never comes holds up none. Offsets are stored in
//! order, each once every override before it is answered (its decision acknowledged, or
//! refused); a replayed override whose waiver is already in the decision in force changes
//! nothing.

use super::{PipelineError, Services, stopped};
use crate::board::RevisionState;
use crate::internal_events;
use crate::kafka;
use crate::kafka::offsets::{InOrderOffsets, store_next_offset};
use crate::metrics::OverrideRefused;
use factgate_core::decide::waive::{OverrideRefusal, already_applied, apply_override};
use factgate_core::events::OverrideEvent;
use rdkafka::Message;
use rdkafka::consumer::Consumer;
use rdkafka::error::RDKafkaErrorCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// How long an override waits for the board to hold the decision it names.
pub const WAIT_FOR_DECISION: Duration = Duration::from_secs(15);
/// How often it looks again meanwhile.
const LOOK_AGAIN: Duration = Duration::from_millis(200);

/// The overrides consumer, as its errors name it.
const OVERRIDES_TASK: &str = "the join's overrides";

/// An override whose decision the board does not hold yet, set aside while the next ones are
/// answered.
struct Waiting {
    over: OverrideEvent,
    topic: String,
    partition: i32,
    offset: i64,
    until: tokio::time::Instant,
}

/// Most overrides set aside at once; past it the loop answers the oldest before reading on.
const MAX_WAITING: usize = 256;

pub(super) async fn run(
    services: Arc<Services>,
    stop: watch::Receiver<bool>,
) -> Result<(), PipelineError> {
    let topic = services.config.kafka.topics.overrides.clone();
    let consumer = kafka::consumer(
        &services.config.kafka,
        &services.bootstrap,
        "join-overrides",
    )?;
    consumer.subscribe(&[topic.as_str()])?;
    let stop = stopped(stop);
    tokio::pin!(stop);
    let mut resume = kafka::ResumeAtCommitted::new(&consumer);
    // Overrides naming a decision not held yet wait aside, each up to WAIT_FOR_DECISION, so an
    // override naming a decision that never comes holds up no other. Offsets are stored in
    // order: one past the oldest override not yet answered.
    let mut waiting: Vec<Waiting> = Vec::new();
    let mut offsets = InOrderOffsets::default();
    let outcome = loop {
        let received = tokio::select! {
            biased;
            () = &mut stop => break Ok(()),
            () = tokio::time::sleep(LOOK_AGAIN), if !waiting.is_empty() => None,
            received = consumer.recv(), if waiting.len() < MAX_WAITING => Some(received),
        };
        if let Err(err) = look_again(&services, &consumer, &mut waiting, &mut offsets).await {
            break Err(PipelineError::Client(err));
        }
        let message = match received {
            None => continue,
            Some(Ok(message)) => message,
            Some(Err(err)) if err.rdkafka_error_code() == Some(RDKafkaErrorCode::Fatal) => {
                break Err(PipelineError::Task {
                    task: OVERRIDES_TASK.to_owned(),
                    source: err.into(),
                });
            }
            Some(Err(err)) => {
                internal_events::task_consumer_error(OVERRIDES_TASK, &err);
                continue;
            }
        };
        if resume.admit(
            &consumer,
            message.topic(),
            message.partition(),
            message.offset(),
        ) == kafka::Admit::Skip
        {
            continue;
        }
        let (topic, partition, offset) = (
            message.topic().to_owned(),
            message.partition(),
            message.offset(),
        );
        offsets.start(&topic, partition, offset);
        let payload = message.payload().unwrap_or_default();
        match serde_json::from_slice::<OverrideEvent>(payload) {
            Ok(over) => {
                let answered = tokio::select! {
                    biased;
                    () = &mut stop => break Ok(()),
                    answered = answer(&services, &over, false) => answered,
                };
                match answered {
                    Ok(Answer::Done) => {}
                    Ok(Answer::Wait) => {
                        waiting.push(Waiting {
                            over,
                            topic,
                            partition,
                            offset,
                            until: tokio::time::Instant::now() + WAIT_FOR_DECISION,
                        });
                        continue;
                    }
                    // A fault of the broker: the override is read again after a restart.
                    Err(err) => break Err(PipelineError::Client(err)),
                }
            }
            Err(err) => crate::internal_events::override_refused(
                None,
                OverrideRefused::Unreadable,
                &err.to_string(),
            ),
        }
        finished(&consumer, &mut offsets, &topic, partition, offset);
    };
    kafka::close_consumer(consumer).await?;
    outcome
}

/// The overrides set aside, tried again: each answered once the board holds its decision, or
/// refused once its wait is over.
async fn look_again(
    services: &Services,
    consumer: &kafka::RoleConsumer,
    waiting: &mut Vec<Waiting>,
    offsets: &mut InOrderOffsets,
) -> Result<(), rdkafka::error::KafkaError> {
    let now = tokio::time::Instant::now();
    let mut still = Vec::with_capacity(waiting.len());
    for w in waiting.drain(..) {
        let last_chance = now >= w.until;
        match answer(services, &w.over, last_chance).await? {
            Answer::Wait => still.push(w),
            Answer::Done => finished(consumer, offsets, &w.topic, w.partition, w.offset),
        }
    }
    *waiting = still;
    Ok(())
}

/// An override answered: its offset done, and the partition's stored offset moved on when it can.
fn finished(
    consumer: &kafka::RoleConsumer,
    offsets: &mut InOrderOffsets,
    topic: &str,
    partition: i32,
    offset: i64,
) {
    if let Some(next) = offsets.done(topic, partition, offset)
        && let Err(err) = store_next_offset(consumer, topic, partition, next)
    {
        internal_events::override_offset_not_stored(&err);
    }
}

/// What became of an override tried.
enum Answer {
    /// Applied, refused, or applied already.
    Done,
    /// The decision it names is not held yet: try it again later.
    Wait,
}

/// Applies `over` to the decision in force on its revision and publishes the new decision, or
/// refuses it. An override naming a decision the board does not hold is left to wait
/// ([`Answer::Wait`]) unless this is its `last_chance`.
///
/// # Errors
/// A fault of the broker while publishing.
async fn answer(
    services: &Services,
    over: &OverrideEvent,
    last_chance: bool,
) -> Result<Answer, rdkafka::error::KafkaError> {
    let strictness = services.config.policy.strictness;
    let held = match services.board.lookup(&over.article_id, Some(over.revision)) {
        Some((_, RevisionState::Decided(decision))) => Some(decision),
        _ => None,
    };
    let latest = services
        .board
        .lookup(&over.article_id, None)
        .map(|(revision, _)| revision);
    let refusal = match held.as_deref() {
        Some(decision) if already_applied(decision, over) => {
            crate::internal_events::override_duplicate(over);
            return Ok(Answer::Done);
        }
        // The newest record of the article on the decisions topic must be its latest
        // revision's: a pass for an older revision would read as the article's.
        _ if latest.is_some_and(|latest| latest > over.revision) => OverrideRefusal::Superseded {
            named: over.revision,
            latest: latest.unwrap_or_default(),
        },
        Some(decision) => match apply_override(decision, over, strictness) {
            Ok(overriding) => {
                let applied = overriding.clone();
                services
                    .enqueue_decision(overriding, None, None)
                    .await
                    .await?;
                crate::internal_events::override_applied(over, &applied);
                return Ok(Answer::Done);
            }
            Err(refusal) => refusal,
        },
        None => OverrideRefusal::OtherDecision {
            named: over.decision_id.clone(),
            current: "none held".to_owned(),
        },
    };
    // A decision the board has not read yet may be the one named: it waits a while.
    if matches!(refusal, OverrideRefusal::OtherDecision { .. }) && !last_chance {
        return Ok(Answer::Wait);
    }
    let why = match refusal {
        OverrideRefusal::OtherDecision { .. } => OverrideRefused::OtherDecision,
        OverrideRefusal::NoSuchFinding { .. } => OverrideRefused::NoSuchFinding,
        OverrideRefusal::NotWaivable => OverrideRefused::NotWaivable,
        OverrideRefusal::Superseded { .. } => OverrideRefused::Superseded,
        OverrideRefusal::RecheckDecision | OverrideRefusal::Invalid(_) => OverrideRefused::Invalid,
    };
    crate::internal_events::override_refused(Some(over), why, &refusal.to_string());
    Ok(Answer::Done)
}
