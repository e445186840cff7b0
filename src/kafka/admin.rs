//! Topic administration: make sure factgate's topics exist before the roles start.

use std::sync::Arc;
use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::error::RDKafkaErrorCode;
use tracing::{info, warn};

use super::{KafkaSetupError, client};
use crate::config::KafkaConfig;

/// How long reading metadata or creating topics may take before start-up fails.
pub const ADMIN_TIMEOUT: Duration = Duration::from_secs(30);

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
/// [`KafkaSetupError::Metadata`] when the brokers cannot be reached in [`ADMIN_TIMEOUT`],
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
    let admin: AdminClient<DefaultClientContext> = client::base_config(config, bootstrap)
        .create()
        .map_err(|source| KafkaSetupError::Client {
            client: "admin".to_owned(),
            source: client::redact_config_error(source),
        })?;
    let admin = Arc::new(admin);

    // Metadata of all topics (no topic named, so nothing is auto-created by asking); the call
    // blocks, hence the blocking pool.
    let reader = Arc::clone(&admin);
    let metadata =
        tokio::task::spawn_blocking(move || reader.inner().fetch_metadata(None, ADMIN_TIMEOUT))
            .await
            .map_err(KafkaSetupError::Blocking)?
            .map_err(|source| KafkaSetupError::Metadata {
                bootstrap: bootstrap.to_owned(),
                source,
            })?;

    let mut ensured = EnsuredTopics::default();
    let mut missing = Vec::new();
    for &topic in topics {
        match metadata.topics().iter().find(|t| t.name() == topic) {
            Some(found) => {
                let partitions = found.partitions().len();
                if partitions != config.partitions as usize {
                    warn!(
                        topic,
                        partitions,
                        configured = config.partitions,
                        "topic exists with another partition count; left as is"
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
                info!(topic = %topic, partitions, "topic created");
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
