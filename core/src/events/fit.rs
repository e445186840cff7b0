//! Events sized to fit the broker's message limit (`message.max.bytes`; see
//! `kafka.max_payload_bytes` in the service configuration). A record over it is refused by the
//! producer, so nothing factgate writes may be: what can be split is split, what can be shortened
//! without changing its meaning is shortened (and says so), and what can do neither is an
//! [`Oversize`] error the caller turns into a block.
//!
//! - A manifest too large for one message is sent in parts ([`split_manifest`]), each with some
//!   of the claims and their pending checks; the join waits for all of them.
//! - A decision keeps its outcome, reasons and summary counts whatever its size; its report is
//!   shortened ([`fit_decision`]): long texts cut first, then per-claim verdicts left out from the
//!   end, then the least severe issues, and its reason line says what was left out.
//! - A claim result keeps its verdict and check key; its texts are cut ([`fit_result`]).

use serde::Serialize;

use super::check::ClaimResult;
use super::decision::Decision;
use super::manifest::{ArticleManifest, ManifestPart};

/// An event that cannot be split or shortened to fit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{what} would take {bytes} bytes, over the {budget} bytes an event may take under the broker's message limit (kafka.properties \"message.max.bytes\")"
)]
pub struct Oversize {
    /// What does not fit: "claim 3f2a… and its checks", "the verification request of claim …".
    pub what: String,
    pub bytes: usize,
    pub budget: usize,
}

/// An event with its JSON, written once: measured against the budget and sent as it is, rather
/// than written once to be measured and again to be sent. It reads as the event it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Encoded<T> {
    event: T,
    json: Vec<u8>,
}

impl<T: Serialize> Encoded<T> {
    /// `event` with its JSON.
    pub fn new(event: T) -> Self {
        let json = to_json(&event);
        Encoded { event, json }
    }
}

/// `event` as JSON. factgate's events always serialize: string-keyed maps only, and serde_json
/// writes a non-finite float as null rather than failing.
pub fn to_json<T: Serialize + ?Sized>(event: &T) -> Vec<u8> {
    serde_json::to_vec(event).expect("factgate events serialize to JSON")
}

impl<T> Encoded<T> {
    /// The event's JSON, as it is sent.
    pub fn json(&self) -> &[u8] {
        &self.json
    }

    /// The event, without its JSON.
    pub(crate) fn into_event(self) -> T {
        self.event
    }
}

impl<T> std::ops::Deref for Encoded<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.event
    }
}

/// `value` as JSON within `budget` bytes: written once when it fits, the common case; else
/// shortened by `fit` (for instance [`fit_result`], which measures it again) and written again.
/// The flag says whether `fit` shortened it.
///
/// # Errors
/// `fit`'s [`Oversize`].
pub fn encode_within<T: Serialize>(
    value: &mut T,
    budget: usize,
    fit: impl FnOnce(&mut T, usize) -> Result<bool, Oversize>,
) -> Result<(Vec<u8>, bool), Oversize> {
    let json = to_json(value);
    if json.len() <= budget {
        return Ok((json, false));
    }
    let shortened = fit(value, budget)?;
    Ok((to_json(value), shortened))
}

/// The length of `value` as JSON, without building it.
pub fn json_len<T: Serialize>(value: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // factgate's events always serialize (string keys only; non-finite floats become null).
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// `manifest` as one message when it fits `budget` bytes, else in parts that each do: claims in
/// reading order, as many per part as fit, each with its pending checks.
///
/// # Errors
/// [`Oversize`] when one claim with its checks cannot fit a part on its own.
pub fn split_manifest(
    manifest: ArticleManifest,
    budget: usize,
) -> Result<Vec<Encoded<ArticleManifest>>, Oversize> {
    let whole = Encoded::new(manifest);
    if whole.json().len() <= budget {
        return Ok(vec![whole]);
    }
    let manifest = whole.into_event();
    let mut base = manifest.clone();
    base.claims = Vec::new();
    base.pending = Vec::new();
    // The widest part marker, so a part sized against it fits whatever its numbers.
    base.part = Some(ManifestPart {
        index: u32::MAX,
        count: u32::MAX,
    });
    let base_len = json_len(&base);
    let mut groups: Vec<(usize, usize)> = Vec::new(); // claim index ranges [start, end)
    let (mut start, mut used) = (0, base_len);
    for (i, claim) in manifest.claims.iter().enumerate() {
        let keys = manifest.pending.iter().filter(|k| k.claim_id == claim.id);
        let size = json_len(claim) + 1 + keys.map(|k| json_len(k) + 1).sum::<usize>();
        if base_len + size > budget {
            return Err(Oversize {
                what: format!("claim {} with its checks", claim.id),
                bytes: base_len + size,
                budget,
            });
        }
        if used + size > budget {
            groups.push((start, i));
            start = i;
            used = base_len;
        }
        used += size;
    }
    groups.push((start, manifest.claims.len()));
    let count = u32::try_from(groups.len()).unwrap_or(u32::MAX);
    let parts = groups
        .into_iter()
        .enumerate()
        .map(|(index, (from, to))| {
            let claims = manifest.claims[from..to].to_vec();
            let pending = manifest
                .pending
                .iter()
                .filter(|k| claims.iter().any(|c| c.id == k.claim_id))
                .cloned()
                .collect();
            Encoded::new(ArticleManifest {
                claims,
                pending,
                part: Some(ManifestPart {
                    index: u32::try_from(index).unwrap_or(u32::MAX),
                    count,
                }),
                ..base.clone()
            })
        })
        .collect();
    Ok(parts)
}

/// Characters kept of a long text in a shortened event.
const SHORT_TEXT_CHARS: usize = 280;

/// Cuts `text` to `max` characters, marking the cut with an ellipsis. Returns whether it cut.
fn cut(text: &mut String, max: usize) -> bool {
    match text.char_indices().nth(max) {
        Some((at, _)) => {
            text.truncate(at);
            text.push('…');
            true
        }
        None => false,
    }
}

/// `decision` shortened until it fits `budget` bytes (see the module docs); its outcome,
/// reasons and summary are never changed. Returns whether anything was left out or cut.
///
/// # Errors
/// [`Oversize`] when even the report without claims, issues or priorities does not fit (an
/// impossible budget: the configuration's minimum leaves room).
pub fn fit_decision(decision: &mut Decision, budget: usize) -> Result<bool, Oversize> {
    if json_len(decision) <= budget {
        return Ok(false);
    }
    let report = &mut decision.report;
    let (claims, issues) = (report.claims.len(), report.issues.len());
    for verdict in &mut report.claims {
        cut(&mut verdict.text, SHORT_TEXT_CHARS);
        if let Some(quote) = &mut verdict.evidence_quote {
            cut(quote, SHORT_TEXT_CHARS);
        }
        if let Some(correction) = &mut verdict.correction {
            cut(correction, SHORT_TEXT_CHARS);
        }
        if let Some(quote) = verdict
            .supporting_source
            .as_mut()
            .and_then(|s| s.evidence_quote.as_mut())
        {
            cut(quote, SHORT_TEXT_CHARS);
        }
    }
    for issue in &mut report.issues {
        for text in [
            &mut issue.claim,
            &mut issue.evidence,
            &mut issue.problem,
            &mut issue.recommendation,
        ] {
            cut(text, SHORT_TEXT_CHARS);
        }
    }
    for priority in &mut report.top_priorities {
        cut(priority, SHORT_TEXT_CHARS);
    }
    let reason = std::mem::take(&mut report.recommendation_reason);
    let note = |kept_claims: usize, kept_issues: usize| {
        let mut note =
            format!("{reason} (Report shortened to fit the broker's message limit: long texts cut");
        if kept_claims < claims {
            note.push_str(&format!(
                "; {} of {claims} claim verdicts left out",
                claims - kept_claims
            ));
        }
        if kept_issues < issues {
            note.push_str(&format!(
                "; {} of {issues} issues left out, the least severe",
                issues - kept_issues
            ));
        }
        note.push_str("; the summary counts them all.)");
        note
    };
    decision.report.recommendation_reason = note(claims, issues);
    if json_len(decision) <= budget {
        return Ok(true);
    }
    // The lists of what changed since the previous revision go before any claim or issue of
    // this one; their counts stay.
    if let Some(changes) = &mut decision.report.changes_since_previous {
        changes.fixed.clear();
        changes.still_open.clear();
        changes.new.clear();
        changes.citations_replaced.clear();
        changes.rechecked.clear();
        if json_len(decision) <= budget {
            return Ok(true);
        }
    }
    // Per-claim verdicts go first, from the end: the issues say what the editor must fix.
    let keep = largest_fitting(claims, |n| {
        let mut trial = decision.clone();
        trial.report.claims.truncate(n);
        trial.report.recommendation_reason = note(n, issues);
        json_len(&trial) <= budget
    });
    decision.report.claims.truncate(keep);
    decision.report.recommendation_reason = note(keep, issues);
    if json_len(decision) <= budget {
        return Ok(true);
    }
    let keep_issues = largest_fitting(issues, |n| {
        let mut trial = decision.clone();
        trial.report.issues.truncate(n);
        trial.report.top_priorities.truncate(n);
        trial.report.recommendation_reason = note(0, n);
        json_len(&trial) <= budget
    });
    decision.report.issues.truncate(keep_issues);
    decision.report.top_priorities.truncate(keep_issues);
    decision.report.recommendation_reason = note(0, keep_issues);
    let bytes = json_len(decision);
    if bytes <= budget {
        Ok(true)
    } else {
        Err(Oversize {
            what: format!("the decision on {}", decision.article_id),
            bytes,
            budget,
        })
    }
}

/// The largest `n` in `0..=max` for which `fits(n)` holds, `fits` being monotone (true up to some
/// point); 0 when none does.
fn largest_fitting(max: usize, fits: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, max);
    while low < high {
        let mid = low + (high - low).div_ceil(2);
        if fits(mid) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    low
}

/// `result` with its texts cut until it fits `budget` bytes; its verdict, support and check key
/// stay. Returns whether anything was cut.
///
/// # Errors
/// [`Oversize`] when its check key alone (claim id, source URL) is over the budget.
pub fn fit_result(result: &mut ClaimResult, budget: usize) -> Result<bool, Oversize> {
    if json_len(result) <= budget {
        return Ok(false);
    }
    if let Some(evidence) = &mut result.evidence {
        cut(&mut evidence.quote, SHORT_TEXT_CHARS);
    }
    if let Some(correction) = &mut result.correction {
        cut(correction, SHORT_TEXT_CHARS);
    }
    cut(&mut result.reason, SHORT_TEXT_CHARS);
    if let Some(issue) = &mut result.issue {
        for text in [
            &mut issue.claim,
            &mut issue.evidence,
            &mut issue.problem,
            &mut issue.recommendation,
        ] {
            cut(text, SHORT_TEXT_CHARS);
        }
        // The source URL is in the key already.
        issue.source_url = None;
    }
    let bytes = json_len(result);
    if bytes <= budget {
        Ok(true)
    } else {
        Err(Oversize {
            what: format!("the result of claim {}", result.claim_id),
            bytes,
            budget,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::{CheckKey, DecisionReason, ExtractionOutcome};
    use crate::model::{BodyFormat, Claim};
    use chrono::Utc;

    fn article(claims: usize, words: usize) -> ArticleManifest {
        let sentence = |i: usize| {
            format!(
                "Sales grew {i}% in 2023 while {} costs fell [{i}](https://example.com/{i}).",
                "long ".repeat(words)
            )
        };
        let body: String = (0..claims).map(|i| sentence(i) + "\n\n").collect();
        let extraction =
            crate::extract::extract(&body, BodyFormat::Markdown).expect("the article extracts");
        let claims: Vec<Claim> = extraction.claims;
        let pending = claims
            .iter()
            .flat_map(|c| {
                c.citations.iter().map(|cite| CheckKey {
                    claim_id: c.id.clone(),
                    source_url: cite.url.clone(),
                })
            })
            .collect();
        ArticleManifest {
            schema_version: Default::default(),
            article_id: "a-1".into(),
            revision: 1,
            published_at: Utc::now(),
            deadline: Utc::now(),
            extracted_at: None,
            content_digest: "0".repeat(64),
            extraction: ExtractionOutcome::Ok {
                paragraphs: claims.len(),
                sentences: claims.len(),
            },
            claims,
            pending,
            draft_position: None,
            part: None,
        }
    }

    #[test]
    fn a_manifest_that_fits_is_sent_whole() {
        let manifest = article(3, 5);
        let parts = split_manifest(manifest.clone(), 1_000_000).expect("fits");
        assert_eq!(parts, vec![Encoded::new(manifest)]);
    }

    #[test]
    fn a_large_manifest_is_split_into_parts_that_each_fit_and_lose_nothing() {
        let manifest = article(40, 40);
        assert_eq!(manifest.claims.len(), 40);
        let budget = json_len(&manifest) / 3;
        let parts = split_manifest(manifest.clone(), budget).expect("splits");
        assert!(parts.len() >= 3, "{} parts", parts.len());
        let count = u32::try_from(parts.len()).expect("few parts");
        for (i, part) in parts.iter().enumerate() {
            assert!(
                part.json().len() <= budget,
                "part {i} is {} bytes",
                part.json().len()
            );
            assert_eq!(part.json(), serde_json::to_vec(&**part).unwrap());
            assert_eq!(
                part.part,
                Some(ManifestPart {
                    index: u32::try_from(i).expect("few parts"),
                    count
                })
            );
            for key in &part.pending {
                assert!(part.claims.iter().any(|c| c.id == key.claim_id));
            }
        }
        let claims: Vec<_> = parts.iter().flat_map(|p| p.claims.clone()).collect();
        let pending: Vec<_> = parts.iter().flat_map(|p| p.pending.clone()).collect();
        assert_eq!(claims, manifest.claims);
        assert_eq!(pending, manifest.pending);
    }

    #[test]
    fn a_claim_too_large_for_any_part_is_oversize() {
        let manifest = article(2, 3_000);
        let err = split_manifest(manifest, 8_000).expect_err("one claim is over the budget");
        assert!(err.to_string().contains("message.max.bytes"), "{err}");
    }

    #[test]
    fn a_large_decision_keeps_its_outcome_and_says_what_it_left_out() {
        let manifest = article(60, 60);
        let check = crate::decide::ArticleCheck {
            article_id: "a-1",
            revision: 1,
            content_digest: &manifest.content_digest,
            published_at: Utc::now(),
            claims: &manifest.claims,
            results: &[],
            unfinished: &manifest.pending,
        };
        let mut decision =
            crate::decide::decide(&check, crate::decide::Strictness::Normal, Utc::now());
        let (outcome, reasons, summary) = (
            decision.outcome,
            decision.reasons.clone(),
            decision.report.summary.clone(),
        );
        assert!(json_len(&decision) > 20_000);
        assert!(fit_decision(&mut decision, 12_000).expect("fits"));
        assert!(json_len(&decision) <= 12_000);
        assert_eq!(
            (
                decision.outcome,
                &decision.reasons,
                &decision.report.summary
            ),
            (outcome, &reasons, &summary)
        );
        assert!(reasons.contains(&DecisionReason::DeadlineExceeded));
        let reason = &decision.report.recommendation_reason;
        assert!(reason.contains("Report shortened"), "{reason}");
        assert!(reason.contains("claim verdicts left out"), "{reason}");
    }
}
