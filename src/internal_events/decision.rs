//! Decisions: shortened to fit the broker, refused by it, published.

use std::time::Duration;

use tracing::{error, info};

use crate::metrics::{FailingRole, ShortenedOutput, metrics};
use factgate_core::events::Decision;

/// A decision's report was shortened to fit the broker's message limit of `budget` bytes.
pub fn decision_shortened(decision: &Decision, budget: usize) {
    metrics().output_shortened(ShortenedOutput::Decision);
    info!(
        article_id = %decision.article_id,
        revision = ?decision.revision,
        budget,
        claims_kept = decision.report.claims.len(),
        issues_kept = decision.report.issues.len(),
        "decision report shortened to fit the broker's message limit"
    );
}

/// The broker refused a decision for its own sake; a block saying so is sent instead.
pub fn decision_refused(decision: &Decision, err: &rdkafka::error::KafkaError) {
    error!(
        article_id = %decision.article_id,
        revision = ?decision.revision,
        outcome = ?decision.outcome,
        error = %err,
        "the broker refused the decision; a block saying so is sent instead"
    );
}

/// The broker refused a decision and the block replacing it: none was published.
pub fn decision_lost(decision: &Decision, err: &rdkafka::error::KafkaError) {
    metrics().message_failed(FailingRole::Decision);
    error!(
        article_id = %decision.article_id,
        revision = ?decision.revision,
        error = %err,
        "the broker refused the decision and the block replacing it; none was published"
    );
}

/// A decision was published, `latency` after its draft's publication (`None` when that is not
/// known: a record without a timestamp, counted as immediate so the histogram still counts every
/// decision).
pub fn decision_published(decision: &Decision, latency: Option<Duration>) {
    metrics().decision_published(
        decision.outcome,
        &decision.reasons,
        latency.unwrap_or_default(),
    );
    info!(
        article_id = %decision.article_id,
        revision = ?decision.revision,
        outcome = ?decision.outcome,
        reasons = ?decision.reasons,
        decision_id = %decision.decision_id,
        draft_position = decision.draft_position.map(|p| p.to_string()),
        latency_ms = latency.map(super::millis),
        "decision published"
    );
}
