//! The verify role: checks verification requests concurrently (the fetcher's per-host limits
//! apply within), one result per request. A check that panics still answers: an inconclusive
//! result with its reason, which blocks. A source too slow for the time the deadline leaves is
//! answered as timed out, before the deadline. A request past its deadline is not fetched: the join has
//! blocked its article already.
//!
//! Up to [`VERIFY_CONCURRENCY`] checks are worked at once; a check's result is queued and its
//! slot handed on, and up to [`VERIFY_IN_FLIGHT`] requests may wait for their acknowledgement.
//! Offsets move only past requests whose result is acknowledged, and never past one still in
//! flight (see [`crate::kafka::offsets`]). A new partition is read from its committed offset
//! ([`crate::kafka::resume`]).

use super::{PipelineError, Role, Services, StopCause, stopped};
use crate::internal_events;
use crate::kafka::offsets::{InOrderOffsets, store_next_offset};
use crate::kafka::{self, is_message_fault, read_trace_context};
use crate::verify::Verifier;
use chrono::Utc;
use factgate_core::events::{
    CLAIM_RESULT_V1, ClaimResult, TraceContext, VerifyRequest, encode_within, fit_result, to_json,
};
use factgate_core::roles;
use futures::FutureExt;
use rdkafka::Message;
use rdkafka::consumer::Consumer;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::task::JoinSet;
use tracing::Instrument;

/// Checks being worked at once in one verify role (fetching or judging).
pub const VERIFY_CONCURRENCY: usize = 32;
/// Requests read and not yet done at once: checks being worked, and checks whose result waits
/// for the broker's acknowledgement. A check gives its slot to the next request as soon as its
/// result is queued, so the broker's round trip (and the producer's `linger.ms`) does not hold
/// back judging; this bounds the requests held in memory and the offsets waiting behind them.
pub const VERIFY_IN_FLIGHT: usize = 512;

/// Where a finished check's message was.
type Done = (String, i32, i64);

pub(super) async fn run(
    services: Arc<Services>,
    verifier: Verifier,
    stop: watch::Receiver<bool>,
) -> Result<(), PipelineError> {
    let consumer = kafka::consumer(&services.config.kafka, &services.bootstrap, "verify")?;
    consumer.subscribe(&[services.config.kafka.topics.verify.as_str()])?;
    services
        .readiness
        .watch("verify", consumer.context().health());
    let limit = Arc::new(Semaphore::new(VERIFY_CONCURRENCY));
    let mut tasks: JoinSet<Result<Done, KafkaError>> = JoinSet::new();
    let mut offsets = InOrderOffsets::default();
    let mut resume = kafka::ResumeAtCommitted::new(&consumer);
    // A slot taken for the next request before it is read. Waiting on the semaphore, rather
    // than reading only while a slot is free, wakes the loop as soon as a check hands its slot
    // on; otherwise it would wait for some check's acknowledgement to look again.
    let mut slot: Option<OwnedSemaphorePermit> = None;
    let stop = stopped(stop);
    tokio::pin!(stop);
    let outcome = loop {
        tokio::select! {
            biased;
            // In-flight checks are abandoned with their offsets unstored: done again on restart.
            () = &mut stop => break Ok(()),
            Some(joined) = tasks.join_next(), if !tasks.is_empty() => match joined {
                Ok(Ok((topic, partition, offset))) => {
                    if let Some(next) = offsets.done(&topic, partition, offset)
                        && let Err(err) = store_next_offset(&consumer, &topic, partition, next)
                    {
                        internal_events::verify_offset_not_stored(&err, &topic, partition);
                    }
                }
                Ok(Err(err)) => break Err(PipelineError::Client(err)),
                // Panics are caught inside the task: only a cancelled task ends here, at shutdown.
                Err(join_error) => break Err(PipelineError::Role {
                    role: Role::Verify,
                    source: StopCause::Aborted(join_error),
                }),
            },
            taken = Arc::clone(&limit).acquire_owned(), if slot.is_none() => match taken {
                Ok(permit) => slot = Some(permit),
                // Cannot happen: the semaphore is never closed. Fail loudly rather than spin.
                Err(_closed) => break Err(PipelineError::Role { role: Role::Verify, source: StopCause::NoCheckSlot }),
            },
            received = consumer.recv(), if slot.is_some() && tasks.len() < VERIFY_IN_FLIGHT => {
                let message = match received {
                    Ok(message) => message.detach(),
                    Err(err) if err.rdkafka_error_code() == Some(RDKafkaErrorCode::Fatal) => {
                        break Err(PipelineError::Client(err));
                    }
                    Err(err) => {
                        internal_events::task_consumer_error("verify", &err);
                        continue;
                    }
                };
                // Before the committed offset, or read again from before it: not this role's to
                // check now, and the slot stays taken for the next request.
                if resume.admit(&consumer, message.topic(), message.partition(), message.offset()) == kafka::Admit::Skip {
                    continue;
                }
                let Some(permit) = slot.take() else {
                    // Cannot happen: the branch runs only with a slot taken. Fail loudly rather
                    // than lose the message silently.
                    break Err(PipelineError::Role { role: Role::Verify, source: StopCause::NoCheckSlot });
                };
                offsets.start(message.topic(), message.partition(), message.offset());
                let services = Arc::clone(&services);
                let verifier = verifier.clone();
                tasks.spawn(async move {
                    let done = (message.topic().to_owned(), message.partition(), message.offset());
                    let trace = read_trace_context(&message);
                    let handled = AssertUnwindSafe(handle(&services, &verifier, message.payload().unwrap_or_default(), trace.as_ref(), permit))
                        .catch_unwind()
                        .await;
                    match handled {
                        Ok(outcome) => outcome?,
                        // A defect tied to this request: the join blocks its article at the
                        // deadline; the role reads on.
                        Err(_panic) => {
                            internal_events::request_panicked(&done.0, done.1, done.2);
                        }
                    }
                    Ok(done)
                });
            }
        }
    };
    tasks.shutdown().await;
    kafka::close_consumer(consumer).await?;
    outcome
}

/// Checks one request and publishes its result. `slot` is the request's share of
/// [`VERIFY_CONCURRENCY`], given back once its result is queued.
async fn handle(
    services: &Services,
    verifier: &Verifier,
    payload: &[u8],
    trace: Option<&TraceContext>,
    slot: OwnedSemaphorePermit,
) -> Result<(), KafkaError> {
    let request: VerifyRequest = match serde_json::from_slice(payload) {
        Ok(request) => request,
        Err(err) => {
            // Not something factgate wrote: there is no claim to answer for. The join blocks the
            // article at its deadline, listing the check that never came.
            internal_events::request_unreadable(&err, payload.len());
            return Ok(());
        }
    };
    let span = tracing::info_span!(
        "check",
        article_id = %request.article_id,
        revision = request.revision,
        claim_id = %request.claim.id,
        source_host = %request.source_host,
        trace_id = crate::telemetry::trace_id(trace),
    );
    crate::telemetry::adopt(&span, trace);
    check_and_publish(services, verifier, &request, trace, slot)
        .instrument(span)
        .await
}

async fn check_and_publish(
    services: &Services,
    verifier: &Verifier,
    request: &VerifyRequest,
    trace: Option<&TraceContext>,
    slot: OwnedSemaphorePermit,
) -> Result<(), KafkaError> {
    let now = Utc::now();
    if now >= request.deadline {
        internal_events::request_expired(&request.article_id, request.revision, &request.claim.id);
        return Ok(());
    }
    // The check gets the time left before the deadline, less a margin for its answer to reach
    // the join: a source too slow for it is answered as one that timed out (its fault, said so)
    // rather than left for the join to find missing, which then means factgate never got to it.
    let left = (request.deadline - now).to_std().unwrap_or_default();
    let budget = left.saturating_sub(ANSWER_MARGIN.min(left / 4));
    let check = verifier.verify_claim(
        &request.article_id,
        request.revision,
        &request.claim,
        &request.source_url,
    );
    let mut result =
        match tokio::time::timeout(budget, AssertUnwindSafe(check).catch_unwind()).await {
            Ok(Ok(result)) => result,
            Ok(Err(_panic)) => internal_failure(request, "the check failed internally"),
            Err(_elapsed) => source_too_slow(request, budget),
        };
    result.draft_position = request.draft_position;
    let size_budget = services.config.kafka.max_payload_bytes();
    let payload = match encode_within(&mut result, size_budget, fit_result) {
        Ok((payload, false)) => payload,
        Ok((payload, true)) => {
            internal_events::result_shortened(&result);
            payload
        }
        Err(oversize) => {
            result = internal_failure(request, &oversize.to_string());
            to_json(&result)
        }
    };
    let topics = &services.config.kafka.topics;
    let queued = services
        .enqueue_json(
            &topics.verified,
            &request.article_id,
            CLAIM_RESULT_V1,
            &payload,
            trace,
        )
        .await;
    // Queued: the producer holds its own copy.
    drop(payload);
    let sent = match queued {
        Ok(delivery) => {
            // The check is done: its slot goes to the next request while the broker acknowledges.
            drop(slot);
            delivery.acknowledged().await.map(|_| ())
        }
        Err(err) => Err(err),
    };
    match sent {
        Ok(()) => {}
        Err(err) if is_message_fault(&err) => {
            // The smallest result that still answers the check, so the join can decide.
            let mut fallback =
                internal_failure(request, &format!("the result could not be sent: {err}"));
            // Cut to fit when it can be; if it cannot, the broker says so below.
            let _ = fit_result(&mut fallback, size_budget);
            match services
                .publish(
                    &topics.verified,
                    &request.article_id,
                    CLAIM_RESULT_V1,
                    &fallback,
                    trace,
                )
                .await
            {
                Ok(()) => result = fallback,
                Err(again) if is_message_fault(&again) => {
                    internal_events::result_refused(&request.article_id, &request.claim.id, &again);
                    return Ok(());
                }
                Err(again) => return Err(again),
            }
        }
        Err(err) => return Err(err),
    }
    internal_events::result_published(&result);
    Ok(())
}

/// The result of a check that could not run ([`roles::failed_check`]), logged.
/// The most of a check's time kept for its answer to reach the join before the deadline (a
/// quarter of what is left, when less than four times this is).
const ANSWER_MARGIN: std::time::Duration = std::time::Duration::from_secs(2);

/// The answer for a check whose source did not answer in the time the draft's deadline left it:
/// the source timed out, which leaves it unjudged (and blocks), said as the source's doing.
fn source_too_slow(request: &VerifyRequest, waited: std::time::Duration) -> ClaimResult {
    let mut result = roles::failed_check(
        request,
        &format!(
            "{} ({:.1} s)",
            factgate_core::events::DEADLINE_TIMEOUT_REASON,
            waited.as_secs_f64()
        ),
        Utc::now(),
    );
    result.fetch_status = factgate_core::events::FetchStatus::Timeout;
    if let Some(issue) = result.issue.as_mut() {
        issue.problem = "The source was too slow: it did not answer in the time the draft's \
                         deadline left for its check"
            .to_owned();
        issue.evidence = format!(
            "{}: no answer in {:.1} s, before the deadline",
            request.source_url,
            waited.as_secs_f64()
        );
        issue.recommendation =
            "Check the source is reachable and quick to answer, then publish the draft again"
                .to_owned();
    }
    result
}

fn internal_failure(request: &VerifyRequest, reason: &str) -> ClaimResult {
    internal_events::check_failed(&request.article_id, &request.claim.id, reason);
    roles::failed_check(request, reason, Utc::now())
}
