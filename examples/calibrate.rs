//! Fits the confidence table (`core/src/judge/calibration.json`) on labelled WiCE data and
//! reports how well calibrated the raw support score and the confidence are.
//!
//! Usage: `cargo run --release --example calibrate -- /work/shared/data/wice/dev.jsonl [--isotonic] [--write]`
//!
//! The mapping is Platt scaling by default (two parameters, fitted by Newton's method), or with
//! `--isotonic` isotonic regression; both are stored as a table of points.
//!
//! Each claim is judged on its evidence joined as text (as `wice_quality` does without `--http`),
//! with the judge's default settings. A claim counts as supported when its label is `supported`;
//! `partially_supported` and `not_supported` do not: the confidence is the probability that the
//! source supports the claim as written.
//!
//! Honest figures: the table is judged on claims it was not fitted on. The claims are split in
//! two halves (stratified by label, by a seeded generator), a table is fitted on each half and
//! applied to the other, and the expected calibration error (ECE, 10 equal-width bins) of these
//! held-out confidences is printed, over several seeds. The in-sample ECE of the table fitted on
//! every claim is printed too, and is optimistic. The table in `core/src/judge/calibration.json`
//! is written, with the threshold fitted beside it, by `examples/judge_fit.rs`.

#[path = "support/wice.rs"]
mod wice;

use factgate_core::judge::calibration::{
    Calibration, expected_calibration_error, fit_isotonic, fit_platt, platt_points, reliability,
};
use factgate_core::judge::{JudgeSettings, judge};
use wice::{Rng, cited_claim};

/// Pseudo-examples at the base rate added to each pooled block: enough that a block of a few
/// claims does not claim certainty, few enough that a block of fifty barely moves.
const PRIOR_WEIGHT: f64 = 2.0;
/// Bins of the calibration error and the reliability table.
const BINS: usize = 10;
/// Seeds of the repeated two-fold split.
const SEEDS: [u64; 5] = [1, 2, 3, 4, 5];
const TABLE_PATH: &str = "core/src/judge/calibration.json";
const COMMAND: &str =
    "cargo run --release --example judge_fit -- ../shared/data/wice/dev.jsonl --write";

fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: calibrate DEV.jsonl [--write]"))?;
    let write = std::env::args().any(|a| a == "--write");
    let method = if std::env::args().any(|a| a == "--isotonic") {
        Method::Isotonic
    } else {
        Method::Platt
    };
    println!("method: {}", method.describe());
    let examples = wice::load(&path)?;
    let settings = JudgeSettings::default();
    let url = "http://127.0.0.1/wice";
    let samples: Vec<(f64, bool)> = examples
        .iter()
        .map(|(line, ex)| {
            let j = judge(
                &cited_claim(*line, &ex.claim, url),
                &ex.evidence.join("\n"),
                url,
                &settings,
            );
            (j.support, ex.label == "supported")
        })
        .collect();
    let positives = samples.iter().filter(|s| s.1).count();
    println!(
        "{} claims, {} supported ({:.1}%)",
        samples.len(),
        positives,
        100.0 * positives as f64 / samples.len().max(1) as f64
    );

    // Held out: each half's confidences from the table fitted on the other half.
    let mut held_out_eces = Vec::new();
    let mut raw_half_eces = Vec::new();
    let mut first_held_out: Vec<(f64, bool)> = Vec::new();
    for seed in SEEDS {
        let halves = stratified_halves(&samples, seed);
        let mut held_out: Vec<(f64, bool)> = Vec::new();
        for (fit_on, judge_on) in [(&halves[0], &halves[1]), (&halves[1], &halves[0])] {
            let fitted: Vec<(f64, bool)> = fit_on.iter().map(|&i| samples[i]).collect();
            let table = table_of(&fitted, method)?;
            let judged: Vec<(f64, bool)> = judge_on.iter().map(|&i| samples[i]).collect();
            raw_half_eces.push(expected_calibration_error(&judged, BINS));
            let calibrated: Vec<(f64, bool)> =
                judged.iter().map(|&(x, y)| (table.apply(x), y)).collect();
            held_out_eces.push(expected_calibration_error(&calibrated, BINS));
            held_out.extend(calibrated);
        }
        if first_held_out.is_empty() {
            first_held_out = held_out;
        }
    }
    let all = table_of(&samples, method)?;
    let in_sample: Vec<(f64, bool)> = samples.iter().map(|&(x, y)| (all.apply(x), y)).collect();

    println!("\nexpected calibration error ({BINS} equal-width bins):");
    println!(
        "  raw support score, all claims:                 {:.3}",
        expected_calibration_error(&samples, BINS)
    );
    println!(
        "  raw support score, per half:                   {}",
        spread(&raw_half_eces)
    );
    println!(
        "  confidence, held-out half (fitted on the other): {}",
        spread(&held_out_eces)
    );
    println!(
        "  confidence, in sample (fitted on all; optimistic): {:.3}",
        expected_calibration_error(&in_sample, BINS)
    );
    println!(
        "  Brier score: raw {:.3}, confidence held out (seed {}) {:.3}",
        brier(&samples),
        SEEDS[0],
        brier(&first_held_out)
    );

    println!("\nreliability, raw support score (all claims):");
    print_reliability(&samples);
    println!(
        "\nreliability, confidence held out (seed {}, both halves):",
        SEEDS[0]
    );
    print_reliability(&first_held_out);

    println!("\ntable fitted on all {} claims:", samples.len());
    for [x, p] in &all.points {
        println!("  raw {x:.4} -> {p:.3}");
    }
    if write {
        // The table and the threshold fitted with it are written together, by judge_fit.
        anyhow::bail!(
            "the table in {TABLE_PATH} is fitted with its threshold by: cargo run --release --example judge_fit -- ../shared/data/wice/dev.jsonl --write"
        );
    }
    Ok(())
}

/// How the table is fitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    /// Two parameters: little to overfit on a few hundred claims.
    Platt,
    /// A step function: follows any monotone shape, needs more data.
    Isotonic,
}

impl Method {
    fn describe(self) -> String {
        match self {
            Method::Platt => format!(
                "Platt scaling (logistic in the raw score, Platt's smoothed targets), tabulated at {PLATT_STEPS} steps"
            ),
            Method::Isotonic => format!(
                "isotonic regression (pool adjacent violators), each block smoothed with {PRIOR_WEIGHT} pseudo-examples at the base rate"
            ),
        }
    }
}

/// Steps of the tabulated Platt mapping: linear interpolation between them is within 0.003 of
/// the curve.
const PLATT_STEPS: usize = 20;

/// The table fitted on `samples`.
fn table_of(samples: &[(f64, bool)], method: Method) -> anyhow::Result<Calibration> {
    let points = match method {
        Method::Isotonic => fit_isotonic(samples, PRIOR_WEIGHT),
        Method::Platt => fit_platt(samples).map(|(a, b)| platt_points(a, b, PLATT_STEPS)),
    }
    .ok_or_else(|| anyhow::anyhow!("no samples to fit"))?;
    // Scores are rounded so the table stays small and readable; rounding keeps the order.
    let mut rounded: Vec<[f64; 2]> = Vec::with_capacity(points.len());
    for [x, p] in points {
        let point = [(x * 1e4).round() / 1e4, (p * 1e4).round() / 1e4];
        match rounded.last_mut() {
            Some(last) if last[0] == point[0] => last[1] = last[1].max(point[1]),
            _ => rounded.push(point),
        }
    }
    let table = Calibration {
        method: method.describe(),
        data: "WiCE dev (Kamoi et al., 2023), judged on the evidence joined as text with the default judge settings; label supported counts as supported, partially_supported and not_supported do not".to_owned(),
        command: COMMAND.to_owned(),
        examples: samples.len(),
        points: rounded,
        medium_below: None,
    };
    table.validate()?;
    Ok(table)
}

/// Two halves of the sample indices, each label split evenly, shuffled by `seed`.
fn stratified_halves(samples: &[(f64, bool)], seed: u64) -> [Vec<usize>; 2] {
    let mut rng = Rng::new(seed);
    let mut halves = [Vec::new(), Vec::new()];
    for label in [true, false] {
        let of_label: Vec<usize> = (0..samples.len())
            .filter(|&i| samples[i].1 == label)
            .collect();
        let order = rng.sample(of_label.len(), of_label.len());
        for (k, j) in order.into_iter().enumerate() {
            halves[k % 2].push(of_label[j]);
        }
    }
    halves
}

fn spread(values: &[f64]) -> String {
    let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{mean:.3} (mean of {}; {min:.3} to {max:.3})", values.len())
}

fn brier(samples: &[(f64, bool)]) -> f64 {
    samples
        .iter()
        .map(|&(p, y)| (p - f64::from(u8::from(y))).powi(2))
        .sum::<f64>()
        / samples.len().max(1) as f64
}

fn print_reliability(samples: &[(f64, bool)]) {
    println!("  | bin | claims | mean predicted | observed supported |");
    println!("  |---|---:|---:|---:|");
    for b in reliability(samples, BINS) {
        println!(
            "  | {:.1}–{:.1} | {} | {:.3} | {:.3} |",
            b.lower,
            b.lower + 1.0 / BINS as f64,
            b.count,
            b.mean_predicted,
            b.observed
        );
    }
}
