//! Feeds arbitrary claims and source pages to the judge, the code that reads text written by
//! others (any cited page). The input is a claim sentence and a page's text, split at the first
//! NUL byte. The claim is read as the extractor reads a cited sentence (its figures, quotes and
//! attribution); when the extractor finds no claim in it, a plain cited claim gets the
//! sentence's text and figures.
//!
//! The judge must return, never panic, and:
//! - a claim judged against the page indexed once (as the fetch cache keeps it, its windows'
//!   figures kept too) gets the judgment it gets against a fresh index of the same text, judged
//!   first or second;
//! - support is in [0, 1];
//! - every passage, and the evidence unless it is a cited fact-check's rating, quotes the page:
//!   its text is the page's characters at the offsets it gives.

#![no_main]

use factgate_core::extract::{ExtractLimits, extract_within};
use factgate_core::judge::{Evidence, JudgeSettings, PageIndex, judge_page, judge_source};
use factgate_core::model::{BodyFormat, Claim, ClaimElement};
use factgate_core::text::figures::parse_figures;
use libfuzzer_sys::fuzz_target;

const URL: &str = "http://127.0.0.1/source";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (sentence, page) = text.split_once('\0').unwrap_or((text, ""));
    let claim = claim_of(sentence);
    let settings = JudgeSettings::default();

    let index = PageIndex::new(page);
    let shared_first = judge_page(&claim, &index, URL, &settings);
    let fresh = judge_source(&claim, page.into(), URL, &settings);
    let shared_again = judge_page(&claim, &index, URL, &settings);
    assert_eq!(shared_first, fresh, "a shared index judges as a fresh one");
    assert_eq!(
        shared_again, fresh,
        "a second judgment on the index is the same"
    );

    assert!(
        (0.0..=1.0).contains(&fresh.support),
        "support {} out of [0, 1]",
        fresh.support
    );
    let chars: Vec<char> = page.chars().collect();
    for passage in &fresh.passages {
        assert_quotes_page(passage, &chars);
    }
    // The evidence quotes the page too, but for a cited fact-check's rating, which the page
    // carries as data rather than prose: that evidence names the claim reviewed and the rating,
    // at no offset (0..0).
    if let Some(evidence) = &fresh.evidence
        && !(fresh.element == Some(ClaimElement::Rating)
            && evidence.start == 0
            && evidence.end == 0)
    {
        assert_quotes_page(evidence, &chars);
    }
});

/// The claim the extractor reads in `sentence` cited by a link, or, when it finds none there,
/// the claim of a plain cited sentence with its text and figures replaced by the sentence's.
fn claim_of(sentence: &str) -> Claim {
    let cited = |sentence: &str| {
        let article = format!("{sentence} [source]({URL})");
        extract_within(&article, BodyFormat::Markdown, &ExtractLimits::default())
            .ok()
            .and_then(|e| e.claims.into_iter().find(|c| !c.citations.is_empty()))
    };
    cited(sentence).unwrap_or_else(|| {
        let mut claim = cited("Sales rose 5% in 2024.").expect("a cited figure is a claim");
        claim.text = sentence.to_owned();
        claim.figures = parse_figures(sentence);
        claim
    })
}

fn assert_quotes_page(evidence: &Evidence, chars: &[char]) {
    assert!(
        evidence.start <= evidence.end && evidence.end <= chars.len(),
        "offsets {}..{} outside a page of {} characters",
        evidence.start,
        evidence.end,
        chars.len()
    );
    let quoted: String = chars[evidence.start..evidence.end].iter().collect();
    assert_eq!(
        quoted, evidence.quote,
        "the quote is the page's text at its offsets"
    );
}
