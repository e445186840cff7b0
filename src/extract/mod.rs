//! Claim extraction: a draft body in, check-worthy claims out, each mapped to its citations.
//!
//! Pure and synchronous: no I/O, no clock. The whole body is read, whatever its length.
//! Failure is loud: a body that cannot be read is an [`ExtractError`], never an empty list.
//! An article that was read and holds no check-worthy claim gives an [`Extraction`] with no
//! claims and the count of sentences that were read, so the caller can say so.
//!
//! # Layout
//! - `document`: parses Markdown, HTML or text into blocks (headings, paragraphs, list items,
//!   table cells) with their inline citations and the article's reference list.
//! - `segment`: splits a block's text into sentences.
//! - `citations`: resolves links, reference links, numbered references, footnotes and bare URLs.
//! - `detect`: decides what makes a sentence check-worthy (kinds, quotes, attribution) and
//!   prejudges claims that cite nothing.
//! - `figures`: finds the figures a sentence states, normalized to value, unit and scale.

pub mod detect;
pub mod figures;

use crate::model::{BodyFormat, Citation, Claim};
use serde::Serialize;

/// What extraction found in one article.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Extraction {
    /// The format the body was read as.
    pub format: BodyFormat,
    /// Check-worthy claims, in reading order.
    pub claims: Vec<Claim>,
    /// Every citation the article contains, in order of first appearance, without duplicates.
    pub citations: Vec<Citation>,
    /// How many paragraphs (blocks) were read.
    pub paragraphs: usize,
    /// How many sentences were read; with no claims, shows the article was read.
    pub sentences: usize,
}

/// Why a body could not be read. Every variant blocks the draft.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ExtractError {
    /// The body holds nothing but whitespace.
    #[error("the body is empty")]
    EmptyBody,
    /// The body is not text: invalid UTF-8, binary data, or control characters.
    #[error("the body is not readable text: {reason}")]
    Unreadable { reason: String },
    /// The body format named by the draft or the command line is not one factgate reads.
    #[error("unknown body format {0:?}: expected markdown, html or text")]
    UnknownFormat(String),
}

/// Extracts the check-worthy claims of a body written in `format`.
///
/// # Errors
/// [`ExtractError::EmptyBody`] or [`ExtractError::Unreadable`] when the body cannot be read.
pub fn extract(body: &str, format: BodyFormat) -> Result<Extraction, ExtractError> {
    let _ = (body, format);
    Err(ExtractError::Unreadable {
        reason: "extraction is not built yet".into(),
    })
}

/// Guesses a body's format from its content: HTML when it opens with markup, Markdown when it
/// has Markdown structure (headings, links, lists, emphasis), text otherwise.
pub fn detect_format(body: &str) -> BodyFormat {
    let _ = body;
    BodyFormat::Text
}

/// Decodes raw bytes (a file, stdin) and extracts them; `format` `None` means detect.
///
/// # Errors
/// [`ExtractError::Unreadable`] for bytes that are not UTF-8 text, and whatever [`extract`]
/// returns.
pub fn extract_bytes(bytes: &[u8], format: Option<BodyFormat>) -> Result<Extraction, ExtractError> {
    let body = std::str::from_utf8(bytes).map_err(|e| ExtractError::Unreadable {
        reason: format!("invalid UTF-8 at byte {}", e.valid_up_to()),
    })?;
    let format = format.unwrap_or_else(|| detect_format(body));
    extract(body, format)
}
