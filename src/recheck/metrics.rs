//! `factgate recheck`'s Prometheus metrics, in the process-wide registry and labelled by `run`,
//! so dashboards and alerts tell re-checks from live traffic (and one run from another).
//!
//! | metric | meaning |
//! |---|---|
//! | `factgate_recheck_articles{run}` | articles in the run's scope |
//! | `factgate_recheck_decided_articles{run,outcome}` | articles decided so far, by any instance of the run |
//! | `factgate_recheck_changes{run,change}` | at the end: articles per change against the live decision |
//! | `factgate_recheck_in_flight_checks{run}` | checks this instance has admitted and not finished |
//! | `factgate_recheck_check_duration_seconds{run}` | one article's check on this instance, admission to decision |
//!
//! The run label is the run id: one value per run, and a process runs one run.

use std::sync::LazyLock;

use prometheus::{HistogramOpts, HistogramVec, IntGaugeVec, Opts};

use super::diff::Summary;
use crate::metrics::label;
use factgate_core::events::Outcome;

pub(super) struct RecheckMetrics {
    pub articles: IntGaugeVec,
    pub decided: IntGaugeVec,
    pub changes: IntGaugeVec,
    pub in_flight_checks: IntGaugeVec,
    pub check_duration: HistogramVec,
}

pub(super) fn metrics() -> &'static RecheckMetrics {
    static METRICS: LazyLock<RecheckMetrics> = LazyLock::new(RecheckMetrics::new);
    &METRICS
}

fn gauge(name: &str, help: &str, labels: &[&str]) -> IntGaugeVec {
    let gauge =
        IntGaugeVec::new(Opts::new(name, help), labels).expect("a recheck gauge is well formed");
    register(Box::new(gauge.clone()));
    gauge
}

fn register(collector: Box<dyn prometheus::core::Collector>) {
    // Registered once per process (the LazyLock); a second registration cannot happen.
    crate::metrics::metrics()
        .registry()
        .register(collector)
        .expect("recheck metrics are registered once");
}

impl RecheckMetrics {
    fn new() -> Self {
        let check_duration = HistogramVec::new(
            HistogramOpts::new(
                "factgate_recheck_check_duration_seconds",
                "One article's re-check on this instance, from admission to decision.",
            )
            .buckets(crate::metrics::DECISION_LATENCY_BUCKETS.to_vec()),
            &["run"],
        )
        .expect("a recheck histogram is well formed");
        register(Box::new(check_duration.clone()));
        RecheckMetrics {
            articles: gauge(
                "factgate_recheck_articles",
                "Articles in the re-check run's scope.",
                &["run"],
            ),
            decided: gauge(
                "factgate_recheck_decided_articles",
                "Articles the re-check run has decided, by any of its instances.",
                &["run", "outcome"],
            ),
            changes: gauge(
                "factgate_recheck_changes",
                "At the end of a re-check run: its articles per change against the live decision.",
                &["run", "change"],
            ),
            in_flight_checks: gauge(
                "factgate_recheck_in_flight_checks",
                "Checks this re-check instance has admitted and not finished.",
                &["run"],
            ),
            check_duration,
        }
    }

    pub fn progress(&self, run: &str, total: usize, passed: usize, blocked: usize) {
        self.articles.with_label_values(&[run]).set(as_i64(total));
        self.decided
            .with_label_values(&[run, label(Outcome::Pass)])
            .set(as_i64(passed));
        self.decided
            .with_label_values(&[run, label(Outcome::Block)])
            .set(as_i64(blocked));
    }

    pub fn finished(&self, run: &str, summary: &Summary) {
        for (change, count) in &summary.changes {
            self.changes
                .with_label_values(&[run, change])
                .set(as_i64(*count));
        }
    }
}

fn as_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
