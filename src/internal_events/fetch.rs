//! Fetching cited sources: fetches done, refused and retried, the cache and the rate limits.
//!
//! URLs are logged as host and path only: a query string may carry a token or a session id.

use std::time::Duration;

use url::Url;

use crate::metrics::label;

use factgate_core::fetched::{FetchClass, FetchOutcome, RefusalReason};

/// Host and path of a URL, never its query or fragment.
fn host_path(url: &Url) -> (&str, &str) {
    (url.host_str().unwrap_or(""), url.path())
}

/// A fetch finished (from the network, not the cache).
pub fn fetch_done(url: &Url, outcome: &FetchOutcome, elapsed: Duration, attempts: u32) {
    let metrics = crate::metrics::metrics();
    metrics.fetches.with_label_values(&[outcome.class()]).inc();
    metrics.fetch_duration.observe(elapsed.as_secs_f64());
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

/// The policy refused a fetch: the cited URL itself, an address its host resolved to, or a
/// redirect hop. Logged once per fetch that ends refused (a refused URL is cached like any other
/// outcome, so the claims citing it again do not log it again), with the reason and the setting
/// that would allow it. `url` is `None` when the text is not a URL at all.
pub fn fetch_refused(url: Option<&Url>, reason: &RefusalReason) {
    let (host, path) = url.map(host_path).unwrap_or_default();
    let allow_with = reason.allowed_by().unwrap_or("");
    tracing::warn!(
        host,
        path,
        reason_class = reason.class(),
        reason = %reason,
        allow_with,
        "fetch refused by policy"
    );
}

/// The policy refused the cited URL itself, so the fetch ends before any request: counted as a
/// fetch, and logged as [`fetch_refused`]. Called by the cache's load, so once per URL while the
/// refusal is cached.
pub fn fetch_refused_at_once(url: Option<&Url>, reason: &RefusalReason) {
    crate::metrics::metrics()
        .fetches
        .with_label_values(&[label(FetchClass::RefusedByPolicy)])
        .inc();
    fetch_refused(url, reason);
}

/// The cache answered a fetch (`hit`: a stored outcome or another caller's concurrent load),
/// or this fetch loaded it.
pub fn cache_lookup(hit: bool, cache_bytes: u64) {
    let metrics = crate::metrics::metrics();
    if hit {
        metrics.cache_hits.inc();
    } else {
        metrics.cache_misses.inc();
    }
    metrics
        .cache_bytes
        .set(i64::try_from(cache_bytes).unwrap_or(i64::MAX));
}

/// The cache dropped an entry to stay within its capacity or because it expired.
pub fn cache_evicted(cause: &'static str) {
    crate::metrics::metrics().cache_evictions.inc();
    tracing::debug!(cause, "fetch cache entry evicted");
}

/// A request passed the rate limits after `waited` (zero when it did not wait).
pub fn rate_limit_passed(host: &str, waited: Duration) {
    crate::metrics::metrics()
        .rate_limit_wait
        .observe(waited.as_secs_f64());
    if !waited.is_zero() {
        let waited_ms = u64::try_from(waited.as_millis()).unwrap_or(u64::MAX);
        tracing::debug!(host, waited_ms, "request waited for the rate limit");
    }
}

/// The resolver dropped an address the policy refuses. Debug only: when no address is left the
/// fetch ends refused and [`fetch_refused`] says so once; when some are left it goes on.
pub fn address_refused(host: &str, reason: &RefusalReason) {
    tracing::debug!(host, reason = %reason, "resolved address refused by policy");
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
