//! Quote checking: a quoted span must appear in the source once whitespace, quote marks and
//! case are normalized.
//!
//! Case is ignored because sources re-case quotes in headlines and pull quotes; words, their
//! order and their punctuation inside the span must match.

/// Folds curly quotes and apostrophes to straight ones, collapses whitespace and lowercases.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        let c = match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '`' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{00AB}'
            | '\u{00BB}' => '"',
            '\u{2013}' | '\u{2014}' => '-',
            c => c,
        };
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.extend(c.to_lowercase());
    }
    out
}

/// Strips the quote marks around a span, so `"Hello"` and `Hello` compare alike.
fn strip_marks(normalized: &str) -> &str {
    normalized.trim_matches(|c: char| c == '"' || c == '\'' || c.is_whitespace())
}

/// Whether `quote` appears in `source` after normalization. An empty quote is found.
pub fn quote_found(quote: &str, normalized_source: &str) -> bool {
    let q = normalize(quote);
    let q = strip_marks(&q);
    q.is_empty() || normalized_source.contains(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curly_quotes_line_breaks_and_case_do_not_matter() {
        let source = normalize("He said: \u{201C}We\u{2019}re   done\nwith it.\u{201D}");
        assert!(quote_found("we're done with it", &source));
        assert!(quote_found("\u{201C}We're done\u{201D}", &source));
        assert!(!quote_found("we are done with it", &source));
    }
}
