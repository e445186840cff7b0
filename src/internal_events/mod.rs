//! Internal events: one function per thing that happens in factgate, each logging it with
//! structured fields and counting it in the matching metric ([`crate::metrics`]) with the same
//! low-cardinality labels. A role's code says what happened (`draft_dead_lettered(…)`); what is
//! logged and what is counted for it is decided here, in one place, so the two never disagree
//! and the metrics' label values are always those of `deploy/metrics.txt`.
//!
//! Never a URL, an article id or an error message in a label: those go to the log line only.
//!
//! - `extract`: drafts read, extracted, split, over a limit, dead-lettered; messages failed.
//! - `verify`: claims judged, verification results published, shortened or refused.
//! - `llm`: the LLM panel's votes and its time per claim.
//! - `fetch`: fetches done, refused and retried; the fetch cache; the rate limits.
//! - `http`: the HTTP endpoint's connections closed to stay under its cap.
//! - `decision`: decisions shortened, refused and published.
//! - `join`: the join's in-flight articles, paused inputs and republished drafts.
//! - `kafka`: consumer lag from librdkafka's statistics.
//! - `recheck`: a re-check run's scope and targets.
//! - `pipeline`: start-up, listeners, brokers, shutdown, failed tasks; decisions read back.

mod decision;
mod extract;
mod fetch;
mod http;
mod join;
mod kafka;
mod llm;
mod pipeline;
mod recheck;
mod verify;

pub use decision::*;
pub use extract::*;
pub use fetch::*;
pub use http::*;
pub use join::*;
pub use kafka::*;
pub use llm::*;
pub use pipeline::*;
pub use recheck::*;
pub use verify::*;

/// Milliseconds of a duration, for log fields (saturating).
fn millis(elapsed: std::time::Duration) -> u64 {
    u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
}
