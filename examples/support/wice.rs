//! What the WiCE examples share: reading the data, serving evidence lists as pages on
//! 127.0.0.1, the claim as an article cites it, and a small deterministic random generator.

#![allow(dead_code)]

use factgate_core::judge::strip_citation_markers;
use factgate_core::model::{Citation, CitationRule, CitationStyle, Claim, Location};
use serde::Deserialize;
use std::sync::Arc;

/// One line of WiCE.
#[derive(Debug, Clone, Deserialize)]
pub struct Example {
    pub label: String,
    pub claim: String,
    pub evidence: Vec<String>,
}

/// Reads a WiCE JSON Lines file: (line number, example).
pub fn load(path: &str) -> anyhow::Result<Vec<(usize, Example)>> {
    let data = std::fs::read_to_string(path)?;
    let mut examples = Vec::new();
    for (n, line) in data.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let ex: Example = serde_json::from_str(line)
            .map_err(|e| anyhow::anyhow!("{path} line {}: {e}", n + 1))?;
        examples.push((n + 1, ex));
    }
    Ok(examples)
}

/// The claim as an article would cite it: Wikipedia's markers stripped, read by the detector,
/// citing `url`.
pub fn cited_claim(line: usize, text: &str, url: &str) -> Claim {
    let text = strip_citation_markers(text);
    let features = factgate_core::text::cues::analyze(&text);
    Claim {
        id: format!("wice-{line}"),
        kinds: features.kinds,
        figures: factgate_core::text::figures::parse_figures(&text),
        quotes: features.quotes,
        attributed_to: features.attributed_to,
        location: Location {
            section: None,
            paragraph: line,
            sentence: 0,
            span: None,
            block: None,
        },
        citations: vec![Citation {
            url: url.to_owned(),
            style: CitationStyle::InlineLink,
            label: None,
            paragraph: None,
        }],
        citation_rule: CitationRule::SameSentence,
        prejudgment: None,
        unbacked: None,
        text,
    }
}

/// An evidence list as an HTML page, one `<p>` per sentence.
pub fn page(evidence: &[String]) -> String {
    let mut html = String::from(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Source</title></head><body>\n",
    );
    for sentence in evidence {
        html.push_str("<p>");
        html.push_str(&escape(sentence));
        html.push_str("</p>\n");
    }
    html.push_str("</body></html>\n");
    html
}

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Serves `pages` at /wice/{index} on 127.0.0.1 and returns the base URL.
pub async fn serve(pages: Vec<String>) -> anyhow::Result<String> {
    use axum::extract::{Path, State};
    use axum::http::StatusCode;
    use axum::response::{Html, IntoResponse, Response};

    async fn one(State(pages): State<Arc<Vec<String>>>, Path(n): Path<usize>) -> Response {
        match pages.get(n) {
            Some(page) => Html(page.clone()).into_response(),
            None => StatusCode::NOT_FOUND.into_response(),
        }
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    let app = axum::Router::new()
        .route("/wice/{n}", axum::routing::get(one))
        .with_state(Arc::new(pages));
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(format!("http://127.0.0.1:{port}"))
}

/// The configuration of the examples that fetch: only the local evidence server may be fetched,
/// and the limits are generous so they measure the path, not the politeness towards one host.
pub const HTTP_CONFIG: &str = r#"
[fetch]
address_allowlist = ["127.0.0.1/32"]
per_host_requests_per_second = 10000.0
per_host_burst = 10000
global_requests_per_second = 10000.0
per_host_concurrency = 64
"#;

/// A small deterministic generator (xorshift64*), so the same seed builds the same articles and
/// edits on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// `k` distinct indices of `0..n`, in the order drawn.
    pub fn sample(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut pool: Vec<usize> = (0..n).collect();
        let mut out = Vec::with_capacity(k);
        for _ in 0..k.min(n) {
            let i = self.below(pool.len());
            out.push(pool.swap_remove(i));
        }
        out
    }
}
