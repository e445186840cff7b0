//! A sentence read for judging: its words, numbers and marks with their stems, its clauses,
//! figures, direction words (with negation applied) and negated predicates. A claim is read once;
//! a page's sentences are read once and kept with the page ([`super::PageIndex`]).

use crate::text::tokens::FoldHashSet as HashSet;
use std::ops::Range;
use std::sync::Arc;

use super::retrieve::{self, TokenId};
use crate::model::Figure;
use crate::text::figures::{number_word, parse_figures};
use crate::text::lexicon::{self, Axis};

/// How many words before a word a negation may stand and still negate it ("did not fully
/// approve").
pub(crate) const NEGATION_REACH: usize = 4;

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
    pub(crate) lowered: u32,
    pub(crate) kind: Kind,
    pub(crate) flags: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Word,
    Number,
    Mark,
}

/// [`Tok::flags`]: starts with a capital letter.
pub(crate) const CAPITAL: u8 = 1;
/// [`Tok::flags`]: the lower-case form is in [`Text::lowered`], not the text.
pub(crate) const LOWERED: u8 = 2;
/// [`Tok::flags`]: a word or number that carries content: not a stop word, not a mark.
pub(crate) const CONTENT: u8 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokKind {
    Word,
    Number,
    Mark(char),
}

impl Tok {
    pub(crate) fn is_word(&self) -> bool {
        self.kind == Kind::Word
    }

    pub(crate) fn is_number(&self) -> bool {
        self.kind == Kind::Number
    }

    pub(crate) fn is_mark(&self) -> bool {
        self.kind == Kind::Mark
    }

    /// Starts with a capital letter.
    pub fn capital(&self) -> bool {
        self.flags & CAPITAL != 0
    }

    /// A word or number that carries content: not a stop word, not a mark.
    pub(crate) fn is_content(&self) -> bool {
        self.flags & CONTENT != 0
    }

    pub(crate) fn range(&self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// Words (letters, with apostrophes inside), numbers (digits, with `.` or `,` inside) and marks,
/// each with its stem's id as `stem_id` gives it; returns the tokens and the lower-case forms
/// that are not the text's own letters.
pub(crate) fn tokenize(
    text: &str,
    stem_id: &mut dyn FnMut(&str) -> TokenId,
) -> (Vec<Tok>, Lowered) {
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
pub(crate) struct Lowered {
    pub(crate) text: String,
    pub(crate) ends: Vec<u32>,
}

impl Lowered {
    /// Adds a form; returns its number.
    pub(crate) fn push(&mut self, lower: &str) -> u32 {
        self.text.push_str(lower);
        self.ends
            .push(u32::try_from(self.text.len()).unwrap_or(u32::MAX));
        u32::try_from(self.ends.len() - 1).unwrap_or(u32::MAX)
    }

    pub(crate) fn get(&self, n: u32) -> &str {
        let n = n as usize;
        let start = n.checked_sub(1).map_or(0, |p| self.ends[p] as usize);
        let end = self.ends.get(n).map_or(start, |&e| e as usize);
        self.text.get(start..end).unwrap_or("")
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        retrieve::heap_allocation(self.text.capacity())
            + retrieve::heap_allocation(self.ends.capacity() * 4)
    }
}

/// A sentence (of the claim or the source) read for alignment.
#[derive(Debug, Clone)]
pub struct Text {
    /// The text this one is part of, shared (a page's sentences share the page's text), and
    /// this one's byte range in it.
    pub(crate) source: Arc<str>,
    pub(crate) range: Range<u32>,
    pub toks: Box<[Tok]>,
    /// The lower-case forms of the tokens that lower-casing changed.
    pub(crate) lowered: Lowered,
    /// Clauses as ranges of `toks`, in order, covering every token.
    pub clauses: Box<[Range<usize>]>,
    /// Figures with the index of their first token.
    pub figures: Box<[(Figure, usize)]>,
    /// The tokens that carry a direction in context, ascending, and the direction each carries
    /// (with negation applied), in `directions`: most tokens carry none.
    pub(crate) direction_at: Box<[u32]>,
    pub(crate) directions: Box<[(Axis, bool)]>,
    /// The distinct stems of its content words, ascending.
    pub(crate) content_stems: Box<[TokenId]>,
    /// Its predicates (content words that carry no direction) that a negation reaches,
    /// ascending: what the negation rule compares, read once for a page's sentence.
    pub(crate) negated_predicates: Box<[u32]>,
    /// Where the statement a [`denial_frame`] denies starts ("it is untrue that | the council
    /// …"), when the text opens with one.
    pub(crate) denied_from: Option<u32>,
}

/// Words that end a clause before them when what follows states something of its own.
pub(crate) const CLAUSE_WORDS: &[&str] = &["and", "but", "while", "whereas", "although", "though"];

impl Text {
    /// Reads a text of its own (a claim's), its stems numbered by `stem_id`.
    pub fn new(text: &str, stem_id: &mut dyn FnMut(&str) -> TokenId) -> Text {
        Text::with_figures(text, parse_figures(text), stem_id)
    }

    /// A text whose figures were already read (a claim's, by extraction).
    pub(crate) fn with_figures(
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
        let text = source.get(range.clone()).unwrap_or("");
        let mut figures = parse_figures(text);
        crate::text::figures::apply_cell_heading(text, &mut figures);
        Text::read(Arc::clone(source), range, figures, stem_id)
    }

    /// Tokens only, no stems: for reading names and dates.
    pub(crate) fn plain(text: &str) -> Text {
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

    pub(crate) fn read(
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
            // Tokens are in text order: the first that ends past the figure's start.
            let t = toks.partition_point(|t| t.end as usize <= start);
            if t < toks.len() {
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
    pub(crate) fn predicates(&self) -> impl Iterator<Item = (usize, bool)> + '_ {
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

    pub(crate) fn lower_of(&self, t: &Tok) -> &str {
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
    pub(crate) fn stem_of(&self, t: &Tok) -> std::borrow::Cow<'_, str> {
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
    pub(crate) fn has_direction(&self, i: usize) -> bool {
        u32::try_from(i).is_ok_and(|i| self.direction_at.binary_search(&i).is_ok())
    }

    /// The tokens that carry a direction, with each direction: (token, axis, polarity).
    pub(crate) fn all_directions(&self) -> impl Iterator<Item = (usize, Axis, bool)> + '_ {
        self.direction_at
            .iter()
            .zip(&self.directions)
            .map(|(&i, &(a, p))| (i as usize, a, p))
    }

    pub(crate) fn clause_of(&self, i: usize) -> Range<usize> {
        self.clause_index(i)
            .map_or(0..self.toks.len(), |k| self.clauses[k].clone())
    }

    /// The index in [`Text::clauses`] of the clause token `i` is in (clauses are in order).
    pub(crate) fn clause_index(&self, i: usize) -> Option<usize> {
        let k = self.clauses.partition_point(|c| c.end <= i);
        self.clauses.get(k).filter(|c| c.contains(&i)).map(|_| k)
    }

    /// Whether a figure starts in `range` of tokens (figures are in text order).
    pub(crate) fn has_figure_in(&self, range: &Range<usize>) -> bool {
        let k = self.figures.partition_point(|(_, f)| *f < range.start);
        self.figures.get(k).is_some_and(|(_, f)| *f < range.end)
    }

    /// The part of the sentence token `i` is in, where a sentence joins several statements ("…
    /// had been misused, and it has offered …"): cut at semicolons and colons, and at a comma
    /// before a joining word ([`CLAUSE_WORDS`]), whether or not each part states a figure or a
    /// direction as a clause does.
    pub(crate) fn part_of(&self, i: usize) -> Range<usize> {
        let cut_before = |j: usize| -> bool {
            match self.toks.get(j).map(|t| self.kind_of(t)) {
                Some(TokKind::Mark(';' | ':')) => true,
                Some(TokKind::Mark(',')) => CLAUSE_WORDS.contains(&self.lower(j + 1)),
                _ => false,
            }
        };
        let start = (0..i).rev().find(|&j| cut_before(j)).map_or(0, |j| j + 1);
        let end = (i + 1..self.toks.len())
            .find(|&j| cut_before(j))
            .unwrap_or(self.toks.len());
        start..end
    }

    /// Whether token `i` is in a statement the text denies as a whole ([`denial_frame`]).
    pub(crate) fn denied(&self, i: usize) -> bool {
        self.denied_from.is_some_and(|from| i >= from as usize)
    }

    /// Whether a negation stands within reach before token `i`, in its clause.
    pub(crate) fn negated(&self, i: usize) -> bool {
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
    pub(crate) fn span(&self, range: Range<usize>) -> &str {
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
    pub(crate) fn stems(&self, range: Range<usize>, skip: &dyn Fn(usize) -> bool) -> Stems {
        Stems::of(
            range
                .filter(|&i| self.toks[i].is_content() && !skip(i))
                .map(|i| self.toks[i].stem)
                .collect(),
        )
    }

    /// Whether token range `range` holds a content word of stem `stem`.
    pub(crate) fn holds(&self, range: Range<usize>, stem: TokenId) -> bool {
        if range.start == 0 && range.end >= self.toks.len() {
            return self.content_stems.binary_search(&stem).is_ok();
        }
        self.toks[range]
            .iter()
            .any(|t| t.stem == stem && t.is_content())
    }

    pub(crate) fn figure_tokens_where(&self, keep: impl Fn(&Figure) -> bool) -> HashSet<usize> {
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
pub(crate) struct Stems(pub(crate) Vec<TokenId>);

impl Stems {
    pub(crate) fn of(mut ids: Vec<TokenId>) -> Stems {
        ids.sort_unstable();
        ids.dedup();
        Stems(ids)
    }

    pub(crate) fn contains(&self, id: TokenId) -> bool {
        self.0.binary_search(&id).is_ok()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = TokenId> + '_ {
        self.0.iter().copied()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn len(&self) -> usize {
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
pub(crate) fn page_days(text: &str) -> Vec<(u8, u8, String)> {
    day_months(&Text::plain(text))
}

/// How many words from a ruling word ("dismissed") the thing ruled on ("appeal") may stand.
const RULING_REACH: usize = 5;

/// The direction of token `i` in context, before negation.
pub(crate) fn direction_at(
    t: &Text,
    i: usize,
    figure_at: &HashSet<usize>,
) -> &'static [(Axis, bool)] {
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
    // A ruling on an appeal, a claim, an application: its outcome, whatever axis the word
    // has elsewhere ("dismissed" staff, "allowed" dogs).
    if let Some(success) = lexicon::ruling(lower) {
        // Named within a few words: "dismissed Reyes's appeal", "the appeal was dismissed".
        let near = i.saturating_sub(RULING_REACH)..(i + RULING_REACH + 1).min(t.toks.len());
        let named = near
            .filter(|&j| j != i)
            .any(|j| lexicon::RULING_NOUNS.contains(&t.lower(j)));
        if named {
            return if success {
                &[(Axis::Ruling, true)]
            } else {
                &[(Axis::Ruling, false)]
            };
        }
    }
    // "put off", "pushed back": a decision deferred.
    if matches!(lower, "put" | "pushed") && matches!(next, Some("off" | "back")) {
        return &[(Axis::Decision, false)];
    }
    lexicon::directions(lower, next, next_is_figure)
}
/// Whether the "high" or "low" at `i` names an extreme by the span it is measured over: "a
/// record high", "a record-high", "an all-time low", "an all time low", "a 20-year high", "a
/// five-year low". Hyphens between the words are left out.
pub(crate) fn extreme_noun(t: &Text, i: usize) -> bool {
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
pub(crate) fn clauses(text: &Text, figure_at: &HashSet<usize>) -> Vec<Range<usize>> {
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

/// The tokens of a frame that denies the statement after it, up to and including its "that",
/// at the start of the text or of a clause: "it is untrue that", "it's not true that", "it
/// isn't the case that", "it was false that". English says a statement is false with an
/// impersonal "it" and a word for truth; what follows "that" is the statement denied.
pub(crate) fn denial_frame(t: &Text) -> Option<Range<usize>> {
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

/// Days of a month written in a text ("14 March", "March 14th"): (day, month, as written).
pub(crate) fn day_months(t: &Text) -> Vec<(u8, u8, String)> {
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

/// Month and day names: capitalized, but no one's name and no place.
pub(crate) fn is_calendar_word(word: &str) -> bool {
    crate::text::lexicon::month_number(word).is_some()
        || matches!(
            word,
            "monday" | "tuesday" | "wednesday" | "thursday" | "friday" | "saturday" | "sunday"
        )
}
