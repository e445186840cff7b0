//! Feeds arbitrary bytes to the PDF reader: the pre-scan, lopdf's parse, the structure checks
//! and pdf-extract's drawing into the layout. It must return, never panic past its own guard,
//! and a PDF it reads must be within the limits given.
//!
//! lopdf and pdf-extract panic on malformed input by design of their code (`unwrap`s), and
//! `pdf_to_text` catches those panics and refuses the file as damaged. libFuzzer's panic hook
//! aborts on any panic, caught or not, so the target puts back a silent hook at start-up; a
//! panic that escapes `pdf_to_text` is still reported, by the guard below, as a crash.

#![no_main]

use factgate_core::text::pdf::{PdfLimits, pdf_to_text};
use libfuzzer_sys::fuzz_target;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::AtomicBool;

fuzz_target!(
    init: std::panic::set_hook(Box::new(|_| {})),
    |data: &[u8]| {
        // An odd first byte prefixes a PDF header, so that the fuzzer reaches past the header
        // check without having to find it.
        let Some((&selector, body)) = data.split_first() else {
            return;
        };
        let mut bytes = Vec::with_capacity(body.len() + 9);
        if selector % 2 == 1 {
            bytes.extend_from_slice(b"%PDF-1.7\n");
        }
        bytes.extend_from_slice(body);
        // Small limits keep each input quick; the default limits are the same code.
        let limits = PdfLimits {
            max_pages: 64,
            max_objects: 10_000,
            max_stream_bytes: 8 << 20,
            max_text_bytes: 256 * 1024,
        };
        let go = AtomicBool::new(false);
        let read = catch_unwind(AssertUnwindSafe(|| pdf_to_text(&bytes, &limits, &go)));
        let Ok(read) = read else {
            fail("pdf_to_text panicked past its guard");
        };
        if let Ok(pdf) = read {
            if pdf.text.len() > limits.max_text_bytes {
                fail("the text is longer than max_text_bytes");
            }
            if pdf.page_starts.len() > limits.max_pages {
                fail("more pages than max_pages");
            }
            let chars = pdf.text.chars().count();
            if !pdf.page_starts.windows(2).all(|w| w[0] <= w[1])
                || pdf.page_starts.iter().any(|&s| s > chars)
            {
                fail("page starts out of order or past the text");
            }
        }
    }
);

/// A finding: said, then a crash for libFuzzer (the silent panic hook would swallow an
/// assertion's message).
fn fail(what: &str) -> ! {
    eprintln!("pdf_text: {what}");
    std::process::abort();
}
