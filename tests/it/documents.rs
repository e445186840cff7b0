//! Sources that are documents (issue 39), end to end on an origin on 127.0.0.1: a cited PDF is
//! read as its text, its table as sentences, and judged as the same text served as a web page
//! is; its evidence names the page it is on in every report; a PDF served as bytes is still a
//! PDF; a CSV data file is read as its table; and what cannot be read (an encrypted or scanned
//! PDF, a decompression bomb, a spreadsheet, a page whose scripts render its text) blocks, with
//! its reason in words and what to cite instead.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::support::cases::pdf::{PAGE_BREAK, bomb_pdf, encrypted_pdf, pdf_from_text, scanned_pdf};
use crate::support::origin::{Hit, Server, respond};
use axum::response::Response;
use factgate::check::{CheckOptions, Checked, check_article};
use factgate::config::Config;
use factgate::verify::Verifier;
use factgate::verify::fetch::{FetchSettings, Fetcher};
use factgate_core::decide::Strictness;
use factgate_core::events::{ClaimStatus, DecisionReason, FetchStatus, Outcome};
use factgate_core::fetched::FetchOutcome;
use factgate_core::model::{BodyFormat, Severity};
use serde_json::Value;

/// A statistics office's report: prose on page 1, a table and more prose on page 2.
fn report() -> String {
    format!(
        "# Regional housing report 2024\n\n\
         The Housing Office counted 48,200 new homes completed in 2024, up from 41,500 in 2023.\n\n\
         Average rents rose 6.1% over the year, the office said.\n\n\
         Building permits were issued for 52,900 homes in 2024.\n\
         {PAGE_BREAK}\n\
         Table 2: Homes by region, 2024\n\n\
         | Region | Homes completed | Permits issued |\n\
         |---|---|---|\n\
         | North | 14,100 | 15,800 |\n\
         | South | 21,300 | 24,600 |\n\
         | West | 12,800 | 12,500 |\n\n\
         The vacancy rate fell to 2.3% in the capital in 2024.\n"
    )
}

/// The report as a web page: the same words, its table an HTML table.
fn report_html() -> String {
    let mut html =
        String::from("<html><head><title>Regional housing report 2024</title></head><body>");
    let mut rows: Vec<Vec<String>> = Vec::new();
    let flush = |rows: &mut Vec<Vec<String>>, html: &mut String| {
        if rows.is_empty() {
            return;
        }
        html.push_str("<table>");
        for (i, row) in rows.drain(..).enumerate() {
            let cell = if i == 0 { "th" } else { "td" };
            html.push_str("<tr>");
            for c in row {
                html.push_str(&format!("<{cell}>{c}</{cell}>"));
            }
            html.push_str("</tr>");
        }
        html.push_str("</table>");
    };
    for line in report().lines().map(str::trim) {
        if let Some(row) = line.strip_prefix('|') {
            if !row.starts_with("---") {
                let cells = row.trim_end_matches('|').split('|');
                rows.push(cells.map(|c| c.trim().to_owned()).collect());
            }
            continue;
        }
        flush(&mut rows, &mut html);
        if line.is_empty() || line == PAGE_BREAK {
            continue;
        }
        match line.strip_prefix("# ") {
            Some(heading) => html.push_str(&format!("<h1>{heading}</h1>")),
            None => html.push_str(&format!("<p>{line}</p>")),
        }
    }
    flush(&mut rows, &mut html);
    html.push_str("</body></html>");
    html
}

/// The report's table as a statistics office publishes the data beside it.
const COMPLETIONS_CSV: &str = "Region,Homes completed in 2024,Permits issued in 2024\n\
    North,\"14,100\",\"15,800\"\nSouth,\"21,300\",\"24,600\"\nWest,\"12,800\",\"12,500\"\n";

const PDF: (&str, &str) = ("content-type", "application/pdf");
const BYTES: (&str, &str) = ("content-type", "application/octet-stream");
const HTML: (&str, &str) = ("content-type", "text/html; charset=utf-8");

async fn start() -> Server {
    crate::support::origin::start(handle).await
}

async fn handle(hit: Hit) -> Response {
    match hit.path.as_str() {
        "/report.pdf" => respond(200, &[PDF], pdf_from_text(&report())),
        "/report.html" => respond(200, &[HTML], report_html()),
        // Servers that do not know what they serve: a .pdf URL, and a URL saying nothing.
        "/download/report.pdf" | "/download/report" => {
            respond(200, &[BYTES], pdf_from_text(&report()))
        }
        "/encrypted.pdf" => respond(200, &[PDF], encrypted_pdf()),
        "/scanned.pdf" => respond(200, &[PDF], scanned_pdf()),
        // 16 MiB of zeros in about 16 KB: past the tests' 4 MiB stream cap.
        "/bomb.pdf" => respond(200, &[PDF], bomb_pdf(16 << 20)),
        "/completions.csv" => respond(200, &[("content-type", "text/csv")], COMPLETIONS_CSV),
        "/data/completions.csv" => respond(200, &[BYTES], COMPLETIONS_CSV),
        "/completions.xlsx" => respond(
            200,
            &[(
                "content-type",
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            )],
            &b"PK\x03\x04 a workbook"[..],
        ),
        "/app" => respond(
            200,
            &[HTML],
            "<!doctype html><html><head><title>Housing data</title>\
             <script defer src=\"/static/js/main.js\"></script></head>\
             <body><noscript>You need to enable JavaScript to run this app.</noscript>\
             <div id=\"root\"></div></body></html>",
        ),
        "/loading" => respond(
            200,
            &[HTML],
            "<html><body><div id=\"app\"><p>Loading…</p></div>\
             <script src=\"/app.js\"></script></body></html>",
        ),
        _ => respond(404, &[], "unknown"),
    }
}

/// Loopback allowed, small page caps (documents have their own), and a stream cap small
/// enough for a bomb of a few kilobytes to pass it.
const CONFIG: &str = r#"
[fetch]
address_allowlist = ["127.0.0.1/32"]
timeout_ms = 10000
connect_timeout_ms = 1000
max_body_bytes = 131072
max_decompressed_bytes = 1048576
max_pdf_stream_bytes = 4194304
per_host_requests_per_second = 1000.0
per_host_burst = 1000
global_requests_per_second = 1000.0
per_host_concurrency = 16
max_retries = 0
"#;

fn verifier() -> Verifier {
    let config = Config::from_toml_str(CONFIG).expect("test config is valid");
    let fetcher = Fetcher::new(config.fetch_settings()).expect("fetcher builds");
    Verifier::new(fetcher, config.judge_settings(), None)
}

/// Checks `body` as `factgate check` does; every decision must satisfy the decision schema.
async fn check_with(verifier: &Verifier, id: &str, body: &str) -> Checked {
    let options = CheckOptions {
        strictness: Strictness::Normal,
        deadline: Duration::from_secs(30),
        concurrency: 8,
        limits: factgate_core::extract::ExtractLimits::default(),
    };
    let checked = check_article(id, 1, body, BodyFormat::Markdown, verifier, &options).await;
    let decisions = crate::support::schema::validator("decision.v1");
    crate::support::schema::assert_valid(&decisions, &checked.decision);
    checked
}

/// An article of one statement citing `url`.
fn citing(statement: &str, url: &str) -> String {
    format!("# Housing\n\n{statement}, according to [the report]({url}).\n")
}

/// The report's statements as articles write them, each with whether the report bears it out.
const STATEMENTS: &[(&str, bool)] = &[
    (
        "The Housing Office counted 48,200 new homes completed in 2024",
        true,
    ),
    (
        "The Housing Office counted 58,200 new homes completed in 2024",
        false,
    ),
    ("Average rents rose 6.1% over the year", true),
    ("Average rents rose 9.1% over the year", false),
    (
        "Building permits were issued for 52,900 homes in 2024",
        true,
    ),
    (
        "Building permits were issued for 32,900 homes in 2024",
        false,
    ),
    ("The North completed 14,100 homes in 2024", true),
    ("The North completed 19,100 homes in 2024", false),
    ("The South completed 21,300 homes in 2024", true),
    ("The South completed 11,300 homes in 2024", false),
    (
        "Permits were issued for 24,600 homes in the South in 2024",
        true,
    ),
    (
        "Permits were issued for 42,600 homes in the South in 2024",
        false,
    ),
    ("The West completed 12,800 homes in 2024", true),
    ("The West completed 16,200 homes in 2024", false),
    ("The vacancy rate fell to 2.3% in the capital in 2024", true),
    (
        "The vacancy rate fell to 4.3% in the capital in 2024",
        false,
    ),
];

/// What a check decided about its one claim: the outcome, the claim's verdict, its correction
/// and the passage quoted.
type Decided = (Outcome, Option<ClaimStatus>, Option<String>, Option<String>);

fn decided(checked: &Checked) -> Decided {
    let d = &checked.decision;
    let claim = d.report.claims.first();
    (
        d.outcome,
        claim.and_then(|c| c.verdict),
        claim.and_then(|c| c.correction.clone()),
        claim.and_then(|c| c.evidence_quote.clone()),
    )
}

/// The issue's target: a statement checked against the PDF is decided as it is against the same
/// text as a web page (outcome, verdict, correction and the passage quoted), true ones supported
/// and passed, wrong ones refuted and blocked; prose and table figures alike.
#[tokio::test]
async fn a_pdf_source_is_judged_as_the_same_text_served_as_a_page_is() {
    let server = start().await;
    let verifier = verifier();
    let mut differences = Vec::new();
    for (n, (statement, true_)) in STATEMENTS.iter().enumerate() {
        let as_pdf = check_with(
            &verifier,
            &format!("pdf-{n}"),
            &citing(statement, &server.url("/report.pdf")),
        )
        .await;
        let as_page = check_with(
            &verifier,
            &format!("html-{n}"),
            &citing(statement, &server.url("/report.html")),
        )
        .await;
        assert_eq!(
            as_pdf
                .results
                .iter()
                .map(|r| r.fetch_status)
                .collect::<Vec<_>>(),
            vec![FetchStatus::Ok],
            "{statement}: {:#?}",
            as_pdf.decision.report
        );
        let expected = if *true_ {
            (Outcome::Pass, Some(ClaimStatus::Supported))
        } else {
            (Outcome::Block, Some(ClaimStatus::Refuted))
        };
        let (pdf, page) = (decided(&as_pdf), decided(&as_page));
        assert_eq!(
            (page.0, page.1),
            expected,
            "{statement} (web page): {:#?}",
            as_page.decision.report
        );
        if pdf != page {
            differences.push(format!("{statement}: PDF {pdf:?}, page {page:?}"));
        }
    }
    assert!(
        differences.is_empty(),
        "decided otherwise from the PDF:\n{}",
        differences.join("\n")
    );
    // The PDF was fetched once and read from the cache after.
    assert_eq!(server.origin.count("/report.pdf"), 1);
}

/// `factgate check` with `args` in `dir`; its standard output.
fn factgate(dir: &Path, args: &[&str]) -> impl Future<Output = String> + use<> {
    let dir = dir.to_owned();
    let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    async move { run_factgate(dir, args).await }
}

async fn run_factgate(dir: std::path::PathBuf, args: Vec<String>) -> String {
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_factgate"))
            .args(&args)
            .current_dir(dir)
            .env("RUST_LOG", "warn")
            .output()
            .expect("factgate runs")
    })
    .await
    .expect("the command finishes");
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{out:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// A wrong figure from page 2 of a PDF: the report names the page beside the quote in every
/// format, and the decision page links the PDF at that page.
#[tokio::test]
async fn the_evidence_from_a_pdf_names_its_page_in_every_report() {
    let server = start().await;
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("local.toml"), CONFIG).expect("config");
    let url = server.url("/report.pdf");
    let article = format!(
        "# Housing\n\nThe North completed 19,100 homes in 2024, according to [the report]({url}).\n\n\
         The Housing Office counted 48,200 new homes completed in 2024, [the report]({url}) \
         says.\n"
    );
    std::fs::write(dir.path().join("housing.md"), article).expect("article");
    let run = |format: &'static str| {
        factgate(
            dir.path(),
            &[
                "check",
                "housing.md",
                "-c",
                "local.toml",
                "--format",
                format,
            ],
        )
    };

    let json: Value = serde_json::from_str(run("json").await.trim()).expect("a JSON decision");
    let claims = json["report"]["claims"].as_array().expect("claims");
    let page_of = |needle: &str| {
        claims
            .iter()
            .find(|c| c["text"].as_str().is_some_and(|t| t.contains(needle)))
            .map(|c| c["evidence_page"].clone())
    };
    assert_eq!(page_of("19,100"), Some(Value::from(2)), "{claims:#?}");
    assert_eq!(page_of("48,200"), Some(Value::from(1)), "{claims:#?}");
    let issue = json["report"]["issues"]
        .as_array()
        .and_then(|issues| {
            issues
                .iter()
                .find(|i| i["claim"].as_str().is_some_and(|c| c.contains("19,100")))
        })
        .expect("the wrong figure's issue");
    let evidence = issue["evidence"].as_str().unwrap_or_default();
    assert!(
        evidence.starts_with(&format!("{url} (p. 2): \"")) && evidence.contains("14,100"),
        "{evidence}"
    );

    let text = run("text").await;
    assert!(
        text.contains(&format!("evidence: {url} (p. 2): \"")),
        "{text}"
    );
    assert!(text.contains("(source p. 1)"), "{text}");
    let markdown = run("markdown").await;
    assert!(markdown.contains("(p. 2)"), "{markdown}");
    assert!(
        markdown.contains(&format!("| {url} (p. 1) |")),
        "{markdown}"
    );
    let html = run("html").await;
    assert!(html.contains("data-evidence-page>p. 2<"), "{html}");
    assert!(html.contains("#page=2"), "{html}");
}

/// An encrypted PDF, a scanned one, a decompression bomb and a spreadsheet: each blocks as a
/// source that could not be read, saying why and what to cite instead, never as a source that
/// does not state the claim.
#[tokio::test]
async fn documents_that_cannot_be_read_block_with_their_reason_in_words() {
    let server = start().await;
    let verifier = verifier();
    for (path, problem) in [
        (
            "/encrypted.pdf",
            "The PDF is encrypted: cite a copy that is not encrypted, or a text version of the \
             document",
        ),
        (
            "/scanned.pdf",
            "The PDF is scanned images with no text layer: cite a text version of the document",
        ),
        (
            "/bomb.pdf",
            "The PDF's compressed streams expand past 4194304 bytes (fetch.max_pdf_stream_bytes): \
             cite a text version of the document",
        ),
        (
            "/completions.xlsx",
            "Spreadsheets (.xlsx) are not read yet: cite the CSV or the page",
        ),
    ] {
        let started = std::time::Instant::now();
        let checked =
            check_with(&verifier, path, &citing(STATEMENTS[0].0, &server.url(path))).await;
        let d = &checked.decision;
        assert_eq!(d.outcome, Outcome::Block, "{path}");
        assert!(
            d.reasons.contains(&DecisionReason::SourceUnjudgeable),
            "{path}: {:?}",
            d.reasons
        );
        assert_eq!(
            checked
                .results
                .iter()
                .map(|r| r.fetch_status)
                .collect::<Vec<_>>(),
            vec![FetchStatus::UnsupportedContent],
            "{path}"
        );
        let issue = &d.report.issues[0];
        assert_eq!(issue.problem, problem, "{path}");
        assert_eq!(issue.severity, Severity::Medium, "{path}");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{path} took {:?}",
            started.elapsed()
        );
    }
}

/// A PDF served as `application/octet-stream`, at a `.pdf` URL or at one that says nothing, is
/// read as a PDF; its page is cached with its page starts like any page.
#[tokio::test]
async fn a_pdf_served_as_bytes_is_read_as_a_pdf() {
    let server = start().await;
    let verifier = verifier();
    for path in ["/download/report.pdf", "/download/report"] {
        let checked =
            check_with(&verifier, path, &citing(STATEMENTS[6].0, &server.url(path))).await;
        assert_eq!(
            decided(&checked).0,
            Outcome::Pass,
            "{path}: {:#?}",
            checked.decision.report
        );
        assert_eq!(
            checked.results[0].evidence.as_ref().and_then(|e| e.page),
            Some(2),
            "{path}"
        );
    }
    let fetcher = Fetcher::new(
        Config::from_toml_str(CONFIG)
            .expect("config")
            .fetch_settings(),
    )
    .expect("fetcher");
    let first = fetcher.fetch(&server.url("/download/report")).await;
    let again = fetcher.fetch(&server.url("/download/report")).await;
    assert!(again.from_cache && !first.from_cache);
    match &*again.outcome {
        FetchOutcome::Ok(page) => {
            assert_eq!(page.content_type, "application/pdf");
            assert_eq!(page.title.as_deref(), Some("Regional housing report 2024"));
            assert_eq!(page.page_starts.len(), 2, "{:?}", page.page_starts);
            assert!(page.claim_reviews.is_empty() && page.furniture.is_empty());
        }
        other => panic!("expected the PDF read, got {other:?}"),
    }
}

/// A document is read within `fetch.max_document_bytes`, not the page cap: a PDF larger than
/// `max_body_bytes` is read, one larger than the document cap is too large.
#[tokio::test]
async fn a_document_has_a_body_cap_of_its_own() {
    // Figures that differ line by line, so the PDF's streams do not compress to nothing.
    let entries: String = (0..20_000)
        .map(|i| format!("Entry {i} counted {} homes. ", i * 7919 % 100_003))
        .collect();
    let long = format!("{}\n\n{entries}", report());
    let pdf = pdf_from_text(&long);
    let size = pdf.len() as u64;
    let server = crate::support::origin::start(move |_hit: Hit| {
        let pdf = pdf.clone();
        async move { respond(200, &[PDF], pdf) }
    })
    .await;
    let settings = |max_document_bytes| FetchSettings {
        address_allowlist: vec!["127.0.0.1/32".parse().expect("net")],
        max_body_bytes: 16 * 1024,
        max_decompressed_bytes: 16 * 1024,
        max_document_bytes,
        max_retries: 0,
        ..FetchSettings::default()
    };
    assert!(
        size > 16 * 1024,
        "the PDF is larger than the page cap: {size}"
    );
    let read = Fetcher::new(settings(4 << 20)).expect("fetcher");
    let outcome = read.fetch(&server.url("/long.pdf")).await.outcome;
    assert!(
        matches!(&*outcome, FetchOutcome::Ok(page) if page.text.contains("48,200")),
        "{outcome:?}"
    );
    let capped = Fetcher::new(settings(size / 2)).expect("fetcher");
    assert_eq!(
        *capped.fetch(&server.url("/long.pdf")).await.outcome,
        FetchOutcome::TooLarge { limit: size / 2 }
    );
}

/// A CSV data file is read as its table: a figure it gives is supported, one it contradicts is
/// refuted with the file's figure; a `.csv` served as bytes is read the same.
#[tokio::test]
async fn a_csv_source_is_read_as_its_table() {
    let server = start().await;
    let verifier = verifier();
    for path in ["/completions.csv", "/data/completions.csv"] {
        let good = check_with(
            &verifier,
            &format!("{path}-good"),
            &citing(
                "The South completed 21,300 homes in 2024",
                &server.url(path),
            ),
        )
        .await;
        assert_eq!(
            decided(&good).0,
            Outcome::Pass,
            "{path}: {:#?}",
            good.decision.report
        );
        let wrong = check_with(
            &verifier,
            &format!("{path}-wrong"),
            &citing(
                "The South completed 11,300 homes in 2024",
                &server.url(path),
            ),
        )
        .await;
        let (outcome, verdict, correction, _) = decided(&wrong);
        assert_eq!(
            (outcome, verdict),
            (Outcome::Block, Some(ClaimStatus::Refuted)),
            "{path}: {:#?}",
            wrong.decision.report
        );
        assert!(
            correction.as_deref().is_some_and(|c| c.contains("21,300")),
            "{path}: {correction:?}"
        );
    }
}

/// A page that is an application shell is a source that could not be read, never one that
/// "does not state" the claim.
#[tokio::test]
async fn a_script_only_page_is_a_source_that_could_not_be_read() {
    let server = start().await;
    let verifier = verifier();
    for path in ["/app", "/loading"] {
        let checked =
            check_with(&verifier, path, &citing(STATEMENTS[0].0, &server.url(path))).await;
        let d = &checked.decision;
        assert_eq!(d.outcome, Outcome::Block, "{path}");
        assert!(
            d.reasons.contains(&DecisionReason::SourceUnjudgeable),
            "{path}: {:?}",
            d.reasons
        );
        let issue = &d.report.issues[0];
        assert_eq!(
            issue.problem,
            "The page renders its text with JavaScript: cite the data or a text version",
            "{path}"
        );
        assert!(!issue.problem.contains("does not"), "{}", issue.problem);
    }
}

/// One draft citing a PDF, through the stream processor on the embedded broker: decided, its
/// wrong figure blocked with the page of the PDF that gives the right one.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_draft_citing_a_pdf_is_decided_by_the_pipeline() {
    use crate::support::pipeline::{decided, publish_draft, serve_on_embedded_broker};
    let server = start().await;
    let served = serve_on_embedded_broker().await;
    let url = server.url("/report.pdf");
    let draft = serde_json::json!({
        "schema_version": "factgate.draft.v1",
        "article_id": "pdf-draft-1",
        "revision": 1,
        "published_at": chrono::Utc::now().to_rfc3339(),
        "body": format!(
            "# Housing\n\nThe West completed 16,200 homes in 2024, according to \
             [the report]({url}).\n"
        ),
        "body_format": "markdown",
    });
    let payload = serde_json::to_vec(&draft).expect("serializes");
    publish_draft(&served.producer, &served.config, "pdf-draft-1", &payload).await;
    let until = tokio::time::Instant::now() + Duration::from_secs(60);
    let decision = decided(&served.client, &served.base, "pdf-draft-1", until).await;
    assert_eq!(decision["outcome"], "block", "{decision:#}");
    let claim = &decision["report"]["claims"][0];
    assert_eq!(claim["verdict"], "refuted", "{decision:#}");
    assert_eq!(claim["evidence_page"], 2, "{decision:#}");
    assert!(
        claim["correction"]
            .as_str()
            .is_some_and(|c| c.contains("12,800")),
        "{decision:#}"
    );
    served.running.stop().await;
}
