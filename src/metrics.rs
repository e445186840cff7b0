//! factgate's Prometheus metrics: one process-wide registry, served at `GET /metrics`.
//!
//! The names, types and labels are a contract with the Grafana dashboard and the alert rules;
//! the tests below pin every one. Each metric is
//! bumped in the one place its event happens, beside the log line for it:
//!
//! | metric | where |
//! |---|---|
//! | `factgate_drafts_consumed_total`, `factgate_claims_extracted_total{kind}`, `factgate_dead_letters_total` | the extract role |
//! | `factgate_fetches_total{status}`, `factgate_fetch_duration_seconds` | the fetcher's event log |
//! | `factgate_cache_{hits,misses,evictions}_total`, `factgate_cache_bytes` | the fetch cache |
//! | `factgate_rate_limit_wait_seconds` | the fetch limiter |
//! | `factgate_judge_duration_seconds` | the verifier |
//! | `factgate_verifications_total{verdict}` | the verify role, as it publishes a result |
//! | `factgate_llm_votes_total{voter,vote}` | the LLM judge, as each voter answers |
//! | `factgate_llm_claim_duration_seconds` | the LLM judge, as the panel decides on a claim |
//! | `factgate_decisions_total{outcome}`, `factgate_decision_reasons_total{reason}`, `factgate_decision_latency_seconds{outcome}` | the pipeline, as it publishes a decision |
//! | `factgate_join_in_flight_articles`, `factgate_join_paused{input}` | the join role |
//! | `factgate_consumer_lag_messages{role,group,topic,partition}` | each role consumer's statistics callback |
//! | `factgate_build_info{version}` | set once, to 1, when the registry is created |
//! | `process_*` (CPU seconds, resident memory, open file descriptors, start time; Linux) | the prometheus crate's process collector, read at each scrape |
//! | `factgate_limits_exceeded_total{limit}`, `factgate_outputs_shortened_total{event}` | extract (limits, split manifests), the pipeline (shortened decisions), verify (cut results) |
//! | `factgate_failed_messages_total{role}` | any role, for a message whose handling failed for its own sake |
//! | `factgate_republished_drafts_total{handling}` | the join, when a revision is published again |
//!
//! Labels are low-cardinality by construction: every label value comes from a closed enum
//! (mapped here) except `topic`, `partition` and `group`, which are the configured topics, their
//! partitions and the configured consumer groups.
//! Labelled counters are created at zero for every known label value, so a dashboard's `rate()`
//! has a series before the first event.
//!
//! The registry is process-wide, as a Prometheus scrape sees one process: several pipelines in
//! one process (tests) add to the same counters.

use std::sync::LazyLock;

use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};

use crate::events::{DecisionReason, Outcome};
use crate::model::{ClaimKind, Verdict};
use crate::quorum::{VoteOutcome, VoterRole, VoterVerdict};

/// The content type of [`render`]'s output: Prometheus text exposition format 0.0.4.
pub const CONTENT_TYPE: &str = prometheus::TEXT_FORMAT;

/// Buckets for one operation's latency: fetches, judging, rate-limit waits. From 5 ms (a cache
/// hit or an unhindered request) to 60 s (past the longest configured fetch or LLM timeout).
pub const LATENCY_BUCKETS: &[f64] = &[
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
];

/// Buckets for a draft's time to decision: up to 300 s, past any sensible `join.deadline_ms`, so
/// decisions made at the deadline land in a bucket of their own.
pub const DECISION_LATENCY_BUCKETS: &[f64] = &[
    0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 45.0, 60.0, 90.0, 120.0, 180.0, 300.0,
];

/// Every status class of `factgate_fetches_total`: [`crate::verify::fetch::FetchOutcome::class`]'s
/// values, plus nothing else.
pub const FETCH_STATUSES: [&str; 12] = [
    "ok",
    "not_found",
    "forbidden",
    "paywalled",
    "rate_limited",
    "server_error",
    "unexpected_status",
    "timeout",
    "too_large",
    "refused_by_policy",
    "unsupported_content",
    "network_error",
];

/// Every metric family factgate exports. Fields are the families, to bump where events happen.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    /// `factgate_drafts_consumed_total`: drafts read by the extract role.
    pub drafts_consumed: IntCounter,
    /// `factgate_claims_extracted_total{kind}`: label with [`claim_kind`]; a claim of several
    /// kinds counts once under each.
    pub claims_extracted: IntCounterVec,
    /// `factgate_verifications_total{verdict}`: label with [`verdict`].
    pub verifications: IntCounterVec,
    /// `factgate_fetches_total{status}`: label with one of [`FETCH_STATUSES`].
    pub fetches: IntCounterVec,
    /// `factgate_cache_hits_total`.
    pub cache_hits: IntCounter,
    /// `factgate_cache_misses_total`.
    pub cache_misses: IntCounter,
    /// `factgate_cache_evictions_total`: for size or expiry, not replacement.
    pub cache_evictions: IntCounter,
    /// `factgate_cache_bytes`: the cache's weighted size.
    pub cache_bytes: IntGauge,
    /// `factgate_rate_limit_wait_seconds`: observed for every request, zero when it did not wait.
    pub rate_limit_wait: Histogram,
    /// `factgate_fetch_duration_seconds`: one load from the network, retries included.
    pub fetch_duration: Histogram,
    /// `factgate_judge_duration_seconds`: judging one claim against its fetched source.
    pub judge_duration: Histogram,
    /// `factgate_decisions_total{outcome}`: once per decision; use [`Metrics::decision_published`].
    pub decisions: IntCounterVec,
    /// `factgate_decision_reasons_total{reason}`: once per reason of a block; use
    /// [`Metrics::decision_published`].
    pub decision_reasons: IntCounterVec,
    /// `factgate_decision_latency_seconds{outcome}`: every decision.
    pub decision_latency: HistogramVec,
    /// `factgate_join_in_flight_articles`.
    pub join_in_flight: IntGauge,
    /// `factgate_join_paused{input}`: 1 while the join's back-pressure pauses its `manifests`
    /// or `results` input, else 0.
    pub join_paused: IntGaugeVec,
    /// `factgate_dead_letters_total`.
    pub dead_letters: IntCounter,
    /// `factgate_llm_votes_total{voter,vote}`: label with [`VoterRole::as_str`] and [`vote`].
    pub llm_votes: IntCounterVec,
    /// `factgate_llm_claim_duration_seconds`: the LLM panel on one claim, all voters and waits
    /// for a request slot included.
    pub llm_claim_duration: Histogram,
    /// `factgate_consumer_lag_messages{role,group,topic,partition}`.
    pub consumer_lag: IntGaugeVec,
    /// `factgate_build_info{version}`: always 1; says which version answers the scrape, and is
    /// the series `FactgateDown` knows a factgate instance by, whatever its scrape job is called.
    pub build_info: IntGaugeVec,
    /// `factgate_limits_exceeded_total{limit}`: use [`Metrics::limit_exceeded`].
    pub limits_exceeded: IntCounterVec,
    /// `factgate_outputs_shortened_total{event}`: use [`Metrics::output_shortened`].
    pub outputs_shortened: IntCounterVec,
    /// `factgate_failed_messages_total{role}`: use [`Metrics::message_failed`].
    pub failed_messages: IntCounterVec,
    /// `factgate_republished_drafts_total{handling}`: use [`Metrics::draft_republished`].
    pub republished_drafts: IntCounterVec,
}

/// The `limit` label of `factgate_limits_exceeded_total`: each per-draft limit.
pub const LIMITS: [&str; 6] = [
    "body_bytes",
    "nesting_depth",
    "links",
    "claims",
    "checks",
    "output_bytes",
];
/// The `event` label of `factgate_outputs_shortened_total`.
pub const SHORTENED_OUTPUTS: [&str; 3] = ["manifest_split", "decision", "result"];
/// The `role` label of `factgate_failed_messages_total` (`decision`: a decision the broker
/// refused, and the block meant to replace it).
pub const FAILING_ROLES: [&str; 4] = ["extract", "verify", "join", "decision"];
/// The `handling` label of `factgate_republished_drafts_total`; see
/// [`crate::join::Republished`].
pub const REPUBLISHED_HANDLING: [&str; 4] =
    ["rechecked", "acknowledged", "in_flight", "new_content"];

/// The process's metrics.
pub fn metrics() -> &'static Metrics {
    static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);
    &METRICS
}

/// Every metric, in Prometheus text exposition format ([`CONTENT_TYPE`]).
pub fn render() -> String {
    metrics().render()
}

impl Metrics {
    fn new() -> Metrics {
        let registry = Registry::new();
        let m = Metrics {
            drafts_consumed: counter(
                &registry,
                "factgate_drafts_consumed_total",
                "Drafts read by the extract role.",
            ),
            claims_extracted: counter_vec(
                &registry,
                "factgate_claims_extracted_total",
                "Claims found in drafts, by claim kind.",
                &["kind"],
            ),
            verifications: counter_vec(
                &registry,
                "factgate_verifications_total",
                "Verification results produced, by verdict.",
                &["verdict"],
            ),
            fetches: counter_vec(
                &registry,
                "factgate_fetches_total",
                "Fetch outcomes by status class.",
                &["status"],
            ),
            cache_hits: counter(
                &registry,
                "factgate_cache_hits_total",
                "Fetches answered by the cache or by a concurrent load of the same URL.",
            ),
            cache_misses: counter(
                &registry,
                "factgate_cache_misses_total",
                "Fetches that loaded the page.",
            ),
            cache_evictions: counter(
                &registry,
                "factgate_cache_evictions_total",
                "Cache entries evicted for size or expiry.",
            ),
            cache_bytes: gauge(
                &registry,
                "factgate_cache_bytes",
                "Bytes the fetch cache holds (its weighted size).",
            ),
            rate_limit_wait: histogram(
                &registry,
                "factgate_rate_limit_wait_seconds",
                "Time a request waited for its host's or the global rate limit.",
                LATENCY_BUCKETS,
            ),
            fetch_duration: histogram(
                &registry,
                "factgate_fetch_duration_seconds",
                "Time one fetch took, retries included.",
                LATENCY_BUCKETS,
            ),
            judge_duration: histogram(
                &registry,
                "factgate_judge_duration_seconds",
                "Time judging one claim against its source took.",
                LATENCY_BUCKETS,
            ),
            decisions: counter_vec(
                &registry,
                "factgate_decisions_total",
                "Decisions published, by outcome (each decision once).",
                &["outcome"],
            ),
            decision_reasons: counter_vec(
                &registry,
                "factgate_decision_reasons_total",
                "Reasons of the blocks published (a block with two reasons counts under each).",
                &["reason"],
            ),
            decision_latency: histogram_vec(
                &registry,
                "factgate_decision_latency_seconds",
                "Time from the draft's publication (published_at, else the record's timestamp) to its decision.",
                &["outcome"],
                DECISION_LATENCY_BUCKETS,
            ),
            join_in_flight: gauge(
                &registry,
                "factgate_join_in_flight_articles",
                "Articles awaiting results in the join.",
            ),
            join_paused: gauge_vec(
                &registry,
                "factgate_join_paused",
                "1 while the join's back-pressure pauses reading an input (manifests or results).",
                &["input"],
            ),
            dead_letters: counter(
                &registry,
                "factgate_dead_letters_total",
                "Drafts sent to the dead-letter topic.",
            ),
            llm_votes: counter_vec(
                &registry,
                "factgate_llm_votes_total",
                "LLM quorum votes, by voter and vote (abstained when there was no valid vote).",
                &["voter", "vote"],
            ),
            llm_claim_duration: histogram(
                &registry,
                "factgate_llm_claim_duration_seconds",
                "Time the LLM quorum took on one claim, every voter and wait for a request slot included.",
                LATENCY_BUCKETS,
            ),
            consumer_lag: gauge_vec(
                &registry,
                "factgate_consumer_lag_messages",
                "Consumer lag from librdkafka statistics, by role, consumer group, topic and partition.",
                &["role", "group", "topic", "partition"],
            ),
            build_info: gauge_vec(
                &registry,
                "factgate_build_info",
                "Always 1: the version of factgate answering the scrape.",
                &["version"],
            ),
            limits_exceeded: counter_vec(
                &registry,
                "factgate_limits_exceeded_total",
                "Drafts blocked for going over a per-draft limit, by limit.",
                &["limit"],
            ),
            outputs_shortened: counter_vec(
                &registry,
                "factgate_outputs_shortened_total",
                "Events split or shortened to fit the broker's message limit, by event.",
                &["event"],
            ),
            failed_messages: counter_vec(
                &registry,
                "factgate_failed_messages_total",
                "Messages whose handling failed for a reason of their own (answered and skipped, never retried), by role.",
                &["role"],
            ),
            republished_drafts: counter_vec(
                &registry,
                "factgate_republished_drafts_total",
                "Revisions published again, by how the join handled them.",
                &["handling"],
            ),
            registry,
        };
        m.build_info
            .with_label_values(&[env!("CARGO_PKG_VERSION")])
            .set(1);
        register_process_collector(&m.registry);
        m.create_known_series();
        m
    }

    /// Creates every labelled series whose label values are known up front, at zero.
    fn create_known_series(&self) {
        for kind in ALL_CLAIM_KINDS {
            self.claims_extracted.with_label_values(&[claim_kind(kind)]);
        }
        for v in [Verdict::Supported, Verdict::Refuted, Verdict::Inconclusive] {
            self.verifications.with_label_values(&[verdict(v)]);
        }
        for status in FETCH_STATUSES {
            self.fetches.with_label_values(&[status]);
        }
        for reason in DecisionReason::ALL {
            self.decision_reasons
                .with_label_values(&[decision_reason(reason)]);
        }
        for o in [Outcome::Pass, Outcome::Block] {
            self.decisions.with_label_values(&[outcome(o)]);
            self.decision_latency.with_label_values(&[outcome(o)]);
        }
        for voter in VoterRole::ALL {
            for vote in ALL_VOTES {
                self.llm_votes.with_label_values(&[voter.as_str(), vote]);
            }
        }
        for input in JOIN_INPUTS {
            self.join_paused.with_label_values(&[input]).set(0);
        }
        for limit in LIMITS {
            self.limits_exceeded.with_label_values(&[limit]);
        }
        for event in SHORTENED_OUTPUTS {
            self.outputs_shortened.with_label_values(&[event]);
        }
        for role in FAILING_ROLES {
            self.failed_messages.with_label_values(&[role]);
        }
        for handling in REPUBLISHED_HANDLING {
            self.republished_drafts.with_label_values(&[handling]);
        }
    }

    /// A draft went over the per-draft limit `limit` (one of [`LIMITS`]).
    pub fn limit_exceeded(&self, limit: &'static str) {
        self.limits_exceeded.with_label_values(&[limit]).inc();
    }

    /// An event was split or shortened to fit the broker (`event`: one of [`SHORTENED_OUTPUTS`]).
    pub fn output_shortened(&self, event: &'static str) {
        self.outputs_shortened.with_label_values(&[event]).inc();
    }

    /// A message of `role` (one of [`FAILING_ROLES`]) failed for a reason of its own.
    pub fn message_failed(&self, role: &'static str) {
        self.failed_messages.with_label_values(&[role]).inc();
    }

    /// A revision was published again and handled as `handling` (one of
    /// [`REPUBLISHED_HANDLING`]).
    pub fn draft_republished(&self, handling: &'static str) {
        self.republished_drafts.with_label_values(&[handling]).inc();
    }

    /// Counts a published decision once under its outcome, each of its reasons once in
    /// `factgate_decision_reasons_total`, and its latency (every decision has one: from the
    /// draft's `published_at`, or from the record's timestamp for a draft that could not be read).
    pub fn decision_published(
        &self,
        decision_outcome: Outcome,
        reasons: &[DecisionReason],
        latency: std::time::Duration,
    ) {
        let o = outcome(decision_outcome);
        self.decisions.with_label_values(&[o]).inc();
        for reason in reasons {
            self.decision_reasons
                .with_label_values(&[decision_reason(*reason)])
                .inc();
        }
        self.decision_latency
            .with_label_values(&[o])
            .observe(latency.as_secs_f64());
    }

    /// The registry, for families registered outside this module (`factgate recheck`'s, in
    /// [`crate::recheck`]).
    pub(crate) fn registry(&self) -> &Registry {
        &self.registry
    }

    fn render(&self) -> String {
        let mut out = Vec::new();
        match TextEncoder::new().encode(&self.registry.gather(), &mut out) {
            Ok(()) => String::from_utf8_lossy(&out).into_owned(),
            // Only a malformed family fails to encode; say so to the scraper rather than panic.
            Err(err) => format!("# factgate metrics could not be encoded: {err}\n"),
        }
    }
}

/// Registers the `process_*` families (CPU, memory, file descriptors, start time), read from
/// `/proc` at each scrape. Linux only: elsewhere the families are absent.
#[cfg(target_os = "linux")]
fn register_process_collector(registry: &Registry) {
    // Fails only if registered twice, which `Metrics::new`, run once, cannot do.
    let _ = registry.register(Box::new(
        prometheus::process_collector::ProcessCollector::for_self(),
    ));
}

#[cfg(not(target_os = "linux"))]
fn register_process_collector(_registry: &Registry) {}

// Construction fails only on an invalid name or a name registered twice: a defect the unit test
// below catches, never something input or configuration can cause.
fn register<T: prometheus::core::Collector + Clone + 'static>(registry: &Registry, metric: T) -> T {
    registry
        .register(Box::new(metric.clone()))
        .expect("factgate's metric names are valid and distinct");
    metric
}

fn counter(registry: &Registry, name: &str, help: &str) -> IntCounter {
    register(
        registry,
        IntCounter::new(name, help).expect("a valid counter"),
    )
}

fn counter_vec(registry: &Registry, name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    register(
        registry,
        IntCounterVec::new(Opts::new(name, help), labels).expect("a valid counter family"),
    )
}

fn gauge(registry: &Registry, name: &str, help: &str) -> IntGauge {
    register(registry, IntGauge::new(name, help).expect("a valid gauge"))
}

fn gauge_vec(registry: &Registry, name: &str, help: &str, labels: &[&str]) -> IntGaugeVec {
    register(
        registry,
        IntGaugeVec::new(Opts::new(name, help), labels).expect("a valid gauge family"),
    )
}

fn histogram(registry: &Registry, name: &str, help: &str, buckets: &[f64]) -> Histogram {
    let opts = HistogramOpts::new(name, help).buckets(buckets.to_vec());
    register(
        registry,
        Histogram::with_opts(opts).expect("a valid histogram"),
    )
}

fn histogram_vec(
    registry: &Registry,
    name: &str,
    help: &str,
    labels: &[&str],
    buckets: &[f64],
) -> HistogramVec {
    let opts = HistogramOpts::new(name, help).buckets(buckets.to_vec());
    register(
        registry,
        HistogramVec::new(opts, labels).expect("a valid histogram family"),
    )
}

// ---------------------------------------------------------------------------------------------
// Label values. Exhaustive matches, so a new variant cannot ship without its label; the names
// are the variants' serde names (a test checks), as in the events.

const ALL_CLAIM_KINDS: [ClaimKind; 14] = [
    ClaimKind::Percentage,
    ClaimKind::Money,
    ClaimKind::Count,
    ClaimKind::Ratio,
    ClaimKind::Change,
    ClaimKind::Date,
    ClaimKind::Quote,
    ClaimKind::Attribution,
    ClaimKind::Comparative,
    ClaimKind::Superlative,
    ClaimKind::FirstPersonData,
    ClaimKind::Proportion,
    ClaimKind::Record,
    ClaimKind::Allegation,
];

const ALL_VOTES: [&str; 4] = ["supported", "refuted", "not_enough_info", "abstained"];
/// The join's inputs, as `factgate_join_paused`'s `input` label.
pub const JOIN_INPUTS: [&str; 2] = ["manifests", "results"];

/// The `kind` label of a claim kind.
pub fn claim_kind(kind: ClaimKind) -> &'static str {
    match kind {
        ClaimKind::Percentage => "percentage",
        ClaimKind::Money => "money",
        ClaimKind::Count => "count",
        ClaimKind::Ratio => "ratio",
        ClaimKind::Change => "change",
        ClaimKind::Date => "date",
        ClaimKind::Quote => "quote",
        ClaimKind::Attribution => "attribution",
        ClaimKind::Comparative => "comparative",
        ClaimKind::Superlative => "superlative",
        ClaimKind::FirstPersonData => "first_person_data",
        ClaimKind::Proportion => "proportion",
        ClaimKind::Record => "record",
        ClaimKind::Allegation => "allegation",
    }
}

/// The `verdict` label of a verdict.
pub fn verdict(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Supported => "supported",
        Verdict::Refuted => "refuted",
        Verdict::Inconclusive => "inconclusive",
    }
}

/// The `outcome` label of a decision outcome.
pub fn outcome(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "pass",
        Outcome::Block => "block",
    }
}

/// The `reason` label of a decision reason.
pub fn decision_reason(reason: DecisionReason) -> &'static str {
    match reason {
        DecisionReason::HighSeverityIssue => "high_severity_issue",
        DecisionReason::MediumSeverityIssue => "medium_severity_issue",
        DecisionReason::LowSeverityIssue => "low_severity_issue",
        DecisionReason::DraftUnreadable => "draft_unreadable",
        DecisionReason::ExtractionFailed => "extraction_failed",
        DecisionReason::DeadlineExceeded => "deadline_exceeded",
        DecisionReason::SourceUnjudgeable => "source_unjudgeable",
        DecisionReason::Superseded => "superseded",
        DecisionReason::InternalError => "internal_error",
        DecisionReason::LimitExceeded => "limit_exceeded",
    }
}

/// The `vote` label of an LLM voter's outcome.
pub fn vote(outcome: &VoteOutcome) -> &'static str {
    match outcome {
        VoteOutcome::Voted { verdict, .. } => match verdict {
            VoterVerdict::Supported => "supported",
            VoterVerdict::Refuted => "refuted",
            VoterVerdict::NotEnoughInfo => "not_enough_info",
        },
        VoteOutcome::Abstained { .. } => "abstained",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prometheus::proto::MetricType;
    use std::collections::BTreeSet;
    use std::time::Duration;

    /// The contract: every family, its type and its label names.
    const CONTRACT: &[(&str, MetricType, &[&str])] = &[
        ("factgate_drafts_consumed_total", MetricType::COUNTER, &[]),
        (
            "factgate_claims_extracted_total",
            MetricType::COUNTER,
            &["kind"],
        ),
        (
            "factgate_verifications_total",
            MetricType::COUNTER,
            &["verdict"],
        ),
        ("factgate_fetches_total", MetricType::COUNTER, &["status"]),
        ("factgate_cache_hits_total", MetricType::COUNTER, &[]),
        ("factgate_cache_misses_total", MetricType::COUNTER, &[]),
        ("factgate_cache_evictions_total", MetricType::COUNTER, &[]),
        ("factgate_cache_bytes", MetricType::GAUGE, &[]),
        (
            "factgate_rate_limit_wait_seconds",
            MetricType::HISTOGRAM,
            &[],
        ),
        (
            "factgate_fetch_duration_seconds",
            MetricType::HISTOGRAM,
            &[],
        ),
        (
            "factgate_judge_duration_seconds",
            MetricType::HISTOGRAM,
            &[],
        ),
        (
            "factgate_decisions_total",
            MetricType::COUNTER,
            &["outcome"],
        ),
        (
            "factgate_decision_reasons_total",
            MetricType::COUNTER,
            &["reason"],
        ),
        (
            "factgate_decision_latency_seconds",
            MetricType::HISTOGRAM,
            &["outcome"],
        ),
        ("factgate_join_in_flight_articles", MetricType::GAUGE, &[]),
        ("factgate_join_paused", MetricType::GAUGE, &["input"]),
        ("factgate_dead_letters_total", MetricType::COUNTER, &[]),
        (
            "factgate_llm_votes_total",
            MetricType::COUNTER,
            &["voter", "vote"],
        ),
        (
            "factgate_llm_claim_duration_seconds",
            MetricType::HISTOGRAM,
            &[],
        ),
        (
            "factgate_consumer_lag_messages",
            MetricType::GAUGE,
            &["role", "group", "topic", "partition"],
        ),
        ("factgate_build_info", MetricType::GAUGE, &["version"]),
        (
            "factgate_limits_exceeded_total",
            MetricType::COUNTER,
            &["limit"],
        ),
        (
            "factgate_outputs_shortened_total",
            MetricType::COUNTER,
            &["event"],
        ),
        (
            "factgate_failed_messages_total",
            MetricType::COUNTER,
            &["role"],
        ),
        (
            "factgate_republished_drafts_total",
            MetricType::COUNTER,
            &["handling"],
        ),
    ];

    /// One representative event per family, through the same calls the event sites make.
    fn one_event_of_each() {
        let m = metrics();
        m.drafts_consumed.inc();
        m.claims_extracted
            .with_label_values(&[claim_kind(ClaimKind::Money)])
            .inc();
        m.verifications
            .with_label_values(&[verdict(Verdict::Refuted)])
            .inc();
        m.fetches.with_label_values(&["not_found"]).inc();
        m.cache_hits.inc();
        m.cache_misses.inc();
        m.cache_evictions.inc();
        m.cache_bytes.set(1024);
        m.rate_limit_wait.observe(0.2);
        m.fetch_duration.observe(0.05);
        m.judge_duration.observe(0.001);
        m.decision_published(
            Outcome::Block,
            &[
                DecisionReason::HighSeverityIssue,
                DecisionReason::DeadlineExceeded,
            ],
            Duration::from_secs(3),
        );
        m.join_in_flight.set(2);
        m.join_paused.with_label_values(&["manifests"]).set(1);
        m.dead_letters.inc();
        let abstained = VoteOutcome::Abstained {
            reason: "timed out".into(),
        };
        m.llm_votes
            .with_label_values(&[VoterRole::Skeptic.as_str(), vote(&abstained)])
            .inc();
        m.llm_claim_duration.observe(2.5);
        m.consumer_lag
            .with_label_values(&["verify", "factgate-verify", "claims.verify", "0"])
            .set(7);
        m.limit_exceeded("links");
        m.output_shortened("decision");
        m.message_failed("extract");
        m.draft_republished("rechecked");
    }

    #[test]
    fn every_family_of_the_contract_is_rendered_with_its_type_and_labels() {
        one_event_of_each();
        let text = render();
        for (name, kind, labels) in CONTRACT {
            let type_name = match kind {
                MetricType::COUNTER => "counter",
                MetricType::GAUGE => "gauge",
                MetricType::HISTOGRAM => "histogram",
                _ => unreachable!("the contract has no other types"),
            };
            assert!(
                text.contains(&format!("# TYPE {name} {type_name}\n")),
                "{name} ({type_name}) missing from:\n{text}"
            );
            let family = metrics()
                .registry
                .gather()
                .into_iter()
                .find(|f| f.name() == *name)
                .unwrap_or_else(|| panic!("{name} not gathered"));
            for sample in family.get_metric() {
                let names: Vec<&str> = sample.get_label().iter().map(|l| l.name()).collect();
                let mut expected: Vec<&str> = labels.to_vec();
                let mut got = names.clone();
                expected.sort_unstable();
                got.sort_unstable();
                assert_eq!(got, expected, "labels of {name}");
            }
        }
        let families: BTreeSet<String> = metrics()
            .registry
            .gather()
            .iter()
            .map(|f| f.name().to_owned())
            .filter(|name| name.starts_with("factgate_"))
            .collect();
        assert_eq!(
            families.len(),
            CONTRACT.len(),
            "a family outside the contract: {families:?}"
        );
        for reason in ["high_severity_issue", "deadline_exceeded"] {
            let series = format!("factgate_decision_reasons_total{{reason=\"{reason}\"}}");
            assert!(text.contains(&series), "{series} missing");
        }
        assert!(text.contains(&format!(
            "factgate_build_info{{version=\"{}\"}} 1",
            env!("CARGO_PKG_VERSION")
        )));
        assert!(
            text.contains("factgate_decision_latency_seconds_bucket{outcome=\"block\",le=\"300\"}")
        );
        assert!(text.contains("factgate_rate_limit_wait_seconds_bucket{le=\"60\"}"));
    }

    #[test]
    fn a_decision_counts_once_and_each_of_its_reasons_once_in_their_own_family() {
        // A registry of its own, so other tests' decisions do not mix in.
        let m = Metrics::new();
        m.decision_published(
            Outcome::Block,
            &[
                DecisionReason::HighSeverityIssue,
                DecisionReason::DeadlineExceeded,
            ],
            Duration::from_millis(1500),
        );
        m.decision_published(
            Outcome::Block,
            &[DecisionReason::DraftUnreadable],
            Duration::ZERO,
        );
        m.decision_published(Outcome::Pass, &[], Duration::from_millis(200));
        let decisions = |o: &str| m.decisions.with_label_values(&[o]).get();
        let reason = |r: &str| m.decision_reasons.with_label_values(&[r]).get();
        let latencies = |o: &str| {
            m.decision_latency
                .with_label_values(&[o])
                .get_sample_count()
        };
        assert_eq!((decisions("block"), decisions("pass")), (2, 1));
        assert_eq!(reason("high_severity_issue"), 1);
        assert_eq!(reason("deadline_exceeded"), 1);
        assert_eq!(reason("draft_unreadable"), 1);
        assert_eq!(reason("superseded"), 0);
        assert_eq!((latencies("block"), latencies("pass")), (2, 1));
        let text = m.render();
        assert!(
            text.contains("factgate_decisions_total{outcome=\"block\"} 2"),
            "{text}"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn process_metrics_are_exported() {
        let text = render();
        for family in [
            "process_cpu_seconds_total",
            "process_resident_memory_bytes",
            "process_open_fds",
            "process_start_time_seconds",
        ] {
            assert!(
                text.contains(&format!("# TYPE {family} ")),
                "{family} missing"
            );
        }
    }

    #[test]
    fn known_label_values_exist_at_zero_before_any_event() {
        let text = render();
        for status in FETCH_STATUSES {
            assert!(
                text.contains(&format!("factgate_fetches_total{{status=\"{status}\"}}")),
                "{status}"
            );
        }
        assert!(text.contains("factgate_decisions_total{outcome=\"pass\"}"));
        assert!(text.contains("factgate_decision_reasons_total{reason=\"superseded\"}"));
        assert!(
            text.contains("factgate_llm_votes_total{vote=\"abstained\",voter=\"numbers_auditor\"}")
        );
    }

    #[test]
    fn label_values_are_the_serde_names_of_their_enums() {
        let serde_name = |v: serde_json::Value| v.as_str().map(str::to_owned);
        for kind in ALL_CLAIM_KINDS {
            let json = serde_json::to_value(kind).expect("serializes");
            assert_eq!(serde_name(json).as_deref(), Some(claim_kind(kind)));
        }
        for reason in DecisionReason::ALL {
            let json = serde_json::to_value(reason).expect("serializes");
            assert_eq!(serde_name(json).as_deref(), Some(decision_reason(reason)));
        }
        for v in [Verdict::Supported, Verdict::Refuted, Verdict::Inconclusive] {
            let json = serde_json::to_value(v).expect("serializes");
            assert_eq!(serde_name(json).as_deref(), Some(verdict(v)));
        }
        for v in [
            VoterVerdict::Supported,
            VoterVerdict::Refuted,
            VoterVerdict::NotEnoughInfo,
        ] {
            let json = serde_json::to_value(v).expect("serializes");
            let voted = VoteOutcome::Voted {
                verdict: v,
                quote: String::new(),
                reason: String::new(),
            };
            assert_eq!(serde_name(json).as_deref(), Some(vote(&voted)));
        }
    }

    #[test]
    fn every_fetch_outcome_class_is_a_known_status() {
        use crate::verify::fetch::{FetchOutcome, Page, RefusalReason};
        let outcomes = [
            FetchOutcome::Ok(Page {
                final_url: String::new(),
                status: 200,
                content_type: String::new(),
                text: String::new(),
                title: None,
                claim_reviews: Vec::new(),
            }),
            FetchOutcome::NotFound { status: 404 },
            FetchOutcome::Forbidden { status: 403 },
            FetchOutcome::Paywalled {
                marker: String::new(),
            },
            FetchOutcome::RateLimited { retry_after: None },
            FetchOutcome::ServerError {
                status: 500,
                retry_after: None,
            },
            FetchOutcome::UnexpectedStatus { status: 400 },
            FetchOutcome::Timeout,
            FetchOutcome::TooLarge { limit: 1 },
            FetchOutcome::RefusedByPolicy(RefusalReason::RedirectLoop),
            FetchOutcome::UnsupportedContent {
                content_type: String::new(),
            },
            FetchOutcome::NetworkError {
                reason: String::new(),
            },
        ];
        let classes: BTreeSet<&str> = outcomes.iter().map(FetchOutcome::class).collect();
        let known: BTreeSet<&str> = FETCH_STATUSES.into_iter().collect();
        assert_eq!(classes, known);
    }
}
