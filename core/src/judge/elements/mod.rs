//! Step 3 of judging: the claim compared with the source sentence it is aligned with, one
//! element at a time. Each file compares one element and says, in its findings, why:
//!
//! - [`direction`]: a word on an axis of [`lexicon::directions`] ("rose", "approved", "won")
//!   against the aligned clause's word on the same axis, each flipped by a negation before it,
//!   against a table row's signed change ("Change: +8.7%"), and against the claim's own two
//!   figures ("up from 455" after 402) where the page gives both;
//! - [`negation`]: a predicate the claim negates and the source states plainly, or the reverse,
//!   and a statement one side denies as a whole;
//! - [`figure`]: a figure against the page's figure for the same fact (the same subject and
//!   the same measured quantity, so a figure the page gives for something else is compared
//!   with the right one), and [`presence`]: a statistic the page never gives;
//! - [`subject`]: the claim's value given by the page to another subject, and another value to
//!   the claim's;
//! - [`unit`]: the claim's value in the source with another unit, currency or period;
//! - [`date`]: a year, a day of a month, a month or season the source states otherwise;
//! - [`speaker`]: who the source says said the statement, and the office it gives them;
//! - [`specifics`]: what the claim adds that the source does not state (a superlative or record,
//!   a multiplier, a universal quantifier, a place);
//! - [`table`]: a figure a table gives to another row than the one the claim names, where the
//!   table gives the claim's row another value;
//! - [`slots`]: a name, year, number or negation changed in a sentence the claim otherwise
//!   follows word for word;
//! - [`figure`], [`quote`], [`rating`]: figures against the passages' figures, quoted words
//!   against the page, a cited fact-check's rating.
//!
//! A finding is a *contradiction* (the source says otherwise) or an *unsupported specific* (the
//! source does not say it). Every rule needs the claim aligned first ([`super::align`]).

pub mod date;
pub mod direction;
pub mod figure;
pub mod negation;
pub mod presence;
pub mod quote;
pub mod rating;
pub mod rebuttal;
pub mod slots;
pub mod speaker;
pub mod specifics;
pub mod subject;
pub mod table;
#[cfg(test)]
mod tests;
pub mod unit;

use super::align::Alignment;
use super::text::Text;
use crate::judge::text::NEGATION_REACH;
use crate::model::ClaimElement;
#[allow(unused_imports)]
use crate::text::lexicon;

/// One thing the source says otherwise, or does not say.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub element: ClaimElement,
    /// The source says otherwise (high); else the source does not state it (medium).
    pub contradiction: bool,
    /// For what the source does not state: the page states it nowhere, which is strong evidence
    /// on its own (medium), whatever sentence the claim aligns with.
    pub strong: bool,
    /// For what the source does not state: only for review (low), however much of the claim
    /// the aligned sentence states: a ranking the page's data cannot settle, a descriptive
    /// superlative ("the most serious defects").
    pub review_only: bool,
    /// What is wrong, for the editor: "The claim says “fell” where the source says “rose”".
    pub problem: String,
    /// What the source says instead, in its words: "the source says: “ridership rose 4%”".
    pub correction: Option<String>,
    /// The source sentence the finding rests on, as an index into [`Alignment::sentences`].
    pub sentence: Option<usize>,
}

/// Every finding of an aligned claim, contradictions first.
pub fn findings(a: &Alignment<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(a.speaker());
    out.extend(a.direction());
    out.extend(direction::figure_direction(a));
    out.extend(direction::own_figures_direction(a));
    out.extend(direction::table_change_direction(a));
    out.extend(a.negation());
    // (the subject of a figure is compared by `figure::same_fact`)
    out.extend(a.units());
    out.extend(a.dates());
    out.extend(a.superlatives());
    out.extend(a.multipliers());
    out.extend(a.quantifiers());
    out.extend(a.places());
    out.extend(a.table_rows());
    // Last: a slot changed in a copied sentence is the general rule; a rule that names the
    // element (a direction reversed, a speaker, a unit) says more, so its finding leads.
    out.extend(a.substitutions());
    out.sort_by_key(|f| !f.contradiction);
    out
}

impl Alignment<'_> {
    pub(crate) fn unsupported(&self, element: ClaimElement, problem: String) -> Finding {
        let k = self.best_sentence();
        Finding {
            element,
            contradiction: false,
            strong: false,
            review_only: false,
            problem,
            correction: k.map(|k| self.said(k)),
            sentence: k,
        }
    }
}

/// The word at `i` with the negation that governs it: "did not approve".
pub(crate) fn phrase_with_negation(t: &Text, i: usize) -> String {
    let clause = t.clause_of(i);
    let from = i.saturating_sub(NEGATION_REACH).max(clause.start);
    let neg = (from..i).find(|&j| {
        lexicon::is_negation(t.lower(j))
            || (lexicon::NEGATING_VERBS.contains(&t.lower(j)) && t.lower(j + 1) == "to")
    });
    match neg {
        Some(j) if t.negated(i) => t.span(j..i + 1).to_owned(),
        _ => t.span(i..i + 1).to_owned(),
    }
}
