//! Step 4 of judging: the verdict and its severity from what the earlier steps found, by the
//! rules listed in [`super`] (in that order). Also holds the readings the steps pass on: the
//! passages found (step 1) and what comparing each element found (step 3).

use super::align::Alignment;
use super::elements::figure::{SameFact, describe, relative_error, same_fact};
use super::elements::presence;
use super::elements::quote::QuoteCheck;
use super::elements::{self, Finding, rating, subject};
use super::page::PageIndex;
use super::retrieve::{self, Passage, Term};
use super::score::{self, Coverage};
use super::{Evidence, IssueKind, JudgeSettings, Judgment, calibration, credibility};
use crate::model::{Claim, ClaimElement, Difference, Figure, Severity, Unit, Verdict};
use crate::text::tokens::FoldHashSet as HashSet;

/// The share of the claim's weighted words the sentence of an unsupported specific must hold
/// for the specific's absence there to be strong evidence: the sentence states the claim but
/// that.
pub(crate) const STRONGLY_STATED: f64 = 0.6;

/// The share of a claim one passage of a fact-check must state for the claim to be the
/// fact-checker's own words rather than the claim it rates.
const STATED_IN_PROSE: f64 = 0.9;

/// Step 1: the best passages of the source for the claim, and the claim's terms.
pub(crate) struct Passages {
    /// The best passages for the whole claim, best first.
    pub(crate) passages: Vec<Passage>,
    /// The best passage for each part of a claim that states several things ("…, and it has
    /// offered…"), where it is not one of the above: what the comparison of elements reads too.
    pub(crate) parts: Vec<Passage>,
    terms: Vec<Term>,
}

/// What joins two statements in one sentence: each is looked for in the source on its own.
const PART_JOINS: &[&str] = &[
    ", and ",
    ", but ",
    ", while ",
    ", though ",
    ", although ",
    ", whereas ",
    "; ",
    ": ",
];

/// The fewest words a part of a claim must have to be looked for on its own.
const MIN_PART_WORDS: usize = 4;

impl Passages {
    pub(crate) fn find(text: &str, page: &PageIndex, settings: &JudgeSettings) -> Passages {
        let terms = retrieve::terms(text);
        let tokens: Vec<String> = terms.iter().map(|t| t.token.clone()).collect();
        let index = page.index();
        let passages = index.retrieve(page.text(), &tokens, settings.max_passages.max(1));
        let mut parts: Vec<Passage> = Vec::new();
        let mut pieces: Vec<&str> = vec![text];
        for join in PART_JOINS {
            pieces = pieces.iter().flat_map(|p| p.split(join)).collect();
        }
        if pieces.len() > 1 {
            for piece in pieces {
                let words: Vec<String> = retrieve::terms(piece)
                    .into_iter()
                    .map(|t| t.token)
                    .collect();
                if words.len() < MIN_PART_WORDS {
                    continue;
                }
                if let Some(best) = index.retrieve(page.text(), &words, 1).into_iter().next()
                    && !passages
                        .iter()
                        .chain(&parts)
                        .any(|p| p.first == best.first && p.last == best.last)
                {
                    parts.push(best);
                }
            }
        }
        Passages {
            passages,
            parts,
            terms,
        }
    }
}

/// A claim figure compared with the page.
#[derive(Debug, Clone)]
enum FigureReading {
    /// The page's statement of the same fact gives another value.
    Differs {
        claim: Figure,
        fact: SameFact,
        error: f64,
    },
    /// A statistic the page never gives, in any form.
    Absent { claim: Figure },
    /// The page gives the claim's value to another subject, and the claim's subject another.
    Swapped { claim: Figure, swap: subject::Swap },
    /// Within the tolerance of the page's figure for the same fact, but no rounding of it as the
    /// claim writes it ("2,897" for 2,987), and the page gives the claim's value nowhere.
    Misrounded {
        claim: Figure,
        fact: SameFact,
        error: f64,
    },
}

/// What the steps found about one claim and one source, and the judgment being built.
pub(crate) struct Reading<'a> {
    claim: &'a Claim,
    text: &'a str,
    page: &'a PageIndex,
    settings: &'a JudgeSettings,
    terms: Vec<Term>,
    j: Judgment,
    coverage: Coverage,
    rated: Option<rating::Applied<'a>>,
    /// Each finding, its sentence as evidence, and whether that sentence states the rest of the
    /// claim ([`STRONGLY_STATED`]): what makes an unsupported specific medium rather than low.
    findings: Vec<(Finding, Option<Evidence>, bool)>,
    figures: Vec<FigureReading>,
    /// The claim's figures past [`MAX_COMPARED_FIGURES`], not compared one by one.
    uncompared_figures: usize,
    misquote: Option<(String, QuoteCheck)>,
}

use super::align::MAX_COMPARED_FIGURES;

fn as_evidence(p: &Passage) -> Evidence {
    Evidence {
        quote: p.text.clone(),
        start: p.start,
        end: p.end,
    }
}

/// Sentence `i` of the page as evidence.
fn sentence_evidence(page: &PageIndex, i: usize) -> Option<Evidence> {
    let s = page.index().sentences.get(i)?;
    Some(Evidence {
        quote: page.text().get(s.byte_start..s.byte_end)?.to_string(),
        start: s.char_start,
        end: s.char_end,
    })
}

/// Terms of the names in `text`: capitalized words past the first word of the sentence.
fn entity_terms(text: &str) -> Vec<Term> {
    text.split_whitespace()
        .skip(1)
        .filter(|w| {
            w.trim_start_matches(|c: char| !c.is_alphanumeric())
                .starts_with(|c: char| c.is_uppercase())
        })
        .flat_map(retrieve::terms)
        .collect()
}

/// The number a figure is written with, as the lexical comparison reads it: "$4.2 billion" →
/// "4.2", "4,000" → "4000".
fn number_token(figure_text: &str) -> Option<String> {
    retrieve::tokenize(figure_text)
        .into_iter()
        .find(|t| retrieve::is_number(t))
}

impl<'a> Reading<'a> {
    pub(crate) fn new(
        claim: &'a Claim,
        text: &'a str,
        found: &Passages,
        page: &'a PageIndex,
        source_url: &str,
        settings: &'a JudgeSettings,
    ) -> Reading<'a> {
        let j = Judgment {
            verdict: Verdict::Unconfirmed,
            support: 0.0,
            evidence: found.passages.first().map(as_evidence),
            source_url: source_url.to_string(),
            correction: None,
            figure_error: None,
            severity: None,
            issue: None,
            problem: None,
            credibility: credibility::credibility(source_url, &settings.credibility),
            reasons: Vec::new(),
            element: None,
            difference: None,
            passages: found.passages.iter().map(as_evidence).collect(),
        };
        Reading {
            claim,
            text,
            page,
            settings,
            terms: found.terms.clone(),
            j,
            coverage: Coverage::default(),
            rated: None,
            findings: Vec::new(),
            figures: Vec::new(),
            uncompared_figures: 0,
            misquote: None,
        }
    }

    /// Rule 1: a page with no readable text could not be checked.
    pub(crate) fn empty_source(self) -> Judgment {
        self.j.with_issue(
            Verdict::Unconfirmed,
            Severity::Medium,
            IssueKind::EmptySource,
            "The source has no readable text".into(),
        )
    }

    /// Step 3: every element of the claim compared with the page.
    pub(crate) fn compare(&mut self, a: &Alignment<'_>) {
        let page = self.page;
        if self.j.credibility.level == credibility::CredibilityLevel::Low {
            self.j
                .reasons
                .push("the source is of low credibility".into());
        }
        // Figures: against the page's figure for the same fact, else whether the page gives them.
        let agreed = self.read_figures(a);
        // How far the claim's figures are from the page's that agree with them (a rounding, a
        // hedged estimate); a figure that differs sets it below.
        self.j.figure_error = agreed
            .iter()
            .map(|(c, s)| relative_error(c.value, s.value))
            .max_by(f64::total_cmp);
        // A figure the page states within the tolerance counts as stated in the lexical
        // comparison too: "27%" against the page's "28%" is a rounding.
        for (c, s) in &agreed {
            if let (Some(from), Some(to)) = (number_token(&c.text), number_token(&s.text)) {
                for t in self.terms.iter_mut().filter(|t| t.token == from) {
                    t.token = to.clone();
                }
            }
        }
        let index = page.index();
        self.coverage = score::coverage(index, &self.terms, &entity_terms(self.text));
        self.j.support = self.coverage.score();
        self.j.reasons.push(format!(
            "the best passage covers {:.0}% of the claim's weighted content",
            self.coverage.window * 100.0
        ));
        if !self.coverage.missing_terms.is_empty() {
            self.j.reasons.push(format!(
                "the source never uses: {}",
                self.coverage.missing_terms.join(", ")
            ));
        }
        // A cited fact-check's rating of this claim, or a rebuttal of it in the page's prose
        // (read with the page's reviews).
        // The words of the claim's own link ("[the guide says](…)", "[FactLine found](…)") name
        // the source it cites, not someone whose claim the article reports.
        let mut own_words = self.text.to_owned();
        for label in self
            .claim
            .citations
            .iter()
            .filter_map(|c| c.label.as_deref())
        {
            if label.split_whitespace().count() > 1 {
                own_words = own_words.replace(label, " ");
            }
        }
        self.rated = rating::applicable(&own_words, page.reviews());
        // A claim the fact-check's own prose states word for word, and that is not the claim it
        // rates, is something the fact-checker says ("The Lib Dems have run the council since
        // 2019" on a check of "…put up your council tax by 40%"): not rated.
        if self.rated.as_ref().is_some_and(|applied| {
            self.coverage.window >= STATED_IN_PROSE
                && !rating::same_claim(&own_words, &applied.review.claim_reviewed)
        }) {
            self.rated = None;
        }
        // The other elements, against the aligned sentences.
        for f in elements::findings(a) {
            let evidence = f.sentence.and_then(|k| {
                let i = *a.sentence_index.get(k)?;
                sentence_evidence(page, i)
            });
            let strong = !f.review_only
                && (f.strong
                    || f.sentence
                        .is_some_and(|k| a.sentence_coverage(k) >= STRONGLY_STATED));
            self.j
                .reasons
                .push(format!("{}: {}", f.element.as_str(), f.problem));
            self.findings.push((f, evidence, strong));
        }
        // Quotations.
        for q in &self.claim.quotes {
            match page.check_quote(q) {
                QuoteCheck::Found => {}
                QuoteCheck::TitleMissing => self.j.reasons.push(format!(
                    "the source does not name \u{201C}{q}\u{201D} in full"
                )),
                QuoteCheck::Missing => {
                    if self.misquote.is_none() {
                        self.misquote = Some((q.clone(), QuoteCheck::Missing));
                    }
                }
            }
        }
    }

    /// The claim's figures each read against the page (step 3's figures): the readings that
    /// differ or are absent kept, and those that agree returned with the page's figure.
    fn read_figures(&mut self, a: &Alignment<'_>) -> Vec<(Figure, Figure)> {
        let page = self.page;
        let values = page.figure_values();
        let mut agreed: Vec<(Figure, Figure)> = Vec::new();
        self.uncompared_figures = a.uncompared_figures;
        for (c, at) in a.claim.figures.iter() {
            let hedge = presence::hedge_before(self.text, c);
            let sf = same_fact(a, c, *at, hedge, elements::figure::DEFAULT_SAME_FACT_SHARE);
            // The page writes the claim's value for what the claim says it of, or derives it:
            // the claim's figure is the page's, whatever sentence the alignment chose. A figure
            // the page states is never refuted on its value (a value the page gives only to
            // another subject is a swap, below).
            let stated_here = subject::written_for_claim(a, c, *at)
                || presence::derived_exactly(c, values)
                || (c.unit == Unit::Year && a.states_with_the_claim(&c.text));
            // Close to the page's figure for the same fact, but no rounding of how the claim
            // writes it ("2,897" for 2,987), and the page writes the claim's value nowhere: a
            // figure misread or mistyped.
            let misrounded = |page: &Figure| {
                c.unit != Unit::Year
                    && hedge == presence::Hedge::Exact
                    && relative_error(c.value, page.value) <= self.settings.figure_medium_tolerance
                    && presence::beyond_rounding(c, page)
                    && !stated_here
                    && !presence::written_exactly(c, values)
            };
            match sf {
                Some(fact) if misrounded(&fact.figure) => {
                    let error = relative_error(c.value, fact.figure.value);
                    self.figures.push(FigureReading::Misrounded {
                        claim: c.clone(),
                        fact,
                        error,
                    });
                }
                Some(fact) if fact.agrees => agreed.push((c.clone(), fact.figure)),
                // The page's figure for the claim's subject differs, and the claim's value is
                // the page's figure for something else: a swap, stated plainly.
                Some(_) if let Some(swap) = subject::swapped(a, c, *at, hedge) => {
                    self.figures.push(FigureReading::Swapped {
                        claim: c.clone(),
                        swap,
                    });
                }
                Some(_) if stated_here => {}
                // The page's figure is one the claim gives too, for something else ("rises by
                // £334,000 to £5.1m" against "an extra £334,000"): the claim's figure is
                // compared with nothing, and counts as stated only where the page gives it.
                Some(fact)
                    if a.claim.figures.iter().any(|(other, o)| {
                        o != at
                            && other.unit == fact.figure.unit
                            && relative_error(other.value, fact.figure.value) <= 0.005
                    }) =>
                {
                    let unstated =
                        presence::is_statistic(self.text, c) && !presence::stated(c, hedge, values);
                    if unstated {
                        self.figures
                            .push(FigureReading::Absent { claim: c.clone() });
                    }
                }
                Some(fact) => {
                    let error = relative_error(c.value, fact.figure.value);
                    self.figures.push(FigureReading::Differs {
                        claim: c.clone(),
                        fact,
                        error,
                    });
                }
                None if let Some(swap) = subject::swapped(a, c, *at, hedge) => {
                    self.figures.push(FigureReading::Swapped {
                        claim: c.clone(),
                        swap,
                    });
                }
                // Not aligned, but a figure close to it and no rounding of it stands in a
                // sentence that says most of the rest: a figure misread or mistyped.
                None if let Some(fact) = super::elements::figure::near_miss(a, c, *at)
                    && misrounded(&fact.figure) =>
                {
                    let error = relative_error(c.value, fact.figure.value);
                    self.figures.push(FigureReading::Misrounded {
                        claim: c.clone(),
                        fact,
                        error,
                    });
                }
                None if c.unit == Unit::Year => {
                    // A year the page never writes: the date does not come from this source,
                    // unless the page dates things relative to its own date ("last year").
                    let year = format!("{}", c.value as i64);
                    if !c.text.ends_with('s')
                        && !page.index().contains(&year)
                        && !presence::relative_years(page.text())
                    {
                        self.figures
                            .push(FigureReading::Absent { claim: c.clone() });
                    }
                }
                None if presence::is_statistic(self.text, c)
                    && !presence::stated(c, hedge, values)
                    && !presence::number_written(c, |t| page.index().contains(t)) =>
                {
                    self.figures
                        .push(FigureReading::Absent { claim: c.clone() });
                }
                None => {}
            }
        }
        agreed
    }

    /// Step 4: the verdict, by the rules of [`super`] in order.
    pub(crate) fn decide(mut self) -> Judgment {
        let lexical = self.j.support;
        let settings = self.settings;
        let (rated_true, ruled) = self.rating_rule(lexical);
        let worst = self.worst_figure();
        let ruled = ruled
            .or_else(|| self.contradiction_rule(lexical, worst.as_ref(), rated_true))
            .or_else(|| self.figure_rules(lexical, worst.as_ref(), rated_true))
            .or_else(|| self.detail_rules(lexical));
        if let Some((verdict, severity, kind, problem)) = ruled {
            return self.j.with_issue(verdict, severity, kind, problem);
        }

        // Rule 8: supported.
        if lexical >= settings.support_threshold || rated_true {
            self.j.verdict = Verdict::Supported;
            if let Some((c, fact, e)) = worst.as_ref().filter(|w| w.2 > 0.0) {
                self.j.element = Some(ClaimElement::Figure);
                self.j.correction = Some(format!("source says {}", describe(&fact.figure)));
                return self.j.with_issue(
                    Verdict::Supported,
                    Severity::Low,
                    IssueKind::FigureDiscrepancy,
                    figure_problem(c, &fact.figure, *e),
                );
            }
            return self.j;
        }

        self.unconfirmed(lexical)
    }

    /// Rule 2: a fact-check's rating, or a rebuttal in prose; and whether it rates the claim
    /// true.
    fn rating_rule(&mut self, lexical: f64) -> (bool, Option<Ruled>) {
        let settings = self.settings;
        if let Some(applied) = self.rated.take() {
            let rating_text = applied.review.rating_text();
            self.j.reasons.push(format!(
                "the source is a fact-check of \u{201C}{}\u{201D}, rated {rating_text}",
                applied.review.claim_reviewed
            ));
            let evidence = Evidence {
                quote: format!(
                    "Claim reviewed: \u{201C}{}\u{201D}. Rating: {rating_text}",
                    applied.review.claim_reviewed
                ),
                start: 0,
                end: 0,
            };
            match applied.rating {
                rating::Rating::False | rating::Rating::Mixed => {
                    let false_rating = applied.rating == rating::Rating::False;
                    self.j.evidence = Some(evidence);
                    self.j.element = Some(ClaimElement::Rating);
                    self.j.correction = Some(format!(
                        "the cited fact-check rates this claim {rating_text}"
                    ));
                    self.j.support = if false_rating {
                        0.0
                    } else {
                        lexical.min(settings.support_threshold / 2.0)
                    };
                    let (verdict, severity) = if false_rating {
                        (Verdict::Refuted, Severity::High)
                    } else {
                        (Verdict::Unconfirmed, Severity::Medium)
                    };
                    return (
                        false,
                        Some((
                            verdict,
                            severity,
                            IssueKind::RatedByFactCheck,
                            format!("The cited fact-check rates this claim {rating_text}"),
                        )),
                    );
                }
                rating::Rating::True => return (true, None),
            }
        }

        (false, None)
    }

    /// The claim's figure furthest from the page's for the same fact (years apart).
    fn worst_figure(&self) -> Option<(Figure, SameFact, f64)> {
        self.figures
            .iter()
            .filter_map(|f| match f {
                FigureReading::Differs { claim, fact, error } if claim.unit != Unit::Year => {
                    Some((claim, fact, *error))
                }
                _ => None,
            })
            .max_by(|a, b| a.2.total_cmp(&b.2))
            .map(|(c, f, e)| (c.clone(), f.clone(), e))
    }

    /// Rule 3: the source states the same fact otherwise: a year, a figure given to another
    /// subject, a figure far off, or an element contradicted.
    fn contradiction_rule(
        &mut self,
        lexical: f64,
        worst: Option<&(Figure, SameFact, f64)>,
        rated_true: bool,
    ) -> Option<Ruled> {
        let settings = self.settings;
        if let Some((c, fact)) = self.figures.iter().find_map(|f| match f {
            FigureReading::Differs { claim, fact, .. } if claim.unit == Unit::Year => {
                Some((claim.clone(), fact.clone()))
            }
            _ => None,
        }) {
            self.j.evidence = sentence_evidence(self.page, fact.sentence);
            self.j.correction = Some(format!("source says {}", fact.figure.text));
            self.j.support = (lexical * 0.2).min(settings.support_threshold / 2.0);
            self.j.element = Some(ClaimElement::Date);
            self.j.difference = Some(difference(&c.text, &fact.figure.text));
            return Some((
                Verdict::Refuted,
                Severity::High,
                IssueKind::Contradicted,
                format!(
                    "The claim says {} where the source says {}",
                    c.text, fact.figure.text
                ),
            ));
        }
        if let Some((c, swap)) = self.figures.iter().find_map(|f| match f {
            FigureReading::Swapped { claim, swap } => Some((claim.clone(), swap.clone())),
            _ => None,
        }) {
            self.j.evidence = sentence_evidence(self.page, swap.sentence);
            self.j.correction = Some(format!(
                "source says {} for {}",
                describe(&swap.theirs),
                swap.subject
            ));
            self.j.support = (lexical * 0.2).min(settings.support_threshold / 2.0);
            self.j.element = Some(ClaimElement::Subject);
            self.j.difference = Some(difference(&c.text, &swap.theirs.text));
            return Some((
                Verdict::Refuted,
                Severity::High,
                IssueKind::Contradicted,
                format!(
                    "The source gives {} for {}; {} is its figure for {}",
                    describe(&swap.theirs),
                    swap.subject,
                    c.text,
                    swap.other
                ),
            ));
        }
        if let Some((c, fact, e)) = worst {
            self.j.figure_error = Some(*e);
            if *e > settings.figure_high_tolerance {
                self.j.evidence = sentence_evidence(self.page, fact.sentence);
                self.j.correction = Some(format!("source says {}", describe(&fact.figure)));
                self.j.support = (lexical * 0.2).min(settings.support_threshold / 2.0);
                self.j.element = Some(ClaimElement::Figure);
                self.j.difference = Some(difference(&c.text, &fact.figure.text));
                return Some((
                    Verdict::Refuted,
                    Severity::High,
                    IssueKind::ContradictedFigure,
                    figure_problem(c, &fact.figure, *e),
                ));
            }
        }
        if rated_true {
            // The page rates or rebuts the statement the claim reports as false: the claim and
            // the page agree, whatever words of the denied statement they share.
            self.findings.clear();
        }
        if let Some(i) = self.findings.iter().position(|(f, _, _)| f.contradiction) {
            let (f, evidence, _) = self.findings.swap_remove(i);
            self.j.support = (lexical * 0.2).min(settings.support_threshold / 2.0);
            if let Some(e) = evidence {
                self.j.evidence = Some(e);
            }
            self.j.correction = f.correction.clone();
            self.j.element = Some(f.element);
            self.j.difference = quoted_pair(&f.problem);
            let kind = match f.element {
                ClaimElement::Speaker => IssueKind::Misattributed,
                _ => IssueKind::Contradicted,
            };
            return Some((Verdict::Refuted, Severity::High, kind, f.problem));
        }

        None
    }

    /// Rules 4 and 5: a statistic the page never gives; a figure 10–20% off the page's.
    fn figure_rules(
        &mut self,
        lexical: f64,
        worst: Option<&(Figure, SameFact, f64)>,
        rated_true: bool,
    ) -> Option<Ruled> {
        let settings = self.settings;
        // Rule 4: a statistic the page never gives.
        let absent = self.figures.iter().find_map(|f| match f {
            FigureReading::Absent { claim } => Some(claim.clone()),
            _ => None,
        });
        if let Some(c) = absent
            && !rated_true
        {
            self.j.support = lexical.min(settings.support_threshold / 2.0);
            // A statistic is as unsourced as one with no citation (high); a date the page
            // never gives is strong evidence the source does not state the claim (medium).
            let (element, severity, what) = if c.unit == Unit::Year {
                (ClaimElement::Date, Severity::Medium, "the year")
            } else {
                (ClaimElement::Figure, Severity::High, "the figure")
            };
            self.j.element = Some(element);
            return Some((
                Verdict::Unconfirmed,
                severity,
                IssueKind::NotInSource,
                format!(
                    "The source never gives {what} {}: it does not come from this source",
                    c.text
                ),
            ));
        }

        // Rule 5: a figure 10–20% off the page's figure for the same thing, or closer but no
        // rounding of it.
        if worst.is_none_or(|w| w.2 <= settings.figure_medium_tolerance)
            && let Some((c, fact, e)) = self.figures.iter().find_map(|f| match f {
                FigureReading::Misrounded { claim, fact, error } => {
                    Some((claim.clone(), fact.clone(), *error))
                }
                _ => None,
            })
        {
            self.j.evidence = sentence_evidence(self.page, fact.sentence);
            self.j.correction = Some(format!("source says {}", describe(&fact.figure)));
            self.j.support = lexical * 0.5;
            self.j.element = Some(ClaimElement::Figure);
            self.j.figure_error = Some(e);
            self.j.difference = Some(difference(&c.text, &fact.figure.text));
            return Some((
                Verdict::Unconfirmed,
                Severity::Medium,
                IssueKind::FigureDiscrepancy,
                format!(
                    "The claim says {} where the source says {}: not a rounding of it",
                    c.text,
                    describe(&fact.figure)
                ),
            ));
        }
        // Rule 5: a figure 10–20% off the page's figure for the same thing.
        if let Some((c, fact, e)) = worst.filter(|w| w.2 > settings.figure_medium_tolerance) {
            self.j.evidence = sentence_evidence(self.page, fact.sentence);
            self.j.correction = Some(format!("source says {}", describe(&fact.figure)));
            self.j.support = lexical * 0.5;
            self.j.element = Some(ClaimElement::Figure);
            self.j.difference = Some(difference(&c.text, &fact.figure.text));
            return Some((
                Verdict::Unconfirmed,
                Severity::Medium,
                IssueKind::FigureDiscrepancy,
                figure_problem(c, &fact.figure, *e),
            ));
        }

        None
    }

    /// Rules 6 and 7, and figures left uncompared: a quotation the page does not hold, a
    /// specific the claim adds.
    fn detail_rules(&mut self, lexical: f64) -> Option<Ruled> {
        let settings = self.settings;
        // Rule 6: a quotation the page does not hold.
        if let Some((q, _)) = self.misquote.take() {
            let severity = if elements::quote::words_on_page(&q, self.page) {
                Severity::Low
            } else {
                Severity::Medium
            };
            self.j.support = lexical / 3.0;
            self.j.element = Some(ClaimElement::Quote);
            return Some((
                Verdict::Unconfirmed,
                severity,
                IssueKind::QuoteNotFound,
                format!("The quote \u{201C}{q}\u{201D} is not in the source"),
            ));
        }

        // Rule 7: a specific the claim adds to what the source states.
        // The strongest first: a finding only for review never stands in for one that the
        // sentence stating the rest of the claim lacks. A direction the page never gives its
        // subject only keeps a claim from being supported: one the page does not state well
        // enough to support is judged by the rules after (its severity theirs).
        let supported_else = lexical >= settings.support_threshold;
        let unsupported = self
            .findings
            .iter()
            .position(|(f, _, strong)| !f.contradiction && *strong)
            .or_else(|| {
                self.findings.iter().position(|(f, _, _)| {
                    !f.contradiction
                        && (supported_else
                            || !(f.review_only && f.element == ClaimElement::Direction))
                })
            });
        if let Some(i) = unsupported {
            let (f, evidence, strong) = self.findings.swap_remove(i);
            self.j.support = lexical.min(settings.support_threshold / 2.0);
            if let Some(e) = evidence {
                self.j.evidence = Some(e);
            }
            self.j.correction = f.correction.clone();
            self.j.element = Some(f.element);
            let kind = match f.element {
                ClaimElement::Speaker => IssueKind::Misattributed,
                _ => IssueKind::UnsupportedDetail,
            };
            // Medium where the sentence that states the rest of the claim lacks it; where no
            // sentence states most of the claim, the specific is one more thing the source
            // does not clearly say: for review.
            let severity = if strong {
                Severity::Medium
            } else {
                Severity::Low
            };
            return Some((Verdict::Unconfirmed, severity, kind, f.problem));
        }

        // Figures left uncompared: part of the claim was not checked, which blocks at every
        // strictness (fails closed), as a source that could not be read does.
        if self.uncompared_figures > 0 {
            self.j.support = lexical.min(settings.support_threshold / 2.0);
            let given = MAX_COMPARED_FIGURES + self.uncompared_figures;
            return Some((
                Verdict::Unconfirmed,
                Severity::High,
                IssueKind::UnclearSupport,
                format!(
                    "The claim gives {given} figures; the first {MAX_COMPARED_FIGURES} were compared with the source, the other {} were not: check them by hand",
                    self.uncompared_figures
                ),
            ));
        }

        None
    }

    /// Rule 9: unconfirmed; medium only where the calibrated probability is low.
    fn unconfirmed(self, lexical: f64) -> Judgment {
        let settings = self.settings;
        let probability = calibration::confidence(lexical);
        let severity = if probability < settings.unconfirmed_medium_below {
            Severity::Medium
        } else {
            Severity::Low
        };
        let missing: HashSet<&str> = self
            .coverage
            .missing_terms
            .iter()
            .map(String::as_str)
            .collect();
        let problem = if missing.is_empty() {
            "The source does not clearly state the claim".to_owned()
        } else {
            let mut words: Vec<&str> = missing.into_iter().collect();
            words.sort_unstable();
            format!(
                "The source does not clearly state the claim (it never uses: {})",
                words.join(", ")
            )
        };
        self.j.with_issue(
            Verdict::Unconfirmed,
            severity,
            IssueKind::UnclearSupport,
            problem,
        )
    }
}

/// "The claim says 17% where the source says 7% (10 points higher)".
fn figure_problem(c: &Figure, s: &Figure, e: f64) -> String {
    format!(
        "The claim says {} where the source says {} ({})",
        c.text,
        describe(s),
        elements::figure::difference_in_words(c, s, e)
    )
}

/// A rule's verdict: what the judgment becomes, its severity, the issue's kind and problem.
type Ruled = (Verdict, Severity, IssueKind, String);

fn difference(claim: &str, source: &str) -> Difference {
    Difference {
        claim: claim.to_owned(),
        source: source.to_owned(),
    }
}

/// The two quoted words of an element finding's problem, as every element rule words it: "The
/// claim says “rose” where the source says “fell”".
fn quoted_pair(problem: &str) -> Option<Difference> {
    let mut spans = problem
        .split('\u{201C}')
        .skip(1)
        .filter_map(|part| part.split('\u{201D}').next());
    let claim = spans.next()?;
    let source = spans.next()?;
    Some(difference(claim, source))
}
