//! Judging claims against source text: verdicts, corrections, severities, quotes, names,
//! credibility, and the AUC used to measure quality.
//!
//! Claim figures are written by hand; source figures come from a small table-driven reader
//! passed to `judge_with`, so these tests do not depend on the extractor's figure parser.

use factgate_core::judge::{
    CredibilityLevel, IssueKind, JudgeSettings, Judgment, judge, judge_with, score::roc_auc,
};
use factgate_core::model::{
    CitationRule, Claim, ClaimElement, Figure, Location, Severity, Unit, Verdict,
};

const PRICING: &str = "Acme Cloud pricing.\n\
    The Acme Pro plan costs $9/month for small teams and includes unlimited projects.\n\
    Enterprise customers get dedicated support.\n\
    Acme was founded in Berlin in 2015 by Gartner alumni.";

const MARKET: &str = "Industry outlook.\n\
    Analysts at Gartner estimate the global market for tutoring software at $30 billion in 2024.\n\
    Growth is driven by schools adopting digital tools.\n\
    Critics say the CEO called the product \u{201C}a tutor for everyone\u{201D} at launch.";

fn money(text: &str, value: f64, per: Option<&str>) -> Figure {
    Figure {
        text: text.into(),
        value,
        unit: Unit::Currency,
        currency: Some("USD".into()),
        scale: if value >= 1e9 { 1e9 } else { 1.0 },
        per: per.map(String::from),
    }
}

fn claim(text: &str, figures: Vec<Figure>, quotes: &[&str]) -> Claim {
    Claim {
        id: "c1".into(),
        text: text.into(),
        kinds: Vec::new(),
        figures,
        quotes: quotes.iter().map(|q| q.to_string()).collect(),
        attributed_to: None,
        location: Location {
            section: None,
            paragraph: 0,
            sentence: 0,
            span: None,
            block: None,
        },
        citations: Vec::new(),
        citation_rule: CitationRule::SameSentence,
        prejudgment: None,
        unbacked: None,
    }
}

/// The source figures these pages state, found by their text.
fn source_figures(passage: &str) -> Vec<Figure> {
    let table = [
        ("$9/month", money("$9", 9.0, Some("month"))),
        ("$30 billion", money("$30 billion", 30e9, None)),
    ];
    table
        .into_iter()
        .filter(|(needle, _)| passage.contains(needle))
        .map(|(_, f)| f)
        .collect()
}

fn check(c: &Claim, page: &str) -> Judgment {
    judge_with(
        c,
        page,
        "https://example.com/page",
        &JudgeSettings::default(),
        source_figures,
    )
}

#[test]
fn a_claim_the_source_states_is_supported_with_its_evidence() {
    let c = claim(
        "The Acme Pro plan costs $9/month for small teams [3].",
        vec![money("$9/month", 9.0, Some("month"))],
        &[],
    );
    let j = check(&c, PRICING);
    assert_eq!(j.verdict, Verdict::Supported, "{j:#?}");
    assert_eq!(j.severity, None);
    assert_eq!(j.figure_error, Some(0.0));
    assert!(j.support > 0.8, "{}", j.support);
    let e = j.evidence.expect("evidence");
    assert!(e.quote.contains("costs $9/month"), "{e:?}");
    let at: String = PRICING
        .chars()
        .skip(e.start)
        .take(e.end - e.start)
        .collect();
    assert_eq!(at, e.quote);
    assert_eq!(j.source_url, "https://example.com/page");
}

#[test]
fn a_wrong_price_is_refuted_with_the_sources_price() {
    let c = claim(
        "The Acme Pro plan costs $4/month or $44/year [6].",
        vec![
            money("$4/month", 4.0, Some("month")),
            money("$44/year", 44.0, Some("year")),
        ],
        &[],
    );
    let j = check(&c, PRICING);
    assert_eq!(j.verdict, Verdict::Refuted, "{j:#?}");
    assert_eq!(j.severity, Some(Severity::High));
    assert_eq!(j.issue, Some(IssueKind::ContradictedFigure));
    assert_eq!(j.correction.as_deref(), Some("source says $9/month"));
    let error = j.figure_error.expect("figure compared");
    assert!((error - 5.0 / 9.0).abs() < 1e-9, "{error}");
    assert!(j.evidence.expect("evidence").quote.contains("$9/month"));
}

fn market_claim(billions: f64) -> Judgment {
    let text =
        format!("Gartner estimates the global tutoring software market at ${billions} billion.");
    let figure = money(&format!("${billions} billion"), billions * 1e9, None);
    check(&claim(&text, vec![figure], &[]), MARKET)
}

#[test]
fn a_market_size_far_off_is_refuted_high() {
    let j = market_claim(50.0);
    assert_eq!(j.verdict, Verdict::Refuted, "{j:#?}");
    assert_eq!(j.severity, Some(Severity::High));
    assert_eq!(j.correction.as_deref(), Some("source says $30 billion"));
    assert!(j.support <= JudgeSettings::default().support_threshold);
}

#[test]
fn a_figure_fifteen_percent_off_is_medium() {
    let j = market_claim(34.5);
    assert_eq!(j.verdict, Verdict::Unconfirmed, "{j:#?}");
    assert_eq!(j.severity, Some(Severity::Medium));
    assert_eq!(j.issue, Some(IssueKind::FigureDiscrepancy));
    assert!((j.figure_error.expect("compared") - 0.15).abs() < 1e-9);
}

#[test]
fn a_figure_five_percent_off_is_supported_with_a_low_note() {
    // "$31.5 billion" against the page's $30 billion for the same market: a minor discrepancy
    // (under 10%), supported, with a low note an editor may read; never a block.
    let j = market_claim(31.5);
    assert_eq!(j.verdict, Verdict::Supported, "{j:#?}");
    assert_eq!(j.severity, Some(Severity::Low));
    assert_eq!(j.correction.as_deref(), Some("source says $30 billion"));
    assert!((j.figure_error.expect("compared") - 0.05).abs() < 1e-9);
}

#[test]
fn a_quote_the_source_lacks_is_not_supported() {
    let text = "The CEO called the tutoring product \"the end of homework\" at launch.";
    let with_quote = check(&claim(text, vec![], &["the end of homework"]), MARKET);
    let without = check(&claim(text, vec![], &[]), MARKET);
    assert_eq!(with_quote.verdict, Verdict::Unconfirmed, "{with_quote:#?}");
    assert_eq!(with_quote.issue, Some(IssueKind::QuoteNotFound));
    assert_eq!(with_quote.severity, Some(Severity::Medium));
    assert!(with_quote.support < without.support / 2.0);
}

#[test]
fn a_quote_found_with_other_quote_marks_is_supported() {
    let text = "The CEO called the product \"a tutor for everyone\" at launch.";
    let j = check(&claim(text, vec![], &["a tutor for everyone"]), MARKET);
    assert_eq!(j.verdict, Verdict::Supported, "{j:#?}");
    assert_eq!(j.issue, None);
}

#[test]
fn a_name_the_source_lacks_lowers_support() {
    let named = |who: &str| {
        let text = format!("Analysts at {who} estimate the tutoring software market grows.");
        check(&claim(&text, vec![], &[]), MARKET)
    };
    let present = named("Gartner");
    let absent = named("Forrester");
    assert!(
        absent.support < present.support - 0.1,
        "{} vs {}",
        absent.support,
        present.support
    );
    assert!(
        absent.reasons.iter().any(|r| r.contains("forrester")),
        "{:?}",
        absent.reasons
    );
}

#[test]
fn an_unrelated_source_leaves_the_claim_unconfirmed_for_review_and_an_empty_one_says_so() {
    // A page about something else does not contradict the claim: it does not state it. The claim
    // is listed for review (low), not refuted.
    let c = claim(
        "The volcano erupted twice during the winter of 1783.",
        vec![],
        &[],
    );
    let unrelated = check(&c, PRICING);
    assert_eq!(unrelated.verdict, Verdict::Unconfirmed, "{unrelated:#?}");
    assert_eq!(unrelated.issue, Some(IssueKind::UnclearSupport));
    assert_eq!(unrelated.severity, Some(Severity::Low));
    let empty = check(&c, "  \n ");
    assert_eq!(empty.verdict, Verdict::Unconfirmed);
    assert_eq!(empty.issue, Some(IssueKind::EmptySource));
}

#[test]
fn credibility_follows_the_domain_lists() {
    let c = claim("The Acme Pro plan costs $9/month.", vec![], &[]);
    let settings = JudgeSettings::default();
    let level = |url: &str| judge(&c, PRICING, url, &settings).credibility;
    assert_eq!(
        level("https://www.bls.gov/cpi").level,
        CredibilityLevel::High
    );
    assert_eq!(level("https://cs.stanford.edu/x").score, 0.95);
    assert_eq!(
        level("https://www.reuters.com/a").level,
        CredibilityLevel::Reputable
    );
    assert_eq!(
        level("https://example.com/").level,
        CredibilityLevel::Generic
    );
    assert_eq!(level("https://someone.blogspot.com/").score, 0.30);
    let mut custom = JudgeSettings::default();
    custom.credibility.low.push("example.com".into());
    assert_eq!(
        judge(&c, PRICING, "https://example.com/", &custom)
            .credibility
            .level,
        CredibilityLevel::Low
    );
}

#[test]
fn auc_ranks_positives_above_negatives_with_ties_halved() {
    assert_eq!(roc_auc(&[0.9, 0.7, 0.7], &[0.7, 0.1]), Some(5.0 / 6.0));
    assert_eq!(roc_auc(&[0.2], &[]), None);
}

const REVIEW: &str = "Music news.\n\
    The new \u{201C}Style\u{201D} video from Taylor Swift is mature, tasteful, and, dare I say... sexy?\n\
    Hoffman had just seven days left to shoot on \u{201C}Mockingjay \u{2014} Part 2.\u{201D}\n\
    Kerrang! magazine's latest collection \u{201C}Maiden Heaven\u{201D} features bands covering Iron Maiden.\n\
    The chief executive said the company will raise prices for new customers next year.";

#[test]
fn a_quote_with_other_dashes_and_an_elision_is_supported() {
    let j = check(
        &claim(
            "Hoffman had seven days left to shoot on \"Mockingjay – Part 2\".",
            vec![],
            &["Mockingjay – Part 2"],
        ),
        REVIEW,
    );
    assert_eq!(j.verdict, Verdict::Supported, "{j:#?}");
    assert_eq!(j.issue, None);
    let j = check(
        &claim(
            "A critic called the Taylor Swift video \"mature, tasteful, and [...] sexy\".",
            vec![],
            &["mature, tasteful, and [...] sexy"],
        ),
        REVIEW,
    );
    assert_eq!(j.verdict, Verdict::Supported, "{j:#?}");
    assert_eq!(j.issue, None);
}

#[test]
fn a_quote_with_its_negation_added_contradicts_the_source() {
    // The source says the company will raise prices: the negation added inside the quote makes
    // it say the opposite, which is a contradiction (high), not only a misquote.
    let text = "The chief executive said the company \"will not raise prices\" for new customers.";
    let j = check(&claim(text, vec![], &["will not raise prices"]), REVIEW);
    assert_eq!(j.verdict, Verdict::Refuted, "{j:#?}");
    assert_eq!(j.issue, Some(IssueKind::Contradicted));
    assert_eq!(j.element, Some(ClaimElement::Negation));
    assert_eq!(j.severity, Some(Severity::High));
    assert!(
        j.problem
            .as_deref()
            .is_some_and(|p| p.contains("not") && p.contains("without the negation")),
        "{j:#?}"
    );
    assert!(
        j.correction.as_deref().is_some_and(|c| c.contains("raise")),
        "the correction gives the source's words: {j:#?}"
    );
    let elided = check(
        &claim(text, vec![], &["the company [...] will not raise prices"]),
        REVIEW,
    );
    assert_ne!(elided.verdict, Verdict::Supported, "{elided:#?}");
    assert!(elided.severity >= Some(Severity::Medium), "{elided:#?}");
}

#[test]
fn a_negation_added_to_a_quoted_description_contradicts_the_source() {
    // The source calls the video "mature, tasteful, and [...] sexy": the quote with "not" added
    // says the opposite of what the source says, a contradiction (high), as for any negated
    // quote, not only a misquote (medium).
    let text = "The critic said the new video is \"not mature, tasteful, and [...] sexy\".";
    let j = check(
        &claim(text, vec![], &["not mature, tasteful, and [...] sexy"]),
        REVIEW,
    );
    assert_eq!(j.verdict, Verdict::Refuted, "{j:#?}");
    assert_eq!(j.issue, Some(IssueKind::Contradicted), "{j:#?}");
    assert_eq!(j.element, Some(ClaimElement::Negation));
    assert_eq!(j.severity, Some(Severity::High));
}

#[test]
fn a_title_the_source_names_in_short_is_not_a_misquote() {
    let text = "Bands covered Iron Maiden for the Kerrang! collection \
                \"Maiden Heaven: A Tribute to Iron Maiden\".";
    let j = check(
        &claim(text, vec![], &["Maiden Heaven: A Tribute to Iron Maiden"]),
        REVIEW,
    );
    assert_ne!(j.issue, Some(IssueKind::QuoteNotFound), "{j:#?}");
    assert!(
        j.reasons.iter().any(|r| r.contains("does not name")),
        "{:?}",
        j.reasons
    );
    // The same words presented as someone's speech are a misquote.
    let said = check(
        &claim(text, vec![], &["a tribute to Iron Maiden by bands we love"]),
        REVIEW,
    );
    assert_eq!(said.issue, Some(IssueKind::QuoteNotFound), "{said:#?}");
}

#[test]
fn percentages_that_differ_are_told_apart_in_percentage_points() {
    let extraction = factgate_core::extract::extract(
        "Unemployment in the region reached 17% in 2024, [the agency](https://a.example/) said.",
        factgate_core::model::BodyFormat::Markdown,
    )
    .expect("extracts");
    let claim = &extraction.claims[0];
    let j = factgate_core::judge::judge(
        claim,
        "Unemployment in the region reached 7% in 2024, the statistics agency said.",
        "https://a.example/",
        &JudgeSettings::default(),
    );
    assert_eq!(j.verdict, Verdict::Refuted, "{j:#?}");
    let problem = j.problem.expect("a problem");
    assert!(problem.contains("10 percentage points higher"), "{problem}");
    assert!(!problem.contains("% off"), "{problem}");
}

/// A sentence of `n` sales figures, as a claim or a page would state them.
fn sales_of(n: usize) -> String {
    let figures: Vec<String> = (1..=n).map(|k| format!("${k} million")).collect();
    format!(
        "Northwind's stores sold {} in turn.",
        figures.join(", then ")
    )
}

#[test]
fn a_claim_of_more_figures_than_are_compared_is_never_supported_on_the_first_ones() {
    let settings = JudgeSettings::default();
    let url = "https://example.com/page";
    // The page states every figure of both claims, word for word.
    let page = format!("Annual report.\n{}\n", sales_of(150));
    let within = judge(
        &claim(&sales_of(100), Vec::new(), &[]),
        &page,
        url,
        &settings,
    );
    assert_eq!(within.verdict, Verdict::Supported, "control: {within:?}");
    let past = judge(
        &claim(&sales_of(150), Vec::new(), &[]),
        &page,
        url,
        &settings,
    );
    assert_eq!(past.verdict, Verdict::Unconfirmed, "{past:?}");
    assert_eq!(past.severity, Some(Severity::High), "{past:?}");
    let problem = past.problem.unwrap_or_default();
    assert!(
        problem.contains("gives 150 figures") && problem.contains("the other 50 were not"),
        "{problem}"
    );
}
