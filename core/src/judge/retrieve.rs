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
pub(crate) const MAX_WINDOW: usize = 3;
const BM25_K1: f64 = 1.2;
const BM25_B: f64 = 0.75;

/// A token of the page, by its number in the page's vocabulary: tokens are compared as numbers
/// once the page is indexed, not as strings.
pub(crate) type TokenId = u32;

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
}

/// A run of consecutive sentences that matched the claim.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Passage {
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
    /// Each distinct token of the page and its id (ids count up in order of first use): first
    /// the tokens of the sentences, then the words the alignment adds
    /// ([`SourceIndex::intern`]), which no sentence holds as a token.
    vocabulary: Vocabulary,
    /// Per token id of the sentences: inverse document frequency over the sentences. Ids past
    /// its end are the alignment's words.
    idf: Vec<f64>,
    /// The weight of a token the page never uses.
    idf_absent: f64,
    /// Per token id of the sentences, the sentences that use it, ascending, once per use:
    /// `uses[use_starts[id]..use_starts[id + 1]]`. A claim's few tokens lead straight to the
    /// sentences that hold them, so ranking a claim reads those uses rather than every token of
    /// the page.
    uses: Vec<u32>,
    use_starts: Vec<u32>,
    /// Twice the mean sentence length in tokens: BM25's length norm for windows.
    avg_window_len: f64,
}

impl SourceIndex {
    /// Splits `text` into sentences (Unicode sentence boundaries; a line break ends one too).
    pub fn new(text: &str) -> SourceIndex {
        let mut sentences = Vec::new();
        let mut vocabulary = Vocabulary::default();
        let mut doc_freq: Vec<u32> = Vec::new();
        let mut chars_before = 0;
        let mut last_byte = 0;
        for (byte_start, piece) in text.split_sentence_bound_indices() {
            chars_before += text[last_byte..byte_start].chars().count();
            last_byte = byte_start;
            let mut tokens = Vec::new();
            scan(piece, |_, token| {
                let id = vocabulary.intern(&token);
                if id as usize == doc_freq.len() {
                    doc_freq.push(0);
                }
                tokens.push(id);
            });
            if tokens.is_empty() {
                continue;
            }
            tokens.shrink_to_fit();
            let mut distinct = tokens.clone();
            distinct.sort_unstable();
            distinct.dedup();
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
        let (uses, use_starts) = uses_of(&sentences, doc_freq.len());
        SourceIndex {
            idf: doc_freq.iter().map(|&df| idf_of(f64::from(df))).collect(),
            idf_absent: idf_of(0.0),
            uses,
            use_starts,
            sentences,
            vocabulary,
            avg_window_len,
        }
    }

    /// The id of `token` on this page, if a sentence of the page uses it.
    pub fn id(&self, token: &str) -> Option<TokenId> {
        self.vocabulary
            .get(token)
            .filter(|&id| (id as usize) < self.idf.len())
    }

    /// The id of `word` in the page's vocabulary: a token of its sentences or a word the
    /// alignment added ([`SourceIndex::intern`]).
    pub(crate) fn word_id(&self, word: &str) -> Option<TokenId> {
        self.vocabulary.get(word)
    }

    /// The word of vocabulary id `id`.
    pub fn word(&self, id: TokenId) -> &str {
        self.vocabulary.word(id)
    }

    /// How many words the vocabulary holds: ids from here on are no word of the page.
    pub(crate) fn vocabulary_len(&self) -> usize {
        self.vocabulary.len()
    }

    /// The id of `word`, added to the vocabulary if new: a word the alignment compares (a stem
    /// of a stop word, a word with an apostrophe) that no sentence holds as a token. It weighs
    /// as a token the page never uses and [`SourceIndex::contains`] does not hold it.
    pub fn intern(&mut self, word: &str) -> TokenId {
        self.vocabulary.intern(word)
    }

    /// Releases the vocabulary's spare capacity once the page is read.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.vocabulary.shrink_to_fit();
    }

    /// Inverse document frequency of a token over the source's sentences (BM25 form, > 0).
    /// A token the source never uses gets the highest weight.
    pub(crate) fn idf(&self, token: &str) -> f64 {
        self.id(token).map_or(self.idf_absent, |id| self.idf_of(id))
    }

    /// The weight of a token the page never uses: the highest.
    pub fn idf_absent(&self) -> f64 {
        self.idf_absent
    }

    /// [`SourceIndex::idf`] of a token of the page.
    pub(crate) fn idf_of(&self, id: TokenId) -> f64 {
        self.idf[id as usize]
    }

    /// [`SourceIndex::idf`] of a vocabulary id, or of any id past it (a word the page lacks).
    pub(crate) fn idf_of_word(&self, id: TokenId) -> f64 {
        self.idf
            .get(id as usize)
            .copied()
            .unwrap_or(self.idf_absent)
    }

    /// Whether any sentence of the source holds `token`.
    pub fn contains(&self, token: &str) -> bool {
        self.id(token).is_some()
    }

    /// Approximate bytes the index holds on the heap, for the page cache's budget.
    pub fn heap_bytes(&self) -> usize {
        let sentences = self.sentences.capacity() * std::mem::size_of::<Sentence>()
            + self
                .sentences
                .iter()
                .map(|s| s.tokens.capacity() * 4)
                .sum::<usize>();
        sentences
            + self.vocabulary.heap_bytes()
            + self.idf.capacity() * 8
            + (self.uses.capacity() + self.use_starts.capacity()) * 4
    }

    /// The sentences that use token `id`, ascending, a sentence once per use (empty for an id
    /// no sentence holds).
    pub(crate) fn uses(&self, id: TokenId) -> &[u32] {
        let id = id as usize;
        match (self.use_starts.get(id), self.use_starts.get(id + 1)) {
            (Some(&start), Some(&end)) => &self.uses[start as usize..end as usize],
            _ => &[],
        }
    }

    /// The best `max` passages for `query` among windows of 1 to [`MAX_WINDOW`] sentences,
    /// best first, without overlap.
    pub(crate) fn retrieve(&self, text: &str, query: &[String], max: usize) -> Vec<Passage> {
        let n = self.sentences.len();
        if n == 0 || max == 0 {
            return Vec::new();
        }
        // The distinct query tokens the page uses: the others match no window.
        let mut ids: Vec<TokenId> = query.iter().filter_map(|t| self.id(t)).collect();
        ids.sort_unstable();
        ids.dedup();
        let q = ids.len();
        // Each use of a query token, as (sentence, the token's place in `ids`), by sentence:
        // read from the tokens' uses, so only sentences that use the query are visited. Sorted
        // stably, so that within a sentence the places ascend.
        let mut hits: Vec<(u32, u32)> = Vec::new();
        for (j, &id) in ids.iter().enumerate() {
            let j = u32::try_from(j).unwrap_or(u32::MAX);
            hits.extend(self.uses(id).iter().map(|&i| (i, j)));
        }
        hits.sort_by_key(|&(i, _)| i);
        // Where each sentence's hits start in `hits`, and one past the last sentence's.
        let mut starts = vec![0usize; n + 1];
        for &(i, _) in &hits {
            starts[i as usize + 1] += 1;
        }
        for i in 0..n {
            starts[i + 1] += starts[i];
        }
        let weights: Vec<f64> = ids.iter().map(|&id| self.idf_of(id)).collect();
        let avg_len = self.avg_window_len;
        // The window's count of each query token, and the places counted, ascending.
        let mut tf = vec![0u32; q];
        let mut counted: Vec<usize> = Vec::with_capacity(q);
        let mut scored = Vec::new();
        for first in 0..n {
            // Every window from `first` holds sentence `first` and at most the next
            // MAX_WINDOW - 1: with none of them using a query token, none is a passage.
            if starts[first] == starts[(first + MAX_WINDOW).min(n)] {
                continue;
            }
            for &j in &counted {
                tf[j] = 0;
            }
            counted.clear();
            let mut len = 0usize;
            for size in 1..=MAX_WINDOW.min(n - first) {
                let last = first + size;
                let added = last - 1;
                len += self.sentences[added].tokens.len();
                let added_hits = &hits[starts[added]..starts[added + 1]];
                // A window whose last sentence uses no query token scores less than the same
                // window without it (the same counts over more words), which it holds and is
                // scored before it: it is never taken, so it is not scored. That covers a
                // window without a query token, which is no passage.
                if added_hits.is_empty() {
                    continue;
                }
                let before = counted.len();
                for &(_, j) in added_hits {
                    let j = j as usize;
                    if tf[j] == 0 {
                        counted.push(j);
                    }
                    tf[j] += 1;
                }
                if counted.len() != before {
                    counted.sort_unstable();
                }
                let norm = BM25_K1 * (1.0 - BM25_B + BM25_B * len as f64 / avg_len.max(1.0));
                // Summed in the query's order, token by token.
                let score: f64 = counted
                    .iter()
                    .map(|&j| {
                        let f = f64::from(tf[j]);
                        weights[j] * f * (BM25_K1 + 1.0) / (f + norm)
                    })
                    .sum();
                if score > 0.0 {
                    scored.push((score, first, last));
                }
            }
        }
        self.best_passages(text, &scored, max)
    }

    /// Up to `max` of the `scored` windows (score, first sentence, end), best first (by score,
    /// then the earlier window, then the order scored), each not overlapping those taken before
    /// it: as many passes as passages wanted, not a sort of every window.
    fn best_passages(
        &self,
        text: &str,
        scored: &[(f64, usize, usize)],
        max: usize,
    ) -> Vec<Passage> {
        let mut taken: Vec<Passage> = Vec::new();
        while taken.len() < max {
            let best = scored
                .iter()
                .filter(|&&(_, first, last)| {
                    !taken.iter().any(|p| first < p.last && p.first < last)
                })
                .min_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let Some(&(score, first, last)) = best else {
                break;
            };
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

/// The uses of each of the `ids` token ids by `sentences`, as [`SourceIndex::uses`] reads them:
/// the sentence numbers, grouped by token id, and where each id's group starts (one more start
/// than ids, for the last group's end).
fn uses_of(sentences: &[Sentence], ids: usize) -> (Vec<u32>, Vec<u32>) {
    let mut use_starts = vec![0u32; ids + 1];
    for s in sentences {
        for &t in &s.tokens {
            use_starts[t as usize + 1] += 1;
        }
    }
    for id in 0..ids {
        use_starts[id + 1] += use_starts[id];
    }
    let mut next: Vec<u32> = use_starts[..ids].to_vec();
    let mut uses = vec![0u32; use_starts[ids] as usize];
    for (i, s) in sentences.iter().enumerate() {
        let i = u32::try_from(i).unwrap_or(u32::MAX);
        for &t in &s.tokens {
            let slot = &mut next[t as usize];
            uses[*slot as usize] = i;
            *slot += 1;
        }
    }
    (uses, use_starts)
}

/// Distinct words by id, in order of first use: their text end to end in one string, and a
/// hash table of ids. A page's vocabulary has a thousand words or so, mostly short: one
/// allocation for all of them and four bytes a slot, where a map of boxed strings would spend
/// an allocation per word and a pointer and length per slot.
#[derive(Clone, Default)]
pub struct Vocabulary {
    /// Every word, end to end.
    text: String,
    /// Per id, where its word ends in `text` (it starts where the previous one ends).
    ends: Vec<u32>,
    /// The ids, hashed by their word.
    table: hashbrown::HashTable<TokenId>,
    hasher: foldhash::fast::RandomState,
}

impl std::fmt::Debug for Vocabulary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries((0..self.ends.len()).map(|id| self.word(id as TokenId)))
            .finish()
    }
}

impl Vocabulary {
    fn hash(&self, word: &str) -> u64 {
        use std::hash::BuildHasher;
        self.hasher.hash_one(word)
    }

    /// The id of `word`, if the vocabulary holds it.
    pub fn get(&self, word: &str) -> Option<TokenId> {
        self.table
            .find(self.hash(word), |&id| self.word(id) == word)
            .copied()
    }

    /// The id of `word`, added if new.
    pub fn intern(&mut self, word: &str) -> TokenId {
        if let Some(id) = self.get(word) {
            return id;
        }
        let id = TokenId::try_from(self.ends.len()).unwrap_or(TokenId::MAX);
        self.text.push_str(word);
        self.ends
            .push(u32::try_from(self.text.len()).unwrap_or(u32::MAX));
        let hash = self.hash(word);
        let Vocabulary {
            text,
            ends,
            table,
            hasher,
        } = self;
        table.insert_unique(hash, id, |&other| {
            use std::hash::BuildHasher;
            hasher.hash_one(word_of(text, ends, other))
        });
        id
    }

    /// The word of `id` (empty for an id the vocabulary does not hold).
    pub fn word(&self, id: TokenId) -> &str {
        word_of(&self.text, &self.ends, id)
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
        let Vocabulary {
            text,
            ends,
            table,
            hasher,
        } = self;
        table.shrink_to_fit(|&id| {
            use std::hash::BuildHasher;
            hasher.hash_one(word_of(text, ends, id))
        });
    }

    /// Approximate bytes on the heap: the words, their ends, and the table's slots (an id and
    /// a control byte each).
    pub fn heap_bytes(&self) -> usize {
        heap_allocation(self.text.capacity())
            + heap_allocation(self.ends.capacity() * 4)
            + heap_allocation(self.table.capacity() * (std::mem::size_of::<TokenId>() + 1))
    }
}

fn word_of<'t>(text: &'t str, ends: &[u32], id: TokenId) -> &'t str {
    let id = id as usize;
    let (Some(&end), start) = (ends.get(id), id.checked_sub(1).map_or(0, |p| ends[p])) else {
        return "";
    };
    text.get(start as usize..end as usize).unwrap_or("")
}

/// Bytes the allocator hands out for a request of `len` bytes, roughly: at least 16, in steps of
/// 16, plus its 8-byte header. Zero for nothing allocated.
pub(crate) fn heap_allocation(len: usize) -> usize {
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

    /// [`SourceIndex::retrieve`] as a scan of every token of every window: each window of 1 to
    /// [`MAX_WINDOW`] sentences scored, then the best taken one pass at a time.
    fn retrieve_by_scanning(
        index: &SourceIndex,
        text: &str,
        query: &[String],
        max: usize,
    ) -> Vec<Passage> {
        let mut ids: Vec<TokenId> = query.iter().filter_map(|t| index.id(t)).collect();
        ids.sort_unstable();
        ids.dedup();
        let n = index.sentences.len();
        let mut scored = Vec::new();
        for first in 0..n {
            for last in first + 1..=(first + MAX_WINDOW).min(n) {
                let window = &index.sentences[first..last];
                let len: usize = window.iter().map(|s| s.tokens.len()).sum();
                let tf: Vec<u32> = ids
                    .iter()
                    .map(|id| {
                        let uses = window.iter().flat_map(|s| &s.tokens);
                        u32::try_from(uses.filter(|&t| t == id).count()).unwrap_or(u32::MAX)
                    })
                    .collect();
                if tf.iter().all(|&f| f == 0) {
                    continue;
                }
                let norm =
                    BM25_K1 * (1.0 - BM25_B + BM25_B * len as f64 / index.avg_window_len.max(1.0));
                let score: f64 = ids
                    .iter()
                    .zip(&tf)
                    .filter(|(_, f)| **f > 0)
                    .map(|(&id, &f)| {
                        let f = f64::from(f);
                        index.idf_of(id) * f * (BM25_K1 + 1.0) / (f + norm)
                    })
                    .sum();
                if score > 0.0 {
                    scored.push((score, first, last));
                }
            }
        }
        // The selection among scored windows is the index's own: this compares the scoring.
        index.best_passages(text, &scored, max)
    }

    #[test]
    fn retrieval_from_the_uses_of_the_query_ranks_as_a_scan_of_every_window() {
        let article = include_str!("../../../tests/fixtures/articles/bench-1500-words.md");
        let index = SourceIndex::new(article);
        let words: Vec<&str> = article.split_whitespace().collect();
        // Queries: each sentence of the article, and runs of its words from a fixed
        // pseudo-random walk (some words the page never uses, some used everywhere).
        let mut queries: Vec<Vec<String>> = index
            .sentences
            .iter()
            .map(|s| tokenize(&article[s.byte_start..s.byte_end]))
            .collect();
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for _ in 0..200 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let start = (state >> 33) as usize % words.len();
            let len = 1 + (state >> 20) as usize % 12;
            let mut text = words[start..(start + len).min(words.len())].join(" ");
            text.push_str(" zebra 1999");
            queries.push(tokenize(&text));
        }
        for query in &queries {
            for max in [1, 3, 5] {
                assert_eq!(
                    index.retrieve(article, query, max),
                    retrieve_by_scanning(&index, article, query, max),
                    "query {query:?}, {max} passages"
                );
            }
        }
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
