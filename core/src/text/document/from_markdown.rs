//! A Markdown draft (CommonMark with tables, footnotes and YAML front matter) as blocks.

use super::*;

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
    /// The number the next item of each open list gets (none for a bulleted list).
    item_numbers: Vec<Option<u64>>,
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

impl MdBuilder {
    /// Whether `event` is taken by what is being read apart: front matter, an image's
    /// alternative text, or content that is not prose.
    fn inside(&mut self, event: &Event<'_>) -> bool {
        if let Some(meta) = self.metadata.as_mut() {
            match event {
                Event::Text(t) => meta.push_str(t),
                Event::End(TagEnd::MetadataBlock(_)) => {
                    let meta = self.metadata.take().unwrap_or_default();
                    self.title = front_matter_title(&meta);
                }
                _ => {}
            }
            return true;
        }
        if let Some(alt) = self.alt.as_mut() {
            match event {
                Event::Text(t) | Event::Code(t) => alt.push_str(t),
                Event::SoftBreak | Event::HardBreak => alt.push(' '),
                Event::End(TagEnd::Image) => {
                    let alt = self.alt.take().unwrap_or_default();
                    self.pending_alts.push(alt);
                }
                _ => {}
            }
            return true;
        }
        if self.skip > 0 {
            match event {
                Event::Start(Tag::CodeBlock(_) | Tag::HtmlBlock) => self.skip += 1,
                Event::End(TagEnd::CodeBlock | TagEnd::HtmlBlock) => self.skip -= 1,
                _ => {}
            }
            return true;
        }
        false
    }

    /// A tag opens: a block, a context (list, item, cell, quote, footnote), a link, or
    /// something read apart.
    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.open(None),
            Tag::Heading { .. } => self.open(Some(BlockKind::Heading)),
            Tag::List(start) => {
                self.flush();
                self.context.push(MdContext::List);
                self.item_numbers.push(start);
            }
            Tag::Item => {
                let number = self.item_numbers.last_mut().and_then(|n| {
                    let current = *n;
                    *n = n.map(|v| v.saturating_add(1));
                    current
                });
                self.context.push(MdContext::Item(number));
                self.open(Some(BlockKind::ListItem));
            }
            Tag::TableCell => {
                self.context.push(MdContext::Cell);
                self.open(Some(BlockKind::TableCell));
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.context.push(MdContext::Quote);
            }
            Tag::FootnoteDefinition(label) => {
                self.context.push(MdContext::Footnote(label.to_string()));
                self.open(Some(BlockKind::FootnoteDefinition(label.to_string())));
            }
            Tag::CodeBlock(_) | Tag::HtmlBlock => self.skip += 1,
            Tag::Image { .. } => self.alt = Some(String::new()),
            Tag::MetadataBlock(_) => self.metadata = Some(String::new()),
            Tag::Table(_) | Tag::TableHead | Tag::TableRow => self.flush(),
            Tag::Link {
                link_type,
                dest_url,
                id,
                ..
            } => {
                let start = self.block().text.len();
                self.links
                    .push((start, link_target(link_type, &dest_url, &id)));
            }
            _ => {}
        }
    }

    /// A tag closes: its block ends, its context is popped, a link's text is marked.
    fn end(&mut self, end: TagEnd) {
        match end {
            TagEnd::Paragraph | TagEnd::Heading(_) => self.flush(),
            TagEnd::Item | TagEnd::TableCell => {
                self.flush();
                self.context.pop();
            }
            TagEnd::List(_) => {
                self.flush();
                self.context.pop();
                self.item_numbers.pop();
            }
            TagEnd::BlockQuote(_) | TagEnd::FootnoteDefinition => {
                self.flush();
                self.context.pop();
            }
            TagEnd::Link => {
                if let Some((start, Some(target))) = self.links.pop() {
                    let block = self.block();
                    let end = block.text.len();
                    block.markers.push(Marker {
                        range: start..end,
                        target,
                    });
                }
            }
            _ => {}
        }
    }
}

/// Where a Markdown link points, as a citation: `[2]` with a `[2]: url` definition is a
/// numbered reference, `#…` an anchor in the draft; other link kinds (e-mail) are none.
fn link_target(link_type: LinkType, dest_url: &str, id: &str) -> Option<Target> {
    let style = match link_type {
        LinkType::Inline => Some(CitationStyle::InlineLink),
        LinkType::Reference | LinkType::Collapsed | LinkType::Shortcut => {
            Some(CitationStyle::ReferenceLink)
        }
        LinkType::Autolink => Some(CitationStyle::BareUrl),
        _ => None,
    };
    style.map(|style| {
        let label = (!id.is_empty()).then(|| id.to_string());
        if style == CitationStyle::ReferenceLink && id.trim().parse::<u32>().is_ok() {
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
    })
}

/// Markdown blocks, the numbered reference definitions (`[2]: https://…`) and the front
/// matter's title.
pub(super) fn markdown(body: &str) -> (Vec<Block>, HashMap<u32, String>, Option<String>) {
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
        item_numbers: Vec::new(),
        title: None,
    };
    for (event, range) in parser.into_offset_iter() {
        if b.inside(&event) {
            continue;
        }
        match event {
            Event::Start(tag) => b.start(tag),
            Event::End(end) => b.end(end),
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
