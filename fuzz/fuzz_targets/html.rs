//! Feeds arbitrary text to the bounded HTML path drafts and sources share: the nesting-depth
//! pre-scan, then (for what passes it) the cancellable parse and the reduction to visible text.
//! They must return, never panic; a document the pre-scan admits at a small limit must parse.

#![no_main]

use factgate_core::text::markup::{check_html_depth, parse_html_cancellable};
use factgate_core::text::webpage::document_to_text;
use libfuzzer_sys::fuzz_target;
use std::sync::atomic::AtomicBool;

fuzz_target!(|data: &[u8]| {
    let Ok(html) = std::str::from_utf8(data) else {
        return;
    };
    if check_html_depth(html, 64).is_err() {
        return;
    }
    let go = AtomicBool::new(false);
    let document = parse_html_cancellable(html, &go).expect("an uncancelled parse finishes");
    let _ = document_to_text(&document);
});
