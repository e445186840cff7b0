//! Claim extraction: a draft body in, check-worthy claims out, each mapped to its citations.
//!
//! Pure and synchronous: no I/O, no clock. The whole body is read, whatever its length.
//! Failure is loud: a body that cannot be read is an [`ExtractError`], never an empty list.
//! An article that was read and holds no check-worthy claim gives an [`Extraction`] with no
//! claims and the count of sentences that were read, so the caller can say so.
//!
//! # Layout
//! - `document`: parses Markdown, HTML or text into blocks (headings, paragraphs, list items,
//!   table cells) with their inline citations and the article's reference list.
//! - `segment`: splits a block's text into sentences.
//! - `citations`: resolves links, reference links, numbered references, footnotes and bare URLs.
//! - `detect`: decides what makes a sentence check-worthy (kinds, quotes, attribution) and
//!   prejudges claims that cite nothing.
//! - `figures`: finds the figures a sentence states, normalized to value, unit and scale.
//! - `view`: the article block by block and sentence by sentence, for a report that marks each
//!   claim where it is.
//!
//! # Which citations back a claim
//! 1. **Same sentence** ([`CitationRule::SameSentence`]): the citations written in the claim's own
//!    sentence. A marker written right after a sentence's full stop (`… gains. [2] Next …`) belongs
//!    to the sentence before it.
//! 2. **Paragraph** ([`CitationRule::Paragraph`]): when the sentence cites nothing, the citations
//!    of the nearest sentence *after* it in the same block (paragraph, list item, cell) that
//!    cites something, else of the nearest one *before* it. Writers put the citation at the end of
//!    the run of sentences it supports, so the next one is the better guess. A citation never
//!    crosses into another block.
//! 3. **None** ([`CitationRule::None`]): nothing in the block backs the claim. The claim carries
//!    `prejudgment = detect::prejudge(..)`: the issue it raises with no fetch.
//!
//! A sentence whose markers all *dangle* (`[7]` with no 7th reference, a footnote with no
//! definition or no URL) cites nothing usable and does not borrow a neighbour's citation: it is
//! unsourced, its prejudgment says which marker dangles, and the marker is listed in
//! [`Extraction::unresolved`]. Only absolute http(s) URLs are citations; relative links, in-page
//! anchors that lead to no reference, and `mailto:` are ignored.
//!
//! # Claim text, ids and locations
//! A claim's text is its sentence as a reader sees it, with citation markers (`[2]`, `[^1]`,
//! bare URLs) removed and whitespace collapsed; that is also the text the detector reads, so a
//! marker's digits are never taken for a figure. The id is the first 16 hex digits of the
//! SHA-256 of the lower-cased text, the paragraph index and the sentence index. The span is in
//! characters of the body as received: from the parser's source offsets for Markdown and text,
//! and for HTML where the sentence's text occurs verbatim in the body (else absent).

mod citations;
pub mod detect;
mod document;
pub mod figures;
mod segment;
mod view;

pub use view::{ViewBlock, ViewKind, article_view};

use crate::model::{BodyFormat, Citation, CitationRule, Claim, Location, Span};
use detect::SentenceFeatures;
use document::{BlockKind, Target};
use regex::Regex;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::sync::LazyLock;

/// What extraction found in one article.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Extraction {
    /// The format the body was read as.
    pub format: BodyFormat,
    /// Check-worthy claims, in reading order.
    pub claims: Vec<Claim>,
    /// Every citation the article's prose contains (reference-list entries that nothing cites are
    /// not listed), in order of first appearance, one per URL.
    pub citations: Vec<Citation>,
    /// How many paragraphs (blocks other than headings, reference entries included) were read.
    pub paragraphs: usize,
    /// How many sentences of prose were read; with no claims, shows the article was read.
    pub sentences: usize,
    /// Numbered and footnote markers that resolve to no URL, where they were written.
    pub unresolved: Vec<UnresolvedMarker>,
}

/// A citation marker that points at nothing fetchable: `[7]` with no 7th reference, a footnote
/// with no definition or a definition with no URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnresolvedMarker {
    /// The marker as written: "[7]", "[^src]".
    pub marker: String,
    pub location: Location,
}

/// Why a body could not be read. Every variant blocks the draft.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ExtractError {
    /// The body holds nothing but whitespace.
    #[error("the body is empty")]
    EmptyBody,
    /// The body is not text: invalid UTF-8, binary data, control characters, or markup with no
    /// visible text.
    #[error("the body is not readable text: {reason}")]
    Unreadable { reason: String },
    /// The body format named by the draft or the command line is not one factgate reads.
    #[error("unknown body format {0:?}: expected markdown, html or text")]
    UnknownFormat(String),
}

/// The share of control or U+FFFD replacement characters above which a body is not text: one in
/// fifty. Real articles hold none; mis-decoded binaries hold many.
const MAX_BAD_CHAR_SHARE: usize = 50;

/// Extracts the check-worthy claims of a body written in `format`.
///
/// # Errors
/// [`ExtractError::EmptyBody`] or [`ExtractError::Unreadable`] when the body cannot be read.
pub fn extract(body: &str, format: BodyFormat) -> Result<Extraction, ExtractError> {
    extract_with(body, format, &detect::analyze)
}

/// [`extract`] with the sentence detector given, so the document side can be tested on its own.
fn extract_with(
    body: &str,
    format: BodyFormat,
    analyze: &dyn Fn(&str) -> SentenceFeatures,
) -> Result<Extraction, ExtractError> {
    check_readable(body)?;
    let doc = document::parse(body, format);
    if doc.blocks.is_empty() {
        return Err(ExtractError::Unreadable {
            reason: format!("no visible text in the {format} body once markup is removed"),
        });
    }
    let chars = CharIndex::new(body);
    let mut html_cursor = 0;
    let mut out = Extraction {
        format,
        claims: Vec::new(),
        citations: Vec::new(),
        paragraphs: 0,
        sentences: 0,
        unresolved: Vec::new(),
    };
    let mut listed: HashSet<String> = HashSet::new();
    let mut paragraph = 0;
    for block in &doc.blocks {
        if block.kind == BlockKind::Heading {
            continue;
        }
        let index = paragraph;
        paragraph += 1;
        if !block.is_prose() {
            continue;
        }
        let masked = mask_markers(block);
        let sentences = segment::sentences(&masked);
        if sentences.is_empty() {
            continue;
        }
        out.sentences += sentences.len();

        let mut cites: Vec<Vec<Citation>> = vec![Vec::new(); sentences.len()];
        let mut dangling: Vec<Vec<String>> = vec![Vec::new(); sentences.len()];
        for marker in &block.markers {
            let owner = sentences
                .partition_point(|s| s.owned.end <= marker.range.start)
                .min(sentences.len() - 1);
            match citations::resolve(marker, &block.text, &doc.references) {
                citations::Resolved::Cites(found) => {
                    for c in found {
                        if !cites[owner].iter().any(|have| have.url == c.url) {
                            cites[owner].push(c);
                        }
                    }
                }
                citations::Resolved::Dangling(written) => dangling[owner].push(written),
                citations::Resolved::Ignored => {}
            }
        }
        for c in cites.iter().flatten() {
            if listed.insert(c.url.clone()) {
                out.citations.push(c.clone());
            }
        }
        // For the paragraph rule: the nearest citing sentence after and before each sentence.
        let n = sentences.len();
        let mut next_citing = vec![None; n];
        let mut prev_citing = vec![None; n];
        let mut last = None;
        for i in (0..n).rev() {
            next_citing[i] = last;
            if !cites[i].is_empty() {
                last = Some(i);
            }
        }
        last = None;
        for i in 0..n {
            prev_citing[i] = last;
            if !cites[i].is_empty() {
                last = Some(i);
            }
        }

        for (i, sentence) in sentences.iter().enumerate() {
            let location = |span| Location {
                section: block.section.clone(),
                paragraph: index,
                sentence: i,
                span,
            };
            for written in &dangling[i] {
                out.unresolved.push(UnresolvedMarker {
                    marker: written.clone(),
                    location: location(None),
                });
            }
            let text = collapse_whitespace(&masked[sentence.text.clone()]);
            let features = analyze(&text);
            if !features.is_check_worthy() {
                continue;
            }
            let (citations, rule) = if !cites[i].is_empty() {
                (cites[i].clone(), CitationRule::SameSentence)
            } else if !dangling[i].is_empty() {
                (Vec::new(), CitationRule::None)
            } else if let Some(j) = next_citing[i].or(prev_citing[i]) {
                (cites[j].clone(), CitationRule::Paragraph)
            } else {
                (Vec::new(), CitationRule::None)
            };
            let prejudgment = (rule == CitationRule::None).then(|| {
                let mut judged = detect::prejudge(&features);
                if !dangling[i].is_empty() {
                    judged.problem = format!(
                        "{} (cites {}, which the article does not define)",
                        judged.problem,
                        dangling[i].join(", ")
                    );
                }
                judged
            });
            let span = match format {
                BodyFormat::Html => html_span(
                    body,
                    &block.text[sentence.text.clone()],
                    &mut html_cursor,
                    &chars,
                ),
                BodyFormat::Markdown | BodyFormat::Text => {
                    let start = block.source_offset(sentence.text.start, false);
                    let end = block.source_offset(sentence.text.end, true);
                    match (start, end) {
                        (Some(s), Some(e)) if s < e => chars.span(s, e),
                        _ => None,
                    }
                }
            };
            out.claims.push(Claim {
                id: claim_id(&text, index, i),
                text,
                kinds: features.kinds.clone(),
                figures: features.figures.clone(),
                quotes: features.quotes.clone(),
                attributed_to: features.attributed_to.clone(),
                location: location(span),
                citations,
                citation_rule: rule,
                prejudgment,
            });
        }
    }
    out.paragraphs = paragraph;
    Ok(out)
}

/// Fails loudly on a body that is empty or is not text.
fn check_readable(body: &str) -> Result<(), ExtractError> {
    if body.trim_start_matches('\u{feff}').trim().is_empty() {
        return Err(ExtractError::EmptyBody);
    }
    if body.contains('\0') {
        return Err(ExtractError::Unreadable {
            reason: "it contains NUL bytes: binary data, not text".into(),
        });
    }
    let (mut total, mut bad) = (0usize, 0usize);
    for c in body.chars() {
        total += 1;
        if c == '\u{fffd}' || (c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\u{c}')) {
            bad += 1;
        }
    }
    if bad * MAX_BAD_CHAR_SHARE > total {
        return Err(ExtractError::Unreadable {
            reason: format!(
                "{bad} of its {total} characters are control or replacement characters"
            ),
        });
    }
    Ok(())
}

/// The block text with numbered and footnote markers and bare URLs blanked to spaces (byte for
/// byte, so offsets hold): they are not prose, their dots must not end sentences, and their
/// digits must not read as figures. Link text stays: it is prose.
fn mask_markers(block: &document::Block) -> String {
    let mut bytes = block.text.clone().into_bytes();
    for m in &block.markers {
        let hide = match &m.target {
            Target::Numbered(_) | Target::Footnote(_) | Target::Anchor(_) => true,
            Target::Url { style, .. } => matches!(
                style,
                crate::model::CitationStyle::BareUrl
                    | crate::model::CitationStyle::NumberedReference
            ),
        };
        if hide && let Some(range) = bytes.get_mut(m.range.clone()) {
            range.fill(b' ');
        }
    }
    // Markers cover whole characters, so blanking their bytes leaves valid UTF-8; should one
    // not, the unmasked text is still correct, only noisier.
    String::from_utf8(bytes).unwrap_or_else(|_| block.text.clone())
}

/// Collapses whitespace runs to one space; no space is kept before closing punctuation, where a
/// blanked marker leaves one ("gains [2]." reads "gains.").
fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() && !word.starts_with(['.', ',', ';', ':', '!', '?', ')']) {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Stable across replays: the same text at the same place gets the same id.
fn claim_id(text: &str, paragraph: usize, sentence: usize) -> String {
    let mut hash = Sha256::new();
    hash.update(text.to_lowercase().as_bytes());
    hash.update([0x1f]);
    hash.update(paragraph.to_string().as_bytes());
    hash.update([0x1f]);
    hash.update(sentence.to_string().as_bytes());
    let digest = hash.finalize();
    hex::encode(&digest[..8])
}

/// How far ahead of the last found sentence an HTML sentence is first looked for; only when it is
/// not there is the rest of the body searched, so that locating stays linear in practice.
const HTML_SEARCH_WINDOW: usize = 16 * 1024;

/// Finds an HTML sentence verbatim in the body, searching forward from the last one found.
fn html_span(body: &str, sentence: &str, cursor: &mut usize, chars: &CharIndex) -> Option<Span> {
    let sentence = sentence.trim();
    if sentence.is_empty() {
        return None;
    }
    let rest = body.get(*cursor..)?;
    let mut window_end = (HTML_SEARCH_WINDOW + sentence.len()).min(rest.len());
    while !rest.is_char_boundary(window_end) {
        window_end -= 1;
    }
    let found = rest[..window_end]
        .find(sentence)
        .or_else(|| rest.find(sentence))?;
    let start = *cursor + found;
    let end = start + sentence.len();
    *cursor = end;
    chars.span(start, end)
}

/// Converts body byte offsets to character offsets without rescanning the body for each claim.
struct CharIndex<'a> {
    body: &'a str,
    ascii: bool,
    /// (byte, char) at every [`CharIndex::STRIDE`] bytes or so, on character boundaries.
    checkpoints: Vec<(usize, usize)>,
}

impl<'a> CharIndex<'a> {
    /// Short enough that counting from a checkpoint costs little per claim, long enough that
    /// the checkpoints of a long article stay few.
    const STRIDE: usize = 256;

    fn new(body: &'a str) -> Self {
        let ascii = body.is_ascii();
        let mut checkpoints = vec![(0, 0)];
        if !ascii {
            let mut next = Self::STRIDE;
            for (chars, (byte, _)) in body.char_indices().enumerate() {
                if byte >= next {
                    checkpoints.push((byte, chars));
                    next = byte + Self::STRIDE;
                }
            }
        }
        CharIndex {
            body,
            ascii,
            checkpoints,
        }
    }

    fn char_at(&self, byte: usize) -> Option<usize> {
        if !self.body.is_char_boundary(byte) {
            return None;
        }
        if self.ascii {
            return Some(byte);
        }
        let at = self
            .checkpoints
            .partition_point(|(b, _)| *b <= byte)
            .checked_sub(1)?;
        let (b, c) = self.checkpoints[at];
        Some(c + self.body[b..byte].chars().count())
    }

    fn span(&self, start: usize, end: usize) -> Option<Span> {
        Some(Span {
            start: self.char_at(start)?,
            end: self.char_at(end)?,
        })
    }
}

static HTML_OPENING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^<(?:!doctype|html|head|body|!--|(?:p|div|h[1-6]|article|section|main|header|ul|ol|li|table|blockquote|figure|span|a|em|strong|meta|title|link)[\s>/])",
    )
    .expect("static regex")
});
static MARKDOWN_SIGNS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?m)^#{1,6}[ \t]+\S|\]\([^)\s]+\)|^[ \t]*\[[^\]]+\]:[ \t]*\S|^[ \t]{0,3}[-*+][ \t]+\S|^[ \t]{0,3}\d{1,3}\.[ \t]+\S|\*\*\S[^*\n]*\*\*|__\S[^_\n]*__|`[^`\n]+`|^>[ \t]|\[\^[^\]\s]+\]",
    )
    .expect("static regex")
});

/// Guesses a body's format from its content: HTML when it opens (after whitespace and a byte
/// order mark) with `<!doctype`, `<html` or a block-level tag and has closing tags; Markdown when
/// it has Markdown structure (headings, links, reference definitions, lists, emphasis, code,
/// footnotes); text otherwise.
pub fn detect_format(body: &str) -> BodyFormat {
    let head = body.trim_start_matches('\u{feff}').trim_start();
    if HTML_OPENING.is_match(head) && (head.contains("</") || head.contains("/>")) {
        return BodyFormat::Html;
    }
    if MARKDOWN_SIGNS.is_match(body) {
        return BodyFormat::Markdown;
    }
    BodyFormat::Text
}

/// Decodes raw bytes (a file, stdin) and extracts them; `format` `None` means detect.
///
/// # Errors
/// [`ExtractError::Unreadable`] for bytes that are not UTF-8 text, and whatever [`extract`]
/// returns.
pub fn extract_bytes(bytes: &[u8], format: Option<BodyFormat>) -> Result<Extraction, ExtractError> {
    let body = std::str::from_utf8(bytes).map_err(|e| ExtractError::Unreadable {
        reason: format!("invalid UTF-8 at byte {}", e.valid_up_to()),
    })?;
    let format = format.unwrap_or_else(|| detect_format(body));
    extract(body, format)
}

#[cfg(test)]
mod tests;
