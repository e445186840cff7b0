//! Properties of extraction over arbitrary input: it never panics, and what it returns is
//! consistent with the body it read.

use factgate_core::extract::{ExtractError, extract, extract_bytes};
use factgate_core::model::BodyFormat;
use proptest::prelude::*;

/// Pieces of Markdown that exercise the parser's corners when combined at random.
fn markdown_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("# Heading\n".to_string()),
        Just("## Sub\n".to_string()),
        Just("\n\n".to_string()),
        Just("- item ".to_string()),
        Just("1. item ".to_string()),
        Just("| a | b |\n|---|---|\n| 3% | $4m |\n".to_string()),
        Just("> quoted \"words here now\" ".to_string()),
        Just("[link](https://a.example/x) ".to_string()),
        Just("[ref][r] ".to_string()),
        Just("[r]: https://r.example/\n".to_string()),
        Just("[^1] ".to_string()),
        Just("[^1]: https://f.example/\n".to_string()),
        Just("[2] ".to_string()),
        Just("https://bare.example/path ".to_string()),
        Just("```\ncode 5%\n```\n".to_string()),
        Just("Dr. Smith said 3.5% of U.S. firms grew. ".to_string()),
        Just("Our pilot with 500 students showed 73% improvement. ".to_string()),
        Just("$4.2 billion ".to_string()),
        Just("€300m ".to_string()),
        Just("**bold** _em_ `code` ".to_string()),
        Just("<div>raw html</div>\n".to_string()),
        "[ -~]{0,40}",
        "\\PC{0,20}",
    ]
}

fn html_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("<h2>Title</h2>".to_string()),
        Just("<p>".to_string()),
        Just("</p>".to_string()),
        Just("<a href=\"https://a.example/\">".to_string()),
        Just("</a>".to_string()),
        Just("<script>var x = '50%';</script>".to_string()),
        Just("<table><tr><td>12%</td></tr></table>".to_string()),
        Just("<ul><li>one in five</li>".to_string()),
        Just("<nav>menu 99%</nav>".to_string()),
        Just("&amp; &#x27; &nbsp;".to_string()),
        Just("The market is worth $50 billion. ".to_string()),
        "[ -~]{0,40}",
        "\\PC{0,20}",
    ]
}

/// What must hold of any successful extraction of `body`.
fn check_consistent(body: &str, result: Result<factgate_core::extract::Extraction, ExtractError>) {
    let Ok(extraction) = result else { return };
    let chars = body.chars().count();
    for claim in &extraction.claims {
        assert!(!claim.text.trim().is_empty(), "a claim has text");
        assert!(
            !claim.kinds.is_empty() || !claim.citations.is_empty(),
            "a claim is check-worthy or cited"
        );
        assert!(claim.location.paragraph < extraction.paragraphs.max(1));
        if let Some(span) = claim.location.span {
            assert!(
                span.start <= span.end && span.end <= chars,
                "span inside the body"
            );
        }
        for figure in &claim.figures {
            assert!(figure.value.is_finite());
        }
        for citation in &claim.citations {
            assert!(
                citation.url.starts_with("http://") || citation.url.starts_with("https://"),
                "citations are http(s): {}",
                citation.url
            );
        }
        assert_eq!(
            claim.citations.is_empty(),
            claim.prejudgment.is_some(),
            "a claim that cites nothing is prejudged, and only such a claim"
        );
    }
    assert!(extraction.sentences >= extraction.claims.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = extract_bytes(&bytes, None);
        for format in [BodyFormat::Markdown, BodyFormat::Html, BodyFormat::Text] {
            let _ = extract_bytes(&bytes, Some(format));
        }
    }

    #[test]
    fn arbitrary_markdown_never_panics(pieces in proptest::collection::vec(markdown_piece(), 0..40)) {
        let body = pieces.concat();
        check_consistent(&body, extract(&body, BodyFormat::Markdown));
        check_consistent(&body, extract(&body, BodyFormat::Text));
    }

    #[test]
    fn arbitrary_html_never_panics(pieces in proptest::collection::vec(html_piece(), 0..40)) {
        let body = pieces.concat();
        check_consistent(&body, extract(&body, BodyFormat::Html));
    }
}

/// Inputs the fuzzer (`fuzz/fuzz_targets/extract.rs`) found to panic, kept so they never return.
#[test]
fn inputs_found_by_fuzzing_do_not_panic() {
    // A colon then two digits at the very start: the clock-time check looked two tokens back.
    for body in [":84", ":84 ", "x :84", ":12 pm"] {
        for format in [BodyFormat::Markdown, BodyFormat::Html, BodyFormat::Text] {
            let _ = extract(body, format);
        }
        let _ = factgate_core::text::figures::parse_figures(body);
    }
}

#[test]
fn whitespace_only_is_an_error_not_an_empty_list() {
    for format in [BodyFormat::Markdown, BodyFormat::Html, BodyFormat::Text] {
        assert_eq!(extract(" \n\t\n", format), Err(ExtractError::EmptyBody));
    }
}
