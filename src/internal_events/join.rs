//! The join role: articles in flight, paused inputs, republished drafts, unreadable results.

use tracing::{info, warn};

use crate::metrics::{FailingRole, JoinInput, RepublishedHandling, metrics};
use factgate_core::events::DraftPosition;
use factgate_core::join::Republished;

/// The `handling` label of a republished draft.
fn handling_label(handling: Republished) -> RepublishedHandling {
    match handling {
        Republished::Rechecked => RepublishedHandling::Rechecked,
        Republished::Acknowledged => RepublishedHandling::Acknowledged,
        Republished::InFlight => RepublishedHandling::InFlight,
        Republished::NewContent => RepublishedHandling::NewContent,
    }
}

/// The join holds `in_flight` articles awaiting results.
pub fn join_in_flight(in_flight: usize) {
    metrics()
        .join_in_flight
        .set(i64::try_from(in_flight).unwrap_or(i64::MAX));
}

/// The join's back-pressure now pauses (`true`) or reads each of its inputs.
pub fn join_inputs_paused(manifests: bool, results: bool) {
    metrics().join_input_paused(JoinInput::Manifests, manifests);
    metrics().join_input_paused(JoinInput::Results, results);
}

/// A revision the join had seen was published again, and handled as `handling`.
pub fn draft_republished(
    article_id: &str,
    revision: u64,
    position: Option<DraftPosition>,
    handling: Republished,
) {
    metrics().draft_republished(handling_label(handling));
    info!(
        %article_id,
        revision,
        draft_position = position.map(|p| p.to_string()),
        handling = handling.as_str(),
        "revision published again"
    );
}

/// A verification result the join cannot read: skipped (its article is blocked at the deadline).
pub fn join_result_unreadable(err: &serde_json::Error, topic: &str, partition: i32, offset: i64) {
    metrics().message_failed(FailingRole::Join);
    warn!(error = %err, topic, partition, offset, "result unreadable; skipped");
}

/// The join applied an editor's override: a new decision on the revision, with the finding
/// waived.
pub fn override_applied(
    over: &factgate_core::events::OverrideEvent,
    decision: &factgate_core::events::Decision,
) {
    metrics()
        .overrides
        .with_label_values(&[over.finding.issue_type.as_str()])
        .inc();
    info!(
        article_id = %over.article_id,
        revision = over.revision,
        override_id = %over.override_id,
        overrides = %over.decision_id,
        decision_id = %decision.decision_id,
        editor = %over.editor,
        finding = over.finding.issue_type.as_str(),
        outcome = crate::metrics::label(decision.outcome),
        "override applied"
    );
}

/// An override already part of the decision in force was read again (a replay, or the same
/// override sent twice): nothing changes, and the audit says so.
pub fn override_duplicate(over: &factgate_core::events::OverrideEvent) {
    metrics()
        .overrides_refused
        .with_label_values(&[crate::metrics::label(
            crate::metrics::OverrideRefused::Duplicate,
        )])
        .inc();
    info!(
        article_id = %over.article_id,
        revision = over.revision,
        override_id = %over.override_id,
        editor = %over.editor,
        "override already applied: nothing changes"
    );
}

/// The join did not apply an override, for `why` (`detail` says more).
pub fn override_refused(
    over: Option<&factgate_core::events::OverrideEvent>,
    why: crate::metrics::OverrideRefused,
    detail: &str,
) {
    metrics()
        .overrides_refused
        .with_label_values(&[crate::metrics::label(why)])
        .inc();
    warn!(
        article_id = over.map(|o| o.article_id.as_str()),
        revision = over.map(|o| o.revision),
        override_id = over.map(|o| o.override_id.as_str()),
        why = crate::metrics::label(why),
        detail,
        "override not applied"
    );
}

/// A manifest could not be read; it names its article, whose revision is blocked (fail closed).
pub fn join_manifest_unreadable(
    err: &dyn std::fmt::Display,
    article_id: &str,
    topic: &str,
    partition: i32,
    offset: i64,
) {
    warn!(error = %err, article_id = %article_id, topic = %topic, partition, offset, "manifest unreadable; its revision is blocked");
}

/// A manifest could not be read and names no article: nothing can be decided of it.
pub fn join_manifest_unreadable_unnamed(
    err: &dyn std::fmt::Display,
    topic: &str,
    partition: i32,
    offset: i64,
) {
    warn!(error = %err, topic = %topic, partition, offset, "manifest unreadable and names no article; skipped");
}

/// The join's consumer reported an error that is not fatal: it reads on.
pub fn join_consumer_error(err: &dyn std::fmt::Display) {
    warn!(error = %err, "consumer error; reading on");
}

/// The consumer's assignment could not be read, to pause or resume `topic` (all when `None`).
pub fn join_assignment_unread(err: &dyn std::fmt::Display, topic: Option<&str>) {
    match topic {
        Some(topic) => {
            warn!(error = %err, topic, "reading the assignment to pause or resume failed")
        }
        None => warn!(error = %err, "reading the assignment failed"),
    }
}

/// Pausing (or resuming) `topic`'s partitions failed.
pub fn join_pause_failed(err: &dyn std::fmt::Display, topic: &str, pause: bool) {
    warn!(error = %err, topic, pause, "pausing or resuming partitions failed");
}

/// A partition was revoked: its undecided articles are left to its new owner.
pub fn join_partition_revoked(topic: &str, partition: i32, articles_dropped: usize) {
    info!(
        topic = %topic,
        partition,
        articles_dropped,
        "partition revoked: its undecided articles are left to its new owner"
    );
}

/// Decisions were still unacknowledged when partitions were revoked.
pub fn join_revoked_unacknowledged(err: &dyn std::fmt::Display, timeout_s: u64) {
    warn!(error = %err, timeout_s, "decisions still unacknowledged as partitions were revoked; their next owner may make them again");
}

/// The decisions already made for newly assigned partitions were read back.
pub fn join_read_back(partitions: usize, decisions: usize, elapsed_ms: u64) {
    info!(
        partitions,
        decisions, elapsed_ms, "past decisions read back for the partitions assigned"
    );
}

/// Reading back the decisions of newly assigned partitions failed; it is tried again.
pub fn join_read_back_retried(err: &dyn std::fmt::Display, attempt: u32) {
    warn!(error = %err, attempt, "past decisions could not be read back; trying again");
}

/// The past decisions that give revision changes could not be read: they start afresh.
pub fn join_history_unread(err: &dyn std::fmt::Display) {
    warn!(error = %err, "past decisions could not be read; revision changes start afresh");
}

/// An offset could not be stored: the partition is read again from its last commit.
pub fn join_offset_not_stored(err: &dyn std::fmt::Display, topic: &str, partition: i32) {
    warn!(error = %err, topic = %topic, partition, "offset not stored; the partition is read again from its last commit");
}

/// An applied override's offset could not be stored: the override is read (and applied, to the
/// same effect) again after a restart.
pub fn override_offset_not_stored(err: &dyn std::fmt::Display) {
    warn!(error = %err, "override offset not stored; it is read again after a restart");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_republished_draft_is_labelled_with_the_joins_own_name_for_its_handling() {
        for handling in [
            Republished::Rechecked,
            Republished::Acknowledged,
            Republished::InFlight,
            Republished::NewContent,
        ] {
            let label: &'static str = handling_label(handling).into();
            assert_eq!(label, handling.as_str());
        }
    }
}
