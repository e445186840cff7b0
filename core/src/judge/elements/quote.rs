//! Quote checking: does a quoted span of the claim appear in the source?
//!
//! A quotation is checked word by word, not character by character, because sources and
//! articles write the same words with different typography: "Mockingjay – Part 2" and
//! "Mockingjay — Part 2.", "Booth memorials: Passages" and "Booth memorials : Passages",
//! curly and straight quote marks, line breaks, re-cased headlines.
//!
//! # The rule
//! 1. **Words.** Quote and source are read as word tokens: runs of letters and digits, lowercased.
//!    An apostrophe between two letters or digits stays inside its word (any apostrophe variant
//!    counts as `'`), so "we're" is one word and differs from "we are"; a `.` or `,` between two
//!    digits stays inside its number ("3.5", "1,000"). Everything else (dashes of every kind,
//!    quote marks, brackets, other punctuation, spacing) only separates words.
//! 2. **Elisions.** "[...]", "[…]", "(...)", "...", ". . ." and "…" in the quote mark left-out
//!    words: the quote is cut there into pieces, and every piece must appear, in order, each
//!    starting at most [`MAX_ELISION_GAP`] words after the previous one ends.
//! 3. **Initials.** A word written in the source or the quote as a single capital letter ("A
//!    swainsonii", "J. Smith") stands for any word starting with that letter.
//! 4. **Near match.** A piece of `n` words may differ from the source run it matches by at most
//!    `n / 8` (rounded down) edits, each a word substituted, a quote word missing from the source or
//!    a source word inserted in the run. A piece of fewer than eight words must match exactly.
//!    A number or a negation ("not", "no", "never", "without", "don't"…) is never edited, on
//!    either side: "we will raise prices" is not a quote of "we will not raise prices", at any
//!    length.
//!
//! Anything else is a misquote. A quote with no words is found.
//!
//! # Titles
//! A quoted span in title case ("Master of Puppets", "Brown v. Board of Education") is the name
//! of a work or a body, not words put in someone's mouth: sources name works in short ("Maiden
//! Heaven" for "Maiden Heaven: A Tribute to Iron Maiden"). [`check`] reports a title it does not
//! find as [`QuoteCheck::TitleMissing`], which the judge weighs as a missing name.

use crate::judge::retrieve::TokenId;

/// How many words an elision may stand for, at most: a quote cut to a few sentences is still one
/// passage, but pieces pages apart are not one quotation.
pub(crate) const MAX_ELISION_GAP: usize = 60;
/// One edit is allowed per this many words of a quote piece (rounded down).
const WORDS_PER_EDIT: usize = 8;

/// One word of a quote or a source. A page keeps one per word, so the word itself is an id
/// (of the page's vocabulary, as [`tokens`] is given it) with its first letter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// The word, lowercased, by id: the same word has the same id.
    pub id: TokenId,
    /// The first letter of the word, lowercased.
    pub first: char,
    /// Written as a single capital letter: an initial that may stand for a longer word.
    pub initial: bool,
    /// A number or a negation: never substituted, dropped or inserted by a near match.
    pub protected: bool,
}

/// The id of a word no source has: a quote's word that the page lacks matches none of its
/// words.
pub(crate) const UNKNOWN_WORD: TokenId = TokenId::MAX;

impl Token {
    fn new(raw: &str, id_of: &mut dyn FnMut(&str) -> TokenId) -> Token {
        let mut chars = raw.chars();
        let initial = matches!((chars.next(), chars.next()), (Some(c), None) if c.is_uppercase());
        let text = raw.to_lowercase();
        let protected =
            text.chars().any(|c| c.is_numeric()) || crate::text::lexicon::is_negation(&text);
        Token {
            id: id_of(&text),
            first: text.chars().next().unwrap_or_default(),
            initial,
            protected,
        }
    }

    /// Whether the two words count as the same word (rule 3 for initials).
    fn matches(&self, other: &Token) -> bool {
        if self.id == other.id && self.id != UNKNOWN_WORD {
            return true;
        }
        let abbreviates = |short: &Token, long: &Token| {
            short.initial && !long.protected && long.first == short.first
        };
        abbreviates(self, other) || abbreviates(other, self)
    }
}

fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '\u{2019}' | '\u{2018}' | '\u{02BC}' | '`')
}

/// The word tokens of `text` (rule 1).
/// Each word's id is `id_of`'s: a source's words are numbered as they come, a quote's looked up
/// in the source's numbering ([`UNKNOWN_WORD`] for a word it lacks).
pub fn tokens(text: &str, id_of: &mut dyn FnMut(&str) -> TokenId) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_alphanumeric() {
            word.push(c);
            continue;
        }
        let next = chars.get(i + 1).copied();
        let prev = word.chars().last();
        let inside_word = is_apostrophe(c)
            && prev.is_some_and(char::is_alphanumeric)
            && next.is_some_and(char::is_alphanumeric);
        let inside_number = matches!(c, '.' | ',')
            && prev.is_some_and(|p| p.is_ascii_digit())
            && next.is_some_and(|n| n.is_ascii_digit());
        if inside_word {
            word.push('\'');
        } else if inside_number {
            word.push(c);
        } else if !word.is_empty() {
            out.push(Token::new(&word, id_of));
            word.clear();
        }
    }
    if !word.is_empty() {
        out.push(Token::new(&word, id_of));
    }
    out
}

/// The pieces of a quote between its elisions (rule 2), each as tokens; empty pieces dropped.
fn pieces(quote: &str, id_of: &mut dyn FnMut(&str) -> TokenId) -> Vec<Vec<Token>> {
    let mut pieces = Vec::new();
    let mut rest = quote;
    while let Some((at, len)) = find_elision(rest) {
        pieces.push(tokens(&rest[..at], id_of));
        rest = &rest[at + len..];
    }
    pieces.push(tokens(rest, id_of));
    pieces.retain(|p| !p.is_empty());
    pieces
}

/// The byte offset and length of the first elision mark in `text`: "…" or three dots (spaced
/// or not), optionally in square or round brackets.
fn find_elision(text: &str) -> Option<(usize, usize)> {
    let mut i = 0;
    while i < text.len() {
        let dots = dots_at(text, i);
        if dots > 0 {
            let (mut start, mut end) = (i, i + dots);
            // Take in the brackets around the dots: "[...]", "( … )".
            let before = text[..start].trim_end();
            let after = &text[end..];
            let after_trimmed = after.trim_start();
            if let (Some(open), Some(close)) = (before.chars().last(), after_trimmed.chars().next())
                && matches!((open, close), ('[', ']') | ('(', ')'))
            {
                start = before.len() - 1;
                end += after.len() - after_trimmed.len() + 1;
            }
            return Some((start, end - start));
        }
        // Advance by one character, not one byte.
        i += text[i..].chars().next().map_or(1, char::len_utf8);
    }
    None
}

/// The byte length of the elision dots starting at `i` ("…", "...", ". . ."), or 0.
fn dots_at(text: &str, i: usize) -> usize {
    let rest = &text[i..];
    if rest.starts_with('\u{2026}') {
        return '\u{2026}'.len_utf8();
    }
    let mut len = 0;
    let mut dots = 0;
    for c in rest.chars() {
        match c {
            '.' => dots += 1,
            ' ' if dots > 0 && dots < 3 => {}
            _ => break,
        }
        len += c.len_utf8();
        if dots == 3 {
            return len;
        }
    }
    0
}

/// Costs of the near match (rule 4); a protected word cannot be edited.
const BLOCKED: u32 = u32::MAX / 4;

fn edit_cost(t: &Token) -> u32 {
    if t.protected { BLOCKED } else { 1 }
}

/// Every end (exclusive, in `source`) of a run of `source` that `piece` matches within `budget`
/// edits, earliest first; with `first_only`, just the earliest. Approximate substring matching
/// (Sellers): the run may start anywhere, so row 0 costs nothing.
fn match_ends(piece: &[Token], source: &[Token], budget: u32, first_only: bool) -> Vec<usize> {
    let m = piece.len();
    // col[i]: the fewest edits that match piece[..i] with a run of the source ending here.
    let mut col: Vec<u32> = (0..=m)
        .scan(0u32, |acc, i| {
            if i > 0 {
                *acc = acc.saturating_add(edit_cost(&piece[i - 1]));
            }
            Some(*acc)
        })
        .collect();
    let mut next = vec![0u32; m + 1];
    let mut ends = Vec::new();
    for (j, s) in source.iter().enumerate() {
        next[0] = 0;
        for i in 1..=m {
            let q = &piece[i - 1];
            let substitute = if q.matches(s) {
                0
            } else if q.protected || s.protected {
                BLOCKED
            } else {
                1
            };
            let diagonal = col[i - 1].saturating_add(substitute);
            let quote_word_missing = next[i - 1].saturating_add(edit_cost(q));
            let source_word_inserted = col[i].saturating_add(edit_cost(s));
            next[i] = diagonal.min(quote_word_missing).min(source_word_inserted);
        }
        std::mem::swap(&mut col, &mut next);
        if col[m] <= budget {
            ends.push(j + 1);
            if first_only {
                break;
            }
        }
    }
    ends
}

fn budget(piece: &[Token]) -> u32 {
    // A piece has at most a few hundred words: the count fits.
    u32::try_from(piece.len() / WORDS_PER_EDIT).unwrap_or(u32::MAX)
}

/// Whether `quote` appears in the source whose [`tokens`] are `source`, by the rule of this
/// module; `id_of` gives the id the source's words have (None for a word it lacks). A quote
/// with no words is found.
pub(crate) fn quote_found(
    quote: &str,
    source: &[Token],
    id_of: &dyn Fn(&str) -> Option<TokenId>,
) -> bool {
    let pieces = pieces(quote, &mut |w| id_of(w).unwrap_or(UNKNOWN_WORD));
    let Some((first, rest)) = pieces.split_first() else {
        return true;
    };
    match_ends(first, source, budget(first), rest.is_empty())
        .into_iter()
        .any(|end| rest_found(rest, source, end))
}

/// Whether the `pieces` after an elision appear in order from `from`, each within the gap.
fn rest_found(pieces: &[Vec<Token>], source: &[Token], from: usize) -> bool {
    let Some((piece, rest)) = pieces.split_first() else {
        return true;
    };
    let allowed = budget(piece) as usize;
    let window_end = source
        .len()
        .min(from + MAX_ELISION_GAP + piece.len() + allowed);
    let window = &source[from.min(window_end)..window_end];
    // The earliest end leaves the most room for the pieces after it.
    match match_ends(piece, window, budget(piece), true).first() {
        Some(end) => rest_found(rest, source, from + end),
        None => false,
    }
}

/// Words a title leaves in lower case.
const MINOR_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "nor", "but", "for", "of", "on", "in", "at", "to", "by", "with",
    "from", "as", "into", "onto", "upon", "v", "vs", "de", "la", "le", "von", "van", "der", "del",
    "du", "da",
];

/// Whether `quote` reads as the name of a work or a body: its first word and every word but the
/// minor ones ("of", "the", "v.") start with a capital letter or a digit, and it has no elision.
pub(crate) fn is_title(quote: &str) -> bool {
    if find_elision(quote).is_some() {
        return false;
    }
    let words: Vec<&str> = quote
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    let capital = |w: &str| w.starts_with(|c: char| c.is_uppercase() || c.is_numeric());
    match words.split_first() {
        Some((first, rest)) => {
            capital(first)
                && rest
                    .iter()
                    .all(|w| capital(w) || MINOR_WORDS.contains(&w.to_lowercase().as_str()))
        }
        None => false,
    }
}

/// What the source makes of one quoted span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuoteCheck {
    /// The span is in the source.
    Found,
    /// A title the source does not name in full: a missing name, not a misquote.
    TitleMissing,
    /// Words presented as a quote that the source does not contain.
    Missing,
}

/// Checks `quote` against the source whose [`tokens`] are `source`.
pub fn check(quote: &str, source: &[Token], id_of: &dyn Fn(&str) -> Option<TokenId>) -> QuoteCheck {
    if quote_found(quote, source, id_of) {
        QuoteCheck::Found
    } else if is_title(quote) {
        QuoteCheck::TitleMissing
    } else {
        QuoteCheck::Missing
    }
}

/// The share of a quotation's content words the page must use for the quote to be a paraphrase
/// of the page (low: for review) rather than words the page does not hold (medium): half.
pub(crate) const PARAPHRASED_WORDS: f64 = 0.5;

/// Whether the page uses most of the quotation's content words ([`PARAPHRASED_WORDS`]), though
/// not as quoted.
pub(crate) fn words_on_page(quote: &str, page: &crate::judge::PageIndex) -> bool {
    let words = crate::judge::retrieve::tokenize(quote);
    if words.is_empty() {
        return false;
    }
    let used = words.iter().filter(|w| page.index().contains(w)).count();
    used as f64 >= PARAPHRASED_WORDS * words.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::retrieve::Vocabulary;

    fn found(quote: &str, source: &str) -> bool {
        let mut words = Vocabulary::default();
        let source = tokens(source, &mut |w| words.intern(w));
        quote_found(quote, &source, &|w| words.get(w))
    }

    #[test]
    fn curly_quotes_line_breaks_and_case_do_not_matter() {
        let source = "He said: \u{201C}We\u{2019}re   done\nwith it.\u{201D}";
        assert!(found("we're done with it", source));
        assert!(found("\u{201C}We're done\u{201D}", source));
        assert!(!found("we are done with it", source));
    }

    #[test]
    fn dash_variants_and_spacing_around_punctuation_do_not_matter() {
        let source = "with just seven days left to shoot on \"Mockingjay \u{2014} Part 2.\"";
        for dash in ['-', '\u{2010}', '\u{2013}', '\u{2014}', '\u{2015}'] {
            assert!(
                found(&format!("Mockingjay {dash} Part 2"), source),
                "{dash}"
            );
        }
        let source = "published under the title, Booth memorials : Passages, incidents, and \
                      anecdotes in the life of Junius Brutus Booth (the Elder) by His Daughter.";
        assert!(found(
            "Booth memorials: Passages, incidents, and anecdotes in the life of Junius Brutus \
             Booth (the Elder) by His Daughter",
            source
        ));
        assert!(found(
            "Young Hollywood's Top Earning-Stars",
            "Forbes' Young Hollywood's Top-Earning Stars is an exclusive list"
        ));
    }

    #[test]
    fn words_split_or_joined_differently_do_not_match() {
        assert!(!found("Mockingjay Part 2", "Mockingjay Part 3"));
        assert!(!found(
            "the rate was 3.5 percent",
            "the rate was 3 5 percent"
        ));
        assert!(found(
            "the rate was 3.5 percent",
            "The rate was 3.5 percent."
        ));
        assert!(!found(
            "the rate was 3.5 percent",
            "The rate was 3.6 percent."
        ));
    }

    #[test]
    fn elisions_are_gaps_whose_pieces_must_appear_in_order() {
        let source = "The new \"Style\" video is mature, tasteful, and, dare I say... sexy?";
        for elided in [
            "mature, tasteful, and [...] sexy",
            "mature, tasteful, and [\u{2026}] sexy",
            "mature, tasteful, and ... sexy",
            "mature, tasteful, and \u{2026} sexy",
            "mature, tasteful, and . . . sexy",
            "mature, tasteful, and (...) sexy",
            "... tasteful, and [...] sexy",
        ] {
            assert!(found(elided, source), "{elided}");
        }
        // The pieces out of order, or a piece the source lacks.
        assert!(!found("sexy [...] mature, tasteful", source));
        assert!(!found("mature, tasteful, and [...] vulgar", source));
    }

    #[test]
    fn an_elision_does_not_bridge_distant_passages() {
        let filler = "word ".repeat(MAX_ELISION_GAP + 5);
        let source = format!("we will raise {filler} prices next year");
        assert!(!found("we will raise [...] prices next year", &source));
        let near = format!("we will raise {} prices next year", "word ".repeat(10));
        assert!(found("we will raise [...] prices next year", &near));
    }

    #[test]
    fn an_initial_stands_for_a_word_with_its_letter() {
        let source = "a mainland subspecies of the Dusky Antechinus, A swainsonii mimetes.";
        assert!(found("Antechinus swainsonii mimetes", source));
        assert!(found("J. Smith said so", "John Smith said so"));
        assert!(!found("Bntechinus swainsonii mimetes", source));
        // A lower-case "a" is the article, not an initial.
        assert!(!found("Antechinus swainsonii", "a swainsonii"));
    }

    #[test]
    fn a_long_quote_may_differ_by_one_word_in_eight() {
        let source = "Brown v. Board of Education of Topeka was a landmark 1954 Supreme Court case";
        // Eight words, one of them ("Kansas") not where the source has it.
        assert!(found(
            "Brown v. Board of Education of Topeka, Kansas",
            source
        ));
        // Seven words, one off: too short to tolerate an edit.
        assert!(!found("Board of Education of Topeka, Kansas", source));
        let source = "250 years of making, debating and exhibiting art at the Royal Academy.";
        assert!(found(
            "the making, debating and exhibiting art at the Royal Academy",
            source
        ));
        // Two edits in ten words is too many.
        assert!(!found(
            "the making, debating and selling art at the Royal Academy",
            source
        ));
    }

    #[test]
    fn a_changed_negation_or_number_is_a_misquote_at_any_length() {
        assert!(!found(
            "we will not raise prices",
            "We will raise prices, the chief executive said."
        ));
        assert!(!found(
            "we will raise prices",
            "We will not raise prices, the chief executive said."
        ));
        let source = "We have always said that we will not raise prices for existing customers \
                      this year or next, the chief executive told shareholders on Monday.";
        assert!(found(
            "we have always said that we will not raise prices for existing customers this year",
            source
        ));
        assert!(!found(
            "we have always said that we will raise prices for existing customers this year",
            source
        ));
        assert!(!found(
            "we have always said that we won't raise prices for existing customers this year",
            source
        ));
        assert!(!found(
            "the chief executive told 300 shareholders on Monday after the annual meeting",
            "the chief executive told 30 shareholders on Monday after the annual meeting"
        ));
    }

    #[test]
    fn a_quote_whose_words_are_absent_is_not_found() {
        let source = "The committee met on Tuesday to discuss the budget.";
        assert!(!found(
            "culturally, historically, or aesthetically significant",
            source
        ));
        assert!(found("", source));
        assert!(found("\u{201C} \u{201D}", source));
    }

    #[test]
    fn titles_are_told_from_quotations() {
        for title in [
            "Master of Puppets",
            "Brown v. Board of Education of Topeka, Kansas",
            "The Hunger Games: Mockingjay \u{2013} Part 2",
            "I'll Sleep When I'm Dead",
            "The A.V. Club",
        ] {
            assert!(is_title(title), "{title}");
        }
        for quotation in [
            "culturally, historically, or aesthetically significant",
            "mature, tasteful, and [...] sexy",
            "The 100 greatest novels of all time",
            "We Will [...] Raise Prices",
        ] {
            assert!(!is_title(quotation), "{quotation}");
        }
        let mut words = Vocabulary::default();
        let source = tokens(
            "Kerrang! magazine's latest collection \"Maiden Heaven\" features",
            &mut |w| words.intern(w),
        );
        let id_of = |w: &str| words.get(w);
        assert_eq!(
            check("Maiden Heaven: A Tribute to Iron Maiden", &source, &id_of),
            QuoteCheck::TitleMissing
        );
        assert_eq!(check("Maiden Heaven", &source, &id_of), QuoteCheck::Found);
        assert_eq!(
            check("a tribute to a band we love", &source, &id_of),
            QuoteCheck::Missing
        );
    }
}
