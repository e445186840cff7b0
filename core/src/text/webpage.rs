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
    let declared = header_charset
        .and_then(|label| Encoding::for_label(label.as_bytes()))
        .or_else(|| {
            (kind == TextKind::Html)
                .then(|| meta_charset(body))
                .flatten()
        });
    // `decode` sniffs a BOM itself and replaces malformed sequences.
    let (text, _, _) = declared.unwrap_or(UTF_8).decode(body);
    text.into_owned()
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
                    out.push_str("\n\n");
                }
                Node::Text(text) if preformatted > 0 => out.push_str(text),
                Node::Text(text) => out.extend(
                    text.chars()
                        .map(|c| if c.is_whitespace() { ' ' } else { c }),
                ),
                _ => {}
            },
            Edge::Close(node) => match node.value() {
                Node::Element(_) if skipping > 0 => skipping -= 1,
                Node::Element(el) if is_block(el.name()) => {
                    if el.name() == "pre" {
                        preformatted = preformatted.saturating_sub(1);
                    }
                    out.push_str("\n\n");
                }
                _ => {}
            },
        }
    }
    HtmlText {
        title,
        text: tidy(&out),
        claim_reviews: claim_reviews(document),
    }
}

/// The visible text of an element, whitespace collapsed, without what no reader sees.
fn visible_text(el: ElementRef<'_>) -> String {
    let mut out = String::new();
    let mut skipping = 0usize;
    for edge in el.traverse() {
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Element(e) if skipping > 0 || is_dropped(e) => skipping += 1,
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
    let has_digit = |t: &str| t.chars().any(|c| c.is_ascii_digit());
    let header: Option<Vec<String>> = rows
        .iter()
        .find(|(head, _)| *head)
        .map(|(_, cells)| cells.clone());
    let by_cell = rows.len() <= MAX_TABLE_ROWS_BY_CELL;
    for (head, cells) in &rows {
        if *head {
            continue;
        }
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
            continue;
        }
        let first = usize::from(label.is_some());
        for (i, cell) in cells.iter().enumerate().skip(first) {
            if cell.is_empty() {
                continue;
            }
            let heading = header
                .as_ref()
                .and_then(|h| h.get(i))
                .filter(|h| !h.is_empty());
            let sentence = match (label, heading) {
                (Some(l), Some(h)) => format!("{l}, {h}: {cell}."),
                (Some(l), None) => format!("{l}: {cell}."),
                (None, Some(h)) => format!("{h}: {cell}."),
                (None, None) => format!("{cell}."),
            };
            out.push(sentence);
        }
    }
    out.join("\n\n")
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

fn collapse_spaces(s: &str) -> String {
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
pub const PAYWALL_PHRASES: &[&str] = &[
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
}
