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
//! The decisions are the `factgate_core` crate's, always written with its name so a path says
//! which side of the boundary it is on: [`factgate_core::model`], [`factgate_core::text`]
//! (text analysis for drafts and sources), [`factgate_core::events`] (the contracts),
//! [`factgate_core::fetched`] (what a fetch gave), [`factgate_core::extract`],
//! [`factgate_core::judge`], [`factgate_core::quorum`] (the LLM quorum's pure parts),
//! [`factgate_core::decide`], [`factgate_core::join`] and [`factgate_core::roles`] (what each
//! role decides). That crate has no async runtime, Kafka or HTTP
//! client. This crate does the I/O around it, in layers, lowest first (each uses only those
//! before it; `tests/it/layering.rs` holds it so):
//! - [`config`]: configuration from `config/factgate.toml` and `FACTGATE_…` overrides, validated.
//! - [`metrics`]: the Prometheus metric families and their label values.
//! - `internal_events`: one function per thing that happens, logging it and counting it.
//! - [`parse_pool`]: CPU-heavy parsing on blocking threads, one per core, stopped when its caller
//!   gives up.
//! - [`verify`]: fetches cited sources safely and runs one check: the judge, and the LLM quorum
//!   when configured.
//! - [`check`]: one article through extract, verify and decide in one process (`factgate check`).
//! - [`waivers`]: `factgate check`'s waivers: findings accepted in the draft or a waivers file.
//! - [`inputs`]: what `factgate check` reads: files, directories, globs, standard input; bodies
//!   and draft events.
//! - [`render`]: the reports of checked articles: text, JSON Lines, Markdown, JUnit, SARIF, GitHub
//!   Actions annotations, GitLab Code Quality, HTML.
//! - [`telemetry`]: logs and traces: the subscriber, OTLP export, and the W3C trace context.
//! - [`kafka`]: the Kafka plumbing: embedded broker, topics, producer and per-role consumers,
//!   trace and schema headers, at-least-once consumption.
//! - [`board`]: the newest decisions and drafts by article, that HTTP answers from, and the
//!   consumer that feeds them in.
//! - [`http`]: health, readiness, decisions, the editors' pages and metrics over HTTP.
//! - [`pipeline`]: the stream processor: the extract, verify and join roles' I/O loops on Kafka.
//! - [`recheck`]: `factgate recheck`: an archive checked again as one bounded, resumable run
//!   isolated by its run id, with progress, a summary and a diff against the live decisions.
//! - [`demo`]: the whole pipeline on the embedded broker with example drafts (`factgate demo`).
//! - [`cli`]: the command line's shell completions, man pages and exit statuses.
//! - [`commands`]: what each command does between its parsed arguments and its exit status
//!   (`src/main.rs` only parses and calls one).

#![cfg_attr(not(test), warn(clippy::too_many_lines))]

pub mod board;
pub mod check;
pub mod cli;
pub mod commands;
pub mod config;
pub mod demo;
pub mod fair;
pub mod http;
pub mod inputs;
pub(crate) mod internal_events;
pub mod kafka;
pub mod metrics;
pub mod parse_pool;
pub mod pipeline;
pub mod recheck;
pub mod render;
pub mod telemetry;
pub mod verify;
pub mod waivers;

#[cfg(target_os = "linux")]
#[doc(hidden)]
pub use tikv_jemallocator;

/// Makes jemalloc the allocator of the binary that invokes it (the `factgate` binary, and the
/// pipeline bench so its figures are the binary's), started with factgate's options.
///
/// - jemalloc returns freed pages to the system where glibc's per-thread arenas keep them: pages
///   are indexed on one thread and evicted on another (see docs/performance.md).
/// - Its options are read when it starts (`_RJEM_MALLOC_CONF` in the environment overrides
///   them): a background thread returns pages freed for a second to the system (muzzy pages at
///   once), so RSS follows what is held after a burst; jemalloc's default keeps them ten seconds.
/// - One arena (`narenas:1`) rather than jemalloc's four per CPU: each arena keeps its own
///   partly used and freed pages, and factgate has few threads that allocate, most of it served
///   by their thread caches. With 10,000 articles held and a full page cache, peak RSS was
///   281–286 MB against 298–309 MB with the default, at the same throughput within the noise
///   (docs/performance.md); the count does not grow with the CPUs a container sees.
#[macro_export]
macro_rules! use_jemalloc {
    () => {
        #[cfg(target_os = "linux")]
        #[global_allocator]
        static ALLOCATOR: $crate::tikv_jemallocator::Jemalloc = $crate::tikv_jemallocator::Jemalloc;

        #[cfg(target_os = "linux")]
        #[unsafe(export_name = "_rjem_malloc_conf")]
        #[used]
        static JEMALLOC_CONF: &[u8; 70] =
            b"background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0,narenas:1\0";
    };
}
