//! An editor's override end to end, on the embedded broker (librdkafka's mock cluster on
//! 127.0.0.1): the whole pipeline and its HTTP endpoints run in this process; a draft whose price
//! its source contradicts is blocked; the pages refuse to show it without a login; the editor,
//! logged in, posts the override form of its decision page; the join answers with a pass for that
//! revision carrying the editor, the reason and the finding waived (valid against the decision
//! schema); the next revision is judged afresh and blocked again, and overrides that name another
//! decision or a finding the decision does not have are refused and counted.

use crate::support::pipeline::{
    Served, TEST_EDITOR, decided, demo_draft, publish_draft, serve_on_embedded_broker,
};
use crate::support::schema::{assert_valid, validator};
use factgate::kafka::EventHeaders;
use factgate_core::events::{Decision, FindingRef, IssueType, OVERRIDE_V1, Outcome, OverrideEvent};
use std::time::Duration;
use tokio::time::{Instant, sleep};

const WRONG_FIGURE: &str = include_str!("../../examples/demo/drafts/wrong-figure.json");

/// The decision on `revision` of `article`, once it satisfies `done`.
async fn decision_where(
    client: &reqwest::Client,
    base: &str,
    article: &str,
    revision: u64,
    done: impl Fn(&Decision) -> bool,
) -> Decision {
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let response = client
            .get(format!("{base}/v1/decisions/{article}?revision={revision}"))
            .send()
            .await;
        if let Ok(response) = response
            && response.status() == 200
        {
            let decision: Decision = response.json().await.expect("a decision");
            if done(&decision) {
                return decision;
            }
        }
        assert!(Instant::now() < until, "{article} r{revision}: not in time");
        sleep(Duration::from_millis(200)).await;
    }
}

/// The value of the counter series `series` (`name{label="value"}`) on the admin listener.
async fn counter(client: &reqwest::Client, admin: &str, series: &str) -> f64 {
    let text = client
        .get(format!("{admin}/metrics"))
        .send()
        .await
        .expect("/metrics answers")
        .text()
        .await
        .expect("text");
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.trim().parse().ok())
        .unwrap_or(0.0)
}

/// `pairs` as a form body, as a browser posts it.
fn form(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

fn revision_of(article: &str, revision: u64, origin: &str) -> Vec<u8> {
    let mut draft: serde_json::Value =
        serde_json::from_slice(&demo_draft(WRONG_FIGURE, article, origin)).expect("JSON");
    draft["revision"] = revision.into();
    serde_json::to_vec(&draft).expect("serializes")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_override_passes_its_revision_with_the_audit_fields_and_no_other() {
    let origin = crate::support::origin::start_demo(axum::Router::new()).await;
    let Served {
        config,
        client,
        running,
        base,
        producer,
    } = serve_on_embedded_broker().await;
    let article = "override-1";

    publish_draft(
        &producer,
        &config,
        article,
        &revision_of(article, 1, &origin),
    )
    .await;
    let until = Instant::now() + Duration::from_secs(60);
    let blocked: Decision =
        serde_json::from_value(decided(&client, &base, article, until).await).expect("decision");
    assert_eq!(blocked.outcome, Outcome::Block);
    let issue = blocked
        .report
        .issues
        .iter()
        .find(|i| i.claim_id.is_some())
        .expect("a finding about the price claim")
        .clone();

    // Without a login the pages and the API refuse; the admin listener shows no draft.
    let anonymous = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    for path in [
        format!("/ui/decisions/{article}"),
        "/ui/".to_owned(),
        format!("/v1/decisions/{article}"),
    ] {
        let response = anonymous
            .get(format!("{base}{path}"))
            .send()
            .await
            .expect("answers");
        assert_eq!(response.status(), 401, "{path}");
    }
    let refused = anonymous
        .post(format!("{base}/ui/decisions/{article}/override"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(&[("revision", "1"), ("reason", "no login")]))
        .send()
        .await
        .expect("answers");
    assert_eq!(refused.status(), 401, "the form needs the login too");
    let admin_page = anonymous
        .get(format!("{}/ui/", running.admin))
        .send()
        .await
        .expect("answers");
    assert_eq!(admin_page.status(), 404, "no pages on the admin listener");

    // The decision page, logged in, offers the form for the finding.
    let page =
        crate::support::pipeline::html_page(&client, &format!("{base}/ui/decisions/{article}"))
            .await;
    assert!(
        page.contains("<form method=\"post\"") && page.contains("name=\"finding_type\""),
        "the page offers the override form: {page}"
    );

    // The editor overrides the finding from the page's form.
    let reason = "The pricing page changed after publication; the archived page shows $4/month.";
    let kind = serde_json::to_value(issue.issue_type).expect("name");
    let claim_id = issue.claim_id.clone().expect("a claim");
    let sent = client
        .post(format!("{base}/ui/decisions/{article}/override"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(&[
            ("revision", "1"),
            ("decision_id", blocked.decision_id.as_str()),
            ("finding_type", kind.as_str().expect("a string")),
            ("claim_id", claim_id.as_str()),
            ("reason", reason),
        ]))
        .send()
        .await
        .expect("posted");
    // The form redirects back to the decision's page (post/redirect/get), which says the
    // override was sent.
    assert_eq!(sent.status(), 200);
    assert!(
        sent.url()
            .query()
            .is_some_and(|q| q.contains("sent=override")),
        "{}",
        sent.url()
    );
    let landed = sent.text().await.unwrap_or_default();
    assert!(landed.contains("Your override was sent."), "{landed}");

    let passed = decision_where(&client, &base, article, 1, |d| d.override_applied.is_some()).await;
    assert_eq!(passed.outcome, Outcome::Pass, "{:?}", passed.reasons);
    assert_eq!(passed.revision, Some(1));
    let applied = passed.override_applied.as_ref().expect("audit fields");
    assert_eq!(applied.editor, TEST_EDITOR, "the logged-in editor");
    assert_eq!(applied.reason, reason);
    assert_eq!(applied.overrides, blocked.decision_id);
    assert_eq!(applied.finding, FindingRef::of(&issue));
    assert_ne!(passed.decision_id, blocked.decision_id);
    assert_eq!(
        passed.report.waived.len(),
        1,
        "listed as waived, not dropped"
    );
    assert_eq!(passed.report.waived[0].issue, issue);
    assert!(
        !passed
            .report
            .issues
            .iter()
            .any(|i| applied.finding.names(i))
    );
    assert_valid(&validator("decision.v1"), &passed);
    let page = crate::support::pipeline::html_page(
        &client,
        &format!("{base}/ui/decisions/{article}?revision=1"),
    )
    .await;
    assert!(page.contains("Waived findings") && page.contains("the archived page shows"));
    assert!(page.contains(&format!("overridden by {TEST_EDITOR}")));
    // The claim's card still says what differs, both sides of it, after the override.
    assert!(
        page.contains("where the claim says $4&#x2f;month"),
        "the difference keeps the claim's side: {page}"
    );
    // The desk's row names the overriding editor once.
    let desk = crate::support::pipeline::html_page(&client, &format!("{base}/ui/")).await;
    let row = desk
        .split("<tr")
        .find(|row| row.contains(&format!("data-article-id=\"{article}\"")))
        .expect("the article's row");
    assert_eq!(
        row.matches(&format!("overridden by {TEST_EDITOR}")).count(),
        1,
        "{row}"
    );

    // The next revision, with the same words, is judged afresh: blocked again.
    publish_draft(
        &producer,
        &config,
        article,
        &revision_of(article, 2, &origin),
    )
    .await;
    let second = decision_where(&client, &base, article, 2, |d| d.outcome == Outcome::Block).await;
    assert!(second.override_applied.is_none() && second.report.waived.is_empty());
    // Its page says revision 1 was overridden to a pass, and by whom.
    let page = crate::support::pipeline::html_page(
        &client,
        &format!("{base}/ui/decisions/{article}?revision=2"),
    )
    .await;
    assert!(
        page.contains(&format!("(overridden to a pass by {TEST_EDITOR})")),
        "{page}"
    );

    // Overrides on the topic that name revision 1's decision for revision 2, or a finding
    // revision 2's decision does not have, are refused and counted; revision 2 stays blocked.
    let other_before = counter(
        &client,
        &running.admin,
        "factgate_overrides_refused_total{why=\"other_decision\"}",
    )
    .await;
    let unnamed_before = counter(
        &client,
        &running.admin,
        "factgate_overrides_refused_total{why=\"no_such_finding\"}",
    )
    .await;
    let stale = OverrideEvent::new(
        article,
        2,
        &blocked.decision_id,
        FindingRef::of(&issue),
        "Ana Editor",
        "stale",
        chrono::Utc::now(),
    );
    let unnamed = OverrideEvent::new(
        article,
        2,
        &second.decision_id,
        FindingRef {
            issue_type: IssueType::Contested,
            claim_id: Some(claim_id.clone()),
        },
        "Ana Editor",
        "not a finding of this decision",
        chrono::Utc::now(),
    );
    for over in [&stale, &unnamed] {
        producer
            .produce(
                &config.kafka.topics.overrides,
                article,
                &serde_json::to_vec(over).expect("serializes"),
                &EventHeaders::new(OVERRIDE_V1, None),
            )
            .await
            .expect("override delivered");
    }
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let other = counter(
            &client,
            &running.admin,
            "factgate_overrides_refused_total{why=\"other_decision\"}",
        )
        .await;
        let unnamed = counter(
            &client,
            &running.admin,
            "factgate_overrides_refused_total{why=\"no_such_finding\"}",
        )
        .await;
        if other > other_before && unnamed > unnamed_before {
            break;
        }
        assert!(
            Instant::now() < until,
            "the overrides were not refused in time"
        );
        sleep(Duration::from_millis(300)).await;
    }
    let still = decision_where(&client, &base, article, 2, |_| true).await;
    assert_eq!(still.outcome, Outcome::Block);
    assert_eq!(still.decision_id, second.decision_id);
    let applied = counter(
        &client,
        &running.admin,
        &format!(
            "factgate_overrides_total{{finding=\"{}\"}}",
            kind.as_str().expect("a string")
        ),
    )
    .await;
    assert!(
        applied >= 1.0,
        "the override is counted by its finding type"
    );
    running.stop().await;
}

/// `over` produced to the overrides topic, as the form or a standards tool sends it.
async fn send_override(
    producer: &factgate::kafka::EventProducer,
    config: &factgate::config::Config,
    over: &OverrideEvent,
) {
    producer
        .produce(
            &config.kafka.topics.overrides,
            &over.article_id,
            &serde_json::to_vec(over).expect("serializes"),
            &EventHeaders::new(OVERRIDE_V1, None),
        )
        .await
        .expect("override delivered");
}

/// Waits until the counter `series` reaches `at_least`.
async fn counter_reaches(client: &reqwest::Client, admin: &str, series: &str, at_least: f64) {
    let until = Instant::now() + Duration::from_secs(90);
    while counter(client, admin, series).await < at_least {
        assert!(Instant::now() < until, "{series} did not reach {at_least}");
        sleep(Duration::from_millis(300)).await;
    }
}

/// Overrides naming decisions no one made hold up no other: six of them, sent first, are each
/// answered (refused and counted) after their wait, while the valid override sent after them is
/// applied before any of them is refused. The same override sent again is audited as a
/// duplicate, changing nothing; and an override of a revision the article has moved past is
/// refused, so the article's newest decision stays its latest revision's block.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn overrides_are_each_audited_and_none_holds_up_another() {
    let origin = crate::support::origin::start_demo(axum::Router::new()).await;
    let Served {
        config,
        client,
        running,
        base,
        producer,
    } = serve_on_embedded_broker().await;
    let admin = running.admin.clone();
    let article = "override-queue";
    publish_draft(
        &producer,
        &config,
        article,
        &revision_of(article, 1, &origin),
    )
    .await;
    let until = Instant::now() + Duration::from_secs(60);
    let blocked: Decision =
        serde_json::from_value(decided(&client, &base, article, until).await).expect("decision");
    assert_eq!(blocked.outcome, Outcome::Block);
    let issue = blocked
        .report
        .issues
        .iter()
        .find(|i| i.claim_id.is_some())
        .expect("a finding")
        .clone();

    let other = "factgate_overrides_refused_total{why=\"other_decision\"}";
    let other_before = counter(&client, &admin, other).await;
    for n in 0..6 {
        let ghost = OverrideEvent::new(
            &format!("ghost-{n}"),
            1,
            &format!("no-such-decision-{n}"),
            FindingRef::of(&issue),
            "Ana Editor",
            "names a decision no one made",
            chrono::Utc::now(),
        );
        send_override(&producer, &config, &ghost).await;
    }
    let valid = OverrideEvent::new(
        article,
        1,
        &blocked.decision_id,
        FindingRef::of(&issue),
        "Ana Editor",
        "The archived page shows the figure.",
        chrono::Utc::now(),
    );
    send_override(&producer, &config, &valid).await;
    let passed = decision_where(&client, &base, article, 1, |d| d.override_applied.is_some()).await;
    assert_eq!(passed.outcome, Outcome::Pass, "{:?}", passed.reasons);
    assert!(
        counter(&client, &admin, other).await < other_before + 6.0,
        "the valid override waited behind the six that name no decision"
    );
    counter_reaches(&client, &admin, other, other_before + 6.0).await;

    // The same override again: audited as a duplicate; the decision in force stays.
    let duplicate = "factgate_overrides_refused_total{why=\"duplicate\"}";
    let duplicates_before = counter(&client, &admin, duplicate).await;
    send_override(&producer, &config, &valid).await;
    counter_reaches(&client, &admin, duplicate, duplicates_before + 1.0).await;
    let same = decision_where(&client, &base, article, 1, |_| true).await;
    assert_eq!(same.decision_id, passed.decision_id);

    // Revision 2 is blocked; an override of revision 1's first decision now is refused as
    // superseded, and the article's newest decision is revision 2's block.
    let other_article = "override-superseded";
    publish_draft(
        &producer,
        &config,
        other_article,
        &revision_of(other_article, 1, &origin),
    )
    .await;
    let until = Instant::now() + Duration::from_secs(60);
    let first: Decision =
        serde_json::from_value(decided(&client, &base, other_article, until).await)
            .expect("decision");
    publish_draft(
        &producer,
        &config,
        other_article,
        &revision_of(other_article, 2, &origin),
    )
    .await;
    let second = decision_where(&client, &base, other_article, 2, |d| {
        d.outcome == Outcome::Block
    })
    .await;
    let superseded = "factgate_overrides_refused_total{why=\"superseded\"}";
    let superseded_before = counter(&client, &admin, superseded).await;
    let late = OverrideEvent::new(
        other_article,
        1,
        &first.decision_id,
        FindingRef::of(
            first
                .report
                .issues
                .iter()
                .find(|i| i.claim_id.is_some())
                .expect("a finding"),
        ),
        "Ana Editor",
        "overriding the old revision",
        chrono::Utc::now(),
    );
    send_override(&producer, &config, &late).await;
    counter_reaches(&client, &admin, superseded, superseded_before + 1.0).await;
    let newest: Decision =
        serde_json::from_value(decided(&client, &base, other_article, until).await)
            .expect("decision");
    assert_eq!(newest.decision_id, second.decision_id);
    assert_eq!(newest.outcome, Outcome::Block);
    let old = decision_where(&client, &base, other_article, 1, |_| true).await;
    assert!(
        old.override_applied.is_none(),
        "revision 1 was not overridden"
    );
    running.stop().await;
}
