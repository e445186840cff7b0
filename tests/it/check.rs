//! `factgate check` end to end: an article citing pages on a real HTTP origin on 127.0.0.1,
//! started by each test, is extracted, verified and decided, and each case blocks or passes for
//! the right reason, visible in its report. Only loopback is ever contacted.

use std::time::Duration;

use crate::support::origin::{Hit, Server, respond};
use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use factgate::check::{CheckOptions, Checked, check_article};
use factgate::config::Config;
use factgate::verify::Verifier;
use factgate::verify::fetch::Fetcher;
use factgate_core::decide::Strictness;
use factgate_core::events::{ClaimStatus, DecisionReason, FetchStatus, IssueType, Outcome};
use factgate_core::model::{BodyFormat, Severity, Verdict};

const HTML: (&str, &str) = ("content-type", "text/html; charset=utf-8");
/// Gzip of 50 MiB of zeros (51 KB on disk).
const BOMB: &[u8] = include_bytes!("../fixtures/fetch/bomb-50mb-zeros.gz");

async fn start() -> Server {
    crate::support::origin::start(handle).await
}

async fn handle(hit: Hit) -> Response {
    let seen = hit.seen;
    match hit.path.as_str() {
        "/study" => respond(
            200,
            &[HTML],
            "<html><body><nav>Menu</nav><h1>Tutoring survey 2023</h1>\
             <p>In 2023, online tutoring accounted for 28% of all spending on private tutoring, \
             the survey of 4,000 families found.</p><footer>(c)</footer></body></html>",
        ),
        "/pricing" => respond(
            200,
            &[HTML],
            "<html><body><h1>BudgetTutor plans</h1><p>BudgetTutor Basic costs $9/month and \
             includes unlimited chat help.</p><p>There is no annual plan.</p></body></html>",
        ),
        "/market" => respond(
            200,
            &[HTML],
            "<html><body><p>The global market for AI tutoring reached $30 billion in 2024, \
             analysts at the firm estimate.</p></body></html>",
        ),
        "/404" => respond(404, &[], "not here"),
        "/410" => respond(410, &[], "gone"),
        "/403" => respond(403, &[], "forbidden"),
        "/limited" if seen == 1 => respond(429, &[("retry-after", "1")], "slow down"),
        "/limited" => respond(
            200,
            &[HTML],
            "<p>In 2023, online tutoring accounted for 28% of all spending on private tutoring.</p>",
        ),
        "/slow" => {
            let chunks = futures::stream::unfold(0, |step| async move {
                match step {
                    0 => Some((Ok::<_, std::io::Error>(Bytes::from("<p>In 2023")), 1)),
                    1 => {
                        tokio::time::sleep(Duration::from_secs(30)).await;
                        Some((Ok(Bytes::from(" it was 28%.</p>")), 2))
                    }
                    _ => None,
                }
            });
            respond(200, &[HTML], Body::from_stream(chunks))
        }
        "/big" => respond(200, &[("content-type", "text/plain")], vec![b'a'; 300_000]),
        "/bomb" => respond(
            200,
            &[HTML, ("content-encoding", "gzip")],
            Bytes::from_static(BOMB),
        ),
        "/loop" => respond(302, &[("location", "/loop")], ""),
        "/to-metadata" => respond(
            302,
            &[("location", "http://169.254.169.254/latest/meta-data/")],
            "",
        ),
        "/to-loopback-name" => respond(302, &[("location", "http://127.0.0.1:9/")], ""),
        "/bad-utf8" => respond(
            200,
            &[HTML],
            &b"<p>In 2023, online tutoring accounted for 28% of all spending on private tutoring \xff\xfe.</p>"[..],
        ),
        "/pdf" => respond(200, &[("content-type", "application/pdf")], "%PDF-1.4"),
        p if p.starts_with("/shared/") => respond(
            200,
            &[HTML],
            "<p>In 2023, online tutoring accounted for 28% of all spending on private tutoring.</p>",
        ),
        _ => respond(404, &[], "unknown"),
    }
}

/// The configuration the tests run with: loopback 127.0.0.1 allowlisted (and nothing else),
/// small caps, fast retries.
fn config() -> Config {
    Config::from_toml_str(
        r#"
[fetch]
address_allowlist = ["127.0.0.1/32"]
timeout_ms = 5000
connect_timeout_ms = 1000
max_body_bytes = 131072
max_decompressed_bytes = 1048576
max_redirects = 3
per_host_requests_per_second = 1000.0
per_host_burst = 1000
global_requests_per_second = 1000.0
per_host_concurrency = 16
max_retries = 2
backoff_base_ms = 10
backoff_max_ms = 50
retry_after_max_ms = 2000
"#,
    )
    .expect("test config is valid")
}

fn verifier(config: &Config) -> Verifier {
    let fetcher = Fetcher::new(config.fetch_settings()).expect("fetcher builds");
    Verifier::new(fetcher, config.judge_settings(), None)
}

fn options(deadline: Duration) -> CheckOptions {
    CheckOptions {
        strictness: Strictness::Normal,
        deadline,
        concurrency: 8,
        limits: factgate_core::extract::ExtractLimits::default(),
    }
}

/// Checks `body`; every decision factgate produces must satisfy the decision schema.
async fn check_with(verifier: &Verifier, body: &str, deadline: Duration) -> Checked {
    let checked = check_article(
        "article-1",
        2,
        body,
        BodyFormat::Markdown,
        verifier,
        &options(deadline),
    )
    .await;
    let decisions = crate::support::schema::validator("decision.v1");
    crate::support::schema::assert_valid(&decisions, &checked.decision);
    checked
}

async fn check(body: &str) -> Checked {
    check_with(&verifier(&config()), body, Duration::from_secs(20)).await
}

/// An article with one sourced claim citing `url`.
fn citing(url: &str) -> String {
    format!(
        "# Tutoring\n\nOnline tutoring accounted for 28% of spending on private tutoring in 2023, \
         according to [the survey]({url}).\n"
    )
}

fn statuses(checked: &Checked) -> Vec<FetchStatus> {
    checked.results.iter().map(|r| r.fetch_status).collect()
}

#[tokio::test]
async fn a_supported_claim_passes() {
    let server = start().await;
    let checked = check(&citing(&server.url("/study"))).await;
    let d = &checked.decision;
    assert_eq!(d.outcome, Outcome::Pass, "{:#?}", d.report);
    assert_eq!(checked.results[0].verdict, Verdict::Supported);
    let quote = &d.report.claims[0].evidence_quote;
    assert!(
        quote.as_deref().is_some_and(|q| q.contains("28%")),
        "{quote:?}"
    );
    assert_eq!(d.report.summary.citations_working, 1);
}

#[tokio::test]
async fn a_wrong_price_is_refuted_with_the_sources_price() {
    let server = start().await;
    let body = format!(
        "# Pricing\n\nBudgetTutor Basic costs $4/month or $44/year ([pricing]({})).\n",
        server.url("/pricing")
    );
    let checked = check(&body).await;
    let d = &checked.decision;
    assert_eq!(d.outcome, Outcome::Block);
    assert!(d.reasons.contains(&DecisionReason::HighSeverityIssue));
    let claim = &d.report.claims[0];
    assert_eq!(claim.verdict, Some(ClaimStatus::Refuted), "{:#?}", d.report);
    // The raw score and its calibrated probability, mapped by the committed table.
    let raw = claim.support.expect("a judged claim has a support score");
    assert_eq!(
        claim.confidence,
        Some(factgate_core::judge::calibration::confidence(raw))
    );
    assert!(
        claim
            .correction
            .as_deref()
            .is_some_and(|c| c.contains("$9/month")),
        "{claim:?}"
    );
    let issue = &d.report.issues[0];
    assert_eq!(issue.issue_type, IssueType::FigureMismatch);
    assert_eq!(issue.severity, Severity::High);
}

#[tokio::test]
async fn a_market_size_40_percent_off_is_refuted() {
    let server = start().await;
    let body = format!(
        "# Market\n\nThe global market for AI tutoring is worth $50 billion, according to \
         [analysts]({}).\n",
        server.url("/market")
    );
    let checked = check(&body).await;
    let d = &checked.decision;
    assert_eq!(d.outcome, Outcome::Block, "{:#?}", d.report);
    let claim = &d.report.claims[0];
    assert_eq!(claim.verdict, Some(ClaimStatus::Refuted));
    assert!(
        claim
            .correction
            .as_deref()
            .is_some_and(|c| c.contains("$30 billion")),
        "{claim:?}"
    );
}

#[tokio::test]
async fn dead_and_forbidden_citations_are_high_issues() {
    let server = start().await;
    for (path, status) in [
        ("/404", FetchStatus::NotFound),
        ("/410", FetchStatus::NotFound),
        ("/403", FetchStatus::Forbidden),
    ] {
        let checked = check(&citing(&server.url(path))).await;
        let d = &checked.decision;
        assert_eq!(d.outcome, Outcome::Block, "{path}");
        assert_eq!(statuses(&checked), vec![status], "{path}");
        assert_eq!(d.reasons, vec![DecisionReason::HighSeverityIssue], "{path}");
        let issue = &d.report.issues[0];
        assert_eq!(issue.issue_type, IssueType::Unverifiable, "{path}");
        assert!(
            issue.problem.contains(&path[1..]),
            "{path}: {}",
            issue.problem
        );
    }
}

#[tokio::test]
async fn a_429_with_retry_after_is_retried_and_then_judged() {
    let server = start().await;
    let checked = check(&citing(&server.url("/limited"))).await;
    assert_eq!(server.origin.count("/limited"), 2);
    assert_eq!(statuses(&checked), vec![FetchStatus::Ok]);
    assert_eq!(checked.decision.outcome, Outcome::Pass);
}

#[tokio::test]
async fn a_source_too_slow_for_the_deadline_blocks_as_deadline_exceeded() {
    let server = start().await;
    let checked = check_with(
        &verifier(&config()),
        &citing(&server.url("/slow")),
        Duration::from_millis(800),
    )
    .await;
    let d = &checked.decision;
    assert_eq!(d.outcome, Outcome::Block);
    assert!(d.reasons.contains(&DecisionReason::DeadlineExceeded));
    assert!(
        d.report
            .issues
            .iter()
            .any(|i| i.issue_type == IssueType::Error
                && i.source_url.as_deref() == Some(server.url("/slow").as_str())),
        "the unfinished check is listed: {:#?}",
        d.report.issues
    );
}

#[tokio::test]
async fn sources_that_cannot_be_judged_block_as_unjudgeable() {
    let server = start().await;
    for (path, status) in [
        ("/big", FetchStatus::TooLarge),
        ("/bomb", FetchStatus::TooLarge),
        ("/loop", FetchStatus::RefusedByPolicy),
        ("/to-metadata", FetchStatus::RefusedByPolicy),
        ("/pdf", FetchStatus::UnsupportedContent),
    ] {
        let checked = check(&citing(&server.url(path))).await;
        let d = &checked.decision;
        assert_eq!(statuses(&checked), vec![status], "{path}");
        assert_eq!(d.outcome, Outcome::Block, "{path}");
        assert!(
            d.reasons.contains(&DecisionReason::SourceUnjudgeable),
            "{path}: {:?}",
            d.reasons
        );
    }
}

#[tokio::test]
async fn loopback_outside_the_allowlist_is_refused_end_to_end() {
    // The origin listens on 127.0.0.1 only; 127.0.0.2 is loopback but not allowlisted.
    let server = start().await;
    let url = format!("http://127.0.0.2:{}/study", server.port);
    let checked = check(&citing(&url)).await;
    assert_eq!(statuses(&checked), vec![FetchStatus::RefusedByPolicy]);
    assert_eq!(checked.decision.outcome, Outcome::Block);
    assert_eq!(server.origin.count("/study"), 0, "nothing was sent");
}

#[tokio::test]
async fn invalid_utf8_in_a_source_is_decoded_and_judged() {
    let server = start().await;
    let checked = check(&citing(&server.url("/bad-utf8"))).await;
    assert_eq!(statuses(&checked), vec![FetchStatus::Ok]);
    assert_eq!(checked.decision.outcome, Outcome::Pass);
}

#[tokio::test]
async fn the_fabricated_pilot_claim_blocks_without_any_fetch() {
    let server = start().await;
    let body = "# Results\n\nOur pilot with 500 students showed 73% improvement.\n";
    let checked = check(body).await;
    let d = &checked.decision;
    assert_eq!(d.outcome, Outcome::Block);
    assert_eq!(d.reasons, vec![DecisionReason::HighSeverityIssue]);
    assert_eq!(d.report.issues[0].issue_type, IssueType::Unsourced);
    assert!(d.report.issues[0].evidence.contains("fabricated"));
    assert!(checked.results.is_empty());
    assert_eq!(server.origin.count("/study"), 0);
}

#[tokio::test]
async fn claims_citing_one_page_fetch_it_once() {
    let server = start().await;
    let url = server.url("/shared/page");
    let body = format!(
        "# Tutoring\n\nOnline tutoring accounted for 28% of spending in 2023 ([a]({url})).\n\n\
         In 2023, 28% of all tutoring spending went online ([b]({url})).\n\n\
         Private tutoring spending was 28% online in 2023 ([c]({url})).\n"
    );
    let checked = check(&body).await;
    assert_eq!(checked.results.len(), 3, "{:#?}", checked.results);
    assert_eq!(server.origin.count("/shared/page"), 1);
}

#[tokio::test]
async fn requests_to_one_host_are_rate_limited() {
    let server = start().await;
    let mut config = config();
    config.fetch.per_host_requests_per_second = 20.0;
    config.fetch.per_host_burst = 1;
    let verifier = verifier(&config);
    let body: String = (0..4)
        .map(|i| {
            format!(
                "Online tutoring accounted for 28% of spending in 2023 ([s]({})).\n\n",
                server.url(&format!("/shared/{i}"))
            )
        })
        .collect();
    let checked = check_with(&verifier, &body, Duration::from_secs(20)).await;
    assert_eq!(checked.results.len(), 4);
    let stats = verifier.fetcher().stats();
    assert_eq!(stats.requests_sent, 4);
    assert_eq!(
        stats.limiter_waits, 3,
        "every request after the first waited for the host's rate"
    );
}
