//! Sentence segmentation of one block's text.
//!
//! The Unicode sentence boundaries of UAX #29 (`unicode-segmentation`) are the base; they already
//! keep decimals ("3.5%", "$4.2 billion") and lower-case continuations ("e.g. the") together.
//! On top of them, a boundary is removed when:
//! - the text before it ends with a known abbreviation ("Dr.", "Inc.", "vs.", "No.", "Jan."), a
//!   single initial ("J."), or dotted initials ("U.S.", "e.g.", "a.m."). A genuine sentence that
//!   ends with such a word is then merged with the next one: a merged claim is still checked,
//!   while a wrongly split one loses its subject, so merging is the safer error;
//! - the text after it starts with a lower-case letter (`"Why?" she asked.`);
//! - a quotation opened before it is still open (a quote is never cut in the middle), up to
//!   [`MAX_QUOTE_BYTES`] so that a stray quote mark cannot swallow a whole paragraph;
//! - the text after it holds no letter or digit (trailing punctuation, masked citation markers).
//!
//! Blocks are segmented one at a time, so a sentence never spans two paragraphs, list items,
//! table cells or a heading. Offsets are byte offsets into the block text.

use std::ops::Range;
use unicode_segmentation::UnicodeSegmentation;

/// How far an open quotation keeps sentences together before the quote is taken to be a stray.
pub(crate) const MAX_QUOTE_BYTES: usize = 600;

/// One sentence of a block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    /// The sentence without surrounding whitespace.
    pub text: Range<usize>,
    /// The stretch of the block the sentence owns: itself plus the whitespace (and masked
    /// citation markers) that follow it. The owned ranges of a block's sentences tile the block,
    /// so every citation marker belongs to exactly one sentence.
    pub owned: Range<usize>,
}

/// Splits `text` into sentences. Pieces without any letter or digit are not sentences: they are
/// folded into the sentence before them (or after them, at the start of the block).
pub fn sentences(text: &str) -> Vec<Sentence> {
    let mut starts = uax29_starts(text);
    starts.extend(number_starts(text));
    starts.sort_unstable();
    starts.dedup();
    let mut owned: Vec<Range<usize>> = Vec::new();
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(text.len());
        match owned.last_mut() {
            Some(prev) if should_join(&text[prev.clone()], &text[start..end]) => prev.end = end,
            _ => owned.push(start..end),
        }
    }
    // A leading piece with no content (a masked marker at the start of a block) joins the next.
    if owned.len() > 1 && !has_content(&text[owned[0].clone()]) {
        let first = owned.remove(0);
        owned[0].start = first.start;
    }
    owned
        .into_iter()
        .filter(|r| has_content(&text[r.clone()]))
        .map(|r| Sentence {
            text: trimmed(text, r.clone()),
            owned: r,
        })
        .collect()
}

/// The sentence starts UAX #29 gives, byte for byte those of `split_sentence_bound_indices` on
/// the whole text, found by running it only on short windows around the characters where a
/// boundary can be decided.
///
/// A UAX #29 boundary only ever follows a sentence terminator or a paragraph separator, and the
/// rules that decide it look back and ahead only as far as the nearest letter. So the text is cut
/// between two ASCII lower-case letters ("ab"): no boundary falls there, and no rule looks across
/// such a pair. Stretches with no terminator (`.`, `!`, `?`), no line break and no non-ASCII
/// character between two cuts hold no boundary and are skipped; the rest is segmented window by
/// window. Segmentation was most of the cost of extraction when every character went through the
/// UAX #29 state machine.
fn uax29_starts(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = Vec::new();
    if bytes.is_empty() {
        return starts;
    }
    starts.push(0);
    // A cut at `p` lies between two lower-case ASCII letters.
    let cut_at = |p: usize| {
        p > 0
            && p < bytes.len()
            && bytes[p - 1].is_ascii_lowercase()
            && bytes[p].is_ascii_lowercase()
    };
    let decides = |b: u8| !b.is_ascii() || matches!(b, b'.' | b'!' | b'?' | b'\n' | b'\r');
    let mut done = 0;
    while let Some(k) = bytes[done..]
        .iter()
        .position(|&b| decides(b))
        .map(|k| done + k)
    {
        let window_start = (done..=k).rev().find(|&p| cut_at(p)).unwrap_or(done);
        let window_end = (k + 1..bytes.len())
            .find(|&p| cut_at(p))
            .unwrap_or(bytes.len());
        // Both ends are ASCII positions, hence character boundaries.
        let window = &text[window_start..window_end];
        starts.extend(
            window_starts(window)
                .into_iter()
                .map(|i| window_start + i)
                .filter(|&i| i != window_start),
        );
        done = window_end;
    }
    starts
}

/// The UAX #29 sentence starts of `window`, with each run of spaces and tabs read as one space.
///
/// To the rules a run of spaces is one `Sp*` whatever its length, but `unicode-segmentation`'s
/// look-ahead walks the rest of a run at every position in it: a block whose citation markers
/// were blanked to thousands of spaces (masked links or bare URLs) took time quadratic in the run.
/// A boundary never falls inside such a run (it falls after it), so each boundary found on the
/// shortened text maps back to the same place in the window.
fn window_starts(window: &str) -> Vec<usize> {
    let bytes = window.as_bytes();
    let is_blank = |b: u8| b == b' ' || b == b'\t';
    let long_run = bytes.windows(2).any(|w| is_blank(w[0]) && is_blank(w[1]));
    if !long_run {
        return window
            .split_sentence_bound_indices()
            .map(|(i, _)| i)
            .collect();
    }
    let mut short = String::with_capacity(window.len());
    // The window offset of each byte of `short`, and of its end.
    let mut origin: Vec<usize> = Vec::with_capacity(window.len() + 1);
    let mut rest = window.char_indices().peekable();
    while let Some((i, c)) = rest.next() {
        if c == ' ' || c == '\t' {
            while rest.next_if(|&(_, n)| n == ' ' || n == '\t').is_some() {}
            short.push(' ');
            origin.push(i);
            continue;
        }
        short.push(c);
        origin.extend(i..i + c.len_utf8());
    }
    origin.push(window.len());
    // A start right after a shortened run maps to where the run ends in the window.
    short
        .split_sentence_bound_indices()
        .map(|(i, _)| origin[i])
        .collect()
}

/// Boundaries UAX #29 misses: a sentence that starts with a figure ("Teachers are divided. 87% of
/// students…") is not split there, because the rules look past the digits for a lower-case word.
/// These candidates go through [`should_join`] like any other, so "No. 5" stays whole.
fn number_starts(text: &str) -> impl Iterator<Item = usize> + '_ {
    let bytes = text.as_bytes();
    // The stops are ASCII, so scanning bytes finds exactly the characters.
    (0..bytes.len()).filter_map(move |i| {
        if !matches!(bytes[i], b'.' | b'!' | b'?') {
            return None;
        }
        let mut j = i + 1;
        // Closing quotes or brackets after the stop stay with the sentence they close.
        while j < bytes.len() && matches!(bytes[j], b'"' | b'\'' | b')') {
            j += 1;
        }
        let gap_start = j;
        while j < bytes.len() && bytes[j].is_ascii_whitespace() {
            j += 1;
        }
        let starts_figure = text[j..]
            .chars()
            .next()
            .is_some_and(|n| n.is_ascii_digit() || matches!(n, '$' | '€' | '£' | '¥'));
        (j > gap_start && starts_figure).then_some(j)
    })
}

fn has_content(s: &str) -> bool {
    s.chars().any(char::is_alphanumeric)
}

fn trimmed(text: &str, r: Range<usize>) -> Range<usize> {
    let s = &text[r.clone()];
    let lead = s.len() - s.trim_start().len();
    let trail = s.len() - s.trim_end().len();
    if lead == s.len() {
        return r.start..r.start;
    }
    r.start + lead..r.end - trail
}

/// Whether the boundary between `prev` (the sentence so far) and `next` is false.
fn should_join(prev: &str, next: &str) -> bool {
    let prev_trim = prev.trim_end();
    if !has_content(prev_trim) || !has_content(next) {
        return true;
    }
    let next_trim = next.trim_start();
    // `"Why?" she asked.`: a sentence does not start in lower case ("iPhone" sentences are rare
    // enough to accept being merged).
    if next_trim
        .chars()
        .find(|c| c.is_alphanumeric())
        .is_some_and(char::is_lowercase)
    {
        return true;
    }
    if ends_with_abbreviation(prev_trim) {
        return true;
    }
    prev.len() < MAX_QUOTE_BYTES && quote_open(prev)
}

/// Words that end in a full stop without ending a sentence, lower-cased, without the stop.
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "gen", "gov", "sen", "rep", "col",
    "lt", "sgt", "capt", "rev", "hon", "pres", "inc", "ltd", "corp", "co", "llc", "plc", "bros",
    "dept", "univ", "assn", "vs", "v", "no", "nos", "vol", "vols", "pp", "p", "fig", "figs", "eq",
    "approx", "est", "ca", "cf", "al", "ed", "eds", "jan", "feb", "mar", "apr", "jun", "jul",
    "aug", "sep", "sept", "oct", "nov", "dec", "mon", "tue", "tues", "wed", "thu", "thurs", "fri",
    "sat", "sun", "mln", "bn", "mn", "ft", "in", "oz", "lb", "lbs", "km", "mi", "hr", "hrs", "min",
    "sec",
];

fn ends_with_abbreviation(prev_trim: &str) -> bool {
    let Some(before_stop) = prev_trim.strip_suffix('.') else {
        return false;
    };
    let word = before_stop
        .rsplit(|c: char| c.is_whitespace() || matches!(c, '(' | '[' | '"' | '“' | '‘' | '\''))
        .next()
        .unwrap_or("");
    if word.is_empty() {
        return false;
    }
    // A single initial: "J. K. Rowling".
    let mut chars = word.chars();
    if let (Some(c), None) = (chars.next(), chars.next())
        && c.is_uppercase()
    {
        return true;
    }
    // Dotted initials: "U.S", "e.g", "a.m" (the final stop was stripped above).
    if word.contains('.')
        && word
            .split('.')
            .all(|part| part.chars().count() == 1 && part.chars().all(char::is_alphabetic))
    {
        return true;
    }
    if word.len() > 6 {
        return false;
    }
    let lower = word.to_lowercase();
    ABBREVIATIONS.contains(&lower.as_str())
}

/// Whether a quotation opened in `s` is still open at its end.
fn quote_open(s: &str) -> bool {
    let (mut straight, mut open, mut close) = (0usize, 0usize, 0usize);
    for c in s.chars() {
        match c {
            '"' => straight += 1,
            '“' | '«' | '„' => open += 1,
            '”' | '»' => close += 1,
            _ => {}
        }
    }
    straight % 2 == 1 || open > close
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<&str> {
        sentences(text).into_iter().map(|s| &text[s.text]).collect()
    }

    #[test]
    fn a_sentence_may_start_with_a_figure() {
        assert_eq!(
            split("Teachers are divided. 87% of students use the tools daily."),
            vec![
                "Teachers are divided.",
                "87% of students use the tools daily."
            ]
        );
        assert_eq!(
            split("Prices rose. $4 buys less than it did."),
            vec!["Prices rose.", "$4 buys less than it did."]
        );
        assert_eq!(
            split("See No. 5 in the list."),
            vec!["See No. 5 in the list."]
        );
        assert_eq!(
            split("It grew 3.5% this year."),
            vec!["It grew 3.5% this year."]
        );
    }

    #[test]
    fn runs_of_blanks_give_the_boundaries_a_single_space_gives() {
        // Masked markers leave long runs of spaces; boundaries and offsets are those of the text
        // as written, found in time linear in the run.
        for gap in [1, 2, 7, 200_000] {
            let blanks = " ".repeat(gap);
            let text =
                format!("Sales rose 4%.{blanks}Costs fell.\t\t It rained{blanks}. Next one.");
            let found: Vec<&str> = split(&text);
            assert_eq!(
                found,
                vec![
                    "Sales rose 4%.",
                    "Costs fell.",
                    &format!("It rained{blanks}."),
                    "Next one."
                ],
                "gap {gap}"
            );
        }
        let windows = window_starts("Sales rose.     Costs fell.  ");
        assert_eq!(windows, vec![0, 16]);
    }

    #[test]
    fn splits_plain_sentences() {
        assert_eq!(
            split("Sales rose. Costs fell! Why? Nobody knows."),
            vec!["Sales rose.", "Costs fell!", "Why?", "Nobody knows."]
        );
    }

    #[test]
    fn keeps_titles_and_company_abbreviations() {
        assert_eq!(
            split("Dr. Smith joined Acme Inc. in March. Prof. Lee left."),
            vec!["Dr. Smith joined Acme Inc. in March.", "Prof. Lee left."]
        );
        assert_eq!(
            split("It beat Globex Corp. By a lot. The end."),
            vec!["It beat Globex Corp. By a lot.", "The end."]
        );
    }

    #[test]
    fn keeps_dotted_initials_and_latin_abbreviations() {
        assert_eq!(
            split("The U.S. Department of Labor said so. Tools, e.g. Khanmigo, help."),
            vec![
                "The U.S. Department of Labor said so.",
                "Tools, e.g. Khanmigo, help."
            ]
        );
        assert_eq!(
            split("J. K. Rowling wrote it."),
            vec!["J. K. Rowling wrote it."]
        );
    }

    #[test]
    fn keeps_numbers_months_and_versus() {
        assert_eq!(
            split(
                "Growth was 3.5% in Jan. 2024, vs. 2.1% a year earlier. It ranked No. 5 overall."
            ),
            vec![
                "Growth was 3.5% in Jan. 2024, vs. 2.1% a year earlier.",
                "It ranked No. 5 overall."
            ]
        );
        assert_eq!(
            split("Revenue hit $4.2 billion. Margins were 12.5 percent."),
            vec!["Revenue hit $4.2 billion.", "Margins were 12.5 percent."]
        );
    }

    #[test]
    fn never_splits_inside_a_quote() {
        assert_eq!(
            split("He said \"Dr. Jones left. We grew fast.\" Then he left."),
            vec!["He said \"Dr. Jones left. We grew fast.\"", "Then he left."]
        );
        assert_eq!(
            split("“We grew fast. Very fast,” she said. Next."),
            vec!["“We grew fast. Very fast,” she said.", "Next."]
        );
        assert_eq!(
            split("\"Why?\" she asked. Nobody answered."),
            vec!["\"Why?\" she asked.", "Nobody answered."]
        );
    }

    #[test]
    fn a_stray_quote_does_not_swallow_the_paragraph() {
        let long = format!("He said \"no. {}", "This is a sentence. ".repeat(60));
        assert!(split(&long).len() > 20);
    }

    #[test]
    fn masked_markers_belong_to_the_sentence_before_them() {
        // "[2]" masked to spaces by the caller.
        let text = "Tutoring doubles gains.     Next claim here.";
        let s = sentences(text);
        assert_eq!(s.len(), 2);
        assert_eq!(&text[s[0].text.clone()], "Tutoring doubles gains.");
        assert!(
            s[0].owned.contains(&25),
            "the masked marker is owned by the first sentence"
        );
        assert_eq!(
            s[0].owned.end, s[1].owned.start,
            "owned ranges tile the block"
        );
    }

    #[test]
    fn pieces_without_words_are_not_sentences() {
        assert_eq!(split("— ... !"), Vec::<&str>::new());
    }

    fn full_uax29(text: &str) -> Vec<usize> {
        text.split_sentence_bound_indices()
            .map(|(i, _)| i)
            .collect()
    }

    #[test]
    fn windowed_uax29_matches_the_whole_text_on_examples() {
        for text in [
            "",
            "a",
            "Sales rose. Costs fell! Why? Nobody knows.",
            "He said \"Dr. Jones left. We grew fast.\" Then he left.",
            "“We grew fast. Very fast,” she said. Next.",
            "It grew 3.5% this year. etc. and more.   (Next one.) Last",
            "line one\nline two\r\nline three\u{2029}four. five",
            "ALL CAPS. NO PAIRS! 12. 34.",
            "Le café coûte 4 €. Très cher. e\u{301}. Über alles.",
        ] {
            assert_eq!(uax29_starts(text), full_uax29(text), "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn windowed_uax29_matches_the_whole_text(
            text in "([a-z]{0,4}[A-Za-z0-9 .!?\"'()\\[\\]{},;:\n\r\t“”‘’«»…。！？é\u{301}\u{ad}\u{a0}\u{2029}\u{85}ß؟।-]{0,3}){0,40}"
        ) {
            proptest::prop_assert_eq!(uax29_starts(&text), full_uax29(&text));
        }

        #[test]
        fn windowed_uax29_matches_the_whole_text_on_any_text(
            text in "([a-z ]{0,6}\\PC{0,3}){0,30}"
        ) {
            proptest::prop_assert_eq!(uax29_starts(&text), full_uax29(&text));
        }
    }

    #[test]
    fn offsets_survive_multibyte_text() {
        let text = "Le café coûte 4 €. Très cher.";
        let s = sentences(text);
        assert_eq!(&text[s[1].text.clone()], "Très cher.");
    }
}
