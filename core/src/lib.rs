//! factgate's core: everything the service decides, as pure functions over plain data.
//!
//! No async runtime, no Kafka client, no HTTP client, no clock of its own (time comes in as an
//! argument): the `factgate` crate does the I/O around it, in loops that read, call into this
//! crate, and write.
//!
//! # Layout, lowest layer first
//! - [`model`]: the domain types every stage shares: claims, figures, citations, severities.
//! - [`text`]: text analysis for drafts and sources alike: documents (Markdown, HTML, text),
//!   fetched pages, the shared HTML element table, citations, sentences, figures, word lists and
//!   bounded markup parsing.
//! - [`events`]: the versioned event contracts (draft, verification request, claim result,
//!   manifest, decision) whose JSON Schemas live in `schemas/`.
//! - [`fetched`]: what fetching a cited source gave: a page, a dead or refused link, an error,
//!   and the low-cardinality class logs and metrics name it by.
//! - [`extract`]: a draft body into claims mapped to citations, and what needs no fetch judged.
//! - [`judge`]: one claim against the text of the source it cites.
//! - [`quorum`]: the LLM quorum's passages, prompt budget, prompts and vote rule.
//! - [`decide`]: the policy (strictness) and the report: pass or block, and why.
//! - [`join`]: each article's manifest and results gathered into one decision.
//! - [`roles`]: what each stream-processing role does with what it reads: the plan for a draft,
//!   the result of a check that failed, whether a decision may replace another.
//!
//! Each module uses only the ones listed above it. [`test_support`] (tests only: the core's own,
//! and the service's through the `test-support` feature) holds the builders both share.

#![cfg_attr(not(test), warn(clippy::too_many_lines))]

pub mod decide;
pub mod events;
pub mod extract;
pub mod fetched;
pub mod join;
pub mod judge;
pub mod model;
pub mod quorum;
pub mod roles;
#[cfg(any(test, feature = "test-support"))]
pub mod test_support;
pub mod text;
