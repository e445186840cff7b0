//! Extraction with a stand-in detector (any sentence with a digit is a claim), so mapping, ids,
//! locations and failures are tested on their own, whatever the real detector decides.

use super::*;
use crate::model::{CitationStyle, ClaimKind};
use std::cell::RefCell;

fn digits_are_claims(sentence: &str) -> SentenceFeatures {
    SentenceFeatures {
        kinds: if sentence.chars().any(|c| c.is_ascii_digit()) {
            vec![ClaimKind::Count]
        } else {
            Vec::new()
        },
        ..SentenceFeatures::default()
    }
}

fn run(body: &str, format: BodyFormat) -> Extraction {
    extract_with(body, format, None, &digits_are_claims).expect("extracts")
}

fn claim<'a>(x: &'a Extraction, text: &str) -> &'a Claim {
    x.claims
        .iter()
        .find(|c| c.text.contains(text))
        .unwrap_or_else(|| panic!("no claim with {text:?} in {:#?}", x.claims))
}

fn urls(c: &Claim) -> Vec<&str> {
    c.citations.iter().map(|c| c.url.as_str()).collect()
}

#[test]
fn same_sentence_citation_wins() {
    let x = run(
        "Sales rose 40% [1]. Costs fell 3% [2].\n\n[1]: https://example.com/one\n[2]: https://example.com/two\n",
        BodyFormat::Markdown,
    );
    let rose = claim(&x, "Sales rose 40%");
    assert_eq!(rose.citation_rule, CitationRule::SameSentence);
    assert_eq!(urls(rose), vec!["https://example.com/one"]);
    assert_eq!(rose.prejudgment, None);
    assert_eq!(
        urls(claim(&x, "Costs fell")),
        vec!["https://example.com/two"]
    );
}

#[test]
fn paragraph_rule_prefers_the_next_citing_sentence_then_the_previous() {
    let body = "First 1 claim. Second 2 claim [a](https://example.com/a). Third 3 claim. \
                Fourth 4 claim [b](https://example.com/b). Fifth 5 claim.";
    let x = run(body, BodyFormat::Markdown);
    let first = claim(&x, "First");
    assert_eq!(first.citation_rule, CitationRule::Paragraph);
    // The paragraph's nearest citation first, then the article's others.
    assert_eq!(
        urls(first),
        vec!["https://example.com/a", "https://example.com/b"]
    );
    assert_eq!(
        urls(claim(&x, "Third")),
        vec!["https://example.com/b", "https://example.com/a"]
    );
    let fifth = claim(&x, "Fifth");
    assert_eq!(fifth.citation_rule, CitationRule::Paragraph);
    assert_eq!(
        urls(fifth)[0],
        "https://example.com/b",
        "nothing after: the one before"
    );
    assert_eq!(fifth.prejudgment, None);
    assert!(
        fifth.unbacked.is_some(),
        "it borrows, so it says what it raises unbacked"
    );
    // A sentence with its own citation borrows nothing.
    let second = claim(&x, "Second");
    assert_eq!(urls(second), vec!["https://example.com/a"]);
    assert_eq!(second.unbacked, None);
}

#[test]
fn a_statement_without_a_link_borrows_its_sections_then_its_articles_sources() {
    let body = "Intro 1 fact [a](https://example.com/a).\n\nSecond 2 fact.\n\n## Next part\n\n\
                Third 3 fact [b](https://example.com/b).\n\nFourth 4 fact.\n\nFifth 5 fact [c](https://example.com/c).\n";
    let x = run(body, BodyFormat::Markdown);
    let second = claim(&x, "Second");
    assert_eq!(second.citation_rule, CitationRule::Section);
    assert_eq!(
        urls(second),
        vec![
            "https://example.com/a",
            "https://example.com/b",
            "https://example.com/c"
        ],
        "its section's source, then the article's, nearest first"
    );
    assert_eq!(second.citations[0].paragraph, Some(0));
    assert_eq!(second.citations[1].paragraph, Some(2));
    let fourth = claim(&x, "Fourth");
    assert_eq!(fourth.citation_rule, CitationRule::Section);
    assert_eq!(
        urls(fourth),
        vec![
            "https://example.com/b",
            "https://example.com/c",
            "https://example.com/a"
        ],
        "the section's before it; then the article's: c is one paragraph away, a two"
    );
    assert!(second.prejudgment.is_none() && second.unbacked.is_some());
    // A claim with a link of its own keeps it alone.
    assert_eq!(urls(claim(&x, "Third")), vec!["https://example.com/b"]);
}

#[test]
fn a_statement_before_any_link_borrows_the_articles_sources() {
    let x = run(
        "Opening 1 fact.\n\nLater 2 fact [a](https://example.com/a).",
        BodyFormat::Markdown,
    );
    let opening = claim(&x, "Opening");
    assert_eq!(opening.citation_rule, CitationRule::Article);
    assert_eq!(urls(opening), vec!["https://example.com/a"]);
    assert_eq!(opening.citations[0].paragraph, Some(1));
}

#[test]
fn an_article_without_links_keeps_its_claims_unsourced() {
    let x = run("One 1 fact.\n\nTwo 2 fact.", BodyFormat::Markdown);
    for c in &x.claims {
        assert_eq!(c.citation_rule, CitationRule::None);
        assert!(c.citations.is_empty());
        assert!(c.prejudgment.is_some() && c.unbacked.is_none());
    }
}

#[test]
fn first_person_data_borrows_no_source() {
    let analyze = |s: &str| {
        let mut f = digits_are_claims(s);
        if s.starts_with("Our") {
            f.kinds.push(ClaimKind::FirstPersonData);
            f.kinds.sort_unstable();
        }
        f
    };
    let x = extract_with(
        "Cited 1 claim [a](https://example.com/a).\n\nOur pilot with 500 students showed 73% improvement.",
        BodyFormat::Markdown,
        None,
        &analyze,
    )
    .expect("extracts");
    let pilot = claim(&x, "Our pilot");
    assert_eq!(pilot.citation_rule, CitationRule::None);
    assert!(pilot.citations.is_empty());
    assert!(
        pilot.prejudgment.is_some(),
        "an unsourced claim is prejudged"
    );
}

#[test]
fn a_marker_after_the_full_stop_belongs_to_the_sentence_before() {
    let x = run(
        "Gains doubled in 2023.[1] Costs fell 5%.\n\n[1]: https://example.com/one\n",
        BodyFormat::Markdown,
    );
    assert_eq!(claim(&x, "Gains").citation_rule, CitationRule::SameSentence);
    let costs = claim(&x, "Costs");
    assert_eq!(costs.citation_rule, CitationRule::Paragraph);
    let text = "Gains doubled in 2023 [2]. Costs fell 5%.\n\nReferences\n\n[2] Study https://example.com/two\n";
    let x = run(text, BodyFormat::Text);
    assert_eq!(claim(&x, "Gains").citation_rule, CitationRule::SameSentence);
    assert_eq!(urls(claim(&x, "Gains")), vec!["https://example.com/two"]);
}

#[test]
fn a_dangling_marker_leaves_the_claim_unsourced_and_is_reported() {
    let body = "Tutoring doubled gains in 2023 [7]. Another 5 claim [1].\n\n## References\n\n1. Study https://example.com/one\n";
    let x = run(body, BodyFormat::Markdown);
    let dangling = claim(&x, "Tutoring");
    assert_eq!(
        dangling.citation_rule,
        CitationRule::None,
        "does not borrow [1]"
    );
    let problem = &dangling.prejudgment.as_ref().expect("prejudged").problem;
    assert!(
        problem.contains("[7]"),
        "problem names the marker: {problem}"
    );
    assert_eq!(x.unresolved.len(), 1);
    assert_eq!(x.unresolved[0].marker, "[7]");
    assert_eq!(x.unresolved[0].location.paragraph, 0);
    assert_eq!(urls(claim(&x, "Another")), vec!["https://example.com/one"]);
}

#[test]
fn markers_are_not_part_of_the_claim_text() {
    let seen = RefCell::new(Vec::new());
    let analyze = |s: &str| {
        seen.borrow_mut().push(s.to_owned());
        digits_are_claims(s)
    };
    let body = "AI tutoring doubles learning gains [2]. Read https://example.com/2024/report.\n\n[2]: https://example.com/two\n";
    let x = extract_with(body, BodyFormat::Text, None, &analyze).expect("extracts");
    let seen = seen.into_inner();
    assert_eq!(seen[0], "AI tutoring doubles learning gains.");
    assert_eq!(seen[1], "Read.");
    // No digits once markers and URLs are masked: the cited statement is a claim for its
    // citation, with no figure; "Read." states nothing.
    assert_eq!(x.claims.len(), 1, "{:?}", x.claims);
    assert_eq!(x.claims[0].text, "AI tutoring doubles learning gains.");
    assert!(x.claims[0].kinds.is_empty() && x.claims[0].figures.is_empty());
}

#[test]
fn extraction_lists_each_cited_url_once() {
    let body = "One 1 [a](https://example.com/a). Two 2 [a again](https://example.com/a). \
                Three 3 https://example.com/b.";
    let x = run(body, BodyFormat::Markdown);
    let listed: Vec<(&str, CitationStyle)> = x
        .citations
        .iter()
        .map(|c| (c.url.as_str(), c.style))
        .collect();
    assert_eq!(
        listed,
        vec![
            ("https://example.com/a", CitationStyle::InlineLink),
            ("https://example.com/b", CitationStyle::BareUrl)
        ]
    );
    assert_eq!(x.citations[0].label.as_deref(), Some("a"));
}

#[test]
fn locations_name_section_paragraph_sentence_and_span() {
    let md = "Lead 1 claim.\n\n# Results\n\nPlain intro. The rate was 3.5% in *Q1* 2024.\n\n## Costs\n\n- Item 9 costs\n";
    let x = run(md, BodyFormat::Markdown);
    let lead = claim(&x, "Lead");
    assert_eq!(lead.location.section, None);
    let rate = claim(&x, "The rate");
    assert_eq!(rate.location.section.as_deref(), Some("Results"));
    assert_eq!((rate.location.paragraph, rate.location.sentence), (1, 1));
    assert_eq!(rate.text, "The rate was 3.5% in Q1 2024.");
    let span = rate.location.span.expect("span");
    let source: String = md
        .chars()
        .skip(span.start)
        .take(span.end - span.start)
        .collect();
    assert_eq!(source, "The rate was 3.5% in *Q1* 2024.");
    let item = claim(&x, "Item 9");
    assert_eq!(item.location.section.as_deref(), Some("Costs"));
    assert_eq!(item.location.paragraph, 2, "headings are not paragraphs");
}

#[test]
fn spans_are_character_offsets_in_text_and_html() {
    let text = "Café prices — €4 each.\n\nThe next 2 lines\nare one paragraph.\n";
    let x = run(text, BodyFormat::Text);
    let c = claim(&x, "The next 2");
    let span = c.location.span.expect("span");
    let source: String = text
        .chars()
        .skip(span.start)
        .take(span.end - span.start)
        .collect();
    assert_eq!(source, "The next 2 lines\nare one paragraph.");
    assert_eq!(c.text, "The next 2 lines are one paragraph.");

    let html = "<html><body><h1>Über</h1><p>Prices — in 2024 rose 5%. Then &amp; 3 more.</p></body></html>";
    let x = run(html, BodyFormat::Html);
    let rose = claim(&x, "rose 5%");
    let span = rose.location.span.expect("found verbatim");
    let source: String = html
        .chars()
        .skip(span.start)
        .take(span.end - span.start)
        .collect();
    assert_eq!(source, "Prices — in 2024 rose 5%.");
    assert_eq!(rose.location.section.as_deref(), Some("Über"));
    assert_eq!(
        claim(&x, "3 more").location.span,
        None,
        "entities are not in the body verbatim"
    );
}

#[test]
fn claim_ids_are_stable_short_and_distinct() {
    let body = "Sales rose 4%. Sales rose 4%.\n\nSales rose 4%.";
    let a = run(body, BodyFormat::Text);
    let b = run(body, BodyFormat::Text);
    assert_eq!(a, b);
    let ids: Vec<&str> = a.claims.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids.len(), 3);
    assert!(
        ids.iter()
            .all(|id| id.len() == 16 && id.chars().all(|c| c.is_ascii_hexdigit()))
    );
    assert!(ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2]);
}

#[test]
fn counts_paragraphs_and_sentences_even_without_claims() {
    let x = run(
        "# Opinion\n\nWe should be kinder. It matters.\n\n- Always.\n",
        BodyFormat::Markdown,
    );
    assert!(x.claims.is_empty());
    assert_eq!((x.paragraphs, x.sentences), (2, 3));
}

#[test]
fn unreadable_bodies_fail_loudly() {
    for empty in ["", "   \n\t ", "\u{feff}  \n"] {
        assert_eq!(
            extract(empty, BodyFormat::Text),
            Err(ExtractError::EmptyBody)
        );
    }
    assert!(matches!(
        extract("PK\u{3}\u{4}\0\0binary", BodyFormat::Text),
        Err(ExtractError::Unreadable { reason }) if reason.contains("NUL")
    ));
    let garbled = "ab\u{fffd}\u{fffd}\u{1}c".repeat(20);
    assert!(matches!(
        extract(&garbled, BodyFormat::Text),
        Err(ExtractError::Unreadable { reason }) if reason.contains("control or replacement")
    ));
    assert!(matches!(
        extract("<html><script>var a = 1;</script></html>", BodyFormat::Html),
        Err(ExtractError::Unreadable { reason }) if reason.contains("no visible text")
    ));
    assert!(matches!(
        extract_bytes(b"caf\xe9 50%", None),
        Err(ExtractError::Unreadable { reason }) if reason.contains("UTF-8")
    ));
    // One stray control character in a long article is not a reason to refuse it.
    let mostly_fine = format!("{}\u{7}", "A sentence of prose. ".repeat(20));
    assert!(extract(&mostly_fine, BodyFormat::Text).is_ok());
}

#[test]
fn detects_formats() {
    assert_eq!(
        detect_format("\u{feff}  <!DOCTYPE html><p>x</p>"),
        BodyFormat::Html
    );
    assert_eq!(
        detect_format("<html><body>x</body></html>"),
        BodyFormat::Html
    );
    assert_eq!(
        detect_format("\n<p>Sales rose.</p>\n<p>More.</p>"),
        BodyFormat::Html
    );
    assert_eq!(
        detect_format("<3 is not markup, and has no closing tag"),
        BodyFormat::Text
    );
    assert_eq!(detect_format("# Title\n\nText."), BodyFormat::Markdown);
    assert_eq!(
        detect_format("See [the study](https://example.com)."),
        BodyFormat::Markdown
    );
    assert_eq!(
        detect_format("Claim [1].\n\n[1]: https://example.com\n"),
        BodyFormat::Markdown
    );
    assert_eq!(
        detect_format("Intro:\n\n- one\n- two\n"),
        BodyFormat::Markdown
    );
    assert_eq!(detect_format("It is **very** big."), BodyFormat::Markdown);
    assert_eq!(
        detect_format("Plain prose. Sales rose 5% in 2024 [2].\n\nMore prose."),
        BodyFormat::Text
    );
}

#[test]
fn the_whole_of_a_long_article_is_read() {
    let para = "Revenue grew 12% [1] while costs fell. The board met twice.\n\n";
    let mut body = para.repeat(220_000 / para.len() + 1);
    body.push_str("The very last claim is 99.5% accurate [1].\n\n## References\n\n1. Report https://example.com/r\n");
    assert!(body.len() >= 200_000);
    let x = run(&body, BodyFormat::Markdown);
    let last = claim(&x, "very last claim");
    assert_eq!(urls(last), vec!["https://example.com/r"]);
    assert_eq!(x.claims.len(), body.matches("Revenue grew").count() + 1);
    let span = last.location.span.expect("span");
    assert_eq!(
        &body[span.start..span.end],
        "The very last claim is 99.5% accurate [1]."
    );
}

/// A claim stating `n` figures, citing a source.
fn claim_with_figures(n: usize) -> String {
    let figures: Vec<String> = (0..n).map(|k| format!("{}.{}%", k % 90, k % 10)).collect();
    format!(
        "Revenue rose by {} [the report](https://example.com/r).",
        figures.join(", then ")
    )
}

#[test]
fn a_claim_over_the_figure_cap_blocks_the_article_naming_the_key() {
    let limits = ExtractLimits::default();
    let at_cap = claim_with_figures(limits.max_figures_per_claim);
    let x = extract_within(&at_cap, BodyFormat::Markdown, &limits).expect("at the cap");
    assert_eq!(x.claims[0].figures.len(), limits.max_figures_per_claim);

    let over = format!(
        "Prices rose 4% [a](https://example.com/a).\n\n{}",
        claim_with_figures(limits.max_figures_per_claim + 1)
    );
    let err = extract_within(&over, BodyFormat::Markdown, &limits).expect_err("over the cap");
    assert_eq!(
        err,
        ExtractError::Limit(LimitExceeded::ClaimFigures {
            paragraph: 1,
            count: limits.max_figures_per_claim + 1,
            limit: limits.max_figures_per_claim,
        })
    );
    assert!(
        err.to_string().contains("extract.max_figures_per_claim"),
        "{err}"
    );
    // Unlimited extraction (tests, benches) still reads it.
    assert!(extract(&over, BodyFormat::Markdown).is_ok());
}

#[test]
fn a_sentence_over_the_word_cap_blocks_the_article_naming_the_key() {
    let limits = ExtractLimits {
        max_words_per_claim: 50,
        ..ExtractLimits::default()
    };
    let sentence = |words: usize| {
        format!(
            "Sales rose 4% {} [the report](https://example.com/r).",
            "across every region ".repeat(words / 3)
        )
    };
    assert!(extract_within(&sentence(40), BodyFormat::Markdown, &limits).is_ok());
    let err = extract_within(&sentence(60), BodyFormat::Markdown, &limits).expect_err("too long");
    assert!(
        matches!(
            err,
            ExtractError::Limit(LimitExceeded::ClaimWords { limit: 50, .. })
        ),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("extract.max_words_per_claim"),
        "{err}"
    );
}

#[test]
fn a_title_over_the_field_cap_is_refused_before_the_body_is_read() {
    let limits = ExtractLimits {
        max_field_bytes: 64,
        ..ExtractLimits::default()
    };
    let body = "Sales rose 4% [the report](https://example.com/r).";
    let title = "A title ".repeat(20);
    assert!(extract_titled_within(body, BodyFormat::Markdown, Some("Sales rose"), &limits).is_ok());
    let err = extract_titled_within(body, BodyFormat::Markdown, Some(&title), &limits)
        .expect_err("the title is too long");
    assert_eq!(
        err,
        ExtractError::Limit(LimitExceeded::FieldBytes {
            field: "title",
            bytes: title.len(),
            limit: 64,
        })
    );
    assert!(err.to_string().contains("extract.max_field_bytes"), "{err}");
}

#[test]
fn datelines_and_bylines_are_no_claims() {
    for line in [
        "VARELL, 13 May 2025",
        "By Ellie Carter, 11 June 2025",
        "7 March 2025",
        "Thursday 6 March 2025",
        "By Priya Mistry",
        "Updated 14:05 GMT, 3 June 2025",
        "LONDON, March 12 (Meridian)",
    ] {
        assert!(is_dateline(line), "{line}");
    }
    for sentence in [
        "The council approved the plan on 13 May 2025.",
        "By March 2025 the register held 3,412 households.",
        "Turnout was 61.3% on 2 May.",
        "Kettlebridge Council, 13 May 2025, approved the budget.",
    ] {
        assert!(!is_dateline(sentence), "{sentence}");
    }
}
