//! The article-level false-block rate: articles made only of claims annotators judged supported,
//! each citing its own page, checked as `factgate check` checks an article.
//!
//! Usage: `cargo run --release --example wice_articles -- ../shared/data/wice/dev.jsonl
//! [--articles N] [--seed S] [--strictness lenient|normal|strict]`
//!
//! From WiCE's `supported` claims, builds `N` articles (default 200) of each length from 5 to 15
//! claims, drawn without repetition within an article by a seeded generator (default seed 9).
//! Each claim is one sentence (Wikipedia's markers stripped) in a paragraph of one to three,
//! citing its own evidence page by a numbered reference (`[3]`) resolved by the article's
//! reference list. The pages are served from 127.0.0.1; each article goes through extraction,
//! fetching, judging and the decision under the strictness given (default `normal`). Every
//! article is clean, so every block is a false block.
//!
//! Prints, per length, the share of articles that block, and the claims that blocked most often
//! with the problem reported, which is where a false block comes from.

#[path = "support/wice.rs"]
mod wice;

use factgate::check::{CheckOptions, check_article};
use factgate::config::Config;
use factgate::verify::Verifier;
use factgate::verify::fetch::Fetcher;
use factgate_core::decide::Strictness;
use factgate_core::events::Outcome;
use factgate_core::judge::strip_citation_markers;
use factgate_core::model::BodyFormat;
use futures::StreamExt;
use std::collections::BTreeMap;
use std::time::Duration;
use wice::{HTTP_CONFIG, Rng, page, serve};

/// Articles checked at once.
const CONCURRENCY: usize = 8;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: wice_articles DEV.jsonl [--articles N]"))?;
    let per_length: usize = arg("--articles").map_or(Ok(200), |n| n.parse())?;
    let seed: u64 = arg("--seed").map_or(Ok(9), |n| n.parse())?;
    let strictness: Strictness = arg("--strictness")
        .map_or(Ok(Strictness::Normal), |s| s.parse())
        .map_err(|e: String| anyhow::anyhow!(e))?;
    let supported: Vec<(usize, wice::Example)> = wice::load(&path)?
        .into_iter()
        .filter(|(_, ex)| ex.label == "supported")
        .collect();

    // Every article of every length, drawn up front so the seed alone decides them.
    let mut rng = Rng::new(seed);
    let mut articles: Vec<(usize, Vec<usize>)> = Vec::new();
    for length in 5..=15 {
        for _ in 0..per_length {
            articles.push((length, rng.sample(supported.len(), length)));
        }
    }
    let config = Config::from_toml_str(HTTP_CONFIG)?;
    let runtime = tokio::runtime::Runtime::new()?;
    let outcomes = runtime.block_on(async {
        let pages: Vec<String> = supported.iter().map(|(_, ex)| page(&ex.evidence)).collect();
        let base = serve(pages).await?;
        let verifier = Verifier::new(
            Fetcher::new(config.fetch_settings())?,
            config.judge_settings(),
            None,
        );
        let options = CheckOptions {
            strictness,
            deadline: Duration::from_secs(120),
            concurrency: 16,
            limits: config.extract.limits(),
        };
        let checks = articles.iter().enumerate().map(|(n, (_, picks))| {
            let body = article(n, picks, &supported, &base, &mut Rng::new(seed ^ n as u64));
            let (verifier, options) = (&verifier, &options);
            async move {
                let checked = check_article(
                    &format!("article-{n}"),
                    1,
                    &body,
                    BodyFormat::Markdown,
                    verifier,
                    options,
                )
                .await;
                let blocked = checked.decision.outcome == Outcome::Block;
                // The claims whose issues blocked: medium or worst, under this strictness.
                let blamed: Vec<(String, String)> = checked
                    .decision
                    .report
                    .issues
                    .iter()
                    .filter(|i| i.severity >= factgate_core::model::Severity::Medium)
                    .map(|i| (i.claim.clone(), i.problem.clone()))
                    .collect();
                (blocked, blamed)
            }
        });
        let outcomes: Vec<(bool, Vec<(String, String)>)> = futures::stream::iter(checks)
            .buffered(CONCURRENCY)
            .collect()
            .await;
        anyhow::Ok(outcomes)
    })?;

    println!(
        "articles of WiCE dev supported claims, each citing its own page on 127.0.0.1; strictness {strictness:?}; seed {seed}"
    );
    println!("claims  articles  blocked  share");
    let mut by_length: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    let mut blame: BTreeMap<(String, String), usize> = BTreeMap::new();
    for ((length, _), (blocked, blamed)) in articles.iter().zip(&outcomes) {
        let entry = by_length.entry(*length).or_default();
        entry.0 += 1;
        entry.1 += usize::from(*blocked);
        for b in blamed {
            *blame.entry(b.clone()).or_default() += 1;
        }
    }
    for (length, (all, blocked)) in &by_length {
        println!(
            "{length:6}  {all:8}  {blocked:7}  {:5.1}%",
            100.0 * *blocked as f64 / *all as f64
        );
    }
    let mut blame: Vec<_> = blame.into_iter().collect();
    blame.sort_by_key(|b| std::cmp::Reverse(b.1));
    println!("issues of medium or high severity, by how many articles they blocked:");
    for ((claim, problem), count) in blame.iter().take(12) {
        println!("  {count:5}  {claim}\n         {problem}");
    }
    Ok(())
}

/// A Markdown article of the claims `picks`: paragraphs of one to three sentences, each sentence
/// citing its own page by number, and the reference list at the end.
fn article(
    n: usize,
    picks: &[usize],
    supported: &[(usize, wice::Example)],
    base: &str,
    rng: &mut Rng,
) -> String {
    let mut body = format!("# Article {n}\n\n");
    let mut references = String::from("\n## References\n\n");
    let mut in_paragraph = 0;
    let mut paragraph_size = 1 + rng.below(3);
    for (k, &i) in picks.iter().enumerate() {
        let number = k + 1;
        let text = strip_citation_markers(&supported[i].1.claim);
        let text = text.trim();
        // The marker goes before the sentence's closing punctuation: "… in 2018 [3]."
        let (sentence, stop) = match text.char_indices().last() {
            Some((at, c)) if matches!(c, '.' | '!' | '?') => (&text[..at], c),
            _ => (text, '.'),
        };
        body.push_str(&format!("{} [{number}]{stop}", sentence.trim_end()));
        in_paragraph += 1;
        if in_paragraph >= paragraph_size {
            body.push_str("\n\n");
            in_paragraph = 0;
            paragraph_size = 1 + rng.below(3);
        } else {
            body.push(' ');
        }
        references.push_str(&format!("[{number}]: {base}/wice/{i}\n"));
    }
    body.push('\n');
    body.push_str(&references);
    body
}
