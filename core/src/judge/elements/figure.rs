//! Figure comparison: each figure of the claim against the figures of the same kind (unit,
//! currency, period) that the best passages state.
//!
//! A claim figure is matched with the closest comparable source figure. Years must be equal or
//! are counted as absent: a page names many years, and the nearest one is rarely the same event.

use super::presence::Hedge;
use crate::judge::align::{Alignment, NEAR_BEST};
use crate::judge::text::{Stems, Text};
use crate::model::{Figure, Unit};
use crate::text::lexicon::Axis;

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
pub(crate) fn comparable(claim: &Figure, source: &Figure) -> bool {
    claim.unit == source.unit
        && (claim.unit != Unit::Currency
            || claim.currency.is_none()
            || source.currency.is_none()
            || claim.currency == source.currency)
        && claim.per == source.per
}

/// Relative error of `claim` against `source`; infinite when the source says 0 and the claim not.
pub(crate) fn relative_error(claim: f64, source: f64) -> f64 {
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
pub(crate) fn share_error(claim: &Figure, source: &Figure) -> Option<f64> {
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
pub(crate) fn errors_against<'s>(
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
pub(crate) fn counted_noun(text: &str, figure_text: &str) -> Option<String> {
    let at = text.find(figure_text)? + figure_text.len();
    text[at..]
        .split(|c: char| !c.is_alphabetic() && c != '-')
        .filter(|w| !w.is_empty())
        .take(2)
        .find(|w| crate::text::lexicon::counted_noun(w))
        .map(|w| crate::judge::retrieve::stem(&w.to_lowercase()))
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

/// The share of the claim clause's weighted words (its figures left out) a source sentence
/// must hold, and the share of the source figure's own clause words the claim must hold, for the
/// two to state the same fact ([`same_fact`]). Fitted on WiCE dev (`examples/judge_fit.rs`).
pub(crate) const DEFAULT_SAME_FACT_SHARE: f64 = 0.6;

/// Words that say what kind of figure it is, not whose: they do not tell one subject from another.
const GENERIC: &[&str] = &[
    "revenue",
    "revenues",
    "sales",
    "rate",
    "rates",
    "share",
    "figure",
    "figures",
    "total",
    "per",
    "cent",
    "percent",
    "percentage",
    "points",
    "up",
    "down",
    "year",
    "years",
    "over",
    "compared",
    "from",
    "number",
    "level",
    "value",
    "amount",
    "increase",
    "decrease",
    "rise",
    "fall",
    "change",
    "growth",
    "about",
    "around",
    "nearly",
    "almost",
    "some",
    "more",
    "less",
    "than",
    "estimated",
    "million",
    "billion",
    "thousand",
    "bn",
];

/// [`GENERIC`] as the judge stems words.
static GENERIC_STEMS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
    GENERIC
        .iter()
        .map(|w| crate::judge::retrieve::stem(w))
        .collect()
});

/// Whether a stem names no subject ([`GENERIC`], numbers).
pub(crate) fn generic(word: &str) -> bool {
    GENERIC_STEMS.iter().any(|g| g == word) || word.chars().all(|c| c.is_ascii_digit() || c == '.')
}

/// Past this many figures a page sentence is not aligned figure by figure ([`same_fact`],
/// [`super::subject::swapped`]).
pub(crate) const MAX_SENTENCE_FIGURES: usize = 100;

/// Verbs that only set a figure equal to what it is of ("is worth $30 billion", "reached",
/// "stood at", "totalled"): they name no subject and no quantity, so the claim and the page may
/// use any of them for the same fact.
const STATING_VERBS: &[&str] = &[
    "worth",
    "reached",
    "reach",
    "reaches",
    "stood",
    "stands",
    "totalled",
    "totaled",
    "totals",
    "amounted",
    "amounts",
    "valued",
    "hit",
    "hits",
    "came",
    "comes",
    "was",
    "were",
    "is",
    "are",
    "estimated",
    "put",
    "puts",
    "around",
    "roughly",
    "about",
    "nearly",
    "almost",
];

fn stating_verb(t: &Text, j: usize) -> bool {
    STATING_VERBS.contains(&t.lower(j))
}

/// A figure of the page that states the same fact as a figure of the claim: the same subject and
/// the same measured quantity, told by the words around each.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SameFact {
    /// The page's sentence, as an index of the page's sentences.
    pub sentence: usize,
    /// The page's figure for it.
    pub figure: Figure,
    /// The page's figure gives the claim's within the tolerance (with its hedge).
    pub agrees: bool,
}

/// The clauses a figure's words are read from: from the clause after the previous figure's
/// clause to its own, and, for the last figure, on to the sentence's end ("The western Pacific
/// fared worst, with 71% of sites affected": the whole sentence; "pay grew 5.2%, and the rate
/// held at 4.3%": a clause each).
fn segment(t: &Text, at: usize) -> std::ops::Range<usize> {
    let Some(own) = t.clause_index(at) else {
        return 0..t.toks.len();
    };
    // Figures are in text order: the last one before the figure's clause and the first after
    // it name the neighbouring clauses with figures.
    let own_range = &t.clauses[own];
    let before = t.figures.partition_point(|(_, f)| *f < own_range.start);
    let prev = before
        .checked_sub(1)
        .and_then(|k| t.clause_index(t.figures[k].1));
    let after = t.figures.partition_point(|(_, f)| *f < own_range.end);
    let next = t.figures.get(after).and_then(|(_, f)| t.clause_index(*f));
    let first = prev.map_or(0, |p| p + 1);
    let last = if next.is_some() {
        own
    } else {
        t.clauses.len() - 1
    };
    let start = t.clauses.get(first).map_or(0, |c| c.start);
    let end = t.clauses.get(last).map_or(t.toks.len(), |c| c.end);
    start..end
}

/// The words a figure is said of in its text: the content stems of its [`segment`], without
/// the numbers of figures (years kept, but for the figure's own: a year says which figure it
/// is), without words of rise and fall (the direction rule compares those), and without the
/// clauses that only say who said it ("the council said", "according to its annual review"):
/// the attribution is no part of the fact.
pub(crate) fn said_of(t: &Text, at: usize) -> Stems {
    said_of_upto(t, at, false)
}

/// The words of [`said_of`] written before the figure only ("BudgetTutor Basic costs" of
/// "BudgetTutor Basic costs $9/month and includes unlimited chat help"): what a figure is of is
/// mostly named before it, and what follows may be another statement about the same thing.
fn said_before(t: &Text, at: usize) -> Stems {
    said_of_upto(t, at, true)
}

/// How far either side of a figure its words are read: the whole of any prose sentence, and
/// a bound on the work in a "sentence" of thousands of tokens (a table run together).
const NEAR_TOKENS: usize = 200;

fn said_of_upto(t: &Text, at: usize, before_only: bool) -> Stems {
    let near = at.saturating_sub(NEAR_TOKENS)..at.saturating_add(NEAR_TOKENS).min(t.toks.len());
    let clip = |r: std::ops::Range<usize>| r.start.max(near.start)..r.end.min(near.end);
    // The figures near it (in text order), and the tokens they are written in.
    let figures = {
        let from = t.figures.partition_point(|(_, f)| *f < near.start);
        let to = t.figures.partition_point(|(_, f)| *f < near.end);
        &t.figures[from..to]
    };
    let tokens_of = |f: &Figure, first: usize| {
        let end = t.toks[first].start as usize + f.text.len();
        (first..t.toks.len()).take_while(move |&i| (t.toks[i].start as usize) < end)
    };
    let numbers: std::collections::HashSet<usize> = figures
        .iter()
        .filter(|(f, _)| f.unit != Unit::Year)
        .flat_map(|(f, first)| tokens_of(f, *first))
        .collect();
    let own: std::collections::HashSet<usize> = figures
        .iter()
        .filter(|(_, first)| *first == at)
        .flat_map(|(f, first)| tokens_of(f, *first))
        .collect();
    // Clauses, and parts of a clause between commas ("…and imports rose 6%, the customs office
    // said"), that hold a reporting verb and no figure.
    let first_clause = t.clauses.partition_point(|c| c.end <= near.start);
    let parts = t.clauses[first_clause..]
        .iter()
        .take_while(|c| c.start < near.end)
        .map(|c| clip(c.clone()))
        .flat_map(|c| {
            let mut cuts: Vec<usize> = c
                .clone()
                .filter(|&j| matches!(t.lower(j), "," | ";"))
                .collect();
            cuts.push(c.end);
            let mut from = c.start;
            cuts.into_iter()
                .map(move |to| {
                    let part = from..to;
                    from = to;
                    part
                })
                .collect::<Vec<_>>()
        });
    let attribution: Vec<std::ops::Range<usize>> = parts
        .filter(|c| {
            !t.has_figure_in(c)
                && c.clone()
                    .any(|j| super::speaker::is_reporting_verb(t.lower(j)))
        })
        .collect();
    let asides = asides(t, at, near.clone());
    // "…, according to analysts": who said it, to the end of its clause.
    let according: Vec<std::ops::Range<usize>> = near
        .clone()
        .filter(|&j| t.lower(j) == "according")
        .map(|j| j..t.clause_of(j).end)
        .collect();
    let skip = |j: usize| {
        numbers.contains(&j)
            || own.contains(&j)
            || according.iter().any(|c| c.contains(&j))
            || asides.iter().any(|c| c.contains(&j))
            || attribution.iter().any(|c| c.contains(&j))
            || t.directions(j).iter().any(|d| d.0 == Axis::Amount)
            || stating_verb(t, j)
            || crate::judge::text::CLAUSE_WORDS.contains(&t.lower(j))
    };
    let mut range = clip(segment(t, at));
    if before_only {
        range.end = range.end.min(at);
        // From the previous figure on: "Rents rose 8%, while house prices rose 3%" names house
        // prices before the 3%, whether or not the sentence is cut into clauses there.
        let k = t.figures.partition_point(|(_, f)| *f < at);
        if let Some((_, previous)) = k.checked_sub(1).map(|k| &t.figures[k]) {
            range.start = range.start.max(previous + 1).min(range.end);
        }
    }
    let words = t.stems(range, &skip);
    if before_only || !words.is_empty() {
        return words;
    }
    // A figure alone in its clause ("…, at 27%."): what the whole sentence says.
    t.stems(near, &skip)
}

/// The asides of a text the figure at `at` is not in: words between paired dashes or in
/// brackets ("BudgetTutor Basic — the entry plan — costs $4/month") describe in passing, they
/// do not say which figure it is. Read in tokens `within`.
fn asides(t: &Text, at: usize, within: std::ops::Range<usize>) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut open: Option<(usize, &str)> = None;
    for j in within {
        let w = t.lower(j);
        match (open, w) {
            (None, "(" | "—" | "–") => open = Some((j, w)),
            (Some((from, "(")), ")") | (Some((from, "—")), "—") | (Some((from, "–")), "–") =>
            {
                if !(from..j).contains(&at) {
                    out.push(from..j + 1);
                }
                open = None;
            }
            _ => {}
        }
    }
    out
}

/// Whether two figures are of the same kind for [`same_fact`]: the same unit (or shares written
/// either way), currencies that agree when both are given, periods that agree when both are given.
pub(crate) fn same_kind(c: &Figure, f: &Figure) -> bool {
    let unit = c.unit == f.unit || share_error(c, f).is_some();
    let currency = c.currency.is_none() || f.currency.is_none() || c.currency == f.currency;
    let per = c.per.is_none() || f.per.is_none() || c.per == f.per;
    unit && currency && per
}

/// The noun a count counts, by its text ("9,000 procedures" → "procedur").
pub(crate) fn counted(t: &Text, f: &Figure) -> Option<String> {
    counted_noun(t.text(), &f.text)
}

/// The period a figure is given for, when written right after it: "5% in 2024", "fell to 4.1% in
/// March", "$2bn in March 2023". In a sentence of figures for several periods ("3% in 2023 and 5%
/// in 2024"), that is what tells one figure from the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct FigurePeriod {
    year: Option<i64>,
    month: Option<u8>,
}

impl FigurePeriod {
    /// Whether the two name another year or another month (a period only one of them names
    /// differs from nothing).
    pub(crate) fn differs(&self, other: &FigurePeriod) -> bool {
        let apart = |a: Option<i64>, b: Option<i64>| a.zip(b).is_some_and(|(a, b)| a != b);
        apart(self.year, other.year) || apart(self.month.map(i64::from), other.month.map(i64::from))
    }

    fn is_some(&self) -> bool {
        self.year.is_some() || self.month.is_some()
    }

    /// The year it names, if any.
    pub(crate) fn year(&self) -> Option<i64> {
        self.year
    }
}

/// Words that lead from a figure to the period it is for.
const PERIOD_LEADS: &[&str] = &["in", "during", "for", "by"];

/// The period written right after the figure `f` at token `first` of `t` (see [`FigurePeriod`]):
/// a lead word ("in", "during", "for", "by"), then a month, a year, or a month and a year.
pub(crate) fn period_after(t: &Text, f: &Figure, first: usize) -> FigurePeriod {
    figure_and_period(t, f, first).0
}

/// [`period_after`], and the token past the figure and its period: where the words about the
/// next figure start ("4% in May and 6% in June": "and").
pub(crate) fn figure_and_period(t: &Text, f: &Figure, first: usize) -> (FigurePeriod, usize) {
    let end = t.toks[first].start as usize + f.text.len();
    let after = (first..t.toks.len())
        .find(|&i| (t.toks[i].start as usize) >= end)
        .unwrap_or(t.toks.len());
    if after >= t.toks.len() || !PERIOD_LEADS.contains(&t.lower(after)) {
        return (FigurePeriod::default(), after);
    }
    let (period, past) = period_at(t, after + 1);
    (period, if period.is_some() { past } else { after })
}

/// The month, the year, or the month and year written from token `j` of `t` ("March", "2024",
/// "March 2024"; not a decade), and the token past them.
fn period_at(t: &Text, mut j: usize) -> (FigurePeriod, usize) {
    let mut period = FigurePeriod::default();
    if j < t.toks.len()
        && t.toks[j].capital()
        && let Some(month) = crate::text::lexicon::month_number(t.lower(j))
    {
        period.month = Some(month);
        j += 1;
    }
    if let Some((year, _)) = t
        .figures
        .iter()
        .find(|(y, at)| *at == j && y.unit == Unit::Year && !y.text.ends_with('s'))
    {
        period.year = Some(year.value as i64);
        j += 1;
    }
    (period, j)
}

/// The period the page's figure `f` (at token `first` of its sentence `s`) is given for: the one
/// written after it; else the one the sentence opens with ("In 2024 sales rose 5%, after 2% in
/// 2023": 2024 for the 5%), for the figures before the first that names its own.
pub(crate) fn page_period(s: &Text, f: &Figure, first: usize) -> FigurePeriod {
    let after = period_after(s, f, first);
    if after.is_some() || s.toks.is_empty() || !PERIOD_LEADS.contains(&s.lower(0)) {
        return after;
    }
    let (opening, past) = period_at(s, 1);
    if !opening.is_some() {
        return after;
    }
    let named_before = s
        .figures
        .iter()
        .filter(|(g, at)| *at >= past && *at < first && g.unit != Unit::Year)
        .any(|(g, at)| period_after(s, g, *at).is_some());
    if named_before { after } else { opening }
}

/// The period the claim's figure `c` (at claim token `at`) is given for: the one written after
/// it, else the claim's only year and only month led in by a word of time ("In 2024, wages rose
/// 5%"; not "the 2024 report").
pub(crate) fn claim_period(t: &Text, c: &Figure, at: usize) -> FigurePeriod {
    let after = period_after(t, c, at);
    if after.is_some() {
        return after;
    }
    // "In 2024" or "in March", not "the 2024 report": a year or month led in by a word of time.
    let led = |at: usize| {
        at.checked_sub(1)
            .is_some_and(|b| PERIOD_LEADS.contains(&t.lower(b)))
    };
    let mut years = t
        .figures
        .iter()
        .filter(|(y, at)| y.unit == Unit::Year && !y.text.ends_with('s') && led(*at))
        .map(|(y, _)| y.value as i64);
    let year = years.next().filter(|y| years.all(|other| other == *y));
    let months = super::date::periods_of(t);
    let mut months = months
        .iter()
        .filter(|p| led(p.at()))
        .filter_map(super::date::Period::month);
    let month = months.next().filter(|m| months.all(|other| other == *m));
    FigurePeriod { year, month }
}

/// The page's statement of the same fact as the claim's figure `c` (at claim token `at`), when
/// one is there: among the page's figures of the same kind (counting the same things), those
/// whose sentence holds at least `share` of the weighted words the claim's figure is said of,
/// and whose own words are, by the same share, words of the claim (so that "the 2% target" or
/// "core inflation" is not read as the claim's "inflation"). One that gives the claim's value
/// wins when it is aligned nearly as well as the best; else the best aligned.
///
/// Not compared: a duration or clock time ("less than 18 weeks" is a threshold, not a
/// statistic). A year is compared with the page's years only, and agrees only when equal.
pub(crate) fn same_fact(
    a: &Alignment<'_>,
    c: &Figure,
    at: usize,
    hedge: Hedge,
    share: f64,
) -> Option<SameFact> {
    let claim = &a.claim;
    // A decade ("the 1840s") names no year to compare.
    if super::presence::counts_time(claim.text(), c)
        || (c.unit == Unit::Year && c.text.ends_with('s'))
    {
        return None;
    }
    let words = said_of(claim, at);
    let total = a.weight_of(&words);
    if total <= 0.0 || words.len() < 2 {
        return None;
    }
    let claim_noun = (c.unit == Unit::Count).then(|| counted(claim, c)).flatten();
    let ours_period = claim_period(claim, c, at);
    let claim_all = &a.claim_stems;
    // (score, what the page names before the figure, the figure)
    let mut best: Option<(f64, Named, SameFact)> = None;
    let mut agreeing: Option<(f64, Named, SameFact)> = None;
    for (i, s) in a.page.sentences().iter().enumerate() {
        // A "sentence" of hundreds of figures (a table run together) says of none of them what
        // it is of: its figures count as given (presence), not as aligned facts.
        if s.figures.len() > MAX_SENTENCE_FIGURES {
            continue;
        }
        // How much of what the claim's figure is of the sentence holds: the same for each of its
        // figures, so weighed once, and only when one of them could be the claim's.
        let mut held: Option<Option<f64>> = None;
        for (f, ft) in s.figures.iter() {
            if !same_kind(c, f) || super::presence::counts_time(s.text(), f) {
                continue;
            }
            // A figure the page gives for another year or month ("3% in 2023 and 5% in 2024")
            // is not the claim's for its own.
            if c.unit != Unit::Year && ours_period.differs(&page_period(s, f, *ft)) {
                continue;
            }
            // A sentence that dates things by its own date too ("took the cup this year,
            // building on 2018") may date the claim's event without writing its year.
            if c.unit == Unit::Year && super::presence::relative_years(s.text()) {
                continue;
            }
            if let (Some(ours), Some(theirs)) = (&claim_noun, counted(s, f))
                && *ours != theirs
            {
                continue;
            }
            let held = *held.get_or_insert_with(|| {
                let held = words
                    .iter()
                    .filter(|&w| s.holds(0..s.toks.len(), w))
                    .map(|w| a.weight(w))
                    .sum::<f64>()
                    / total;
                (held >= share).then_some(held)
            });
            let Some(held) = held else {
                continue;
            };
            let known = a.figure_words(i, s, *ft, c.unit);
            let theirs = &known.theirs;
            let their_total = a.weight_of(theirs);
            if their_total <= 0.0 {
                continue;
            }
            let in_claim = |theirs: &Stems, total: f64| {
                theirs
                    .iter()
                    .filter(|&w| claim_all.contains(w))
                    .map(|w| a.weight(w))
                    .sum::<f64>()
                    / total
            };
            let mut ours = in_claim(theirs, their_total);
            // What the page names before its figure: the claim's subject ("house prices rose
            // 3%"), another ("rents rose 8%"), or nothing ("… 3% in 2023 and 5% in 2024").
            let mut named = Named::Nothing;
            if c.unit != Unit::Year {
                // What the page names before its figure, when that is all in the claim, is what
                // the figure is of, whatever the sentence goes on to say after it.
                let before = &known.before;
                let before_total = a.weight_of(before);
                named = if !known.written_before {
                    Named::Nothing
                } else if !before.is_empty() && before.iter().all(|w| claim_all.contains(w)) {
                    Named::Claims
                } else {
                    Named::Other
                };
                if before.len() >= 2 && before_total > 0.0 {
                    ours = ours.max(in_claim(before, before_total));
                }
            }
            if ours < share {
                continue;
            }
            let score = held.min(ours);
            // A year is the same year or another (a sentence that writes the claim's year at
            // all, in a range "1985–2012" as well, gives it); other figures agree within the
            // tolerance.
            // A table's figure whose scale its label gives ("Bulk cargo (million tonnes) 9.6")
            // is read at the claim's scale when the sentence names it.
            let f = &in_named_scale(f, c, s.text());
            let agrees = if c.unit == Unit::Year {
                c.value == f.value || s.text().contains(c.text.as_str())
            } else {
                states(c, hedge, f.value)
                    || share_error(c, f).is_some_and(|e| e <= super::presence::STATED_TOLERANCE)
            };
            let found = SameFact {
                sentence: i,
                figure: f.clone(),
                agrees,
            };
            let slot = if agrees { &mut agreeing } else { &mut best };
            if slot.as_ref().is_none_or(|(b, _, _)| score > *b) {
                *slot = Some((score, named, found));
            }
        }
    }
    choose(agreeing, best)
}

impl Alignment<'_> {
    /// Whether a sentence of the page writes `written` (a year, a figure as the claim writes it),
    /// dates nothing else, and holds most of the claim's other words (counted): the page states
    /// the claim with it.
    pub(crate) fn states_with_the_claim(&self, written: &str) -> bool {
        let words: Vec<crate::judge::retrieve::TokenId> = self
            .claim_stems
            .iter()
            .filter(|w| !crate::judge::retrieve::is_number(self.stem_text(*w)))
            .collect();
        if words.len() < 2 || written.is_empty() {
            return false;
        }
        // A sentence that dates two things ("$5 million in 2019 and $7 million in 2020") does
        // not say which its year is of.
        let one_year = |s: &Text| {
            s.figures
                .iter()
                .filter(|(f, _)| f.unit == Unit::Year && f.text != written)
                .count()
                == 0
        };
        self.page.sentences().iter().any(|s| {
            s.text().contains(written)
                && one_year(s)
                && words
                    .iter()
                    .filter(|&&w| s.holds(0..s.toks.len(), w))
                    .count()
                    * 2
                    >= words.len()
        })
    }
}

/// The share of the claim's weighted words a sentence must hold for its figure to be a near miss
/// of the claim's.
const NEAR_MISS_SHARE: f64 = 0.5;

/// A figure of the page close to the claim's (within the tolerance) but no rounding of it as the
/// claim writes it, in a sentence that states most of what the claim says of its figure: where
/// the alignment did not pair them, "2,897 a year earlier" against "against 2,987 on 1 April
/// 2024". The best such figure by the share of the claim's words its sentence holds.
pub(crate) fn near_miss(a: &Alignment<'_>, c: &Figure, at: usize) -> Option<SameFact> {
    let claim = &a.claim;
    if c.unit == Unit::Year || super::presence::counts_time(claim.text(), c) {
        return None;
    }
    // What the claim says of its figure, else the whole claim ("up from 2,897 a year earlier"
    // says little of its own).
    let own = said_of(claim, at);
    let words = if own.len() >= 3 {
        own
    } else {
        a.claim_stems.clone()
    };
    // Its words, not its numbers: a number the page does not write weighs most and says least.
    let words = Stems::of(
        words
            .iter()
            .filter(|w| !crate::judge::retrieve::is_number(a.stem_text(*w)))
            .collect(),
    );
    if words.len() < 2 {
        return None;
    }
    let ours_period = claim_period(claim, c, at);
    let mut best: Option<(f64, SameFact)> = None;
    for (i, s) in a.page.sentences().iter().enumerate() {
        if s.figures.len() > MAX_SENTENCE_FIGURES {
            continue;
        }
        for (f, ft) in s.figures.iter() {
            if !same_kind(c, f)
                || relative_error(c.value, f.value) > super::presence::STATED_TOLERANCE
                || !super::presence::beyond_rounding(c, f)
                || ours_period.differs(&page_period(s, f, *ft))
            {
                continue;
            }
            // Counted, not weighted: a word the page never uses weighs the most, and a near
            // miss is a figure the claim's other words place.
            let held = words
                .iter()
                .filter(|&w| s.holds(0..s.toks.len(), w))
                .count() as f64
                / words.len() as f64;
            if held >= NEAR_MISS_SHARE && best.as_ref().is_none_or(|(b, _)| held > *b) {
                best = Some((
                    held,
                    SameFact {
                        sentence: i,
                        figure: f.clone(),
                        agrees: true,
                    },
                ));
            }
        }
    }
    best.map(|(_, fact)| fact)
}

impl Alignment<'_> {
    /// What the figure at token `ft` of page sentence `i` (`s`) is of, for a claim figure of
    /// `unit`: worked out once per alignment.
    fn figure_words(
        &self,
        i: usize,
        s: &Text,
        ft: usize,
        unit: Unit,
    ) -> std::rc::Rc<crate::judge::align::PageFigureWords> {
        let key = (i, ft, unit == Unit::Year);
        if let Some(known) = self.page_figure_words.borrow().get(&key) {
            return std::rc::Rc::clone(known);
        }
        let theirs = page_figure_words(self, s, ft, unit);
        let written = said_before(s, ft);
        let before = Stems::of(
            written
                .iter()
                .filter(|w| !generic(self.stem_text(*w)))
                .collect(),
        );
        let known = std::rc::Rc::new(crate::judge::align::PageFigureWords {
            theirs,
            before,
            written_before: !written.is_empty(),
        });
        self.page_figure_words
            .borrow_mut()
            .insert(key, std::rc::Rc::clone(&known));
        known
    }
}

/// What the page's figure at token `ft` of sentence `s` is of, in words that tell one thing from
/// another, for a claim figure of `unit`.
fn page_figure_words(a: &Alignment<'_>, s: &Text, ft: usize, unit: Unit) -> Stems {
    // A year dates what its own clause says: "took the cup this year, building on
    // their achievements in 2018" dates the achievements, not the cup.
    let theirs = if unit == Unit::Year {
        let clause = s.clause_of(ft);
        let numbers = s.figure_tokens_where(|f| f.unit != Unit::Year);
        let words = s.stems(clause, &|j| j == ft || numbers.contains(&j));
        if words.len() >= 2 {
            words
        } else {
            said_of(s, ft)
        }
    } else {
        said_of(s, ft)
    };
    // What the page's figure is of, in words that tell one thing from another: "years"
    // or "revenue" says what kind of figure it is, not whose.
    let telling =
        |words: Stems| Stems::of(words.iter().filter(|w| !generic(a.stem_text(*w))).collect());
    let mut theirs = telling(theirs);
    // A figure that continues a list names nothing of its own ("Wages rose 3% in 2023
    // and 5% in 2024"): it is of what the figure before it is of.
    if theirs.is_empty() && unit != Unit::Year {
        let before = s.figures.partition_point(|(_, at)| *at < ft);
        if let Some((_, previous)) = s.figures[..before]
            .iter()
            .rev()
            .find(|(p, _)| p.unit != Unit::Year)
        {
            theirs = telling(said_of(s, *previous));
        }
    }
    theirs
}

/// The page's figure `f` at the claim figure `c`'s scale, when `f` is written without one and its
/// sentence (`text`) names the claim's ("million" in a table row "Bulk cargo (million tonnes) |
/// 8.9 | 9.6", "Revenue ($ millions)"); else `f` as written.
pub(crate) fn in_named_scale(f: &Figure, c: &Figure, text: &str) -> Figure {
    let word = match c.scale {
        1e3 => "thousand",
        1e6 => "million",
        1e9 => "billion",
        _ => return f.clone(),
    };
    let named = text.split(|ch: char| !ch.is_alphanumeric()).any(|w| {
        let w = w.strip_suffix('s').unwrap_or(w);
        w.eq_ignore_ascii_case(word)
    });
    if f.scale != 1.0 || f.unit != c.unit || !named {
        return f.clone();
    }
    Figure {
        value: f.value * c.scale,
        scale: c.scale,
        ..f.clone()
    }
}

/// Of the best aligned statement of the claim's value (`agreeing`) and the best aligned other
/// figure (`best`), each with what the page names before it, the page's statement of the fact.
fn choose(
    agreeing: Option<(f64, Named, SameFact)>,
    best: Option<(f64, Named, SameFact)>,
) -> Option<SameFact> {
    match (agreeing, best) {
        // The page names the claim's subject before another figure, and before the claim's
        // value something the claim does not name ("Rents … rose 8%, while house prices rose
        // 3%" for house prices up 8%): the figure for the claim's subject, aligned as well.
        (Some((sa, Named::Other, _)), Some((sb, Named::Claims, b))) if sb >= sa => Some(b),
        // And the other way: the page names the claim's subject before the claim's value, and
        // something else before the better aligned other figure ("Rents rose 8% last year,
        // while wages rose 3%" for wages up 3% last year): the claim's own statement.
        // Where nothing is named before a figure, neither rule applies.
        (Some((_, Named::Claims, a)), Some((_, Named::Other, _))) => Some(a),
        // A statement of the claim's value aligned nearly as well as the best: the page says it.
        (Some((sa, _, a)), Some((sb, _, _))) if sa >= sb * NEAR_BEST => Some(a),
        (Some((_, _, a)), None) => Some(a),
        (_, Some((_, _, b))) => Some(b),
        (None, None) => None,
    }
}

/// What a page names in the words before one of its figures, against the claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Named {
    /// Only words of the claim: the claim's subject.
    Claims,
    /// A word the claim does not have: another subject.
    Other,
    /// No word that says what: the figure continues a list ("3% in 2023 and 5% in 2024").
    Nothing,
}

/// Whether the page's `value`, for the same thing, is the claim's figure `c` qualified by
/// `hedge`. A figure given as it is must be the page's or a rounding of it: 81% is not the page's
/// 74% for the same pass rate, however near (that is a discrepancy, reported; not agreement).
pub(crate) fn states(c: &Figure, hedge: super::presence::Hedge, value: f64) -> bool {
    if hedge == super::presence::Hedge::Exact {
        written_as(c, value)
    } else {
        super::presence::gives(c.value, hedge, value)
    }
}

/// Whether `value` is the claim's figure as written: the same number, one the claim's rounds to
/// the precision it is written with ("7.5 million" of 7.54 million, "1,600" of 1,640, "81%" of
/// 80.6%), or one within 2% of it.
pub(crate) fn written_as(c: &Figure, value: f64) -> bool {
    if c.value == value || relative_error(c.value, value) <= 0.02 {
        return true;
    }
    let Some(number) = c
        .text
        .split(|ch: char| !(ch.is_ascii_digit() || ch == '.' || ch == ','))
        .find(|w| w.chars().any(|ch| ch.is_ascii_digit()))
    else {
        return false;
    };
    let number = number
        .trim_matches(|ch| ch == '.' || ch == ',')
        .replace(',', "");
    let step = match number.split_once('.') {
        Some((_, decimals)) => 10f64.powi(-(decimals.len() as i32)),
        None => 10f64.powi(number.len() as i32 - number.trim_end_matches('0').len() as i32),
    };
    let scale = if c.scale > 0.0 { c.scale } else { 1.0 };
    (c.value - value).abs() <= step * scale / 2.0 * (1.0 + 1e-9)
}

/// How far the claim's figure is from the source's, in words an editor reads: percentage
/// points for two percentages ("10 points higher"), else the relative difference ("56%
/// lower").
pub(crate) fn difference_in_words(claim: &Figure, source: &Figure, relative: f64) -> String {
    let way = if claim.value >= source.value {
        "higher"
    } else {
        "lower"
    };
    if claim.unit == Unit::Percent && source.unit == Unit::Percent {
        let points = (claim.value - source.value).abs();
        let points = if points.fract() == 0.0 {
            format!("{points:.0}")
        } else {
            format!("{points:.1}")
        };
        let unit = if points == "1" { "point" } else { "points" };
        return format!("{points} percentage {unit} {way}");
    }
    if relative.is_finite() {
        format!("{:.0}% {way}", relative * 100.0)
    } else {
        format!("{way}; the source says {}", source.text)
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
