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
