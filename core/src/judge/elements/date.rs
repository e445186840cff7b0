//! Dates: a year or a day of a month the source never states where the aligned passage gives
//! another, and a month or season swapped.

use super::Finding;
use crate::judge::align::*;
use crate::judge::text::*;
use crate::model::ClaimElement;

/// The share of the claim's weighted words a page sentence must hold to be about the claim's
/// subject, for a month it names to count as the claim's.
const PART_OF_CLAIM: f64 = 0.3;

impl Alignment<'_> {
    pub(crate) fn dates(&self) -> Vec<Finding> {
        // Years are compared with the page's statement of the same fact, and looked for on the
        // whole page, with the claim's other figures (`figure::same_fact`, `presence`).
        let mut out = Vec::new();
        // Days of a month: "14 March" against "21 March".
        let claim_days = day_months(&self.claim);
        for (day, month, text) in &claim_days {
            if self
                .page
                .days()
                .iter()
                .any(|(d, m, _)| d == day && m == month)
            {
                continue;
            }
            let other = self.sentences.iter().enumerate().find_map(|(k, s)| {
                day_months(s)
                    .into_iter()
                    .find(|(d, m, _)| (d, m) != (day, month))
                    .map(|(_, _, t)| (k, t))
            });
            let days = Text::plain(text);
            let days = self.stem_ids(
                days.toks
                    .iter()
                    .map(|t| days.stem_of(t))
                    .collect::<Vec<_>>()
                    .iter()
                    .map(|w| w.as_ref()),
            );
            if let Some((k, said)) = other
                && self.coverage_without(k, &days) >= MIN_ALIGNMENT
            {
                out.push(Finding {
                    element: ClaimElement::Date,
                    contradiction: true,
                    strong: false,
                    review_only: false,
                    problem: format!("The claim says {text} where the source says {said}"),
                    correction: Some(self.said(k)),
                    sentence: Some(k),
                });
                break;
            }
        }
        if out.is_empty() {
            out.extend(self.periods());
        }
        out
    }

    /// A month or season the claim dates itself by where the sentence stating the claim names
    /// another of the same kind and not the claim's: "closed in March" against "closed in May",
    /// "the summer of 2023" against "the winter of 2023".
    pub(crate) fn periods(&self) -> Option<Finding> {
        let ours = periods_of(&self.claim);
        if ours.is_empty() {
            return None;
        }
        // A month the page names in another sentence about the claim's subject may date what
        // the claim dates ("confirmed in April" beside "since February"): which sentence dates
        // which event is not read here.
        let named_nearby = |p: &Period| {
            let stem = self.claim.toks[p.at].stem;
            self.page
                .sentences()
                .iter()
                .any(|s| s.holds(0..s.toks.len(), stem) && self.text_coverage(s) >= PART_OF_CLAIM)
        };
        if ours.iter().any(named_nearby) {
            return None;
        }
        let leave = Stems::of(ours.iter().map(|p| self.claim.toks[p.at].stem).collect());
        let k = self.best_sentence_without(&leave)?;
        if self.coverage_without(k, &leave) < HELD {
            return None;
        }
        // A sentence that names the claim's month as well as another ("closed in May, after
        // talks failed in March") is left alone: which one dates what is not read here.
        let theirs = periods_of(self.sentences[k]);
        let named = |p: &Period| theirs.iter().any(|q| q.kind == p.kind && q.key == p.key);
        ours.iter().filter(|p| !named(p)).find_map(|p| {
            // Another period than any the claim names: in "passed in March and took effect in
            // May", a sentence on May alone contradicts nothing.
            // Told the same way ("from 8 March" against "from Monday 8 April"): "in April"
            // against "since February" dates two things.
            let lead = lead_word(&self.claim, p.at);
            let other = theirs.iter().find(|q| {
                q.kind == p.kind
                    && !ours.iter().any(|o| o.kind == q.kind && o.key == q.key)
                    && lead_word(self.sentences[k], q.at) == lead
            })?;
            Some(Finding {
                element: ClaimElement::Date,
                contradiction: true,
                strong: false,
                review_only: false,
                problem: format!(
                    "The claim says {} where the source says {}",
                    self.claim.span(p.at..p.at + 1),
                    self.sentences[k].span(other.at..other.at + 1)
                ),
                correction: Some(self.said(k)),
                sentence: Some(k),
            })
        })
    }
}

/// Whether a period is a month or a season.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PeriodKind {
    Month,
    Season,
}

/// A month or season a text dates something by.
#[derive(Debug)]
pub(crate) struct Period {
    kind: PeriodKind,
    /// The month's number, or the season's (spring 1 to winter 4; "fall" is autumn).
    key: u8,
    at: usize,
}

impl Period {
    /// The month's number, when the period is a month.
    pub(crate) fn month(&self) -> Option<u8> {
        (self.kind == PeriodKind::Month).then_some(self.key)
    }

    /// The token the period is written at.
    pub(crate) fn at(&self) -> usize {
        self.at
    }
}

/// Words that put a month or season in time: "in March", "since the spring", "last winter".
pub(crate) const PERIOD_BEFORE: &[&str] = &[
    "in", "of", "since", "until", "till", "by", "from", "to", "between", "and", "during", "early",
    "late", "mid", "last", "next", "this", "that", "the", "before", "after", "through",
];

/// The months and seasons `t` names as times. A month is capitalized and next to a number
/// ("March 2023", "4 March") or after a word that puts it in time ("in March"), so that "May"
/// the verb and "June" the name are not months; a season follows such a word or comes before
/// "of" or a year ("the summer of 2023", "in spring"), and "fall" only after "the", "last",
/// "this" or "next".
/// The word that leads a month or season into its sentence ("from" in "from Monday 8 April",
/// "since" in "since early 2023"), past numbers, weekdays and "early", "late", "mid", "the".
fn lead_word(t: &Text, at: usize) -> Option<String> {
    (0..at)
        .rev()
        .map(|i| t.lower(i))
        .find(|w| {
            !w.chars().all(|c| c.is_ascii_digit())
                && !matches!(
                    *w,
                    "early"
                        | "late"
                        | "mid"
                        | "the"
                        | "of"
                        | "-"
                        | ","
                        | "monday"
                        | "tuesday"
                        | "wednesday"
                        | "thursday"
                        | "friday"
                        | "saturday"
                        | "sunday"
                )
        })
        .map(str::to_owned)
}

pub(crate) fn periods_of(t: &Text) -> Vec<Period> {
    let mut out = Vec::new();
    for (i, tok) in t.toks.iter().enumerate() {
        let w = t.lower_of(tok);
        let before = i.checked_sub(1).map(|b| t.lower(b));
        let timed = before.is_some_and(|b| PERIOD_BEFORE.contains(&b));
        let next_number = t.toks.get(i + 1).is_some_and(|n| n.is_number());
        let before_number = i
            .checked_sub(1)
            .and_then(|b| t.toks.get(b))
            .is_some_and(|n| n.is_number());
        if tok.capital()
            && let Some(month) = crate::text::lexicon::month_number(w)
            && (timed || next_number || before_number)
        {
            out.push(Period {
                kind: PeriodKind::Month,
                key: month,
                at: i,
            });
            continue;
        }
        let season = match w {
            "spring" => 1,
            "summer" => 2,
            "autumn" => 3,
            "fall" if before.is_some_and(|b| matches!(b, "the" | "last" | "this" | "next")) => 3,
            "winter" => 4,
            _ => continue,
        };
        if timed || next_number || t.lower(i + 1) == "of" {
            out.push(Period {
                kind: PeriodKind::Season,
                key: season,
                at: i,
            });
        }
    }
    out
}
