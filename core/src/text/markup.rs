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
//! A tree also costs memory in proportion to its nodes, and a small page can ask for many: 20 MiB
//! of `<b></b>` is a million and a half elements, and the parser's reconstruction of formatting
//! elements (`<div><b>…</div>x` wraps `x` in a new `<b>`) can make one short tag cost hundreds of
//! nodes. So a fetched page is bounded by its node count too, twice: the pre-scan counts what the
//! tokens alone will make ([`check_html_shape`]: elements, text runs, comments), refusing before
//! any tree is built, and the build ([`parse_html_bounded`]) counts the nodes the tree holds after
//! each token and stops once they pass the budget.
//!
//! Markdown nests through block quotes and list items; [`check_markdown_depth`] bounds them
//! with one pass over the lines.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts, TreeSink};
use html5ever::{LocalName, TokenizerResult, local_name};

/// A document nested deeper than its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("its markup is nested more than {limit} levels deep")]
pub struct TooDeep {
    /// The limit exceeded.
    pub limit: usize,
}

/// A document that makes more nodes (elements, text runs, comments) than its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("its markup makes more than {limit} nodes")]
pub struct TooManyNodes {
    /// The limit exceeded.
    pub limit: usize,
}

/// Why a document's shape keeps it from being parsed into a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TooLarge {
    #[error(transparent)]
    Deep(#[from] TooDeep),
    #[error(transparent)]
    Nodes(#[from] TooManyNodes),
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
    /// Nodes the tokens make so far, and the most allowed.
    nodes: Cell<usize>,
    max_nodes: usize,
    /// Whether the last token was text, so more text joins its node.
    in_text: Cell<bool>,
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

impl DepthSink {
    fn new(max_depth: usize, max_nodes: usize) -> Self {
        DepthSink {
            limit: max_depth,
            open: RefCell::new(Vec::new()),
            counts: RefCell::new(HashMap::new()),
            foreign: Cell::new(0),
            exceeded: Cell::new(false),
            nodes: Cell::new(0),
            max_nodes,
            in_text: Cell::new(false),
        }
    }

    fn add_node(&self) {
        self.nodes.set(self.nodes.get().saturating_add(1));
    }

    fn stopped(&self) -> bool {
        self.exceeded.get() || self.nodes.get() > self.max_nodes
    }
}

impl TokenSink for DepthSink {
    type Handle = ();

    fn process_token(&self, token: Token, _line_number: u64) -> TokenSinkResult<()> {
        // Only a tag may pause the tokenizer (it asserts that every other token continues).
        let tag = matches!(token, Token::TagToken(_));
        if self.stopped() {
            return if tag {
                TokenSinkResult::Script(())
            } else {
                TokenSinkResult::Continue
            };
        }
        let text = matches!(token, Token::CharacterTokens(_) | Token::NullCharacterToken);
        let was_text = self.in_text.replace(text);
        let result = match token {
            Token::TagToken(tag) => match tag.kind {
                TagKind::StartTag => {
                    self.add_node();
                    self.start(tag.name, tag.self_closing)
                }
                TagKind::EndTag => {
                    self.end(&tag.name);
                    TokenSinkResult::Continue
                }
            },
            Token::CommentToken(_) | Token::DoctypeToken(_) => {
                self.add_node();
                TokenSinkResult::Continue
            }
            Token::CharacterTokens(_) | Token::NullCharacterToken => {
                if !was_text {
                    self.add_node();
                }
                TokenSinkResult::Continue
            }
            _ => TokenSinkResult::Continue,
        };
        if self.stopped() && tag {
            // Pauses the tokenizer: nothing more needs reading.
            return TokenSinkResult::Script(());
        }
        result
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
    match check_html_shape(html, limit, usize::MAX) {
        Ok(()) => Ok(()),
        Err(TooLarge::Deep(too_deep)) => Err(too_deep),
        // Unreachable with no node limit; a document is then not too deep.
        Err(TooLarge::Nodes(_)) => Ok(()),
    }
}

/// [`check_html_depth`], and the nodes the tokens make at most `max_nodes`: each start tag, run
/// of text, comment and doctype is one. The tree can hold more (elements the parser implies or
/// reconstructs), which [`parse_html_bounded`] bounds as it builds; this refuses, before any
/// tree, the page that plainly has too many. The input is read a chunk at a time, so the scan
/// holds no copy of it.
///
/// # Errors
/// [`TooLarge`] for the first limit passed; the scan stops there.
pub fn check_html_shape(html: &str, max_depth: usize, max_nodes: usize) -> Result<(), TooLarge> {
    let tokenizer = Tokenizer::new(
        DepthSink::new(max_depth, max_nodes),
        TokenizerOpts::default(),
    );
    let queue = BufferQueue::default();
    for chunk in chunks(html) {
        queue.push_back(StrTendril::from_slice(chunk));
        let _ = tokenizer.feed(&queue);
        if tokenizer.sink.stopped() {
            break;
        }
    }
    if !tokenizer.sink.stopped() {
        tokenizer.end();
    }
    if tokenizer.sink.exceeded.get() {
        Err(TooDeep { limit: max_depth }.into())
    } else if tokenizer.sink.nodes.get() > max_nodes {
        Err(TooManyNodes { limit: max_nodes }.into())
    } else {
        Ok(())
    }
}

/// `html` in pieces of about [`CHUNK_BYTES`], each ending on a character boundary.
fn chunks(html: &str) -> impl Iterator<Item = &str> {
    let mut rest = html;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut end = CHUNK_BYTES.min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let (chunk, after) = rest.split_at(end);
        rest = after;
        Some(chunk)
    })
}

/// Checks that `markdown` nests block quotes and list items at most `limit` deep, in one pass
/// over its lines. A line's depth is the number of `>` markers and list markers that open it,
/// plus the list levels its indentation implies (two columns each). This overestimates rather
/// than underestimates what a CommonMark parser builds.
///
/// # Errors
/// [`TooDeep`] for the first line nested past `limit`.
pub(crate) fn check_markdown_depth(markdown: &str, limit: usize) -> Result<(), TooDeep> {
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
    parse_html_bounded(html, cancel, usize::MAX).map_err(|_| Cancelled)
}

/// Why [`parse_html_bounded`] gave no document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Stopped {
    #[error(transparent)]
    Cancelled(#[from] Cancelled),
    #[error(transparent)]
    TooManyNodes(#[from] TooManyNodes),
}

/// [`parse_html_cancellable`] that also stops once the tree holds more than `max_nodes` nodes.
/// The count is taken after each token, so the tree passes the budget by at most what one token
/// makes (a reconstruction of the open formatting elements, each of which is a node already
/// counted): its memory stays within about twice the budget's.
///
/// # Errors
/// [`Stopped`]: cancelled, or past the node budget.
pub fn parse_html_bounded(
    html: &str,
    cancel: &AtomicBool,
    max_nodes: usize,
) -> Result<scraper::Html, Stopped> {
    let builder = TreeBuilder::new(
        scraper::HtmlTreeSink::new(scraper::Html::new_document()),
        TreeBuilderOpts::default(),
    );
    let tokenizer = Tokenizer::new(
        Budgeted {
            builder,
            max_nodes,
            over: Cell::new(false),
        },
        TokenizerOpts::default(),
    );
    let queue = BufferQueue::default();
    for chunk in chunks(html) {
        if cancel.load(Ordering::Relaxed) {
            return Err(Cancelled.into());
        }
        queue.push_back(StrTendril::from_slice(chunk));
        // The tokenizer pauses at a script's end, past the budget, and at a `<meta charset>`
        // (an encoding the page was decoded by already): read on unless past the budget, until
        // the chunk is done. Stopping at a pause would drop the rest of the page.
        loop {
            match tokenizer.feed(&queue) {
                TokenizerResult::Done => break,
                _ if tokenizer.sink.over.get() => {
                    return Err(TooManyNodes { limit: max_nodes }.into());
                }
                _ => {}
            }
        }
    }
    if cancel.load(Ordering::Relaxed) {
        return Err(Cancelled.into());
    }
    tokenizer.end();
    if tokenizer.sink.over.get() {
        return Err(TooManyNodes { limit: max_nodes }.into());
    }
    Ok(tokenizer.sink.builder.sink.finish())
}

/// The tree builder, stopped once its tree holds more than `max_nodes` nodes.
struct Budgeted {
    builder: TreeBuilder<ego_tree::NodeId, scraper::HtmlTreeSink>,
    max_nodes: usize,
    over: Cell<bool>,
}

impl Budgeted {
    /// The nodes of the tree so far, and its root's handle.
    fn nodes_and_root(&self) -> (usize, ego_tree::NodeId) {
        let html = self.builder.sink.0.borrow();
        (html.tree.nodes().len(), html.tree.root().id())
    }
}

impl TokenSink for Budgeted {
    type Handle = ego_tree::NodeId;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<Self::Handle> {
        // Only a tag may pause the tokenizer (it asserts that every other token continues):
        // past the budget, other tokens are dropped until the next tag pauses it.
        let tag = matches!(token, Token::TagToken(_));
        if !self.over.get() {
            let result = self.builder.process_token(token, line_number);
            let (nodes, root) = self.nodes_and_root();
            if nodes <= self.max_nodes {
                return result;
            }
            self.over.set(true);
            if !tag {
                return TokenSinkResult::Continue;
            }
            return TokenSinkResult::Script(root);
        }
        if tag {
            TokenSinkResult::Script(self.nodes_and_root().1)
        } else {
            TokenSinkResult::Continue
        }
    }

    fn end(&self) {
        if !self.over.get() {
            self.builder.end();
        }
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.builder
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
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
    fn a_page_that_declares_its_charset_is_read_to_its_end() {
        // `<meta charset>` pauses the tokenizer with an encoding indicator: the bounded parse
        // must read on past it.
        let html = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>T</title></head>\
                    <body><main><p>The index rose by 3.4%.</p></main><script>var x = 1;</script>\
                    <p>After the script.</p></body></html>";
        let cancel = AtomicBool::new(false);
        let doc = parse_html_bounded(html, &cancel, 200_000).expect("parsed");
        let text = crate::text::webpage::document_to_text(&doc).text;
        assert!(text.contains("The index rose by 3.4%."), "{text:?}");
        assert!(text.contains("After the script."), "{text:?}");
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
    fn a_page_of_too_many_nodes_is_refused_before_any_tree() {
        // Elements, text runs and comments each count; text runs split by tags count once each.
        assert_eq!(
            check_html_shape("<p>a<b>b</b>c</p><!-- x -->", 64, 6),
            Ok(())
        );
        assert_eq!(
            check_html_shape("<p>a<b>b</b>c</p><!-- x -->", 64, 5),
            Err(TooLarge::Nodes(TooManyNodes { limit: 5 }))
        );
        let tiny = "<b></b>".repeat(100_000);
        assert_eq!(
            check_html_shape(&tiny, 64, 10_000),
            Err(TooLarge::Nodes(TooManyNodes { limit: 10_000 }))
        );
        assert_eq!(check_html_shape(&tiny, 64, 200_000), Ok(()));
        // Depth is still what it was.
        assert_eq!(
            check_html_shape(&"<div>".repeat(100), 64, usize::MAX),
            Err(TooLarge::Deep(TooDeep { limit: 64 }))
        );
    }

    /// A page the pre-scan counts as small can make a large tree: each run of text after the
    /// formatting elements it left open reconstructs them all (here 64 `<font>` per `<p>x</p>`).
    /// The build stops at its budget instead of building it.
    #[test]
    fn a_tree_that_grows_past_its_budget_while_built_is_stopped() {
        let fonts: String = (0..64).map(|i| format!("<font id={i}>")).collect();
        let html = format!("<div>{fonts}</div>{}", "<p>x</p>".repeat(2_000));
        assert_eq!(check_html_shape(&html, 256, 10_000), Ok(()), "few tokens");
        let go = AtomicBool::new(false);
        let whole = parse_html_bounded(&html, &go, usize::MAX).expect("parses");
        assert!(
            whole.tree.nodes().len() > 100_000,
            "the tree is {} nodes",
            whole.tree.nodes().len()
        );
        assert_eq!(
            parse_html_bounded(&html, &go, 10_000).err(),
            Some(Stopped::TooManyNodes(TooManyNodes { limit: 10_000 }))
        );
        // A page within its budget parses as html5ever's own driver parses it.
        let page = "<html><body><h1>T</h1><p>a <b>b</b> c</p><ul><li>x<li>y</ul></body></html>";
        let bounded = parse_html_bounded(page, &go, 100).expect("within budget");
        assert_eq!(bounded.html(), scraper::Html::parse_document(page).html());
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
