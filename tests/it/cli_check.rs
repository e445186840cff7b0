//! `factgate check` as a user and a CI job run it: exit 0 on pass, 1 on any block, 2 on error; a
//! readable summary by default, decisions as JSON Lines, Markdown, JUnit XML (parsed here) and
//! SARIF 2.1.0 (validated against the OASIS schema vendored in tests/fixtures/sarif/); many
//! inputs, directories, patterns and draft events on stdin; progress on stderr; a closed pipe.
//! Sources come from an origin on 127.0.0.1.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use axum::Router;
use axum::response::Html;
use axum::routing::get;
use serde_json::Value;

async fn start_origin() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let port = listener.local_addr().expect("local addr").port();
    let app = Router::new().route(
        "/study",
        get(|| async {
            Html(
                "<p>In 2023, online tutoring accounted for 28% of all spending on private \
                 tutoring, the survey found.</p>",
            )
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    port
}

async fn factgate(args: Vec<String>, dir: &Path) -> Output {
    let dir = dir.to_owned();
    tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_factgate"))
            .args(&args)
            .current_dir(dir)
            .env("RUST_LOG", "warn")
            .output()
            .expect("factgate runs")
    })
    .await
    .expect("the command finishes")
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write fixture");
    path.display().to_string()
}

const LOOPBACK_CONFIG: &str = "[fetch]\naddress_allowlist = [\"127.0.0.1/32\"]\n";

#[tokio::test]
async fn exit_status_says_pass_block_or_error() {
    let port = start_origin().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let config = write(dir.path(), "local.toml", LOOPBACK_CONFIG);
    let good = write(
        dir.path(),
        "good.md",
        &format!(
            "# Tutoring\n\nOnline tutoring accounted for 28% of spending on private tutoring \
             in 2023, according to [the survey](http://127.0.0.1:{port}/study).\n"
        ),
    );
    let pilot = write(
        dir.path(),
        "pilot.md",
        "Our pilot with 500 students showed 73% improvement.\n",
    );

    let out = factgate(
        vec!["check".into(), good.clone(), "-c".into(), config.clone()],
        dir.path(),
    )
    .await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.starts_with("PASS"), "{text}");

    let out = factgate(
        vec!["check".into(), pilot, "-c".into(), config.clone()],
        dir.path(),
    )
    .await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.starts_with("BLOCK"), "{text}");
    assert!(text.contains("high_severity_issue"), "{text}");
    assert!(text.contains("appears to be fabricated"), "{text}");

    // Without the allowlist, loopback is refused: the same article blocks, unjudged.
    let out = factgate(
        vec!["check".into(), good.clone(), "--json".into()],
        dir.path(),
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let decision: Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    assert_eq!(decision["outcome"], "block");
    let reasons = decision["reasons"].as_array().expect("reasons");
    assert!(
        reasons.contains(&Value::from("source_unjudgeable")),
        "{reasons:?}"
    );

    let bad_config = write(dir.path(), "bad.toml", "[fetch]\ntimout_ms = 5\n");
    let out = factgate(
        vec!["check".into(), good, "-c".into(), bad_config],
        dir.path(),
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("fetch.timout_ms"), "{err}");
}

#[tokio::test]
async fn an_unreadable_article_is_blocked_not_passed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let empty = write(dir.path(), "empty.md", "   \n");
    let out = factgate(vec!["check".into(), empty, "--json".into()], dir.path()).await;
    assert_eq!(out.status.code(), Some(1));
    let decision: Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    assert_eq!(decision["reasons"][0], "extraction_failed");
}

// --- batch and CI use ----------------------------------------------------------------------------

/// `factgate` with `stdin` on its standard input.
async fn factgate_with_stdin(args: Vec<String>, dir: &Path, stdin: Vec<u8>) -> Output {
    let dir = dir.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut child = Command::new(env!("CARGO_BIN_EXE_factgate"))
            .args(&args)
            .current_dir(dir)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("factgate starts");
        let mut input = child.stdin.take().expect("stdin is piped");
        input.write_all(&stdin).expect("write stdin");
        drop(input);
        child.wait_with_output().expect("factgate finishes")
    })
    .await
    .expect("the command finishes")
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

/// A passing article and a blocked one in `dir/articles/`, with the loopback configuration.
fn two_articles(dir: &Path, port: u16) -> (String, String, String) {
    std::fs::create_dir_all(dir.join("articles")).expect("mkdir");
    let config = write(dir, "local.toml", LOOPBACK_CONFIG);
    let good = write(
        dir,
        "articles/good.md",
        &format!(
            "# Tutoring\n\nOnline tutoring accounted for 28% of spending on private tutoring \
             in 2023, according to [the survey](http://127.0.0.1:{port}/study).\n"
        ),
    );
    let pilot = write(
        dir,
        "articles/pilot.md",
        "# Results\n\nTutors are busy.\nOur pilot with 500 students showed 73% improvement.\n",
    );
    (config, good, pilot)
}

fn draft_event(article_id: &str, body: &str) -> String {
    serde_json::json!({
        "schema_version": "factgate.draft.v1",
        "article_id": article_id,
        "revision": 7,
        "published_at": "2026-01-01T00:00:00Z",
        "body": body,
        "body_format": "markdown",
    })
    .to_string()
}

fn json_lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is a decision"))
        .collect()
}

#[tokio::test]
async fn a_directory_and_a_pattern_check_every_article_once() {
    let port = start_origin().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let (config, _, _) = two_articles(dir.path(), port);

    let out = factgate(
        args(&["check", "articles", "--format", "json", "-c", &config]),
        dir.path(),
    )
    .await;
    assert_eq!(out.status.code(), Some(1), "any block is status 1");
    let decisions = json_lines(&out.stdout);
    let by_id: Vec<(&str, &str)> = decisions
        .iter()
        .map(|d| {
            (
                d["article_id"].as_str().unwrap_or(""),
                d["outcome"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        by_id,
        [("articles/good.md", "pass"), ("articles/pilot.md", "block")]
    );

    let out = factgate(
        args(&["check", "articles/g*.md", "--format", "json", "-c", &config]),
        dir.path(),
    )
    .await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "only the passing article matches"
    );
    assert_eq!(json_lines(&out.stdout).len(), 1);

    let out = factgate(
        args(&["check", "articles/*.rst", "-c", &config]),
        dir.path(),
    )
    .await;
    assert_eq!(
        out.status.code(),
        Some(2),
        "a pattern matching nothing is an error"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("articles/*.rst: no file to check"), "{err}");
}

#[tokio::test]
async fn draft_events_as_json_lines_on_stdin_are_checked_as_drafts() {
    let port = start_origin().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let config = write(dir.path(), "local.toml", LOOPBACK_CONFIG);
    let stdin = format!(
        "{}\n{}\n{}\n",
        draft_event(
            "cms-good",
            &format!(
                "Online tutoring accounted for 28% of spending on private tutoring in 2023, \
                 according to [the survey](http://127.0.0.1:{port}/study)."
            )
        ),
        draft_event(
            "cms-pilot",
            "Our pilot with 500 students showed 73% improvement."
        ),
        // Its id can be read, not its revision's body: blocked as unreadable, as the pipeline does.
        r#"{"schema_version":"factgate.draft.v1","article_id":"cms-broken","revision":2}"#,
    );
    let out = factgate_with_stdin(
        args(&["check", "-", "--format", "json", "-c", &config]),
        dir.path(),
        stdin.into_bytes(),
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let decisions = json_lines(&out.stdout);
    let summary: Vec<(String, u64, String, Value)> = decisions
        .iter()
        .map(|d| {
            (
                d["article_id"].as_str().unwrap_or("").to_owned(),
                d["revision"].as_u64().unwrap_or(0),
                d["outcome"].as_str().unwrap_or("").to_owned(),
                d["reasons"].clone(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("cms-good".into(), 7, "pass".into(), serde_json::json!([])),
            (
                "cms-pilot".into(),
                7,
                "block".into(),
                serde_json::json!(["high_severity_issue"])
            ),
            (
                "cms-broken".into(),
                2,
                "block".into(),
                serde_json::json!(["draft_unreadable"])
            ),
        ]
    );
    // The event's body was checked, not the event's JSON as text.
    assert_eq!(decisions[1]["report"]["summary"]["total_claims"], 1);
}

#[tokio::test]
async fn the_repository_draft_files_are_read_as_draft_events() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("temp dir");
    // The demo's drafts are templates: their published_at is a placeholder the demo fills in.
    // Read as a draft event, the file is blocked naming that field, not checked as text.
    let template = repo.join("examples/demo/drafts/fabricated.json");
    let out = factgate(
        args(&["check", template.to_str().unwrap_or(""), "--json"]),
        dir.path(),
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let decision: Value = serde_json::from_slice(&out.stdout).expect("one decision");
    assert_eq!(decision["article_id"], "demo-fabricated");
    assert_eq!(decision["reasons"], serde_json::json!(["draft_unreadable"]));
    let why = decision["report"]["recommendation_reason"].to_string()
        + &decision["report"]["issues"].to_string();
    assert!(why.contains("published_at"), "{why}");

    // A complete draft file is checked as the event it is: its id, its revision, its body.
    let draft = write(
        dir.path(),
        "draft.json",
        &draft_event(
            "file-draft",
            "Our pilot with 500 students showed 73% improvement.",
        ),
    );
    let out = factgate(args(&["check", &draft, "--json"]), dir.path()).await;
    let decision: Value = serde_json::from_slice(&out.stdout).expect("one decision");
    assert_eq!(decision["article_id"], "file-draft");
    assert_eq!(decision["revision"], 7);
    assert_eq!(decision["report"]["summary"]["total_claims"], 1);
    let claims = decision["report"]["claims"].to_string();
    assert!(
        !claims.contains("factgate.draft.v1") && !claims.contains("published_at"),
        "the event's JSON was read as text: {claims}"
    );
}

/// A validator for SARIF 2.1.0, from the OASIS schema vendored in tests/fixtures/sarif/.
fn sarif_validator() -> jsonschema::Validator {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sarif/sarif-schema-2.1.0.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the vendored schema"))
            .expect("the schema is JSON");
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles")
}

#[tokio::test]
async fn sarif_output_is_valid_sarif_2_1_0_and_locates_the_claim() {
    let port = start_origin().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let (config, _, _) = two_articles(dir.path(), port);
    let out = factgate(
        args(&[
            "check",
            "articles",
            "--format",
            "sarif",
            "--output",
            "report.sarif",
            "-c",
            &config,
        ]),
        dir.path(),
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "the report went to the file");
    let text = std::fs::read_to_string(dir.path().join("report.sarif")).expect("report written");
    let sarif: Value = serde_json::from_str(&text).expect("SARIF is JSON");
    let validator = sarif_validator();
    let problems: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(problems.is_empty(), "{problems:#?}");
    // Also checks the vendored schema is strict: a log without its version is refused.
    let mut broken = sarif.clone();
    broken.as_object_mut().map(|o| o.remove("version"));
    assert!(!validator.is_valid(&broken));

    let results = sarif["runs"][0]["results"].as_array().expect("results");
    let pilot: Vec<&Value> = results
        .iter()
        .filter(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "articles/pilot.md"
        })
        .collect();
    assert!(!pilot.is_empty(), "{results:#?}");
    assert_eq!(pilot[0]["level"], "error");
    // The fabricated-data claim is the sentence on line 4 of the file.
    let region = &pilot[0]["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], 4, "{region}");
    assert!(
        results.iter().all(
            |r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                != "articles/good.md"
        ),
        "a passing article has no result"
    );
}

#[tokio::test]
async fn junit_output_has_a_test_case_per_article_and_a_failure_per_block() {
    use quick_xml::events::Event;
    let port = start_origin().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let (config, _, _) = two_articles(dir.path(), port);
    let out = factgate(
        args(&["check", "articles", "--format", "junit", "-c", &config]),
        dir.path(),
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let xml = String::from_utf8(out.stdout).expect("UTF-8 XML");
    let mut reader = quick_xml::Reader::from_str(&xml);
    let mut path: Vec<String> = Vec::new();
    let mut cases: Vec<(String, bool)> = Vec::new();
    let mut suites = Vec::new();
    loop {
        let event = reader
            .read_event()
            .unwrap_or_else(|e| panic!("invalid XML: {e}\n{xml}"));
        let (start, empty) = match &event {
            Event::Start(e) => (Some(e.clone()), false),
            Event::Empty(e) => (Some(e.clone()), true),
            _ => (None, false),
        };
        if let Some(e) = start {
            let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
            let attr = |key: &str| {
                e.attributes()
                    .filter_map(Result::ok)
                    .find(|a| a.key.as_ref() == key.as_bytes())
                    .map(|a| a.unescape_value().expect("attribute").into_owned())
            };
            match name.as_str() {
                "testsuites" | "testsuite" => {
                    suites.push((name.clone(), attr("tests"), attr("failures")))
                }
                "testcase" => cases.push((attr("name").unwrap_or_default(), false)),
                "failure" => {
                    assert_eq!(path.last().map(String::as_str), Some("testcase"));
                    assert_eq!(attr("type").as_deref(), Some("high_severity_issue"));
                    if let Some(case) = cases.last_mut() {
                        case.1 = true;
                    }
                }
                _ => {}
            }
            if !empty {
                path.push(name);
            }
        }
        match event {
            Event::End(_) => {
                path.pop();
            }
            Event::Eof => break,
            _ => {}
        }
    }
    assert!(path.is_empty(), "unbalanced XML");
    let two = Some("2".to_owned());
    let one = Some("1".to_owned());
    assert_eq!(
        suites,
        [
            ("testsuites".to_owned(), two.clone(), one.clone()),
            ("testsuite".to_owned(), two, one)
        ]
    );
    assert_eq!(
        cases,
        [
            ("articles/good.md".to_owned(), false),
            ("articles/pilot.md".to_owned(), true)
        ]
    );
}

#[tokio::test]
async fn markdown_output_tables_every_article() {
    let port = start_origin().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let (config, _, _) = two_articles(dir.path(), port);
    let out = factgate(
        args(&["check", "articles", "--format", "markdown", "-c", &config]),
        dir.path(),
    )
    .await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("# factgate: 1 of 2 articles blocked"),
        "{text}"
    );
    assert!(text.contains("| articles/good.md | **PASS** |"), "{text}");
    assert!(text.contains("## BLOCK `articles/pilot.md`"), "{text}");
}

#[tokio::test]
async fn progress_goes_to_stderr_without_colour_and_quiet_silences_it() {
    let port = start_origin().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let (config, good, _) = two_articles(dir.path(), port);

    let out = factgate(args(&["check", "articles", "-c", &config]), dir.path()).await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("[1/2] articles/good.md: extracting claims"),
        "{err}"
    );
    assert!(err.contains("1 claim, 1 source, 1 check to run"), "{err}");
    assert!(
        err.contains(&format!(
            "[1/1] http://127.0.0.1:{port}/study supported (ok)"
        )),
        "{err}"
    );
    assert!(
        err.contains("[2/2] articles/pilot.md: BLOCK (high_severity_issue)"),
        "{err}"
    );
    assert!(
        err.ends_with("2 articles checked: 1 passed, 1 blocked\n"),
        "{err}"
    );
    assert!(
        !err.contains('\x1b'),
        "ANSI colour on a stderr that is no terminal: {err:?}"
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        !report.contains("extracting claims"),
        "progress on stdout: {report}"
    );

    let out = factgate(
        args(&["check", &good, "-c", &config, "--no-progress"]),
        dir.path(),
    )
    .await;
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "1 article checked: 1 passed, 0 blocked\n"
    );
    let out = factgate(args(&["check", &good, "-c", &config, "-q"]), dir.path()).await;
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn a_closed_pipe_ends_quietly_with_status_0() {
    let port = start_origin().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let (config, _, _) = two_articles(dir.path(), port);
    let dir = dir.path().to_owned();
    let (status, stderr) = tokio::task::spawn_blocking(move || {
        let mut child = Command::new(env!("CARGO_BIN_EXE_factgate"))
            .args(["check", "articles", "-c", &config])
            .current_dir(dir)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("factgate starts");
        // As `| head -0` does: the reader goes away before the report is written.
        drop(child.stdout.take());
        let output = child.wait_with_output().expect("factgate finishes");
        (output.status, output.stderr)
    })
    .await
    .expect("the command finishes");
    let stderr = String::from_utf8_lossy(&stderr);
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("error"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[tokio::test]
async fn the_body_format_is_input_format_and_format_names_the_report() {
    let dir = tempfile::tempdir().expect("temp dir");
    let html = write(
        dir.path(),
        "article.txt",
        "<p>Our pilot with 500 students showed 73% improvement.</p>",
    );
    let out = factgate(
        args(&["check", &html, "--input-format", "html", "--json"]),
        dir.path(),
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let decision: Value = serde_json::from_slice(&out.stdout).expect("one decision");
    let claim = decision["report"]["claims"][0]["text"]
        .as_str()
        .unwrap_or("");
    assert!(!claim.contains("<p>"), "read as HTML: {claim}");

    // A body format given as the report's is named as the body format's option.
    let out = factgate(args(&["check", &html, "--format", "htm"]), dir.path()).await;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--input-format htm"), "{err}");

    // `--format html` is the report as a web page.
    let out = factgate(args(&["check", &html, "--format", "html"]), dir.path()).await;
    assert_eq!(out.status.code(), Some(1));
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert!(page.contains("data-verdict=\"unsourced\""), "{page}");
}

#[tokio::test]
async fn several_html_reports_need_a_file_for_their_index() {
    let dir = tempfile::tempdir().expect("temp dir");
    let a = write(
        dir.path(),
        "a.md",
        "Our pilot with 500 students showed 73% improvement.\n",
    );
    let b = write(
        dir.path(),
        "b b.md",
        "Our survey of 90 firms found 12% growth.\n",
    );
    let out = factgate(args(&["check", &a, &b, "--format", "html"]), dir.path()).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--output"));

    let out = factgate(
        args(&[
            "check",
            &a,
            &b,
            "--format",
            "html",
            "--output",
            "desk #1.html",
        ]),
        dir.path(),
    )
    .await;
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index = std::fs::read_to_string(dir.path().join("desk #1.html")).expect("the index");
    for page in ["desk--1/01-a.html", "desk--1/02-b-b.html"] {
        assert!(
            index.contains(&format!("href=\"{}\"", page.replace('/', "&#x2f;"))),
            "{page} in {index}"
        );
        let html = std::fs::read_to_string(dir.path().join(page)).expect("the page");
        assert!(html.contains("href=\"..&#x2f;desk%20%231.html\""), "{html}");
    }

    // An index named without an extension: the pages' folder cannot take its name.
    let out = factgate(
        args(&["check", &a, &b, "--format", "html", "--output", "plain"]),
        dir.path(),
    )
    .await;
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index = std::fs::read_to_string(dir.path().join("plain")).expect("the index");
    assert!(index.contains("plain.pages&#x2f;01-a.html"), "{index}");
    assert!(dir.path().join("plain.pages/01-a.html").is_file());
}

#[tokio::test]
async fn previous_report_says_what_changed_since_the_earlier_check() {
    let port = start_origin().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let config = write(dir.path(), "local.toml", LOOPBACK_CONFIG);
    let survey = format!(
        "Online tutoring accounted for 28% of spending on private tutoring in 2023, according \
         to [the survey](http://127.0.0.1:{port}/study)."
    );
    // The first draft: the survey claim, fabricated pilot data and an unsourced statistic.
    let article = write(
        dir.path(),
        "article.md",
        &format!(
            "# Tutoring\n\n{survey}\n\nOur pilot with 500 students showed 73% improvement.\n\n\
             Teachers are divided. 87% of students use digital learning tools daily.\n"
        ),
    );
    let first = factgate(
        vec![
            "check".into(),
            article.clone(),
            "-c".into(),
            config.clone(),
            "--format".into(),
            "json".into(),
        ],
        dir.path(),
    )
    .await;
    assert_eq!(first.status.code(), Some(1));
    let previous = dir.path().join("previous.json");
    std::fs::write(&previous, &first.stdout).expect("write the report");

    // The next draft: the pilot gone, the statistic kept, a new unsourced figure.
    write(
        dir.path(),
        "article.md",
        &format!(
            "# Tutoring\n\n{survey}\n\nTeachers are divided. 87% of students use digital \
             learning tools daily.\n\nA third of parents pay more than $200 a month.\n"
        ),
    );
    let out = factgate(
        vec![
            "check".into(),
            article.clone(),
            "-c".into(),
            config.clone(),
            "--previous".into(),
            previous.display().to_string(),
        ],
        dir.path(),
    )
    .await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let first_line = text.lines().next().unwrap_or_default();
    assert!(
        first_line
            .starts_with("Since the previous check: 1 of 2 issues fixed; 1 still open; 1 new"),
        "{text}"
    );
    assert!(
        text.contains("fixed") && text.contains("Our pilot"),
        "{text}"
    );

    let out = factgate(
        vec![
            "check".into(),
            article,
            "-c".into(),
            config,
            "--json".into(),
            "--previous".into(),
            previous.display().to_string(),
        ],
        dir.path(),
    )
    .await;
    let decision: Value = serde_json::from_slice(&out.stdout).expect("a decision");
    let changes = &decision["report"]["changes_since_previous"];
    assert_eq!(changes["counts"]["fixed"], 1, "{changes}");
    assert_eq!(changes["counts"]["still_open"], 1, "{changes}");
    assert_eq!(changes["counts"]["new"], 1, "{changes}");
    assert_eq!(
        changes["fixed"][0]["resolution"], "claim_removed",
        "{changes}"
    );

    // A file that holds no decision is refused with a message naming it.
    let bad = write(dir.path(), "bad.json", "{\"hello\": 1}\n");
    let out = factgate(
        vec!["check".into(), "-".into(), "--previous".into(), bad],
        dir.path(),
    )
    .await;
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.json"));
}

#[tokio::test]
async fn reports_count_and_list_the_inputs_that_could_not_be_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let a = write(
        dir.path(),
        "a.md",
        "Our pilot with 500 students showed 73% improvement.\n",
    );
    let missing = dir.path().join("missing.md").to_string_lossy().into_owned();

    // Markdown (a CI step summary): never "0 of 0 blocked" when inputs failed.
    let out = factgate(
        args(&["check", &missing, "--format", "markdown"]),
        dir.path(),
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("# factgate: 0 of 0 articles blocked; 1 input could not be read"),
        "{text}"
    );
    assert!(text.contains("## Inputs that could not be read"), "{text}");
    assert!(text.contains("missing.md"), "{text}");

    // JUnit: the unreadable input is an error case beside the checked article's.
    let out = factgate(
        args(&["check", &a, &missing, "--format", "junit"]),
        dir.path(),
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
    let xml = String::from_utf8_lossy(&out.stdout);
    assert!(xml.contains("tests=\"2\""), "{xml}");
    assert!(xml.contains("errors=\"1\""), "{xml}");
    assert!(xml.contains("type=\"unreadable_input\""), "{xml}");
    assert!(xml.contains("missing.md"), "{xml}");

    // HTML with nothing readable: the page says why nothing was checked.
    let out = factgate(args(&["check", &missing, "--format", "html"]), dir.path()).await;
    assert_eq!(out.status.code(), Some(2));
    let html = String::from_utf8_lossy(&out.stdout);
    assert!(html.contains("1 input could not be read"), "{html}");
    assert!(html.contains("Inputs that could not be read"), "{html}");
    assert!(html.contains("missing.md"), "{html}");
}

/// A finding the newsroom accepts is waived in the draft (an HTML comment) or in a waivers file:
/// the article passes, and every format lists the finding as waived, with the reason.
#[tokio::test]
async fn waived_findings_pass_and_are_listed_as_waived_in_every_format() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = write(dir.path(), "local.toml", LOOPBACK_CONFIG);
    let inline = write(
        dir.path(),
        "inline.md",
        "# Pilot\n\n<!-- factgate-waive unsourced: the pilot's data is in the newsroom's archive, checked by the desk -->\nOur pilot with 500 students showed 73% improvement.\n",
    );
    let plain = write(
        dir.path(),
        "plain.md",
        "# Pilot\n\nOur pilot with 500 students showed 73% improvement.\n",
    );
    let waivers = write(
        dir.path(),
        "waivers.toml",
        "[[waiver]]\narticle = \"plain.md\"\nfinding = \"unsourced\"\nclaim = \"our pilot with 500 students\"\nreason = \"Survey on file with the standards desk\"\n",
    );
    let check = |file: &str, format: &str, extra: &[&str]| {
        let mut args: Vec<String> = ["check", file, "-c", &config, "--quiet", "--format", format]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        args
    };

    // Without the waiver the same claim blocks.
    let out = factgate(check("plain.md", "text", &[]), dir.path()).await;
    assert_eq!(out.status.code(), Some(1), "blocked without a waiver");

    for (file, extra, reason) in [
        (&inline, vec![], "checked by the desk"),
        (
            &plain,
            vec!["--waivers", waivers.as_str()],
            "Survey on file with the standards desk",
        ),
    ] {
        let name = Path::new(file)
            .file_name()
            .and_then(|n| n.to_str())
            .expect("name");
        for format in [
            "text", "markdown", "json", "sarif", "github", "gitlab", "junit",
        ] {
            let out = factgate(check(name, format, &extra), dir.path()).await;
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{name} {format} passes: {stdout}{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                stdout.contains(reason),
                "{name} {format}: the reason: {stdout}"
            );
            assert!(
                stdout.to_lowercase().contains("waived") || format == "json",
                "{name} {format}: listed as waived: {stdout}"
            );
            match format {
                "json" => {
                    let decision: Value =
                        serde_json::from_str(stdout.lines().next().expect("a line")).expect("JSON");
                    assert_eq!(decision["outcome"], "pass");
                    assert_eq!(
                        decision["report"]["waived"][0]["issue"]["type"],
                        "unsourced"
                    );
                    assert!(
                        decision["report"]["issues"]
                            .as_array()
                            .is_some_and(|i| i.iter().all(|i| i["type"] != "unsourced"))
                    );
                }
                "sarif" => {
                    let sarif: Value = serde_json::from_str(&stdout).expect("SARIF");
                    let result = &sarif["runs"][0]["results"][0];
                    assert_eq!(result["ruleId"], "unsourced");
                    assert!(
                        result["suppressions"][0]["justification"]
                            .as_str()
                            .is_some_and(|j| j.contains(reason))
                    );
                }
                _ => {}
            }
        }
    }
}

/// A draft and its file name are written by others: a name holding a line break cannot start
/// a workflow command of its own in `-f github` (the plain line included), and no escape
/// sequence, carriage return or bidirectional override from the draft's text reaches the
/// terminal or CI log raw in the text, GitHub or Markdown reports, nor on stderr.
#[tokio::test]
async fn hostile_names_and_text_cannot_forge_lines_or_move_the_cursor() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = write(dir.path(), "local.toml", LOOPBACK_CONFIG);
    let name = "story\n::error::forged by the file name\r.md";
    let draft = write(
        dir.path(),
        name,
        &format!(
            "{}<!-- factgate-waive unsourced: \x1b[32mall clear\x1b[0m -->\n\
             Our pilot with 500 students showed 73% improvement.\x1b[1A\x1b[2K\x1b[32mPASS\x1b[0m \
             The council spent \x1b[8m$9 million\u{202e} on roads in 2024, officials said.\r\n",
            "The council met on Tuesday to discuss the library, the roads and the parks. \
             Residents spoke for an hour about the plans for the town centre.\n\n"
                .repeat(8)
        ),
    );
    for format in ["github", "text", "markdown"] {
        let out = factgate(
            args(&["check", "-f", format, &draft, "-c", &config]),
            dir.path(),
        )
        .await;
        assert_eq!(
            out.status.code(),
            Some(0),
            "{format}: the waiver covers the paragraph"
        );
        for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            let text = String::from_utf8_lossy(bytes);
            assert!(
                !text.contains(['\x1b', '\r', '\u{202e}']),
                "{format} {stream}: {text:?}"
            );
            assert!(
                text.lines().all(|l| !l.starts_with("::error::forged")),
                "{format} {stream}: a forged workflow command: {text}"
            );
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            format == "markdown" || stdout.contains("\\u{1b}[32mall clear"),
            "{format}: the waiver's reason is shown, its escapes visible: {stdout}"
        );
        if format == "github" {
            let plain = stdout
                .lines()
                .find(|l| l.starts_with("factgate: PASS"))
                .expect("the plain line");
            assert!(plain.contains("story%0A::error::forged"), "{plain}");
        }
    }
}

/// `--waivers` and `--previous` given an endless file (`/dev/zero`) fail at once, naming the
/// cap, as `--config` does, rather than reading gigabytes.
#[tokio::test]
async fn endless_waivers_and_previous_files_are_refused_at_their_cap() {
    let dir = tempfile::tempdir().expect("temp dir");
    let draft = write(dir.path(), "a.md", "The council met on Tuesday.\n");
    for flag in ["--waivers", "--previous"] {
        let out = factgate(args(&["check", &draft, flag, "/dev/zero"]), dir.path()).await;
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("/dev/zero") && stderr.contains("bytes, the most"),
            "{flag}: {stderr}"
        );
    }
}
