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

/// A share of a whole as a percentage: "20%", or a ratio of at most one ("one in five", "half",
/// "two-thirds", "3 out of 10") times 100. A ratio above one ("3 to 1") is no share.
fn share_percent(f: &Figure) -> Option<f64> {
    match f.unit {
        Unit::Percent => Some(f.value),
        Unit::Ratio if f.value > 0.0 && f.value <= 1.0 => Some(f.value * 100.0),
        _ => None,
    }
}

/// The relative error of a share written one way against a share written the other ("half of
/// residents" against "20% of residents", "one in five" against "20%"); `None` unless both are
/// shares written differently.
fn share_error(claim: &Figure, source: &Figure) -> Option<f64> {
    if claim.unit == source.unit || claim.per != source.per {
        return None;
    }
    Some(relative_error(
        share_percent(claim)?,
        share_percent(source)?,
    ))
}

/// The errors of `claim` against the figures of `source` that measure the same kind of thing:
/// the comparable ones; only when there are none, the shares written the other way. A share
/// is not matched across forms while a figure of the claim's own form is there: "rose 25%"
/// against "rose 40%" is 40% that is wrong, whatever "one in four" the page also says.
pub fn errors_against<'s>(
    claim: &Figure,
    source: impl IntoIterator<Item = &'s Figure> + Clone,
) -> impl Iterator<Item = (f64, &'s Figure)> {
    let same: Vec<(f64, &Figure)> = source
        .clone()
        .into_iter()
        .filter(|s| comparable(claim, s))
        .map(|s| (relative_error(claim.value, s.value), s))
        .collect();
    let shares: Vec<(f64, &Figure)> = if same.is_empty() {
        source
            .into_iter()
            .filter_map(|s| Some((share_error(claim, s)?, s)))
            .collect()
    } else {
        Vec::new()
    };
    same.into_iter().chain(shares)
}

/// Compares every claim figure with the closest comparable figure in `source`.
pub fn compare_figures(claim: &[Figure], source: &[Figure]) -> Vec<FigureMatch> {
    claim
        .iter()
        .map(|c| {
            let best = errors_against(c, source)
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
    fn a_share_as_a_ratio_is_compared_with_a_share_as_a_percentage() {
        let figure = |text: &str, value: f64, unit: Unit| Figure {
            text: text.into(),
            value,
            unit,
            currency: None,
            scale: 1.0,
            per: None,
        };
        let half = figure("half", 0.5, Unit::Ratio);
        let one_in_five = figure("one in five", 0.2, Unit::Ratio);
        let twenty = figure("20%", 20.0, Unit::Percent);
        let three_to_one = figure("3 to 1", 3.0, Unit::Ratio);
        // "Half of residents" where the source says 20%: 150% off.
        let matches = compare_figures(&[half], std::slice::from_ref(&twenty));
        let (_, s, e) = worst(&matches).expect("compared");
        assert_eq!(s.text, "20%");
        assert!((e - 1.5).abs() < 1e-9);
        // "20%" where the source says "one in five": the same share.
        let matches = compare_figures(
            std::slice::from_ref(&twenty),
            &[one_in_five, three_to_one.clone()],
        );
        let (_, s, e) = worst(&matches).expect("compared");
        assert_eq!(s.text, "one in five");
        assert!(e < 1e-9);
        // A ratio above one is no share of a whole.
        assert!(matches!(
            compare_figures(std::slice::from_ref(&twenty), &[three_to_one])[0],
            FigureMatch::Absent { .. }
        ));
        // "Rose 25%" where the source says it rose 40% and, elsewhere, "one in four": the
        // percentage of its own form is the one compared.
        let twenty_five = figure("25%", 25.0, Unit::Percent);
        let forty = figure("40%", 40.0, Unit::Percent);
        let one_in_four = figure("one in four", 0.25, Unit::Ratio);
        let matches = compare_figures(&[twenty_five], &[forty, one_in_four]);
        let (_, s, e) = worst(&matches).expect("compared");
        assert_eq!(s.text, "40%");
        assert!((e - 0.375).abs() < 1e-9);
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
