use super::*;
use chrono::Utc;
use factgate_core::decide::{self, ArticleCheck, Strictness};
use factgate_core::events::{ClaimResult, Evidence, FetchStatus, Issue, IssueType};
use factgate_core::model::{Claim, Verdict};
use scraper::{Html, Selector};

/// Markup written raw (which Markdown takes as markup and drops) and written as entities (which
/// Markdown decodes to text that looks like markup: that text must show as text).
const HOSTILE_BODY: &str = "# Prices <script>alert(0)</script> &lt;script&gt;alert(1)&lt;/script&gt;\n\n\
The plan costs $4/month, the company said [1]. Revenue grew 40% in 2023 [2].\n\n\
Our pilot with 500 students showed gains of 30%.\n\n\
Sales rose 12% to &lt;img src=x onerror=alert(2)&gt; $3m [3].\n\n\
## Sources\n\n\
1. https://a.example/pricing\n\
2. https://b.example/report\n\
3. https://c.example/sales\n";

fn result(claim: &Claim, url: &str, verdict: Verdict, quote: &str, issue: bool) -> ClaimResult {
    ClaimResult {
        schema_version: Default::default(),
        article_id: "a-1".to_owned(),
        revision: 2,
        claim_id: claim.id.clone(),
        source_url: url.to_owned(),
        fetch_status: FetchStatus::Ok,
        http_status: Some(200),
        fetch_attempts: 1,
        verdict,
        support: 0.5,
        confidence: None,
        source_credibility: 0.7,
        evidence: Some(Evidence {
            quote: quote.to_owned(),
            span: None,
            sentence: None,
            page: None,
        }),
        correction: (verdict == Verdict::Refuted).then(|| "source says $9/month".to_owned()),
        issue: issue.then(|| Issue {
            severity: Severity::High,
            issue_type: IssueType::VerifiedFalse,
            claim: claim.text.clone(),
            location: claim.location.to_string(),
            problem: "Pricing contradicts source".to_owned(),
            evidence: quote.to_owned(),
            recommendation: "Correct to $9/month".to_owned(),
            claim_id: Some(claim.id.clone()),
            source_url: Some(url.to_owned()),
            element: None,
            difference: None,
        }),
        draft_position: None,
        reason: "judged".to_owned(),
        judged_at: Utc::now(),
    }
}

/// A decision on [`HOSTILE_BODY`]: the price refuted by a source whose passage holds markup, the
/// growth supported, the sales figure unverifiable, the pilot unsourced.
fn hostile_decision() -> Decision {
    let extraction = extract::extract(HOSTILE_BODY, BodyFormat::Markdown).expect("readable");
    let by = |needle: &str| {
        extraction
            .claims
            .iter()
            .find(|c| c.text.contains(needle))
            .unwrap_or_else(|| panic!("a claim with {needle:?}: {:?}", extraction.claims))
    };
    let results = vec![
        result(
            by("$4/month"),
            "https://a.example/pricing",
            Verdict::Refuted,
            "The plan costs $9/month <script>alert(3)</script> for everyone.",
            true,
        ),
        result(
            by("40%"),
            "https://b.example/report",
            Verdict::Supported,
            "Revenue grew 40% in 2023.",
            false,
        ),
        result(
            by("12%"),
            "https://c.example/sales",
            Verdict::Unconfirmed,
            "<b>Nothing</b> about sales.",
            true,
        ),
    ];
    decided(
        "a-1\"><script>alert(4)</script>",
        &extraction.claims,
        &results,
    )
}

/// The decision, under the normal policy, on revision 2 of `article_id` from these results
/// (made the article's own).
fn decided(article_id: &str, claims: &[Claim], results: &[ClaimResult]) -> Decision {
    let results: Vec<ClaimResult> = results
        .iter()
        .cloned()
        .map(|r| ClaimResult {
            article_id: article_id.to_owned(),
            ..r
        })
        .collect();
    decide::decide(
        &ArticleCheck {
            article_id,
            revision: 2,
            content_digest: "digest",
            published_at: Utc::now(),
            claims,
            results: &results,
            unfinished: &[],
        },
        Strictness::Normal,
        Utc::now(),
    )
}

fn page(decision: &Decision, previous: Option<&Decision>) -> Html {
    Html::parse_document(&decision_page(&DecisionPage {
        decision,
        body: Some((HOSTILE_BODY, BodyFormat::Markdown)),
        title: Some("Prices <i>rise</i>"),
        section: Some("Business"),
        previous,
        back: Some("/ui/"),
        override_action: None,
        notice: None,
    }))
}

fn select<'a>(html: &'a Html, css: &str) -> Vec<scraper::ElementRef<'a>> {
    html.select(&Selector::parse(css).expect("selector"))
        .collect()
}

#[test]
fn every_claim_is_marked_in_the_article_with_its_verdict_and_a_panel() {
    let decision = hostile_decision();
    let html = page(&decision, None);
    let marks = select(&html, "article a.claim");
    let verdicts: Vec<&str> = marks
        .iter()
        .filter_map(|m| m.value().attr("data-verdict"))
        .collect();
    assert_eq!(
        verdicts.len(),
        decision.report.claims.len(),
        "{verdicts:?} for {:?}",
        decision.report.claims
    );
    for expected in ["refuted", "supported", "unverifiable", "unsourced"] {
        assert!(verdicts.contains(&expected), "{expected} in {verdicts:?}");
    }
    // Each mark is a link to its panel, and says its verdict in words, not colour alone.
    for mark in &marks {
        let href = mark.value().attr("href").expect("a link");
        let panel = select(&html, href);
        assert_eq!(panel.len(), 1, "{href}");
        assert_eq!(
            panel[0].value().attr("data-verdict"),
            mark.value().attr("data-verdict")
        );
        let text: String = mark.text().collect();
        let label = mark.value().attr("data-verdict").expect("verdict");
        assert!(
            text.to_lowercase()
                .contains(&label.replace("unchecked", "not checked")),
            "{text}"
        );
    }
    // The refuted claim's panel: the passage with the figure that differs marked (not the words
    // it shares with the claim, which would read as agreement), the source and its credibility
    // class, the problem and the correction.
    let refuted = select(&html, "li.card[data-verdict=refuted]");
    let panel: String = refuted[0].text().collect();
    for expected in [
        "https://a.example/pricing",
        "reputable (0.70)",
        "source says $9/month",
        "Pricing contradicts source",
        "Correct to $9/month",
    ] {
        assert!(panel.contains(expected), "{expected} in {panel}");
    }
    let marked: Vec<String> = select(&html, "li.card[data-verdict=refuted] blockquote mark")
        .iter()
        .map(|m| m.text().collect())
        .collect();
    assert_eq!(marked, ["$9/month"], "only the element that differs");
    assert!(
        panel.contains("[differs from the claim]"),
        "in words too: {panel}"
    );
    // The top of the page: outcome, reasons, priorities.
    assert_eq!(
        select(&html, "h1 .outcome")[0].value().attr("data-outcome"),
        Some("block")
    );
    assert!(!select(&html, "#priorities").is_empty());
    // A numbered list of priorities does not number them again ("1. Priority 1: …").
    let priorities = select(&html, "ol.priorities li");
    assert!(!priorities.is_empty());
    for item in priorities {
        let text: String = item.text().collect();
        assert!(!text.starts_with("Priority "), "{text}");
    }
    // What blocks the article leads, before the article and its claims.
    let order: Vec<&str> = select(&html, "main h2")
        .iter()
        .filter_map(|h| h.value().id())
        .collect();
    let at = |id: &str| order.iter().position(|h| *h == id);
    assert!(
        at("blocking").is_some() && at("blocking") < at("article-heading"),
        "{order:?}"
    );
}

#[test]
fn markup_from_drafts_and_sources_is_text_never_elements() {
    let decision = hostile_decision();
    let raw = decision_page(&DecisionPage {
        decision: &decision,
        body: Some((HOSTILE_BODY, BodyFormat::Markdown)),
        title: Some("Prices <i>rise</i>"),
        section: Some("Business"),
        previous: None,
        back: None,
        override_action: None,
        notice: None,
    });
    let html = Html::parse_document(&raw);
    assert!(select(&html, "script").is_empty(), "{raw}");
    assert!(select(&html, "img").is_empty());
    assert!(select(&html, "h1 i").is_empty());
    assert!(select(&html, "blockquote b").is_empty());
    let text: String = html.root_element().text().collect();
    for shown in [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(2)>",
        "<script>alert(3)</script>",
        "<b>Nothing</b>",
        "Prices <i>rise</i>",
    ] {
        assert!(text.contains(shown), "{shown} shown as text");
    }
    // The page loads nothing and allows no script.
    assert!(CONTENT_SECURITY_POLICY.contains("default-src 'none'"));
    assert!(!CONTENT_SECURITY_POLICY.contains("script-src"));
    assert!(!raw.contains("src=\"http") && !raw.contains("<link"));
}

#[test]
fn changes_since_the_previous_revision_are_listed() {
    let current = hostile_decision();
    let mut previous = current.clone();
    previous.revision = Some(1);
    previous.outcome = Outcome::Pass;
    previous.report.claims.retain(|c| !c.text.contains("12%"));
    previous
        .report
        .claims
        .iter_mut()
        .find(|c| c.text.contains("$4/month"))
        .expect("the price claim")
        .verdict = Some(ClaimStatus::Supported);
    // Supported then, so without the issue it has now.
    previous
        .report
        .issues
        .retain(|i| !i.claim.contains("$4/month"));
    previous.report.claims.push(ClaimVerdict {
        text: "An old claim of 2019.".to_owned(),
        ..previous.report.claims[0].clone()
    });
    let html = page(&current, Some(&previous));
    let changes: String = select(&html, "#changes")[0]
        .parent()
        .and_then(scraper::ElementRef::wrap)
        .expect("section")
        .text()
        .collect();
    assert!(changes.contains("Since revision 1"), "{changes}");
    assert!(changes.contains("was Supported, now Refuted"), "{changes}");
    assert!(changes.contains("New claim: “Sales rose 12%"), "{changes}");
    assert!(
        changes.contains("Claim gone: “An old claim of 2019."),
        "{changes}"
    );
}

#[test]
fn without_the_body_the_claims_are_still_listed() {
    let decision = hostile_decision();
    let html = Html::parse_document(&decision_page(&DecisionPage {
        decision: &decision,
        body: None,
        title: None,
        section: None,
        previous: None,
        back: None,
        override_action: None,
        notice: None,
    }));
    assert!(select(&html, "article a.claim").is_empty());
    assert_eq!(select(&html, "li.card").len(), decision.report.claims.len());
}

#[test]
fn shared_words_mark_figures_and_content_words_only() {
    let runs = shared_words(
        "The plan is $9/month in 2024.",
        "The plan costs $4/month in 2024",
    );
    let marked: Vec<&str> = runs
        .iter()
        .filter(|r| r.mark)
        .map(|r| r.text.as_str())
        .collect();
    assert_eq!(marked, ["plan", "month", "2024"]);
    let whole: String = runs.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(whole, "The plan is $9/month in 2024.");
    let runs = shared_words("Its plan costs less.", "The plan costs $4");
    let marked: Vec<&str> = runs
        .iter()
        .filter(|r| r.mark)
        .map(|r| r.text.as_str())
        .collect();
    assert_eq!(marked, ["plan costs"]);
}

#[test]
fn credibility_classes_follow_the_configured_scores() {
    assert_eq!(credibility_name(0.95), "high");
    assert_eq!(credibility_name(0.7), "reputable");
    assert_eq!(credibility_name(0.5), "generic");
    assert_eq!(credibility_name(0.3), "low");
}

#[test]
fn the_desk_page_shows_its_figures_and_escapes_titles() {
    let decision = hostile_decision();
    let desk = Desk {
        rows: vec![DeskEntry {
            decision: &decision,
            title: Some("<script>alert(5)</script>"),
            section: Some("Business"),
            href: "/ui/decisions/a-1",
            pending_revision: None,
        }],
        truncated: false,
        outcome: Some(Outcome::Block),
        section: Some("Business"),
        sections: vec!["Business", "Science"],
        blocked_today: 1,
        passed_today: 0,
        pending: 2,
        top_reasons: vec![(DecisionReason::HighSeverityIssue, 1)],
        overrides_today: 3,
        unreadable: vec![(
            "drafts.published:0@17".to_owned(),
            "not JSON: expected value at line 1 column 1 <b>".to_owned(),
            Utc::now(),
        )],
        today: Utc::now(),
    };
    let html = Html::parse_document(&desk_page(&desk));
    assert!(select(&html, "script").is_empty());
    // Each row names the article and revision, and says its first finding in words.
    assert_eq!(
        select(&html, "[data-article-id]")[0]
            .value()
            .attr("data-article-id"),
        Some(decision.article_id.as_str())
    );
    assert!(!select(&html, "[data-first-finding]").is_empty());
    assert_eq!(
        select(&html, "[data-figure=overrides-today]")[0]
            .text()
            .collect::<String>(),
        "3"
    );
    // A draft that could not be read is listed with its error, escaped.
    let unreadable: String = select(&html, "[data-unreadable]")[0].text().collect();
    assert!(
        unreadable.contains("not JSON") && unreadable.contains("<b>"),
        "{unreadable}"
    );
    assert!(select(&html, "b").is_empty());
    assert_eq!(
        select(&html, "[data-figure=blocked-today]")[0]
            .text()
            .collect::<String>(),
        "1"
    );
    assert_eq!(select(&html, "tbody tr").len(), 1);
    assert_eq!(
        select(&html, "select#outcome option[selected]")[0]
            .value()
            .attr("value"),
        Some("block")
    );
}

#[test]
fn only_http_sources_become_links_and_template_syntax_in_text_stays_text() {
    let mut decision = hostile_decision();
    let price = decision
        .report
        .claims
        .iter_mut()
        .find(|c| c.text.contains("$4/month"))
        .expect("the price claim");
    price.source_url = Some("javascript:alert(6)".to_owned());
    price.text = "{{ 7*7 }} {% raw %} claim".to_owned();
    let html = Html::parse_document(&decision_page(&DecisionPage {
        decision: &decision,
        body: None,
        title: None,
        section: None,
        previous: None,
        back: None,
        override_action: None,
        notice: None,
    }));
    for link in select(&html, "a[href]") {
        let href = link.value().attr("href").unwrap_or_default();
        assert!(!href.to_lowercase().starts_with("javascript:"), "{href}");
    }
    let text: String = html.root_element().text().collect();
    assert!(text.contains("javascript:alert(6)"), "shown, not linked");
    assert!(text.contains("{{ 7*7 }} {% raw %} claim"), "not evaluated");
    assert!(!text.contains("49 "));
}

#[test]
fn a_shortened_report_and_an_unchecked_article_say_why_claims_are_missing() {
    let mut shortened = hostile_decision();
    let total = shortened.report.claims.len();
    assert!(total > 1, "the fixture has several claims");
    shortened.report.claims.truncate(1);
    let html = page(&shortened, None);
    let note = select(&html, "[data-claims-left-out]");
    assert_eq!(note.len(), 1, "the page says claims were left out");
    assert_eq!(
        note[0].value().attr("data-claims-left-out"),
        Some((total - 1).to_string().as_str())
    );
    assert!(!html.html().contains("No check-worthy claim"));

    let unreadable = factgate_core::decide::decide_not_checked(
        "a-9",
        Some(1),
        &factgate_core::events::content_digest(b"x"),
        factgate_core::events::DecisionReason::ExtractionFailed,
        "the body is not readable text",
        None,
        Utc::now(),
    );
    let text = page(&unreadable, None).html();
    assert!(text.contains("were not checked"), "{text}");
    assert!(!text.contains("No check-worthy claim"), "{text}");
}

#[test]
fn a_contested_claim_shows_the_refuting_and_the_supporting_source() {
    let extraction = extract::extract(HOSTILE_BODY, BodyFormat::Markdown).expect("readable");
    let price = extraction
        .claims
        .iter()
        .find(|c| c.text.contains("$4/month"))
        .expect("the price claim");
    let results = vec![
        result(
            price,
            "https://a.example/pricing",
            Verdict::Refuted,
            "The plan costs $9/month.",
            true,
        ),
        result(
            price,
            "https://d.example/offers",
            Verdict::Supported,
            "The plan costs $4/month this spring.",
            false,
        ),
    ];
    let decision = decided("a-1", &extraction.claims, &results);
    let html = page(&decision, None);
    let card = select(&html, "li.card[data-verdict=contested]");
    assert_eq!(card.len(), 1, "one contested claim");
    let text: String = card[0].text().collect();
    assert!(
        text.contains("https://a.example/pricing") && text.contains("https://d.example/offers"),
        "{text}"
    );
    assert!(
        text.contains("The plan costs $9/month.") && text.contains("$4/month this spring"),
        "{text}"
    );
    assert!(text.contains("Supporting source"), "{text}");
}

#[test]
fn the_reports_own_changes_section_is_shown_without_the_previous_decision() {
    let mut current = hostile_decision();
    let mut previous = current.clone();
    previous.revision = Some(1);
    // The previous revision had one issue more, since fixed.
    let mut gone = previous.report.issues[0].clone();
    gone.claim = "An old claim of 2019.".to_owned();
    gone.claim_id = None;
    gone.problem = "Citation returns 404 error".to_owned();
    previous.report.issues.push(gone);
    let digest = factgate_core::decide::revisions::RevisionDigest::of(&previous).expect("digest");
    current.report.changes_since_previous = Some(factgate_core::decide::revisions::compare(
        &digest,
        &current.report,
    ));
    let html = page(&current, None);
    let section: String = select(&html, "#changes")[0]
        .parent()
        .and_then(scraper::ElementRef::wrap)
        .expect("section")
        .text()
        .collect();
    let issues = current.report.issues.len();
    assert!(
        section.contains(&format!(
            "Revision 2: 1 of {} issues fixed; {issues} still open; 0 new",
            issues + 1
        )),
        "{section}"
    );
    assert_eq!(select(&html, "li[data-change=fixed]").len(), 1);
    assert_eq!(select(&html, "li[data-change=still_open]").len(), issues);
}

#[test]
fn a_supported_claim_with_a_blocking_issue_is_not_shown_as_supported() {
    let extraction = extract::extract(HOSTILE_BODY, BodyFormat::Markdown).expect("readable");
    let growth = extraction
        .claims
        .iter()
        .find(|c| c.text.contains("40%"))
        .expect("the growth claim");
    // One source backs the claim; its other citation is dead.
    let mut dead = result(
        growth,
        "https://e.example/gone",
        Verdict::Unconfirmed,
        "",
        false,
    );
    dead.fetch_status = FetchStatus::NotFound;
    dead.http_status = Some(404);
    dead.evidence = None;
    dead.issue = Some(Issue {
        severity: Severity::High,
        issue_type: IssueType::Unverifiable,
        claim: growth.text.clone(),
        location: growth.location.to_string(),
        problem: "Citation returns 404 error".to_owned(),
        evidence: String::new(),
        recommendation: "Replace the citation".to_owned(),
        claim_id: Some(growth.id.clone()),
        source_url: Some("https://e.example/gone".to_owned()),
        element: None,
        difference: None,
    });
    let results = vec![
        result(
            growth,
            "https://b.example/report",
            Verdict::Supported,
            "Revenue grew 40% in 2023.",
            false,
        ),
        dead,
    ];
    let decision = decided("a-1", &extraction.claims, &results);
    assert_eq!(decision.outcome, Outcome::Block, "the dead citation blocks");
    let html = page(&decision, None);
    let card = select(&html, &format!("li.card[data-claim-id='{}']", growth.id));
    assert_eq!(card.len(), 1);
    assert_ne!(
        card[0].value().attr("data-verdict"),
        Some("supported"),
        "the claim that blocks the article is not marked supported"
    );
    assert!(select(&html, "article a.claim[data-verdict=supported]").is_empty());
}

#[test]
fn an_edited_claim_is_listed_once_as_changed_with_before_and_after() {
    let claim = |text: &str, status| factgate_core::events::ClaimVerdict {
        claim_id: format!("id-{}", text.len()),
        text: text.into(),
        location: "paragraph 1".into(),
        verdict: Some(status),
        support: None,
        confidence: None,
        source_url: None,
        evidence_quote: None,
        evidence_page: None,
        correction: None,
        severity: None,
        source_credibility: None,
        contested: false,
        from_cache: None,
        supporting_source: None,
        backed_by: None,
    };
    let decided = |revision, claims| {
        let mut d = factgate_core::decide::decide_not_checked(
            "a-1",
            Some(revision),
            "d",
            DecisionReason::InternalError,
            "x",
            None,
            Utc::now(),
        );
        d.report.claims = claims;
        d
    };
    let before = decided(
        1,
        vec![
            claim(
                "Unemployment in the region reached 17% in 2024, the agency said.",
                factgate_core::events::ClaimStatus::Refuted,
            ),
            claim(
                "The council approved a budget of $2.4 billion.",
                factgate_core::events::ClaimStatus::Supported,
            ),
        ],
    );
    let after = decided(
        2,
        vec![
            claim(
                "Unemployment in the region reached 7% in 2024, the statistics agency said.",
                factgate_core::events::ClaimStatus::Supported,
            ),
            claim(
                "The council approved a budget of $2.4 billion.",
                factgate_core::events::ClaimStatus::Supported,
            ),
        ],
    );
    let view = changes(&before, &after);
    assert_eq!(view.edited.len(), 1, "one claim changed");
    assert!(view.edited[0].before.contains("17%") && view.edited[0].after.contains("7% in"));
    assert_eq!(
        (view.edited[0].from, view.edited[0].to),
        ("Refuted", "Supported")
    );
    assert!(view.added.is_empty(), "not also new: {:?}", view.added);
    assert!(view.removed.is_empty(), "nor gone: {:?}", view.removed);
}
