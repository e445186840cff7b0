//! Feeds arbitrary bytes to the extractor in every format: it must return, never panic.
//! The first byte picks the format so the fuzzer explores each parser.

#![no_main]

use factgate_core::extract::extract_bytes;
use factgate_core::model::BodyFormat;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let format = match selector % 4 {
        0 => None,
        1 => Some(BodyFormat::Markdown),
        2 => Some(BodyFormat::Html),
        _ => Some(BodyFormat::Text),
    };
    let _ = extract_bytes(body, format);
});
