//! Passage retrieval: the source split into sentences and small windows of consecutive
//! sentences, ranked against the claim with BM25.
//!
//! Tokens are lowercased words with stop words dropped and a light stem (plural and verb
//! endings stripped, then cut to a short prefix so "married" meets "marriage"); numbers are
//! kept whole with thousands separators removed ("260,000" → "260000"). Document frequencies
//! come from the source's own sentences, so a word rare on the page weighs more.

use std::collections::{HashMap, HashSet};
use unicode_segmentation::UnicodeSegmentation;

/// The longest stem kept; longer words are cut to it. Tuned on the WiCE dev split.
const STEM_PREFIX: usize = 5;
/// Windows hold up to this many consecutive sentences.
pub const MAX_WINDOW: usize = 3;
const BM25_K1: f64 = 1.2;
const BM25_B: f64 = 0.75;

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

static STOP_WORD_SET: std::sync::LazyLock<HashSet<&'static str>> =
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

/// The three-letter stem of a month's name or abbreviation, lowercase.
fn month_stem(word: &str) -> Option<&'static str> {
    let stem = match word {
        "january" | "jan" => "jan",
        "february" | "feb" => "feb",
        "march" | "mar" => "mar",
        "april" | "apr" => "apr",
        "june" | "jun" => "jun",
        "july" | "jul" => "jul",
        "august" | "aug" => "aug",
        "september" | "sept" | "sep" => "sep",
        "october" | "oct" => "oct",
        "november" | "nov" => "nov",
        "december" | "dec" => "dec",
        _ => return None,
    };
    Some(stem)
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
fn scan(text: &str, mut found: impl FnMut(&str, String)) {
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

/// One sentence of the source with its place in it.
#[derive(Debug, Clone)]
pub struct Sentence {
    /// Byte range in the source text.
    pub byte_start: usize,
    pub byte_end: usize,
    /// Character range in the source text.
    pub char_start: usize,
    pub char_end: usize,
    pub tokens: Vec<String>,
}

/// A run of consecutive sentences that matched the claim.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    /// Index of the first sentence and one past the last.
    pub first: usize,
    pub last: usize,
    /// The passage as written in the source, trimmed.
    pub text: String,
    /// Character offsets of the passage in the source.
    pub start: usize,
    pub end: usize,
    /// Its BM25 score against the claim.
    pub score: f64,
}

/// The source split into sentences, with the statistics that weigh words.
#[derive(Debug, Clone)]
pub struct SourceIndex {
    pub sentences: Vec<Sentence>,
    doc_freq: HashMap<String, usize>,
}

impl SourceIndex {
    /// Splits `text` into sentences (Unicode sentence boundaries; a line break ends one too).
    pub fn new(text: &str) -> SourceIndex {
        let mut sentences = Vec::new();
        let mut doc_freq: HashMap<String, usize> = HashMap::new();
        let mut chars_before = 0;
        let mut last_byte = 0;
        for (byte_start, piece) in text.split_sentence_bound_indices() {
            chars_before += text[last_byte..byte_start].chars().count();
            last_byte = byte_start;
            let tokens = tokenize(piece);
            if tokens.is_empty() {
                continue;
            }
            let lead = piece.len() - piece.trim_start().len();
            let trimmed = piece.trim();
            let char_start = chars_before + piece[..lead].chars().count();
            for token in tokens.iter().collect::<HashSet<_>>() {
                *doc_freq.entry(token.clone()).or_default() += 1;
            }
            sentences.push(Sentence {
                byte_start: byte_start + lead,
                byte_end: byte_start + lead + trimmed.len(),
                char_start,
                char_end: char_start + trimmed.chars().count(),
                tokens,
            });
        }
        SourceIndex {
            sentences,
            doc_freq,
        }
    }

    /// Inverse document frequency of a token over the source's sentences (BM25 form, > 0).
    /// A token the source never uses gets the highest weight.
    pub fn idf(&self, token: &str) -> f64 {
        let n = self.sentences.len() as f64;
        let df = self.doc_freq.get(token).copied().unwrap_or(0) as f64;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// Whether any sentence of the source holds `token`.
    pub fn contains(&self, token: &str) -> bool {
        self.doc_freq.contains_key(token)
    }

    /// The distinct tokens of sentences `first..last`.
    pub fn tokens_of(&self, first: usize, last: usize) -> HashSet<&str> {
        self.sentences[first..last.min(self.sentences.len())]
            .iter()
            .flat_map(|s| s.tokens.iter().map(String::as_str))
            .collect()
    }

    /// The best `max` passages for `query` among windows of 1 to [`MAX_WINDOW`] sentences,
    /// best first, without overlap.
    pub fn retrieve(&self, text: &str, query: &[String], max: usize) -> Vec<Passage> {
        let n = self.sentences.len();
        if n == 0 || max == 0 {
            return Vec::new();
        }
        let query: HashSet<&str> = query.iter().map(String::as_str).collect();
        let avg_len =
            self.sentences.iter().map(|s| s.tokens.len()).sum::<usize>() as f64 / n as f64 * 2.0;
        let mut scored = Vec::new();
        for first in 0..n {
            for size in 1..=MAX_WINDOW.min(n - first) {
                let last = first + size;
                let mut tf: HashMap<&str, usize> = HashMap::new();
                let mut len = 0usize;
                for s in &self.sentences[first..last] {
                    len += s.tokens.len();
                    for t in &s.tokens {
                        if query.contains(t.as_str()) {
                            *tf.entry(t.as_str()).or_default() += 1;
                        }
                    }
                }
                let norm = BM25_K1 * (1.0 - BM25_B + BM25_B * len as f64 / avg_len.max(1.0));
                let score: f64 = tf
                    .iter()
                    .map(|(t, &f)| {
                        let f = f as f64;
                        self.idf(t) * f * (BM25_K1 + 1.0) / (f + norm)
                    })
                    .sum();
                if score > 0.0 {
                    scored.push((score, first, last));
                }
            }
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut taken: Vec<Passage> = Vec::new();
        for (score, first, last) in scored {
            if taken.len() >= max {
                break;
            }
            if taken.iter().any(|p| first < p.last && p.first < last) {
                continue;
            }
            let (a, b) = (&self.sentences[first], &self.sentences[last - 1]);
            taken.push(Passage {
                first,
                last,
                text: text[a.byte_start..b.byte_end].to_string(),
                start: a.char_start,
                end: b.char_end,
                score,
            });
        }
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenize_drops_stop_words_and_keeps_numbers_whole() {
        assert_eq!(
            tokenize("The library holds over 260,000 volumes, 41.3% of them."),
            vec!["libra", "hold", "260000", "volum", "41.3"]
        );
    }

    #[test]
    fn retrieve_finds_the_matching_sentence_with_its_offsets() {
        let text = "Intro about cats.\nThe Pro plan costs $9/month for teams.\nAnother line here.";
        let index = SourceIndex::new(text);
        let passages = index.retrieve(text, &tokenize("pro plan price per month"), 1);
        assert_eq!(passages.len(), 1);
        let p = &passages[0];
        assert!(p.text.contains("$9/month"), "{p:?}");
        let found: String = text.chars().skip(p.start).take(p.end - p.start).collect();
        assert_eq!(found, p.text);
    }
}
