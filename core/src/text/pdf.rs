//! A cited PDF read to text, bounded and safe.
//!
//! A PDF is a zip of streams held together by references, and the crates that read it
//! (lopdf for the objects, pdf-extract for fonts and drawing) trust it: they decompress a stream
//! whole, follow references by recursion and `unwrap` what malformed input breaks. A hostile
//! PDF must cost no more than its limits, so [`pdf_to_text`] reads in steps, each refusing
//! with a reason an editor understands ([`PdfRefusal`]) before the next can be hurt:
//!
//! 1. [`prescan`]: the raw bytes, linearly, before anything is parsed: nesting, object count,
//!    encryption, and every stream's expansion through a bounded reader ([`inflate`]).
//! 2. lopdf parses the document.
//! 3. [`structure`]: with lopdf, the page count, page-tree and form loops, form nesting, and
//!    what drawing each page would cost pdf-extract (bytes and operations parsed, graphics
//!    states copied); image data is blanked (only the text layer is read).
//! 4. pdf-extract draws each page into [`layout::Collector`], which keeps each glyph's position,
//!    checks the text budget and the cancel flag, and lays the page out as lines, paragraphs and
//!    tables (written as webpage's HTML tables are).
//!
//! Every call into lopdf and pdf-extract runs inside `catch_unwind`: a panic is a damaged PDF.
//! The whole read runs on a thread of its own with a generous stack, so that the recursion
//! these crates do within their bounds never depends on the caller's stack.

mod inflate;
mod layout;
mod objects;
mod prescan;
mod structure;

// The service's tests' PDF writer (`tests/support/pdf.rs`), one copy for both crates; the
// writers of hostile documents the core's tests do not call are not used here.
#[cfg(test)]
#[allow(dead_code)]
#[path = "../../../tests/support/pdf.rs"]
mod test_pdf;
#[cfg(test)]
mod tests;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};

use lopdf::{Document, Object};

/// How much of a PDF is read. The defaults admit long reports and refuse what no report needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdfLimits {
    /// The most pages (`fetch.max_pdf_pages`).
    pub max_pages: usize,
    /// The most objects, counted in the raw bytes and in object streams
    /// (`fetch.max_pdf_objects`).
    pub max_objects: usize,
    /// The most bytes all streams may expand to, summed (`fetch.max_pdf_stream_bytes`); a
    /// sixty-fourth of it bounds the drawing instructions of one page.
    pub max_stream_bytes: u64,
    /// The most bytes of text (`fetch.max_text_bytes`, the cap on any source's text).
    pub max_text_bytes: usize,
}

/// The default `max_pages`.
pub const DEFAULT_MAX_PDF_PAGES: usize = 2_000;
/// The default `max_objects`.
pub const DEFAULT_MAX_PDF_OBJECTS: usize = 500_000;
/// The default `max_stream_bytes`: 256 MiB.
pub const DEFAULT_MAX_PDF_STREAM_BYTES: u64 = 256 << 20;
/// The default `max_text_bytes`: 8 MiB.
pub const DEFAULT_MAX_PDF_TEXT_BYTES: usize = 8 << 20;

impl Default for PdfLimits {
    fn default() -> Self {
        PdfLimits {
            max_pages: DEFAULT_MAX_PDF_PAGES,
            max_objects: DEFAULT_MAX_PDF_OBJECTS,
            max_stream_bytes: DEFAULT_MAX_PDF_STREAM_BYTES,
            max_text_bytes: DEFAULT_MAX_PDF_TEXT_BYTES,
        }
    }
}

/// A PDF's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdfText {
    /// The pages' text in order, paragraphs and pages parted by blank lines.
    pub text: String,
    /// The document's Title, or else the first line of page 1 where it is short.
    pub title: Option<String>,
    /// The char offset in `text` where each page starts (page 1 first); a page without text
    /// starts where the next one does.
    pub page_starts: Vec<usize>,
}

impl PdfText {
    /// The 1-based page number holding char offset `at`.
    pub fn page_of(&self, at: usize) -> u32 {
        page_of(&self.page_starts, at)
    }
}

/// The 1-based page holding char offset `at` of a text whose pages start at `page_starts` (as
/// [`PdfText::page_starts`]): what names the page of a passage once the text is all that is
/// kept.
pub fn page_of(page_starts: &[usize], at: usize) -> u32 {
    let page = page_starts.partition_point(|&start| start <= at);
    u32::try_from(page.max(1)).unwrap_or(u32::MAX)
}

/// Why a PDF was not read, in words an editor understands.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum PdfRefusal {
    #[error("the PDF is encrypted")]
    Encrypted,
    /// No text, and some page draws an image.
    #[error("the PDF is scanned images with no text layer")]
    Scanned,
    #[error("the PDF has no text")]
    NoText,
    #[error("the PDF has more than {limit} pages (fetch.max_pdf_pages)")]
    TooManyPages { limit: usize },
    #[error("the PDF has more than {limit} objects (fetch.max_pdf_objects)")]
    TooManyObjects { limit: usize },
    #[error("the PDF's compressed streams expand past {limit} bytes (fetch.max_pdf_stream_bytes)")]
    StreamsTooLarge { limit: u64 },
    #[error("the PDF's text is longer than {limit} bytes (fetch.max_text_bytes)")]
    TextTooLong { limit: usize },
    #[error("the PDF nests arrays or dictionaries more than {limit} levels deep")]
    NestedTooDeep { limit: usize },
    #[error("the PDF's object references loop (a page that is its own ancestor)")]
    ParentLoop,
    #[error("the PDF's page tree is more than {limit} levels deep")]
    PageTreeTooDeep { limit: usize },
    #[error("the PDF's object references loop (a form that draws itself)")]
    FormLoop,
    #[error("the PDF nests forms inside forms more than {limit} levels deep")]
    FormsTooDeep { limit: usize },
    /// pdf-extract copies the graphics state on each `q` and keeps the copies until the `Q`.
    #[error("the PDF saves its drawing state more than {limit} levels deep")]
    StatesTooDeep { limit: usize },
    /// One page would have pdf-extract decode more drawing instructions than a sixty-fourth
    /// of `max_stream_bytes`, or parse more operations than `operations`: the bounds on the
    /// memory one page's parse takes.
    #[error(
        "page {page} of the PDF has more drawing instructions than one page is read with \
         ({limit} bytes, a sixty-fourth of fetch.max_pdf_stream_bytes, or {operations} operations)"
    )]
    PageDrawsTooMuch {
        page: u32,
        limit: u64,
        operations: u64,
    },
    /// The pages would have pdf-extract decode more drawing instructions than
    /// `max_stream_bytes`, a form counted each time it is drawn: the bound on the time a read
    /// takes when forms draw forms many times over.
    #[error(
        "the PDF's pages have more than {limit} bytes of drawing instructions, forms counted \
         each time they are drawn (fetch.max_pdf_stream_bytes)"
    )]
    DrawsTooMuch { limit: u64 },
    /// lopdf could not parse it, or lopdf or pdf-extract panicked on it: what could not be read.
    #[error("the PDF is damaged: {0}")]
    Damaged(String),
    #[error("reading the PDF was cancelled")]
    Cancelled,
}

/// How far into a file its `%PDF-` header may start: readers skip a little junk before it.
const HEADER_WINDOW: usize = 1024;
/// The longest first line taken for a title.
const MAX_TITLE_CHARS: usize = 120;

/// Whether `bytes` carry a PDF header (`%PDF-`) within their first 1024 bytes.
pub fn looks_like_pdf(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(HEADER_WINDOW)]
        .windows(5)
        .any(|w| w == b"%PDF-")
}

/// The text of the PDF in `bytes`, read within `limits`; `cancel`, once raised, stops the read
/// within a few hundred glyphs or a megabyte of decompression.
///
/// # Errors
///
/// A [`PdfRefusal`] saying why the PDF was not read: a limit passed, encryption, a loop, no
/// text, damage (including any panic inside lopdf or pdf-extract), or cancellation.
pub fn pdf_to_text(
    bytes: &[u8],
    limits: &PdfLimits,
    cancel: &AtomicBool,
) -> Result<PdfText, PdfRefusal> {
    // lopdf's parser recurses once per level of nesting (up to its own bound of 100 levels),
    // and pdf-extract once per form; in a debug build that can take more than the 2 MiB a
    // spawned thread has. The read gets a stack of its own, whatever thread calls it.
    std::thread::scope(|scope| {
        let reader = std::thread::Builder::new()
            .name("pdf-text".into())
            .stack_size(READ_STACK_BYTES)
            .spawn_scoped(scope, || read_pdf(bytes, limits, cancel));
        match reader {
            Ok(reader) => reader.join().unwrap_or_else(|_| {
                Err(PdfRefusal::Damaged("reading it failed unexpectedly".into()))
            }),
            // No thread to be had: read on this one.
            Err(_) => read_pdf(bytes, limits, cancel),
        }
    })
}

/// The stack the read runs on: room for lopdf's and pdf-extract's recursion many times over
/// (a debug build needs under 2 MiB for the deepest nesting lopdf parses); only what is used
/// is ever committed.
const READ_STACK_BYTES: usize = 16 << 20;

/// [`pdf_to_text`] on the current thread: the steps of the module doc.
fn read_pdf(bytes: &[u8], limits: &PdfLimits, cancel: &AtomicBool) -> Result<PdfText, PdfRefusal> {
    if !looks_like_pdf(bytes) {
        return Err(PdfRefusal::Damaged(
            "it does not start with a PDF header".into(),
        ));
    }
    prescan::prescan(bytes, limits, cancel)?;
    let mut doc = guarded("its structure could not be read", || {
        Document::load_mem(bytes)
    })?
    .map_err(|e| PdfRefusal::Damaged(format!("its structure could not be read ({e})")))?;
    let checked = guarded("its pages could not be read", || {
        structure::check(&mut doc, limits, cancel)
    })??;
    let pages = extract_pages(&doc, checked.pages, limits, cancel)?;
    let (text, page_starts) = join_pages(&pages.pages);
    if text.len() > limits.max_text_bytes {
        return Err(PdfRefusal::TextTooLong {
            limit: limits.max_text_bytes,
        });
    }
    if text.trim().is_empty() {
        return Err(if checked.draws_images {
            PdfRefusal::Scanned
        } else {
            PdfRefusal::NoText
        });
    }
    let title = guarded("its title could not be read", || info_title(&doc))
        .ok()
        .flatten()
        .or_else(|| {
            pages
                .first_line
                .filter(|l| !l.is_empty() && l.chars().count() <= MAX_TITLE_CHARS)
        });
    Ok(PdfText {
        text,
        title,
        page_starts,
    })
}

/// Runs `f`, a call into lopdf or pdf-extract, turning a panic into a damaged PDF.
fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, PdfRefusal> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|_| PdfRefusal::Damaged(what.to_owned()))
}

/// Step 4 of the module doc: each page drawn into the collector, one `catch_unwind` each.
fn extract_pages(
    doc: &Document,
    pages: u32,
    limits: &PdfLimits,
    cancel: &AtomicBool,
) -> Result<layout::PageTexts, PdfRefusal> {
    let mut collector = layout::Collector::new(limits.max_text_bytes, cancel);
    for page in 1..=pages {
        if cancel.load(Ordering::Relaxed) {
            return Err(PdfRefusal::Cancelled);
        }
        let drawn = guarded(&format!("page {page} could not be read"), || {
            pdf_extract::output_doc_page(doc, &mut collector, page)
        })?;
        if let Some(stop) = collector.stop.take() {
            return Err(stop);
        }
        drawn.map_err(|e| PdfRefusal::Damaged(format!("page {page} could not be read ({e})")))?;
    }
    Ok(collector.out)
}

/// The pages' texts joined by blank lines, and the char offset where each page starts.
fn join_pages(pages: &[String]) -> (String, Vec<usize>) {
    let mut text = String::new();
    let mut chars = 0;
    let mut starts = Vec::with_capacity(pages.len());
    for page in pages {
        if !page.is_empty() && !text.is_empty() {
            text.push_str("\n\n");
            chars += 2;
        }
        starts.push(chars);
        text.push_str(page);
        chars += page.chars().count();
    }
    (text, starts)
}

/// The document information dictionary's `/Title`, when it says something.
fn info_title(doc: &Document) -> Option<String> {
    let info = doc
        .trailer
        .get(b"Info")
        .and_then(|i| doc.dereference(i))
        .and_then(|(_, i)| i.as_dict())
        .ok()?;
    let title = info.get(b"Title").and_then(|t| doc.dereference(t)).ok()?.1;
    let title = match title {
        Object::String(..) => lopdf::decode_text_string(title).ok()?,
        _ => return None,
    };
    let title = title.trim_start_matches('\u{feff}');
    let title: String = title.split_whitespace().collect::<Vec<_>>().join(" ");
    (!title.is_empty()).then_some(title)
}
