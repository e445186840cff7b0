//! What several integration test files share: a counting HTTP origin on 127.0.0.1, validators
//! for factgate's event schemas, an in-process pipeline starter and a chat-completions reply.
//! Each test file includes it with `mod support;` and uses what it needs, hence the allowance
//! for unused items.

#![allow(dead_code)]

pub mod llm;
pub mod origin;
pub mod pipeline;
pub mod schema;
pub mod tansu;
