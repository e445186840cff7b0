//! What several integration test files share: a counting HTTP origin on 127.0.0.1, validators
//! for factgate's event schemas, an in-process pipeline starter and a chat-completions reply.
//! The integration suite (`tests/it`) uses all of it; `tests/metrics.rs` and `tests/otlp.rs`,
//! which run in processes of their own, include it for the pipeline starter alone.

pub mod llm;
pub mod origin;
pub mod pipeline;
pub mod schema;
pub mod tansu;
