//! The reply of an OpenAI-compatible chat-completions endpoint, for the local endpoints the LLM
//! judge is tested against.

use serde_json::{Value, json};

/// A `chat.completion` response for `model` whose one choice says `content`.
pub fn chat_completion(model: &Value, content: &str) -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": model,
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": "stop"
        }],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    })
}
