//! What each `factgate` command does, between its parsed arguments and its exit status: the
//! binary (`src/main.rs`) parses the command line and calls one of these, so the commands are
//! library code any test or embedding program can call.
//!
//! - [`extract()`]: `factgate extract`, an article's check-worthy claims as JSON.
//! - [`run()`]: `factgate run`, the stream processor until Ctrl-C or SIGTERM.
//! - [`demo()`]: `factgate demo`, the whole pipeline on example drafts.
//! - [`recheck()`]: `factgate recheck`, an archive checked again.
//! - [`config_check`]: `factgate config check`, a configuration validated and printed.
//!
//! `factgate check` is [`crate::check::run`]; completions and man pages are [`crate::cli`]'s.

mod config;
mod demo;
mod extract;
mod recheck;
mod run;

pub use config::config_check;
pub use demo::demo;
pub use extract::extract;
pub use recheck::{Recheck, recheck};
pub use run::run;

/// How long blocking work (closing Kafka clients) may hold up the exit.
const RUNTIME_SHUTDOWN: std::time::Duration = std::time::Duration::from_secs(15);

/// Whether `err` is a write to a closed pipe: the reader (`head`, `grep -q`) is done, which is
/// not a failure.
#[must_use]
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    // From here brokers going away is the stop's doing, not an error.
    crate::internal_events::stopping();
}
