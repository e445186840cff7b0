//! The join's overrides: editors' overrides read from `kafka.topics.overrides` (consumer group
//! `{group_prefix}-join-overrides`, beside the join's own), each answered with a new decision on
//! its revision ([`factgate_core::decide::waive::apply_override`]) or refused with a log line and a
//! metric. Kept apart from the join's loop over manifests and results: an override answers a
//! decision already made, which the process's board holds (read from the decisions topic), so it
//! needs none of the join's state.
//!
//! An override names the decision it answers. Until the board has read that decision (just
//! after a start, or an override sent the moment the decision was made), the override waits, up
//! to [`WAIT_FOR_DECISION`], then is refused. Its offset is stored once its decision is
//! acknowledged or it is refused; a replayed override whose waiver is already in the decision in
//! force changes nothing.

use super::{PipelineError, Services, stopped};
use crate::board::RevisionState;
use crate::internal_events;
use crate::kafka;
use crate::kafka::offsets::store_next_offset;
use crate::metrics::OverrideRefused;
use factgate_core::decide::waive::{OverrideRefusal, already_applied, apply_override};
use factgate_core::events::OverrideEvent;
use rdkafka::Message;
use rdkafka::consumer::Consumer;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// How long an override waits for the board to hold the decision it names.
pub const WAIT_FOR_DECISION: Duration = Duration::from_secs(15);
/// How often it looks again meanwhile.
const LOOK_AGAIN: Duration = Duration::from_millis(200);

/// The overrides consumer, as its errors name it.
const OVERRIDES_TASK: &str = "the join's overrides";

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
    let outcome = loop {
        let message = match kafka::next_or_stop(&consumer, &mut stop, OVERRIDES_TASK).await {
            Ok(Some(message)) => message,
            Ok(None) => break Ok(()),
            Err(err) => {
                break Err(PipelineError::Task {
                    task: OVERRIDES_TASK.to_owned(),
                    source: err.into(),
                });
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
        let payload = message.payload().unwrap_or_default();
        match serde_json::from_slice::<OverrideEvent>(payload) {
            Ok(over) => {
                let answered = tokio::select! {
                    biased;
                    () = &mut stop => break Ok(()),
                    answered = answer(&services, &over) => answered,
                };
                if let Err(err) = answered {
                    // A fault of the broker: the override is read again after a restart.
                    break Err(PipelineError::Client(err));
                }
            }
            Err(err) => crate::internal_events::override_refused(
                None,
                OverrideRefused::Unreadable,
                &err.to_string(),
            ),
        }
        if let Err(err) = store_next_offset(
            &consumer,
            message.topic(),
            message.partition(),
            message.offset() + 1,
        ) {
            internal_events::override_offset_not_stored(&err);
        }
    };
    kafka::close_consumer(consumer).await?;
    outcome
}

/// Applies `over` to the decision in force on its revision and publishes the new decision, or
/// refuses it.
///
/// # Errors
/// A fault of the broker while publishing.
async fn answer(
    services: &Services,
    over: &OverrideEvent,
) -> Result<(), rdkafka::error::KafkaError> {
    let strictness = services.config.policy.strictness;
    let until = tokio::time::Instant::now() + WAIT_FOR_DECISION;
    loop {
        let held = match services.board.lookup(&over.article_id, Some(over.revision)) {
            Some((_, RevisionState::Decided(decision))) => Some(decision),
            _ => None,
        };
        let refusal = match held.as_deref() {
            Some(decision) if already_applied(decision, over) => return Ok(()),
            Some(decision) => match apply_override(decision, over, strictness) {
                Ok(overriding) => {
                    let applied = overriding.clone();
                    services
                        .enqueue_decision(overriding, None, None)
                        .await
                        .await?;
                    crate::internal_events::override_applied(over, &applied);
                    return Ok(());
                }
                Err(refusal) => refusal,
            },
            None => OverrideRefusal::OtherDecision {
                named: over.decision_id.clone(),
                current: "none held".to_owned(),
            },
        };
        // A decision the board has not read yet may be the one named: wait for it a while.
        let may_arrive = matches!(refusal, OverrideRefusal::OtherDecision { .. });
        if may_arrive && tokio::time::Instant::now() < until {
            tokio::time::sleep(LOOK_AGAIN).await;
            continue;
        }
        let why = match refusal {
            OverrideRefusal::OtherDecision { .. } => OverrideRefused::OtherDecision,
            OverrideRefusal::NoSuchFinding { .. } => OverrideRefused::NoSuchFinding,
            OverrideRefusal::NotWaivable => OverrideRefused::NotWaivable,
            OverrideRefusal::RecheckDecision | OverrideRefusal::Invalid(_) => {
                OverrideRefused::Invalid
            }
        };
        crate::internal_events::override_refused(Some(over), why, &refusal.to_string());
        return Ok(());
    }
}
