//! `[extract]`, `[join]`, `[http]` and `[log]`: the pipeline's own limits and the process's
//! surroundings.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::error::Checks;

/// Default cap on a draft body (2 MiB).
pub const DEFAULT_EXTRACT_MAX_BODY_BYTES: u64 = 2 * 1024 * 1024;
/// Default cap on the claims of one article.
pub const DEFAULT_MAX_CLAIMS_PER_ARTICLE: usize = 1_000;
/// Default time from a draft event's timestamp to its decision, in milliseconds.
pub const DEFAULT_JOIN_DEADLINE_MS: u64 = 60_000;
/// Default number of articles the joiner waits on at once.
pub const DEFAULT_MAX_IN_FLIGHT_ARTICLES: usize = 10_000;
/// Default address of the HTTP server: loopback only.
pub const DEFAULT_HTTP_LISTEN: SocketAddr =
    SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 8080));
/// Default log filter.
pub const DEFAULT_LOG_LEVEL: &str = "info";

/// Extracting claims from a draft.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExtractConfig {
    /// Cap on a draft body. A larger draft is blocked, never truncated: a check of part of an
    /// article is no check.
    pub max_body_bytes: u64,
    /// Cap on the claims of one article. An article with more is blocked, never checked in part.
    pub max_claims_per_article: usize,
}

impl Default for ExtractConfig {
    fn default() -> Self {
        Self {
            max_body_bytes: DEFAULT_EXTRACT_MAX_BODY_BYTES,
            max_claims_per_article: DEFAULT_MAX_CLAIMS_PER_ARTICLE,
        }
    }
}

impl ExtractConfig {
    pub(crate) fn check(&self, checks: &mut Checks) {
        checks.nonzero("extract.max_body_bytes", self.max_body_bytes);
        checks.nonzero(
            "extract.max_claims_per_article",
            self.max_claims_per_article as u64,
        );
    }
}

/// Joining an article's manifest with its claim results into a decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JoinConfig {
    /// Time, counted from the draft event's timestamp, by which every result must be in; when it
    /// passes the draft is blocked (`deadline_exceeded`). Event time, so a process restarting
    /// after the deadline blocks at once.
    pub deadline_ms: u64,
    /// Articles awaiting results at once; at the cap the joiner reads nothing new until one is
    /// decided, so its memory stays bounded.
    pub max_in_flight_articles: usize,
}

impl Default for JoinConfig {
    fn default() -> Self {
        Self {
            deadline_ms: DEFAULT_JOIN_DEADLINE_MS,
            max_in_flight_articles: DEFAULT_MAX_IN_FLIGHT_ARTICLES,
        }
    }
}

impl JoinConfig {
    /// Time from the draft event's timestamp to its decision.
    pub fn deadline(&self) -> Duration {
        Duration::from_millis(self.deadline_ms)
    }

    pub(crate) fn check(&self, checks: &mut Checks) {
        checks.nonzero("join.deadline_ms", self.deadline_ms);
        checks.nonzero(
            "join.max_in_flight_articles",
            self.max_in_flight_articles as u64,
        );
    }
}

/// The HTTP server that serves decisions (and health and metrics).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HttpConfig {
    /// Address and port to listen on, e.g. `"127.0.0.1:8080"` or `"0.0.0.0:8080"`.
    pub listen: SocketAddr,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            listen: DEFAULT_HTTP_LISTEN,
        }
    }
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line, for log shippers.
    Json,
}

/// Logging.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LogConfig {
    /// `"text"` or `"json"`.
    pub format: LogFormat,
    /// A `tracing` filter: a level (`"info"`) or directives (`"info,factgate::verify=debug"`).
    pub level: String,
}

impl Default for LogConfig {
    fn default() -> Self {
        Self {
            format: LogFormat::default(),
            level: DEFAULT_LOG_LEVEL.to_owned(),
        }
    }
}

impl LogConfig {
    pub(crate) fn check(&self, checks: &mut Checks) {
        if self.level.trim().is_empty() {
            checks.fail("log.level", "log.level must not be empty");
        } else if let Err(err) = tracing_subscriber::EnvFilter::try_new(&self.level) {
            checks.fail(
                "log.level",
                format!("log.level ({:?}) is not a valid filter: {err}", self.level),
            );
        }
    }
}
