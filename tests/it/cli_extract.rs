//! `factgate extract` as a user runs it: JSON on stdout, a summary on stderr, and a non-zero
//! exit with a clear message when the article cannot be read.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

const ARTICLE: &str = "tests/fixtures/articles/bench-1500-words.md";

fn factgate(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_factgate"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("factgate starts");
    {
        let mut pipe = child.stdin.take().expect("stdin is piped");
        if let Some(bytes) = stdin {
            pipe.write_all(bytes).expect("stdin accepts the input");
        }
    }
    child.wait_with_output().expect("factgate finishes")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn claim_with<'a>(claims: &'a [Value], text: &str) -> &'a Value {
    claims
        .iter()
        .find(|c| c["text"].as_str().is_some_and(|t| t.contains(text)))
        .unwrap_or_else(|| panic!("no claim containing {text:?}"))
}

#[test]
fn extract_prints_claims_with_kinds_figures_locations_and_citations() {
    let out = factgate(&["extract", ARTICLE], None);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(json["format"], "markdown");
    let claims = json["claims"].as_array().expect("claims is an array");
    assert!(
        claims.len() >= 20,
        "the bench article states at least 20 claims, got {}",
        claims.len()
    );

    // A numbered reference resolved against the article's reference list.
    // Claim text is what a reader sees: citation markers are not part of it.
    let price = claim_with(claims, "$4/month or $44/year for unlimited chat help");
    assert_eq!(
        price["citations"][0]["url"],
        "https://budgettutor.example.com/pricing"
    );
    let figures = price["figures"].as_array().expect("figures");
    assert!(
        figures
            .iter()
            .any(|f| f["value"] == 4.0 && f["currency"] == "USD" && f["per"] == "month"),
        "{figures:?}"
    );
    assert!(
        figures
            .iter()
            .any(|f| f["value"] == 44.0 && f["currency"] == "USD" && f["per"] == "year"),
        "{figures:?}"
    );
    assert_eq!(
        price["location"]["section"],
        "A market that grew while nobody watched"
    );

    // A market figure with scale, backed by an inline link in the same sentence.
    let market = claim_with(claims, "$92 billion in 2023");
    assert_eq!(
        market["citations"][0]["url"],
        "https://edmonitor.example.org/reports/tutoring-2023"
    );
    assert!(
        market["figures"]
            .as_array()
            .expect("figures")
            .iter()
            .any(|f| f["value"] == 92e9 && f["unit"] == "currency")
    );

    // The fabricated pilot claim of docs/severity.md: first-person data, no citation, high severity.
    let pilot = claim_with(claims, "Our pilot with 500 students showed 73% improvement");
    assert!(
        pilot["kinds"]
            .as_array()
            .expect("kinds")
            .contains(&Value::from("first_person_data"))
    );
    assert_eq!(pilot["citation_rule"], "none");
    assert_eq!(pilot["prejudgment"]["severity"], "high");
    assert_eq!(pilot["prejudgment"]["kind"], "first_person_data");

    // A statistic without a link of its own borrows the article's sources; if none of them
    // gives it, it is an unsourced statistic: high severity.
    let stat = claim_with(claims, "87% of students use digital learning tools daily");
    assert!(
        stat["text"].as_str().is_some_and(|t| t.starts_with("87%")),
        "the claim is its own sentence: {stat}"
    );
    assert!(
        ["section", "article"].contains(&stat["citation_rule"].as_str().unwrap_or_default()),
        "{stat}"
    );
    assert!(!stat["citations"].as_array().expect("citations").is_empty());
    assert_eq!(stat["unbacked"]["severity"], "high");
    assert_eq!(stat["unbacked"]["kind"], "statistic");
    assert_eq!(stat["location"]["section"], "Who pays, and who does not");

    // "doubles" is a change, and its [2] resolves to the second reference.
    let doubles = claim_with(claims, "AI tutoring doubles learning gains");
    assert!(
        doubles["kinds"]
            .as_array()
            .expect("kinds")
            .contains(&Value::from("change"))
    );
    assert_eq!(
        doubles["citations"][0]["url"],
        "https://journal.example.edu/articles/tutoring-at-scale"
    );

    let summary = stderr(&out);
    assert!(summary.contains("claims from"), "summary: {summary}");
}

#[test]
fn extract_reads_standard_input_and_honours_format() {
    let html = b"<html><body><h2>Prices</h2><p>The plan costs $9/month, the company said.</p></body></html>";
    let out = factgate(&["extract", "-", "--format", "html"], Some(html));
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(json["format"], "html");
    let claim = claim_with(json["claims"].as_array().expect("claims"), "$9/month");
    assert_eq!(claim["location"]["section"], "Prices");
}

#[test]
fn an_article_without_claims_is_read_and_says_so() {
    let prose = b"Good writing takes time. Editors know this, and so do readers.\n\nWe should all read more slowly.\n";
    let out = factgate(&["extract", "-", "--format", "text"], Some(prose));
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(json["claims"].as_array().map(Vec::len), Some(0));
    assert!(json["sentences"].as_u64().unwrap_or(0) >= 3);
    assert!(stderr(&out).contains("no check-worthy claims found"));
}

#[test]
fn garbage_exits_non_zero_with_a_clear_message() {
    let garbage: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 256) as u8).collect();
    let out = factgate(&["extract", "-"], Some(&garbage));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        out.stdout.is_empty(),
        "nothing on stdout for an unreadable article"
    );
    assert!(
        stderr(&out).contains("not readable text"),
        "{}",
        stderr(&out)
    );

    let nul_laden = b"\0\0\0\x01\x02binary\0\0\0\x03\x04\x05\x06\x07\x08\0\0\0".repeat(10);
    let out = factgate(&["extract", "-", "--format", "text"], Some(&nul_laden));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("not readable text"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn empty_input_unknown_format_and_missing_file_are_errors() {
    let out = factgate(&["extract", "-"], Some(b"  \n\n "));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("empty"), "{}", stderr(&out));

    let out = factgate(&["extract", ARTICLE, "--format", "docx"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown body format"),
        "{}",
        stderr(&out)
    );

    let out = factgate(
        &["extract", "tests/fixtures/articles/no-such-file.md"],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no-such-file.md"), "{}", stderr(&out));
}
