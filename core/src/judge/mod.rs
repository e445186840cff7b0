//! Judging one claim against the text of the source it cites: supported, refuted or
//! inconclusive, with a support score, the evidence passage, a correction where the source says
//! otherwise, the issue's severity, the element of the claim at fault, and the source's
//! credibility.
//!
//! # Layout
//! - `retrieve`: sentences and windows of the source ranked against the claim (BM25).
//! - `score`: lexical coverage of the claim by the source, the support score, and ROC AUC.
//! - `figures`: the claim's figures against the best passages' figures.
//! - `align`: the claim against the source clause that states it, element by element:
//!   direction, negation, the subject a figure belongs to, units, currencies, dates, speakers
//!   and titles, and the specifics a claim adds (superlatives, multipliers, quantifiers, places).
//! - `quotes`: quoted spans looked up word by word in the source, with typographic tolerance.
//! - `review`: a cited fact-check's rating of the claim (schema.org `ClaimReview`, or a rating
//!   stated in words).
//! - `credibility`: the source's credibility from its domain.
//!
//! # Verdict rules, in order
//! 1. The source has no readable text: inconclusive, medium.
//! 2. A cited fact-check rates this claim ([`review`]): false refutes it (high, the rating as
//!    evidence); a mixed rating is inconclusive, medium; true backs it.
//! 3. The source states an element of the claim otherwise ([`align`]): who said it, its title,
//!    the direction, a negation, the subject a figure belongs to, the unit or currency, the date.
//!    Refuted, high, with the source's words as evidence and correction.
//! 4. A claim figure more than `figure_high_tolerance` off the closest comparable figure of the
//!    best passages: refuted, high, with the source's figure as the correction.
//! 5. Lexical support at or below `refute_threshold`: the source does not say this; refuted,
//!    high (a citation that does not back its claim).
//! 6. A quotation not in the source (word by word, by the rule of [`quotes`]): inconclusive,
//!    medium. The support is cut to a third: the words may be a paraphrase presented as a quote,
//!    or from another source; an editor decides. A quoted *title* ("Master of Puppets") the
//!    source does not name in full is not a misquote but a missing name: it is listed in the
//!    reasons, and its words weigh in the support as any name's do.
//! 7. A figure between `figure_medium_tolerance` and `figure_high_tolerance` off: inconclusive,
//!    medium, with the correction.
//! 8. A specific the claim adds that the source does not state ([`align`]: a superlative or
//!    record, a multiplier, a universal quantifier, a place, a speaker the source never names):
//!    inconclusive, medium.
//! 9. Support at or above `support_threshold`: supported (low, with the correction, when a figure
//!    is off by less than `figure_medium_tolerance`).
//! 10. Otherwise inconclusive, medium: the source does not clearly back the claim.
//!
//! A claim figure that matches a source figure within `figure_medium_tolerance` counts as stated
//! by the source in the support score too: "27%" against a source's "28%" is a rounding, not a
//! number the source lacks.

pub mod align;
pub mod calibration;
pub mod credibility;
pub mod figures;
pub mod page;
pub mod quotes;
pub mod retrieve;
pub mod review;
pub mod score;
pub mod substitute;

pub use credibility::{Credibility, CredibilityLevel, CredibilityLists};
pub use page::PageIndex;

use crate::model::{Claim, ClaimElement, Figure, Severity, Verdict};
use crate::text::figures::parse_figures;
use crate::text::tokens::FoldHashSet as HashSet;
use figures::FigureMatch;
use regex::Regex;
use serde::Serialize;
use std::sync::LazyLock;

/// Support at or above which a claim is supported. Every cited statement of an article is judged,
/// so a clean article of ten claims has ten chances to block wrongly: the threshold is set for
/// about 1% of supported claims, in the middle of the range where the WiCE dev split's supported
/// claims stop blocking on weak support (0.06 to 0.15: only two supported claims block, both on
/// another rule). Claims the source states otherwise, or adds to, are the alignment rules' to
/// catch, not this score's. The price: 67.4% of not_supported claims caught, against 72.1% at
/// 0.18.
pub const DEFAULT_SUPPORT_THRESHOLD: f64 = 0.12;
/// Support at or below which the source is taken not to say the claim at all.
pub const DEFAULT_REFUTE_THRESHOLD: f64 = 0.05;
/// Relative figure error above which the discrepancy is medium (spec: 10–20%).
pub const DEFAULT_FIGURE_MEDIUM_TOLERANCE: f64 = 0.10;
/// Relative figure error above which the claim contradicts its source (spec: > 20%).
pub const DEFAULT_FIGURE_HIGH_TOLERANCE: f64 = 0.20;
/// How many passages are compared and kept.
pub const DEFAULT_MAX_PASSAGES: usize = 3;
/// The share of a claim's distinct content words (stemmed) that, when the source never uses
/// them, shows it does not state the claim: three in five. A source restates a claim partly in
/// its own words, but a source that backs it keeps most of them (on the WiCE dev split, no
/// supported claim lacks this many; half of the not-supported ones do).
pub const MOST_WORDS_UNUSED: f64 = 0.6;
/// Factor applied to support when a quoted span is not in the source.
const MISSING_QUOTE_FACTOR: f64 = 1.0 / 3.0;

/// How claims are judged.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeSettings {
    pub support_threshold: f64,
    pub refute_threshold: f64,
    pub figure_medium_tolerance: f64,
    pub figure_high_tolerance: f64,
    pub max_passages: usize,
    pub credibility: CredibilityLists,
}

impl Default for JudgeSettings {
    fn default() -> Self {
        JudgeSettings {
            support_threshold: DEFAULT_SUPPORT_THRESHOLD,
            refute_threshold: DEFAULT_REFUTE_THRESHOLD,
            figure_medium_tolerance: DEFAULT_FIGURE_MEDIUM_TOLERANCE,
            figure_high_tolerance: DEFAULT_FIGURE_HIGH_TOLERANCE,
            max_passages: DEFAULT_MAX_PASSAGES,
            credibility: CredibilityLists::default(),
        }
    }
}

/// The passage of the source that backs (or contradicts) the claim.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evidence {
    pub quote: String,
    /// Character offsets of the quote in the source text.
    pub start: usize,
    pub end: usize,
}

/// What is wrong with a claim that is not cleanly supported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IssueKind {
    /// A figure more than the high tolerance off its source.
    ContradictedFigure,
    /// A figure off by less than the high tolerance.
    FigureDiscrepancy,
    /// A quoted span the source does not contain.
    QuoteNotFound,
    /// The source does not say what the claim says.
    NotInSource,
    /// The source touches on the claim without clearly backing it.
    UnclearSupport,
    /// The source has no readable text.
    EmptySource,
    /// The source states an element of the claim otherwise (see [`Judgment::element`]).
    Contradicted,
    /// The source attributes the statement to someone else, or to no one the claim names.
    Misattributed,
    /// The claim adds a specific the source does not state (see [`Judgment::element`]).
    UnsupportedDetail,
    /// A cited fact-check rates the claim false, or only partly true.
    RatedByFactCheck,
}

/// The judgment of one claim against one source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judgment {
    pub verdict: Verdict,
    /// How strongly the source backs the claim, in [0, 1].
    pub support: f64,
    pub evidence: Option<Evidence>,
    pub source_url: String,
    /// What the source says instead: "source says $9/month".
    pub correction: Option<String>,
    /// Relative error of the claim's figure furthest from its source.
    pub figure_error: Option<f64>,
    /// `None` when the claim is supported without discrepancy.
    pub severity: Option<Severity>,
    pub issue: Option<IssueKind>,
    /// The problem in words, for the editor.
    pub problem: Option<String>,
    pub credibility: Credibility,
    /// The observations the verdict rests on.
    pub reasons: Vec<String>,
    /// The element of the claim at fault, when the issue is about one.
    pub element: Option<ClaimElement>,
    /// The best passages of the source for the claim, best first: the passages the alignment read.
    pub passages: Vec<Evidence>,
}

/// What a claim is judged against: a source's visible text and the fact-check ratings it
/// carries.
#[derive(Debug, Clone, Copy, Default)]
pub struct Source<'a> {
    pub text: &'a str,
    pub reviews: &'a [review::ClaimReview],
}

impl<'a> From<&'a str> for Source<'a> {
    fn from(text: &'a str) -> Self {
        Source { text, reviews: &[] }
    }
}

static CITATION_MARKER: LazyLock<Regex> = LazyLock::new(|| {
    // A literal pattern: compiling it cannot fail.
    Regex::new(r"\[(?:\d+|[a-z]|citation needed|note \d+)\]").expect("valid regex")
});

/// The claim text without citation markers ("[1]", "[citation needed]").
pub fn strip_citation_markers(text: &str) -> String {
    CITATION_MARKER.replace_all(text, "").into_owned()
}

/// Terms of the names in `text`: capitalized words past the first word of the sentence.
fn entity_terms(text: &str) -> Vec<retrieve::Term> {
    text.split_whitespace()
        .skip(1)
        .filter(|w| {
            w.trim_start_matches(|c: char| !c.is_alphanumeric())
                .starts_with(|c: char| c.is_uppercase())
        })
        .flat_map(retrieve::terms)
        .collect()
}

/// Judges `claim` against `source_text`, the visible text of the page at `source_url`.
pub fn judge(
    claim: &Claim,
    source_text: &str,
    source_url: &str,
    settings: &JudgeSettings,
) -> Judgment {
    judge_with(claim, source_text, source_url, settings, parse_figures)
}

/// Judges `claim` against a fetched page: its text and the fact-check ratings it carries.
pub fn judge_source(
    claim: &Claim,
    source: Source<'_>,
    source_url: &str,
    settings: &JudgeSettings,
) -> Judgment {
    judge_with(claim, source, source_url, settings, parse_figures)
}

/// [`judge_source`] with the figure reader given: `figures_of` reads the figures of a claim
/// without figures and of each best passage. Lets callers and tests substitute their own reader.
pub fn judge_with<'a>(
    claim: &Claim,
    source: impl Into<Source<'a>>,
    source_url: &str,
    settings: &JudgeSettings,
    figures_of: impl Fn(&str) -> Vec<Figure>,
) -> Judgment {
    let page = PageIndex::of(source.into());
    judge_page_with(claim, &page, source_url, settings, figures_of)
}

/// Judges `claim` against a page indexed once ([`PageIndex`]), as the fetch cache keeps it: the
/// same judgment as [`judge_source`] on the page's text and ratings.
pub fn judge_page(
    claim: &Claim,
    page: &PageIndex,
    source_url: &str,
    settings: &JudgeSettings,
) -> Judgment {
    // The passages' figures as the page keeps them: `parse_figures` of the passage's text.
    judge_page_reading(claim, page, source_url, settings, &parse_figures, &|p| {
        page.window_figures(p.first, p.last)
    })
}

/// [`judge_page`] with the figure reader given, as [`judge_with`].
pub fn judge_page_with(
    claim: &Claim,
    page: &PageIndex,
    source_url: &str,
    settings: &JudgeSettings,
    figures_of: impl Fn(&str) -> Vec<Figure>,
) -> Judgment {
    judge_page_reading(claim, page, source_url, settings, &figures_of, &|p| {
        std::borrow::Cow::Owned(figures_of(&p.text))
    })
}

/// [`judge_page_with`], the figures of a passage read by `passage_figures`.
fn judge_page_reading<'p>(
    claim: &Claim,
    page: &'p PageIndex,
    source_url: &str,
    settings: &JudgeSettings,
    figures_of: &dyn Fn(&str) -> Vec<Figure>,
    passage_figures: &dyn Fn(&retrieve::Passage) -> std::borrow::Cow<'p, [Figure]>,
) -> Judgment {
    let source_text = page.text();
    let index = page.index();
    let text = strip_citation_markers(&claim.text);
    let mut terms = retrieve::terms(&text);
    let tokens: Vec<String> = terms.iter().map(|t| t.token.clone()).collect();
    let passages = index.retrieve(source_text, &tokens, settings.max_passages.max(1));
    let as_evidence = |p: &retrieve::Passage| Evidence {
        quote: p.text.clone(),
        start: p.start,
        end: p.end,
    };

    let mut j = Judgment {
        verdict: Verdict::Inconclusive,
        support: 0.0,
        evidence: passages.first().map(as_evidence),
        source_url: source_url.to_string(),
        correction: None,
        figure_error: None,
        severity: None,
        issue: None,
        problem: None,
        credibility: credibility::credibility(source_url, &settings.credibility),
        reasons: Vec::new(),
        element: None,
        passages: passages.iter().map(as_evidence).collect(),
    };
    if j.credibility.level == CredibilityLevel::Low {
        j.reasons.push("the source is of low credibility".into());
    }
    if index.sentences.is_empty() {
        return j.with_issue(
            Verdict::Inconclusive,
            Severity::Medium,
            IssueKind::EmptySource,
            "The source has no readable text".into(),
        );
    }

    // Figures: the claim's own, else parsed from its text; the source's from the best passages.
    let claim_figures = if claim.figures.is_empty() {
        figures_of(&text)
    } else {
        claim.figures.clone()
    };
    let source_figures: Vec<(Figure, usize)> = passages
        .iter()
        .enumerate()
        .flat_map(|(i, p)| {
            passage_figures(p)
                .into_owned()
                .into_iter()
                .map(move |f| (f, i))
        })
        .collect();
    let only: Vec<Figure> = source_figures.iter().map(|(f, _)| f.clone()).collect();
    // A count written in words ("three applicants") is compared only with a count of the same
    // thing: small numbers in words are everywhere, and the nearest one is rarely the same.
    let noun_of = |passage: &str, f: &Figure| figures::counted_noun(passage, &f.text);
    let matches: Vec<FigureMatch> = claim_figures
        .iter()
        .flat_map(|c| {
            if c.unit == crate::model::Unit::Count && !c.text.chars().any(|ch| ch.is_ascii_digit())
            {
                let noun = noun_of(&text, c);
                let same: Vec<Figure> = source_figures
                    .iter()
                    .filter(|(f, i)| {
                        noun.is_some() && passages.get(*i).and_then(|p| noun_of(&p.text, f)) == noun
                    })
                    .map(|(f, _)| f.clone())
                    .collect();
                figures::compare_figures(std::slice::from_ref(c), &same)
            } else {
                figures::compare_figures(std::slice::from_ref(c), &only)
            }
        })
        .collect();
    // A figure the source states within the tolerance counts as stated: its number is the
    // source's in the lexical comparison too ("27%" against "28%").
    for m in &matches {
        if let FigureMatch::Compared {
            claim: c,
            source: s,
            relative_error,
        } = m
            && *relative_error <= settings.figure_medium_tolerance
            && let (Some(from), Some(to)) = (number_token(&c.text), number_token(&s.text))
        {
            for t in terms.iter_mut().filter(|t| t.token == from) {
                t.token = to.clone();
            }
        }
    }
    let coverage = score::coverage(index, &terms, &entity_terms(&text));
    let lexical = coverage.score();
    j.support = lexical;
    j.reasons.push(format!(
        "the best passage covers {:.0}% of the claim's weighted content",
        coverage.window * 100.0
    ));
    if !coverage.missing_terms.is_empty() {
        j.reasons.push(format!(
            "the source never uses: {}",
            coverage.missing_terms.join(", ")
        ));
    }
    if !coverage.missing_entities.is_empty() {
        j.reasons.push(format!(
            "names missing from the source: {}",
            coverage.missing_entities.join(", ")
        ));
    }
    for m in &matches {
        if let FigureMatch::Absent { claim } = m {
            j.reasons.push(format!(
                "the best passages state no figure like {}",
                claim.text
            ));
        }
    }

    // A cited fact-check's rating of this claim.
    let rated = review::applicable(&text, page.reviews());
    if let Some(applied) = &rated {
        let rating = applied.review.rating_text();
        j.reasons.push(format!(
            "the source is a fact-check of \u{201C}{}\u{201D}, rated {rating}",
            applied.review.claim_reviewed
        ));
        let evidence = Evidence {
            quote: format!(
                "Claim reviewed: \u{201C}{}\u{201D}. Rating: {rating}",
                applied.review.claim_reviewed
            ),
            start: 0,
            end: 0,
        };
        match applied.rating {
            review::Rating::False | review::Rating::Mixed => {
                let false_rating = applied.rating == review::Rating::False;
                j.evidence = Some(evidence);
                j.element = Some(ClaimElement::Rating);
                j.correction = Some(format!("the cited fact-check rates this claim {rating}"));
                j.support = if false_rating {
                    0.0
                } else {
                    lexical.min(settings.support_threshold / 2.0)
                };
                let (verdict, severity) = if false_rating {
                    (Verdict::Refuted, Severity::High)
                } else {
                    (Verdict::Inconclusive, Severity::Medium)
                };
                return j.with_issue(
                    verdict,
                    severity,
                    IssueKind::RatedByFactCheck,
                    format!("The cited fact-check rates this claim {rating}"),
                );
            }
            review::Rating::True => {}
        }
    }
    let rated_true = rated.is_some();

    // A figure far from the source's for the same thing first: its correction names the
    // source's figure, which an alignment finding about the same sentence states less precisely.
    let worst = figures::worst(&matches).map(|(c, s, e)| (c.clone(), s.clone(), e));
    if let Some((_, source_fig, error)) = &worst {
        j.figure_error = Some(*error);
        if *error > 0.0 {
            j.correction = Some(format!("source says {}", figures::describe(source_fig)));
            // Show the passage that states the source's figure.
            if let Some(p) = source_figures
                .iter()
                .find(|(f, _)| f == source_fig)
                .and_then(|(_, i)| passages.get(*i))
            {
                j.evidence = Some(as_evidence(p));
            }
        }
    }
    let figure_problem = |e: f64, c: &Figure, s: &Figure| {
        // Two percentages differ by points: "17%" against "7%" is 10 points higher, which a
        // relative error ("143% off") does not say to an editor.
        let off = if c.unit == crate::model::Unit::Percent && s.unit == crate::model::Unit::Percent
        {
            let points = c.value - s.value;
            let rounded = (points.abs() * 10.0).round() / 10.0;
            let shown = if rounded.fract() == 0.0 {
                format!("{rounded:.0}")
            } else {
                format!("{rounded:.1}")
            };
            let unit = if rounded == 1.0 {
                "percentage point"
            } else {
                "percentage points"
            };
            let way = if points > 0.0 { "higher" } else { "lower" };
            format!("{shown} {unit} {way}")
        } else {
            format!("{:.0}% off", e * 100.0)
        };
        format!(
            "The claim says {} where the source says {} ({off})",
            c.text,
            figures::describe(s)
        )
    };

    if let Some((c, s, e)) = worst
        .as_ref()
        .filter(|w| w.2 > settings.figure_high_tolerance)
    {
        j.support = (lexical * 0.2).min(settings.refute_threshold);
        j.element = Some(ClaimElement::Figure);
        return j.with_issue(
            Verdict::Refuted,
            Severity::High,
            IssueKind::ContradictedFigure,
            figure_problem(*e, c, s),
        );
    }

    // The claim against the clauses that state it.
    let windows: Vec<std::ops::Range<usize>> = passages.iter().map(|p| p.first..p.last).collect();
    let alignment = align::Alignment::new(
        &text,
        claim_figures.clone(),
        page,
        &windows,
        settings.figure_medium_tolerance,
        settings.figure_high_tolerance,
    );
    let findings = alignment.findings();
    for f in &findings {
        j.reasons
            .push(format!("{}: {}", f.element.as_str(), f.problem));
    }
    let finding_evidence = |f: &align::Finding| {
        f.sentence.and_then(|k| {
            let i = *alignment.sentence_index.get(k)?;
            let s = index.sentences.get(i)?;
            Some(Evidence {
                quote: source_text.get(s.byte_start..s.byte_end)?.to_string(),
                start: s.char_start,
                end: s.char_end,
            })
        })
    };
    if let Some(f) = findings.iter().find(|f| f.contradiction) {
        j.support = (lexical * 0.2).min(settings.refute_threshold);
        if let Some(e) = finding_evidence(f) {
            j.evidence = Some(e);
        }
        j.correction = f.correction.clone();
        j.element = Some(f.element);
        let kind = match f.element {
            ClaimElement::Speaker => IssueKind::Misattributed,
            _ => IssueKind::Contradicted,
        };
        return j.with_issue(Verdict::Refuted, Severity::High, kind, f.problem.clone());
    }

    if lexical <= settings.refute_threshold && !rated_true {
        return j.with_issue(
            Verdict::Refuted,
            Severity::High,
            IssueKind::NotInSource,
            "The source does not say what the claim says".into(),
        );
    }
    // A source that backs a claim restates some of its words in its own, but not most of them.
    let distinct: HashSet<&str> = terms.iter().map(|t| t.token.as_str()).collect();
    let unused = distinct.iter().filter(|t| !index.contains(t)).count();
    if !distinct.is_empty()
        && unused as f64 >= MOST_WORDS_UNUSED * distinct.len() as f64
        && !rated_true
    {
        j.support = lexical.min(settings.support_threshold / 2.0);
        return j.with_issue(
            Verdict::Inconclusive,
            Severity::Medium,
            IssueKind::UnclearSupport,
            format!(
                "The source never uses most of the claim's words: {}",
                coverage.missing_terms.join(", ")
            ),
        );
    }
    let mut misquote = None;
    if !claim.quotes.is_empty() {
        for q in &claim.quotes {
            match page.check_quote(q) {
                quotes::QuoteCheck::Found => {}
                quotes::QuoteCheck::TitleMissing => j.reasons.push(format!(
                    "the source does not name \u{201C}{q}\u{201D} in full"
                )),
                quotes::QuoteCheck::Missing => {
                    misquote.get_or_insert(q);
                }
            }
        }
    }
    if let Some(q) = misquote {
        j.support = lexical * MISSING_QUOTE_FACTOR;
        j.element = Some(ClaimElement::Quote);
        return j.with_issue(
            Verdict::Inconclusive,
            Severity::Medium,
            IssueKind::QuoteNotFound,
            format!("The quote \u{201C}{q}\u{201D} is not in the source"),
        );
    }
    if let Some((c, s, e)) = worst
        .as_ref()
        .filter(|w| w.2 > settings.figure_medium_tolerance)
    {
        j.support = lexical * 0.5;
        j.element = Some(ClaimElement::Figure);
        return j.with_issue(
            Verdict::Inconclusive,
            Severity::Medium,
            IssueKind::FigureDiscrepancy,
            figure_problem(*e, c, s),
        );
    }
    if let Some(f) = findings.iter().find(|f| !f.contradiction) {
        j.support = lexical.min(settings.support_threshold / 2.0);
        if let Some(e) = finding_evidence(f) {
            j.evidence = Some(e);
        }
        j.correction = f.correction.clone();
        j.element = Some(f.element);
        let kind = match f.element {
            ClaimElement::Speaker => IssueKind::Misattributed,
            _ => IssueKind::UnsupportedDetail,
        };
        return j.with_issue(
            Verdict::Inconclusive,
            Severity::Medium,
            kind,
            f.problem.clone(),
        );
    }
    if lexical >= settings.support_threshold || rated_true {
        j.verdict = Verdict::Supported;
        if let Some((c, s, e)) = worst.as_ref().filter(|w| w.2 > 0.0) {
            j.element = Some(ClaimElement::Figure);
            return j.with_issue(
                Verdict::Supported,
                Severity::Low,
                IssueKind::FigureDiscrepancy,
                figure_problem(*e, c, s),
            );
        }
        j.correction = None;
        return j;
    }
    j.with_issue(
        Verdict::Inconclusive,
        Severity::Medium,
        IssueKind::UnclearSupport,
        "The source does not clearly back the claim".into(),
    )
}

/// The number a figure is written with, as the lexical comparison reads it: "$4.2 billion" →
/// "4.2", "4,000" → "4000".
fn number_token(figure_text: &str) -> Option<String> {
    retrieve::tokenize(figure_text)
        .into_iter()
        .find(|t| retrieve::is_number(t))
}

impl Judgment {
    /// The calibrated probability that the source supports the claim: `support` mapped by the
    /// compiled-in table of [`calibration`].
    pub fn confidence(&self) -> f64 {
        calibration::confidence(self.support)
    }

    fn with_issue(
        mut self,
        verdict: Verdict,
        severity: Severity,
        issue: IssueKind,
        problem: String,
    ) -> Judgment {
        self.verdict = verdict;
        self.severity = Some(severity);
        self.issue = Some(issue);
        self.problem = Some(problem);
        self
    }
}
