//! Slots the claim fills differently from the source sentence it follows word for word: a name,
//! year, number, ordinal or negation changed ([`crate::judge::substitute`]).

use super::Finding;
use super::figure::relative_error;
use super::speaker::*;
use crate::judge::align::*;
use crate::judge::substitute;
use crate::judge::text::*;
use crate::model::ClaimElement;

impl Alignment<'_> {
    /// Names, years, numbers, ordinals and negations the claim changed in a source sentence it
    /// otherwise follows word for word ([`substitute`]). The sentence must hold at least
    /// [`MIN_ALIGNMENT`] of the claim's weighted words and [`MIN_FOLLOWED_WORDS`] of its content
    /// words, and a changed slot needs a content word
    /// among the words that enclose it, so that "the … of" alone anchors nothing.
    pub(crate) fn substitutions(&self) -> Vec<Finding> {
        let claim = &self.claim;
        let total = self.weight_of(&self.claim_stems);
        if total <= 0.0 {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (k, s) in self.sentences.iter().enumerate() {
            // The words the alignment can match are among those both texts have: a sentence
            // that shares too few of them is not followed, whatever the alignment finds.
            let shared = Stems::of(
                s.toks
                    .iter()
                    .filter(|t| !t.is_mark() && self.claim_stems.contains(t.stem))
                    .map(|t| t.stem)
                    .collect(),
            );
            if shared.len() < MIN_FOLLOWED_WORDS || self.weight_of(&shared) < MIN_ALIGNMENT * total
            {
                continue;
            }
            let pairs = substitute::align(claim, s);
            let matched = Stems::of(
                pairs
                    .iter()
                    .filter(|(c, _)| claim.toks[*c].is_content())
                    .map(|(c, _)| claim.toks[*c].stem)
                    .collect(),
            );
            // Following a sentence word for word takes words to follow: a fragment sharing one
            // or two content words with a sentence does not copy it.
            if matched.len() < MIN_FOLLOWED_WORDS
                || self.weight_of(&matched) < MIN_ALIGNMENT * total
            {
                continue;
            }
            for sub in substitute::substitutions(claim, s, &pairs) {
                let anchored = sub.anchors.iter().any(|&a| claim.toks[a].is_content());
                // A slot in a denial frame ("it isn't true that") is the denial rule's.
                let in_frame = claim
                    .denied_from
                    .is_some_and(|from| sub.claim_tokens.start < from as usize);
                if !anchored || in_frame {
                    continue;
                }
                if let Some(f) = self.substitution_finding(k, &sub) {
                    out.push(f);
                }
            }
        }
        out
    }

    /// Whether sentence `k` gives one of the claim's figures (other than years) for the year
    /// `year` the claim writes: the same value, with the period written after it or opening the
    /// sentence (`figure::page_period`) being that year.
    fn dates_the_claims_figure(&self, k: usize, year: &str) -> bool {
        use crate::model::Unit;
        let Ok(year) = year.parse::<i64>() else {
            return false;
        };
        let s = self.sentences[k];
        self.claim
            .figures
            .iter()
            .filter(|(c, _)| c.unit != Unit::Year)
            .any(|(c, _)| {
                s.figures.iter().any(|(f, at)| {
                    f.unit == c.unit
                        && relative_error(c.value, f.value) <= 0.02
                        && super::figure::page_period(s, f, *at).year() == Some(year)
                })
            })
    }

    pub(crate) fn substitution_finding(
        &self,
        k: usize,
        sub: &substitute::Substitution,
    ) -> Option<Finding> {
        use substitute::SlotKind;
        let claim = &self.claim;
        let before = sub
            .claim_tokens
            .start
            .checked_sub(1)
            .map(|i| claim.lower(i));
        let near_reporting_verb = (sub.claim_tokens.start.saturating_sub(3)
            ..(sub.claim_tokens.end + 3).min(claim.toks.len()))
            .any(|i| is_reporting_verb(claim.lower(i)));
        let says = |what: &str| {
            format!(
                "The claim says \u{201C}{}\u{201D} where the source says \u{201C}{what}\u{201D}",
                sub.claim
            )
        };
        let (element, contradiction, problem) = match sub.kind {
            SlotKind::Negation if sub.source.is_empty() => (
                ClaimElement::Negation,
                true,
                format!(
                    "The claim says \u{201C}{}\u{201D} where the source states it without the negation",
                    sub.claim
                ),
            ),
            SlotKind::Negation => (ClaimElement::Negation, true, says(&sub.source)),
            // The sentence gives the claim's figure for the claim's year ("In 2024 sales rose 5%,
            // after 2% in 2023" for sales up 5% in 2024): the year it lines up with word for
            // word dates another figure.
            SlotKind::Year if self.dates_the_claims_figure(k, sub.claim.trim()) => return None,
            // Another sentence of the page states the claim with its year ("have run the
            // council since 2019"): the one that differs is about something else.
            SlotKind::Year if self.states_with_the_claim(sub.claim.trim()) => return None,
            SlotKind::Year => (ClaimElement::Date, true, says(&sub.source)),
            SlotKind::Number => {
                let number = |t: &str| t.trim().replace(',', "").parse::<f64>().ok();
                let (a, b) = (number(&sub.claim)?, number(&sub.source)?);
                if relative_error(a, b) <= self.high_tolerance {
                    return None;
                }
                // The sentence states the claim's number as well ("Rents rose 8% last year,
                // while wages rose 3%" for wages up 3% last year): which of its figures is the
                // claim's is for the figure rule (`same_fact`) to say, not word order.
                let s = self.sentences[k];
                if (0..s.toks.len()).any(|j| number(s.lower(j)) == Some(a)) {
                    return None;
                }
                (ClaimElement::Figure, true, says(&sub.source))
            }
            SlotKind::Ordinal => (ClaimElement::Figure, true, says(&sub.source)),
            // A month or a day of the week changed is the date rules' to judge.
            SlotKind::Name
                if sub
                    .claim
                    .split_whitespace()
                    .all(|w| is_calendar_word(&w.to_lowercase())) =>
            {
                return None;
            }
            SlotKind::Name if matches!(before, Some("in" | "at" | "near" | "outside")) => {
                (ClaimElement::Place, false, says(&sub.source))
            }
            SlotKind::Name if near_reporting_verb => {
                (ClaimElement::Speaker, true, says(&sub.source))
            }
            SlotKind::Name => (ClaimElement::Name, true, says(&sub.source)),
        };
        // A place swapped where the sentence states the rest of the claim ("opened its first
        // store in York" for "… in Leeds") says plainly the claim has it wrong.
        let slot = claim.stems(sub.claim_tokens.clone(), &|_| false);
        let strong = !contradiction
            && self.coverage_without(k, &slot) >= crate::judge::verdict::STRONGLY_STATED;
        Some(Finding {
            element,
            contradiction,
            strong,
            review_only: false,
            problem,
            correction: Some(self.said(k)),
            sentence: Some(k),
        })
    }

    // -----------------------------------------------------------------------------------------
    // Direction and negation
}
