//! The command-line conventions people expect of a checker run in CI: every human report places a
//! claim by line and column; GitHub Actions annotations and a GitLab Code Quality report, each
//! checked against the shape its CI system documents; standard input given a name; a
//! configuration validated and printed, secrets redacted; shell completions and man pages.
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

/// A workflow command: its name, its properties and its message, unescaped.
type Annotation = (String, Vec<(String, String)>, String);

/// GitHub's workflow command syntax, as the runner parses it: `::name key=value,…::message`, the
/// properties those of an annotation, values with `%`, CR, LF, `:` and `,` escaped, the message
/// with `%`, CR and LF escaped.
fn parse_annotation(line: &str) -> Option<Annotation> {
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

#[tokio::test]
async fn standard_input_takes_the_name_it_is_given() {
    let s = setup().await;
    let out = factgate(
        &[
            "check",
            "-",
            "--stdin-name",
            "news/prices.md",
            "-c",
            "local.toml",
            "--format",
            "sarif",
        ],
        s.dir.path(),
        Some(s.text.clone()),
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let sarif: Value = serde_json::from_slice(&out.stdout).expect("SARIF");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert!(!results.is_empty());
    for result in results {
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], "news/prices.md");
        assert!(
            location["region"]["startLine"].as_u64().is_some(),
            "{result:#}"
        );
    }
    let progress = String::from_utf8_lossy(&out.stderr);
    assert!(progress.contains("news/prices.md: BLOCK"), "{progress}");
    assert!(!progress.contains(" -: "), "{progress}");

    // Without a name it stays `-`, and the article id is the name.
    let out = factgate(
        &["check", "-", "-c", "local.toml", "--json"],
        s.dir.path(),
        Some(s.text.clone()),
    )
    .await;
    let decision: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(decision["article_id"], "-");
    let out = factgate(
        &[
            "check",
            "-",
            "--stdin-name",
            "news/prices.md",
            "-c",
            "local.toml",
            "--json",
        ],
        s.dir.path(),
        Some(s.text.clone()),
    )
    .await;
    let decision: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(decision["article_id"], "news/prices.md");
}

#[tokio::test]
async fn config_check_validates_and_prints_the_effective_configuration_redacted() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("site.toml"),
        "[join]\ndeadline_ms = 45000\n[kafka]\nbootstrap_servers = \"broker-1:9092\"\n\
         [kafka.properties]\n\"sasl.username\" = \"factgate\"\n",
    )
    .unwrap();
    let run = |args: &'static [&'static str], env: &'static [(&'static str, &'static str)]| {
        let dir = dir.path().to_owned();
        async move {
            tokio::task::spawn_blocking(move || {
                let mut command = Command::new(env!("CARGO_BIN_EXE_factgate"));
                command
                    .args(args)
                    .current_dir(dir)
                    .env_remove("FACTGATE_CONFIG");
                for (k, v) in env {
                    command.env(k, v);
                }
                command.output().expect("factgate runs")
            })
            .await
            .unwrap()
        }
    };
    let out = run(
        &["config", "check", "site.toml"],
        &[
            (
                "FACTGATE_KAFKA__PROPERTIES__SASL_PASSWORD",
                "s3cret-hunter2",
            ),
            ("FACTGATE_FETCH__TIMEOUT_MS", "7000"),
        ],
    )
    .await;
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{printed}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!printed.contains("s3cret-hunter2"), "{printed}");
    assert!(
        printed.contains("\"sasl.password\" = \"[redacted]\""),
        "{printed}"
    );
    assert!(printed.contains("FACTGATE_FETCH__TIMEOUT_MS"), "{printed}");
    // What it prints is a configuration: it loads back to the settings in force.
    let effective: toml::Value = toml::from_str(&printed).expect("TOML");
    assert_eq!(effective["join"]["deadline_ms"].as_integer(), Some(45_000));
    assert_eq!(effective["fetch"]["timeout_ms"].as_integer(), Some(7_000));
    assert_eq!(
        effective["kafka"]["bootstrap_servers"].as_str(),
        Some("broker-1:9092")
    );
    // Every section of config/factgate.toml is there.
    let documented: toml::Value = toml::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("config/factgate.toml"),
        )
        .unwrap(),
    )
    .unwrap();
    for section in documented.as_table().unwrap().keys() {
        assert!(effective.get(section).is_some(), "[{section}] missing");
    }

    // An invalid value: status 2, the key named on stderr, nothing on stdout.
    let out = run(
        &["config", "check", "site.toml"],
        &[("FACTGATE_JOIN__DEADLINE_MS", "0")],
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("join.deadline_ms"), "{err}");
    // A misspelt key in the file, and a file that is not there.
    std::fs::write(dir.path().join("typo.toml"), "[fetch]\ntimout_ms = 5\n").unwrap();
    let out = run(&["config", "check", "typo.toml"], &[]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fetch.timout_ms"));
    let out = run(&["config", "check", "missing.toml"], &[]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.toml"));
    // No file: the defaults, and FACTGATE_CONFIG names one as for the other commands.
    let out = run(&["config", "check"], &[]).await;
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("embedded broker"));
    let out = run(&["config", "check"], &[("FACTGATE_CONFIG", "typo.toml")]).await;
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn completions_and_man_pages_cover_every_command() {
    let factgate = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_factgate"))
            .args(args)
            .output()
            .expect("factgate runs");
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).expect("UTF-8")
    };
    let commands = [
        "check",
        "run",
        "recheck",
        "extract",
        "demo",
        "config",
        "completions",
        "man",
    ];
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = factgate(&["completions", shell]);
        for command in commands {
            assert!(script.contains(command), "{shell}: no {command}");
        }
        assert!(script.contains("stdin-name"), "{shell}");
        assert!(script.contains("gitlab"), "{shell}: the report formats");
    }
    // bash reads the script it is given without a syntax error, and then completes the command.
    let bash = factgate(&["completions", "bash"]);
    let out = Command::new("bash")
        .args([
            "-c",
            "source /dev/stdin; COMP_WORDS=(factgate con); COMP_CWORD=1; _factgate factgate con factgate; echo \"${COMPREPLY[*]}\"",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().unwrap().write_all(bash.as_bytes())?;
            child.wait_with_output()
        })
        .expect("bash");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "config");

    let page = factgate(&["man"]);
    assert!(
        page.starts_with(".ie") || page.contains(".TH factgate 1"),
        "{page}"
    );
    for command in commands {
        assert!(
            page.contains(&format!("factgate\\-{command}(1)")),
            "no {command} in\n{page}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let listed = factgate(&["man", "--dir", dir.path().to_str().unwrap()]);
    for name in ["factgate.1", "factgate-check.1", "factgate-config-check.1"] {
        let path = dir.path().join(name);
        assert!(listed.contains(&path.display().to_string()), "{listed}");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(".SH SYNOPSIS"), "{name}");
    }
    let check = std::fs::read_to_string(dir.path().join("factgate-check.1")).unwrap();
    assert!(check.contains("stdin\\-name"), "{check}");
}
