//! Figures stated in a sentence, normalized to value, unit and scale so a claim's figure can be
//! compared with its source's.
//!
//! [`parse_figures`] reads claims and arbitrary web text alike. It splits the text into tokens
//! (numbers, words, symbols, each knowing whether whitespace precedes it) in one pass, then walks
//! the tokens once; there is no regex and no backtracking, so the cost is linear in the text.
//!
//! # What is a figure
//! - **Percent**: "73%", "12 percent", "3.5 per cent", "five pct"; **percentage points**:
//!   "3 percentage points", "2pp", "50 basis points" (0.5 points).
//! - **Money**: a currency symbol or code before the amount ("$", "US$", "A$", "€", "£", "¥",
//!   "₹", "USD 5", "Rs. 40") or a code or currency word after it ("5 million USD", "20 euros"),
//!   with a scale ("billion", "bn", "m", "k") and a period or unit it is per ("$9/month",
//!   "$44 per year", "$44 a year", "$9 monthly", "$5 per user").
//! - **Count**: a digit number ("500 students", "3,400 schools", "12k", "1.2 million users"), a
//!   number word with a scale ("two million", "a dozen"), or a number word from two up that
//!   counts a plural noun, with at most one word between ("forty families", "twelve new
//!   schools"). A number word is no figure when the noun is a span of time or a word of
//!   argument ("three years", "two reasons", see `lexicon::NOT_COUNTED`), when a determiner
//!   precedes it ("the two leaders", "its three branches": things already known, not counted
//!   here), or when it counts nothing ("one of them").
//! - **Ratio**: "one in five" (0.2), "2 out of 10", "3:1" and "3 to 1" (3), "two-thirds",
//!   "a third of", "half of".
//! - **Multiplier**: "doubled"/"doubles" (2), "tripled" (3), "halved"/"cut in half" (0.5),
//!   "3x", "3×", "three times", "tenfold", "3-fold", "twice as".
//! - **Year**: a four-digit integer 1800–2100 ("in 2023", "since 1998", "March 2024", "the
//!   1990s"), unless context makes it a count: "2023 students" is a count, "in 2023 students" a
//!   year. A year is a year when a date word, a month, a comma or a determiner precedes it, or
//!   when no plural noun follows it.
//!
//! A range shares its unit: "10-15%" gives 10% and 15%, "$3-5 billion" gives $3bn and $5bn.
//!
//! # What is not
//! Citation markers (`[2]`, `[^1]`, `[2, 3]`), list markers at a line's start ("1.", "2)"),
//! section and item numbers ("Section 3", "Fig. 2", "step 4", "#5", "§ 12", "1.2.3"), ordinals
//! ("3rd"), identifiers ("COVID-19", "G20", "4G", "5km"), days beside a month ("4 March",
//! "March 4"), times ("10:30", "5 pm"), numbers with a leading zero ("007", the "03" of
//! "2024-03-04") and the two-digit tail of a fiscal year ("2023-24").
//!
//! Every value is finite; [`Figure::text`] is the figure as written, period included.

use crate::model::{Figure, Unit};

/// Finds every figure in `text`, in order.
///
/// An invisible character inside a number (a zero-width space, a soft hyphen, a word joiner,
/// a byte-order mark: "$9\u{200b}0 million") is read past, as a reader's eye reads past it: the
/// figure is $90 million, its [`Figure::text`] as written, invisible character included.
pub fn parse_figures(text: &str) -> Vec<Figure> {
    let Some((visible, origin)) = without_invisible_in_numbers(text) else {
        return parse_visible(text);
    };
    let mut figures = parse_visible(&visible);
    // Each figure's text, found in order in the visible text, is given back as written.
    let mut cursor = 0;
    for figure in &mut figures {
        let Some(at) = visible[cursor..].find(&figure.text).map(|at| at + cursor) else {
            continue;
        };
        let end = at + figure.text.len();
        if let Some(written) = text.get(origin[at]..origin[end]) {
            figure.text = written.to_owned();
        }
        cursor = at;
    }
    figures
}

/// Whether `c` is a character a page shows nothing for, that may sit inside a number.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}' | '\u{ad}' | '\u{180e}'
    )
}

/// `text` without the invisible characters ([`is_invisible`]) that sit inside a number (after a
/// digit, a currency sign or a separator, before a digit or a separator), and for each byte of
/// it (and its end) the byte of `text` it came from; `None` when there are none.
fn without_invisible_in_numbers(text: &str) -> Option<(String, Vec<usize>)> {
    if !text.chars().any(is_invisible) {
        return None;
    }
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let shown = |c: &&(usize, char)| !is_invisible(c.1);
    let mut visible = String::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len() + 1);
    let mut dropped = false;
    for (n, &(at, c)) in chars.iter().enumerate() {
        if is_invisible(c) {
            let before = chars[..n].iter().rev().find(shown).is_some_and(|&(_, b)| {
                b.is_ascii_digit() || matches!(b, '$' | '£' | '€' | '¥' | '.' | ',')
            });
            let after = chars[n + 1..]
                .iter()
                .find(shown)
                .is_some_and(|&(_, a)| a.is_ascii_digit() || matches!(a, '.' | ','));
            if before && after {
                dropped = true;
                continue;
            }
        }
        visible.push(c);
        origin.extend((0..c.len_utf8()).map(|k| at + k));
    }
    origin.push(text.len());
    dropped.then_some((visible, origin))
}

fn parse_visible(text: &str) -> Vec<Figure> {
    let tokens = tokenize(text);
    let parser = Parser {
        text,
        toks: &tokens,
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if let Some(next) = parser.citation_end(i) {
            i = next;
            continue;
        }
        // The base of a rate ("41.2 per 100,000 people", "for every 1,000 residents") is no
        // figure of its own: it says what the figure before it is counted against.
        if parser.is_num(i) && parser.rate_base(i) {
            let mut skipped = Vec::new();
            i = match parser.read_figure(i, false, &mut skipped) {
                Some(next) if next > i => next,
                _ => i + 1,
            };
            continue;
        }
        match parser.read_figure(i, true, &mut out) {
            Some(next) if next > i => i = next,
            _ => i += 1,
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// ASCII digits with optional thousands separators and one decimal part.
    Num,
    /// A run of letters, with inner apostrophes ("don't", "world's").
    Word,
    /// Any other character that is not whitespace.
    Sym(char),
}

#[derive(Debug, Clone, Copy)]
struct Tok {
    kind: Kind,
    start: usize,
    end: usize,
    /// Whitespace separates this token from the one before.
    spaced: bool,
    /// Nothing but whitespace precedes this token on its line.
    line_start: bool,
    /// Numbers: every digit as one integer (exact below 2^53).
    mantissa: f64,
    /// Numbers: digits after the decimal point.
    frac_digits: u32,
    /// Numbers: digits before the decimal point, separators excluded.
    int_digits: u32,
    /// Numbers: written with thousands separators ("3,400").
    grouped: bool,
    /// Numbers: more than one decimal point ("1.2.3", an address, a version): never a figure.
    dotted: bool,
    /// Numbers: starts with "0" and has more than one integer digit ("007", "03").
    leading_zero: bool,
}

impl Tok {
    fn new(kind: Kind, start: usize, end: usize, spaced: bool, line_start: bool) -> Self {
        Tok {
            kind,
            start,
            end,
            spaced,
            line_start,
            mantissa: 0.0,
            frac_digits: 0,
            int_digits: 0,
            grouped: false,
            dotted: false,
            leading_zero: false,
        }
    }
}

/// Numbers longer than this are serial numbers or junk, and could overflow once scaled.
const MAX_DIGITS: u32 = 30;

fn tokenize(text: &str) -> Vec<Tok> {
    let bytes = text.as_bytes();
    // A rough guess that avoids most regrowth: about one token per five bytes.
    let mut toks = Vec::with_capacity(bytes.len() / 5 + 1);
    let mut spaced = true;
    let mut line_start = true;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_digit() {
            let start = i;
            let mut tok = Tok::new(Kind::Num, start, start, spaced, line_start);
            let mut m = 0.0f64;
            let mut digits = 0u32;
            let mut first_group = 0u32;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                m = m * 10.0 + f64::from(bytes[i] - b'0');
                digits += 1;
                first_group += 1;
                i += 1;
            }
            tok.leading_zero = b == b'0' && first_group > 1;
            // Thousands separators: ",ddd" not followed by another digit, after 1–3 digits.
            while first_group <= 3
                && i + 3 < bytes.len()
                && bytes[i] == b','
                && bytes[i + 1..i + 4].iter().all(u8::is_ascii_digit)
                && !bytes.get(i + 4).is_some_and(u8::is_ascii_digit)
            {
                for &d in &bytes[i + 1..i + 4] {
                    m = m * 10.0 + f64::from(d - b'0');
                }
                digits += 3;
                tok.grouped = true;
                i += 4;
            }
            tok.int_digits = digits;
            if i + 1 < bytes.len() && bytes[i] == b'.' && bytes[i + 1].is_ascii_digit() {
                i += 1;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    m = m * 10.0 + f64::from(bytes[i] - b'0');
                    tok.frac_digits += 1;
                    i += 1;
                }
                while i + 1 < bytes.len() && bytes[i] == b'.' && bytes[i + 1].is_ascii_digit() {
                    tok.dotted = true;
                    i += 1;
                    while i < bytes.len() && bytes[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            if tok.int_digits + tok.frac_digits > MAX_DIGITS {
                tok.dotted = true;
            }
            tok.mantissa = m;
            tok.end = i;
            toks.push(tok);
            spaced = false;
            line_start = false;
            continue;
        }
        // Not an ASCII digit: decode one char. `i` is always on a char boundary because every
        // branch advances by whole chars or by ASCII bytes.
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        let len = c.len_utf8();
        if c.is_whitespace() {
            spaced = true;
            if c == '\n' {
                line_start = true;
            }
            i += len;
        } else if c.is_alphabetic() {
            let start = i;
            i += len;
            // ASCII letters are most of any word: take them without decoding.
            while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                i += 1;
            }
            while let Some(c) = text[i..].chars().next() {
                // An apostrophe inside a word ("don't") belongs to it.
                let inner_apostrophe = (c == '\'' || c == '’')
                    && text[i + c.len_utf8()..]
                        .chars()
                        .next()
                        .is_some_and(char::is_alphabetic);
                if c.is_alphabetic() || inner_apostrophe {
                    i += c.len_utf8();
                } else {
                    break;
                }
            }
            toks.push(Tok::new(Kind::Word, start, i, spaced, line_start));
            spaced = false;
            line_start = false;
        } else {
            toks.push(Tok::new(Kind::Sym(c), i, i + len, spaced, line_start));
            i += len;
            spaced = false;
            line_start = false;
        }
    }
    toks
}

/// A number read from one or more tokens, before its unit is known.
#[derive(Debug, Clone, Copy)]
struct Quantity {
    /// First token index.
    start: usize,
    /// One past the last token index.
    end: usize,
    mantissa: f64,
    frac_digits: u32,
    scale: f64,
    /// Written in digits (not words).
    digits: bool,
    /// Could be a calendar year: four integer digits, 1800–2100, nothing else.
    year_like: bool,
}

impl Quantity {
    /// The value with its scale applied. Multiplying before dividing keeps "4.2 billion" exact.
    fn value(&self) -> f64 {
        self.mantissa * self.scale / 10f64.powi(self.frac_digits as i32)
    }
}

struct Parser<'a> {
    text: &'a str,
    toks: &'a [Tok],
}

/// The unit a number gets from what follows it.
struct Suffix {
    unit: Unit,
    value: f64,
    scale: f64,
    currency: Option<&'static str>,
    per: Option<String>,
    end: usize,
}

impl<'a> Parser<'a> {
    fn tok(&self, i: usize) -> Option<&Tok> {
        self.toks.get(i)
    }

    fn word(&self, i: usize) -> Option<&'a str> {
        let t = self.toks.get(i)?;
        (t.kind == Kind::Word).then(|| &self.text[t.start..t.end])
    }

    fn sym(&self, i: usize) -> Option<char> {
        match self.toks.get(i)?.kind {
            Kind::Sym(c) => Some(c),
            _ => None,
        }
    }

    fn is_word(&self, i: usize, words: &[&str]) -> bool {
        self.word(i)
            .is_some_and(|w| words.iter().any(|x| w.eq_ignore_ascii_case(x)))
    }

    /// Token `i` exists and touches the token before it.
    fn glued(&self, i: usize) -> bool {
        self.tok(i).is_some_and(|t| !t.spaced)
    }

    /// Whether the number at `i` follows "per" or "for every"/"in every" and is a round base
    /// (100, 1,000, 100,000…): the base of a rate.
    fn rate_base(&self, i: usize) -> bool {
        let Some(t) = self.tok(i) else {
            return false;
        };
        let round = t.frac_digits == 0 && t.mantissa >= 10.0 && {
            let digits = format!("{}", t.mantissa as u64);
            digits.starts_with('1') && digits[1..].chars().all(|c| c == '0')
        };
        let after_per = i >= 1 && self.is_word(i - 1, &["per"]);
        let after_every =
            i >= 2 && self.is_word(i - 1, &["every"]) && self.is_word(i - 2, &["for", "in"]);
        round && (after_per || after_every)
    }

    fn is_num(&self, i: usize) -> bool {
        self.tok(i).is_some_and(|t| t.kind == Kind::Num)
    }

    fn span(&self, first: usize, last_exclusive: usize) -> String {
        let start = self.toks[first].start;
        let end = self.toks[last_exclusive - 1].end;
        self.text[start..end].to_string()
    }

    /// The index after a citation marker starting at `i` (`[2]`, `[^1]`, `[2, 3]`, `[4-6]`).
    fn citation_end(&self, i: usize) -> Option<usize> {
        if self.sym(i) != Some('[') {
            return None;
        }
        let mut j = i + 1;
        let mut saw_number = false;
        while let Some(t) = self.tok(j) {
            match t.kind {
                Kind::Num => saw_number = true,
                Kind::Sym(']') => return saw_number.then_some(j + 1),
                Kind::Sym('^' | ',' | '-' | '–' | ';') => {}
                _ => return None,
            }
            j += 1;
        }
        None
    }

    /// Reads the figure (or two, for a money range) that starts at token `i`, pushes it to
    /// `out` and returns the index after it; `None` when no figure starts there.
    fn read_figure(&self, i: usize, allow_range: bool, out: &mut Vec<Figure>) -> Option<usize> {
        let t = *self.tok(i)?;
        if t.kind == Kind::Word && !self.word(i).is_some_and(may_start_figure) {
            return None;
        }
        match t.kind {
            Kind::Sym(_) | Kind::Word => {
                if let Some(next) = self.read_money_prefix(i, out) {
                    return Some(next);
                }
            }
            Kind::Num => {}
        }
        if t.kind == Kind::Word {
            if let Some(next) = self.read_change_word(i, out) {
                return Some(next);
            }
            if let Some(next) = self.read_fraction(i, out) {
                return Some(next);
            }
        }
        let q = self.quantity(i, false)?;
        self.read_after_quantity(q, allow_range, out)
    }

    /// A quantity at `i`, digits or words, with its scale words; `None` when the token is not
    /// a number or context says it is not a figure (section number, day of a month…).
    fn quantity(&self, i: usize, money: bool) -> Option<Quantity> {
        let t = *self.tok(i)?;
        match t.kind {
            Kind::Num => self.digit_quantity(i, money),
            Kind::Word => self.word_quantity(i),
            Kind::Sym(_) => None,
        }
    }

    fn digit_quantity(&self, i: usize, money: bool) -> Option<Quantity> {
        let t = *self.tok(i)?;
        if t.dotted || t.leading_zero {
            return None;
        }
        if !money && self.not_a_figure_before(i) {
            return None;
        }
        let mut q = Quantity {
            start: i,
            end: i + 1,
            mantissa: t.mantissa,
            frac_digits: t.frac_digits,
            scale: 1.0,
            digits: true,
            year_like: t.int_digits == 4
                && t.frac_digits == 0
                && !t.grouped
                && (1800.0..=2100.0).contains(&t.mantissa),
        };
        // A glued suffix: a scale ("12k", "€300m", "1.5bn"), or something the caller reads
        // ("3x", "1990s", "2pp"), or anything else, which makes this no figure ("3rd", "5km").
        if let Some(suffix) = self.word(i + 1).filter(|_| self.glued(i + 1)) {
            // "221B Baker Street" is an address: a single capital letter is a scale only when
            // no name follows.
            let single_capital = matches!(suffix, "K" | "M" | "B" | "T");
            let name_follows = self
                .word(i + 2)
                .is_some_and(|w| w.chars().next().is_some_and(char::is_uppercase));
            if let Some(scale) = abbreviated_scale(suffix, money)
                .filter(|_| money || !(single_capital && name_follows))
            {
                q.scale = scale;
                q.end = i + 2;
                q.year_like = false;
            } else if !matches!(
                suffix,
                "x" | "X" | "s" | "pp" | "ppt" | "bp" | "bps" | "pct" | "percent"
            ) {
                return None;
            }
        }
        if q.end == i + 1 {
            self.scale_words(&mut q);
            // "$5 bn", "5 mn users": spaced, only the abbreviations that cannot be a word or a
            // unit ("$20 T-shirts" is not twenty trillion).
            if q.scale == 1.0
                && let Some(scale) = self
                    .word(q.end)
                    .filter(|w| matches!(*w, "bn" | "mn" | "mln" | "bln" | "tn" | "trn" | "MM"))
                    .and_then(|w| abbreviated_scale(w, false))
            {
                q.scale = scale;
                q.end += 1;
            }
        }
        if q.scale != 1.0 {
            q.year_like = false;
        }
        if !money && q.scale == 1.0 && self.is_day_or_time(i) {
            return None;
        }
        Some(q)
    }

    /// Applies scale words after a quantity: "1.2 million", "two hundred thousand".
    fn scale_words(&self, q: &mut Quantity) {
        // More than three would be nonsense and could overflow.
        for _ in 0..3 {
            match self.word(q.end).and_then(scale_word) {
                Some(scale) => {
                    q.scale *= scale;
                    q.end += 1;
                }
                None => break,
            }
        }
    }

    fn word_quantity(&self, i: usize) -> Option<Quantity> {
        let w = self.word(i)?;
        let (value, end) = if w.eq_ignore_ascii_case("a") || w.eq_ignore_ascii_case("an") {
            // "a million users", "a dozen": one of the scale.
            self.word(i + 1).and_then(scale_word)?;
            (1.0, i + 1)
        } else {
            let v = number_word(w)?;
            // "twenty-five"
            if (20.0..=90.0).contains(&v)
                && self.sym(i + 1) == Some('-')
                && self.glued(i + 1)
                && self.glued(i + 2)
                && let Some(unit) = self.word(i + 2).and_then(number_word)
                && unit < 10.0
            {
                (v + unit, i + 3)
            } else {
                (v, i + 1)
            }
        };
        let mut q = Quantity {
            start: i,
            end,
            mantissa: value,
            frac_digits: 0,
            scale: 1.0,
            digits: false,
            year_like: false,
        };
        self.scale_words(&mut q);
        Some(q)
    }

    /// Context before a digit number that makes it no figure: an identifier it is glued to
    /// ("G20", "COVID-19"), a section or item word ("Section 3", "Fig. 2"), a list marker.
    fn not_a_figure_before(&self, i: usize) -> bool {
        (i > 0 && self.label_before(i)) || self.not_a_figure_after(i) || self.is_list_marker(i)
    }

    /// Context before a number that makes it a label or part of an identifier.
    fn label_before(&self, i: usize) -> bool {
        let t = self.toks[i];
        let prev = self.toks[i - 1];
        if !t.spaced {
            match prev.kind {
                Kind::Word | Kind::Num => return true,
                Kind::Sym('#' | '§' | '¶' | '№' | '^' | '@' | '_' | '/' | '\\' | '&' | '=') => {
                    return true;
                }
                Kind::Sym('-' | '–') => {
                    // "COVID-19", and "2023-24" (the tail of a fiscal year).
                    if let Some(pp) = i.checked_sub(2).and_then(|j| self.tok(j))
                        && !prev.spaced
                    {
                        if pp.kind == Kind::Word {
                            return true;
                        }
                        if pp.kind == Kind::Num && t.int_digits == 2 && pp.int_digits == 4 {
                            return true;
                        }
                    }
                }
                _ => {}
            }
        }
        if matches!(prev.kind, Kind::Sym('#' | '§' | '¶' | '№')) {
            return true;
        }
        // "+1 555…" is a dialling code; "+5%" is a change and stays.
        if prev.kind == Kind::Sym('+')
            && !t.spaced
            && self.sym(i + 1) != Some('%')
            && !self.is_word(i + 1, &["percent", "pct", "per"])
        {
            return true;
        }
        if self.is_section_word_before(i) {
            return true;
        }
        // "Page 1 of 5", "step 2 of 4": the second number belongs to the label too.
        i >= 2
            && self.is_word(i - 1, &["of"])
            && self.is_num(i - 2)
            && self.is_section_word_before(i - 2)
    }

    /// "Section 3", "Fig. 2", "No. 5".
    fn is_section_word_before(&self, i: usize) -> bool {
        let word_before = match i.checked_sub(1).and_then(|j| self.sym(j)) {
            Some('.') => i.checked_sub(2).and_then(|j| self.word(j)),
            _ => i.checked_sub(1).and_then(|j| self.word(j)),
        };
        word_before.is_some_and(|w| SECTION_WORDS.iter().any(|s| w.eq_ignore_ascii_case(s)))
    }

    /// Context after a number that makes it no figure: a date or fraction ("24/7"), a compound
    /// adjective ("20-year-old", "a 3-year study"), a chain of three or more numbers joined by
    /// hyphens (a phone or reference number).
    fn not_a_figure_after(&self, i: usize) -> bool {
        let joined =
            |j: usize| matches!(self.sym(j), Some('-' | '–')) && self.glued(j) && self.glued(j + 1);
        if self.sym(i + 1) == Some('/') && self.glued(i + 1) && self.is_num(i + 2) {
            return true;
        }
        if joined(i + 1)
            && let Some(w) = self.word(i + 2)
            && !w.eq_ignore_ascii_case("fold")
            && scale_word(w).is_none()
            && abbreviated_scale(w, true).is_none()
        {
            return true;
        }
        // An ISO date ("2024-03-04") keeps its year; its month and day have a leading zero or
        // two digits and are dropped by the fiscal-year and leading-zero rules.
        let t = self.toks[i];
        if t.int_digits == 4
            && joined(i + 1)
            && self
                .tok(i + 2)
                .is_some_and(|n| n.kind == Kind::Num && n.int_digits == 2)
        {
            return false;
        }
        // Count the numbers in the hyphen-joined chain around `i`, a few steps each way.
        let mut count = 1;
        let mut j = i;
        while count < 3 && j >= 2 && joined(j - 1) && self.is_num(j - 2) {
            count += 1;
            j -= 2;
        }
        let mut j = i;
        while count < 3 && joined(j + 1) && self.is_num(j + 2) {
            count += 1;
            j += 2;
        }
        count >= 3
    }

    /// Whether a plural noun that is counted follows at `i`, directly or after one lower-case
    /// word ("twelve new schools").
    fn counts_a_noun(&self, i: usize) -> bool {
        let noun_at = |j: usize| {
            self.tok(j).is_some_and(|t| t.spaced)
                && self.word(j).is_some_and(|w| {
                    w.chars().next().is_some_and(char::is_lowercase)
                        && crate::text::lexicon::counted_noun(w)
                })
        };
        noun_at(i)
            || (self
                .word(i)
                .is_some_and(|w| w.chars().next().is_some_and(char::is_lowercase))
                && !self.is_word(i, &["of", "in", "to", "and", "or", "for", "times"])
                && noun_at(i + 1))
    }

    /// Whether a determiner stands before `i`: "the two leaders", "its three branches".
    fn determiner_before(&self, i: usize) -> bool {
        i > 0
            && self.is_word(
                i - 1,
                &[
                    "the",
                    "these",
                    "those",
                    "its",
                    "their",
                    "our",
                    "his",
                    "her",
                    "my",
                    "your",
                    "both",
                    "all",
                    "first",
                    "last",
                    "next",
                    "other",
                    "every",
                    "each",
                    "only",
                    "whose",
                    "which",
                    "any",
                    "final",
                    "remaining",
                    "opening",
                    "same",
                ],
            )
    }

    /// "1." or "2)" or "(3)" opening a line.
    fn is_list_marker(&self, i: usize) -> bool {
        let t = self.toks[i];
        let opened =
            t.line_start || (i > 0 && self.sym(i - 1) == Some('(') && self.toks[i - 1].line_start);
        opened
            && t.frac_digits == 0
            && t.int_digits <= 3
            && matches!(self.sym(i + 1), Some('.' | ')'))
            && self.glued(i + 1)
            && self.tok(i + 2).is_none_or(|n| n.spaced)
    }

    /// A day beside a month ("4 March", "March 4") or a clock time ("10:30", "5 pm").
    fn is_day_or_time(&self, i: usize) -> bool {
        let t = self.toks[i];
        if t.frac_digits == 0 && t.int_digits <= 2 && (1.0..=31.0).contains(&t.mantissa) {
            let before = if self.sym(i.wrapping_sub(1)) == Some('.') {
                i.checked_sub(2)
            } else {
                i.checked_sub(1)
            };
            let month_before = before.and_then(|j| self.word(j)).is_some_and(is_month);
            let mut after = i + 1;
            if self.is_word(after, &["st", "nd", "rd", "th"]) && self.glued(after) {
                after += 1;
            }
            if self.is_word(after, &["of"]) {
                after += 1;
            }
            if month_before || self.word(after).is_some_and(is_month) {
                return true;
            }
        }
        if t.frac_digits == 0
            && t.mantissa <= 24.0
            && self.sym(i + 1) == Some(':')
            && self.glued(i + 1)
            && self
                .tok(i + 2)
                .is_some_and(|n| n.int_digits == 2 && !n.spaced)
        {
            return true;
        }
        // The minutes of "10:30": a colon and an hour before the number.
        if i >= 2
            && self.sym(i - 1) == Some(':')
            && !t.spaced
            && t.int_digits == 2
            && self
                .tok(i - 2)
                .is_some_and(|p| p.kind == Kind::Num && p.mantissa <= 24.0)
        {
            return true;
        }
        t.mantissa <= 12.0 && self.is_word(i + 1, &["am", "pm", "a", "p", "GMT", "UTC"]) && {
            // "5 am", "5 pm", "5 p.m.", but not "5 a year" (a period).
            let w = self.word(i + 1).unwrap_or_default();
            !w.eq_ignore_ascii_case("a") || (self.sym(i + 2) == Some('.') && self.glued(i + 2))
        }
    }

    /// Money with the currency before the amount: "$4.2 billion", "US$20", "USD 5 million".
    fn read_money_prefix(&self, i: usize, out: &mut Vec<Figure>) -> Option<usize> {
        let (currency, num_at) = self.currency_prefix(i)?;
        let q = self.digit_quantity(num_at, true)?;
        let mut end = q.end;
        let mut scale = q.scale;
        // A range: "$3-5 billion", "$3 to $5 billion". The second amount lends its scale.
        let mut second: Option<(Quantity, usize)> = None;
        if let Some(sep_end) = self.range_separator(end) {
            let (b_at, own_symbol) = match self.currency_prefix(sep_end) {
                Some((c, at)) if c == currency => (at, true),
                _ => (sep_end, false),
            };
            if self.is_num(b_at)
                && let Some(b) = self.digit_quantity(b_at, true)
            {
                // "$3-5 billion": the first end is in billions too; "£334,000 to £5.1m" is
                // written in full, and keeps its own scale.
                if scale == 1.0 && q.value() < 1000.0 {
                    scale = b.scale;
                }
                if !own_symbol {
                    second = Some((b, sep_end));
                }
            }
        }
        let (per, per_end) = self.per(end).unwrap_or((None, end));
        end = per_end;
        let q = Quantity { scale, ..q };
        let value = q.value();
        let mut pushed = false;
        if value.is_finite() {
            out.push(Figure {
                text: self.span(i, end),
                value,
                unit: Unit::Currency,
                currency: Some(currency.to_string()),
                scale,
                per: per.clone(),
            });
            pushed = true;
        }
        if let Some((b, b_start)) = second {
            let (b_per, b_end) = self.per(b.end).unwrap_or((None, b.end));
            let value = b.value();
            if value.is_finite() {
                out.push(Figure {
                    text: self.span(b_start, b_end),
                    value,
                    unit: Unit::Currency,
                    currency: Some(currency.to_string()),
                    scale: b.scale,
                    per: b_per.or(per),
                });
            }
            return Some(b_end);
        }
        pushed.then_some(end)
    }

    /// A currency symbol or code at `i`, and the index of the number after it.
    fn currency_prefix(&self, i: usize) -> Option<(&'static str, usize)> {
        let t = *self.tok(i)?;
        match t.kind {
            Kind::Sym(c) => {
                let code = symbol_currency(c)?;
                let at = i + 1;
                self.is_num(at).then_some((code, at))
            }
            Kind::Word => {
                let w = &self.text[t.start..t.end];
                // "US$20", "A$5", "CN¥100"
                if let Some(c) = self.sym(i + 1)
                    && self.glued(i + 1)
                    && let Some(code) = prefixed_symbol_currency(w, c)
                {
                    return self.is_num(i + 2).then_some((code, i + 2));
                }
                // "Rs 40", "Rs. 40"
                if w == "Rs" {
                    let at = if self.sym(i + 1) == Some('.') {
                        i + 2
                    } else {
                        i + 1
                    };
                    return self.is_num(at).then_some(("INR", at));
                }
                let code = currency_code(w)?;
                self.is_num(i + 1).then_some((code, i + 1))
            }
            Kind::Num => None,
        }
    }

    /// "-", "–" or "to" between the two ends of a range; returns the index after it. A dash
    /// spaced from the number before it and glued to the one after ("8.9 9.6 -7.3%", a table's
    /// cells) is the second number's minus sign, not a range.
    fn range_separator(&self, i: usize) -> Option<usize> {
        match self.tok(i)?.kind {
            Kind::Sym('-' | '–' | '—') if !self.glued(i) && self.glued(i + 1) => None,
            Kind::Sym('-' | '–' | '—') => Some(i + 1),
            Kind::Word if self.is_word(i, &["to"]) => Some(i + 1),
            _ => None,
        }
    }

    /// What a money amount is per: "/month", "per year", "a year", "each month", "monthly".
    fn per(&self, i: usize) -> Option<(Option<String>, usize)> {
        let w = self.word(i);
        if self.sym(i) == Some('/') && self.glued(i + 1) {
            let unit = self.word(i + 1)?;
            return Some((Some(per_unit(unit)), i + 2));
        }
        let w = w?;
        if w.eq_ignore_ascii_case("per") {
            let unit = self.word(i + 1)?;
            if unit.eq_ignore_ascii_case("cent") {
                return None;
            }
            return Some((Some(per_unit(unit)), i + 2));
        }
        if ["a", "an", "each", "every"]
            .iter()
            .any(|a| w.eq_ignore_ascii_case(a))
        {
            let unit = self.word(i + 1)?;
            return known_period(unit).map(|p| (Some(p.to_string()), i + 2));
        }
        let mut buf = [0; 16];
        let period = match lower(w, &mut buf)? {
            "monthly" => "month",
            "annually" | "yearly" => "year",
            "weekly" => "week",
            "daily" => "day",
            "hourly" => "hour",
            "quarterly" => "quarter",
            _ => return None,
        };
        Some((Some(period.to_string()), i + 1))
    }

    /// "doubled", "tripled", "halved", "cut in half", "tenfold", "twice as".
    fn read_change_word(&self, i: usize, out: &mut Vec<Figure>) -> Option<usize> {
        let w = self.word(i)?;
        let mut buf = [0; 16];
        let lower = lower(w, &mut buf)?;
        let (value, end) = match lower {
            "doubled" | "doubles" | "doubling" => (2.0, i + 1),
            "tripled" | "triples" | "tripling" => (3.0, i + 1),
            "quadrupled" | "quadruples" | "quadrupling" => (4.0, i + 1),
            "halved" | "halving" => (0.5, i + 1),
            "double" | "triple" | "quadruple"
                if self.is_word(
                    i + 1,
                    &["the", "that", "its", "their", "his", "her", "our", "what"],
                ) =>
            {
                let v = match lower {
                    "double" => 2.0,
                    "triple" => 3.0,
                    _ => 4.0,
                };
                (v, i + 1)
            }
            "twice" if self.is_word(i + 1, &["as", "the", "that"]) => (2.0, i + 1),
            "cut" | "cuts" | "cutting"
                if self.is_word(i + 1, &["in"]) && self.is_word(i + 2, &["half"]) =>
            {
                return self.push(
                    out,
                    Unit::Multiplier,
                    0.5,
                    1.0,
                    None,
                    None,
                    i + 1,
                    i + 3,
                    i + 3,
                );
            }
            _ => {
                let stem = lower.strip_suffix("fold")?;
                let v = number_word(stem).or(match stem {
                    "hundred" => Some(100.0),
                    "thousand" => Some(1000.0),
                    _ => None,
                })?;
                (v, i + 1)
            }
        };
        self.push(out, Unit::Multiplier, value, 1.0, None, None, i, end, end)
    }

    /// "two-thirds", "three quarters", "a third of", "half of".
    fn read_fraction(&self, i: usize, out: &mut Vec<Figure>) -> Option<usize> {
        let w = self.word(i)?;
        if w.eq_ignore_ascii_case("half") {
            let after_article = i > 0
                && self.is_word(
                    i - 1,
                    &[
                        "the", "first", "second", "a", "last", "latter", "former", "other", "one",
                    ],
                );
            if !after_article && self.is_word(i + 1, &["of", "the"]) {
                return self.push(out, Unit::Ratio, 0.5, 1.0, None, None, i, i + 1, i + 1);
            }
            // "fell by half": a change of 50%, as "fell by 50%" says it.
            if i > 0 && self.is_word(i - 1, &["by"]) {
                return self.push(out, Unit::Percent, 50.0, 1.0, None, None, i, i + 1, i + 1);
            }
            return None;
        }
        // "rose by a third", "cut by two-thirds": a change, in percent.
        let by = |at: usize| at > 0 && self.is_word(at - 1, &["by"]);
        let numerator = if w.eq_ignore_ascii_case("a") {
            None
        } else {
            Some(number_word(w).filter(|v| *v <= 10.0)?)
        };
        let mut d = i + 1;
        if self.sym(d) == Some('-') && self.glued(d) && self.glued(d + 1) {
            d += 1;
        }
        let denom_word = self.word(d)?;
        let (denominator, plural) = fraction_word(denom_word)?;
        match numerator {
            None if !plural && by(i) => self.push(
                out,
                Unit::Percent,
                100.0 / denominator,
                1.0,
                None,
                None,
                i,
                d + 1,
                d + 1,
            ),
            Some(n) if (n == 1.0) != plural && n < denominator && by(i) => self.push(
                out,
                Unit::Percent,
                100.0 * n / denominator,
                1.0,
                None,
                None,
                i,
                d + 1,
                d + 1,
            ),
            // "a third of", "a quarter of"
            None if !plural && self.is_word(d + 1, &["of"]) => self.push(
                out,
                Unit::Ratio,
                1.0 / denominator,
                1.0,
                None,
                None,
                i,
                d + 1,
                d + 1,
            ),
            Some(n) if (n == 1.0) != plural && n < denominator => self.push(
                out,
                Unit::Ratio,
                n / denominator,
                1.0,
                None,
                None,
                i,
                d + 1,
                d + 1,
            ),
            _ => None,
        }
    }

    /// Decides what a quantity is from what follows it, and pushes the figure.
    fn read_after_quantity(
        &self,
        q: Quantity,
        allow_range: bool,
        out: &mut Vec<Figure>,
    ) -> Option<usize> {
        let Quantity { start, end, .. } = q;
        if let Some(s) = self.unit_suffix(&q) {
            let next = s.end;
            return self.push(
                out, s.unit, s.value, s.scale, s.currency, s.per, start, s.end, next,
            );
        }
        // A range whose second end carries the unit: "10-15%", "3 to 5 million".
        if allow_range
            && q.scale == 1.0
            && q.value() < 1000.0
            && let Some(b_at) = self.range_separator(end)
            && (self.is_num(b_at) || !q.digits)
        {
            let mut probe = Vec::new();
            if self.read_figure(b_at, false, &mut probe).is_some()
                && let Some(b) = probe.first()
                && (matches!(
                    b.unit,
                    Unit::Percent | Unit::PercentagePoints | Unit::Currency
                ) || (b.unit == Unit::Count && b.scale != 1.0))
            {
                let value = Quantity {
                    scale: b.scale,
                    ..q
                }
                .value();
                return self.push(
                    out,
                    b.unit,
                    value,
                    b.scale,
                    b.currency.as_deref(),
                    None,
                    start,
                    end,
                    b_at,
                );
            }
        }
        if q.year_like && self.reads_as_year(start) {
            let mut last = end;
            // "the 1990s"
            if self.is_word(end, &["s"]) && self.glued(end) {
                last = end + 1;
            }
            return self.push(
                out,
                Unit::Year,
                q.mantissa,
                1.0,
                None,
                None,
                start,
                last,
                last,
            );
        }
        if q.digits && self.word(end).is_some_and(|w| self.glued(end) && w == "s") {
            // "1980s" outside the year range or "100s": vague.
            return None;
        }
        if q.digits || q.scale != 1.0 {
            return self.push(
                out,
                Unit::Count,
                q.value(),
                q.scale,
                None,
                None,
                start,
                end,
                end,
            );
        }
        // "Forty families", "twelve new schools".
        if q.value() >= 2.0 && self.counts_a_noun(end) && !self.determiner_before(start) {
            return self.push(
                out,
                Unit::Count,
                q.value(),
                1.0,
                None,
                None,
                start,
                end,
                end,
            );
        }
        None
    }

    /// Units read after a quantity: percent, points, multiplier, ratio, money after the amount.
    fn unit_suffix(&self, q: &Quantity) -> Option<Suffix> {
        let end = q.end;
        let plain = |unit, value, end| Suffix {
            unit,
            value,
            scale: 1.0,
            currency: None,
            per: None,
            end,
        };
        let n = q.value();
        if let Some(c) = self.sym(end) {
            match c {
                '%' | '％' => return Some(plain(Unit::Percent, n, end + 1)),
                '×' if self.glued(end) || !self.is_num(end + 1) => {
                    return Some(plain(Unit::Multiplier, n, end + 1));
                }
                ':' if q.digits && q.scale == 1.0 && self.glued(end) && self.glued(end + 1) => {
                    let b = self.tok(end + 1).filter(|t| {
                        t.kind == Kind::Num && !t.dotted && !t.leading_zero && t.mantissa > 0.0
                    })?;
                    let b_value = b.mantissa / 10f64.powi(b.frac_digits as i32);
                    return Some(plain(Unit::Ratio, n / b_value, end + 2));
                }
                '-' if self.glued(end) && self.is_word(end + 1, &["fold"]) => {
                    return Some(plain(Unit::Multiplier, n, end + 2));
                }
                _ => {}
            }
        }
        let w = self.word(end)?;
        let glued = self.glued(end);
        let lower_is = |x: &str| w.eq_ignore_ascii_case(x);
        if lower_is("percent")
            || lower_is("pct")
            || (lower_is("per") && self.is_word(end + 1, &["cent"]))
        {
            let e = if lower_is("per") { end + 2 } else { end + 1 };
            return Some(plain(Unit::Percent, n, e));
        }
        if lower_is("percentage") && self.is_word(end + 1, &["point", "points"]) {
            return Some(plain(Unit::PercentagePoints, n, end + 2));
        }
        if lower_is("pp") || lower_is("ppt") || lower_is("ppts") {
            return Some(plain(Unit::PercentagePoints, n, end + 1));
        }
        if lower_is("basis") && self.is_word(end + 1, &["point", "points"]) {
            return Some(Suffix {
                scale: 0.01,
                ..plain(Unit::PercentagePoints, n / 100.0, end + 2)
            });
        }
        if (lower_is("bps") || lower_is("bp")) && q.digits {
            return Some(Suffix {
                scale: 0.01,
                ..plain(Unit::PercentagePoints, n / 100.0, end + 1)
            });
        }
        if (w == "x" || w == "X") && glued {
            return Some(plain(Unit::Multiplier, n, end + 1));
        }
        // "10 million times" counts occurrences; a multiplier has no scale.
        if lower_is("times")
            && q.scale == 1.0
            && !self.is_word(
                end + 1,
                &[
                    "a", "an", "per", "each", "every", "daily", "weekly", "monthly", "yearly",
                    "during", "over", "in", "this", "that", "last", "since", "before", "so",
                ],
            )
        {
            return Some(plain(Unit::Multiplier, n, end + 1));
        }
        if lower_is("in") || (lower_is("out") && self.is_word(end + 1, &["of"])) {
            let b_at = if lower_is("in") { end + 1 } else { end + 2 };
            let b = self.ratio_term(b_at)?;
            if b.0 > 0.0 && q.scale == 1.0 && n > 0.0 && n <= b.0 {
                return Some(plain(Unit::Ratio, n / b.0, b.1));
            }
            return None;
        }
        if lower_is("to") && q.scale == 1.0 {
            let (b, b_end) = self.ratio_term(end + 1)?;
            let ratio_word = self.is_word(b_end, &["ratio", "margin", "majority", "odds"]);
            let unit_follows = self.sym(b_end).is_some_and(|c| c == '%')
                || self.is_word(b_end, &["percent", "pct"])
                || self.word(b_end).and_then(scale_word).is_some();
            if b > 0.0 && n >= b && !unit_follows && (b == 1.0 || ratio_word) {
                return Some(plain(Unit::Ratio, n / b, b_end));
            }
            return None;
        }
        // Hundredths of a currency: "87 cents" is $0.87, "45 pence" £0.45.
        let hundredths = if lower_is("cents") || lower_is("cent") {
            Some("USD")
        } else if lower_is("pence") || (w == "p" && glued) {
            Some("GBP")
        } else {
            None
        };
        if let Some(code) = hundredths
            && q.scale == 1.0
        {
            return Some(Suffix {
                unit: Unit::Currency,
                value: n / 100.0,
                scale: 1.0,
                currency: Some(code),
                per: None,
                end: end + 1,
            });
        }
        // Money named after the amount: "5 million USD", "20 euros".
        let currency = currency_code(w).or_else(|| currency_word(w))?;
        let (per, per_end) = self.per(end + 1).unwrap_or((None, end + 1));
        Some(Suffix {
            unit: Unit::Currency,
            value: n,
            scale: q.scale,
            currency: Some(currency),
            per,
            end: per_end,
        })
    }

    /// The second term of a ratio: a small plain number, digits or words ("five", "10").
    fn ratio_term(&self, i: usize) -> Option<(f64, usize)> {
        let t = *self.tok(i)?;
        match t.kind {
            Kind::Num => {
                let year_like = t.int_digits == 4 && (1800.0..=2100.0).contains(&t.mantissa);
                if t.dotted || t.leading_zero || t.grouped || year_like {
                    return None;
                }
                if self.word(i + 1).is_some_and(|_| self.glued(i + 1)) {
                    return None;
                }
                Some((t.mantissa / 10f64.powi(t.frac_digits as i32), i + 1))
            }
            Kind::Word => {
                let q = self.word_quantity(i)?;
                Some((q.value(), q.end))
            }
            Kind::Sym(_) => None,
        }
    }

    /// Whether a year-like number at `i` is a year rather than a count ("2023 students").
    fn reads_as_year(&self, i: usize) -> bool {
        let prev_is_date_word = i > 0
            && (self.word(i - 1).is_some_and(|w| {
                is_month(w)
                    || w.ends_with("'s")
                    || w.ends_with("’s")
                    || YEAR_WORDS.iter().any(|y| w.eq_ignore_ascii_case(y))
            }) || matches!(self.sym(i - 1), Some(',' | '(' | '/' | '-' | '–')));
        if prev_is_date_word {
            return true;
        }
        // A plural noun after it makes it a count: "2023 students".
        match self.word(i + 1) {
            Some(w) if self.tok(i + 1).is_some_and(|t| t.spaced) => {
                let lower_start = w.chars().next().is_some_and(char::is_lowercase);
                let plural = (w.ends_with('s') && !w.ends_with("ss"))
                    || matches!(w, "people" | "children" | "men" | "women" | "staff");
                !(lower_start && plural && !NOT_PLURAL.contains(&w))
            }
            _ => true,
        }
    }

    /// Pushes one figure spanning tokens `first..last` and returns `next`.
    #[allow(clippy::too_many_arguments)]
    fn push(
        &self,
        out: &mut Vec<Figure>,
        unit: Unit,
        value: f64,
        scale: f64,
        currency: Option<&str>,
        per: Option<String>,
        first: usize,
        last: usize,
        next: usize,
    ) -> Option<usize> {
        if !value.is_finite() || !scale.is_finite() || last <= first || last > self.toks.len() {
            return None;
        }
        out.push(Figure {
            text: self.span(first, last),
            value,
            unit,
            currency: currency.map(str::to_string),
            scale,
            per,
        });
        Some(next)
    }
}

/// Words after which a digit number is a label, not a figure: "Section 3", "step 4".
const SECTION_WORDS: &[&str] = &[
    "section",
    "sections",
    "sec",
    "chapter",
    "chapters",
    "ch",
    "figure",
    "fig",
    "figs",
    "table",
    "tables",
    "page",
    "pages",
    "pp",
    "p",
    "step",
    "steps",
    "part",
    "item",
    "items",
    "no",
    "nos",
    "version",
    "v",
    "ver",
    "article",
    "art",
    "paragraph",
    "para",
    "rule",
    "phase",
    "appendix",
    "exhibit",
    "volume",
    "vol",
    "issue",
    "episode",
    "ep",
    "season",
    "lesson",
    "question",
    "q",
    "room",
    "route",
    "verse",
    "footnote",
    "note",
    "slide",
    "stage",
    "round",
    "clause",
    "annex",
    "level",
    "tier",
    "grade",
    "top",
    "id",
    "ref",
    "line",
    "lines",
    "act",
    "scene",
    "class",
    "iphone",
    "windows",
    "python",
    "gen",
    "series",
    "model",
    "type",
    "category",
    "track",
];

/// Words before a four-digit number that make it a year.
const YEAR_WORDS: &[&str] = &[
    "in",
    "since",
    "by",
    "from",
    "until",
    "till",
    "to",
    "through",
    "thru",
    "of",
    "during",
    "before",
    "after",
    "circa",
    "c",
    "year",
    "years",
    "fiscal",
    "fy",
    "early",
    "late",
    "mid",
    "spring",
    "summer",
    "autumn",
    "fall",
    "winter",
    "between",
    "and",
    "or",
    "around",
    "the",
    "this",
    "that",
    "its",
    "their",
    "our",
    "his",
    "her",
    "on",
    "for",
    "at",
    "as",
    "q1",
    "q2",
    "q3",
    "q4",
    "h1",
    "h2",
    "season",
    "class",
    "vintage",
    "est",
    "established",
    "founded",
    "born",
    "published",
    "copyright",
    "ending",
    "ended",
];

/// Lowercase words ending in "s" that are not plural nouns.
const NOT_PLURAL: &[&str] = &[
    "is",
    "was",
    "has",
    "as",
    "its",
    "this",
    "his",
    "us",
    "thus",
    "does",
    "plus",
    "versus",
    "vs",
    "alumni",
    "whereas",
    "across",
    "unless",
    "always",
    "perhaps",
    "sales",
    "levels",
    "figures",
    "results",
    "numbers",
    "estimates",
    "rates",
    "prices",
    "data",
    "saw",
    "sees",
    "marks",
    "shows",
];

/// `w` in ASCII lower case, in `buf` when it has capitals; `None` when it is too long or not
/// ASCII, which no keyword of this module is. Avoids an allocation per word on the hot path,
/// and the copy for the words already in lower case, which most are.
fn lower<'a>(w: &'a str, buf: &'a mut [u8; 16]) -> Option<&'a str> {
    let bytes = w.as_bytes();
    if bytes.len() > buf.len() || !bytes.is_ascii() {
        return None;
    }
    if !bytes.iter().any(u8::is_ascii_uppercase) {
        return Some(w);
    }
    let out = &mut buf[..bytes.len()];
    out.copy_from_slice(bytes);
    out.make_ascii_lowercase();
    std::str::from_utf8(out).ok()
}

/// Whether a word can start a figure at all: a currency code or prefix ("USD", "US$", "A$",
/// "Rs"), "a", "an", "half", a number word, or a change word ("doubled", "cut in half",
/// "tenfold"). `false` is certain; `true` only means the readings must be tried. Most words of a
/// sentence are none of these, and this one check spares them the currency, change, fraction
/// and number-word readings, which were a fifth of extraction time.
fn may_start_figure(w: &str) -> bool {
    if w.len() <= 3 && w.as_bytes().first().is_some_and(u8::is_ascii_uppercase) {
        return true;
    }
    let mut buf = [0; 16];
    let Some(l) = lower(w, &mut buf) else {
        return false;
    };
    matches!(l, "a" | "an" | "half")
        || number_word(l).is_some()
        || l.ends_with("fold")
        || ["doubl", "tripl", "quadrupl", "halv", "twice", "cut"]
            .iter()
            .any(|stem| l.starts_with(stem))
}

/// The value of a number written as a word ("five", "twenty").
pub(crate) fn number_word(w: &str) -> Option<f64> {
    let mut buf = [0; 16];
    let v = match lower(w, &mut buf)? {
        "one" => 1.0,
        "two" => 2.0,
        "three" => 3.0,
        "four" => 4.0,
        "five" => 5.0,
        "six" => 6.0,
        "seven" => 7.0,
        "eight" => 8.0,
        "nine" => 9.0,
        "ten" => 10.0,
        "eleven" => 11.0,
        "twelve" => 12.0,
        "thirteen" => 13.0,
        "fourteen" => 14.0,
        "fifteen" => 15.0,
        "sixteen" => 16.0,
        "seventeen" => 17.0,
        "eighteen" => 18.0,
        "nineteen" => 19.0,
        "twenty" => 20.0,
        "thirty" => 30.0,
        "forty" => 40.0,
        "fifty" => 50.0,
        "sixty" => 60.0,
        "seventy" => 70.0,
        "eighty" => 80.0,
        "ninety" => 90.0,
        _ => return None,
    };
    Some(v)
}

/// Scale words written out: "million", "a dozen". Plurals count ("two hundreds" is rare, but
/// "three millions" happens in translated text).
fn scale_word(w: &str) -> Option<f64> {
    let mut buf = [0; 16];
    let v = match lower(w, &mut buf)? {
        "hundred" | "hundreds" => 1e2,
        "thousand" | "thousands" => 1e3,
        "million" | "millions" => 1e6,
        "billion" | "billions" => 1e9,
        "trillion" | "trillions" => 1e12,
        "dozen" => 12.0,
        "lakh" | "lakhs" => 1e5,
        "crore" | "crores" => 1e7,
        _ => return None,
    };
    Some(v)
}

/// Abbreviated scales glued to a number or after a currency amount. Lowercase "m", "b" and "t"
/// alone mean metres, bits or tonnes as often as millions, so they count only for money.
fn abbreviated_scale(w: &str, money: bool) -> Option<f64> {
    match w {
        "k" | "K" => Some(1e3),
        "M" | "mn" | "mln" | "MM" => Some(1e6),
        "B" | "bn" | "bln" | "Bn" | "BN" => Some(1e9),
        "T" | "tn" | "trn" | "Tn" => Some(1e12),
        "m" | "mil" if money => Some(1e6),
        "b" if money => Some(1e9),
        "t" if money => Some(1e12),
        _ => None,
    }
}

fn symbol_currency(c: char) -> Option<&'static str> {
    Some(match c {
        '$' => "USD",
        '€' => "EUR",
        '£' => "GBP",
        '¥' | '￥' => "JPY",
        '₹' => "INR",
        '₩' => "KRW",
        '₽' => "RUB",
        '₺' => "TRY",
        '₪' => "ILS",
        '₦' => "NGN",
        '₱' => "PHP",
        '₫' => "VND",
        '฿' => "THB",
        _ => return None,
    })
}

/// Symbols with a country prefix: "US$", "A$", "C$", "HK$", "CN¥", "R$".
fn prefixed_symbol_currency(prefix: &str, c: char) -> Option<&'static str> {
    Some(match (prefix, c) {
        ("US" | "U", '$') => "USD",
        ("A" | "AU", '$') => "AUD",
        ("C" | "CA", '$') => "CAD",
        ("NZ", '$') => "NZD",
        ("HK", '$') => "HKD",
        ("S" | "SG", '$') => "SGD",
        ("R", '$') => "BRL",
        ("MX", '$') => "MXN",
        ("NT", '$') => "TWD",
        ("CN" | "RMB", '¥') => "CNY",
        ("JP", '¥') => "JPY",
        _ => return None,
    })
}

/// ISO 4217 codes as written in news, upper case only ("usd" is not a code in prose).
fn currency_code(w: &str) -> Option<&'static str> {
    Some(match w {
        "USD" => "USD",
        "EUR" => "EUR",
        "GBP" => "GBP",
        "JPY" => "JPY",
        "CNY" | "RMB" => "CNY",
        "INR" => "INR",
        "CAD" => "CAD",
        "AUD" => "AUD",
        "CHF" => "CHF",
        "NZD" => "NZD",
        "HKD" => "HKD",
        "SGD" => "SGD",
        "SEK" => "SEK",
        "NOK" => "NOK",
        "DKK" => "DKK",
        "BRL" => "BRL",
        "MXN" => "MXN",
        "KRW" => "KRW",
        "ZAR" => "ZAR",
        "RUB" => "RUB",
        "TRY" => "TRY",
        "PLN" => "PLN",
        _ => return None,
    })
}

/// Currency words after an amount. "pounds" is left out: it is a weight as often as money.
fn currency_word(w: &str) -> Option<&'static str> {
    let mut buf = [0; 16];
    Some(match lower(w, &mut buf)? {
        "dollar" | "dollars" => "USD",
        "euro" | "euros" => "EUR",
        "yen" => "JPY",
        "yuan" | "renminbi" => "CNY",
        "rupee" | "rupees" => "INR",
        _ => return None,
    })
}

/// Periods accepted after "a", "each", "every": "$44 a year".
fn known_period(w: &str) -> Option<&'static str> {
    let mut buf = [0; 16];
    Some(match lower(w, &mut buf)? {
        "month" => "month",
        "year" => "year",
        "week" => "week",
        "day" => "day",
        "hour" => "hour",
        "quarter" => "quarter",
        "user" => "user",
        "seat" => "seat",
        "student" => "student",
        "person" | "head" => "person",
        _ => return None,
    })
}

/// The unit after "/" or "per", normalized: "mo" and "months" are "month".
fn per_unit(w: &str) -> String {
    let lower = w.to_ascii_lowercase();
    let normalized = match lower.as_str() {
        "mo" | "mos" | "mth" | "mths" | "month" | "months" => "month",
        "yr" | "yrs" | "year" | "years" | "annum" | "y" => "year",
        "wk" | "wks" | "week" | "weeks" => "week",
        "day" | "days" | "d" => "day",
        "hr" | "hrs" | "hour" | "hours" | "h" => "hour",
        "qtr" | "quarter" | "quarters" => "quarter",
        "capita" | "person" | "head" => "person",
        other => {
            // "users" → "user"; keep short words whole ("gas").
            return match other.strip_suffix('s') {
                Some(stem) if stem.len() > 3 && !stem.ends_with('s') => stem.to_string(),
                _ => other.to_string(),
            };
        }
    };
    normalized.to_string()
}

/// Denominator words: "half", "thirds", "quarter"… with whether the word is plural.
fn fraction_word(w: &str) -> Option<(f64, bool)> {
    let mut buf = [0; 16];
    Some(match lower(w, &mut buf)? {
        "half" => (2.0, false),
        "halves" => (2.0, true),
        "third" => (3.0, false),
        "thirds" => (3.0, true),
        "quarter" | "fourth" => (4.0, false),
        "quarters" | "fourths" => (4.0, true),
        "fifth" => (5.0, false),
        "fifths" => (5.0, true),
        "sixth" => (6.0, false),
        "sixths" => (6.0, true),
        "seventh" => (7.0, false),
        "sevenths" => (7.0, true),
        "eighth" => (8.0, false),
        "eighths" => (8.0, true),
        "ninth" => (9.0, false),
        "ninths" => (9.0, true),
        "tenth" => (10.0, false),
        "tenths" => (10.0, true),
        _ => return None,
    })
}

/// Month names as written in dates, capitalized ("may" in lower case is a verb).
pub(crate) fn is_month(w: &str) -> bool {
    let mut chars = w.chars();
    chars.next().is_some_and(char::is_uppercase)
        && chars.all(char::is_lowercase)
        && super::lexicon::month_number(&w.to_lowercase()).is_some()
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_invisible_character_inside_a_number_is_read_past() {
        for written in [
            "$9\u{200b}0 million",
            "$9\u{ad}0 million",
            "$9\u{2060}\u{feff}0 million",
        ] {
            let figures = super::parse_figures(&format!("The council spent {written} on roads."));
            assert_eq!(figures.len(), 1, "{written:?}: {figures:?}");
            assert!(
                (figures[0].value - 90e6).abs() < 1.0,
                "{written:?}: {figures:?}"
            );
            assert_eq!(figures[0].text, written);
        }
        // Between words it is left alone, and figures after it are found as written.
        let figures =
            super::parse_figures("A zero\u{200b}width word, then 1\u{200b},200 homes and 4%.");
        let texts: Vec<&str> = figures.iter().map(|f| f.text.as_str()).collect();
        assert_eq!(texts, ["1\u{200b},200", "4%"]);
    }

    use super::*;
    use proptest::prelude::*;

    /// What a user checks of one figure: (text, value, unit, currency, scale, per).
    type Expected = (
        &'static str,
        f64,
        Unit,
        Option<&'static str>,
        f64,
        Option<&'static str>,
    );

    fn check(text: &str, expected: &[Expected]) {
        let got = parse_figures(text);
        let got_view: Vec<_> = got
            .iter()
            .map(|f| {
                (
                    f.text.as_str(),
                    f.value,
                    f.unit,
                    f.currency.as_deref(),
                    f.scale,
                    f.per.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            got.len(),
            expected.len(),
            "{text:?}: expected {expected:?}, got {got_view:?}"
        );
        for (g, e) in got_view.iter().zip(expected) {
            let close = (g.1 - e.1).abs() <= 1e-9 * e.1.abs().max(1.0);
            assert!(
                g.0 == e.0 && close && g.2 == e.2 && g.3 == e.3 && g.4 == e.4 && g.5 == e.5,
                "{text:?}: expected {e:?}, got {g:?}"
            );
        }
    }

    use Unit::*;

    #[test]
    fn percentages() {
        check(
            "73% improvement",
            &[("73%", 73.0, Percent, None, 1.0, None)],
        );
        check(
            "rose 3.5% in a year",
            &[("3.5%", 3.5, Percent, None, 1.0, None)],
        );
        check(
            "U.S. sales rose 12 percent",
            &[("12 percent", 12.0, Percent, None, 1.0, None)],
        );
        check(
            "a share of 3.5 per cent",
            &[("3.5 per cent", 3.5, Percent, None, 1.0, None)],
        );
        check(
            "up 3 percentage points",
            &[(
                "3 percentage points",
                3.0,
                PercentagePoints,
                None,
                1.0,
                None,
            )],
        );
        check(
            "cut rates by 50 basis points",
            &[("50 basis points", 0.5, PercentagePoints, None, 0.01, None)],
        );
        check(
            "five percent of adults",
            &[("five percent", 5.0, Percent, None, 1.0, None)],
        );
        check(
            "between 10-15% of users",
            &[
                ("10", 10.0, Percent, None, 1.0, None),
                ("15%", 15.0, Percent, None, 1.0, None),
            ],
        );
    }

    #[test]
    fn money() {
        check(
            "worth $4.2 billion",
            &[("$4.2 billion", 4.2e9, Currency, Some("USD"), 1e9, None)],
        );
        check(
            "raised €300m",
            &[("€300m", 3e8, Currency, Some("EUR"), 1e6, None)],
        );
        check(
            "£1.5bn deal",
            &[("£1.5bn", 1.5e9, Currency, Some("GBP"), 1e9, None)],
        );
        check(
            "costs US$20",
            &[("US$20", 20.0, Currency, Some("USD"), 1.0, None)],
        );
        check(
            "a USD 5 million grant",
            &[("USD 5 million", 5e6, Currency, Some("USD"), 1e6, None)],
        );
        check(
            "only $9/month",
            &[("$9/month", 9.0, Currency, Some("USD"), 1.0, Some("month"))],
        );
        check(
            "$4/month or $44/year [6]",
            &[
                ("$4/month", 4.0, Currency, Some("USD"), 1.0, Some("month")),
                ("$44/year", 44.0, Currency, Some("USD"), 1.0, Some("year")),
            ],
        );
        check(
            "$44 per year",
            &[(
                "$44 per year",
                44.0,
                Currency,
                Some("USD"),
                1.0,
                Some("year"),
            )],
        );
        check(
            "$44 a year",
            &[("$44 a year", 44.0, Currency, Some("USD"), 1.0, Some("year"))],
        );
        check(
            "$5 per user per month",
            &[("$5 per user", 5.0, Currency, Some("USD"), 1.0, Some("user"))],
        );
        check(
            "¥1,200 each",
            &[("¥1,200", 1200.0, Currency, Some("JPY"), 1.0, None)],
        );
        check(
            "₹40 lakh",
            &[("₹40 lakh", 4e6, Currency, Some("INR"), 1e5, None)],
        );
        check(
            "20 euros a month",
            &[(
                "20 euros a month",
                20.0,
                Currency,
                Some("EUR"),
                1.0,
                Some("month"),
            )],
        );
        check(
            "a budget of $3-5 billion",
            &[
                ("$3", 3e9, Currency, Some("USD"), 1e9, None),
                ("5 billion", 5e9, Currency, Some("USD"), 1e9, None),
            ],
        );
        // An amount written in full keeps its own scale beside a scaled one, in every form.
        check(
            "spending rises by £334,000 to £5.1m",
            &[
                ("£334,000", 334_000.0, Currency, Some("GBP"), 1.0, None),
                ("£5.1m", 5.1e6, Currency, Some("GBP"), 1e6, None),
            ],
        );
        check(
            "up by $2,400 to $1.2 billion",
            &[
                ("$2,400", 2_400.0, Currency, Some("USD"), 1.0, None),
                ("$1.2 billion", 1.2e9, Currency, Some("USD"), 1e9, None),
            ],
        );
        check(
            "grew from 1,500 to 2 million users",
            &[
                ("1,500", 1_500.0, Count, None, 1.0, None),
                ("2 million", 2e6, Count, None, 1e6, None),
            ],
        );
        // A table's cells: a minus glued to its number is a sign, not a range.
        check(
            "Bulk cargo (million tonnes) 8.9 9.6 -7.3%",
            &[
                ("8.9", 8.9, Count, None, 1.0, None),
                ("9.6", 9.6, Count, None, 1.0, None),
                ("7.3%", 7.3, Percent, None, 1.0, None),
            ],
        );
        // The base of a rate is no figure.
        check(
            "a death rate of 41.2 per 100,000 people aged 65 and over",
            &[
                ("41.2", 41.2, Count, None, 1.0, None),
                ("65", 65.0, Count, None, 1.0, None),
            ],
        );
        check(
            "251 officers for every 100,000 residents",
            &[("251", 251.0, Count, None, 1.0, None)],
        );
        check(
            "76.4 offences per 1,000 residents",
            &[("76.4", 76.4, Count, None, 1.0, None)],
        );
        check(
            "or 87 cents a share",
            &[("87 cents", 0.87, Currency, Some("USD"), 1.0, None)],
        );
        check(
            "a rise of 45 pence a litre",
            &[("45 pence", 0.45, Currency, Some("GBP"), 1.0, None)],
        );
        check(
            "stamps up 10 pence",
            &[("10 pence", 0.10, Currency, Some("GBP"), 1.0, None)],
        );
        check(
            "the global market for AI tutors is worth $50 billion",
            &[("$50 billion", 5e10, Currency, Some("USD"), 1e9, None)],
        );
        check(
            "$0.99",
            &[("$0.99", 0.99, Currency, Some("USD"), 1.0, None)],
        );
        check(
            "bought 20 T-shirts for $20",
            &[
                ("20", 20.0, Count, None, 1.0, None),
                ("$20", 20.0, Currency, Some("USD"), 1.0, None),
            ],
        );
    }

    #[test]
    fn counts() {
        check("500 students", &[("500", 500.0, Count, None, 1.0, None)]);
        check(
            "1.2 million users",
            &[("1.2 million", 1.2e6, Count, None, 1e6, None)],
        );
        check(
            "3,400 schools",
            &[("3,400", 3400.0, Count, None, 1.0, None)],
        );
        check("12k downloads", &[("12k", 12000.0, Count, None, 1e3, None)]);
        check("3.5M users", &[("3.5M", 3.5e6, Count, None, 1e6, None)]);
        check(
            "from 3 to 5 million",
            &[
                ("3", 3e6, Count, None, 1e6, None),
                ("5 million", 5e6, Count, None, 1e6, None),
            ],
        );
        check(
            "two million people",
            &[("two million", 2e6, Count, None, 1e6, None)],
        );
        check(
            "a dozen schools",
            &[("a dozen", 12.0, Count, None, 12.0, None)],
        );
        check(
            "2023 students enrolled",
            &[("2023", 2023.0, Count, None, 1.0, None)],
        );
        check(
            "In 2023, 500 students enrolled",
            &[
                ("2023", 2023.0, Year, None, 1.0, None),
                ("500", 500.0, Count, None, 1.0, None),
            ],
        );
        // Bare number words are no figures.
        check("one of them said three things", &[]);
        check("it took three years and two reasons", &[]);
        check("the two leaders met", &[]);
        // A number word that counts a plural noun is one.
        check(
            "Forty families were evacuated",
            &[("Forty", 40.0, Count, None, 1.0, None)],
        );
        check(
            "twelve new schools opened",
            &[("twelve", 12.0, Count, None, 1.0, None)],
        );
        check(
            "twenty-five people came",
            &[("twenty-five", 25.0, Count, None, 1.0, None)],
        );
    }

    #[test]
    fn ratios_and_multipliers() {
        check(
            "one in five adults",
            &[("one in five", 0.2, Ratio, None, 1.0, None)],
        );
        check(
            "2 out of 10 teachers",
            &[("2 out of 10", 0.2, Ratio, None, 1.0, None)],
        );
        check("a 3:1 ratio", &[("3:1", 3.0, Ratio, None, 1.0, None)]);
        check("won 3 to 1", &[("3 to 1", 3.0, Ratio, None, 1.0, None)]);
        check(
            "two-thirds of voters",
            &[("two-thirds", 2.0 / 3.0, Ratio, None, 1.0, None)],
        );
        check(
            "a third of schools",
            &[("a third", 1.0 / 3.0, Ratio, None, 1.0, None)],
        );
        check(
            "half of all users",
            &[("half", 0.5, Ratio, None, 1.0, None)],
        );
        check("in the second half of the year", &[]);
        // A change by a fraction is a change in percent, as "by 50%" is.
        check(
            "waiting times fell by half",
            &[("half", 50.0, Percent, None, 1.0, None)],
        );
        check(
            "costs rose by a third",
            &[("a third", 100.0 / 3.0, Percent, None, 1.0, None)],
        );
        check(
            "emissions were cut by two-thirds",
            &[("two-thirds", 200.0 / 3.0, Percent, None, 1.0, None)],
        );
        check(
            "backed by half of the members",
            &[("half", 0.5, Ratio, None, 1.0, None)],
        );
        check(
            "AI tutoring doubles learning gains [2]",
            &[("doubles", 2.0, Multiplier, None, 1.0, None)],
        );
        check(
            "sales doubled",
            &[("doubled", 2.0, Multiplier, None, 1.0, None)],
        );
        check(
            "costs tripled",
            &[("tripled", 3.0, Multiplier, None, 1.0, None)],
        );
        check(
            "waiting time halved",
            &[("halved", 0.5, Multiplier, None, 1.0, None)],
        );
        check(
            "prices were cut in half",
            &[("in half", 0.5, Multiplier, None, 1.0, None)],
        );
        check("3x faster", &[("3x", 3.0, Multiplier, None, 1.0, None)]);
        check("3× faster", &[("3×", 3.0, Multiplier, None, 1.0, None)]);
        check(
            "three times more likely",
            &[("three times", 3.0, Multiplier, None, 1.0, None)],
        );
        check(
            "a tenfold rise",
            &[("tenfold", 10.0, Multiplier, None, 1.0, None)],
        );
        check(
            "a 3-fold rise",
            &[("3-fold", 3.0, Multiplier, None, 1.0, None)],
        );
        check("three times a week", &[]);
        check(
            "downloaded 10 million times",
            &[("10 million", 1e7, Count, None, 1e6, None)],
        );
    }

    #[test]
    fn years_and_dates() {
        check("in 2023", &[("2023", 2023.0, Year, None, 1.0, None)]);
        check("since 1998", &[("1998", 1998.0, Year, None, 1.0, None)]);
        check(
            "on 4 March 2024",
            &[("2024", 2024.0, Year, None, 1.0, None)],
        );
        check(
            "on March 4, 2024",
            &[("2024", 2024.0, Year, None, 1.0, None)],
        );
        check("the 1990s", &[("1990s", 1990.0, Year, None, 1.0, None)]);
        check(
            "from 2020-2023",
            &[
                ("2020", 2020.0, Year, None, 1.0, None),
                ("2023", 2023.0, Year, None, 1.0, None),
            ],
        );
        check("in 2023-24", &[("2023", 2023.0, Year, None, 1.0, None)]);
        check("on 2024-03-04", &[("2024", 2024.0, Year, None, 1.0, None)]);
        check(
            "2023 was a good year",
            &[("2023", 2023.0, Year, None, 1.0, None)],
        );
    }

    #[test]
    fn labels_markers_and_identifiers_are_not_figures() {
        check("tutoring works [2]", &[]);
        check("tutoring works [^1] [2, 3] [4-6]", &[]);
        check("1. First point", &[]);
        check("intro\n2) Second point", &[]);
        check("See Section 3 and Fig. 2 on page 14", &[]);
        check("as shown in 1.2.3", &[]);
        check("the 3rd time", &[]);
        check("COVID-19 hit the G20 and 4G networks", &[]);
        check("a 5km run at 10:30 or 5 pm", &[]);
        check("open 24/7", &[]);
        check("agent 007 item #5 § 12", &[]);
        check("Step 3: repeat", &[]);
        check("Call +1 555-123-4567 today", &[]);
        check(
            "shares closed +5%",
            &[("5%", 5.0, Percent, None, 1.0, None)],
        );
        check("We are at 221B Baker Street", &[]);
        check("a 20-year-old student in a 3-year study", &[]);
        check("Page 1 of 5", &[]);
        check(
            "the 2022-23 school year",
            &[("2022", 2022.0, Year, None, 1.0, None)],
        );
    }

    #[test]
    fn only_words_that_can_start_a_figure_pass_the_word_check() {
        for w in [
            "USD",
            "US",
            "A",
            "Rs",
            "RMB",
            "CN",
            "a",
            "An",
            "half",
            "one",
            "Twenty",
            "ninety",
            "doubled",
            "Doubles",
            "tripling",
            "quadruple",
            "halved",
            "twice",
            "cut",
            "cutting",
            "tenfold",
            "hundredfold",
        ] {
            assert!(may_start_figure(w), "{w}");
        }
        for w in [
            "the", "students", "market", "percent", "Parents", "about", "café",
        ] {
            assert!(!may_start_figure(w), "{w}");
        }
    }

    #[test]
    fn long_numbers_stay_finite() {
        let digits = "9".repeat(400);
        for f in parse_figures(&format!("${digits} trillion trillion trillion")) {
            assert!(f.value.is_finite());
        }
        let f = parse_figures("9,999,999,999,999 trillion");
        assert_eq!(f.len(), 1);
        assert!(f[0].value.is_finite());
    }

    proptest! {
        #[test]
        fn never_panics_and_values_are_finite(s in "\\PC{0,200}") {
            for f in parse_figures(&s) {
                prop_assert!(f.value.is_finite());
                prop_assert!(f.scale.is_finite());
                prop_assert!(s.contains(&f.text));
            }
        }

        #[test]
        fn never_panics_on_number_soup(
            s in "([0-9]{1,4}|[$€£¥₹%:/.,×x\\[\\]^-]|one|two|million|bn|k|m|percent|per|in|to|of|a|year|month|March|the|half|thirds| ){0,40}"
        ) {
            for f in parse_figures(&s) {
                prop_assert!(f.value.is_finite());
                prop_assert!(s.contains(&f.text));
            }
        }
    }
}

/// A table's cell as `webpage::table_text` writes it ("Orchard Ley, Turnout 2025 (%): 30.0.",
/// "Waste, 2025-26 (£m): 5.1.") gives its unit in its heading: the cell's bare number takes it,
/// a percentage, or money at the heading's scale. Figures that carry a unit of their own, and
/// sentences that are not a cell, are left as read.
pub fn apply_cell_heading(text: &str, figures: &mut [Figure]) {
    let body = text.trim().trim_end_matches('.');
    let Some((heading, cell)) = body.rsplit_once(": ") else {
        return;
    };
    if cell.split_whitespace().count() != 1
        || !cell.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+')
    {
        return;
    }
    let Some(figure) = figures.last_mut() else {
        return;
    };
    if figure.unit != Unit::Count || figure.scale != 1.0 || figure.text.trim() != cell {
        return;
    }
    let heading = heading.to_lowercase();
    let Some(open) = heading.rfind('(') else {
        return;
    };
    let unit = heading[open + 1..].trim_end_matches(')').trim();
    if matches!(unit, "%" | "per cent" | "percent") {
        figure.unit = Unit::Percent;
        return;
    }
    let (currency, rest) = match unit.chars().next() {
        Some('£') => ("GBP", &unit['£'.len_utf8()..]),
        Some('$') => ("USD", &unit[1..]),
        Some('€') => ("EUR", &unit['€'.len_utf8()..]),
        _ => return,
    };
    let scale = match rest.trim() {
        "" => 1.0,
        "000" | "000s" | "k" | "thousand" | "thousands" => 1e3,
        "m" | "mn" | "million" | "millions" => 1e6,
        "bn" | "billion" | "billions" => 1e9,
        _ => return,
    };
    figure.unit = Unit::Currency;
    figure.currency = Some(currency.to_owned());
    figure.value *= scale;
    figure.scale = scale;
}

#[cfg(test)]
mod cell_heading_tests {
    use super::*;

    fn read(text: &str) -> Figure {
        let mut figures = parse_figures(text);
        apply_cell_heading(text, &mut figures);
        figures.last().cloned().expect("a figure")
    }

    #[test]
    fn a_cells_heading_gives_its_bare_number_a_unit() {
        let f = read("Orchard Ley, Turnout 2025 (%): 30.0.");
        assert_eq!((f.unit, f.value), (Unit::Percent, 30.0));
        let f = read("Waste, 2025-26 (£m): 5.1.");
        assert_eq!(
            (f.unit, f.value, f.currency.as_deref()),
            (Unit::Currency, 5.1e6, Some("GBP"))
        );
        let f = read("Membership subscriptions, 2024 (£000): 2,270.");
        assert_eq!((f.unit, f.value), (Unit::Currency, 2.27e6));
        let f = read("Forward, Share (per cent): 31.9.");
        assert_eq!(f.unit, Unit::Percent);
        // No unit in the heading, a unit of its own, or not a cell: as read.
        assert_eq!(read("Kelbridge, Arrests 2025: 52.").unit, Unit::Count);
        assert_eq!(read("Waste, 2025-26 (£m): 12%.").unit, Unit::Percent);
        let f = read("The turnout (%) was 30.0 in Orchard Ley.");
        assert_eq!(f.unit, Unit::Count);
    }
}
