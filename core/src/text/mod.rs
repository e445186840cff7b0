//! Text analysis, one home for drafts and sources alike.
//!
//! - [`document`]: a draft body (Markdown, HTML or plain text) as blocks (headings, paragraphs,
//!   list items, table cells, captions) with their inline citation markers and reference list.
//! - [`webpage`]: a fetched page as text: charset decoding, HTML to visible text, paywall markers
//!   and the schema.org `ClaimReview` markup a fact-check page carries.
//! - [`interstitial`]: pages a site serves instead of the cited document: sign-in, access
//!   denied, bot checks, rate limits, consent and registration walls.
//! - [`html`]: the one table of HTML elements both readers agree on: what is never text, and
//!   what breaks a block.
//! - [`citations`]: links, reference links, numbered references, footnotes and bare URLs.
//! - [`sentences`]: a block's text split into sentences.
//! - [`tokens`]: words as the judge and extraction compare them: stop words, stems, numbers.
//! - [`cues`]: what a sentence signals: its claim kinds, quotes, attribution, change verbs,
//!   dates, superlatives; and the prejudgment of a claim that cites nothing.
//! - [`figures`]: the figures a sentence states, normalized to value, unit and scale.
//! - [`markup`]: bounded HTML and Markdown parsing: nesting checked before any tree is built.
//! - [`pdf`]: a cited PDF as text, bounded against hostile files: pages, paragraphs, and tables
//!   written as sentences as HTML tables are.
//! - [`csv_table`]: a cited CSV data file as text, its rows written as HTML tables' are.
//! - [`lexicon`]: the word lists (months, negations, change verbs, units…) every reader shares.

pub mod citations;
pub mod csv_table;
pub mod cues;
pub mod document;
pub mod figures;
pub mod html;
pub mod interstitial;
pub mod lexicon;
pub mod markup;
pub mod pdf;
pub mod sentences;
pub mod tokens;
pub mod webpage;

/// Where `needle` stands in `haystack` as whole words: each byte offset it occurs at where its
/// first and last characters, when letters or digits, are not joined to a letter or digit beside
/// them ("rank" is not found in "ranking", nor "Ward 1" in "Ward 10"). Compared as given:
/// lower-case both first for a match that ignores case. An empty `needle` is found nowhere.
pub fn whole_word_positions<'a>(
    haystack: &'a str,
    needle: &'a str,
) -> impl Iterator<Item = usize> + 'a {
    let starts_word = needle.chars().next().is_some_and(char::is_alphanumeric);
    let ends_word = needle
        .chars()
        .next_back()
        .is_some_and(char::is_alphanumeric);
    haystack
        .match_indices(needle)
        .filter(move |_| !needle.is_empty())
        .filter_map(move |(at, _)| {
            let before = haystack[..at].chars().next_back();
            let after = haystack[at + needle.len()..].chars().next();
            let joins_before = starts_word && before.is_some_and(char::is_alphanumeric);
            let joins_after = ends_word && after.is_some_and(char::is_alphanumeric);
            (!joins_before && !joins_after).then_some(at)
        })
}

/// Whether `needle` stands in `haystack` as whole words ([`whole_word_positions`]).
pub fn contains_whole_words(haystack: &str, needle: &str) -> bool {
    whole_word_positions(haystack, needle).next().is_some()
}

#[cfg(test)]
mod whole_word_tests {
    use super::*;

    #[test]
    fn whole_words_are_found_and_parts_of_words_are_not() {
        assert!(contains_whole_words("the ranking of ward 10", "ward 10"));
        assert!(!contains_whole_words("the ranking of ward 10", "rank"));
        assert!(!contains_whole_words("ward 10", "ward 1"));
        assert_eq!(
            whole_word_positions("sign in, or sign-in", "sign in").collect::<Vec<_>>(),
            [0]
        );
        // A needle that ends in punctuation may be followed by anything.
        assert!(contains_whole_words("per cent (approx.)x", "(approx.)"));
        assert!(!contains_whole_words("anything", ""));
    }
}
