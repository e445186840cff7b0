//! One article checked in one process: extract, verify every (claim, cited source) pair, decide.
//! What `factgate check` runs, and the same stages the stream processor runs apart.
//!
//! Fail closed: an article that cannot be read is blocked (`extraction_failed`), one over a
//! per-article limit too (`limit_exceeded`, the limits `factgate run` enforces); checks still
//! running at the deadline are abandoned and the article blocked (`deadline_exceeded`), listing
//! them.
//!
//! - [`batch`]: `factgate check`'s whole run: inputs read as they are checked, the report, the
//!   exit status ([`run`]).
//! - [`progress`]: its progress lines on stderr.

pub mod batch;
pub mod progress;

pub use batch::{Batch, run};

use crate::verify::Verifier;
use chrono::{DateTime, Utc};
use factgate_core::decide::{self, ArticleCheck, Strictness};
use factgate_core::events::{
    CheckKey, ClaimResult, Decision, DecisionReason, draft_content_digest,
};
use factgate_core::extract::{self, ExtractError, ExtractLimits, Extraction};
use factgate_core::model::BodyFormat;
use factgate_core::roles::check_keys;
use futures::StreamExt;
use std::io::Read as _;
use std::time::Duration;

/// How an article is checked.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    pub strictness: Strictness,
    /// Time from the start of the check after which unfinished checks block.
    pub deadline: Duration,
    /// Checks run at once (the fetcher's per-host limits apply within this).
    pub concurrency: usize,
    /// The per-article limits (`[extract]`), the same `factgate run` enforces.
    pub limits: ExtractLimits,
}

/// Reads at most `max_bytes + 1` bytes from `input`: enough to tell an article over
/// `extract.max_body_bytes` from one at the limit, whatever the input (a 50 MB file,
/// `/dev/zero`), in bounded time and memory.
///
/// # Errors
/// The reader's error.
pub fn read_capped(input: impl std::io::Read, max_bytes: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    input
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// What checking one article produced.
#[derive(Debug, Clone)]
pub struct Checked {
    /// `None` when the body could not be read.
    pub extraction: Option<Extraction>,
    pub results: Vec<ClaimResult>,
    pub decision: Decision,
}

/// What a long check reports as it goes, for a progress display: `factgate check` shows each
/// article and each source as they are done. Every method does nothing by default.
pub trait CheckProgress: Sync {
    /// The article's claims were extracted: `checks` (claim, source) pairs are to be verified.
    fn extracted(&self, _article_id: &str, _extraction: &Extraction, _checks: usize) {}
    /// One check finished.
    fn checked(&self, _article_id: &str, _result: &ClaimResult) {}
}

/// A [`CheckProgress`] that reports nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl CheckProgress for NoProgress {}

/// Checks `body` as article `article_id`, revision `revision` (the title the body gives itself,
/// if any, is read as a claim as the body's headings are).
pub async fn check_article(
    article_id: &str,
    revision: u64,
    body: &str,
    format: BodyFormat,
    verifier: &Verifier,
    options: &CheckOptions,
) -> Checked {
    check_article_with_progress(
        article_id,
        revision,
        Document {
            body,
            format,
            title: None,
        },
        verifier,
        options,
        &NoProgress,
    )
    .await
}

/// What is checked of an article: its body, the body's format, and the draft's own title when
/// it has one (a draft event's `title`, read as a claim as `factgate run` reads it).
#[derive(Debug, Clone, Copy)]
pub struct Document<'a> {
    pub body: &'a str,
    pub format: BodyFormat,
    pub title: Option<&'a str>,
}

/// [`check_article`] for a [`Document`], telling `progress` of each step.
///
/// The deadline (`options.deadline`) counts from this call and covers extraction too, as the
/// event-time deadline of `factgate run` does: extraction runs on the bounded pool
/// ([`crate::parse_pool`]) and an article whose extraction is not done by then is blocked
/// (`deadline_exceeded`).
pub async fn check_article_with_progress(
    article_id: &str,
    revision: u64,
    document: Document<'_>,
    verifier: &Verifier,
    options: &CheckOptions,
    progress: &dyn CheckProgress,
) -> Checked {
    let Document {
        body,
        format,
        title,
    } = document;
    let started: DateTime<Utc> = Utc::now();
    let deadline = tokio::time::Instant::now() + options.deadline;
    let digest = draft_content_digest(format, title, body);
    let not_checked = |reason, why: &str| Checked {
        extraction: None,
        results: Vec::new(),
        decision: decide::decide_not_checked(
            article_id,
            Some(revision),
            &digest,
            reason,
            why,
            Some(started),
            Utc::now(),
        ),
    };
    let extraction = match extract_until(body, format, title, &options.limits, deadline).await {
        Extracted::Done(Ok(extraction)) => extraction,
        Extracted::Done(Err(err)) => {
            let reason = match err {
                ExtractError::Limit(_) => DecisionReason::LimitExceeded,
                _ => DecisionReason::ExtractionFailed,
            };
            return not_checked(reason, &err.to_string());
        }
        Extracted::TimedOut => {
            let why = format!(
                "extraction did not finish within the deadline (join.deadline_ms, {} ms)",
                options.deadline.as_millis()
            );
            return not_checked(DecisionReason::DeadlineExceeded, &why);
        }
        Extracted::Failed => {
            return not_checked(
                DecisionReason::InternalError,
                "extraction failed internally (a defect in factgate)",
            );
        }
    };
    let keys = check_keys(&extraction);
    progress.extracted(article_id, &extraction, keys.len());
    check_extracted_by(
        article_id, revision, &digest, extraction, verifier, options, progress, deadline,
    )
    .await
}

/// What [`extract_until`] came to.
enum Extracted {
    Done(Result<Extraction, ExtractError>),
    /// The deadline passed first.
    TimedOut,
    /// Extraction panicked.
    Failed,
}

/// Bodies of at most this many bytes are extracted in place, as the extract role does
/// ([`crate::pipeline`]): handing them to the pool costs more than extracting them.
const INLINE_EXTRACT_BYTES: usize = 4 * 1024;

/// Extraction within `limits` on the bounded pool, given up (and told to stop) at `deadline`.
async fn extract_until(
    body: &str,
    format: BodyFormat,
    title: Option<&str>,
    limits: &ExtractLimits,
    deadline: tokio::time::Instant,
) -> Extracted {
    if body.len() <= INLINE_EXTRACT_BYTES && title.is_none_or(|t| t.len() <= INLINE_EXTRACT_BYTES) {
        return match std::panic::catch_unwind(|| {
            extract::extract_titled_within(body, format, title, limits)
        }) {
            Ok(done) => Extracted::Done(done),
            Err(_panicked) => Extracted::Failed,
        };
    }
    // Over the size caps nothing is copied to the pool.
    if let Err(over) = extract::within_parse_limits(body, format, limits)
        .and_then(|()| title.map_or(Ok(()), |t| limits.check_field("title", t.len())))
    {
        return Extracted::Done(Err(over.into()));
    }
    let (body, title, limits) = (body.to_owned(), title.map(str::to_owned), *limits);
    let work = crate::parse_pool::run_bounded(move |_| {
        extract::extract_titled_within(&body, format, title.as_deref(), &limits)
    });
    match tokio::time::timeout_at(deadline, work).await {
        Ok(Ok(done)) => Extracted::Done(done),
        Ok(Err(_panicked)) => Extracted::Failed,
        Err(_elapsed) => Extracted::TimedOut,
    }
}

/// Verifies the checks of an article already extracted and decides: the second half of
/// [`check_article_with_progress`], for callers that extract first to size the work
/// (`factgate recheck` admits an article only when its checks fit). The deadline counts from
/// this call; `content_digest` names the content decided.
pub async fn check_extracted(
    article_id: &str,
    revision: u64,
    content_digest: &str,
    extraction: Extraction,
    verifier: &Verifier,
    options: &CheckOptions,
    progress: &dyn CheckProgress,
) -> Checked {
    let deadline = tokio::time::Instant::now() + options.deadline;
    check_extracted_by(
        article_id,
        revision,
        content_digest,
        extraction,
        verifier,
        options,
        progress,
        deadline,
    )
    .await
}

/// [`check_extracted`] with the checks given up at `deadline`.
#[allow(clippy::too_many_arguments)] // check_extracted's, and when its time is up
async fn check_extracted_by(
    article_id: &str,
    revision: u64,
    content_digest: &str,
    extraction: Extraction,
    verifier: &Verifier,
    options: &CheckOptions,
    progress: &dyn CheckProgress,
    deadline: tokio::time::Instant,
) -> Checked {
    let started: DateTime<Utc> = Utc::now();
    let keys = check_keys(&extraction);
    let (results, unfinished) = run_checks(
        article_id,
        revision,
        &extraction,
        &keys,
        verifier,
        options,
        progress,
        deadline,
    )
    .await;
    let check = ArticleCheck {
        article_id,
        revision,
        content_digest,
        published_at: started,
        claims: &extraction.claims,
        results: &results,
        unfinished: &unfinished,
    };
    let decision = decide::decide(&check, options.strictness, Utc::now());
    Checked {
        extraction: Some(extraction),
        results,
        decision,
    }
}

/// Runs the checks until all are done or `deadline` passes; returns the results and the keys
/// still unfinished.
#[allow(clippy::too_many_arguments)]
async fn run_checks(
    article_id: &str,
    revision: u64,
    extraction: &Extraction,
    keys: &[CheckKey],
    verifier: &Verifier,
    options: &CheckOptions,
    progress: &dyn CheckProgress,
    deadline: tokio::time::Instant,
) -> (Vec<ClaimResult>, Vec<CheckKey>) {
    let claim_of = |id: &str| extraction.claims.iter().find(|c| c.id == id);
    // Collected first, so the future stays `Send` for a caller that spawns it (`recheck`).
    let checks: Vec<_> = keys
        .iter()
        .filter_map(|key| {
            let claim = claim_of(&key.claim_id)?;
            Some(verifier.verify_claim(article_id, revision, claim, &key.source_url))
        })
        .collect();
    let mut pending = futures::stream::iter(checks).buffer_unordered(options.concurrency.max(1));
    let mut results: Vec<ClaimResult> = Vec::with_capacity(keys.len());
    let deadline = tokio::time::sleep_until(deadline);
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            next = pending.next() => match next {
                Some(result) => {
                    progress.checked(article_id, &result);
                    results.push(result);
                }
                None => break,
            },
            () = &mut deadline => break,
        }
    }
    let unfinished = keys
        .iter()
        .filter(|k| {
            !results
                .iter()
                .any(|r| r.claim_id == k.claim_id && r.source_url == k.source_url)
        })
        .cloned()
        .collect();
    (results, unfinished)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::fetch::{FetchSettings, Fetcher};

    #[test]
    fn an_endless_input_is_read_only_to_just_past_the_limit() {
        let zero = std::fs::File::open("/dev/zero").expect("/dev/zero opens");
        let bytes = read_capped(zero, 1024).expect("reads");
        assert_eq!(bytes.len(), 1025);
        let small = read_capped(&b"Prices rose 4%."[..], 1024).expect("reads");
        assert_eq!(small, b"Prices rose 4%.");
    }

    fn verifier() -> Verifier {
        Verifier::new(
            Fetcher::new(FetchSettings::default()).expect("a fetcher"),
            Default::default(),
            None,
        )
    }

    #[tokio::test]
    async fn the_deadline_covers_extraction() {
        // Long, and with nothing to fetch: before the deadline covered extraction, this passed
        // whatever the time it took.
        let body = "The board met on Tuesday and talked about the timetable. ".repeat(4_000);
        let options = CheckOptions {
            strictness: Strictness::Normal,
            deadline: Duration::from_millis(1),
            concurrency: 1,
            limits: ExtractLimits::default(),
        };
        let checked = check_article("a-1", 1, &body, BodyFormat::Text, &verifier(), &options).await;
        assert_eq!(
            checked.decision.reasons,
            vec![DecisionReason::DeadlineExceeded],
            "{:?}",
            checked.decision.report.issues
        );
        assert!(checked.extraction.is_none());
        // With time enough, the same article passes.
        let options = CheckOptions {
            deadline: Duration::from_secs(60),
            ..options
        };
        let checked = check_article("a-1", 1, &body, BodyFormat::Text, &verifier(), &options).await;
        assert_eq!(
            checked.decision.outcome,
            factgate_core::events::Outcome::Pass
        );
    }

    #[tokio::test]
    async fn a_title_over_the_field_cap_is_blocked_without_reading_the_article() {
        let options = CheckOptions {
            strictness: Strictness::Normal,
            deadline: Duration::from_secs(60),
            concurrency: 1,
            limits: ExtractLimits::default(),
        };
        let title = "A headline that never ends ".repeat(200_000);
        let checked = check_article_with_progress(
            "a-1",
            1,
            Document {
                body: "Sales rose 4%.",
                format: BodyFormat::Text,
                title: Some(&title),
            },
            &verifier(),
            &options,
            &NoProgress,
        )
        .await;
        assert_eq!(
            checked.decision.reasons,
            vec![DecisionReason::LimitExceeded]
        );
        assert!(
            checked.decision.report.issues[0]
                .evidence
                .contains("extract.max_field_bytes"),
            "{:?}",
            checked.decision.report.issues
        );
    }

    #[tokio::test]
    async fn an_article_over_a_limit_is_blocked_as_run_blocks_it() {
        let verifier = Verifier::new(
            Fetcher::new(FetchSettings::default()).expect("a fetcher"),
            Default::default(),
            None,
        );
        let options = CheckOptions {
            strictness: Strictness::Normal,
            deadline: Duration::from_secs(5),
            concurrency: 1,
            limits: ExtractLimits {
                max_links: 2,
                ..ExtractLimits::default()
            },
        };
        let body = "Sales rose 4% [a](https://a.example/) [b](https://b.example/) [c](https://c.example/).";
        let checked =
            check_article("a-1", 1, body, BodyFormat::Markdown, &verifier, &options).await;
        assert_eq!(
            checked.decision.reasons,
            vec![DecisionReason::LimitExceeded]
        );
        assert!(
            checked.decision.report.issues[0]
                .evidence
                .contains("extract.max_links_per_article"),
            "{:?}",
            checked.decision.report.issues
        );
        assert!(checked.results.is_empty(), "nothing was fetched");
        // The content is named as the stream processor names it, so the two can be compared.
        let draft = factgate_core::events::DraftEvent::from_json(
            serde_json::json!({
                "schema_version": "factgate.draft.v1",
                "article_id": "a-1",
                "revision": 1,
                "published_at": "2026-01-01T00:00:00Z",
                "body": body,
                "body_format": "markdown",
            })
            .to_string()
            .as_bytes(),
        )
        .expect("a valid draft");
        assert_eq!(
            checked.decision.content_digest.as_deref(),
            Some(draft.content_digest().as_str())
        );
    }
}
