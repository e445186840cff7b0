//! Confidence: the judge's raw support score mapped to the probability that the source supports
//! the claim (docs/confidence.md; docs/failure-modes.md, F9: a number in [0, 1] that readers
//! take as a probability must be one).
//!
//! The mapping is isotonic (monotone non-decreasing), fitted on labelled data by
//! `cargo run --release --example calibrate` and stored in `calibration.json` beside this file,
//! compiled in. It is a table of (raw score, probability) points joined by straight lines: below
//! the first point the first probability holds, above the last the last.
//!
//! Fitting: pool-adjacent-violators over the scores sorted, each block's rate of supported claims
//! smoothed towards the base rate (a block of three supported claims says "likely", not
//! "certain"), then made monotone again. Measuring: expected calibration error over equal-width
//! bins and the reliability table behind it.
//!
//! The table holds for the judge's default settings: a changed `[judge]` section changes what
//! the raw scores mean, and the table should be fitted again.

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

/// The committed table, fitted by `examples/calibrate.rs`.
const TABLE_JSON: &str = include_str!("calibration.json");

static TABLE: LazyLock<Calibration> = LazyLock::new(|| {
    // The table is part of the binary and a unit test parses it: a failure is a build defect.
    Calibration::from_json(TABLE_JSON).expect("the compiled-in calibration table is valid")
});

/// The calibrated probability that a source supports the claim, given the judge's raw support
/// score, by the compiled-in table.
pub fn confidence(raw_support: f64) -> f64 {
    TABLE.apply(raw_support)
}

/// The calibrated probability of support below which an unconfirmed claim is medium, as fitted
/// with the table (`examples/judge_fit.rs`); a table without one blocks no unconfirmed claim
/// for weak support alone.
pub fn medium_below() -> f64 {
    TABLE.medium_below.unwrap_or(0.0)
}

/// The compiled-in table.
pub fn table() -> &'static Calibration {
    &TABLE
}

/// Why a calibration table was refused.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationError {
    #[error("the calibration table is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("the calibration table needs at least one point")]
    Empty,
    #[error("calibration point {index} is outside [0, 1] or not a number")]
    OutOfRange { index: usize },
    #[error("calibration point {index}: raw scores must increase and probabilities never fall")]
    NotMonotone { index: usize },
}

/// A monotone mapping from raw support score to probability, with how it was obtained.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calibration {
    /// How the table was fitted.
    pub method: String,
    /// The labelled data it was fitted on, and what counts as supported.
    pub data: String,
    /// The command that fits it again.
    pub command: String,
    /// Examples it was fitted on.
    pub examples: usize,
    /// (raw support, probability), raw scores strictly increasing, probabilities non-decreasing.
    pub points: Vec<[f64; 2]>,
    /// The probability below which an unconfirmed claim is medium (blocks under `normal`),
    /// fitted with the table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub medium_below: Option<f64>,
}

impl Calibration {
    /// Parses and checks a table.
    ///
    /// # Errors
    /// [`CalibrationError`] when the JSON does not parse, or the points are empty, out of [0, 1]
    /// or not monotone.
    pub fn from_json(json: &str) -> Result<Calibration, CalibrationError> {
        let table: Calibration = serde_json::from_str(json)?;
        table.validate()?;
        Ok(table)
    }

    /// Checks the points: at least one, all in [0, 1], raw scores increasing, probabilities
    /// never falling.
    ///
    /// # Errors
    /// [`CalibrationError`] naming the first bad point.
    pub fn validate(&self) -> Result<(), CalibrationError> {
        if self.points.is_empty() {
            return Err(CalibrationError::Empty);
        }
        for (index, [x, y]) in self.points.iter().enumerate() {
            if !(0.0..=1.0).contains(x) || !(0.0..=1.0).contains(y) {
                return Err(CalibrationError::OutOfRange { index });
            }
            if index > 0 {
                let [px, py] = self.points[index - 1];
                if *x <= px || *y < py {
                    return Err(CalibrationError::NotMonotone { index });
                }
            }
        }
        Ok(())
    }

    /// The probability for `raw` (clamped to [0, 1]; NaN reads as 0): linear between the
    /// table's points, flat beyond its ends.
    pub fn apply(&self, raw: f64) -> f64 {
        let raw = if raw.is_nan() {
            0.0
        } else {
            raw.clamp(0.0, 1.0)
        };
        let points = &self.points;
        let (Some(first), Some(last)) = (points.first(), points.last()) else {
            return raw;
        };
        if raw <= first[0] {
            return first[1];
        }
        if raw >= last[0] {
            return last[1];
        }
        // The first point at or after `raw`; it has one before it, since raw > first[0].
        let i = points.partition_point(|p| p[0] < raw);
        let ([x0, y0], [x1, y1]) = (points[i - 1], points[i]);
        y0 + (y1 - y0) * (raw - x0) / (x1 - x0)
    }
}

/// Fits an isotonic table to (raw score, supported) samples. Each pooled block's rate is
/// smoothed with `prior_weight` pseudo-examples at the samples' base rate, then the blocks are
/// pooled again where smoothing broke the order. Each block becomes its lowest and highest raw
/// score at its rate (one point when they are equal). `None` without samples.
pub fn fit_isotonic(samples: &[(f64, bool)], prior_weight: f64) -> Option<Vec<[f64; 2]>> {
    if samples.is_empty() {
        return None;
    }
    let mut sorted: Vec<(f64, bool)> = samples
        .iter()
        .map(|&(x, y)| (if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }, y))
        .collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Tied scores are one observation of their rate: the mapping is a function of the score.
    let mut blocks: Vec<Block> = Vec::new();
    for (x, y) in sorted {
        match blocks.last_mut() {
            Some(b) if b.hi == x => b.add(f64::from(u8::from(y)), 1.0),
            _ => blocks.push(Block::new(x, f64::from(u8::from(y)), 1.0)),
        }
    }
    let blocks = pool_adjacent_violators(blocks);
    let base = samples.iter().filter(|s| s.1).count() as f64 / samples.len() as f64;
    let smoothed: Vec<Block> = blocks
        .into_iter()
        .map(|b| Block {
            sum: b.sum + prior_weight * base,
            weight: b.weight + prior_weight,
            ..b
        })
        .collect();
    let blocks = pool_adjacent_violators(smoothed);
    let mut points: Vec<[f64; 2]> = Vec::new();
    for b in blocks {
        let rate = b.rate();
        points.push([b.lo, rate]);
        if b.hi > b.lo {
            points.push([b.hi, rate]);
        }
    }
    Some(points)
}

/// Fits Platt scaling, `p = 1 / (1 + exp(-(a·x + b)))`, to (raw score, supported) samples by
/// Newton's method on the log-loss, with Platt's smoothed targets (`(n₊ + 1) / (n₊ + 2)` and
/// `1 / (n₋ + 2)`) so that no score is mapped to certainty. Returns `(a, b)`; `None` without
/// samples.
pub fn fit_platt(samples: &[(f64, bool)]) -> Option<(f64, f64)> {
    if samples.is_empty() {
        return None;
    }
    let positives = samples.iter().filter(|s| s.1).count() as f64;
    let negatives = samples.len() as f64 - positives;
    let (hi, lo) = (
        (positives + 1.0) / (positives + 2.0),
        1.0 / (negatives + 2.0),
    );
    let (mut a, mut b) = (0.0f64, ((positives + 1.0) / (negatives + 1.0)).ln());
    for _ in 0..100 {
        // Gradient and Hessian of the log-loss in (a, b).
        let (mut ga, mut gb, mut haa, mut hab, mut hbb) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for &(x, y) in samples {
            let t = if y { hi } else { lo };
            let p = sigmoid(a * x + b);
            let w = (p * (1.0 - p)).max(1e-12);
            ga += (p - t) * x;
            gb += p - t;
            haa += w * x * x;
            hab += w * x;
            hbb += w;
        }
        let det = haa * hbb - hab * hab;
        if det.abs() < 1e-15 {
            break;
        }
        let da = (hbb * ga - hab * gb) / det;
        let db = (haa * gb - hab * ga) / det;
        a -= da;
        b -= db;
        if da.abs() < 1e-10 && db.abs() < 1e-10 {
            break;
        }
    }
    (a.is_finite() && b.is_finite()).then_some((a, b))
}

/// Platt's mapping tabulated at `steps + 1` evenly spaced raw scores from 0 to 1; monotone
/// non-decreasing when `a` ≥ 0 (a score that ranks the wrong way is refused by
/// [`Calibration::validate`]).
pub fn platt_points(a: f64, b: f64, steps: usize) -> Vec<[f64; 2]> {
    let steps = steps.max(1);
    (0..=steps)
        .map(|i| {
            let x = i as f64 / steps as f64;
            [x, sigmoid(a * x + b)]
        })
        .collect()
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// A run of adjacent scores pooled into one rate.
#[derive(Debug, Clone, Copy)]
struct Block {
    lo: f64,
    hi: f64,
    sum: f64,
    weight: f64,
}

impl Block {
    fn new(x: f64, sum: f64, weight: f64) -> Block {
        Block {
            lo: x,
            hi: x,
            sum,
            weight,
        }
    }

    fn add(&mut self, sum: f64, weight: f64) {
        self.sum += sum;
        self.weight += weight;
    }

    fn rate(&self) -> f64 {
        self.sum / self.weight
    }
}

/// Pools adjacent blocks until their rates never fall (the PAV algorithm).
fn pool_adjacent_violators(blocks: Vec<Block>) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::with_capacity(blocks.len());
    for block in blocks {
        out.push(block);
        while out.len() > 1 && out[out.len() - 2].rate() > out[out.len() - 1].rate() {
            // Both exist: the loop condition checked the length.
            let last = out.pop().expect("two blocks");
            let prev = out.last_mut().expect("one block");
            prev.hi = last.hi;
            prev.add(last.sum, last.weight);
        }
    }
    out
}

/// One bin of a reliability table.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ReliabilityBin {
    /// The bin's lower edge; it spans `[lower, lower + 1/bins)` (the last includes 1).
    pub lower: f64,
    pub count: usize,
    /// Mean predicted probability of the bin's samples.
    pub mean_predicted: f64,
    /// Share of the bin's samples that are supported.
    pub observed: f64,
}

/// The reliability table of (predicted probability, supported) samples over `bins` equal-width
/// bins; empty bins are left out.
pub fn reliability(samples: &[(f64, bool)], bins: usize) -> Vec<ReliabilityBin> {
    let bins = bins.max(1);
    let mut acc = vec![(0usize, 0.0f64, 0usize); bins];
    for &(p, y) in samples {
        let p = if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) };
        let i = ((p * bins as f64) as usize).min(bins - 1);
        acc[i].0 += 1;
        acc[i].1 += p;
        acc[i].2 += usize::from(y);
    }
    acc.into_iter()
        .enumerate()
        .filter(|(_, a)| a.0 > 0)
        .map(|(i, (count, sum, pos))| ReliabilityBin {
            lower: i as f64 / bins as f64,
            count,
            mean_predicted: sum / count as f64,
            observed: pos as f64 / count as f64,
        })
        .collect()
}

/// Expected calibration error: the sample-weighted mean gap between predicted probability and
/// observed rate over the bins of [`reliability`]. 0 for no samples.
pub fn expected_calibration_error(samples: &[(f64, bool)], bins: usize) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let total = samples.len() as f64;
    reliability(samples, bins)
        .iter()
        .map(|b| b.count as f64 / total * (b.mean_predicted - b.observed).abs())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compiled_in_table_loads_and_is_monotone_within_the_unit_interval() {
        let table = Calibration::from_json(TABLE_JSON).expect("valid table");
        assert!(table.examples > 0 && !table.points.is_empty());
        let mut previous = 0.0;
        for step in 0..=1000 {
            let raw = f64::from(step) / 1000.0;
            let p = confidence(raw);
            assert!((0.0..=1.0).contains(&p), "{raw} -> {p}");
            assert!(p >= previous, "not monotone at {raw}: {p} < {previous}");
            previous = p;
        }
        // Each point of the table maps as the table says.
        for [raw, p] in &table.points {
            assert!((confidence(*raw) - p).abs() < 1e-12, "{raw} -> {p}");
        }
        // Out-of-range and NaN scores map to the ends.
        assert_eq!(confidence(-1.0), table.points[0][1]);
        assert_eq!(confidence(f64::NAN), table.points[0][1]);
        assert_eq!(confidence(2.0), table.points[table.points.len() - 1][1]);
    }

    #[test]
    fn between_points_the_probability_is_interpolated() {
        let table = Calibration {
            method: "test".into(),
            data: "test".into(),
            command: "test".into(),
            examples: 4,
            points: vec![[0.2, 0.1], [0.6, 0.5], [0.8, 0.9]],
            medium_below: None,
        };
        assert_eq!(table.apply(0.0), 0.1);
        assert!((table.apply(0.4) - 0.3).abs() < 1e-12);
        assert!((table.apply(0.7) - 0.7).abs() < 1e-12);
        assert_eq!(table.apply(1.0), 0.9);
    }

    #[test]
    fn bad_tables_are_refused() {
        let with = |points: &str| {
            format!(r#"{{"method":"m","data":"d","command":"c","examples":1,"points":{points}}}"#)
        };
        assert!(matches!(
            Calibration::from_json(&with("[]")),
            Err(CalibrationError::Empty)
        ));
        assert!(matches!(
            Calibration::from_json(&with("[[0.1, 1.5]]")),
            Err(CalibrationError::OutOfRange { index: 0 })
        ));
        assert!(matches!(
            Calibration::from_json(&with("[[0.1, 0.5], [0.2, 0.4]]")),
            Err(CalibrationError::NotMonotone { index: 1 })
        ));
        assert!(matches!(
            Calibration::from_json(&with("[[0.3, 0.1], [0.2, 0.4]]")),
            Err(CalibrationError::NotMonotone { index: 1 })
        ));
    }

    #[test]
    fn isotonic_fit_pools_violations_and_smooths_towards_the_base_rate() {
        // Scores 0.1..0.4 unsupported, 0.5 supported, 0.6 unsupported, 0.7..0.9 supported.
        let samples: Vec<(f64, bool)> = [
            (0.1, false),
            (0.2, false),
            (0.3, false),
            (0.4, false),
            (0.5, true),
            (0.6, false),
            (0.7, true),
            (0.8, true),
            (0.9, true),
        ]
        .to_vec();
        let raw = fit_isotonic(&samples, 0.0).expect("samples");
        // 0.5 and 0.6 pool at one half; the ends are 0 and 1.
        assert_eq!(raw.first(), Some(&[0.1, 0.0]));
        assert!(
            raw.contains(&[0.5, 0.5]) && raw.contains(&[0.6, 0.5]),
            "{raw:?}"
        );
        assert_eq!(raw.last(), Some(&[0.9, 1.0]));
        let smoothed = fit_isotonic(&samples, 2.0).expect("samples");
        let table = Calibration {
            method: "test".into(),
            data: "test".into(),
            command: "test".into(),
            examples: samples.len(),
            points: smoothed,
            medium_below: None,
        };
        table.validate().expect("monotone");
        // No certainty from four examples.
        assert!(
            table.apply(0.0) > 0.0 && table.apply(1.0) < 1.0,
            "{table:?}"
        );
    }

    #[test]
    fn platt_scaling_recovers_a_logistic_mapping() {
        // Scores 0.05..0.95; the share supported rises with the score.
        let mut samples = Vec::new();
        for i in 0..10 {
            let x = 0.05 + 0.1 * f64::from(i);
            for k in 0..10 {
                samples.push((x, k < i));
            }
        }
        let (a, b) = fit_platt(&samples).expect("samples");
        assert!(a > 0.0, "a higher score means more likely supported: {a}");
        let points = platt_points(a, b, 20);
        let table = Calibration {
            method: "test".into(),
            data: "test".into(),
            command: "test".into(),
            examples: samples.len(),
            points,
            medium_below: None,
        };
        table.validate().expect("monotone");
        // Observed rate at 0.55 is 0.5.
        assert!(
            (table.apply(0.55) - 0.5).abs() < 0.05,
            "{}",
            table.apply(0.55)
        );
    }

    #[test]
    fn calibration_error_is_the_weighted_gap_per_bin() {
        // Bin [0.8, 0.9): predicted 0.8, observed 0.5 → gap 0.3 over half the samples.
        // Bin [0.2, 0.3): predicted 0.2, observed 0.0 → gap 0.2 over the other half.
        let samples = [(0.8, true), (0.8, false), (0.2, false), (0.2, false)];
        let ece = expected_calibration_error(&samples, 10);
        assert!((ece - 0.25).abs() < 1e-12, "{ece}");
        let bins = reliability(&samples, 10);
        assert_eq!(bins.len(), 2);
        assert_eq!(bins[1].count, 2);
        assert!((bins[1].observed - 0.5).abs() < 1e-12);
    }
}
