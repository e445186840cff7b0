//! Figure comparison: each figure of the claim against the figures of the same kind (unit,
//! currency, period) that the best passages state.
//!
//! A claim figure is matched with the closest comparable source figure. Years must be equal or
//! are counted as absent: a page names many years, and the nearest one is rarely the same event.

use crate::model::{Figure, Unit};

/// What the source says about one figure of the claim.
#[derive(Debug, Clone, PartialEq)]
pub enum FigureMatch {
    /// The source states a comparable figure; `relative_error` is |claim − source| / |source|.
    Compared {
        claim: Figure,
        source: Figure,
        relative_error: f64,
    },
    /// The source states no figure of the same kind.
    Absent { claim: Figure },
}

/// Whether two figures measure the same kind of thing: the same unit, currency (when both say)
/// and period.
pub fn comparable(claim: &Figure, source: &Figure) -> bool {
    claim.unit == source.unit
        && (claim.unit != Unit::Currency
            || claim.currency.is_none()
            || source.currency.is_none()
            || claim.currency == source.currency)
        && claim.per == source.per
}

/// Relative error of `claim` against `source`; infinite when the source says 0 and the claim not.
pub fn relative_error(claim: f64, source: f64) -> f64 {
    if source == 0.0 {
        if claim == 0.0 { 0.0 } else { f64::INFINITY }
    } else {
        ((claim - source) / source).abs()
    }
}

/// Compares every claim figure with the closest comparable figure in `source`.
pub fn compare_figures(claim: &[Figure], source: &[Figure]) -> Vec<FigureMatch> {
    claim
        .iter()
        .map(|c| {
            let best = source
                .iter()
                .filter(|s| comparable(c, s))
                .map(|s| (relative_error(c.value, s.value), s))
                .filter(|(e, _)| c.unit != Unit::Year || *e == 0.0)
                .min_by(|a, b| a.0.total_cmp(&b.0));
            match best {
                Some((relative_error, s)) => FigureMatch::Compared {
                    claim: c.clone(),
                    source: s.clone(),
                    relative_error,
                },
                None => FigureMatch::Absent { claim: c.clone() },
            }
        })
        .collect()
}

/// The stem of the noun a count counts in `text`: the first word after the figure (or after one
/// word more, "three new schools") that names counted things.
pub fn counted_noun(text: &str, figure_text: &str) -> Option<String> {
    let at = text.find(figure_text)? + figure_text.len();
    text[at..]
        .split(|c: char| !c.is_alphabetic() && c != '-')
        .filter(|w| !w.is_empty())
        .take(2)
        .find(|w| crate::text::lexicon::counted_noun(w))
        .map(|w| super::retrieve::stem(&w.to_lowercase()))
}

/// The compared figure furthest from its source, if any was compared.
pub fn worst(matches: &[FigureMatch]) -> Option<(&Figure, &Figure, f64)> {
    matches
        .iter()
        .filter_map(|m| match m {
            FigureMatch::Compared {
                claim,
                source,
                relative_error,
            } => Some((claim, source, *relative_error)),
            FigureMatch::Absent { .. } => None,
        })
        .max_by(|a, b| a.2.total_cmp(&b.2))
}

/// How the source writes a figure in a correction: its own text, with the period when the
/// text lacks it ("$9" per month → "$9/month").
pub fn describe(source: &Figure) -> String {
    match &source.per {
        Some(per) if !source.text.contains(per.as_str()) => format!("{}/{per}", source.text),
        _ => source.text.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn money(text: &str, value: f64, per: Option<&str>) -> Figure {
        Figure {
            text: text.into(),
            value,
            unit: Unit::Currency,
            currency: Some("USD".into()),
            scale: 1.0,
            per: per.map(String::from),
        }
    }

    #[test]
    fn a_monthly_price_is_compared_with_the_monthly_price_only() {
        let claim = [
            money("$4/month", 4.0, Some("month")),
            money("$44/year", 44.0, Some("year")),
        ];
        let source = [
            money("$9/month", 9.0, Some("month")),
            money("$9", 9.0, None),
        ];
        let matches = compare_figures(&claim, &source);
        let (c, s, e) = worst(&matches).expect("one figure compared");
        assert_eq!((c.value, s.value), (4.0, 9.0));
        assert!((e - 5.0 / 9.0).abs() < 1e-9);
        assert!(matches!(matches[1], FigureMatch::Absent { .. }));
    }

    #[test]
    fn years_match_only_when_equal() {
        let year = |v: f64| Figure {
            text: format!("{v}"),
            value: v,
            unit: Unit::Year,
            currency: None,
            scale: 1.0,
            per: None,
        };
        let matches = compare_figures(&[year(2004.0)], &[year(2005.0)]);
        assert!(matches!(matches[0], FigureMatch::Absent { .. }));
        assert_eq!(describe(&money("$9", 9.0, Some("month"))), "$9/month");
    }
}
