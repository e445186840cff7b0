//! Measures the judge's support score on labelled WiCE data.
//!
//! Usage: `cargo run --release --example wice_quality -- /work/shared/data/wice/dev.jsonl [--verbose] [--http]`
//!
//! With `--http` the whole verification path is measured: each evidence list is served as an
//! HTML page by a server on 127.0.0.1, each claim cites its page, and the [`Verifier`] fetches,
//! reduces the HTML to text and judges, as `factgate check` does. Without it the judge runs
//! directly on the evidence joined as text. Both modes judge the same claim (Wikipedia's citation
//! markers stripped, with the quotes and kinds `text::cues::analyze` finds) and count a
//! claim as blocking the same way, so their figures differ only by what the HTML round trip
//! changes.
//!
//! Each line holds a Wikipedia sentence (`claim`), the sentences of the page it cites
//! (`evidence`, joined one per line as the page text) and a label: `supported`,
//! `partially_supported` or `not_supported`. Prints ROC AUC of the support score for supported
//! vs not_supported and supported vs the rest, and at the configured support threshold the share
//! of supported claims that would block and of not_supported claims caught.

#[path = "support/wice.rs"]
mod wice;

use factgate::config::Config;
use factgate::verify::Verifier;
use factgate::verify::fetch::Fetcher;
use factgate_core::events::{ClaimResult, FetchStatus};
use factgate_core::judge::{JudgeSettings, Judgment, judge, score::roc_auc};
use factgate_core::model::{Severity, Verdict};
use futures::StreamExt;
use wice::{Example, HTTP_CONFIG, cited_claim, page, serve};

fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: wice_quality DEV.jsonl"))?;
    // `--verbose` lists on stderr each claim whose verdict disagrees with its label.
    let verbose = std::env::args().any(|a| a == "--verbose");
    let examples = wice::load(&path)?;
    if std::env::args().any(|a| a == "--http") {
        return run_http(&path, &examples, verbose);
    }
    if std::env::args().any(|a| a == "--sweep") {
        return sweep(&examples);
    }
    let settings = JudgeSettings::default();
    let mut runs = Runs::default();
    for (line, ex) in &examples {
        // The same claim the http mode checks, with the detector's quotes and kinds, judged on
        // the page text the http mode would read.
        let j = judge_example(*line, ex, &settings);
        let blocks = blocks(&j);
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

/// `--sweep`: for a range of support thresholds, the share of supported claims that would block
/// and of not_supported claims caught, to choose `judge.support_threshold` on this split.
/// The judgment of an example's claim, cited as the http mode cites it, on its evidence.
fn judge_example(line: usize, ex: &Example, settings: &JudgeSettings) -> Judgment {
    let url = "http://127.0.0.1/wice";
    judge(
        &cited_claim(line, &ex.claim, url),
        &ex.evidence.join("\n"),
        url,
        settings,
    )
}

/// Whether a judgment blocks the article under the normal policy.
fn blocks(j: &Judgment) -> bool {
    j.verdict != Verdict::Supported || j.severity >= Some(Severity::Medium)
}

fn sweep(examples: &[(usize, Example)]) -> anyhow::Result<()> {
    println!("threshold  supported_block  not_supported_caught  partial_caught");
    for step in 2..=20 {
        let threshold = f64::from(step) / 100.0;
        let settings = JudgeSettings {
            support_threshold: threshold,
            ..JudgeSettings::default()
        };
        let (mut counts, mut blocked) = ([0usize; 3], [0usize; 3]);
        for (line, ex) in examples {
            let j = judge_example(*line, ex, &settings);
            let blocks = blocks(&j);
            let k = match ex.label.as_str() {
                "supported" => 0,
                "not_supported" => 1,
                _ => 2,
            };
            counts[k] += 1;
            blocked[k] += usize::from(blocks);
        }
        let share = |k: usize| 100.0 * blocked[k] as f64 / counts[k].max(1) as f64;
        println!(
            "{threshold:9.2}  {:14.1}%  {:19.1}%  {:13.1}%",
            share(0),
            share(1),
            share(2)
        );
    }
    Ok(())
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
        "at support_threshold {:.2} (unconfirmed_medium_below {:.3}):",
        settings.support_threshold, settings.unconfirmed_medium_below
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
            async move { verifier.verify_claim("wice", 0, &claim, &url).await }
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
