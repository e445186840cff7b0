//! Turning a response body into text: charset decoding, HTML to visible text, paywall markers.

use std::sync::LazyLock;

use ego_tree::iter::Edge;
use encoding_rs::{Encoding, UTF_8};
use regex::Regex;
use scraper::{Html, Node, Selector};

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
}

/// Elements whose content a reader does not see, or that is not the page's own content.
const DROPPED: &[&str] = &[
    "head", "script", "style", "noscript", "nav", "footer", "header", "aside", "form", "template",
    "iframe", "svg", "button", "select", "dialog",
];

/// Elements that start and end a block: their text must not run into the neighbours'.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "main",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "li",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "table",
    "tr",
    "td",
    "th",
    "thead",
    "tbody",
    "blockquote",
    "pre",
    "figure",
    "figcaption",
    "address",
    "hr",
    "details",
    "summary",
    "caption",
    "body",
];

/// Extracts the title and visible text of an HTML document.
pub fn html_to_text(html: &str) -> HtmlText {
    document_to_text(&Html::parse_document(html))
}

/// Extracts the title and visible text of a parsed HTML document (see
/// [`crate::markup::parse_html_cancellable`] for a parse bounded in time).
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
    for edge in document.tree.root().traverse() {
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Element(el) if skipping > 0 || is_dropped(el) => skipping += 1,
                _ if skipping > 0 => {}
                Node::Element(el) if el.name() == "br" => out.push('\n'),
                Node::Element(el) if BLOCKS.contains(&el.name()) => out.push_str("\n\n"),
                Node::Text(text) => out.push_str(text),
                _ => {}
            },
            Edge::Close(node) => match node.value() {
                Node::Element(_) if skipping > 0 => skipping -= 1,
                Node::Element(el) if BLOCKS.contains(&el.name()) => out.push_str("\n\n"),
                _ => {}
            },
        }
    }
    HtmlText {
        title,
        text: tidy(&out),
    }
}

fn is_dropped(el: &scraper::node::Element) -> bool {
    DROPPED.contains(&el.name()) || el.attr("hidden").is_some()
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
            <ul><li>one</li><li>two</li></ul><footer>Copyright</footer></body></html>";
        let page = html_to_text(html);
        assert_eq!(page.title.as_deref(), Some("The Report"));
        assert_eq!(
            page.text,
            "Prices\n\nThe plan costs $9/month.\n\nIt launched in 2021.\nLine two\n\none\n\ntwo"
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
