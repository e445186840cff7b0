//! One function per notable fetch event, each logging structured fields.
//!
//! URLs are logged as host and path only: a query string may carry a token or a session id.

use std::time::Duration;

use url::Url;

use super::outcome::{FetchOutcome, RefusalReason};

/// Host and path of a URL, never its query or fragment.
fn host_path(url: &Url) -> (&str, &str) {
    (url.host_str().unwrap_or(""), url.path())
}

/// A fetch finished (from the network, not the cache).
pub fn fetch_done(url: &Url, outcome: &FetchOutcome, elapsed: Duration, attempts: u32) {
    let (host, path) = host_path(url);
    let elapsed_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
    match outcome {
        FetchOutcome::Ok(_) => tracing::debug!(
            host,
            path,
            status_class = outcome.class(),
            elapsed_ms,
            attempts,
            "fetch done"
        ),
        _ => tracing::info!(
            host,
            path,
            status_class = outcome.class(),
            elapsed_ms,
            attempts,
            "fetch done"
        ),
    }
}

/// The policy refused a URL or a redirect hop before any request to it.
pub fn fetch_refused(url: &Url, reason: &RefusalReason) {
    let (host, path) = host_path(url);
    tracing::warn!(host, path, reason_class = reason.class(), reason = %reason, "fetch refused by policy");
}

/// The resolver dropped an address the policy refuses.
pub fn address_refused(host: &str, reason: &RefusalReason) {
    tracing::warn!(host, reason = %reason, "resolved address refused by policy");
}

/// An attempt ended in something worth retrying; the fetcher waits `delay` and tries again.
pub fn fetch_retried(url: &Url, outcome: &FetchOutcome, attempt: u32, delay: Duration) {
    let (host, path) = host_path(url);
    let delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
    tracing::info!(
        host,
        path,
        status_class = outcome.class(),
        attempt,
        delay_ms,
        "fetch retried"
    );
}
