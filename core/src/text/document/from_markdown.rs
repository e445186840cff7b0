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
