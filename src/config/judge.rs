//! `[judge]`, `[credibility]`, `[llm]` and `[policy]`: how a claim is judged against its source and
//! how the issues found become a decision.

use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use super::error::Validation;
use factgate_core::judge::{self, CredibilityLists};

/// Default support score at or above which a claim counts as supported (tuned on WiCE dev).
pub const DEFAULT_SUPPORT_THRESHOLD: f64 = judge::DEFAULT_SUPPORT_THRESHOLD;
/// Default relative error of a figure up to which it counts as matching its source, and above
/// which it is a medium issue (10%).
pub const DEFAULT_FIGURE_MEDIUM_TOLERANCE: f64 = judge::DEFAULT_FIGURE_MEDIUM_TOLERANCE;
/// Default relative error beyond which a figure is a high-severity error (20%).
pub const DEFAULT_FIGURE_HIGH_TOLERANCE: f64 = judge::DEFAULT_FIGURE_HIGH_TOLERANCE;
/// Default number of best-matching source passages the judge looks at.
pub const DEFAULT_MAX_PASSAGES: usize = judge::DEFAULT_MAX_PASSAGES;
/// Default name of the environment variable holding the LLM API key.
pub const DEFAULT_LLM_API_KEY_ENV: &str = "FACTGATE_LLM_API_KEY";
/// Default time one LLM call may take, in milliseconds.
pub const DEFAULT_LLM_TIMEOUT_MS: u64 = 30_000;
/// Default number of adversarial LLM voters per claim.
pub const DEFAULT_LLM_VOTERS: u32 = 3;
/// Default number of requests in flight to the LLM endpoint at once, per process.
pub const DEFAULT_LLM_MAX_CONCURRENT_REQUESTS: u32 =
    factgate_core::quorum::DEFAULT_MAX_CONCURRENT_REQUESTS as u32;
/// Default context window of the model, in tokens.
pub const DEFAULT_LLM_CONTEXT_TOKENS: u32 = factgate_core::quorum::DEFAULT_CONTEXT_TOKENS as u32;
/// Default cap on the tokens of one LLM reply.
pub const DEFAULT_LLM_MAX_REPLY_TOKENS: u32 =
    factgate_core::quorum::DEFAULT_MAX_REPLY_TOKENS as u32;
/// Default number of source passages shown to the LLM voters.
pub const DEFAULT_LLM_MAX_PASSAGES: u32 = factgate_core::quorum::DEFAULT_MAX_PASSAGES as u32;

/// Judging a claim against the passages of its source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JudgeConfig {
    /// Support score (0–1) at or above which a claim counts as supported.
    pub support_threshold: f64,
    /// The calibrated probability of support (0–1) below which a claim its source does not
    /// clearly state is a medium issue, and blocks under `normal`; above it the claim is listed
    /// for review (low). Fitted on WiCE dev with cross-validation (docs/quality.md).
    pub unconfirmed_medium_below: f64,
    /// No longer read: a source that does not state a claim leaves it unconfirmed, never refuted
    /// (see `unconfirmed_medium_below`). Kept so that a configuration setting it is refused with a
    /// message saying so, not as an unknown key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refute_threshold: Option<f64>,
    /// Relative error of a figure up to which it matches its source; above it the error is
    /// medium severity. Read also under its former name, `figure_tolerance_low`.
    #[serde(alias = "figure_tolerance_low")]
    pub figure_medium_tolerance: f64,
    /// Relative error above which a figure error is high severity. Read also under its former
    /// name, `figure_tolerance_high`.
    #[serde(alias = "figure_tolerance_high")]
    pub figure_high_tolerance: f64,
    /// Best-matching passages of the source the judge compares the claim with.
    pub max_passages: usize,
    /// Judging time one draft may spend in one verify process, in milliseconds: past it the
    /// draft's claims left are not judged and it is blocked `limit_exceeded`, so no draft inside
    /// every other limit can hold the judge for the others (drafts take turns besides).
    pub max_draft_judge_ms: u64,
}

/// A draft's judging time per verify process: a long article of ordinary pages takes well under
/// a second; only a draft made to be heavy comes near.
pub const DEFAULT_MAX_DRAFT_JUDGE_MS: u64 = 10_000;

impl Default for JudgeConfig {
    fn default() -> Self {
        Self {
            support_threshold: DEFAULT_SUPPORT_THRESHOLD,
            unconfirmed_medium_below: judge::calibration::medium_below(),
            refute_threshold: None,
            figure_medium_tolerance: DEFAULT_FIGURE_MEDIUM_TOLERANCE,
            figure_high_tolerance: DEFAULT_FIGURE_HIGH_TOLERANCE,
            max_passages: DEFAULT_MAX_PASSAGES,
            max_draft_judge_ms: DEFAULT_MAX_DRAFT_JUDGE_MS,
        }
    }
}

impl JudgeConfig {
    pub(crate) fn validate(&self, validation: &mut Validation) {
        validation.unit_interval("judge.support_threshold", self.support_threshold);
        validation.unit_interval(
            "judge.unconfirmed_medium_below",
            self.unconfirmed_medium_below,
        );
        if self.refute_threshold.is_some() {
            validation.fail(
                "judge.refute_threshold",
                "judge.refute_threshold is no longer used: a source that does not clearly state a claim leaves it unconfirmed, and it blocks when its calibrated probability is below judge.unconfirmed_medium_below".to_owned(),
            );
        }
        validation.unit_interval(
            "judge.figure_medium_tolerance",
            self.figure_medium_tolerance,
        );
        validation.unit_interval("judge.figure_high_tolerance", self.figure_high_tolerance);
        if !strictly_below(self.figure_medium_tolerance, self.figure_high_tolerance) {
            validation.fail(
                "judge.figure_medium_tolerance",
                format!(
                    "judge.figure_medium_tolerance ({}) must be below judge.figure_high_tolerance ({})",
                    self.figure_medium_tolerance, self.figure_high_tolerance
                ),
            );
        }
        validation.nonzero("judge.max_passages", self.max_passages as u64);
        validation.nonzero("judge.max_draft_judge_ms", self.max_draft_judge_ms);
    }

    /// [`JudgeConfig::max_draft_judge_ms`] as a duration.
    pub fn max_draft_judge(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.max_draft_judge_ms)
    }
}

/// `a < b`, false when either is NaN (so a NaN fails the check instead of slipping through).
fn strictly_below(a: f64, b: f64) -> bool {
    a.partial_cmp(&b) == Some(std::cmp::Ordering::Less)
}

/// Source credibility by domain suffix, after docs/contested-evidence.md: the judge's own
/// lists, read from `[credibility]` as they are.
pub type CredibilityConfig = CredibilityLists;

/// Validates the `[credibility]` lists: lowercase domain suffixes, none both low and high.
pub(crate) fn validate_credibility(lists: &CredibilityConfig, validation: &mut Validation) {
    {
        for (list_name, list) in [
            ("high", &lists.high),
            ("reputable", &lists.reputable),
            ("low", &lists.low),
        ] {
            for (i, suffix) in list.iter().enumerate() {
                if !is_domain_suffix(suffix) {
                    let key = format!("credibility.{list_name}[{i}]");
                    validation.fail(
                        &key,
                        format!(
                            "{key} ({suffix:?}) must be a lowercase domain suffix such as \
                             \".gov\" or \"reuters.com\""
                        ),
                    );
                }
            }
        }
        for (i, suffix) in lists.low.iter().enumerate() {
            let bare = suffix.trim_start_matches('.');
            let in_high = |list: &[String]| list.iter().any(|h| h.trim_start_matches('.') == bare);
            if in_high(&lists.high) || in_high(&lists.reputable) {
                let key = format!("credibility.low[{i}]");
                validation.fail(
                    &key,
                    format!("{key} ({suffix:?}) is also listed in credibility.high or credibility.reputable"),
                );
            }
        }
    }
}

fn is_domain_suffix(suffix: &str) -> bool {
    let bare = suffix.strip_prefix('.').unwrap_or(suffix);
    !bare.is_empty()
        && bare.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
}

/// The optional LLM judge: any OpenAI-compatible chat-completions endpoint, asked by several
/// adversarial voters.
///
/// The API key is never part of the configuration: `api_key_env` names the environment variable
/// that holds it, and [`LlmConfig::api_key`] reads it into an [`ApiKey`] whose `Debug` and
/// `Display` print nothing of it. Putting `api_key = "…"` in the file is rejected as an unknown
/// key, and the error does not repeat the value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LlmConfig {
    /// Ask the LLM judge at all. Off by default: factgate judges without it.
    pub enabled: bool,
    /// Base URL of the endpoint, up to but excluding `/chat/completions`
    /// (e.g. `http://127.0.0.1:8000/v1`). Required when enabled.
    pub base_url: Option<String>,
    /// Model name sent with each request. Required when enabled.
    pub model: Option<String>,
    /// Name of the environment variable holding the API key (the name, never the key).
    pub api_key_env: String,
    /// Time one call may take.
    pub timeout_ms: u64,
    /// Adversarial voters per claim. The quorum needs two valid votes to support a claim.
    pub voters: u32,
    /// Requests in flight to the endpoint at once, per process (a local server answers one or a
    /// few at a time; a hosted one rate-limits). Requests beyond it wait for a slot.
    pub max_concurrent_requests: u32,
    /// The model's context window in tokens, as the server runs it (llama.cpp `--n_ctx`, vLLM
    /// `--max-model-len`, Ollama `num_ctx`). Evidence is cut to fit, and the cut reported.
    pub context_tokens: u32,
    /// The most tokens one reply may take (`max_tokens`); a longer reply abstains.
    pub max_reply_tokens: u32,
    /// Best-matching source passages shown to the voters, before the token budget.
    pub max_passages: u32,
}

impl Default for LlmConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            base_url: None,
            model: None,
            api_key_env: DEFAULT_LLM_API_KEY_ENV.to_owned(),
            timeout_ms: DEFAULT_LLM_TIMEOUT_MS,
            voters: DEFAULT_LLM_VOTERS,
            max_concurrent_requests: DEFAULT_LLM_MAX_CONCURRENT_REQUESTS,
            context_tokens: DEFAULT_LLM_CONTEXT_TOKENS,
            max_reply_tokens: DEFAULT_LLM_MAX_REPLY_TOKENS,
            max_passages: DEFAULT_LLM_MAX_PASSAGES,
        }
    }
}

impl LlmConfig {
    /// Time one call may take.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }

    /// The API key from the environment variable named by `api_key_env`, if it is set and not
    /// empty. A local endpoint may need no key.
    pub fn api_key(&self) -> Option<ApiKey> {
        std::env::var(&self.api_key_env)
            .ok()
            .filter(|key| !key.is_empty())
            .map(ApiKey::new)
    }

    pub(crate) fn validate(&self, validation: &mut Validation) {
        let blank = |v: &Option<String>| v.as_deref().is_none_or(|s| s.trim().is_empty());
        if self.enabled && (blank(&self.base_url) || blank(&self.model)) {
            validation.fail(
                "llm.enabled",
                "llm.enabled requires llm.base_url and llm.model",
            );
        }
        if let Some(url) = &self.base_url {
            validation.http_url("llm.base_url", url);
        }
        // The message does not repeat the value: someone may have pasted the key itself here.
        if !is_env_var_name(&self.api_key_env) {
            validation.fail(
                "llm.api_key_env",
                "llm.api_key_env must be the NAME of an environment variable (letters, digits \
                 and '_', e.g. FACTGATE_LLM_API_KEY), not the key itself",
            );
        }
        validation.nonzero("llm.timeout_ms", self.timeout_ms);
        validation.nonzero(
            "llm.max_concurrent_requests",
            u64::from(self.max_concurrent_requests),
        );
        validation.nonzero("llm.max_passages", u64::from(self.max_passages));
        validation.nonzero("llm.max_reply_tokens", u64::from(self.max_reply_tokens));
        let min_context = factgate_core::quorum::min_context_tokens(self.max_reply_tokens as usize);
        if (self.context_tokens as usize) < min_context {
            validation.fail(
                "llm.context_tokens",
                format!(
                    "llm.context_tokens ({}) must be at least {min_context}: the voters' prompt, \
                     some evidence and a reply of llm.max_reply_tokens ({}) must fit in it",
                    self.context_tokens, self.max_reply_tokens
                ),
            );
        }
        if self.voters < 2 {
            validation.fail(
                "llm.voters",
                format!(
                    "llm.voters ({}) must be at least 2: the quorum needs two valid votes to \
                     support a claim",
                    self.voters
                ),
            );
        }
    }
}

fn is_env_var_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

use factgate_core::decide::Strictness;
/// An API key, held as a [`SecretString`]: Debug and Display print `[redacted]`, the memory is
/// zeroed when the last copy is dropped, and only [`ApiKey::expose`] gives the value, which only
/// the LLM client's Authorization header uses.
#[derive(Clone)]
pub struct ApiKey(SecretString);

impl ApiKey {
    /// Wraps a key, typically read by the caller from the environment variable config names.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(SecretString::from(key.into()))
    }

    /// The key itself, for the Authorization header.
    pub fn expose(&self) -> &str {
        self.0.expose_secret()
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

impl std::fmt::Display for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

/// Turning issues into a decision.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PolicyConfig {
    /// `"lenient"`, `"normal"` or `"strict"`; see [`Strictness`].
    pub strictness: Strictness,
}
