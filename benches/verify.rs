//! Verification speed, after issue 3 item 8:
//! - judging time per claim: the claims of a realistic article (about 1,500 words) judged
//!   against the visible text of that article served as a page, uncached (the page indexed
//!   for the claim) and cached (against the page's [`PageIndex`], built once, as the fetch cache
//!   keeps it), and the time to index the page;
//! - fetch-and-judge throughput on loopback, in claims per second: a local origin on 127.0.0.1
//!   serves 200 distinct pages and each claim cites its own page. Cold: a new [`Verifier`] (new
//!   client, empty cache) per iteration, so every claim costs a fetch. Warm: one verifier whose
//!   cache already holds every page, so a claim costs a cache hit and a judgment.
//!
//! Only loopback traffic. The rate limits are raised so the bench measures the work, not the
//! politeness towards one host (the defaults allow 2 requests per second per host).

use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use factgate::config::Config;
use factgate::verify::Verifier;
use factgate::verify::fetch::Fetcher;
use factgate_core::events::FetchStatus;
use factgate_core::extract::extract;
use factgate_core::judge::{PageIndex, judge, judge_page};
use factgate_core::model::{BodyFormat, Claim};
use factgate_core::text::webpage::html_to_text;
use futures::StreamExt;
use std::hint::black_box;

// The allocator factgate runs with (`factgate` and the pipeline bench declare it too), so the
// judge is timed as it runs in the verify role.
factgate::use_jemalloc!();

const ARTICLE: &str = include_str!("../tests/fixtures/articles/bench-1500-words.md");
/// Distinct pages on the origin, one per claim in the fetch benches.
const PAGES: usize = 200;
/// Pages when the bench runs once as a test (`cargo test --all-targets`), to keep that quick.
const TEST_MODE_PAGES: usize = 20;
/// Checks in flight at once, as `factgate check` runs them.
const CONCURRENCY: usize = 16;

/// Only the local origin may be fetched; rates high enough never to wait.
const CONFIG: &str = r#"
[fetch]
address_allowlist = ["127.0.0.1/32"]
per_host_requests_per_second = 10000.0
per_host_burst = 10000
global_requests_per_second = 10000.0
per_host_concurrency = 64
"#;

/// The article as an HTML page, headed by `edition` so every page differs.
fn page_html(edition: usize) -> String {
    let mut body = String::new();
    pulldown_cmark::html::push_html(&mut body, pulldown_cmark::Parser::new(ARTICLE));
    format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Tutoring report, edition \
         {edition}</title></head><body><nav>Home | Reports</nav><article><p>Edition {edition} \
         of the tutoring report.</p>{body}</article><footer>Copyright</footer></body></html>"
    )
}

/// The article's claims, as extraction finds them.
fn claims() -> Vec<Claim> {
    extract(ARTICLE, BodyFormat::Markdown)
        .expect("the bench article extracts")
        .claims
}

fn bench_judge(c: &mut Criterion) {
    let page = html_to_text(&page_html(0)).text;
    let claims = claims();
    let settings = Config::default().judge_settings();
    eprintln!(
        "judge: {} claims against a page of {} words",
        claims.len(),
        page.split_whitespace().count()
    );
    let mut group = c.benchmark_group("judge");
    group.throughput(Throughput::Elements(1));
    group.sample_size(50);
    // Uncached: the page is indexed again for the claim, as for a page judged once.
    group.bench_function("claim_vs_1500_word_page", |b| {
        // One claim per iteration, cycling through the article's claims.
        let mut next = claims.iter().cycle();
        b.iter(|| {
            let claim = next.next().expect("cycle over a non-empty list");
            judge(
                black_box(claim),
                black_box(&page),
                "http://127.0.0.1/page",
                &settings,
            )
        })
    });
    // Cached: the page's index is built once, as the fetch cache keeps it beside the page.
    let index = PageIndex::new(&page);
    eprintln!(
        "judge: the page's index holds about {} KiB for {} KiB of text",
        index.heap_bytes() / 1024,
        page.len() / 1024
    );
    group.bench_function("claim_vs_cached_1500_word_page", |b| {
        let mut next = claims.iter().cycle();
        b.iter(|| {
            let claim = next.next().expect("cycle over a non-empty list");
            judge_page(
                black_box(claim),
                black_box(&index),
                "http://127.0.0.1/page",
                &settings,
            )
        })
    });
    group.bench_function("index_1500_word_page", |b| {
        b.iter(|| PageIndex::new(black_box(&page)))
    });
    group.finish();
}

/// Starts the origin on 127.0.0.1:0 serving `/page/{k}` for k < `pages`; returns its base URL.
async fn serve(pages: usize) -> String {
    use axum::extract::{Path, State};
    use axum::http::StatusCode;
    use axum::response::{Html, IntoResponse, Response};

    async fn one(State(pages): State<Arc<Vec<String>>>, Path(k): Path<usize>) -> Response {
        match pages.get(k) {
            Some(page) => Html(page.clone()).into_response(),
            None => StatusCode::NOT_FOUND.into_response(),
        }
    }
    let pages: Vec<String> = (0..pages).map(page_html).collect();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let port = listener.local_addr().expect("local address").port();
    let app = axum::Router::new()
        .route("/page/{k}", axum::routing::get(one))
        .with_state(Arc::new(pages));
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://127.0.0.1:{port}")
}

fn verifier(config: &Config) -> Verifier {
    let fetcher = Fetcher::new(config.fetch_settings()).expect("the fetcher builds");
    Verifier::new(fetcher, config.judge_settings(), None)
}

/// Checks every (claim, url) pair, [`CONCURRENCY`] at a time; returns how many pages were read.
async fn check_all(verifier: &Verifier, work: &[(Claim, String)]) -> usize {
    futures::stream::iter(work)
        .map(|(claim, url)| verifier.verify_claim("bench", 0, claim, url))
        .buffer_unordered(CONCURRENCY)
        .filter(|r| futures::future::ready(r.fetch_status == FetchStatus::Ok))
        .count()
        .await
}

fn bench_fetch_and_judge(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("the runtime starts");
    let config = Config::from_toml_str(CONFIG).expect("the bench config is valid");
    // Criterion measures only when run with `--bench`; otherwise it runs each bench once.
    let pages = if std::env::args().any(|a| a == "--bench") {
        PAGES
    } else {
        TEST_MODE_PAGES
    };
    let base = runtime.block_on(serve(pages));
    let claims = claims();
    // Claim k cites page k: every claim has a page of its own.
    let work: Vec<(Claim, String)> = (0..pages)
        .map(|k| (claims[k % claims.len()].clone(), format!("{base}/page/{k}")))
        .collect();

    let warm = verifier(&config);
    let read = runtime.block_on(check_all(&warm, &work));
    assert_eq!(read, pages, "every page of the local origin is read");
    eprintln!("fetch_and_judge: {pages} claims, each citing its own page, {CONCURRENCY} at a time");

    let mut group = c.benchmark_group("fetch_and_judge");
    group.throughput(Throughput::Elements(pages as u64));
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("cold_cache", |b| {
        b.iter(|| runtime.block_on(check_all(&verifier(&config), black_box(&work))))
    });
    group.bench_function("warm_cache", |b| {
        b.iter(|| runtime.block_on(check_all(&warm, black_box(&work))))
    });
    group.finish();
    let stats = warm.fetcher().stats();
    eprintln!(
        "warm verifier: {} requests sent in all (one per page: the rest were cache hits)",
        stats.requests_sent
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(5));
    targets = bench_judge, bench_fetch_and_judge
}
criterion_main!(benches);
