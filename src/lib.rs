//! factgate gates newsroom publishing on fact checks.
//!
//! A CMS publishes each draft to Kafka; factgate finds the draft's check-worthy claims, checks each
//! against the source it cites, and answers with one decision per draft revision: pass or block,
//! with a report an editor can act on. Anything short of a complete, clean check blocks.
//!
//! ```text
//!                  ┌────────── manifest (key: article) ───────────┐
//! drafts.published ─► extract ─► claims.verify ─► verify ─► claims.verified ─► join ─► decisions
//!  (key: article)       │         (key: source host)          (key: article)          (key: article)
//!                       └─► drafts.dlq (events that cannot be read)
//! ```
//!
//! # Layout
//! - [`model`]: the domain types every stage shares: claims, figures, citations, severities.
//! - [`events`]: the versioned event contracts (draft, verification request, claim result,
//!   manifest, decision) whose JSON Schemas live in `schemas/`.
//! - [`config`]: configuration from `config/factgate.toml` and `FACTGATE_…` overrides, validated.
//! - [`extract`]: turns a draft body (Markdown, HTML, text) into claims mapped to citations, and
//!   judges at once what needs no fetch. Pure: no I/O.
//! - [`markup`]: bounded HTML and Markdown parsing shared by drafts and sources: a linear
//!   nesting-depth scan before any tree is built, and a parse that stops when its time is up.
//! - [`decide`]: the policy (strictness) and the report: pass or block, and why.
//! - [`check`]: one article through extract, verify and decide in one process (`factgate check`).
//! - [`inputs`]: what `factgate check` reads: files, directories, globs, standard input; bodies
//!   and draft events.
//! - [`render`]: the reports of checked articles: text, JSON Lines, Markdown, JUnit, SARIF.
//! - [`progress`]: `factgate check`'s progress lines on stderr.
//! - [`http`]: health, readiness, decisions and metrics over HTTP.
//! - [`metrics`]: the Prometheus metric families and their label values.
//! - `internal_events`: one function per thing that happens, logging it and counting it.
//! - [`verify`]: fetches cited sources safely and judges each claim against its source.
//! - [`pipeline`]: the stream processor: the extract, verify and join roles on Kafka.
//! - [`recheck`]: `factgate recheck`: an archive checked again as one bounded, resumable run
//!   isolated by its run id, with progress, a summary and a diff against the live decisions.
//! - [`demo`]: the whole pipeline on the embedded broker with example drafts (`factgate demo`).
//! - [`join`]: gathers each article's manifest and results into one decision. Pure: no I/O.
//! - [`kafka`]: the Kafka plumbing: embedded broker, topics, producer and per-role consumers,
//!   trace and schema headers, at-least-once consumption.
//! - [`telemetry`]: logs and traces: the subscriber, OTLP export, and spans parented on the
//!   `traceparent` header.

pub use factgate_core::{
    decide, events, extract, fetched, join, judge, model, quorum, roles, text,
};

pub mod check;
pub mod config;
pub mod demo;
pub mod http;
pub mod inputs;
pub(crate) mod internal_events;
pub mod kafka;
pub mod metrics;
pub mod parse_pool;
pub mod pipeline;
pub mod progress;
pub mod recheck;
pub mod render;
pub mod telemetry;
pub mod verify;
