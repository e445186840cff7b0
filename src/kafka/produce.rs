//! Producing events: handed to librdkafka in the order asked ([`EventProducer::enqueue`]), which
//! batches them, and acknowledged later ([`PendingDelivery::acknowledged`]), so a role can keep
//! many records in flight and await their deliveries together rather than one by one.

use std::time::Duration;

use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{DeliveryFuture, FutureProducer, FutureRecord, Producer};

use super::headers::EventHeaders;
use super::{KafkaSetupError, client};
use crate::config::KafkaConfig;

/// Whether a failed produce is the record's own fault (too large, malformed, refused by a topic
/// policy), so sending it again can never succeed, as opposed to a fault of the broker or the
/// connection, which librdkafka has already retried until `message.timeout.ms`. The one place
/// this is decided: a role answers a message whose outputs are refused this way (a block, the
/// dead-letter topic) and reads on, and stops only for the other kind.
pub fn is_message_fault(err: &KafkaError) -> bool {
    matches!(
        err.rdkafka_error_code(),
        Some(
            RDKafkaErrorCode::MessageSizeTooLarge
                | RDKafkaErrorCode::InvalidMessageSize
                | RDKafkaErrorCode::InvalidMessage
                | RDKafkaErrorCode::MessageBatchTooLarge
                | RDKafkaErrorCode::InvalidRecord
                | RDKafkaErrorCode::InvalidTimestamp
                | RDKafkaErrorCode::PolicyViolation
                | RDKafkaErrorCode::BadMessage
        )
    )
}

/// How long [`EventProducer::enqueue`] waits before trying again when librdkafka's queue is full.
const QUEUE_FULL_WAIT: Duration = Duration::from_millis(5);

/// A record queued by [`EventProducer::enqueue`], not yet acknowledged. Dropping it does not
/// withdraw the record; it only gives up knowing whether it was stored.
#[must_use = "a record's delivery must be awaited before the offset of what caused it is stored"]
pub struct PendingDelivery {
    delivery: DeliveryFuture,
}

impl PendingDelivery {
    /// Resolves once the broker acknowledged the record (all in-sync replicas), with where it
    /// was stored.
    ///
    /// # Errors
    /// The [`KafkaError`] of the final failed delivery (`Canceled` when the producer was dropped
    /// first): the record is not stored.
    pub async fn acknowledged(self) -> Result<Delivered, KafkaError> {
        match self.delivery.await {
            Ok(Ok(delivery)) => Ok(Delivered {
                partition: delivery.partition,
                offset: delivery.offset,
            }),
            Ok(Err((err, _message))) => Err(err),
            Err(_canceled) => Err(KafkaError::Canceled),
        }
    }
}

/// Where the broker stored a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivered {
    /// The partition the record landed in (chosen from the key).
    pub partition: i32,
    /// Its offset in that partition.
    pub offset: i64,
}

/// factgate's producer: idempotent, `acks=all` (see [`client::producer`]). Cheap to clone; clones
/// share one librdkafka producer.
#[derive(Clone)]
pub struct EventProducer {
    inner: FutureProducer,
}

impl EventProducer {
    /// Builds the producer.
    ///
    /// # Errors
    /// [`KafkaSetupError::Client`] when librdkafka rejects the configuration.
    pub fn new(config: &KafkaConfig, bootstrap: &str) -> Result<Self, KafkaSetupError> {
        Ok(Self {
            inner: client::producer(config, bootstrap)?,
        })
    }

    /// Produces one record and resolves once the broker acknowledged it (all in-sync replicas),
    /// with where it was stored: [`Self::enqueue`] then [`PendingDelivery::acknowledged`].
    ///
    /// # Errors
    /// The [`KafkaError`] of the final failed delivery: the record is not stored, and the caller
    /// must not store the offset of the message that caused it.
    pub async fn produce<K: AsRef<[u8]> + ?Sized>(
        &self,
        topic: &str,
        key: &K,
        payload: &[u8],
        headers: &EventHeaders,
    ) -> Result<Delivered, KafkaError> {
        self.enqueue(topic, key, payload, headers)
            .await?
            .acknowledged()
            .await
    }

    /// Hands one record to librdkafka and resolves as soon as it is queued, without waiting for
    /// the broker: records queued one after another land in their partition in that order (the
    /// producer is idempotent, so retries never reorder them), and librdkafka sends them in
    /// batches. When its local queue is full this waits for room (back-pressure) rather than
    /// dropping or reordering. librdkafka retries transient failures itself until
    /// `message.timeout.ms` (default 5 minutes).
    ///
    /// # Errors
    /// A record refused before it is queued (too large for `message.max.bytes`, an unknown
    /// topic…).
    pub async fn enqueue<K: AsRef<[u8]> + ?Sized>(
        &self,
        topic: &str,
        key: &K,
        payload: &[u8],
        headers: &EventHeaders,
    ) -> Result<PendingDelivery, KafkaError> {
        // Any bytes: a key is the article id as text, or a dead letter's key as it came.
        let mut record = FutureRecord::to(topic)
            .key(key.as_ref())
            .payload(payload)
            .headers(headers.to_kafka());
        loop {
            match self.inner.send_result(record) {
                Ok(delivery) => return Ok(PendingDelivery { delivery }),
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                    record = back;
                    tokio::time::sleep(QUEUE_FULL_WAIT).await;
                }
                Err((err, _record)) => return Err(err),
            }
        }
    }

    /// Waits up to `timeout` for every queued record to be acknowledged, on the blocking pool
    /// (librdkafka's flush blocks).
    ///
    /// # Errors
    /// [`KafkaSetupError::Flush`] when records are still unacknowledged at the timeout,
    /// [`KafkaSetupError::Blocking`] when the runtime refuses the task.
    pub async fn flush(&self, timeout: Duration) -> Result<(), KafkaSetupError> {
        let producer = self.inner.clone();
        tokio::task::spawn_blocking(move || producer.flush(timeout))
            .await
            .map_err(KafkaSetupError::Blocking)?
            .map_err(KafkaSetupError::Flush)
    }

    /// The librdkafka producer, for what this wrapper does not cover.
    pub fn inner(&self) -> &FutureProducer {
        &self.inner
    }
}
