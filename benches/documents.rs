//! Reading a cited PDF (issue 39): `text::pdf::pdf_to_text` on documents of about 20 MB and 500
//! pages, built here in memory, within the limits the fetcher reads them with.
//!
//! - `report_20mb_500_pages`: an annual report as publishers write one: each page some 3 KB of
//!   prose and figures (its drawing Flate-compressed, as real PDFs' is) and a 38 KB photograph
//!   (a JPEG stream, whose data the reader blanks), 1.6 MB of text in all: read whole within
//!   the default limits (`fetch.max_text_bytes` 2 MiB).
//! - `dense_text_20mb_500_pages`: the worst a text layer can be per byte: every page 40 KB of
//!   small type, drawn uncompressed, 14 MB of text, read with the text cap raised out of the
//!   way, to measure the reader's own throughput on glyphs; and the same document within the
//!   default limits, refused at the text cap.
//!
//! Each prints the time, the throughput and the resident memory the read added at its peak
//! (`/proc/self/statm`, sampled every millisecond on a thread beside it). The target is ≤ 2 s
//! and ≤ 200 MB more memory for a 20 MB document (docs/performance.md).
//!
//! `cargo bench --bench documents`; in test mode (`cargo test --bench documents`) each runs once
//! on documents of 20 pages, so the bench keeps compiling and running without timing anything.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use factgate_core::text::pdf::{PdfLimits, PdfRefusal, pdf_to_text};

// The allocator factgate runs with, so memory is measured as the service would use it.
factgate::use_jemalloc!();

// The tests' PDF writer; its own tests and the writers this bench does not call are not used.
#[allow(dead_code, unused_imports)]
#[path = "../tests/support/pdf.rs"]
mod pdf;

/// Pages of the documents measured, and when the bench runs once as a test.
const PAGES: usize = 500;
const TEST_MODE_PAGES: usize = 20;

const PAGE_OPEN: &str =
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >>";
const FONT: &[u8] =
    b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";

/// A line of prose with figures that differ from line to line, as a report's do.
fn prose_line(page: usize, line: usize, chars: usize) -> String {
    let n = page * 131 + line * 17;
    let mut text = format!(
        "In {} the region counted {} homes, up {}.{}% on the year before; ",
        2000 + n % 25,
        1_000 + n * 7 % 90_000,
        n % 9,
        n % 10
    );
    while text.len() < chars {
        text.push_str("the office revised its estimate for the quarter; ");
    }
    text.truncate(chars);
    text
}

/// A page's content stream: `lines` lines of `chars` characters at `size` points.
fn page_content(page: usize, lines: usize, chars: usize, size: f64) -> Vec<u8> {
    let mut out = Vec::new();
    let leading = size * 1.3;
    for line in 0..lines {
        let y = 800.0 - line as f64 * leading;
        out.extend_from_slice(format!("BT /F1 {size} Tf 40 {y:.1} Td (").as_bytes());
        out.extend_from_slice(prose_line(page, line, chars).as_bytes());
        out.extend_from_slice(b") Tj ET\n");
    }
    out
}

/// Bytes that do not compress, standing in for a photograph's JPEG data.
fn photo(bytes: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    let mut out = Vec::with_capacity(bytes);
    out.extend_from_slice(b"\xFF\xD8\xFF\xE0");
    while out.len() < bytes - 2 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.push(state as u8);
    }
    out.extend_from_slice(b"\xFF\xD9");
    out
}

/// A document of `pages` pages: each draws `content(page)` and, when `photo_bytes` is not 0, a
/// photograph of that size.
fn document(pages: usize, photo_bytes: usize, content: impl Fn(usize) -> Vec<u8>) -> Vec<u8> {
    let per_page = if photo_bytes > 0 { 3 } else { 2 };
    let first = 4;
    let kids: Vec<String> = (0..pages)
        .map(|p| format!("{} 0 R", first + p * per_page))
        .collect();
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        format!(
            "<< /Type /Pages /Kids [{}] /Count {pages} >>",
            kids.join(" ")
        )
        .into_bytes(),
        FONT.to_vec(),
    ];
    for page in 0..pages {
        let id = first + page * per_page;
        let (images, draw_photo) = if photo_bytes > 0 {
            (
                format!(" /XObject << /Im1 {} 0 R >>", id + 2),
                "q 300 0 0 200 150 80 cm /Im1 Do Q\n",
            )
        } else {
            (String::new(), "")
        };
        objects.push(format!("{PAGE_OPEN}{images} >> /Contents {} 0 R >>", id + 1).into_bytes());
        let mut drawing = draw_photo.as_bytes().to_vec();
        drawing.extend(content(page));
        objects.push(if photo_bytes > 0 {
            pdf::stream_object("/Filter /FlateDecode", &pdf::compress(&drawing))
        } else {
            pdf::stream_object("", &drawing)
        });
        if photo_bytes > 0 {
            objects.push(pdf::stream_object(
                "/Type /XObject /Subtype /Image /Width 1200 /Height 800 /ColorSpace /DeviceRGB \
                 /BitsPerComponent 8 /Filter /DCTDecode",
                &photo(photo_bytes, page as u64 + 1),
            ));
        }
    }
    pdf::write_objects(&objects, "/Root 1 0 R")
}

/// The annual report: 42 lines of 76 characters a page and a 38 KB photograph.
fn report(pages: usize) -> Vec<u8> {
    document(pages, 38 * 1024, |page| page_content(page, 42, 76, 10.0))
}

/// Dense text: 150 lines of 240 characters a page at 4 points, drawn uncompressed.
fn dense_text(pages: usize) -> Vec<u8> {
    document(pages, 0, |page| page_content(page, 150, 240, 4.0))
}

/// Resident bytes of this process now.
fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

/// One read of `bytes`, timed, with the resident memory it added at its peak.
fn measure(bytes: &[u8], limits: &PdfLimits) -> (Result<usize, PdfRefusal>, Duration, u64) {
    let before = resident_bytes();
    let peak = Arc::new(AtomicU64::new(before));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (peak, done) = (Arc::clone(&peak), Arc::clone(&done));
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                peak.fetch_max(resident_bytes(), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(1));
            }
        })
    };
    let started = Instant::now();
    let read = pdf_to_text(bytes, limits, &AtomicBool::new(false)).map(|t| t.text.len());
    let elapsed = started.elapsed();
    peak.fetch_max(resident_bytes(), Ordering::Relaxed);
    done.store(true, Ordering::Relaxed);
    let _ = sampler.join();
    (
        read,
        elapsed,
        peak.load(Ordering::Relaxed).saturating_sub(before),
    )
}

/// Prints one read of `bytes` within `limits`: what it gave, its time, throughput and memory.
fn report_once(name: &str, bytes: &[u8], limits: &PdfLimits) {
    let (read, elapsed, added) = measure(bytes, limits);
    let mb = bytes.len() as f64 / 1e6;
    let outcome = match &read {
        Ok(text) => format!("{:.1} MB of text", *text as f64 / 1e6),
        Err(refusal) => format!("refused: {refusal}"),
    };
    eprintln!(
        "{name}: {mb:.1} MB read in {:.2} s ({:.1} MB/s), {outcome}; resident memory +{:.0} MB at \
         its peak",
        elapsed.as_secs_f64(),
        mb / elapsed.as_secs_f64(),
        added as f64 / 1e6
    );
}

fn bench_documents(c: &mut Criterion) {
    // Criterion measures only when run with `--bench`; otherwise it runs each bench once.
    let pages = if std::env::args().any(|a| a == "--bench") {
        PAGES
    } else {
        TEST_MODE_PAGES
    };
    // The fetcher's limits: fetch.max_pdf_* and fetch.max_text_bytes at their defaults.
    let service = PdfLimits {
        max_text_bytes: 2 << 20,
        ..PdfLimits::default()
    };
    let unbounded_text = PdfLimits {
        max_text_bytes: 64 << 20,
        ..PdfLimits::default()
    };
    let report = report(pages);
    let dense = dense_text(pages);
    report_once("report", &report, &service);
    report_once("dense text, text cap raised", &dense, &unbounded_text);
    report_once("dense text, default text cap", &dense, &service);

    let mut group = c.benchmark_group("pdf_to_text");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Bytes(report.len() as u64));
    group.bench_function("report_20mb_500_pages", |b| {
        b.iter(|| {
            let text = pdf_to_text(black_box(&report), &service, &AtomicBool::new(false));
            assert!(text.is_ok(), "{:?}", text.err());
        })
    });
    group.throughput(Throughput::Bytes(dense.len() as u64));
    group.bench_function("dense_text_20mb_500_pages", |b| {
        b.iter(|| {
            let text = pdf_to_text(black_box(&dense), &unbounded_text, &AtomicBool::new(false));
            assert!(text.is_ok(), "{:?}", text.err());
        })
    });
    group.finish();
}

criterion_group!(benches, bench_documents);
criterion_main!(benches);
