//! Measures the judge's support score on labelled WiCE data.
//!
//! Usage: `cargo run --release --example wice_quality -- /work/shared/data/wice/dev.jsonl [--verbose]`
//!
//! Each line holds a Wikipedia sentence (`claim`), the sentences of the page it cites
//! (`evidence`, joined one per line as the page text) and a label: `supported`,
//! `partially_supported` or `not_supported`. Prints ROC AUC of the support score for supported
//! vs not_supported and supported vs the rest, and at the configured support threshold the share
//! of supported claims that would block and of not_supported claims caught.

use factgate::model::{CitationRule, Claim, Location, Verdict};
use factgate::verify::judge::{JudgeSettings, judge, score::roc_auc};
use serde::Deserialize;

#[derive(Deserialize)]
struct Example {
    label: String,
    claim: String,
    evidence: Vec<String>,
}

fn claim(text: &str) -> Claim {
    Claim {
        id: String::new(),
        text: text.to_string(),
        kinds: Vec::new(),
        figures: factgate::extract::figures::parse_figures(text),
        quotes: Vec::new(),
        attributed_to: None,
        location: Location {
            section: None,
            paragraph: 0,
            sentence: 0,
            span: None,
        },
        citations: Vec::new(),
        citation_rule: CitationRule::None,
        prejudgment: None,
    }
}

fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: wice_quality DEV.jsonl"))?;
    // `--verbose` lists on stderr each claim whose verdict disagrees with its label.
    let verbose = std::env::args().any(|a| a == "--verbose");
    let data = std::fs::read_to_string(&path)?;
    let settings = JudgeSettings::default();
    // (support, verdict) per label.
    let (mut sup, mut partial, mut not) = (Vec::new(), Vec::new(), Vec::new());
    for (n, line) in data
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let ex: Example = serde_json::from_str(line)
            .map_err(|e| anyhow::anyhow!("{path} line {}: {e}", n + 1))?;
        let page = ex.evidence.join("\n");
        let j = judge(&claim(&ex.claim), &page, "http://127.0.0.1/wice", &settings);
        if verbose && (ex.label == "supported") != (j.verdict == Verdict::Supported) {
            eprintln!(
                "{} {:.3} {:?} | {}\n    {}",
                ex.label,
                j.support,
                j.verdict,
                ex.claim,
                j.reasons.join("; ")
            );
        }
        let out = (j.support, j.verdict);
        match ex.label.as_str() {
            "supported" => sup.push(out),
            "partially_supported" => partial.push(out),
            "not_supported" => not.push(out),
            other => anyhow::bail!("{path} line {}: unknown label {other:?}", n + 1),
        }
    }
    let scores = |v: &[(f64, Verdict)]| v.iter().map(|x| x.0).collect::<Vec<_>>();
    let rest: Vec<(f64, Verdict)> = partial.iter().chain(&not).copied().collect();
    let not_supported_share = |v: &[(f64, Verdict)]| {
        v.iter().filter(|x| x.1 != Verdict::Supported).count() as f64 / v.len().max(1) as f64
    };
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
        "  supported claims that would block:   {:.1}%",
        100.0 * not_supported_share(&sup)
    );
    println!(
        "  not_supported claims caught:         {:.1}%",
        100.0 * not_supported_share(&not)
    );
    println!(
        "  partially_supported claims caught:   {:.1}%",
        100.0 * not_supported_share(&partial)
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
