//! factgate's Prometheus metrics: one process-wide registry, served at `GET /metrics`.
//!
//! The names, types and labels are a contract with the Grafana dashboard and the alert rules,
//! listed in `deploy/metrics.txt`; the tests below pin every one and check that file against the
//! registry. Each metric is bumped by the internal event for what happened
//! ([`crate::internal_events`]), which also writes the log line for it:
//!
//! | metric | event |
//! |---|---|
//! | `factgate_drafts_consumed_total`, `factgate_claims_extracted_total{kind}`, `factgate_dead_letters_total` | the extract role |
//! | `factgate_fetches_total{status}`, `factgate_fetch_duration_seconds` | the fetcher |
//! | `factgate_cache_{hits,misses,evictions}_total`, `factgate_cache_bytes` | the fetch cache |
//! | `factgate_rate_limit_wait_seconds` | the fetch limiter |
//! | `factgate_judge_duration_seconds` | the verifier |
//! | `factgate_verifications_total{verdict}` | the verify role, as it publishes a result |
//! | `factgate_llm_votes_total{voter,vote}` | the LLM judge, as each voter answers |
//! | `factgate_llm_claim_duration_seconds` | the LLM judge, as the panel decides on a claim |
//! | `factgate_decisions_total{outcome}`, `factgate_decision_reasons_total{reason}`, `factgate_decision_latency_seconds{outcome}` | the pipeline, as it publishes a decision |
//! | `factgate_join_in_flight_articles`, `factgate_join_paused{input}` | the join role |
//! | `factgate_consumer_lag_messages{role,group,topic,partition}` | each role consumer's statistics callback |
//! | `factgate_consumer_offset_resets_total{role,group,topic}` | a role consumer's log, when the broker no longer had its next record |
//! | `factgate_build_info{version}` | set once, to 1, when the registry is created |
//! | `process_*` (CPU seconds, resident and virtual memory, file descriptors, threads, start time; Linux) | the prometheus crate's process collector, read at each scrape |
//! | `factgate_limits_exceeded_total{limit}`, `factgate_outputs_shortened_total{event}` | extract (limits, split manifests), the pipeline (shortened decisions), verify (cut results) |
//! | `factgate_failed_messages_total{role}` | any role, for a message whose handling failed for its own sake |
//! | `factgate_republished_drafts_total{handling}` | the join, when a revision is published again |
//! | `factgate_overrides_total{finding}`, `factgate_overrides_refused_total{why}` | the join, as it applies or refuses an editor's override |
//! | `factgate_login_failures_total`, `factgate_logins_throttled_total` | the login of `http.listen`, as it refuses wrong credentials and throttles repeated failures |
//!
//! Labels are low-cardinality by construction: every label value is the strum name of a closed
//! enum (the serde name, where the enum has one) except `topic`, `partition` and `group`, which are the configured topics, their
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

use strum::IntoEnumIterator;

use factgate_core::events::{DecisionReason, Outcome};
use factgate_core::fetched::FetchClass;
use factgate_core::model::{ClaimKind, Verdict};
use factgate_core::quorum::VoterRole;

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

/// Every metric family factgate exports. Fields are the families, to bump where events happen.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    /// `factgate_drafts_consumed_total`: drafts read by the extract role.
    pub drafts_consumed: IntCounter,
    /// `factgate_claims_extracted_total{kind}`: labelled with the [`ClaimKind`]; a claim of
    /// several kinds counts once under each.
    pub claims_extracted: IntCounterVec,
    /// `factgate_verifications_total{verdict}`: labelled with the [`Verdict`].
    pub verifications: IntCounterVec,
    /// `factgate_fetches_total{status}`: labelled with the [`FetchClass`].
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
    /// or `results` input, else 0; use [`Metrics::join_input_paused`].
    pub join_paused: IntGaugeVec,
    /// `factgate_dead_letters_total`.
    pub dead_letters: IntCounter,
    /// `factgate_login_failures_total`: logins tried with wrong credentials.
    pub http_login_failures: IntCounter,
    /// `factgate_logins_throttled_total`: logins not tried, after repeated failures.
    pub http_logins_throttled: IntCounter,
    /// `factgate_llm_votes_total{voter,vote}`: labelled with the [`VoterRole`] and the [`VoteLabel`].
    pub llm_votes: IntCounterVec,
    /// `factgate_llm_claim_duration_seconds`: the LLM panel on one claim, all voters and waits
    /// for a request slot included.
    pub llm_claim_duration: Histogram,
    /// `factgate_consumer_lag_messages{role,group,topic,partition}`.
    pub consumer_lag: IntGaugeVec,
    /// `factgate_consumer_offset_resets_total{role,group,topic}`: records a role never read,
    /// because the broker deleted them first ([`crate::internal_events::offset_reset`]).
    pub offset_resets: IntCounterVec,
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
    /// `factgate_overrides_total{finding}`: overrides applied, by the type of the finding waived.
    pub overrides: IntCounterVec,
    /// `factgate_overrides_refused_total{why}`: overrides not applied, by why.
    pub overrides_refused: IntCounterVec,
}

/// The `why` label of `factgate_overrides_refused_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::EnumIter)]
#[strum(serialize_all = "snake_case")]
pub enum OverrideRefused {
    /// Not an override event.
    Unreadable,
    /// It names a decision other than the one in force (another publication or revision), or
    /// one this instance never saw.
    OtherDecision,
    /// The decision has no such finding.
    NoSuchFinding,
    /// A check that did not complete.
    NotWaivable,
    /// No editor or reason, one too long or holding control characters, an id its fields do
    /// not derive; or a re-check's decision.
    Invalid,
    /// It names a revision the article has moved past.
    Superseded,
    /// It is already part of the decision in force (a replay, or the same override sent
    /// again): nothing changes.
    Duplicate,
}

/// The `limit` label of `factgate_limits_exceeded_total`: each per-draft limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::EnumIter)]
#[strum(serialize_all = "snake_case")]
pub enum Limit {
    BodyBytes,
    NestingDepth,
    Links,
    Claims,
    Checks,
    /// A text field of the draft other than its body (`extract.max_field_bytes`).
    FieldBytes,
    /// A sentence's words (`extract.max_words_per_claim`).
    ClaimWords,
    /// A claim's figures (`extract.max_figures_per_claim`).
    ClaimFigures,
    /// What the draft produced cannot fit the broker's message limit.
    OutputBytes,
    /// The draft's judging time in a verify process (`judge.max_draft_judge_ms`), counted once
    /// per claim left unjudged.
    JudgingTime,
}

/// The `event` label of `factgate_outputs_shortened_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::EnumIter)]
#[strum(serialize_all = "snake_case")]
pub enum ShortenedOutput {
    /// A manifest split in parts.
    ManifestSplit,
    /// A decision's report shortened.
    Decision,
    /// A verification result's evidence cut.
    Result,
}

/// The `role` label of `factgate_failed_messages_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::EnumIter)]
#[strum(serialize_all = "snake_case")]
pub enum FailingRole {
    Extract,
    Verify,
    Join,
    /// A decision the broker refused, and the block meant to replace it.
    Decision,
}

/// The `handling` label of `factgate_republished_drafts_total`: one per
/// [`factgate_core::join::Republished`] (mapped in [`crate::internal_events`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::EnumIter)]
#[strum(serialize_all = "snake_case")]
pub enum RepublishedHandling {
    Rechecked,
    Acknowledged,
    InFlight,
    NewContent,
}

/// The `input` label of `factgate_join_paused`: the join's inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::EnumIter)]
#[strum(serialize_all = "snake_case")]
pub enum JoinInput {
    Manifests,
    Results,
}

/// The `vote` label of `factgate_llm_votes_total`: a voter's verdict
/// ([`factgate_core::quorum::votes::VoterVerdict`]), or its abstention.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::EnumIter)]
#[strum(serialize_all = "snake_case")]
pub enum VoteLabel {
    Supported,
    Refuted,
    NotEnoughInfo,
    /// No valid vote: the request failed or the reply was invalid.
    Abstained,
}

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
    #[allow(
        clippy::too_many_lines,
        reason = "one entry per metric family, in the order of deploy/metrics.txt: a table, not steps"
    )]
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
            http_login_failures: counter(
                &registry,
                "factgate_login_failures_total",
                "Logins to the API and the editors' pages tried with wrong credentials.",
            ),
            http_logins_throttled: counter(
                &registry,
                "factgate_logins_throttled_total",
                "Logins answered 429 without being tried, after repeated failures from the \
                 address or for the name.",
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
            offset_resets: counter_vec(
                &registry,
                "factgate_consumer_offset_resets_total",
                "Times a role's consumer found its next record gone from the broker (deleted by retention) and went on from the oldest one kept: the records in between were never read.",
                &["role", "group", "topic"],
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
            overrides: counter_vec(
                &registry,
                "factgate_overrides_total",
                "Editors' overrides applied, by the type of the finding waived.",
                &["finding"],
            ),
            overrides_refused: counter_vec(
                &registry,
                "factgate_overrides_refused_total",
                "Editors' overrides not applied, by why.",
                &["why"],
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
        for kind in ClaimKind::iter() {
            self.claims_extracted.with_label_values(&[label(kind)]);
        }
        for v in Verdict::iter() {
            self.verifications.with_label_values(&[label(v)]);
        }
        for status in FetchClass::iter() {
            self.fetches.with_label_values(&[label(status)]);
        }
        for reason in DecisionReason::iter() {
            self.decision_reasons.with_label_values(&[label(reason)]);
        }
        for o in Outcome::iter() {
            self.decisions.with_label_values(&[label(o)]);
            self.decision_latency.with_label_values(&[label(o)]);
        }
        for voter in VoterRole::iter() {
            for vote in VoteLabel::iter() {
                self.llm_votes
                    .with_label_values(&[label(voter), label(vote)]);
            }
        }
        for input in JoinInput::iter() {
            self.join_paused.with_label_values(&[label(input)]).set(0);
        }
        for limit in Limit::iter() {
            self.limits_exceeded.with_label_values(&[label(limit)]);
        }
        for event in ShortenedOutput::iter() {
            self.outputs_shortened.with_label_values(&[label(event)]);
        }
        for role in FailingRole::iter() {
            self.failed_messages.with_label_values(&[label(role)]);
        }
        for handling in RepublishedHandling::iter() {
            self.republished_drafts
                .with_label_values(&[label(handling)]);
        }
        for finding in factgate_core::events::IssueType::ALL {
            self.overrides.with_label_values(&[finding.as_str()]);
        }
        for why in OverrideRefused::iter() {
            self.overrides_refused.with_label_values(&[label(why)]);
        }
    }

    /// A draft went over the per-draft limit `limit`.
    pub fn limit_exceeded(&self, limit: Limit) {
        self.limits_exceeded
            .with_label_values(&[label(limit)])
            .inc();
    }

    /// An event was split or shortened to fit the broker.
    pub fn output_shortened(&self, event: ShortenedOutput) {
        self.outputs_shortened
            .with_label_values(&[label(event)])
            .inc();
    }

    /// A message of `role` failed for a reason of its own.
    pub fn message_failed(&self, role: FailingRole) {
        self.failed_messages.with_label_values(&[label(role)]).inc();
    }

    /// A revision was published again and handled as `handling`.
    pub fn draft_republished(&self, handling: RepublishedHandling) {
        self.republished_drafts
            .with_label_values(&[label(handling)])
            .inc();
    }

    /// The join's back-pressure pauses (`true`) or resumes reading `input`.
    pub fn join_input_paused(&self, input: JoinInput, paused: bool) {
        self.join_paused
            .with_label_values(&[label(input)])
            .set(i64::from(paused));
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
        let o: &'static str = decision_outcome.into();
        self.decisions.with_label_values(&[o]).inc();
        for reason in reasons {
            self.decision_reasons
                .with_label_values(&[label(*reason)])
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
// Label values: every label value comes from an enum's strum name, which is its serde name in the
// events (a test checks), so a new variant cannot ship without its label.

/// The label value of an enum variant: its strum name. (A function rather than `.into()`, which
/// `with_label_values`' generic argument leaves without a type.)
pub fn label(value: impl Into<&'static str>) -> &'static str {
    value.into()
}

/// The `verdict` label of a verdict, as in `factgate_verifications_total` (the editor's report
/// uses the same word).
pub fn verdict(verdict: Verdict) -> &'static str {
    verdict.into()
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
        (
            "factgate_consumer_offset_resets_total",
            MetricType::COUNTER,
            &["role", "group", "topic"],
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
        (
            "factgate_overrides_total",
            MetricType::COUNTER,
            &["finding"],
        ),
        (
            "factgate_overrides_refused_total",
            MetricType::COUNTER,
            &["why"],
        ),
        ("factgate_login_failures_total", MetricType::COUNTER, &[]),
        ("factgate_logins_throttled_total", MetricType::COUNTER, &[]),
    ];

    /// One representative event per family, through the same calls the event sites make.
    fn one_event_of_each() {
        let m = metrics();
        m.drafts_consumed.inc();
        m.claims_extracted
            .with_label_values(&[label(ClaimKind::Money)])
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
        m.join_input_paused(JoinInput::Manifests, true);
        m.dead_letters.inc();
        m.llm_votes
            .with_label_values(&[label(VoterRole::Skeptic), label(VoteLabel::Abstained)])
            .inc();
        m.llm_claim_duration.observe(2.5);
        m.consumer_lag
            .with_label_values(&["verify", "factgate-verify", "claims.verify", "0"])
            .set(7);
        m.offset_resets
            .with_label_values(&["verify", "factgate-verify", "claims.verify"])
            .inc();
        m.limit_exceeded(Limit::Links);
        m.output_shortened(ShortenedOutput::Decision);
        m.message_failed(FailingRole::Extract);
        m.draft_republished(RepublishedHandling::Rechecked);
        m.overrides.with_label_values(&["figure_mismatch"]).inc();
        m.overrides_refused
            .with_label_values(&[label(OverrideRefused::OtherDecision)])
            .inc();
        m.http_login_failures.inc();
        m.http_logins_throttled.inc();
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
            // `factgate recheck`'s families are its own (src/recheck/metrics.rs).
            .filter(|name| name.starts_with("factgate_") && !name.starts_with("factgate_recheck_"))
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
        for status in FetchClass::iter().map(<&str>::from) {
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

    /// Asserts that every variant's label is its serde name.
    fn labels_are_serde_names<E>()
    where
        E: IntoEnumIterator + serde::Serialize + Into<&'static str> + Copy + std::fmt::Debug,
    {
        for variant in E::iter() {
            let json = serde_json::to_value(variant).expect("serializes");
            let label: &'static str = variant.into();
            assert_eq!(json.as_str(), Some(label), "label of {variant:?}");
        }
    }

    #[test]
    fn label_values_are_the_serde_names_of_their_enums() {
        labels_are_serde_names::<ClaimKind>();
        labels_are_serde_names::<Verdict>();
        labels_are_serde_names::<Outcome>();
        labels_are_serde_names::<DecisionReason>();
        labels_are_serde_names::<VoterRole>();
        // VoteLabel's: src/internal_events/llm.rs; RepublishedHandling's: src/internal_events/join.rs.
        assert_eq!(
            DecisionReason::iter().collect::<Vec<_>>(),
            DecisionReason::ALL
        );
    }

    #[test]
    fn every_fetch_outcome_class_is_a_known_status() {
        use factgate_core::fetched::{FetchOutcome, Page, RefusalReason};
        let outcomes = [
            FetchOutcome::Ok(Page {
                final_url: String::new(),
                status: 200,
                content_type: String::new(),
                text: String::new(),
                title: None,
                claim_reviews: Vec::new(),
                furniture: String::new(),
                page_starts: Vec::new(),
            }),
            FetchOutcome::NotFound { status: 404 },
            FetchOutcome::NotASource {
                status: 200,
                kind: factgate_core::text::webpage::NotASourceKind::ErrorPage,
                marker: String::new(),
            },
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
            FetchOutcome::Unreadable {
                reason: String::new(),
                advice: "",
            },
            FetchOutcome::NetworkError {
                reason: String::new(),
            },
        ];
        let classes: BTreeSet<&str> = outcomes.iter().map(FetchOutcome::class).collect();
        let known: BTreeSet<&str> = FetchClass::iter().map(<&str>::from).collect();
        assert_eq!(classes, known);
        // The names the dashboard and alerts were written against.
        assert!(known.contains("not_found") && known.contains("refused_by_policy"));
        assert_eq!(known.len(), 14);
    }

    /// One family as `deploy/metrics.txt` lists it: `name type label,label` (`-`: no labels).
    fn family_line(family: &prometheus::proto::MetricFamily) -> String {
        let kind = match family.get_field_type() {
            MetricType::COUNTER => "counter",
            MetricType::GAUGE => "gauge",
            MetricType::HISTOGRAM => "histogram",
            MetricType::SUMMARY => "summary",
            MetricType::UNTYPED => "untyped",
        };
        let labels: BTreeSet<&str> = family
            .get_metric()
            .iter()
            .flat_map(|m| m.get_label().iter().map(|l| l.name()))
            .collect();
        let labels = if labels.is_empty() {
            "-".to_owned()
        } else {
            labels.into_iter().collect::<Vec<_>>().join(",")
        };
        format!("{} {kind} {labels}", family.name())
    }

    /// `deploy/metrics.txt` is the list the dashboard and the alerts are checked against
    /// (tests/deploy.rs): it must say what the registry exports, family by family.
    #[test]
    fn deploy_metrics_txt_lists_every_family_the_registry_exports() {
        // Every family with a series, so its label names are known: labelled families are
        // created at zero for their known values; the rest get one event here.
        one_event_of_each();
        crate::recheck::touch_metrics_for_tests();
        let exported: BTreeSet<String> = metrics()
            .registry
            .gather()
            .iter()
            .filter(|f| f.name().starts_with("factgate_") || f.name().starts_with("process_"))
            .map(family_line)
            .collect();
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/metrics.txt");
        let text = std::fs::read_to_string(path).expect("deploy/metrics.txt is readable");
        let listed: BTreeSet<String> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            // The process collector exists on Linux only.
            .filter(|l| cfg!(target_os = "linux") || !l.starts_with("process_"))
            .collect();
        let lines = |set: Vec<&String>| match set.is_empty() {
            true => "(none)".to_owned(),
            false => set
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n  "),
        };
        assert!(
            exported == listed,
            "deploy/metrics.txt has drifted from the registry.\n\
             exported but not listed (add these lines):\n  {}\n\
             listed but not exported (remove or correct these lines):\n  {}",
            lines(exported.difference(&listed).collect()),
            lines(listed.difference(&exported).collect()),
        );
    }
}
