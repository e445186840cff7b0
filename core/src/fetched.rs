//! What a fetch can end in. Every outcome is data the judge acts on; only faults in setting the
//! fetcher up are errors (the service's `verify::fetch::FetchError`).

use std::net::IpAddr;
use std::time::Duration;

/// A page fetched and reduced to text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The URL the content came from, after redirects.
    pub final_url: String,
    /// The HTTP status of the final response (a 2xx).
    pub status: u16,
    /// The media type, lower-cased, without parameters (e.g. `text/html`).
    pub content_type: String,
    /// The visible text: for HTML, blocks separated by blank lines; for text/plain, as sent;
    /// for a PDF, its pages' text; for a CSV file, its rows as table sentences.
    pub text: String,
    /// The HTML `<title>`, or a PDF's title, when there is one.
    pub title: Option<String>,
    /// The schema.org `ClaimReview`s an HTML page carries: a fact-check's ratings.
    pub claim_reviews: Vec<crate::text::webpage::ClaimReview>,
    /// The page's masthead, footer, asides and site name as text
    /// (`webpage::HtmlText::furniture`): what tells whether the page names something at all.
    pub furniture: String,
    /// For a document of pages (a PDF), the char offset in `text` where each page starts, page 1
    /// first; empty for a web page. What lets evidence name the page it is on.
    pub page_starts: Vec<usize>,
}

impl Page {
    /// The 1-based page of a document holding char offset `at` of the text; `None` for a
    /// page that is not a document of pages.
    pub fn page_of(&self, at: usize) -> Option<u32> {
        (!self.page_starts.is_empty()).then(|| crate::text::pdf::page_of(&self.page_starts, at))
    }
}

/// How a fetch ended. [`FetchClass`] names its kind without the details.
#[derive(Debug, Clone, PartialEq, Eq, strum::EnumDiscriminants)]
#[strum_discriminants(
    name(FetchClass),
    doc = "The kind of a [`FetchOutcome`], without its details: the `status` label of `factgate_fetches_total` and the `status_class` of the fetch logs.",
    derive(strum::IntoStaticStr, strum::EnumIter),
    strum(serialize_all = "snake_case")
)]
pub enum FetchOutcome {
    /// The page was fetched and read.
    Ok(Page),
    /// 404 or 410: the citation is dead.
    NotFound {
        /// 404 or 410.
        status: u16,
    },
    /// 401 or 403: the source will not show itself to us.
    Forbidden {
        /// 401 or 403.
        status: u16,
    },
    /// A page served as a success that is not a source: an error page (a soft 404) or a site
    /// search's results (see `webpage::not_a_source`). The citation does not lead to what it
    /// cites, as a dead link does not.
    NotASource {
        /// The status it was served with (a 2xx).
        status: u16,
        /// An error page or search results.
        kind: crate::text::webpage::NotASourceKind,
        /// What gave it away: the title or heading, `noindex`, the schema.org type, the query.
        marker: String,
    },
    /// 402, or a page whose markup or text shows a paywall (see `content::paywall_marker`).
    Paywalled {
        /// The marker that gave the paywall away (`"HTTP 402"`, a class name or a phrase).
        marker: String,
    },
    /// 429 after all retries.
    RateLimited {
        /// The last Retry-After the server sent, when it sent one.
        retry_after: Option<Duration>,
    },
    /// A 5xx after all retries.
    ServerError {
        /// The status code.
        status: u16,
        /// The last Retry-After the server sent, when it sent one (often with 503).
        retry_after: Option<Duration>,
    },
    /// A status none of the other outcomes covers (e.g. 400, or a 3xx without a Location).
    UnexpectedStatus {
        /// The status code.
        status: u16,
    },
    /// The total time cap (or an attempt's connect timeout, after all retries) ran out.
    Timeout,
    /// The body, declared or streamed, or its decompressed size, went over its cap.
    TooLarge {
        /// The cap that was exceeded, in bytes.
        limit: u64,
    },
    /// The fetcher's safety policy refused the URL, an address it resolved to, or a redirect.
    RefusedByPolicy(RefusalReason),
    /// A content type (or content encoding) the judge cannot read, such as an image, or an HTML
    /// page past a cap of its own.
    UnsupportedContent {
        /// The media type or encoding as sent, with what refused it (`"text/html of more nodes
        /// than fetch.max_html_nodes (200000)"`).
        content_type: String,
    },
    /// A source served as a success that could not be read: a PDF refused (encrypted, scanned,
    /// past a cap, damaged), a data file past its caps, a spreadsheet, a page whose text its
    /// scripts render. Like an unsupported content type it leaves the source unjudged; unlike
    /// one, it says why in words an editor can act on, and what to cite instead.
    Unreadable {
        /// Why, in words: "the PDF is scanned images with no text layer".
        reason: String,
        /// What to cite instead: "cite a text version of the document".
        advice: &'static str,
    },
    /// The connection failed or the response was malformed.
    NetworkError {
        /// What went wrong, without the URL.
        reason: String,
    },
}

impl FetchOutcome {
    /// A low-cardinality name for logs and metric labels: its [`FetchClass`]'s.
    pub fn class(&self) -> &'static str {
        FetchClass::from(self).into()
    }
}

/// Why the safety policy refused a fetch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefusalReason {
    /// Only http and https are fetched.
    #[error("scheme {0:?} is not http or https")]
    Scheme(String),
    /// The URL could not be parsed or has no host.
    #[error("invalid URL: {0}")]
    InvalidUrl(String),
    /// The address is in a range that is refused unless allowlisted.
    #[error("address {address} is {range}")]
    Address {
        /// The refused address.
        address: IpAddr,
        /// The range it falls in, e.g. "private", "cloud metadata".
        range: &'static str,
    },
    /// The name resolved to no address at all after refused ones were removed.
    #[error("{host} resolves only to refused addresses")]
    NoAllowedAddress {
        /// The host name.
        host: String,
    },
    /// More redirects than `max_redirects`.
    #[error("more than {max} redirects")]
    TooManyRedirects {
        /// The cap.
        max: usize,
    },
    /// A redirect pointed back to a URL already visited.
    #[error("redirect loop")]
    RedirectLoop,
}

impl RefusalReason {
    /// The setting that would let this fetch through, when one would: the allowlist for an
    /// address, the redirect cap for a long chain. `None` for what no setting allows (another
    /// scheme, a malformed URL, a redirect loop).
    pub fn allowed_by(&self) -> Option<&'static str> {
        match self {
            Self::Address { .. } | Self::NoAllowedAddress { .. } => Some("fetch.address_allowlist"),
            Self::TooManyRedirects { .. } => Some("fetch.max_redirects"),
            Self::Scheme(_) | Self::InvalidUrl(_) | Self::RedirectLoop => None,
        }
    }

    /// What was refused, for a reader: "loopback address 127.0.0.1", "more than 5 redirects".
    pub fn what(&self) -> String {
        match self {
            Self::Address { address, range } => format!("{range} address {address}"),
            other => other.to_string(),
        }
    }

    /// A low-cardinality name for logs and metric labels.
    pub fn class(&self) -> &'static str {
        match self {
            Self::Scheme(_) => "scheme",
            Self::InvalidUrl(_) => "invalid_url",
            Self::Address { .. } | Self::NoAllowedAddress { .. } => "address",
            Self::TooManyRedirects { .. } => "too_many_redirects",
            Self::RedirectLoop => "redirect_loop",
        }
    }
}
