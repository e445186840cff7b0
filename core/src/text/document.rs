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

use super::citations;
use super::html::{self, ElementClass};
use crate::model::{BlockRole, BodyFormat, CitationStyle};
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

/// Where a citation marker points, before resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A link or URL; `href` may be relative or of another scheme (then it cites nothing).
    Url {
        href: String,
        style: CitationStyle,
        label: Option<String>,
    },
    /// `[2]`, `[2, 3]`, `[2-4]`.
    Numbered(Vec<u32>),
    /// `[^label]`.
    Footnote(String),
    /// An in-page link (`#fn1`) to an element whose id is the key.
    Anchor(String),
}

/// A citation marker in a block's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// Byte range in the block text: the link text for links, the marker itself otherwise.
    pub range: Range<usize>,
    pub target: Target,
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
    pub fn is_prose(&self) -> bool {
        !matches!(
            self.kind,
            BlockKind::Heading | BlockKind::ReferenceEntry | BlockKind::FootnoteDefinition(_)
        )
    }

    /// The body byte where block text byte `at` starts (`end == false`) or ends (`end == true`).
    pub fn source_offset(&self, at: usize, end: bool) -> Option<usize> {
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

/// What numbered and footnote markers resolve against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct References {
    /// Reference number → absolute URL.
    pub numbered: HashMap<u32, String>,
    /// Footnote label → absolute URL.
    pub footnotes: HashMap<String, String>,
    /// HTML element id → the first absolute URL inside it.
    pub anchors: HashMap<String, String>,
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

// ---------------------------------------------------------------------------------------------
// Markdown

#[derive(Debug)]
enum MdContext {
    List,
    /// A list item, with its number in an ordered list.
    Item(Option<u64>),
    Cell,
    Quote,
    Footnote(String),
}

struct MdBuilder {
    blocks: Vec<Block>,
    current: Option<Block>,
    context: Vec<MdContext>,
    /// Open links: where their text starts, and their target.
    links: Vec<(usize, Option<Target>)>,
    /// Depth inside content that is not prose (code blocks, raw HTML).
    skip: usize,
    /// The alternative text of the image being read.
    alt: Option<String>,
    /// Alternative texts of images in the current block, emitted after it.
    pending_alts: Vec<String>,
    /// The front matter being read.
    metadata: Option<String>,
    /// The front matter's `title:`.
    title: Option<String>,
}

impl MdBuilder {
    fn flush(&mut self) {
        if let Some(block) = self.current.take()
            && !block.text.trim().is_empty()
        {
            self.blocks.push(block);
        }
        for alt in std::mem::take(&mut self.pending_alts) {
            if !alt.trim().is_empty() {
                self.blocks.push(Block::alt_text(&alt, None));
            }
        }
    }

    fn open(&mut self, kind: Option<BlockKind>) {
        self.flush();
        let number = self.context.iter().rev().find_map(|c| match c {
            MdContext::Item(n) => Some(*n),
            _ => None,
        });
        let kind = kind.unwrap_or_else(|| {
            for c in self.context.iter().rev() {
                match c {
                    MdContext::Item(_) => return BlockKind::ListItem,
                    MdContext::Cell => return BlockKind::TableCell,
                    MdContext::Quote => return BlockKind::Quote,
                    MdContext::Footnote(l) => return BlockKind::FootnoteDefinition(l.clone()),
                    MdContext::List => {}
                }
            }
            BlockKind::Paragraph
        });
        let mut block = Block::new(kind);
        if block.kind == BlockKind::ListItem {
            block.list_number = number.flatten();
        }
        self.current = Some(block);
    }

    fn block(&mut self) -> &mut Block {
        if self.current.is_none() {
            self.open(None);
        }
        // Just opened above when it was missing.
        self.current
            .get_or_insert_with(|| Block::new(BlockKind::Paragraph))
    }
}

/// Markdown blocks, the numbered reference definitions (`[2]: https://…`) and the front
/// matter's title.
fn markdown(body: &str) -> (Vec<Block>, HashMap<u32, String>, Option<String>) {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    let parser = Parser::new_ext(body, options);
    let mut numbered = HashMap::new();
    for (label, def) in parser.reference_definitions().iter() {
        if let (Ok(n), Some(url)) = (
            label.trim().parse::<u32>(),
            citations::absolute_http(&def.dest),
        ) {
            numbered.insert(n, url);
        }
    }
    let mut b = MdBuilder {
        blocks: Vec::new(),
        current: None,
        context: Vec::new(),
        links: Vec::new(),
        skip: 0,
        alt: None,
        pending_alts: Vec::new(),
        metadata: None,
        title: None,
    };
    let mut item_numbers: Vec<Option<u64>> = Vec::new();
    for (event, range) in parser.into_offset_iter() {
        if let Some(meta) = b.metadata.as_mut() {
            match event {
                Event::Text(t) => meta.push_str(&t),
                Event::End(TagEnd::MetadataBlock(_)) => {
                    let meta = b.metadata.take().unwrap_or_default();
                    b.title = front_matter_title(&meta);
                }
                _ => {}
            }
            continue;
        }
        if let Some(alt) = b.alt.as_mut() {
            match event {
                Event::Text(t) | Event::Code(t) => alt.push_str(&t),
                Event::SoftBreak | Event::HardBreak => alt.push(' '),
                Event::End(TagEnd::Image) => {
                    let alt = b.alt.take().unwrap_or_default();
                    b.pending_alts.push(alt);
                }
                _ => {}
            }
            continue;
        }
        if b.skip > 0 {
            match event {
                Event::Start(Tag::CodeBlock(_) | Tag::HtmlBlock) => b.skip += 1,
                Event::End(TagEnd::CodeBlock | TagEnd::HtmlBlock) => b.skip -= 1,
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(tag) => match tag {
                Tag::Paragraph => b.open(None),
                Tag::Heading { .. } => b.open(Some(BlockKind::Heading)),
                Tag::List(start) => {
                    b.flush();
                    b.context.push(MdContext::List);
                    item_numbers.push(start);
                }
                Tag::Item => {
                    let number = item_numbers.last_mut().and_then(|n| {
                        let current = *n;
                        *n = n.map(|v| v.saturating_add(1));
                        current
                    });
                    b.context.push(MdContext::Item(number));
                    b.open(Some(BlockKind::ListItem));
                }
                Tag::TableCell => {
                    b.context.push(MdContext::Cell);
                    b.open(Some(BlockKind::TableCell));
                }
                Tag::BlockQuote(_) => {
                    b.flush();
                    b.context.push(MdContext::Quote);
                }
                Tag::FootnoteDefinition(label) => {
                    b.context.push(MdContext::Footnote(label.to_string()));
                    b.open(Some(BlockKind::FootnoteDefinition(label.to_string())));
                }
                Tag::CodeBlock(_) | Tag::HtmlBlock => b.skip += 1,
                Tag::Image { .. } => b.alt = Some(String::new()),
                Tag::MetadataBlock(_) => b.metadata = Some(String::new()),
                Tag::Table(_) | Tag::TableHead | Tag::TableRow => b.flush(),
                Tag::Link {
                    link_type,
                    dest_url,
                    id,
                    ..
                } => {
                    let start = b.block().text.len();
                    let style = match link_type {
                        LinkType::Inline => Some(CitationStyle::InlineLink),
                        LinkType::Reference | LinkType::Collapsed | LinkType::Shortcut => {
                            Some(CitationStyle::ReferenceLink)
                        }
                        LinkType::Autolink => Some(CitationStyle::BareUrl),
                        _ => None,
                    };
                    let target = style.map(|style| {
                        let label = (!id.is_empty()).then(|| id.to_string());
                        if style == CitationStyle::ReferenceLink && id.trim().parse::<u32>().is_ok()
                        {
                            // `[2]` with a `[2]: url` definition: a numbered reference.
                            Target::Url {
                                href: dest_url.to_string(),
                                style: CitationStyle::NumberedReference,
                                label: Some(id.trim().to_owned()),
                            }
                        } else if let Some(anchor) = dest_url.strip_prefix('#') {
                            Target::Anchor(anchor.to_owned())
                        } else {
                            Target::Url {
                                href: dest_url.to_string(),
                                style,
                                label,
                            }
                        }
                    });
                    b.links.push((start, target));
                }
                _ => {}
            },
            Event::End(end) => match end {
                TagEnd::Paragraph | TagEnd::Heading(_) => b.flush(),
                TagEnd::Item | TagEnd::TableCell => {
                    b.flush();
                    b.context.pop();
                }
                TagEnd::List(_) => {
                    b.flush();
                    b.context.pop();
                    item_numbers.pop();
                }
                TagEnd::BlockQuote(_) | TagEnd::FootnoteDefinition => {
                    b.flush();
                    b.context.pop();
                }
                TagEnd::Link => {
                    if let Some((start, Some(target))) = b.links.pop() {
                        let block = b.block();
                        let end = block.text.len();
                        block.markers.push(Marker {
                            range: start..end,
                            target,
                        });
                    }
                }
                _ => {}
            },
            Event::Text(t) | Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                b.block().push(&t, Some(range));
            }
            Event::SoftBreak | Event::HardBreak => b.block().push(" ", Some(range)),
            Event::FootnoteReference(label) => {
                let block = b.block();
                let start = block.text.len();
                block.push(&format!("[^{label}]"), Some(range));
                let end = block.text.len();
                block.markers.push(Marker {
                    range: start..end,
                    target: Target::Footnote(label.to_string()),
                });
            }
            Event::Rule => b.flush(),
            _ => {}
        }
    }
    b.flush();
    (b.blocks, numbered, b.title)
}

/// The `title:` of YAML front matter, unquoted.
fn front_matter_title(meta: &str) -> Option<String> {
    meta.lines().find_map(|line| {
        let value = line.strip_prefix("title:")?.trim();
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
            .unwrap_or(value)
            .trim();
        (!value.is_empty()).then(|| value.to_owned())
    })
}

// ---------------------------------------------------------------------------------------------
// HTML

/// Whether a draft reads past an element's content: hidden elements and code (a code sample is
/// not a claim).
fn dropped(name: &str) -> bool {
    matches!(html::class(name), ElementClass::Hidden | ElementClass::Code)
}

/// Whether an element ends the block before it and starts a new one: blocks, and the draft's own
/// header, aside and footer (the last two marked as peripheral).
fn block_level(name: &str) -> bool {
    matches!(
        html::class(name),
        ElementClass::Block | ElementClass::Chrome
    )
}

fn html(body: &str) -> (Vec<Block>, Option<String>) {
    let document = scraper::Html::parse_document(body);
    let title = scraper::Selector::parse("title")
        .ok()
        .and_then(|sel| document.select(&sel).next())
        .map(|t| t.text().collect::<Vec<_>>().join(" "))
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|t| !t.is_empty());
    let mut blocks = Vec::new();
    let mut current: Option<Block> = None;
    // Open `<aside>` and `<footer>` elements, with their depth.
    let mut peripheral: Vec<(usize, BlockRole)> = Vec::new();
    // Alternative texts of images in the current block, emitted after it.
    let mut pending_alts: Vec<Block> = Vec::new();
    // Context kinds (li, td, blockquote, figcaption) and ids of open elements, with the depth
    // they were opened at, so closing an element pops them.
    let mut kinds: Vec<(usize, BlockKind)> = Vec::new();
    let mut ids: Vec<(usize, String)> = Vec::new();
    let mut lists: Vec<(usize, Option<u64>)> = Vec::new();
    let mut item_number: Option<u64> = None;
    let mut links: Vec<(usize, usize, Option<Target>)> = Vec::new();

    fn flush(blocks: &mut Vec<Block>, current: &mut Option<Block>, alts: &mut Vec<Block>) {
        if let Some(mut block) = current.take()
            && !block.text.trim().is_empty()
        {
            let trimmed = block.text.trim_end().len();
            block.text.truncate(trimmed);
            for m in &mut block.markers {
                m.range.end = m.range.end.min(trimmed);
                m.range.start = m.range.start.min(m.range.end);
            }
            blocks.push(block);
        }
        blocks.append(alts);
    }

    // Iterative depth-first walk: nesting depth is unbounded in hostile input.
    let mut stack = vec![(document.tree.root(), 0usize, false)];
    while let Some((node, depth, closing)) = stack.pop() {
        let Some(element) = node.value().as_element() else {
            if let Some(text) = node.value().as_text() {
                let block = current.get_or_insert_with(|| {
                    let mut b = Block::new(context_kind(&kinds));
                    b.anchor = ids.last().map(|(_, id)| id.clone());
                    b.list_number = item_number;
                    b.peripheral = peripheral.last().map(|p| p.1);
                    b
                });
                push_collapsed(&mut block.text, text);
            } else {
                // The document node and fragments: only their children matter.
                let mut child = node.last_child();
                while let Some(c) = child {
                    stack.push((c, depth + 1, false));
                    child = c.prev_sibling();
                }
            }
            continue;
        };
        let name = element.name();
        if closing {
            if name == "a"
                && let Some((_, start, target)) = links.pop()
                && let (Some(target), Some(block)) = (target, current.as_mut())
            {
                let end = block.text.trim_end().len().max(start);
                block.markers.push(Marker {
                    range: start..end,
                    target,
                });
            }
            if block_level(name) {
                flush(&mut blocks, &mut current, &mut pending_alts);
            }
            // Each stack holds the open ancestors, deepest last: closing pops from the end, so
            // deep nesting costs no more than shallow.
            pop_from(&mut kinds, depth);
            pop_from(&mut peripheral, depth);
            pop_from(&mut ids, depth);
            pop_from(&mut lists, depth);
            continue;
        }
        if dropped(name) {
            continue;
        }
        if name == "br" {
            if let Some(block) = current.as_mut() {
                push_collapsed(&mut block.text, " ");
            }
            continue;
        }
        if name == "img" {
            if let Some(alt) = element.attr("alt").filter(|a| !a.trim().is_empty()) {
                pending_alts.push(Block::alt_text(alt, peripheral.last().map(|p| p.1)));
            }
            continue;
        }
        match name {
            "aside" => peripheral.push((depth, BlockRole::Aside)),
            "footer" => peripheral.push((depth, BlockRole::Footer)),
            _ => {}
        }
        if let Some(id) = element.attr("id") {
            ids.push((depth, id.to_owned()));
        }
        if block_level(name) {
            flush(&mut blocks, &mut current, &mut pending_alts);
            match name {
                "li" => {
                    kinds.push((depth, BlockKind::ListItem));
                    item_number = lists.last_mut().and_then(|(_, n)| {
                        let current = *n;
                        *n = n.map(|v| v.saturating_add(1));
                        current
                    });
                }
                "td" | "th" => kinds.push((depth, BlockKind::TableCell)),
                "blockquote" => kinds.push((depth, BlockKind::Quote)),
                "figcaption" | "caption" => kinds.push((depth, BlockKind::Caption)),
                "ol" => lists.push((
                    depth,
                    Some(
                        element
                            .attr("start")
                            .and_then(|s| s.trim().parse().ok())
                            .unwrap_or(1),
                    ),
                )),
                "ul" => lists.push((depth, None)),
                _ => {}
            }
            let kind = if name.len() == 2 && name.starts_with('h') && name != "hr" {
                BlockKind::Heading
            } else {
                context_kind(&kinds)
            };
            let mut block = Block::new(kind);
            block.anchor = ids.last().map(|(_, id)| id.clone());
            block.list_number = if kinds.iter().rev().any(|(_, k)| *k == BlockKind::ListItem) {
                item_number
            } else {
                None
            };
            block.peripheral = peripheral.last().map(|p| p.1);
            current = Some(block);
        }
        if name == "a" {
            let block = current.get_or_insert_with(|| {
                let mut b = Block::new(context_kind(&kinds));
                b.peripheral = peripheral.last().map(|p| p.1);
                b
            });
            let target = element
                .attr("href")
                .map(|href| match href.strip_prefix('#') {
                    Some(anchor) => Target::Anchor(anchor.to_owned()),
                    None => Target::Url {
                        href: href.to_owned(),
                        style: CitationStyle::InlineLink,
                        label: None,
                    },
                });
            let start = block.text.len();
            links.push((depth, start, target));
        }
        stack.push((node, depth, true));
        let mut child = node.last_child();
        while let Some(c) = child {
            stack.push((c, depth + 1, false));
            child = c.prev_sibling();
        }
    }
    flush(&mut blocks, &mut current, &mut pending_alts);
    (blocks, title)
}

/// Drops the entries opened at `depth` or deeper from a stack of open ancestors.
fn pop_from<T>(stack: &mut Vec<(usize, T)>, depth: usize) {
    while stack.last().is_some_and(|(d, _)| *d >= depth) {
        stack.pop();
    }
}

fn context_kind(kinds: &[(usize, BlockKind)]) -> BlockKind {
    kinds
        .last()
        .map_or(BlockKind::Paragraph, |(_, k)| k.clone())
}

/// Appends HTML text with whitespace runs collapsed to one space, as a browser shows it.
fn push_collapsed(out: &mut String, text: &str) {
    for (i, word) in text.split_whitespace().enumerate() {
        let starts_with_space = i > 0 || text.starts_with(char::is_whitespace);
        if starts_with_space && !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
        out.push_str(word);
    }
    if text.ends_with(char::is_whitespace) && !out.is_empty() && !out.ends_with(' ') {
        out.push(' ');
    }
}

// ---------------------------------------------------------------------------------------------
// Plain text

static BULLET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[ \t]*(?:[-*•–+]|(\d{1,4})[.)])[ \t]+").expect("static regex"));
static NUMBERED_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[ \t]*\[\d{1,4}\]").expect("static regex"));
static FOOTNOTE_DEF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[ \t]*\[\^([^\]\s]{1,40})\]:?[ \t]*").expect("static regex"));
static UNDERLINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[ \t]*(?:=+|-+)[ \t]*$").expect("static regex"));

fn text(body: &str) -> Vec<Block> {
    // Lines with their byte ranges, without line terminators.
    let mut lines: Vec<Range<usize>> = Vec::new();
    let mut start = 0;
    for (i, _) in body.match_indices('\n') {
        lines.push(start..i);
        start = i + 1;
    }
    lines.push(start..body.len());
    let lines: Vec<Range<usize>> = lines
        .into_iter()
        .map(|r| {
            let line = &body[r.clone()];
            r.start..r.start + line.trim_end_matches('\r').len()
        })
        .collect();

    let mut blocks = Vec::new();
    let mut paragraph: Vec<Range<usize>> = Vec::new();
    for line in lines {
        if body[line.clone()].trim().is_empty() {
            text_paragraph(body, &paragraph, &mut blocks);
            paragraph.clear();
        } else {
            paragraph.push(line);
        }
    }
    text_paragraph(body, &paragraph, &mut blocks);
    blocks
}

fn text_paragraph(body: &str, lines: &[Range<usize>], blocks: &mut Vec<Block>) {
    let Some(first) = lines.first() else {
        return;
    };
    let first_text = &body[first.clone()];
    // "Title" over "=====": a heading.
    if lines.len() == 2 && UNDERLINE.is_match(&body[lines[1].clone()]) {
        let mut b = Block::new(BlockKind::Heading);
        push_trimmed(&mut b, body, first.clone());
        blocks.push(b);
        return;
    }
    if lines.len() == 1 && looks_like_heading(first_text) {
        let mut b = Block::new(BlockKind::Heading);
        let hashes = first_text.len() - first_text.trim_start_matches([' ', '\t', '#']).len();
        push_trimmed(&mut b, body, first.start + hashes..first.end);
        blocks.push(b);
        return;
    }
    let mut current: Option<Block> = None;
    for line in lines {
        let text = &body[line.clone()];
        let mut content = line.clone();
        let mut starts_item = None;
        if let Some(c) = FOOTNOTE_DEF.captures(text) {
            let label = c.get(1).map_or("", |m| m.as_str()).to_owned();
            let all = c.get(0).map_or(0, |m| m.end());
            content.start += all;
            starts_item = Some((BlockKind::FootnoteDefinition(label), None));
        } else if let Some(c) = BULLET.captures(text) {
            let number = c.get(1).and_then(|n| n.as_str().parse().ok());
            content.start += c.get(0).map_or(0, |m| m.end());
            starts_item = Some((BlockKind::ListItem, number));
        } else if NUMBERED_LINE.is_match(text) {
            starts_item = Some((BlockKind::ListItem, None));
        }
        match (starts_item, current.as_mut()) {
            (Some((kind, number)), _) => {
                if let Some(b) = current.take() {
                    blocks.push(b);
                }
                let mut b = Block::new(kind);
                b.list_number = number;
                push_trimmed(&mut b, body, content);
                current = Some(b);
            }
            (None, Some(b)) => {
                // A line break inside a paragraph reads as a space; it maps to the newline.
                b.push(" ", Some(line.start.saturating_sub(1)..line.start));
                push_trimmed(b, body, content);
            }
            (None, None) => {
                let mut b = Block::new(BlockKind::Paragraph);
                push_trimmed(&mut b, body, content);
                current = Some(b);
            }
        }
    }
    if let Some(b) = current {
        blocks.push(b);
    }
}

fn push_trimmed(block: &mut Block, body: &str, range: Range<usize>) {
    let s = &body[range.clone()];
    let lead = s.len() - s.trim_start().len();
    let t = s.trim();
    block.push(t, Some(range.start + lead..range.start + lead + t.len()));
}

/// A lone short line that reads as a title: "# Results", "Sources:", "METHODS", "How We Did It".
fn looks_like_heading(line: &str) -> bool {
    let t = line.trim();
    if t.starts_with('#') {
        return true;
    }
    if t.is_empty() || t.len() > 100 || t.ends_with(['.', '!', '?', ';', ',', '"', '”']) {
        return false;
    }
    if BULLET.is_match(line) || NUMBERED_LINE.is_match(line) || t.contains("://") {
        return false;
    }
    if t.ends_with(':') {
        return true;
    }
    let words: Vec<&str> = t.split_whitespace().collect();
    if words.len() > 12 {
        return false;
    }
    let letters: Vec<char> = t.chars().filter(|c| c.is_alphabetic()).collect();
    if !letters.is_empty() && letters.iter().all(|c| c.is_uppercase()) {
        return true;
    }
    // Title case: every word longer than three letters is capitalized.
    let long: Vec<&&str> = words.iter().filter(|w| w.chars().count() > 3).collect();
    !long.is_empty()
        && long.iter().all(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_uppercase() || c.is_numeric())
        })
}

#[cfg(test)]
mod tests;
