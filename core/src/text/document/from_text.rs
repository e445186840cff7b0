//! A plain-text draft as blocks: paragraphs, list lines, underlined and short headings.

use super::*;

static BULLET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[ \t]*(?:[-*•–+]|(\d{1,4})[.)])[ \t]+").expect("static regex"));
static NUMBERED_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[ \t]*\[\d{1,4}\]").expect("static regex"));
static FOOTNOTE_DEF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[ \t]*\[\^([^\]\s]{1,40})\]:?[ \t]*").expect("static regex"));
static UNDERLINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[ \t]*(?:=+|-+)[ \t]*$").expect("static regex"));

pub(super) fn text(body: &str) -> Vec<Block> {
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
pub(super) fn looks_like_heading(line: &str) -> bool {
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
