//! Producing events: handed to librdkafka in the order asked ([`EventProducer::enqueue`]), which
//! batches them, and acknowledged later ([`PendingDelivery::acknowledged`]), so a role can keep
//! many records in flight and await their deliveries together rather than one by one.
//!
//! The librdkafka producer is polled for its acknowledgements by a thread of its own
//! ([`POLL_WAIT`] at a time), not by `rdkafka`'s `FutureProducer`, whose thread polls for 100 ms
//! at a time and, counting the wait in whole milliseconds, spins through the last one of each:
//! about 1% of a core with nothing to do, most of an idle factgate's cost.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rdkafka::ClientContext;
use rdkafka::Message;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer, ProducerContext};
use tokio::sync::oneshot;

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

/// How long the polling thread waits for acknowledgements at a time: it spins through the last
/// millisecond of each wait (see the module's doc), a tenth of a percent of a core at 1 s. An
/// acknowledgement is handed on as soon as it comes, whatever the wait.
pub const POLL_WAIT: Duration = Duration::from_secs(1);

/// What the broker answered for one record.
type DeliveryOutcome = Result<Delivered, KafkaError>;

/// The producer's context: hands each record's acknowledgement to its [`PendingDelivery`].
/// librdkafka's logs and errors go where the consumers' do: a broker going down is a warning
/// (the producer reconnects and retries), and nothing at all worth more than debug once the
/// process is stopping.
pub struct DeliveryContext;

impl ClientContext for DeliveryContext {
    fn log(&self, level: rdkafka::config::RDKafkaLogLevel, fac: &str, log_message: &str) {
        crate::internal_events::librdkafka_logged(level, fac, log_message);
    }

    fn error(&self, error: KafkaError, reason: &str) {
        crate::internal_events::kafka_client_error(Some(&"producer"), &error, reason);
    }
}

impl ProducerContext for DeliveryContext {
    type DeliveryOpaque = Box<oneshot::Sender<DeliveryOutcome>>;

    fn delivery(&self, result: &DeliveryResult<'_>, waiting: Self::DeliveryOpaque) {
        let outcome = match result {
            Ok(message) => Ok(Delivered {
                partition: message.partition(),
                offset: message.offset(),
            }),
            Err((err, _message)) => Err(err.clone()),
        };
        // The caller may have stopped waiting.
        let _ = waiting.send(outcome);
    }
}

/// The librdkafka producer factgate uses.
pub type KafkaProducer = BaseProducer<DeliveryContext>;

/// An idempotent producer (`enable.idempotence=true`, `acks=all`): librdkafka retries failed
/// requests without duplicating or reordering records within a partition.
///
/// # Errors
/// [`KafkaSetupError::Client`] when librdkafka rejects the configuration.
pub fn producer(config: &KafkaConfig, bootstrap: &str) -> Result<KafkaProducer, KafkaSetupError> {
    let mut client = client::base_config(config, bootstrap);
    client::set_default(
        &mut client,
        config,
        "linger.ms",
        &client::LINGER_MS.to_string(),
    );
    client
        .set("enable.idempotence", "true")
        .set("acks", "all")
        .create_with_context(DeliveryContext)
        .map_err(|source| KafkaSetupError::Client {
            client: "producer".to_owned(),
            source: client::redact_config_error(source),
        })
}

/// The producer and its polling thread, stopped when the last [`EventProducer`] clone goes. The
/// thread ends within [`POLL_WAIT`], and the producer with it (purging what is still queued);
/// callers flush before they stop.
struct Polled {
    producer: Arc<KafkaProducer>,
    stop: Arc<AtomicBool>,
}

impl Polled {
    fn start(producer: KafkaProducer) -> Self {
        let producer = Arc::new(producer);
        let stop = Arc::new(AtomicBool::new(false));
        let (polled, stopping) = (Arc::clone(&producer), Arc::clone(&stop));
        std::thread::Builder::new()
            .name("kafka-producer-poll".to_owned())
            .spawn(move || {
                while !stopping.load(Ordering::Relaxed) {
                    polled.poll(POLL_WAIT);
                }
            })
            .expect("starting the producer's polling thread");
        Self { producer, stop }
    }
}

impl Drop for Polled {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// A record queued by [`EventProducer::enqueue`], not yet acknowledged. Dropping it does not
/// withdraw the record; it only gives up knowing whether it was stored.
#[must_use = "a record's delivery must be awaited before the offset of what caused it is stored"]
pub struct PendingDelivery {
    delivery: oneshot::Receiver<DeliveryOutcome>,
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
            Ok(outcome) => outcome,
            Err(_dropped) => Err(KafkaError::Canceled),
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

/// factgate's producer: idempotent, `acks=all` (see [`producer`]). Cheap to clone; clones
/// share one librdkafka producer.
#[derive(Clone)]
pub struct EventProducer {
    shared: Arc<Polled>,
}

impl EventProducer {
    /// Builds the producer.
    ///
    /// # Errors
    /// [`KafkaSetupError::Client`] when librdkafka rejects the configuration.
    pub fn new(config: &KafkaConfig, bootstrap: &str) -> Result<Self, KafkaSetupError> {
        Ok(Self {
            shared: Arc::new(Polled::start(producer(config, bootstrap)?)),
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
        self.enqueue_to(topic, None, key.as_ref(), payload, headers)
            .await
    }

    /// [`Self::produce`] to one partition of `topic` rather than the key's.
    ///
    /// # Errors
    /// As [`Self::produce`].
    pub async fn produce_to_partition<K: AsRef<[u8]> + ?Sized>(
        &self,
        topic: &str,
        partition: i32,
        key: &K,
        payload: &[u8],
        headers: &EventHeaders,
    ) -> Result<Delivered, KafkaError> {
        self.enqueue_to(topic, Some(partition), key.as_ref(), payload, headers)
            .await?
            .acknowledged()
            .await
    }

    async fn enqueue_to(
        &self,
        topic: &str,
        partition: Option<i32>,
        key: &[u8],
        payload: &[u8],
        headers: &EventHeaders,
    ) -> Result<PendingDelivery, KafkaError> {
        let (acknowledge, delivery) = oneshot::channel();
        // Any bytes: a key is the article id as text, or a dead letter's key as it came.
        let mut record = BaseRecord::with_opaque_to(topic, Box::new(acknowledge))
            .key(key)
            .payload(payload)
            .headers(headers.to_kafka());
        if let Some(partition) = partition {
            record = record.partition(partition);
        }
        loop {
            match self.shared.producer.send(record) {
                Ok(()) => return Ok(PendingDelivery { delivery }),
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
        let producer = Arc::clone(&self.shared.producer);
        tokio::task::spawn_blocking(move || producer.flush(timeout))
            .await
            .map_err(KafkaSetupError::Blocking)?
            .map_err(KafkaSetupError::Flush)
    }

    /// The librdkafka producer, for what this wrapper does not cover.
    pub fn inner(&self) -> &KafkaProducer {
        &self.shared.producer
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invalid_extra_property_fails_client_creation_with_its_client_named() {
        let mut config = KafkaConfig::default();
        config
            .properties
            .insert("no.such.property".into(), "1".into());
        let Err(err) = producer(&config, "127.0.0.1:9") else {
            panic!("an unknown property was accepted");
        };
        assert!(err.to_string().contains("producer"), "{err}");
    }
}
