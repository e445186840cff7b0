//! A client for any OpenAI-compatible chat-completions endpoint.
//!
//! It sends one system and one user message with temperature 0, a reply length cap
//! (`max_tokens`) and asks for a JSON object (`response_format`); a server that ignores that
//! field is fine, since the reply is validated anyway. A reply that reaches the cap is cut off,
//! so it abstains. A server that rejects it answers with an HTTP error and the vote abstains: there is no
//! quiet retry with other settings (docs/failure-modes.md, F5).

use std::time::Duration;

use serde::Deserialize;

use super::ApiKey;

/// The most bytes read from one completion response; a reply is a few hundred bytes.
pub const MAX_RESPONSE_BYTES: usize = 1024 * 1024;

/// Why a completion request produced no usable message content.
///
/// Display never includes the API key: the key is only ever in the Authorization header, which
/// neither reqwest's errors nor these messages carry, and response bodies are not quoted.
#[derive(Debug, thiserror::Error)]
pub enum CompletionError {
    #[error("request timed out")]
    Timeout,
    #[error("request failed")]
    Transport(#[source] reqwest::Error),
    #[error("endpoint answered HTTP {0}")]
    Status(u16),
    #[error("response is larger than {MAX_RESPONSE_BYTES} bytes")]
    TooLarge,
    #[error("response is not a chat completion")]
    Envelope(#[source] serde_json::Error),
    #[error("response has no message content")]
    NoContent,
    #[error("reply was cut off at the token limit")]
    Truncated,
}

impl From<reqwest::Error> for CompletionError {
    fn from(err: reqwest::Error) -> Self {
        if err.is_timeout() {
            CompletionError::Timeout
        } else {
            CompletionError::Transport(err)
        }
    }
}

/// The parts of a chat completion this client reads; servers add many other fields, which are
/// ignored here (the strict schema applies to the voter's reply inside `content`).
#[derive(Deserialize)]
struct Completion {
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    message: Message,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    content: Option<String>,
}

/// A configured connection to one chat-completions endpoint.
#[derive(Debug, Clone)]
pub struct ChatClient {
    http: reqwest::Client,
    url: String,
    model: String,
    api_key: Option<ApiKey>,
    max_tokens: usize,
}

impl ChatClient {
    /// Builds a client for `{base_url}/chat/completions`.
    ///
    /// # Errors
    /// The reqwest error when the HTTP client cannot be built.
    pub fn new(
        base_url: &str,
        model: &str,
        api_key: Option<ApiKey>,
        timeout: Duration,
        max_tokens: usize,
    ) -> Result<Self, reqwest::Error> {
        let http = reqwest::Client::builder()
            .timeout(timeout)
            // An API endpoint has no business redirecting a POST; following one could carry
            // the prompt elsewhere.
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("factgate/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(ChatClient {
            http,
            url: format!("{}/chat/completions", base_url.trim_end_matches('/')),
            model: model.to_string(),
            api_key,
            max_tokens,
        })
    }

    /// Sends one completion request and returns the message content of its first choice.
    ///
    /// # Errors
    /// [`CompletionError`] for a timeout, a transport failure, a non-2xx status, an oversized or
    /// malformed response, a missing content or a reply cut off by the token limit.
    pub async fn complete(&self, system: &str, user: &str) -> Result<String, CompletionError> {
        let body = serde_json::json!({
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "temperature": 0,
            "max_tokens": self.max_tokens,
            "response_format": {"type": "json_object"},
        });
        let mut request = self.http.post(&self.url).json(&body);
        if let Some(key) = &self.api_key {
            // bearer_auth marks the header sensitive, so it is not printed by reqwest's Debug.
            request = request.bearer_auth(key.expose());
        }
        let mut response = request.send().await?;
        let status = response.status();
        if !status.is_success() {
            // The body is not read: an error page could echo the request, key included.
            return Err(CompletionError::Status(status.as_u16()));
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await? {
            if bytes.len() + chunk.len() > MAX_RESPONSE_BYTES {
                return Err(CompletionError::TooLarge);
            }
            bytes.extend_from_slice(&chunk);
        }
        let completion: Completion =
            serde_json::from_slice(&bytes).map_err(CompletionError::Envelope)?;
        let choice = completion
            .choices
            .into_iter()
            .next()
            .ok_or(CompletionError::NoContent)?;
        if choice.finish_reason.as_deref() == Some("length") {
            return Err(CompletionError::Truncated);
        }
        choice.message.content.ok_or(CompletionError::NoContent)
    }
}
