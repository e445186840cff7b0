//! The verify role: claims judged, verification results published, shortened or refused, and
//! requests that could not be handled.

use std::time::Duration;

use tracing::{debug, error};

use crate::metrics::{FailingRole, ShortenedOutput, metrics};
use factgate_core::events::ClaimResult;
use factgate_core::model::Verdict;

/// A claim was judged against its fetched source (the lexical judge and the LLM quorum, when
/// configured) in `elapsed`.
pub fn claim_judged(article_id: &str, claim_id: &str, verdict: Verdict, elapsed: Duration) {
    metrics().judge_duration.observe(elapsed.as_secs_f64());
    let elapsed_ms = super::millis(elapsed);
    debug!(article_id, claim_id, verdict = ?verdict, elapsed_ms, "claim judged");
}

/// A verification result was published: the one place results are counted.
pub fn result_published(result: &ClaimResult) {
    let verdict: &'static str = result.verdict.into();
    metrics().verifications.with_label_values(&[verdict]).inc();
    debug!(
        article_id = %result.article_id,
        revision = result.revision,
        claim_id = %result.claim_id,
        verdict,
        fetch_status = ?result.fetch_status,
        "verification result published"
    );
}

/// A verification result's evidence was cut to fit the broker's message limit.
pub fn result_shortened(result: &ClaimResult) {
    metrics().output_shortened(ShortenedOutput::Result);
    debug!(
        article_id = %result.article_id,
        claim_id = %result.claim_id,
        "verification result shortened to fit the broker's message limit"
    );
}

/// The broker refused a result and the fallback replacing it: the join blocks the article at its
/// deadline.
pub fn result_refused(article_id: &str, claim_id: &str, err: &rdkafka::error::KafkaError) {
    metrics().message_failed(FailingRole::Verify);
    error!(article_id, claim_id, error = %err, "the broker refused the result; the join blocks the article at its deadline");
}

/// Handling a verification request panicked (a defect): the join blocks its article at the
/// deadline; the role reads on.
pub fn request_panicked(topic: &str, partition: i32, offset: i64) {
    metrics().message_failed(FailingRole::Verify);
    error!(
        topic,
        partition, offset, "handling a verification request panicked; skipped"
    );
}

/// A verification request factgate did not write: there is no claim to answer for.
pub fn request_unreadable(err: &serde_json::Error, bytes: usize) {
    metrics().message_failed(FailingRole::Verify);
    error!(error = %err, bytes, "verification request unreadable; skipped");
}

/// A check could not run; its result is inconclusive with an issue saying why.
pub fn check_failed(article_id: &str, claim_id: &str, reason: &str) {
    error!(article_id, claim_id, reason, "check failed");
}

/// A finished request's offset could not be stored (its partition was revoked meanwhile): the
/// request will be checked again by the partition's next owner.
pub fn verify_offset_not_stored(err: &dyn std::fmt::Display, topic: &str, partition: i32) {
    tracing::warn!(error = %err, topic = %topic, partition, "offset not stored; the request will be checked again");
}

/// A request reached the verify role after its deadline: it is not checked (the join has
/// blocked its draft `deadline_exceeded` by then).
pub fn request_expired(article_id: &str, revision: u64, claim_id: &str) {
    tracing::warn!(article_id = %article_id, revision, claim_id = %claim_id, "request past its deadline; not checked");
}

/// A draft spent its judging time (`judge.max_draft_judge_ms`): its claims left are not judged,
/// and it blocks `limit_exceeded`.
pub fn draft_judging_budget_spent(article_id: &str, revision: u64, limit: std::time::Duration) {
    crate::metrics::metrics().limit_exceeded(crate::metrics::Limit::JudgingTime);
    tracing::warn!(
        article_id,
        revision,
        limit_ms = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX),
        "a draft used up its judging time: its claims left are not judged"
    );
}
