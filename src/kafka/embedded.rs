//! The embedded broker: librdkafka's in-process mock cluster, a Kafka-protocol broker on a real
//! loopback TCP port, so `factgate run` works with no Kafka installed and any Kafka client (kcat)
//! can talk to it. It keeps everything in memory: for one machine, the demo and tests only.
//!
//! The mock cluster handle cannot cross threads (it holds a raw pointer, and `rdkafka` marks it
//! neither `Send` nor `Sync`), which an async app needs. So a dedicated OS thread creates and
//! owns it for its whole life, and [`EmbeddedBroker`] (which is `Send + Sync`) talks to that thread
//! over a channel. Dropping the [`EmbeddedBroker`] stops the thread, which destroys the cluster.
//!
//! The mock cluster does not implement the CreateTopics request, so the embedded broker creates
//! factgate's topics itself, with the configured partition count, before it reports its address;
//! [`super::ensure_topics`] then finds them present.
//!
//! One quirk matters to tests that restart a consumer: when the last member leaves a group, the
//! mock cluster keeps the group rebalancing for `session.timeout.ms` less one second before it
//! admits a new member (a real broker empties the group at once). With the default 45 s session
//! timeout a restarted role waits that long; tests set `session.timeout.ms` to 6000 in
//! `kafka.properties`.

use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use rdkafka::error::KafkaError;
use rdkafka::mocking::MockCluster;
use rdkafka::types::{RDKafkaApiKey, RDKafkaRespErr};

use super::KafkaSetupError;
use crate::config::KafkaConfig;

/// An in-process Kafka-protocol broker with factgate's topics, listening on 127.0.0.1.
///
/// Keep it alive as long as clients use it (hold it in the scope that runs the roles, or in an
/// `Arc`); dropping it shuts the broker down and its data is gone.
pub struct EmbeddedBroker {
    bootstrap: String,
    brokers: i32,
    commands: Option<mpsc::Sender<Command>>,
    thread: Option<JoinHandle<()>>,
}

/// An operation for the thread that owns the mock cluster, with where to send its result.
struct Command {
    op: Op,
    reply: mpsc::SyncSender<Result<(), KafkaError>>,
}

#[derive(Debug)]
enum Op {
    RequestErrors(RDKafkaApiKey, Vec<RDKafkaRespErr>),
    ClearRequestErrors(RDKafkaApiKey),
    BrokerDown(i32),
    BrokerUp(i32),
    RoundTripTime(i32, Duration),
    CreateTopic(String, i32),
}

impl EmbeddedBroker {
    /// Starts a one-broker cluster with factgate's topics (`kafka.topics`, `kafka.partitions`).
    ///
    /// # Errors
    /// [`KafkaSetupError::EmbeddedStart`] when librdkafka cannot start it (no loopback port), or
    /// [`KafkaSetupError::EmbeddedOperation`] when a topic cannot be created.
    pub fn start(config: &KafkaConfig) -> Result<Self, KafkaSetupError> {
        Self::start_with_brokers(config, 1)
    }

    /// Starts a cluster of `brokers` brokers (ids 1..=brokers) with factgate's topics; more than
    /// one lets tests take a broker down while the others serve.
    ///
    /// # Errors
    /// As [`EmbeddedBroker::start`].
    pub fn start_with_brokers(config: &KafkaConfig, brokers: i32) -> Result<Self, KafkaSetupError> {
        let (started_tx, started_rx) = mpsc::sync_channel(1);
        let (commands_tx, commands_rx) = mpsc::channel::<Command>();
        let thread = std::thread::Builder::new()
            .name("factgate-embedded-broker".to_owned())
            .spawn(move || own_cluster(brokers, started_tx, commands_rx))
            .map_err(KafkaSetupError::EmbeddedThread)?;
        let bootstrap = match started_rx.recv() {
            Ok(Ok(bootstrap)) => bootstrap,
            Ok(Err(err)) => return Err(KafkaSetupError::EmbeddedStart(err)),
            Err(_) => return Err(KafkaSetupError::EmbeddedStopped),
        };
        let broker = Self {
            bootstrap,
            brokers,
            commands: Some(commands_tx),
            thread: Some(thread),
        };
        let partitions = i32::try_from(config.partitions).unwrap_or(i32::MAX);
        for (_, topic) in config.topics.named() {
            broker.create_topic(topic, partitions)?;
        }
        crate::internal_events::embedded_broker_started(&broker.bootstrap, brokers, partitions);
        Ok(broker)
    }

    /// The `host:port` list clients connect to (loopback addresses only).
    pub fn bootstrap_servers(&self) -> &str {
        &self.bootstrap
    }

    /// How many brokers the cluster has; their ids are 1 to this.
    pub fn broker_count(&self) -> i32 {
        self.brokers
    }

    /// Creates a topic with `partitions` partitions (replication: every broker, at most three).
    ///
    /// # Errors
    /// [`KafkaSetupError::EmbeddedOperation`] when the cluster refuses (it exists with another
    /// partition count, for one).
    pub fn create_topic(&self, topic: &str, partitions: i32) -> Result<(), KafkaSetupError> {
        self.call(Op::CreateTopic(topic.to_owned(), partitions))
    }

    /// Makes the next requests of type `api` fail, one error per request, in order: a fault
    /// injection for tests (`RDKafkaApiKey::Produce`, `Fetch`, `OffsetCommit`, …). Passing
    /// `RD_KAFKA_RESP_ERR__TRANSPORT` makes the broker drop the connection instead.
    ///
    /// # Errors
    /// [`KafkaSetupError::EmbeddedStopped`] when the broker is gone.
    pub fn inject_request_errors(
        &self,
        api: RDKafkaApiKey,
        errors: &[RDKafkaRespErr],
    ) -> Result<(), KafkaSetupError> {
        self.call(Op::RequestErrors(api, errors.to_vec()))
    }

    /// Forgets the errors still queued for requests of type `api`.
    ///
    /// # Errors
    /// [`KafkaSetupError::EmbeddedStopped`] when the broker is gone.
    pub fn clear_request_errors(&self, api: RDKafkaApiKey) -> Result<(), KafkaSetupError> {
        self.call(Op::ClearRequestErrors(api))
    }

    /// Disconnects broker `broker_id` (-1: all) and refuses new connections until
    /// [`EmbeddedBroker::broker_up`]. Partition leadership does not move.
    ///
    /// # Errors
    /// [`KafkaSetupError::EmbeddedOperation`] for an unknown broker id.
    pub fn broker_down(&self, broker_id: i32) -> Result<(), KafkaSetupError> {
        self.call(Op::BrokerDown(broker_id))
    }

    /// Lets broker `broker_id` (-1: all) accept connections again.
    ///
    /// # Errors
    /// [`KafkaSetupError::EmbeddedOperation`] for an unknown broker id.
    pub fn broker_up(&self, broker_id: i32) -> Result<(), KafkaSetupError> {
        self.call(Op::BrokerUp(broker_id))
    }

    /// Delays every response of broker `broker_id` (-1: all) by `delay`.
    ///
    /// # Errors
    /// [`KafkaSetupError::EmbeddedOperation`] for an unknown broker id.
    pub fn set_round_trip_time(
        &self,
        broker_id: i32,
        delay: Duration,
    ) -> Result<(), KafkaSetupError> {
        self.call(Op::RoundTripTime(broker_id, delay))
    }

    /// Runs `op` on the owning thread and waits for its result (a round trip to librdkafka's mock
    /// thread: microseconds, so calling this from async code is fine).
    fn call(&self, op: Op) -> Result<(), KafkaSetupError> {
        let operation = format!("{op:?}");
        let (reply, result) = mpsc::sync_channel(1);
        let commands = self
            .commands
            .as_ref()
            .ok_or(KafkaSetupError::EmbeddedStopped)?;
        commands
            .send(Command { op, reply })
            .map_err(|_| KafkaSetupError::EmbeddedStopped)?;
        result
            .recv()
            .map_err(|_| KafkaSetupError::EmbeddedStopped)?
            .map_err(|source| KafkaSetupError::EmbeddedOperation { operation, source })
    }
}

impl std::fmt::Debug for EmbeddedBroker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedBroker")
            .field("bootstrap", &self.bootstrap)
            .field("brokers", &self.brokers)
            .finish_non_exhaustive()
    }
}

impl Drop for EmbeddedBroker {
    fn drop(&mut self) {
        // Closing the channel ends the owning thread's loop, which drops (destroys) the cluster.
        drop(self.commands.take());
        if let Some(thread) = self.thread.take() {
            // A panic on that thread has already been reported; there is nothing left to stop.
            let _ = thread.join();
        }
    }
}

/// The owning thread: creates the cluster, reports its address, then serves commands until the
/// [`EmbeddedBroker`] is dropped.
fn own_cluster(
    brokers: i32,
    started: mpsc::SyncSender<Result<String, KafkaError>>,
    commands: mpsc::Receiver<Command>,
) {
    let cluster = match MockCluster::new(brokers) {
        Ok(cluster) => cluster,
        Err(err) => {
            let _ = started.send(Err(err));
            return;
        }
    };
    if started.send(Ok(cluster.bootstrap_servers())).is_err() {
        return;
    }
    let replication = brokers.clamp(1, 3);
    while let Ok(Command { op, reply }) = commands.recv() {
        let result = match op {
            Op::RequestErrors(api, errors) => {
                cluster.request_errors(api, &errors);
                Ok(())
            }
            Op::ClearRequestErrors(api) => {
                cluster.clear_request_errors(api);
                Ok(())
            }
            Op::BrokerDown(id) => cluster.broker_down(id),
            Op::BrokerUp(id) => cluster.broker_up(id),
            Op::RoundTripTime(id, delay) => cluster.broker_round_trip_time(id, delay),
            Op::CreateTopic(topic, partitions) => {
                cluster.create_topic(&topic, partitions, replication)
            }
        };
        // The caller may have given up waiting; the operation is done either way.
        let _ = reply.send(result);
    }
}
