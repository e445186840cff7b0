//! The HTTP client and what one response means: building the client with the safety settings,
//! and turning a response into a [`FetchOutcome`] (a transport error is [`classify`]'s).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use reqwest::header::{self, HeaderMap, HeaderValue};
use url::Url;

use super::FetchError;
use super::body;
use super::classify;
use super::policy::PolicyResolver;
use super::settings::FetchSettings;
use factgate_core::fetched::{FetchOutcome, Page};
use factgate_core::text::webpage::{self, TextKind};

/// Builds the HTTP client: honest User-Agent, no automatic redirects (the fetcher follows them
/// and checks each hop), no proxy (a proxy would connect on our behalf to addresses the policy
/// never saw), the policy-enforcing resolver, and no transparent decompression (see [`body`]).
///
/// # Errors
/// [`FetchError::BuildClient`] when reqwest cannot build it (e.g. TLS setup fails).
pub fn build(settings: &Arc<FetchSettings>) -> Result<reqwest::Client, FetchError> {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::ACCEPT_ENCODING,
        HeaderValue::from_static(body::ACCEPT_ENCODING),
    );
    headers.insert(
        header::ACCEPT,
        HeaderValue::from_static("text/html, application/xhtml+xml, text/plain;q=0.9, */*;q=0.1"),
    );
    reqwest::Client::builder()
        .user_agent(settings.user_agent())
        .default_headers(headers)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .dns_resolver(PolicyResolver::new(Arc::clone(settings)))
        .connect_timeout(settings.connect_timeout)
        .build()
        .map_err(FetchError::BuildClient)
}

/// The Location of a redirect response, resolved against `current`; `None` when the response is
/// not a redirect. `Some(Err)` when the Location is unusable.
pub fn redirect_target(response: &reqwest::Response, current: &Url) -> Option<Result<Url, String>> {
    if !matches!(response.status().as_u16(), 301 | 302 | 303 | 307 | 308) {
        return None;
    }
    let location = response.headers().get(header::LOCATION)?;
    Some(
        location
            .to_str()
            .map_err(|_| "redirect Location is not text".to_owned())
            .and_then(|l| {
                current
                    .join(l)
                    .map_err(|e| format!("redirect Location: {e}"))
            }),
    )
}

/// Reads a final (non-redirect) response into an outcome.
pub async fn read_response(
    response: reqwest::Response,
    url: &Url,
    settings: &FetchSettings,
) -> FetchOutcome {
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get(header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(classify::parse_retry_after);
    if let Some(outcome) = classify::outcome_for_status(status, retry_after) {
        return outcome;
    }
    let (media_type, charset) = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(webpage::parse_content_type)
        .unwrap_or_default();
    let Some(kind) = webpage::text_kind(&media_type) else {
        return FetchOutcome::UnsupportedContent {
            content_type: if media_type.is_empty() {
                "(none)".to_owned()
            } else {
                media_type
            },
        };
    };
    let bytes = match body::read(response, settings).await {
        Ok(bytes) => bytes,
        Err(outcome) => return outcome,
    };
    let final_url = url.to_string();
    let limits = PageLimits {
        max_depth: settings.max_nesting_depth,
        max_nodes: settings.max_html_nodes,
        max_text_bytes: settings.max_text_bytes,
    };
    // Decoding and parsing a page of megabytes is CPU work: it runs on the bounded parsing
    // pool, and stops as soon as the fetch's time is up (this future is then dropped).
    let parsed = crate::parse_pool::run_bounded(move |cancel| {
        to_outcome(
            bytes, charset, kind, media_type, final_url, status, limits, cancel,
        )
    })
    .await;
    parsed.unwrap_or_else(|err| FetchOutcome::NetworkError {
        reason: format!("content could not be parsed: {err}"),
    })
}

/// The bounds on a page: `fetch.max_nesting_depth`, `fetch.max_html_nodes`,
/// `fetch.max_text_bytes`.
#[derive(Debug, Clone, Copy)]
struct PageLimits {
    max_depth: usize,
    max_nodes: usize,
    max_text_bytes: u64,
}

#[allow(clippy::too_many_arguments)] // one response's parts, passed across a thread boundary
fn to_outcome(
    bytes: Vec<u8>,
    charset: Option<String>,
    kind: TextKind,
    content_type: String,
    final_url: String,
    status: u16,
    limits: PageLimits,
    cancel: &AtomicBool,
) -> FetchOutcome {
    use factgate_core::text::markup::{self, Stopped, TooLarge};
    let refused = |what: String| FetchOutcome::UnsupportedContent {
        content_type: format!("{content_type} {what}"),
    };
    // The body's bytes become the text's when they are UTF-8 already (most pages): one copy of
    // the page in memory, not two.
    let decoded = webpage::decode_owned(bytes, charset.as_deref(), kind);
    let (title, text, paywall_markup, claim_reviews, furniture) = match kind {
        TextKind::Html => {
            // A tree costs time that grows with its depth and memory that grows with its nodes:
            // a page nested too deep, or plainly of too many nodes, is not built (a linear scan
            // says so first), and a build that passes the node budget all the same (elements
            // the parser reconstructs) is stopped. Either leaves the source unjudged.
            match markup::check_html_shape(&decoded, limits.max_depth, limits.max_nodes) {
                Ok(()) => {}
                Err(TooLarge::Deep(too_deep)) => {
                    return refused(format!(
                        "nested deeper than fetch.max_nesting_depth ({} levels)",
                        too_deep.limit
                    ));
                }
                Err(TooLarge::Nodes(too_many)) => {
                    return refused(format!(
                        "of more nodes than fetch.max_html_nodes ({})",
                        too_many.limit
                    ));
                }
            }
            // The markup's paywall marker is looked for now, so the markup can go as soon as
            // the tree holds the page: it is not kept beside the tree and the text.
            let paywall_markup = webpage::paywall_marker(Some(&decoded), "");
            let parsed = markup::parse_html_bounded(&decoded, cancel, limits.max_nodes);
            drop(decoded);
            let document = match parsed {
                Ok(document) => document,
                // Cancelled: the fetch's time ran out and no one awaits this any more.
                Err(Stopped::Cancelled(_)) => return FetchOutcome::Timeout,
                Err(Stopped::TooManyNodes(too_many)) => {
                    return refused(format!(
                        "of more nodes than fetch.max_html_nodes ({})",
                        too_many.limit
                    ));
                }
            };
            // The judge indexes what a page says, at many times its size: a page with more to
            // read than `fetch.max_text_bytes` is not judged (its source is unjudged), and the
            // reading stops as soon as it is sure to be longer.
            let max_text = usize::try_from(limits.max_text_bytes).unwrap_or(usize::MAX);
            let Ok(page) = webpage::document_to_text_within(&document, max_text) else {
                return refused(format!(
                    "with more text than fetch.max_text_bytes ({} bytes)",
                    limits.max_text_bytes
                ));
            };
            if let Some(found) = webpage::not_a_source(&document, &page, &final_url) {
                return FetchOutcome::NotASource {
                    status,
                    kind: found.kind,
                    marker: found.marker,
                };
            }
            // The title names the page too: it goes with the furniture.
            let furniture = match &page.title {
                Some(title) => format!("{title}\n{}", page.furniture),
                None => page.furniture,
            };
            (
                page.title,
                page.text,
                paywall_markup,
                page.claim_reviews,
                furniture,
            )
        }
        TextKind::Plain => (None, decoded, None, Vec::new(), String::new()),
    };
    // A text/plain page is its text, under the same cap.
    if text.len() as u64 > limits.max_text_bytes {
        return refused(format!(
            "with more text than fetch.max_text_bytes ({} bytes)",
            limits.max_text_bytes
        ));
    }
    if let Some(marker) = paywall_markup.or_else(|| webpage::paywall_marker(None, &text)) {
        return FetchOutcome::Paywalled { marker };
    }
    // A page with no visible text (a script-rendered shell, an empty body) cannot be judged. As
    // a page it would only be "inconclusive, medium", which a lenient policy lets through; as
    // content the judge cannot read it leaves the source unjudged, which blocks at every
    // strictness.
    if text.trim().is_empty() {
        return FetchOutcome::UnsupportedContent {
            content_type: format!("{content_type} with no visible text"),
        };
    }
    FetchOutcome::Ok(Page {
        final_url,
        status,
        content_type,
        text,
        title,
        claim_reviews,
        furniture,
    })
}
