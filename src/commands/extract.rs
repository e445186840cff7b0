//! `factgate extract`: an article's check-worthy claims as JSON on standard output, a summary
//! line on standard error.

use anyhow::Context;
use factgate_core::extract::{self, Extraction};
use factgate_core::model::BodyFormat;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Prints the claims of the article in `file` (`-` for standard input) as JSON, indented unless
/// `compact`; `format` is the body format, detected from the content when `None`.
///
/// # Errors
/// The article cannot be read, is over the default `extract.max_body_bytes`, or cannot be
/// extracted; standard output cannot be written.
pub fn extract(file: &Path, format: Option<BodyFormat>, compact: bool) -> anyhow::Result<ExitCode> {
    let max_bytes = extract::DEFAULT_EXTRACT_MAX_BODY_BYTES;
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

/// Reads the article, at most `max_bytes + 1` bytes of it (see [`crate::check::read_capped`]).
fn read_input(file: &Path, max_bytes: u64) -> anyhow::Result<Vec<u8>> {
    if file.as_os_str() == "-" {
        crate::check::read_capped(std::io::stdin(), max_bytes).context("reading standard input")
    } else {
        let opened =
            std::fs::File::open(file).with_context(|| format!("reading {}", file.display()))?;
        crate::check::read_capped(opened, max_bytes)
            .with_context(|| format!("reading {}", file.display()))
    }
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
