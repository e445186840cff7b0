//! Internal events: one function per thing that happens in factgate, each logging it with
//! structured fields and counting it in the matching metric ([`crate::metrics`]) with the same
//! low-cardinality labels. A role's code says what happened (`draft_dead_lettered(…)`); what is
//! logged and what is counted for it is decided here, in one place, so the two never disagree
//! and the metrics' label values are always those of `deploy/metrics.txt`.
//!
//! Never a URL, an article id or an error message in a label: those go to the log line only.
//!
//! Every line an operator reads (info, warn, error) is written here, librdkafka's own lines
//! included; the code elsewhere writes only debug lines, a developer's trace of its steps.
//!
//! - `extract`: drafts read, extracted, split, over a limit, unreadable, dead-lettered; messages
//!   failed; waivers ignored by `factgate check`.
//! - `verify`: claims judged, verification results published, shortened or refused; requests
//!   past their deadline; offsets not stored.
//! - `llm`: the LLM panel's votes, its time per claim, and evidence cut to fit.
//! - `fetch`: fetches done, refused and retried; the fetch cache; the rate limits.
//! - `http`: the HTTP endpoint's connections (closed to stay under its cap, failed to accept,
//!   dropped at shutdown) and pages that could not be rendered.
//! - `decision`: decisions shortened, refused and published.
//! - `join`: the join's in-flight articles, paused inputs, republished drafts and overrides.
//! - `kafka`: consumer lag from librdkafka's statistics, consumer errors, offsets, topics, the
//!   embedded broker, brokers not reachable yet, and librdkafka's own log lines.
//! - `recheck`: a re-check run's scope, targets, workers, retries and refused decisions.
//! - `pipeline`: start-up, listeners, brokers, shutdown, failed tasks; decisions read back; the
//!   board; trace export.

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
