//! What several integration test files share: a counting HTTP origin on 127.0.0.1, and validators
//! for factgate's event schemas. Each test file includes it with `mod support;` and uses what it
//! needs, hence the allowance for unused items.

#![allow(dead_code)]

pub mod origin;
pub mod pipeline;
pub mod schema;
