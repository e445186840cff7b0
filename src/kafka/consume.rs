//! At-least-once consumption: a message's offset is stored only after everything its handler
//! produced is acknowledged, so a crash or a failed output makes the message be read again rather
//! than lost.
//!
//! # The guarantee
//! [`consume_at_least_once`] handles messages one at a time, in order. For each, it awaits the
//! handler; only when the handler returns `Ok` (its outputs are acknowledged by the broker) does it
//! store the message's offset, and librdkafka commits stored offsets in the background every
//! `auto.commit.interval.ms`, on rebalance and when the consumer closes. So the committed offset
//! of a partition never passes a message whose outputs are not acknowledged: after a crash, a
//! restart or a rebalance, the group resumes at the first unacknowledged message. Messages whose
//! outputs were acknowledged but not yet committed are handled again: outputs are duplicated,
//! never missing, and the stages downstream are idempotent (DESIGN.md, "Contracts").
//!
//! A handler error stops the loop without storing that message's offset, and nothing after it is
//! stored either: the caller restarts the consumer (or the role), which reads the message again.

use std::future::Future;
use std::sync::Arc;

use rdkafka::Message;
use rdkafka::consumer::{CommitMode, Consumer, ConsumerContext, StreamConsumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::OwnedMessage;
use tracing::warn;

use super::KafkaSetupError;

/// Why [`consume_at_least_once`] stopped before its shutdown signal.
#[derive(Debug, thiserror::Error)]
pub enum ConsumeError<E> {
    /// The handler could not get its outputs acknowledged; this message's offset is not stored.
    #[error("handling {topic}/{partition}@{offset} failed; its offset is not stored")]
    Handler {
        /// Topic of the message.
        topic: String,
        /// Partition of the message.
        partition: i32,
        /// Offset of the message, where the group resumes.
        offset: i64,
        #[source]
        source: E,
    },
    /// librdkafka reported a fatal error: this consumer instance cannot go on.
    #[error("the consumer failed fatally")]
    Fatal(#[source] KafkaError),
}

/// Reads `consumer` (already subscribed) until `shutdown` resolves, passing each message to
/// `handler` and storing its offset once the handler's future resolves `Ok`: see the module docs
/// for the guarantee.
///
/// Shutdown abandons the message in hand without storing its offset, then asks for an immediate
/// commit of what was stored (asynchronous: it does not block; closing the consumer, e.g. with
/// [`close_consumer`], commits again and waits).
///
/// Transient consumer errors (a broker briefly unreachable) are logged and reading goes on:
/// librdkafka reconnects by itself.
///
/// # Errors
/// [`ConsumeError::Handler`] when the handler fails, [`ConsumeError::Fatal`] on a fatal
/// librdkafka error.
pub async fn consume_at_least_once<C, H, Fut, E>(
    consumer: &StreamConsumer<C>,
    shutdown: impl Future<Output = ()>,
    mut handler: H,
) -> Result<(), ConsumeError<E>>
where
    C: ConsumerContext + 'static,
    H: FnMut(OwnedMessage) -> Fut,
    Fut: Future<Output = Result<(), E>>,
{
    tokio::pin!(shutdown);
    loop {
        let received = tokio::select! {
            biased;
            () = &mut shutdown => break,
            received = consumer.recv() => received,
        };
        let message = match received {
            Ok(message) => message,
            Err(err) if err.rdkafka_error_code() == Some(RDKafkaErrorCode::Fatal) => {
                return Err(ConsumeError::Fatal(err));
            }
            Err(err) => {
                warn!(error = %err, "consumer error; reading on");
                continue;
            }
        };
        let outcome = tokio::select! {
            biased;
            // In-flight work is abandoned unstored: it is done again after the restart.
            () = &mut shutdown => break,
            outcome = handler(message.detach()) => outcome,
        };
        match outcome {
            Ok(()) => {
                // Fails only when the partition was revoked meanwhile: its new owner reads the
                // message again, which at-least-once allows.
                if let Err(err) = consumer.store_offset_from_message(&message) {
                    warn!(
                        error = %err,
                        topic = message.topic(),
                        partition = message.partition(),
                        "offset not stored"
                    );
                }
            }
            Err(source) => {
                return Err(ConsumeError::Handler {
                    topic: message.topic().to_owned(),
                    partition: message.partition(),
                    offset: message.offset(),
                    source,
                });
            }
        }
    }
    if let Err(err) = consumer.commit_consumer_state(CommitMode::Async)
        && !is_nothing_to_commit(&err)
    {
        warn!(error = %err, "commit on shutdown failed; the close commits again");
    }
    Ok(())
}

/// Commits the stored offsets now and waits for the broker's answer, on the blocking pool (a
/// synchronous commit blocks). For a role that stores offsets itself and must know they are
/// committed; [`consume_at_least_once`] relies on the background commits instead.
///
/// Keep receiving from the consumer meanwhile: rebalances are handled only while it is polled,
/// and a consumer left unpolled after a coordinator change has its commits refused with
/// `AssignmentLost`.
///
/// # Errors
/// [`KafkaSetupError::Commit`] when the broker refuses (nothing stored is not an error),
/// [`KafkaSetupError::Blocking`] when the runtime refuses the task.
pub async fn commit_stored_offsets<C>(
    consumer: Arc<StreamConsumer<C>>,
) -> Result<(), KafkaSetupError>
where
    C: ConsumerContext + 'static,
{
    tokio::task::spawn_blocking(
        move || match consumer.commit_consumer_state(CommitMode::Sync) {
            Err(err) if is_nothing_to_commit(&err) => Ok(()),
            other => other,
        },
    )
    .await
    .map_err(|e| KafkaSetupError::Blocking(e.to_string()))?
    .map_err(KafkaSetupError::Commit)
}

/// Closes a consumer on the blocking pool: leaving the group and the final commit of stored
/// offsets block, and would otherwise stall an async worker thread.
///
/// # Errors
/// [`KafkaSetupError::Blocking`] when the runtime refuses the task.
pub async fn close_consumer<C>(consumer: StreamConsumer<C>) -> Result<(), KafkaSetupError>
where
    C: ConsumerContext + 'static,
{
    let closing = tokio::task::spawn_blocking(move || drop(consumer));
    match tokio::time::timeout(CLOSE_TIMEOUT, closing).await {
        Ok(joined) => joined.map_err(|e| KafkaSetupError::Blocking(e.to_string())),
        Err(_elapsed) => {
            // The broker is gone: librdkafka would wait for it forever. The final commit is lost,
            // which at-least-once allows (the messages are read again); the thread is left to
            // end with the process.
            warn!(
                timeout_s = CLOSE_TIMEOUT.as_secs(),
                "the consumer did not close in time (broker unreachable?); giving up on it"
            );
            Ok(())
        }
    }
}

/// How long closing a consumer (leaving the group, the final commit) may take.
pub const CLOSE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

fn is_nothing_to_commit(err: &KafkaError) -> bool {
    err.rdkafka_error_code() == Some(RDKafkaErrorCode::NoOffset)
}
