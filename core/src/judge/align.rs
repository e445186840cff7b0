//! Aligning a claim with what its source says, element by element.
//!
//! Lexical support says how much of a claim a source shares; it cannot see that "ridership fell
//! 4%" and "ridership rose 4%" differ in one word that reverses them. Alignment finds the clause
//! of the source that states what the claim states (the one sharing most of the claim's
//! IDF-weighted words) and compares the two on the elements where a claim can go wrong while
//! sharing its source's words:
//!
//! - **direction**: a word on an axis of [`lexicon::directions`] ("rose", "approved", "won")
//!   against the source clause's word on the same axis, each flipped by a negation before it
//!   ("did not approve" points the other way). Opposite polarities contradict, unless an
//!   equally aligned clause agrees (a page may say both, of different things);
//! - **negation**: a predicate the claim negates and the source states plainly, or the reverse;
//! - **subject**: a figure the source gives for something else. The claim's value is in a
//!   source clause that lacks a word of the claim, that word is in another clause with another
//!   value, and the value's clause has a word of its own the claim lacks: "exports rose 6%"
//!   against "exports fell 3% and imports rose 6%". A year is such a word too: "$7m in 2019"
//!   against "$5m in 2019 and $7m in 2020";
//! - **unit** and **currency**: the claim's value in the source with another unit (percent vs
//!   percentage points), currency or period, and nowhere with the claim's;
//! - **date**: a year or a day of a month the source never states, where the aligned passage
//!   gives another;
//! - **speaker** and **title**: who the source says said the statement, and the office it gives
//!   them ("deputy minister", not "minister");
//! - **specifics the claim adds**: a superlative or record, a multiplier, a universal quantifier,
//!   a place the source does not state.
//!
//! Each finding says what the claim says, what the source says instead, and which sentence of
//! the source says it. A finding is a *contradiction* (the source says otherwise: high) or an
//! *unsupported specific* (the source does not say it: medium). Every rule needs the claim to be
//! aligned first: the compared clauses must share a good part of the claim's weighted words
//! ([`MIN_ALIGNMENT`]), so that two passages about different things are never compared.

use crate::text::tokens::FoldHashSet as HashSet;
use std::ops::Range;
use std::sync::Arc;

use super::figures::{comparable, errors_against, relative_error};
use super::page::PageIndex;
use super::retrieve::{self, SourceIndex, TokenId};
use super::substitute;
use crate::model::{ClaimElement, Figure, Unit};
use crate::text::cues;
use crate::text::figures::{number_word, parse_figures};
use crate::text::lexicon::{self, Axis, Quantity, Role};

/// The share of a claim clause's weighted words a source clause must hold to be compared with
/// it: below it, the clauses are not about the same thing and nothing is concluded.
pub const MIN_ALIGNMENT: f64 = 0.4;
/// Clauses aligned within this share of the best one are as good a match: when one of them
/// agrees with the claim, the disagreement of another is not a contradiction.
const NEAR_BEST: f64 = 0.8;
/// The share of a claim's weighted words (the specific under test left out) one source sentence
/// must hold for a specific the source lacks to be what the claim adds to it.
const STATED: f64 = 0.7;
/// The fewest content words a claim must share, in order, with a source sentence for a slot
/// between them to be what the claim changed in it.
const MIN_FOLLOWED_WORDS: usize = 3;
/// The share of a claim's weighted words a sentence must hold to state part of it.
const PART: f64 = 0.2;
/// The share of a claim's weighted words (the element under test left out) the best passage
/// must hold for the element's absence there to count: the passage states the claim but that.
const HELD: f64 = 0.5;
/// How many words before a word a negation may stand and still negate it ("did not fully
/// approve").
const NEGATION_REACH: usize = 4;
/// How far a multiplier may be from the ratio of two source figures and still be what they show
/// ("nearly tripled" from 40 to 110).
const MULTIPLIER_TOLERANCE: f64 = 0.25;

/// One thing the source says otherwise, or does not say.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub element: ClaimElement,
    /// The source says otherwise (high); else the source does not state it (medium).
    pub contradiction: bool,
    /// What is wrong, for the editor: "The claim says “fell” where the source says “rose”".
    pub problem: String,
    /// What the source says instead, in its words: "the source says: “ridership rose 4%”".
    pub correction: Option<String>,
    /// The source sentence the finding rests on, as an index into [`Alignment::sentences`].
    pub sentence: Option<usize>,
}

/// A word, number or mark of a text. Compact, as a page keeps one per word: its lower-case form
/// is its own text unless lower-casing changed it (then it is kept in the text's
/// [`Text::lowered`]), its stem a word of the page's vocabulary by id, and its kind and marks a
/// byte each (a mark's character is the text's).
#[derive(Debug, Clone, Copy)]
pub struct Tok {
    /// Byte range in the text.
    pub start: u32,
    pub end: u32,
    /// The stem the judge compares words by ([`retrieve::stem`]; numbers whole), as an id of
    /// the page's vocabulary, or past it for a word of the claim the page lacks.
    pub stem: TokenId,
    /// When lower-casing changed the token, which of [`Text::lowered`]'s forms is its own.
    lowered: u32,
    kind: Kind,
    flags: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Word,
    Number,
    Mark,
}

/// [`Tok::flags`]: starts with a capital letter.
const CAPITAL: u8 = 1;
/// [`Tok::flags`]: the lower-case form is in [`Text::lowered`], not the text.
const LOWERED: u8 = 2;
/// [`Tok::flags`]: a word or number that carries content: not a stop word, not a mark.
const CONTENT: u8 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokKind {
    Word,
    Number,
    Mark(char),
}

impl Tok {
    fn is_word(&self) -> bool {
        self.kind == Kind::Word
    }

    fn is_number(&self) -> bool {
        self.kind == Kind::Number
    }

    fn is_mark(&self) -> bool {
        self.kind == Kind::Mark
    }

    /// Starts with a capital letter.
    pub fn capital(&self) -> bool {
        self.flags & CAPITAL != 0
    }

    /// A word or number that carries content: not a stop word, not a mark.
    fn is_content(&self) -> bool {
        self.flags & CONTENT != 0
    }

    fn range(&self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// Words (letters, with apostrophes inside), numbers (digits, with `.` or `,` inside) and marks,
/// each with its stem's id as `stem_id` gives it; returns the tokens and the lower-case forms
/// that are not the text's own letters.
fn tokenize(text: &str, stem_id: &mut dyn FnMut(&str) -> TokenId) -> (Vec<Tok>, Lowered) {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut lowered = Lowered::default();
    let offset = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let between = |j: usize, f: fn(char) -> bool| {
            j > 0 && j + 1 < chars.len() && f(chars[j - 1].1) && f(chars[j + 1].1)
        };
        let (kind, mut j) = if c.is_alphabetic() {
            let mut j = i + 1;
            while j < chars.len() {
                let d = chars[j].1;
                if d.is_alphabetic()
                    || (matches!(d, '\'' | '\u{2019}') && between(j, char::is_alphanumeric))
                {
                    j += 1;
                } else {
                    break;
                }
            }
            (TokKind::Word, j)
        } else if c.is_ascii_digit() {
            let mut j = i + 1;
            while j < chars.len() {
                let d = chars[j].1;
                if d.is_ascii_digit()
                    || (matches!(d, '.' | ',') && between(j, |x: char| x.is_ascii_digit()))
                {
                    j += 1;
                } else {
                    break;
                }
            }
            (TokKind::Number, j)
        } else {
            (TokKind::Mark(c), i + 1)
        };
        j = j.min(chars.len());
        let end = chars.get(j).map_or(text.len(), |(b, _)| *b);
        let raw = &text[start..end];
        // Most tokens are lower-case ASCII already: no copy for them.
        let lower: std::borrow::Cow<'_, str> = match kind {
            TokKind::Number if raw.contains(',') => raw.replace(',', "").into(),
            TokKind::Number => raw.into(),
            _ if raw.is_ascii() && !raw.bytes().any(|b| b.is_ascii_uppercase()) => raw.into(),
            _ => raw.to_lowercase().replace('\u{2019}', "'").into(),
        };
        let stem = match kind {
            TokKind::Word => stem_id(&retrieve::stem(&lower)),
            _ => stem_id(&lower),
        };
        let content = match kind {
            TokKind::Number => true,
            TokKind::Word => lower.chars().count() > 1 && !retrieve::is_stop_word(&lower),
            TokKind::Mark(_) => false,
        };
        let mut flags = 0;
        if c.is_uppercase() {
            flags |= CAPITAL;
        }
        if content {
            flags |= CONTENT;
        }
        let mut at = 0;
        if lower != raw {
            flags |= LOWERED;
            at = lowered.push(&lower);
        }
        out.push(Tok {
            start: offset(start),
            end: offset(end),
            stem,
            lowered: at,
            kind: match kind {
                TokKind::Word => Kind::Word,
                TokKind::Number => Kind::Number,
                TokKind::Mark(_) => Kind::Mark,
            },
            flags,
        });
        i = j;
    }
    (out, lowered)
}

/// The lower-case forms of a text's tokens that lower-casing changed, end to end, and where
/// each ends.
#[derive(Debug, Clone, Default)]
struct Lowered {
    text: String,
    ends: Vec<u32>,
}

impl Lowered {
    /// Adds a form; returns its number.
    fn push(&mut self, lower: &str) -> u32 {
        self.text.push_str(lower);
        self.ends
            .push(u32::try_from(self.text.len()).unwrap_or(u32::MAX));
        u32::try_from(self.ends.len() - 1).unwrap_or(u32::MAX)
    }

    fn get(&self, n: u32) -> &str {
        let n = n as usize;
        let start = n.checked_sub(1).map_or(0, |p| self.ends[p] as usize);
        let end = self.ends.get(n).map_or(start, |&e| e as usize);
        self.text.get(start..end).unwrap_or("")
    }

    fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }

    fn heap_bytes(&self) -> usize {
        retrieve::heap_allocation(self.text.capacity())
            + retrieve::heap_allocation(self.ends.capacity() * 4)
    }
}

/// A sentence (of the claim or the source) read for alignment.
#[derive(Debug, Clone)]
pub struct Text {
    /// The text this one is part of, shared (a page's sentences share the page's text), and
    /// this one's byte range in it.
    source: Arc<str>,
    range: Range<u32>,
    pub toks: Box<[Tok]>,
    /// The lower-case forms of the tokens that lower-casing changed.
    lowered: Lowered,
    /// Clauses as ranges of `toks`, in order, covering every token.
    pub clauses: Box<[Range<usize>]>,
    /// Figures with the index of their first token.
    pub figures: Box<[(Figure, usize)]>,
    /// The tokens that carry a direction in context, ascending, and the direction each carries
    /// (with negation applied), in `directions`: most tokens carry none.
    direction_at: Box<[u32]>,
    directions: Box<[(Axis, bool)]>,
    /// The distinct stems of its content words, ascending.
    content_stems: Box<[TokenId]>,
    /// Its predicates (content words that carry no direction) that a negation reaches,
    /// ascending: what the negation rule compares, read once for a page's sentence.
    negated_predicates: Box<[u32]>,
    /// Where the statement a [`denial_frame`] denies starts ("it is untrue that | the council
    /// …"), when the text opens with one.
    denied_from: Option<u32>,
}

/// Words that end a clause before them when what follows states something of its own.
const CLAUSE_WORDS: &[&str] = &["and", "but", "while", "whereas", "although", "though"];

impl Text {
    /// Reads a text of its own (a claim's), its stems numbered by `stem_id`.
    pub fn new(text: &str, stem_id: &mut dyn FnMut(&str) -> TokenId) -> Text {
        Text::with_figures(text, parse_figures(text), stem_id)
    }

    /// A text whose figures were already read (a claim's, by extraction).
    pub fn with_figures(
        text: &str,
        figures: Vec<Figure>,
        stem_id: &mut dyn FnMut(&str) -> TokenId,
    ) -> Text {
        let source: Arc<str> = Arc::from(text);
        let range = 0..source.len();
        Text::read(source, range, figures, stem_id)
    }

    /// Reads the part `range` of `source` (a sentence of a page) without a copy of its text.
    pub fn part(
        source: &Arc<str>,
        range: Range<usize>,
        stem_id: &mut dyn FnMut(&str) -> TokenId,
    ) -> Text {
        let figures = parse_figures(source.get(range.clone()).unwrap_or(""));
        Text::read(Arc::clone(source), range, figures, stem_id)
    }

    /// Tokens only, no stems: for reading names and dates.
    fn plain(text: &str) -> Text {
        let source: Arc<str> = Arc::from(text);
        let (toks, lowered) = tokenize(text, &mut |_| 0);
        Text {
            range: 0..u32::try_from(source.len()).unwrap_or(u32::MAX),
            source,
            toks: toks.into_boxed_slice(),
            lowered,
            clauses: Box::default(),
            figures: Box::default(),
            direction_at: Box::default(),
            directions: Box::default(),
            content_stems: Box::default(),
            negated_predicates: Box::default(),
            denied_from: None,
        }
    }

    fn read(
        source: Arc<str>,
        range: Range<usize>,
        figures: Vec<Figure>,
        stem_id: &mut dyn FnMut(&str) -> TokenId,
    ) -> Text {
        let text = source.get(range.clone()).unwrap_or("");
        let (toks, mut lowered) = tokenize(text, stem_id);
        lowered.shrink_to_fit();
        let mut located = Vec::new();
        let mut cursor = 0;
        for f in figures {
            let Some(at) = text.get(cursor..).and_then(|rest| rest.find(&f.text)) else {
                continue;
            };
            let start = cursor + at;
            cursor = start + f.text.len();
            if let Some(t) = toks.iter().position(|t| t.end as usize > start) {
                located.push((f, t));
            }
        }
        let to_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let mut t = Text {
            range: to_u32(range.start)..to_u32(range.end),
            source,
            toks: toks.into_boxed_slice(),
            lowered,
            clauses: Box::default(),
            figures: located.into_boxed_slice(),
            direction_at: Box::default(),
            directions: Box::default(),
            content_stems: Box::default(),
            negated_predicates: Box::default(),
            denied_from: None,
        };
        // The words of a denial frame ("it is untrue that") say the statement after them is
        // false; they are no content of the statement to compare.
        let frame = denial_frame(&t);
        if let Some(frame) = frame.clone() {
            for tok in &mut t.toks[frame.clone()] {
                tok.flags &= !CONTENT;
            }
            t.denied_from = Some(to_u32(frame.end));
        }
        let mut content_stems: Vec<TokenId> = t
            .toks
            .iter()
            .filter(|t| t.is_content())
            .map(|t| t.stem)
            .collect();
        content_stems.sort_unstable();
        content_stems.dedup();
        t.content_stems = content_stems.into_boxed_slice();
        let figure_at: HashSet<usize> = t.figures.iter().map(|(_, i)| *i).collect();
        let (mut at, mut directions) = (Vec::new(), Vec::new());
        for i in 0..t.toks.len() {
            for d in direction_at(&t, i, &figure_at) {
                at.push(to_u32(i));
                directions.push(*d);
            }
        }
        t.direction_at = at.into_boxed_slice();
        t.directions = directions.into_boxed_slice();
        t.clauses = clauses(&t, &figure_at).into_boxed_slice();
        // Negation flips a direction word's polarity.
        for n in 0..t.direction_at.len() {
            let i = t.direction_at[n] as usize;
            if t.negated(i) {
                t.directions[n].1 = !t.directions[n].1;
            }
        }
        // A denied statement's first direction word is flipped as a negation flips it: "it is
        // untrue that prices rose" says as much as "prices did not rise".
        if let Some(from) = t.denied_from
            && let Some(n) = t.direction_at.iter().position(|&i| i >= from)
        {
            t.directions[n].1 = !t.directions[n].1;
        }
        t.negated_predicates = t
            .predicates()
            .filter(|&(_, negated)| negated)
            .map(|(i, _)| to_u32(i))
            .collect();
        t
    }

    /// Its predicates, content words that carry no direction (those are the direction rule's),
    /// and whether a negation reaches each.
    fn predicates(&self) -> impl Iterator<Item = (usize, bool)> + '_ {
        (0..self.toks.len())
            .filter(|&i| self.toks[i].is_word() && self.toks[i].is_content())
            .filter(|&i| !self.has_direction(i))
            .map(|i| (i, self.negated(i)))
    }

    /// The text as written.
    pub fn text(&self) -> &str {
        self.source
            .get(self.range.start as usize..self.range.end as usize)
            .unwrap_or("")
    }

    /// Token `i` lower-cased, as written; a number without thousands separators.
    pub fn lower(&self, i: usize) -> &str {
        self.toks.get(i).map_or("", |t| self.lower_of(t))
    }

    fn lower_of(&self, t: &Tok) -> &str {
        if t.flags & LOWERED != 0 {
            self.lowered.get(t.lowered)
        } else {
            self.text().get(t.range()).unwrap_or("")
        }
    }

    /// The kind of token `i`.
    pub fn kind(&self, i: usize) -> Option<TokKind> {
        self.toks.get(i).map(|t| self.kind_of(t))
    }

    pub(crate) fn kind_of(&self, t: &Tok) -> TokKind {
        match t.kind {
            Kind::Word => TokKind::Word,
            Kind::Number => TokKind::Number,
            Kind::Mark => TokKind::Mark(
                self.text()
                    .get(t.start as usize..)
                    .and_then(|rest| rest.chars().next())
                    .unwrap_or(' '),
            ),
        }
    }

    /// The stem of a token as a word: [`retrieve::stem`] of a word's lower-case form, the
    /// lower-case form of a number or mark.
    fn stem_of(&self, t: &Tok) -> std::borrow::Cow<'_, str> {
        match self.kind_of(t) {
            TokKind::Word => retrieve::stem(self.lower_of(t)).into(),
            _ => self.lower_of(t).into(),
        }
    }

    /// The lower-case forms of the tokens, in order.
    pub(crate) fn lowers(&self) -> impl Iterator<Item = &str> + '_ {
        self.toks.iter().map(|t| self.lower_of(t))
    }

    /// The directions token `i` carries in context, with negation applied.
    pub fn directions(&self, i: usize) -> &[(Axis, bool)] {
        let Ok(i) = u32::try_from(i) else { return &[] };
        let from = self.direction_at.partition_point(|&j| j < i);
        let to = from + self.direction_at[from..].partition_point(|&j| j == i);
        &self.directions[from..to]
    }

    /// Whether token `i` carries a direction.
    fn has_direction(&self, i: usize) -> bool {
        u32::try_from(i).is_ok_and(|i| self.direction_at.binary_search(&i).is_ok())
    }

    /// The tokens that carry a direction, with each direction: (token, axis, polarity).
    fn all_directions(&self) -> impl Iterator<Item = (usize, Axis, bool)> + '_ {
        self.direction_at
            .iter()
            .zip(&self.directions)
            .map(|(&i, &(a, p))| (i as usize, a, p))
    }

    fn clause_of(&self, i: usize) -> Range<usize> {
        self.clauses
            .iter()
            .find(|c| c.contains(&i))
            .cloned()
            .unwrap_or(0..self.toks.len())
    }

    /// Whether token `i` is in a statement the text denies as a whole ([`denial_frame`]).
    fn denied(&self, i: usize) -> bool {
        self.denied_from.is_some_and(|from| i >= from as usize)
    }

    /// Whether a negation stands within reach before token `i`, in its clause.
    fn negated(&self, i: usize) -> bool {
        let clause = self.clause_of(i);
        // A negation in a denial frame ("it isn't true that") negates its word of truth; the
        // statement after it is denied as a whole (see [`Text::denied`]).
        let statement = self.denied_from.filter(|&from| i >= from as usize);
        let from = i
            .saturating_sub(NEGATION_REACH)
            .max(clause.start)
            .max(statement.map_or(0, |from| from as usize));
        (from..i).any(|j| {
            let w = self.lower(j);
            let next = (j + 1 < self.toks.len()).then(|| self.lower(j + 1));
            let negates = lexicon::is_negation(w)
                && !matches!(
                    next,
                    Some("only" | "just" | "least" | "less" | "until" | "fewer" | "more")
                );
            // "failed to win", "has yet to approve".
            let negating_verb = lexicon::NEGATING_VERBS.contains(&w) && next == Some("to");
            negates || negating_verb
        })
    }

    /// The text of tokens `range`, as written.
    fn span(&self, range: Range<usize>) -> &str {
        match (
            self.toks.get(range.start),
            range.end.checked_sub(1).and_then(|e| self.toks.get(e)),
        ) {
            (Some(a), Some(b)) if a.start <= b.end => {
                &self.text()[a.start as usize..b.end as usize]
            }
            _ => "",
        }
    }

    /// Content stems of a range, without the words in `skip`.
    fn stems(&self, range: Range<usize>, skip: &dyn Fn(usize) -> bool) -> Stems {
        Stems::of(
            range
                .filter(|&i| self.toks[i].is_content() && !skip(i))
                .map(|i| self.toks[i].stem)
                .collect(),
        )
    }

    /// Whether token range `range` holds a content word of stem `stem`.
    fn holds(&self, range: Range<usize>, stem: TokenId) -> bool {
        if range.start == 0 && range.end >= self.toks.len() {
            return self.content_stems.binary_search(&stem).is_ok();
        }
        self.toks[range]
            .iter()
            .any(|t| t.stem == stem && t.is_content())
    }

    /// Token indices covered by figures other than years.
    fn figure_tokens_except_years(&self) -> HashSet<usize> {
        self.figure_tokens_where(|f| f.unit != Unit::Year)
    }

    fn figure_tokens_where(&self, keep: impl Fn(&Figure) -> bool) -> HashSet<usize> {
        let mut out = HashSet::default();
        for (f, first) in self.figures.iter().filter(|(f, _)| keep(f)) {
            let end = self.toks[*first].start as usize + f.text.len();
            let mut i = *first;
            while i < self.toks.len() && (self.toks[i].start as usize) < end {
                out.insert(i);
                i += 1;
            }
        }
        out
    }
}

/// Distinct stems, ascending: a claim's words (a few dozen), compared with a clause's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Stems(Vec<TokenId>);

impl Stems {
    fn of(mut ids: Vec<TokenId>) -> Stems {
        ids.sort_unstable();
        ids.dedup();
        Stems(ids)
    }

    fn contains(&self, id: TokenId) -> bool {
        self.0.binary_search(&id).is_ok()
    }

    fn iter(&self) -> impl Iterator<Item = TokenId> + '_ {
        self.0.iter().copied()
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn len(&self) -> usize {
        self.0.len()
    }
}

impl Text {
    /// Approximate bytes the text holds on the heap, for the page cache's budget: its tokens,
    /// clauses, figures and directions, not the text it is part of (shared).
    pub fn heap_bytes(&self) -> usize {
        use retrieve::heap_allocation;
        let figures = heap_allocation(self.figures.len() * std::mem::size_of::<(Figure, usize)>())
            + self
                .figures
                .iter()
                .map(|(f, _)| {
                    heap_allocation(f.text.capacity())
                        + f.currency
                            .as_ref()
                            .map_or(0, |c| heap_allocation(c.capacity()))
                        + f.per.as_ref().map_or(0, |p| heap_allocation(p.capacity()))
                })
                .sum::<usize>();
        heap_allocation(self.toks.len() * std::mem::size_of::<Tok>())
            + self.lowered.heap_bytes()
            + figures
            + heap_allocation(self.clauses.len() * std::mem::size_of::<Range<usize>>())
            + heap_allocation(self.direction_at.len() * 4)
            + heap_allocation(self.directions.len() * std::mem::size_of::<(Axis, bool)>())
            + heap_allocation(self.content_stems.len() * 4)
            + heap_allocation(self.negated_predicates.len() * 4)
    }
}

/// Days of a month a whole page writes ("14 March", "March 14th"): (day, month, as written).
pub fn page_days(text: &str) -> Vec<(u8, u8, String)> {
    day_months(&Text::plain(text))
}

/// The direction of token `i` in context, before negation.
fn direction_at(t: &Text, i: usize, figure_at: &HashSet<usize>) -> &'static [(Axis, bool)] {
    let toks = &t.toks;
    let tok = &toks[i];
    if !tok.is_word() {
        return &[];
    }
    let next = toks
        .get(i + 1)
        .filter(|n| n.is_word())
        .map(|_| t.lower(i + 1));
    let next_is_figure =
        figure_at.contains(&(i + 1)) || toks.get(i + 1).is_some_and(Tok::is_number);
    let prev = i.checked_sub(1).map(|p| t.lower(p));
    let lower = t.lower(i);
    // "most" and "least" rank only as "the most", "the least"; otherwise they quantify.
    if matches!(lower, "most" | "least") && prev != Some("the") {
        return &[];
    }
    // "A record high", "an all-time low": the noun of an extreme, as "the highest" is. Alone,
    // "high" and "low" name no direction ("high court", "low-income").
    if matches!(lower, "high" | "highs" | "low" | "lows") && extreme_noun(t, i) {
        return if lower.starts_with("high") {
            &[(Axis::Extreme, true)]
        } else {
            &[(Axis::Extreme, false)]
        };
    }
    lexicon::directions(lower, next, next_is_figure)
}
/// Whether the "high" or "low" at `i` names an extreme by the span it is measured over: "a
/// record high", "a record-high", "an all-time low", "an all time low", "a 20-year high", "a
/// five-year low". Hyphens between the words are left out.
fn extreme_noun(t: &Text, i: usize) -> bool {
    let mut before = (0..i)
        .rev()
        .filter(|&j| t.kind(j) != Some(TokKind::Mark('-')))
        .take(2);
    let (Some(w1), w2) = (before.next(), before.next()) else {
        return false;
    };
    match (t.lower(w1), w2.map(|j| t.lower(j))) {
        ("record", _) | ("time", Some("all")) => true,
        ("year" | "month" | "decade" | "week", Some(count)) => {
            w2.is_some_and(|j| t.toks[j].is_number()) || number_word(count).is_some()
        }
        _ => false,
    }
}

/// Splits a sentence into clauses: at semicolons, colons, dashes, brackets, commas and the
/// conjunctions of [`CLAUSE_WORDS`], then joins every piece that states nothing of its own (no
/// figure, no direction word: "the agency said", "subject to conditions") to its neighbour, so
/// "sales of cars and trucks rose 5%" stays one clause while "exports fell 3% and imports rose
/// 6%" becomes two.
fn clauses(text: &Text, figure_at: &HashSet<usize>) -> Vec<Range<usize>> {
    let toks = &text.toks;
    let mut pieces: Vec<Range<usize>> = Vec::new();
    let mut start = 0;
    for (i, t) in toks.iter().enumerate() {
        let cut_before = match text.kind_of(t) {
            TokKind::Mark(c) => matches!(c, ';' | ':' | '\u{2014}' | '\u{2013}' | '(' | ')' | ','),
            TokKind::Word => CLAUSE_WORDS.contains(&text.lower(i)),
            TokKind::Number => false,
        };
        if cut_before && i > start {
            pieces.push(start..i);
            start = i;
        }
    }
    if start < toks.len() {
        pieces.push(start..toks.len());
    }
    let states = |r: &Range<usize>| {
        r.clone()
            .any(|i| figure_at.contains(&i) || text.has_direction(i))
    };
    let mut out: Vec<Range<usize>> = Vec::new();
    let mut pending: Option<Range<usize>> = None;
    for piece in pieces {
        if states(&piece) {
            let piece = match pending.take() {
                Some(p) => p.start..piece.end,
                None => piece,
            };
            out.push(piece);
        } else if let Some(last) = out.last_mut() {
            last.end = piece.end;
        } else {
            pending = Some(match pending {
                Some(p) => p.start..piece.end,
                None => piece,
            });
        }
    }
    if let Some(p) = pending {
        out.push(p);
    }
    if out.is_empty() && !toks.is_empty() {
        out.push(0..toks.len());
    }
    out
}

/// A source clause with a direction word on the axis of one of the claim's.
struct Candidate {
    /// The share of the claim clause's words the source clause holds.
    clause_overlap: f64,
    /// The same for the whole source sentence.
    sentence_overlap: f64,
    /// How many of the words the claim's direction word is said of stand before the source's.
    subject_match: usize,
    k: usize,
    clause: Range<usize>,
    /// The clause's words on the axis, with their polarity.
    on_axis: Vec<(usize, bool)>,
}

/// A claim aligned with the sentences of its source that best match it.
pub struct Alignment<'a> {
    pub claim: Text,
    /// The source sentences compared with the claim (those of the best passages), in source order.
    pub sentences: Vec<&'a Text>,
    /// Index in the source of each of [`Alignment::sentences`].
    pub sentence_index: Vec<usize>,
    /// The passages the sentences come from, best first, as indices into
    /// [`Alignment::sentences`].
    windows: Vec<Vec<usize>>,
    page: &'a PageIndex,
    index: &'a SourceIndex,
    source_text: &'a str,
    /// The claim's stems the page's vocabulary lacks: id `vocabulary_len + n` is the n-th.
    claim_only: Vec<Box<str>>,
    /// The claim's content stems.
    claim_stems: Stems,
    /// The figure tolerance under which two figures are the same value.
    tolerance: f64,
    /// The tolerance over which two figures are different values.
    high_tolerance: f64,
}

impl<'a> Alignment<'a> {
    /// Aligns `claim` (its text and figures) with the passages `windows` (ranges of sentences,
    /// best first) of the indexed `page`.
    pub fn new(
        claim_text: &str,
        claim_figures: Vec<Figure>,
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
        }
    }

    /// Every finding, contradictions first.
    pub fn findings(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        out.extend(self.speaker());
        out.extend(self.direction());
        out.extend(self.negation());
        out.extend(self.subject());
        out.extend(self.units());
        out.extend(self.dates());
        out.extend(self.superlatives());
        out.extend(self.multipliers());
        out.extend(self.quantifiers());
        out.extend(self.places());
        // Last: a slot changed in a copied sentence is the general rule; a rule that names the
        // element (a direction reversed, a speaker, a unit) says more, so its finding leads.
        out.extend(self.substitutions());
        out.sort_by_key(|f| !f.contradiction);
        out
    }

    fn weight(&self, stem: TokenId) -> f64 {
        self.index.idf_of_word(stem)
    }

    fn weight_of(&self, stems: &Stems) -> f64 {
        stems.iter().map(|s| self.weight(s)).sum()
    }

    /// The id of stem `word` in this alignment: the page's, else the claim's own.
    fn stem_id(&self, word: &str) -> Option<TokenId> {
        self.index.word_id(word).or_else(|| {
            let n = self.claim_only.iter().position(|w| &**w == word)?;
            TokenId::try_from(self.index.vocabulary_len() + n).ok()
        })
    }

    /// The stem of id `id`.
    fn stem_word(&self, id: TokenId) -> &str {
        match (id as usize).checked_sub(self.index.vocabulary_len()) {
            Some(n) => self.claim_only.get(n).map_or("", |w| w),
            None => self.index.word(id),
        }
    }

    /// The ids of the stems `words`, those this alignment knows.
    fn stem_ids<'w>(&self, words: impl IntoIterator<Item = &'w str>) -> Stems {
        Stems::of(words.into_iter().filter_map(|w| self.stem_id(w)).collect())
    }

    /// The claim's content stems without those of `leave`.
    fn claim_without(&self, leave: &Stems) -> Stems {
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
    fn source_clauses(&self) -> impl Iterator<Item = (usize, Range<usize>)> + '_ {
        self.sentences
            .iter()
            .enumerate()
            .flat_map(|(k, s)| s.clauses.iter().map(move |c| (k, c.clone())))
    }

    /// How much of `stems` (weighted) the clause holds, as a share.
    fn overlap(&self, stems: &Stems, k: usize, clause: Range<usize>) -> f64 {
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

    /// The share of the whole claim's weighted content sentence `k` holds.
    pub fn sentence_coverage(&self, k: usize) -> f64 {
        self.coverage_without(k, &Stems::default())
    }

    /// The share sentence `k` holds of the claim's weighted content without the words `leave`
    /// (the element under test, so that its absence does not hide where the claim is stated).
    fn coverage_without(&self, k: usize, leave: &Stems) -> f64 {
        let claim = self.claim_without(leave);
        self.overlap(&claim, k, 0..self.sentences[k].toks.len())
    }

    /// The passage that holds most of the claim without the words `leave`, with the share it
    /// holds.
    fn best_window(&self, leave: &Stems) -> Option<(usize, f64)> {
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
    fn best_sentence_without(&self, leave: &Stems) -> Option<usize> {
        (0..self.sentences.len())
            .map(|k| (self.coverage_without(k, leave), k))
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
            .filter(|(c, _)| *c >= MIN_ALIGNMENT)
            .map(|(_, k)| k)
    }

    fn said(&self, k: usize) -> String {
        format!(
            "the source says: \u{201C}{}\u{201D}",
            self.sentences[k].text().trim()
        )
    }

    // -----------------------------------------------------------------------------------------
    // Slots the claim fills differently from the sentence it follows

    /// Names, years, numbers, ordinals and negations the claim changed in a source sentence it
    /// otherwise follows word for word ([`substitute`]). The sentence must hold at least
    /// [`MIN_ALIGNMENT`] of the claim's weighted words and [`MIN_FOLLOWED_WORDS`] of its content
    /// words, and a changed slot needs a content word
    /// among the words that enclose it, so that "the … of" alone anchors nothing.
    fn substitutions(&self) -> Vec<Finding> {
        let claim = &self.claim;
        let total = self.weight_of(&self.claim_stems);
        if total <= 0.0 {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (k, s) in self.sentences.iter().enumerate() {
            // The words the alignment can match are among those both texts have: a sentence
            // that shares too few of them is not followed, whatever the alignment finds.
            let shared = Stems::of(
                s.toks
                    .iter()
                    .filter(|t| !t.is_mark() && self.claim_stems.contains(t.stem))
                    .map(|t| t.stem)
                    .collect(),
            );
            if shared.len() < MIN_FOLLOWED_WORDS || self.weight_of(&shared) < MIN_ALIGNMENT * total
            {
                continue;
            }
            let pairs = substitute::align(claim, s);
            let matched = Stems::of(
                pairs
                    .iter()
                    .filter(|(c, _)| claim.toks[*c].is_content())
                    .map(|(c, _)| claim.toks[*c].stem)
                    .collect(),
            );
            // Following a sentence word for word takes words to follow: a fragment sharing one
            // or two content words with a sentence does not copy it.
            if matched.len() < MIN_FOLLOWED_WORDS
                || self.weight_of(&matched) < MIN_ALIGNMENT * total
            {
                continue;
            }
            for sub in substitute::substitutions(claim, s, &pairs) {
                let anchored = sub.anchors.iter().any(|&a| claim.toks[a].is_content());
                // A slot in a denial frame ("it isn't true that") is the denial rule's.
                let in_frame = claim
                    .denied_from
                    .is_some_and(|from| sub.claim_tokens.start < from as usize);
                if !anchored || in_frame {
                    continue;
                }
                if let Some(f) = self.substitution_finding(k, &sub) {
                    out.push(f);
                }
            }
        }
        out
    }

    fn substitution_finding(&self, k: usize, sub: &substitute::Substitution) -> Option<Finding> {
        use substitute::SlotKind;
        let claim = &self.claim;
        let before = sub
            .claim_tokens
            .start
            .checked_sub(1)
            .map(|i| claim.lower(i));
        let near_reporting_verb = (sub.claim_tokens.start.saturating_sub(3)
            ..(sub.claim_tokens.end + 3).min(claim.toks.len()))
            .any(|i| is_reporting_verb(claim.lower(i)));
        let says = |what: &str| {
            format!(
                "The claim says \u{201C}{}\u{201D} where the source says \u{201C}{what}\u{201D}",
                sub.claim
            )
        };
        let (element, contradiction, problem) = match sub.kind {
            SlotKind::Negation if sub.source.is_empty() => (
                ClaimElement::Negation,
                true,
                format!(
                    "The claim says \u{201C}{}\u{201D} where the source states it without the negation",
                    sub.claim
                ),
            ),
            SlotKind::Negation => (ClaimElement::Negation, true, says(&sub.source)),
            SlotKind::Year => (ClaimElement::Date, true, says(&sub.source)),
            SlotKind::Number => {
                let number = |t: &str| t.trim().replace(',', "").parse::<f64>().ok();
                let (a, b) = (number(&sub.claim)?, number(&sub.source)?);
                if relative_error(a, b) <= self.high_tolerance {
                    return None;
                }
                (ClaimElement::Figure, true, says(&sub.source))
            }
            SlotKind::Ordinal => (ClaimElement::Figure, true, says(&sub.source)),
            // A month or a day of the week changed is the date rules' to judge.
            SlotKind::Name
                if sub
                    .claim
                    .split_whitespace()
                    .all(|w| is_calendar_word(&w.to_lowercase())) =>
            {
                return None;
            }
            SlotKind::Name if matches!(before, Some("in" | "at" | "near" | "outside")) => {
                (ClaimElement::Place, false, says(&sub.source))
            }
            SlotKind::Name if near_reporting_verb => {
                (ClaimElement::Speaker, true, says(&sub.source))
            }
            SlotKind::Name => (ClaimElement::Name, true, says(&sub.source)),
        };
        Some(Finding {
            element,
            contradiction,
            problem,
            correction: Some(self.said(k)),
            sentence: Some(k),
        })
    }

    // -----------------------------------------------------------------------------------------
    // Direction and negation

    fn direction(&self) -> Vec<Finding> {
        let claim = &self.claim;
        let mut out = Vec::new();
        let mut seen_axes = HashSet::default();
        for i in 0..claim.toks.len() {
            for &(axis, polarity) in claim.directions(i) {
                if !seen_axes.insert(axis) {
                    continue;
                }
                let clause = claim.clause_of(i);
                let subject = claim.stems(clause.clone(), &|j| claim.has_direction(j));
                if subject.is_empty() {
                    continue;
                }
                // What the direction word is said of: the words before it in its clause
                // ("Imports rose", "The regulator did not approve").
                let said_of = claim.stems(clause.start..i, &|j| claim.has_direction(j));
                // Clauses of the source with a word on the same axis, and how well they align:
                // on the whole clause, on the words before the axis word, on the sentence.
                let mut candidates: Vec<Candidate> = Vec::new();
                for (k, c) in self.source_clauses() {
                    let s = &self.sentences[k];
                    let on_axis: Vec<(usize, bool)> = c
                        .clone()
                        .flat_map(|j| {
                            s.directions(j)
                                .iter()
                                .filter(|d| d.0 == axis)
                                .map(move |d| (j, d.1))
                        })
                        .collect();
                    let Some(&(first_on_axis, _)) = on_axis.first() else {
                        continue;
                    };
                    let before = s.stems(c.start..first_on_axis, &|j| s.has_direction(j));
                    let subject_match = said_of.iter().filter(|&w| before.contains(w)).count();
                    candidates.push(Candidate {
                        clause_overlap: self.overlap(&subject, k, c.clone()),
                        sentence_overlap: self.overlap(&subject, k, 0..s.toks.len()),
                        subject_match,
                        k,
                        clause: c,
                        on_axis,
                    });
                }
                // Prefer the clauses whose subject is the claim's; else the best aligned.
                let best_subject = candidates
                    .iter()
                    .map(|c| c.subject_match)
                    .max()
                    .unwrap_or(0);
                let pool: Vec<&Candidate> = if best_subject > 0 {
                    candidates
                        .iter()
                        .filter(|c| c.subject_match == best_subject)
                        .filter(|c| c.sentence_overlap >= MIN_ALIGNMENT)
                        .collect()
                } else {
                    let best = candidates
                        .iter()
                        .map(|c| c.clause_overlap)
                        .fold(0.0, f64::max);
                    candidates
                        .iter()
                        .filter(|c| c.clause_overlap >= MIN_ALIGNMENT)
                        .filter(|c| c.clause_overlap >= best * NEAR_BEST)
                        .collect()
                };
                if pool.is_empty() {
                    // No clause aligns: the passage that holds the claim says which way, when
                    // all it says on this axis points the other way.
                    out.extend(self.direction_in_passage(i, axis, polarity));
                    continue;
                }
                if pool
                    .iter()
                    .any(|c| c.on_axis.iter().any(|(_, p)| *p == polarity))
                {
                    continue;
                }
                let Some(chosen) = pool
                    .iter()
                    .max_by(|a, b| a.clause_overlap.total_cmp(&b.clause_overlap))
                else {
                    continue;
                };
                let (k, c, words) = (chosen.k, chosen.clause.clone(), chosen.on_axis.clone());
                let s = &self.sentences[k];
                let marked = words.first().map(|(j, _)| *j);
                let source_word = marked
                    .map(|j| phrase_with_negation(s, j))
                    .unwrap_or_default();
                out.push(Finding {
                    element: ClaimElement::Direction,
                    contradiction: true,
                    problem: format!(
                        "The claim says \u{201C}{}\u{201D} where the source says \u{201C}{}\u{201D}",
                        phrase_with_negation(claim, i),
                        source_word
                    ),
                    correction: Some(format!(
                        "the source says: \u{201C}{}\u{201D}",
                        marked_clause_text(s, c, marked)
                    )),
                    sentence: Some(k),
                });
            }
        }
        out
    }

    /// The claim's direction word at `i` against the passage that holds most of the claim (at
    /// least [`STATED`] of it, the direction words left out): a contradiction when the passage
    /// has words on the same axis, all of them the other way.
    fn direction_in_passage(&self, i: usize, axis: Axis, polarity: bool) -> Option<Finding> {
        let leave = Stems::of(
            (0..self.claim.toks.len())
                .filter(|&j| self.claim.has_direction(j))
                .map(|j| self.claim.toks[j].stem)
                .collect(),
        );
        let (w, held) = self.best_window(&leave)?;
        if held < STATED {
            return None;
        }
        let mut opposite = None;
        for &k in &self.windows[w] {
            let s = &self.sentences[k];
            for (j, a, p) in s.all_directions() {
                if a != axis {
                    continue;
                }
                if p == polarity {
                    return None;
                }
                opposite.get_or_insert((k, j));
            }
        }
        let (k, j) = opposite?;
        let s = &self.sentences[k];
        Some(Finding {
            element: ClaimElement::Direction,
            contradiction: true,
            problem: format!(
                "The claim says \u{201C}{}\u{201D} where the source says \u{201C}{}\u{201D}",
                phrase_with_negation(&self.claim, i),
                phrase_with_negation(s, j)
            ),
            correction: Some(format!(
                "the source says: \u{201C}{}\u{201D}",
                marked_clause_text(s, 0..s.toks.len(), Some(j))
            )),
            sentence: Some(k),
        })
    }

    /// A claim that negates what the sentence stating it says plainly: the sentence holding most
    /// of the claim (at least [`STATED`], the negation left out) has no negation at all.
    fn negation_in_sentence(&self) -> Option<Finding> {
        let claim = &self.claim;
        // A negation in a denial frame ("it is not true that …") is the denial rule's.
        if claim.denied_from.is_some() {
            return None;
        }
        let quoted = quoted_tokens(claim);
        let at = (0..claim.toks.len()).find(|&i| {
            let w = claim.lower(i);
            let next = (i + 1 < claim.toks.len()).then(|| claim.lower(i + 1));
            lexicon::is_negation(w)
                && !quoted.contains(&i)
                && !matches!(
                    next,
                    Some("only" | "just" | "least" | "less" | "until" | "fewer" | "more" | "longer" | "doubt")
                )
                // A negated direction word ("did not fall") is the direction rule's: it reads
                // the negation with the word.
                && !(i + 1..(i + 1 + NEGATION_REACH).min(claim.toks.len()))
                    .any(|j| claim.has_direction(j))
        })?;
        let leave = Stems::of(
            claim
                .toks
                .iter()
                .filter(|t| lexicon::is_negation(claim.lower_of(t)))
                .map(|t| t.stem)
                .collect(),
        );
        let (w, held) = self.best_window(&leave)?;
        if held < HELD {
            return None;
        }
        let negates_in = |s: &Text| {
            s.lowers().enumerate().any(|(j, w)| {
                lexicon::is_negation(w)
                    || (lexicon::NEGATING_VERBS.contains(&w) && s.lower(j + 1) == "to")
            })
        };
        // Only the sentences that state part of the claim speak to its polarity.
        let negates = self.windows[w]
            .iter()
            .any(|&k| self.coverage_without(k, &leave) >= PART && negates_in(self.sentences[k]));
        let k = self
            .best_sentence_without(&leave)
            .or(self.windows[w].first().copied())?;
        (!negates).then(|| Finding {
            element: ClaimElement::Negation,
            contradiction: true,
            problem: format!(
                "The claim says \u{201C}{}\u{201D} where the source states it without a negation",
                claim.span(at..(at + 2).min(claim.toks.len()))
            ),
            correction: Some(self.said(k)),
            sentence: Some(k),
        })
    }

    /// A predicate (not a direction word) negated on one side and stated plainly on the other.
    fn negation(&self) -> Vec<Finding> {
        let claim = &self.claim;
        let mut out = Vec::new();
        // Claim words and whether they are negated; direction words are the direction rule's.
        let claim_predicates: Vec<(usize, bool)> = claim.predicates().collect();
        let claim_negated: Vec<usize> = claim_predicates
            .iter()
            .filter(|p| p.1)
            .map(|p| p.0)
            .collect();
        let mut source_negated: Vec<(usize, usize)> = Vec::new();
        for (k, s) in self.sentences.iter().enumerate() {
            source_negated.extend(s.negated_predicates.iter().map(|&j| (k, j as usize)));
        }
        if claim_negated.is_empty() && source_negated.is_empty() {
            out.extend(self.denial());
            return out;
        }
        // Only the first predicate a negation reaches counts: "did not attend the summit"
        // negates "attend", not "summit".
        let first_after_negation = |t: &Text, i: usize| -> bool {
            let clause = t.clause_of(i);
            let from = i.saturating_sub(NEGATION_REACH).max(clause.start);
            let Some(neg) = (from..i).rev().find(|&j| {
                lexicon::is_negation(t.lower(j))
                    || (lexicon::NEGATING_VERBS.contains(&t.lower(j)) && t.lower(j + 1) == "to")
            }) else {
                return false;
            };
            !(neg + 1..i)
                .any(|j| t.toks[j].is_content() && t.toks[j].is_word() && !is_auxiliary(t.lower(j)))
        };
        let quoted = quoted_tokens(claim);
        for &i in &claim_negated {
            if !first_after_negation(claim, i) || quoted.contains(&i) {
                continue;
            }
            let stem = claim.toks[i].stem;
            let clause = claim.clause_of(i);
            let subject = claim.stems(clause, &|j| j == i);
            if let Some((k, j)) = self.plain_in_source(stem, &subject) {
                let s = &self.sentences[k];
                out.push(Finding {
                    element: ClaimElement::Negation,
                    contradiction: true,
                    problem: format!(
                        "The claim says \u{201C}{}\u{201D} where the source says \u{201C}{}\u{201D}",
                        phrase_with_negation(claim, i),
                        s.lower(j)
                    ),
                    correction: Some(self.said(k)),
                    sentence: Some(k),
                });
                return out;
            }
        }
        for (k, j) in source_negated {
            let s = &self.sentences[k];
            if !first_after_negation(s, j) {
                continue;
            }
            let stem = s.toks[j].stem;
            let Some(&(i, negated)) = claim_predicates
                .iter()
                .find(|(i, _)| claim.toks[*i].stem == stem)
            else {
                continue;
            };
            // Negated in the claim, or in a statement it denies: they agree.
            if negated || claim.denied(i) {
                continue;
            }
            let clause = claim.clause_of(i);
            let subject = claim.stems(clause, &|x| x == i);
            let source_clause = s.clause_of(j);
            if self.overlap(&subject, k, source_clause.clone()) < MIN_ALIGNMENT {
                continue;
            }
            // The claim must not be stated plainly elsewhere in an equally aligned clause.
            if self.plain_in_source(stem, &subject).is_some() {
                continue;
            }
            out.push(Finding {
                element: ClaimElement::Negation,
                contradiction: true,
                problem: format!(
                    "The claim says \u{201C}{}\u{201D} where the source says \u{201C}{}\u{201D}",
                    claim.lower(i),
                    phrase_with_negation(s, j)
                ),
                correction: Some(self.said(k)),
                sentence: Some(k),
            });
            return out;
        }
        out.extend(self.negation_in_sentence().or_else(|| self.denial()));
        out
    }

    /// A statement one side denies as a whole and the other states: the claim "it is untrue
    /// that the council cut the budget" where the source says the council cut it, or the claim
    /// that it cut it where the source says "it is false that the council cut the budget". The
    /// denial words carry no negation of their own for the rules above to read ("untrue",
    /// "false"), and the word they deny stands too far from them for a negation to reach.
    fn denial(&self) -> Option<Finding> {
        let claim = &self.claim;
        // A denied statement with a direction word is the direction rule's: the denial flips it.
        let directed = |t: &Text| t.direction_at.iter().any(|&i| t.denied(i as usize));
        if let Some(frame) = denial_frame(claim) {
            if directed(claim) {
                return None;
            }
            let leave = Stems::of(claim.toks[frame.clone()].iter().map(|t| t.stem).collect());
            let (w, held) = self.best_window(&leave)?;
            if held < HELD {
                return None;
            }
            // A source that denies or negates it too agrees.
            let denies = self.windows[w].iter().any(|&k| {
                self.coverage_without(k, &leave) >= PART && negates_or_denies(self.sentences[k])
            });
            let k = self
                .best_sentence_without(&leave)
                .or(self.windows[w].first().copied())?;
            return (!denies).then(|| Finding {
                element: ClaimElement::Negation,
                contradiction: true,
                problem: format!(
                    "The claim says \u{201C}{}\u{201D} where the source states it",
                    claim.span(frame).trim()
                ),
                correction: Some(self.said(k)),
                sentence: Some(k),
            });
        }
        // The claim states it plainly; the sentence stating most of it denies it.
        if negates_or_denies(claim) {
            return None;
        }
        let k = self.best_sentence()?;
        let s = self.sentences[k];
        let frame = denial_frame(s)?;
        if directed(s) {
            return None;
        }
        let after = frame.end..s.toks.len();
        let held = self.overlap(&self.claim_stems, k, after);
        (held >= HELD).then(|| Finding {
            element: ClaimElement::Negation,
            contradiction: true,
            problem: format!(
                "The claim states what the source denies: \u{201C}{}\u{201D}",
                s.span(frame).trim()
            ),
            correction: Some(self.said(k)),
            sentence: Some(k),
        })
    }

    /// A source clause aligned with `subject` that states `stem` without negation, and none
    /// that states it negated as well; (sentence, token).
    fn plain_in_source(&self, stem: TokenId, subject: &Stems) -> Option<(usize, usize)> {
        let mut best: Option<(f64, usize, usize)> = None;
        for (k, c) in self.source_clauses() {
            let s = &self.sentences[k];
            for j in c.clone() {
                if s.toks[j].stem != stem || !s.toks[j].is_word() {
                    continue;
                }
                // The source says it negated somewhere too: no contradiction to speak of.
                if s.negated(j) || s.denied(j) {
                    return None;
                }
                let o = self.overlap(subject, k, c.clone());
                if best.is_none_or(|b| o > b.0) {
                    best = Some((o, k, j));
                }
            }
        }
        let (o, k, j) = best?;
        (o >= MIN_ALIGNMENT).then_some((k, j))
    }

    // -----------------------------------------------------------------------------------------
    // Figures: subject, units, multipliers

    /// Source figures of the compared sentences: (sentence, figure, clause).
    fn source_figures(&self) -> Vec<(usize, &Figure, Range<usize>)> {
        self.sentences
            .iter()
            .enumerate()
            .flat_map(|(k, s)| s.figures.iter().map(move |(f, t)| (k, f, s.clause_of(*t))))
            .collect()
    }

    fn subject(&self) -> Vec<Finding> {
        let claim = &self.claim;
        // The words a figure is bound to: its clause's, without the numbers of figures other
        // than years (a year says which figure it is) and without words of rise and fall (the
        // direction rule compares those).
        fn bound_words(t: &Text, r: Range<usize>, own: Option<usize>) -> Stems {
            let numbers = t.figure_tokens_except_years();
            // The nouns other figures count ("the final three frames") are theirs.
            let counted: HashSet<usize> = t
                .figures
                .iter()
                .filter(|(f, at)| f.unit != Unit::Year && Some(*at) != own)
                .flat_map(|(f, at)| {
                    let end = t.toks[*at].start as usize + f.text.len();
                    let after = (*at..t.toks.len())
                        .find(|&j| t.toks[j].start as usize >= end)
                        .unwrap_or(t.toks.len());
                    (after..(after + 2).min(t.toks.len()))
                        .filter(|&j| t.toks[j].is_word() && lexicon::counted_noun(t.lower(j)))
                })
                .collect();
            t.stems(r, &|j| {
                numbers.contains(&j)
                    || counted.contains(&j)
                    || t.directions(j).iter().any(|d| d.0 == Axis::Amount)
            })
        }
        let sources = self.source_figures();
        let mut out = Vec::new();
        for (c, ct) in &claim.figures {
            if c.unit == Unit::Year {
                continue;
            }
            let words = bound_words(claim, claim.clause_of(*ct), Some(*ct));
            let same: Vec<_> = sources
                .iter()
                .filter(|(_, f, _)| comparable(c, f) && rounds_to(c, f.value))
                .collect();
            if same.is_empty() {
                continue;
            }
            let context = |k: usize, r: &Range<usize>, f: &Figure| {
                let s = &self.sentences[k];
                let own = s
                    .figures
                    .iter()
                    .find(|(g, _)| std::ptr::eq(g, f))
                    .map(|(_, at)| *at);
                bound_words(s, r.clone(), own)
            };
            let mut mismatch: Option<(TokenId, usize, &Figure, Range<usize>)> = None;
            let mut all_mismatched = true;
            for (k1, f1, r1) in &same {
                let ctx1 = context(*k1, r1, f1);
                let mut found = None;
                for (k2, f2, r2) in &sources {
                    if (k2, r2) == (k1, r1) || !comparable(c, f2) {
                        continue;
                    }
                    // A figure the claim's rounds ("400" for 426) may be the one it means.
                    if rounds_to(c, f2.value) {
                        continue;
                    }
                    // The claim states this other figure too: its words are explained by it.
                    if claim
                        .figures
                        .iter()
                        .any(|(other, _)| comparable(other, f2) && rounds_to(other, f2.value))
                    {
                        continue;
                    }
                    let ctx2 = context(*k2, r2, f2);
                    // A year that moved says most plainly which figure is which.
                    let moved_words: Vec<TokenId> = claim
                        .toks
                        .iter()
                        .map(|t| t.stem)
                        .filter(|&w| words.contains(w) && ctx2.contains(w) && !ctx1.contains(w))
                        .collect();
                    let moved = moved_words
                        .iter()
                        .find(|&&w| is_year_word(self.stem_word(w)))
                        .or(moved_words.first())
                        .copied();
                    let contrast = ctx1.iter().any(|w| !ctx2.contains(w) && !words.contains(w));
                    if let (Some(word), true) = (moved, contrast) {
                        found = Some((word, *k2, *f2, r2.clone()));
                        break;
                    }
                }
                match found {
                    Some(f) => {
                        mismatch.get_or_insert(f);
                    }
                    None => all_mismatched = false,
                }
            }
            let (Some((word, k2, f2, r2)), true) = (mismatch, all_mismatched) else {
                continue;
            };
            let is_year = is_year_word(self.stem_word(word));
            let s = &self.sentences[k2];
            let shown = claim.toks.iter().find(|t| t.stem == word).map_or_else(
                || self.stem_word(word).to_owned(),
                |t| self.claim.text()[t.range()].to_owned(),
            );
            out.push(Finding {
                element: if is_year {
                    ClaimElement::Date
                } else {
                    ClaimElement::Subject
                },
                contradiction: true,
                problem: format!(
                    "The source gives {} for {shown}, not {}",
                    super::figures::describe(f2),
                    c.text
                ),
                correction: Some(format!(
                    "the source says: \u{201C}{}\u{201D}",
                    clause_text(s, r2)
                )),
                sentence: Some(k2),
            });
        }
        out
    }

    fn units(&self) -> Vec<Finding> {
        let sources = self.source_figures();
        let mut out = Vec::new();
        for (c, _) in &self.claim.figures {
            if !matches!(
                c.unit,
                Unit::Percent | Unit::PercentagePoints | Unit::Currency
            ) {
                continue;
            }
            // A share the source writes as a ratio ("one in five") backs it too, when the
            // source gives no figure of the claim's own form.
            let backed = errors_against(c, sources.iter().map(|(_, f, _)| *f))
                .any(|(e, _)| e <= self.tolerance);
            if backed {
                continue;
            }
            let swapped = sources.iter().find_map(|(k, f, _)| {
                if relative_error(c.value, f.value) > self.tolerance {
                    return None;
                }
                let element = match (c.unit, f.unit) {
                    (Unit::Percent, Unit::PercentagePoints)
                    | (Unit::PercentagePoints, Unit::Percent) => ClaimElement::Unit,
                    (Unit::Currency, Unit::Currency) => match (&c.currency, &f.currency) {
                        (Some(a), Some(b)) if a != b => ClaimElement::Currency,
                        _ => match (&c.per, &f.per) {
                            (Some(a), Some(b)) if a != b => ClaimElement::Unit,
                            _ => return None,
                        },
                    },
                    _ => return None,
                };
                Some((element, *k, *f))
            });
            if let Some((element, k, f)) = swapped {
                out.push(Finding {
                    element,
                    contradiction: true,
                    problem: format!(
                        "The claim says {} where the source says {}",
                        c.text,
                        super::figures::describe(f)
                    ),
                    correction: Some(format!("source says {}", super::figures::describe(f))),
                    sentence: Some(k),
                });
            }
        }
        out
    }

    fn multipliers(&self) -> Vec<Finding> {
        let sources = self.source_figures();
        let mut out = Vec::new();
        for (c, _) in &self.claim.figures {
            if c.unit != Unit::Multiplier {
                continue;
            }
            let stated = sources.iter().any(|(_, f, _)| {
                f.unit == Unit::Multiplier
                    && relative_error(c.value, f.value) <= self.high_tolerance
            });
            // "from 40 to 120 parcels" shows a tripling without the word.
            let shown = sources.iter().any(|(k1, a, _)| {
                sources.iter().any(|(k2, b, _)| {
                    k1 == k2
                        && a.unit == b.unit
                        && !matches!(a.unit, Unit::Year | Unit::Multiplier)
                        && a.value > 0.0
                        && b.value > 0.0
                        && (relative_error(c.value, b.value / a.value) <= MULTIPLIER_TOLERANCE)
                })
            });
            if !stated && !shown {
                out.push(Finding {
                    element: ClaimElement::Multiplier,
                    contradiction: false,
                    problem: format!(
                        "The claim says \u{201C}{}\u{201D}; the source states no such multiple",
                        c.text
                    ),
                    correction: self.best_sentence().map(|k| self.said(k)),
                    sentence: self.best_sentence(),
                });
            }
        }
        out
    }

    // -----------------------------------------------------------------------------------------
    // Dates

    fn dates(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        let years: Vec<String> = self
            .claim
            .figures
            .iter()
            .filter(|(f, _)| f.unit == Unit::Year)
            .map(|(f, _)| format!("{}", f.value as i64))
            .collect();
        let years = self.stem_ids(years.iter().map(String::as_str));
        let best = self.best_sentence_without(&years);
        let source_years = |k: usize| -> Vec<&str> {
            self.sentences[k]
                .figures
                .iter()
                .filter(|(f, _)| f.unit == Unit::Year)
                .map(|(f, _)| f.text.as_str())
                .collect()
        };
        for (c, _) in &self.claim.figures {
            if c.unit != Unit::Year || c.text.ends_with('s') {
                continue;
            }
            let year = format!("{}", c.value as i64);
            // The aligned sentence, or the best-aligned one that dates anything.
            let dated = best.filter(|&k| !source_years(k).is_empty()).or_else(|| {
                (0..self.sentences.len())
                    .filter(|&k| !source_years(k).is_empty())
                    .max_by(|a, b| {
                        self.coverage_without(*a, &years)
                            .total_cmp(&self.coverage_without(*b, &years))
                    })
                    .filter(|&k| self.coverage_without(k, &years) >= MIN_ALIGNMENT)
            });
            // Where the sentence that states the claim dates it, the year must be there or in a
            // sentence beside it: a page that sold the factory in 2009 and closed it in 2011
            // does not back "closed in 2009". Elsewhere the year anywhere on the page will do.
            let stated = match dated {
                Some(k) if Some(k) == best => {
                    let around = k.saturating_sub(1)..=(k + 1).min(self.sentences.len() - 1);
                    around.into_iter().any(|j| {
                        self.sentences[j]
                            .figures
                            .iter()
                            .any(|(f, _)| f.unit == Unit::Year && f.value as i64 == c.value as i64)
                    })
                }
                _ => self.index.contains(&year),
            };
            if stated {
                continue;
            }
            if let Some(k) = dated {
                out.push(Finding {
                    element: ClaimElement::Date,
                    contradiction: true,
                    problem: format!(
                        "The claim says {} where the source gives {}",
                        c.text,
                        source_years(k).join(", ")
                    ),
                    correction: Some(self.said(k)),
                    sentence: Some(k),
                });
                return out;
            }
            // The page never gives the year, though it states the rest of the claim.
            if let Some((w, held)) = self.best_window(&years)
                && held >= MIN_ALIGNMENT
            {
                let k = self.windows[w].first().copied();
                out.push(Finding {
                    element: ClaimElement::Date,
                    contradiction: false,
                    problem: format!("The source never gives the year {}", c.text),
                    correction: k.map(|k| self.said(k)),
                    sentence: k,
                });
                return out;
            }
        }
        // Days of a month: "14 March" against "21 March".
        let claim_days = day_months(&self.claim);
        for (day, month, text) in &claim_days {
            if self
                .page
                .days()
                .iter()
                .any(|(d, m, _)| d == day && m == month)
            {
                continue;
            }
            let other = self.sentences.iter().enumerate().find_map(|(k, s)| {
                day_months(s)
                    .into_iter()
                    .find(|(d, m, _)| (d, m) != (day, month))
                    .map(|(_, _, t)| (k, t))
            });
            let days = Text::plain(text);
            let days = self.stem_ids(
                days.toks
                    .iter()
                    .map(|t| days.stem_of(t))
                    .collect::<Vec<_>>()
                    .iter()
                    .map(|w| w.as_ref()),
            );
            if let Some((k, said)) = other
                && self.coverage_without(k, &days) >= MIN_ALIGNMENT
            {
                out.push(Finding {
                    element: ClaimElement::Date,
                    contradiction: true,
                    problem: format!("The claim says {text} where the source says {said}"),
                    correction: Some(self.said(k)),
                    sentence: Some(k),
                });
                break;
            }
        }
        if out.is_empty() {
            out.extend(self.periods());
        }
        out
    }

    /// A month or season the claim dates itself by where the sentence stating the claim names
    /// another of the same kind and not the claim's: "closed in March" against "closed in May",
    /// "the summer of 2023" against "the winter of 2023".
    fn periods(&self) -> Option<Finding> {
        let ours = periods_of(&self.claim);
        if ours.is_empty() {
            return None;
        }
        let leave = Stems::of(ours.iter().map(|p| self.claim.toks[p.at].stem).collect());
        let k = self.best_sentence_without(&leave)?;
        if self.coverage_without(k, &leave) < HELD {
            return None;
        }
        // A sentence that names the claim's month as well as another ("closed in May, after
        // talks failed in March") is left alone: which one dates what is not read here.
        let theirs = periods_of(self.sentences[k]);
        let named = |p: &Period| theirs.iter().any(|q| q.kind == p.kind && q.key == p.key);
        ours.iter().filter(|p| !named(p)).find_map(|p| {
            // Another period than any the claim names: in "passed in March and took effect in
            // May", a sentence on May alone contradicts nothing.
            let other = theirs.iter().find(|q| {
                q.kind == p.kind && !ours.iter().any(|o| o.kind == q.kind && o.key == q.key)
            })?;
            Some(Finding {
                element: ClaimElement::Date,
                contradiction: true,
                problem: format!(
                    "The claim says {} where the source says {}",
                    self.claim.span(p.at..p.at + 1),
                    self.sentences[k].span(other.at..other.at + 1)
                ),
                correction: Some(self.said(k)),
                sentence: Some(k),
            })
        })
    }

    /// The compared sentence that holds most of `words` (the first of equals), and how much of
    /// them it holds.
    fn most_held(&self, words: &Stems) -> Option<(f64, usize)> {
        (0..self.sentences.len())
            .map(|k| (self.overlap(words, k, 0..self.sentences[k].toks.len()), k))
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
    }

    /// The compared sentence that holds most of the claim, when it holds enough of it.
    pub fn best_sentence(&self) -> Option<usize> {
        self.best_sentence_without(&Stems::default())
    }

    // -----------------------------------------------------------------------------------------
    // Attribution

    fn speaker(&self) -> Vec<Finding> {
        let claim = &self.claim;
        // A named speaker: "according to the survey" names no one to check.
        let speakers: Vec<String> = speakers(claim)
            .into_iter()
            .filter(|n| {
                n.split_whitespace()
                    .any(|w| w.starts_with(char::is_uppercase))
            })
            .collect();
        let Some(name) = speakers.first() else {
            // A speaker named by office alone: "the finance minister said".
            return self.role_speaker().into_iter().collect();
        };
        let ours: Vec<String> = name_words(name);
        if ours.is_empty() {
            return Vec::new();
        }
        let name_words = ours;
        // What was said: the claim without the speaker's name, title and reporting verb.
        let said_words = claim.stems(0..claim.toks.len(), &|j| {
            let w = claim.lower(j);
            name_words.iter().any(|n| n == w) || is_reporting_verb(w) || lexicon::role(w).is_some()
        });
        let Some((o, k)) = self.most_held(&said_words) else {
            return Vec::new();
        };
        if o < 0.5 {
            return Vec::new();
        }
        let s = &self.sentences[k];
        let in_sentence = |t: &Text| {
            name_words
                .iter()
                .all(|n| t.lowers().any(|w| w == n.as_str()))
        };
        if in_sentence(s) {
            return self.title(name, &name_words, k).into_iter().collect();
        }
        let theirs: Vec<String> = speakers_of(s)
            .into_iter()
            .filter(|n| person_like(n))
            .filter(|n| {
                let theirs = self::name_words(n);
                !theirs.iter().any(|w| name_words.contains(w))
            })
            .collect();
        if let Some(other) = theirs.first() {
            return vec![Finding {
                element: ClaimElement::Speaker,
                contradiction: true,
                problem: format!("The source attributes this to {other}, not to {name}"),
                correction: Some(self.said(k)),
                sentence: Some(k),
            }];
        }
        let anywhere = name_words
            .iter()
            .any(|n| self.index.contains(&retrieve::stem(n)));
        if anywhere {
            return Vec::new();
        }
        vec![Finding {
            element: ClaimElement::Speaker,
            contradiction: false,
            problem: format!("The source does not say that {name} said this"),
            correction: Some(self.said(k)),
            sentence: Some(k),
        }]
    }

    /// A claim that gives its speaker by office alone ("the finance minister said", "said the
    /// police chief") against the sentence that says the same: a contradiction when that
    /// sentence gives the words to someone in another office ("the opposition leader said"), at
    /// another rank ("the deputy mayor"), or in the same office of another portfolio or service
    /// ("the health minister", "the fire chief"). A sentence that names no office for its
    /// speaker ("Tom Reed said") says nothing against it.
    fn role_speaker(&self) -> Option<Finding> {
        let claim = &self.claim;
        let ours = role_speakers(claim).into_iter().next()?;
        // What was said: the claim without its speaker's phrase and reporting verb.
        let said_words = claim.stems(0..claim.toks.len(), &|j| {
            ours.words.contains(&j) || is_reporting_verb(claim.lower(j))
        });
        let (o, k) = self.most_held(&said_words)?;
        if o < 0.5 {
            return None;
        }
        let s = self.sentences[k];
        let theirs = role_speakers(s);
        if theirs.is_empty() || theirs.iter().any(|r| ours.same_office(r, claim, s)) {
            return None;
        }
        // The claim's speaker stated in the sentence in a form not read as a speaker's.
        if ours.stated_in(s) {
            return None;
        }
        Some(Finding {
            element: ClaimElement::Speaker,
            contradiction: true,
            problem: format!(
                "The source attributes this to \u{201C}{}\u{201D}, not to \u{201C}{}\u{201D}",
                theirs[0].text, ours.text
            ),
            correction: Some(self.said(k)),
            sentence: Some(k),
        })
    }

    /// The office the claim gives the speaker against the one sentence `k` gives them.
    fn title(&self, name: &str, name_words: &[String], k: usize) -> Option<Finding> {
        let claim_role = role_near(&self.claim, name_words)?;
        let source_role = role_near(self.sentences[k], name_words)?;
        let offices_differ = !claim_role.offices.is_empty()
            && !source_role.offices.is_empty()
            && claim_role.offices.is_disjoint(&source_role.offices);
        let ranks_differ = !claim_role.offices.is_empty()
            && !source_role.offices.is_empty()
            && claim_role.ranks != source_role.ranks;
        (offices_differ || ranks_differ).then(|| Finding {
            element: ClaimElement::Title,
            contradiction: true,
            problem: format!(
                "The claim calls {name} \u{201C}{}\u{201D} where the source says \u{201C}{}\u{201D}",
                claim_role.text, source_role.text
            ),
            correction: Some(self.said(k)),
            sentence: Some(k),
        })
    }

    // -----------------------------------------------------------------------------------------
    // Specifics the claim adds

    /// The words of the compared sentences and their neighbours, lower-case.
    fn nearby_text(&self) -> String {
        let mut parts = Vec::new();
        for &i in &self.sentence_index {
            for j in i.saturating_sub(1)..=(i + 1) {
                if j < self.index.sentences.len() {
                    parts.push(source_sentence(self.source_text, self.index, j).to_lowercase());
                }
            }
        }
        parts.join(" ")
    }

    fn superlatives(&self) -> Vec<Finding> {
        let claim_lower = self.claim.text().to_lowercase();
        // Read only for a claim that ranks or claims a record.
        let nearby = std::cell::OnceCell::new();
        let nearby = || nearby.get_or_init(|| self.nearby_text()).as_str();
        let nearby_word = |word: &str| {
            nearby()
                .split(|c: char| !c.is_alphanumeric() && c != '-')
                .any(|w| w == word)
        };
        let mut out = Vec::new();
        let has_record = lexicon::claims_record;
        if has_record(&claim_lower) && !has_record(nearby()) {
            let phrase = lexicon::RECORD_PHRASES
                .iter()
                .find(|p| claim_lower.contains(*p))
                .map_or("a record", |p| p);
            out.push(self.unsupported(
                ClaimElement::Superlative,
                format!(
                    "The claim says \u{201C}{phrase}\u{201D}; the source states no such record"
                ),
            ));
            return out;
        }
        for word in cues::superlatives(self.claim.text()) {
            let lower = word.to_lowercase();
            if !claims_a_rank(&self.claim, &lower) {
                continue;
            }
            let stated = if lower.contains(' ') {
                nearby().contains(&lower)
            } else {
                superlative_equivalents(&lower)
                    .iter()
                    .any(|w| nearby_word(w))
            };
            if !stated {
                out.push(self.unsupported(
                    ClaimElement::Superlative,
                    format!("The claim says \u{201C}{word}\u{201D}; the source does not"),
                ));
                break;
            }
        }
        out
    }

    fn quantifiers(&self) -> Vec<Finding> {
        let claim = &self.claim;
        let words: Vec<&str> = claim.lowers().collect();
        let mut out = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let Some((q, n)) = lexicon::quantifier(&words, i) else {
                i += 1;
                continue;
            };
            let start = i;
            i += n;
            if q < Quantity::Most || !quantifies_a_population(claim, start, n) {
                continue;
            }
            let clause = claim.clause_of(start);
            let subject = claim.stems(clause, &|j| (start..start + n).contains(&j));
            // The aligned clause's quantifiers.
            let aligned = self
                .source_clauses()
                .map(|(k, c)| (self.overlap(&subject, k, c.clone()), k, c))
                .max_by(|a, b| a.0.total_cmp(&b.0));
            let Some((o, k, c)) = aligned else { continue };
            if o < MIN_ALIGNMENT {
                continue;
            }
            let s = &self.sentences[k];
            let source_words: Vec<&str> = s.lowers().collect();
            let mut theirs = Vec::new();
            let mut j = 0;
            while j < source_words.len() {
                if let Some((sq, sn)) = lexicon::quantifier(&source_words, j) {
                    if quantifies_a_population(s, j, sn) && (c.contains(&j) || q == Quantity::All) {
                        theirs.push((sq, s.span(j..j + sn).to_owned()));
                    }
                    j += sn;
                } else {
                    j += 1;
                }
            }
            let said = claim.span(start..start + n).to_owned();
            if theirs.iter().any(|(sq, _)| *sq >= q) {
                continue;
            }
            if let Some((_, lower)) = theirs.iter().max_by_key(|(sq, _)| *sq) {
                out.push(Finding {
                    element: ClaimElement::Quantifier,
                    contradiction: false,
                    problem: format!(
                        "The claim says \u{201C}{said}\u{201D} where the source says \u{201C}{lower}\u{201D}"
                    ),
                    correction: Some(self.said(k)),
                    sentence: Some(k),
                });
            } else if q == Quantity::All {
                out.push(Finding {
                    element: ClaimElement::Quantifier,
                    contradiction: false,
                    problem: format!(
                        "The claim says \u{201C}{said}\u{201D}; the source does not say all"
                    ),
                    correction: Some(self.said(k)),
                    sentence: Some(k),
                });
            }
            break;
        }
        out
    }

    fn places(&self) -> Vec<Finding> {
        let claim = &self.claim;
        let mut out = Vec::new();
        for i in 0..claim.toks.len() {
            let word = claim.lower(i);
            if !matches!(word, "in" | "at" | "near" | "outside") {
                continue;
            }
            let name = capital_run(claim, i + 1);
            if name.is_empty() {
                continue;
            }
            let words: Vec<&Tok> = name.clone().map(|j| &claim.toks[j]).collect();
            if words.iter().any(|w| is_calendar_word(claim.lower_of(w))) {
                continue;
            }
            if words.iter().any(|w| self.page_names(claim.lower_of(w))) {
                continue;
            }
            let leave = Stems::of(words.iter().map(|w| w.stem).collect());
            let shown = claim.span(name);
            // What the aligned sentence names in the same place.
            let theirs = self.best_sentence_without(&leave).and_then(|k| {
                let s = &self.sentences[k];
                s.lowers().enumerate().find_map(|(j, st)| {
                    (st == word)
                        .then(|| capital_run(s, j + 1))
                        .filter(|r| !r.is_empty())
                        .map(|r| (k, s.span(r).to_owned()))
                })
            });
            out.push(match theirs {
                Some((k, other)) => Finding {
                    element: ClaimElement::Place,
                    contradiction: false,
                    problem: format!(
                        "The claim says {} {shown} where the source says {} {other}",
                        word, word
                    ),
                    correction: Some(self.said(k)),
                    sentence: Some(k),
                },
                None => {
                    // When the page states the rest of the claim, the place is what it adds.
                    let Some((w, _)) = self
                        .best_window(&leave)
                        .filter(|(_, held)| *held >= MIN_ALIGNMENT)
                    else {
                        continue;
                    };
                    let k = self.windows[w].first().copied();
                    Finding {
                        element: ClaimElement::Place,
                        contradiction: false,
                        problem: format!("The source does not mention {shown}"),
                        correction: k.map(|k| self.said(k)),
                        sentence: k,
                    }
                }
            });
            break;
        }
        out
    }

    /// Whether the page names `word` (lower-case), or a word made from it: a place by its
    /// adjective ("England", "English"; "Italy", "Italian"), sharing its first four letters and
    /// capitalized.
    fn page_names(&self, word: &str) -> bool {
        if self.index.contains(&retrieve::stem(word)) {
            return true;
        }
        let prefix: String = word.chars().take(4).collect();
        prefix.chars().count() == 4 && self.page.names_prefix(&prefix)
    }

    fn unsupported(&self, element: ClaimElement, problem: String) -> Finding {
        let k = self.best_sentence();
        Finding {
            element,
            contradiction: false,
            problem,
            correction: k.map(|k| self.said(k)),
            sentence: k,
        }
    }
}

/// A clause as a reader would quote it: without the conjunction or mark that opens it and the
/// punctuation that closes it.
fn clause_text(t: &Text, clause: Range<usize>) -> String {
    marked_clause_text(t, clause, None)
}

/// [`clause_text`] with the word at `mark` set off in asterisks: "ridership *rose* 4%".
fn marked_clause_text(t: &Text, clause: Range<usize>, mark: Option<usize>) -> String {
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

/// Whether `value` is what the claim's figure `c` says, at the precision the claim writes it:
/// "8.2 million" for 8.24 million, "400" for 426, but not "81%" for 74%. Telling which subject a
/// figure belongs to needs the same value, not a near one.
fn rounds_to(c: &Figure, value: f64) -> bool {
    let digits: String = c
        .text
        .chars()
        .skip_while(|ch| !ch.is_ascii_digit())
        .take_while(|ch| ch.is_ascii_digit() || matches!(ch, '.' | ','))
        .filter(|ch| *ch != ',')
        .collect();
    let step = match digits.split_once('.') {
        Some((_, decimals)) => 10f64.powi(-(decimals.len() as i32)),
        None if digits.is_empty() => 1.0,
        None => {
            let zeros = digits.len() - digits.trim_end_matches('0').len();
            // "2020" is a number, not 2 thousands: a zero is a rounding only past two digits.
            10f64.powi(zeros.min(digits.len().saturating_sub(1)) as i32)
        }
    } * c.scale;
    if step <= 0.0 || !step.is_finite() {
        return relative_error(c.value, value) <= f64::EPSILON;
    }
    ((value / step).round() * step - c.value).abs() <= step * 1e-6
}

/// Whether a token is a year: four digits.
fn is_year_word(word: &str) -> bool {
    word.len() == 4 && word.chars().all(|ch| ch.is_ascii_digit())
}

/// The text of sentence `i` of the source.
fn source_sentence<'t>(text: &'t str, index: &SourceIndex, i: usize) -> &'t str {
    index
        .sentences
        .get(i)
        .and_then(|s| text.get(s.byte_start..s.byte_end))
        .unwrap_or("")
}

/// Tokens between quotation marks: quoted words are compared by the quote check.
fn quoted_tokens(t: &Text) -> HashSet<usize> {
    let mut out = HashSet::default();
    let mut open = false;
    for (i, tok) in t.toks.iter().enumerate() {
        match t.kind_of(tok) {
            TokKind::Mark('"') => open = !open,
            TokKind::Mark('\u{201C}') => open = true,
            TokKind::Mark('\u{201D}') => open = false,
            _ if open => {
                out.insert(i);
            }
            _ => {}
        }
    }
    out
}

/// Whether a text negates anything, or denies a statement as a whole ([`denial_frame`]).
fn negates_or_denies(t: &Text) -> bool {
    denial_frame(t).is_some()
        || t.lowers().enumerate().any(|(j, w)| {
            lexicon::is_negation(w)
                || (lexicon::NEGATING_VERBS.contains(&w) && t.lower(j + 1) == "to")
        })
}

/// The tokens of a frame that denies the statement after it, up to and including its "that",
/// at the start of the text or of a clause: "it is untrue that", "it's not true that", "it
/// isn't the case that", "it was false that". English says a statement is false with an
/// impersonal "it" and a word for truth; what follows "that" is the statement denied.
fn denial_frame(t: &Text) -> Option<Range<usize>> {
    // Words of truth, denied by a negation before them; and words of falsehood on their own.
    // Not "right" nor "wrong": "it is wrong that children go hungry" judges, it does not deny.
    const TRUE: &[&str] = &["true", "correct", "accurate", "the case"];
    const FALSE: &[&str] = &[
        "untrue",
        "false",
        "incorrect",
        "inaccurate",
        "a myth",
        "a falsehood",
    ];
    let words: Vec<(usize, &str)> = t
        .toks
        .iter()
        .enumerate()
        .filter(|(_, tok)| !matches!(t.kind_of(tok), TokKind::Mark('\'' | '\u{2019}')))
        .map(|(i, tok)| (i, t.lower_of(tok)))
        .collect();
    let starts_clause = |n: usize| {
        n == 0
            || matches!(
                words[n - 1].1,
                "," | ";" | ":" | "but" | "and" | "yet" | "—" | "("
            )
    };
    for n in 0..words.len() {
        if !starts_clause(n) {
            continue;
        }
        // "it is", "it's", "it was", "it isn't", "it wasn't": the verb and a negation fused or not.
        let mut m = n + 1;
        let mut negated = false;
        match words[n].1 {
            "it's" | "it\u{2019}s" => {}
            "it" => match words.get(m).map(|w| w.1) {
                Some("is" | "was" | "s" | "'s" | "\u{2019}s") => m += 1,
                Some(w) if w.starts_with("isn") || w.starts_with("wasn") => {
                    m += 1;
                    negated = true;
                }
                _ => continue,
            },
            _ => continue,
        }
        // "isn't" may be one token or "isn" "'" "t".
        if words.get(m).is_some_and(|w| w.1 == "t" || w.1 == "n't") {
            m += 1;
        }
        if words.get(m).is_some_and(|w| lexicon::is_negation(w.1)) {
            negated = true;
            m += 1;
        }
        let rest: Vec<&str> = words[m..].iter().take(3).map(|w| w.1).collect();
        let phrase = |list: &[&str]| {
            list.iter().find_map(|p| {
                let n = p.split(' ').count();
                (rest.len() > n && rest[..n].iter().copied().eq(p.split(' ')) && rest[n] == "that")
                    .then_some(n)
            })
        };
        let len = if negated { phrase(TRUE) } else { phrase(FALSE) };
        if let Some(len) = len {
            let that = words[m + len].0;
            return Some(words[n].0..that + 1);
        }
    }
    None
}

/// The word at `i` with the negation that governs it: "did not approve".
fn phrase_with_negation(t: &Text, i: usize) -> String {
    let clause = t.clause_of(i);
    let from = i.saturating_sub(NEGATION_REACH).max(clause.start);
    let neg = (from..i).find(|&j| {
        lexicon::is_negation(t.lower(j))
            || (lexicon::NEGATING_VERBS.contains(&t.lower(j)) && t.lower(j + 1) == "to")
    });
    match neg {
        Some(j) if t.negated(i) => t.span(j..i + 1).to_owned(),
        _ => t.span(i..i + 1).to_owned(),
    }
}

/// Auxiliaries and adverbs a negation passes over to reach its verb: "did not *fully* approve".
fn is_auxiliary(word: &str) -> bool {
    matches!(
        word,
        "fully"
            | "yet"
            | "ever"
            | "always"
            | "really"
            | "actually"
            | "formally"
            | "officially"
            | "immediately"
            | "directly"
            | "publicly"
    )
}

/// Reporting verbs: the extractor's list of verbs that follow a name ("said", "told",
/// "estimates"), and "according".
fn is_reporting_verb(word: &str) -> bool {
    static VERBS: std::sync::LazyLock<HashSet<&'static str>> =
        std::sync::LazyLock::new(|| cues::NAME_VERBS.split('|').collect());
    word == "according" || VERBS.contains(word)
}

/// Names that the text attributes statements to: the extractor's attribution, else names next
/// to a reporting verb.
fn speakers(t: &Text) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(name) = cues::attributed_to(t.text())
        && name.chars().next().is_some_and(char::is_uppercase)
    {
        out.push(name);
    }
    for s in speakers_of(t) {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// Names within a few words of a reporting verb, or after "according to".
fn speakers_of(t: &Text) -> Vec<String> {
    let mut out = Vec::new();
    for (i, tok) in t.toks.iter().enumerate() {
        if !is_reporting_verb(t.lower_of(tok)) {
            continue;
        }
        if t.lower_of(tok) == "according" && t.lower(i + 1) == "to" {
            // The noun phrase after "according to", up to the next mark.
            let start = i + 2;
            let end = (start..t.toks.len())
                .find(|&j| t.toks[j].is_mark())
                .unwrap_or(t.toks.len());
            let phrase = t.span(start..end).trim().to_owned();
            if !phrase.is_empty() {
                out.push(phrase);
            }
            continue;
        }
        // Before the verb: "Tom Beck, said", "Mayor Tom Beck said".
        let mut j = i;
        while j > 0 && j + 3 > i && t.kind(j - 1) == Some(TokKind::Mark(',')) {
            j -= 1;
        }
        let before = capital_run_back(t, j);
        if !before.is_empty() {
            out.push(t.span(before).to_owned());
            continue;
        }
        // After the verb: "said councillor David Okafor".
        let mut j = i + 1;
        while j < t.toks.len() && j < i + 5 && t.toks[j].is_word() && !t.toks[j].capital() {
            j += 1;
        }
        let after = capital_run(t, j);
        if !after.is_empty() {
            out.push(t.span(after).to_owned());
        }
    }
    out
}

/// The lower-case words of a name that identify it: without titles, offices, connectors and
/// initials.
fn name_words(name: &str) -> Vec<String> {
    let t = Text::plain(name);
    t.toks
        .iter()
        .filter(|tok| tok.is_word())
        .map(|tok| t.lower_of(tok))
        .filter(|w| w.chars().count() > 1)
        .filter(|w| !retrieve::is_stop_word(w) && lexicon::role(w).is_none())
        .filter(|w| {
            !matches!(
                *w,
                "de" | "van" | "von" | "mr" | "mrs" | "ms" | "dr" | "sir" | "dame"
            )
        })
        .map(str::to_owned)
        .collect()
}

/// Whether a name reads as a person's or a body's: two capitalized words or more ("Tom Beck",
/// "Road Safety Trust"), or a phrase after "according to" ("the county police").
fn person_like(name: &str) -> bool {
    let capitals = name
        .split_whitespace()
        .filter(|w| w.starts_with(char::is_uppercase))
        .count();
    capitals >= 2
        || name
            .split_whitespace()
            .next()
            .is_some_and(|w| w.starts_with(char::is_lowercase))
}

/// Capitalized words from `i` on: a name ("Thames Vale Water", "Bank of England").
fn capital_run(t: &Text, i: usize) -> Range<usize> {
    let mut j = i;
    while j < t.toks.len() {
        let tok = &t.toks[j];
        let connector = matches!(t.lower_of(tok), "of" | "de" | "upon" | "on")
            && j > i
            && t.toks
                .get(j + 1)
                .is_some_and(|n| n.capital() && n.is_word());
        if (tok.is_word() && tok.capital() && !is_calendar_word(t.lower_of(tok))) || connector {
            j += 1;
        } else {
            break;
        }
    }
    i..j
}

/// Capitalized words ending just before `i`, leaving out words that open sentences ("The").
fn capital_run_back(t: &Text, i: usize) -> Range<usize> {
    let mut j = i;
    while j > 0 {
        let tok = &t.toks[j - 1];
        if tok.is_word() && tok.capital() && !is_calendar_word(t.lower_of(tok)) {
            j -= 1;
        } else {
            break;
        }
    }
    while j < i && (retrieve::is_stop_word(t.lower(j)) || lexicon::role(t.lower(j)).is_some()) {
        j += 1;
    }
    j..i
}

/// Month and day names: capitalized, but no one's name and no place.
fn is_calendar_word(word: &str) -> bool {
    crate::text::lexicon::month_number(word).is_some()
        || matches!(
            word,
            "monday" | "tuesday" | "wednesday" | "thursday" | "friday" | "saturday" | "sunday"
        )
}

/// Whether a period is a month or a season.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PeriodKind {
    Month,
    Season,
}

/// A month or season a text dates something by.
#[derive(Debug)]
struct Period {
    kind: PeriodKind,
    /// The month's number, or the season's (spring 1 to winter 4; "fall" is autumn).
    key: u8,
    at: usize,
}

/// Words that put a month or season in time: "in March", "since the spring", "last winter".
const PERIOD_BEFORE: &[&str] = &[
    "in", "of", "since", "until", "till", "by", "from", "to", "between", "and", "during", "early",
    "late", "mid", "last", "next", "this", "that", "the", "before", "after", "through",
];

/// The months and seasons `t` names as times. A month is capitalized and next to a number
/// ("March 2023", "4 March") or after a word that puts it in time ("in March"), so that "May"
/// the verb and "June" the name are not months; a season follows such a word or comes before
/// "of" or a year ("the summer of 2023", "in spring"), and "fall" only after "the", "last",
/// "this" or "next".
fn periods_of(t: &Text) -> Vec<Period> {
    let mut out = Vec::new();
    for (i, tok) in t.toks.iter().enumerate() {
        let w = t.lower_of(tok);
        let before = i.checked_sub(1).map(|b| t.lower(b));
        let timed = before.is_some_and(|b| PERIOD_BEFORE.contains(&b));
        let next_number = t.toks.get(i + 1).is_some_and(|n| n.is_number());
        let before_number = i
            .checked_sub(1)
            .and_then(|b| t.toks.get(b))
            .is_some_and(|n| n.is_number());
        if tok.capital()
            && let Some(month) = crate::text::lexicon::month_number(w)
            && (timed || next_number || before_number)
        {
            out.push(Period {
                kind: PeriodKind::Month,
                key: month,
                at: i,
            });
            continue;
        }
        let season = match w {
            "spring" => 1,
            "summer" => 2,
            "autumn" => 3,
            "fall" if before.is_some_and(|b| matches!(b, "the" | "last" | "this" | "next")) => 3,
            "winter" => 4,
            _ => continue,
        };
        if timed || next_number || t.lower(i + 1) == "of" {
            out.push(Period {
                kind: PeriodKind::Season,
                key: season,
                at: i,
            });
        }
    }
    out
}

/// Days of a month written in a text ("14 March", "March 14th"): (day, month, as written).
fn day_months(t: &Text) -> Vec<(u8, u8, String)> {
    let mut out = Vec::new();
    let toks = &t.toks;
    let day_at = |j: usize| -> Option<u8> {
        let tok = toks.get(j)?;
        tok.is_number()
            .then(|| t.lower_of(tok).parse::<u8>().ok())
            .flatten()
            .filter(|d| (1..=31).contains(d))
    };
    for (i, tok) in toks.iter().enumerate() {
        if !tok.capital() {
            continue;
        }
        let Some(month) = crate::text::lexicon::month_number(t.lower_of(tok)) else {
            continue;
        };
        // "14 March", "14th of March"
        let mut before = i.checked_sub(1);
        if before.is_some_and(|b| t.lower(b) == "of") {
            before = before.and_then(|b| b.checked_sub(1));
        }
        if before.is_some_and(|b| matches!(t.lower(b), "st" | "nd" | "rd" | "th")) {
            before = before.and_then(|b| b.checked_sub(1));
        }
        if let Some(b) = before
            && let Some(day) = day_at(b)
        {
            out.push((day, month, t.span(b..i + 1).to_owned()));
            continue;
        }
        if let Some(day) = day_at(i + 1) {
            out.push((day, month, t.span(i..i + 2).to_owned()));
        }
    }
    out
}

/// Whether a superlative ranks something ("the heaviest rainfall", "the most dangerous
/// junction", "the first town to ban…"), rather than ordering or naming ("the first, titled…",
/// "the top floor", "a leading expert"). "first", "last" and "only" rank when "to" or "ever"
/// follows within a few words, or "time".
fn claims_a_rank(t: &Text, word: &str) -> bool {
    match word {
        "top" | "leading" | "most" | "least" => false,
        "first" | "last" | "only" => t.lowers().enumerate().any(|(i, w)| {
            w == word
                && (i + 1..(i + 7).min(t.toks.len()))
                    .any(|n| matches!(t.lower(n), "to" | "ever" | "time"))
        }),
        _ => true,
    }
}

/// Superlatives that say the same: "largest", "biggest", "greatest".
fn superlative_equivalents(word: &str) -> Vec<&str> {
    const GROUPS: &[&[&str]] = &[
        &["largest", "biggest", "greatest"],
        &["highest", "top"],
        &["first", "earliest"],
    ];
    GROUPS
        .iter()
        .find(|g| g.contains(&word))
        .map_or_else(|| vec![word], |g| g.to_vec())
}

/// Whether the quantifier at `start` (of `n` words) counts members of a group ("all of the
/// school's teachers", "most parents"), not times ("every year") or an idiom ("at all", "all
/// three", "all-time").
fn quantifies_a_population(t: &Text, start: usize, n: usize) -> bool {
    let prev = start.checked_sub(1).map(|p| t.lower(p));
    if matches!(prev, Some("at" | "after" | "above" | "once" | "for")) {
        return false;
    }
    let Some(next) = t.toks.get(start + n) else {
        return false;
    };
    if matches!(t.kind_of(next), TokKind::Number | TokKind::Mark('-')) {
        return false;
    }
    const TIMES: &[&str] = &[
        "year", "week", "day", "month", "time", "morning", "evening", "night", "season", "summer",
        "winter", "spring", "autumn", "weekend", "hour", "minute", "but", "along", "over", "too",
        "in", "right",
    ];
    !TIMES.contains(&t.lower_of(next))
}

/// A person's title as the text gives it next to their name.
struct RoleNear {
    offices: HashSet<String>,
    ranks: HashSet<String>,
    text: String,
}

/// The title words next to the name: before it ("Deputy transport minister Paul Reed", "the
/// club's chairman, Tom Arden") or in an appositive after it ("Tom Arden, the club's chairman,").
fn role_near(t: &Text, name_words: &[String]) -> Option<RoleNear> {
    let surname = name_words.last()?;
    let at = t.lowers().position(|w| w == surname.as_str())?;
    let first = (0..=at)
        .rev()
        .take_while(|&j| t.toks[j].is_word() && (t.toks[j].capital() || j == at))
        .last()
        .unwrap_or(at);
    let mut words: Vec<usize> = Vec::new();
    // Before the name, over one comma: a run of title words and their qualifiers.
    let mut j = first;
    let mut commas = 0;
    while j > 0 && first - j < 7 {
        let tok = &t.toks[j - 1];
        match t.kind_of(tok) {
            TokKind::Mark(',') if commas == 0 && j == first => commas += 1,
            TokKind::Word if !is_reporting_verb(t.lower_of(tok)) => words.push(j - 1),
            _ => break,
        }
        j -= 1;
    }
    // After the name: ", the club's chairman,".
    if t.toks
        .get(at + 1)
        .is_some_and(|n| t.kind_of(n) == TokKind::Mark(','))
    {
        let mut j = at + 2;
        while j < t.toks.len() && j < at + 9 && t.toks[j].is_word() {
            words.push(j);
            j += 1;
        }
    }
    let mut offices = HashSet::default();
    let mut ranks = HashSet::default();
    for &j in &words {
        match lexicon::role(t.lower(j)) {
            Some(Role::Office) => {
                offices.insert(t.lower(j).to_owned());
            }
            Some(Role::Rank) => {
                ranks.insert(t.lower(j).to_owned());
            }
            None => {}
        }
    }
    if offices.is_empty() {
        return None;
    }
    let lo = words.iter().copied().min()?;
    let hi = words.iter().copied().max()?;
    let text = if hi < first {
        t.span(lo..hi + 1).to_owned()
    } else {
        t.span(at + 2..hi + 1).to_owned()
    };
    Some(RoleNear {
        offices,
        ranks,
        text,
    })
}

/// A speaker's office as a text gives it beside a reporting verb, with or without a name.
#[derive(Debug)]
struct RoleSpeaker {
    /// The offices, each in one form for its variants ("spokesman" and "spokesperson" are one).
    offices: HashSet<&'static str>,
    ranks: HashSet<String>,
    /// The word just before the office that says which one it is: its portfolio or service
    /// ("health" minister, "police" chief, "council" spokesman), lower-case.
    modifier: Option<String>,
    /// The tokens of the phrase, and the phrase as written.
    words: Vec<usize>,
    text: String,
}

/// Words before an office that describe its holder's standing or time rather than say which
/// office it is ("the new minister", "a senior official"): no portfolio to compare.
const HOLDER_WORDS: &[&str] = &[
    "new",
    "newly",
    "current",
    "then",
    "senior",
    "top",
    "previous",
    "own",
    "longtime",
    "long-serving",
    "veteran",
    "local",
];

/// Determiners that open the noun phrase naming a speaker.
const SPEAKER_DETERMINERS: &[&str] = &["the", "a", "an", "its", "their", "his", "her", "our"];

/// One form for an office's variants: by gender ("spokeswoman"), by spelling ("councilor"), by
/// abbreviation ("CEO", the chief executive).
fn office_form(word: &str) -> Option<&'static str> {
    Some(match word {
        "spokesman" | "spokeswoman" | "spokesperson" => "spokesperson",
        "chair" | "chairman" | "chairwoman" | "chairperson" => "chair",
        "councillor" | "councilor" => "councillor",
        "congressman" | "congresswoman" | "representative" => "representative",
        "ceo" | "executive" => "executive",
        "headteacher" | "principal" => "principal",
        w => lexicon::OFFICES.iter().copied().find(|o| *o == w)?,
    })
}

impl RoleSpeaker {
    /// Whether `other` can be the same speaker: an office in common at the same rank, and no
    /// two different portfolios. A portfolio only one side names, or one that the other side's
    /// text names elsewhere, is no difference.
    fn same_office(&self, other: &RoleSpeaker, ours: &Text, theirs: &Text) -> bool {
        if self.offices.is_disjoint(&other.offices) || self.ranks != other.ranks {
            return false;
        }
        match (&self.modifier, &other.modifier) {
            (Some(a), Some(b)) => {
                a == b || theirs.lowers().any(|w| w == a) || ours.lowers().any(|w| w == b)
            }
            _ => true,
        }
    }

    /// Whether `t` names this office (and its portfolio, when given) anywhere, even in a
    /// possessive: "the opposition leader said the minister's claim was false" may report the
    /// minister's words.
    fn stated_in(&self, t: &Text) -> bool {
        let office = t.lowers().any(|w| {
            let w = w
                .strip_suffix("'s")
                .or_else(|| w.strip_suffix("\u{2019}s"))
                .unwrap_or(w);
            office_form(w).is_some_and(|o| self.offices.contains(o))
        });
        office
            && self
                .modifier
                .as_ref()
                .is_none_or(|m| t.lowers().any(|w| w == m.as_str()))
    }
}

/// The speakers `t` gives by office, each beside a reporting verb: before it ("the finance
/// minister said", "Health Minister Ana Ruiz said", "Ana Ruiz, the health minister, said"), after
/// it ("said the police chief", "said a spokesperson for the council"), or after "according to".
fn role_speakers(t: &Text) -> Vec<RoleSpeaker> {
    let mut out = Vec::new();
    let n = t.toks.len();
    for i in 0..n {
        let verb = t.lower(i);
        if !t.toks[i].is_word() || !is_reporting_verb(verb) {
            continue;
        }
        let phrase: Vec<usize> = if verb == "according" {
            if t.lower(i + 1) != "to" {
                continue;
            }
            words_after(t, i + 2)
        } else {
            let before = words_before(t, i);
            if before.iter().any(|&j| office_form(t.lower(j)).is_some()) {
                before
            } else if INVERTED_VERBS.contains(&verb) {
                words_after(t, i + 1)
            } else {
                continue;
            }
        };
        if let Some(role) = role_of(t, phrase) {
            out.push(role);
        }
    }
    out
}

/// The noun phrase ending before the reporting verb at `i`: back over "has", "had" or "also"
/// and one comma (an appositive), to a determiner, a mark or seven words; a determiner after
/// "for", "of" or "at" is read past ("a spokesperson for the council said").
fn words_before(t: &Text, i: usize) -> Vec<usize> {
    let mut j = i;
    while j > 0 && matches!(t.lower(j - 1), "has" | "have" | "had" | "also") {
        j -= 1;
    }
    if j > 0 && t.kind(j - 1) == Some(TokKind::Mark(',')) {
        j -= 1;
    }
    let mut words = Vec::new();
    while j > 0 && words.len() < 7 {
        let tok = &t.toks[j - 1];
        if !tok.is_word() {
            break;
        }
        if SPEAKER_DETERMINERS.contains(&t.lower_of(tok))
            && !(j >= 2 && matches!(t.lower(j - 2), "for" | "of" | "at"))
        {
            break;
        }
        words.push(j - 1);
        j -= 1;
    }
    words.reverse();
    words
}

/// Reporting verbs that may come before their speaker ("…, said the police chief"). After
/// "told" or "warned" comes whom they spoke to; after "found", what was found.
const INVERTED_VERBS: &[&str] = &[
    "said",
    "says",
    "added",
    "explained",
    "noted",
    "wrote",
    "argued",
    "stated",
];

/// The noun phrase after a reporting verb or "according to": past a determiner, the words up to
/// the office and the name or offices right after it ("the police chief", "councillor David
/// Okafor", "a spokesperson"), where the clause ends or a preposition follows ("a spokesperson
/// for the council"): "said the minister had resigned" reports something of the minister.
fn words_after(t: &Text, start: usize) -> Vec<usize> {
    let mut j = start;
    if SPEAKER_DETERMINERS.contains(&t.lower(j)) {
        j += 1;
    }
    let Some(office) = (j..(j + 4).min(t.toks.len()))
        .take_while(|&k| t.toks[k].is_word())
        .find(|&k| office_form(t.lower(k)).is_some())
    else {
        return Vec::new();
    };
    let mut end = office + 1;
    while end < t.toks.len()
        && t.toks[end].is_word()
        && (t.toks[end].capital() || office_form(t.lower(end)).is_some())
    {
        end += 1;
    }
    let closes = t.toks.get(end).is_none_or(|next| {
        !next.is_word()
            || matches!(
                t.lower_of(next),
                "for" | "of" | "at" | "on" | "in" | "to" | "from" | "with" | "and"
            )
    });
    if closes {
        (j..end).collect()
    } else {
        Vec::new()
    }
}

/// The office, rank and portfolio a phrase gives, when it names an office.
fn role_of(t: &Text, words: Vec<usize>) -> Option<RoleSpeaker> {
    let mut offices = HashSet::default();
    let mut ranks = HashSet::default();
    for (n, &j) in words.iter().enumerate() {
        let w = t.lower(j);
        // "Chief" before another office only ranks it ("chief executive", "chief inspector").
        let chief_of = w == "chief"
            && words
                .get(n + 1)
                .is_some_and(|&k| office_form(t.lower(k)).is_some());
        if let Some(office) = office_form(w).filter(|_| !chief_of) {
            offices.insert(office);
        } else if lexicon::role(w) == Some(Role::Rank) {
            ranks.insert(w.to_owned());
        }
    }
    if offices.is_empty() {
        return None;
    }
    let office_at = words
        .iter()
        .position(|&j| office_form(t.lower(j)).is_some())?;
    let modifier = office_at
        .checked_sub(1)
        .map(|n| t.lower(words[n]))
        .filter(|w| {
            lexicon::role(w).is_none()
                && !HOLDER_WORDS.contains(w)
                && !retrieve::is_stop_word(w)
                && !w.ends_with("'s")
                && !w.ends_with("\u{2019}s")
        })
        .map(str::to_owned);
    let (lo, hi) = (*words.first()?, *words.last()?);
    Some(RoleSpeaker {
        offices,
        ranks,
        modifier,
        text: t.span(lo..hi + 1).to_owned(),
        words,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(claim: &str, source: &str) -> Vec<Finding> {
        let page = PageIndex::new(source);
        let all = 0..page.index().sentences.len();
        let windows = std::slice::from_ref(&all);
        let a = Alignment::new(claim, parse_figures(claim), &page, windows, 0.1, 0.2);
        a.findings()
    }

    fn elements(claim: &str, source: &str) -> Vec<(ClaimElement, bool)> {
        findings(claim, source)
            .into_iter()
            .map(|f| (f.element, f.contradiction))
            .collect()
    }

    #[test]
    fn clauses_split_where_each_part_states_something() {
        let t = Text::new(
            "Exports fell 3% in the first half of the year and imports rose 6%, the office said.",
            &mut |_| 0,
        );
        let parts: Vec<&str> = t.clauses.iter().map(|c| t.span(c.clone())).collect();
        assert_eq!(
            parts,
            [
                "Exports fell 3% in the first half of the year",
                "and imports rose 6%, the office said."
            ]
        );
        let t = Text::new("Sales of cars and trucks rose 5%.", &mut |_| 0);
        assert_eq!(t.clauses.len(), 1);
    }

    #[test]
    fn opposite_directions_contradict() {
        let source = "Ridership on the city's buses rose 4% last year, the transit agency said.";
        let got = findings("Ridership on the city's buses fell 4% last year.", source);
        assert_eq!(got[0].element, ClaimElement::Direction, "{got:?}");
        assert!(got[0].problem.contains("fell") && got[0].problem.contains("rose"));
        assert!(elements("Ridership on the city's buses rose 4% last year.", source).is_empty());
        assert!(
            elements(
                "Ridership on the city's buses did not fall last year.",
                source
            )
            .is_empty()
        );
    }

    #[test]
    fn a_negated_predicate_contradicts_a_plain_one() {
        let source = "The minister attended the summit in Oslo on Friday.";
        assert_eq!(
            elements("The minister did not attend the summit in Oslo.", source),
            [(ClaimElement::Negation, true)]
        );
        assert!(elements("The minister attended the summit in Oslo.", source).is_empty());
    }

    #[test]
    fn a_figure_given_to_another_subject_is_found() {
        let source = "Exports fell 3% in the first half of the year and imports rose 6%.";
        let got = elements("Imports rose 3% in the first half.", source);
        assert!(got.contains(&(ClaimElement::Subject, true)), "{got:?}");
        let got = elements("Imports rose 6% in the first half of the year.", source);
        assert!(got.is_empty(), "{got:?}");
    }

    #[test]
    fn units_currencies_and_years() {
        assert_eq!(
            elements(
                "Turnout rose by 5% at the election.",
                "Turnout rose by 5 percentage points at the election."
            ),
            [(ClaimElement::Unit, true)]
        );
        assert_eq!(
            elements(
                "The repairs will cost €45 million.",
                "The repairs will cost $45 million."
            ),
            [(ClaimElement::Currency, true)]
        );
        assert_eq!(
            elements(
                "The factory closed in 2009.",
                "The factory closed in 2011 after 80 years."
            ),
            [(ClaimElement::Date, true)]
        );
    }

    #[test]
    fn a_statement_denied_on_one_side_and_stated_on_the_other() {
        // One contradiction: of polarity, or of direction when the statement denied has a
        // direction word ("cut"), which the denial flips.
        let contradicted = |got: Vec<(ClaimElement, bool)>| {
            matches!(
                got[..],
                [(ClaimElement::Negation | ClaimElement::Direction, true)]
            )
        };
        for (stated, negated, denied) in [
            (
                "The council cut the library budget by 12% in 2023.",
                "The council did not cut the library budget in 2023.",
                "the council cut the library budget in 2023.",
            ),
            (
                "The board approved the stadium plan in March.",
                "The board did not approve the stadium plan in March.",
                "the board approved the stadium plan in March.",
            ),
        ] {
            let plain = format!("{}{}", denied[..1].to_uppercase(), &denied[1..]);
            for frame in [
                "It is untrue that",
                "It's false that",
                "It isn't true that",
                "It is not the case that",
                "It was incorrect that",
            ] {
                let denial = format!("{frame} {denied}");
                let got = elements(&denial, stated);
                assert!(contradicted(got.clone()), "claim {denial:?}: {got:?}");
                let got = elements(&plain, &denial);
                assert!(contradicted(got.clone()), "source {denial:?}: {got:?}");
                // Denied on both sides, or denied and negated: they agree.
                assert_eq!(elements(&denial, &denial), [], "{denial:?}");
                assert_eq!(elements(&denial, negated), [], "{denial:?} / {negated:?}");
            }
        }
        // Said by someone, or a judgement rather than a denial: nothing denied.
        for not_denied in [
            "The mayor said it is untrue that the council cut the library budget in 2023.",
            "It is wrong that the council cut the library budget in 2023.",
            "It is true that the council cut the library budget in 2023.",
        ] {
            assert!(
                denial_frame(&Text::plain(not_denied)).is_none(),
                "{not_denied:?}"
            );
        }
    }

    #[test]
    fn a_month_or_season_swapped() {
        let source = "The plant closed in May 2023 after a long dispute over pay.";
        assert_eq!(
            elements(
                "The plant closed in March 2023 after a long dispute over pay.",
                source
            ),
            [(ClaimElement::Date, true)]
        );
        assert_eq!(
            elements(
                "The plant closed in May 2023 after a long dispute over pay.",
                source
            ),
            []
        );
        let source = "Flooding hit the valley in the winter of 2023, closing the main road.";
        assert_eq!(
            elements(
                "Flooding hit the valley in the summer of 2023, closing the main road.",
                source
            ),
            [(ClaimElement::Date, true)]
        );
        assert_eq!(
            elements(
                "Flooding hit the valley in the winter of 2023, closing the main road.",
                source
            ),
            []
        );
        // "May" the verb and "June" the name are no months.
        assert!(periods_of(&Text::plain("Prices May rise, June Carter said.")).is_empty());
        // A sentence on one of the claim's months alone contradicts none of them.
        let got = elements(
            "The rule was passed in March 2023 and took effect in May 2023 across the county.",
            "The rule took effect in May 2023 across the county, the council said.",
        );
        assert!(!got.contains(&(ClaimElement::Date, true)), "{got:?}");
    }

    #[test]
    fn speakers_and_titles() {
        let source = "\"We cannot keep the pool open,\" said councillor David Okafor.";
        let got = elements(
            "\"We cannot keep the pool open,\" said councillor Maria Hughes.",
            source,
        );
        assert_eq!(got, [(ClaimElement::Speaker, true)]);
        let got = elements(
            "Transport minister Paul Reed said the line would reopen.",
            "Deputy transport minister Paul Reed said the line would reopen.",
        );
        assert_eq!(got, [(ClaimElement::Title, true)]);
    }

    #[test]
    fn a_record_high_against_a_record_low_is_a_direction_contradiction() {
        let got = elements(
            "Prices hit a record high in March.",
            "Prices hit a record low in March.",
        );
        assert_eq!(got, [(ClaimElement::Direction, true)]);
        let got = elements(
            "Bookings fell to an all-time low last winter.",
            "Bookings rose to an all-time high last winter.",
        );
        assert!(got.contains(&(ClaimElement::Direction, true)), "{got:?}");
        // Written otherwise: hyphenated, unhyphenated, over a span of years.
        for (claim, source) in [
            (
                "Prices hit a record-high in March.",
                "Prices hit a record low in March.",
            ),
            (
                "Prices hit an all time high in March.",
                "Prices hit an all time low in March.",
            ),
            (
                "Sterling hit a 20-year low against the dollar.",
                "Sterling hit a 20-year high against the dollar.",
            ),
            (
                "Sterling hit a five-year low against the dollar.",
                "Sterling hit a five-year high against the dollar.",
            ),
        ] {
            let got = elements(claim, source);
            assert_eq!(got, [(ClaimElement::Direction, true)], "{claim} / {source}");
        }
        // The same extreme in other words, and "low" or "high" with no record.
        for (claim, source) in [
            (
                "Prices hit a record high in March.",
                "Prices reached an all-time high in March.",
            ),
            (
                "Prices hit a record high in March.",
                "Prices hit their highest level on record in March.",
            ),
            (
                "Prices hit a record high in March.",
                "Prices hit a record high in March, while wages stayed low.",
            ),
            (
                "The high court sat for a year.",
                "The court sat for a year, with turnover of staff low.",
            ),
        ] {
            let got = elements(claim, source);
            assert!(
                !got.contains(&(ClaimElement::Direction, true)),
                "{claim} / {source}: {got:?}"
            );
        }
    }

    #[test]
    fn an_ordinal_changed_in_a_followed_sentence_contradicts() {
        let figures = |claim: &str, source: &str| {
            elements(claim, source)
                .into_iter()
                .filter(|(e, _)| *e == ClaimElement::Figure)
                .collect::<Vec<_>>()
        };
        let contradicted = [(ClaimElement::Figure, true)];
        assert_eq!(
            figures(
                "Rents in the city rose for the third consecutive year, the council said.",
                "Rents in the city rose for a second consecutive year, the council said."
            ),
            contradicted
        );
        assert_eq!(
            figures(
                "The club finished the season in fifth place in the league.",
                "The club finished the season in seventh place in the league."
            ),
            contradicted
        );
        // On a page of several sentences, as a cited page is: the words a one-sentence page
        // lacks ("3", "rd") would otherwise outweigh the words the claim follows.
        assert_eq!(
            figures(
                "It is now the country's 3rd largest port by tonnage.",
                "The harbour opened in 1890. It is now the country's 2nd largest port by \
                 tonnage. Cranes were added later. Ferries leave daily."
            ),
            contradicted
        );
        // The same count written otherwise, or no count on one side, is not a change.
        assert!(
            figures(
                "Rents in the city rose for a third straight year, the council said.",
                "Rents in the city rose for the third consecutive year, the council said."
            )
            .is_empty()
        );
        assert!(
            figures(
                "It is now the country's 3rd largest port by tonnage.",
                "The harbour opened in 1890. It is now the country's third largest port by \
                 tonnage. Cranes were added later. Ferries leave daily."
            )
            .is_empty()
        );
    }

    #[test]
    fn a_speaker_given_by_office_is_compared_with_the_office_the_source_gives() {
        let said = |claim: &str, source: &str| {
            elements(claim, source)
                .into_iter()
                .filter(|(e, _)| *e == ClaimElement::Speaker)
                .collect::<Vec<_>>()
        };
        let contradicted = [(ClaimElement::Speaker, true)];
        // Another office, before or after the verb.
        assert_eq!(
            said(
                "The finance minister said the scheme would cost more than planned.",
                "The opposition leader said the scheme would cost more than planned."
            ),
            contradicted
        );
        assert_eq!(
            said(
                "Arrests fell in the spring, said the police chief.",
                "Arrests fell in the spring, the fire chief said."
            ),
            contradicted
        );
        assert_eq!(
            said(
                "A spokesperson for the trust said waiting lists had fallen.",
                "The trust's chief executive said waiting lists had fallen."
            ),
            contradicted
        );
        // After "according to", and with a verb the rule was not written around.
        assert_eq!(
            said(
                "According to the finance minister, the scheme would cost more than planned.",
                "According to the opposition leader, the scheme would cost more than planned."
            ),
            contradicted
        );
        assert_eq!(
            said(
                "The scheme would cost more than planned, the finance minister warned.",
                "The scheme would cost more than planned, the opposition leader warned."
            ),
            contradicted
        );
        // The same office: named, in another variant, in an appositive, at no named portfolio.
        for (claim, source) in [
            (
                "The health minister said the clinics would open in March.",
                "Health Minister Ana Ruiz said the clinics would open in March.",
            ),
            (
                "A council spokesman said the bridge would reopen in May.",
                "A spokesperson for the council said the bridge would reopen in May.",
            ),
            (
                "The minister said the clinics would open in March.",
                "Ana Ruiz, the health minister, said the clinics would open in March.",
            ),
            (
                "The chief executive said profits would double.",
                "The company's CEO said profits would double.",
            ),
            (
                "The new minister said the clinics would open in March.",
                "The health minister said the clinics would open in March.",
            ),
        ] {
            assert_eq!(said(claim, source), [], "{claim} / {source}");
        }
        // No office to compare: a named speaker, or what was said of the office.
        for (claim, source) in [
            (
                "The club's manager said the stand would hold 4,000 fans.",
                "Tom Reed said the stand would hold 4,000 fans.",
            ),
            (
                "The inquiry found the minister had misled parliament.",
                "The committee chair said the minister had misled parliament.",
            ),
            (
                "The finance minister said the scheme would cost more than planned.",
                "The opposition leader said the finance minister's claim that the scheme would cost more than planned was false.",
            ),
        ] {
            assert_eq!(said(claim, source), [], "{claim} / {source}");
        }
    }

    #[test]
    fn added_specifics_are_unsupported() {
        let source = "The storm brought heavy rainfall to the county, flooding several roads.";
        let got = elements(
            "The storm brought the heaviest rainfall to the county.",
            source,
        );
        assert_eq!(got, [(ClaimElement::Superlative, false)]);
        let source = "Several of the school's teachers joined the strike on Monday.";
        let got = elements(
            "All of the school's teachers joined the strike on Monday.",
            source,
        );
        assert_eq!(got, [(ClaimElement::Quantifier, false)]);
        let source = "The chain opened its first store in York in 1987.";
        let got = elements("The chain opened its first store in Leeds in 1987.", source);
        assert_eq!(got, [(ClaimElement::Place, false)]);
    }

    /// Rules that read a passage of several sentences, not one aligned clause.
    fn windows(claim: &str, source: &str, passage: Range<usize>) -> Vec<(ClaimElement, bool)> {
        let page = PageIndex::new(source);
        let windows = std::slice::from_ref(&passage);
        let a = Alignment::new(claim, parse_figures(claim), &page, windows, 0.1, 0.2);
        a.findings()
            .into_iter()
            .map(|f| (f.element, f.contradiction))
            .collect()
    }

    #[test]
    fn a_slot_changed_in_a_sentence_the_claim_follows_is_found() {
        let source = "Wang joined the museum in 2009. \
                      She is the Melvin Seiden Curator of Chinese Art. \
                      Her exhibitions have toured Asia.";
        let got = elements("She is the Melvin Yale Curator of Chinese Art.", source);
        assert!(got.contains(&(ClaimElement::Name, true)), "{got:?}");
        let source = "The novel was first published in December of 1865 by a London house.";
        let got = elements(
            "The novel was first published in December of 1864 by a London house.",
            source,
        );
        assert!(got.contains(&(ClaimElement::Date, true)), "{got:?}");
        // A fragment that shares two words with a sentence does not follow it.
        let source = "The revitalized Verve Records is home to imprints including Impulse! and Decca Records.";
        let got = elements("Records and Decca Records.", source);
        assert!(!got.contains(&(ClaimElement::Name, true)), "{got:?}");
        let source = "The novel was first published in December of 1865 by a London house.";
        // The same words said otherwise change nothing.
        assert!(
            elements(
                "The novel was first published by a London house in December of 1865.",
                source
            )
            .is_empty()
        );
    }

    #[test]
    fn a_negation_the_stating_sentence_lacks_contradicts_it() {
        let source = "Children under five can receive the vaccine at any clinic in the region.";
        let got = elements(
            "The vaccine is not available to children under five at clinics in the region.",
            source,
        );
        assert!(got.contains(&(ClaimElement::Negation, true)), "{got:?}");
        // A sentence that negates part of the claim itself speaks to its polarity.
        let source = "Children under five cannot receive the vaccine at clinics in the region.";
        let got = elements(
            "The vaccine is not available to children under five at clinics in the region.",
            source,
        );
        assert!(!got.contains(&(ClaimElement::Negation, true)), "{got:?}");
    }

    #[test]
    fn a_year_stated_elsewhere_on_the_page_does_not_date_the_claim() {
        let source = "The factory was sold to a new owner in 2009. The new owner kept the staff \
                      and modernised two of the lines over the following seasons. Orders from \
                      abroad grew for some time. The factory closed its doors in 2011, after 80 \
                      years of production.";
        assert_eq!(
            elements("The factory closed its doors in 2009.", source),
            [(ClaimElement::Date, true)]
        );
        assert!(elements("The factory closed its doors in 2011.", source).is_empty());
        // The year in the sentence beside the one that states the claim dates it.
        let beside = "In 2011, a long decline ended. The factory closed its doors after 80 \
                      years of production, the union said.";
        assert!(elements("The factory closed its doors in 2011.", beside).is_empty());
    }

    #[test]
    fn a_year_the_passage_never_gives_is_unsupported() {
        let source = "The museum reopened after a long renovation of its east wing, the city said.";
        let got = elements(
            "The museum reopened in 2019 after a long renovation of its east wing.",
            source,
        );
        assert_eq!(got, [(ClaimElement::Date, false)]);
    }

    #[test]
    fn a_place_named_by_its_adjective_is_stated() {
        let source = "The Italian festival drew thousands of visitors to its opening weekend.";
        let got = elements(
            "The festival in Italy drew thousands of visitors to its opening weekend.",
            source,
        );
        assert!(got.is_empty(), "{got:?}");
    }

    #[test]
    fn a_direction_is_read_across_the_passage_that_states_the_claim() {
        let source = "The transit agency published its annual report on Monday. \
                      Passenger numbers on the buses declined over the year. \
                      The agency blamed the strikes.";
        let claim = "Passenger numbers on the transit agency's buses grew over the year, its annual report says.";
        let got = windows(claim, source, 0..3);
        assert!(got.contains(&(ClaimElement::Direction, true)), "{got:?}");
        let agreeing = "Passenger numbers on the transit agency's buses declined over the year, its annual report says.";
        let got = windows(agreeing, source, 0..3);
        assert!(!got.iter().any(|(_, c)| *c), "{got:?}");
    }
}
