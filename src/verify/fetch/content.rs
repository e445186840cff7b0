//! What a response's body is and how it becomes text: a web page (HTML or plain text), a PDF, a
//! CSV data file, or something factgate does not read.
//!
//! The kind is known from the headers and the URL before the body is read ([`body_kind`]), so
//! the body is read within the right caps (a document's are larger: [`super::body::BodyCaps`]).
//! Bytes served as no type in particular (`application/octet-stream`, or no Content-Type) are a
//! PDF when their URL ends in `.pdf` or they start with `%PDF-`, a CSV file when their URL ends in
//! `.csv`. Reading then runs on the bounded parsing pool ([`Reading::outcome`]), and every way it
//! can fail is an outcome: a PDF refused, a data file past its caps, a page whose scripts render
//! its text are sources that could not be read ([`FetchOutcome::Unreadable`]), with the reason
//! and what to cite instead.

use std::sync::atomic::AtomicBool;

use url::Url;

use factgate_core::fetched::{FetchOutcome, Page};
use factgate_core::text::csv_table::{self, CsvLimits, CsvRefusal};
use factgate_core::text::interstitial;
use factgate_core::text::markup::{self, Stopped, TooLarge};
use factgate_core::text::pdf::{self, PdfLimits, PdfRefusal};
use factgate_core::text::webpage::{self, TextKind};

/// What a body is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    /// A web page: HTML or plain text.
    Page(TextKind),
    /// A PDF document.
    Pdf,
    /// A CSV data file.
    Csv,
    /// Bytes of no type in particular at a URL that does not say what they are: a PDF if they
    /// start like one, else content factgate does not read.
    Sniffed,
}

impl BodyKind {
    /// Whether the body is read within the document caps (`fetch.max_document_bytes`).
    pub fn is_document(self) -> bool {
        !matches!(self, BodyKind::Page(_))
    }
}

/// The media types that say only "bytes": a server that does not know what it serves.
const UNTYPED: &[&str] = &["", "application/octet-stream", "binary/octet-stream"];

/// The media types of CSV files.
const CSV_TYPES: &[&str] = &["text/csv", "application/csv", "text/comma-separated-values"];

/// The media types of spreadsheets, with the extension that names each format for a reader.
const SPREADSHEET_TYPES: &[(&str, &str)] = &[
    (
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        ".xlsx",
    ),
    ("application/vnd.ms-excel", ".xls"),
    ("application/vnd.oasis.opendocument.spreadsheet", ".ods"),
];

/// The advice for a document that could not be read.
const CITE_TEXT_VERSION: &str = "cite a text version of the document";

/// What the body of a response with media type `media_type` (lower-cased, without parameters)
/// at `url` is read as.
///
/// # Errors
///
/// The outcome of a body that is not read at all: a spreadsheet ([`FetchOutcome::Unreadable`]),
/// any other type factgate does not read ([`FetchOutcome::UnsupportedContent`]).
pub fn body_kind(media_type: &str, url: &Url) -> Result<BodyKind, Box<FetchOutcome>> {
    let extension = url
        .path_segments()
        .and_then(|mut segments| segments.next_back())
        .and_then(|name| name.rsplit_once('.'))
        .map(|(_, extension)| extension.to_ascii_lowercase())
        .unwrap_or_default();
    let untyped = UNTYPED.contains(&media_type);
    // A .csv URL is a data file whatever generic type it is served as: `text/plain`, bytes, or
    // the spreadsheet type some servers give every .csv file.
    let generic = untyped || media_type == "text/plain" || media_type == "application/vnd.ms-excel";
    Ok(match media_type {
        "application/pdf" | "application/x-pdf" => BodyKind::Pdf,
        _ if CSV_TYPES.contains(&media_type) || (generic && extension == "csv") => BodyKind::Csv,
        _ if untyped && extension == "pdf" => BodyKind::Pdf,
        _ => {
            let spreadsheet = SPREADSHEET_TYPES
                .iter()
                .find(|(t, _)| *t == media_type)
                .map(|(_, format)| (*format).to_owned())
                .or_else(|| {
                    let named = ["xlsx", "xls", "ods"].contains(&extension.as_str());
                    (untyped && named).then(|| format!(".{extension}"))
                });
            if let Some(format) = spreadsheet {
                return Err(Box::new(FetchOutcome::Unreadable {
                    reason: format!("spreadsheets ({format}) are not read yet"),
                    advice: "cite the CSV or the page",
                }));
            }
            if let Some(kind) = webpage::text_kind(media_type) {
                BodyKind::Page(kind)
            } else if untyped {
                BodyKind::Sniffed
            } else {
                return Err(Box::new(FetchOutcome::UnsupportedContent {
                    content_type: media_type.to_owned(),
                }));
            }
        }
    })
}

/// Everything a body's reading needs besides its bytes, moved onto the parsing pool.
#[derive(Debug, Clone)]
pub struct Reading {
    /// The media type as sent, lower-cased, without parameters.
    pub content_type: String,
    /// The Content-Type charset, when it gives one.
    pub charset: Option<String>,
    /// The URL the body came from, after redirects.
    pub final_url: String,
    /// The status it came with (a 2xx).
    pub status: u16,
    /// `fetch.max_nesting_depth`.
    pub max_depth: usize,
    /// `fetch.max_html_nodes`.
    pub max_nodes: usize,
    /// `fetch.max_text_bytes`.
    pub max_text_bytes: u64,
    /// `fetch.max_pdf_*` and the text cap.
    pub pdf: PdfLimits,
    /// `fetch.max_csv_rows` and the text cap.
    pub csv: CsvLimits,
}

impl Reading {
    /// The outcome of reading `bytes` as `kind`; `cancel`, raised when the fetch's time runs
    /// out, stops the reading.
    pub fn outcome(self, bytes: Vec<u8>, kind: BodyKind, cancel: &AtomicBool) -> FetchOutcome {
        match kind {
            BodyKind::Page(TextKind::Html) => self.html(bytes, cancel),
            BodyKind::Page(TextKind::Plain) => self.plain(bytes),
            BodyKind::Pdf => self.pdf(&bytes, cancel),
            BodyKind::Sniffed if pdf::looks_like_pdf(&bytes) => self.pdf(&bytes, cancel),
            BodyKind::Sniffed => FetchOutcome::UnsupportedContent {
                content_type: if self.content_type.is_empty() {
                    "(none)".to_owned()
                } else {
                    self.content_type
                },
            },
            BodyKind::Csv => self.csv(&bytes, cancel),
        }
    }

    /// A page of what was read: no claim reviews or furniture but a web page's own.
    fn page(self, content_type: String, text: String, title: Option<String>) -> Page {
        Page {
            final_url: self.final_url,
            status: self.status,
            content_type,
            text,
            title,
            claim_reviews: Vec::new(),
            furniture: String::new(),
            page_starts: Vec::new(),
        }
    }

    /// A refusal for content of this type, saying what refused it.
    fn refused(&self, what: String) -> FetchOutcome {
        FetchOutcome::UnsupportedContent {
            content_type: format!("{} {what}", self.content_type),
        }
    }

    fn too_much_text(&self) -> FetchOutcome {
        self.refused(format!(
            "with more text than fetch.max_text_bytes ({} bytes)",
            self.max_text_bytes
        ))
    }

    /// A text/plain page: its text, under the text cap and the paywall check.
    fn plain(self, bytes: Vec<u8>) -> FetchOutcome {
        let text = webpage::decode_owned(bytes, self.charset.as_deref(), TextKind::Plain);
        if text.len() as u64 > self.max_text_bytes {
            return self.too_much_text();
        }
        if let Some(marker) = webpage::paywall_marker(None, &text) {
            return FetchOutcome::Paywalled { marker };
        }
        if let Some(found) = interstitial::plain_text_wall(&text) {
            return self.walled(&found);
        }
        if text.trim().is_empty() {
            return FetchOutcome::Unreadable {
                reason: "the page is empty".to_owned(),
                advice: "cite a page that states the claim",
            };
        }
        let content_type = self.content_type.clone();
        FetchOutcome::Ok(self.page(content_type, text, None))
    }

    /// An HTML page: its shape checked before any tree is built, then parsed, read to text
    /// within the text cap, and classified (an error or search page, a paywall, an application
    /// shell) before it is taken for a source.
    fn html(self, bytes: Vec<u8>, cancel: &AtomicBool) -> FetchOutcome {
        // The body's bytes become the text's when they are UTF-8 already (most pages): one copy
        // of the page in memory, not two.
        let decoded = webpage::decode_owned(bytes, self.charset.as_deref(), TextKind::Html);
        // A tree costs time that grows with its depth and memory that grows with its nodes: a
        // page nested too deep, or plainly of too many nodes, is not built (a linear scan says
        // so first), and a build that passes the node budget all the same (elements the parser
        // reconstructs) is stopped. Either leaves the source unjudged.
        match markup::check_html_shape(&decoded, self.max_depth, self.max_nodes) {
            Ok(()) => {}
            Err(TooLarge::Deep(too_deep)) => {
                return self.refused(format!(
                    "nested deeper than fetch.max_nesting_depth ({} levels)",
                    too_deep.limit
                ));
            }
            Err(TooLarge::Nodes(too_many)) => return self.too_many_nodes(too_many.limit),
        }
        // The markup's paywall marker is looked for now, so the markup can go as soon as the
        // tree holds the page: it is not kept beside the tree and the text.
        let paywall_markup = webpage::paywall_marker(Some(&decoded), "");
        let bot_markup = interstitial::bot_check_markup(&decoded);
        let parsed = markup::parse_html_bounded(&decoded, cancel, self.max_nodes);
        drop(decoded);
        let document = match parsed {
            Ok(document) => document,
            // Cancelled: the fetch's time ran out and no one awaits this any more.
            Err(Stopped::Cancelled(_)) => return FetchOutcome::Timeout,
            Err(Stopped::TooManyNodes(too_many)) => return self.too_many_nodes(too_many.limit),
        };
        // The judge indexes what a page says, at many times its size: a page with more to read
        // than `fetch.max_text_bytes` is not judged (its source is unjudged), and the reading
        // stops as soon as it is sure to be longer.
        let max_text = usize::try_from(self.max_text_bytes).unwrap_or(usize::MAX);
        let Ok(page) = webpage::document_to_text_within(&document, max_text) else {
            return self.too_much_text();
        };
        if let Some(found) = webpage::not_a_source(&document, &page, &self.final_url) {
            return FetchOutcome::NotASource {
                status: self.status,
                kind: found.kind,
                marker: found.marker,
            };
        }
        if let Some(marker) = paywall_markup.or_else(|| webpage::paywall_marker(None, &page.text)) {
            return FetchOutcome::Paywalled { marker };
        }
        // A sign-in page, a bot check, an "Access denied" page in place of the document: read
        // as the source it would vouch for claims it never saw.
        if let Some(found) = interstitial::wall(&document, &page, bot_markup, &self.final_url) {
            return self.walled(&found);
        }
        // An application shell says nothing until its scripts run. As a page it would only
        // leave the claim "not stated" (inconclusive, which a lenient policy lets through); as a
        // source that could not be read it leaves the claim unjudged, which blocks at every
        // strictness.
        if let Some(marker) = webpage::script_rendered(&document, &page) {
            tracing::debug!(url = %self.final_url, marker, "page rendered by scripts");
            return FetchOutcome::Unreadable {
                reason: "the page renders its text with JavaScript".to_owned(),
                advice: "cite the data or a text version",
            };
        }
        // The title names the page too: it goes with the furniture.
        let furniture = match &page.title {
            Some(title) => format!("{title}\n{}", page.furniture),
            None => page.furniture,
        };
        let content_type = self.content_type.clone();
        let mut read = self.page(content_type, page.text, page.title);
        read.claim_reviews = page.claim_reviews;
        read.furniture = furniture;
        FetchOutcome::Ok(read)
    }

    /// A wall served in place of the document: a source that could not be read, saying what
    /// the site served.
    fn walled(&self, found: &interstitial::Wall) -> FetchOutcome {
        tracing::debug!(url = %self.final_url, kind = ?found.kind, marker = %found.marker, "page is a wall");
        FetchOutcome::Unreadable {
            reason: found.reason(),
            advice: found.kind.advice(),
        }
    }

    fn too_many_nodes(&self, limit: usize) -> FetchOutcome {
        self.refused(format!("of more nodes than fetch.max_html_nodes ({limit})"))
    }

    /// A PDF: its text and title, and where each page starts, so evidence can name its page.
    fn pdf(self, bytes: &[u8], cancel: &AtomicBool) -> FetchOutcome {
        match pdf::pdf_to_text(bytes, &self.pdf, cancel) {
            Ok(read) => {
                let mut page = self.page("application/pdf".to_owned(), read.text, read.title);
                page.page_starts = read.page_starts;
                FetchOutcome::Ok(page)
            }
            // The fetch's time ran out and no one awaits this any more.
            Err(PdfRefusal::Cancelled) => FetchOutcome::Timeout,
            Err(refusal) => FetchOutcome::Unreadable {
                advice: match refusal {
                    PdfRefusal::Encrypted => {
                        "cite a copy that is not encrypted, or a text version of the document"
                    }
                    _ => CITE_TEXT_VERSION,
                },
                reason: refusal.to_string(),
            },
        }
    }

    /// A CSV data file: its rows as the sentences a table becomes.
    fn csv(self, bytes: &[u8], cancel: &AtomicBool) -> FetchOutcome {
        match csv_table::csv_to_text(bytes, self.charset.as_deref(), &self.csv, cancel) {
            Ok(text) => FetchOutcome::Ok(self.page("text/csv".to_owned(), text, None)),
            Err(CsvRefusal::Cancelled) => FetchOutcome::Timeout,
            Err(refusal) => FetchOutcome::Unreadable {
                reason: refusal.to_string(),
                advice: "cite the table's page, or a smaller file of the figures",
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(media_type: &str, url: &str) -> Result<BodyKind, Box<FetchOutcome>> {
        body_kind(media_type, &Url::parse(url).expect("url"))
    }

    #[test]
    fn documents_are_known_by_their_type_or_by_their_url_when_served_as_bytes() {
        for (media_type, url, expected) in [
            ("application/pdf", "https://s.example/report", BodyKind::Pdf),
            (
                "application/octet-stream",
                "https://s.example/r.PDF",
                BodyKind::Pdf,
            ),
            ("", "https://s.example/r.pdf?download=1", BodyKind::Pdf),
            (
                "binary/octet-stream",
                "https://s.example/r",
                BodyKind::Sniffed,
            ),
            ("text/csv", "https://s.example/data", BodyKind::Csv),
            ("text/plain", "https://s.example/data.csv", BodyKind::Csv),
            (
                "application/vnd.ms-excel",
                "https://s.example/d.csv",
                BodyKind::Csv,
            ),
            (
                "text/plain",
                "https://s.example/notes.txt",
                BodyKind::Page(TextKind::Plain),
            ),
            // A page is what its type says, whatever its URL.
            (
                "text/html",
                "https://s.example/r.pdf",
                BodyKind::Page(TextKind::Html),
            ),
        ] {
            assert_eq!(kind(media_type, url), Ok(expected), "{media_type} {url}");
        }
        assert_eq!(
            kind("image/png", "https://s.example/chart.pdf"),
            Err(Box::new(FetchOutcome::UnsupportedContent {
                content_type: "image/png".to_owned()
            }))
        );
        for (media_type, url, format) in [
            (
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                "https://s.example/data",
                ".xlsx",
            ),
            (
                "application/octet-stream",
                "https://s.example/d.ods",
                ".ods",
            ),
        ] {
            assert_eq!(
                kind(media_type, url),
                Err(Box::new(FetchOutcome::Unreadable {
                    reason: format!("spreadsheets ({format}) are not read yet"),
                    advice: "cite the CSV or the page",
                }))
            );
        }
    }
}
