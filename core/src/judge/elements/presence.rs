//! Presence: whether the cited page contains a figure of the claim at all, in any form it can be
//! written in. A statistic the page never gives does not come from that source, whatever else
//! the page says: it is as unsourced as a statistic with no citation (docs/severity.md).
//!
//! A figure counts as given when the page states a number within the tolerance of the claim's
//! (the spec's 10%, wider for a figure the claim hedges: "about", "nearly"; one-sided for
//! "more than", "under"), whatever the unit (the unit rule compares units), or when two figures
//! of one sentence, or of a sentence and the next, give it by their difference, ratio or change
//! in percent ("up 9%" from 1.11 million to 1.21 million; "one in twenty" of 22,000 staff is
//! 1,100). Only statistics are looked for: percentages, amounts of money, shares, multiples and
//! counts written in digits. A small count in words ("two people"), a year (the date rule's) or
//! a duration ("three years") is too often background or arithmetic to be read as a figure the
//! source must give.

use crate::judge::text::Text;
use crate::model::{Figure, Unit};

/// Relative tolerance within which a page's number gives the claim's: the spec's 10%.
pub(crate) const STATED_TOLERANCE: f64 = 0.10;
/// Relative tolerance for a figure the claim gives as approximate ("about 6,000").
pub(crate) const HEDGED_TOLERANCE: f64 = 0.20;

/// How the claim qualifies a figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hedge {
    /// As written: "1,180 territories".
    Exact,
    /// "about", "nearly", "roughly", "some", "almost", "around", "an estimated".
    About,
    /// "more than", "over", "at least", "above": the true value is at or above it.
    AtLeast,
    /// "less than", "under", "fewer than", "below", "up to", "at most": at or below it.
    AtMost,
}

/// Words before a figure that make it approximate, one-sided or exact.
pub(crate) fn hedge_before(claim: &str, figure: &Figure) -> Hedge {
    let Some(at) = claim.find(&figure.text) else {
        return Hedge::Exact;
    };
    // Only the two words before the figure qualify it: read back from it, not the whole claim.
    let mut before: Vec<String> = claim[..at]
        .rsplit(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .take(2)
        .map(str::to_lowercase)
        .collect();
    before.reverse();
    let one: Vec<&str> = before
        .iter()
        .skip(before.len().saturating_sub(1))
        .map(String::as_str)
        .collect();
    let two: Vec<&str> = before.iter().map(String::as_str).collect();
    let about = [
        "about",
        "around",
        "roughly",
        "nearly",
        "almost",
        "approximately",
        "some",
        "estimated",
        "circa",
        "approx",
        "close",
        "barely",
        "virtually",
        "practically",
        "just",
    ];
    let at_least = ["over", "above", "exceeding", "plus"];
    let at_most = ["under", "below", "within"];
    match two.as_slice() {
        ["more" | "greater" | "higher" | "larger", "than"]
        | ["at", "least"]
        | ["upwards", "of"]
        | ["in", "excess"] => return Hedge::AtLeast,
        ["less" | "fewer" | "lower" | "smaller", "than"] | ["at", "most"] | ["up", "to"] => {
            return Hedge::AtMost;
        }
        ["close", "to"] | ["just", "over" | "under" | "above" | "below"] => return Hedge::About,
        _ => {}
    }
    match one.first().copied() {
        Some(w) if about.contains(&w) => Hedge::About,
        Some(w) if at_least.contains(&w) => Hedge::AtLeast,
        Some(w) if at_most.contains(&w) => Hedge::AtMost,
        _ => Hedge::Exact,
    }
}

/// Whether `value` (the page's) gives the claim's `claimed`, qualified by `hedge`.
pub fn gives(claimed: f64, hedge: Hedge, value: f64) -> bool {
    if !claimed.is_finite() || !value.is_finite() {
        return false;
    }
    if claimed == value {
        return true;
    }
    let scale = claimed.abs().max(value.abs());
    if scale == 0.0 {
        return true;
    }
    let off = (claimed - value) / claimed.abs().max(f64::MIN_POSITIVE);
    match hedge {
        Hedge::Exact => ((claimed - value) / scale).abs() <= STATED_TOLERANCE,
        Hedge::About => ((claimed - value) / scale).abs() <= HEDGED_TOLERANCE,
        // "more than 1,600" is given by 1,640 or 2,000, not by 1,500 (a little under, for a
        // rounding: "more than 72%" of 71.8%).
        Hedge::AtLeast => value >= claimed * (1.0 - 0.02) && off >= -1.0,
        Hedge::AtMost => value <= claimed * (1.0 + 0.02) && value >= claimed * 0.3,
    }
}

/// Whether a claim's figure is a statistic the cited page must give: a percentage, points, an
/// amount of money, a share, a multiple, or a count written in digits that is not a duration.
pub(crate) fn is_statistic(claim: &str, figure: &Figure) -> bool {
    match figure.unit {
        Unit::Year => false,
        Unit::Percent | Unit::PercentagePoints | Unit::Currency => true,
        Unit::Ratio | Unit::Multiplier => figure.text.chars().any(|c| c.is_ascii_digit()),
        Unit::Count => {
            figure.text.chars().any(|c| c.is_ascii_digit())
                && figure.value >= 10.0
                && !counts_time(claim, figure)
        }
    }
}

/// Whether the count counts units of time ("30 days", "12 months"), or is an age, a score, a
/// rank or a clock time: background the page need not state.
pub(crate) fn counts_time(claim: &str, figure: &Figure) -> bool {
    // "18% year over year" is a rate, not a span of time.
    if figure.unit != Unit::Count {
        return false;
    }
    let Some(at) = claim.find(&figure.text) else {
        return false;
    };
    let after: Vec<String> = claim[at + figure.text.len()..]
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(2)
        .map(str::to_lowercase)
        .collect();
    let before = claim[..at].trim_end();
    let next = after.first().map(String::as_str);
    matches!(
        next,
        Some(
            "second"
                | "seconds"
                | "minute"
                | "minutes"
                | "hour"
                | "hours"
                | "day"
                | "days"
                | "week"
                | "weeks"
                | "month"
                | "months"
                | "year"
                | "years"
                | "decade"
                | "decades"
                | "century"
                | "centuries"
                | "am"
                | "pm"
                | "th"
                | "st"
                | "nd"
                | "rd"
        )
    ) || before.ends_with("aged")
        || before.ends_with("age")
        || before.ends_with("No.")
        || before.ends_with('#')
}

/// The numbers a page's sentences state, each figure's value once, with where it is: (value,
/// sentence).
pub(crate) fn page_values(sentences: &[Text]) -> Vec<(f64, usize)> {
    let mut out = Vec::new();
    for (i, s) in sentences.iter().enumerate() {
        for (f, _) in s.figures.iter() {
            out.push((f.value, i));
            // A share written as a ratio is a percentage too ("one in five", "half": 20%, 50%),
            // and a percentage a ratio.
            match f.unit {
                Unit::Ratio if f.value > 0.0 && f.value <= 1.0 => out.push((f.value * 100.0, i)),
                Unit::Percent | Unit::PercentagePoints => out.push((f.value / 100.0, i)),
                _ => {}
            }
        }
    }
    out
}

/// Whether the page writes the figure's number as a word of its own, however its figure reader
/// takes it ("the 31-year-old"): `number` is the figure's number as the index tokenizes it.
pub(crate) fn number_written(c: &Figure, contains: impl Fn(&str) -> bool) -> bool {
    crate::judge::retrieve::tokenize(&c.text)
        .into_iter()
        .filter(|t| crate::judge::retrieve::is_number(t))
        .any(|t| contains(&t))
}

/// Whether the page gives the claim's figure `c` (qualified by `hedge`), stated or derived from
/// two of its figures close together (see the module documentation). `values` are
/// [`page_values`] of the page.
pub fn stated(c: &Figure, hedge: Hedge, values: &[(f64, usize)]) -> bool {
    let claimed = match c.unit {
        // "one in twenty" is 5 (percent) as well as 0.05.
        Unit::Ratio if c.value > 0.0 && c.value <= 1.0 => {
            return stated_value(c.value, hedge, values)
                || stated_value(c.value * 100.0, hedge, values);
        }
        _ => c.value,
    };
    stated_value(claimed, hedge, values)
}

/// The most figures of a sentence and its neighbour combined in pairs: past it, a table of
/// numbers would cost the square of its size and give any value by chance.
const MAX_PAIRED: usize = 24;

fn stated_value(claimed: f64, hedge: Hedge, values: &[(f64, usize)]) -> bool {
    if values.iter().any(|&(v, _)| gives(claimed, hedge, v)) {
        return true;
    }
    // Derived: from two figures of one sentence or of adjacent sentences.
    let mut by_sentence: std::collections::BTreeMap<usize, Vec<f64>> = Default::default();
    for &(v, i) in values {
        by_sentence.entry(i).or_default().push(v);
    }
    for (&i, here) in &by_sentence {
        let mut near: Vec<f64> = here.clone();
        if let Some(next) = by_sentence.get(&(i + 1)) {
            near.extend(next);
        }
        if near.len() > MAX_PAIRED {
            continue;
        }
        for (x, &a) in near.iter().enumerate() {
            for &b in &near[x + 1..] {
                let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
                let mut derived = vec![hi - lo];
                if lo > 0.0 {
                    derived.push(hi / lo);
                    derived.push(lo / hi);
                    derived.push(lo / hi * 100.0);
                    derived.push((hi - lo) / lo * 100.0);
                    derived.push((hi - lo) / hi * 100.0);
                }
                if derived.iter().any(|&d| d > 0.0 && gives(claimed, hedge, d)) {
                    return true;
                }
            }
        }
    }
    false
}

/// Whether a page dates things relative to its own date ("last year", "this year", "the
/// following year"): a year it never writes may then still be one it gives.
pub(crate) fn relative_years(text: &str) -> bool {
    let lower = text.to_lowercase();
    [
        "last year",
        "this year",
        "next year",
        "previous year",
        "following year",
        "a year later",
        "a year earlier",
        "year before",
        "years ago",
        "a year ago",
    ]
    .iter()
    .any(|p| lower.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::PageIndex;
    use crate::text::figures::parse_figures;

    fn first(text: &str) -> Figure {
        parse_figures(text).into_iter().next().expect("a figure")
    }

    fn on_page(claim: &str, page: &str) -> bool {
        let index = PageIndex::new(page);
        let c = first(claim);
        stated(&c, hedge_before(claim, &c), index.figure_values())
    }

    #[test]
    fn a_figure_is_given_as_written_or_rounded() {
        assert!(on_page(
            "Turnout was 61.3%.",
            "Turnout: 61.3% (2019: 58.9%)."
        ));
        assert!(on_page(
            "Nearly half of residents, 49%, agreed.",
            "Of residents, 48.6% agreed."
        ));
        assert!(on_page(
            "The £3.1m project was approved.",
            "The scheme will cost £3.1 million."
        ));
        assert!(on_page(
            "More than 1,600 pairs were counted.",
            "A survey counted 1,642 pairs."
        ));
        assert!(!on_page(
            "More than 1,600 pairs were counted.",
            "A survey counted 1,540 pairs."
        ));
    }

    #[test]
    fn a_figure_derived_from_two_of_the_page_is_given() {
        // 1.21m against 1.11m is up 9%.
        assert!(on_page(
            "Visits rose 9% to 1.21 million.",
            "Visits: 1.21 million in 2023-24, against 1.11 million the year before."
        ));
        // A rise of 2.4 points from 58.9% to 61.3%.
        assert!(on_page(
            "Turnout rose 2.4 points.",
            "Turnout: 61.3% (2019: 58.9%)."
        ));
    }

    #[test]
    fn a_made_up_figure_is_not_given() {
        assert!(!on_page(
            "The council spent £4.7m on the scheme.",
            "The scheme will cost £3.1 million and is funded by a grant."
        ));
        assert!(!on_page(
            "A survey counted 2,950 territories in all.",
            "The northern population held 1,180 territories, down from 1,600 in 2012."
        ));
    }

    #[test]
    fn only_statistics_are_looked_for() {
        let claim = "Two people died over 30 days in 2021, and 4,000 homes lost power.";
        let figures = parse_figures(claim);
        let statistics: Vec<&str> = figures
            .iter()
            .filter(|f| is_statistic(claim, f))
            .map(|f| f.text.as_str())
            .collect();
        assert_eq!(statistics, ["4,000"], "{figures:?}");
    }
}
