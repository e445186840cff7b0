//! `[fetch]` and `[cache]`: how cited sources are fetched, politely and safely, and how long a
//! fetched page is kept.

use std::net::IpAddr;
use std::time::Duration;

use ipnet::IpNet;
use serde::{Deserialize, Deserializer, Serialize};

use super::error::Validation;

/// Default contact URL in the User-Agent; an operator should point it at a page that says who
/// runs this instance.
pub const DEFAULT_USER_AGENT_CONTACT_URL: &str = "https://example.org/factgate";
/// Default total time of one fetch attempt, in milliseconds.
pub const DEFAULT_FETCH_TIMEOUT_MS: u64 = 10_000;
/// Default time to establish a connection, in milliseconds.
pub const DEFAULT_CONNECT_TIMEOUT_MS: u64 = 3_000;
/// Default cap on the bytes of a response body as received (5 MiB).
pub const DEFAULT_FETCH_MAX_BODY_BYTES: u64 = 5 * 1024 * 1024;
/// Default cap on the bytes of a response body after decompression (20 MiB).
pub const DEFAULT_MAX_DECOMPRESSED_BYTES: u64 = 20 * 1024 * 1024;
/// Default number of redirects followed.
pub const DEFAULT_MAX_REDIRECTS: u32 = 5;
/// Default cap on how deep a fetched HTML page nests its elements.
pub const DEFAULT_FETCH_MAX_NESTING_DEPTH: usize = 512;
/// Default cap on the nodes (elements, text runs, comments) of a fetched HTML page's tree: a news
/// article is a few thousand, a long reference page tens of thousands. At the cap the tree costs
/// tens of megabytes (docs/reliability.md gives the figure).
pub const DEFAULT_FETCH_MAX_HTML_NODES: usize = 200_000;
/// Default cap on the readable text of a fetched page (2 MiB): a long report is a few hundred
/// kilobytes of text, and the judge's index of a page costs tens of times its text
/// (docs/reliability.md).
pub const DEFAULT_FETCH_MAX_TEXT_BYTES: u64 = 2 * 1024 * 1024;
/// Default cap on a document's body (32 MiB), as received and as decompressed: a PDF report or a
/// CSV data file is read within it instead of `max_body_bytes`, since an annual report with its
/// charts is tens of megabytes where a web page is hundreds of kilobytes.
pub const DEFAULT_FETCH_MAX_DOCUMENT_BYTES: u64 = 32 * 1024 * 1024;
/// Default cap on a cited PDF's pages: long reports have hundreds.
pub const DEFAULT_FETCH_MAX_PDF_PAGES: usize = factgate_core::text::pdf::DEFAULT_MAX_PDF_PAGES;
/// Default cap on a cited PDF's objects, counted in its raw bytes and its object streams.
pub const DEFAULT_FETCH_MAX_PDF_OBJECTS: usize = factgate_core::text::pdf::DEFAULT_MAX_PDF_OBJECTS;
/// Default cap on what a cited PDF's streams expand to, summed (256 MiB): the bound on a
/// decompression bomb inside a document, whose body cap says nothing of its expansion.
pub const DEFAULT_FETCH_MAX_PDF_STREAM_BYTES: u64 =
    factgate_core::text::pdf::DEFAULT_MAX_PDF_STREAM_BYTES;
/// Default cap on a cited CSV file's rows.
pub const DEFAULT_FETCH_MAX_CSV_ROWS: usize = factgate_core::text::csv_table::DEFAULT_MAX_CSV_ROWS;
/// Default steady request rate to one host.
pub const DEFAULT_PER_HOST_RPS: f64 = 2.0;
/// Default burst of requests to one host above the steady rate.
pub const DEFAULT_PER_HOST_BURST: u32 = 4;
/// Default steady request rate over all hosts.
pub const DEFAULT_GLOBAL_RPS: f64 = 50.0;
/// Default number of requests in flight to one host.
pub const DEFAULT_PER_HOST_CONCURRENCY: u32 = 2;
/// Default number of retries after the first attempt.
pub const DEFAULT_MAX_RETRIES: u32 = 3;
/// Default first backoff before a retry, in milliseconds.
pub const DEFAULT_BACKOFF_BASE_MS: u64 = 250;
/// Default longest backoff before a retry, in milliseconds.
pub const DEFAULT_BACKOFF_MAX_MS: u64 = 5_000;
/// Default longest `Retry-After` honoured, in milliseconds.
pub const DEFAULT_RETRY_AFTER_MAX_MS: u64 = 30_000;

/// Default total weight of the page cache (64 MiB): a 1,500-word page weighs about 171 KiB with
/// its index, so some 380 such pages, more than a newsroom cites in the hour a page stays cached
/// (`cache.ttl_ok_s`), and a process holding 10,000 articles in flight with a full cache stays
/// within 300 MB (docs/performance.md). Each MiB more costs about a MiB of RSS: raise it where
/// many drafts cite the same pages over a longer span (re-checking an archive).
pub const DEFAULT_CACHE_CAPACITY_BYTES: u64 = 64 * 1024 * 1024;
/// Default time a good page stays cached, in seconds.
pub const DEFAULT_TTL_OK_S: u64 = 3_600;
/// Default time a 404/410 stays cached, in seconds.
pub const DEFAULT_TTL_NOT_FOUND_S: u64 = 300;
/// Default cap on one cached entry (8 MiB); larger pages are used but not cached.
pub const DEFAULT_CACHE_MAX_ENTRY_BYTES: u64 = 8 * 1024 * 1024;

/// The only URL schemes factgate fetches. Fixed, not configurable: any other scheme (file, ftp,
/// gopher…) is refused by policy.
pub const ALLOWED_SCHEMES: [&str; 2] = ["http", "https"];

/// Fetching cited sources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FetchConfig {
    /// Contact URL in the User-Agent, which names factgate and this URL so a site owner can tell
    /// who is fetching and reach them.
    pub user_agent_contact_url: String,
    /// Total time of one fetch attempt: connect, redirects, headers and the whole body.
    pub timeout_ms: u64,
    /// Time to establish a connection.
    pub connect_timeout_ms: u64,
    /// Cap on the body as received; a larger response is `too_large`, never truncated.
    pub max_body_bytes: u64,
    /// Cap on the body after decompression (gzip, brotli or deflate bombs).
    pub max_decompressed_bytes: u64,
    /// Redirects followed; each hop is checked against the address policy again. 0 follows none.
    pub max_redirects: u32,
    /// Cap on how deep a fetched HTML page nests its elements, checked by a linear scan before
    /// the page is parsed; a deeper page leaves its source unjudged.
    pub max_nesting_depth: usize,
    /// Cap on the nodes (elements, text runs, comments) of a fetched HTML page, counted before
    /// its tree is built and again while it is built; a page with more leaves its source
    /// unjudged. Bounds the memory one page can take, whatever its size in bytes.
    pub max_html_nodes: usize,
    /// Cap on a fetched page's readable text (HTML reduced to what a reader sees, or text/plain
    /// as sent); a page with more is not judged and leaves its source unjudged. Bounds the memory
    /// of the judge's index of one page.
    pub max_text_bytes: u64,
    /// Cap on the body of a document (a PDF, a CSV file), used instead of `max_body_bytes` and
    /// `max_decompressed_bytes` once the response's type or URL says it is one; a larger one is
    /// `too_large`. Its text is held to `max_text_bytes` like a page's.
    pub max_document_bytes: u64,
    /// Cap on a cited PDF's pages; a longer one is refused, naming the key, and leaves its source
    /// unjudged.
    pub max_pdf_pages: usize,
    /// Cap on a cited PDF's objects (counted before it is parsed); past it the PDF is refused.
    pub max_pdf_objects: usize,
    /// Cap on the bytes a cited PDF's compressed streams expand to, summed (decompression bombs);
    /// a sixty-fourth of it bounds one page's drawing instructions.
    pub max_pdf_stream_bytes: u64,
    /// Cap on a cited CSV file's rows, its header included; a longer file is refused.
    pub max_csv_rows: usize,
    /// Fetch from private, loopback, link-local, CGNAT and cloud-metadata addresses. Keep `false`
    /// in production: a draft could otherwise make factgate read internal services.
    pub allow_private_addresses: bool,
    /// Addresses allowed despite being private or loopback, as CIDR ranges or single IPs
    /// (`"127.0.0.1/32"`, `"10.1.2.3"`). Checked on every resolved address and redirect.
    #[serde(deserialize_with = "deserialize_allowlist")]
    pub address_allowlist: Vec<IpNet>,
    /// Steady request rate to one host (may be fractional: 0.5 is one request every 2 s).
    pub per_host_requests_per_second: f64,
    /// Requests to one host allowed at once above the steady rate.
    pub per_host_burst: u32,
    /// Steady request rate over all hosts.
    pub global_requests_per_second: f64,
    /// Requests in flight to one host.
    pub per_host_concurrency: u32,
    /// Retries after the first attempt, for timeouts, 5xx, 429 and 503. 0 never retries.
    pub max_retries: u32,
    /// First backoff before a retry; doubles on each retry, with jitter.
    pub backoff_base_ms: u64,
    /// Longest backoff before a retry.
    pub backoff_max_ms: u64,
    /// Longest wait a `Retry-After` header (429, 503) may impose before the next attempt.
    pub retry_after_max_ms: u64,
}

impl Default for FetchConfig {
    fn default() -> Self {
        Self {
            user_agent_contact_url: DEFAULT_USER_AGENT_CONTACT_URL.to_owned(),
            timeout_ms: DEFAULT_FETCH_TIMEOUT_MS,
            connect_timeout_ms: DEFAULT_CONNECT_TIMEOUT_MS,
            max_body_bytes: DEFAULT_FETCH_MAX_BODY_BYTES,
            max_decompressed_bytes: DEFAULT_MAX_DECOMPRESSED_BYTES,
            max_redirects: DEFAULT_MAX_REDIRECTS,
            max_nesting_depth: DEFAULT_FETCH_MAX_NESTING_DEPTH,
            max_html_nodes: DEFAULT_FETCH_MAX_HTML_NODES,
            max_text_bytes: DEFAULT_FETCH_MAX_TEXT_BYTES,
            max_document_bytes: DEFAULT_FETCH_MAX_DOCUMENT_BYTES,
            max_pdf_pages: DEFAULT_FETCH_MAX_PDF_PAGES,
            max_pdf_objects: DEFAULT_FETCH_MAX_PDF_OBJECTS,
            max_pdf_stream_bytes: DEFAULT_FETCH_MAX_PDF_STREAM_BYTES,
            max_csv_rows: DEFAULT_FETCH_MAX_CSV_ROWS,
            allow_private_addresses: false,
            address_allowlist: Vec::new(),
            per_host_requests_per_second: DEFAULT_PER_HOST_RPS,
            per_host_burst: DEFAULT_PER_HOST_BURST,
            global_requests_per_second: DEFAULT_GLOBAL_RPS,
            per_host_concurrency: DEFAULT_PER_HOST_CONCURRENCY,
            max_retries: DEFAULT_MAX_RETRIES,
            backoff_base_ms: DEFAULT_BACKOFF_BASE_MS,
            backoff_max_ms: DEFAULT_BACKOFF_MAX_MS,
            retry_after_max_ms: DEFAULT_RETRY_AFTER_MAX_MS,
        }
    }
}

impl FetchConfig {
    /// Total time of one fetch attempt.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }

    /// Time to establish a connection.
    pub fn connect_timeout(&self) -> Duration {
        Duration::from_millis(self.connect_timeout_ms)
    }

    /// First backoff before a retry.
    pub fn backoff_base(&self) -> Duration {
        Duration::from_millis(self.backoff_base_ms)
    }

    /// Longest backoff before a retry.
    pub fn backoff_max(&self) -> Duration {
        Duration::from_millis(self.backoff_max_ms)
    }

    /// Longest `Retry-After` honoured.
    pub fn retry_after_max(&self) -> Duration {
        Duration::from_millis(self.retry_after_max_ms)
    }

    /// Whether `ip` is in `address_allowlist`. The private-range check itself belongs to the
    /// fetcher; this only answers "did the operator allow this address explicitly".
    pub fn is_allowlisted(&self, ip: IpAddr) -> bool {
        self.address_allowlist.iter().any(|net| net.contains(&ip))
    }

    pub(crate) fn validate(&self, validation: &mut Validation) {
        validation.http_url("fetch.user_agent_contact_url", &self.user_agent_contact_url);
        validation.nonzero("fetch.timeout_ms", self.timeout_ms);
        validation.nonzero("fetch.connect_timeout_ms", self.connect_timeout_ms);
        validation.not_above(
            "fetch.connect_timeout_ms",
            self.connect_timeout_ms,
            "fetch.timeout_ms",
            self.timeout_ms,
        );
        validation.nonzero("fetch.max_body_bytes", self.max_body_bytes);
        validation.nonzero("fetch.max_decompressed_bytes", self.max_decompressed_bytes);
        validation.nonzero("fetch.max_nesting_depth", self.max_nesting_depth as u64);
        validation.nonzero("fetch.max_html_nodes", self.max_html_nodes as u64);
        validation.nonzero("fetch.max_text_bytes", self.max_text_bytes);
        validation.nonzero("fetch.max_document_bytes", self.max_document_bytes);
        validation.nonzero("fetch.max_pdf_pages", self.max_pdf_pages as u64);
        validation.nonzero("fetch.max_pdf_objects", self.max_pdf_objects as u64);
        validation.nonzero("fetch.max_pdf_stream_bytes", self.max_pdf_stream_bytes);
        validation.nonzero("fetch.max_csv_rows", self.max_csv_rows as u64);
        // Decompressed text is never smaller than what arrived, except for a bomb; a lower cap
        // would refuse every compressed page that fits the body cap.
        validation.not_above(
            "fetch.max_body_bytes",
            self.max_body_bytes,
            "fetch.max_decompressed_bytes",
            self.max_decompressed_bytes,
        );
        positive_rate(
            validation,
            "fetch.per_host_requests_per_second",
            self.per_host_requests_per_second,
        );
        positive_rate(
            validation,
            "fetch.global_requests_per_second",
            self.global_requests_per_second,
        );
        if self.per_host_requests_per_second > self.global_requests_per_second {
            validation.fail(
                "fetch.per_host_requests_per_second",
                format!(
                    "fetch.per_host_requests_per_second ({}) must not exceed \
                     fetch.global_requests_per_second ({})",
                    self.per_host_requests_per_second, self.global_requests_per_second
                ),
            );
        }
        validation.nonzero("fetch.per_host_burst", self.per_host_burst.into());
        validation.nonzero(
            "fetch.per_host_concurrency",
            self.per_host_concurrency.into(),
        );
        validation.nonzero("fetch.backoff_base_ms", self.backoff_base_ms);
        validation.nonzero("fetch.backoff_max_ms", self.backoff_max_ms);
        validation.not_above(
            "fetch.backoff_base_ms",
            self.backoff_base_ms,
            "fetch.backoff_max_ms",
            self.backoff_max_ms,
        );
        validation.nonzero("fetch.retry_after_max_ms", self.retry_after_max_ms);
    }
}

fn positive_rate(validation: &mut Validation, key: &str, rate: f64) {
    if !(rate.is_finite() && rate > 0.0) {
        validation.fail(
            key,
            format!("{key} ({rate}) must be a number greater than 0"),
        );
    }
}

/// Reads one allowlist entry: a CIDR range, or a single address taken as a /32 or /128.
/// The deserializer adds the entry's index to the key path, so the error reads
/// `fetch.address_allowlist[1]: invalid CIDR …`.
fn deserialize_allowlist<'de, D: Deserializer<'de>>(de: D) -> Result<Vec<IpNet>, D::Error> {
    struct Entry(IpNet);

    impl<'de> Deserialize<'de> for Entry {
        fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
            let text = String::deserialize(de)?;
            let text = text.trim();
            text.parse::<IpNet>()
                .or_else(|_| text.parse::<IpAddr>().map(IpNet::from))
                .map(Entry)
                .map_err(|_| {
                    serde::de::Error::custom(format!(
                        "invalid CIDR range or IP address {text:?} (expected e.g. \
                         \"127.0.0.1/32\", \"10.0.0.0/8\" or \"::1\")"
                    ))
                })
        }
    }

    let entries = Vec::<Entry>::deserialize(de)?;
    Ok(entries.into_iter().map(|Entry(net)| net).collect())
}

/// The cache of fetched pages, shared by all verifications in a process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CacheConfig {
    /// Total weight of cached pages, in bytes of page text and of the judge's index of each.
    pub capacity_bytes: u64,
    /// How long a good page is reused.
    pub ttl_ok_s: u64,
    /// How long a 404 or 410 is remembered; shorter, since a page may appear later. Results that
    /// should be retried (timeouts, 5xx, 429) are never cached.
    pub ttl_not_found_s: u64,
    /// Largest single entry; a larger page is used but not cached.
    pub max_entry_bytes: u64,
}

impl Default for CacheConfig {
    fn default() -> Self {
        Self {
            capacity_bytes: DEFAULT_CACHE_CAPACITY_BYTES,
            ttl_ok_s: DEFAULT_TTL_OK_S,
            ttl_not_found_s: DEFAULT_TTL_NOT_FOUND_S,
            max_entry_bytes: DEFAULT_CACHE_MAX_ENTRY_BYTES,
        }
    }
}

impl CacheConfig {
    /// How long a good page is reused.
    pub fn ttl_ok(&self) -> Duration {
        Duration::from_secs(self.ttl_ok_s)
    }

    /// How long a 404 or 410 is remembered.
    pub fn ttl_not_found(&self) -> Duration {
        Duration::from_secs(self.ttl_not_found_s)
    }

    pub(crate) fn validate(&self, validation: &mut Validation) {
        validation.nonzero("cache.capacity_bytes", self.capacity_bytes);
        validation.nonzero("cache.max_entry_bytes", self.max_entry_bytes);
        validation.not_above(
            "cache.max_entry_bytes",
            self.max_entry_bytes,
            "cache.capacity_bytes",
            self.capacity_bytes,
        );
        // The cache weighs entries with a u32.
        if self.max_entry_bytes > u64::from(u32::MAX) {
            validation.fail(
                "cache.max_entry_bytes",
                format!("cache.max_entry_bytes must be at most {}", u32::MAX),
            );
        }
        validation.nonzero("cache.ttl_ok_s", self.ttl_ok_s);
        validation.nonzero("cache.ttl_not_found_s", self.ttl_not_found_s);
        if self.ttl_not_found_s >= self.ttl_ok_s {
            validation.fail(
                "cache.ttl_not_found_s",
                format!(
                    "cache.ttl_not_found_s ({}) must be shorter than cache.ttl_ok_s ({})",
                    self.ttl_not_found_s, self.ttl_ok_s
                ),
            );
        }
    }
}
