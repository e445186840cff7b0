//! What several integration test files share: a counting HTTP origin on 127.0.0.1, validators
//! for factgate's event schemas, an in-process pipeline starter and a chat-completions reply.
//! The integration suite (`tests/it`) uses all of it; `tests/metrics.rs`, `tests/otlp.rs` and
//! `tests/kafka_secured.rs`, which run in processes of their own, include it for what they need.

pub mod cases;
pub mod llm;
pub mod origin;
pub mod pipeline;
pub mod process;
pub mod schema;
pub mod tansu;
