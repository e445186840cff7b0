//! Kafka consumers: lag from librdkafka's statistics.

use std::collections::BTreeMap;

use crate::events::TopicPartition;

use tracing::debug;

use crate::metrics::metrics;

/// A consumer of `role` (in consumer group `group`) reported its lag per (topic, partition):
/// `factgate_consumer_lag_messages` is set to the latest report, and the series of partitions
/// no longer reported (revoked) are removed, so a dashboard does not show a stale lag forever.
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
    debug!(
        role,
        partitions = latest.len(),
        total_lag = latest.values().sum::<i64>(),
        "consumer lag reported"
    );
}
