//! The `factgate` command: parses the command line and calls into the library.

#![cfg_attr(not(test), warn(clippy::too_many_lines))]

use anyhow::Context;
use clap::{CommandFactory, Parser, Subcommand};
use factgate::check::progress::Verbosity;
use factgate::cli::{EXIT_BLOCK, EXIT_ERROR};
use factgate::config::Config;
use factgate::pipeline::Role;
use factgate::render::Format;
use factgate_core::decide::Strictness;
use factgate_core::events::Outcome;
use factgate_core::extract::{self, Extraction};
use factgate_core::model::BodyFormat;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

factgate::use_jemalloc!();

/// factgate gates newsroom publishing on fact checks.
#[derive(Debug, Parser)]
#[command(name = "factgate", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the check-worthy claims of an article as JSON.
    ///
    /// Exit status: 0 when the article was read (even with no claims), 2 when it could not be.
    Extract {
        /// The article to read, or `-` for standard input.
        file: PathBuf,
        /// The body format: markdown, html or text; detected from the content when absent.
        #[arg(long = "input-format", alias = "format", value_parser = parse_format)]
        format: Option<BodyFormat>,
        /// Print compact JSON on one line instead of indented JSON.
        #[arg(long)]
        compact: bool,
    },
    /// Check articles in one process: extract their claims, verify each against its cited
    /// sources, and decide. For CI and batch use: many inputs, reports CI systems read, progress
    /// on stderr.
    ///
    /// Exit status: 0 when every article passes, 1 when any is blocked, 2 on an error (an input
    /// that cannot be read, an invalid configuration).
    Check(CheckArgs),
    /// Run the stream processor: the roles on Kafka, and the HTTP endpoint.
    ///
    /// With no `kafka.bootstrap_servers` configured, an embedded Kafka-protocol broker is started
    /// in this process and its bootstrap address printed, so any Kafka client can produce drafts
    /// to it and read decisions. Stops on Ctrl-C or SIGTERM; work in flight is done again on the
    /// next start.
    Run {
        /// Roles to run, comma-separated: extract, verify, join.
        #[arg(long, value_delimiter = ',', default_value = "extract,verify,join")]
        roles: Vec<Role>,
        /// Configuration file; `FACTGATE_…` environment variables override it.
        #[arg(long, short, env = "FACTGATE_CONFIG")]
        config: Option<PathBuf>,
        /// Do not serve the HTTP endpoint.
        #[arg(long)]
        no_http: bool,
    },
    /// Run the whole pipeline on the embedded broker with example drafts and a local origin
    /// serving their sources, and print one line per decision.
    Demo,
    /// Re-check an archive: the latest revision of each article on the drafts topic (as it is
    /// when the run starts, or within --since/--until, --articles, --sections), checked again
    /// beside the live deployment, then compared with each article's latest live decision.
    ///
    /// Several machines with the same --run-id share the work; a run started again with its id
    /// resumes where it stopped. Progress goes to standard error, the summary to standard
    /// output, the per-article report to --report files.
    ///
    /// Exit status: 0 when no article that passed before is blocked now, 1 when any is, 2 on an
    /// error or an interruption (resume with the same --run-id).
    Recheck(RecheckArgs),
    /// Work with configuration files.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Print a shell completion script for factgate on standard output.
    ///
    /// bash: `factgate completions bash > ~/.local/share/bash-completion/completions/factgate`;
    /// zsh: into a directory on `$fpath` as `_factgate`; fish: `~/.config/fish/completions/factgate.fish`.
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print factgate's man page (roff) on standard output, or write one page per command into a
    /// directory.
    Man {
        /// Write factgate.1 and a page per command (factgate-check.1, …) into this directory.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// `factgate config …`.
#[derive(Debug, Subcommand)]
enum ConfigCommand {
    /// Validate a configuration (the file, then the `FACTGATE_…` environment overrides, as `run`
    /// reads them) and print every setting in force as TOML, secrets redacted.
    ///
    /// Exit status: 0 when the configuration is valid, 2 when it is not (each problem named on
    /// standard error).
    Check {
        /// The configuration file; the defaults alone when absent.
        #[arg(env = "FACTGATE_CONFIG")]
        file: Option<PathBuf>,
    },
}

/// `factgate recheck`'s arguments.
#[derive(Debug, clap::Args)]
struct RecheckArgs {
    /// The run's id (letters, digits, '.', '_', '-'): the same id on several machines shares
    /// the work, and resumes an interrupted run. A new id is made and printed when absent.
    #[arg(long)]
    run_id: Option<String>,
    /// Only drafts published at or after this time (RFC 3339, e.g. 2026-01-01T00:00:00Z).
    #[arg(long, value_parser = parse_time)]
    since: Option<chrono::DateTime<chrono::Utc>>,
    /// Only drafts published before this time (RFC 3339).
    #[arg(long, value_parser = parse_time)]
    until: Option<chrono::DateTime<chrono::Utc>>,
    /// Only these articles (ids, comma-separated).
    #[arg(long, value_delimiter = ',')]
    articles: Vec<String>,
    /// Only articles of these sections (comma-separated; case does not matter).
    #[arg(long, value_delimiter = ',')]
    sections: Vec<String>,
    /// Write the report here; the format follows the extension: .json, .csv or .md. Repeat for
    /// several formats.
    #[arg(long, value_name = "FILE")]
    report: Vec<PathBuf>,
    /// Checks (claim, source) in flight at once on this machine; by default what
    /// fetch.per_host_requests_per_second serves in half of join.deadline_ms.
    #[arg(long)]
    max_in_flight_checks: Option<usize>,
    /// Serve Prometheus metrics (labelled with the run id) at http://ADDR/metrics.
    #[arg(long, value_name = "ADDR")]
    metrics_listen: Option<std::net::SocketAddr>,
    /// No progress on standard error.
    #[arg(long)]
    no_progress: bool,
    /// Configuration file (the live deployment's); `FACTGATE_…` environment variables override it.
    #[arg(long, short, env = "FACTGATE_CONFIG")]
    config: Option<PathBuf>,
}

fn parse_time(s: &str) -> Result<chrono::DateTime<chrono::Utc>, String> {
    chrono::DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&chrono::Utc))
        .map_err(|e| format!("{s:?} is not an RFC 3339 time (2026-01-01T00:00:00Z): {e}"))
}

/// `factgate check`'s arguments.
#[derive(Debug, clap::Args)]
struct CheckArgs {
    /// Articles: files, directories (their .md, .html, .txt and .json files, recursively), glob
    /// patterns, or `-` for standard input. A .json or .jsonl file, or standard input, holding
    /// JSON is read as `factgate.draft.v1` draft events (one object, an array, or JSON Lines as
    /// `kcat` prints them).
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<String>,
    /// The body format of articles that are not draft events: markdown, html or text; detected
    /// from the content when absent.
    #[arg(long, value_parser = parse_format)]
    input_format: Option<BodyFormat>,
    /// The report: text; json (decision events, one per line); markdown; junit; sarif; github
    /// (GitHub Actions annotations at each claim's line and column); gitlab (a GitLab Code Quality
    /// report); html (a web page per article; with several articles an index page at --output and
    /// the articles' pages in a folder beside it named after it).
    #[arg(long, short, default_value = "text", value_parser = ReportFormatParser)]
    format: Format,
    /// Same as `--format json`.
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// The name of the article read from standard input (`-`) in reports and progress, as a path
    /// (claims are then located by line and column in it): for content piped from elsewhere.
    #[arg(long, value_name = "NAME")]
    stdin_name: Option<String>,
    /// Write the report to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Configuration file; `FACTGATE_…` environment variables override it.
    #[arg(long, short, env = "FACTGATE_CONFIG")]
    config: Option<PathBuf>,
    /// Override `policy.strictness`: lenient, normal or strict.
    #[arg(long)]
    strictness: Option<Strictness>,
    /// The report of an earlier check (`--format json`): each article's report then says what
    /// changed since, matched by article id (or, when one article is checked and the file holds
    /// one decision, with it).
    #[arg(long, value_name = "REPORT.json")]
    previous: Option<PathBuf>,
    /// A waivers file (TOML): findings the newsroom has checked and accepts, each naming the
    /// finding, the claim and the reason. Waived findings are listed as waived in every format
    /// and no longer block. Inline waivers in a draft (`<!-- factgate-waive TYPE: reason -->`)
    /// need no file.
    #[arg(long, value_name = "WAIVERS.toml")]
    waivers: Option<PathBuf>,
    /// Print nothing on standard error but errors (no progress, no summary, only error logs).
    #[arg(long, short, conflicts_with = "verbose")]
    quiet: bool,
    /// Also print each check's reason in the progress.
    #[arg(long, short)]
    verbose: bool,
    /// No progress lines on standard error; the closing summary stays.
    #[arg(long)]
    no_progress: bool,
}

impl CheckArgs {
    /// The batch the arguments ask for.
    fn into_batch(self) -> factgate::check::Batch {
        let verbosity = if self.quiet {
            Verbosity::Quiet
        } else if self.no_progress {
            Verbosity::Summary
        } else if self.verbose {
            Verbosity::Verbose
        } else {
            Verbosity::Normal
        };
        factgate::check::Batch {
            inputs: self.inputs,
            input_format: self.input_format,
            format: if self.json { Format::Json } else { self.format },
            stdin_name: self.stdin_name,
            output: self.output,
            config: self.config,
            strictness: self.strictness,
            previous: self.previous,
            waivers: self.waivers,
            verbosity,
        }
    }
}

fn parse_format(s: &str) -> Result<BodyFormat, String> {
    s.parse()
}

/// `--format`: [`parse_report_format`], with the formats' names for `--help` and completions.
#[derive(Clone)]
struct ReportFormatParser;

impl clap::builder::TypedValueParser for ReportFormatParser {
    type Value = Format;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Format, clap::Error> {
        let text = value.to_string_lossy();
        parse_report_format(&text).map_err(|message| {
            let name = arg.map_or_else(|| "--format".to_owned(), ToString::to_string);
            clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("invalid value '{text}' for '{name}': {message}\n"),
            )
            .with_cmd(cmd)
        })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            Format::ALL
                .into_iter()
                .map(|f| clap::builder::PossibleValue::new(f.as_str())),
        ))
    }
}

fn parse_report_format(s: &str) -> Result<Format, String> {
    s.parse::<Format>().map_err(|err| {
        if s.parse::<BodyFormat>().is_ok() && s != "markdown" {
            format!("{err}; the body format is --input-format {s}")
        } else {
            err
        }
    })
}

fn main() -> ExitCode {
    match try_main(Cli::parse()) {
        Ok(code) => code,
        // `factgate check … | head`: the reader has what it wanted.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("factgate: error: {err:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// Runs the command the line asks for; its exit status, or the error that stopped it.
fn try_main(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Extract {
            file,
            format,
            compact,
        } => run_extract(&file, format, compact),
        Command::Check(args) => factgate::check::run(&args.into_batch()),
        Command::Run {
            roles,
            config,
            no_http,
        } => run_pipeline(&roles, config.as_deref(), !no_http),
        Command::Demo => run_demo(),
        Command::Recheck(args) => run_recheck(args),
        Command::Config(ConfigCommand::Check { file }) => run_config_check(file.as_deref()),
        Command::Completions { shell } => {
            factgate::cli::completions(shell, Cli::command(), &mut std::io::stdout())
                .context("writing the completions")
                .map(|()| ExitCode::SUCCESS)
        }
        Command::Man { dir } => factgate::cli::man(Cli::command(), dir.as_deref())
            .context("writing the man page")
            .map(|()| ExitCode::SUCCESS),
    }
}

/// Reads the article, at most `max_bytes + 1` bytes of it (see [`factgate::check::read_capped`]).
fn read_input(file: &PathBuf, max_bytes: u64) -> anyhow::Result<Vec<u8>> {
    if file.as_os_str() == "-" {
        factgate::check::read_capped(std::io::stdin(), max_bytes).context("reading standard input")
    } else {
        let opened =
            std::fs::File::open(file).with_context(|| format!("reading {}", file.display()))?;
        factgate::check::read_capped(opened, max_bytes)
            .with_context(|| format!("reading {}", file.display()))
    }
}

fn run_extract(
    file: &PathBuf,
    format: Option<BodyFormat>,
    compact: bool,
) -> anyhow::Result<ExitCode> {
    let max_bytes = factgate_core::extract::DEFAULT_EXTRACT_MAX_BODY_BYTES;
    let bytes = read_input(file, max_bytes)?;
    if bytes.len() as u64 > max_bytes {
        anyhow::bail!(
            "{} is larger than {max_bytes} bytes, the default extract.max_body_bytes",
            file.display()
        );
    }
    let extraction = extract::extract_bytes(&bytes, format)
        .with_context(|| format!("cannot extract claims from {}", file.display()))?;
    let json = if compact {
        serde_json::to_string(&extraction)
    } else {
        serde_json::to_string_pretty(&extraction)
    }
    .context("serializing the claims")?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{json}").context("writing to standard output")?;
    eprintln!("{}", summary_line(&extraction));
    Ok(ExitCode::SUCCESS)
}

/// One line for a person reading the terminal; stdout stays pure JSON.
fn summary_line(extraction: &Extraction) -> String {
    if extraction.claims.is_empty() {
        return format!(
            "read {} sentences in {} paragraphs ({}): no check-worthy claims found",
            extraction.sentences, extraction.paragraphs, extraction.format
        );
    }
    let unsourced: Vec<_> = extraction
        .claims
        .iter()
        .filter_map(|c| c.prejudgment.as_ref())
        .collect();
    let high = unsourced
        .iter()
        .filter(|p| p.severity == factgate_core::model::Severity::High)
        .count();
    format!(
        "{} claims from {} sentences in {} paragraphs ({}); {} citations; {} unsourced ({} high severity)",
        extraction.claims.len(),
        extraction.sentences,
        extraction.paragraphs,
        extraction.format,
        extraction.citations.len(),
        unsourced.len(),
        high
    )
}

/// Whether `err` is a write to a closed pipe: the reader (`head`, `grep -q`) is done, which is
/// not a failure.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn run_pipeline(
    roles: &[Role],
    config_path: Option<&std::path::Path>,
    serve_http: bool,
) -> anyhow::Result<ExitCode> {
    let config = Config::load(config_path).context("loading the configuration")?;
    let telemetry = factgate::telemetry::init(&config).context("setting up logs and traces")?;
    if let Some(endpoint) = telemetry.endpoint() {
        tracing::info!(endpoint, "exporting traces over OTLP");
    }
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let outcome = runtime.block_on(async {
        let listen = config.http.listen;
        let admin_listen = config.http.admin_listen;
        factgate::pipeline::run(config, roles, serve_http, shutdown_signal(), |running| {
            let mut banner = String::new();
            if running.embedded.is_some() {
                banner += &format!(
                    "embedded Kafka broker: bootstrap.servers={}\n",
                    running.bootstrap
                );
                banner += "the embedded broker keeps everything in memory: drafts in flight are lost when \
                     this process stops; for production set kafka.bootstrap_servers to a Kafka cluster\n";
            } else {
                banner += &format!("Kafka brokers: {}\n", running.bootstrap);
            }
            if serve_http {
                banner += &format!(
                    "HTTP endpoint (login required): http://{listen}/v1/decisions/{{article_id}}, pages at http://{listen}/ui/\n"
                );
                banner += &format!(
                    "metrics and probes: http://{admin_listen}/metrics, /healthz, /readyz\n"
                );
            }
            let names: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
            banner += &format!("roles: {}\n", names.join(","));
            // The banner is for whoever started the process; a stdout closed by the reader (a
            // supervisor that stopped reading, a pipe to `head`) must not stop a running gate.
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            if let Err(err) = stdout.write_all(banner.as_bytes()).and_then(|()| stdout.flush()) {
                tracing::warn!(error = %err, "could not print the startup banner to stdout");
            }
        })
        .await
        .context("the stream processor stopped")
    });
    // A consumer stuck closing against an unreachable broker must not keep the process alive.
    runtime.shutdown_timeout(RUNTIME_SHUTDOWN);
    // The spans of the last messages are still queued: send them before exiting.
    telemetry.shutdown();
    outcome?;
    Ok(ExitCode::SUCCESS)
}

fn run_config_check(file: Option<&std::path::Path>) -> anyhow::Result<ExitCode> {
    let env = std::env::vars_os()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)));
    match factgate::config::check::check(file, env) {
        Ok(toml) => {
            std::io::stdout()
                .write_all(toml.as_bytes())
                .context("writing to standard output")?;
            Ok(ExitCode::SUCCESS)
        }
        Err(err) => {
            let name = file.map_or_else(|| "the defaults".to_owned(), |f| f.display().to_string());
            eprintln!(
                "factgate: {name} is not a valid configuration: {:#}",
                anyhow::Error::from(err)
            );
            Ok(ExitCode::from(EXIT_ERROR))
        }
    }
}

fn run_demo() -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let outcome = runtime.block_on(factgate::demo::run(std::io::stdout()));
    runtime.shutdown_timeout(RUNTIME_SHUTDOWN);
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

fn run_recheck(args: RecheckArgs) -> anyhow::Result<ExitCode> {
    use factgate::recheck::{self, ProgressDisplay, ProgressStyle, RecheckOptions, ReportFormat};
    for path in &args.report {
        ReportFormat::from_path(path).map_err(anyhow::Error::msg)?;
    }
    let config = Config::load(args.config.as_deref()).context("loading the configuration")?;
    let telemetry = factgate::telemetry::init(&config).context("setting up logs and traces")?;
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
    let outcome = runtime.block_on(async {
        let (stop_metrics, metrics_stopped) = tokio::sync::oneshot::channel::<()>();
        if let Some(addr) = args.metrics_listen {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("listening on {addr} for metrics"))?;
            tokio::spawn(recheck::serve_metrics(listener, async move {
                let _ = metrics_stopped.await;
            }));
        }
        let mut display = ProgressDisplay::new(
            std::io::stderr(),
            ProgressStyle::for_stderr(args.no_progress),
            &run_id,
        );
        let report = recheck::run(&config, options, shutdown_signal(), |tally| {
            display.update(tally)
        })
        .await;
        display.finish();
        let _ = stop_metrics.send(());
        report.context("the re-check did not complete")
    });
    runtime.shutdown_timeout(RUNTIME_SHUTDOWN);
    telemetry.shutdown();
    let report = outcome?;
    for path in &args.report {
        report.write_to(path).map_err(anyhow::Error::msg)?;
    }
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
    )
    .context("writing to standard output")?;
    if !s.new_findings.is_empty() {
        let kinds: Vec<String> = s
            .new_findings
            .iter()
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        writeln!(stdout, "new findings: {}", kinds.join(", "))
            .context("writing to standard output")?;
    }
    for path in &args.report {
        writeln!(stdout, "report: {}", path.display()).context("writing to standard output")?;
    }
    Ok(if s.newly_blocked() > 0 {
        ExitCode::from(EXIT_BLOCK)
    } else {
        ExitCode::SUCCESS
    })
}

/// How long blocking work (closing Kafka clients) may hold up the exit.
const RUNTIME_SHUTDOWN: std::time::Duration = std::time::Duration::from_secs(15);

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
}
