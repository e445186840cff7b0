//! Turning a response body into text: charset decoding, HTML to visible text, paywall markers,
//! and the schema.org `ClaimReview` markup a fact-check page carries.

use std::sync::LazyLock;

use ego_tree::iter::Edge;
use encoding_rs::{Encoding, UTF_8};
use regex::Regex;
use scraper::{ElementRef, Html, Node, Selector};
use serde_json::Value;

use super::html::{self, ElementClass};

/// A schema.org `ClaimReview` found on a page, its fields as the page writes them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClaimReview {
    /// `claimReviewed`: the claim the fact-check rates.
    pub claim_reviewed: String,
    /// `reviewRating.alternateName` (or `name`): "False", "Mostly true".
    pub rating_name: Option<String>,
    /// `reviewRating.ratingValue`, `bestRating`, `worstRating`, as written.
    pub rating_value: Option<String>,
    pub best_rating: Option<String>,
    pub worst_rating: Option<String>,
}

/// The kind of body the fetcher can read, from the media type of Content-Type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    /// text/html or application/xhtml+xml.
    Html,
    /// text/plain.
    Plain,
}

/// The readable kind of a media type (lower-cased, without parameters), or `None`.
pub fn text_kind(media_type: &str) -> Option<TextKind> {
    match media_type {
        "text/html" | "application/xhtml+xml" => Some(TextKind::Html),
        "text/plain" => Some(TextKind::Plain),
        _ => None,
    }
}

/// Splits a Content-Type value into its lower-cased media type and its charset parameter.
pub fn parse_content_type(value: &str) -> (String, Option<String>) {
    let mut parts = value.split(';');
    let media_type = parts.next().unwrap_or("").trim().to_ascii_lowercase();
    let charset = parts.find_map(|p| {
        let (name, value) = p.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches(['"', '\'']).to_owned())
    });
    (media_type, charset)
}

static META_CHARSET: LazyLock<Regex> = LazyLock::new(|| {
    // Covers both <meta charset="x"> and <meta http-equiv=… content="text/html; charset=x">.
    Regex::new(r#"(?i)<meta[^>]*?charset\s*=\s*["']?\s*([a-z0-9_.:\-]+)"#).expect("valid regex")
});

/// Decodes a body to text. The encoding is the first of: a byte-order mark; the Content-Type
/// charset; for HTML, a `<meta>` charset in the first 1024 bytes; UTF-8. A BOM wins because it
/// cannot be wrong about the bytes that follow it. Malformed bytes become U+FFFD, never an error.
pub fn decode(body: &[u8], header_charset: Option<&str>, kind: TextKind) -> String {
    // `decode` sniffs a BOM itself and replaces malformed sequences.
    let (text, _, _) = declared_encoding(body, header_charset, kind).decode(body);
    text.into_owned()
}

/// [`decode`], taking the body: when it is UTF-8 already (no BOM, valid, and so declared or not
/// declared at all), its bytes become the text without a copy, so a page is held once, not
/// twice.
pub fn decode_owned(body: Vec<u8>, header_charset: Option<&str>, kind: TextKind) -> String {
    if declared_encoding(&body, header_charset, kind) == UTF_8 && Encoding::for_bom(&body).is_none()
    {
        match String::from_utf8(body) {
            Ok(text) => return text,
            Err(err) => return decode(err.as_bytes(), header_charset, kind),
        }
    }
    decode(&body, header_charset, kind)
}

/// The encoding a body declares: the Content-Type charset; for HTML, a `<meta>` charset in the
/// first 1024 bytes; else UTF-8. (A BOM, which wins over all of them, is the decoder's to see.)
fn declared_encoding(
    body: &[u8],
    header_charset: Option<&str>,
    kind: TextKind,
) -> &'static Encoding {
    header_charset
        .and_then(|label| Encoding::for_label(label.as_bytes()))
        .or_else(|| {
            (kind == TextKind::Html)
                .then(|| meta_charset(body))
                .flatten()
        })
        .unwrap_or(UTF_8)
}

fn meta_charset(body: &[u8]) -> Option<&'static Encoding> {
    let head = String::from_utf8_lossy(&body[..body.len().min(1024)]);
    let label = META_CHARSET.captures(&head)?.get(1)?.as_str().to_owned();
    let encoding = Encoding::for_label(label.as_bytes())?;
    // A meta tag cannot switch the bytes to UTF-16 (HTML spec); output_encoding maps it to UTF-8.
    Some(encoding.output_encoding())
}

/// An HTML page reduced to what a reader sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HtmlText {
    /// The `<title>`, whitespace collapsed.
    pub title: Option<String>,
    /// The visible text, one paragraph per block, blocks separated by blank lines.
    pub text: String,
    /// The schema.org `ClaimReview`s the page carries (JSON-LD or microdata).
    pub claim_reviews: Vec<ClaimReview>,
    /// The page's furniture as text: its masthead, footer and asides, which the visible text
    /// leaves out, and the site's name from its metadata. What the page is and who publishes
    /// it, for telling whether the page names something at all (a publisher named only in the
    /// masthead is named), never as what the page states.
    pub furniture: String,
}

/// Whether the page reader skips an element's content: what is never visible, what the
/// `hidden` attribute hides, and the site's chrome around the cited content.
fn is_dropped(el: &scraper::node::Element) -> bool {
    matches!(
        html::class(el.name()),
        ElementClass::Hidden | ElementClass::Chrome
    ) || el.attr("hidden").is_some()
}

/// Whether an element keeps its text from running into its neighbours': blocks and `<pre>`.
fn is_block(name: &str) -> bool {
    html::class(name) == ElementClass::Block || name == "pre"
}

/// Extracts the title and visible text of an HTML document.
pub fn html_to_text(html: &str) -> HtmlText {
    document_to_text(&Html::parse_document(html))
}

/// Extracts the title and visible text of a parsed HTML document (see
/// [`crate::text::markup::parse_html_cancellable`] for a parse bounded in time).
pub fn document_to_text(document: &Html) -> HtmlText {
    // No text is longer than the address space: the limit is never reached.
    document_to_text_within(document, usize::MAX).unwrap_or_else(|TextTooLong { .. }| HtmlText {
        title: None,
        text: String::new(),
        claim_reviews: Vec::new(),
        furniture: String::new(),
    })
}

/// A page with more visible text than its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("its visible text is longer than {limit} bytes")]
pub struct TextTooLong {
    /// The limit exceeded, in bytes.
    pub limit: usize,
}

/// [`document_to_text`] for a page whose visible text may be at most `max_bytes` long: the
/// reading stops, without holding more than about twice that, as soon as the text is sure to be
/// longer.
///
/// # Errors
/// [`TextTooLong`] when the visible text is longer than `max_bytes`.
pub fn document_to_text_within(document: &Html, max_bytes: usize) -> Result<HtmlText, TextTooLong> {
    let too_long = TextTooLong { limit: max_bytes };
    // Runs of blank space are collapsed as the text is read (as tidying would), so the raw text
    // is about as long as the tidy one; the margin covers what tidying still removes.
    let raw_limit = max_bytes.saturating_mul(2);
    let title = Selector::parse("title")
        .ok()
        .and_then(|sel| document.select(&sel).next())
        .map(|t| collapse_spaces(&t.text().collect::<String>()))
        .filter(|t| !t.is_empty());

    let mut out = String::new();
    // Depth of dropped elements we are inside; iterative so a deeply nested page cannot overflow
    // the stack.
    let mut skipping = 0usize;
    // Inside `<pre>`, line breaks are the text's; elsewhere a line break in the markup is a space,
    // as a browser shows it, and only `<br>` and blocks break lines.
    let mut preformatted = 0usize;
    for edge in document.tree.root().traverse() {
        if out.len() > raw_limit {
            return Err(too_long);
        }
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Element(el) if skipping > 0 || is_dropped(el) => skipping += 1,
                // A table is read row by row, each figure with the row and column it is in,
                // then its cells are skipped.
                Node::Element(el) if el.name() == "table" => {
                    if let Some(table) = ElementRef::wrap(node) {
                        out.push_str("\n\n");
                        out.push_str(&table_text(table));
                        out.push_str("\n\n");
                    }
                    skipping += 1;
                }
                _ if skipping > 0 => {}
                Node::Element(el) if el.name() == "br" => out.push('\n'),
                Node::Element(el) if is_block(el.name()) => {
                    if el.name() == "pre" {
                        preformatted += 1;
                    }
                    push_break(&mut out);
                }
                Node::Text(text) if preformatted > 0 => out.push_str(text),
                Node::Text(text) => {
                    for c in text.chars() {
                        let c = if c.is_whitespace() { ' ' } else { c };
                        // A space after a space or a line break is one tidying removes.
                        if c != ' ' || !(out.is_empty() || out.ends_with([' ', '\n'])) {
                            out.push(c);
                        }
                    }
                }
                _ => {}
            },
            Edge::Close(node) => match node.value() {
                Node::Element(_) if skipping > 0 => skipping -= 1,
                Node::Element(el) if is_block(el.name()) => {
                    if el.name() == "pre" {
                        preformatted = preformatted.saturating_sub(1);
                    }
                    push_break(&mut out);
                }
                _ => {}
            },
        }
    }
    if out.len() > raw_limit {
        return Err(too_long);
    }
    let text = tidy(&out);
    drop(out);
    if text.len() > max_bytes {
        return Err(too_long);
    }
    Ok(HtmlText {
        title,
        text,
        claim_reviews: claim_reviews(document),
        furniture: furniture(document),
    })
}

/// The most bytes of furniture kept from one page.
const MAX_FURNITURE_BYTES: usize = 8 * 1024;

/// The text of a page's `<header>`, `<footer>` and `<aside>` elements, and its site name and
/// author from `<meta>`, at most [`MAX_FURNITURE_BYTES`].
fn furniture(document: &Html) -> String {
    let mut out = String::new();
    if let Ok(meta) = Selector::parse(
        "meta[property='og:site_name'], meta[name='author'], meta[name='application-name'], meta[property='article:publisher']",
    ) {
        for m in document.select(&meta) {
            if let Some(content) = m.value().attr("content") {
                out.push_str(content);
                out.push('\n');
            }
        }
    }
    if let Ok(chrome) = Selector::parse("header, footer, aside") {
        for el in document.select(&chrome) {
            out.push_str(&visible_text(el));
            out.push('\n');
            if out.len() > MAX_FURNITURE_BYTES {
                break;
            }
        }
    }
    let mut end = out.len().min(MAX_FURNITURE_BYTES);
    while !out.is_char_boundary(end) {
        end -= 1;
    }
    out.truncate(end);
    out
}

/// The visible text of an element, whitespace collapsed, without what no reader sees.
fn visible_text(el: ElementRef<'_>) -> String {
    let mut out = String::new();
    let mut skipping = 0usize;
    for edge in el.traverse() {
        match edge {
            Edge::Open(node) => match node.value() {
                // What no reader sees; the chrome is kept (this reads the masthead too).
                Node::Element(e)
                    if skipping > 0
                        || html::class(e.name()) == ElementClass::Hidden
                        || e.attr("hidden").is_some() =>
                {
                    skipping += 1
                }
                Node::Element(e) if e.name() == "br" => out.push(' '),
                Node::Text(text) if skipping == 0 => out.push_str(text),
                _ => {}
            },
            Edge::Close(node) => {
                if matches!(node.value(), Node::Element(_)) && skipping > 0 {
                    skipping -= 1;
                } else if matches!(node.value(), Node::Element(e) if is_block(e.name())) {
                    out.push(' ');
                }
            }
        }
    }
    collapse_spaces(&out)
}

/// The most rows of one table read cell by cell; past it, rows are read as lines.
const MAX_TABLE_ROWS_BY_CELL: usize = 500;

/// A table as text a judge can read: its caption, then each row. A table of figures gives every
/// figure its row's label and its column's heading ("Southern population, 2022 territories:
/// 640."), so that a figure is read with what it is a figure of, as a sentence of prose would
/// give it; a row without such labels is its cells joined by " | ".
fn table_text(table: ElementRef<'_>) -> String {
    let cell_selector = |name: &str| name == "td" || name == "th";
    let mut rows: Vec<(bool, Vec<String>)> = Vec::new();
    for row in table
        .descendent_elements()
        .filter(|e| e.value().name() == "tr")
    {
        let cells: Vec<(bool, String)> = row
            .children()
            .filter_map(ElementRef::wrap)
            .filter(|c| cell_selector(c.value().name()))
            .map(|c| (c.value().name() == "th", visible_text(c)))
            .collect();
        if cells.is_empty() {
            continue;
        }
        let in_head = row
            .ancestors()
            .filter_map(ElementRef::wrap)
            .take_while(|a| a.value().name() != "table")
            .any(|a| a.value().name() == "thead");
        let all_heads = cells.iter().all(|(th, _)| *th);
        rows.push((
            in_head || all_heads,
            cells.into_iter().map(|(_, t)| t).collect(),
        ));
    }
    let mut out = Vec::new();
    if let Some(caption) = table
        .children()
        .filter_map(ElementRef::wrap)
        .find(|c| c.value().name() == "caption")
    {
        let caption = visible_text(caption);
        if !caption.is_empty() {
            out.push(caption);
        }
    }
    let header: Option<Vec<String>> = rows
        .iter()
        .find(|(head, _)| *head)
        .map(|(_, cells)| cells.clone());
    let by_cell = rows.len() <= MAX_TABLE_ROWS_BY_CELL;
    for (head, cells) in &rows {
        if *head {
            continue;
        }
        table_row_text(header.as_deref(), cells, by_cell, &mut out);
    }
    out.join("\n\n")
}

/// One body row of a table as text, pushed to `out`: a sentence per figure cell with the row's
/// label and the column's heading ("Southern population, 2022 territories: 640."), or, for a row
/// without figures, without a label and a header, or when `by_cell` is false (a table too long to
/// read cell by cell), its cells joined by " | ". `header` holds the column headings, aligned with
/// `cells`. HTML tables and the tables recovered from a PDF's layout are written by this one
/// function, so that a figure reads the same from either.
pub(crate) fn table_row_text(
    header: Option<&[String]>,
    cells: &[String],
    by_cell: bool,
    out: &mut Vec<String>,
) {
    let has_digit = |t: &str| t.chars().any(|c| c.is_ascii_digit());
    let label = cells.first().filter(|c| !c.is_empty() && !has_digit(c));
    let figures = cells.iter().skip(1).any(|c| has_digit(c));
    if !by_cell || !figures || (label.is_none() && header.is_none()) {
        let line = cells
            .iter()
            .filter(|c| !c.is_empty())
            .cloned()
            .collect::<Vec<_>>()
            .join(" | ");
        if !line.is_empty() {
            out.push(line);
        }
        return;
    }
    let first = usize::from(label.is_some());
    for (i, cell) in cells.iter().enumerate().skip(first) {
        if cell.is_empty() {
            continue;
        }
        let heading = header.and_then(|h| h.get(i)).filter(|h| !h.is_empty());
        let sentence = match (label, heading) {
            (Some(l), Some(h)) => format!("{l}, {h}: {cell}."),
            (Some(l), None) => format!("{l}: {cell}."),
            (None, Some(h)) => format!("{h}: {cell}."),
            (None, None) => format!("{cell}."),
        };
        out.push(sentence);
    }
}

/// The most reviews read from one page; a fact-check page carries one or a few.
const MAX_REVIEWS: usize = 16;
/// How deep a JSON-LD document is searched for reviews.
const MAX_JSON_DEPTH: usize = 12;

/// The `ClaimReview`s of a parsed page: from every `<script type="application/ld+json">` block
/// (an object, an array, an `@graph`, or a review nested in another item), then from microdata
/// (`itemscope itemtype=".../ClaimReview"`). Blocks that are not valid JSON are skipped.
pub fn claim_reviews(document: &Html) -> Vec<ClaimReview> {
    let mut out = Vec::new();
    if let Ok(scripts) = Selector::parse("script[type]") {
        for script in document.select(&scripts) {
            let kind = script
                .attr("type")
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            if kind != "application/ld+json" {
                continue;
            }
            let raw: String = script.text().collect();
            // Some publishers wrap the block in an HTML comment.
            let json = raw
                .trim()
                .trim_start_matches("<!--")
                .trim_end_matches("-->")
                .trim();
            if let Ok(value) = serde_json::from_str::<Value>(json) {
                json_reviews(&value, 0, &mut out);
            }
        }
    }
    if let Ok(scopes) = Selector::parse("[itemscope][itemtype]") {
        for scope in document.select(&scopes) {
            if out.len() >= MAX_REVIEWS {
                break;
            }
            if is_schema_type(scope.attr("itemtype").unwrap_or(""), "ClaimReview") {
                out.extend(microdata_review(scope));
            }
        }
    }
    out.truncate(MAX_REVIEWS);
    out
}

/// Whether a schema.org type name or URL ("ClaimReview", "schema:ClaimReview",
/// "https://schema.org/ClaimReview") names `wanted`.
fn is_schema_type(written: &str, wanted: &str) -> bool {
    written.split_whitespace().any(|t| {
        let t = t.trim_end_matches('/');
        let name = t.rsplit(['/', ':', '#']).next().unwrap_or(t);
        name.eq_ignore_ascii_case(wanted)
    })
}

fn json_type_is(object: &serde_json::Map<String, Value>, wanted: &str) -> bool {
    match object.get("@type") {
        Some(Value::String(t)) => is_schema_type(t, wanted),
        Some(Value::Array(types)) => types
            .iter()
            .any(|t| t.as_str().is_some_and(|t| is_schema_type(t, wanted))),
        _ => false,
    }
}

fn json_reviews(value: &Value, depth: usize, out: &mut Vec<ClaimReview>) {
    if depth > MAX_JSON_DEPTH || out.len() >= MAX_REVIEWS {
        return;
    }
    match value {
        Value::Array(items) => {
            for item in items {
                json_reviews(item, depth + 1, out);
            }
        }
        Value::Object(object) => {
            if json_type_is(object, "ClaimReview")
                && let Some(review) = json_review(object)
            {
                out.push(review);
            }
            for (key, child) in object {
                if key != "reviewRating" {
                    json_reviews(child, depth + 1, out);
                }
            }
        }
        _ => {}
    }
}

/// A JSON value as text: a string as is, a number written out.
fn json_text(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) => Some(s.trim().to_owned()).filter(|s| !s.is_empty()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn json_review(object: &serde_json::Map<String, Value>) -> Option<ClaimReview> {
    // `claimReviewed` is the claim; older markup names it in `itemReviewed`.
    let claim = json_text(object.get("claimReviewed")).or_else(|| {
        let item = object.get("itemReviewed")?.as_object()?;
        json_text(item.get("text")).or_else(|| json_text(item.get("name")))
    })?;
    let rating = object.get("reviewRating").and_then(|r| match r {
        Value::Array(items) => items.first().and_then(Value::as_object),
        other => other.as_object(),
    });
    let field = |name: &str| rating.and_then(|r| json_text(r.get(name)));
    Some(ClaimReview {
        claim_reviewed: claim,
        rating_name: field("alternateName").or_else(|| field("name")),
        rating_value: field("ratingValue"),
        best_rating: field("bestRating"),
        worst_rating: field("worstRating"),
    })
}

/// The nearest element above `element` that opens an item scope.
fn owning_scope(element: ElementRef<'_>) -> Option<ego_tree::NodeId> {
    element
        .ancestors()
        .find(|n| {
            n.value()
                .as_element()
                .is_some_and(|e| e.attr("itemscope").is_some())
        })
        .map(|n| n.id())
}

/// The value of property `name` of the item `scope`: the `content` attribute, else the text.
fn microdata_prop(scope: ElementRef<'_>, name: &str) -> Option<String> {
    microdata_element(scope, name).and_then(|el| {
        el.attr("content")
            .map(str::to_owned)
            .or_else(|| Some(collapse_spaces(&el.text().collect::<String>())))
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    })
}

/// The element carrying property `name` of the item `scope` (not of an item nested in it).
fn microdata_element<'a>(scope: ElementRef<'a>, name: &str) -> Option<ElementRef<'a>> {
    scope
        .descendants()
        .filter_map(ElementRef::wrap)
        .filter(|el| el.id() != scope.id())
        .find(|el| {
            el.attr("itemprop")
                .is_some_and(|p| p.split_whitespace().any(|p| p == name))
                && owning_scope(*el) == Some(scope.id())
        })
}

fn microdata_review(scope: ElementRef<'_>) -> Option<ClaimReview> {
    let claim = microdata_prop(scope, "claimReviewed").or_else(|| {
        let item = microdata_element(scope, "itemReviewed")?;
        microdata_prop(item, "text").or_else(|| microdata_prop(item, "name"))
    })?;
    let rating = microdata_element(scope, "reviewRating");
    let field = |name: &str| rating.and_then(|r| microdata_prop(r, name));
    Some(ClaimReview {
        claim_reviewed: claim,
        rating_name: field("alternateName").or_else(|| field("name")),
        rating_value: field("ratingValue"),
        best_rating: field("bestRating"),
        worst_rating: field("worstRating"),
    })
}

/// Ends a block: a blank line, unless the text starts there or one ends it already (tidying
/// keeps one blank line between blocks, however many there were).
fn push_break(out: &mut String) {
    if !out.is_empty() && !out.ends_with("\n\n") {
        out.push_str("\n\n");
    }
}

pub(crate) fn collapse_spaces(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Collapses spaces within lines and keeps at most one blank line between blocks.
fn tidy(raw: &str) -> String {
    let mut text = String::with_capacity(raw.len());
    let mut blank = false;
    for line in raw.lines().map(collapse_spaces) {
        if line.is_empty() {
            blank = !text.is_empty();
            continue;
        }
        if blank {
            text.push_str("\n\n");
        } else if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&line);
        blank = false;
    }
    text
}

static PAYWALL_MARKUP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)"isAccessibleForFree"\s*:\s*"?false|\b(?:class|id)\s*=\s*["'][^"']*\b(?:paywall|subscriber-only|premium-wall|regwall)\b"#,
    )
    .expect("valid regex")
});

/// Phrases, lower-case, that only a paywalled page shows instead of the article.
pub(crate) const PAYWALL_PHRASES: &[&str] = &[
    "subscribe to continue reading",
    "subscribe to read the full article",
    "this article is for subscribers only",
    "this content is for subscribers only",
    "to continue reading, please subscribe",
    "you have reached your limit of free articles",
    "you've reached your limit of free articles",
];

/// The paywall marker in a page, if any. Markers, chosen to be specific to paywalls:
/// - schema.org's `"isAccessibleForFree": false`, the markup publishers use to tell search
///   engines an article is paywalled;
/// - a `class` or `id` with the word `paywall`, `subscriber-only`, `premium-wall` or `regwall`;
/// - one of [`PAYWALL_PHRASES`] in the visible text.
pub fn paywall_marker(html: Option<&str>, text: &str) -> Option<String> {
    if let Some(found) = html.and_then(|h| PAYWALL_MARKUP.find(h)) {
        return Some(found.as_str().to_owned());
    }
    let lower = text.to_lowercase();
    PAYWALL_PHRASES
        .iter()
        .find(|p| lower.contains(*p))
        .map(|p| (*p).to_owned())
}

/// What a page served as a success, yet not the cited source, is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotASourceKind {
    /// A "page not found" (or other error) page served with 200 OK: a soft 404.
    ErrorPage,
    /// A site search's results, which repeat the words searched for.
    SearchResults,
}

/// A page that reads as an error page or a site search's results, with what gave it away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotASource {
    pub kind: NotASourceKind,
    /// The marker: the title or heading as written, `noindex`, the schema.org type, the query.
    pub marker: String,
}

/// Whether a fetched page, served as a success, is not a source at all: an error page (a soft
/// 404) or a site search's results. Either way the citation does not lead to what it cites, and
/// reading one as the source could pass a claim on words the page only repeats.
///
/// Markers, language-neutral where they can be:
/// - an error page: a title segment or the first heading that is a status code
///   ("404", "Error 404", "HTTP 410"), or a status code or nothing beside a not-found phrase in
///   one of several languages ("Page not found", "Seite nicht gefunden", "404 – Página no
///   encontrada"); or `noindex` with such a phrase opening the text;
/// - a search page: schema.org's `SearchResultsPage`; a title segment or heading that opens with
///   a search-results phrase ("Search results for …", "Résultats de recherche"); or a search
///   query in the URL (`?q=`, `?s=`, `?query=` …) echoed by the title, a heading or the
///   text's opening, on a page at a search path (`/search`, `/suche` …), marked `noindex`, or
///   with a search box holding the query.
///
/// `url` is the page's final URL; `html` its markup, as parsed into `document`.
pub fn not_a_source(document: &Html, page: &HtmlText, url: &str) -> Option<NotASource> {
    let headings = first_headings(document);
    let noindex = has_noindex(document);
    let segments = heading_segments(page, &headings);
    let opening: String = page.text.chars().take(OPENING_CHARS).collect();
    let found = |kind, marker: String| Some(NotASource { kind, marker });

    if let Some(segment) = segments.iter().find(|s| is_error_heading(s, noindex)) {
        return found(NotASourceKind::ErrorPage, (*segment).to_owned());
    }
    if noindex && let Some(phrase) = contains_phrase(&opening, PAGE_NOT_FOUND_PHRASES) {
        return found(NotASourceKind::ErrorPage, format!("noindex, \"{phrase}\""));
    }
    if has_schema_type(document, "SearchResultsPage") {
        return found(
            NotASourceKind::SearchResults,
            "schema.org SearchResultsPage".to_owned(),
        );
    }
    if let Some(segment) = segments.iter().find(|s| is_search_heading(s)) {
        return found(NotASourceKind::SearchResults, (*segment).to_owned());
    }
    let query = search_query(url)?;
    let lower = |s: &str| s.to_lowercase();
    let echoed =
        segments.iter().any(|s| lower(s).contains(&query)) || lower(&opening).contains(&query);
    let search_path = url::Url::parse(url).is_ok_and(|u| {
        u.path_segments()
            .into_iter()
            .flatten()
            .any(|segment| SEARCH_PATHS.contains(&segment.to_lowercase().as_str()))
    });
    if echoed && (search_path || noindex || has_search_box_with(document, &query)) {
        return found(
            NotASourceKind::SearchResults,
            format!("search for \"{query}\""),
        );
    }
    None
}

/// Characters of a page's text read as its opening.
const OPENING_CHARS: usize = 300;

/// Phrases, lower-case, that say a page was not found, in the languages most newsrooms cite.
const NOT_FOUND_PHRASES: &[&str] = &[
    "page not found",
    "not found",
    "file not found",
    "page cannot be found",
    "page could not be found",
    "page can't be found",
    "page can’t be found",
    "the page you requested could not be found",
    "we can't find that page",
    "we couldn't find that page",
    "this page doesn't exist",
    "page does not exist",
    "page no longer exists",
    "no longer available",
    "content not found",
    "article not found",
    "internal server error",
    "service unavailable",
    "seite nicht gefunden",
    "nicht gefunden",
    "die seite wurde nicht gefunden",
    "page introuvable",
    "page non trouvée",
    "page inexistante",
    "introuvable",
    "página no encontrada",
    "no encontrada",
    "página não encontrada",
    "pagina non trovata",
    "pagina niet gevonden",
    "niet gevonden",
    "nie znaleziono strony",
    "strona nie została znaleziona",
    "страница не найдена",
    "sayfa bulunamadı",
    "sidan hittades inte",
    "siden blev ikke fundet",
    "ページが見つかりません",
    "お探しのページは見つかりませんでした",
    "页面不存在",
    "找不到页面",
    "页面未找到",
    "找不到網頁",
    "페이지를 찾을 수 없습니다",
];

/// The phrases of [`NOT_FOUND_PHRASES`] that name the page itself: found in a `noindex` page's
/// opening text they mark an error page, where "not found" alone could be a court report's.
const PAGE_NOT_FOUND_PHRASES: &[&str] = &[
    "page not found",
    "file not found",
    "page cannot be found",
    "page could not be found",
    "page can't be found",
    "page can’t be found",
    "we can't find that page",
    "we couldn't find that page",
    "this page doesn't exist",
    "page does not exist",
    "page no longer exists",
    "seite nicht gefunden",
    "die seite wurde nicht gefunden",
    "page introuvable",
    "page non trouvée",
    "página no encontrada",
    "página não encontrada",
    "pagina non trovata",
    "pagina niet gevonden",
    "nie znaleziono strony",
    "страница не найдена",
    "sayfa bulunamadı",
    "sidan hittades inte",
    "ページが見つかりません",
    "找不到页面",
    "页面不存在",
    "페이지를 찾을 수 없습니다",
];

/// Words that name an error beside a status code ("Error 404", "Fehler 404").
const ERROR_WORDS: &[&str] = &[
    "error",
    "http",
    "fehler",
    "erreur",
    "errore",
    "erro",
    "fout",
    "błąd",
    "ошибка",
    "hata",
    "エラー",
    "错误",
    "錯誤",
    "오류",
    "oops",
];

/// Phrases, lower-case, that open a search-results heading.
const SEARCH_PHRASES: &[&str] = &[
    "search results",
    "search result",
    "results for",
    "you searched for",
    "suchergebnisse",
    "ergebnisse für",
    "résultats de recherche",
    "résultats de la recherche",
    "résultats pour",
    "resultados de búsqueda",
    "resultados de la búsqueda",
    "resultados da pesquisa",
    "resultados da busca",
    "risultati della ricerca",
    "risultati di ricerca",
    "risultati per",
    "zoekresultaten",
    "wyniki wyszukiwania",
    "результаты поиска",
    "sökresultat",
    "arama sonuçları",
    "検索結果",
    "搜索结果",
    "搜尋結果",
    "검색 결과",
];

/// URL path segments of a site search.
const SEARCH_PATHS: &[&str] = &[
    "search",
    "suche",
    "recherche",
    "buscar",
    "busca",
    "cerca",
    "ricerca",
    "zoeken",
    "szukaj",
    "poisk",
    "sok",
    "arama",
    "s",
];

/// URL query parameters that carry a site search's terms.
const QUERY_PARAMETERS: &[&str] = &[
    "q",
    "s",
    "query",
    "search",
    "search_query",
    "searchterm",
    "keyword",
    "keywords",
    "term",
    "terms",
    "text",
    "k",
    "qs",
];

/// What a page says it is: its title's segments, then its first headings (`headings`, from
/// [`first_headings`]), which error, search and interstitial pages name themselves by.
pub(crate) fn heading_segments<'a>(page: &'a HtmlText, headings: &'a [String]) -> Vec<&'a str> {
    page.title
        .as_deref()
        .map(title_segments)
        .unwrap_or_default()
        .into_iter()
        .chain(headings.iter().map(String::as_str))
        .collect()
}

/// A title's segments: a title names the page, then the site, split by a separator
/// ("Page not found | The Gazette"). A colon does not split: "Not found: a history of…" is a
/// title, not a status.
pub(crate) fn title_segments(title: &str) -> Vec<&str> {
    let mut segments = vec![title];
    for separator in [" | ", " - ", " – ", " — ", " · ", " :: ", " » ", " • "] {
        segments = segments
            .into_iter()
            .flat_map(|s| s.split(separator))
            .collect();
    }
    segments
        .into_iter()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// The text of the page's first `<h1>`s (or, without any, its first `<h2>`), as a reader sees
/// them.
pub(crate) fn first_headings(document: &Html) -> Vec<String> {
    let read = |selector: &str| -> Vec<String> {
        Selector::parse(selector)
            .map(|sel| {
                document
                    .select(&sel)
                    .take(2)
                    .map(|h| collapse_spaces(&h.text().collect::<String>()))
                    .filter(|h| !h.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    };
    let h1 = read("h1");
    if h1.is_empty() { read("h2") } else { h1 }
}

/// Whether the page asks search engines not to index it (`<meta name="robots"
/// content="noindex">`), as error and search pages do.
fn has_noindex(document: &Html) -> bool {
    let Ok(selector) = Selector::parse("meta[name][content]") else {
        return false;
    };
    document.select(&selector).any(|meta| {
        let name = meta.attr("name").unwrap_or("").to_ascii_lowercase();
        (name == "robots" || name == "googlebot")
            && meta
                .attr("content")
                .unwrap_or("")
                .to_ascii_lowercase()
                .contains("noindex")
    })
}

/// Words of `s`, lower-case, with the punctuation around each removed.
pub(crate) fn words(s: &str) -> Vec<String> {
    s.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether a title segment or heading is an error page's: a 4xx/5xx status code and error
/// words ("404", "Error 404"), with or without a not-found phrase ("404 Not Found"), or a
/// not-found phrase alone ("Seite nicht gefunden"). An error word alone ("Error", "Oops")
/// counts on a `noindex` page only.
fn is_error_heading(segment: &str, noindex: bool) -> bool {
    let words = words(segment);
    let is_status = |w: &str| {
        w.len() == 3
            && matches!(w.as_bytes()[0], b'4' | b'5')
            && w.bytes().all(|b| b.is_ascii_digit())
    };
    let status = words.iter().any(|w| is_status(w));
    let error_word = words.iter().any(|w| ERROR_WORDS.contains(&w.as_str()));
    let rest: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| !is_status(w) && !ERROR_WORDS.contains(w))
        .collect();
    if rest.is_empty() {
        return status || (error_word && noindex);
    }
    let rest = rest.join(" ");
    NOT_FOUND_PHRASES
        .iter()
        .any(|p| rest == *p || rest == format!("sorry {p}"))
        || ((status || error_word)
            && rest.chars().count() <= 60
            && contains_phrase(&rest, NOT_FOUND_PHRASES).is_some())
}

/// Whether a title segment or heading opens with a search-results phrase followed by nothing, a
/// colon, a quote or the words searched for ("Search results for …").
fn is_search_heading(segment: &str) -> bool {
    let lower = segment.trim().to_lowercase();
    SEARCH_PHRASES.iter().any(|phrase| {
        let Some(rest) = lower.strip_prefix(phrase) else {
            return false;
        };
        let rest = rest.trim_start();
        // "Search results show…" is a sentence; "Search results for …", a heading.
        rest.is_empty()
            || rest.starts_with([':', '"', '\'', '«', '„', '“', '‘', '「', '(', '…'])
            || ["for ", "for:", "für ", "pour ", "para ", "per ", "voor "]
                .iter()
                .any(|w| rest.starts_with(w) && !phrase.ends_with(w.trim_end_matches([' ', ':'])))
    })
}

/// The first of `phrases` that `text` holds, compared in lower case.
fn contains_phrase(text: &str, phrases: &'static [&'static str]) -> Option<&'static str> {
    let lower = text.to_lowercase();
    phrases.iter().find(|p| lower.contains(*p)).copied()
}

/// Whether the page declares the schema.org type `wanted` (JSON-LD `@type` or microdata
/// `itemtype`).
fn has_schema_type(document: &Html, wanted: &str) -> bool {
    if let Ok(scopes) = Selector::parse("[itemtype]")
        && document
            .select(&scopes)
            .any(|s| is_schema_type(s.attr("itemtype").unwrap_or(""), wanted))
    {
        return true;
    }
    let Ok(scripts) = Selector::parse("script[type]") else {
        return false;
    };
    document.select(&scripts).any(|script| {
        let kind = script
            .attr("type")
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        kind == "application/ld+json"
            && serde_json::from_str::<Value>(script.text().collect::<String>().trim())
                .is_ok_and(|value| json_has_type(&value, wanted, 0))
    })
}

fn json_has_type(value: &Value, wanted: &str, depth: usize) -> bool {
    if depth > MAX_JSON_DEPTH {
        return false;
    }
    match value {
        Value::Array(items) => items.iter().any(|v| json_has_type(v, wanted, depth + 1)),
        Value::Object(object) => {
            json_type_is(object, wanted)
                || object
                    .get("@graph")
                    .is_some_and(|g| json_has_type(g, wanted, depth + 1))
        }
        _ => false,
    }
}

/// The search terms of a URL's query, lower-case, when it carries any: the value of the first
/// search parameter (`q`, `s`, `query` …) that holds a word.
fn search_query(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    url.query_pairs().find_map(|(name, value)| {
        let value = collapse_spaces(&value).to_lowercase();
        // A query of a letter or two is echoed by any page.
        (QUERY_PARAMETERS.contains(&name.to_ascii_lowercase().as_str())
            && value.chars().filter(|c| c.is_alphanumeric()).count() >= 3)
            .then_some(value)
    })
}

/// Whether a search box on the page holds `query`, as a results page's does.
fn has_search_box_with(document: &Html, query: &str) -> bool {
    let Ok(inputs) = Selector::parse("input[value]") else {
        return false;
    };
    document.select(&inputs).any(|input| {
        let searchy = input
            .attr("type")
            .is_some_and(|t| t.eq_ignore_ascii_case("search"))
            || input
                .attr("name")
                .is_some_and(|n| QUERY_PARAMETERS.contains(&n.to_ascii_lowercase().as_str()));
        searchy && collapse_spaces(input.attr("value").unwrap_or("")).to_lowercase() == query
    })
}

/// Most words of visible text an application shell shows: a site name, "Loading…", a
/// cookie line. A page that says more is read, whatever scripts it also runs.
const MAX_SHELL_WORDS: usize = 40;
/// Most words beside an empty application root (`<div id="root">`): a heading or a site name.
const MAX_WORDS_BESIDE_ROOT: usize = 12;

/// The ids single-page applications mount their text into: React, Vue, Next, Nuxt, Gatsby,
/// Angular, Svelte and Ember starters.
const APP_ROOT_IDS: &[&str] = &[
    "root",
    "app",
    "__next",
    "__nuxt",
    "___gatsby",
    "app-root",
    "svelte",
    "ember-app",
    "main-app",
];

/// What a page says, lower-case and without punctuation, when it is only waiting for its
/// scripts.
const PLACEHOLDER_TEXTS: &[&str] = &[
    "loading",
    "loading please wait",
    "please wait",
    "please wait loading",
    "just a moment",
    "one moment please",
    "loading content",
    "loading page",
    "chargement",
    "wird geladen",
    "cargando",
];

/// Phrases, lower-case, that ask a reader to turn scripts on.
const ENABLE_SCRIPT_PHRASES: &[&str] = &[
    "enable javascript",
    "javascript is required",
    "javascript is disabled",
    "javascript must be enabled",
    "requires javascript",
    "turn on javascript",
    "need javascript",
    "javascript to run this app",
    "javascript aktivieren",
    "activer javascript",
    "activez javascript",
    "habilita javascript",
];

/// Whether a page served as a success is an application shell whose text its scripts render:
/// what a reader would see after running them is not in the markup, so the page cannot be read
/// as a source, and reading it would find the claim "not stated" by a page that says nothing.
/// Returns what gave it away.
///
/// A shell says almost nothing ([`MAX_SHELL_WORDS`]) and shows one of: no visible text at all;
/// a `<noscript>` or visible message asking for JavaScript; a placeholder ("Loading…") with a
/// script to replace it; an empty application root (`<div id="root">`) with a script, beside
/// a few words without a figure ([`MAX_WORDS_BESIDE_ROOT`]).
pub fn script_rendered(document: &Html, page: &HtmlText) -> Option<String> {
    let said = words(&page.text);
    if said.len() > MAX_SHELL_WORDS {
        return None;
    }
    let noscript: String = Selector::parse("noscript")
        .map(|sel| {
            document
                .select(&sel)
                .flat_map(|n| n.text())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    if let Some(phrase) =
        contains_phrase(&format!("{noscript} {}", page.text), ENABLE_SCRIPT_PHRASES)
    {
        return Some(format!("\"{phrase}\""));
    }
    if said.is_empty() {
        return Some("no visible text".to_owned());
    }
    let has_script =
        Selector::parse("script").is_ok_and(|sel| document.select(&sel).next().is_some());
    if !has_script {
        return None;
    }
    let placeholder = said.join(" ");
    if PLACEHOLDER_TEXTS.contains(&placeholder.as_str()) {
        return Some(format!("only \"{}\"", page.text.trim()));
    }
    // A site name or a heading beside the root states nothing; a figure would.
    let states_a_figure = page.text.chars().any(|c| c.is_ascii_digit());
    if said.len() <= MAX_WORDS_BESIDE_ROOT
        && !states_a_figure
        && let Some(id) = empty_app_root(document)
    {
        return Some(format!("an empty <div id=\"{id}\">"));
    }
    None
}

/// The id of an application root ([`APP_ROOT_IDS`]) with no text in it, if the page has one.
fn empty_app_root(document: &Html) -> Option<String> {
    let selector = Selector::parse("[id]").ok()?;
    document
        .select(&selector)
        .filter_map(|e| Some((e.attr("id")?, e)))
        .find(|(id, e)| {
            APP_ROOT_IDS.contains(&id.to_ascii_lowercase().as_str())
                && e.text().all(|t| t.trim().is_empty())
        })
        .map(|(id, _)| id.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_text_keeps_blocks_apart_and_drops_chrome() {
        let html = "<html><head><title> The  Report </title><style>p{}</style></head><body>\
            <header>Site header</header><nav>Home | About</nav>\
            <h1>Prices</h1><p>The plan costs $9/month.</p><p>It launched in 2021.<br>Line two</p>\
            <script>var x = 'hidden';</script><div hidden>secret</div>\
            <ul><li>one</li><li>two</li></ul><footer>Copyright</footer>\
            <dialog open><p>We use cookies.</p></dialog></body></html>";
        let page = html_to_text(html);
        assert_eq!(page.title.as_deref(), Some("The Report"));
        assert_eq!(
            page.text,
            "Prices\n\nThe plan costs $9/month.\n\nIt launched in 2021.\nLine two\n\none\n\ntwo"
        );
    }

    #[test]
    fn reading_stops_once_the_text_is_longer_than_its_limit() {
        let html = format!("<p>{}</p>", "word ".repeat(1000));
        let document = Html::parse_document(&html);
        let whole = document_to_text(&document);
        assert_eq!(whole.text.len(), 4999);
        assert_eq!(document_to_text_within(&document, 4999), Ok(whole));
        assert_eq!(
            document_to_text_within(&document, 4998),
            Err(TextTooLong { limit: 4998 })
        );
        // Blank space that tidying removes does not count.
        let spaced = Html::parse_document(&format!("<p>a{}b</p>", " ".repeat(100)));
        assert_eq!(
            document_to_text_within(&spaced, 3).map(|p| p.text),
            Ok("a b".to_owned())
        );
    }

    #[test]
    fn claim_reviews_are_read_from_json_ld_and_microdata() {
        let html = r#"<html><head>
            <script type="application/ld+json">{"@context":"https://schema.org","@graph":[
              {"@type":"WebPage"},
              {"@type":["ClaimReview"],"claimReviewed":"Cameras raised £3m",
               "reviewRating":{"@type":"Rating","ratingValue":1,"bestRating":"5","alternateName":"False"}}]}
            </script>
            <script type="application/ld+json">{ not json</script>
            <script type="text/javascript">{"@type":"ClaimReview","claimReviewed":"ignored"}</script>
            </head><body>
            <div itemscope itemtype="http://schema.org/ClaimReview">
              <span itemprop="claimReviewed">The library visits every village</span>
              <div itemprop="author" itemscope itemtype="https://schema.org/Organization">
                <span itemprop="name">Desk</span></div>
              <div itemprop="reviewRating" itemscope itemtype="https://schema.org/Rating">
                <meta itemprop="ratingValue" content="2"><meta itemprop="bestRating" content="6">
                <span itemprop="alternateName">Mostly false</span></div>
            </div></body></html>"#;
        let reviews = html_to_text(html).claim_reviews;
        assert_eq!(reviews.len(), 2, "{reviews:?}");
        assert_eq!(reviews[0].claim_reviewed, "Cameras raised £3m");
        assert_eq!(reviews[0].rating_name.as_deref(), Some("False"));
        assert_eq!(reviews[0].rating_value.as_deref(), Some("1"));
        assert_eq!(reviews[0].best_rating.as_deref(), Some("5"));
        assert_eq!(
            reviews[1].claim_reviewed,
            "The library visits every village"
        );
        assert_eq!(reviews[1].rating_name.as_deref(), Some("Mostly false"));
        assert_eq!(reviews[1].rating_value.as_deref(), Some("2"));
        assert_eq!(reviews[1].best_rating.as_deref(), Some("6"));
        assert!(
            html_to_text("<p>No markup here.</p>")
                .claim_reviews
                .is_empty()
        );
    }

    #[test]
    fn charset_comes_from_header_then_meta_then_utf8() {
        let latin = b"caf\xe9 \x80";
        assert_eq!(
            decode(latin, Some("windows-1252"), TextKind::Plain),
            "café €"
        );
        let meta = b"<meta charset=\"windows-1252\"><p>caf\xe9</p>";
        assert!(decode(meta, None, TextKind::Html).contains("café"));
        let http_equiv =
            b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\">caf\xe9";
        assert!(decode(http_equiv, None, TextKind::Html).contains("café"));
        assert_eq!(decode(b"ok \xff", None, TextKind::Plain), "ok \u{fffd}");
        assert_eq!(
            decode(
                "\u{feff}bom".as_bytes(),
                Some("windows-1252"),
                TextKind::Plain
            ),
            "bom"
        );
    }

    #[test]
    fn an_owned_body_decodes_as_a_borrowed_one() {
        for (body, charset, kind) in [
            (&b"<p>caf\xc3\xa9</p>"[..], None, TextKind::Html),
            (&b"caf\xe9"[..], Some("windows-1252"), TextKind::Plain),
            (
                &b"<meta charset=\"windows-1252\"><p>caf\xe9</p>"[..],
                None,
                TextKind::Html,
            ),
            (&b"\xef\xbb\xbfbom"[..], None, TextKind::Plain),
            (&b"ok \xff"[..], Some("utf-8"), TextKind::Plain),
        ] {
            assert_eq!(
                decode_owned(body.to_vec(), charset, kind),
                decode(body, charset, kind),
                "{body:?}"
            );
        }
    }

    #[test]
    fn content_type_parses() {
        assert_eq!(
            parse_content_type("Text/HTML; Charset=\"ISO-8859-1\""),
            ("text/html".to_owned(), Some("ISO-8859-1".to_owned()))
        );
        assert_eq!(text_kind("application/xhtml+xml"), Some(TextKind::Html));
        assert_eq!(text_kind("application/pdf"), None);
    }

    #[test]
    fn paywall_markers_are_found_and_plain_pages_pass() {
        assert!(paywall_marker(Some(r#"<div class="article paywall">"#), "").is_some());
        assert!(paywall_marker(Some(r#"{"isAccessibleForFree": "False"}"#), "").is_some());
        assert!(paywall_marker(None, "Subscribe to continue reading.").is_some());
        assert!(paywall_marker(Some("<p class=\"lede\">News</p>"), "News about walls").is_none());
    }

    /// What `not_a_source` makes of a page at `url`.
    fn kind_of(url: &str, html: &str) -> Option<NotASourceKind> {
        let document = Html::parse_document(html);
        let page = document_to_text(&document);
        not_a_source(&document, &page, url).map(|found| found.kind)
    }

    fn page(title: &str, head: &str, body: &str) -> String {
        format!("<html><head><title>{title}</title>{head}</head><body>{body}</body></html>")
    }

    const NOINDEX: &str = r#"<meta name="robots" content="noindex, follow">"#;

    #[test]
    fn error_pages_served_as_200_are_found_in_several_wordings_and_languages() {
        let url = "https://news.example/2024/05/report";
        for (title, head, body) in [
            (
                "Page not found – The Gazette",
                "",
                "<p>Try the search box.</p>",
            ),
            (
                "Seite nicht gefunden | Tagblatt",
                "",
                "<p>Zur Startseite.</p>",
            ),
            ("Página no encontrada", "", "<p>Volver al inicio.</p>"),
            // Language-neutral: the status code alone, in the title or the heading.
            ("404 | 新闻网", "", "<p>返回首页</p>"),
            (
                "Le Quotidien",
                "",
                "<h1>Erreur 404</h1><p>Retour à l'accueil.</p>",
            ),
            ("The Gazette", "", "<h1>404 Not Found</h1><p>nginx</p>"),
            (
                "The Gazette",
                "",
                "<h1>Oops! That page can’t be found.</h1>",
            ),
            // `noindex` and an error word or phrase: what the page says of itself.
            (
                "The Gazette",
                NOINDEX,
                "<h1>Error</h1><p>Something went wrong.</p>",
            ),
            (
                "Il Giornale",
                NOINDEX,
                "<p>Ci dispiace: pagina non trovata.</p>",
            ),
            ("ページが見つかりません", "", "<p>トップへ</p>"),
        ] {
            assert_eq!(
                kind_of(url, &page(title, head, body)),
                Some(NotASourceKind::ErrorPage),
                "{title} {body}"
            );
        }
    }

    #[test]
    fn search_result_pages_are_found_by_heading_schema_and_echoed_query() {
        for (url, title, head, body) in [
            (
                "https://news.example/?s=unemployment+rate",
                "Search results for “unemployment rate” | The Gazette",
                "",
                "<p>Unemployment rate falls to 4.2%</p>",
            ),
            (
                "https://journal.example/recherche",
                "Le Journal",
                "",
                "<h1>Résultats de recherche</h1><p>Le chômage baisse à 7,3 %</p>",
            ),
            // Language-neutral: schema.org's type, with no wording at all.
            (
                "https://news.example/find",
                "The Gazette",
                r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"SearchResultsPage"}</script>"#,
                "<p>Unemployment rate falls to 4.2%</p>",
            ),
            // The query in the URL, echoed by the heading, on a search path or a noindex page.
            (
                "https://zeitung.example/suche?q=Arbeitslosenquote",
                "Tagblatt",
                "",
                "<h1>12 Treffer zu „Arbeitslosenquote“</h1><p>Arbeitslosenquote sinkt</p>",
            ),
            (
                "https://news.example/find?query=jobless+claims",
                "The Gazette",
                NOINDEX,
                "<h2>jobless claims: 12 stories</h2><p>Jobless claims rise</p>",
            ),
        ] {
            assert_eq!(
                kind_of(url, &page(title, head, body)),
                Some(NotASourceKind::SearchResults),
                "{url} {title}"
            );
        }
    }

    #[test]
    fn articles_about_errors_and_searches_are_sources() {
        for (url, title, head, body) in [
            (
                "https://news.example/evacuation",
                "404 people evacuated as river floods | The Gazette",
                "",
                "<h1>404 people evacuated as river floods</h1><p>Rescuers said…</p>",
            ),
            (
                "https://news.example/links",
                "Page not found: why broken links cost retailers",
                "",
                "<h1>Page not found: why broken links cost retailers</h1><p>Shops lose…</p>",
            ),
            (
                "https://news.example/search-trends",
                "Search results show rising interest in heat pumps",
                "",
                "<h1>Search results show rising interest in heat pumps</h1>",
            ),
            (
                "https://news.example/court",
                "Court clears mayor",
                NOINDEX,
                "<h1>Court clears mayor</h1><p>The mayor was not found guilty.</p>",
            ),
            (
                // A tracking parameter that happens to be a word of the title.
                "https://news.example/story?s=mayor",
                "Court clears mayor",
                "",
                "<h1>Court clears mayor</h1><p>The mayor was cleared.</p>",
            ),
            (
                "https://news.example/results",
                "Results for the first quarter beat forecasts",
                "",
                "<h1>Results for the first quarter beat forecasts</h1>",
            ),
        ] {
            assert_eq!(kind_of(url, &page(title, head, body)), None, "{title}");
        }
    }

    #[test]
    fn application_shells_are_script_rendered_and_short_pages_are_not() {
        let shell = |html: &str| {
            let document = Html::parse_document(html);
            script_rendered(&document, &document_to_text(&document))
        };
        for (html, marker) in [
            (
                "<html><body><div id=\"root\"></div><script src=\"/app.js\"></script></body></html>",
                "no visible text",
            ),
            (
                "<html><body><noscript>You need to enable JavaScript to run this app.</noscript>\
                 <div id=\"root\"></div><script src=\"/main.js\"></script></body></html>",
                "\"enable javascript\"",
            ),
            (
                "<html><body><div id=\"app\"><p>Loading…</p></div>\
                 <script src=\"/app.js\"></script></body></html>",
                "only \"Loading…\"",
            ),
            (
                "<html><body><h1>Statistics portal</h1><div id=\"__next\"></div>\
                 <script>boot()</script></body></html>",
                "an empty <div id=\"__next\">",
            ),
        ] {
            assert_eq!(shell(html).as_deref(), Some(marker), "{html}");
        }
        // A short page that states something is read, scripts or not; so is a page that says
        // "Loading" without a script to replace it.
        for html in [
            "<html><body><p>The market reached $30 billion in 2024.</p>\
             <div id=\"root\"></div><script>x()</script></body></html>",
            "<html><body><p>Loading</p></body></html>",
        ] {
            assert_eq!(shell(html), None, "{html}");
        }
    }
}
