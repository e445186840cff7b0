//! Passage retrieval: the source split into sentences and small windows of consecutive
//! sentences, ranked against the claim with BM25.
//!
//! Tokens are lowercased words with stop words dropped and a light stem (plural and verb
//! endings stripped, then cut to a short prefix so "married" meets "marriage"); numbers are
//! kept whole with thousands separators removed ("260,000" → "260000"). Document frequencies
//! come from the source's own sentences, so a word rare on the page weighs more.

use unicode_segmentation::UnicodeSegmentation;

use crate::text::tokens::scan;
pub use crate::text::tokens::{
    FoldHashMap, FoldHashSet, Term, is_number, is_stop_word, stem, terms, tokenize,
};
/// Windows hold up to this many consecutive sentences.
pub const MAX_WINDOW: usize = 3;
const BM25_K1: f64 = 1.2;
const BM25_B: f64 = 0.75;

/// A token of the page, by its number in the page's vocabulary: tokens are compared as numbers
/// once the page is indexed, not as strings.
pub type TokenId = u32;

/// One sentence of the source with its place in it.
#[derive(Debug, Clone)]
pub struct Sentence {
    /// Byte range in the source text.
    pub byte_start: usize,
    pub byte_end: usize,
    /// Character range in the source text.
    pub char_start: usize,
    pub char_end: usize,
    /// Its content tokens, in order.
    pub tokens: Vec<TokenId>,
    /// Its distinct tokens, ascending.
    pub distinct: Vec<TokenId>,
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

/// The source split into sentences, with the statistics that weigh words: a function of the
/// page alone, built once per page and shared by every claim that cites it.
#[derive(Debug, Clone)]
pub struct SourceIndex {
    pub sentences: Vec<Sentence>,
    /// Each distinct token of the page and its id (ids count up in order of first use).
    vocabulary: FoldHashMap<Box<str>, TokenId>,
    /// Per token id: inverse document frequency over the sentences.
    idf: Vec<f64>,
    /// The weight of a token the page never uses.
    idf_absent: f64,
    /// Twice the mean sentence length in tokens: BM25's length norm for windows.
    avg_window_len: f64,
}

impl SourceIndex {
    /// Splits `text` into sentences (Unicode sentence boundaries; a line break ends one too).
    pub fn new(text: &str) -> SourceIndex {
        let mut sentences = Vec::new();
        let mut vocabulary: FoldHashMap<Box<str>, TokenId> = FoldHashMap::default();
        let mut doc_freq: Vec<u32> = Vec::new();
        let mut chars_before = 0;
        let mut last_byte = 0;
        for (byte_start, piece) in text.split_sentence_bound_indices() {
            chars_before += text[last_byte..byte_start].chars().count();
            last_byte = byte_start;
            let mut tokens = Vec::new();
            scan(piece, |_, token| {
                let next = TokenId::try_from(vocabulary.len()).unwrap_or(TokenId::MAX);
                let id = *vocabulary.entry(token.into_boxed_str()).or_insert(next);
                if id == next {
                    doc_freq.push(0);
                }
                tokens.push(id);
            });
            if tokens.is_empty() {
                continue;
            }
            let mut distinct = tokens.clone();
            distinct.sort_unstable();
            distinct.dedup();
            distinct.shrink_to_fit();
            tokens.shrink_to_fit();
            for &id in &distinct {
                doc_freq[id as usize] += 1;
            }
            let lead = piece.len() - piece.trim_start().len();
            let trimmed = piece.trim();
            let char_start = chars_before + piece[..lead].chars().count();
            sentences.push(Sentence {
                byte_start: byte_start + lead,
                byte_end: byte_start + lead + trimmed.len(),
                char_start,
                char_end: char_start + trimmed.chars().count(),
                tokens,
                distinct,
            });
        }
        let n = sentences.len() as f64;
        let idf_of = |df: f64| (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        let total_len: usize = sentences.iter().map(|s| s.tokens.len()).sum();
        let avg_window_len = if sentences.is_empty() {
            f64::NAN
        } else {
            total_len as f64 / n * 2.0
        };
        vocabulary.shrink_to_fit();
        SourceIndex {
            idf: doc_freq.iter().map(|&df| idf_of(f64::from(df))).collect(),
            idf_absent: idf_of(0.0),
            sentences,
            vocabulary,
            avg_window_len,
        }
    }

    /// The id of `token` on this page, if the page uses it.
    pub fn id(&self, token: &str) -> Option<TokenId> {
        self.vocabulary.get(token).copied()
    }

    /// Inverse document frequency of a token over the source's sentences (BM25 form, > 0).
    /// A token the source never uses gets the highest weight.
    pub fn idf(&self, token: &str) -> f64 {
        self.id(token).map_or(self.idf_absent, |id| self.idf_of(id))
    }

    /// [`SourceIndex::idf`] of a token of the page.
    pub fn idf_of(&self, id: TokenId) -> f64 {
        self.idf[id as usize]
    }

    /// Whether any sentence of the source holds `token`.
    pub fn contains(&self, token: &str) -> bool {
        self.vocabulary.contains_key(token)
    }

    /// Approximate bytes the index holds on the heap, for the page cache's budget.
    pub fn heap_bytes(&self) -> usize {
        let sentences = self.sentences.capacity() * std::mem::size_of::<Sentence>()
            + self
                .sentences
                .iter()
                .map(|s| (s.tokens.capacity() + s.distinct.capacity()) * 4)
                .sum::<usize>();
        // A hash table holds a control byte per slot; each boxed token is its own allocation.
        let slot = std::mem::size_of::<(Box<str>, TokenId)>() + 1;
        let vocabulary = self.vocabulary.capacity() * slot
            + self
                .vocabulary
                .keys()
                .map(|k| heap_allocation(k.len()))
                .sum::<usize>();
        sentences + vocabulary + self.idf.capacity() * 8
    }

    /// The best `max` passages for `query` among windows of 1 to [`MAX_WINDOW`] sentences,
    /// best first, without overlap.
    pub fn retrieve(&self, text: &str, query: &[String], max: usize) -> Vec<Passage> {
        let n = self.sentences.len();
        if n == 0 || max == 0 {
            return Vec::new();
        }
        // The distinct query tokens the page uses: the others match no window.
        let mut ids: Vec<TokenId> = query.iter().filter_map(|t| self.id(t)).collect();
        ids.sort_unstable();
        ids.dedup();
        let q = ids.len();
        // Per sentence, how often it uses each query token.
        let mut counts = vec![0u32; n * q];
        for (i, s) in self.sentences.iter().enumerate() {
            for t in &s.tokens {
                if let Ok(j) = ids.binary_search(t) {
                    counts[i * q + j] += 1;
                }
            }
        }
        let avg_len = self.avg_window_len;
        let mut tf = vec![0u32; q];
        let mut scored = Vec::new();
        for first in 0..n {
            tf.fill(0);
            let mut len = 0usize;
            for size in 1..=MAX_WINDOW.min(n - first) {
                let last = first + size;
                let added = last - 1;
                len += self.sentences[added].tokens.len();
                for (f, c) in tf.iter_mut().zip(&counts[added * q..(added + 1) * q]) {
                    *f += c;
                }
                let norm = BM25_K1 * (1.0 - BM25_B + BM25_B * len as f64 / avg_len.max(1.0));
                let score: f64 = ids
                    .iter()
                    .zip(&tf)
                    .filter(|(_, f)| **f > 0)
                    .map(|(&id, &f)| {
                        let f = f64::from(f);
                        self.idf_of(id) * f * (BM25_K1 + 1.0) / (f + norm)
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

/// Bytes the allocator hands out for a request of `len` bytes, roughly: at least 16, in steps of
/// 16, plus its 8-byte header. Zero for nothing allocated.
pub fn heap_allocation(len: usize) -> usize {
    if len == 0 {
        0
    } else {
        (len + 8).div_ceil(16).max(2) * 16
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
