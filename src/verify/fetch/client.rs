//! The HTTP client and what one response means: building the client with the safety settings,
//! and turning a response into a [`FetchOutcome`] (a transport error is [`classify`]'s, the
//! reading of a body [`content`]'s).

use std::sync::Arc;

use reqwest::header::{self, HeaderMap, HeaderValue};
use url::Url;

use super::FetchError;
use super::body::{self, BodyCaps};
use super::classify;
use super::content::{self, Reading};
use super::policy::PolicyResolver;
use super::settings::FetchSettings;
use factgate_core::fetched::FetchOutcome;
use factgate_core::text::webpage;

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
        HeaderValue::from_static(
            "text/html, application/xhtml+xml, text/plain;q=0.9, application/pdf;q=0.8, \
             text/csv;q=0.8, */*;q=0.1",
        ),
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

/// Reads a final (non-redirect) response into an outcome: its status, then its body within the
/// caps of what it is (a page or a document, [`content::body_kind`]), read to text on the
/// bounded parsing pool.
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
    let kind = match content::body_kind(&media_type, url) {
        Ok(kind) => kind,
        Err(outcome) => return *outcome,
    };
    let caps = if kind.is_document() {
        BodyCaps::document(settings)
    } else {
        BodyCaps::page(settings)
    };
    let bytes = match body::read(response, caps).await {
        Ok(bytes) => bytes,
        Err(outcome) => return outcome,
    };
    let reading = Reading {
        content_type: media_type,
        charset,
        final_url: url.to_string(),
        status,
        max_depth: settings.max_nesting_depth,
        max_nodes: settings.max_html_nodes,
        max_text_bytes: settings.max_text_bytes,
        pdf: settings.pdf_limits(),
        csv: settings.csv_limits(),
    };
    // Decoding and parsing a page of megabytes, or a document, is CPU work: it runs on the
    // bounded parsing pool, and stops as soon as the fetch's time is up (this future is then
    // dropped).
    let parsed =
        crate::parse_pool::run_bounded(move |cancel| reading.outcome(bytes, kind, cancel)).await;
    parsed.unwrap_or_else(|err| FetchOutcome::NetworkError {
        reason: format!("content could not be parsed: {err}"),
    })
}
