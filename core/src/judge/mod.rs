//! Judging one claim against the text of the source it cites: supported, refuted or
//! unconfirmed, with a support score, the evidence passage, a correction where the source says
//! otherwise, the issue's severity, the element of the claim at fault, and the source's
//! credibility.
//!
//! A block is factgate telling an editor the article is wrong, so a verdict that can block must
//! be as reliable as that editor. The judge *refutes* a claim only where the source plainly
//! states the same fact otherwise, and names the source sentence and the element that differs;
//! a source that does not clearly state a claim leaves it *unconfirmed*, for review, blocking
//! only where the evidence that the source does not state it is strong.
//!
//! # The steps, one module each
//! 1. **Find the passages** ([`retrieve`]): the source's sentences and windows ranked against the
//!    claim (BM25), and how much of the claim they cover ([`score`]): the support score.
//! 2. **Align the sentence** ([`align`]): the claim's clauses with the source sentences that state
//!    the same thing; read once per page ([`page`], [`text`]).
//! 3. **Compare each element** ([`elements`]): one file per element (figure, presence, direction,
//!    negation, subject, unit, date, speaker, specifics, quote, a fact-check's rating, a
//!    rebuttal), each saying why.
//! 4. **Decide the verdict** ([`verdict`]): the rules below, in order.
//! 5. **Choose the backing source** ([`backing`]), for a statement with no link of its own: it
//!    is judged (steps 1–4) against each source it borrows from its paragraph, section and
//!    article, and the source that states it best backs it; it is refuted only where a source
//!    plainly states the same fact otherwise, and unsourced only where no source gives its
//!    figure in any form (reported speech is then low: not checkable against the sources).
//!
//! # Verdict rules, in order
//! 1. The source has no readable text: unconfirmed, medium (it could not be checked).
//! 2. A cited fact-check rates this claim, or the page rebuts it in prose ([`elements::rating`],
//!    [`elements::rebuttal`]): false refutes it (high); a mixed rating is unconfirmed, medium;
//!    true backs it.
//! 3. The source states the same fact otherwise ([`elements`]): a figure more than
//!    `figure_high_tolerance` off the page's figure for the same thing, or who said it, the
//!    direction (against the page's words, a table row's signed change, or the claim's own two
//!    figures where the page gives both: "rose from 214 to 171"), a negation, the unit, the
//!    date. Refuted, high, with the aligned sentence as evidence and the element that differs.
//! 4. A statistic of the claim the page never gives, in any form ([`elements::presence`]): it does
//!    not come from this source. Unconfirmed, high, as an unsourced statistic is.
//! 5. A figure between `figure_medium_tolerance` and `figure_high_tolerance` off the page's figure
//!    for the same thing: unconfirmed, medium, with the correction.
//! 6. A quotation whose words the page does not hold ([`elements::quote`]): unconfirmed, medium;
//!    words the page holds but not as quoted: low.
//! 7. A specific the claim adds to the sentence that states the rest of it (a superlative or
//!    record, a multiplier, a universal quantifier, a place, a speaker the source never names):
//!    unconfirmed, medium.
//! 8. Support at or above `support_threshold`: supported (low, with the correction, when a figure
//!    is off by less than `figure_medium_tolerance`).
//! 9. Otherwise unconfirmed: medium when the calibrated probability that the source supports the
//!    claim ([`calibration`]) is below `unconfirmed_medium_below`, low (for review) above it.

pub mod align;
pub mod backing;
pub mod calibration;
pub mod credibility;
pub mod elements;
pub mod page;
pub mod retrieve;
pub mod score;
pub mod substitute;
pub mod text;
pub mod verdict;

pub use credibility::{Credibility, CredibilityLevel, CredibilityLists};
pub use page::{PageIndex, Source};

use crate::model::{Claim, ClaimElement, Difference, Figure, Severity, Verdict};
use crate::text::figures::parse_figures;
use regex::Regex;
use serde::Serialize;
use std::sync::LazyLock;

/// Support at or above which a claim is supported. Below it a claim is unconfirmed, and blocks
/// only where its calibrated probability is below `unconfirmed_medium_below`.
pub const DEFAULT_SUPPORT_THRESHOLD: f64 = 0.12;
/// Relative figure error above which the discrepancy is medium (spec: 10–20%).
pub const DEFAULT_FIGURE_MEDIUM_TOLERANCE: f64 = 0.10;
/// Relative figure error above which the claim contradicts its source (spec: > 20%).
pub const DEFAULT_FIGURE_HIGH_TOLERANCE: f64 = 0.20;
/// How many passages are compared and kept.
pub const DEFAULT_MAX_PASSAGES: usize = 3;

/// How claims are judged.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeSettings {
    pub support_threshold: f64,
    /// The calibrated probability of support below which an unconfirmed claim is medium (and
    /// blocks under `normal`); fitted with cross-validation by `examples/judge_fit.rs`.
    pub unconfirmed_medium_below: f64,
    pub figure_medium_tolerance: f64,
    pub figure_high_tolerance: f64,
    pub max_passages: usize,
    pub credibility: CredibilityLists,
}

impl Default for JudgeSettings {
    fn default() -> Self {
        JudgeSettings {
            support_threshold: DEFAULT_SUPPORT_THRESHOLD,
            unconfirmed_medium_below: calibration::medium_below(),
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
    /// A figure more than the high tolerance off the page's figure for the same thing.
    ContradictedFigure,
    /// A figure off by less than the high tolerance.
    FigureDiscrepancy,
    /// A quoted span the source does not contain.
    QuoteNotFound,
    /// A figure, name or date of the claim the page does not contain at all.
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
    /// A cited fact-check rates the claim false, or only partly true; or the page rebuts it.
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
    /// Relative error of the claim's figure against the page's figure for the same thing.
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
    /// For a contradiction: the claim's words for the element and the source's.
    pub difference: Option<Difference>,
    /// The best passages of the source for the claim, best first: the passages the alignment read.
    pub passages: Vec<Evidence>,
}

static CITATION_MARKER: LazyLock<Regex> = LazyLock::new(|| {
    // A literal pattern: compiling it cannot fail.
    Regex::new(r"\[(?:\d+|[a-z]|citation needed|note \d+)\]").expect("valid regex")
});

/// The claim text without citation markers ("[1]", "[citation needed]").
pub fn strip_citation_markers(text: &str) -> String {
    CITATION_MARKER.replace_all(text, "").into_owned()
}

/// The claim's text without the labels of its citations written in brackets after what they
/// back ("… costs $4/month (pricing).", "… (board paper)"): a label names the source, it is no
/// part of what the claim says.
fn without_citation_labels(text: &str, claim: &Claim) -> String {
    let mut out = text.to_owned();
    for label in claim.citations.iter().filter_map(|c| c.label.as_deref()) {
        let label = label.trim();
        if label.is_empty() {
            continue;
        }
        for (open, close) in [("(", ")"), ("[", "]")] {
            let bracketed = format!("{open}{label}{close}");
            if out.contains(&bracketed) {
                out = out
                    .replace(&format!(" {bracketed}"), "")
                    .replace(&bracketed, "");
            }
        }
    }
    out
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
/// that carries none. Lets callers and tests substitute their own reader.
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
    judge_page_with(claim, page, source_url, settings, parse_figures)
}

/// [`judge_page`] with the figure reader given, as [`judge_with`].
pub(crate) fn judge_page_with(
    claim: &Claim,
    page: &PageIndex,
    source_url: &str,
    settings: &JudgeSettings,
    figures_of: impl Fn(&str) -> Vec<Figure>,
) -> Judgment {
    let text = without_citation_labels(&strip_citation_markers(&claim.text), claim);
    let claim_figures = if claim.figures.is_empty() {
        figures_of(&text)
    } else {
        claim.figures.clone()
    };
    // Step 1: the passages, and how much of the claim they cover.
    let found = verdict::Passages::find(&text, page, settings);
    let mut reading = verdict::Reading::new(claim, &text, &found, page, source_url, settings);
    if page.index().sentences.is_empty() {
        return reading.empty_source();
    }
    // Step 2: the claim aligned with the sentences that state it.
    let windows: Vec<std::ops::Range<usize>> = found
        .passages
        .iter()
        .chain(&found.parts)
        .map(|p| p.first..p.last)
        .collect();
    let alignment = align::Alignment::new(
        &text,
        claim_figures,
        page,
        &windows,
        settings.figure_medium_tolerance,
        settings.figure_high_tolerance,
    );
    // Step 3: each element compared; step 4: the verdict.
    reading.compare(&alignment);
    reading.decide()
}

impl Judgment {
    /// The calibrated probability that the source supports the claim: `support` mapped by the
    /// compiled-in table of [`calibration`].
    pub fn confidence(&self) -> f64 {
        calibration::confidence(self.support)
    }

    /// Whether the claim is unconfirmed only because the source does not clearly state it: the
    /// verdict the fitted threshold decides (`judge.unconfirmed_medium_below`), not a rule.
    pub fn unconfirmed_for_weak_support(&self) -> bool {
        self.verdict == Verdict::Unconfirmed && self.issue == Some(IssueKind::UnclearSupport)
    }

    pub(crate) fn with_issue(
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
