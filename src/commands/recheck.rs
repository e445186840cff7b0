//! `factgate recheck`: an archive checked again, with progress on standard error, the summary on
//! standard output and the per-article report in files.

use crate::cli::EXIT_BLOCK;
use crate::config::Config;
use crate::recheck::{
    self, ProgressDisplay, ProgressStyle, RecheckOptions, ReportFormat, RunReport,
};
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// What `factgate recheck` is asked to do (its command-line arguments).
#[derive(Debug, Clone, Default)]
pub struct Recheck {
    /// The run's id; a new one (the start time) is made and printed when `None`.
    pub run_id: Option<String>,
    /// Only drafts published at or after this time.
    pub since: Option<chrono::DateTime<chrono::Utc>>,
    /// Only drafts published before this time.
    pub until: Option<chrono::DateTime<chrono::Utc>>,
    /// Only these articles (empty: all).
    pub articles: Vec<String>,
    /// Only articles of these sections (empty: all).
    pub sections: Vec<String>,
    /// Report files; each one's format follows its extension.
    pub reports: Vec<PathBuf>,
    /// Checks in flight at once on this machine; derived from the configuration when `None`.
    pub max_in_flight_checks: Option<usize>,
    /// Where to serve Prometheus metrics, if anywhere.
    pub metrics_listen: Option<std::net::SocketAddr>,
    /// No progress on standard error.
    pub no_progress: bool,
    /// The live deployment's configuration file.
    pub config: Option<PathBuf>,
}

/// Runs the re-check `args` asks for: exit status 1 when an article that passed before is blocked
/// now, else 0.
///
/// # Errors
/// A report file of an unknown format, an invalid configuration or run id, a re-check that did not
/// complete (interrupted, or the brokers failing), a report or standard output that cannot be
/// written.
pub fn recheck(args: Recheck) -> anyhow::Result<ExitCode> {
    for path in &args.reports {
        ReportFormat::from_path(path).map_err(anyhow::Error::msg)?;
    }
    let config = Config::load(args.config.as_deref()).context("loading the configuration")?;
    let telemetry = crate::telemetry::init(&config).context("setting up logs and traces")?;
    let run_id = match args.run_id {
        Some(id) => id,
        None => {
            let id = format!("{}", chrono::Utc::now().format("%Y%m%dT%H%M%SZ"));
            eprintln!("factgate recheck: run id {id} (pass --run-id {id} to resume or share it)");
            id
        }
    };
    recheck::validate_run_id(&run_id).map_err(anyhow::Error::msg)?;
    let options = RecheckOptions {
        run_id: run_id.clone(),
        since: args.since,
        until: args.until,
        articles: args.articles,
        sections: args.sections,
        max_in_flight_checks: args.max_in_flight_checks,
    };
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let outcome = runtime.block_on(run_with_progress(
        &config,
        options,
        args.metrics_listen,
        args.no_progress,
    ));
    runtime.shutdown_timeout(super::RUNTIME_SHUTDOWN);
    telemetry.shutdown();
    let report = outcome?;
    for path in &args.reports {
        report.write_to(path).map_err(anyhow::Error::msg)?;
    }
    print_summary(&report, &args.reports).context("writing to standard output")?;
    Ok(if report.summary.newly_blocked() > 0 {
        ExitCode::from(EXIT_BLOCK)
    } else {
        ExitCode::SUCCESS
    })
}

/// The run itself, with its progress on standard error and its metrics served at
/// `metrics_listen` while it lasts.
async fn run_with_progress(
    config: &Config,
    options: RecheckOptions,
    metrics_listen: Option<std::net::SocketAddr>,
    no_progress: bool,
) -> anyhow::Result<RunReport> {
    let (stop_metrics, metrics_stopped) = tokio::sync::oneshot::channel::<()>();
    if let Some(addr) = metrics_listen {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("listening on {addr} for metrics"))?;
        tokio::spawn(recheck::serve_metrics(listener, async move {
            let _ = metrics_stopped.await;
        }));
    }
    let mut display = ProgressDisplay::new(
        std::io::stderr(),
        ProgressStyle::for_stderr(no_progress),
        &options.run_id,
    );
    let report = recheck::run(config, options, super::shutdown_signal(), |tally| {
        display.update(tally);
    })
    .await;
    display.finish();
    let _ = stop_metrics.send(());
    report.context("the re-check did not complete")
}

/// The run's summary on standard output: the counts, the new findings, the report files.
fn print_summary(report: &RunReport, reports: &[PathBuf]) -> std::io::Result<()> {
    let s = &report.summary;
    let change = |name: &str| s.changes.get(name).copied().unwrap_or(0);
    let mut stdout = std::io::stdout().lock();
    writeln!(
        stdout,
        "recheck {}: {} articles decided: {} passed, {} blocked; against the live decisions: \
         {} newly blocked, {} fixed, {} unchanged, {} with no live decision",
        report.run_id,
        s.decided,
        s.passed,
        s.blocked,
        change("newly_blocked"),
        change("fixed"),
        change("unchanged"),
        change("no_live_decision"),
    )?;
    if !s.new_findings.is_empty() {
        let kinds: Vec<String> = s
            .new_findings
            .iter()
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        writeln!(stdout, "new findings: {}", kinds.join(", "))?;
    }
    for path in reports {
        writeln!(stdout, "report: {}", path.display())?;
    }
    Ok(())
}
