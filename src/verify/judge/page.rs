//! What the judge reads from a page, derived once per page: every claim that cites the page is
//! judged against the same [`PageIndex`].
//!
//! Judging a claim compares it with a page, but most of that work is a function of the page
//! alone: its sentences and their tokens, the statistics that weigh words (BM25 over the
//! sentences), each sentence read for alignment (tokens, figures, clauses, direction words), the
//! days of a month it writes, the names it capitalizes, its words as the quote check reads them,
//! and the fact-check ratings it carries. The fetch cache keeps the index beside the page (see
//! `crate::verify::fetch::cache`), weighed by [`PageIndex::heap_bytes`] in the same byte budget,
//! so a claim citing a cached page only reads its own words.

use rustc_hash::FxHashSet;

use super::Source;
use super::align::{self, Text};
use super::quotes;
use super::retrieve::{SourceIndex, heap_allocation};
use super::review::{self, ClaimReview};

/// A page as the judge reads it; see the module documentation.
#[derive(Debug, Clone)]
pub struct PageIndex {
    text: String,
    index: SourceIndex,
    /// The page's own `ClaimReview`s, then the rating it states in words, if any.
    reviews: Vec<ClaimReview>,
    /// Each sentence of [`PageIndex::index`] read for alignment.
    sentences: Vec<Text>,
    /// The days of a month the page writes, for the date rule.
    days: Vec<(u8, u8, String)>,
    /// The first four letters, lower-cased, of every capitalized word of the page.
    name_prefixes: FxHashSet<Box<str>>,
    /// The page's words as the quote check reads them.
    quote_words: Vec<quotes::Token>,
    heap_bytes: usize,
}

impl PageIndex {
    /// The index of a text that carries no `ClaimReview`.
    pub fn new(text: &str) -> PageIndex {
        PageIndex::of(Source::from(text))
    }

    /// The index of a fetched page: its visible text and the fact-check ratings it carries.
    pub fn of(source: Source<'_>) -> PageIndex {
        let text = source.text;
        let index = SourceIndex::new(text);
        let sentences = index
            .sentences
            .iter()
            .map(|s| Text::new(text.get(s.byte_start..s.byte_end).unwrap_or("")))
            .collect();
        let reviews = source
            .reviews
            .iter()
            .cloned()
            .chain(review::review_in_text(text))
            .collect();
        let name_prefixes = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.starts_with(char::is_uppercase))
            .filter_map(|w| {
                let prefix: String = w.to_lowercase().chars().take(4).collect();
                (prefix.chars().count() == 4).then(|| prefix.into_boxed_str())
            })
            .collect();
        let mut page = PageIndex {
            text: text.to_owned(),
            index,
            reviews,
            sentences,
            days: align::page_days(text),
            name_prefixes,
            quote_words: quotes::tokens(text),
            heap_bytes: 0,
        };
        page.heap_bytes = page.measure();
        page
    }

    /// The page's visible text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Its sentences, tokens and word statistics.
    pub fn index(&self) -> &SourceIndex {
        &self.index
    }

    /// The fact-check ratings the page carries: its `ClaimReview`s, then a rating stated in words.
    pub fn reviews(&self) -> &[ClaimReview] {
        &self.reviews
    }

    /// Sentence `i` of the index, read for alignment.
    pub fn sentence(&self, i: usize) -> Option<&Text> {
        self.sentences.get(i)
    }

    /// The days of a month the page writes: (day, month, as written).
    pub fn days(&self) -> &[(u8, u8, String)] {
        &self.days
    }

    /// Whether a capitalized word of the page starts with `prefix`: four letters, lower-case.
    pub fn names_prefix(&self, prefix: &str) -> bool {
        self.name_prefixes.contains(prefix)
    }

    /// The page's words as the quote check reads them.
    pub fn quote_words(&self) -> &[quotes::Token] {
        &self.quote_words
    }

    /// Approximate bytes the index holds on the heap, its copy of the text included: what a
    /// cached page costs beyond its fetched text.
    pub fn heap_bytes(&self) -> usize {
        self.heap_bytes
    }

    fn measure(&self) -> usize {
        let reviews = self.reviews.capacity() * std::mem::size_of::<ClaimReview>()
            + self
                .reviews
                .iter()
                .map(|r| {
                    [
                        Some(&r.claim_reviewed),
                        r.rating_name.as_ref(),
                        r.rating_value.as_ref(),
                        r.best_rating.as_ref(),
                        r.worst_rating.as_ref(),
                    ]
                    .into_iter()
                    .flatten()
                    .map(|s| heap_allocation(s.capacity()))
                    .sum::<usize>()
                })
                .sum::<usize>();
        let sentences = self.sentences.capacity() * std::mem::size_of::<Text>()
            + self.sentences.iter().map(Text::heap_bytes).sum::<usize>();
        let days = self.days.capacity() * std::mem::size_of::<(u8, u8, String)>()
            + self
                .days
                .iter()
                .map(|(_, _, s)| heap_allocation(s.capacity()))
                .sum::<usize>();
        let names = self.name_prefixes.capacity() * (std::mem::size_of::<Box<str>>() + 1)
            + self
                .name_prefixes
                .iter()
                .map(|p| heap_allocation(p.len()))
                .sum::<usize>();
        let quote_words = self.quote_words.capacity() * std::mem::size_of::<quotes::Token>()
            + self
                .quote_words
                .iter()
                .map(|w| heap_allocation(w.text.capacity()))
                .sum::<usize>();
        heap_allocation(self.text.capacity())
            + self.index.heap_bytes()
            + reviews
            + sentences
            + days
            + names
            + quote_words
    }
}
