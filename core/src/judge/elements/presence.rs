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
        || is_age_after_name(claim, at, figure)
}

/// "Ewan Lindsay, 78, secretary of the club": a person's age, set off by commas after their name
/// (a capitalized word), as news copy writes it.
fn is_age_after_name(claim: &str, at: usize, figure: &Figure) -> bool {
    if figure.value < 1.0 || figure.value > 120.0 || figure.value.fract() != 0.0 {
        return false;
    }
    let before = claim[..at].trim_end();
    let after = claim[at + figure.text.len()..].trim_start();
    let Some(name_end) = before.strip_suffix(',') else {
        return false;
    };
    let last_word = name_end
        .rsplit(|c: char| c.is_whitespace())
        .next()
        .unwrap_or_default();
    (after.starts_with(',') || after.starts_with(')') || after.is_empty() || after.starts_with('.'))
        && last_word.chars().next().is_some_and(char::is_uppercase)
        && last_word
            .chars()
            .all(|c| c.is_alphabetic() || c == '-' || c == '\'')
}

/// A number a page's sentence states: its value, the sentence, and its unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageValue {
    pub value: f64,
    pub sentence: usize,
    pub unit: Unit,
}

/// The numbers a page's sentences state, each figure's value once, with where it is. Years are
/// left out: a year is a date, not a quantity, and its ratio to an amount gives any number.
pub(crate) fn page_values(sentences: &[Text]) -> Vec<PageValue> {
    let mut out = Vec::new();
    for (i, s) in sentences.iter().enumerate() {
        for (f, _) in s.figures.iter() {
            if f.unit == Unit::Year {
                continue;
            }
            let value = |value: f64, unit: Unit| PageValue {
                value,
                sentence: i,
                unit,
            };
            out.push(value(f.value, f.unit));
            // A share written as a ratio is a percentage too ("one in five", "half": 20%, 50%),
            // and a percentage a ratio.
            match f.unit {
                Unit::Ratio if f.value > 0.0 && f.value <= 1.0 => {
                    out.push(value(f.value * 100.0, Unit::Percent));
                }
                Unit::Percent | Unit::PercentagePoints => {
                    out.push(value(f.value / 100.0, Unit::Ratio));
                }
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
pub fn stated(c: &Figure, hedge: Hedge, values: &[PageValue]) -> bool {
    match c.unit {
        // "one in twenty" is 5 (percent) as well as 0.05.
        Unit::Ratio if c.value > 0.0 && c.value <= 1.0 => {
            stated_value(c.value, Unit::Ratio, hedge, values)
                || stated_value(c.value * 100.0, Unit::Percent, hedge, values)
        }
        unit => stated_value(c.value, unit, hedge, values),
    }
}

/// Whether the page writes the claim's figure `c` itself: a number of the same value (to the
/// rounding of how it is written) and a compatible unit: a percentage for a percentage, money
/// for money, any number for a plain count.
pub fn written_exactly(c: &Figure, values: &[PageValue]) -> bool {
    if c.unit == Unit::Year || !c.value.is_finite() {
        return false;
    }
    values.iter().any(|v| {
        let units = v.unit == c.unit
            || c.unit == Unit::Count
            || (matches!(c.unit, Unit::Percent | Unit::PercentagePoints)
                && matches!(v.unit, Unit::Percent | Unit::PercentagePoints));
        let scale = c.value.abs().max(v.value.abs());
        units && (scale == 0.0 || (c.value - v.value).abs() / scale <= 0.005)
    })
}

/// What two figures of one unit give, as a figure of unit `claimed`: their difference (in
/// their unit; points for two percentages), their ratio (a multiple or share), their change or
/// share in percent.
fn derivable(pair: Unit, claimed: Unit) -> (bool, bool, bool) {
    // "2.4 points" may be read as a plain count.
    let difference = pair == claimed
        || (matches!(pair, Unit::Percent | Unit::PercentagePoints)
            && matches!(
                claimed,
                Unit::Percent | Unit::PercentagePoints | Unit::Count
            ));
    let ratio = matches!(claimed, Unit::Ratio | Unit::Multiplier);
    let percent = claimed == Unit::Percent;
    (difference, ratio, percent)
}

/// The most figures of a sentence and its neighbour combined in pairs: past it, a table of
/// numbers would cost the square of its size and give any value by chance.
const MAX_PAIRED: usize = 24;

fn stated_value(claimed: f64, unit: Unit, hedge: Hedge, values: &[PageValue]) -> bool {
    values.iter().any(|v| gives(claimed, hedge, v.value))
        || derived(unit, values, false, |d| gives(claimed, hedge, d))
}

/// Whether the page gives the claim's figure `c` by the difference, ratio or change of two of its
/// figures, to the rounding of how the claim writes it (half a percent): what a reporter
/// computed from the page ("up 14.2%" from 2,987 to 3,412).
pub fn derived_exactly(c: &Figure, values: &[PageValue]) -> bool {
    if c.unit == Unit::Year {
        return false;
    }
    let close =
        |d: f64| ((c.value - d) / c.value.abs().max(d.abs()).max(f64::MIN_POSITIVE)).abs() <= 0.005;
    derived(c.unit, values, true, close)
}

/// Whether two figures of one unit, in one sentence or adjacent sentences, give a value
/// `accept` takes: their difference, ratio or change in percent, as `unit` can be derived.
/// `strict`: only in the claim's own unit (two percentages differ by points, not by a percent).
fn derived(unit: Unit, values: &[PageValue], strict: bool, accept: impl Fn(f64) -> bool) -> bool {
    let mut by_sentence: std::collections::BTreeMap<usize, Vec<PageValue>> = Default::default();
    for v in values {
        by_sentence.entry(v.sentence).or_default().push(*v);
    }
    for (&i, here) in &by_sentence {
        let mut near: Vec<PageValue> = here.clone();
        if let Some(next) = by_sentence.get(&(i + 1)) {
            near.extend(next);
        }
        if near.len() > MAX_PAIRED {
            continue;
        }
        for (x, a) in near.iter().enumerate() {
            for b in &near[x + 1..] {
                if a.unit != b.unit {
                    continue;
                }
                let (difference, ratio, percent) = derivable(a.unit, unit);
                let difference = difference && !(strict && unit == Unit::Percent);
                let (lo, hi) = if a.value <= b.value {
                    (a.value, b.value)
                } else {
                    (b.value, a.value)
                };
                let mut derived = Vec::with_capacity(6);
                if difference {
                    derived.push(hi - lo);
                }
                if lo > 0.0 && ratio {
                    derived.push(hi / lo);
                    derived.push(lo / hi);
                }
                if lo > 0.0 && percent {
                    derived.push(lo / hi * 100.0);
                    derived.push((hi - lo) / lo * 100.0);
                    derived.push((hi - lo) / hi * 100.0);
                }
                if derived.iter().any(|&d| d > 0.0 && accept(d)) {
                    return true;
                }
            }
        }
    }
    false
}

/// The rounding a figure is written to, in its value's units: "2,987" to the unit, "3,000" to
/// the thousand, "4.7%" to a tenth, "£3.3m" to £100,000. `None` for a figure in words.
pub fn rounding_of(c: &Figure) -> Option<f64> {
    let digits: String = c
        .text
        .chars()
        .skip_while(|ch| !ch.is_ascii_digit())
        .take_while(|ch| ch.is_ascii_digit() || *ch == '.' || *ch == ',')
        .filter(|ch| *ch != ',')
        .collect();
    let digits = digits.trim_end_matches('.');
    if digits.is_empty() {
        return None;
    }
    let step = match digits.split_once('.') {
        Some((_, decimals)) => 10f64.powi(-i32::try_from(decimals.len()).ok()?),
        None => {
            let zeros = digits.len() - digits.trim_end_matches('0').len();
            if zeros == digits.len() {
                1.0
            } else {
                10f64.powi(i32::try_from(zeros).ok()?)
            }
        }
    };
    Some(step * c.scale.max(1.0))
}

/// Whether a figure is written as an exact value: with a decimal, or with three significant
/// digits or more.
fn precise(c: &Figure) -> bool {
    let number: String = c
        .text
        .chars()
        .skip_while(|ch| !ch.is_ascii_digit())
        .take_while(|ch| ch.is_ascii_digit() || *ch == '.' || *ch == ',')
        .filter(|ch| *ch != ',')
        .collect();
    let number = number.trim_end_matches('.');
    if number.contains('.') {
        return true;
    }
    number.trim_start_matches('0').trim_end_matches('0').len() >= 3
}

/// Whether the page's figure `page` is beyond what either figure, as written, rounds: "2,897"
/// is no rounding of 2,987; "3,000" is one of 2,987, and "$31.5 billion" of the page's "$30
/// billion" (written to the ten billion, it may round 31.5).
pub fn beyond_rounding(c: &Figure, page: &Figure) -> bool {
    // A figure of one or two digits ("27%", "40 homes") is often written loosely; one written
    // to a decimal or to three digits or more ("4.4%", "1,826") says it is exact.
    if !precise(c) {
        return false;
    }
    let step = match (rounding_of(c), rounding_of(page)) {
        (Some(a), Some(b)) => a.max(b),
        (Some(a), None) => a,
        _ => return false,
    };
    (c.value - page.value).abs() > step * 0.5 + 1e-9
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
    fn a_year_or_another_unit_derives_no_figure() {
        // $120 million over the year 1991 is 60,271: no source of "about 64,000 jobs".
        assert!(!on_page(
            "Tourism supports about 64,000 jobs.",
            "The fund, set up in 1991, has $120 million to spend."
        ));
        // An amount of money over a count of people is no count of jobs.
        assert!(!on_page(
            "The scheme created 2,500 jobs.",
            "The council spent £5 million to help 2,000 households."
        ));
        // Two amounts of money still give their difference.
        assert!(on_page(
            "Spending rose by £2m.",
            "Spending was £12m this year and £10m last year."
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
    fn a_persons_age_after_their_name_is_no_statistic() {
        for (claim, age) in [
            (
                "Ewan Lindsay, 78, secretary of the club, said members keep stones ready.",
                "78",
            ),
            (
                "At the bus station, Darren Kaye, 46, a delivery driver, said the buses decided it.",
                "46",
            ),
            ("The victim, Amira Haddad, 23, died at the scene.", "23"),
        ] {
            let f = parse_figures(claim)
                .into_iter()
                .find(|f| f.text == age)
                .expect("the age is read as a figure");
            assert!(!is_statistic(claim, &f), "{claim}");
        }
        // A count after a place name is a statistic.
        let claim = "Across Kelbridge, 4,200 homes lost power.";
        let f = parse_figures(claim).into_iter().next().expect("a figure");
        assert!(is_statistic(claim, &f));
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
