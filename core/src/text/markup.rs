//! Bounded markup parsing, shared by drafts (extract) and fetched sources (verify).
//!
//! html5ever builds a tree whose cost grows with the nesting depth: each start tag of many
//! elements looks down the stack of open elements ("has a `p` element in button scope"), so
//! 150,000 nested `<div>` cost about 10¹⁰ steps. A tree is therefore built only after a linear
//! pre-scan found the nesting within the limit ([`check_html_depth`], on html5ever's tokenizer
//! alone, which keeps no tree), and the build itself can be stopped between chunks
//! ([`parse_html_cancellable`]) and runs, in the service, in a bounded pool of blocking threads
//! (`factgate::parse_pool`), so a page whose time is up stops holding a core.
//!
//! Markdown nests through block quotes and list items; [`check_markdown_depth`] bounds them
//! with one pass over the lines.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::{LocalName, local_name};

/// A document nested deeper than its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("its markup is nested more than {limit} levels deep")]
pub struct TooDeep {
    /// The limit exceeded.
    pub limit: usize,
}

/// Elements that never hold content.
const VOID: &[LocalName] = &[
    local_name!("area"),
    local_name!("base"),
    local_name!("basefont"),
    local_name!("bgsound"),
    local_name!("br"),
    local_name!("col"),
    local_name!("embed"),
    local_name!("frame"),
    local_name!("hr"),
    local_name!("img"),
    local_name!("input"),
    local_name!("keygen"),
    local_name!("link"),
    local_name!("meta"),
    local_name!("param"),
    local_name!("source"),
    local_name!("track"),
    local_name!("wbr"),
];

/// Elements a parser closes when a sibling of the same kind starts (`<p>…<p>`, `<li>…<li>`):
/// left unclosed they do not nest, so they are not counted.
const SELF_CLOSING_SIBLINGS: &[LocalName] = &[
    local_name!("p"),
    local_name!("li"),
    local_name!("dt"),
    local_name!("dd"),
    local_name!("option"),
    local_name!("optgroup"),
    local_name!("tr"),
    local_name!("td"),
    local_name!("th"),
    local_name!("thead"),
    local_name!("tbody"),
    local_name!("tfoot"),
    local_name!("rb"),
    local_name!("rt"),
    local_name!("rtc"),
    local_name!("rp"),
];

/// The tokenizer's sink for the pre-scan: a stack of open element names, and a count per name
/// so an end tag for an element that is not open costs nothing (no walk down the stack).
struct DepthSink {
    limit: usize,
    open: RefCell<Vec<LocalName>>,
    counts: RefCell<HashMap<LocalName, usize>>,
    /// Open `svg` and `math` elements: inside them `<x/>` closes itself.
    foreign: Cell<usize>,
    exceeded: Cell<bool>,
}

impl DepthSink {
    fn start(&self, name: LocalName, self_closing: bool) -> TokenSinkResult<()> {
        let raw = match name {
            local_name!("script") => Some(TokenSinkResult::RawData(RawKind::ScriptData)),
            local_name!("style")
            | local_name!("xmp")
            | local_name!("iframe")
            | local_name!("noembed")
            | local_name!("noframes")
            | local_name!("noscript") => Some(TokenSinkResult::RawData(RawKind::Rawtext)),
            local_name!("textarea") | local_name!("title") => {
                Some(TokenSinkResult::RawData(RawKind::Rcdata))
            }
            local_name!("plaintext") => Some(TokenSinkResult::Plaintext),
            _ => None,
        };
        if let Some(raw) = raw {
            // Their content is text up to their own end tag: they cannot nest.
            return raw;
        }
        if VOID.contains(&name)
            || SELF_CLOSING_SIBLINGS.contains(&name)
            || (self_closing && self.foreign.get() > 0)
        {
            return TokenSinkResult::Continue;
        }
        // `<div/>` in HTML does not close itself: the parser ignores the slash, so it counts.
        if matches!(name, local_name!("svg") | local_name!("math")) {
            self.foreign.set(self.foreign.get() + 1);
        }
        *self.counts.borrow_mut().entry(name.clone()).or_default() += 1;
        let mut open = self.open.borrow_mut();
        open.push(name);
        if open.len() > self.limit {
            self.exceeded.set(true);
            // Pauses the tokenizer: nothing more needs reading.
            return TokenSinkResult::Script(());
        }
        TokenSinkResult::Continue
    }

    fn end(&self, name: &LocalName) {
        let mut counts = self.counts.borrow_mut();
        if counts.get(name).is_none_or(|n| *n == 0) {
            return;
        }
        let mut open = self.open.borrow_mut();
        // Closes everything opened after it, as the parser does; each element is popped once,
        // so the scan stays linear.
        while let Some(top) = open.pop() {
            if let Some(n) = counts.get_mut(&top) {
                *n -= 1;
            }
            if matches!(top, local_name!("svg") | local_name!("math")) {
                self.foreign.set(self.foreign.get().saturating_sub(1));
            }
            if top == *name {
                break;
            }
        }
    }
}

impl TokenSink for DepthSink {
    type Handle = ();

    fn process_token(&self, token: Token, _line_number: u64) -> TokenSinkResult<()> {
        if self.exceeded.get() {
            return TokenSinkResult::Script(());
        }
        match token {
            Token::TagToken(tag) => match tag.kind {
                TagKind::StartTag => self.start(tag.name, tag.self_closing),
                TagKind::EndTag => {
                    self.end(&tag.name);
                    TokenSinkResult::Continue
                }
            },
            _ => TokenSinkResult::Continue,
        }
    }
}

/// Checks, in one linear pass over html5ever's tokens, that `html` nests elements at most
/// `limit` deep. The count follows what a parser keeps open: void elements, raw-text elements
/// and elements closed by their next sibling (`p`, `li`, `td`…) do not nest; an end tag closes
/// everything opened after its element; an element never closed stays open. It can only
/// overestimate the depth of the tree html5ever builds (which also closes elements on rules this
/// count leaves out), never underestimate it.
///
/// # Errors
/// [`TooDeep`] once the depth passes `limit`; the scan stops there.
pub fn check_html_depth(html: &str, limit: usize) -> Result<(), TooDeep> {
    let sink = DepthSink {
        limit,
        open: RefCell::new(Vec::new()),
        counts: RefCell::new(HashMap::new()),
        foreign: Cell::new(0),
        exceeded: Cell::new(false),
    };
    let tokenizer = Tokenizer::new(sink, TokenizerOpts::default());
    let queue = BufferQueue::default();
    queue.push_back(StrTendril::from_slice(html));
    let _ = tokenizer.feed(&queue);
    if !tokenizer.sink.exceeded.get() {
        tokenizer.end();
    }
    if tokenizer.sink.exceeded.get() {
        Err(TooDeep { limit })
    } else {
        Ok(())
    }
}

/// Checks that `markdown` nests block quotes and list items at most `limit` deep, in one pass
/// over its lines. A line's depth is the number of `>` markers and list markers that open it,
/// plus the list levels its indentation implies (two columns each). This overestimates rather
/// than underestimates what a CommonMark parser builds.
///
/// # Errors
/// [`TooDeep`] for the first line nested past `limit`.
pub fn check_markdown_depth(markdown: &str, limit: usize) -> Result<(), TooDeep> {
    for line in markdown.lines() {
        if line_depth(line, limit) > limit {
            return Err(TooDeep { limit });
        }
    }
    Ok(())
}

/// The container depth a line opens with, counted up to just past `limit`.
fn line_depth(line: &str, limit: usize) -> usize {
    let bytes = line.as_bytes();
    let mut depth = 0usize;
    let mut columns = 0usize;
    let mut i = 0;
    let is_space = |b: Option<&u8>| b.is_none_or(|b| *b == b' ' || *b == b'\t');
    while i < bytes.len() && depth <= limit {
        let marker_end = match bytes[i] {
            b' ' => {
                columns += 1;
                None
            }
            b'\t' => {
                columns += 4;
                None
            }
            b'>' => Some(i + 1),
            b'-' | b'*' | b'+' if is_space(bytes.get(i + 1)) => Some(i + 1),
            b'0'..=b'9' => {
                // An ordered list marker: digits, then `.` or `)`, then a space.
                let digits = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
                match bytes.get(i + digits) {
                    Some(b'.' | b')') if is_space(bytes.get(i + digits + 1)) => {
                        Some(i + digits + 1)
                    }
                    _ => break,
                }
            }
            _ => break,
        };
        match marker_end {
            Some(end) => {
                depth += 1;
                // The one space a marker takes is not indentation.
                i = if bytes.get(end) == Some(&b' ') {
                    end + 1
                } else {
                    end
                };
            }
            None => i += 1,
        }
    }
    depth + columns / 2
}

/// The parse was stopped before it finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the parse was cancelled")]
pub struct Cancelled;

/// Bytes fed to html5ever between two looks at the cancel flag: small enough that a cancelled
/// parse stops within milliseconds, large enough that looking costs nothing.
const CHUNK_BYTES: usize = 64 * 1024;

/// Parses `html` into a document, feeding html5ever a chunk at a time and giving up as soon as
/// `cancel` is set. Call it on input that passed [`check_html_depth`], so each chunk's work is
/// bounded.
///
/// # Errors
/// [`Cancelled`] when `cancel` was set before the parse finished.
pub fn parse_html_cancellable(html: &str, cancel: &AtomicBool) -> Result<scraper::Html, Cancelled> {
    let mut parser = html5ever::driver::parse_document(
        scraper::HtmlTreeSink::new(scraper::Html::new_document()),
        Default::default(),
    );
    let mut rest = html;
    while !rest.is_empty() {
        if cancel.load(Ordering::Relaxed) {
            return Err(Cancelled);
        }
        let mut end = CHUNK_BYTES.min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let (chunk, after) = rest.split_at(end);
        parser.process(StrTendril::from_slice(chunk));
        rest = after;
    }
    if cancel.load(Ordering::Relaxed) {
        return Err(Cancelled);
    }
    Ok(parser.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_what_a_parser_keeps_open() {
        assert_eq!(check_html_depth("<div><div><p>x</div></div>", 2), Ok(()));
        assert_eq!(
            check_html_depth("<div><div><div>x", 2),
            Err(TooDeep { limit: 2 })
        );
        // Siblings closed by the next one, void elements and raw text do not nest.
        let flat = "<p>a<p>b<li>c<li>d<br><img><hr>".repeat(100);
        assert_eq!(check_html_depth(&flat, 3), Ok(()));
        let script = format!("<script>{}</script><p>x", "<div>".repeat(100));
        assert_eq!(check_html_depth(&script, 3), Ok(()));
        // A slash does not close an HTML element, so `<div/>` nests; in SVG it closes.
        assert!(check_html_depth(&"<div/>".repeat(10), 5).is_err());
        let svg = format!("<svg>{}</svg>", "<path/>".repeat(100));
        assert_eq!(check_html_depth(&svg, 3), Ok(()));
        // An end tag closes what was opened after its element; a stray one closes nothing.
        let closed = "<div><span><b>x</div></i></i></i>".repeat(100);
        assert_eq!(check_html_depth(&closed, 4), Ok(()));
    }

    #[test]
    fn a_deep_document_is_refused_without_a_tree() {
        let deep = "<div>".repeat(200_000);
        assert_eq!(check_html_depth(&deep, 256), Err(TooDeep { limit: 256 }));
    }

    #[test]
    fn markdown_depth_counts_quotes_list_markers_and_indentation() {
        assert_eq!(
            check_markdown_depth("> > > quoted\n- a\n  - b\n", 3),
            Ok(())
        );
        assert!(check_markdown_depth(&format!("{} x", ">".repeat(10)), 5).is_err());
        let list: String = (0..10)
            .map(|i| format!("{}- x\n", "  ".repeat(i)))
            .collect();
        assert!(check_markdown_depth(&list, 5).is_err());
        assert!(check_markdown_depth("1. a\n2) b\n2023. A year.\n", 2).is_ok());
    }

    #[test]
    fn a_cancelled_parse_stops() {
        let cancel = AtomicBool::new(true);
        assert!(parse_html_cancellable("<p>x</p>", &cancel).is_err());
        let go = AtomicBool::new(false);
        let html = parse_html_cancellable(&"<p>x é</p>".repeat(20_000), &go).expect("parses");
        assert!(html.root_element().text().count() >= 20_000);
    }
}
