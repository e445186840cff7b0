//! `[kafka]`: where the event stream lives, what its topics are called, and the librdkafka
//! properties that secure the connection (TLS, SASL), with their secrets kept out of logs.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize, Serializer};

use super::error::Validation;

/// Default client id sent to the broker.
pub const DEFAULT_CLIENT_ID: &str = "factgate";
/// Default prefix of consumer group ids; each role adds its name (`factgate-extract`, …).
pub const DEFAULT_GROUP_PREFIX: &str = "factgate";
/// Default partition count of the topics factgate creates.
pub const DEFAULT_PARTITIONS: u32 = 6;
/// Default replication factor of the topics factgate creates.
pub const DEFAULT_REPLICATION_FACTOR: u16 = 1;
/// Default time `factgate run` waits for the brokers at start-up before it gives up, in
/// milliseconds.
pub const DEFAULT_KAFKA_CONNECT_TIMEOUT_MS: u64 = 30_000;
/// Default topic the CMS publishes drafts to.
pub const DEFAULT_TOPIC_DRAFTS: &str = "drafts.published";
/// Default topic of verification requests, keyed by source host.
pub const DEFAULT_TOPIC_VERIFY: &str = "claims.verify";
/// Default topic of claim results, keyed by article.
pub const DEFAULT_TOPIC_VERIFIED: &str = "claims.verified";
/// Default topic of article manifests, keyed by article.
pub const DEFAULT_TOPIC_MANIFESTS: &str = "articles.manifest";
/// Default topic of decisions, keyed by article.
pub const DEFAULT_TOPIC_DECISIONS: &str = "decisions";
/// Default topic of draft events that could not be read.
pub const DEFAULT_TOPIC_DEAD_LETTER: &str = "drafts.dlq";
/// Default topic of editors' overrides, keyed by article.
pub const DEFAULT_TOPIC_OVERRIDES: &str = "decisions.overrides";
/// Default `kafka.topics.recheck_runs`.
pub const DEFAULT_TOPIC_RECHECK_RUNS: &str = "factgate.recheck.runs";
/// Default `kafka.topics.recheck_decisions`.
pub const DEFAULT_TOPIC_RECHECK_DECISIONS: &str = "factgate.recheck.decisions";

/// librdkafka's own default `message.max.bytes`: the largest record the producer sends when
/// `kafka.properties` does not say otherwise.
pub const DEFAULT_MESSAGE_MAX_BYTES: u64 = 1_000_000;
/// The smallest `message.max.bytes` factgate accepts: room for any decision once its report is
/// shortened, with a 512-byte article id.
pub const MIN_MESSAGE_MAX_BYTES: u64 = 8_192;
/// What a record costs beyond its payload, key and headers (record and batch framing), kept
/// free under `message.max.bytes` so a payload that fits the budget fits the broker.
const RECORD_OVERHEAD_BYTES: u64 = 512;
/// The longest key factgate writes (an article id) plus its headers (`traceparent`,
/// `factgate-schema`, and a `tracestate` of at most its bound), reserved from every payload's
/// budget.
const KEY_AND_HEADERS_BYTES: u64 =
    512 + 256 + 16 + factgate_core::events::MAX_TRACESTATE_BYTES as u64;

/// librdkafka properties factgate sets itself: setting them here would either be overwritten or,
/// for `enable.auto.offset.store`, break "offsets follow outputs".
const RESERVED_PROPERTIES: &[(&str, &str)] = &[
    ("bootstrap.servers", "set kafka.bootstrap_servers instead"),
    ("group.id", "it is derived from kafka.group_prefix"),
    ("client.id", "set kafka.client_id instead"),
    (
        "enable.auto.offset.store",
        "factgate stores an offset only after everything the message produced is acknowledged",
    ),
];

/// Kafka connection and topics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KafkaConfig {
    /// Comma-separated `host:port` list of brokers. `None` runs an embedded broker in-process
    /// (one machine, development and tests).
    pub bootstrap_servers: Option<String>,
    /// Client id sent to the broker.
    pub client_id: String,
    /// Prefix of consumer group ids; each role appends `-<role>`.
    pub group_prefix: String,
    /// Partitions of the topics factgate creates when they are missing; caps how many instances of
    /// a role can share the work.
    pub partitions: u32,
    /// Replication factor of the topics factgate creates.
    pub replication_factor: u16,
    /// How long start-up waits for the brokers to answer (reading the cluster's metadata)
    /// before `factgate run` exits with the brokers' last error. `/healthz` answers meanwhile,
    /// and `/readyz` says the broker is not reachable.
    pub connect_timeout_ms: u64,
    /// Topic names.
    pub topics: TopicsConfig,
    /// Extra librdkafka properties (`security.protocol`, `sasl.mechanisms`, …), passed as is.
    /// Secret ones (`sasl.password`, …) are redacted in `Debug` and serialization.
    pub properties: KafkaProperties,
    /// librdkafka properties read from files, property name → path: a mounted Kubernetes or
    /// Docker secret (`"sasl.password" = "/run/secrets/kafka-password"`). Read once at load,
    /// trailing line breaks removed, into [`KafkaConfig::properties`].
    pub property_files: BTreeMap<String, PathBuf>,
}

/// Value shown instead of a secret property's value.
pub const REDACTED: &str = "[redacted]";

/// Whether a librdkafka property holds a secret: passwords, client secrets, private keys and the
/// configuration strings that embed them. Their values are never shown.
pub fn is_secret_property(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.contains("password")
        || name.contains("secret")
        || matches!(
            name.as_str(),
            "ssl.key.pem" | "ssl_key" | "sasl.oauthbearer.config" | "sasl.jaas.config"
        )
}

/// librdkafka properties, name → value. Reads and writes as a map; `Debug` and `Serialize` show
/// [`REDACTED`] for the values of secret properties ([`is_secret_property`]), so a configuration
/// can be logged or printed whole.
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct KafkaProperties(BTreeMap<String, String>);

impl KafkaProperties {
    /// The properties with secret values replaced, for showing.
    fn redacted(&self) -> BTreeMap<&str, &str> {
        self.0
            .iter()
            .map(|(k, v)| {
                let shown = if is_secret_property(k) {
                    REDACTED
                } else {
                    v.as_str()
                };
                (k.as_str(), shown)
            })
            .collect()
    }
}

impl fmt::Debug for KafkaProperties {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.redacted()).finish()
    }
}

impl Serialize for KafkaProperties {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.redacted().serialize(serializer)
    }
}

impl std::ops::Deref for KafkaProperties {
    type Target = BTreeMap<String, String>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for KafkaProperties {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl<'a> IntoIterator for &'a KafkaProperties {
    type Item = (&'a String, &'a String);
    type IntoIter = std::collections::btree_map::Iter<'a, String, String>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl From<BTreeMap<String, String>> for KafkaProperties {
    fn from(map: BTreeMap<String, String>) -> Self {
        Self(map)
    }
}

impl Default for KafkaConfig {
    fn default() -> Self {
        Self {
            bootstrap_servers: None,
            client_id: DEFAULT_CLIENT_ID.to_owned(),
            group_prefix: DEFAULT_GROUP_PREFIX.to_owned(),
            partitions: DEFAULT_PARTITIONS,
            replication_factor: DEFAULT_REPLICATION_FACTOR,
            connect_timeout_ms: DEFAULT_KAFKA_CONNECT_TIMEOUT_MS,
            topics: TopicsConfig::default(),
            properties: KafkaProperties::default(),
            property_files: BTreeMap::new(),
        }
    }
}

/// The names of the topics of the pipeline (see the crate docs for what flows where).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TopicsConfig {
    /// Drafts published by the CMS.
    pub drafts: String,
    /// Verification requests, one per cited claim.
    pub verify: String,
    /// Claim results.
    pub verified: String,
    /// Article manifests: which claims the joiner must wait for.
    pub manifests: String,
    /// Decisions, one per (article, revision).
    pub decisions: String,
    /// Draft events that could not be read.
    pub dead_letter: String,
    /// Editors' overrides of a decision's finding (key: article), read by the join, written by
    /// the override form of the pages (or by any tool, to `schemas/override.v1.json`).
    pub overrides: String,
    /// `factgate recheck`: each run's scope, captured at its start (key: run id).
    pub recheck_runs: String,
    /// `factgate recheck`: the decisions of re-check runs, each carrying its run id (key:
    /// article). Never read by the live pipeline or a CMS's gate.
    pub recheck_decisions: String,
}

impl Default for TopicsConfig {
    fn default() -> Self {
        Self {
            drafts: DEFAULT_TOPIC_DRAFTS.to_owned(),
            verify: DEFAULT_TOPIC_VERIFY.to_owned(),
            verified: DEFAULT_TOPIC_VERIFIED.to_owned(),
            manifests: DEFAULT_TOPIC_MANIFESTS.to_owned(),
            decisions: DEFAULT_TOPIC_DECISIONS.to_owned(),
            dead_letter: DEFAULT_TOPIC_DEAD_LETTER.to_owned(),
            overrides: DEFAULT_TOPIC_OVERRIDES.to_owned(),
            recheck_runs: DEFAULT_TOPIC_RECHECK_RUNS.to_owned(),
            recheck_decisions: DEFAULT_TOPIC_RECHECK_DECISIONS.to_owned(),
        }
    }
}

impl TopicsConfig {
    /// Each topic with its key, in pipeline order.
    pub fn named(&self) -> [(&'static str, &str); 9] {
        [
            ("drafts", &self.drafts),
            ("verify", &self.verify),
            ("verified", &self.verified),
            ("manifests", &self.manifests),
            ("decisions", &self.decisions),
            ("dead_letter", &self.dead_letter),
            ("overrides", &self.overrides),
            ("recheck_runs", &self.recheck_runs),
            ("recheck_decisions", &self.recheck_decisions),
        ]
    }
}

impl KafkaConfig {
    /// How long start-up waits for the brokers (`kafka.connect_timeout_ms`).
    pub fn connect_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.connect_timeout_ms)
    }

    /// The largest record factgate's producer may send: `message.max.bytes` of
    /// `kafka.properties`, else librdkafka's default. Every output is sized to fit it.
    pub fn message_max_bytes(&self) -> u64 {
        self.properties
            .get("message.max.bytes")
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(DEFAULT_MESSAGE_MAX_BYTES)
    }

    /// The largest event payload (JSON) factgate writes: [`KafkaConfig::message_max_bytes`]
    /// less the room its key, headers and the record framing take.
    pub fn max_payload_bytes(&self) -> usize {
        let budget = self
            .message_max_bytes()
            .saturating_sub(RECORD_OVERHEAD_BYTES + KEY_AND_HEADERS_BYTES);
        usize::try_from(budget).unwrap_or(usize::MAX)
    }

    /// The largest payload of a record whose key and headers take `key_and_headers` bytes: for
    /// records whose headers are larger than an event's (a dead letter's cause).
    pub fn max_payload_bytes_beside(&self, key_and_headers: usize) -> usize {
        let budget = self
            .message_max_bytes()
            .saturating_sub(RECORD_OVERHEAD_BYTES)
            .saturating_sub(u64::try_from(key_and_headers).unwrap_or(u64::MAX));
        usize::try_from(budget).unwrap_or(usize::MAX)
    }

    pub(crate) fn validate(&self, validation: &mut Validation) {
        if let Some(value) = self.properties.get("message.max.bytes") {
            let key = "kafka.properties.\"message.max.bytes\"";
            match value.trim().parse::<u64>() {
                Ok(n) if n >= MIN_MESSAGE_MAX_BYTES => {}
                Ok(n) => validation.fail(
                    key,
                    format!("{key} ({n}) must be at least {MIN_MESSAGE_MAX_BYTES}"),
                ),
                Err(_) => validation.fail(key, format!("{key} ({value:?}) must be a whole number")),
            }
        }
        if let Some(servers) = &self.bootstrap_servers
            && servers.split(',').any(|s| s.trim().is_empty())
        {
            validation.fail(
                "kafka.bootstrap_servers",
                "kafka.bootstrap_servers must be a comma-separated list of host:port \
                 (leave it out to run the embedded broker)",
            );
        }
        validation.not_blank("kafka.client_id", &self.client_id);
        validation.not_blank("kafka.group_prefix", &self.group_prefix);
        validation.nonzero("kafka.partitions", self.partitions.into());
        validation.nonzero("kafka.replication_factor", self.replication_factor.into());
        validation.nonzero("kafka.connect_timeout_ms", self.connect_timeout_ms);

        let topics = self.topics.named();
        for (i, (name, topic)) in topics.iter().enumerate() {
            let key = format!("kafka.topics.{name}");
            if let Err(why) = check_topic_name(topic) {
                validation.fail(&key, format!("{key} ({topic:?}) {why}"));
            }
            // Two roles sharing one topic would read each other's events as their own.
            if let Some((other, _)) = topics[..i].iter().find(|(_, t)| t == topic) {
                validation.fail(
                    &key,
                    format!("{key} and kafka.topics.{other} must differ (both are {topic:?})"),
                );
            }
        }

        for (property, value) in &self.properties {
            let key = format!("kafka.properties.{property:?}");
            if let Some((_, why)) = RESERVED_PROPERTIES.iter().find(|(p, _)| p == property) {
                validation.fail(&key, format!("{key} is set by factgate: {why}"));
            } else if property.trim().is_empty() || value.trim().is_empty() {
                validation.fail(&key, format!("{key} needs a non-empty name and value"));
            }
        }
        for (property, path) in &self.property_files {
            let key = format!("kafka.property_files.{property:?}");
            if let Some((_, why)) = RESERVED_PROPERTIES.iter().find(|(p, _)| p == property) {
                validation.fail(&key, format!("{key} is set by factgate: {why}"));
            } else if property.trim().is_empty() || path.as_os_str().is_empty() {
                validation.fail(&key, format!("{key} needs a non-empty name and path"));
            }
        }
    }

    /// Reads every `property_files` entry into `properties`. A property given both ways is a
    /// contradiction; an unreadable or empty file is named by its key and path, never by its
    /// content.
    pub(crate) fn read_property_files(&mut self, validation: &mut Validation) {
        for (property, path) in &self.property_files {
            let key = format!("kafka.property_files.{property:?}");
            if self.properties.contains_key(property) {
                validation.fail(
                    &key,
                    format!(
                        "{key} and kafka.properties.{property:?} both set the property: keep one"
                    ),
                );
                continue;
            }
            match super::load::read_capped(path) {
                Ok(text) => {
                    // A secret file written by `echo` ends with a line break that is no part of
                    // the secret.
                    let value = text.trim_end_matches(['\n', '\r']);
                    if value.is_empty() {
                        validation.fail(&key, format!("{key}: {} is empty", path.display()));
                    } else {
                        self.properties.insert(property.clone(), value.to_owned());
                    }
                }
                Err(err) => validation.fail(
                    &key,
                    format!("{key}: cannot read {}: {err}", path.display()),
                ),
            }
        }
    }
}

/// Kafka's own rule for topic names, checked here so a typo fails at start-up, not at the broker.
fn check_topic_name(topic: &str) -> Result<(), &'static str> {
    if topic.is_empty() {
        return Err("must not be empty");
    }
    if topic.len() > 249 {
        return Err("must be at most 249 characters");
    }
    if topic == "." || topic == ".." {
        return Err("must not be \".\" or \"..\"");
    }
    if !topic
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        return Err("may hold only ASCII letters, digits, '.', '_' and '-'");
    }
    Ok(())
}
