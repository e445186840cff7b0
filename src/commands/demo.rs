//! `factgate demo`: the whole pipeline on the embedded broker with example drafts.

use anyhow::Context;
use factgate_core::events::Outcome;
use std::io::Write;
use std::process::ExitCode;

/// Runs [`crate::demo::run`], printing a line per decision and a closing count.
///
/// # Errors
/// The demo did not complete; standard output cannot be written.
pub fn demo() -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let outcome = runtime.block_on(crate::demo::run(std::io::stdout()));
    runtime.shutdown_timeout(super::RUNTIME_SHUTDOWN);
    let decisions = outcome.context("the demo did not complete")?;
    let blocked = decisions
        .values()
        .filter(|d| d.outcome == Outcome::Block)
        .count();
    writeln!(
        std::io::stdout(),
        "{} drafts decided: {} passed, {} blocked",
        decisions.len(),
        decisions.len() - blocked,
        blocked
    )
    .context("writing to standard output")?;
    Ok(ExitCode::SUCCESS)
}
