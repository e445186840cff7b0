//! The optional LLM judge: three adversarial voters on an OpenAI-compatible endpoint, and a
//! fail-closed quorum over their votes.
//!
//! The caller retrieves the best evidence passages for a claim from its source and hands them in;
//! each voter ([`VoterRole`]) gets the claim, the source URL and those passages, with its own
//! system prompt ([`prompts`]), and must answer one strict JSON object ([`quorum`] parses it). A
//! voter whose request fails or whose answer is invalid abstains, with the reason recorded; the
//! quorum ([`quorum::decide`]) then gives supported, refuted or inconclusive. The judge itself
//! never fails: every fault becomes an abstention, and abstentions can only lead away from
//! supported.
//!
//! - [`client`]: the chat-completions HTTP client.
//! - [`prompts`]: the voters' system prompts and the user message.
//! - [`quorum`]: reply parsing, votes and the quorum rule.

pub mod client;
pub mod prompts;
pub mod quorum;

use std::time::Duration;

use futures::future::join_all;

pub use client::{ChatClient, CompletionError};
pub use prompts::VoterRole;
pub use quorum::{QuorumOutcome, Vote, VoteOutcome, VoterVerdict};

/// Voters per claim, as in reference/fact-check-quorum-skill.md.
pub const DEFAULT_VOTERS: usize = 3;
/// Time allowed for one voter's request, connection to last byte.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Evidence characters sent to each voter, across all passages.
pub const DEFAULT_MAX_EVIDENCE_CHARS: usize = 6000;

/// An API key. Debug and Display print `[redacted]`; only [`ApiKey::expose`] gives the value,
/// and only the client's Authorization header uses it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key, typically read by the caller from the environment variable config names.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    /// The key itself, for the Authorization header.
    pub fn expose(&self) -> &str {
        &self.0
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

/// How to reach the endpoint and how to run the panel.
#[derive(Debug, Clone)]
pub struct LlmSettings {
    /// Up to but not including `/chat/completions`: `https://api.example.com/v1`.
    pub base_url: String,
    pub model: String,
    /// Sent as `Authorization: Bearer …` when set; local servers often need none.
    pub api_key: Option<ApiKey>,
    /// Per voter request.
    pub timeout: Duration,
    /// How many of the distinct voters to run: 2 or 3 (3 by default).
    pub voters: usize,
    /// Evidence budget per voter, in characters, best passages first.
    pub max_evidence_chars: usize,
}

impl LlmSettings {
    /// Settings with the defaults above for an endpoint and model.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        LlmSettings {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            timeout: DEFAULT_TIMEOUT,
            voters: DEFAULT_VOTERS,
            max_evidence_chars: DEFAULT_MAX_EVIDENCE_CHARS,
        }
    }
}

/// Settings the judge cannot run with.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("llm.base_url {0:?} is not an http(s) URL")]
    InvalidBaseUrl(String),
    #[error("llm.model is empty")]
    EmptyModel,
    #[error(
        "llm.voters is {0}: it must be 2 or 3, since a quorum needs 2 agreeing votes and there are 3 distinct voters"
    )]
    InvalidVoters(usize),
    #[error("llm.timeout must be greater than zero")]
    ZeroTimeout,
    #[error("llm.max_evidence_chars must be greater than zero")]
    ZeroEvidence,
    #[error("cannot build the HTTP client")]
    Client(#[source] reqwest::Error),
}

/// The panel of voters on one endpoint.
#[derive(Debug, Clone)]
pub struct LlmJudge {
    client: ChatClient,
    settings: LlmSettings,
}

impl LlmJudge {
    /// Validates the settings and builds the client.
    ///
    /// # Errors
    /// [`LlmError`] naming the config key at fault, or the client build failure.
    pub fn new(settings: LlmSettings) -> Result<Self, LlmError> {
        let scheme_ok = url::Url::parse(&settings.base_url)
            .map(|u| matches!(u.scheme(), "http" | "https"))
            .unwrap_or(false);
        if !scheme_ok {
            return Err(LlmError::InvalidBaseUrl(settings.base_url.clone()));
        }
        if settings.model.trim().is_empty() {
            return Err(LlmError::EmptyModel);
        }
        if !(quorum::VOTES_REQUIRED..=VoterRole::ALL.len()).contains(&settings.voters) {
            return Err(LlmError::InvalidVoters(settings.voters));
        }
        if settings.timeout.is_zero() {
            return Err(LlmError::ZeroTimeout);
        }
        if settings.max_evidence_chars == 0 {
            return Err(LlmError::ZeroEvidence);
        }
        let client = ChatClient::new(
            &settings.base_url,
            &settings.model,
            settings.api_key.clone(),
            settings.timeout,
        )
        .map_err(LlmError::Client)?;
        Ok(LlmJudge { client, settings })
    }

    /// Runs the voters concurrently on one claim and applies the quorum.
    ///
    /// `evidence` holds the best passages from the source, best first; they are cut to
    /// `max_evidence_chars` and each voter's quote is checked against what was sent.
    pub async fn judge(&self, claim: &str, source_url: &str, evidence: &[String]) -> QuorumOutcome {
        let (user, sent) = prompts::user_message(
            claim,
            source_url,
            evidence,
            self.settings.max_evidence_chars,
        );
        let roles = &VoterRole::ALL[..self.settings.voters];
        let votes = join_all(roles.iter().map(|&role| self.vote(role, &user, &sent))).await;
        QuorumOutcome {
            verdict: quorum::decide(&votes),
            votes,
        }
    }

    async fn vote(&self, voter: VoterRole, user: &str, evidence: &[String]) -> Vote {
        let result = match self.client.complete(&voter.system_prompt(), user).await {
            Ok(content) => quorum::parse_reply(&content, evidence).map_err(|e| error_chain(&e)),
            Err(e) => Err(error_chain(&e)),
        };
        let outcome = match result {
            Ok(reply) => VoteOutcome::Voted {
                verdict: reply.verdict,
                quote: reply.quote,
                // Free text from the endpoint: redacted like an abstention's reason.
                reason: self.redact(reply.reason),
            },
            Err(reason) => {
                let reason = self.redact(reason);
                tracing::warn!(voter = %voter, reason = %reason, "llm voter abstained");
                VoteOutcome::Abstained { reason }
            }
        };
        let vote = crate::metrics::vote(&outcome);
        crate::metrics::metrics()
            .llm_votes
            .with_label_values(&[voter.as_str(), vote])
            .inc();
        if let VoteOutcome::Voted { .. } = outcome {
            tracing::debug!(voter = %voter, vote, "llm voter voted");
        }
        Vote { voter, outcome }
    }

    /// Removes the key from a reason. The errors are built not to contain it; this also covers a
    /// server that echoes the key into a field a parse error quotes.
    fn redact(&self, reason: String) -> String {
        match &self.settings.api_key {
            Some(key) if !key.expose().is_empty() => reason.replace(key.expose(), "[redacted]"),
            _ => reason,
        }
    }
}

/// An error and its causes on one line, "outer: inner: innermost".
fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_redacted_in_debug_and_display() {
        let mut settings = LlmSettings::new("http://127.0.0.1:9/v1", "m");
        settings.api_key = Some(ApiKey::new("sk-secret-123"));
        assert!(!format!("{settings:?}").contains("sk-secret-123"));
        assert_eq!(ApiKey::new("sk-secret-123").to_string(), "[redacted]");
        let judge = LlmJudge::new(settings).expect("valid settings");
        assert!(!format!("{judge:?}").contains("sk-secret-123"));
    }

    #[test]
    fn invalid_settings_are_rejected_naming_the_key() {
        let base = LlmSettings::new("http://127.0.0.1:9/v1", "m");
        let cases: Vec<(LlmSettings, &str)> = vec![
            (
                LlmSettings {
                    base_url: "ftp://x/v1".into(),
                    ..base.clone()
                },
                "llm.base_url",
            ),
            (
                LlmSettings {
                    base_url: "not a url".into(),
                    ..base.clone()
                },
                "llm.base_url",
            ),
            (
                LlmSettings {
                    model: " ".into(),
                    ..base.clone()
                },
                "llm.model",
            ),
            (
                LlmSettings {
                    voters: 1,
                    ..base.clone()
                },
                "llm.voters",
            ),
            (
                LlmSettings {
                    voters: 4,
                    ..base.clone()
                },
                "llm.voters",
            ),
            (
                LlmSettings {
                    timeout: Duration::ZERO,
                    ..base.clone()
                },
                "llm.timeout",
            ),
            (
                LlmSettings {
                    max_evidence_chars: 0,
                    ..base.clone()
                },
                "llm.max_evidence_chars",
            ),
        ];
        for (settings, key) in cases {
            let err = LlmJudge::new(settings).expect_err("invalid settings accepted");
            assert!(err.to_string().contains(key), "{err} should name {key}");
        }
    }
}
