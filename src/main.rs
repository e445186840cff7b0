//! The `factgate` command: parses the command line and calls into the library.

use anyhow::Context;
use clap::{Parser, Subcommand};
use factgate::check::{CheckOptions, check_article};
use factgate::config::Config;
use factgate::decide::Strictness;
use factgate::events::Outcome;
use factgate::extract::{self, Extraction};
use factgate::model::BodyFormat;
use factgate::pipeline::Role;
use factgate::verify::Verifier;
use factgate::verify::fetch::Fetcher;
use factgate::verify::llm::LlmJudge;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

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
        /// The body format; detected from the content when absent.
        #[arg(long, value_parser = parse_format)]
        format: Option<BodyFormat>,
        /// Print compact JSON on one line instead of indented JSON.
        #[arg(long)]
        compact: bool,
    },
    /// Check an article in one process: extract its claims, verify each against its cited
    /// sources, and decide.
    ///
    /// Exit status: 0 pass, 1 block, 2 error (unreadable file, invalid configuration).
    Check {
        /// The article to check, or `-` for standard input.
        file: PathBuf,
        /// The body format; detected from the content when absent.
        #[arg(long, value_parser = parse_format)]
        format: Option<BodyFormat>,
        /// Print the decision (with its report) as JSON instead of a summary.
        #[arg(long)]
        json: bool,
        /// Configuration file; `FACTGATE_…` environment variables override it.
        #[arg(long, short, env = "FACTGATE_CONFIG")]
        config: Option<PathBuf>,
        /// Override `policy.strictness`: lenient, normal or strict.
        #[arg(long)]
        strictness: Option<Strictness>,
    },
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
}

fn parse_format(s: &str) -> Result<BodyFormat, String> {
    s.parse()
}

/// Exit status for a failure to run at all (as opposed to a pass or block decision).
const EXIT_ERROR: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Extract {
            file,
            format,
            compact,
        } => run_extract(&file, format, compact),
        Command::Check {
            file,
            format,
            json,
            config,
            strictness,
        } => run_check(&file, format, json, config.as_deref(), strictness),
        Command::Run {
            roles,
            config,
            no_http,
        } => run_pipeline(&roles, config.as_deref(), !no_http),
        Command::Demo => run_demo(),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("factgate: error: {err:#}");
            ExitCode::from(EXIT_ERROR)
        }
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
    let max_bytes = factgate::config::DEFAULT_EXTRACT_MAX_BODY_BYTES;
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
        .filter(|p| p.severity == factgate::model::Severity::High)
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

/// Exit status of `check` for a blocked article.
const EXIT_BLOCK: u8 = 1;
/// Checks run at once by `factgate check`; the fetcher's per-host limits apply within this.
const CHECK_CONCURRENCY: usize = 16;

fn run_check(
    file: &PathBuf,
    format: Option<BodyFormat>,
    json: bool,
    config_path: Option<&std::path::Path>,
    strictness: Option<Strictness>,
) -> anyhow::Result<ExitCode> {
    let config = Config::load(config_path).context("loading the configuration")?;
    // Logs go to stderr, so stdout stays the report.
    let _telemetry = factgate::telemetry::init(&config).context("setting up logs and traces")?;
    let bytes = read_input(file, config.extract.max_body_bytes)?;
    let body = String::from_utf8_lossy(&bytes);
    let format = format.unwrap_or_else(|| extract::detect_format(&body));
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let checked = runtime.block_on(async {
        let fetcher = Fetcher::new(config.fetch_settings()).context("building the fetcher")?;
        let llm = match config.llm_settings() {
            Some(settings) => Some(LlmJudge::new(settings).context("building the LLM judge")?),
            None => None,
        };
        let verifier = Verifier::new(fetcher, config.judge_settings(), llm);
        let options = CheckOptions {
            strictness: strictness.unwrap_or(config.policy.strictness),
            deadline: config.join.deadline(),
            concurrency: CHECK_CONCURRENCY,
            limits: config.extract.limits(),
        };
        let article_id = file.display().to_string();
        anyhow::Ok(check_article(&article_id, 0, &body, format, &verifier, &options).await)
    })?;
    let mut stdout = std::io::stdout().lock();
    if json {
        let text =
            serde_json::to_string_pretty(&checked.decision).context("serializing the decision")?;
        writeln!(stdout, "{text}").context("writing to standard output")?;
    } else {
        let text = factgate::render::decision_text(&file.display().to_string(), &checked.decision);
        write!(stdout, "{text}").context("writing to standard output")?;
    }
    Ok(match checked.decision.outcome {
        Outcome::Pass => ExitCode::SUCCESS,
        Outcome::Block => ExitCode::from(EXIT_BLOCK),
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
        factgate::pipeline::run(config, roles, serve_http, shutdown_signal(), |running| {
            if running.embedded.is_some() {
                println!(
                    "embedded Kafka broker: bootstrap.servers={}",
                    running.bootstrap
                );
                println!(
                    "the embedded broker keeps everything in memory: drafts in flight are lost when \
                     this process stops; for production set kafka.bootstrap_servers to a Kafka cluster"
                );
            } else {
                println!("Kafka brokers: {}", running.bootstrap);
            }
            if serve_http {
                println!("HTTP endpoint: http://{listen}/v1/decisions/{{article_id}}");
            }
            let names: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
            println!("roles: {}", names.join(","));
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

fn run_demo() -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let outcome = runtime.block_on(factgate::demo::run(std::io::stdout()));
    runtime.shutdown_timeout(RUNTIME_SHUTDOWN);
    let decisions = outcome.context("the demo did not complete")?;
    let blocked = decisions
        .values()
        .filter(|d| d.outcome == Outcome::Block)
        .count();
    println!(
        "{} drafts decided: {} passed, {} blocked",
        decisions.len(),
        decisions.len() - blocked,
        blocked
    );
    Ok(ExitCode::SUCCESS)
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
