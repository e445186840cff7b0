//! The command-line conventions people expect of a checker run in CI: every human report places a
//! claim by line and column; GitHub Actions annotations and a GitLab Code Quality report, each
//! checked against the shape its CI system documents.
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
        "/pricing",
        get(|| async {
            Html("<p>BudgetTutor Basic costs $9/month and includes unlimited chat help.</p>")
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    port
}

/// Runs `factgate args…` in `dir`, with `stdin` on its standard input.
async fn factgate(args: &[&str], dir: &Path, stdin: Option<String>) -> Output {
    let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    let dir = dir.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut child = Command::new(env!("CARGO_BIN_EXE_factgate"))
            .args(&args)
            .current_dir(dir)
            .env("RUST_LOG", "warn")
            .env("NO_COLOR", "1")
            .env_remove("FACTGATE_CONFIG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("factgate runs");
        let mut input = child.stdin.take().expect("stdin");
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).expect("write stdin");
        }
        drop(input);
        child.wait_with_output().expect("factgate finishes")
    })
    .await
    .expect("the command finishes")
}

const LOOPBACK_CONFIG: &str = "[fetch]\naddress_allowlist = [\"127.0.0.1/32\"]\n";

/// An article whose refuted claim starts past a list item's marker and holds em dashes (one
/// character, three bytes each), and a fabricated one on a line of its own.
fn article(port: u16) -> String {
    format!(
        "# Prices\n\
         \n\
         Plans, at a glance:\n\
         \n\
         - BudgetTutor Basic — the entry plan — costs $4/month \
         ([pricing](http://127.0.0.1:{port}/pricing)).\n\
         \n\
         Our pilot with 500 students showed 73% improvement.\n"
    )
}

/// The 1-based line and column (in characters; the article is all in the Basic Multilingual
/// Plane, so UTF-16 columns are the same) where `needle` starts in `text`.
fn line_column(text: &str, needle: &str) -> (usize, usize) {
    let at = text.find(needle).expect("the needle is in the text");
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

struct Setup {
    dir: tempfile::TempDir,
    text: String,
    refuted: (usize, usize),
    fabricated: (usize, usize),
}

async fn setup() -> Setup {
    let port = start_origin().await;
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("news")).expect("news/");
    let text = article(port);
    std::fs::write(dir.path().join("news/prices.md"), &text).expect("article");
    std::fs::write(dir.path().join("local.toml"), LOOPBACK_CONFIG).expect("config");
    let refuted = line_column(&text, "BudgetTutor Basic");
    let fabricated = line_column(&text, "Our pilot");
    assert_eq!(refuted, (5, 3));
    assert_eq!(fabricated, (7, 1));
    Setup {
        dir,
        text,
        refuted,
        fabricated,
    }
}

#[tokio::test]
async fn text_markdown_junit_and_html_place_each_claim_by_line_and_column() {
    let s = setup().await;
    let refuted = format!("news/prices.md:{}:{}", s.refuted.0, s.refuted.1);
    let fabricated = format!("news/prices.md:{}:{}", s.fabricated.0, s.fabricated.1);
    for format in ["text", "markdown", "junit", "html"] {
        let out = factgate(
            &[
                "check",
                "news/prices.md",
                "-c",
                "local.toml",
                "--format",
                format,
            ],
            s.dir.path(),
            None,
        )
        .await;
        // The HTML escapes `/`.
        let report = String::from_utf8_lossy(&out.stdout).replace("&#x2f;", "/");
        assert_eq!(out.status.code(), Some(1), "{format}: {report}");
        for place in [&refuted, &fabricated] {
            assert!(
                report.contains(place.as_str()),
                "{format}: no {place} in\n{report}"
            );
        }
    }
    // The text report's claim line, in full: the place, then the section and paragraph.
    let out = factgate(
        &["check", "news/prices.md", "-c", "local.toml"],
        s.dir.path(),
        None,
    )
    .await;
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains(&format!(
            "claim:    \"Our pilot with 500 students showed 73% improvement.\" ({fabricated}; Prices, paragraph "
        )),
        "{report}"
    );
}

/// GitHub's workflow command syntax, as the runner parses it: `::name key=value,…::message`, the
/// properties those of an annotation, values with `%`, CR, LF, `:` and `,` escaped, the message
/// with `%`, CR and LF escaped.
fn parse_annotation(line: &str) -> Option<(String, Vec<(String, String)>, String)> {
    let rest = line.strip_prefix("::")?;
    let (head, message) = rest.split_once("::")?;
    let (name, properties) = match head.split_once(' ') {
        Some((name, properties)) => (name, properties),
        None => (head, ""),
    };
    let unescape = |s: &str| {
        s.replace("%0D", "\r")
            .replace("%0A", "\n")
            .replace("%3A", ":")
            .replace("%2C", ",")
            .replace("%25", "%")
    };
    let mut props = Vec::new();
    for pair in properties.split(',').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=')?;
        assert!(
            !value.contains(':') && !value.contains(','),
            "an unescaped separator in {pair:?}"
        );
        props.push((key.to_owned(), unescape(value)));
    }
    Some((name.to_owned(), props, unescape(message)))
}

#[tokio::test]
async fn github_annotations_follow_the_workflow_command_syntax_at_the_claims_place() {
    let s = setup().await;
    // An absolute path, as a script may give it: annotations name the file from the checkout.
    let absolute = s.dir.path().join("news/prices.md");
    let out = factgate(
        &[
            "check",
            absolute.to_str().unwrap(),
            "-c",
            "local.toml",
            "--format",
            "github",
        ],
        s.dir.path(),
        None,
    )
    .await;
    let log = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{log}");
    let mut annotations = Vec::new();
    for line in log.lines() {
        if line.starts_with("::") {
            let parsed = parse_annotation(line).unwrap_or_else(|| panic!("not a command: {line}"));
            annotations.push(parsed);
        } else {
            // Anything else is a plain log line, the article's headline.
            assert_eq!(line, "factgate: BLOCK news/prices.md (high_severity_issue)");
        }
    }
    assert_eq!(annotations.len(), 2, "{log}");
    let allowed = ["file", "line", "endLine", "col", "endColumn", "title"];
    for (name, props, message) in &annotations {
        assert!(
            ["error", "warning", "notice"].contains(&name.as_str()),
            "{name}"
        );
        for (key, _) in props {
            assert!(allowed.contains(&key.as_str()), "{key}");
        }
        assert!(!message.is_empty());
    }
    let find = |issue: &str| {
        annotations
            .iter()
            .find(|(_, props, _)| {
                props
                    .iter()
                    .any(|(k, v)| k == "title" && v.ends_with(issue))
            })
            .unwrap_or_else(|| panic!("no {issue} annotation in\n{log}"))
    };
    let (level, props, message) = find("figure_mismatch");
    assert_eq!(level, "error");
    let prop = |key: &str| {
        props
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(prop("file"), Some("news/prices.md"));
    assert_eq!(prop("line"), Some(s.refuted.0.to_string().as_str()));
    assert_eq!(prop("col"), Some(s.refuted.1.to_string().as_str()));
    assert_eq!(prop("title"), Some("factgate: figure_mismatch"));
    // The claim runs to the end of its sentence, the end of the line: the column range covers it,
    // counted in characters (a count in bytes would run past the em dashes).
    let end: usize = prop("endColumn").unwrap().parse().unwrap();
    let line = s.text.lines().nth(s.refuted.0 - 1).unwrap();
    let covered: String = line
        .chars()
        .skip(s.refuted.1 - 1)
        .take(end - s.refuted.1)
        .collect();
    assert_eq!(covered, line["- ".len()..], "{covered:?}");
    // Escaped and read back, the message keeps its line breaks and percent signs.
    assert!(
        message.contains("$4/month where the source says $9/month"),
        "{message}"
    );
    assert!(message.contains("\nDo: "), "{message}");
    let (level, props, message) = find("unsourced");
    assert_eq!(level, "error");
    assert!(message.contains("73% improvement"), "{message}");
    assert!(props.contains(&("line".to_owned(), s.fabricated.0.to_string())));
}

#[tokio::test]
async fn gitlab_code_quality_matches_the_documented_format() {
    let s = setup().await;
    let out = factgate(
        &[
            "check",
            "./news/prices.md",
            "-c",
            "local.toml",
            "--format",
            "gitlab",
            "--output",
            "gl-code-quality.json",
        ],
        s.dir.path(),
        None,
    )
    .await;
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(s.dir.path().join("gl-code-quality.json")).expect("report");
    let report: Value = serde_json::from_str(&text).expect("JSON");
    let schema_path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/gitlab/code-quality.schema.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&report)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{report:#}");
    let issues = report.as_array().unwrap();
    assert_eq!(issues.len(), 2, "{report:#}");
    let mut fingerprints: Vec<&str> = issues
        .iter()
        .map(|i| i["fingerprint"].as_str().unwrap())
        .collect();
    fingerprints.sort_unstable();
    fingerprints.dedup();
    assert_eq!(fingerprints.len(), 2, "fingerprints are unique");
    let mismatch = issues
        .iter()
        .find(|i| i["check_name"] == "factgate/figure_mismatch")
        .expect("the refuted figure");
    assert_eq!(mismatch["severity"], "critical");
    assert_eq!(mismatch["location"]["path"], "news/prices.md");
    assert_eq!(
        mismatch["location"]["positions"]["begin"],
        serde_json::json!({ "line": s.refuted.0, "column": s.refuted.1 })
    );

    // The same findings on a later run keep their fingerprints, so GitLab can tell new ones.
    let again = factgate(
        &[
            "check",
            "news/prices.md",
            "-c",
            "local.toml",
            "-f",
            "gitlab",
        ],
        s.dir.path(),
        None,
    )
    .await;
    let again: Value = serde_json::from_slice(&again.stdout).expect("JSON");
    let prints = |r: &Value| -> Vec<String> {
        let mut v: Vec<String> = r
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["fingerprint"].as_str().unwrap().to_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(prints(&again), prints(&report));
}
