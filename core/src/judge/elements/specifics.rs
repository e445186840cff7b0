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
            let stated = if figure_sentences.is_empty() {
                has_record(page_lower())
            } else {
                figure_sentences
                    .iter()
                    .any(|s| has_record(s) || s.contains("record"))
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
            };
            if !stated {
                let mut f = self.unsupported(
                    ClaimElement::Superlative,
                    format!("The claim says \u{201C}{word}\u{201D}; the source does not"),
                );
                f.strong = true;
                out.push(f);
                break;
            }
        }
        out
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
        "first" | "last" | "only" => t.lowers().enumerate().any(|(i, w)| {
            w == word
                && (i + 1..(i + 7).min(t.toks.len()))
                    .any(|n| matches!(t.lower(n), "to" | "ever" | "time"))
        }),
        _ => true,
    }
}

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
    if matches!(prev, Some("at" | "after" | "above" | "once" | "for")) {
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
