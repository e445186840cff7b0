//! Negation: a predicate the claim negates and the source states plainly, or the reverse; and a
//! statement one side denies as a whole ("it is untrue that …").

use crate::text::tokens::FoldHashSet as HashSet;

use super::Finding;
use super::phrase_with_negation;
use crate::judge::align::*;
use crate::judge::retrieve::TokenId;
use crate::judge::text::*;
use crate::model::ClaimElement;
use crate::text::lexicon::{self};

/// Whether any word of `t` is a negation ("not", "no", "none", "never"…).
fn negates_anything(t: &Text) -> bool {
    t.lowers().any(lexicon::is_negation) || t.lowers().any(|w| w == "none")
}

/// Whether `t` says something is not there in a word of its own ([`PRIVATIVE`]).
fn privative(t: &Text) -> bool {
    t.lowers().any(|w| PRIVATIVE.contains(&w))
}

/// Words that say something is not there without a negation: "one of the three lifebuoy
/// stations was empty" for "one had no lifebuoy".
const PRIVATIVE: &[&str] = &[
    "empty", "missing", "absent", "lacking", "lacked", "lacks", "devoid", "vacant",
];

/// Whether the negation before predicate `i` of `t` denies nothing of the predicate: a double
/// negative ("would not have happened without climate change"), a contrast after a comma
/// ("…, not all children"), or a quantifier it limits ("not every force grew").
fn not_a_denial(t: &Text, i: usize) -> bool {
    let clause = t.clause_of(i);
    let from = i.saturating_sub(NEGATION_REACH).max(clause.start);
    let Some(neg) = (from..i).rev().find(|&j| lexicon::is_negation(t.lower(j))) else {
        return false;
    };
    let limits = matches!(
        t.lower(neg + 1),
        "all" | "every" | "only" | "just" | "necessarily" | "always"
    );
    let contrast = neg > 0 && t.lower(neg - 1) == ",";
    // "would not have happened without climate change": read from either negation.
    let double = (neg + 1..clause.end).any(|j| t.lower(j) == "without")
        || (t.lower(neg) == "without"
            && (neg.saturating_sub(NEGATION_REACH).max(clause.start)..neg)
                .any(|j| lexicon::is_negation(t.lower(j))));
    limits || contrast || double
}

impl Alignment<'_> {
    /// A predicate (not a direction word) negated on one side and stated plainly on the other.
    pub(crate) fn negation(&self) -> Vec<Finding> {
        let claim = &self.claim;
        let mut out = Vec::new();
        // Claim words and whether they are negated; direction words are the direction rule's.
        let claim_predicates: Vec<(usize, bool)> = claim.predicates().collect();
        let claim_negated: Vec<usize> = claim_predicates
            .iter()
            .filter(|p| p.1)
            .map(|p| p.0)
            .collect();
        let mut source_negated: Vec<(usize, usize)> = Vec::new();
        for (k, s) in self.sentences.iter().enumerate() {
            source_negated.extend(s.negated_predicates.iter().map(|&j| (k, j as usize)));
        }
        if claim_negated.is_empty() && source_negated.is_empty() {
            out.extend(self.denial());
            return out;
        }
        // Only the first predicate a negation reaches counts: "did not attend the summit"
        // negates "attend", not "summit".
        let first_after_negation = |t: &Text, i: usize| -> bool {
            let clause = t.clause_of(i);
            let from = i.saturating_sub(NEGATION_REACH).max(clause.start);
            let Some(neg) = (from..i).rev().find(|&j| {
                lexicon::is_negation(t.lower(j))
                    || (lexicon::NEGATING_VERBS.contains(&t.lower(j)) && t.lower(j + 1) == "to")
            }) else {
                return false;
            };
            !(neg + 1..i)
                .any(|j| t.toks[j].is_content() && t.toks[j].is_word() && !is_auxiliary(t.lower(j)))
        };
        let quoted = quoted_tokens(claim);
        for &i in &claim_negated {
            if !first_after_negation(claim, i) || quoted.contains(&i) || not_a_denial(claim, i) {
                continue;
            }
            let stem = claim.toks[i].stem;
            let clause = claim.clause_of(i);
            let subject = claim.stems(clause, &|j| j == i);
            if let Some((k, j)) = self.plain_in_source(stem, &subject) {
                let s = &self.sentences[k];
                // The source negates something in that sentence too: the two negate, each in
                // its words ("none would be lost", "no sports pitches").
                if negates_anything(s) {
                    continue;
                }
                out.push(Finding {
                    element: ClaimElement::Negation,
                    contradiction: true,
                    strong: false,
                    review_only: false,
                    problem: format!(
                        "The claim says \u{201C}{}\u{201D} where the source says \u{201C}{}\u{201D}",
                        phrase_with_negation(claim, i),
                        s.lower(j)
                    ),
                    correction: Some(self.said(k)),
                    sentence: Some(k),
                });
                return out;
            }
        }
        for (k, j) in source_negated {
            let s = &self.sentences[k];
            if !first_after_negation(s, j) {
                continue;
            }
            let stem = s.toks[j].stem;
            let Some(&(i, negated)) = claim_predicates
                .iter()
                .find(|(i, _)| claim.toks[*i].stem == stem)
            else {
                continue;
            };
            // Negated in the claim, or in a statement it denies: they agree. A claim that
            // negates something in that clause too says it in its own words ("one of the
            // stations had no lifebuoy" for "one had no lifebuoy"; "none would be taken out of
            // use" for "no sports pitches would be lost").
            // A word that says a thing is not there ("was empty") words the source's "no
            // lifebuoy", a thing's absence: never a verb's denial ("did not approve").
            let absent_thing = j > 0 && matches!(s.lower(j - 1), "no" | "none");
            if negated
                || claim.denied(i)
                || negates_anything(claim)
                || (absent_thing && privative(claim))
            {
                continue;
            }
            let clause = claim.part_of(i);
            let subject = claim.stems(clause.clone(), &|x| x == i);
            let source_clause = s.part_of(j);
            let overlap = self.overlap(&subject, k, source_clause.clone());
            // Aligned, or framed alike: a word of the claim before the predicate and one after it
            // on both sides ("found [no] evidence that … misused"), the clauses sharing a part of
            // their words.
            let framed = framed_alike(claim, clause, i, s, source_clause.clone(), j);
            if overlap < MIN_ALIGNMENT && !framed {
                continue;
            }
            // The claim must not be stated plainly elsewhere in an equally aligned clause.
            if self.plain_in_source(stem, &subject).is_some() {
                continue;
            }
            out.push(Finding {
                element: ClaimElement::Negation,
                contradiction: true,
                strong: false,
                review_only: false,
                problem: format!(
                    "The claim says \u{201C}{}\u{201D} where the source says \u{201C}{}\u{201D}",
                    claim.lower(i),
                    phrase_with_negation(s, j)
                ),
                correction: Some(self.said(k)),
                sentence: Some(k),
            });
            return out;
        }
        out.extend(self.denial());
        out
    }

    /// A statement one side denies as a whole and the other states: the claim "it is untrue
    /// that the council cut the budget" where the source says the council cut it, or the claim
    /// that it cut it where the source says "it is false that the council cut the budget". The
    /// denial words carry no negation of their own for the rules above to read ("untrue",
    /// "false"), and the word they deny stands too far from them for a negation to reach.
    pub(crate) fn denial(&self) -> Option<Finding> {
        let claim = &self.claim;
        // A denied statement with a direction word is the direction rule's: the denial flips it.
        let directed = |t: &Text| t.direction_at.iter().any(|&i| t.denied(i as usize));
        if let Some(frame) = denial_frame(claim) {
            if directed(claim) {
                return None;
            }
            let leave = Stems::of(claim.toks[frame.clone()].iter().map(|t| t.stem).collect());
            let (w, held) = self.best_window(&leave)?;
            if held < HELD {
                return None;
            }
            // A source that denies or negates it too agrees.
            let denies = self.windows[w].iter().any(|&k| {
                self.coverage_without(k, &leave) >= PART && negates_or_denies(self.sentences[k])
            });
            let k = self
                .best_sentence_without(&leave)
                .or(self.windows[w].first().copied())?;
            return (!denies).then(|| Finding {
                element: ClaimElement::Negation,
                contradiction: true,
                strong: false,
                review_only: false,
                problem: format!(
                    "The claim says \u{201C}{}\u{201D} where the source states it",
                    claim.span(frame).trim()
                ),
                correction: Some(self.said(k)),
                sentence: Some(k),
            });
        }
        // The claim states it plainly; the sentence stating most of it denies it.
        if negates_or_denies(claim) {
            return None;
        }
        let k = self.best_sentence()?;
        let s = self.sentences[k];
        let frame = denial_frame(s)?;
        if directed(s) {
            return None;
        }
        let after = frame.end..s.toks.len();
        let held = self.overlap(&self.claim_stems, k, after);
        (held >= HELD).then(|| Finding {
            element: ClaimElement::Negation,
            contradiction: true,
            strong: false,
            review_only: false,
            problem: format!(
                "The claim states what the source denies: \u{201C}{}\u{201D}",
                s.span(frame).trim()
            ),
            correction: Some(self.said(k)),
            sentence: Some(k),
        })
    }

    /// A source clause aligned with `subject` that states `stem` without negation, and none
    /// that states it negated as well; (sentence, token).
    pub(crate) fn plain_in_source(&self, stem: TokenId, subject: &Stems) -> Option<(usize, usize)> {
        let mut best: Option<(f64, usize, usize)> = None;
        for (k, c) in self.source_clauses() {
            let s = &self.sentences[k];
            for j in c.clone() {
                if s.toks[j].stem != stem || !s.toks[j].is_word() {
                    continue;
                }
                // The source says it negated somewhere too: no contradiction to speak of.
                if s.negated(j) || s.denied(j) {
                    return None;
                }
                let o = self.overlap(subject, k, c.clone());
                if best.is_none_or(|b| o > b.0) {
                    best = Some((o, k, j));
                }
            }
        }
        let (o, k, j) = best?;
        (o >= MIN_ALIGNMENT).then_some((k, j))
    }

    // -----------------------------------------------------------------------------------------
    // Figures: subject, units, multipliers
}

/// Tokens between quotation marks: quoted words are compared by the quote check.
pub(crate) fn quoted_tokens(t: &Text) -> HashSet<usize> {
    let mut out = HashSet::default();
    let mut open = false;
    for (i, tok) in t.toks.iter().enumerate() {
        match t.kind_of(tok) {
            TokKind::Mark('"') => open = !open,
            TokKind::Mark('\u{201C}') => open = true,
            TokKind::Mark('\u{201D}') => open = false,
            _ if open => {
                out.insert(i);
            }
            _ => {}
        }
    }
    out
}

/// Whether a text negates anything, or denies a statement as a whole ([`denial_frame`]).
pub(crate) fn negates_or_denies(t: &Text) -> bool {
    denial_frame(t).is_some()
        || t.lowers().enumerate().any(|(j, w)| {
            lexicon::is_negation(w)
                || (lexicon::NEGATING_VERBS.contains(&w) && t.lower(j + 1) == "to")
        })
}

/// Auxiliaries and adverbs a negation passes over to reach its verb: "did not *fully* approve".
pub(crate) fn is_auxiliary(word: &str) -> bool {
    matches!(
        word,
        "fully"
            | "yet"
            | "ever"
            | "always"
            | "really"
            | "actually"
            | "formally"
            | "officially"
            | "immediately"
            | "directly"
            | "publicly"
    )
}

/// The share of a claim part's content words a source part framed alike ([`framed_alike`])
/// must hold (by count: a word the page lacks weighs the most, which a paraphrase always has)
/// for a negation in one to contradict the other.
const FRAMED_ALIGNMENT: f64 = 0.3;

/// Whether the predicates at `i` (of `a`'s part `ca`) and `j` (of `b`'s part `cb`) stand in the
/// same frame: some content word before each is the same, some content word after each, and the
/// parts share [`FRAMED_ALIGNMENT`] of `a`'s words.
fn framed_alike(
    a: &Text,
    ca: std::ops::Range<usize>,
    i: usize,
    b: &Text,
    cb: std::ops::Range<usize>,
    j: usize,
) -> bool {
    let content = |t: &Text, r: std::ops::Range<usize>| -> Vec<crate::judge::retrieve::TokenId> {
        r.filter(|&x| t.toks[x].is_content() && !lexicon::is_negation(t.lower(x)))
            .map(|x| t.toks[x].stem)
            .collect()
    };
    let before_a = content(a, ca.start..i);
    let before_b = content(b, cb.start..j);
    let after_a = content(a, i + 1..ca.end);
    let after_b = content(b, j + 1..cb.end);
    let all_a: Vec<_> = before_a.iter().chain(&after_a).collect();
    let all_b: Vec<_> = before_b.iter().chain(&after_b).collect();
    let shared = all_a.iter().filter(|w| all_b.contains(w)).count();
    before_a.iter().any(|w| before_b.contains(w))
        && after_a.iter().any(|w| after_b.contains(w))
        && shared as f64 >= FRAMED_ALIGNMENT * all_a.len() as f64
}
