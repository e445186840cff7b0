//! The fetcher against a real HTTP origin on 127.0.0.1, started by each test.
//!
//! Only loopback is ever contacted: refusals of other addresses are asserted from the outcome,
//! which the policy decides before any connection.

use std::time::Duration;

use crate::support::origin::{Hit, Server, respond};
use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use factgate::verify::fetch::{FetchSettings, Fetcher};
use factgate_core::fetched::{FetchOutcome, RefusalReason};

/// Gzip of 50 MiB of zeros (51 KB on disk).
const BOMB: &[u8] = include_bytes!("../fixtures/fetch/bomb-50mb-zeros.gz");

async fn start() -> Server {
    crate::support::origin::start(handle).await
}

const HTML: (&str, &str) = ("content-type", "text/html; charset=utf-8");

async fn handle(hit: Hit) -> Response {
    let (path, seen, port) = (hit.path, hit.seen, hit.port);
    match path.as_str() {
        "/page" => respond(
            200,
            &[HTML],
            "<html><head><title>Plans</title><script>var price = '$1';</script></head>\
             <body><nav>Home</nav><h1>Pricing</h1><p>The basic plan costs $9/month.</p>\
             <p>Launched in 2021.</p><script>track()</script><footer>(c) Site</footer></body></html>",
        ),
        "/plain" => respond(
            200,
            &[("content-type", "text/plain")],
            "Line one.\nLine two.",
        ),
        "/404" => respond(404, &[], "gone"),
        "/410" => respond(410, &[], "gone for good"),
        "/403" => respond(403, &[], "no"),
        "/402" => respond(402, &[], "pay"),
        "/paywall-markup" => respond(
            200,
            &[HTML],
            "<html><body><div class=\"article-body paywall\"><p>Only the first line.</p></div></body></html>",
        ),
        "/limited" if seen == 1 => respond(429, &[("retry-after", "1")], "slow down"),
        "/unavailable" if seen == 1 => respond(503, &[], "busy"),
        "/limited" | "/unavailable" => respond(200, &[HTML], "<p>Recovered.</p>"),
        "/always-503" => respond(503, &[], "busy"),
        // 150,000 nested elements: a tree html5ever would take minutes to build.
        "/deep" => respond(
            200,
            &[HTML],
            format!(
                "<html><body>{}<p>Deep.</p></body></html>",
                "<div>".repeat(150_000)
            ),
        ),
        // Nested well within the limit: parsed, and its text read.
        "/nested" => respond(
            200,
            &[HTML],
            format!(
                "<html><body>{}<p>The basic plan costs $9/month.</p>{}</body></html>",
                "<div>".repeat(100),
                "</div>".repeat(100)
            ),
        ),
        "/slow" => {
            let chunks = futures::stream::unfold(0, |step| async move {
                match step {
                    0 => Some((Ok::<_, std::io::Error>(Bytes::from("<p>start")), 1)),
                    1 => {
                        tokio::time::sleep(Duration::from_secs(10)).await;
                        Some((Ok(Bytes::from("end</p>")), 2))
                    }
                    _ => None,
                }
            });
            respond(200, &[HTML], Body::from_stream(chunks))
        }
        "/big" => respond(200, &[("content-type", "text/plain")], vec![b'a'; 200_000]),
        "/big-chunked" => {
            let chunks = futures::stream::iter(
                (0..200).map(|_| Ok::<_, std::io::Error>(Bytes::from(vec![b'a'; 1000]))),
            );
            respond(
                200,
                &[("content-type", "text/plain")],
                Body::from_stream(chunks),
            )
        }
        "/bomb" => respond(
            200,
            &[HTML, ("content-encoding", "gzip")],
            Bytes::from_static(BOMB),
        ),
        "/loop" => respond(302, &[("location", "/loop")], ""),
        p if p.starts_with("/chain/") => {
            let n: u32 = p["/chain/".len()..].parse().unwrap_or(0);
            respond(302, &[("location", &format!("/chain/{}", n + 1))], "")
        }
        "/to-metadata" => respond(
            302,
            &[("location", "http://169.254.169.254/latest/meta-data/")],
            "",
        ),
        "/to-private" => respond(302, &[("location", "http://10.0.0.1/")], ""),
        "/to-other-loopback" => respond(
            302,
            &[("location", &format!("http://127.0.0.2:{port}/page"))],
            "",
        ),
        "/to-page" => respond(301, &[("location", "/page")], ""),
        "/bad-utf8" => respond(200, &[HTML], &b"<p>caf\xff and \xc3( more</p>"[..]),
        "/cp1252" => respond(
            200,
            &[("content-type", "text/html; charset=windows-1252")],
            &b"<p>Caf\xe9 prices rose to \x809.</p>"[..],
        ),
        "/pdf" => respond(200, &[("content-type", "application/pdf")], "%PDF-1.4"),
        "/image" => respond(200, &[("content-type", "image/png")], "\u{89}PNG"),
        "/script-shell" => respond(
            200,
            &[HTML],
            "<html><head><title>App</title><script>render()</script></head>\
             <body><div id=\"root\"></div><noscript>Enable JavaScript.</noscript></body></html>",
        ),
        "/blank" => respond(200, &[("content-type", "text/plain")], " \n\t\n"),
        "/dedup" => {
            tokio::time::sleep(Duration::from_millis(300)).await;
            respond(200, &[HTML], "<p>Shared.</p>")
        }
        p if p.starts_with("/n/") => respond(200, &[HTML], "<p>Numbered.</p>"),
        _ => respond(404, &[], "unknown"),
    }
}

/// Settings for tests: loopback 127.0.0.1 allowlisted, fast retries, small caps, generous rates.
fn settings() -> FetchSettings {
    FetchSettings {
        user_agent_contact_url: "https://example.test/contact".to_owned(),
        address_allowlist: vec!["127.0.0.1/32".parse().expect("net parses")],
        timeout: Duration::from_secs(5),
        max_body_bytes: 64 * 1024,
        max_decompressed_bytes: 1024 * 1024,
        max_redirects: 3,
        per_host_rps: 1000.0,
        per_host_burst: 1000,
        global_rps: 1000.0,
        per_host_concurrency: 50,
        max_retries: 2,
        backoff_base: Duration::from_millis(10),
        backoff_max: Duration::from_millis(50),
        retry_after_max: Duration::from_secs(2),
        ..FetchSettings::default()
    }
}

fn fetcher(settings: FetchSettings) -> Fetcher {
    Fetcher::new(settings).expect("fetcher builds")
}

async fn outcome(fetcher: &Fetcher, url: &str) -> FetchOutcome {
    (*fetcher.fetch(url).await.outcome).clone()
}

fn page(outcome: FetchOutcome) -> factgate_core::fetched::Page {
    match outcome {
        FetchOutcome::Ok(page) => page,
        other => panic!("expected a page, got {other:?}"),
    }
}

#[tokio::test]
async fn html_is_reduced_to_visible_text_with_an_honest_user_agent() {
    let server = start().await;
    let fetcher = fetcher(settings());
    let page = page(outcome(&fetcher, &server.url("/page")).await);
    assert_eq!(page.title.as_deref(), Some("Plans"));
    assert_eq!(
        page.text,
        "Pricing\n\nThe basic plan costs $9/month.\n\nLaunched in 2021."
    );
    assert_eq!(page.content_type, "text/html");
    assert_eq!(page.status, 200);
    let ua = server.origin.user_agent();
    let ua = ua.expect("user agent sent");
    assert!(ua.starts_with("factgate/"), "{ua}");
    assert!(ua.ends_with("(+https://example.test/contact)"), "{ua}");
}

#[tokio::test]
async fn plain_text_is_kept_as_sent() {
    let server = start().await;
    let page = page(outcome(&fetcher(settings()), &server.url("/plain")).await);
    assert_eq!(page.text, "Line one.\nLine two.");
    assert_eq!(page.title, None);
}

#[tokio::test]
async fn statuses_become_typed_outcomes() {
    let server = start().await;
    let fetcher = fetcher(settings());
    assert_eq!(
        outcome(&fetcher, &server.url("/404")).await,
        FetchOutcome::NotFound { status: 404 }
    );
    assert_eq!(
        outcome(&fetcher, &server.url("/410")).await,
        FetchOutcome::NotFound { status: 410 }
    );
    assert_eq!(
        outcome(&fetcher, &server.url("/403")).await,
        FetchOutcome::Forbidden { status: 403 }
    );
    assert!(matches!(
        outcome(&fetcher, &server.url("/402")).await,
        FetchOutcome::Paywalled { .. }
    ));
    assert!(matches!(
        outcome(&fetcher, &server.url("/paywall-markup")).await,
        FetchOutcome::Paywalled { marker } if marker.contains("paywall")
    ));
}

#[tokio::test]
async fn a_429_with_retry_after_is_retried_then_succeeds() {
    let server = start().await;
    let fetcher = fetcher(settings());
    let started = std::time::Instant::now();
    let page = page(outcome(&fetcher, &server.url("/limited")).await);
    assert_eq!(page.text, "Recovered.");
    assert_eq!(server.origin.count("/limited"), 2);
    assert_eq!(fetcher.stats().retries, 1);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After: 1 was honoured"
    );
}

#[tokio::test]
async fn a_503_is_retried_then_succeeds() {
    let server = start().await;
    let fetcher = fetcher(settings());
    page(outcome(&fetcher, &server.url("/unavailable")).await);
    assert_eq!(server.origin.count("/unavailable"), 2);
}

#[tokio::test]
async fn a_body_slower_than_the_total_cap_times_out() {
    let server = start().await;
    let fetcher = fetcher(FetchSettings {
        timeout: Duration::from_millis(500),
        ..settings()
    });
    let started = std::time::Instant::now();
    assert_eq!(
        outcome(&fetcher, &server.url("/slow")).await,
        FetchOutcome::Timeout
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn bodies_over_the_cap_are_too_large_with_or_without_content_length() {
    let server = start().await;
    let fetcher = fetcher(settings());
    let cap = 64 * 1024;
    assert_eq!(
        outcome(&fetcher, &server.url("/big")).await,
        FetchOutcome::TooLarge { limit: cap }
    );
    assert_eq!(
        outcome(&fetcher, &server.url("/big-chunked")).await,
        FetchOutcome::TooLarge { limit: cap }
    );
}

#[tokio::test]
async fn a_gzip_bomb_is_stopped_at_the_decompressed_cap() {
    let server = start().await;
    let fetcher = fetcher(settings());
    assert_eq!(
        outcome(&fetcher, &server.url("/bomb")).await,
        FetchOutcome::TooLarge { limit: 1024 * 1024 }
    );
}

#[tokio::test]
async fn redirects_are_capped_and_loops_detected() {
    let server = start().await;
    let fetcher = fetcher(settings());
    assert_eq!(
        outcome(&fetcher, &server.url("/chain/0")).await,
        FetchOutcome::RefusedByPolicy(RefusalReason::TooManyRedirects { max: 3 })
    );
    // The original request and three redirects, no more.
    let hops: usize = (0..10)
        .map(|n| server.origin.count(&format!("/chain/{n}")))
        .sum();
    assert_eq!(hops, 4);
    assert_eq!(
        outcome(&fetcher, &server.url("/loop")).await,
        FetchOutcome::RefusedByPolicy(RefusalReason::RedirectLoop)
    );
    // A good redirect is followed and the final URL reported.
    let page = page(outcome(&fetcher, &server.url("/to-page")).await);
    assert_eq!(page.final_url, server.url("/page"));
}

fn refused_range(outcome: &FetchOutcome) -> Option<&'static str> {
    match outcome {
        FetchOutcome::RefusedByPolicy(RefusalReason::Address { range, .. }) => Some(range),
        _ => None,
    }
}

#[tokio::test]
async fn redirects_to_refused_addresses_are_refused_before_connecting() {
    let server = start().await;
    let fetcher = fetcher(settings());
    let metadata = outcome(&fetcher, &server.url("/to-metadata")).await;
    assert_eq!(
        refused_range(&metadata),
        Some("cloud metadata"),
        "{metadata:?}"
    );
    let private = outcome(&fetcher, &server.url("/to-private")).await;
    assert_eq!(refused_range(&private), Some("private"), "{private:?}");
    let other = outcome(&fetcher, &server.url("/to-other-loopback")).await;
    assert_eq!(refused_range(&other), Some("loopback"), "{other:?}");
    // One request each, to the origin; the refused hop was never requested.
    assert_eq!(server.origin.count("/page"), 0);
    assert_eq!(fetcher.stats().requests_sent, 3);
}

#[tokio::test]
async fn only_allowlisted_loopback_is_reachable() {
    let server = start().await;
    let fetcher = fetcher(settings());
    let url = format!("http://127.0.0.2:{}/page", server.origin.port);
    let refused = outcome(&fetcher, &url).await;
    assert_eq!(refused_range(&refused), Some("loopback"), "{refused:?}");
    assert_eq!(fetcher.stats().requests_sent, 0);
    // A host name goes through the resolver: localhost is 127.0.0.1, which is allowlisted here…
    let by_name = format!("http://localhost:{}/page", server.origin.port);
    page(outcome(&fetcher, &by_name).await);
    // …and refused without the allowlist, by the resolver, before any connection.
    let strict = Fetcher::new(FetchSettings {
        address_allowlist: Vec::new(),
        ..settings()
    })
    .expect("fetcher builds");
    let refused = outcome(&strict, &by_name).await;
    assert_eq!(refused_range(&refused), Some("loopback"), "{refused:?}");
    assert_eq!(server.origin.count("/page"), 1);
}

#[tokio::test]
async fn only_http_and_https_are_fetched() {
    let fetcher = fetcher(settings());
    for url in ["ftp://127.0.0.1/file", "file:///etc/passwd"] {
        assert!(
            matches!(
                outcome(&fetcher, url).await,
                FetchOutcome::RefusedByPolicy(RefusalReason::Scheme(_))
            ),
            "{url}"
        );
    }
}

#[tokio::test]
async fn charsets_are_decoded_and_bad_bytes_replaced() {
    let server = start().await;
    let fetcher = fetcher(settings());
    let bad = page(outcome(&fetcher, &server.url("/bad-utf8")).await);
    assert_eq!(bad.text, "caf\u{fffd} and \u{fffd}( more");
    let latin = page(outcome(&fetcher, &server.url("/cp1252")).await);
    assert_eq!(latin.text, "Café prices rose to €9.");
}

#[tokio::test]
async fn other_content_types_are_unsupported() {
    let server = start().await;
    assert_eq!(
        outcome(&fetcher(settings()), &server.url("/image")).await,
        FetchOutcome::UnsupportedContent {
            content_type: "image/png".to_owned()
        }
    );
    // A PDF is read; one that is only a header is damaged, and says so.
    match outcome(&fetcher(settings()), &server.url("/pdf")).await {
        FetchOutcome::Unreadable { reason, advice } => {
            assert!(reason.starts_with("the PDF is damaged"), "{reason}");
            assert_eq!(advice, "cite a text version of the document");
        }
        other => panic!("expected an unreadable PDF, got {other:?}"),
    }
}

#[tokio::test]
async fn requests_to_one_host_wait_for_its_rate() {
    let server = start().await;
    let fetcher = fetcher(FetchSettings {
        per_host_rps: 5.0,
        per_host_burst: 1,
        ..settings()
    });
    let started = std::time::Instant::now();
    for n in 0..4 {
        page(outcome(&fetcher, &server.url(&format!("/n/{n}"))).await);
    }
    let counts: Vec<usize> = (0..4)
        .map(|n| server.origin.count(&format!("/n/{n}")))
        .collect();
    assert_eq!(counts, [1, 1, 1, 1]);
    // Burst 1 at 5/s: the 2nd, 3rd and 4th requests each waited for the limiter.
    assert_eq!(fetcher.stats().limiter_waits, 3);
    assert!(started.elapsed() >= Duration::from_millis(550));
}

#[tokio::test]
async fn concurrent_fetches_of_one_url_make_one_request() {
    let server = start().await;
    let fetcher = fetcher(settings());
    let url = server.url("/dedup");
    let fetches = (0..20).map(|_| fetcher.fetch(&url));
    let results = futures::future::join_all(fetches).await;
    assert_eq!(server.origin.count("/dedup"), 1);
    assert!(
        results
            .iter()
            .all(|r| matches!(*r.outcome, FetchOutcome::Ok(_)))
    );
    assert_eq!(results.iter().filter(|r| !r.from_cache).count(), 1);
}

#[tokio::test]
async fn good_pages_and_404s_are_cached_but_503s_are_not() {
    let server = start().await;
    let fetcher = fetcher(FetchSettings {
        max_retries: 0,
        ..settings()
    });
    for path in ["/page", "/404", "/always-503"] {
        let first = fetcher.fetch(&server.url(path)).await;
        let second = fetcher.fetch(&server.url(path)).await;
        assert_eq!(first.outcome, second.outcome, "{path}");
    }
    assert_eq!(server.origin.count("/page"), 1);
    assert_eq!(server.origin.count("/404"), 1);
    assert_eq!(server.origin.count("/always-503"), 2);
    // The fragment is not part of the page.
    assert!(fetcher.fetch(&server.url("/page#pricing")).await.from_cache);
}

/// A page with nothing to read is a source that could not be read, never one that "does not
/// state" the claim: an application shell says why (its scripts render its text).
#[tokio::test]
async fn a_page_with_no_visible_text_is_not_a_readable_page() {
    let server = start().await;
    let fetcher = fetcher(settings());
    for (path, reason, advice) in [
        (
            "/script-shell",
            "the page renders its text with JavaScript",
            "cite the data or a text version",
        ),
        (
            "/blank",
            "the page is empty",
            "cite a page that states the claim",
        ),
    ] {
        let outcome = outcome(&fetcher, &server.url(path)).await;
        assert_eq!(
            outcome,
            FetchOutcome::Unreadable {
                reason: reason.to_owned(),
                advice,
            },
            "{path}"
        );
    }
}

#[tokio::test]
async fn a_page_nested_deeper_than_the_limit_is_never_parsed_and_leaves_its_source_unjudged() {
    let server = start().await;
    // Room for the page's 750 KB: the depth, not the size, must be what refuses it.
    let fetcher = fetcher(FetchSettings {
        max_body_bytes: 2 * 1024 * 1024,
        max_decompressed_bytes: 4 * 1024 * 1024,
        ..settings()
    });
    let started = std::time::Instant::now();
    match outcome(&fetcher, &server.url("/deep")).await {
        FetchOutcome::UnsupportedContent { content_type } => assert!(
            content_type.contains("fetch.max_nesting_depth"),
            "{content_type}"
        ),
        other => panic!("expected the page to be refused as too deep, got {other:?}"),
    }
    eprintln!(
        "150,000 nested elements refused in {:?} (the pre-scan, no tree)",
        started.elapsed()
    );
    let nested = page(outcome(&fetcher, &server.url("/nested")).await);
    assert!(nested.text.contains("$9/month"), "{}", nested.text);
}
