//! Producing one event and waiting for the broker's acknowledgement.

use std::time::Duration;

use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{FutureProducer, FutureRecord, Producer};
use rdkafka::util::Timeout;

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
    /// with where it was stored. librdkafka retries transient failures itself until
    /// `message.timeout.ms` (default 5 minutes); when its local queue is full this waits for room
    /// (back-pressure) rather than dropping.
    ///
    /// # Errors
    /// The [`KafkaError`] of the final failed delivery: the record is not stored, and the caller
    /// must not store the offset of the message that caused it.
    pub async fn produce(
        &self,
        topic: &str,
        key: &str,
        payload: &[u8],
        headers: &EventHeaders,
    ) -> Result<Delivered, KafkaError> {
        let record = FutureRecord::to(topic)
            .key(key)
            .payload(payload)
            .headers(headers.to_kafka());
        self.inner
            .send(record, Timeout::Never)
            .await
            .map(|delivery| Delivered {
                partition: delivery.partition,
                offset: delivery.offset,
            })
            .map_err(|(err, _message)| err)
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
            .map_err(|e| KafkaSetupError::Blocking(e.to_string()))?
            .map_err(KafkaSetupError::Flush)
    }

    /// The librdkafka producer, for what this wrapper does not cover.
    pub fn inner(&self) -> &FutureProducer {
        &self.inner
    }
}
