//! Builders for factgate's Kafka clients. Every client gets the broker list, the client id and the
//! configured extra `properties`; factgate's own settings (idempotence, the group id, manual offset
//! store) are applied last so an extra property cannot silently break "offsets follow outputs".

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rdkafka::config::ClientConfig;
use rdkafka::config::RDKafkaLogLevel;
use rdkafka::consumer::{BaseConsumer, ConsumerContext, Rebalance, StreamConsumer};
use rdkafka::error::{KafkaError, KafkaResult};
use rdkafka::{ClientContext, Statistics, TopicPartitionList};
use tracing::debug;

use super::KafkaSetupError;
use super::resume::{Resuming, move_back_assignment};
use crate::config::{KafkaConfig, REDACTED, is_secret_property};
use factgate_core::events::TopicPartition;

/// How often librdkafka reports statistics (consumer lag among them) to [`RoleContext`].
pub const STATISTICS_INTERVAL_MS: u32 = 10_000;
/// How often stored offsets are committed. Short, because a restart replays everything after
/// the last commit.
pub const AUTO_COMMIT_INTERVAL_MS: u32 = 1_000;
/// How long the producer waits to batch records: low, since a decision is awaited by a person.
pub const LINGER_MS: u32 = 5;
/// The most a consumer prefetches, in KiB (librdkafka's default is 64 MiB per consumer). A role
/// holds at most 64 drafts (extract) or 512 requests (verify) in hand, so a larger queue hides
/// no more broker latency; it only holds memory while a role waits on slow sources.
pub const QUEUED_MAX_MESSAGES_KBYTES: u32 = 8 * 1024;
/// The messages per partition a consumer tries to keep prefetched (librdkafka's default is
/// 100,000): a few seconds of work at the pipeline's rate.
pub const QUEUED_MIN_MESSAGES: u32 = 5_000;
/// How long a group member may go without a heartbeat before the broker gives its partitions
/// to the others (librdkafka's default is 45 s). A process killed outright holds its partitions
/// this long; heartbeats come from librdkafka's own thread every [`HEARTBEAT_INTERVAL_MS`], so a
/// busy process does not miss them. Real brokers accept 6 s at the least by default
/// (`group.min.session.timeout.ms`).
pub const SESSION_TIMEOUT_MS: u32 = 10_000;
/// How often a group member tells the broker it is alive, and learns of a rebalance.
pub const HEARTBEAT_INTERVAL_MS: u32 = 1_000;
/// The join's partition assignment: `range` gives one member the same partition numbers of
/// every topic it subscribes to, so an article's manifest and its results (two topics keyed and
/// partitioned alike) reach the same instance. Other assignors (`roundrobin`,
/// `cooperative-sticky`) do not; the join sets this whatever `kafka.properties` says.
pub const JOIN_ASSIGNMENT_STRATEGY: &str = "range";

/// How a consumer whose prefetch queue is full waits before it looks again (librdkafka's
/// default is 1,000 ms). With [`QUEUED_MIN_MESSAGES`] prefetched, a role working faster than
/// 5,000 messages a second ran its queue dry within the wait and stood idle for the rest of it:
/// the verify role stalled for about 0.4 s in every 1.1 s of a 10,000-draft run. Looking again
/// after 20 ms sends no request while the queue is full; it only costs a wake-up.
pub const FETCH_QUEUE_BACKOFF_MS: u32 = 20;

/// The settings every client shares: brokers, client id, extra properties.
pub fn base_config(config: &KafkaConfig, bootstrap: &str) -> ClientConfig {
    let mut client = ClientConfig::new();
    for (key, value) in &config.properties {
        client.set(key, value);
    }
    client
        .set("bootstrap.servers", bootstrap)
        .set("client.id", &config.client_id);
    client
}

/// The consumer group id of `role`: `{group_prefix}-{role}` (e.g. `factgate-extract`), as
/// `kafka.group_prefix` documents. Each role is its own group, so each scales on its own.
pub fn group_id(config: &KafkaConfig, role: &str) -> String {
    format!("{}-{role}", config.group_prefix)
}

/// The consumer of `role` (`extract`, `verify`, `join`), not yet subscribed: group
/// [`group_id`], offsets stored by the application only (`enable.auto.offset.store=false`) and
/// committed in the background (`enable.auto.commit=true`), reading a new group from the earliest
/// offset so no draft published before the first start is skipped.
///
/// # Errors
/// [`KafkaSetupError::Client`] when librdkafka rejects the configuration.
pub fn consumer(
    config: &KafkaConfig,
    bootstrap: &str,
    role: &str,
) -> Result<RoleConsumer, KafkaSetupError> {
    let mut client = base_config(config, bootstrap);
    set_default(&mut client, config, "auto.offset.reset", "earliest");
    set_default(
        &mut client,
        config,
        "auto.commit.interval.ms",
        &AUTO_COMMIT_INTERVAL_MS.to_string(),
    );
    set_default(
        &mut client,
        config,
        "statistics.interval.ms",
        &STATISTICS_INTERVAL_MS.to_string(),
    );
    set_default(&mut client, config, "enable.partition.eof", "false");
    set_default(
        &mut client,
        config,
        "session.timeout.ms",
        &SESSION_TIMEOUT_MS.to_string(),
    );
    set_default(
        &mut client,
        config,
        "heartbeat.interval.ms",
        &HEARTBEAT_INTERVAL_MS.to_string(),
    );
    if role == "join" {
        if let Some(asked) = config.properties.get("partition.assignment.strategy")
            && asked != JOIN_ASSIGNMENT_STRATEGY
        {
            crate::internal_events::join_assignment_strategy_ignored(&asked.to_string());
        }
        client.set("partition.assignment.strategy", JOIN_ASSIGNMENT_STRATEGY);
    }
    set_default(
        &mut client,
        config,
        "queued.max.messages.kbytes",
        &QUEUED_MAX_MESSAGES_KBYTES.to_string(),
    );
    set_default(
        &mut client,
        config,
        "queued.min.messages",
        &QUEUED_MIN_MESSAGES.to_string(),
    );
    set_default(
        &mut client,
        config,
        "fetch.queue.backoff.ms",
        &FETCH_QUEUE_BACKOFF_MS.to_string(),
    );
    // librdkafka reports records it skipped only in a warning ([`records_skipped`]); `rdkafka`
    // sets its log level from the `log` crate's, which may be below that.
    if (client.log_level as i32) < (RDKafkaLogLevel::Warning as i32) {
        client.set_log_level(RDKafkaLogLevel::Warning);
    }
    let group = group_id(config, role);
    client
        .set("group.id", &group)
        .set("enable.auto.commit", "true")
        .set("enable.auto.offset.store", "false")
        .create_with_context(RoleContext::new(role, &group))
        .map_err(|source| KafkaSetupError::Client {
            client: format!("consumer for role {role}"),
            source: redact_config_error(source),
        })
}

/// `err` with the value of a secret property hidden: librdkafka repeats a refused property's name
/// and value in its error (`… not supported in this build: sasl.oauthbearer.client.secret
/// <value>`), which would put a password in the logs.
pub fn redact_config_error(err: KafkaError) -> KafkaError {
    match err {
        KafkaError::ClientConfig(result, description, key, value)
            if is_secret_property(&key) && !value.is_empty() =>
        {
            let description = description.replace(&value, REDACTED);
            KafkaError::ClientConfig(result, description, key, REDACTED.to_owned())
        }
        other => other,
    }
}

/// Sets `key` unless the operator set it in `kafka.properties`.
pub fn set_default(client: &mut ClientConfig, config: &KafkaConfig, key: &str, value: &str) {
    if !config.properties.contains_key(key) {
        client.set(key, value);
    }
}

/// A role's consumer.
pub type RoleConsumer = StreamConsumer<RoleContext>;

/// The context of a role's consumer: logs rebalances and failed commits, keeps the consumer lag
/// of the latest statistics report for metrics and readiness, and the partitions revoked since
/// the role last asked ([`RoleContext::take_revoked`]), so a role with state per partition (the
/// join) can drop what it no longer owns.
pub struct RoleContext {
    role: String,
    /// The consumer group, a label of the lag metric: two deployments sharing a Prometheus (the
    /// live one and a re-check) have the same roles but not the same groups.
    group: String,
    lag: Mutex<BTreeMap<TopicPartition, i64>>,
    health: Arc<ConsumerHealth>,
    revoked: Mutex<Vec<TopicPartition>>,
    assigned: Mutex<Vec<TopicPartition>>,
    before_revoke: Mutex<Option<RevokeHook>>,
    /// Whether assignments start before the committed offset ([`super::resume`]): set by the
    /// role's [`super::ResumeAtCommitted`], which skips what was handled before, or by the join,
    /// which reads it as replays.
    resume_at_committed: AtomicBool,
    /// Whether the partitions so moved are kept for [`RoleContext::take_resuming`].
    track_resuming: AtomicBool,
    /// Partitions assigned with their read moved back, for [`super::ResumeAtCommitted`].
    resuming: Mutex<Vec<(TopicPartition, Resuming)>>,
}

impl std::fmt::Debug for RoleContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RoleContext")
            .field("role", &self.role)
            .field("group", &self.group)
            .field("health", &self.health)
            .finish_non_exhaustive()
    }
}

/// What a role runs when its partitions are about to be revoked, before they go to another
/// member; see [`RoleContext::before_revoke`].
pub type RevokeHook = Box<dyn Fn() + Send + Sync>;

/// What readiness needs to know of a consumer, kept current by its callbacks: the partitions
/// assigned to it, and whether a broker answers.
#[derive(Debug, Default)]
pub struct ConsumerHealth {
    assigned: AtomicUsize,
    broker_up: AtomicBool,
}

impl ConsumerHealth {
    /// Partitions currently assigned to the consumer.
    pub fn assigned_partitions(&self) -> usize {
        self.assigned.load(Ordering::Relaxed)
    }

    /// Whether a broker answered lately: set by an assignment or a statistics report with a
    /// broker up, cleared when librdkafka reports all brokers down.
    pub fn broker_reachable(&self) -> bool {
        self.broker_up.load(Ordering::Relaxed)
    }
}

impl RoleContext {
    fn new(role: &str, group: &str) -> Self {
        Self {
            role: role.to_owned(),
            group: group.to_owned(),
            lag: Mutex::new(BTreeMap::new()),
            health: Arc::new(ConsumerHealth::default()),
            revoked: Mutex::new(Vec::new()),
            assigned: Mutex::new(Vec::new()),
            before_revoke: Mutex::new(None),
            resume_at_committed: AtomicBool::new(false),
            track_resuming: AtomicBool::new(false),
            resuming: Mutex::new(Vec::new()),
        }
    }

    /// The partitions assigned to this consumer since the last call, like
    /// [`RoleContext::take_revoked`]: an assignment runs inside the consumer's poll, before any
    /// message of it is returned, so a role that calls this after every read learns of new
    /// partitions before it reads any of their messages.
    pub fn take_assigned(&self) -> Vec<TopicPartition> {
        std::mem::take(&mut *self.assigned.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Runs `hook` whenever partitions are about to be revoked, inside the rebalance: the group
    /// hands them to another member only once it returns. The join flushes its decisions there,
    /// so the next owner reads them back before it decides anything.
    pub fn before_revoke(&self, hook: RevokeHook) {
        *self.before_revoke.lock().unwrap_or_else(|e| e.into_inner()) = Some(hook);
    }

    /// The partitions revoked from this consumer since the last call. Revocation runs
    /// inside the consumer's poll, between two messages the role reads: a role that calls this
    /// after every read sees a revocation before any message of the next assignment. The
    /// offsets stored for them were committed by librdkafka as they were revoked.
    pub fn take_revoked(&self) -> Vec<TopicPartition> {
        std::mem::take(&mut *self.revoked.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// From the next assignment on, starts partitions' reads before their committed offsets
    /// ([`super::resume`]); with `track`, keeps which for [`RoleContext::take_resuming`]. The
    /// join, which reads again what it decided as replays, moves its reads back without tracking.
    pub fn move_reads_back(&self, track: bool) {
        self.track_resuming.store(track, Ordering::Relaxed);
        self.resume_at_committed.store(true, Ordering::Relaxed);
    }

    /// The partitions assigned since the last call whose read was moved back before their
    /// committed offset ([`super::resume`]).
    pub(crate) fn take_resuming(&self) -> Vec<(TopicPartition, Resuming)> {
        std::mem::take(&mut *self.resuming.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// The consumer's health, shared with whoever reports readiness.
    pub fn health(&self) -> Arc<ConsumerHealth> {
        Arc::clone(&self.health)
    }

    /// The role this consumer serves.
    pub fn role(&self) -> &str {
        &self.role
    }

    /// Messages between the committed offset and the end of each assigned partition, from the latest statistics report (empty until the first one, every
    /// [`STATISTICS_INTERVAL_MS`]).
    pub fn consumer_lag(&self) -> BTreeMap<TopicPartition, i64> {
        // A poisoned lock only means a statistics callback panicked; the map is still usable.
        self.lag.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl ClientContext for RoleContext {
    fn log(&self, level: RDKafkaLogLevel, fac: &str, log_message: &str) {
        if let Some((topic, partition)) = records_skipped(level, fac, log_message) {
            crate::internal_events::offset_reset(
                &self.role,
                &self.group,
                topic,
                partition,
                log_message,
            );
            return;
        }
        crate::internal_events::librdkafka_logged(level, fac, log_message);
    }

    fn error(&self, error: KafkaError, reason: &str) {
        if error.rdkafka_error_code() == Some(rdkafka::types::RDKafkaErrorCode::AllBrokersDown) {
            self.health.broker_up.store(false, Ordering::Relaxed);
        }
        crate::internal_events::kafka_client_error(Some(&self.role), &error, reason);
    }

    fn stats(&self, statistics: Statistics) {
        let up = statistics.brokers.values().any(|b| b.state == "UP");
        self.health.broker_up.store(up, Ordering::Relaxed);
        let mut lag = BTreeMap::new();
        for (topic, t) in statistics.topics {
            for (partition, p) in t.partitions {
                // -1 is librdkafka's internal "unassigned" partition and unknown lags.
                if partition >= 0 && p.consumer_lag >= 0 {
                    lag.insert(
                        TopicPartition::new(topic.as_str(), partition),
                        p.consumer_lag,
                    );
                }
            }
        }
        let mut held = self.lag.lock().unwrap_or_else(|e| e.into_inner());
        publish_lag(&self.role, &self.group, &held, &lag);
        *held = lag;
    }
}

/// The (topic, partition) of a librdkafka log line saying a consumer's position was reset because
/// of an error: the broker no longer has the record (`Broker: Offset out of range` once retention
/// deleted it) or the log was truncated. librdkafka logs these as warnings, and a reset without an
/// error (a new group starting at `auto.offset.reset`) only at debug level, so the level tells
/// them apart. The line reads `[thrd:…]: {topic} [{partition}]: offset reset (at …) to …: {reason}:
/// {error}`.
fn records_skipped<'a>(
    level: RDKafkaLogLevel,
    fac: &str,
    message: &'a str,
) -> Option<(&'a str, i32)> {
    if fac != "OFFSET" || level as i32 > RDKafkaLogLevel::Warning as i32 {
        return None;
    }
    let (partition_of, _) = message.split_once("]: offset reset (")?;
    let (before, partition) = partition_of.rsplit_once(" [")?;
    // What precedes the topic is librdkafka's `[thrd:…]: `; a topic name has no spaces.
    let topic = before.rsplit(' ').next()?;
    Some((topic, partition.parse().ok()?))
}

/// The context of the readers that assign themselves partitions and read them to their end
/// (`factgate recheck`'s, the join's reads of past decisions): reaching the end of a partition
/// is what they are for, so librdkafka's end-of-partition event is logged at debug level, where
/// `rdkafka`'s default context logs every such event as an error; other errors are warnings.
#[derive(Debug, Default, Clone, Copy)]
pub struct ReaderContext;

impl ClientContext for ReaderContext {
    fn log(&self, level: RDKafkaLogLevel, fac: &str, log_message: &str) {
        crate::internal_events::librdkafka_logged(level, fac, log_message);
    }

    fn error(&self, error: KafkaError, reason: &str) {
        if is_partition_eof(&error) {
            debug!(error = %error, reason, "end of partition");
        } else {
            crate::internal_events::kafka_client_error(None, &error, reason);
        }
    }
}

impl ConsumerContext for ReaderContext {}

/// Whether `error` only says a reader reached the end of a partition.
pub fn is_partition_eof(error: &KafkaError) -> bool {
    matches!(error, KafkaError::PartitionEOF(_))
        || error.rdkafka_error_code() == Some(rdkafka::error::RDKafkaErrorCode::PartitionEOF)
}

/// Reports `role`'s latest lag per (topic, partition) ([`crate::internal_events::consumer_lag_reported`]).
fn publish_lag(
    role: &str,
    group: &str,
    previous: &BTreeMap<TopicPartition, i64>,
    latest: &BTreeMap<TopicPartition, i64>,
) {
    crate::internal_events::consumer_lag_reported(role, group, previous, latest);
}

impl ConsumerContext for RoleContext {
    fn pre_rebalance(&self, consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        match rebalance {
            Rebalance::Revoke(_) => {
                if let Some(hook) = &*self.before_revoke.lock().unwrap_or_else(|e| e.into_inner()) {
                    hook();
                }
            }
            Rebalance::Assign(tpl) if self.resume_at_committed.load(Ordering::Relaxed) => {
                let moved = move_back_assignment(consumer, &self.role, tpl);
                if !self.track_resuming.load(Ordering::Relaxed) {
                    return;
                }
                self.resuming
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend(moved);
            }
            _ => {}
        }
    }

    fn post_rebalance(&self, _consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        match rebalance {
            Rebalance::Assign(tpl) => {
                self.health.assigned.store(tpl.count(), Ordering::Relaxed);
                self.health.broker_up.store(true, Ordering::Relaxed);
                crate::internal_events::partitions_assigned(&self.role, tpl.count());
                let assigned: Vec<TopicPartition> = tpl
                    .elements()
                    .iter()
                    .map(|e| TopicPartition::new(e.topic(), e.partition()))
                    .collect();
                let mut pending = self.assigned.lock().unwrap_or_else(|e| e.into_inner());
                for tp in assigned {
                    if !pending.contains(&tp) {
                        pending.push(tp);
                    }
                }
            }
            Rebalance::Revoke(tpl) => {
                // The eager protocol revokes the whole assignment before the next one.
                self.health.assigned.store(0, Ordering::Relaxed);
                let revoked: Vec<TopicPartition> = tpl
                    .elements()
                    .iter()
                    .map(|e| TopicPartition::new(e.topic(), e.partition()))
                    .collect();
                crate::internal_events::partitions_revoked(&self.role, tpl.count());
                // Assigned and revoked before the role looked: nothing of them is read.
                self.assigned
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .retain(|tp| !revoked.contains(tp));
                self.resuming
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .retain(|(tp, _)| !revoked.contains(tp));
                self.revoked
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend(revoked);
            }
            Rebalance::Error(err) => crate::internal_events::rebalance_failed(&self.role, err),
        }
    }

    fn commit_callback(&self, result: KafkaResult<()>, offsets: &TopicPartitionList) {
        match result {
            Ok(()) => debug!(role = %self.role, partitions = offsets.count(), "offsets committed"),
            // Nothing stored since the last commit: not a fault.
            Err(err)
                if err.rdkafka_error_code() == Some(rdkafka::error::RDKafkaErrorCode::NoOffset) => {
            }
            // The offsets stay stored and are committed again on the next interval; what is not
            // committed is read again after a restart (at least once), never lost.
            Err(err) => crate::internal_events::offset_commit_failed(&self.role, &err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_reset_for_an_error_reads_as_records_skipped() {
        // As librdkafka 2.12 logs it when the broker deleted the next record.
        let lost = "[thrd:main]: drafts.published [3]: offset reset (at offset 0 (leader epoch -1), \
                    broker 1) to cached BEGINNING offset offset 192 (leader epoch -1): fetch failed \
                    due to requested offset not available on the broker: Broker: Offset out of range";
        assert_eq!(
            records_skipped(RDKafkaLogLevel::Warning, "OFFSET", lost),
            Some(("drafts.published", 3))
        );
        // A new group starting at auto.offset.reset: logged at debug level, nothing lost.
        assert_eq!(
            records_skipped(RDKafkaLogLevel::Debug, "OFFSET", lost),
            None
        );
        assert_eq!(
            records_skipped(RDKafkaLogLevel::Warning, "FETCH", lost),
            None
        );
        let other = "[thrd:main]: claims.verify [0]: stored offset 5 is past the end";
        assert_eq!(
            records_skipped(RDKafkaLogLevel::Warning, "OFFSET", other),
            None
        );
    }

    #[test]
    fn lag_reports_set_the_gauge_and_drop_revoked_partitions() {
        // A role name no other test uses: the registry is process-wide.
        let role = "lag-test-role";
        let series = |partition: &str| {
            crate::metrics::metrics()
                .consumer_lag
                .get_metric_with_label_values(&[role, "lag-group", "drafts", partition])
                .map(|g| g.get())
        };
        let drafts = |partition| TopicPartition::new("drafts", partition);
        let first = BTreeMap::from([(drafts(0), 5), (drafts(1), 9)]);
        publish_lag(role, "lag-group", &BTreeMap::new(), &first);
        assert_eq!(series("1").ok(), Some(9));
        let second = BTreeMap::from([(drafts(0), 2)]);
        publish_lag(role, "lag-group", &first, &second);
        assert_eq!(series("0").ok(), Some(2));
        let text = crate::metrics::render();
        assert!(text.contains(
            "factgate_consumer_lag_messages{group=\"lag-group\",partition=\"0\",role=\"lag-test-role\",topic=\"drafts\"} 2"
        ), "{text}");
        assert!(
            !text.contains("partition=\"1\",role=\"lag-test-role\""),
            "a revoked partition's lag stayed"
        );
    }

    #[test]
    fn librdkafka_is_built_with_tls_and_sasl() {
        let native = ClientConfig::new()
            .create_native_config()
            .expect("a native configuration");
        let features = native
            .get("builtin.features")
            .expect("librdkafka reports its features");
        let features: Vec<&str> = features.split(',').collect();
        for wanted in ["ssl", "sasl_plain", "sasl_scram", "sasl_oauthbearer"] {
            assert!(features.contains(&wanted), "{wanted} missing: {features:?}");
        }
    }

    #[test]
    fn the_end_of_a_partition_is_told_from_a_fault() {
        use rdkafka::error::RDKafkaErrorCode;
        // As a reader with `enable.partition.eof` gets it, by both of `rdkafka`'s paths.
        assert!(is_partition_eof(&KafkaError::PartitionEOF(3)));
        assert!(is_partition_eof(&KafkaError::Global(
            RDKafkaErrorCode::PartitionEOF
        )));
        assert!(!is_partition_eof(&KafkaError::Global(
            RDKafkaErrorCode::AllBrokersDown
        )));
    }

    #[test]
    fn group_id_follows_the_documented_prefix() {
        let config = KafkaConfig::default();
        assert_eq!(group_id(&config, "extract"), "factgate-extract");
    }

    #[test]
    fn extra_properties_reach_every_client_but_not_over_factgate_keys() {
        let mut config = KafkaConfig::default();
        config
            .properties
            .insert("socket.keepalive.enable".into(), "true".into());
        config
            .properties
            .insert("bootstrap.servers".into(), "elsewhere:1".into());
        let client = base_config(&config, "127.0.0.1:9");
        assert_eq!(client.get("socket.keepalive.enable"), Some("true"));
        assert_eq!(client.get("bootstrap.servers"), Some("127.0.0.1:9"));
        assert_eq!(client.get("client.id"), Some("factgate"));
    }
}
