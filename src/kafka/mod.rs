//! Kafka plumbing: the building blocks the roles (extract, verify, join) are made of.
//!
//! - [`embedded`]: an in-process Kafka-protocol broker (librdkafka's mock cluster) for
//!   `factgate run` without configured brokers, the demo and the tests, with fault injection.
//! - [`admin`]: [`ensure_topics`] creates factgate's topics where they are missing.
//! - [`client`]: builders for the idempotent producer and the per-role consumers, all carrying
//!   the configured extra properties.
//! - [`headers`]: the `traceparent`/`tracestate` (W3C Trace Context) and `factgate-schema`
//!   message headers.
//! - [`dead_letter`]: the headers that say why a record was dead-lettered, and where it came from.
//! - [`produce`]: [`EventProducer::produce`], which resolves only once the broker acknowledged.
//! - [`consume`]: [`consume_in_flight`] (and its one-at-a-time form [`consume_at_least_once`]),
//!   which keeps a bounded window of messages in flight and stores a partition's offset only
//!   past messages whose outputs, and those of every message before them, are acknowledged.
//! - [`offsets`]: the in-order offset bookkeeping behind that.
//! - [`resume`]: [`ResumeAtCommitted`], which makes a new partition's reading start at its
//!   committed offset also on a broker that serves a record batch only from its first record.
//!
//! Blocking librdkafka calls (commits, metadata, flush, closing a consumer) run on tokio's blocking
//! pool, never on the async worker threads.

pub mod admin;
pub mod client;
pub mod consume;
pub mod dead_letter;
pub mod embedded;
pub mod headers;
pub mod offsets;
pub mod produce;
pub mod resume;

pub use admin::{EnsuredTopics, ensure_named_topics, ensure_topics};
pub use client::{ConsumerHealth, RoleConsumer, RoleContext, consumer, group_id};
pub use consume::{
    ConsumeError, close_consumer, commit_stored_offsets, consume_at_least_once, consume_in_flight,
    next_or_stop,
};
pub use embedded::EmbeddedBroker;
pub use headers::{
    EventHeaders, HeaderExtractor, HeaderInjector, SCHEMA_HEADER, TRACEPARENT_HEADER,
    TRACESTATE_HEADER, read_schema, read_trace_context,
};
pub use produce::{Delivered, EventProducer, PendingDelivery, is_message_fault, producer};
/// The request types and error codes fault injection takes, re-exported so callers need not name
/// the rdkafka crate.
pub use rdkafka::types::{RDKafkaApiKey, RDKafkaRespErr};
pub use resume::{Admit, ResumeAtCommitted};

use rdkafka::error::KafkaError;

/// Runs a blocking librdkafka call from inside a consumer's callback (a rebalance runs in the
/// poll of the role's task, on an async worker): on a multi-threaded runtime the worker hands
/// its other tasks on while it waits (`block_in_place`); on a current-thread runtime (tests) it
/// simply waits. For what must happen inside the callback: the join's flush before a handover,
/// the offset queries of an assignment (`resume`). Elsewhere, blocking calls go to the blocking
/// pool.
pub(crate) fn block_in_callback<T>(call: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(call),
        _ => call(),
    }
}

/// The brokers did not answer within `kafka.connect_timeout_ms`.
#[derive(Debug, thiserror::Error)]
#[error(
    "could not reach the Kafka brokers at {bootstrap} within {waited_ms} ms \
     (kafka.connect_timeout_ms){}",
    broker_error.as_deref().map(|e| format!("; last error: {e}")).unwrap_or_default()
)]
pub struct Unreachable {
    /// Where the client looked.
    pub bootstrap: String,
    /// How long it waited (`kafka.connect_timeout_ms`).
    pub waited_ms: u64,
    /// The last error librdkafka reported while trying them (a refused connection, a TLS or
    /// SASL failure), when it reported one.
    pub broker_error: Option<String>,
    #[source]
    pub source: KafkaError,
}

/// Faults while setting Kafka up: starting the embedded broker, building clients, reading
/// metadata, creating topics. Faults of single messages are [`KafkaError`]s from
/// [`EventProducer::produce`] and [`ConsumeError`]s.
#[derive(Debug, thiserror::Error)]
pub enum KafkaSetupError {
    /// librdkafka refused to start the mock cluster (no loopback port, out of memory…).
    #[error("could not start the embedded broker")]
    EmbeddedStart(#[source] KafkaError),
    /// The embedded broker's thread is gone, so the broker is too.
    #[error("the embedded broker has stopped")]
    EmbeddedStopped,
    /// A fault-injection or topic operation on the embedded broker failed.
    #[error("embedded broker operation {operation} failed")]
    EmbeddedOperation {
        /// What was asked (`broker_down`, `create_topic drafts.published`, …).
        operation: String,
        #[source]
        source: KafkaError,
    },
    /// A client could not be created from the configuration (a bad extra property, usually).
    #[error("could not create the Kafka {client} client")]
    Client {
        /// `producer`, `consumer for role extract`, `admin`.
        client: String,
        #[source]
        source: KafkaError,
    },
    /// The cluster's metadata could not be read in time: the brokers are unreachable.
    #[error(transparent)]
    Metadata(Box<Unreachable>),
    /// The broker refused to create a topic.
    #[error("could not create topic {topic}: {code}")]
    CreateTopic {
        /// The topic.
        topic: String,
        /// The broker's answer.
        code: rdkafka::error::RDKafkaErrorCode,
    },
    /// The create-topics request itself failed (timed out, or the broker does not support it).
    #[error("the request to create topics failed")]
    CreateTopics(#[source] KafkaError),
    /// Records were still unacknowledged when a flush timed out.
    #[error("records were still unacknowledged when the flush timed out")]
    Flush(#[source] KafkaError),
    /// The broker refused to commit the stored offsets.
    #[error("committing the stored offsets failed")]
    Commit(#[source] KafkaError),
    /// A blocking librdkafka call could not be run on the blocking pool (the runtime is shutting
    /// down) or panicked there.
    #[error("a blocking Kafka call was abandoned")]
    Blocking(#[source] tokio::task::JoinError),
    /// The embedded broker's thread could not be started.
    #[error("starting the embedded broker's thread")]
    EmbeddedThread(#[source] std::io::Error),
}
