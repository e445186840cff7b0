//! The `factgate` command: parses the command line and calls into the library.

use anyhow::Context;
use clap::{Parser, Subcommand};
use factgate::extract::{self, Extraction};
use factgate::model::BodyFormat;
use std::io::{Read, Write};
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
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("factgate: error: {err:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

fn read_input(file: &PathBuf) -> anyhow::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if file.as_os_str() == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("reading standard input")?;
    } else {
        bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    }
    Ok(bytes)
}

fn run_extract(
    file: &PathBuf,
    format: Option<BodyFormat>,
    compact: bool,
) -> anyhow::Result<ExitCode> {
    let bytes = read_input(file)?;
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
