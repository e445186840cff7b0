//! Runtime settings of the fetcher: limits, politeness and cache sizes.
//!
//! This is a plain runtime struct; the config file is parsed and validated elsewhere and mapped
//! into it. Every limit here bounds something that would otherwise grow with load or with what a
//! remote server chooses to send.

use crate::config::Config;
use std::time::Duration;

use ipnet::IpNet;

/// Default contact URL named in the User-Agent when the config gives none.
pub const DEFAULT_CONTACT_URL: &str = "https://github.com/factgate/factgate";

/// How the fetcher behaves. `Default` gives conservative production values.
#[derive(Debug, Clone)]
pub struct FetchSettings {
    /// URL where a site operator can learn about factgate and reach whoever runs it; sent in the
    /// User-Agent as `factgate/<version> (+<url>)`.
    pub user_agent_contact_url: String,
    /// Cap on the whole fetch once its first request starts: every attempt, redirect, body read
    /// and retry wait. Waiting for the politeness limiter before the first request is not counted,
    /// so a busy host delays a fetch rather than timing it out.
    pub timeout: Duration,
    /// Cap on establishing one TCP (and TLS) connection.
    pub connect_timeout: Duration,
    /// Cap on the bytes received on the wire for one response (compressed bytes when the server
    /// compresses). A declared Content-Length over it is refused before the body is read.
    pub max_body_bytes: u64,
    /// Cap on the bytes a compressed body may expand to (gzip, brotli and deflate bombs).
    pub max_decompressed_bytes: u64,
    /// Redirects followed before the fetch is refused.
    pub max_redirects: usize,
    /// How deep an HTML page may nest its elements; a deeper page is not parsed (its tree would
    /// cost time that grows with the depth) and leaves its source unjudged.
    pub max_nesting_depth: usize,
    /// How many nodes (elements, text runs, comments) an HTML page may make; a page with more is
    /// not parsed, or its parse is stopped, and it leaves its source unjudged.
    pub max_html_nodes: usize,
    /// How many bytes of readable text a page may have; a page with more is not judged (the
    /// judge's index of it would cost many times that) and leaves its source unjudged.
    pub max_text_bytes: u64,
    /// Cap on the body of a document (a PDF, a CSV file), as received and as decompressed, used
    /// instead of `max_body_bytes` and `max_decompressed_bytes`: documents are larger than pages.
    pub max_document_bytes: u64,
    /// How many pages a PDF may have.
    pub max_pdf_pages: usize,
    /// How many objects a PDF may have.
    pub max_pdf_objects: usize,
    /// How many bytes a PDF's streams may expand to, summed.
    pub max_pdf_stream_bytes: u64,
    /// How many rows a CSV file may have.
    pub max_csv_rows: usize,
    /// Allow private, loopback, link-local, CGNAT and similar addresses. Cloud metadata addresses
    /// stay refused even then, unless they are in `address_allowlist`.
    pub allow_private_addresses: bool,
    /// Networks that are allowed even though the address policy would refuse them (e.g. an
    /// internal mirror, or `127.0.0.1/32` in tests).
    pub address_allowlist: Vec<IpNet>,
    /// Sustained requests per second to one host.
    pub per_host_rps: f64,
    /// Requests one host may receive at once after being idle.
    pub per_host_burst: u32,
    /// Sustained requests per second across all hosts.
    pub global_rps: f64,
    /// Requests in flight to one host at a time.
    pub per_host_concurrency: usize,
    /// Retries after the first attempt for outcomes worth retrying (timeouts, 5xx, 429).
    pub max_retries: u32,
    /// First backoff delay; doubled on each retry, with jitter.
    pub backoff_base: Duration,
    /// Largest backoff delay.
    pub backoff_max: Duration,
    /// Longest Retry-After the fetcher will wait for; a longer one ends the fetch as it is.
    pub retry_after_max: Duration,
    /// Capacity of the result cache, in bytes of page text and the judge's index of each page.
    pub cache_capacity_bytes: u64,
    /// How long a good page stays cached.
    pub cache_ttl_ok: Duration,
    /// How long a settled failure (404/410, 401/403, paywall, too large, unsupported, refused)
    /// stays cached; shorter, since a dead link may come back.
    pub cache_ttl_not_found: Duration,
    /// Pages with more text than this are returned but not cached, so one huge page cannot evict
    /// the rest.
    pub max_entry_bytes: u64,
}

impl Default for FetchSettings {
    fn default() -> Self {
        Self {
            user_agent_contact_url: DEFAULT_CONTACT_URL.to_owned(),
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            max_body_bytes: 5 * 1024 * 1024,
            max_decompressed_bytes: 10 * 1024 * 1024,
            max_redirects: 5,
            max_nesting_depth: crate::config::DEFAULT_FETCH_MAX_NESTING_DEPTH,
            max_html_nodes: crate::config::DEFAULT_FETCH_MAX_HTML_NODES,
            max_text_bytes: crate::config::DEFAULT_FETCH_MAX_TEXT_BYTES,
            max_document_bytes: crate::config::DEFAULT_FETCH_MAX_DOCUMENT_BYTES,
            max_pdf_pages: crate::config::DEFAULT_FETCH_MAX_PDF_PAGES,
            max_pdf_objects: crate::config::DEFAULT_FETCH_MAX_PDF_OBJECTS,
            max_pdf_stream_bytes: crate::config::DEFAULT_FETCH_MAX_PDF_STREAM_BYTES,
            max_csv_rows: crate::config::DEFAULT_FETCH_MAX_CSV_ROWS,
            allow_private_addresses: false,
            address_allowlist: Vec::new(),
            per_host_rps: 2.0,
            per_host_burst: 4,
            global_rps: 50.0,
            per_host_concurrency: 2,
            max_retries: 2,
            backoff_base: Duration::from_millis(500),
            backoff_max: Duration::from_secs(10),
            retry_after_max: Duration::from_secs(30),
            cache_capacity_bytes: crate::config::DEFAULT_CACHE_CAPACITY_BYTES,
            cache_ttl_ok: Duration::from_secs(6 * 3600),
            cache_ttl_not_found: Duration::from_secs(600),
            max_entry_bytes: 4 * 1024 * 1024,
        }
    }
}

impl FetchSettings {
    /// The bounds a cited PDF is read within: `fetch.max_pdf_*`, and the text cap every source
    /// shares.
    pub fn pdf_limits(&self) -> factgate_core::text::pdf::PdfLimits {
        factgate_core::text::pdf::PdfLimits {
            max_pages: self.max_pdf_pages,
            max_objects: self.max_pdf_objects,
            max_stream_bytes: self.max_pdf_stream_bytes,
            max_text_bytes: usize::try_from(self.max_text_bytes).unwrap_or(usize::MAX),
        }
    }

    /// The bounds a cited CSV file is read within.
    pub fn csv_limits(&self) -> factgate_core::text::csv_table::CsvLimits {
        factgate_core::text::csv_table::CsvLimits {
            max_rows: self.max_csv_rows,
            max_text_bytes: usize::try_from(self.max_text_bytes).unwrap_or(usize::MAX),
        }
    }

    /// The User-Agent sent with every request: `factgate/<version> (+<contact url>)`.
    pub fn user_agent(&self) -> String {
        format!(
            "factgate/{} (+{})",
            env!("CARGO_PKG_VERSION"),
            self.user_agent_contact_url
        )
    }
}
impl Config {
    /// The fetcher's settings: `[fetch]` and `[cache]`.
    pub fn fetch_settings(&self) -> FetchSettings {
        let f = &self.fetch;
        let c = &self.cache;
        FetchSettings {
            user_agent_contact_url: f.user_agent_contact_url.clone(),
            timeout: f.timeout(),
            connect_timeout: f.connect_timeout(),
            max_body_bytes: f.max_body_bytes,
            max_decompressed_bytes: f.max_decompressed_bytes,
            max_redirects: f.max_redirects as usize,
            max_nesting_depth: f.max_nesting_depth,
            max_html_nodes: f.max_html_nodes,
            max_text_bytes: f.max_text_bytes,
            max_document_bytes: f.max_document_bytes,
            max_pdf_pages: f.max_pdf_pages,
            max_pdf_objects: f.max_pdf_objects,
            max_pdf_stream_bytes: f.max_pdf_stream_bytes,
            max_csv_rows: f.max_csv_rows,
            allow_private_addresses: f.allow_private_addresses,
            address_allowlist: f.address_allowlist.clone(),
            per_host_rps: f.per_host_requests_per_second,
            per_host_burst: f.per_host_burst,
            global_rps: f.global_requests_per_second,
            per_host_concurrency: f.per_host_concurrency as usize,
            max_retries: f.max_retries,
            backoff_base: f.backoff_base(),
            backoff_max: f.backoff_max(),
            retry_after_max: f.retry_after_max(),
            cache_capacity_bytes: c.capacity_bytes,
            cache_ttl_ok: c.ttl_ok(),
            cache_ttl_not_found: c.ttl_not_found(),
            max_entry_bytes: c.max_entry_bytes,
        }
    }
}
