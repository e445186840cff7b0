//! Verification: fetch a cited source safely and judge a claim against it.
//!
//! - [`fetch`]: safe, polite, cached fetching of cited pages.
//! - [`judge`]: a claim against a source text: passages, figures, quotes, support score.
//! - [`llm`]: the optional adversarial LLM quorum.
//! - [`Verifier`]: one check, from fetch to claim result.

pub mod fetch;
pub mod llm;
mod verifier;

pub use verifier::Verifier;
