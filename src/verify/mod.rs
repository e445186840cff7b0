//! Verification: fetch a cited source safely and judge a claim against it.

pub mod fetch;
pub mod judge;
pub mod llm;
