//! At-least-once consumption: a message's offset is stored only after everything its handler
//! produced is acknowledged, so a crash or a failed output makes the message be read again rather
//! than lost.
//!
//! # The guarantee
//! [`consume_in_flight`] keeps up to a window of messages being handled at once. Messages with
//! the same key (an article, for drafts) are handled one after another in the order read, so what
//! one article's messages produce keeps their order; messages of different keys run
//! concurrently. A partition's offset is stored only past messages whose handler returned `Ok`
//! (its outputs are acknowledged by the broker) *and* every message before them in that
//! partition ([`InOrderOffsets`]), and librdkafka commits stored offsets in the background every
//! `auto.commit.interval.ms`, on rebalance and when the consumer closes. So the committed offset
//! of a partition never passes a message whose outputs are not acknowledged: after a crash, a
//! restart or a rebalance, the group resumes at the first unacknowledged message. Messages whose
//! outputs were acknowledged but not yet committed are handled again: outputs are duplicated,
//! never missing, and the stages downstream are idempotent (docs/design.md, "Contracts").
//!
//! A handler error stops the loop without storing that message's offset, and nothing after it is
//! stored either: the caller restarts the consumer (or the role), which reads the message again.
//! [`consume_at_least_once`] is the same with a window of one.
//!
//! A new partition is read from its committed offset ([`ResumeAtCommitted`]), also on a broker
//! that would answer from the next record batch.

use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future;
use std::sync::Arc;

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use rdkafka::Message;
use rdkafka::consumer::{CommitMode, Consumer, ConsumerContext, StreamConsumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::OwnedMessage;

use super::offsets::{InOrderOffsets, store_next_offset};
use super::resume::{Admit, ResumeAtCommitted};
use super::{KafkaSetupError, RoleConsumer};

/// Why [`consume_in_flight`] stopped before its shutdown signal.
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

/// [`consume_in_flight`] with one message at a time.
///
/// # Errors
/// As [`consume_in_flight`].
pub async fn consume_at_least_once<H, Fut, E>(
    consumer: &RoleConsumer,
    shutdown: impl Future<Output = ()>,
    handler: H,
) -> Result<(), ConsumeError<E>>
where
    H: FnMut(OwnedMessage) -> Fut,
    Fut: Future<Output = Result<(), E>>,
{
    consume_in_flight(consumer, shutdown, 1, handler).await
}

/// Where a message was, kept while it is handled.
struct Place {
    topic: String,
    partition: i32,
    offset: i64,
    /// Its key, when it has one: messages with one key are handled in order.
    key: Option<Vec<u8>>,
}

impl Place {
    fn of(message: &OwnedMessage) -> Self {
        Self {
            topic: message.topic().to_owned(),
            partition: message.partition(),
            offset: message.offset(),
            key: message.key().map(<[u8]>::to_vec),
        }
    }
}

/// Reads `consumer` (already subscribed) until `shutdown` resolves, with up to `window` messages
/// (at least one) read and not yet done, passing each to `handler`, and storing offsets as the
/// module docs say. The handler's futures run concurrently on the caller's task: CPU-heavy work
/// belongs on a pool (as extraction does), so that the loop keeps reading and producing.
///
/// Shutdown abandons the messages in hand without storing their offsets, then asks for an
/// immediate commit of what was stored (asynchronous: it does not block; closing the consumer,
/// e.g. with [`close_consumer`], commits again and waits).
///
/// Transient consumer errors (a broker briefly unreachable) are logged and reading goes on:
/// librdkafka reconnects by itself.
///
/// # Errors
/// [`ConsumeError::Handler`] when the handler fails, [`ConsumeError::Fatal`] on a fatal
/// librdkafka error.
pub async fn consume_in_flight<H, Fut, E>(
    consumer: &RoleConsumer,
    shutdown: impl Future<Output = ()>,
    window: usize,
    mut handler: H,
) -> Result<(), ConsumeError<E>>
where
    H: FnMut(OwnedMessage) -> Fut,
    Fut: Future<Output = Result<(), E>>,
{
    let window = window.max(1);
    tokio::pin!(shutdown);
    let mut running = FuturesUnordered::new();
    // Keys with a message in `running`, and the messages read since for each, in order.
    let mut busy: HashSet<Vec<u8>> = HashSet::new();
    let mut waiting: HashMap<Vec<u8>, VecDeque<OwnedMessage>> = HashMap::new();
    let mut offsets = InOrderOffsets::default();
    let mut resume = ResumeAtCommitted::new(consumer);
    let mut start = |message: OwnedMessage| {
        let place = Place::of(&message);
        let handled = handler(message);
        async move { (place, handled.await) }
    };
    loop {
        tokio::select! {
            biased;
            // In-flight work is abandoned unstored: it is done again after the restart.
            () = &mut shutdown => break,
            Some((place, outcome)) = running.next(), if !running.is_empty() => {
                let (place, outcome): (Place, Result<(), E>) = (place, outcome);
                if let Err(source) = outcome {
                    return Err(ConsumeError::Handler {
                        topic: place.topic,
                        partition: place.partition,
                        offset: place.offset,
                        source,
                    });
                }
                if let Some(next) = offsets.done(&place.topic, place.partition, place.offset)
                    // Fails only when the partition was revoked meanwhile: its new owner reads
                    // the message again, which at-least-once allows.
                    && let Err(err) = store_next_offset(consumer, &place.topic, place.partition, next)
                {
                    crate::internal_events::offset_not_stored(&err, &place.topic, place.partition);
                }
                // The next message of the same key, if one waits, starts now; else the key is free.
                if let Some(key) = place.key {
                    let next = waiting.get_mut(&key).and_then(VecDeque::pop_front);
                    if waiting.get(&key).is_some_and(VecDeque::is_empty) {
                        waiting.remove(&key);
                    }
                    match next {
                        Some(message) => running.push(start(message)),
                        None => {
                            busy.remove(&key);
                        }
                    }
                }
            }
            received = consumer.recv(), if offsets.in_flight() < window => {
                let message = match received {
                    Ok(message) => message.detach(),
                    Err(err) if err.rdkafka_error_code() == Some(RDKafkaErrorCode::Fatal) => {
                        return Err(ConsumeError::Fatal(err));
                    }
                    Err(err) => {
                        crate::internal_events::consumer_error(&err);
                        continue;
                    }
                };
                if resume.admit(consumer, message.topic(), message.partition(), message.offset())
                    == Admit::Skip
                {
                    continue;
                }
                offsets.start(message.topic(), message.partition(), message.offset());
                match message.key().map(<[u8]>::to_vec) {
                    Some(key) if busy.contains(&key) => {
                        waiting.entry(key).or_default().push_back(message);
                    }
                    Some(key) => {
                        busy.insert(key);
                        running.push(start(message));
                    }
                    None => running.push(start(message)),
                }
            }
        }
    }
    if let Err(err) = consumer.commit_consumer_state(CommitMode::Async)
        && !is_nothing_to_commit(&err)
    {
        crate::internal_events::shutdown_commit_failed(&err);
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
    .map_err(KafkaSetupError::Blocking)?
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
        Ok(joined) => joined.map_err(KafkaSetupError::Blocking),
        Err(_elapsed) => {
            // The broker is gone: librdkafka would wait for it forever. The final commit is lost,
            // which at-least-once allows (the messages are read again); the thread is left to
            // end with the process.
            crate::internal_events::consumer_close_timed_out(CLOSE_TIMEOUT.as_secs());
            Ok(())
        }
    }
}

/// The next message of a task's consumer, or `None` once `stop` fires. A fatal consumer error
/// is returned (it ends the task named `task`); any other is logged and the read goes on.
///
/// # Errors
/// The consumer failed fatally.
pub async fn next_or_stop<'c>(
    consumer: &'c RoleConsumer,
    stop: &mut std::pin::Pin<&mut impl std::future::Future<Output = ()>>,
    task: &str,
) -> Result<Option<rdkafka::message::BorrowedMessage<'c>>, KafkaError> {
    loop {
        let received = tokio::select! {
            biased;
            () = stop.as_mut() => return Ok(None),
            received = consumer.recv() => received,
        };
        match received {
            Ok(message) => return Ok(Some(message)),
            Err(err) if err.rdkafka_error_code() == Some(RDKafkaErrorCode::Fatal) => {
                return Err(err);
            }
            Err(err) => crate::internal_events::task_consumer_error(task, &err),
        }
    }
}

/// How long closing a consumer (leaving the group, the final commit) may take.
pub const CLOSE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

fn is_nothing_to_commit(err: &KafkaError) -> bool {
    err.rdkafka_error_code() == Some(RDKafkaErrorCode::NoOffset)
}
