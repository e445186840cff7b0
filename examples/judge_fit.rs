//! Fits what turns an unconfirmed claim into a block, on WiCE dev with cross-validation, and
//! reports the held-out folds apart from the in-sample figures.
//!
//! Usage: `cargo run --release --example judge_fit -- ../shared/data/wice/dev.jsonl
//! [--news SET] [--write] [--folds K] [--seeds N] [--target-block P] [--verbose]`
//!
//! Each claim is judged once against its evidence, as `wice_quality` judges it. A judgment blocks
//! under `normal` either by a rule (a contradiction the source states, a fact-check's rating, a
//! figure the page never gives…), which no fitted number decides, or because the source does not
//! clearly state the claim: an *unconfirmed* claim is medium (and blocks) only when its
//! calibrated probability of being supported is below a threshold, else low (listed for review).
//! Two things are fitted: the calibration (Platt scaling of the raw support score) and that
//! threshold, chosen as the highest one at which at most `--target-block` (default 1%) of the
//! training folds' supported claims block in all.
//!
//! `--news SET` adds a second constraint: the cited statements of the clean articles of a set of
//! hand-written cases (`tests/fixtures/claims/SET`, e.g. `blind-dev`), judged against the pages
//! they cite. WiCE's claims are Wikipedia sentences that follow their pages closely; news copy
//! paraphrases its sources, so a threshold that blocks few supported WiCE claims can block many
//! clean news statements. With `--news`, the threshold is also at most the one at which
//! `--target-block` of those statements block. The set is development material: the held-out
//! check of the result is the `blind-test` set, measured by `cases_eval`.
//!
//! Held-out figures: the claims are split in K folds (default 5) stratified by label, over N
//! seeds (default 4); each fold is judged with what was fitted on the others. Printed per fold
//! and pooled: supported claims that block, not_supported and partially_supported claims caught,
//! ROC AUC of the calibrated probability (supported vs not_supported, and vs the rest), and the
//! share of clean 5- and 10-claim articles that would block, articles drawn from the held-out
//! outcomes of supported claims. With `--write`, the calibration and threshold fitted on every
//! claim are written to `core/src/judge/calibration.json`.

#[path = "../tests/support/cases.rs"]
mod cases;
#[path = "support/wice.rs"]
mod wice;

use factgate_core::judge::calibration::{Calibration, fit_platt, platt_points};
use factgate_core::judge::score::roc_auc;
use factgate_core::judge::{JudgeSettings, Judgment, judge};
use factgate_core::model::{Severity, Verdict};
use wice::{Rng, cited_claim};

const TABLE_PATH: &str = "core/src/judge/calibration.json";
const COMMAND: &str =
    "cargo run --release --example judge_fit -- ../shared/data/wice/dev.jsonl --write";
/// Steps of the tabulated Platt mapping.
const PLATT_STEPS: usize = 20;
/// Articles drawn per length for the article-level figures.
const ARTICLES: usize = 4000;

/// One claim as judged, with what the fit needs.
#[derive(Debug, Clone)]
struct Sample {
    line: usize,
    label: Label,
    support: f64,
    /// A rule blocks it, whatever the threshold.
    rule_blocks: bool,
    /// Unconfirmed for lack of clear support: medium below the threshold, else low.
    weak: bool,
    problem: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Label {
    Supported,
    Partial,
    Not,
}

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: judge_fit DEV.jsonl [--write]"))?;
    let write = std::env::args().any(|a| a == "--write");
    let verbose = std::env::args().any(|a| a == "--verbose");
    let folds: usize = arg("--folds").map_or(Ok(5), |s| s.parse())?;
    let seeds: u64 = arg("--seeds").map_or(Ok(4), |s| s.parse())?;
    let target: f64 = arg("--target-block").map_or(Ok(0.01), |s| s.parse())?;
    let samples = judge_all(&path)?;
    let news = match arg("--news") {
        Some(set) => {
            let news = judge_news(&set)?;
            println!(
                "{} cited statements of the clean articles of {set}; {} unconfirmed for weak support",
                news.len(),
                news.iter().filter(|s| s.weak).count()
            );
            news
        }
        None => Vec::new(),
    };
    let count = |l: Label| samples.iter().filter(|s| s.label == l).count();
    println!(
        "{} claims: {} supported, {} partially supported, {} not supported; {folds} folds x {seeds} seeds; target: at most {:.1}% of training supported claims block",
        samples.len(),
        count(Label::Supported),
        count(Label::Partial),
        count(Label::Not),
        target * 100.0
    );
    let rule_blocked_supported: Vec<&Sample> = samples
        .iter()
        .filter(|s| s.label == Label::Supported && s.rule_blocks)
        .collect();
    println!(
        "supported claims a rule blocks (no threshold decides these): {}",
        rule_blocked_supported.len()
    );
    if verbose {
        for s in &rule_blocked_supported {
            println!("  line {}: {}", s.line, s.problem);
        }
    }

    // Held out: every claim's outcome under what was fitted without it, per seed.
    let mut per_fold = Vec::new();
    let mut pooled: Vec<Vec<Held>> = Vec::new();
    for seed in 1..=seeds {
        let split = stratified_folds(&samples, folds, seed);
        let mut held_all = Vec::new();
        for f in 0..folds {
            let train: Vec<&Sample> = split
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != f)
                .flat_map(|(_, idx)| idx.iter().map(|&i| &samples[i]))
                .collect();
            let test: Vec<&Sample> = split[f].iter().map(|&i| &samples[i]).collect();
            let fitted = fit(&train, &news, target)?;
            let held: Vec<Held> = test.iter().map(|s| fitted.apply(s)).collect();
            per_fold.push(Figures::of(&held));
            held_all.extend(held);
        }
        pooled.push(held_all);
    }
    println!("\nheld-out folds ({} folds in all):", per_fold.len());
    Figures::print_spread(&per_fold);
    println!("\nheld out, pooled per seed (each claim judged by what was fitted without it):");
    let mut rng = Rng::new(7);
    for (seed, held) in pooled.iter().enumerate() {
        let f = Figures::of(held);
        let a5 = article_block_rate(held, 5, &mut rng);
        let a10 = article_block_rate(held, 10, &mut rng);
        println!(
            "  seed {}: supported blocked {:.1}%, not_supported caught {:.1}%, partial caught {:.1}%, AUC s/not {:.3}, AUC s/rest {:.3}; clean articles blocked: 5 claims {:.1}%, 10 claims {:.1}%",
            seed + 1,
            f.supported_blocked * 100.0,
            f.not_caught * 100.0,
            f.partial_caught * 100.0,
            f.auc_not,
            f.auc_rest,
            a5 * 100.0,
            a10 * 100.0
        );
    }

    let all: Vec<&Sample> = samples.iter().collect();
    let fitted = fit(&all, &news, target)?;
    let held: Vec<Held> = all.iter().map(|s| fitted.apply(s)).collect();
    let f = Figures::of(&held);
    println!(
        "\nin sample (fitted on all {} claims; optimistic): threshold: medium below probability {:.3}; supported blocked {:.1}%, not_supported caught {:.1}%, partial caught {:.1}%, AUC s/not {:.3}, AUC s/rest {:.3}",
        samples.len(),
        fitted.threshold,
        f.supported_blocked * 100.0,
        f.not_caught * 100.0,
        f.partial_caught * 100.0,
        f.auc_not,
        f.auc_rest
    );
    if write {
        let mut table = fitted.table.clone();
        table.medium_below = Some(fitted.threshold);
        let mut json = serde_json::to_string_pretty(&table)?;
        json.push('\n');
        std::fs::write(TABLE_PATH, json)?;
        println!("written to {TABLE_PATH}");
    }
    Ok(())
}

/// Judges every claim once against its evidence joined as text.
fn judge_all(path: &str) -> anyhow::Result<Vec<Sample>> {
    let settings = JudgeSettings::default();
    let url = "http://127.0.0.1/wice";
    let mut out = Vec::new();
    for (line, ex) in wice::load(path)? {
        let j = judge(
            &cited_claim(line, &ex.claim, url),
            &ex.evidence.join("\n"),
            url,
            &settings,
        );
        let label = match ex.label.as_str() {
            "supported" => Label::Supported,
            "partially_supported" => Label::Partial,
            "not_supported" => Label::Not,
            other => anyhow::bail!("line {line}: unknown label {other:?}"),
        };
        let (rule_blocks, weak) = basis(&j);
        out.push(Sample {
            line,
            label,
            support: j.support,
            rule_blocks,
            weak,
            problem: format!(
                "{:?} {:?}: {}",
                j.verdict,
                j.severity,
                j.problem.clone().unwrap_or_default()
            ),
        });
    }
    Ok(out)
}

/// Whether a rule blocks the judgment, and whether it is unconfirmed for lack of clear support
/// (which the fitted threshold decides).
fn basis(j: &Judgment) -> (bool, bool) {
    let weak = j.unconfirmed_for_weak_support();
    let rule = !weak && (j.verdict == Verdict::Refuted || j.severity >= Some(Severity::Medium));
    (rule, weak)
}

/// What was fitted on some claims.
struct Fitted {
    table: Calibration,
    /// Unconfirmed claims below this calibrated probability are medium.
    threshold: f64,
}

/// A held-out claim's outcome.
#[derive(Debug, Clone, Copy)]
struct Held {
    label: Label,
    probability: f64,
    blocks: bool,
}

impl Fitted {
    fn apply(&self, s: &Sample) -> Held {
        let probability = self.table.apply(s.support);
        Held {
            label: s.label,
            probability,
            blocks: s.rule_blocks || (s.weak && probability < self.threshold),
        }
    }
}

/// Judges the cited statements of the clean articles of a case set against the pages they cite,
/// as `judge_debug` does: each statement is a supported sample.
fn judge_news(set: &str) -> anyhow::Result<Vec<Sample>> {
    let settings = JudgeSettings::default();
    let mut out = Vec::new();
    for case in cases::load_set(set)? {
        if case.expect != cases::Expect::Pass {
            continue;
        }
        let body = case.body("http://127.0.0.1:9");
        let Ok(extraction) = factgate_core::extract::extract_titled_within(
            &body,
            case.body_format(),
            case.title.as_deref(),
            &Default::default(),
        ) else {
            continue;
        };
        for claim in &extraction.claims {
            for c in &claim.citations {
                let path = c.url.rsplit('/').next().unwrap_or("");
                let Some(html) = case.sources.get(path) else {
                    continue;
                };
                let page = factgate_core::text::webpage::html_to_text(html);
                let j = factgate_core::judge::judge_source(
                    claim,
                    factgate_core::judge::Source {
                        text: &page.text,
                        reviews: &page.claim_reviews,
                        furniture: &page.furniture,
                    },
                    &c.url,
                    &settings,
                );
                let (rule_blocks, weak) = basis(&j);
                out.push(Sample {
                    line: 0,
                    label: Label::Supported,
                    support: j.support,
                    rule_blocks,
                    weak,
                    problem: claim.text.clone(),
                });
            }
        }
    }
    Ok(out)
}

/// The highest threshold at which at most `target` of `samples` (all supported) block: the
/// probability of the weak one just past the allowance (those at or below it block), or 1 when
/// the allowance covers them all.
fn highest_threshold(table: &Calibration, samples: &[&Sample], target: f64) -> f64 {
    let allowed = (target * samples.len() as f64).floor() as usize;
    let rule = samples.iter().filter(|s| s.rule_blocks).count();
    let mut weak: Vec<f64> = samples
        .iter()
        .filter(|s| s.weak && !s.rule_blocks)
        .map(|s| table.apply(s.support))
        .collect();
    weak.sort_by(f64::total_cmp);
    // Blocking the `n` lowest weak claims costs `rule + n`.
    let room = allowed.saturating_sub(rule);
    match weak.get(room) {
        // Below the (room+1)-th lowest: at most `room` of them block.
        Some(&p) => p,
        None => 1.0,
    }
}

/// Fits the calibration and the threshold on `train`, the threshold also held to `news`.
fn fit(train: &[&Sample], news: &[Sample], target: f64) -> anyhow::Result<Fitted> {
    let pairs: Vec<(f64, bool)> = train
        .iter()
        .map(|s| (s.support, s.label == Label::Supported))
        .collect();
    let (a, b) = fit_platt(&pairs).ok_or_else(|| anyhow::anyhow!("nothing to fit"))?;
    let mut points: Vec<[f64; 2]> = Vec::new();
    for [x, p] in platt_points(a, b, PLATT_STEPS) {
        let point = [(x * 1e4).round() / 1e4, (p * 1e4).round() / 1e4];
        match points.last_mut() {
            Some(last) if last[0] == point[0] => last[1] = last[1].max(point[1]),
            _ => points.push(point),
        }
    }
    let table = Calibration {
        method: format!(
            "Platt scaling (logistic in the raw score, Platt's smoothed targets), tabulated at {PLATT_STEPS} steps"
        ),
        data: "WiCE dev (Kamoi et al., 2023), judged on the evidence joined as text with the default judge settings; label supported counts as supported, partially_supported and not_supported do not".to_owned(),
        command: COMMAND.to_owned(),
        examples: train.len(),
        points,
        medium_below: None,
    };
    table.validate()?;
    let supported: Vec<&Sample> = train
        .iter()
        .copied()
        .filter(|s| s.label == Label::Supported)
        .collect();
    let mut threshold = highest_threshold(&table, &supported, target);
    if !news.is_empty() {
        let news: Vec<&Sample> = news.iter().collect();
        threshold = threshold.min(highest_threshold(&table, &news, target));
    }
    Ok(Fitted { table, threshold })
}

/// Figures of a set of held-out claims.
#[derive(Debug, Clone, Copy, Default)]
struct Figures {
    supported_blocked: f64,
    not_caught: f64,
    partial_caught: f64,
    auc_not: f64,
    auc_rest: f64,
}

impl Figures {
    fn of(held: &[Held]) -> Figures {
        let share = |l: Label| {
            let of: Vec<&Held> = held.iter().filter(|h| h.label == l).collect();
            of.iter().filter(|h| h.blocks).count() as f64 / of.len().max(1) as f64
        };
        let probs = |keep: &dyn Fn(Label) -> bool| -> Vec<f64> {
            held.iter()
                .filter(|h| keep(h.label))
                .map(|h| h.probability)
                .collect()
        };
        let sup = probs(&|l| l == Label::Supported);
        Figures {
            supported_blocked: share(Label::Supported),
            not_caught: share(Label::Not),
            partial_caught: share(Label::Partial),
            auc_not: roc_auc(&sup, &probs(&|l| l == Label::Not)).unwrap_or(f64::NAN),
            auc_rest: roc_auc(&sup, &probs(&|l| l != Label::Supported)).unwrap_or(f64::NAN),
        }
    }

    fn print_spread(all: &[Figures]) {
        let line = |name: &str, get: &dyn Fn(&Figures) -> f64, scale: f64| {
            let v: Vec<f64> = all.iter().map(get).filter(|x| x.is_finite()).collect();
            let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
            let min = v.iter().copied().fold(f64::INFINITY, f64::min);
            let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            println!(
                "  {name:34} mean {:.3} (min {:.3}, max {:.3})",
                mean * scale,
                min * scale,
                max * scale
            );
        };
        line("supported blocked (%)", &|f| f.supported_blocked, 100.0);
        line("not_supported caught (%)", &|f| f.not_caught, 100.0);
        line(
            "partially_supported caught (%)",
            &|f| f.partial_caught,
            100.0,
        );
        line("AUC supported vs not_supported", &|f| f.auc_not, 1.0);
        line("AUC supported vs the rest", &|f| f.auc_rest, 1.0);
    }
}

/// The share of clean articles of `length` held-out supported claims (drawn without repetition
/// within an article) in which at least one claim blocks.
fn article_block_rate(held: &[Held], length: usize, rng: &mut Rng) -> f64 {
    let supported: Vec<&Held> = held
        .iter()
        .filter(|h| h.label == Label::Supported)
        .collect();
    if supported.len() < length {
        return f64::NAN;
    }
    let mut blocked = 0;
    for _ in 0..ARTICLES {
        if rng
            .sample(supported.len(), length)
            .into_iter()
            .any(|i| supported[i].blocks)
        {
            blocked += 1;
        }
    }
    blocked as f64 / ARTICLES as f64
}

/// `k` folds of the sample indices, each label spread evenly, shuffled by `seed`.
fn stratified_folds(samples: &[Sample], k: usize, seed: u64) -> Vec<Vec<usize>> {
    let mut rng = Rng::new(seed);
    let mut folds = vec![Vec::new(); k];
    let mut next = 0;
    for label in [Label::Supported, Label::Partial, Label::Not] {
        let of: Vec<usize> = (0..samples.len())
            .filter(|&i| samples[i].label == label)
            .collect();
        for j in rng.sample(of.len(), of.len()) {
            folds[next % k].push(of[j]);
            next += 1;
        }
    }
    folds
}
