//! Topic administration: make sure factgate's topics exist before the roles start.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rdkafka::ClientContext;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::RDKafkaLogLevel;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{BaseProducer, Producer};

use super::{KafkaSetupError, client};
use crate::config::KafkaConfig;

/// How long creating topics may take before start-up fails. Reading the cluster's metadata
/// first waits `kafka.connect_timeout_ms`.
pub const ADMIN_TIMEOUT: Duration = Duration::from_secs(30);

/// The admin client's context: keeps the last error librdkafka reported while it tried the
/// brokers (a refused connection, a failed TLS handshake, a SASL error), so a start-up that
/// gives up can say why, rather than only that the metadata did not come. Each new error is
/// logged once as it happens, so the wait is not silent.
#[derive(Debug, Default)]
pub struct ConnectContext {
    last_error: Mutex<Option<String>>,
}

impl ConnectContext {
    /// The last error the brokers (or the connection to them) gave, if any.
    pub fn last_error(&self) -> Option<String> {
        self.last_error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl ConnectContext {
    /// Keeps `text` as the last error, and logs it if it is new (librdkafka's count of errors
    /// it left out of the log does not make one new).
    fn note(&self, text: String) {
        let text = match text.find(" identical error(s) suppressed") {
            Some(end) => {
                let start = text[..end].rfind(", ").unwrap_or(end);
                format!(
                    "{}{}",
                    &text[..start],
                    &text[end + " identical error(s) suppressed".len()..]
                )
            }
            None => text,
        };
        let mut last = self.last_error.lock().unwrap_or_else(|e| e.into_inner());
        if last.as_deref() != Some(text.as_str()) {
            crate::internal_events::brokers_unreachable_yet(&text);
        }
        *last = Some(text);
    }
}

impl rdkafka::producer::ProducerContext for ConnectContext {
    type DeliveryOpaque = ();
    // It sends nothing.
    fn delivery(&self, _: &rdkafka::message::DeliveryResult<'_>, _: Self::DeliveryOpaque) {}
}

impl ClientContext for ConnectContext {
    fn log(&self, level: RDKafkaLogLevel, fac: &str, log_message: &str) {
        // librdkafka reports a failed connection (`FAIL`), a TLS or SASL failure as a log line
        // of warning level or worse: `[thrd:…]: 127.0.0.1:9/bootstrap: Connect to … failed:
        // Connection refused (after 0ms in state CONNECT)`.
        if (level as i32) <= (RDKafkaLogLevel::Warning as i32) {
            let text = log_message
                .split_once("]: ")
                .map_or(log_message, |(_, rest)| rest);
            self.note(text.to_owned());
        } else {
            crate::internal_events::librdkafka_logged(level, fac, log_message);
        }
    }

    fn error(&self, error: KafkaError, reason: &str) {
        // "1/1 brokers are down" says less than the error that brought each down.
        if error.rdkafka_error_code() == Some(RDKafkaErrorCode::AllBrokersDown)
            && self.last_error().is_some()
        {
            return;
        }
        self.note(if reason.is_empty() {
            error.to_string()
        } else {
            reason.to_owned()
        });
    }
}

/// How long one attempt at the metadata waits before the log lines that came meanwhile are
/// read (they say why the brokers do not answer) and the next attempt starts.
const METADATA_ATTEMPT: Duration = Duration::from_secs(1);

/// The metadata of every topic of the cluster at `bootstrap` (no topic named, so asking creates
/// none), waiting up to `kafka.connect_timeout_ms` for the brokers, and logging why they do not
/// answer as it goes. The wait blocks, hence the blocking pool.
///
/// # Errors
/// [`KafkaSetupError::Metadata`] with the brokers' last error when they do not answer in time.
async fn read_metadata(
    config: &KafkaConfig,
    bootstrap: &str,
) -> Result<rdkafka::metadata::Metadata, KafkaSetupError> {
    let mut probe_config = client::base_config(config, bootstrap);
    // Its warnings and errors say why the brokers cannot be reached; `rdkafka` sets the level
    // from the log filter, which may be below that.
    if (probe_config.log_level as i32) < (RDKafkaLogLevel::Warning as i32) {
        probe_config.set_log_level(RDKafkaLogLevel::Warning);
    }
    // A plain client whose main queue is read between attempts: librdkafka's log lines and
    // errors reach its context only so.
    let probe: BaseProducer<ConnectContext> = probe_config
        .create_with_context(ConnectContext::default())
        .map_err(|source| KafkaSetupError::Client {
            client: "metadata".to_owned(),
            source: client::redact_config_error(source),
        })?;
    let wait = config.connect_timeout();
    let probe = Arc::new(probe);
    let reader = Arc::clone(&probe);
    let read = tokio::task::spawn_blocking(move || {
        let until = std::time::Instant::now() + wait;
        loop {
            let left = until.saturating_duration_since(std::time::Instant::now());
            let attempt = reader
                .client()
                .fetch_metadata(None, left.min(METADATA_ATTEMPT));
            reader.poll(Duration::ZERO);
            match attempt {
                Err(_) if !left.is_zero() && left > METADATA_ATTEMPT => continue,
                done => break done,
            }
        }
    })
    .await
    .map_err(KafkaSetupError::Blocking)?;
    read.map_err(|source| {
        KafkaSetupError::Metadata(Box::new(super::Unreachable {
            bootstrap: bootstrap.to_owned(),
            waited_ms: config.connect_timeout_ms,
            broker_error: probe.context().last_error(),
            source,
        }))
    })
}

/// What [`ensure_topics`] found and did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EnsuredTopics {
    /// Topics it created, with the configured partition count.
    pub created: Vec<String>,
    /// Topics that were there already, with their partition count (which may differ from the
    /// configuration: factgate does not repartition, it warns).
    pub existing: Vec<(String, usize)>,
}

/// Creates those of `kafka.topics` that are missing, with `kafka.partitions` partitions and
/// `kafka.replication_factor` replicas. Idempotent: existing topics are left alone, and a topic
/// another instance creates at the same moment counts as existing.
///
/// # Errors
/// [`KafkaSetupError::Metadata`] when the brokers cannot be reached within `kafka.connect_timeout_ms`,
/// [`KafkaSetupError::CreateTopic`] / [`KafkaSetupError::CreateTopics`] when creation fails.
pub async fn ensure_topics(
    config: &KafkaConfig,
    bootstrap: &str,
) -> Result<EnsuredTopics, KafkaSetupError> {
    let topics: Vec<&str> = config.topics.named().iter().map(|(_, t)| *t).collect();
    ensure_named_topics(config, bootstrap, &topics).await
}

/// [`ensure_topics`] for `topics` only (`factgate recheck` creates its own topics and never
/// the live ones).
///
/// # Errors
/// As [`ensure_topics`].
pub async fn ensure_named_topics(
    config: &KafkaConfig,
    bootstrap: &str,
    topics: &[&str],
) -> Result<EnsuredTopics, KafkaSetupError> {
    let metadata = read_metadata(config, bootstrap).await?;
    let admin: AdminClient<DefaultClientContext> = client::base_config(config, bootstrap)
        .create()
        .map_err(|source| KafkaSetupError::Client {
            client: "admin".to_owned(),
            source: client::redact_config_error(source),
        })?;

    let mut ensured = EnsuredTopics::default();
    let mut missing = Vec::new();
    for &topic in topics {
        match metadata.topics().iter().find(|t| t.name() == topic) {
            Some(found) => {
                let partitions = found.partitions().len();
                if partitions != config.partitions as usize {
                    crate::internal_events::topic_partitions_differ(
                        topic,
                        partitions,
                        config.partitions,
                    );
                }
                ensured.existing.push((topic.to_owned(), partitions));
            }
            None => missing.push(topic.to_owned()),
        }
    }
    if missing.is_empty() {
        return Ok(ensured);
    }

    let partitions = i32::try_from(config.partitions).unwrap_or(i32::MAX);
    let replication = i32::from(config.replication_factor);
    let new_topics: Vec<NewTopic<'_>> = missing
        .iter()
        .map(|t| NewTopic::new(t, partitions, TopicReplication::Fixed(replication)))
        .collect();
    let options = AdminOptions::new().operation_timeout(Some(ADMIN_TIMEOUT));
    let results = admin
        .create_topics(&new_topics, &options)
        .await
        .map_err(KafkaSetupError::CreateTopics)?;
    for result in results {
        match result {
            Ok(topic) => {
                crate::internal_events::topic_created(&topic, partitions);
                ensured.created.push(topic);
            }
            // Another instance won the race: the topic is there, which is all we need.
            Err((topic, RDKafkaErrorCode::TopicAlreadyExists)) => {
                ensured.existing.push((topic, config.partitions as usize));
            }
            Err((topic, code)) => return Err(KafkaSetupError::CreateTopic { topic, code }),
        }
    }
    Ok(ensured)
}
