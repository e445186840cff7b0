//! Hostile input, as an attacker or an unlucky operator brings it, and what factgate does with
//! each (docs/reliability.md lists the limits):
//!
//! - a page of many tiny elements (a small gzip of megabytes of `<b></b>`), or one that makes
//!   the parser reconstruct hundreds of elements per tag, is refused by its node count
//!   (`fetch.max_html_nodes`) rather than built into a tree of gigabytes, and a page of more
//!   text than the judge should index by `fetch.max_text_bytes`;
//! - a 200 OK "page not found" page, or a site search's results repeating the claim's words, is
//!   reported as not the source (high), never judged as one;
//! - a citation whose URL has an IPv6 literal host is checked like any other;
//! - `factgate check` reads JSON Lines as they arrive, holding one draft at a time;
//! - a configuration file that is not one (`--config /dev/zero`, over 1 MiB) fails at once;
//! - `recheck --articles ''` is an error, not a run that checks nothing and succeeds;
//! - a Kafka key that is not UTF-8 reaches the dead-letter topic byte for byte.
//!
//! HTTP/2 connections that hold the endpoint open are `http2.rs`'s; the address registries,
//! `ssrf.rs`'s. `.ci/hostile.sh` measures the memory and time of the same cases on a release
//! build. Only loopback is ever contacted.

use std::io::Write as _;
use std::process::Stdio;
use std::time::Duration;

use crate::support::origin::{Hit, respond};
use axum::response::Response;
use factgate::check::{CheckOptions, Checked, check_article};
use factgate::config::Config;
use factgate::verify::Verifier;
use factgate::verify::fetch::{FetchSettings, Fetcher};
use factgate_core::decide::Strictness;
use factgate_core::events::{DecisionReason, FetchStatus, Outcome};
use factgate_core::fetched::FetchOutcome;
use factgate_core::model::{BodyFormat, Severity, Verdict};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::time::timeout;

const HTML: (&str, &str) = ("content-type", "text/html; charset=utf-8");

/// A claim and the paragraph of a source that states it.
const CLAIM: &str = "Unemployment fell to 4.2% in March, the statistics office said.";
const SOURCE: &str = "<p>Unemployment fell to 4.2% in March, the statistics office said.</p>";

fn gzip(text: &str) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(text.as_bytes()).expect("compress");
    encoder.finish().expect("compress")
}

/// The source's paragraph, then `count` empty `<b>` elements: tiny on the wire, a node each.
fn tiny_elements(count: usize) -> String {
    format!(
        "<html><body>{SOURCE}{}</body></html>",
        "<b></b>".repeat(count)
    )
}

/// The source's paragraph, then `open` formatting elements left open inside a closed `<div>`,
/// then `paragraphs` paragraphs: each makes the parser reconstruct every one of them.
fn reconstructing(open: usize, paragraphs: usize) -> String {
    let fonts: String = (0..open).map(|i| format!("<font id=f{i}>")).collect();
    format!(
        "<html><body>{SOURCE}<div>{fonts}</div>{}</body></html>",
        "<p>x</p>".repeat(paragraphs)
    )
}

async fn pages(hit: Hit) -> Response {
    let echo = format!(
        "<html><head><title>Search results for “unemployment fell” | The Gazette</title></head>\
         <body><h1>Search results for “unemployment fell”</h1>{SOURCE}\
         <p>Unemployment fell in February too.</p></body></html>"
    );
    match hit.path.as_str() {
        "/source" => respond(200, &[HTML], format!("<html><body>{SOURCE}</body></html>")),
        "/tiny.gz" => respond(
            200,
            &[HTML, ("content-encoding", "gzip")],
            gzip(&tiny_elements(300_000)),
        ),
        "/reconstruct" => respond(200, &[HTML], reconstructing(64, 4_000)),
        // 3 MiB of prose in 1 KiB paragraphs: few nodes, more text than the judge indexes.
        "/long-text" => respond(
            200,
            &[HTML, ("content-encoding", "gzip")],
            gzip(&format!(
                "<html><body>{SOURCE}{}</body></html>",
                format!("<p>{}</p>", "The council met again. ".repeat(44)).repeat(3 * 1024)
            )),
        ),
        "/moved-away" => respond(
            200,
            &[HTML],
            "<html><head><title>Page not found | The Gazette</title></head>\
             <body><h1>Sorry, we can't find that page</h1><p>Try our search.</p></body></html>",
        ),
        "/fehler" => respond(
            200,
            &[HTML],
            "<html><head><title>Tagblatt</title><meta name=\"robots\" content=\"noindex\"></head>\
             <body><h1>Fehler 404</h1><p>Die Seite wurde nicht gefunden.</p></body></html>",
        ),
        "/search" => respond(200, &[HTML], echo),
        "/roads" => respond(
            200,
            &[HTML],
            "<html><body><p>The council spent $90 million on roads in 2024, the \
             auditor said.</p></body></html>",
        ),
        "/login" => respond(200, &[HTML], SIGN_IN_PAGE),
        "/members/budget" => respond(302, &[("location", "/login?next=/members/budget")], ""),
        "/denied" => respond(200, &[HTML], ACCESS_DENIED_PAGE),
        "/moment" => respond(200, &[HTML], BOT_CHECK_PAGE),
        _ => respond(404, &[], "unknown"),
    }
}

/// A council's sign-in page, as its portal serves it.
const SIGN_IN_PAGE: &str = r#"<!doctype html><html lang="en"><head><title>Sign in | Riverside Council</title>
<meta name="viewport" content="width=device-width"></head><body>
<header><a href="/">Riverside Council</a></header>
<main><h1>Sign in</h1><p>Council members and staff: sign in to read committee papers, including the budget.</p>
<form method="post" action="/login"><label>Email <input type="email" name="email"></label>
<label>Password <input type="password" name="password"></label>
<button type="submit">Sign in</button></form><p><a href="/reset">Forgot your password?</a></p></main>
<footer>© 2026 Riverside Council</footer></body></html>"#;

/// A web firewall's block page, served with 200.
const ACCESS_DENIED_PAGE: &str = r#"<html><head><title>Access Denied</title></head><body>
<h1>Access Denied</h1><p>You don't have permission to access "http://council.example/budget" on this server.</p>
<p>Reference #18.5a2f3b17.1764412800.2c9e41d</p></body></html>"#;

/// A browser challenge, served with 200.
const BOT_CHECK_PAGE: &str = r#"<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="refresh" content="390"></head><body><div class="main-wrapper" role="main">
<div class="main-content"><h1 class="zone-name-title h1">council.example</h1>
<h2 class="h2" id="challenge-running">Checking if the site connection is secure</h2>
<p>council.example needs to review the security of your connection before proceeding.</p></div></div>
<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1?ray=8e1f"></script></body></html>"#;

fn loopback_settings() -> FetchSettings {
    FetchSettings {
        address_allowlist: vec!["127.0.0.1/32".parse().expect("net")],
        max_retries: 0,
        ..FetchSettings::default()
    }
}

fn config(allow: &str) -> Config {
    Config::from_toml_str(&format!(
        "[fetch]\naddress_allowlist = [\"{allow}\"]\nmax_retries = 0\n\
         per_host_requests_per_second = 1000.0\nper_host_burst = 1000\n\
         global_requests_per_second = 1000.0\n"
    ))
    .expect("test config is valid")
}

async fn check(body: &str, allow: &str) -> Checked {
    check_at(body, allow, Strictness::Normal).await
}

async fn check_at(body: &str, allow: &str, strictness: Strictness) -> Checked {
    let config = config(allow);
    let fetcher = Fetcher::new(config.fetch_settings()).expect("fetcher builds");
    let verifier = Verifier::new(fetcher, config.judge_settings(), None);
    let options = CheckOptions {
        strictness,
        deadline: Duration::from_secs(30),
        concurrency: 4,
        limits: factgate_core::extract::ExtractLimits::default(),
    };
    check_article(
        "hostile-1",
        1,
        body,
        BodyFormat::Markdown,
        &verifier,
        &options,
    )
    .await
}

/// 300,000 empty elements in 2 MiB (about 5 KB gzipped), and a page whose 4,000 paragraphs
/// each reconstruct 64 elements (a quarter of a million nodes from 40 KB): both over the
/// default node cap, both refused naming it, neither built. 3 MiB of prose is refused by the
/// text cap rather than indexed.
#[tokio::test]
async fn pages_past_their_node_or_text_caps_are_refused() {
    let origin = crate::support::origin::start(pages).await;
    let fetcher = Fetcher::new(loopback_settings()).expect("fetcher");
    for (path, key) in [
        ("/tiny.gz", "fetch.max_html_nodes"),
        ("/reconstruct", "fetch.max_html_nodes"),
        ("/long-text", "fetch.max_text_bytes"),
    ] {
        let fetched = fetcher.fetch(&origin.url(path)).await;
        match &*fetched.outcome {
            FetchOutcome::UnsupportedContent { content_type } => {
                assert!(content_type.contains(key), "{path}: {content_type}")
            }
            other => panic!("{path}: expected a refusal naming {key}, got {other:?}"),
        }
    }
    // The same source alone is read.
    let fetched = fetcher.fetch(&origin.url("/source")).await;
    assert!(
        matches!(&*fetched.outcome, FetchOutcome::Ok(page) if page.text.contains("4.2%")),
        "{:?}",
        fetched.outcome
    );
}

/// A citation leading to a 200 OK error page, or to a site search's results that repeat the
/// claim word for word, blocks as a dead citation does: high, the page not taken for a source.
#[tokio::test]
async fn error_and_search_pages_are_not_sources() {
    let origin = crate::support::origin::start(pages).await;
    let good = check(
        &format!("{CLAIM} [Source]({})", origin.url("/source")),
        "127.0.0.1/32",
    )
    .await;
    assert_eq!(
        good.decision.outcome,
        Outcome::Pass,
        "{:#?}",
        good.decision.report
    );
    for (path, says) in [
        ("/moved-away", "error page"),
        ("/fehler", "error page"),
        ("/search?q=unemployment+fell", "search"),
    ] {
        let checked = check(
            &format!("{CLAIM} [Source]({})", origin.url(path)),
            "127.0.0.1/32",
        )
        .await;
        let d = &checked.decision;
        assert_eq!(d.outcome, Outcome::Block, "{path}: {:#?}", d.report);
        assert_eq!(d.reasons, vec![DecisionReason::HighSeverityIssue], "{path}");
        let result = &checked.results[0];
        assert_eq!(result.fetch_status, FetchStatus::NotFound, "{path}");
        assert_eq!(result.http_status, Some(200), "{path}");
        assert_ne!(result.verdict, Verdict::Supported, "{path}");
        let issue = &d.report.issues[0];
        assert_eq!(issue.severity, Severity::High, "{path}");
        assert!(issue.problem.contains(says), "{path}: {}", issue.problem);
    }
}

/// A sign-in page (served directly or reached by a redirect), an "Access denied" page and a
/// bot check, each served with 200, never vouch for a claim: a figure-free claim and its
/// opposite are both blocked at every strictness, as a figure claim is, each for the reason
/// that the source could not be read (what the site served, in words), not as a source that
/// "does not state" the claim.
#[tokio::test]
async fn walls_served_instead_of_the_source_vouch_for_nothing() {
    let origin = crate::support::origin::start(pages).await;
    for (path, served) in [
        ("/login", "a sign-in page"),
        ("/members/budget", "a sign-in page"),
        ("/denied", "an \"access denied\" page"),
        ("/moment", "a bot check"),
    ] {
        for claim in [
            "The council approved the budget on Tuesday.",
            "The council rejected the budget on Tuesday.",
            "The council approved a budget of $4.2 million on Tuesday.",
        ] {
            for strictness in [Strictness::Lenient, Strictness::Normal, Strictness::Strict] {
                let body = format!("{claim} [Committee papers]({})", origin.url(path));
                let checked = check_at(&body, "127.0.0.1/32", strictness).await;
                let d = &checked.decision;
                let context = format!("{path} {strictness:?} {claim}: {:#?}", d.report);
                assert_eq!(d.outcome, Outcome::Block, "{context}");
                let result = &checked.results[0];
                assert_ne!(result.verdict, Verdict::Supported, "{context}");
                assert_eq!(
                    result.fetch_status,
                    FetchStatus::UnsupportedContent,
                    "{context}"
                );
                let issue = &d.report.issues[0];
                assert!(
                    issue.problem.contains(served)
                        && issue.problem.contains("instead of the cited document"),
                    "{context}"
                );
                assert!(!issue.problem.contains("does not"), "{context}");
            }
        }
    }
}

/// A figure written with an invisible character inside it (a zero-width space, a soft hyphen)
/// is the figure a reader sees: "$9\u{200b}0 million" is $90 million, supported by a page
/// that says $90 million, where it was read as $9 and 0.
#[tokio::test]
async fn an_invisible_character_inside_a_figure_is_read_past() {
    let origin = crate::support::origin::start(pages).await;
    for written in ["$9\u{200b}0 million", "$9\u{ad}0 million"] {
        let body = format!(
            "The council spent {written} on roads in 2024, the auditor said. [Audit]({})",
            origin.url("/roads")
        );
        let checked = check(&body, "127.0.0.1/32").await;
        let d = &checked.decision;
        assert_eq!(d.outcome, Outcome::Pass, "{written:?}: {:#?}", d.report);
        assert_eq!(
            checked.results[0].verdict,
            Verdict::Supported,
            "{written:?}"
        );
    }
}

/// A bare URL with an IPv6 literal host cites its page: the claim is fetched from `[::1]` and
/// passes, where it was reported as an unsourced statistic.
#[tokio::test]
async fn a_citation_with_an_ipv6_literal_host_is_checked() {
    let listener = tokio::net::TcpListener::bind("[::1]:0")
        .await
        .expect("bind IPv6 loopback");
    let port = listener.local_addr().expect("address").port();
    let app = axum::Router::new().route(
        "/report",
        axum::routing::get(|| async {
            axum::response::Html(format!("<html><body>{SOURCE}</body></html>"))
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    let body = format!("{CLAIM} The figures: http://[::1]:{port}/report.\n");
    let checked = check(&body, "::1/128").await;
    let d = &checked.decision;
    assert_eq!(d.outcome, Outcome::Pass, "{:#?}", d.report);
    assert_eq!(checked.results.len(), 1, "{:#?}", checked.results);
    assert_eq!(
        checked.results[0].source_url,
        format!("http://[::1]:{port}/report")
    );
    assert_eq!(checked.results[0].fetch_status, FetchStatus::Ok);
}

fn factgate() -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_factgate"));
    command
        .env_remove("FACTGATE_CONFIG")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("FACTGATE_") {
            command.env_remove(key);
        }
    }
    command
}

fn draft_line(article: &str) -> String {
    let mut line = serde_json::json!({
        "schema_version": "factgate.draft.v1",
        "article_id": article,
        "revision": 1,
        "published_at": "2026-01-01T00:00:00Z",
        "body_format": "markdown",
        "body": "The council met on Tuesday to discuss the new library.",
    })
    .to_string();
    line.push('\n');
    line
}

/// Drafts piped in (as from `kcat`) are decided as they arrive: the first decision is written
/// while standard input is still open, so nothing waits for the whole input, nor holds it.
#[tokio::test]
async fn check_answers_each_json_line_as_it_arrives() {
    let mut child = factgate()
        .args(["check", "-", "--format", "json", "--no-progress"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("factgate check starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();
    for article in ["stream-1", "stream-2"] {
        stdin
            .write_all(draft_line(article).as_bytes())
            .await
            .expect("a draft is written");
        stdin.flush().await.expect("flushed");
        let line = timeout(Duration::from_secs(120), stdout.next_line())
            .await
            .unwrap_or_else(|_| panic!("no decision for {article} while the input stays open"))
            .expect("stdout reads")
            .expect("a decision line");
        let decision: serde_json::Value = serde_json::from_str(&line).expect("a decision");
        assert_eq!(decision["article_id"], article, "{line}");
        assert_eq!(decision["outcome"], "pass", "{line}");
    }
    drop(stdin);
    let status = timeout(Duration::from_secs(60), child.wait())
        .await
        .expect("ends once the input ends")
        .expect("waits");
    assert_eq!(status.code(), Some(0));
}

/// A file over 1 MiB, a secret file that large and `--config /dev/zero` are refused after
/// reading one mebibyte; a configuration just under the cap is read.
#[tokio::test]
async fn a_configuration_file_is_read_up_to_its_cap() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A comment line of 1 KiB, so the file's size is what the test says it is.
    let padding = format!("#{}\n", "x".repeat(1022));
    let big = dir.path().join("big.toml");
    std::fs::write(&big, padding.repeat(1025)).expect("config");
    let err = Config::load_with_env(Some(big.as_path()), Vec::new()).expect_err("over the cap");
    assert!(
        format!("{err:#}").contains("cannot read config file"),
        "{err:#}"
    );
    let fits = dir.path().join("fits.toml");
    std::fs::write(&fits, padding.repeat(1000) + "[join]\ndeadline_ms = 5000\n").expect("config");
    let config = Config::load_with_env(Some(fits.as_path()), Vec::new()).expect("under the cap");
    assert_eq!(config.join.deadline_ms, 5000);

    let secret = dir.path().join("secret.toml");
    std::fs::write(
        &secret,
        "[kafka.property_files]\n\"sasl.password\" = \"/dev/zero\"\n",
    )
    .expect("config");
    let err =
        Config::load_with_env(Some(secret.as_path()), Vec::new()).expect_err("secret over the cap");
    assert!(err.to_string().contains("sasl.password"), "{err}");

    let article = dir.path().join("a.md");
    std::fs::write(&article, "The council met on Tuesday.\n").expect("article");
    let output = timeout(
        Duration::from_secs(60),
        factgate()
            .args(["check", "--config", "/dev/zero"])
            .arg(&article)
            .output(),
    )
    .await
    .expect("fails at once, not when memory runs out")
    .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("1048576 bytes"), "{stderr}");
}

/// An empty article id or section (`--articles ''`, a stray comma) would select nothing: the
/// run is refused before it starts, on the library's entry and on the command line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recheck_refuses_an_empty_filter() {
    use factgate::kafka::{EmbeddedBroker, EventHeaders, EventProducer};
    use factgate::recheck::{self, RecheckError, RecheckOptions};
    let broker: &'static EmbeddedBroker = Box::leak(Box::new(
        EmbeddedBroker::start(&Config::default().kafka).expect("embedded broker starts"),
    ));
    let config = crate::support::pipeline::mock_cluster_config(broker.bootstrap_servers(), "");
    // One draft, so the drafts topic exists and a run with a filter could start.
    let producer = EventProducer::new(&config.kafka, broker.bootstrap_servers()).expect("producer");
    timeout(
        Duration::from_secs(60),
        producer.produce(
            &config.kafka.topics.drafts,
            "kept-1",
            draft_line("kept-1").trim_end().as_bytes(),
            &EventHeaders::new(factgate_core::events::DRAFT_V1, None),
        ),
    )
    .await
    .expect("acknowledged in time")
    .expect("delivered");
    for (articles, sections) in [
        (vec![""], vec![]),
        (vec!["kept-1", ""], vec![]),
        (vec![], vec![" "]),
    ] {
        let options = RecheckOptions {
            run_id: "empty-filter".into(),
            articles: articles.iter().map(|s| (*s).to_owned()).collect(),
            sections: sections.iter().map(|s| (*s).to_owned()).collect(),
            ..RecheckOptions::default()
        };
        let run = timeout(
            Duration::from_secs(120),
            recheck::run(&config, options, std::future::pending(), |_| {}),
        )
        .await
        .expect("refused at once");
        match run {
            Err(RecheckError::InvalidOptions(message)) => {
                assert!(message.contains("empty"), "{message}")
            }
            other => panic!("{articles:?} {sections:?}: expected a refusal, got {other:?}"),
        }
    }

    let output = timeout(
        Duration::from_secs(60),
        factgate()
            .args(["recheck", "--run-id", "cli-empty", "--articles", ""])
            .env(
                "FACTGATE_KAFKA__BOOTSTRAP_SERVERS",
                broker.bootstrap_servers(),
            )
            .output(),
    )
    .await
    .expect("ends at once")
    .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--articles"), "{stderr}");
}

/// A draft that cannot be read, sent by a CMS under a key that is not UTF-8, reaches the
/// dead-letter topic under that key, byte for byte (it arrived there empty).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_key_that_is_not_utf8_is_dead_lettered_byte_for_byte() {
    use crate::support::pipeline::{mock_cluster_config, outside_reader, start_roles};
    use factgate::kafka::{EmbeddedBroker, EventHeaders, EventProducer};
    use factgate::pipeline::Role;
    use rdkafka::Message;
    let broker: &'static EmbeddedBroker = Box::leak(Box::new(
        EmbeddedBroker::start(&Config::default().kafka).expect("embedded broker starts"),
    ));
    let config = mock_cluster_config(broker.bootstrap_servers(), "");
    let roles = start_roles(&config, &[Role::Extract]).await;
    let dead_letters = outside_reader(&config, &config.kafka.topics.dead_letter, "ops");
    let cms = EventProducer::new(&config.kafka, broker.bootstrap_servers()).expect("producer");
    let key: &[u8] = &[0xff, 0xfe, 0x00, b'a', 0xc3, 0x28];
    let headers = EventHeaders::new(factgate_core::events::DRAFT_V1, None);
    cms.produce(
        &config.kafka.topics.drafts,
        key,
        &b"not json at all"[..],
        &headers,
    )
    .await
    .expect("delivered");
    let letter = timeout(Duration::from_secs(60), dead_letters.recv())
        .await
        .expect("a dead letter within a minute")
        .expect("the dead letter is read");
    assert_eq!(letter.key(), Some(key));
    assert_eq!(letter.payload(), Some(&b"not json at all"[..]));
    roles.stop().await;
}
