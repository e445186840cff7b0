//! Fitting the prompt into the model's context window: a token estimate that errs high, and the
//! evidence cut to what is left once the system prompt, the claim and the reply are counted.
//!
//! factgate cannot use the server's own tokenizer: each model has its own, and the
//! OpenAI-compatible protocol has no call to count tokens. So it estimates, on the text as it is
//! sent (JSON-encoded), with rules that give more tokens than the subword tokenizers of current
//! models do:
//! - one token per started group of four letters of an ASCII word (common English words are one
//!   token whatever their length);
//! - one per digit (Gemma, Llama 2 and others split numbers digit by digit);
//! - one per punctuation mark or symbol, and one more for every character JSON escapes;
//! - a space costs nothing before a letter (tokenizers fold it into the word) and one elsewhere
//!   (before a digit or a mark several tokenizers keep it apart); other whitespace costs one;
//! - outside ASCII, one per character of two UTF-8 bytes (accented Latin, Greek, Cyrillic) and
//!   one less than its byte count for longer ones (CJK, symbols, emoji), which tokenizers with a
//!   small vocabulary spell out byte by byte;
//! - and a tenth more over all, for the tokenizers that split finer than these rules.
//!
//! Checked against Gemma 3's tokenizer, as llama.cpp's server counts it: English prose is
//! overestimated by about two thirds, a list of numbers by a tenth; tests/it/llm_server.rs checks
//! every prompt it sends against the server's count.
//!
//! An estimate that errs high wastes a little of the window; one that errs low overflows it, and
//! the server then rejects the request or truncates the prompt where factgate cannot see it.
//!
//! Evidence is cut, never silently: the passage that crosses the budget is cut at the last word
//! that fits and ends with [`CUT_MARKER`], later passages are dropped, and [`EvidenceFit`] records
//! what was given and what was sent, for the claim's result and the logs.

use serde::Serialize;

/// Ends a passage that was cut to fit, so the voter sees that it continues.
pub(crate) const CUT_MARKER: &str = " […]";

/// Tokens a chat template adds around the two messages (role markers, turn delimiters), with
/// room to spare: the largest templates in common use add under 20.
pub const TEMPLATE_OVERHEAD_TOKENS: usize = 48;

/// The least evidence worth asking about. A claim so long that less is left abstains rather than
/// asking the panel about a fragment; the configuration is rejected when even a short claim
/// would leave less.
pub const MIN_EVIDENCE_TOKENS: usize = 128;

/// A cut passage shorter than this is dropped instead: a few words out of context mislead more
/// than they inform.
const MIN_CUT_TOKENS: usize = 24;

/// The cost of each character of `text`, in order, as sent inside a JSON string, before the
/// margin ([`with_margin`]); the sum over any prefix is that prefix's cost.
fn char_costs(text: &str) -> impl Iterator<Item = (usize, char, usize)> + '_ {
    let mut run = 0usize;
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        let (at, c) = chars.next()?;
        let cost = if c.is_ascii_alphabetic() {
            // One token per started group of four letters within a run of ASCII letters.
            run += 1;
            usize::from(run % 4 == 1)
        } else {
            run = 0;
            let escape = usize::from(c == '"' || c == '\\' || c.is_control());
            let base = match c {
                ' ' => usize::from(!chars.peek().is_some_and(|(_, n)| n.is_ascii_alphabetic())),
                c if c.is_ascii() => 1,
                c => c.len_utf8().saturating_sub(1).max(1),
            };
            base + escape
        };
        Some((at, c, cost))
    })
}

/// The raw cost and a tenth more, rounded up.
fn with_margin(raw: usize) -> usize {
    raw + raw.div_ceil(10)
}

/// Estimated tokens of `text` once JSON-encoded, erring high (see the module doc).
pub fn estimate_tokens(text: &str) -> usize {
    with_margin(char_costs(text).map(|(_, _, cost)| cost).sum())
}

/// Tokens one passage costs in the evidence array: its text, its quotes and separator.
fn passage_tokens(passage: &str) -> usize {
    estimate_tokens(passage) + 2
}

/// What the voters were shown of the evidence, and what was left out to fit the window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvidenceFit {
    /// Estimated tokens available for evidence.
    pub budget_tokens: usize,
    /// Passages the caller gave, best first, and their estimated tokens.
    pub passages_given: usize,
    pub tokens_given: usize,
    /// Passages sent, whole or cut, and their estimated tokens.
    pub passages_sent: usize,
    pub tokens_sent: usize,
    /// The passage (0-based, in the order given) cut short to fit, if one was.
    pub cut_passage: Option<usize>,
}

impl EvidenceFit {
    /// Whether anything given was left out.
    pub fn is_cut(&self) -> bool {
        self.passages_sent < self.passages_given || self.cut_passage.is_some()
    }

    /// The cut in words, for a claim's result: `None` when all the evidence was sent.
    pub fn describe(&self) -> Option<String> {
        if !self.is_cut() {
            return None;
        }
        let cut = match self.cut_passage {
            Some(i) => format!(", passage {} cut short", i + 1),
            None => String::new(),
        };
        Some(format!(
            "evidence cut to fit llm.context_tokens: {} of {} passages sent{cut}, about {} of {} tokens",
            self.passages_sent, self.passages_given, self.tokens_sent, self.tokens_given
        ))
    }
}

/// Keeps passages in the caller's order (best first) within `budget` estimated tokens. The
/// passage that crosses the budget is cut at the last whole word that fits, marked with
/// [`CUT_MARKER`], unless too little of it would remain; later passages are dropped.
pub fn fit_evidence(evidence: &[String], budget: usize) -> (Vec<String>, EvidenceFit) {
    let mut left = budget;
    let mut sent = Vec::new();
    let mut fit = EvidenceFit {
        budget_tokens: budget,
        passages_given: evidence.len(),
        tokens_given: evidence.iter().map(|p| passage_tokens(p)).sum(),
        passages_sent: 0,
        tokens_sent: 0,
        cut_passage: None,
    };
    for (i, passage) in evidence.iter().enumerate() {
        let cost = passage_tokens(passage);
        if cost <= left {
            sent.push(passage.clone());
            left -= cost;
            fit.tokens_sent += cost;
            continue;
        }
        let room = left.saturating_sub(passage_tokens(CUT_MARKER));
        if room >= MIN_CUT_TOKENS {
            let head = cut_to(passage, room);
            if !head.is_empty() {
                let cut = format!("{head}{CUT_MARKER}");
                fit.tokens_sent += passage_tokens(&cut);
                sent.push(cut);
                fit.cut_passage = Some(i);
            }
        }
        break;
    }
    fit.passages_sent = sent.len();
    (sent, fit)
}

/// The longest prefix of `text` costing at most `max` estimated tokens (with the two of its
/// quotes), ending at a word boundary when there is one; trailing whitespace trimmed.
fn cut_to(text: &str, max: usize) -> &str {
    let max = max.saturating_sub(2);
    let mut raw = 0;
    let mut previous: Option<char> = None;
    let mut last_fit = 0; // byte end of the longest prefix that fits
    let mut last_word_end = None; // byte end of the last whole word of that prefix
    for (at, c, cost) in char_costs(text) {
        if with_margin(raw + cost) > max {
            break;
        }
        if c.is_whitespace() && previous.is_some_and(|p| !p.is_whitespace()) {
            last_word_end = Some(at);
        }
        raw += cost;
        last_fit = at + c.len_utf8();
        previous = Some(c);
    }
    if last_fit == text.len() {
        return text;
    }
    text[..last_word_end.unwrap_or(last_fit)].trim_end()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_errs_high_on_plain_english() {
        // Published tokenizers give about 3/4 of a token per English word; this estimate gives
        // more, and never less than one token per word.
        let text = "The city council approved the new budget on Tuesday after a long debate.";
        let words = text.split_whitespace().count();
        assert!(estimate_tokens(text) >= words, "{}", estimate_tokens(text));
        // The rules one by one (raw costs; the margin adds a tenth, rounded up).
        assert_eq!(estimate_tokens("cat"), 2);
        assert_eq!(estimate_tokens("ridership"), with_margin(3));
        // A space before a digit counts; digits one each, punctuation one each.
        assert_eq!(estimate_tokens("rose 4.5%"), with_margin(1 + 1 + 4));
        // Characters JSON escapes cost one more; a line break is whitespace that counts.
        assert_eq!(estimate_tokens("\"a\"\n"), with_margin(2 + 1 + 2 + 2));
        // Outside ASCII: two-byte characters one each, longer ones one less than their bytes.
        assert_eq!(estimate_tokens("über"), with_margin(1 + 1));
        assert_eq!(estimate_tokens("€12"), with_margin(2 + 2));
        assert_eq!(estimate_tokens("東京都"), with_margin(6));
    }

    #[test]
    fn evidence_that_fits_is_sent_whole_and_the_fit_says_so() {
        let evidence = vec![
            "Ridership rose 4% in 2023.".to_string(),
            "Fares held.".into(),
        ];
        let (sent, fit) = fit_evidence(&evidence, 1000);
        assert_eq!(sent, evidence);
        assert!(!fit.is_cut());
        assert_eq!(fit.describe(), None);
        assert_eq!(fit.tokens_sent, fit.tokens_given);
        assert_eq!(fit.passages_sent, 2);
    }

    #[test]
    fn the_passage_crossing_the_budget_is_cut_at_a_word_and_marked() {
        let long: String = (0..200).map(|i| format!("word{i} ")).collect();
        let evidence = vec![
            "First passage, kept whole.".to_string(),
            long.clone(),
            "x".into(),
        ];
        let first = passage_tokens(&evidence[0]);
        let (sent, fit) = fit_evidence(&evidence, first + 60);
        assert_eq!(sent.len(), 2, "{sent:?}");
        assert_eq!(sent[0], evidence[0]);
        let cut = &sent[1];
        assert!(cut.ends_with(CUT_MARKER), "{cut}");
        let head = cut.strip_suffix(CUT_MARKER).unwrap();
        assert!(long.starts_with(head) && head.len() < long.len());
        // Cut after a whole word: the next character of the original is a space.
        assert_eq!(long[head.len()..].chars().next(), Some(' '));
        assert!(fit.tokens_sent <= fit.budget_tokens, "{fit:?}");
        assert_eq!(fit.cut_passage, Some(1));
        assert_eq!(fit.passages_sent, 2);
        let said = fit.describe().expect("a cut is reported");
        assert!(said.contains("2 of 3 passages") && said.contains("passage 2 cut short"));
    }

    #[test]
    fn a_sliver_is_dropped_rather_than_sent() {
        let evidence = vec!["a b c d e f g h i j k l m n o p q r s t u v w x y z".to_string()];
        let (sent, fit) = fit_evidence(&evidence, 10);
        assert!(sent.is_empty());
        assert!(fit.is_cut());
        assert_eq!(fit.cut_passage, None);
        assert!(fit.describe().unwrap().contains("0 of 1 passages"));
    }

    #[test]
    fn text_without_spaces_is_cut_on_a_character_boundary() {
        let text = "€".repeat(100);
        let head = cut_to(&text, 40);
        assert!(!head.is_empty() && head.len() < text.len());
        assert!(passage_tokens(head) <= 40);
    }

    #[test]
    fn the_estimate_of_a_cut_stays_within_the_budget_whatever_the_text() {
        let texts = [
            "Plain words of English prose, as a source would have them. ".repeat(40),
            "1,234,567 and 8.9% of \"quoted\" \\ text\n".repeat(40),
            "Ünïcödé straße — 東京 «citation» ".repeat(40),
        ];
        for text in texts {
            for budget in [30, 77, 200, 513] {
                let (sent, fit) = fit_evidence(std::slice::from_ref(&text), budget);
                let cost: usize = sent.iter().map(|p| passage_tokens(p)).sum();
                assert!(cost <= budget, "{cost} > {budget}");
                assert_eq!(cost, fit.tokens_sent);
            }
        }
    }
}
