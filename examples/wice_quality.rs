//! Measures the judge's support score on labelled WiCE data.
//!
//! Usage: `cargo run --release --example wice_quality -- /work/shared/data/wice/dev.jsonl [--verbose] [--http]`
//!
//! With `--http` the whole verification path is measured: each evidence list is served as an
//! HTML page by a server on 127.0.0.1, each claim cites its page, and the [`Verifier`] fetches,
//! reduces the HTML to text and judges, as `factgate check` does. Without it the judge runs
//! directly on the evidence joined as text. Both modes judge the same claim (Wikipedia's citation
//! markers stripped, with the quotes and kinds `extract::detect::analyze` finds) and count a
//! claim as blocking the same way, so their figures differ only by what the HTML round trip
//! changes.
//!
//! Each line holds a Wikipedia sentence (`claim`), the sentences of the page it cites
//! (`evidence`, joined one per line as the page text) and a label: `supported`,
//! `partially_supported` or `not_supported`. Prints ROC AUC of the support score for supported
//! vs not_supported and supported vs the rest, and at the configured support threshold the share
//! of supported claims that would block and of not_supported claims caught.

use factgate::config::Config;
use factgate::events::{ClaimResult, FetchStatus};
use factgate::model::{Citation, CitationRule, CitationStyle, Claim, Location, Severity, Verdict};
use factgate::verify::Verifier;
use factgate::verify::fetch::Fetcher;
use factgate::verify::judge::{JudgeSettings, judge, score::roc_auc, strip_citation_markers};
use futures::StreamExt;
use serde::Deserialize;
use std::sync::Arc;

#[derive(Deserialize)]
struct Example {
    label: String,
    claim: String,
    evidence: Vec<String>,
}

fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: wice_quality DEV.jsonl"))?;
    // `--verbose` lists on stderr each claim whose verdict disagrees with its label.
    let verbose = std::env::args().any(|a| a == "--verbose");
    let data = std::fs::read_to_string(&path)?;
    let mut examples = Vec::new();
    for (n, line) in data.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let ex: Example = serde_json::from_str(line)
            .map_err(|e| anyhow::anyhow!("{path} line {}: {e}", n + 1))?;
        examples.push((n + 1, ex));
    }
    if std::env::args().any(|a| a == "--http") {
        return run_http(&path, &examples, verbose);
    }
    let settings = JudgeSettings::default();
    let mut runs = Runs::default();
    for (line, ex) in &examples {
        // The same claim the http mode checks, with the detector's quotes and kinds, judged on
        // the page text the http mode would read.
        let url = "http://127.0.0.1/wice";
        let j = judge(
            &cited_claim(*line, &ex.claim, url),
            &ex.evidence.join("\n"),
            url,
            &settings,
        );
        let blocks = j.verdict != Verdict::Supported || j.severity >= Some(Severity::Medium);
        if verbose && (ex.label == "supported") == blocks {
            eprintln!(
                "line {line}: {} {:.3} {:?} | {}\n    {}",
                ex.label,
                j.support,
                j.verdict,
                ex.claim,
                j.problem
                    .iter()
                    .chain(&j.reasons)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("; ")
            );
        }
        runs.record(&path, *line, &ex.label, j.support, blocks)?;
    }
    print_figures(
        "mode: direct (the judge on each evidence list joined as text)",
        runs,
        &settings,
    )
}

/// (support, blocks) per label.
#[derive(Default)]
struct Runs {
    supported: Vec<(f64, bool)>,
    partial: Vec<(f64, bool)>,
    not: Vec<(f64, bool)>,
}

impl Runs {
    fn record(
        &mut self,
        path: &str,
        line: usize,
        label: &str,
        support: f64,
        blocks: bool,
    ) -> anyhow::Result<()> {
        let out = (support, blocks);
        match label {
            "supported" => self.supported.push(out),
            "partially_supported" => self.partial.push(out),
            "not_supported" => self.not.push(out),
            other => anyhow::bail!("{path} line {line}: unknown label {other:?}"),
        }
        Ok(())
    }
}

/// Prints the figures of a run. "Would block" counts the claims the decision would block: a
/// verdict other than supported or an issue of medium or high severity (and, over http, a source
/// left unjudged).
fn print_figures(mode: &str, runs: Runs, settings: &JudgeSettings) -> anyhow::Result<()> {
    let Runs {
        supported: sup,
        partial,
        not,
    } = runs;
    println!("{mode}");
    let scores = |v: &[(f64, bool)]| v.iter().map(|x| x.0).collect::<Vec<_>>();
    let rest: Vec<(f64, bool)> = partial.iter().chain(&not).copied().collect();
    let blocked_share =
        |v: &[(f64, bool)]| v.iter().filter(|x| x.1).count() as f64 / v.len().max(1) as f64;
    let fmt = |a: Option<f64>| a.map_or("n/a".to_string(), |a| format!("{a:.3}"));
    println!(
        "claims: {} supported, {} partially_supported, {} not_supported",
        sup.len(),
        partial.len(),
        not.len()
    );
    println!(
        "ROC AUC supported vs not_supported: {}",
        fmt(roc_auc(&scores(&sup), &scores(&not)))
    );
    println!(
        "ROC AUC supported vs rest:          {}",
        fmt(roc_auc(&scores(&sup), &scores(&rest)))
    );
    println!(
        "at support_threshold {:.2} (refute_threshold {:.2}):",
        settings.support_threshold, settings.refute_threshold
    );
    println!(
        "  supported claims that would block:   {:.1}% ({} of {})",
        100.0 * blocked_share(&sup),
        sup.iter().filter(|x| x.1).count(),
        sup.len()
    );
    println!(
        "  not_supported claims caught:         {:.1}%",
        100.0 * blocked_share(&not)
    );
    println!(
        "  partially_supported claims caught:   {:.1}%",
        100.0 * blocked_share(&partial)
    );
    let mut s = scores(&sup);
    s.sort_by(f64::total_cmp);
    if !s.is_empty() {
        println!(
            "  supported score quantiles: p1 {:.3}, p5 {:.3}, p10 {:.3}",
            s[s.len() / 100],
            s[s.len() * 5 / 100],
            s[s.len() / 10]
        );
    }
    Ok(())
}

/// The configuration of the `--http` mode: only the local evidence server may be fetched, and
/// the limits are generous so they measure the path, not the politeness towards one host.
const HTTP_CONFIG: &str = r#"
[fetch]
address_allowlist = ["127.0.0.1/32"]
per_host_requests_per_second = 10000.0
per_host_burst = 10000
global_requests_per_second = 10000.0
per_host_concurrency = 64
"#;
/// Checks run at once in the `--http` mode (as `factgate check` runs them).
const HTTP_CONCURRENCY: usize = 16;

/// `--http`: serves each evidence list as a page, checks each claim against its page with the
/// [`Verifier`], and prints the same figures as the direct mode. A claim "would block" as the
/// decision would block it: a verdict other than supported, a medium or high issue, or a source
/// left unjudged.
fn run_http(path: &str, examples: &[(usize, Example)], verbose: bool) -> anyhow::Result<()> {
    let config = Config::from_toml_str(HTTP_CONFIG)?;
    let settings = config.judge_settings();
    let runtime = tokio::runtime::Runtime::new()?;
    let results = runtime.block_on(async {
        let pages: Vec<String> = examples.iter().map(|(_, ex)| page(&ex.evidence)).collect();
        let base = serve(pages).await?;
        let verifier = Verifier::new(
            Fetcher::new(config.fetch_settings())?,
            config.judge_settings(),
            None,
        );
        let checks = examples.iter().enumerate().map(|(i, (line, ex))| {
            let verifier = &verifier;
            let url = format!("{base}/wice/{i}");
            let claim = cited_claim(*line, &ex.claim, &url);
            async move { verifier.check("wice", 0, &claim, &url).await }
        });
        let results: Vec<ClaimResult> = futures::stream::iter(checks)
            .buffered(HTTP_CONCURRENCY)
            .collect()
            .await;
        anyhow::Ok(results)
    })?;

    let mut runs = Runs::default();
    let mut unread = 0;
    for ((line, ex), r) in examples.iter().zip(&results) {
        let blocks = r.verdict != Verdict::Supported
            || r.issue
                .as_ref()
                .is_some_and(|i| i.severity >= Severity::Medium)
            || FetchStatus::leaves_source_unjudged(r.fetch_status);
        if r.fetch_status != FetchStatus::Ok {
            unread += 1;
            eprintln!("line {line}: source not read: {}", r.reason);
        }
        if verbose && (ex.label == "supported") == blocks {
            eprintln!(
                "line {line}: {} {:.3} {:?} | {}\n    {}",
                ex.label, r.support, r.verdict, ex.claim, r.reason
            );
        }
        runs.record(path, *line, &ex.label, r.support, blocks)?;
    }
    let mode = format!(
        "mode: http (each evidence list served as a page on 127.0.0.1, fetched and judged by the \
         Verifier; {} pages read, {unread} not)",
        results.len() - unread
    );
    print_figures(&mode, runs, &settings)
}

/// The claim as an article would cite it: Wikipedia's markers stripped, read by the detector,
/// citing `url`.
fn cited_claim(line: usize, text: &str, url: &str) -> Claim {
    let text = strip_citation_markers(text);
    let features = factgate::extract::detect::analyze(&text);
    Claim {
        id: format!("wice-{line}"),
        kinds: features.kinds,
        figures: factgate::extract::figures::parse_figures(&text),
        quotes: features.quotes,
        attributed_to: features.attributed_to,
        location: Location {
            section: None,
            paragraph: line,
            sentence: 0,
            span: None,
        },
        citations: vec![Citation {
            url: url.to_owned(),
            style: CitationStyle::InlineLink,
            label: None,
        }],
        citation_rule: CitationRule::SameSentence,
        prejudgment: None,
        text,
    }
}

/// An evidence list as an HTML page, one `<p>` per sentence.
fn page(evidence: &[String]) -> String {
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

fn escape(text: &str) -> String {
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
async fn serve(pages: Vec<String>) -> anyhow::Result<String> {
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
