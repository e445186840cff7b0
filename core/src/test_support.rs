//! Builders for tests, in one home for the core's own tests and the service's: compiled for the
//! core's tests and, behind the `test-support` feature, for the crates that enable it as a
//! dev-dependency. Never part of a shipped build.
//!
//! The join's inputs: a manifest of an article's claims, each claim's result, at fixed instants.

use chrono::{DateTime, TimeZone, Utc};

use crate::events::{ArticleManifest, CheckKey, ClaimResult, content_digest};
use crate::model::Verdict;

/// The schema's example manifest (`schemas/examples/manifest.v1.json`).
pub const MANIFEST: &str = include_str!("../../schemas/examples/manifest.v1.json");
/// The schema's example claim result (`schemas/examples/claim_result.v1.json`).
pub const RESULT: &str = include_str!("../../schemas/examples/claim_result.v1.json");

/// Seconds from publication to a built manifest's deadline.
pub const DEADLINE_S: i64 = 60;

/// `seconds` after a fixed instant (2026-01-01T00:00:00Z); a manifest is published at `at(0)`.
///
/// # Panics
/// Never for the offsets a test uses (within ±292 billion years).
pub fn at(seconds: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(1_767_225_600 + seconds, 0)
        .single()
        .expect("a valid timestamp")
}

/// The source claim `i` cites: a host of its own, so each claim has its own check.
pub fn url(i: usize) -> String {
    format!("https://s{i}.example/page")
}

/// A manifest of `sourced` claims (`c0`, `c1`, …), each citing its own source ([`url`]),
/// published at `at(0)` with its deadline [`DEADLINE_S`] later; every check pending.
///
/// # Panics
/// If the schema's example manifest no longer reads.
pub fn manifest(article: &str, revision: u64, sourced: usize) -> ArticleManifest {
    let mut m: ArticleManifest = serde_json::from_str(MANIFEST).expect("example manifest");
    let template = m.claims[1].clone();
    m.article_id = article.to_owned();
    m.revision = revision;
    m.published_at = at(0);
    m.deadline = at(DEADLINE_S);
    m.content_digest = content_digest(format!("{article}/{revision}").as_bytes());
    m.claims = (0..sourced)
        .map(|i| {
            let mut c = template.clone();
            c.id = format!("c{i}");
            c.citations[0].url = url(i);
            c
        })
        .collect();
    m.pending = (0..sourced)
        .map(|i| CheckKey {
            claim_id: format!("c{i}"),
            source_url: url(i),
        })
        .collect();
    m
}

/// The result of claim `i` of [`manifest`], judged at `at(1)`: supported, or `verdict` with the
/// example's high-severity issue pointing at the claim and its source.
///
/// # Panics
/// If the schema's example result no longer reads.
pub fn result(article: &str, revision: u64, i: usize, verdict: Verdict) -> ClaimResult {
    let mut r: ClaimResult = serde_json::from_str(RESULT).expect("example result");
    r.article_id = article.to_owned();
    r.revision = revision;
    r.claim_id = format!("c{i}");
    r.source_url = url(i);
    r.verdict = verdict;
    r.judged_at = at(1);
    if verdict == Verdict::Supported {
        r.support = 0.9;
        r.correction = None;
        r.issue = None;
    } else if let Some(issue) = r.issue.as_mut() {
        issue.claim_id = Some(r.claim_id.clone());
        issue.source_url = Some(r.source_url.clone());
    }
    r
}
