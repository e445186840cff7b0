//! Claim extraction on whole articles, as an editor would check it: the fixtures in
//! tests/fixtures/articles/ in Markdown, HTML and text, a 200 KB article, and an opinion piece.
//!
//! Tests named `e2e_*` need the real sentence detector (`text::cues`) to find claims; the
//! others hold for any detector.

use factgate_core::extract::{ExtractError, Extraction, detect_format, extract, extract_bytes};
use factgate_core::model::{
    BodyFormat, CitationRule, CitationStyle, Claim, ClaimKind, Severity, UnsourcedKind,
};
use std::path::Path;

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/articles")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Reads a fixture in the format its extension names, as a CMS that labels its drafts would.
fn read(name: &str) -> Extraction {
    let format = match name.rsplit('.').next() {
        Some("html") => BodyFormat::Html,
        Some("txt") => BodyFormat::Text,
        _ => BodyFormat::Markdown,
    };
    extract(&fixture(name), format).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn claim<'a>(x: &'a Extraction, text: &str) -> &'a Claim {
    x.claims
        .iter()
        .find(|c| c.text.contains(text))
        .unwrap_or_else(|| {
            let found: Vec<&str> = x.claims.iter().map(|c| c.text.as_str()).collect();
            panic!("no claim containing {text:?}; claims: {found:#?}")
        })
}

fn urls(c: &Claim) -> Vec<&str> {
    c.citations.iter().map(|c| c.url.as_str()).collect()
}

fn listed(x: &Extraction) -> Vec<&str> {
    x.citations.iter().map(|c| c.url.as_str()).collect()
}

const ARTICLES: [(&str, BodyFormat); 3] = [
    ("ai-tutoring.md", BodyFormat::Markdown),
    ("ai-tutoring.html", BodyFormat::Html),
    ("ai-tutoring.txt", BodyFormat::Text),
];

// --- Any detector -------------------------------------------------------------------------

#[test]
fn fixtures_are_detected_in_their_format_and_read() {
    for (name, format) in ARTICLES {
        let body = fixture(name);
        // The text fixture has bullet lists and a `[^logs]:` line, which by the documented rule
        // read as Markdown when nothing labels the body; it is read as text below.
        if format != BodyFormat::Text {
            assert_eq!(detect_format(&body), format, "{name}");
            assert_eq!(
                extract_bytes(body.as_bytes(), None).map(|x| x.format),
                Ok(format)
            );
        }
        let x = read(name);
        assert_eq!(x.format, format);
        assert!(
            x.sentences >= 10,
            "{name}: only {} sentences read",
            x.sentences
        );
    }
}

#[test]
fn markdown_article_lists_every_citation_style_resolved() {
    let x = read("ai-tutoring.md");
    let styles: Vec<(&str, CitationStyle)> = x
        .citations
        .iter()
        .map(|c| (c.url.as_str(), c.style))
        .collect();
    assert_eq!(
        styles,
        vec![
            (
                "https://example.org/learning-survey-2023",
                CitationStyle::InlineLink
            ),
            (
                "https://example.com/market-report",
                CitationStyle::ReferenceLink
            ),
            (
                "https://example.com/bloom-lab-2024",
                CitationStyle::NumberedReference
            ),
            ("https://example.com/session-logs", CitationStyle::Footnote),
            (
                "https://example.com/edtech-ranking",
                CitationStyle::NumberedReference
            ),
            (
                "https://example.com/khanmigo-pricing",
                CitationStyle::NumberedReference
            ),
            (
                "https://example.net/tutoring-dataset",
                CitationStyle::BareUrl
            ),
        ],
        "reference entries nobody cites are not listed"
    );
    let numbered = x
        .citations
        .iter()
        .find(|c| c.url.ends_with("bloom-lab-2024"));
    assert_eq!(numbered.and_then(|c| c.label.as_deref()), Some("2"));
    assert!(x.unresolved.is_empty(), "{:?}", x.unresolved);
}

#[test]
fn html_article_resolves_links_numbers_and_footnotes_and_drops_chrome() {
    let x = read("ai-tutoring.html");
    assert_eq!(
        listed(&x),
        vec![
            "https://example.org/learning-survey-2023",
            "https://example.com/market-report",
            "https://example.com/bloom-lab-2024",
            "https://example.com/session-logs",
            "https://example.com/khanmigo-pricing",
            "https://example.net/usage-report",
        ],
        "relative nav links and mailto cite nothing"
    );
}

#[test]
fn text_article_resolves_numbers_footnotes_and_reports_the_dangling_marker() {
    let x = read("ai-tutoring.txt");
    assert_eq!(
        listed(&x),
        vec![
            "https://example.com/market-report",
            "https://example.com/bloom-lab-2024",
            "https://example.com/session-logs",
            "https://example.com/khanmigo-pricing",
            "https://example.net/usage-report",
        ]
    );
    let markers: Vec<&str> = x.unresolved.iter().map(|u| u.marker.as_str()).collect();
    assert_eq!(markers, vec!["[9]"], "there is no 9th source");
    assert_eq!(
        x.unresolved[0].location.section.as_deref(),
        Some("What the Evidence Says")
    );
}

#[test]
fn an_article_of_opinion_extracts_no_claims_but_was_read() {
    let x = read("opinion.md");
    assert!(x.claims.is_empty(), "{:#?}", x.claims);
    assert_eq!(x.sentences, 6);
    assert_eq!(x.paragraphs, 4);
}

#[test]
fn garbage_fails_loudly() {
    assert_eq!(
        extract("  \n ", BodyFormat::Markdown),
        Err(ExtractError::EmptyBody)
    );
    assert!(matches!(
        extract_bytes(&[0x89, b'P', b'N', b'G', 0, 0, 0, 13, 0xff, 0xfe], None),
        Err(ExtractError::Unreadable { .. })
    ));
    assert!(matches!(
        extract("\u{0}\u{1}\u{2} binary", BodyFormat::Text),
        Err(ExtractError::Unreadable { .. })
    ));
}

/// `min_bytes` and more: every paragraph is read, the last as well as the first.
fn long_article_of(min_bytes: usize) -> String {
    let section = fixture("ai-tutoring.md");
    let (body, references) = section.split_at(section.find("## References").unwrap_or(0));
    let mut long = body.repeat(min_bytes / body.len() + 1);
    long.push_str("## Final Word\n\nThe last paragraph says usage grew 41% in 2025 [2].\n\n");
    long.push_str(references);
    long
}

/// 200 KB and more.
fn long_article() -> String {
    long_article_of(200_000)
}

/// The fastest of three extractions of `body`, so a pause of the shared machine counts less.
fn extraction_time(body: &str) -> std::time::Duration {
    (0..3)
        .map(|_| {
            let started = std::time::Instant::now();
            extract(body, BodyFormat::Markdown).expect("extracts");
            started.elapsed()
        })
        .min()
        .expect("three runs")
}

#[test]
fn a_long_article_is_read_to_its_last_paragraph_in_linear_time() {
    let body = long_article();
    assert!(body.len() >= 200_000);
    let x = extract(&body, BodyFormat::Markdown).expect("extracts");
    let copies = body.matches("# AI Tutors in the Classroom").count();
    assert_eq!(x.sentences, copies * read("ai-tutoring.md").sentences + 1);
    // Four times the text: about four times the time when extraction is linear, sixteen when it
    // is quadratic. A ratio within one run, not a time, so a loaded machine does not fail it.
    let small = long_article_of(50_000);
    let (t_small, t_large) = (extraction_time(&small), extraction_time(&body));
    let ratio = t_large.as_secs_f64() / t_small.as_secs_f64().max(1e-6);
    let size_ratio = body.len() as f64 / small.len() as f64;
    assert!(
        ratio < size_ratio * 2.5,
        "{size_ratio:.1}x the text took {ratio:.1}x the time ({t_small:?} -> {t_large:?})"
    );
}

// --- With the real detector ---------------------------------------------------------------

#[test]
fn e2e_spec_examples_are_claims_with_their_citations() {
    for (name, _) in ARTICLES {
        let x = read(name);
        let pilot = claim(&x, "Our pilot with 500 students showed 73% improvement");
        assert_eq!(pilot.citation_rule, CitationRule::None, "{name}");
        let judged = pilot
            .prejudgment
            .as_ref()
            .expect("the unsourced pilot is prejudged");
        assert_eq!(judged.kind, UnsourcedKind::FirstPersonData, "{name}");
        assert_eq!(judged.severity, Severity::High, "{name}");
        assert!(pilot.kinds.contains(&ClaimKind::FirstPersonData));

        let doubles = claim(&x, "AI tutoring doubles learning gains");
        assert_eq!(doubles.citation_rule, CitationRule::SameSentence, "{name}");
        assert_eq!(
            urls(doubles),
            vec!["https://example.com/bloom-lab-2024"],
            "{name}"
        );
        assert_eq!(doubles.citations[0].style, CitationStyle::NumberedReference);
        assert!(
            !doubles.text.contains("[2]"),
            "the marker is not claim text"
        );

        let price = claim(&x, "$4/month or $44/year");
        assert_eq!(
            urls(price),
            vec!["https://example.com/khanmigo-pricing"],
            "{name}"
        );
        assert!(price.kinds.contains(&ClaimKind::Money));

        let daily = claim(&x, "87% of students use digital learning tools daily");
        assert!(daily.kinds.contains(&ClaimKind::Percentage));
        assert_eq!(
            daily.location.section.as_deref(),
            Some("Adoption"),
            "{name}"
        );
    }
}

#[test]
fn e2e_markdown_claims_map_to_the_right_sources() {
    let x = read("ai-tutoring.md");
    let market = claim(&x, "$4.2 billion");
    assert_eq!(urls(market), vec!["https://example.com/market-report"]);
    assert_eq!(market.citations[0].style, CitationStyle::ReferenceLink);
    assert!(market.kinds.contains(&ClaimKind::Money));

    let euro = claim(&x, "€300m");
    assert_eq!(
        euro.citation_rule,
        CitationRule::Paragraph,
        "borrows the paragraph's link"
    );
    assert_eq!(
        urls(euro)[0],
        "https://example.com/market-report",
        "the paragraph's link first, then the article's others"
    );
    assert!(euro.unbacked.is_some());

    let timing = claim(&x, "3x as many practice questions");
    assert_eq!(urls(timing), vec!["https://example.com/session-logs"]);
    assert_eq!(timing.citations[0].style, CitationStyle::Footnote);

    let survey = claim(&x, "one in five teachers");
    assert_eq!(
        urls(survey),
        vec!["https://example.org/learning-survey-2023"]
    );
    assert_eq!(survey.citations[0].style, CitationStyle::InlineLink);

    let quote = claim(&x, "We have never seen gains this large");
    assert!(quote.kinds.contains(&ClaimKind::Quote));
    assert!(
        quote
            .quotes
            .iter()
            .any(|q| q.contains("We have never seen gains this large")),
        "{:?}",
        quote.quotes
    );
    assert!(
        quote.text.contains("Dr. Maria Lopez"),
        "not split at \"Dr.\""
    );

    let largest = claim(&x, "the largest AI tutoring deployment in the U.S.");
    assert!(largest.kinds.contains(&ClaimKind::Superlative));
    assert_eq!(urls(largest), vec!["https://example.com/edtech-ranking"]);

    // Locations an editor can use: section and the sentence's exact place in the file.
    let body = fixture("ai-tutoring.md");
    let span = market.location.span.expect("span");
    let found: String = body
        .chars()
        .skip(span.start)
        .take(span.end - span.start)
        .collect();
    assert!(
        found.starts_with("The market for tutoring software reached $4.2 billion"),
        "{found}"
    );
    assert_eq!(market.location.section.as_deref(), Some("Adoption"));
    assert!(
        !x.claims.iter().any(|c| c.text.contains("Smith, J.")),
        "reference entries are not claims"
    );
}

#[test]
fn e2e_html_and_text_claims_have_locations() {
    let x = read("ai-tutoring.html");
    let body = fixture("ai-tutoring.html");
    let doubles = claim(&x, "AI tutoring doubles learning gains");
    let span = doubles.location.span.expect("found verbatim in the HTML");
    let found: String = body
        .chars()
        .skip(span.start)
        .take(span.end - span.start)
        .collect();
    assert_eq!(found, "AI tutoring doubles learning gains [2].");
    assert_eq!(doubles.location.section.as_deref(), Some("Evidence"));
    let session = claim(&x, "Sessions averaged 25 minutes");
    assert_eq!(urls(session), vec!["https://example.com/session-logs"]);
    assert!(
        !x.claims.iter().any(|c| c.text.contains("99%")),
        "scripts are not read"
    );

    let x = read("ai-tutoring.txt");
    let cheaper = claim(&x, "cheaper than a human tutor");
    assert_eq!(cheaper.citation_rule, CitationRule::None, "[9] dangles");
    assert!(
        cheaper
            .prejudgment
            .as_ref()
            .is_some_and(|p| p.problem.contains("[9]"))
    );
    let usage = claim(&x, "Usage tripled");
    assert_eq!(urls(usage), vec!["https://example.net/usage-report"]);
    assert_eq!(usage.citations[0].style, CitationStyle::BareUrl);
}

#[test]
fn e2e_every_claim_kind_is_found_in_the_markdown_fixture() {
    let x = read("ai-tutoring.md");
    let kinds: std::collections::HashSet<ClaimKind> = x
        .claims
        .iter()
        .flat_map(|c| c.kinds.iter().copied())
        .collect();
    for kind in [
        ClaimKind::Percentage,
        ClaimKind::Money,
        ClaimKind::Count,
        ClaimKind::Ratio,
        ClaimKind::Change,
        ClaimKind::Date,
        ClaimKind::Quote,
        ClaimKind::Attribution,
        ClaimKind::Comparative,
        ClaimKind::Superlative,
        ClaimKind::FirstPersonData,
    ] {
        assert!(kinds.contains(&kind), "no {kind:?} claim");
    }
}

#[test]
fn e2e_the_last_claim_of_a_long_article_is_found() {
    let body = long_article();
    let x = extract(&body, BodyFormat::Markdown).expect("extracts");
    let last = claim(&x, "usage grew 41% in 2025");
    assert_eq!(urls(last), vec!["https://example.com/bloom-lab-2024"]);
    assert_eq!(last.location.section.as_deref(), Some("Final Word"));
    let per_copy = read("ai-tutoring.md").claims.len();
    let copies = body.matches("# AI Tutors in the Classroom").count();
    assert_eq!(x.claims.len(), per_copy * copies + 1);
}
