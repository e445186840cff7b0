//! Step 2 of judging: the claim aligned with the sentences of its source that state it.
//!
//! Lexical support says how much of a claim a source shares; it cannot see that "ridership fell
//! 4%" and "ridership rose 4%" differ in one word that reverses them. Alignment finds the clause
//! of the source that states what the claim states (the one sharing most of the claim's
//! IDF-weighted words), so that the elements of the two can be compared ([`super::elements`]).
//! Every comparison needs the claim aligned first: the compared clauses must share a good part
//! of the claim's weighted words ([`MIN_ALIGNMENT`]), so that two passages about different things
//! are never compared.

use std::ops::Range;

use super::page::PageIndex;
use super::retrieve::{SourceIndex, TokenId};
use super::text::{CLAUSE_WORDS, Stems, Text};
use crate::model::Figure;

/// The share of a claim clause's weighted words a source clause must hold to be compared with
/// it: below it, the clauses are not about the same thing and nothing is concluded.
pub(crate) const MIN_ALIGNMENT: f64 = 0.4;

/// Clauses aligned within this share of the best one are as good a match: when one of them
/// agrees with the claim, the disagreement of another is not a contradiction.
pub(crate) const NEAR_BEST: f64 = 0.8;

/// The share of a claim's weighted words (the specific under test left out) one source sentence
/// must hold for a specific the source lacks to be what the claim adds to it.
pub(crate) const STATED: f64 = 0.7;

/// The fewest content words a claim must share, in order, with a source sentence for a slot
/// between them to be what the claim changed in it.
pub(crate) const MIN_FOLLOWED_WORDS: usize = 3;

/// The share of a claim's weighted words a sentence must hold to state part of it.
pub(crate) const PART: f64 = 0.2;

/// The share of a claim's weighted words (the element under test left out) the best passage
/// must hold for the element's absence there to count: the passage states the claim but that.
pub(crate) const HELD: f64 = 0.5;

/// The claim's figures compared one by one with the page's: a claim of prose gives a handful;
/// one giving more (a table pasted as a sentence, a hostile draft with `extract` caps raised) is
/// not supported on the first ones alone (see [`Alignment::uncompared_figures`]), and cannot make
/// judging take minutes.
pub(crate) const MAX_COMPARED_FIGURES: usize = crate::extract::DEFAULT_MAX_FIGURES_PER_CLAIM;

/// A claim aligned with the sentences of its source that best match it.
pub struct Alignment<'a> {
    /// The claim, with at most [`MAX_COMPARED_FIGURES`] of its figures.
    pub claim: Text,
    /// The claim's figures past [`MAX_COMPARED_FIGURES`]: not located, aligned or compared.
    pub(crate) uncompared_figures: usize,
    /// The source sentences compared with the claim (those of the best passages), in source order.
    pub sentences: Vec<&'a Text>,
    /// Index in the source of each of [`Alignment::sentences`].
    pub sentence_index: Vec<usize>,
    /// The passages the sentences come from, best first, as indices into
    /// [`Alignment::sentences`].
    pub(crate) windows: Vec<Vec<usize>>,
    pub(crate) page: &'a PageIndex,
    pub(crate) index: &'a SourceIndex,
    pub(crate) source_text: &'a str,
    /// The claim's stems the page's vocabulary lacks: id `vocabulary_len + n` is the n-th.
    pub(crate) claim_only: Vec<Box<str>>,
    /// The claim's content stems.
    pub(crate) claim_stems: Stems,
    /// The figure tolerance under which two figures are the same value.
    pub(crate) tolerance: f64,
    /// The tolerance over which two figures are different values.
    pub(crate) high_tolerance: f64,
    /// What each page figure is of, in words ([`crate::judge::elements::figure`]): the same for
    /// every claim figure compared with it, so worked out once per alignment (a claim of a
    /// hundred figures against a page of ten thousand asked it a million times).
    pub(crate) page_figure_words: std::cell::RefCell<
        std::collections::HashMap<(usize, usize, bool), std::rc::Rc<PageFigureWords>>,
    >,
}

/// What a page figure is of: its telling words, the words before it that name it, and whether
/// anything is written before it at all.
#[derive(Debug)]
pub(crate) struct PageFigureWords {
    pub(crate) theirs: Stems,
    pub(crate) before: Stems,
    pub(crate) written_before: bool,
}

impl<'a> Alignment<'a> {
    /// Aligns `claim` (its text and figures) with the passages `windows` (ranges of sentences,
    /// best first) of the indexed `page`.
    pub fn new(
        claim_text: &str,
        mut claim_figures: Vec<Figure>,
        page: &'a PageIndex,
        windows: &[Range<usize>],
        tolerance: f64,
        high_tolerance: f64,
    ) -> Alignment<'a> {
        let mut sentence_index: Vec<usize> = windows.iter().flat_map(|w| w.clone()).collect();
        sentence_index.sort_unstable();
        sentence_index.dedup();
        sentence_index.retain(|&i| page.sentence(i).is_some());
        let texts = sentence_index
            .iter()
            .filter_map(|&i| page.sentence(i))
            .collect();
        let windows = windows
            .iter()
            .map(|w| {
                w.clone()
                    .filter_map(|i| sentence_index.binary_search(&i).ok())
                    .collect()
            })
            .collect();
        // Every element compares the claim's figures with the page's: bounding them here bounds
        // the work of all of them on a claim of thousands of figures.
        let uncompared_figures = claim_figures.len().saturating_sub(MAX_COMPARED_FIGURES);
        claim_figures.truncate(MAX_COMPARED_FIGURES);
        // The claim's stems numbered as the page numbers its words, so that a word of both
        // has one id; a word only the claim has gets an id past the page's.
        let index = page.index();
        let mut claim_only: Vec<Box<str>> = Vec::new();
        let claim = Text::with_figures(claim_text, claim_figures, &mut |stem| {
            index.word_id(stem).unwrap_or_else(|| {
                let n = claim_only
                    .iter()
                    .position(|w| &**w == stem)
                    .unwrap_or_else(|| {
                        claim_only.push(stem.into());
                        claim_only.len() - 1
                    });
                TokenId::try_from(index.vocabulary_len() + n).unwrap_or(TokenId::MAX)
            })
        });
        let claim_stems = claim.stems(0..claim.toks.len(), &|_| false);
        Alignment {
            claim,
            uncompared_figures,
            claim_only,
            claim_stems,
            sentences: texts,
            sentence_index,
            windows,
            page,
            index,
            source_text: page.text(),
            tolerance,
            high_tolerance,
            page_figure_words: std::cell::RefCell::default(),
        }
    }
    pub(crate) fn weight(&self, stem: TokenId) -> f64 {
        self.index.idf_of_word(stem)
    }

    pub(crate) fn weight_of(&self, stems: &Stems) -> f64 {
        stems.iter().map(|s| self.weight(s)).sum()
    }

    /// The id of stem `word` in this alignment: the page's, else the claim's own.
    pub(crate) fn stem_id(&self, word: &str) -> Option<TokenId> {
        self.index.word_id(word).or_else(|| {
            let n = self.claim_only.iter().position(|w| &**w == word)?;
            TokenId::try_from(self.index.vocabulary_len() + n).ok()
        })
    }

    /// The stem of id `id`: a word of the page's vocabulary, or of the claim's own.
    pub(crate) fn stem_text(&self, id: TokenId) -> &str {
        match (id as usize).checked_sub(self.index.vocabulary_len()) {
            Some(n) => self.claim_only.get(n).map_or("", |w| w),
            None => self.index.word(id),
        }
    }

    /// The ids of the stems `words`, those this alignment knows.
    pub(crate) fn stem_ids<'w>(&self, words: impl IntoIterator<Item = &'w str>) -> Stems {
        Stems::of(words.into_iter().filter_map(|w| self.stem_id(w)).collect())
    }

    /// The claim's content stems without those of `leave`.
    pub(crate) fn claim_without(&self, leave: &Stems) -> Stems {
        if leave.is_empty() {
            return self.claim_stems.clone();
        }
        Stems(
            self.claim_stems
                .iter()
                .filter(|&s| !leave.contains(s))
                .collect(),
        )
    }

    /// Every clause of the compared sentences: (sentence, clause range).
    pub(crate) fn source_clauses(&self) -> impl Iterator<Item = (usize, Range<usize>)> + '_ {
        self.sentences
            .iter()
            .enumerate()
            .flat_map(|(k, s)| s.clauses.iter().map(move |c| (k, c.clone())))
    }

    /// How much of `stems` (weighted) the clause holds, as a share.
    pub(crate) fn overlap(&self, stems: &Stems, k: usize, clause: Range<usize>) -> f64 {
        let total = self.weight_of(stems);
        if total <= 0.0 {
            return 0.0;
        }
        let s = self.sentences[k];
        stems
            .iter()
            .filter(|&w| s.holds(clause.clone(), w))
            .map(|w| self.weight(w))
            .sum::<f64>()
            / total
    }

    /// The share of the whole claim's weighted content any sentence of the page holds.
    pub(crate) fn text_coverage(&self, s: &Text) -> f64 {
        let total = self.weight_of(&self.claim_stems);
        if total <= 0.0 {
            return 0.0;
        }
        self.claim_stems
            .iter()
            .filter(|&w| s.holds(0..s.toks.len(), w))
            .map(|w| self.weight(w))
            .sum::<f64>()
            / total
    }

    /// The share of the whole claim's weighted content sentence `k` holds.
    pub(crate) fn sentence_coverage(&self, k: usize) -> f64 {
        self.coverage_without(k, &Stems::default())
    }

    /// The share sentence `k` holds of the claim's weighted content without the words `leave`
    /// (the element under test, so that its absence does not hide where the claim is stated).
    pub(crate) fn coverage_without(&self, k: usize, leave: &Stems) -> f64 {
        let claim = self.claim_without(leave);
        self.overlap(&claim, k, 0..self.sentences[k].toks.len())
    }

    /// The passage that holds most of the claim without the words `leave`, with the share it
    /// holds.
    pub(crate) fn best_window(&self, leave: &Stems) -> Option<(usize, f64)> {
        let claim = self.claim_without(leave);
        let total = self.weight_of(&claim);
        if total <= 0.0 {
            return None;
        }
        self.windows
            .iter()
            .enumerate()
            .map(|(w, sentences)| {
                let held: f64 = claim
                    .iter()
                    .filter(|&s| {
                        sentences
                            .iter()
                            .any(|&k| self.sentences[k].content_stems.binary_search(&s).is_ok())
                    })
                    .map(|s| self.weight(s))
                    .sum();
                (w, held / total)
            })
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
    }

    /// The compared sentence that holds most of the claim without the words `leave`, when it
    /// holds enough of it.
    pub(crate) fn best_sentence_without(&self, leave: &Stems) -> Option<usize> {
        (0..self.sentences.len())
            .map(|k| (self.coverage_without(k, leave), k))
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
            .filter(|(c, _)| *c >= MIN_ALIGNMENT)
            .map(|(_, k)| k)
    }

    pub(crate) fn said(&self, k: usize) -> String {
        format!(
            "the source says: \u{201C}{}\u{201D}",
            self.sentences[k].text().trim()
        )
    }

    // -----------------------------------------------------------------------------------------
    // Slots the claim fills differently from the sentence it follows

    /// Source figures of the compared sentences: (sentence, figure, clause).
    pub(crate) fn source_figures(&self) -> Vec<(usize, &Figure, Range<usize>)> {
        self.sentences
            .iter()
            .enumerate()
            .flat_map(|(k, s)| s.figures.iter().map(move |(f, t)| (k, f, s.clause_of(*t))))
            .collect()
    }

    /// The compared sentence that holds most of `words` (the first of equals), and how much of
    /// them it holds.
    pub(crate) fn most_held(&self, words: &Stems) -> Option<(f64, usize)> {
        (0..self.sentences.len())
            .map(|k| (self.overlap(words, k, 0..self.sentences[k].toks.len()), k))
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
    }

    /// The compared sentence that holds most of the claim, when it holds enough of it.
    pub(crate) fn best_sentence(&self) -> Option<usize> {
        self.best_sentence_without(&Stems::default())
    }

    // -----------------------------------------------------------------------------------------
    // Attribution
}

/// The clause `clause` of `t` with the word at `mark` set off in asterisks: "ridership *rose* 4%".
pub(crate) fn marked_clause_text(t: &Text, clause: Range<usize>, mark: Option<usize>) -> String {
    let mut start = clause.start;
    while start < clause.end && (t.toks[start].is_mark() || CLAUSE_WORDS.contains(&t.lower(start)))
    {
        start += 1;
    }
    let closing = |ch: char| matches!(ch, ',' | ';' | ':' | '.') || ch.is_whitespace();
    let Some(m) = mark.filter(|m| (start..clause.end).contains(m)) else {
        return t
            .span(start..clause.end)
            .trim_end_matches(closing)
            .to_owned();
    };
    let before = t.text()[t.toks[start].start as usize..t.toks[m].start as usize].to_owned();
    let word = &t.text()[t.toks[m].range()];
    let after = t.span(m..clause.end);
    let after = after[word.len().min(after.len())..].trim_end_matches(closing);
    format!("{before}*{word}*{after}")
}
