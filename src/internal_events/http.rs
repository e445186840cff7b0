//! The HTTP endpoint's connections: those closed to stay under `http.max_connections`.
//!
//! A flood of slow connections is thousands of these a second, so each is logged at debug and
//! the warning, once a minute at most, says how many there were since the last one.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Connections closed or refused since the last warning.
static SINCE_WARNING: AtomicU64 = AtomicU64::new(0);
/// When the last warning was written, in seconds since the epoch.
static LAST_WARNING_S: AtomicU64 = AtomicU64::new(0);
/// Seconds between two warnings.
const WARNING_EVERY_S: u64 = 60;

fn at_cap(open: usize, what: &'static str) {
    let count = SINCE_WARNING.fetch_add(1, Ordering::Relaxed) + 1;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let last = LAST_WARNING_S.load(Ordering::Relaxed);
    if now >= last + WARNING_EVERY_S
        && LAST_WARNING_S
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    {
        SINCE_WARNING.store(0, Ordering::Relaxed);
        tracing::warn!(
            open,
            connections_closed = count,
            "HTTP connections at http.max_connections: the idle ones are closed to make room"
        );
    } else {
        tracing::debug!(open, what, "HTTP connection closed at http.max_connections");
    }
}

/// A connection idle for longest was closed to make room for a new one.
pub fn http_connection_evicted(open: usize) {
    at_cap(open, "the connection idle for longest");
}

/// A new connection was closed at once: every open one was at work.
pub fn http_connection_refused(open: usize) {
    at_cap(open, "a new connection, every other one at work");
}

/// A request to the API or the pages was refused for want of a login. Logged at debug: a
/// browser's first request, before it asks for the credentials, is one of these.
pub fn http_login_refused(carried_credentials: bool) {
    tracing::debug!(carried_credentials, "HTTP request refused: no valid login");
}

/// A login was tried and failed: the name tried (a Basic login's) and the client's address,
/// never the secret. Counted in `factgate_login_failures_total`.
pub fn http_login_failed(name: Option<&str>, address: Option<std::net::IpAddr>) {
    crate::metrics::metrics().http_login_failures.inc();
    tracing::warn!(
        name_tried = name.map(tracing::field::debug),
        client = address.map(tracing::field::display),
        "login failed"
    );
}

/// A login was not tried: the address or name has failed too often lately, and must wait
/// `retry_after_s`. Counted in `factgate_logins_throttled_total`.
pub fn http_login_throttled(
    name: Option<&str>,
    address: Option<std::net::IpAddr>,
    retry_after_s: u64,
) {
    crate::metrics::metrics().http_logins_throttled.inc();
    // Counted, and logged at debug: a guesser's every try would flood the log at warn; each
    // failure that earned the wait was logged at warn already.
    tracing::debug!(
        name_tried = name.map(tracing::field::debug),
        client = address.map(tracing::field::display),
        retry_after_s,
        "login throttled after repeated failures"
    );
}

/// Accepting a connection failed (out of file descriptors, usually); the listener waits a moment
/// and accepts again.
pub fn http_accept_failed(error: &dyn std::fmt::Display) {
    tracing::warn!(error = %error, "accepting an HTTP connection failed");
}

/// Connections still open when the graceful shutdown's time ran out were dropped.
pub fn http_connections_dropped_at_shutdown(timeout_s: u64) {
    tracing::warn!(
        timeout_s,
        "HTTP connections still open at shutdown were dropped"
    );
}

/// A decision page's rendering task failed (it panicked); the editor gets an error page.
pub fn decision_page_failed(error: &dyn std::fmt::Display) {
    tracing::error!(error = %error, "rendering a decision page failed");
}

/// A page template (an editor's page, an HTML report) could not be rendered; the page says so.
pub fn page_render_failed(template: &str, error: &dyn std::fmt::Display) {
    tracing::error!(template = %template, error = %error, "page could not be rendered");
}

/// A decision held on the board (as the JSON it was read or written as) does not read back.
pub fn board_decision_unreadable(error: &dyn std::fmt::Display) {
    tracing::error!(error = %error, "a decision held on the board does not read back");
}
