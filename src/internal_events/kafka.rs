//! Kafka consumers: lag from librdkafka's statistics, and records the broker deleted unread.

use std::collections::BTreeMap;

use factgate_core::events::TopicPartition;

use tracing::{debug, error, info, warn};

use crate::metrics::metrics;

/// A consumer of `role` (in consumer group `group`) reported its lag per (topic, partition):
/// `factgate_consumer_lag_messages` is set to the latest report, and the series of partitions
/// no longer reported (revoked) are removed, so a dashboard does not show a stale lag forever.
///
/// Each topic's `factgate_consumer_offset_resets_total` series starts at 0 here, before any
/// reset: a counter whose series is born at 1 shows no `increase()` for that first reset, so the
/// alert on lost records would miss it, and the dashboard's panel would have no series to draw.
pub fn consumer_lag_reported(
    role: &str,
    group: &str,
    previous: &BTreeMap<TopicPartition, i64>,
    latest: &BTreeMap<TopicPartition, i64>,
) {
    let gauge = &metrics().consumer_lag;
    for tp in previous.keys() {
        if !latest.contains_key(tp) {
            // Err only when the series is already gone: nothing to do.
            let _ = gauge.remove_label_values(&[role, group, &tp.topic, &tp.partition.to_string()]);
        }
    }
    for (tp, lag) in latest {
        gauge
            .with_label_values(&[role, group, &tp.topic, &tp.partition.to_string()])
            .set(*lag);
    }
    let resets = &metrics().offset_resets;
    for tp in latest.keys() {
        resets.with_label_values(&[role, group, &tp.topic]);
    }
    debug!(
        role,
        partitions = latest.len(),
        total_lag = latest.values().sum::<i64>(),
        "consumer lag reported"
    );
}

/// A consumer of `role` asked for its next record on `topic` [`partition`] and the broker no
/// longer had it (its retention deleted it, or the log was truncated): librdkafka went on from the
/// offset `auto.offset.reset` names, and every record in between is lost to this role. A draft lost
/// that way gets no decision; a verification lost that way blocks its article at the join deadline.
/// Counted in `factgate_consumer_offset_resets_total` and logged as an error with librdkafka's
/// own account (`detail`: the offsets, the broker, the reason).
pub fn offset_reset(role: &str, group: &str, topic: &str, partition: i32, detail: &str) {
    metrics()
        .offset_resets
        .with_label_values(&[role, group, topic])
        .inc();
    error!(
        role,
        group,
        topic,
        partition,
        detail,
        "records were deleted by the broker before this role read them and are lost: keep consumers \
         within the topic's retention (the embedded broker keeps only the last 5 MiB of each \
         partition)"
    );
}

/// `kafka.properties` asks the join for another partition assignment strategy: it is not used.
pub fn join_assignment_strategy_ignored(asked: &str) {
    warn!(
        asked = %asked,
        "kafka.properties \"partition.assignment.strategy\" is not used by the join: \
         it needs each article's manifest and results at one instance (range)"
    );
}

/// librdkafka reported an error of a client (`role`'s, or a reader's when `None`).
pub fn kafka_client_error(
    role: Option<&dyn std::fmt::Display>,
    error: &dyn std::fmt::Display,
    reason: &str,
) {
    // A stop closes connections on purpose: what librdkafka says of them then is no warning.
    if is_stopping() {
        debug!(role = role.map(tracing::field::display), error = %error, reason, "Kafka client error while stopping");
        return;
    }
    match role {
        Some(role) => warn!(role = %role, error = %error, reason, "Kafka client error"),
        None => warn!(error = %error, reason, "Kafka client error"),
    }
}

static STOPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The process is stopping (Ctrl-C, SIGTERM): from now on a Kafka client's errors (brokers
/// going down as connections close) are logged at debug level, not as warnings or errors.
pub fn stopping() {
    STOPPING.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether [`stopping`] was called.
pub fn is_stopping() -> bool {
    STOPPING.load(std::sync::atomic::Ordering::Relaxed)
}

/// `role`'s consumer was assigned `partitions` partitions.
pub fn partitions_assigned(role: &dyn std::fmt::Display, partitions: usize) {
    info!(role = %role, partitions, "partitions assigned");
}

/// `role`'s consumer had `partitions` partitions revoked.
pub fn partitions_revoked(role: &dyn std::fmt::Display, partitions: usize) {
    info!(role = %role, partitions, "partitions revoked");
}

/// A rebalance of `role`'s consumer group failed.
pub fn rebalance_failed(role: &dyn std::fmt::Display, error: &dyn std::fmt::Display) {
    warn!(role = %role, error = %error, "rebalance failed");
}

/// The broker answered `role`'s first read of a new partition at `first`, past the group's
/// committed offset `committed` (it serves a record batch only from its first record): the read
/// moved back to `to`, and what comes before `committed` is skipped (see `kafka::resume`).
pub fn read_moved_back(
    role: &str,
    topic: &str,
    partition: i32,
    committed: i64,
    first: i64,
    to: i64,
) {
    info!(
        role,
        topic,
        partition,
        committed,
        first,
        to,
        "the broker answered past the committed offset; reading again from before it"
    );
}

/// As [`read_moved_back`], but moving the read back failed: the records between `committed` and
/// `first` are not read by `role`.
pub fn read_not_moved_back(
    error: &dyn std::fmt::Display,
    role: &str,
    topic: &str,
    partition: i32,
    committed: i64,
    first: i64,
) {
    error!(
        error = %error,
        role,
        topic,
        partition,
        committed,
        first,
        "the broker answered past the committed offset and the read could not move back: \
         the records between are not read"
    );
}

/// `role` could not learn the committed offsets of partitions just assigned: they are read from
/// wherever the broker answers, unguarded (see `kafka::resume`).
pub fn committed_offsets_unknown(error: &dyn std::fmt::Display, role: &str) {
    warn!(error = %error, role, "committed offsets of new partitions not known; reading on unguarded");
}

/// Committing `role`'s offsets failed: they stay stored and are committed on the next interval.
pub fn offset_commit_failed(role: &dyn std::fmt::Display, error: &dyn std::fmt::Display) {
    warn!(role = %role, error = %error, "offset commit failed");
}

/// A finished message's offset could not be stored (its partition was revoked meanwhile): its
/// new owner reads it again, which at-least-once allows.
pub fn offset_not_stored(error: &dyn std::fmt::Display, topic: &str, partition: i32) {
    warn!(error = %error, topic = %topic, partition, "offset not stored");
}

/// A consumer reported an error that is not fatal: it reads on.
pub fn consumer_error(error: &dyn std::fmt::Display) {
    warn!(error = %error, "consumer error; reading on");
}

/// The commit at shutdown failed; closing the consumer commits again.
pub fn shutdown_commit_failed(error: &dyn std::fmt::Display) {
    warn!(error = %error, "commit on shutdown failed; the close commits again");
}

/// A consumer did not close in time (the broker is unreachable, usually): it is left to end with
/// the process, and its last offsets are read again by the next owner.
pub fn consumer_close_timed_out(timeout_s: u64) {
    warn!(
        timeout_s,
        "the consumer did not close in time (broker unreachable?); giving up on it"
    );
}

/// The embedded broker started, at `bootstrap`.
pub fn embedded_broker_started(bootstrap: &str, brokers: i32, partitions: i32) {
    info!(bootstrap = %bootstrap, brokers, partitions, "embedded broker started");
}

/// The brokers are not reachable yet (`error`, the first of a run of the same error); start-up
/// keeps trying until `kafka.connect_timeout_ms`.
pub fn brokers_unreachable_yet(error: &str) {
    warn!(error = %error, "Kafka brokers not reachable yet; still trying");
}

/// A topic exists with another partition count than configured; it is left as is.
pub fn topic_partitions_differ(topic: &str, partitions: usize, configured: u32) {
    warn!(
        topic = %topic,
        partitions,
        configured,
        "topic exists with another partition count; left as is"
    );
}

/// A topic was created.
pub fn topic_created(topic: &str, partitions: i32) {
    info!(topic = %topic, partitions, "topic created");
}

/// A line of librdkafka's own log, forwarded at its level with target `librdkafka` (as `rdkafka`
/// logs it by default).
pub fn librdkafka_logged(level: rdkafka::config::RDKafkaLogLevel, fac: &str, message: &str) {
    use rdkafka::config::RDKafkaLogLevel;
    if is_stopping() && (level as i32) <= (RDKafkaLogLevel::Warning as i32) {
        debug!(target: "librdkafka", "librdkafka while stopping: {fac} {message}");
        return;
    }
    match level {
        RDKafkaLogLevel::Emerg
        | RDKafkaLogLevel::Alert
        | RDKafkaLogLevel::Critical
        | RDKafkaLogLevel::Error => error!(target: "librdkafka", "librdkafka: {fac} {message}"),
        RDKafkaLogLevel::Warning => warn!(target: "librdkafka", "librdkafka: {fac} {message}"),
        RDKafkaLogLevel::Notice | RDKafkaLogLevel::Info => {
            info!(target: "librdkafka", "librdkafka: {fac} {message}");
        }
        RDKafkaLogLevel::Debug => debug!(target: "librdkafka", "librdkafka: {fac} {message}"),
    }
}
