//! A draft body as blocks of visible text with their citation markers, and the article's
//! reference list.
//!
//! Markdown is read with pulldown-cmark (tables, footnotes and YAML front matter on), HTML with
//! html5ever through scraper, plain text by blank-line paragraphs. Every format gives the same
//! shape: headings, paragraphs, list items, table cells, quotes, captions and the alternative
//! text of images, each with its visible text (markup removed, links reduced to their text), the
//! heading of the section it is in, and its citation markers with their byte ranges in that text.
//! HTML `<aside>` and `<footer>` content is read too, its blocks marked as such; `<nav>` is not.
//! The document's title is the HTML `<title>` or the Markdown front matter's `title:`.
//!
//! The reference list is gathered from Markdown reference definitions, footnote definitions, and
//! numbered entries: blocks in a section headed "References", "Sources", "Notes" (and the like),
//! or any block that opens with `[n]` and holds a URL. Entries are numbered by their `[n]` or
//! `n.` prefix, else by their place in an ordered list. Reference entries and footnote
//! definitions are read but are not claims.

mod from_html;
mod from_markdown;
mod from_text;

use super::citations::{self, Marker, References, Target};
use super::html::{self, ElementClass};
use crate::model::{BlockRole, BodyFormat, CitationStyle};
use from_html::html;
use from_markdown::markdown;
use from_text::text;
use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};
use regex::Regex;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::LazyLock;

/// What a block is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockKind {
    Heading,
    Paragraph,
    ListItem,
    TableCell,
    Quote,
    Caption,
    /// An image's alternative text; it follows the block that holds the image, or precedes the
    /// caption of its figure.
    AltText,
    /// An entry of the article's reference list: read, never a claim.
    ReferenceEntry,
    /// A footnote's definition: read, never a claim.
    FootnoteDefinition(String),
}

/// A run of block text and the bytes of the body it came from. When both have the same length
/// the run maps byte for byte; otherwise (entities, escapes) only its ends are known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub text_start: usize,
    pub source: Range<usize>,
}

/// One block of visible text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub kind: BlockKind,
    pub text: String,
    /// The nearest heading above the block.
    pub section: Option<String>,
    pub markers: Vec<Marker>,
    /// Source map, in text order; empty when the format does not give source positions (HTML).
    pub chunks: Vec<Chunk>,
    /// The item's number when the block is an item of an ordered list.
    pub list_number: Option<u64>,
    /// The id of the element the block sits in (HTML), for in-page links to it.
    pub anchor: Option<String>,
    /// Set when the block sits in an HTML `<aside>` or `<footer>`.
    pub peripheral: Option<BlockRole>,
}

impl Block {
    fn new(kind: BlockKind) -> Self {
        Block {
            kind,
            text: String::new(),
            section: None,
            markers: Vec::new(),
            chunks: Vec::new(),
            list_number: None,
            anchor: None,
            peripheral: None,
        }
    }

    fn alt_text(text: &str, peripheral: Option<BlockRole>) -> Self {
        let mut block = Block::new(BlockKind::AltText);
        block.text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        block.peripheral = peripheral;
        block
    }

    fn push(&mut self, text: &str, source: Option<Range<usize>>) {
        if let Some(source) = source {
            self.chunks.push(Chunk {
                text_start: self.text.len(),
                source,
            });
        }
        self.text.push_str(text);
    }

    /// Whether the block can hold claims.
    pub(crate) fn is_prose(&self) -> bool {
        !matches!(
            self.kind,
            BlockKind::Heading | BlockKind::ReferenceEntry | BlockKind::FootnoteDefinition(_)
        )
    }

    /// The body byte where block text byte `at` starts (`end == false`) or ends (`end == true`).
    pub(crate) fn source_offset(&self, at: usize, end: bool) -> Option<usize> {
        let idx = if end {
            self.chunks.partition_point(|c| c.text_start < at)
        } else {
            self.chunks.partition_point(|c| c.text_start <= at)
        }
        .checked_sub(1)?;
        let chunk = &self.chunks[idx];
        let text_end = self
            .chunks
            .get(idx + 1)
            .map_or(self.text.len(), |c| c.text_start);
        let offset = at - chunk.text_start;
        if text_end - chunk.text_start == chunk.source.len() {
            Some(chunk.source.start + offset)
        } else if end && at == text_end {
            Some(chunk.source.end)
        } else if !end && offset == 0 {
            Some(chunk.source.start)
        } else if end {
            Some(chunk.source.end)
        } else {
            Some(chunk.source.start)
        }
    }
}

/// A parsed body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Document {
    pub blocks: Vec<Block>,
    pub references: References,
    /// The title the body gives itself: HTML `<title>`, Markdown front matter `title:`.
    pub title: Option<String>,
}

/// Parses `body` as `format`.
pub fn parse(body: &str, format: BodyFormat) -> Document {
    let (blocks, numbered_defs, title) = match format {
        BodyFormat::Markdown => markdown(body),
        BodyFormat::Html => {
            let (blocks, title) = html(body);
            (blocks, HashMap::new(), title)
        }
        BodyFormat::Text => (text(body), HashMap::new(), None),
    };
    let mut doc = finish(blocks, numbered_defs);
    doc.title = title;
    doc
}

static REFERENCE_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*(?:\d+[.)]?\s*)?(references?|sources?|notes?|footnotes|endnotes|bibliography|citations|works cited|further reading)\s*:?\s*$",
    )
    .expect("static regex")
});
static ENTRY_NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:\[(\d{1,4})\]|(\d{1,4})[.)]\s)").expect("static regex"));

/// Shared by every format: scans text markers, assigns sections, finds the reference list.
fn finish(mut blocks: Vec<Block>, mut numbered: HashMap<u32, String>) -> Document {
    let mut refs = References::default();
    let mut section: Option<String> = None;
    let mut in_references = false;
    for block in &mut blocks {
        let found = citations::scan_text(&block.text, &block.markers);
        block.markers.extend(found);
        block.markers.sort_by_key(|m| m.range.start);
        if block.kind == BlockKind::Heading {
            let title = block.text.split_whitespace().collect::<Vec<_>>().join(" ");
            in_references = REFERENCE_HEADING.is_match(&title);
            section = Some(title);
            continue;
        }
        block.section = section.clone();
        let opens_with_number = block.markers.first().is_some_and(|m| {
            matches!(m.target, Target::Numbered(_)) && block.text[..m.range.start].trim().is_empty()
        });
        let has_url = block
            .markers
            .iter()
            .any(|m| matches!(m.target, Target::Url { .. }));
        if let BlockKind::FootnoteDefinition(label) = &block.kind {
            if let Some(url) = first_url(block) {
                refs.footnotes.entry(label.clone()).or_insert(url);
            }
        } else if in_references || (opens_with_number && has_url) {
            block.kind = BlockKind::ReferenceEntry;
            for (n, url) in entries(block) {
                numbered.entry(n).or_insert(url);
            }
        }
    }
    for block in &blocks {
        if let Some(id) = &block.anchor
            && !refs.anchors.contains_key(id)
            && let Some(url) = first_url(block)
        {
            refs.anchors.insert(id.clone(), url);
        }
    }
    refs.numbered = numbered;
    Document {
        blocks,
        references: refs,
        title: None,
    }
}

fn first_url(block: &Block) -> Option<String> {
    block.markers.iter().find_map(|m| match &m.target {
        Target::Url { href, .. } => citations::absolute_http(href),
        _ => None,
    })
}

/// The numbered entries of a reference-list block. A block may hold several `[n] …` entries
/// when a Markdown paragraph or a text paragraph lists them line after line.
fn entries(block: &Block) -> Vec<(u32, String)> {
    let starts: Vec<(usize, u32)> = block
        .markers
        .iter()
        .filter_map(|m| match &m.target {
            Target::Numbered(n) if n.len() == 1 => Some((m.range.start, n[0])),
            _ => None,
        })
        .collect();
    let opens_with_marker = starts
        .first()
        .is_some_and(|(at, _)| block.text[..*at].trim().is_empty());
    if opens_with_marker {
        let mut out = Vec::new();
        for (i, &(at, n)) in starts.iter().enumerate() {
            let until = starts.get(i + 1).map_or(block.text.len(), |s| s.0);
            // Markers are sorted by start (see `finish`): look only at this entry's own.
            let first = block.markers.partition_point(|m| m.range.start < at);
            let url = block.markers[first..]
                .iter()
                .take_while(|m| m.range.start < until)
                .find_map(|m| match &m.target {
                    Target::Url { href, .. } => citations::absolute_http(href),
                    _ => None,
                });
            if let Some(url) = url {
                out.push((n, url));
            }
        }
        return out;
    }
    let number = ENTRY_NUMBER
        .captures(&block.text)
        .and_then(|c| c.get(2))
        .and_then(|n| n.as_str().parse().ok())
        .or_else(|| block.list_number.and_then(|n| u32::try_from(n).ok()));
    match (number, first_url(block)) {
        (Some(n), Some(url)) => vec![(n, url)],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests;
