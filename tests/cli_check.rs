//! `factgate check` as a user runs it: exit 0 on pass, 1 on block, 2 on error, a readable summary
//! by default and the decision as JSON with `--json`. Sources come from an origin on 127.0.0.1.

use std::path::Path;
use std::process::{Command, Output};

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
