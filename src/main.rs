//! The `factgate` command: parses the command line and calls the library's command for it
//! ([`factgate::commands`], [`factgate::check::run`], [`factgate::cli`]).

#![cfg_attr(not(test), warn(clippy::too_many_lines))]

use anyhow::Context;
use clap::{CommandFactory, Parser, Subcommand};
use factgate::check::progress::Verbosity;
use factgate::cli::EXIT_ERROR;
use factgate::commands;
use factgate::pipeline::Role;
use factgate::render::Format;
use factgate_core::decide::Strictness;
use factgate_core::model::BodyFormat;
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

impl RecheckArgs {
    /// The re-check the arguments ask for.
    fn into_recheck(self) -> commands::Recheck {
        commands::Recheck {
            run_id: self.run_id,
            since: self.since,
            until: self.until,
            articles: self.articles,
            sections: self.sections,
            reports: self.report,
            max_in_flight_checks: self.max_in_flight_checks,
            metrics_listen: self.metrics_listen,
            no_progress: self.no_progress,
            config: self.config,
        }
    }
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
        Err(err) if commands::is_broken_pipe(&err) => ExitCode::SUCCESS,
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
        } => commands::extract(&file, format, compact),
        Command::Check(args) => factgate::check::run(&args.into_batch()),
        Command::Run {
            roles,
            config,
            no_http,
        } => commands::run(&roles, config.as_deref(), !no_http),
        Command::Demo => commands::demo(),
        Command::Recheck(args) => commands::recheck(args.into_recheck()),
        Command::Config(ConfigCommand::Check { file }) => commands::config_check(file.as_deref()),
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
