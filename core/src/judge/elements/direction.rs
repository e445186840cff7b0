//! Direction: which way something went (rose/fell, approved/rejected, won/lost, a record high or
//! low), compared with the aligned clause's word on the same axis. Opposite polarities
//! contradict, unless an equally aligned clause agrees (a page may say both, of different things).

use crate::text::tokens::FoldHashSet as HashSet;
use std::ops::Range;

use super::Finding;
use super::phrase_with_negation;
use crate::judge::align::*;
use crate::judge::retrieve::TokenId;
use crate::judge::text::*;
use crate::model::{ClaimElement, Unit};
use crate::text::lexicon::Axis;

/// A source clause with a direction word on the axis of one of the claim's.
pub(crate) struct Candidate {
    /// The share of the claim clause's words the source clause holds.
    clause_overlap: f64,
    /// The same for the whole source sentence.
    sentence_overlap: f64,
    /// How many of the words the claim's direction word is said of stand before the source's.
    subject_match: usize,
    k: usize,
    clause: Range<usize>,
    /// The clause's words on the axis, with their polarity.
    on_axis: Vec<(usize, bool)>,
}

/// Whether the direction word at `i` of `t` says nothing of which way an amount went: a physical
/// movement ("the sunlight falling on it", "fell into the harbour"), or a negation that limits a
/// quantity ("not every force grew").
/// How many words before a direction word "claimed" or "alleging" still makes it reported.
const REPORTED_REACH: usize = 12;

fn not_a_direction(t: &Text, i: usize) -> bool {
    let physical = matches!(
        t.lower(i + 1),
        "on" | "onto" | "off" | "into" | "through" | "behind" | "asleep" | "ill" | "apart"
    );
    let limited = (i.saturating_sub(4)..i).any(|j| {
        crate::text::lexicon::is_negation(t.lower(j)) && matches!(t.lower(j + 1), "every" | "all")
    });
    // What someone else claimed ("a leaflet claiming council tax had gone up 40%") is theirs,
    // not the reporter's: the fact-check it cites says whether it went up.
    // Looked for in the dozen words before: a claim of 30,000 words is read in linear time.
    let reported = (i.saturating_sub(REPORTED_REACH)..i).any(|j| {
        matches!(
            t.lower(j),
            "claiming" | "claimed" | "alleging" | "alleged" | "insisting" | "insisted"
        )
    });
    physical || limited || reported || in_compound(t, i)
}

/// Whether the `i`-th token is part of a hyphenated compound ("coal-fired", "higher-preference",
/// "long-term"): a word of a name or a kind, not a direction.
pub(crate) fn in_compound(t: &Text, i: usize) -> bool {
    let Some(tok) = t.toks.get(i) else {
        return false;
    };
    let text = t.text().as_bytes();
    let (start, end) = (tok.start as usize, tok.end as usize);
    // "record-high", "all-time low", "multi-year high": a level, still a direction.
    let level = (i.saturating_sub(2)..i)
        .any(|j| matches!(t.lower(j), "record" | "time" | "year" | "decade" | "near"));
    let joined_before = start >= 2
        && !level
        && text.get(start - 1) == Some(&b'-')
        && text.get(start - 2).is_some_and(u8::is_ascii_alphanumeric);
    // "higher-than-expected" compares: still a direction.
    let compares = t.lower(i + 1) == "than" || t.lower(i + 2) == "than";
    let joined_after = !compares
        && text.get(end) == Some(&b'-')
        && text.get(end + 1).is_some_and(u8::is_ascii_alphabetic);
    joined_before || joined_after
}

/// A direction the source plainly contradicts: `problem` in the editor's words, what the source
/// says instead, and the aligned sentence it rests on, when it is one.
fn refuted(problem: String, correction: Option<String>, sentence: Option<usize>) -> Finding {
    Finding {
        element: ClaimElement::Direction,
        contradiction: true,
        strong: false,
        review_only: false,
        problem,
        correction,
        sentence,
    }
}

/// Whether a page sentence is a table's cell as `webpage::table_text` writes it: "label,
/// heading: figure."
pub(crate) fn is_table_cell(text: &str) -> bool {
    let body = text.trim().trim_end_matches('.');
    let Some((_, cell)) = body.rsplit_once(": ") else {
        return false;
    };
    cell.chars().any(|c| c.is_ascii_digit())
        && cell.split_whitespace().count() <= 2
        && cell.len() <= 24
}

impl Alignment<'_> {
    /// The names the claim gives past its first word (capitalized, not a month or weekday) that
    /// the page also uses: whom or what the claim is about, as the page names them.
    pub(crate) fn claim_names(&self) -> Vec<TokenId> {
        let claim = &self.claim;
        let mut out = Vec::new();
        for (i, tok) in claim.toks.iter().enumerate().skip(1) {
            if !tok.is_word() || !tok.capital() {
                continue;
            }
            let lower = claim.lower(i);
            let calendar = crate::text::lexicon::MONTHS
                .iter()
                .any(|(m, _)| *m == lower)
                || matches!(
                    lower,
                    "monday"
                        | "tuesday"
                        | "wednesday"
                        | "thursday"
                        | "friday"
                        | "saturday"
                        | "sunday"
                );
            let after_stop = i > 0 && matches!(claim.lower(i - 1), "." | ":" | "\u{201C}" | "\"");
            if calendar || after_stop || self.index.word_id(self.stem_text(tok.stem)).is_none() {
                continue;
            }
            out.push(tok.stem);
        }
        out
    }

    /// Clauses of the source with a word on `axis`, and how well each aligns with the claim: on
    /// the whole clause, on the words before the axis word (`said_of`), on the sentence.
    fn axis_candidates(
        &self,
        axis: Axis,
        subject: &Stems,
        said_of: &Stems,
        names: &[TokenId],
    ) -> Vec<Candidate> {
        let mut candidates: Vec<Candidate> = Vec::new();
        for (k, c) in self.source_clauses() {
            let s = &self.sentences[k];
            // A table's cell sentence ("Seats won 2021: 14.") names a column: its words
            // say what the figure is, not which way anything went.
            if is_table_cell(s.text()) {
                continue;
            }
            // The claim names whom it is about ("Felstead Bay … went up"), and the page
            // names them: a sentence that does not is about someone else.
            if !names.is_empty() && !names.iter().any(|&n| s.holds(0..s.toks.len(), n)) {
                continue;
            }
            let on_axis: Vec<(usize, bool)> = c
                .clone()
                .filter(|&j| !in_compound(s, j))
                .flat_map(|j| {
                    s.directions(j)
                        .iter()
                        .filter(|d| d.0 == axis)
                        .map(move |d| (j, d.1))
                })
                .collect();
            let Some(&(first_on_axis, _)) = on_axis.first() else {
                continue;
            };
            let before = s.stems(c.start..first_on_axis, &|j| s.has_direction(j));
            let subject_match = said_of.iter().filter(|&w| before.contains(w)).count();
            candidates.push(Candidate {
                clause_overlap: self.overlap(subject, k, c.clone()),
                sentence_overlap: self.overlap(subject, k, 0..s.toks.len()),
                subject_match,
                k,
                clause: c,
                on_axis,
            });
        }
        candidates
    }

    pub(crate) fn direction(&self) -> Vec<Finding> {
        let claim = &self.claim;
        let mut out = Vec::new();
        let mut seen_axes = HashSet::default();
        // Words inside the claim's quotation marks are the speaker's: the quote check reads
        // them against the page as they are written.
        let quoted = super::negation::quoted_tokens(claim);
        let names = self.claim_names();
        for i in 0..claim.toks.len() {
            if quoted.contains(&i) || not_a_direction(claim, i) {
                continue;
            }
            for &(axis, polarity) in claim.directions(i) {
                if !seen_axes.insert(axis) {
                    continue;
                }
                // A claim that goes both ways on the axis ("the most widespread bird …, its count
                // the lowest since …") speaks of two things; which is which is not read here.
                if claim
                    .all_directions()
                    .any(|(_, a, p)| a == axis && p != polarity)
                {
                    continue;
                }
                let clause = claim.clause_of(i);
                let subject = claim.stems(clause.clone(), &|j| claim.has_direction(j));
                if subject.is_empty() {
                    continue;
                }
                // What the direction word is said of: the words before it in its clause
                // ("Imports rose", "The regulator did not approve").
                let said_of = claim.stems(clause.start..i, &|j| claim.has_direction(j));
                let candidates = self.axis_candidates(axis, &subject, &said_of, &names);
                // Prefer the clauses whose subject is the claim's; else the best aligned.
                let best_subject = candidates
                    .iter()
                    .map(|c| c.subject_match)
                    .max()
                    .unwrap_or(0);
                let pool: Vec<&Candidate> = if best_subject > 0 {
                    candidates
                        .iter()
                        .filter(|c| c.subject_match == best_subject)
                        .filter(|c| c.sentence_overlap >= MIN_ALIGNMENT)
                        .collect()
                } else {
                    let best = candidates
                        .iter()
                        .map(|c| c.clause_overlap)
                        .fold(0.0, f64::max);
                    candidates
                        .iter()
                        .filter(|c| c.clause_overlap >= MIN_ALIGNMENT)
                        .filter(|c| c.clause_overlap >= best * NEAR_BEST)
                        .collect()
                };
                if pool.is_empty() {
                    // No clause aligns: the passage that holds the claim says which way, when
                    // all it says on this axis points the other way.
                    let in_passage = self.direction_in_passage(i, axis, polarity);
                    // A figure-free, unnegated statement whose predicate is which way an amount
                    // went ("Online tutoring grows"), where no clause of the page says its
                    // subject went either way: the words it shares with the page are the subject's,
                    // not what it says of it. For review: the page does not say it.
                    if in_passage.is_none()
                        && axis == Axis::Amount
                        && !(0..claim.toks.len()).any(|j| claim.negated(j))
                        && best_subject < said_of.len()
                        && !self.passage_names_a_change()
                        && !claim.figures.iter().any(|(f, _)| f.unit != Unit::Year)
                        && !claim.toks.iter().enumerate().any(|(j, t)| {
                            t.is_number()
                                && !claim
                                    .figures
                                    .iter()
                                    .any(|(f, at)| f.unit == Unit::Year && *at == j)
                        })
                    {
                        let mut f = self.unsupported(
                            ClaimElement::Direction,
                            format!(
                                "The claim says \u{201C}{}\u{201D}; the source does not say which way it went",
                                phrase_with_negation(claim, i)
                            ),
                        );
                        f.review_only = true;
                        out.push(f);
                    }
                    out.extend(in_passage);
                    continue;
                }
                if pool
                    .iter()
                    .any(|c| c.on_axis.iter().any(|(_, p)| *p == polarity))
                {
                    continue;
                }
                let Some(chosen) = pool
                    .iter()
                    .max_by(|a, b| a.clause_overlap.total_cmp(&b.clause_overlap))
                else {
                    continue;
                };
                let (k, c, words) = (chosen.k, chosen.clause.clone(), chosen.on_axis.clone());
                // A sentence that says it both ways ("rose by 4.1% in the year, down from
                // 4.3%") speaks of two things: which one the claim's word is about is not read
                // here, so nothing is concluded.
                if self.sentences[k]
                    .all_directions()
                    .any(|(_, a, p)| a == axis && p == polarity)
                {
                    continue;
                }
                let s = &self.sentences[k];
                let marked = words.first().map(|(j, _)| *j);
                let source_word = marked
                    .map(|j| phrase_with_negation(s, j))
                    .unwrap_or_default();
                out.push(refuted(
                    format!(
                        "The claim says \u{201C}{}\u{201D} where the source says \u{201C}{}\u{201D}",
                        phrase_with_negation(claim, i),
                        source_word
                    ),
                    Some(format!(
                        "the source says: \u{201C}{}\u{201D}",
                        marked_clause_text(s, c, marked)
                    )),
                    Some(k),
                ));
            }
        }
        out
    }

    /// Whether the passage that holds most of the claim speaks of a change in a noun ("Growth
    /// is driven by schools", "the increase was smaller"): which way is then said, in words the
    /// direction rule does not read.
    fn passage_names_a_change(&self) -> bool {
        const CHANGE_NOUNS: &[&str] = &[
            "growth",
            "increase",
            "increases",
            "rise",
            "rises",
            "decline",
            "declines",
            "decrease",
            "decreases",
            "fall",
            "falls",
            "drop",
            "drops",
            "gain",
            "gains",
            "loss",
            "losses",
            "surge",
            "slump",
            "expansion",
            "contraction",
            "boom",
            "upturn",
            "downturn",
        ];
        let Some((w, _)) = self.best_window(&Stems::default()) else {
            return false;
        };
        // The passage, and the sentence on either side of each of its sentences on the page
        // ("…the market at $30 billion. Growth is driven by schools…").
        let page = self.page.sentences();
        self.windows[w].iter().any(|&k| {
            let Some(&i) = self.sentence_index.get(k) else {
                return false;
            };
            (i.saturating_sub(1)..=i + 1)
                .filter_map(|n| page.get(n))
                .any(|s| (0..s.toks.len()).any(|j| CHANGE_NOUNS.contains(&s.lower(j))))
        })
    }

    /// The claim's direction word at `i` against the passage that holds most of the claim (at
    /// least [`STATED`] of it, the direction words left out): a contradiction when the passage
    /// has words on the same axis, all of them the other way.
    pub(crate) fn direction_in_passage(
        &self,
        i: usize,
        axis: Axis,
        polarity: bool,
    ) -> Option<Finding> {
        let leave = Stems::of(
            (0..self.claim.toks.len())
                .filter(|&j| self.claim.has_direction(j))
                .map(|j| self.claim.toks[j].stem)
                .collect(),
        );
        let (w, held) = self.best_window(&leave)?;
        if held < STATED {
            return None;
        }
        let mut opposite = None;
        for &k in &self.windows[w] {
            let s = &self.sentences[k];
            for (j, a, p) in s.all_directions() {
                if a != axis || in_compound(s, j) {
                    continue;
                }
                if p == polarity {
                    return None;
                }
                opposite.get_or_insert((k, j));
            }
        }
        let (k, j) = opposite?;
        let s = &self.sentences[k];
        Some(refuted(
            format!(
                "The claim says \u{201C}{}\u{201D} where the source says \u{201C}{}\u{201D}",
                phrase_with_negation(&self.claim, i),
                phrase_with_negation(s, j)
            ),
            Some(format!(
                "the source says: \u{201C}{}\u{201D}",
                marked_clause_text(s, 0..s.toks.len(), Some(j))
            )),
            Some(k),
        ))
    }
}

/// The direction word of amount that goes with the figure at token `at` of `t`: the nearest one
/// before it in its clause, else one of the three words after it ("3% lower"). Its token and
/// polarity, negation applied.
fn figure_direction_word(t: &Text, at: usize) -> Option<(usize, bool)> {
    let clause = t.clause_of(at);
    let amount = |j: usize| {
        t.directions(j)
            .iter()
            .find(|d| d.0 == Axis::Amount)
            .map(|d| (j, d.1))
    };
    (clause.start..at)
        .rev()
        .find_map(amount)
        .or_else(|| (at + 1..(at + 4).min(clause.end)).find_map(amount))
}

/// A figure the page gives for the claim's subject with the claim's value, but changing the
/// other way: "Hardware sales climbed 4%" against "Devices & Hardware revenue of $694 million,
/// down 4%"; "its government grant rose by 3%" against "Grant-in-aid fell by 3%". The page's
/// figure must name the claim's subject in its label (see `subject::label`), and no page figure
/// so named may go the claim's way.
pub(crate) fn figure_direction(a: &Alignment<'_>) -> Option<Finding> {
    use super::presence;
    use super::subject::{generic, label};
    let claim = &a.claim;
    for (c, at) in claim.figures.iter() {
        if c.unit == Unit::Year {
            continue;
        }
        let Some((word, ours)) = figure_direction_word(claim, *at) else {
            continue;
        };
        if not_a_direction(claim, word) {
            continue;
        }
        let words = super::figure::said_of(claim, *at);
        let hedge = presence::hedge_before(claim.text(), c);
        let mut against = None;
        let mut agrees = false;
        for (i, s) in a.page.sentences().iter().enumerate() {
            for (f, ft) in s.figures.iter() {
                if !super::figure::same_kind(c, f) || !presence::gives(c.value, hedge, f.value) {
                    continue;
                }
                let l = label(s, *ft, a);
                let specific: Vec<TokenId> = l
                    .iter()
                    .map(|(w, _)| *w)
                    .filter(|w| !generic(a.stem_text(*w)))
                    .collect();
                let shared = specific.iter().filter(|w| words.contains(**w)).count();
                let foreign = specific.len() - shared;
                if shared == 0 || foreign > 1 {
                    continue;
                }
                match figure_direction_word(s, *ft) {
                    Some((_, theirs)) if theirs == ours => agrees = true,
                    Some((j, _)) => {
                        against.get_or_insert((i, j));
                    }
                    None => {}
                }
            }
        }
        if agrees {
            continue;
        }
        if let Some((i, j)) = against {
            let s = &a.page.sentences()[i];
            return Some(refuted(
                format!(
                    "The claim says \u{201C}{}\u{201D} where the source says \u{201C}{}\u{201D}",
                    phrase_with_negation(claim, word),
                    phrase_with_negation(s, j)
                ),
                Some(format!(
                    "the source says: \u{201C}{}\u{201D}",
                    s.text().trim()
                )),
                None,
            ));
        }
    }
    None
}

/// Whether the figure at token `at` of `t` is a rank ("10th", "3rd"): a lower rank number is a
/// higher place, so a rank's figures say nothing of which way an amount went.
fn is_rank(t: &Text, f: &crate::model::Figure, at: usize) -> bool {
    let ordinal = |s: &str| {
        let s = s.to_ascii_lowercase();
        ["st", "nd", "rd", "th"].iter().any(|end| {
            s.strip_suffix(end)
                .is_some_and(|n| n.ends_with(|c: char| c.is_ascii_digit()))
        })
    };
    ordinal(&f.text)
        || matches!(t.lower(at + 1), "st" | "nd" | "rd" | "th" | "place")
        || t.text()
            .split_whitespace()
            .any(|w| ordinal(w.trim_matches(|c: char| !c.is_alphanumeric())) && w.contains(&f.text))
}

/// The claim's direction word against its own two figures: "rose by a fifth, from 214 to 171",
/// "402 homes …, up from 455", "increased to 402 from 455". The figures say which way the
/// amount went; where the page gives both, a word the other way is refuted, the page's figures
/// quoted. A figure that is itself the start of another comparison ("12, up from 8 … but down
/// from 15") is left alone.
pub(crate) fn own_figures_direction(a: &Alignment<'_>) -> Option<Finding> {
    use super::figure::{relative_error, same_kind};
    let claim = &a.claim;
    let figs: Vec<(&crate::model::Figure, usize)> = claim
        .figures
        .iter()
        .filter(|(f, at)| f.unit != Unit::Year && !is_rank(claim, f, *at))
        .map(|(f, at)| (f, *at))
        .collect();
    let amount = |j: usize| {
        claim
            .directions(j)
            .iter()
            .find(|d| d.0 == Axis::Amount)
            .map(|d| d.1)
            .filter(|_| !not_a_direction(claim, j))
    };
    let ends_search = |j: usize| {
        matches!(claim.lower(j), ";" | "." | "from")
            || crate::judge::text::CLAUSE_WORDS.contains(&claim.lower(j))
    };
    let in_figure = claim.figure_tokens_where(|_| true);
    for &(start, at) in &figs {
        if at == 0 || claim.lower(at - 1) != "from" {
            continue;
        }
        let from_word = at - 1;
        // "from A to B": the figure after A, with "to" before it, a few words on.
        let to_after = figs
            .iter()
            .find(|(f, bt)| {
                *bt > at
                    && *bt <= at + 6
                    && claim.lower(bt - 1) == "to"
                    && same_kind(start, f)
                    && !figs.iter().any(|(_, mid)| *mid > at && mid < bt)
            })
            .copied();
        // The direction word: the nearest before "from", with nothing between but the size of
        // the change ("rose by a fifth, from") or the end it went to ("fell to 402 from"): "fell
        // in a narrow band from 2.9 to 3.0" is a range, not a movement.
        let word = (from_word.saturating_sub(8)..from_word)
            .rev()
            .take_while(|&j| {
                !ends_search(j)
                    && (amount(j).is_some()
                        || in_figure.contains(&j)
                        || matches!(
                            claim.lower(j),
                            "," | "by"
                                | "a"
                                | "an"
                                | "to"
                                | "back"
                                | "again"
                                | "further"
                                | "sharply"
                                | "slightly"
                                | "steadily"
                                | "markedly"
                                | "about"
                                | "around"
                                | "almost"
                                | "nearly"
                                | "some"
                                | "just"
                        ))
            })
            .find_map(|j| amount(j).map(|p| (j, p)));
        let Some((w, polarity)) = word else {
            continue;
        };
        let end = if let Some(b) = to_after {
            Some(b)
        } else if let Some(b) = figs.iter().find(|(f, bt)| {
            *bt > w && *bt < from_word && claim.lower(bt - 1) == "to" && same_kind(start, f)
        }) {
            // "increased to B from A".
            Some(*b)
        } else if w + 1 == from_word {
            // "B …, up from A": the one figure of A's kind before the word in its stretch of
            // the sentence, unless it is itself one end of a comparison, or another direction
            // word stands between. Two such figures ("1.25 million 999 calls, up from 1.2
            // million") leave which one went up unread.
            let stretch_start = (0..w).rev().find(|&j| ends_search(j)).map_or(0, |j| j + 1);
            let before: Vec<_> = figs
                .iter()
                .filter(|(f, bt)| *bt >= stretch_start && *bt < w && same_kind(start, f))
                .collect();
            match before.as_slice() {
                [(f, bt)]
                    if !matches!(claim.lower(bt.saturating_sub(1)), "from" | "to")
                        && !(*bt + 1..w).any(|j| amount(j).is_some()) =>
                {
                    Some((*f, *bt))
                }
                _ => None,
            }
        } else {
            None
        };
        let Some((to, _)) = end else {
            continue;
        };
        if relative_error(to.value, start.value) <= 0.005 || (to.value > start.value) == polarity {
            continue;
        }
        if let Some(found) = refuted_by_own_figures(a, w, start, to) {
            return Some(found);
        }
    }
    None
}

/// The finding for a direction word `w` against the claim's move from `start` to `to`, when
/// the page gives both figures: the sentence that gives both is quoted, else the one giving the
/// later figure.
fn refuted_by_own_figures(
    a: &Alignment<'_>,
    w: usize,
    start: &crate::model::Figure,
    to: &crate::model::Figure,
) -> Option<Finding> {
    use super::figure::{relative_error, same_kind};
    let claim = &a.claim;
    // Both figures are the page's: the sentence that gives both, else the one giving the
    // later figure.
    let gives = |s: &Text, v: &crate::model::Figure| {
        s.figures
            .iter()
            .any(|(f, _)| same_kind(v, f) && relative_error(v.value, f.value) <= 0.005)
    };
    let sentences = a.page.sentences();
    if !sentences.iter().any(|s| gives(s, start)) {
        return None;
    }
    let s = sentences
        .iter()
        .find(|s| gives(s, start) && gives(s, to))
        .or_else(|| sentences.iter().find(|s| gives(s, to)))?;
    let went = if to.value > start.value {
        "a rise"
    } else {
        "a fall"
    };
    Some(refuted(
        format!(
            "The claim says \u{201C}{}\u{201D}, but from {} to {} is {went}, as the source's \
             figures show",
            phrase_with_negation(claim, w),
            start.text,
            to.text
        ),
        Some(format!(
            "the source says: \u{201C}{}\u{201D}",
            s.text().trim()
        )),
        None,
    ))
}

/// A table's signed change for the row the claim names ("Drug offences, Change: +8.7%.")
/// against the claim's change for that row ("Drug offences fell by 8.7 per cent"): the sign says
/// which way the row went. Refuted when a signed cell of a named row has the claim's value and
/// the other sign, and none has it with the claim's.
pub(crate) fn table_change_direction(a: &Alignment<'_>) -> Option<Finding> {
    use super::figure::{comparable, relative_error};
    let claim = &a.claim;
    let cells = super::specifics::table_cells(a.page);
    if cells.is_empty() {
        return None;
    }
    let claim_lower = claim.text().to_lowercase();
    for (c, at) in claim.figures.iter() {
        if c.unit == Unit::Year || c.value == 0.0 {
            continue;
        }
        let Some((word, ours)) = figure_direction_word(claim, *at) else {
            continue;
        };
        if not_a_direction(claim, word) {
            continue;
        }
        let signed = cells.iter().filter(|cell| {
            cell.text.starts_with(['+', '-', '\u{2212}'])
                && super::table::names_row(&claim_lower, cell.label)
                && relative_error(cell.value.abs(), c.value) <= 0.005
                && crate::text::figures::parse_figures(cell.text)
                    .first()
                    .is_some_and(|f| comparable(c, f))
        });
        let (agree, against): (Vec<_>, Vec<_>) =
            signed.partition(|cell| (cell.value > 0.0) == ours);
        let Some(cell) = against.first().filter(|_| agree.is_empty()) else {
            continue;
        };
        return Some(refuted(
            format!(
                "The claim says \u{201C}{}\u{201D} where the source's table gives {} a change \
                 of {}",
                phrase_with_negation(claim, word),
                cell.label,
                cell.text
            ),
            Some(format!(
                "the source says: \u{201C}{}, {}: {}\u{201D}",
                cell.label, cell.header, cell.text
            )),
            None,
        ));
    }
    None
}
