//! `factgate recheck`'s events.

use tracing::info;

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
