//! factgate's integration suite, in one test binary: each module was a file of its own, and
//! linking librdkafka, the HTTP stack and the service into each one cost minutes of CI and
//! gigabytes of disk. Select a module as a filter: `cargo test --test it pipeline::`.
//!
//! Three suites run in processes of their own, because they assert on process-wide state that
//! the others would move or take first: `tests/metrics.rs` (exact counts in the metrics
//! registry), `tests/otlp.rs` (the global tracer, whose exported spans it counts) and
//! `tests/kafka_secured.rs` (the global log subscriber, which must capture librdkafka's own
//! threads to show the password never reaches a log). The pure suites
//! (extraction, judging) are `factgate-core`'s, in `core/tests`, and link no Kafka at all.

#[path = "../support/mod.rs"]
mod support;

mod check;
mod claims;
mod cli_check;
mod cli_conventions;
mod cli_extract;
mod config;
mod dead_letter;
mod deploy;
mod docs;
mod documents;
mod e2e_tansu;
mod fairness;
mod fetch;
mod hostile;
mod http2;
mod join;
mod kafka;
mod kcat;
mod layering;
mod llm_judge;
mod llm_server;
mod overrides;
mod pipeline;
mod poison;
mod prometheus_live;
mod rebalance;
mod recheck;
mod schemas;
mod ssrf;
mod stall;
mod startup;
mod ui_browser;
