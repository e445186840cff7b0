//! The one table of HTML elements that the draft reader ([`super::document`]) and the page
//! reader ([`super::webpage`]) share, so the two cannot disagree about what an element is.
//!
//! Each reader then says, in one place, what it does with the classes where its purpose differs:
//! a draft's `<header>`, `<aside>` and `<footer>` are the article's own (read, the last two
//! marked as peripheral), while on a fetched page they are the site's chrome around the cited
//! content (dropped); code is never a draft's claim, while a page's `<pre>` may hold the figures
//! a claim cites (kept, its line breaks too).

/// What an HTML element is to a reader of prose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementClass {
    /// Never visible prose: metadata, scripts, styles, embedded objects, controls, navigation.
    Hidden,
    /// The furniture around a document's main content: `<header>`, `<footer>`, `<aside>`,
    /// `<dialog>`.
    Chrome,
    /// Code: `<pre>` blocks and inline `<code>`.
    Code,
    /// Ends the block before it and starts a new one.
    Block,
    /// Anything else: text runs on through it.
    Inline,
}

/// Elements whose content no reader sees as prose.
const HIDDEN: &[&str] = &[
    "head", "script", "style", "noscript", "template", "svg", "math", "iframe", "object", "embed",
    "button", "select", "form", "nav",
];

/// Elements around the main content. `<dialog>` is here, not hidden: on a fetched page it is a
/// cookie or sign-up banner, but a draft's open dialog shows its text, so a draft's claims in
/// one are read and checked.
const CHROME: &[&str] = &["header", "footer", "aside", "dialog"];

/// Elements that break text into blocks.
const BLOCKS: &[&str] = &[
    "body",
    "main",
    "article",
    "section",
    "div",
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "table",
    "caption",
    "thead",
    "tbody",
    "tfoot",
    "tr",
    "td",
    "th",
    "blockquote",
    "figure",
    "figcaption",
    "address",
    "details",
    "summary",
    "hr",
];

/// The class of the element named `name` (lower-case, as html5ever gives it).
pub fn class(name: &str) -> ElementClass {
    if HIDDEN.contains(&name) {
        ElementClass::Hidden
    } else if CHROME.contains(&name) {
        ElementClass::Chrome
    } else if name == "pre" || name == "code" {
        ElementClass::Code
    } else if BLOCKS.contains(&name) {
        ElementClass::Block
    } else {
        ElementClass::Inline
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_element_has_one_class() {
        for list in [HIDDEN, CHROME, BLOCKS] {
            for name in list {
                let in_lists = [HIDDEN, CHROME, BLOCKS]
                    .iter()
                    .filter(|l| l.contains(name))
                    .count();
                assert_eq!(in_lists, 1, "{name} is in {in_lists} lists");
            }
        }
        assert_eq!(class("script"), ElementClass::Hidden);
        assert_eq!(class("aside"), ElementClass::Chrome);
        assert_eq!(class("dialog"), ElementClass::Chrome);
        assert_eq!(class("pre"), ElementClass::Code);
        assert_eq!(class("li"), ElementClass::Block);
        assert_eq!(class("a"), ElementClass::Inline);
    }
}
