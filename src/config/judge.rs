//! `[judge]`, `[credibility]`, `[llm]` and `[policy]`: how a claim is judged against its source and
//! how the issues found become a decision.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::error::Checks;

/// Default support score at or above which a claim counts as supported.
pub const DEFAULT_SUPPORT_THRESHOLD: f64 = 0.6;
/// Default support score below which a claim counts as refuted.
pub const DEFAULT_REFUTE_THRESHOLD: f64 = 0.3;
/// Default relative error of a figure up to which it counts as matching its source (10%).
pub const DEFAULT_FIGURE_TOLERANCE_LOW: f64 = 0.10;
/// Default relative error beyond which a figure is a high-severity error (20%).
pub const DEFAULT_FIGURE_TOLERANCE_HIGH: f64 = 0.20;
/// Default number of best-matching source passages the judge looks at.
pub const DEFAULT_MAX_PASSAGES: usize = 5;
/// Default domain suffixes of highly credible sources (after reference/fact-analyst-node.md:
/// government, education, international bodies, fact-checkers, wire services).
pub const DEFAULT_CREDIBILITY_HIGH: &[&str] = &[
    ".gov",
    ".edu",
    ".int",
    "apnews.com",
    "reuters.com",
    "snopes.com",
    "politifact.com",
    "factcheck.org",
];
/// Default domain suffixes of sources of low credibility (none: an operator fills this in).
pub const DEFAULT_CREDIBILITY_LOW: &[&str] = &[];
/// Default name of the environment variable holding the LLM API key.
pub const DEFAULT_LLM_API_KEY_ENV: &str = "FACTGATE_LLM_API_KEY";
/// Default time one LLM call may take, in milliseconds.
pub const DEFAULT_LLM_TIMEOUT_MS: u64 = 30_000;
/// Default number of adversarial LLM voters per claim.
pub const DEFAULT_LLM_VOTERS: u32 = 3;

/// Judging a claim against the passages of its source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JudgeConfig {
    /// Support score (0–1) at or above which a claim counts as supported.
    pub support_threshold: f64,
    /// Support score below which a claim counts as refuted; between the two it is inconclusive.
    /// A figure or quote that contradicts the source refutes whatever the score.
    pub refute_threshold: f64,
    /// Relative error of a figure up to which it matches its source; above it the error is
    /// medium severity.
    pub figure_tolerance_low: f64,
    /// Relative error above which a figure error is high severity.
    pub figure_tolerance_high: f64,
    /// Best-matching passages of the source the judge compares the claim with.
    pub max_passages: usize,
}

impl Default for JudgeConfig {
    fn default() -> Self {
        Self {
            support_threshold: DEFAULT_SUPPORT_THRESHOLD,
            refute_threshold: DEFAULT_REFUTE_THRESHOLD,
            figure_tolerance_low: DEFAULT_FIGURE_TOLERANCE_LOW,
            figure_tolerance_high: DEFAULT_FIGURE_TOLERANCE_HIGH,
            max_passages: DEFAULT_MAX_PASSAGES,
        }
    }
}

impl JudgeConfig {
    pub(crate) fn check(&self, checks: &mut Checks) {
        checks.unit_interval("judge.support_threshold", self.support_threshold);
        checks.unit_interval("judge.refute_threshold", self.refute_threshold);
        if !strictly_below(self.refute_threshold, self.support_threshold) {
            checks.fail(
                "judge.refute_threshold",
                format!(
                    "judge.refute_threshold ({}) must be below judge.support_threshold ({})",
                    self.refute_threshold, self.support_threshold
                ),
            );
        }
        checks.unit_interval("judge.figure_tolerance_low", self.figure_tolerance_low);
        checks.unit_interval("judge.figure_tolerance_high", self.figure_tolerance_high);
        if !strictly_below(self.figure_tolerance_low, self.figure_tolerance_high) {
            checks.fail(
                "judge.figure_tolerance_low",
                format!(
                    "judge.figure_tolerance_low ({}) must be below judge.figure_tolerance_high ({})",
                    self.figure_tolerance_low, self.figure_tolerance_high
                ),
            );
        }
        checks.nonzero("judge.max_passages", self.max_passages as u64);
    }
}

/// `a < b`, false when either is NaN (so a NaN fails the check instead of slipping through).
fn strictly_below(a: f64, b: f64) -> bool {
    a.partial_cmp(&b) == Some(std::cmp::Ordering::Less)
}

/// How credible a source is, by its domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CredibilityTier {
    /// Listed in `credibility.high`.
    High,
    /// Listed in neither list.
    Medium,
    /// Listed in `credibility.low`.
    Low,
}

/// Source credibility by domain suffix. A suffix starting with a dot (`.gov`) matches any host
/// under it (`cdc.gov`); one without (`reuters.com`) matches that domain and its subdomains
/// (`www.reuters.com`), never a longer name (`notreuters.com`). When both lists match, the
/// longest suffix wins, so `blog.example.gov` can be low under a high `.gov`. Hosts in neither
/// list are medium.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CredibilityConfig {
    /// Domain suffixes of highly credible sources.
    pub high: Vec<String>,
    /// Domain suffixes of sources of low credibility.
    pub low: Vec<String>,
}

impl Default for CredibilityConfig {
    fn default() -> Self {
        Self {
            high: DEFAULT_CREDIBILITY_HIGH
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
            low: DEFAULT_CREDIBILITY_LOW
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
        }
    }
}

impl CredibilityConfig {
    /// The tier of a host name (case and a trailing dot are ignored).
    pub fn tier(&self, host: &str) -> CredibilityTier {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let longest = |list: &[String]| {
            list.iter()
                .filter(|suffix| suffix_matches(suffix, &host))
                .map(|suffix| suffix.trim_start_matches('.').len())
                .max()
        };
        match (longest(&self.high), longest(&self.low)) {
            (None, None) => CredibilityTier::Medium,
            (Some(_), None) => CredibilityTier::High,
            (None, Some(_)) => CredibilityTier::Low,
            (Some(high), Some(low)) if high > low => CredibilityTier::High,
            // Equal lengths cannot happen (validate rejects a suffix in both lists); a tie would
            // be resolved toward caution.
            (Some(_), Some(_)) => CredibilityTier::Low,
        }
    }

    pub(crate) fn check(&self, checks: &mut Checks) {
        for (list_name, list) in [("high", &self.high), ("low", &self.low)] {
            for (i, suffix) in list.iter().enumerate() {
                if !is_domain_suffix(suffix) {
                    let key = format!("credibility.{list_name}[{i}]");
                    checks.fail(
                        &key,
                        format!(
                            "{key} ({suffix:?}) must be a lowercase domain suffix such as \
                             \".gov\" or \"reuters.com\""
                        ),
                    );
                }
            }
        }
        for (i, suffix) in self.low.iter().enumerate() {
            let bare = suffix.trim_start_matches('.');
            if self.high.iter().any(|h| h.trim_start_matches('.') == bare) {
                let key = format!("credibility.low[{i}]");
                checks.fail(
                    &key,
                    format!("{key} ({suffix:?}) is also listed in credibility.high"),
                );
            }
        }
    }
}

fn suffix_matches(suffix: &str, host: &str) -> bool {
    let bare = suffix.trim_start_matches('.');
    if suffix.starts_with('.') {
        host.strip_suffix(bare)
            .is_some_and(|rest| rest.ends_with('.'))
    } else {
        host == bare
            || host
                .strip_suffix(bare)
                .is_some_and(|rest| rest.ends_with('.'))
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
            .map(ApiKey)
    }

    pub(crate) fn check(&self, checks: &mut Checks) {
        let blank = |v: &Option<String>| v.as_deref().is_none_or(|s| s.trim().is_empty());
        if self.enabled && (blank(&self.base_url) || blank(&self.model)) {
            checks.fail(
                "llm.enabled",
                "llm.enabled requires llm.base_url and llm.model",
            );
        }
        if let Some(url) = &self.base_url {
            checks.http_url("llm.base_url", url);
        }
        // The message does not repeat the value: someone may have pasted the key itself here.
        if !is_env_var_name(&self.api_key_env) {
            checks.fail(
                "llm.api_key_env",
                "llm.api_key_env must be the NAME of an environment variable (letters, digits \
                 and '_', e.g. FACTGATE_LLM_API_KEY), not the key itself",
            );
        }
        checks.nonzero("llm.timeout_ms", self.timeout_ms);
        if self.voters < 2 {
            checks.fail(
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

/// An LLM API key read from the environment. Its `Debug` and `Display` are redacted, so it can sit
/// in structs that are logged; call [`ApiKey::expose`] only to put it in a request header.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// The key itself, for the `Authorization` header and nothing else.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// How strictly the issues found in an article become a block (reference/fact-checker-agent-spec.md).
///
/// Whatever the strictness, an article that could not be checked completely (unreadable draft,
/// extraction error, deadline passed, internal error) is blocked: strictness weighs issues, it
/// never passes a check that did not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strictness {
    /// Block on any high issue, or on three or more medium issues (the spec's pass/fail
    /// criteria).
    Lenient,
    /// Block on any high or medium issue (the spec's final answer). The default.
    #[default]
    Normal,
    /// Block on any issue at all, low included, and on any claim judged inconclusive.
    Strict,
}

/// Turning issues into a decision.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PolicyConfig {
    /// `"lenient"`, `"normal"` or `"strict"`; see [`Strictness`].
    pub strictness: Strictness,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_key_is_redacted() {
        let key = ApiKey("sk-very-secret".into());
        assert!(!format!("{key:?}").contains("secret"));
        assert!(!format!("{key}").contains("secret"));
        assert_eq!(key.expose(), "sk-very-secret");
    }
}
