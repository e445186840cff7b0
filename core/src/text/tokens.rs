//! Words as the judge and extraction compare them: lowercased, stop words dropped, a light stem
//! (plural and verb endings stripped, then cut to a short prefix so "married" meets "marriage"),
//! numbers kept whole with thousands separators removed ("260,000" → "260000").

use std::collections::{HashMap, HashSet};

/// Hash tables keyed by a page's words: foldhash, seeded per table, is several times faster
/// than SipHash on short keys and still unpredictable to a page written to collide.
pub type FoldHashMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
pub type FoldHashSet<T> = HashSet<T, foldhash::fast::RandomState>;

/// The longest stem kept; longer words are cut to it. Tuned on the WiCE dev split.
const STEM_PREFIX: usize = 5;

const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "if", "of", "at", "by", "for", "with", "about",
    "against", "between", "into", "through", "during", "before", "after", "above", "below", "to",
    "from", "up", "down", "in", "out", "on", "off", "over", "under", "again", "further", "then",
    "once", "here", "there", "when", "where", "why", "how", "all", "any", "both", "each", "few",
    "more", "most", "other", "some", "such", "no", "nor", "not", "only", "own", "same", "so",
    "than", "too", "very", "can", "will", "just", "should", "now", "is", "are", "was", "were",
    "be", "been", "being", "have", "has", "had", "having", "do", "does", "did", "doing", "i", "me",
    "my", "we", "our", "you", "your", "he", "him", "his", "she", "her", "it", "its", "they",
    "them", "their", "what", "which", "who", "whom", "this", "that", "these", "those", "am",
    "would", "could", "also", "as",
];

static STOP_WORD_SET: std::sync::LazyLock<FoldHashSet<&'static str>> =
    std::sync::LazyLock::new(|| STOP_WORDS.iter().copied().collect());

/// Whether `word` (lowercase) carries no content.
pub fn is_stop_word(word: &str) -> bool {
    word.len() <= 7 && STOP_WORD_SET.contains(word)
}

/// Reduces a lowercase word to the stem both sides are compared on. A month's name and its
/// abbreviation reduce to the same stem ("November", "Nov" → "nov"), as sources write dates
/// either way.
pub fn stem(word: &str) -> String {
    if let Some(month) = month_stem(word) {
        return month.to_owned();
    }
    let mut w = word;
    for suffix in ["ing", "ed", "es", "s"] {
        if w.len() > suffix.len() + 3 && w.ends_with(suffix) {
            w = &w[..w.len() - suffix.len()];
            break;
        }
    }
    w.chars().take(STEM_PREFIX).collect()
}

/// The three-letter stem of a month's name or abbreviation, lowercase ("may" is its own stem
/// either way).
fn month_stem(word: &str) -> Option<&'static str> {
    const STEMS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    crate::text::lexicon::month_number(word).map(|n| STEMS[usize::from(n) - 1])
}

/// Whether a token is a number.
pub fn is_number(token: &str) -> bool {
    token.starts_with(|c: char| c.is_ascii_digit())
}

/// Content tokens of `text`, in order: stemmed words and whole numbers.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    scan(text, |_, token| out.push(token));
    out
}

/// A content word of a text and the token it is compared by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// The word as written (lowercased); a number without its separators.
    pub word: String,
    pub token: String,
}

/// Content terms of `text`, in order.
pub fn terms(text: &str) -> Vec<Term> {
    let mut out = Vec::new();
    scan(text, |word, token| {
        out.push(Term {
            word: word.to_owned(),
            token,
        })
    });
    out
}

/// Calls `found(word, token)` for each content term of `text`, in order: each word of letters
/// (lower-cased) that is not a stop word, with its stem; each number, without its thousands
/// separators, as both.
pub(crate) fn scan(text: &str, mut found: impl FnMut(&str, String)) {
    let lower = text.to_lowercase();
    let bytes = lower.as_bytes();
    let mut chars = lower.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c.is_ascii_digit() {
            let mut number = String::new();
            number.push(c);
            let mut end = start + 1;
            while let Some(&(at, d)) = chars.peek() {
                let next_is_digit = bytes.get(at + 1).is_some_and(u8::is_ascii_digit);
                if d.is_ascii_digit() {
                    number.push(d);
                } else if (d == '.' || d == ',') && next_is_digit {
                    // A comma groups thousands; a dot is a decimal point.
                    if d == '.' {
                        number.push('.');
                    }
                } else {
                    break;
                }
                end = at + d.len_utf8();
                chars.next();
            }
            // An ordinal's suffix ("9th", "2nd") belongs to the number.
            let rest = &lower[end..];
            if ["st", "nd", "rd", "th"].iter().any(|s| rest.starts_with(s))
                && !rest[2..].starts_with(char::is_alphabetic)
            {
                chars.next();
                chars.next();
            }
            found(&number.clone(), number);
        } else if c.is_alphabetic() {
            let mut end = start + c.len_utf8();
            while let Some(&(at, d)) = chars.peek() {
                if !d.is_alphabetic() {
                    break;
                }
                end = at + d.len_utf8();
                chars.next();
            }
            let word = &lower[start..end];
            if end - start > c.len_utf8() && !is_stop_word(word) {
                found(word, stem(word));
            }
        }
    }
}
