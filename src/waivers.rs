//! Waivers for `factgate check`: findings the newsroom has checked and accepts, written in the
//! draft or in a waivers file, each naming the finding and the reason. A waived finding is listed
//! as waived in every report format, never dropped, and no longer counts toward the decision
//! ([`factgate_core::decide::waive::waive_findings`]).
//!
//! - **Inline**, an HTML comment in the draft, on the line before the paragraph it is about (or
//!   at its start): `<!-- factgate-waive figure_mismatch: the archived page shows $4/month -->`.
//!   It waives the findings of that type on the claims of the paragraph that follows it.
//! - **A waivers file** (`--waivers FILE`, TOML), one `[[waiver]]` per finding:
//!
//! ```toml
//! [[waiver]]
//! article = "examples/article.md"  # the article's name in the report, or its id; optional
//! finding = "figure_mismatch"      # the finding's type, as reports name it
//! claim = "BudgetTutor Basic costs" # words of the claim (or its id); required
//! reason = "The archived pricing page shows $4/month."
//! ```

use serde::Deserialize;

use factgate_core::events::{FindingRef, IssueType, Waiver, WaiverKind};
use factgate_core::extract::Extraction;
use factgate_core::model::BodyFormat;

/// What starts an inline waiver's comment.
pub const INLINE_MARKER: &str = "factgate-waive";

/// A waivers file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaiversFile {
    #[serde(default, rename = "waiver")]
    pub waivers: Vec<FileWaiver>,
}

/// One entry of a waivers file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileWaiver {
    /// The article's name in the report (its path) or its id; absent: any article.
    #[serde(default)]
    pub article: Option<String>,
    pub finding: IssueType,
    /// Words the claim contains (case does not matter), or its id.
    pub claim: String,
    pub reason: String,
}

/// A waivers file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum WaiversError {
    #[error("reading the waivers file {path}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the waivers file {path} is not valid")]
    Parse {
        path: String,
        #[source]
        source: toml::de::Error,
    },
    #[error("the waivers file {path}: waiver {n} needs a claim and a reason")]
    Incomplete { path: String, n: usize },
}

/// The most a waivers file may hold: thousands of waivers, and `--waivers /dev/zero` fails at
/// once.
pub const MAX_WAIVERS_FILE_BYTES: u64 = 1 << 20;

impl WaiversFile {
    /// Reads and checks the waivers file at `path`.
    ///
    /// # Errors
    /// The file cannot be read, is not valid TOML of this shape, or an entry lacks a claim or
    /// a reason.
    pub fn read(path: &std::path::Path) -> Result<WaiversFile, WaiversError> {
        let shown = path.display().to_string();
        let text =
            crate::config::load::read_text_capped(path, MAX_WAIVERS_FILE_BYTES, "a waivers file")
                .map_err(|source| WaiversError::Read {
                path: shown.clone(),
                source,
            })?;
        let file: WaiversFile = toml::from_str(&text).map_err(|source| WaiversError::Parse {
            path: shown.clone(),
            source,
        })?;
        for (i, w) in file.waivers.iter().enumerate() {
            if w.claim.trim().is_empty() || w.reason.trim().is_empty() {
                return Err(WaiversError::Incomplete {
                    path: shown,
                    n: i + 1,
                });
            }
        }
        Ok(file)
    }
}

/// An inline waiver found in a body: the finding type, the reason, and the character range of
/// the paragraph it is about.
#[derive(Debug, Clone, PartialEq)]
pub struct InlineWaiver {
    pub finding: IssueType,
    pub reason: String,
    /// Character offsets (as claims' spans count them) of the paragraph waived.
    pub start: usize,
    pub end: usize,
}

/// The inline waivers of `body`, read as `format` is; comments that name no known finding type
/// are returned in `unknown` (their text), to be reported. Linear in the body, however many
/// comments it holds.
///
/// - Markdown: a comment (an HTML block or inline HTML, never the text of a code block or code
///   span) waives the claims of the block that follows it: the paragraph, heading, list item or
///   table, and no further; a comment inside a block (at a paragraph's start) waives that block.
/// - HTML: a comment waives the claims of the next block element after it (`<p>`, `<li>`, a
///   heading, `<td>`/`<th>`, `<blockquote>`, `<figcaption>`, `<dd>`/`<dt>`), to its closing tag.
/// - Text: a comment waives the lines after it, to the first blank line.
pub fn inline_waivers(body: &str, format: BodyFormat) -> (Vec<InlineWaiver>, Vec<String>) {
    // (comment's byte range, the byte range it waives)
    let scopes: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> = match format {
        BodyFormat::Markdown => markdown_scopes(body),
        BodyFormat::Html => html_scopes(body),
        BodyFormat::Text => text_scopes(body),
    };
    let mut found = Vec::new();
    let mut unknown = Vec::new();
    let mut chars = CharCounter::new(body);
    let mut end_chars = CharCounter::new(body);
    for (comment, scope) in scopes {
        let inner = body[comment.start + 4..comment.end - 3].trim();
        let Some(words) = inner.strip_prefix(INLINE_MARKER) else {
            continue;
        };
        let words = words.trim();
        let (kind, reason) = words.split_once(':').unwrap_or((words, ""));
        let finding =
            serde_json::from_value::<IssueType>(serde_json::Value::String(kind.trim().to_owned()));
        let reason = reason.trim();
        let Ok(finding) = finding
            .map_err(|_| ())
            .and_then(|f| if reason.is_empty() { Err(()) } else { Ok(f) })
        else {
            unknown.push(inner.to_owned());
            continue;
        };
        found.push(InlineWaiver {
            finding,
            reason: reason.to_owned(),
            start: chars.at(scope.start),
            end: end_chars.at(scope.end),
        });
    }
    (found, unknown)
}

/// Characters before byte offsets that never go back: one pass over the body, however many
/// offsets are asked for.
struct CharCounter<'a> {
    body: &'a str,
    byte: usize,
    chars: usize,
}

impl<'a> CharCounter<'a> {
    fn new(body: &'a str) -> Self {
        CharCounter {
            body,
            byte: 0,
            chars: 0,
        }
    }

    /// Characters before `byte`; an offset before the last one asked is counted afresh.
    fn at(&mut self, byte: usize) -> usize {
        if byte < self.byte {
            self.byte = 0;
            self.chars = 0;
        }
        let byte = byte.min(self.body.len());
        self.chars += self.body[self.byte..byte].chars().count();
        self.byte = byte;
        self.chars
    }
}

/// The comments (`<!-- … -->`) in `text`, as byte ranges offset by `base`.
fn comments_in(text: &str, base: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut rest = 0;
    while let Some(open) = text[rest..].find("<!--") {
        let open = rest + open;
        let Some(close) = text[open + 4..].find("-->") else {
            break;
        };
        let close = open + 4 + close + 3;
        out.push(base + open..base + close);
        rest = close;
    }
    out
}

/// A Markdown body's comments, each with the block it waives (see [`inline_waivers`]).
fn markdown_scopes(body: &str) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut out = Vec::new();
    // Comments seen since the last block started, waiting for the block they come before.
    let mut waiting: Vec<std::ops::Range<usize>> = Vec::new();
    // The leaf blocks open now, innermost last, each with its range.
    let mut open: Vec<std::ops::Range<usize>> = Vec::new();
    let leaf = |tag: &Tag<'_>| {
        matches!(
            tag,
            Tag::Paragraph | Tag::Heading { .. } | Tag::Item | Tag::Table(_)
        )
    };
    let parser = Parser::new_ext(body, Options::ENABLE_TABLES).into_offset_iter();
    for (event, range) in parser {
        match event {
            Event::Start(tag) if leaf(&tag) => {
                for comment in waiting.drain(..) {
                    out.push((comment, range.clone()));
                }
                open.push(range);
            }
            Event::End(TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::Item | TagEnd::Table) => {
                open.pop();
            }
            Event::Html(_) | Event::InlineHtml(_) => {
                let comments = comments_in(&body[range.clone()], range.start);
                match open.last() {
                    // Inside a block (a comment at a paragraph's start): that block.
                    Some(block) => {
                        for comment in comments {
                            out.push((comment, block.clone()));
                        }
                    }
                    None => waiting.extend(comments),
                }
            }
            _ => {}
        }
    }
    // Comments after the last block waive nothing, but are read: one naming no finding type is
    // still reported.
    let end = body.len();
    out.extend(waiting.into_iter().map(|comment| (comment, end..end)));
    out
}

/// The block elements an HTML comment before them waives.
const HTML_BLOCKS: &[&str] = &[
    "p",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "td",
    "th",
    "blockquote",
    "figcaption",
    "dd",
    "dt",
];

/// An HTML body's comments, each with the next block element after it, to its closing tag.
fn html_scopes(body: &str) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let lower = body.to_ascii_lowercase();
    let comments = comments_in(body, 0);
    let mut out = Vec::with_capacity(comments.len());
    // The next block's range, found once for every comment before it.
    let mut next: Option<std::ops::Range<usize>> = None;
    let mut none_after: Option<usize> = None;
    for comment in comments {
        let stale = next.as_ref().is_none_or(|n| n.start < comment.end);
        // No block after an earlier comment means none after this one either.
        if stale && none_after.is_none_or(|at| comment.end < at) {
            next = next_html_block(&lower, comment.end);
            if next.is_none() {
                none_after = Some(comment.end);
            }
        }
        let end = body.len();
        out.push((comment, next.clone().unwrap_or(end..end)));
    }
    out
}

/// The first block element ([`HTML_BLOCKS`]) opening at or after `from` in `lower` (the body,
/// lower-cased), to the end of its closing tag (or of the body).
fn next_html_block(lower: &str, from: usize) -> Option<std::ops::Range<usize>> {
    let mut at = from;
    while let Some(open) = lower[at..].find('<') {
        let start = at + open;
        let name: String = lower[start + 1..]
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        at = start + 1;
        if !HTML_BLOCKS.contains(&name.as_str()) {
            continue;
        }
        let close = format!("</{name}");
        let end = lower[start..]
            .find(&close)
            .and_then(|c| lower[start + c..].find('>').map(|g| start + c + g + 1))
            .unwrap_or(lower.len());
        return Some(start..end);
    }
    None
}

/// A text body's comments, each with the lines after it to the first blank line.
fn text_scopes(body: &str) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    comments_in(body, 0)
        .into_iter()
        .map(|comment| {
            let after = &body[comment.end..];
            let text_start = after.len() - after.trim_start().len();
            let end = after[text_start..]
                .find("\n\n")
                .map_or(body.len(), |e| comment.end + text_start + e);
            let scope = comment.start..end;
            (comment, scope)
        })
        .collect()
}

/// Where a resolved waiver came from: the draft's comment or the file's entry, by its index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaiverOrigin {
    Inline(usize),
    File(usize),
}

/// The fewest words a waivers file's `claim` must hold when it is not a claim id: a few words
/// name a sentence, where "e" or "the" would name every claim.
pub const MIN_CLAIM_WORDS: usize = 3;

/// The findings `inline` and `file` waive in an article, as [`FindingRef`]s with their waivers
/// and where each came from, for the claims of `extraction`; `name` and `article_id` select
/// the file's entries. Entries that name no claim, or too few words to name one, are returned
/// apart, by their description, for a warning.
pub fn resolve(
    extraction: &Extraction,
    inline: &[InlineWaiver],
    file: &WaiversFile,
    name: &str,
    article_id: &str,
) -> (Vec<(FindingRef, Waiver, WaiverOrigin)>, Vec<String>) {
    let mut out = Vec::new();
    let mut unmatched = Vec::new();
    // Claims by where they start, so each inline waiver finds its claims by a binary search.
    let mut placed: Vec<(usize, &factgate_core::model::Claim)> = extraction
        .claims
        .iter()
        .filter_map(|c| Some((c.location.span?.start, c)))
        .collect();
    placed.sort_by_key(|(start, _)| *start);
    for (i, w) in inline.iter().enumerate() {
        let from = placed.partition_point(|(start, _)| *start < w.start);
        let to = placed.partition_point(|(start, _)| *start < w.end);
        if from >= to {
            unmatched.push(format!(
                "the inline waiver of {} is before no claim",
                w.finding.as_str()
            ));
        }
        for (_, claim) in &placed[from..to] {
            out.push((
                FindingRef {
                    issue_type: w.finding,
                    claim_id: Some(claim.id.clone()),
                },
                Waiver {
                    kind: WaiverKind::Inline,
                    editor: None,
                    reason: w.reason.clone(),
                    override_id: None,
                    waived_at: None,
                },
                WaiverOrigin::Inline(i),
            ));
        }
    }
    for (i, w) in file.waivers.iter().enumerate() {
        if w.article
            .as_deref()
            .is_some_and(|a| a != name && a != article_id)
        {
            continue;
        }
        let wanted = w.claim.trim();
        let is_id = extraction.claims.iter().any(|c| c.id == wanted);
        if !is_id && wanted.split_whitespace().count() < MIN_CLAIM_WORDS {
            unmatched.push(format!(
                "the waiver of {} for the claim {:?} names too few words to name one claim: \
                 give {MIN_CLAIM_WORDS} words or more of it, or its id",
                w.finding.as_str(),
                w.claim
            ));
            continue;
        }
        let claims: Vec<_> = extraction
            .claims
            .iter()
            .filter(|c| c.id == wanted || (!is_id && contains_words(&c.text, wanted)))
            .collect();
        if claims.is_empty() {
            unmatched.push(format!(
                "the waiver of {} for the claim {:?} names no claim of {name}",
                w.finding.as_str(),
                w.claim
            ));
        }
        for claim in claims {
            out.push((
                FindingRef {
                    issue_type: w.finding,
                    claim_id: Some(claim.id.clone()),
                },
                Waiver {
                    kind: WaiverKind::File,
                    editor: None,
                    reason: w.reason.trim().to_owned(),
                    override_id: None,
                    waived_at: None,
                },
                WaiverOrigin::File(i),
            ));
        }
    }
    (out, unmatched)
}

/// Whether `text` holds `words` as whole words, case aside: "costs $4" is in "The plan costs
/// $4/month", "ost" is in nothing.
fn contains_words(text: &str, words: &str) -> bool {
    factgate_core::text::contains_whole_words(&text.to_lowercase(), &words.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inline_waiver_covers_the_paragraph_after_it() {
        let body = "# Prices\n\n<!-- factgate-waive figure_mismatch: archived page shows $4 -->\nThe plan costs $4/month, says [the page](https://a.example/p).\n\nThe other plan costs $12/month, says [the page](https://a.example/p).\n\n<!-- factgate-waive no_such_type: x -->\n";
        let (inline, unknown) = inline_waivers(body, BodyFormat::Markdown);
        assert_eq!(inline.len(), 1);
        assert_eq!(inline[0].finding, IssueType::FigureMismatch);
        assert_eq!(inline[0].reason, "archived page shows $4");
        assert_eq!(unknown, vec!["factgate-waive no_such_type: x".to_owned()]);
        let extraction =
            factgate_core::extract::extract(body, BodyFormat::Markdown).expect("extracts");
        let (waived, unmatched) =
            resolve(&extraction, &inline, &WaiversFile::default(), "a.md", "a");
        assert!(unmatched.is_empty(), "{unmatched:?}");
        assert_eq!(waived.len(), 1, "only the claim after the comment");
        let claim = extraction
            .claims
            .iter()
            .find(|c| Some(&c.id) == waived[0].0.claim_id.as_ref())
            .expect("a claim");
        assert!(claim.text.contains("$4/month"), "{}", claim.text);
    }

    /// A waiver covers the block after it and no further: not the heading or list item that
    /// follows the paragraph without a blank line; a comment in a code block is text; an HTML
    /// draft's comment waives the next element.
    #[test]
    fn an_inline_waiver_covers_one_block_in_markdown_and_html() {
        let claim_of = |body: &str, format: BodyFormat| {
            let extraction = factgate_core::extract::extract(body, format).expect("extracts");
            let (inline, unknown) = inline_waivers(body, format);
            assert!(unknown.is_empty(), "{unknown:?}");
            let (waived, _) = resolve(&extraction, &inline, &WaiversFile::default(), "a", "a");
            waived
                .iter()
                .map(|(f, _, _)| {
                    extraction
                        .claims
                        .iter()
                        .find(|c| Some(&c.id) == f.claim_id.as_ref())
                        .expect("a claim")
                        .text
                        .clone()
                })
                .collect::<Vec<String>>()
        };
        let markdown = "<!-- factgate-waive unsourced: from our own survey -->\n\
            Our survey found 61% of parents pay for tutoring.\n\
            # Prices rose 12% in 2024\n\
            - Fees rose 9% at state schools.\n";
        let waived = claim_of(markdown, BodyFormat::Markdown);
        assert_eq!(waived.len(), 1, "{waived:?}");
        assert!(waived[0].contains("61%"), "{waived:?}");

        let fenced = "```\n<!-- factgate-waive unsourced: in a code block -->\n```\n\n\
            Our survey found 61% of parents pay for tutoring.\n";
        let (inline, _) = inline_waivers(fenced, BodyFormat::Markdown);
        assert!(
            inline.is_empty(),
            "a comment in a code block is text: {inline:?}"
        );

        let html = "<h1>Tutoring</h1><!-- factgate-waive unsourced: from our own survey -->\
            <p>Our survey found 61% of parents pay for tutoring.</p>\
            <p>Fees rose 9% at state schools.</p>";
        let waived = claim_of(html, BodyFormat::Html);
        assert_eq!(waived.len(), 1, "{waived:?}");
        assert!(waived[0].contains("61%"), "{waived:?}");
    }

    /// Reading the waivers of a draft grows with its size, not the square of its comments:
    /// eight times the comments take about eight times as long, not sixty-four (a ratio in one
    /// run, not a time).
    #[test]
    fn inline_waivers_are_read_in_linear_time() {
        let draft =
            |n: usize| "<!-- factgate-waive unsourced: r -->\nSales rose 4% in 2024.\n\n".repeat(n);
        let time = |body: &str| {
            let started = std::time::Instant::now();
            let (inline, _) = inline_waivers(body, BodyFormat::Markdown);
            (started.elapsed(), inline.len())
        };
        let (small_body, large_body) = (draft(3_000), draft(24_000));
        let _ = time(&small_body);
        let (small, n_small) = time(&small_body);
        let (large, n_large) = time(&large_body);
        assert_eq!((n_small, n_large), (3_000, 24_000));
        let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
        assert!(ratio < 24.0, "8x the comments took {ratio:.1}x as long");
    }

    #[test]
    fn a_file_waiver_of_a_word_or_two_names_nothing() {
        let file: WaiversFile = toml::from_str(
            "[[waiver]]\nfinding = \"figure_mismatch\"\nclaim = \"e\"\nreason = \"ok\"\n",
        )
        .expect("parses");
        let body = "The plan costs $4/month, says [the page](https://a.example/p).\n";
        let extraction =
            factgate_core::extract::extract(body, BodyFormat::Markdown).expect("extracts");
        let (waived, unmatched) = resolve(&extraction, &[], &file, "b.md", "b");
        assert!(waived.is_empty());
        assert!(unmatched[0].contains("too few words"), "{unmatched:?}");
    }

    #[test]
    fn a_file_waiver_names_its_claim_and_article() {
        let file: WaiversFile = toml::from_str(
            "[[waiver]]\narticle = \"b.md\"\nfinding = \"figure_mismatch\"\nclaim = \"plan costs $4\"\nreason = \"ok\"\n",
        )
        .expect("parses");
        let body = "The plan costs $4/month, says [the page](https://a.example/p).\n";
        let extraction =
            factgate_core::extract::extract(body, BodyFormat::Markdown).expect("extracts");
        let (waived, _) = resolve(&extraction, &[], &file, "b.md", "b");
        assert_eq!(waived.len(), 1);
        let (other, _) = resolve(&extraction, &[], &file, "c.md", "c");
        assert!(other.is_empty(), "another article");
        assert!(
            toml::from_str::<WaiversFile>(
                "[[waiver]]\nfinding = \"nonsense\"\nclaim = \"x\"\nreason = \"y\"\n"
            )
            .is_err()
        );
    }
}
