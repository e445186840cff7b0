//! An HTML draft as blocks, its elements classified by the shared table ([`crate::text::html`]).

use super::*;

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

pub(super) fn html(body: &str) -> (Vec<Block>, Option<String>) {
    let document = scraper::Html::parse_document(body);
    let title = scraper::Selector::parse("title")
        .ok()
        .and_then(|sel| document.select(&sel).next())
        .map(|t| t.text().collect::<Vec<_>>().join(" "))
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|t| !t.is_empty());
    let mut walk = Walk::default();
    // Iterative depth-first walk: nesting depth is unbounded in hostile input.
    let mut stack = vec![(document.tree.root(), 0usize, false)];
    while let Some((node, depth, closing)) = stack.pop() {
        let descend = match node.value().as_element() {
            Some(element) if closing => {
                walk.close(element.name(), depth);
                false
            }
            Some(element) => walk.open(element, depth),
            None => match node.value().as_text() {
                Some(text) => {
                    walk.text(text);
                    false
                }
                // The document node and fragments: only their children matter.
                None => true,
            },
        };
        if !descend {
            continue;
        }
        if node.value().is_element() {
            stack.push((node, depth, true));
        }
        let mut child = node.last_child();
        while let Some(c) = child {
            stack.push((c, depth + 1, false));
            child = c.prev_sibling();
        }
    }
    walk.flush();
    (walk.blocks, title)
}

/// The state of the walk over an HTML draft: the blocks so far, the one being read, and the
/// open ancestors that give it its kind, anchor, list number and role.
#[derive(Default)]
struct Walk {
    blocks: Vec<Block>,
    current: Option<Block>,
    /// Open `<aside>` and `<footer>` elements, with their depth.
    peripheral: Vec<(usize, BlockRole)>,
    /// Alternative texts of images in the current block, emitted after it.
    pending_alts: Vec<Block>,
    /// Context kinds (li, td, blockquote, figcaption) and ids of open elements, with the depth
    /// they were opened at, so closing an element pops them.
    kinds: Vec<(usize, BlockKind)>,
    ids: Vec<(usize, String)>,
    lists: Vec<(usize, Option<u64>)>,
    item_number: Option<u64>,
    links: Vec<(usize, usize, Option<Target>)>,
}

impl Walk {
    /// Ends the current block (when it has text), then the image texts it held.
    fn flush(&mut self) {
        if let Some(mut block) = self.current.take()
            && !block.text.trim().is_empty()
        {
            let trimmed = block.text.trim_end().len();
            block.text.truncate(trimmed);
            for m in &mut block.markers {
                m.range.end = m.range.end.min(trimmed);
                m.range.start = m.range.start.min(m.range.end);
            }
            self.blocks.push(block);
        }
        self.blocks.append(&mut self.pending_alts);
    }

    /// Text, into the current block (one is started in the open context when there is none).
    fn text(&mut self, text: &str) {
        let (kinds, ids, item_number, peripheral) =
            (&self.kinds, &self.ids, self.item_number, &self.peripheral);
        let block = self.current.get_or_insert_with(|| {
            let mut b = Block::new(context_kind(kinds));
            b.anchor = ids.last().map(|(_, id)| id.clone());
            b.list_number = item_number;
            b.peripheral = peripheral.last().map(|p| p.1);
            b
        });
        push_collapsed(&mut block.text, text);
    }

    /// The end of element `name` opened at `depth`: its link marked, its block ended, its
    /// context popped.
    fn close(&mut self, name: &str, depth: usize) {
        if name == "a"
            && let Some((_, start, target)) = self.links.pop()
            && let (Some(target), Some(block)) = (target, self.current.as_mut())
        {
            let end = block.text.trim_end().len().max(start);
            block.markers.push(Marker {
                range: start..end,
                target,
            });
        }
        if block_level(name) {
            self.flush();
        }
        // Each stack holds the open ancestors, deepest last: closing pops from the end, so
        // deep nesting costs no more than shallow.
        pop_from(&mut self.kinds, depth);
        pop_from(&mut self.peripheral, depth);
        pop_from(&mut self.ids, depth);
        pop_from(&mut self.lists, depth);
    }

    /// The start of `element` at `depth`; whether its content is read (and its end awaited).
    fn open(&mut self, element: &scraper::node::Element, depth: usize) -> bool {
        let name = element.name();
        if dropped(name) {
            return false;
        }
        if name == "br" {
            if let Some(block) = self.current.as_mut() {
                push_collapsed(&mut block.text, " ");
            }
            return false;
        }
        if name == "img" {
            if let Some(alt) = element.attr("alt").filter(|a| !a.trim().is_empty()) {
                let role = self.peripheral.last().map(|p| p.1);
                self.pending_alts.push(Block::alt_text(alt, role));
            }
            return false;
        }
        match name {
            "aside" => self.peripheral.push((depth, BlockRole::Aside)),
            "footer" => self.peripheral.push((depth, BlockRole::Footer)),
            _ => {}
        }
        if let Some(id) = element.attr("id") {
            self.ids.push((depth, id.to_owned()));
        }
        if block_level(name) {
            self.open_block(element, depth);
        }
        if name == "a" {
            self.open_link(element, depth);
        }
        true
    }

    /// A block-level element: the block before it ends, and its own begins in its context.
    fn open_block(&mut self, element: &scraper::node::Element, depth: usize) {
        let name = element.name();
        self.flush();
        match name {
            "li" => {
                self.kinds.push((depth, BlockKind::ListItem));
                self.item_number = self.lists.last_mut().and_then(|(_, n)| {
                    let current = *n;
                    *n = n.map(|v| v.saturating_add(1));
                    current
                });
            }
            "td" | "th" => self.kinds.push((depth, BlockKind::TableCell)),
            "blockquote" => self.kinds.push((depth, BlockKind::Quote)),
            "figcaption" | "caption" => self.kinds.push((depth, BlockKind::Caption)),
            "ol" => self.lists.push((
                depth,
                Some(
                    element
                        .attr("start")
                        .and_then(|s| s.trim().parse().ok())
                        .unwrap_or(1),
                ),
            )),
            "ul" => self.lists.push((depth, None)),
            _ => {}
        }
        let kind = if name.len() == 2 && name.starts_with('h') && name != "hr" {
            BlockKind::Heading
        } else {
            context_kind(&self.kinds)
        };
        let mut block = Block::new(kind);
        block.anchor = self.ids.last().map(|(_, id)| id.clone());
        block.list_number = if self
            .kinds
            .iter()
            .rev()
            .any(|(_, k)| *k == BlockKind::ListItem)
        {
            self.item_number
        } else {
            None
        };
        block.peripheral = self.peripheral.last().map(|p| p.1);
        self.current = Some(block);
    }

    /// A link: where its text starts in the current block, and what it points at.
    fn open_link(&mut self, element: &scraper::node::Element, depth: usize) {
        let (kinds, peripheral) = (&self.kinds, &self.peripheral);
        let block = self.current.get_or_insert_with(|| {
            let mut b = Block::new(context_kind(kinds));
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
        self.links.push((depth, start, target));
    }
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
