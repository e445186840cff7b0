//! The optional LLM judge: three adversarial voters on an OpenAI-compatible endpoint, and a
//! fail-closed quorum over their votes.
//!
//! The best few passages of the claim's source ([`passages`]) are cut to what the model's
//! context window leaves for them ([`budget`]); each voter ([`VoterRole`]) gets the claim, the
//! source URL and those passages, with its own system prompt ([`prompts`]), and must answer one
//! strict JSON object ([`quorum`] parses it). A voter whose request fails or whose answer is
//! invalid abstains, with the reason recorded; the quorum ([`quorum::decide`]) then gives
//! supported, refuted or inconclusive. The judge itself never fails: every fault becomes an
//! abstention, and abstentions can only lead away from supported.
//!
//! Requests in flight to the endpoint are bounded per process (`llm.max_concurrent_requests`):
//! a local server answers one or a few at a time, and a hosted one rate-limits. Each request is
//! bounded in time (`llm.timeout_ms`, from when it is sent) and in reply length
//! (`llm.max_reply_tokens`), so a slow, stalled or stopped server gives abstentions, never a
//! wait without end.
//!
//! - [`client`]: the chat-completions HTTP client.
//! - [`passages`]: which passages of the source the voters see.
//! - [`budget`](factgate_core::quorum::budget): the token estimate and the evidence cut to fit the context window.
//! - [`prompts`]: the voters' system prompts and the user message.
//! - [`quorum`]: reply parsing, votes and the quorum rule.

pub mod client;

use std::sync::Arc;
use std::time::Duration;

pub use crate::config::ApiKey;
use futures::future::join_all;
use tokio::sync::Semaphore;

pub use client::{ChatClient, CompletionError};
use factgate_core::quorum::budget;
use factgate_core::quorum::passages::{self, Lead};
use factgate_core::quorum::prompts::{self, VoterRole};
use factgate_core::quorum::votes::{self, QuorumOutcome, Vote, VoteOutcome};
use factgate_core::quorum::{
    DEFAULT_CONTEXT_TOKENS, DEFAULT_MAX_CONCURRENT_REQUESTS, DEFAULT_MAX_PASSAGES,
    DEFAULT_MAX_REPLY_TOKENS, DEFAULT_TIMEOUT, DEFAULT_VOTERS, min_context_tokens,
};

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
    /// Requests in flight to the endpoint at once, across every claim this judge (and its
    /// clones) checks. A request waiting for a slot is not yet timed by `timeout`.
    pub max_concurrent_requests: usize,
    /// The model's context window, in tokens (llama.cpp `--n_ctx`, vLLM `--max-model-len`,
    /// Ollama `num_ctx`): the prompt and the reply must fit in it.
    pub context_tokens: usize,
    /// The most tokens a reply may take, sent as `max_tokens`; a longer reply abstains.
    pub max_reply_tokens: usize,
    /// Evidence passages shown to the voters, best first, before the token budget cuts them.
    pub max_passages: usize,
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
            max_concurrent_requests: DEFAULT_MAX_CONCURRENT_REQUESTS,
            context_tokens: DEFAULT_CONTEXT_TOKENS,
            max_reply_tokens: DEFAULT_MAX_REPLY_TOKENS,
            max_passages: DEFAULT_MAX_PASSAGES,
        }
    }
}

impl crate::config::Config {
    /// The LLM quorum's settings, when `[llm]` is enabled; the key is read from the environment
    /// variable `llm.api_key_env` names.
    pub fn llm_settings(&self) -> Option<LlmSettings> {
        let l = &self.llm;
        if !l.enabled {
            return None;
        }
        // validate() guarantees both are present when enabled.
        let (base_url, model) = (l.base_url.clone()?, l.model.clone()?);
        let mut settings = LlmSettings::new(base_url, model);
        settings.api_key = l.api_key();
        settings.timeout = l.timeout();
        settings.voters = l.voters as usize;
        settings.max_concurrent_requests = l.max_concurrent_requests as usize;
        settings.context_tokens = l.context_tokens as usize;
        settings.max_reply_tokens = l.max_reply_tokens as usize;
        settings.max_passages = l.max_passages as usize;
        Some(settings)
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
    #[error("llm.max_concurrent_requests must be greater than zero")]
    ZeroConcurrency,
    #[error("llm.max_passages must be greater than zero")]
    ZeroPassages,
    #[error("llm.max_reply_tokens must be greater than zero")]
    ZeroReplyTokens,
    #[error(
        "llm.context_tokens is {0}: the voters' prompt, {min} tokens of evidence and a reply of \
         llm.max_reply_tokens need at least {1}",
        min = budget::MIN_EVIDENCE_TOKENS
    )]
    ContextTooSmall(usize, usize),
    #[error("cannot build the HTTP client")]
    Client(#[source] reqwest::Error),
}

/// The panel of voters on one endpoint. Clones share the client and the request slots.
#[derive(Debug, Clone)]
pub struct LlmJudge {
    client: ChatClient,
    settings: LlmSettings,
    /// One permit per request allowed in flight.
    slots: Arc<Semaphore>,
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
        if !(votes::VOTES_REQUIRED..=VoterRole::ALL.len()).contains(&settings.voters) {
            return Err(LlmError::InvalidVoters(settings.voters));
        }
        if settings.timeout.is_zero() {
            return Err(LlmError::ZeroTimeout);
        }
        if settings.max_concurrent_requests == 0 {
            return Err(LlmError::ZeroConcurrency);
        }
        if settings.max_passages == 0 {
            return Err(LlmError::ZeroPassages);
        }
        if settings.max_reply_tokens == 0 {
            return Err(LlmError::ZeroReplyTokens);
        }
        let min_context = min_context_tokens(settings.max_reply_tokens);
        if settings.context_tokens < min_context {
            return Err(LlmError::ContextTooSmall(
                settings.context_tokens,
                min_context,
            ));
        }
        let client = ChatClient::new(
            &settings.base_url,
            &settings.model,
            settings.api_key.clone(),
            settings.timeout,
            settings.max_reply_tokens,
        )
        .map_err(LlmError::Client)?;
        let slots = Arc::new(Semaphore::new(settings.max_concurrent_requests));
        Ok(LlmJudge {
            client,
            settings,
            slots,
        })
    }

    /// Picks the best passages of the page `page` for `claim` ([`passages::best_passages`], with
    /// the judge's own passage `lead` first) and runs [`LlmJudge::judge`] on them.
    pub async fn judge_source(
        &self,
        claim: &str,
        source_url: &str,
        page: &factgate_core::judge::PageIndex,
        lead: Option<Lead<'_>>,
    ) -> QuorumOutcome {
        let evidence = passages::best_passages(
            claim,
            page.text(),
            page.index(),
            lead,
            self.settings.max_passages,
        );
        self.judge(claim, source_url, &evidence).await
    }

    /// Runs the voters concurrently on one claim and applies the quorum.
    ///
    /// `evidence` holds the best passages from the source, best first; they are cut to what the
    /// context window leaves ([`budget::fit_evidence`]), the cut is recorded in the outcome, and
    /// each voter's quote is checked against what was sent. The time the whole panel took, waits
    /// for a request slot included, is observed in `factgate_llm_claim_duration_seconds`.
    pub async fn judge(&self, claim: &str, source_url: &str, evidence: &[String]) -> QuorumOutcome {
        let started = tokio::time::Instant::now();
        let budget = self
            .settings
            .context_tokens
            .saturating_sub(self.settings.max_reply_tokens)
            .saturating_sub(prompts::fixed_prompt_tokens(claim, source_url));
        let (user, sent, fit) = prompts::user_message(claim, source_url, evidence, budget);
        let roles = &VoterRole::ALL[..self.settings.voters];
        let votes = if budget < budget::MIN_EVIDENCE_TOKENS {
            // The claim itself fills the window: asking about a fragment of evidence, or none,
            // would be asking the wrong question.
            let reason = format!(
                "the prompt for this claim leaves {budget} tokens for evidence in \
                 llm.context_tokens ({}), under the {} needed",
                self.settings.context_tokens,
                budget::MIN_EVIDENCE_TOKENS
            );
            roles
                .iter()
                .map(|&voter| {
                    record(
                        voter,
                        VoteOutcome::Abstained {
                            reason: reason.clone(),
                        },
                    )
                })
                .collect()
        } else {
            if fit.is_cut() {
                crate::internal_events::llm_evidence_cut(&fit);
            }
            join_all(roles.iter().map(|&role| self.vote(role, &user, &sent))).await
        };
        let elapsed = started.elapsed();
        crate::internal_events::panel_decided(elapsed);
        QuorumOutcome {
            verdict: votes::decide(&votes),
            votes,
            evidence: fit,
            elapsed_ms: u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
        }
    }

    async fn vote(&self, voter: VoterRole, user: &str, evidence: &[String]) -> Vote {
        let result = match self.slots.acquire().await {
            // The permit is held until the reply is read.
            Ok(_permit) => match self.client.complete(&voter.system_prompt(), user).await {
                Ok(content) => votes::parse_reply(&content, evidence).map_err(|e| error_chain(&e)),
                Err(e) => Err(error_chain(&e)),
            },
            // The semaphore is never closed; were it, the vote would abstain, not wait.
            Err(_) => Err("no request slot".to_owned()),
        };
        let outcome = match result {
            Ok(reply) => VoteOutcome::Voted {
                verdict: reply.verdict,
                quote: reply.quote,
                // Free text from the endpoint: redacted like an abstention's reason.
                reason: self.redact(reply.reason),
            },
            Err(reason) => VoteOutcome::Abstained {
                reason: self.redact(reason),
            },
        };
        record(voter, outcome)
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

/// One voter's vote or abstention, logged and counted.
fn record(voter: VoterRole, outcome: VoteOutcome) -> Vote {
    crate::internal_events::vote_cast(voter, &outcome);
    Vote { voter, outcome }
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
        assert_eq!(format!("{:?}", ApiKey::new("sk-secret-123")), "[redacted]");
        assert_eq!(ApiKey::new("sk-secret-123").expose(), "sk-secret-123");
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
                    max_concurrent_requests: 0,
                    ..base.clone()
                },
                "llm.max_concurrent_requests",
            ),
            (
                LlmSettings {
                    max_passages: 0,
                    ..base.clone()
                },
                "llm.max_passages",
            ),
            (
                LlmSettings {
                    max_reply_tokens: 0,
                    ..base.clone()
                },
                "llm.max_reply_tokens",
            ),
            (
                LlmSettings {
                    context_tokens: 1024,
                    ..base.clone()
                },
                "llm.context_tokens",
            ),
            (
                LlmSettings {
                    max_reply_tokens: 4000,
                    ..base.clone()
                },
                "llm.context_tokens",
            ),
        ];
        for (settings, key) in cases {
            let err = LlmJudge::new(settings).expect_err("invalid settings accepted");
            assert!(err.to_string().contains(key), "{err} should name {key}");
        }
    }
}
