//! The stream processor's own life: start-up, listeners, brokers, shutdown, failed tasks, and
//! the revision history and decisions read back at start and at each assignment.

use std::fmt::Display;
use tracing::{error, info, warn};

/// Traces are exported over OTLP to `endpoint`.
pub fn traces_exported_to(endpoint: &str) {
    info!(endpoint = %endpoint, "exporting traces over OTLP");
}

/// The start-up banner could not be written to standard output (a reader that closed it); the
/// process runs on.
pub fn banner_not_printed(error: &dyn Display) {
    warn!(error = %error, "could not print the startup banner to stdout");
}

/// No login is configured: the API and the pages refuse every request.
pub fn http_login_missing() {
    warn!(
        "no login is configured ([http.auth]): the API and the pages on http.listen refuse every request"
    );
}

/// The HTTP endpoints listen.
pub fn http_listening(listen: &dyn Display, admin_listen: &dyn Display) {
    info!(listen = %listen, admin_listen = %admin_listen, "HTTP endpoints listening");
}

/// The pipeline connects to the brokers `servers`, or starts the embedded one (`None`).
pub fn kafka_connecting(servers: Option<&str>, timeout_ms: u64) {
    match servers {
        Some(servers) => info!(
            bootstrap_servers = %servers,
            timeout_ms, "connecting to Kafka"
        ),
        None => info!("starting the embedded Kafka broker"),
    }
}

/// Asked to stop before the brokers answered.
pub fn stopped_before_connected() {
    info!("shutting down before the brokers answered");
}

/// Asked to stop: work in flight is abandoned and done again on restart.
pub fn pipeline_stopping() {
    info!("shutting down: in-flight work is abandoned and done again on restart");
}

/// A role's task stopped with an error (the process stops with it).
pub fn task_failed(task: &str, error: &dyn Display) {
    error!(task = %task, error = %error, "a role stopped with an error");
}

/// A task's consumer reported an error that is not fatal: it reads on.
pub fn task_consumer_error(task: &str, error: &dyn Display) {
    warn!(error = %error, "{task}: consumer error; reading on");
}

/// Reading decisions (to rebuild the history, or back at an assignment) met an error that is
/// not fatal: it reads on.
pub fn decisions_read_error(error: &dyn Display, reading_back: bool) {
    if reading_back {
        warn!(error = %error, "reading back past decisions; reading on");
    } else {
        warn!(error = %error, "reading past decisions; reading on");
    }
}

/// The revision history was rebuilt from the decisions topic; `unfinished` partitions were not
/// read to their end in time.
pub fn history_rebuilt(decisions: usize, articles: usize, bytes: usize, unfinished: usize) {
    if unfinished > 0 {
        warn!(
            partitions_unfinished = unfinished,
            "past decisions not all read in time; revision changes may be missing for some articles"
        );
    }
    info!(
        decisions,
        articles, bytes, "revision history rebuilt from the decisions topic"
    );
}

/// A decision read for the editors' board does not parse; the board goes on without it.
pub fn board_decision_unread(error: &dyn Display) {
    warn!(error = %error, "decision unreadable on the board");
}

/// Spans still queued could not be flushed to the trace collector.
pub fn traces_not_flushed(error: &dyn Display) {
    warn!(error = %error, "trace export: spans not flushed");
}

/// Exporting spans started failing: they are dropped until the collector answers (logged once
/// per failing spell).
pub fn trace_export_failing(error: &dyn Display, spans: usize) {
    warn!(error = %error, spans, "trace export failing: spans are dropped until the collector answers");
}

/// Exporting spans works again after failing.
pub fn trace_export_recovered() {
    info!("trace export recovered");
}
