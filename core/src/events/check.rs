//! Verification: the request extraction sends to verify (`claims.verify`, keyed by source host)
//! and the result verify sends to the join (`claims.verified`, keyed by article id).
//!
//! A request asks for one claim to be checked against one source; the pair is its [`CheckKey`].
//! The result echoes the key, so the join can count results against the manifest's `pending`
//! list.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::position::DraftPosition;
use super::report::Issue;
use super::version::{ClaimResultV1, VerifyRequestV1};
use crate::model::{Claim, Span, Verdict};

/// The identity of one verification within an (article, revision): a claim and one source it
/// cites. Extraction makes one request per distinct key.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CheckKey {
    pub claim_id: String,
    /// The source URL exactly as written in the claim's citation and the request; keys are
    /// compared as strings, so every stage must copy it unchanged.
    pub source_url: String,
}

/// A request to check one claim against one cited source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifyRequest {
    /// Always [`super::VERIFY_REQUEST_V1`].
    pub schema_version: VerifyRequestV1,
    pub article_id: String,
    pub revision: u64,
    /// The claim as extracted; its `id` is the key's claim id.
    pub claim: Claim,
    /// The absolute http(s) URL to fetch.
    pub source_url: String,
    /// The host of `source_url`, lower-case: the Kafka key, so one worker sees every request to
    /// a host and its rate limit is the cluster's.
    pub source_host: String,
    /// When the draft was published (event time).
    pub published_at: DateTime<Utc>,
    /// The verification is useless after this instant: the join will have blocked the draft.
    pub deadline: DateTime<Utc>,
    /// The publication of the draft this check is for; its result carries it back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draft_position: Option<DraftPosition>,
}

impl VerifyRequest {
    /// The (claim, source) pair this request is about.
    pub fn check_key(&self) -> CheckKey {
        CheckKey {
            claim_id: self.claim.id.clone(),
            source_url: self.source_url.clone(),
        }
    }
}

/// How fetching a source ended. An outcome, not a fault: every status but `ok` leaves the claim
/// unverified against this source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FetchStatus {
    /// The source was fetched and read.
    Ok,
    /// 404 or 410, or a page served as a success that is an error page or a site search's
    /// results (`http_status` then says 200): the citation does not lead to its source.
    NotFound,
    /// 401 or 403.
    Forbidden,
    /// 402, or a page whose text shows a paywall.
    Paywalled,
    /// 429 (or 503 with Retry-After) after the retries allowed.
    RateLimited,
    /// 5xx after the retries allowed.
    ServerError,
    /// No complete answer within the time allowed.
    Timeout,
    /// The body, or its decompressed size, exceeds the cap.
    TooLarge,
    /// Not fetched by policy: a scheme other than http(s), a private, loopback, link-local or
    /// metadata address, too many redirects.
    RefusedByPolicy,
    /// A content type factgate does not read (an image, a spreadsheet…), or a source it could
    /// not read: an encrypted, scanned or damaged PDF, a data file past its caps, a page whose
    /// text its scripts render. The issue says which, and what to cite instead.
    UnsupportedContent,
    /// DNS, connection, TLS or protocol failure.
    NetworkError,
}

impl FetchStatus {
    /// Whether the source could be read: the citation "works" in the report's terms.
    pub fn is_ok(self) -> bool {
        self == FetchStatus::Ok
    }

    /// Whether the source could not be read for a technical reason (timeout, server error,
    /// refused by policy…), as opposed to an editorial finding about the citation (dead link,
    /// forbidden, paywalled). A check whose source was left unjudged blocks at every strictness:
    /// the check did not complete. The one place this is decided.
    pub fn leaves_source_unjudged(self) -> bool {
        match self {
            FetchStatus::Ok
            | FetchStatus::NotFound
            | FetchStatus::Forbidden
            | FetchStatus::Paywalled => false,
            FetchStatus::RateLimited
            | FetchStatus::ServerError
            | FetchStatus::Timeout
            | FetchStatus::TooLarge
            | FetchStatus::RefusedByPolicy
            | FetchStatus::UnsupportedContent
            | FetchStatus::NetworkError => true,
        }
    }

    /// The name used in events and logs.
    pub fn as_str(self) -> &'static str {
        match self {
            FetchStatus::Ok => "ok",
            FetchStatus::NotFound => "not_found",
            FetchStatus::Forbidden => "forbidden",
            FetchStatus::Paywalled => "paywalled",
            FetchStatus::RateLimited => "rate_limited",
            FetchStatus::ServerError => "server_error",
            FetchStatus::Timeout => "timeout",
            FetchStatus::TooLarge => "too_large",
            FetchStatus::RefusedByPolicy => "refused_by_policy",
            FetchStatus::UnsupportedContent => "unsupported_content",
            FetchStatus::NetworkError => "network_error",
        }
    }
}

impl std::fmt::Display for FetchStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The passage of the source that decided the verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// The passage as it reads in the source's visible text.
    pub quote: String,
    /// Character offsets of the passage in the source's visible text (markup removed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    /// Index of the passage's first sentence in the source's visible text, counting from 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sentence: Option<usize>,
    /// For a source of pages (a PDF), the 1-based page the passage starts on: what an editor
    /// turns to, since char offsets into a document's extracted text locate nothing in it.
    /// Absent for a web page, and from results written before it was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
}

/// The outcome of checking one claim against one source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimResult {
    /// Always [`super::CLAIM_RESULT_V1`].
    pub schema_version: ClaimResultV1,
    pub article_id: String,
    pub revision: u64,
    pub claim_id: String,
    /// The source URL of the request, unchanged.
    pub source_url: String,
    pub fetch_status: FetchStatus,
    /// The final HTTP status, when a response was received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    /// HTTP attempts made, retries included; 0 when served from cache or refused by policy.
    pub fetch_attempts: u32,
    /// `inconclusive` whenever the source could not be read.
    pub verdict: Verdict,
    /// The judge's raw support score in [0, 1]: how much of the claim the source states. It
    /// ranks claims but is not a probability; see `confidence`.
    pub support: f64,
    /// The calibrated probability in [0, 1] that the source supports the claim, mapped from
    /// `support` by the table fitted on labelled data (`judge::calibration`). Absent
    /// when the source was not judged (not fetched or not read), and from results written
    /// before it was computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// The source's credibility in [0, 1], from the configured domain lists.
    pub source_credibility: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// What the source says instead, when it states a different figure or wording:
    /// "source says $9/month".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correction: Option<String>,
    /// The issue this check raises, if any, ready for the report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue: Option<Issue>,
    /// Why the verdict is what it is, for a reader: "the source gives $9/month, not $4/month".
    pub reason: String,
    pub judged_at: DateTime<Utc>,
    /// The publication of the draft the request was for, echoed so the join counts the result
    /// for that publication only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draft_position: Option<DraftPosition>,
}

/// How a verify role's answer opens when the source did not answer in the time the draft's
/// deadline left for its check: the source's time ran out, not factgate's.
pub const DEADLINE_TIMEOUT_REASON: &str =
    "the source did not answer within the time the draft's deadline left for its check";

/// How a verify role's answer opens when the claim's draft had spent its judging time
/// (`judge.max_draft_judge_ms`) before the claim was judged: the draft blocks `limit_exceeded`.
pub const JUDGING_BUDGET_REASON: &str = "not judged: the draft used up its judging time";

impl ClaimResult {
    /// Whether the claim was left unjudged because its draft had spent its judging time.
    pub fn over_judging_budget(&self) -> bool {
        self.reason.starts_with(JUDGING_BUDGET_REASON)
    }

    /// Whether the check ran out of the time the deadline left it, the source not answering:
    /// the article blocks `deadline_exceeded`, the finding blaming the source.
    pub fn ran_out_of_deadline(&self) -> bool {
        self.fetch_status == FetchStatus::Timeout
            && self.reason.starts_with(DEADLINE_TIMEOUT_REASON)
    }

    /// The (claim, source) pair this result answers.
    pub fn check_key(&self) -> CheckKey {
        CheckKey {
            claim_id: self.claim_id.clone(),
            source_url: self.source_url.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fetch_status_names_match_serde() {
        let all = [
            FetchStatus::Ok,
            FetchStatus::NotFound,
            FetchStatus::Forbidden,
            FetchStatus::Paywalled,
            FetchStatus::RateLimited,
            FetchStatus::ServerError,
            FetchStatus::Timeout,
            FetchStatus::TooLarge,
            FetchStatus::RefusedByPolicy,
            FetchStatus::UnsupportedContent,
            FetchStatus::NetworkError,
        ];
        for status in all {
            let json = serde_json::to_value(status).unwrap();
            assert_eq!(json, status.as_str());
        }
    }
}
