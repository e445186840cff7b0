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

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use super::elements::rating::{self, ClaimReview};
use super::elements::rebuttal;
use super::elements::{presence, quote};
use super::retrieve::{MAX_WINDOW, SourceIndex, TokenId, heap_allocation};
use super::text::{self, Text};
use crate::model::Figure;
use crate::text::figures::parse_figures;

/// What a claim is judged against: a source's visible text and the fact-check ratings it
/// carries.
#[derive(Debug, Clone, Copy, Default)]
pub struct Source<'a> {
    pub text: &'a str,
    pub reviews: &'a [ClaimReview],
    /// The page's title, masthead, footer and site name (`Page::furniture`): read only to tell
    /// whether the page names something at all, never as what it states.
    pub furniture: &'a str,
}

impl<'a> From<&'a str> for Source<'a> {
    fn from(text: &'a str) -> Self {
        Source {
            text,
            reviews: &[],
            furniture: "",
        }
    }
}

/// A page as the judge reads it; see the module documentation.
///
/// Words are kept as ids of one vocabulary, the index's: the tokens its sentences are ranked
/// by, the stems the alignment compares, the words the quote check reads and the prefixes of
/// names, each stored once. The sentences read for alignment share the page's text.
#[derive(Debug, Clone)]
pub struct PageIndex {
    text: Arc<str>,
    index: SourceIndex,
    /// The page's own `ClaimReview`s, then the rating it states in words, if any.
    reviews: Vec<ClaimReview>,
    /// Each sentence of [`PageIndex::index`] read for alignment.
    sentences: Vec<Text>,
    /// The days of a month the page writes, for the date rule.
    days: Vec<(u8, u8, String)>,
    /// The first four letters, lower-cased, of every capitalized word of the page, as ids,
    /// ascending.
    name_prefixes: Vec<TokenId>,
    /// The page's words as the quote check reads them.
    quote_words: Vec<quote::Token>,
    /// Every number its sentences state, with the sentence (`presence::page_values`).
    figure_values: Vec<presence::PageValue>,
    /// Its furniture (title, masthead, footer), lower-cased: see [`Source::furniture`].
    furniture: Box<str>,
    /// The figures of windows of sentences, as the best passages are read.
    windows: WindowFigures,
    heap_bytes: usize,
}

/// The figures of each window of 1 to [`MAX_WINDOW`] sentences of a page, parsed the first
/// time a claim's passage is that window and kept for the claims after it, within a byte
/// allowance fixed when the page is indexed (and counted in its weight): past it, a window's
/// figures are parsed for each claim, as without the table.
///
/// A window's figures are not its sentences' figures end to end: a sentence split after
/// "Nov." or "No." reads "3, 2015" or "1" differently from the window that holds both, so each
/// window is parsed whole, as a passage's text is.
#[derive(Debug)]
struct WindowFigures {
    /// Window (first, size) at `first * MAX_WINDOW + size - 1`.
    slots: Box<[OnceLock<Box<[Figure]>>]>,
    /// Bytes the kept figures may take.
    allowance: usize,
    /// Bytes taken so far.
    used: AtomicUsize,
}

impl Clone for WindowFigures {
    fn clone(&self) -> Self {
        WindowFigures {
            slots: self.slots.clone(),
            allowance: self.allowance,
            used: AtomicUsize::new(self.used.load(Ordering::Relaxed)),
        }
    }
}

impl WindowFigures {
    fn new(sentences: usize, allowance: usize) -> WindowFigures {
        WindowFigures {
            slots: (0..sentences * MAX_WINDOW)
                .map(|_| OnceLock::new())
                .collect(),
            allowance,
            used: AtomicUsize::new(0),
        }
    }

    /// What the table itself takes, whatever it holds.
    fn heap_bytes(&self) -> usize {
        heap_allocation(self.slots.len() * std::mem::size_of::<OnceLock<Box<[Figure]>>>())
    }
}

/// Bytes `figures` take on the heap, kept as a boxed slice.
fn figures_bytes(figures: &[Figure]) -> usize {
    heap_allocation(std::mem::size_of_val(figures))
        + figures
            .iter()
            .map(|f| {
                heap_allocation(f.text.capacity())
                    + f.currency
                        .as_ref()
                        .map_or(0, |c| heap_allocation(c.capacity()))
                    + f.per.as_ref().map_or(0, |p| heap_allocation(p.capacity()))
            })
            .sum::<usize>()
}

/// The share of a page's index that its window figures may add: an eighth, which holds the
/// figures of the few dozen windows the claims citing a page pick as their best passages.
const WINDOW_FIGURES_SHARE: usize = 8;

impl PageIndex {
    /// The index of a text that carries no `ClaimReview`.
    pub fn new(text: &str) -> PageIndex {
        PageIndex::of(Source::from(text))
    }

    /// The index of a fetched page: its visible text and the fact-check ratings it carries.
    pub fn of(source: Source<'_>) -> PageIndex {
        let text = source.text;
        let shared: Arc<str> = Arc::from(text);
        let mut index = SourceIndex::new(text);
        let ranges: Vec<_> = index
            .sentences
            .iter()
            .map(|s| s.byte_start..s.byte_end)
            .collect();
        let mut sentences: Vec<Text> = ranges
            .into_iter()
            .map(|r| Text::part(&shared, r, &mut |stem| index.intern(stem)))
            .collect();
        sentences.shrink_to_fit();
        let reviews = source
            .reviews
            .iter()
            .cloned()
            .chain(rating::review_in_text(text))
            .chain(rebuttal::prose_reviews(&sentences))
            .collect();
        let mut name_prefixes: Vec<TokenId> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.starts_with(char::is_uppercase))
            .filter_map(|w| {
                let prefix: String = w.to_lowercase().chars().take(4).collect();
                (prefix.chars().count() == 4).then(|| index.intern(&prefix))
            })
            .collect();
        name_prefixes.sort_unstable();
        name_prefixes.dedup();
        name_prefixes.shrink_to_fit();
        let mut quote_words = quote::tokens(text, &mut |w| index.intern(w));
        quote_words.shrink_to_fit();
        index.shrink_to_fit();
        let mut figure_values = presence::page_values(&sentences);
        figure_values.shrink_to_fit();
        let mut page = PageIndex {
            text: shared,
            index,
            reviews,
            figure_values,
            furniture: source.furniture.to_lowercase().into_boxed_str(),
            sentences,
            days: text::page_days(text),
            name_prefixes,
            quote_words,
            windows: WindowFigures::new(0, 0),
            heap_bytes: 0,
        };
        let measured = page.measure();
        let allowance = measured / WINDOW_FIGURES_SHARE;
        page.windows = WindowFigures::new(page.index.sentences.len(), allowance);
        page.heap_bytes = measured + page.windows.heap_bytes() + allowance;
        page
    }

    /// The figures of the passage of sentences `first..last` of the index: `parse_figures` of
    /// its text (as [`super::retrieve::SourceIndex::retrieve`] cuts it), kept for the next
    /// claim whose passage it is while the page's allowance lasts.
    pub fn window_figures(&self, first: usize, last: usize) -> Cow<'_, [Figure]> {
        let sentences = &self.index.sentences;
        let (Some(a), Some(b)) = (
            sentences.get(first),
            last.checked_sub(1).and_then(|l| sentences.get(l)),
        ) else {
            return Cow::Owned(Vec::new());
        };
        let text = self.text.get(a.byte_start..b.byte_end).unwrap_or("");
        let slot = (last > first && last - first <= MAX_WINDOW)
            .then(|| {
                self.windows
                    .slots
                    .get(first * MAX_WINDOW + (last - first) - 1)
            })
            .flatten();
        let Some(slot) = slot else {
            return Cow::Owned(parse_figures(text));
        };
        if let Some(kept) = slot.get() {
            return Cow::Borrowed(kept);
        }
        let figures = parse_figures(text).into_boxed_slice();
        let bytes = figures_bytes(&figures);
        let reserved = self
            .windows
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                (used + bytes <= self.windows.allowance).then_some(used + bytes)
            })
            .is_ok();
        if !reserved {
            return Cow::Owned(figures.into_vec());
        }
        // Another claim may have kept the same window meanwhile: its figures are the same.
        Cow::Borrowed(slot.get_or_init(|| figures))
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

    /// Its sentences, read for alignment, in the index's order.
    pub fn sentences(&self) -> &[Text] {
        &self.sentences
    }

    /// Every number the page states, with the sentence that states it.
    pub(crate) fn figure_values(&self) -> &[presence::PageValue] {
        &self.figure_values
    }

    /// Whether the page's furniture (title, masthead, footer, site name) names `word` (lower
    /// case), as a whole word.
    pub(crate) fn furniture_names(&self, word: &str) -> bool {
        !word.is_empty()
            && self
                .furniture
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| w == word)
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
    pub(crate) fn names_prefix(&self, prefix: &str) -> bool {
        self.index
            .word_id(prefix)
            .is_some_and(|id| self.name_prefixes.binary_search(&id).is_ok())
    }

    /// The page's words as the quote check reads them.
    pub fn quote_words(&self) -> &[quote::Token] {
        &self.quote_words
    }

    /// Whether `quote` is in the page, by the rule of [`quotes`].
    pub(crate) fn check_quote(&self, quote: &str) -> quote::QuoteCheck {
        quote::check(quote, &self.quote_words, &|w| self.index.word_id(w))
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
        let sentences = heap_allocation(self.sentences.capacity() * std::mem::size_of::<Text>())
            + self.sentences.iter().map(Text::heap_bytes).sum::<usize>();
        let days = self.days.capacity() * std::mem::size_of::<(u8, u8, String)>()
            + self
                .days
                .iter()
                .map(|(_, _, s)| heap_allocation(s.capacity()))
                .sum::<usize>();
        let names = heap_allocation(self.name_prefixes.capacity() * 4)
            + heap_allocation(self.furniture.len())
            + heap_allocation(
                self.figure_values.capacity() * std::mem::size_of::<presence::PageValue>(),
            );
        let quote_words =
            heap_allocation(self.quote_words.capacity() * std::mem::size_of::<quote::Token>());
        // The text behind its reference counts.
        heap_allocation(self.text.len() + 16)
            + self.index.heap_bytes()
            + reviews
            + sentences
            + days
            + names
            + quote_words
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::extract;
    use crate::judge::{JudgeSettings, judge_page, judge_source};
    use crate::model::BodyFormat;
    use crate::text::webpage as content;
    use std::path::Path;

    /// Judges every claim of `article` against every page of `pages` (HTML) twice: as a one-off
    /// text, and against one index per page shared by all the claims, in turn. The judgments
    /// must be the same, field for field; returns how many were compared.
    fn compare(article: &str, format: BodyFormat, pages: &[String]) -> usize {
        let claims = extract(article, format)
            .expect("the article extracts")
            .claims;
        let settings = JudgeSettings::default();
        let mut compared = 0;
        for html in pages {
            let document = scraper::Html::parse_document(html);
            let text = content::document_to_text(&document).text;
            let reviews = content::claim_reviews(&document);
            let source = Source {
                text: &text,
                reviews: &reviews,
                furniture: "",
            };
            let index = PageIndex::of(source);
            // Twice over, so a claim judged after others still sees the page as it was built.
            for claim in claims.iter().chain(claims.iter().rev()) {
                let url = "http://127.0.0.1/source";
                let one_off = judge_source(claim, source, url, &settings);
                let cached = judge_page(claim, &index, url, &settings);
                assert_eq!(one_off, cached, "claim {:?} against {text:?}", claim.text);
                compared += 1;
            }
        }
        compared
    }

    /// What the cache relies on: an index shared by many claims, judged in any order, carries
    /// nothing from one claim to the next (each is judged as against an index of its own). It
    /// does not compare the index with the text judged without one: every judgment goes through
    /// an index.
    #[test]
    fn a_shared_index_judges_each_claim_as_a_fresh_index_does_in_any_order() {
        // The hand-written cases: each article against each of its case's sources.
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/claims");
        let mut compared = 0;
        for set in ["tuning", "heldout"] {
            let mut files: Vec<_> = std::fs::read_dir(root.join(set))
                .expect("fixture folder")
                .map(|e| e.expect("fixture entry").path())
                .filter(|p| p.extension().is_some_and(|e| e == "toml"))
                .collect();
            files.sort();
            for path in files {
                let file: toml::Value =
                    toml::from_str(&std::fs::read_to_string(&path).expect("fixture readable"))
                        .expect("fixture parses");
                for case in file["case"].as_array().expect("cases") {
                    let article = case["article"]
                        .as_str()
                        .expect("article")
                        .replace("{{src}}", "http://127.0.0.1/case");
                    let format = match case.get("format").and_then(|f| f.as_str()) {
                        Some("html") => BodyFormat::Html,
                        _ => BodyFormat::Markdown,
                    };
                    let pages: Vec<String> = case
                        .get("sources")
                        .and_then(|s| s.as_table())
                        .map(|t| t.values().filter_map(|v| v.as_str()).map(String::from))
                        .into_iter()
                        .flatten()
                        .collect();
                    compared += compare(&article, format, &pages);
                }
            }
        }
        // The bench article's claims against its own text: a long page, many claims.
        let article = include_str!("../../../tests/fixtures/articles/bench-1500-words.md");
        let mut html = String::new();
        pulldown_cmark::html::push_html(&mut html, pulldown_cmark::Parser::new(article));
        compared += compare(article, BodyFormat::Markdown, &[html]);
        assert!(compared > 200, "only {compared} judgments compared");
    }

    /// A window's figures, kept or not, are always `parse_figures` of the window's text, and
    /// what is kept stays within the allowance counted in the page's weight.
    #[test]
    fn window_figures_are_the_passages_figures_within_the_allowance() {
        let article = include_str!("../../../tests/fixtures/articles/bench-1500-words.md");
        // A page split after "Nov." (a line break ends a sentence) reads "3" alone as a figure;
        // the window that holds both lines reads the date whole.
        let split = "The rule took effect on Nov.\n3, 2015, across the state. Fees rose 4%.";
        for text in [article, split] {
            let page = PageIndex::new(text);
            let n = page.index().sentences.len();
            let windows: Vec<(usize, usize)> = (0..n)
                .flat_map(|first| {
                    (first + 1..=(first + MAX_WINDOW).min(n)).map(move |last| (first, last))
                })
                .collect();
            // Twice: first parsed (and kept while the allowance lasts), then read back.
            for _ in 0..2 {
                for &(first, last) in &windows {
                    let s = &page.index().sentences;
                    let whole = parse_figures(&text[s[first].byte_start..s[last - 1].byte_end]);
                    assert_eq!(page.window_figures(first, last).as_ref(), whole.as_slice());
                }
            }
            let used = page.windows.used.load(Ordering::Relaxed);
            assert!(
                used <= page.windows.allowance,
                "{used} > {}",
                page.windows.allowance
            );
            assert!(page.heap_bytes() >= page.measure() + page.windows.allowance);
            // The long page fills its allowance, so the windows past it were parsed each time,
            // and compared above all the same.
            if text == article {
                let not_kept = windows.iter().filter(|&&(first, last)| {
                    page.windows.slots[first * MAX_WINDOW + (last - first) - 1]
                        .get()
                        .is_none()
                });
                assert!(
                    not_kept.count() > 0,
                    "the bench article's windows all fit the allowance: the path past it is untested"
                );
            }
        }
        let page = PageIndex::new(split);
        let s = &page.index().sentences;
        assert!(s.len() >= 2, "the split page has {} sentences", s.len());
        // Read sentence by sentence, the figures differ from the window's: the date is split.
        let by_sentence: Vec<Figure> = (0..s.len())
            .flat_map(|i| page.window_figures(i, i + 1).into_owned())
            .collect();
        let window = (0, s.len().min(MAX_WINDOW));
        assert_ne!(
            page.window_figures(window.0, window.1).as_ref(),
            by_sentence.as_slice()
        );
        // Outside the index, nothing: no panic for a window past the page.
        assert!(page.window_figures(s.len(), s.len() + 1).is_empty());
    }

    /// The cache weighs a page by its index: the weight must count what the index holds (more
    /// than the text it copies, growing with the page) and stay a small multiple of the text,
    /// words kept as ids rather than strings (about 19 times this Markdown, markup and all;
    /// it was 60 times with a string per word).
    #[test]
    fn the_index_weighs_more_than_its_text_and_grows_with_the_page() {
        let article = include_str!("../../../tests/fixtures/articles/bench-1500-words.md");
        let short = PageIndex::new("The plan costs $9 a month.");
        let long = PageIndex::new(article);
        assert!(long.heap_bytes() > article.len(), "{}", long.heap_bytes());
        assert!(long.heap_bytes() > 20 * short.heap_bytes());
        assert!(
            long.heap_bytes() < 25 * article.len(),
            "{} bytes for {} of text",
            long.heap_bytes(),
            article.len()
        );
    }
}
