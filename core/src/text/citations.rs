//! Citation markers: finding the ones written in plain text, and resolving every marker to the
//! absolute http(s) URL a verifier can fetch.
//!
//! Only absolute `http`/`https` URLs are citations. A relative link, an in-page anchor that leads
//! to no reference, `mailto:` and other schemes cite nothing fetchable and are ignored.
//!
//! A numbered marker (`[2]`, `[2, 3]`, `[2-4]`) resolves against the article's numbered
//! reference list; a footnote marker (`[^1]`, or an HTML link to `#fn1`) against its footnote
//! definition. A marker whose entry is missing, or whose entry holds no URL, is *dangling*: it
//! backs nothing. A sentence whose only markers dangle is treated as unsourced (its author meant
//! to cite something the article does not contain), and does not borrow a neighbour's citation.

use crate::model::{Citation, CitationStyle};
use regex::Regex;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::LazyLock;

/// Where a citation marker points, before resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A link or URL; `href` may be relative or of another scheme (then it cites nothing).
    Url {
        href: String,
        style: CitationStyle,
        label: Option<String>,
    },
    /// `[2]`, `[2, 3]`, `[2-4]`.
    Numbered(Vec<u32>),
    /// `[^label]`.
    Footnote(String),
    /// An in-page link (`#fn1`) to an element whose id is the key.
    Anchor(String),
}

/// A citation marker in a block's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// Byte range in the block text: the link text for links, the marker itself otherwise.
    pub range: Range<usize>,
    pub target: Target,
}

/// What numbered and footnote markers resolve against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct References {
    /// Reference number → absolute URL.
    pub numbered: HashMap<u32, String>,
    /// Footnote label → absolute URL.
    pub footnotes: HashMap<String, String>,
    /// HTML element id → the first absolute URL inside it.
    pub anchors: HashMap<String, String>,
}

/// The longest number range a marker may expand to (`[1-40]`); longer ones are typos.
const MAX_RANGE: u32 = 50;

static NUMBERED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[(\d{1,4}(?:\s*[,;–—-]\s*\d{1,4})*)\]").expect("static regex"));
static FOOTNOTE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[\^([^\]\s]{1,40})\]").expect("static regex"));
/// A URL written out in text. Brackets end a URL in prose (`see http://a.example/x]`), except
/// around an IPv6 literal host right after the scheme (`http://[2001:db8::1]:8080/x`).
static BARE_URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"https?://(?:\[[0-9A-Fa-f:.]+\][^\s<>"'\[\]{}|\\^`“”‘’]*|[^\s<>"'\[\]{}|\\^`“”‘’]+)"#,
    )
    .expect("static regex")
});

/// Returns `raw` as an absolute http(s) URL, or `None` when it is not one.
pub(crate) fn absolute_http(raw: &str) -> Option<String> {
    let url = url::Url::parse(raw.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        return None;
    }
    Some(url.to_string())
}

/// Finds the markers written as plain text in `text`: numbered markers, footnote markers and
/// bare URLs. Matches that overlap a marker in `existing` (a link found by the parser) are
/// skipped, so a link whose text is a URL counts once.
pub(crate) fn scan_text(text: &str, existing: &[Marker]) -> Vec<Marker> {
    let taken = Taken::new(existing);
    let overlaps = |r: &Range<usize>| taken.overlaps(r);
    let mut found = Vec::new();
    for m in NUMBERED.find_iter(text) {
        let range = m.range();
        // `[2](url)` is a link and `[2]:` a definition, both handled by the parser.
        if overlaps(&range) || text[range.end..].starts_with('(') {
            continue;
        }
        let numbers = parse_numbers(&text[range.start + 1..range.end - 1]);
        if !numbers.is_empty() {
            found.push(Marker {
                range,
                target: Target::Numbered(numbers),
            });
        }
    }
    for c in FOOTNOTE.captures_iter(text) {
        let (Some(all), Some(label)) = (c.get(0), c.get(1)) else {
            continue;
        };
        if !overlaps(&all.range()) {
            found.push(Marker {
                range: all.range(),
                target: Target::Footnote(label.as_str().to_owned()),
            });
        }
    }
    for m in BARE_URL.find_iter(text) {
        let range = m.start()..m.start() + trim_url(m.as_str()).len();
        if !overlaps(&range) {
            found.push(Marker {
                range: range.clone(),
                target: Target::Url {
                    href: text[range].to_owned(),
                    style: CitationStyle::BareUrl,
                    label: None,
                },
            });
        }
    }
    found
}

/// The byte ranges the parser's markers cover, merged and sorted, so whether a match overlaps
/// one is a binary search: a block with thousands of links stays linear.
struct Taken(Vec<Range<usize>>);

impl Taken {
    fn new(markers: &[Marker]) -> Self {
        let mut ranges: Vec<Range<usize>> = markers.iter().map(|m| m.range.clone()).collect();
        ranges.sort_by_key(|r| r.start);
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
        for r in ranges {
            match merged.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => merged.push(r),
            }
        }
        Taken(merged)
    }

    /// Whether `r` shares a byte with a marker's range.
    fn overlaps(&self, r: &Range<usize>) -> bool {
        // The last range starting before `r` ends is the only one that can reach into it.
        let before = self.0.partition_point(|t| t.start < r.end);
        before > 0 && self.0[before - 1].end > r.start
    }
}

/// Drops the punctuation a sentence puts after a URL, keeping parentheses the URL balances
/// ("…/Rust_(language)").
fn trim_url(url: &str) -> &str {
    let mut end = url.len();
    loop {
        let s = &url[..end];
        let Some(last) = s.chars().last() else {
            return s;
        };
        let strip = match last {
            '.' | ',' | ';' | ':' | '!' | '?' | '*' | '_' => true,
            ')' => s.matches('(').count() < s.matches(')').count(),
            _ => false,
        };
        if !strip {
            return s;
        }
        end -= last.len_utf8();
    }
}

/// "2, 3" → [2, 3]; "2-4" → [2, 3, 4]. Empty when a range is reversed or absurdly long.
pub(crate) fn parse_numbers(inner: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for part in inner.split([',', ';']) {
        let bounds: Vec<u32> = part
            .split(['-', '–', '—'])
            .filter_map(|n| n.trim().parse().ok())
            .collect();
        match bounds.as_slice() {
            [n] => out.push(*n),
            [a, b] if a <= b && b - a < MAX_RANGE => out.extend(*a..=*b),
            _ => return Vec::new(),
        }
    }
    out
}

/// What one marker resolves to.
pub enum Resolved {
    /// Fetchable citations (one marker may name several references).
    Cites(Vec<Citation>),
    /// A numbered or footnote marker with no usable entry; the text is the marker as written.
    Dangling(String),
    /// Not a citation at all (a relative link, `mailto:`, an in-page anchor).
    Ignored,
}

/// Resolves one marker of a block whose text is `text`.
pub fn resolve(marker: &Marker, text: &str, refs: &References) -> Resolved {
    let written = || {
        text.get(marker.range.clone())
            .unwrap_or("")
            .trim()
            .to_owned()
    };
    match &marker.target {
        Target::Url { href, style, label } => match absolute_http(href) {
            Some(url) => {
                let label = label.clone().or_else(|| {
                    let t = written();
                    (!t.is_empty() && *style != CitationStyle::BareUrl).then_some(t)
                });
                Resolved::Cites(vec![Citation {
                    url,
                    style: *style,
                    label,
                    paragraph: None,
                }])
            }
            None => Resolved::Ignored,
        },
        Target::Numbered(numbers) => {
            let cites: Vec<Citation> = numbers
                .iter()
                .filter_map(|n| {
                    refs.numbered.get(n).map(|url| Citation {
                        url: url.clone(),
                        style: CitationStyle::NumberedReference,
                        label: Some(n.to_string()),
                        paragraph: None,
                    })
                })
                .collect();
            if cites.is_empty() {
                Resolved::Dangling(written())
            } else {
                Resolved::Cites(cites)
            }
        }
        Target::Footnote(label) => match refs.footnotes.get(label) {
            Some(url) => Resolved::Cites(vec![Citation {
                url: url.clone(),
                style: CitationStyle::Footnote,
                label: Some(label.clone()),
                paragraph: None,
            }]),
            None => Resolved::Dangling(written()),
        },
        Target::Anchor(id) => match refs.anchors.get(id) {
            Some(url) => Resolved::Cites(vec![Citation {
                url: url.clone(),
                style: CitationStyle::Footnote,
                label: Some(written()).filter(|t| !t.is_empty()),
                paragraph: None,
            }]),
            // An in-page link to something that is no reference ("#top") cites nothing.
            None => Resolved::Ignored,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_absolute_http_urls_are_citations() {
        assert_eq!(
            absolute_http("https://example.com/a?b=1").as_deref(),
            Some("https://example.com/a?b=1")
        );
        assert_eq!(
            absolute_http("http://example.com").as_deref(),
            Some("http://example.com/")
        );
        assert_eq!(absolute_http("/relative/path"), None);
        assert_eq!(absolute_http("#fn1"), None);
        assert_eq!(absolute_http("mailto:desk@example.com"), None);
        assert_eq!(absolute_http("ftp://example.com/file"), None);
        assert_eq!(absolute_http("javascript:alert(1)"), None);
    }

    #[test]
    fn parses_marker_numbers_lists_and_ranges() {
        assert_eq!(parse_numbers("2"), vec![2]);
        assert_eq!(parse_numbers("2, 3"), vec![2, 3]);
        assert_eq!(parse_numbers("2-4"), vec![2, 3, 4]);
        assert_eq!(parse_numbers("1, 3–5"), vec![1, 3, 4, 5]);
        assert_eq!(parse_numbers("4-2"), Vec::<u32>::new());
        assert_eq!(parse_numbers("1-9999"), Vec::<u32>::new());
    }

    #[test]
    fn scans_numbered_footnote_and_bare_url_markers() {
        let text =
            "Gains doubled [2]. Costs fell [3, 4]. See [^src] and https://example.com/report.";
        let markers = scan_text(text, &[]);
        let numbered: Vec<&Vec<u32>> = markers
            .iter()
            .filter_map(|m| match &m.target {
                Target::Numbered(n) => Some(n),
                _ => None,
            })
            .collect();
        assert_eq!(numbered, vec![&vec![2], &vec![3, 4]]);
        assert!(
            markers
                .iter()
                .any(|m| matches!(&m.target, Target::Footnote(l) if l == "src"))
        );
        let url = markers
            .iter()
            .find_map(|m| match &m.target {
                Target::Url { href, .. } => Some(href.as_str()),
                _ => None,
            })
            .expect("bare URL found");
        assert_eq!(
            url, "https://example.com/report",
            "the full stop is not part of it"
        );
    }

    #[test]
    fn bare_urls_keep_balanced_parentheses() {
        let text = "(see https://en.wikipedia.org/wiki/Rust_(language)).";
        let m = scan_text(text, &[]);
        assert_eq!(
            &text[m[0].range.clone()],
            "https://en.wikipedia.org/wiki/Rust_(language)"
        );
    }

    #[test]
    fn does_not_rescan_parsed_links() {
        let text = "https://example.com/a";
        let link = Marker {
            range: 0..text.len(),
            target: Target::Url {
                href: text.into(),
                style: CitationStyle::InlineLink,
                label: None,
            },
        };
        assert!(scan_text(text, &[link]).is_empty());
    }

    #[test]
    fn dangling_numbered_marker_resolves_to_nothing() {
        let mut refs = References::default();
        refs.numbered.insert(2, "https://example.com/two".into());
        let text = "x [2] [7] [2, 7]";
        let markers = scan_text(text, &[]);
        let outcomes: Vec<String> = markers
            .iter()
            .map(|m| match resolve(m, text, &refs) {
                Resolved::Cites(c) => c
                    .iter()
                    .map(|c| c.url.clone())
                    .collect::<Vec<_>>()
                    .join(" "),
                Resolved::Dangling(w) => format!("dangling {w}"),
                Resolved::Ignored => "ignored".into(),
            })
            .collect();
        assert_eq!(
            outcomes,
            vec![
                "https://example.com/two",
                "dangling [7]",
                "https://example.com/two"
            ]
        );
    }
}
