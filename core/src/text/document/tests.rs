use super::from_text::looks_like_heading;
use super::*;
use crate::text::citations::{Resolved, resolve};

/// Every (marker as written or link text, resolved URL, style) of the prose blocks.
fn cited(doc: &Document) -> Vec<(String, String, CitationStyle)> {
    let mut out = Vec::new();
    for b in doc.blocks.iter().filter(|b| b.is_prose()) {
        for m in &b.markers {
            if let Resolved::Cites(cs) = resolve(m, &b.text, &doc.references) {
                for c in cs {
                    out.push((b.text[m.range.clone()].to_owned(), c.url, c.style));
                }
            }
        }
    }
    out
}

fn prose(doc: &Document) -> Vec<(&BlockKind, &str)> {
    doc.blocks
        .iter()
        .filter(|b| b.is_prose())
        .map(|b| (&b.kind, b.text.as_str()))
        .collect()
}

const MD: &str = "# Title

Intro with an [inline link](https://example.com/inline) and a [ref link][acme].
Tutoring doubles gains [2]. Footnoted claim.[^fn] See https://example.com/bare.

- item one with `code`
- item two [3, 4]

| Metric | Value |
|---|---|
| Users | 87% |

> Quoted 40% rise.

```
let ignored = 1;
```

## References

1. Smith, Tutoring study, https://example.com/ref1
2. Jones, Gains, <https://example.com/ref2>
3. Lee https://example.com/ref3
4. [Kim](https://example.com/ref4)

[acme]: https://example.com/acme
[^fn]: The footnote source, https://example.com/footnote
";

#[test]
fn markdown_blocks_have_visible_text_and_kinds() {
    let doc = parse(MD, BodyFormat::Markdown);
    let p = prose(&doc);
    assert_eq!(
        p[0],
        (
            &BlockKind::Paragraph,
            "Intro with an inline link and a ref link. Tutoring doubles gains [2]. Footnoted claim.[^fn] See https://example.com/bare."
        )
    );
    assert_eq!(p[1], (&BlockKind::ListItem, "item one with code"));
    assert_eq!(p[2], (&BlockKind::ListItem, "item two [3, 4]"));
    assert!(p.contains(&(&BlockKind::TableCell, "87%")));
    assert!(p.contains(&(&BlockKind::Quote, "Quoted 40% rise.")));
    assert!(
        !doc.blocks.iter().any(|b| b.text.contains("ignored")),
        "code blocks are not prose"
    );
    let headings: Vec<&str> = doc
        .blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Heading)
        .map(|b| b.text.as_str())
        .collect();
    assert_eq!(headings, vec!["Title", "References"]);
    assert_eq!(doc.blocks[1].section.as_deref(), Some("Title"));
}

#[test]
fn markdown_resolves_every_citation_style() {
    let doc = parse(MD, BodyFormat::Markdown);
    let c = cited(&doc);
    let want = [
        (
            "inline link",
            "https://example.com/inline",
            CitationStyle::InlineLink,
        ),
        (
            "ref link",
            "https://example.com/acme",
            CitationStyle::ReferenceLink,
        ),
        (
            "[2]",
            "https://example.com/ref2",
            CitationStyle::NumberedReference,
        ),
        (
            "[^fn]",
            "https://example.com/footnote",
            CitationStyle::Footnote,
        ),
        (
            "https://example.com/bare",
            "https://example.com/bare",
            CitationStyle::BareUrl,
        ),
        (
            "[3, 4]",
            "https://example.com/ref3",
            CitationStyle::NumberedReference,
        ),
        (
            "[3, 4]",
            "https://example.com/ref4",
            CitationStyle::NumberedReference,
        ),
    ];
    for (marker, url, style) in want {
        assert!(
            c.contains(&(marker.to_owned(), url.to_owned(), style)),
            "{marker} → {url} ({style:?}) missing from {c:#?}"
        );
    }
    assert_eq!(c.len(), want.len());
}

#[test]
fn markdown_reference_list_and_footnotes_are_not_prose() {
    let doc = parse(MD, BodyFormat::Markdown);
    let entries = doc
        .blocks
        .iter()
        .filter(|b| b.kind == BlockKind::ReferenceEntry)
        .count();
    assert_eq!(entries, 4);
    assert!(
        doc.blocks
            .iter()
            .any(|b| b.kind == BlockKind::FootnoteDefinition("fn".into()))
    );
    assert!(!prose(&doc).iter().any(|(_, t)| t.contains("Smith")));
}

#[test]
fn markdown_numbered_definitions_and_bracketed_entries() {
    let md = "Claim one [1]. Claim two [2].\n\n## Sources\n\n[1] Alpha report https://example.com/a\n[2] Beta report https://example.com/b\n";
    let doc = parse(md, BodyFormat::Markdown);
    assert_eq!(
        doc.references.numbered.get(&1).map(String::as_str),
        Some("https://example.com/a")
    );
    assert_eq!(
        doc.references.numbered.get(&2).map(String::as_str),
        Some("https://example.com/b")
    );

    let md = "Gains doubled [2].\n\n[2]: https://example.com/two\n";
    let doc = parse(md, BodyFormat::Markdown);
    assert_eq!(
        cited(&doc),
        vec![(
            "2".to_owned(),
            "https://example.com/two".to_owned(),
            CitationStyle::NumberedReference
        )]
    );
}

#[test]
fn markdown_source_offsets_map_back_to_the_body() {
    let md = "# T\n\nSome *emphasis* here and a [link](https://x.example/) too.\nSecond line.\n";
    let doc = parse(md, BodyFormat::Markdown);
    let b = &doc.blocks[1];
    let at = b.text.find("Second").expect("text");
    let start = b.source_offset(at, false).expect("mapped");
    let end = b.source_offset(b.text.len(), true).expect("mapped");
    assert_eq!(&md[start..end], "Second line.");
    let start = b.source_offset(0, false).expect("mapped");
    assert_eq!(&md[start..start + 4], "Some");
}

const HTML: &str = r##"<!doctype html><html><head><title>Ignore me 99%</title><style>p{}</style></head>
<body><nav>Home 12 items</nav>
<article><h1>Report</h1>
<p>Intro with an <a href="https://example.com/inline">inline link</a> and
   a relative <a href="/about">about</a> link and <a href="mailto:x@example.com">mail</a>.</p>
<p>Tutoring doubles gains [2]. Footnoted claim.<sup><a href="#fn1">1</a></sup> See https://example.com/bare.</p>
<ul><li>item one</li><li><p>item two 87%</p></li></ul>
<table><tr><th>Metric</th><td>40%</td></tr></table>
<blockquote><p>Quoted rise.</p></blockquote>
<figure><img src="x.png"><figcaption>Chart of 2024 sales</figcaption></figure>
<script>var x = "73% of nothing";</script>
<h2>References</h2>
<ol><li>Smith https://example.com/ref1</li><li><a href="https://example.com/ref2">Jones</a></li></ol>
<h2>Notes</h2>
<ol><li id="fn1">Internal memo, <a href="https://example.com/footnote">memo</a></li></ol>
</article><aside>Related: 5 stories</aside><footer>© 2024</footer></body></html>"##;

#[test]
fn html_drops_chrome_and_keeps_blocks() {
    let doc = parse(HTML, BodyFormat::Html);
    let p = prose(&doc);
    for dropped in ["Ignore me", "Home 12", "73% of nothing", "Related", "©"] {
        assert!(
            !p.iter().any(|(_, t)| t.contains(dropped)),
            "{dropped} kept: {p:#?}"
        );
    }
    assert_eq!(
        p[0].1,
        "Intro with an inline link and a relative about link and mail."
    );
    assert!(p.contains(&(&BlockKind::ListItem, "item one")));
    assert!(p.contains(&(&BlockKind::ListItem, "item two 87%")));
    assert!(p.contains(&(&BlockKind::TableCell, "40%")));
    assert!(p.contains(&(&BlockKind::Quote, "Quoted rise.")));
    assert!(p.contains(&(&BlockKind::Caption, "Chart of 2024 sales")));
    assert_eq!(doc.blocks[1].section.as_deref(), Some("Report"));
}

#[test]
fn html_resolves_links_numbered_footnotes_and_bare_urls() {
    let doc = parse(HTML, BodyFormat::Html);
    let c = cited(&doc);
    assert_eq!(
        c,
        vec![
            (
                "inline link".to_owned(),
                "https://example.com/inline".to_owned(),
                CitationStyle::InlineLink
            ),
            (
                "[2]".to_owned(),
                "https://example.com/ref2".to_owned(),
                CitationStyle::NumberedReference
            ),
            (
                "1".to_owned(),
                "https://example.com/footnote".to_owned(),
                CitationStyle::Footnote
            ),
            (
                "https://example.com/bare".to_owned(),
                "https://example.com/bare".to_owned(),
                CitationStyle::BareUrl
            ),
        ],
        "relative and mailto links cite nothing"
    );
}

#[test]
fn deeply_nested_html_does_not_overflow() {
    // Deep enough to overflow a recursive walk; html5ever itself is slow on far deeper input.
    const DEPTH: usize = 20_000;
    let html = format!(
        "<div>{}deep 5%{}</div>",
        "<div>".repeat(DEPTH),
        "</div>".repeat(DEPTH)
    );
    let doc = parse(&html, BodyFormat::Html);
    assert!(doc.blocks.iter().any(|b| b.text == "deep 5%"));
}

const TEXT: &str = "Study Results

Intro line one
continues here [2]. Footnoted claim [^a]. See https://example.com/bare.

- item one 50%
- item two
  continued

Sources:

[1] Alpha https://example.com/ref1
[2] Beta https://example.com/ref2
[^a]: Gamma https://example.com/footnote
";

#[test]
fn text_paragraphs_headings_and_items() {
    let doc = parse(TEXT, BodyFormat::Text);
    assert_eq!(doc.blocks[0].kind, BlockKind::Heading);
    assert_eq!(doc.blocks[0].text, "Study Results");
    let p = prose(&doc);
    assert_eq!(
        p,
        vec![
            (
                &BlockKind::Paragraph,
                "Intro line one continues here [2]. Footnoted claim [^a]. See https://example.com/bare."
            ),
            (&BlockKind::ListItem, "item one 50%"),
            (&BlockKind::ListItem, "item two continued"),
        ]
    );
    assert_eq!(doc.blocks[1].section.as_deref(), Some("Study Results"));
    let c = cited(&doc);
    assert_eq!(
        c.iter()
            .map(|(_, u, s)| (u.as_str(), *s))
            .collect::<Vec<_>>(),
        vec![
            ("https://example.com/ref2", CitationStyle::NumberedReference),
            ("https://example.com/footnote", CitationStyle::Footnote),
            ("https://example.com/bare", CitationStyle::BareUrl),
        ]
    );
}

#[test]
fn text_source_offsets_cover_joined_lines() {
    let doc = parse(TEXT, BodyFormat::Text);
    let b = &doc.blocks[1];
    let start = b.source_offset(0, false).expect("mapped");
    let end = b
        .source_offset(b.text.find("[2]").expect("marker") + 3, true)
        .expect("mapped");
    assert_eq!(&TEXT[start..end], "Intro line one\ncontinues here [2]");
}

#[test]
fn text_heading_detection_is_conservative() {
    assert!(looks_like_heading("References"));
    assert!(looks_like_heading("Sources:"));
    assert!(looks_like_heading("METHODS AND DATA"));
    assert!(looks_like_heading("## Results"));
    assert!(looks_like_heading("How Tutoring Changed Learning"));
    assert!(!looks_like_heading(
        "AI tutoring doubles learning gains [2]"
    ));
    assert!(!looks_like_heading("Revenue grew 40% last year."));
    assert!(!looks_like_heading("- a list item"));
}

#[test]
fn ordered_list_in_references_numbers_by_position_and_start() {
    let html = r#"<p>Claim [5].</p><h2>Sources</h2><ol start="4"><li>A https://example.com/4</li><li>B https://example.com/5</li></ol>"#;
    let doc = parse(html, BodyFormat::Html);
    assert_eq!(
        doc.references.numbered.get(&5).map(String::as_str),
        Some("https://example.com/5")
    );
    let md = "Claim [5].\n\n## Sources\n\n4. A https://example.com/4\n5. B https://example.com/5\n";
    let doc = parse(md, BodyFormat::Markdown);
    assert_eq!(
        doc.references.numbered.get(&5).map(String::as_str),
        Some("https://example.com/5")
    );
}

#[test]
fn a_drafts_dialog_and_header_are_read_as_its_own_text() {
    // An open dialog shows its text; what a draft shows is checked (a page's dialogs are
    // banners and are dropped, see `webpage`).
    let html = "<header><p>Fares rose 4% in 2024.</p></header>\
        <dialog open><p>Ridership fell 3% in 2023.</p></dialog><pre>x = 12%</pre>";
    let doc = parse(html, BodyFormat::Html);
    let texts: Vec<&str> = doc.blocks.iter().map(|b| b.text.trim()).collect();
    assert!(texts.contains(&"Fares rose 4% in 2024."), "{texts:?}");
    assert!(texts.contains(&"Ridership fell 3% in 2023."), "{texts:?}");
    assert!(
        !texts.iter().any(|t| t.contains("x = 12%")),
        "code is not prose: {texts:?}"
    );
}

/// A URL whose host is an IPv6 literal (`http://[2001:db8::1]/…`) cites its page in every
/// format and style, as a URL with a name does.
#[test]
fn urls_with_an_ipv6_literal_host_are_citations() {
    let url = "http://[2001:db8::1]:8080/report";
    let bare = format!("Sales rose 40% in 2024, see {url}. Then more.");
    for (body, format) in [
        (bare.clone(), BodyFormat::Text),
        (bare.clone(), BodyFormat::Markdown),
        (format!("<p>{bare}</p>"), BodyFormat::Html),
        (
            format!("Sales rose 40% in 2024 [per the report]({url})."),
            BodyFormat::Markdown,
        ),
        (
            format!("Sales rose 40% in 2024 <{url}>."),
            BodyFormat::Markdown,
        ),
        (
            format!("<p>Sales rose 40% in 2024 <a href=\"{url}\">per the report</a>.</p>"),
            BodyFormat::Html,
        ),
        (
            format!("Sales rose 40% in 2024 [1].\n\n## References\n\n1. {url}\n"),
            BodyFormat::Markdown,
        ),
    ] {
        let doc = parse(&body, format);
        let urls: Vec<String> = cited(&doc).into_iter().map(|(_, u, _)| u).collect();
        assert_eq!(urls, [url], "{format:?}: {body}");
    }
}
