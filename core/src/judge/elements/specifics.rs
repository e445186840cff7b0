//! Specifics the claim adds that the source does not state: a superlative or record, a multiplier,
//! a universal quantifier, a place.

use super::Finding;
use super::figure::relative_error;
use super::speaker::*;
use crate::judge::align::*;
use crate::judge::retrieve::{self};
use crate::judge::text::*;
use crate::model::{ClaimElement, Unit};
use crate::text::cues;
use crate::text::lexicon::Quantity;
use crate::text::lexicon::{self};

/// How far a multiplier may be from the ratio of two source figures and still be what they show
/// ("nearly tripled" from 40 to 110).
pub(crate) const MULTIPLIER_TOLERANCE: f64 = 0.25;

impl Alignment<'_> {
    pub(crate) fn multipliers(&self) -> Vec<Finding> {
        let sources = self.source_figures();
        let mut out = Vec::new();
        for (c, _) in &self.claim.figures {
            if c.unit != Unit::Multiplier {
                continue;
            }
            let stated = sources.iter().any(|(_, f, _)| {
                f.unit == Unit::Multiplier
                    && relative_error(c.value, f.value) <= self.high_tolerance
            });
            // "1.3 times that of Earth" however the page's figure reader takes it, and "from 40
            // to 120 parcels", which shows a tripling without the word.
            let hedge = crate::judge::elements::presence::hedge_before(self.claim.text(), c);
            let given =
                crate::judge::elements::presence::stated(c, hedge, self.page.figure_values());
            let shown = given
                || sources.iter().any(|(k1, a, _)| {
                    sources.iter().any(|(k2, b, _)| {
                        k1 == k2
                            && a.unit == b.unit
                            && !matches!(a.unit, Unit::Year | Unit::Multiplier)
                            && a.value > 0.0
                            && b.value > 0.0
                            && (relative_error(c.value, b.value / a.value) <= MULTIPLIER_TOLERANCE)
                    })
                });
            if !stated && !shown {
                out.push(Finding {
                    element: ClaimElement::Multiplier,
                    contradiction: false,
                    strong: false,
                    review_only: false,
                    problem: format!(
                        "The claim says \u{201C}{}\u{201D}; the source states no such multiple",
                        c.text
                    ),
                    correction: self.best_sentence().map(|k| self.said(k)),
                    sentence: self.best_sentence(),
                });
            }
        }
        out
    }

    // -----------------------------------------------------------------------------------------
    // Dates

    /// A superlative or record the claim states. Where the claim gives a record to a figure ("a
    /// record 158 km/h", "the highest since the assembly was created"), the page's sentences that
    /// give that figure must say so too; otherwise the page must say it somewhere. A record or
    /// superlative the page states nowhere is strong evidence the claim adds it (medium).
    pub(crate) fn superlatives(&self) -> Vec<Finding> {
        let claim_lower = self.claim.text().to_lowercase();
        let page_lower = std::cell::OnceCell::new();
        let page_lower = || {
            page_lower
                .get_or_init(|| self.source_text.to_lowercase())
                .as_str()
        };
        let page_word = |word: &str| {
            page_lower()
                .split(|c: char| !c.is_alphanumeric() && c != '-')
                .any(|w| w == word || w.ends_with(&format!("-{word}")))
        };
        let has_record = lexicon::claims_record;
        let mut out = Vec::new();
        if has_record(&claim_lower) {
            // The page's sentences that give a figure of the claim, as the claim gives it.
            let figure_sentences: Vec<String> = self
                .claim
                .figures
                .iter()
                .filter(|(f, _)| f.unit != Unit::Year)
                .flat_map(|(f, _)| {
                    let hedge =
                        crate::judge::elements::presence::hedge_before(self.claim.text(), f);
                    self.page
                        .sentences()
                        .iter()
                        .filter(move |s| {
                            s.figures.iter().any(|(g, _)| {
                                crate::judge::elements::presence::gives(f.value, hedge, g.value)
                            })
                        })
                        .map(|s| s.text().to_lowercase())
                })
                .collect();
            // A page's series is its record: "the warmest years in the series" are those on
            // record.
            let series = |s: &str| s.contains("in the series") || s.contains("series began");
            let stated = if figure_sentences.is_empty() {
                has_record(page_lower()) || series(page_lower())
            } else {
                figure_sentences
                    .iter()
                    .any(|s| has_record(s) || s.contains("record") || series(s))
            };
            if !stated {
                let phrase = lexicon::RECORD_PHRASES
                    .iter()
                    .find(|p| claim_lower.contains(*p))
                    .map_or("a record", |p| p);
                let mut f = self.unsupported(
                    ClaimElement::Superlative,
                    format!(
                        "The claim says \u{201C}{phrase}\u{201D}; the source states no such record"
                    ),
                );
                f.strong = true;
                out.push(f);
                return out;
            }
        }
        for word in cues::superlatives(self.claim.text()) {
            let lower = word.to_lowercase();
            if !claims_a_rank(&self.claim, &lower) {
                continue;
            }
            let equivalents = superlative_equivalents(&lower);
            let stated = if lower.contains(' ') {
                page_lower().contains(&lower)
            } else {
                equivalents.iter().any(|w| page_word(w))
            } || self.outdoes_any_other(&lower);
            if stated {
                continue;
            }
            // Not in the page's words. A ranking the page's table bears out is stated by it;
            // one the table contradicts (another row ranks higher) is not; a claim about all
            // time or the world is a record the page would have to say; anything else (a
            // ranking the page has no data for, "the most serious defects") is for review.
            let ranked = rank_in_table(self.page, &self.claim, &lower);
            let outranked = matches!(ranked, Some(Ranked::Outranked { sure: true, .. }));
            let mut f = match ranked {
                Some(Ranked::BorneOut) => continue,
                Some(Ranked::Outranked { label, value, .. }) => self.unsupported(
                    ClaimElement::Superlative,
                    format!(
                        "The claim says \u{201C}{word}\u{201D}; the source's table gives {label} {value}, which ranks above it"
                    ),
                ),
                None => self.unsupported(
                    ClaimElement::Superlative,
                    format!("The claim says \u{201C}{word}\u{201D}; the source does not"),
                ),
            };
            // "The first town to ban…", "the only council to…": a claim about all others,
            // which only a page that says so backs.
            let unique = matches!(lower.as_str(), "first" | "last" | "only");
            if outranked || unique || beyond_the_page(&claim_lower, &lower) {
                f.strong = true;
            } else {
                f.review_only = true;
            }
            out.push(f);
            break;
        }
        out
    }

    /// Whether the page states the claim's top-of-the-list superlative `word` in words of its
    /// own: "seen in more gardens than any other species (85%)" for "the most widespread bird,
    /// seen in 85% of gardens". The page's sentence must say it of a figure the claim gives.
    fn outdoes_any_other(&self, word: &str) -> bool {
        let first = word.split_whitespace().next().unwrap_or(word);
        let top = matches!(
            first,
            "most" | "largest" | "biggest" | "highest" | "greatest" | "top"
        );
        top && self.page.sentences().iter().any(|s| {
            let text = s.text().to_lowercase();
            ["than any other", "than every other", "than all other"]
                .iter()
                .any(|p| text.contains(p))
                && self
                    .claim
                    .figures
                    .iter()
                    .filter(|(f, _)| f.unit != Unit::Year)
                    .any(|(f, _)| {
                        s.figures
                            .iter()
                            .any(|(g, _)| (g.value - f.value).abs() < 1e-9)
                    })
        })
    }

    pub(crate) fn quantifiers(&self) -> Vec<Finding> {
        let claim = &self.claim;
        let words: Vec<&str> = claim.lowers().collect();
        let mut out = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let Some((q, n)) = lexicon::quantifier(&words, i) else {
                i += 1;
                continue;
            };
            let start = i;
            i += n;
            if q < Quantity::Most || !quantifies_a_population(claim, start, n) {
                continue;
            }
            // "In all, 31,480 runners finished": a total, not a quantifier.
            if start > 0 && words[start - 1] == "in" && q == Quantity::All {
                continue;
            }
            // "The largest fall of all", "the best of all": a superlative's scope.
            if start > 0
                && words[start - 1] == "of"
                && q == Quantity::All
                && !cues::superlatives(claim.text()).is_empty()
            {
                continue;
            }
            let clause = claim.clause_of(start);
            let subject = claim.stems(clause, &|j| (start..start + n).contains(&j));
            // The aligned clause's quantifiers.
            let aligned = self
                .source_clauses()
                .map(|(k, c)| (self.overlap(&subject, k, c.clone()), k, c))
                .max_by(|a, b| a.0.total_cmp(&b.0));
            let Some((o, k, c)) = aligned else { continue };
            if o < MIN_ALIGNMENT {
                continue;
            }
            let s = &self.sentences[k];
            let source_words: Vec<&str> = s.lowers().collect();
            let mut theirs = Vec::new();
            let mut j = 0;
            while j < source_words.len() {
                if let Some((sq, sn)) = lexicon::quantifier(&source_words, j) {
                    if quantifies_a_population(s, j, sn) && (c.contains(&j) || q == Quantity::All) {
                        theirs.push((sq, s.span(j..j + sn).to_owned()));
                    }
                    j += sn;
                } else {
                    j += 1;
                }
            }
            let said = claim.span(start..start + n).to_owned();
            if theirs.iter().any(|(sq, _)| *sq >= q) {
                continue;
            }
            if let Some((_, lower)) = theirs.iter().max_by_key(|(sq, _)| *sq) {
                out.push(Finding {
                    element: ClaimElement::Quantifier,
                    contradiction: false,
                    strong: false,
                    review_only: false,
                    problem: format!(
                        "The claim says \u{201C}{said}\u{201D} where the source says \u{201C}{lower}\u{201D}"
                    ),
                    correction: Some(self.said(k)),
                    sentence: Some(k),
                });
            } else if q == Quantity::All {
                out.push(Finding {
                    element: ClaimElement::Quantifier,
                    contradiction: false,
                    strong: false,
                    review_only: false,
                    problem: format!(
                        "The claim says \u{201C}{said}\u{201D}; the source does not say all"
                    ),
                    correction: Some(self.said(k)),
                    sentence: Some(k),
                });
            }
            break;
        }
        out
    }

    pub(crate) fn places(&self) -> Vec<Finding> {
        let claim = &self.claim;
        let mut out = Vec::new();
        for i in 0..claim.toks.len() {
            let word = claim.lower(i);
            if !matches!(word, "in" | "at" | "near" | "outside") {
                continue;
            }
            let name = capital_run(claim, i + 1);
            if name.is_empty() {
                continue;
            }
            let words: Vec<&Tok> = name.clone().map(|j| &claim.toks[j]).collect();
            if words.iter().any(|w| is_calendar_word(claim.lower_of(w))) {
                continue;
            }
            if words.iter().any(|w| self.page_names(claim.lower_of(w))) {
                continue;
            }
            let leave = Stems::of(words.iter().map(|w| w.stem).collect());
            let shown = claim.span(name);
            // What the aligned sentence names in the same place.
            let theirs = self.best_sentence_without(&leave).and_then(|k| {
                let s = &self.sentences[k];
                s.lowers().enumerate().find_map(|(j, st)| {
                    (st == word)
                        .then(|| capital_run(s, j + 1))
                        .filter(|r| !r.is_empty())
                        .map(|r| (k, s.span(r).to_owned()))
                })
            });
            out.push(match theirs {
                Some((k, other)) => Finding {
                    element: ClaimElement::Place,
                    contradiction: false,
                    strong: false,
                    review_only: false,
                    problem: format!(
                        "The claim says {} {shown} where the source says {} {other}",
                        word, word
                    ),
                    correction: Some(self.said(k)),
                    sentence: Some(k),
                },
                None => {
                    // When the page states the rest of the claim, the place is what it adds.
                    let Some((w, _)) = self
                        .best_window(&leave)
                        .filter(|(_, held)| *held >= MIN_ALIGNMENT)
                    else {
                        continue;
                    };
                    let k = self.windows[w].first().copied();
                    Finding {
                        element: ClaimElement::Place,
                        contradiction: false,
                        strong: false,
                        review_only: false,
                        problem: format!("The source does not mention {shown}"),
                        correction: k.map(|k| self.said(k)),
                        sentence: k,
                    }
                }
            });
            break;
        }
        out
    }

    /// Whether the page names `word` (lower-case), or a word made from it: a place by its
    /// adjective ("England", "English"; "Italy", "Italian"), sharing its first four letters and
    /// capitalized.
    pub(crate) fn page_names(&self, word: &str) -> bool {
        if self.index.contains(&retrieve::stem(word)) || self.page.furniture_names(word) {
            return true;
        }
        let prefix: String = word.chars().take(4).collect();
        prefix.chars().count() == 4 && self.page.names_prefix(&prefix)
    }
}

/// Whether a superlative ranks something ("the heaviest rainfall", "the most dangerous
/// junction", "the first town to ban…"), rather than ordering or naming ("the first, titled…",
/// "the top floor", "a leading expert"). "first", "last" and "only" rank when "to" or "ever"
/// follows within a few words, or "time".
pub(crate) fn claims_a_rank(t: &Text, word: &str) -> bool {
    match word {
        "top" | "leading" | "most" | "least" => false,
        // "the first town to ban", "for the first time"; not "the first year" or "the first
        // decade of the record", which count periods.
        "first" | "last" | "only" => t.lowers().enumerate().any(|(i, w)| {
            w == word
                && !PERIOD_NOUNS.contains(&t.lower(i + 1))
                && (i + 1..(i + 7).min(t.toks.len())).any(|n| match t.lower(n) {
                    "to" => !t.lower(n + 1).starts_with(|c: char| c.is_ascii_digit()),
                    "ever" | "time" => true,
                    _ => false,
                })
        }),
        _ => true,
    }
}

/// Whether a superlative claim reaches past what a page's figures can rank: all time ("ever",
/// "in its history", "since 2010"), a kind or a world ("of its kind", "in Europe"). Such a
/// claim is a record, and the page must say it. Only the scope that follows the superlative
/// `word` in its clause counts ("the most widespread bird …, the lowest since 2005" reaches
/// back for "lowest", not for "most widespread"), and only as whole words ("every" is not
/// "ever").
pub(crate) fn beyond_the_page(claim_lower: &str, word: &str) -> bool {
    const SCOPES: &[&str] = &[
        "ever",
        "history",
        "of its kind",
        "of their kind",
        "on record",
        "records began",
        "all-time",
        "all time",
        "living memory",
        "in decades",
        "in a generation",
        "in the world",
        "worldwide",
        "in europe",
        "in the country",
        "nationally",
        "first time",
        "since",
    ];
    let Some(at) = claim_lower.find(word) else {
        return false;
    };
    let after = &claim_lower[at + word.len()..];
    let clause = after
        .find([',', ';', '.', '\u{2013}', '\u{2014}', '('])
        .map_or(after, |end| &after[..end]);
    let words: String = clause
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' {
                c
            } else {
                ' '
            }
        })
        .collect();
    let padded = format!(
        " {} ",
        words.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    SCOPES.iter().any(|s| padded.contains(&format!(" {s} ")))
}

/// Which end of a column a superlative names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Top,
    Bottom,
}

/// The end of a ranking `word` names, given the column it ranks (`header`, lower-case): "quickest"
/// of a column of days is its bottom. `None` for a word whose end depends on what is ranked
/// ("best", "worst").
fn end_named(word: &str, header: &str) -> Option<End> {
    let first = word.split_whitespace().next().unwrap_or(word);
    let timed = [
        "day", "days", "hour", "hours", "minute", "minutes", "week", "weeks", "time", "wait",
    ]
    .iter()
    .any(|t| {
        header
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == *t)
    });
    let end = match first {
        "highest" | "largest" | "biggest" | "greatest" | "most" | "top" | "steepest"
        | "sharpest" | "strongest" | "longest" | "heaviest" | "wettest" | "warmest" | "hottest"
        | "oldest" | "busiest" | "deepest" | "widest" | "tallest" | "richest" => End::Top,
        "lowest" | "smallest" | "least" | "fewest" | "weakest" | "shortest" | "coldest"
        | "driest" | "youngest" | "cheapest" | "poorest" | "narrowest" | "lightest" => End::Bottom,
        "fastest" | "quickest" | "speediest" => {
            if timed {
                End::Bottom
            } else {
                End::Top
            }
        }
        "slowest" => {
            if timed {
                End::Top
            } else {
                End::Bottom
            }
        }
        _ => return None,
    };
    Some(end)
}

/// A figure of a table as the page's text gives it: "Kelbridge, Offences per 1,000: 122.5."
/// (`webpage::table_text`: the row's label, the column's heading, the cell).
#[derive(Debug)]
pub(crate) struct Cell<'t> {
    pub(crate) label: &'t str,
    pub(crate) header: &'t str,
    pub(crate) value: f64,
    pub(crate) text: &'t str,
    /// Cells of one table are consecutive sentences: the first sentence of the run.
    pub(crate) run: usize,
}

/// The table cells of a page, read from its sentences.
pub(crate) fn table_cells(page: &crate::judge::PageIndex) -> Vec<Cell<'_>> {
    let mut out: Vec<Cell<'_>> = Vec::new();
    let mut run_start = 0;
    let mut last: Option<usize> = None;
    for (i, s) in page.sentences().iter().enumerate() {
        let text = s.text().trim();
        let Some(body) = text.strip_suffix('.') else {
            continue;
        };
        let Some((head, cell)) = body.rsplit_once(": ") else {
            continue;
        };
        let Some((figure, _)) = s.figures.last() else {
            continue;
        };
        // The cell is the figure, as written (a sign, a unit, a note mark at most around it).
        if cell.len() > figure.text.len() + 6 || !cell.contains(figure.text.as_str()) {
            continue;
        }
        let (label, header) = head.rsplit_once(", ").unwrap_or((head, ""));
        if last != Some(i.wrapping_sub(1)) {
            run_start = i;
        }
        last = Some(i);
        let negative = cell.trim_start().starts_with(['-', '\u{2212}']) && figure.value > 0.0;
        out.push(Cell {
            label: label.trim(),
            header: header.trim(),
            value: if negative {
                -figure.value
            } else {
                figure.value
            },
            text: cell.trim(),
            run: run_start,
        });
    }
    out
}

/// Row labels that sum or average the others: never a row a ranking is among.
pub(crate) fn is_summary_row(label: &str) -> bool {
    let lower = label.to_lowercase();
    [
        "total", "all ", "overall", "average", "mean", "median", "national", "county", "england",
        "region", "sum",
    ]
    .iter()
    .any(|w| lower.starts_with(w) || lower.contains(&format!(" {}", w.trim())))
}

/// What a page's table says of a claim's ranking.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ranked {
    /// The claim's row is at the end of its column the superlative names.
    BorneOut,
    /// Another row of the column ranks beyond it. `sure` where the claim's row is plain: the
    /// claim gives one figure, the table gives it in a row the claim names, and the row beyond
    /// it is another; else the ranking may be of another column than the one read ("the most
    /// potholes" in a claim that also gives the days a repair took) and is for review.
    Outranked {
        label: String,
        value: String,
        sure: bool,
    },
}

/// Whether the page's table bears out the claim's superlative `word`: the claim's row is found
/// by its figure (a cell the figure is in) or its label (a row label the claim names, in the
/// column whose heading shares most words with the claim), and ranked in its column among the
/// table's other rows (not totals or averages). `None` where no table holds the claim's row and
/// at least two others.
pub(crate) fn rank_in_table(
    page: &crate::judge::PageIndex,
    claim: &Text,
    word: &str,
) -> Option<Ranked> {
    let cells = table_cells(page);
    if cells.len() < 3 {
        return None;
    }
    let claim_lower = claim.text().to_lowercase();
    let claim_words: std::collections::HashSet<String> =
        retrieve::tokenize(claim.text()).into_iter().collect();
    let names_row = |label: &str| {
        let l = label.to_lowercase();
        crate::text::contains_whole_words(&claim_lower, &l)
    };
    let header_overlap = |header: &str| {
        retrieve::tokenize(header)
            .into_iter()
            .filter(|w| claim_words.contains(w))
            .count()
    };
    let by_figure = |c: &Cell<'_>| {
        claim.figures.iter().any(|(f, _)| {
            f.unit != Unit::Year
                && f.value != 0.0
                && relative_error(c.value.abs(), f.value) <= 0.005
        })
    };
    // The claim's cell: its figure in a row it names, else its figure, else a row it names in
    // the column most like it.
    let figures = claim
        .figures
        .iter()
        .filter(|(f, _)| f.unit != Unit::Year)
        .count();
    let plain = cells
        .iter()
        .filter(|c| by_figure(c) && names_row(c.label))
        .max_by_key(|c| header_overlap(c.header));
    let chosen = plain
        .or_else(|| {
            cells
                .iter()
                .find(|c| by_figure(c) && !is_summary_row(c.label))
        })
        .or_else(|| {
            cells
                .iter()
                .filter(|c| names_row(c.label) && header_overlap(c.header) > 0)
                .max_by_key(|c| header_overlap(c.header))
        })?;
    let end = end_named(word, &chosen.header.to_lowercase())?;
    let column: Vec<&Cell<'_>> = cells
        .iter()
        .filter(|c| c.run == chosen.run && c.header == chosen.header && !is_summary_row(c.label))
        .collect();
    if column.len() < 3 || is_summary_row(chosen.label) {
        return None;
    }
    let beyond = column.iter().find(|c| match end {
        End::Top => c.value > chosen.value,
        End::Bottom => c.value < chosen.value,
    });
    Some(match beyond {
        None => Ranked::BorneOut,
        Some(c) => Ranked::Outranked {
            label: c.label.to_owned(),
            value: c.text.to_owned(),
            sure: figures == 1 && plain.is_some() && c.label != chosen.label,
        },
    })
}

/// Nouns of a period an ordinal counts ("the first year", "the last quarter").
const PERIOD_NOUNS: &[&str] = &[
    "year",
    "years",
    "decade",
    "half",
    "quarter",
    "month",
    "week",
    "day",
    "season",
    "round",
    "leg",
    "minute",
    "hour",
    "phase",
    "stage",
    "innings",
    "period",
    "term",
    "half-year",
];

/// Superlatives that say the same: "largest", "biggest", "greatest".
pub(crate) fn superlative_equivalents(word: &str) -> Vec<&str> {
    const GROUPS: &[&[&str]] = &[
        &["largest", "biggest", "greatest"],
        &["highest", "top"],
        &["first", "earliest"],
    ];
    GROUPS
        .iter()
        .find(|g| g.contains(&word))
        .map_or_else(|| vec![word], |g| g.to_vec())
}

/// Whether the quantifier at `start` (of `n` words) counts members of a group ("all of the
/// school's teachers", "most parents"), not times ("every year") or an idiom ("at all", "all
/// three", "all-time").
pub(crate) fn quantifies_a_population(t: &Text, start: usize, n: usize) -> bool {
    let prev = start.checked_sub(1).map(|p| t.lower(p));
    // "across all homes", "in all": where, not how many.
    if matches!(
        prev,
        Some("at" | "after" | "above" | "once" | "for" | "across")
    ) {
        return false;
    }
    let Some(next) = t.toks.get(start + n) else {
        return false;
    };
    if matches!(t.kind_of(next), TokKind::Number | TokKind::Mark('-')) {
        return false;
    }
    const TIMES: &[&str] = &[
        "year", "week", "day", "month", "time", "morning", "evening", "night", "season", "summer",
        "winter", "spring", "autumn", "weekend", "hour", "minute", "but", "along", "over", "too",
        "in", "right",
    ];
    !TIMES.contains(&t.lower_of(next))
}
