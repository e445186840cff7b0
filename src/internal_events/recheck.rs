//! `factgate recheck`'s events.

use tracing::{error, info, warn};

/// A re-check run's scope is fixed (the topics' ends at its start) and its targets chosen: the
/// latest revision of each article within it.
pub fn recheck_targets_chosen(
    run_id: &str,
    started_at: &dyn std::fmt::Display,
    partitions: usize,
    articles: usize,
    drafts_read: u64,
    unidentified: u64,
) {
    info!(
        run_id = %run_id,
        started_at = %started_at,
        partitions,
        articles,
        drafts_read,
        unidentified,
        "re-check scope fixed and targets chosen: the latest revision of each article"
    );
}

/// A re-check worker joined its run's consumer group and reads its drafts.
pub fn recheck_worker_reading(run_id: &str, group: &str, max_in_flight_checks: usize) {
    info!(
        run_id = %run_id,
        group = %group,
        max_in_flight_checks,
        "re-check worker reading its drafts"
    );
}

/// A run started again with an id already recorded: it resumes (or joins) with the scope
/// recorded at its start.
pub fn recheck_resumed(run_id: &str) {
    info!(run_id = %run_id, "resuming or joining a run with its recorded scope");
}

/// Reading a topic of the run (`what`: the drafts, the run's decisions, a topic) met an error
/// that is not fatal: it reads on.
pub fn recheck_read_retried(what: &str, topic: Option<&str>, error: &dyn std::fmt::Display) {
    warn!(topic, error = %error, "reading {what}: retrying");
}

/// The live deployment has no decisions topic: every article is compared with nothing.
pub fn recheck_no_live_decisions(topic: &str) {
    warn!(topic = %topic, "no live decisions topic: every article is compared with nothing");
}

/// The broker refused a re-check decision for its own fault (too large, usually): a block saying
/// so is sent in its place.
pub fn recheck_decision_refused(article_id: &str, error: &dyn std::fmt::Display) {
    error!(
        article_id = %article_id,
        error = %error,
        "the broker refused the re-check decision; a block saying so is sent instead"
    );
}
