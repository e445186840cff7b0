//! `[extract]`, `[join]`, `[http]`, `[log]` and `[trace]`: the pipeline's own limits and the
//! process's surroundings.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use super::error::Validation;

use factgate_core::extract::{
    DEFAULT_EXTRACT_MAX_BODY_BYTES, DEFAULT_EXTRACT_MAX_NESTING_DEPTH,
    DEFAULT_MAX_CHECKS_PER_ARTICLE, DEFAULT_MAX_CLAIMS_PER_ARTICLE, DEFAULT_MAX_FIELD_BYTES,
    DEFAULT_MAX_FIGURES_PER_CLAIM, DEFAULT_MAX_LINKS_PER_ARTICLE, DEFAULT_MAX_WORDS_PER_CLAIM,
};
/// Default time a client has to send a request's headers, in milliseconds.
pub const DEFAULT_HTTP_HEADER_READ_TIMEOUT_MS: u64 = 10_000;
/// Default time a connection may stay open with nothing sent either way, in milliseconds.
pub const DEFAULT_HTTP_IDLE_TIMEOUT_MS: u64 = 60_000;
/// Default cap on the HTTP endpoint's open connections: far more than a CMS and probes use, and
/// well under the 1,024 file descriptors a process is often given, so Kafka and the fetcher
/// keep theirs.
pub const DEFAULT_HTTP_MAX_CONNECTIONS: usize = 512;
/// Default cap on the requests one HTTP/2 connection runs at once.
pub const DEFAULT_HTTP_MAX_CONCURRENT_STREAMS: u32 = 32;
/// Default time from a draft event's timestamp to its decision, in milliseconds.
pub const DEFAULT_JOIN_DEADLINE_MS: u64 = 60_000;
/// Default number of articles the joiner waits on at once.
pub const DEFAULT_MAX_IN_FLIGHT_ARTICLES: usize = 10_000;
/// Default address of the HTTP server of the API and the editors' pages: loopback only.
pub const DEFAULT_HTTP_LISTEN: SocketAddr =
    SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 8080));
/// Default address of the admin listener (`/metrics`, `/healthz`, `/readyz`): loopback only.
pub const DEFAULT_HTTP_ADMIN_LISTEN: SocketAddr =
    SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 8081));
/// Default environment variable holding login credentials (`name:secret`, one per line or
/// comma-separated).
pub const DEFAULT_HTTP_AUTH_CREDENTIALS_ENV: &str = "FACTGATE_HTTP_CREDENTIALS";
/// Default log filter.
pub const DEFAULT_LOG_LEVEL: &str = "info";
/// Default OTLP endpoint: none, so no trace is exported.
pub const DEFAULT_TRACE_OTLP_ENDPOINT: &str = "";
/// Default `service.name` of exported spans.
pub const DEFAULT_TRACE_SERVICE_NAME: &str = "factgate";
/// Default share of new traces recorded: all of them.
pub const DEFAULT_TRACE_SAMPLE_RATIO: f64 = 1.0;

/// Extracting claims from a draft.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExtractConfig {
    /// Cap on a draft body. A larger draft is blocked, never truncated: a check of part of an
    /// article is no check.
    pub max_body_bytes: u64,
    /// Cap on the claims of one article. An article with more is blocked, never checked in part.
    pub max_claims_per_article: usize,
    /// Cap on the links, bare URLs and citation markers (`[2]`, `[^1]`) of one article, counted
    /// once the body is parsed and before its claims are looked for.
    pub max_links_per_article: usize,
    /// Cap on the (claim, cited source) checks one article asks for: each is a fetch and a
    /// verification request.
    pub max_checks_per_article: usize,
    /// Cap on how deep the body's markup nests (HTML elements; Markdown block quotes and list
    /// items), checked by a linear scan before the body is parsed.
    pub max_nesting_depth: usize,
    /// Cap on the figures one claim states: judging compares each with its page's, so a claim
    /// of thousands of figures costs minutes of a core.
    pub max_figures_per_claim: usize,
    /// Cap on the words of one claim (a sentence, title, heading or alt text read as one).
    pub max_words_per_claim: usize,
    /// Cap on each text field of a draft other than its body: the title, URL, section, each
    /// author, the metadata (as JSON) and each top-level field of the CMS's own.
    pub max_field_bytes: u64,
}

impl Default for ExtractConfig {
    fn default() -> Self {
        Self {
            max_body_bytes: DEFAULT_EXTRACT_MAX_BODY_BYTES,
            max_claims_per_article: DEFAULT_MAX_CLAIMS_PER_ARTICLE,
            max_links_per_article: DEFAULT_MAX_LINKS_PER_ARTICLE,
            max_checks_per_article: DEFAULT_MAX_CHECKS_PER_ARTICLE,
            max_nesting_depth: DEFAULT_EXTRACT_MAX_NESTING_DEPTH,
            max_figures_per_claim: DEFAULT_MAX_FIGURES_PER_CLAIM,
            max_words_per_claim: DEFAULT_MAX_WORDS_PER_CLAIM,
            max_field_bytes: DEFAULT_MAX_FIELD_BYTES,
        }
    }
}

impl ExtractConfig {
    /// The limits extraction enforces, for [`factgate_core::extract::extract_within`].
    pub fn limits(&self) -> factgate_core::extract::ExtractLimits {
        factgate_core::extract::ExtractLimits {
            max_body_bytes: self.max_body_bytes,
            max_claims: self.max_claims_per_article,
            max_links: self.max_links_per_article,
            max_checks: self.max_checks_per_article,
            max_nesting_depth: self.max_nesting_depth,
            max_figures_per_claim: self.max_figures_per_claim,
            max_words_per_claim: self.max_words_per_claim,
            max_field_bytes: self.max_field_bytes,
        }
    }

    pub(crate) fn validate(&self, validation: &mut Validation) {
        validation.nonzero("extract.max_body_bytes", self.max_body_bytes);
        validation.nonzero(
            "extract.max_claims_per_article",
            self.max_claims_per_article as u64,
        );
        validation.nonzero(
            "extract.max_links_per_article",
            self.max_links_per_article as u64,
        );
        validation.nonzero(
            "extract.max_checks_per_article",
            self.max_checks_per_article as u64,
        );
        validation.nonzero("extract.max_nesting_depth", self.max_nesting_depth as u64);
        validation.nonzero(
            "extract.max_figures_per_claim",
            self.max_figures_per_claim as u64,
        );
        validation.nonzero(
            "extract.max_words_per_claim",
            self.max_words_per_claim as u64,
        );
        validation.nonzero("extract.max_field_bytes", self.max_field_bytes);
    }
}

/// Joining an article's manifest with its claim results into a decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JoinConfig {
    /// Time, counted from when checking begins (or from the draft's `published_at`, see
    /// `deadline_from`), by which every result must be in; when it passes the draft is blocked
    /// (`deadline_exceeded`). The deadline is written into the manifest, so a join restarting
    /// after it blocks at once.
    pub deadline_ms: u64,
    /// Articles awaiting results at once; at the cap the joiner reads no new manifest until one
    /// is decided (results are still read, and complete them), so its memory stays bounded.
    pub max_in_flight_articles: usize,
    /// What the deadline counts from: the moment extract reads the draft (the default: a late
    /// draft is checked on its merits), or the draft's `published_at` (strict event time).
    pub deadline_from: DeadlineFrom,
}

/// The instant a draft's verification deadline counts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeadlineFrom {
    /// The draft's `published_at`: event time, so a draft read after its deadline (a backlog
    /// after an outage) is blocked at once, `deadline_exceeded`, and must be published again.
    Published,
    /// When extract reads the draft and checking begins: a draft that arrives late is checked
    /// on its merits, and its decision says it arrived late (`arrived_late`). Also what
    /// replaying an old topic needs. The deadline is written into the manifest, so the join and
    /// a restart see the same one.
    #[default]
    Extracted,
}

impl Default for JoinConfig {
    fn default() -> Self {
        Self {
            deadline_ms: DEFAULT_JOIN_DEADLINE_MS,
            max_in_flight_articles: DEFAULT_MAX_IN_FLIGHT_ARTICLES,
            deadline_from: DeadlineFrom::default(),
        }
    }
}

impl JoinConfig {
    /// Time from the draft event's timestamp to its decision.
    pub fn deadline(&self) -> Duration {
        Duration::from_millis(self.deadline_ms)
    }

    /// The deadline of a draft published at `published_at` and read by extract at `extracted_at`.
    pub fn deadline_for(
        &self,
        published_at: DateTime<Utc>,
        extracted_at: DateTime<Utc>,
    ) -> DateTime<Utc> {
        let start = match self.deadline_from {
            DeadlineFrom::Published => published_at,
            DeadlineFrom::Extracted => extracted_at,
        };
        let ms = i64::try_from(self.deadline_ms).unwrap_or(i64::MAX);
        start
            .checked_add_signed(TimeDelta::try_milliseconds(ms).unwrap_or(TimeDelta::MAX))
            .unwrap_or(DateTime::<Utc>::MAX_UTC)
    }

    pub(crate) fn validate(&self, validation: &mut Validation) {
        validation.nonzero("join.deadline_ms", self.deadline_ms);
        validation.nonzero(
            "join.max_in_flight_articles",
            self.max_in_flight_articles as u64,
        );
    }
}

/// The HTTP servers: the API and the editors' pages on `listen`, behind a login; metrics and
/// probes on `admin_listen`, without one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HttpConfig {
    /// Address and port of the API (`/v1/decisions/…`) and the editors' pages (`/ui/`), e.g.
    /// `"127.0.0.1:8080"` or `"0.0.0.0:8080"`. Every request there needs a login (`[http.auth]`).
    pub listen: SocketAddr,
    /// Address and port of `/metrics`, `/healthz` and `/readyz`, which need no login and show
    /// no draft: what a cluster's scraper and probes reach.
    pub admin_listen: SocketAddr,
    /// Time a client has to send a request's headers once it starts one; a connection that
    /// sends them slower (half a request, then nothing) is closed.
    pub header_read_timeout_ms: u64,
    /// Time a connection may stay open with nothing received or sent (a client that stops
    /// reading its response, one that connects and says nothing); then it is closed. Without a
    /// request in flight, the next request's headers are due within `header_read_timeout_ms`,
    /// over HTTP/1 and HTTP/2 alike (HTTP/2 PINGs do not count as a request).
    pub idle_timeout_ms: u64,
    /// Most connections open at once. At the cap a new connection takes the place of the one
    /// idle for longest; when all are busy it is closed at once. Keeps the endpoint's file
    /// descriptors bounded and `/healthz` answered whatever many slow clients there are.
    pub max_connections: usize,
    /// Most requests one HTTP/2 connection runs at once.
    pub max_concurrent_streams: u32,
    /// Bytes of draft bodies kept so decision pages can show the article text; the oldest go
    /// first. 0 keeps none (pages then list the claims alone).
    pub page_body_bytes: usize,
    /// Bytes of decisions (as JSON) kept for `GET /v1/decisions/{id}` and the pages; past them
    /// the articles seen longest ago are forgotten (their decisions stay on the decisions topic).
    pub decision_bytes: usize,
    /// Who may use the API and the pages.
    pub auth: AuthConfig,
}

/// The login of the API and the editors' pages (docs/operating.md, "Login"). A request is let in
/// when it carries credentials listed in `credentials_file` or in the variable
/// `credentials_env` names (`Authorization: Bearer <secret>`, or Basic `name:secret`), or, when
/// `trusted_header` is set, that header from the newsroom's reverse proxy. The name it logs in
/// as is the editor an override records. With none of them configured every request is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuthConfig {
    /// A file of `name:secret` lines (a mounted secret); empty: none. `#` starts a comment.
    pub credentials_file: String,
    /// The environment variable holding `name:secret` entries, one per line or separated by
    /// commas. The secrets never enter the configuration, so nothing prints them.
    pub credentials_env: String,
    /// A header the newsroom's reverse proxy sets to the signed-in user's name (e.g.
    /// `"X-Forwarded-User"`); empty: none trusted. Set it only when the proxy is the only way to
    /// reach `http.listen`, and strips the header from what clients send.
    pub trusted_header: String,
}

impl Default for AuthConfig {
    fn default() -> Self {
        Self {
            credentials_file: String::new(),
            credentials_env: DEFAULT_HTTP_AUTH_CREDENTIALS_ENV.to_owned(),
            trusted_header: String::new(),
        }
    }
}

impl AuthConfig {
    pub(crate) fn validate(&self, validation: &mut Validation) {
        let env = &self.credentials_env;
        if !env.is_empty() && !env.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            validation.fail(
                "http.auth.credentials_env",
                "http.auth.credentials_env must be an environment variable name (letters, digits, _)",
            );
        }
        let header = &self.trusted_header;
        if !header.is_empty() && axum::http::HeaderName::from_bytes(header.as_bytes()).is_err() {
            validation.fail(
                "http.auth.trusted_header",
                format!("http.auth.trusted_header ({header:?}) is not a header name"),
            );
        }
        if header.eq_ignore_ascii_case("authorization") || header.eq_ignore_ascii_case("cookie") {
            validation.fail(
                "http.auth.trusted_header",
                "http.auth.trusted_header must name a header the proxy sets, not Authorization or Cookie",
            );
        }
    }
}

/// The default of `http.page_body_bytes`: bytes of draft bodies the board keeps so pages can
/// show the article. The newest drafts' bodies are kept until their total passes it, then the
/// oldest go (their pages list the claims alone). Bounded apart from the article count because
/// one body can be large.
pub const DEFAULT_PAGE_BODY_BYTES: usize = 64 << 20;

/// The default of `http.decision_bytes`: 16 MiB keeps the decisions of about 6,000 articles
/// (a report of three claims is about 3 KiB as JSON), days of a newsroom's output, within the
/// memory the defaults are sized for (docs/performance.md).
pub const DEFAULT_DECISION_BYTES: usize = 16 << 20;

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            listen: DEFAULT_HTTP_LISTEN,
            admin_listen: DEFAULT_HTTP_ADMIN_LISTEN,
            header_read_timeout_ms: DEFAULT_HTTP_HEADER_READ_TIMEOUT_MS,
            idle_timeout_ms: DEFAULT_HTTP_IDLE_TIMEOUT_MS,
            max_connections: DEFAULT_HTTP_MAX_CONNECTIONS,
            max_concurrent_streams: DEFAULT_HTTP_MAX_CONCURRENT_STREAMS,
            page_body_bytes: DEFAULT_PAGE_BODY_BYTES,
            decision_bytes: DEFAULT_DECISION_BYTES,
            auth: AuthConfig::default(),
        }
    }
}

impl HttpConfig {
    /// See [`HttpConfig::header_read_timeout_ms`].
    pub fn header_read_timeout(&self) -> Duration {
        Duration::from_millis(self.header_read_timeout_ms)
    }

    /// See [`HttpConfig::idle_timeout_ms`].
    pub fn idle_timeout(&self) -> Duration {
        Duration::from_millis(self.idle_timeout_ms)
    }

    pub(crate) fn validate(&self, validation: &mut Validation) {
        validation.nonzero("http.header_read_timeout_ms", self.header_read_timeout_ms);
        validation.nonzero("http.idle_timeout_ms", self.idle_timeout_ms);
        validation.nonzero("http.max_connections", self.max_connections as u64);
        validation.nonzero(
            "http.max_concurrent_streams",
            u64::from(self.max_concurrent_streams),
        );
        validation.nonzero("http.decision_bytes", self.decision_bytes as u64);
        if self.listen == self.admin_listen && self.listen.port() != 0 {
            validation.fail(
                "http.admin_listen",
                format!(
                    "http.admin_listen ({}) must differ from http.listen: the admin listener serves metrics and probes without a login",
                    self.admin_listen
                ),
            );
        }
        self.auth.validate(validation);
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
    pub(crate) fn validate(&self, validation: &mut Validation) {
        if self.level.trim().is_empty() {
            validation.fail("log.level", "log.level must not be empty");
        } else if let Err(err) = tracing_subscriber::EnvFilter::try_new(&self.level) {
            validation.fail(
                "log.level",
                format!("log.level ({:?}) is not a valid filter: {err}", self.level),
            );
        }
    }
}

/// Exporting spans to an OpenTelemetry collector over OTLP/HTTP.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TraceConfig {
    /// The collector's OTLP/HTTP base URL, e.g. `"http://127.0.0.1:4318"` (`/v1/traces` is
    /// appended unless the URL already ends with it). Empty: export only if the standard
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` is set, else no export at all.
    pub otlp_endpoint: String,
    /// The `service.name` resource attribute of every exported span.
    pub service_name: String,
    /// Share of new traces recorded, 0 to 1. A trace continued from a `traceparent` follows its
    /// sampled flag, so one article's trace is recorded in every role or in none.
    pub sample_ratio: f64,
}

impl Default for TraceConfig {
    fn default() -> Self {
        Self {
            otlp_endpoint: DEFAULT_TRACE_OTLP_ENDPOINT.to_owned(),
            service_name: DEFAULT_TRACE_SERVICE_NAME.to_owned(),
            sample_ratio: DEFAULT_TRACE_SAMPLE_RATIO,
        }
    }
}

impl TraceConfig {
    /// The URL spans are posted to: `otlp_endpoint`, else `otel_env` (the value of
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`), with `/v1/traces` appended. `None`: no export.
    pub fn traces_url(&self, otel_env: Option<&str>) -> Option<String> {
        let base = Some(self.otlp_endpoint.trim())
            .filter(|s| !s.is_empty())
            .or_else(|| otel_env.map(str::trim).filter(|s| !s.is_empty()))?;
        let base = base.trim_end_matches('/');
        if base.ends_with("/v1/traces") {
            Some(base.to_owned())
        } else {
            Some(format!("{base}/v1/traces"))
        }
    }

    pub(crate) fn validate(&self, validation: &mut Validation) {
        if !self.otlp_endpoint.trim().is_empty() {
            validation.http_url("trace.otlp_endpoint", self.otlp_endpoint.trim());
        }
        validation.not_blank("trace.service_name", &self.service_name);
        validation.unit_interval("trace.sample_ratio", self.sample_ratio);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deadline_counts_from_publication_or_from_extraction() {
        let published = DateTime::parse_from_rfc3339("2025-01-02T03:04:05Z")
            .expect("valid time")
            .with_timezone(&Utc);
        let extracted = published + TimeDelta::days(300);
        let mut join = JoinConfig {
            deadline_ms: 60_000,
            deadline_from: DeadlineFrom::Published,
            ..JoinConfig::default()
        };
        assert_eq!(
            join.deadline_for(published, extracted),
            published + TimeDelta::minutes(1)
        );
        join.deadline_from = DeadlineFrom::Extracted;
        assert_eq!(
            join.deadline_for(published, extracted),
            extracted + TimeDelta::minutes(1)
        );
        // A deadline past the calendar's end is the end, not a panic.
        join.deadline_ms = u64::MAX;
        assert_eq!(
            join.deadline_for(published, extracted),
            DateTime::<Utc>::MAX_UTC
        );
    }

    #[test]
    fn traces_url_appends_the_signal_path_once() {
        let mut trace = TraceConfig::default();
        assert_eq!(trace.traces_url(None), None);
        assert_eq!(
            trace.traces_url(Some("http://127.0.0.1:4318/")).as_deref(),
            Some("http://127.0.0.1:4318/v1/traces")
        );
        trace.otlp_endpoint = "http://127.0.0.1:4318/v1/traces".into();
        assert_eq!(
            trace.traces_url(Some("http://127.0.0.1:9999")).as_deref(),
            Some("http://127.0.0.1:4318/v1/traces"),
            "the configured endpoint wins over the standard variable"
        );
    }
}
