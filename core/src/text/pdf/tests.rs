//! PDFs written here, from plain ones to hostile ones, read as an editor would check them: the
//! text and its pages, the tables as sentences, and every refusal with its reason.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use proptest::prelude::*;

use super::test_pdf::{PAGE_BREAK, compress, pdf_from_text, stream_object, write_objects};
use super::*;

fn read(bytes: &[u8]) -> Result<PdfText, PdfRefusal> {
    pdf_to_text(bytes, &PdfLimits::default(), &AtomicBool::new(false))
}

fn read_with(bytes: &[u8], limits: &PdfLimits) -> Result<PdfText, PdfRefusal> {
    pdf_to_text(bytes, limits, &AtomicBool::new(false))
}

const FONT: &str =
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";

/// A one-page document whose page has `resources` (entries without `<< >>`, the font /F1
/// added) and draws `content`; `extra` objects follow as 6, 7, …
/// Objects: 1 catalog, 2 pages, 3 page, 4 content, 5 font.
fn one_page(resources: &str, content: &[u8], extra: Vec<Vec<u8>>) -> Vec<u8> {
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] \
             /Resources << /Font << /F1 5 0 R >> {resources} >> /Contents 4 0 R >>"
        )
        .into_bytes(),
        stream_object("/Filter /FlateDecode", &compress(content)),
        FONT.as_bytes().to_vec(),
    ];
    objects.extend(extra);
    write_objects(&objects, "/Root 1 0 R")
}

#[test]
fn a_multi_page_report_reads_with_its_pages_numbered() {
    let source = format!(
        "Annual report 2025\n\nRevenue rose to £4.2m in the year.\n{PAGE_BREAK}\nStaff numbers fell to 212.\n{PAGE_BREAK}\nThe board met eleven times."
    );
    let pdf = read(&pdf_from_text(&source)).expect("a plain report reads");
    assert_eq!(pdf.page_starts.len(), 3);
    assert_eq!(
        pdf.text,
        "Annual report 2025\n\nRevenue rose to £4.2m in the year.\n\nStaff numbers fell to 212.\n\nThe board met eleven times."
    );
    let at = |needle: &str| {
        pdf.text[..pdf.text.find(needle).expect(needle)]
            .chars()
            .count()
    };
    assert_eq!(pdf.page_of(at("Revenue")), 1);
    assert_eq!(pdf.page_of(at("Staff")), 2);
    assert_eq!(pdf.page_of(at("212")), 2);
    assert_eq!(pdf.page_of(at("eleven")), 3);
    assert_eq!(pdf.page_of(0), 1);
    // No Title in the document: its first line, short enough, stands for one.
    assert_eq!(pdf.title.as_deref(), Some("Annual report 2025"));
}

#[test]
fn a_table_reads_as_one_sentence_per_figure_with_its_row_and_column() {
    let source = "Spending by area\n\n| Area | 2024-25 | 2025-26 |\n|---|---|---|\n| Kettlebridge | £3.1m | £3.3m |\n| Northfield | £2.0m | £2.4m |\n\nAll figures are in cash terms.";
    let pdf = read(&pdf_from_text(source)).expect("a table reads");
    assert_eq!(
        pdf.text,
        "Spending by area\n\nKettlebridge, 2024-25: £3.1m.\n\nKettlebridge, 2025-26: £3.3m.\n\nNorthfield, 2024-25: £2.0m.\n\nNorthfield, 2025-26: £2.4m.\n\nAll figures are in cash terms."
    );
}

#[test]
fn a_table_with_a_worded_header_and_an_empty_cell_keeps_its_columns() {
    let source = "| Party | Votes | Share |\n|---|---|---|\n| Forward | 847 | 41% |\n| National |  | 30% |\n";
    let pdf = read(&pdf_from_text(source)).expect("a table reads");
    assert_eq!(
        pdf.text,
        "Forward, Votes: 847.\n\nForward, Share: 41%.\n\nNational, Share: 30%."
    );
}

#[test]
fn lines_join_into_paragraphs_and_hyphenated_words_join_again() {
    let source = "The council's plan was described as a com-\nprehensive review of spending in the north-\nern wards and of the Anglo-\nSaxon archive.\n\nA second paragraph starts here\nand continues.";
    let pdf = read(&pdf_from_text(source)).expect("prose reads");
    assert_eq!(
        pdf.text,
        "The council's plan was described as a comprehensive review of spending in the northern wards and of the Anglo-Saxon archive.\n\nA second paragraph starts here and continues."
    );
}

#[test]
fn the_document_title_is_taken_from_its_information_dictionary() {
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>".to_vec(),
        stream_object("", b"BT /F1 10 Tf 56 786 Td (Body text.) Tj ET"),
        FONT.as_bytes().to_vec(),
    ];
    objects.push(b"<< /Title (Statement of accounts 2024) >>".to_vec());
    let bytes = write_objects(&objects, "/Root 1 0 R /Info 6 0 R");
    let pdf = read(&bytes).expect("reads");
    assert_eq!(pdf.title.as_deref(), Some("Statement of accounts 2024"));
    assert_eq!(pdf.text, "Body text.");
}

#[test]
fn an_encrypted_pdf_is_refused_without_decryption() {
    let encrypt = b"<< /Filter /Standard /V 1 /R 2 /O <0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef> /U <0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef> /P -4 >>".to_vec();
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>".to_vec(),
        stream_object("", b"BT /F1 10 Tf (x) Tj ET"),
    ];
    objects.push(encrypt);
    let bytes = write_objects(
        &objects,
        "/Root 1 0 R /Encrypt 5 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]",
    );
    assert_eq!(read(&bytes), Err(PdfRefusal::Encrypted));
    assert_eq!(PdfRefusal::Encrypted.to_string(), "the PDF is encrypted");
}

#[test]
fn a_page_that_only_draws_an_image_is_a_scan() {
    let jpeg = b"\xFF\xD8\xFF\xE0\x00\x10JFIF\x00 (not really) [[[ << BT ET >> \xFF\xD9";
    let image = stream_object(
        "/Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode",
        jpeg,
    );
    let bytes = one_page(
        "/XObject << /Im1 6 0 R >>",
        b"q 595 0 0 842 0 0 cm /Im1 Do Q",
        vec![image],
    );
    assert_eq!(read(&bytes), Err(PdfRefusal::Scanned));
    let empty = one_page("", b"q Q", vec![]);
    assert_eq!(read(&empty), Err(PdfRefusal::NoText));
}

#[test]
fn an_image_beside_text_is_skipped_and_the_text_read() {
    let image = stream_object(
        "/Type /XObject /Subtype /Image /Width 4 /Height 1 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode",
        &compress(b"\x00\x01\x02(((((\x03\x04\x05\x06"),
    );
    let bytes = one_page(
        "/XObject << /Im1 6 0 R >>",
        b"q 100 0 0 50 56 700 cm /Im1 Do Q BT /F1 10 Tf 56 786 Td (Figure 1: turnout by ward.) Tj ET",
        vec![image],
    );
    let pdf = read(&bytes).expect("the text beside an image reads");
    assert_eq!(pdf.text, "Figure 1: turnout by ward.");
}

#[test]
fn a_decompression_bomb_is_refused_at_the_stream_limit() {
    let zeros = vec![0u8; 8 << 20];
    let bytes = one_page(
        "",
        b"BT ET",
        vec![stream_object("/Filter /FlateDecode", &compress(&zeros))],
    );
    assert!(
        bytes.len() < 64 * 1024,
        "the bomb is small: {}",
        bytes.len()
    );
    let limits = PdfLimits {
        max_stream_bytes: 1 << 20,
        ..PdfLimits::default()
    };
    assert_eq!(
        read_with(&bytes, &limits),
        Err(PdfRefusal::StreamsTooLarge { limit: 1 << 20 })
    );
    assert_eq!(
        PdfRefusal::StreamsTooLarge { limit: 268_435_456 }.to_string(),
        "the PDF's compressed streams expand past 268435456 bytes (fetch.max_pdf_stream_bytes)"
    );
}

#[test]
fn a_bomb_compressed_twice_or_hidden_in_another_stream_is_refused_too() {
    let limits = PdfLimits {
        max_stream_bytes: 1 << 20,
        ..PdfLimits::default()
    };
    let inner = compress(&vec![0u8; 8 << 20]);
    let twice = stream_object("/Filter [/FlateDecode /FlateDecode]", &compress(&inner));
    let bytes = one_page("", b"BT ET", vec![twice]);
    assert_eq!(
        read_with(&bytes, &limits),
        Err(PdfRefusal::StreamsTooLarge { limit: 1 << 20 })
    );
    // An object stream whose header sits inside another stream's data, where only the
    // cross-reference table points.
    let mut hidden =
        b"9 0 obj << /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode >>\nstream\n".to_vec();
    hidden.extend_from_slice(&inner);
    hidden.extend_from_slice(b"\nendstream");
    let bytes = one_page("", b"BT ET", vec![stream_object("", &hidden)]);
    assert_eq!(
        read_with(&bytes, &limits),
        Err(PdfRefusal::StreamsTooLarge { limit: 1 << 20 })
    );
}

#[test]
fn nesting_deeper_than_64_is_refused() {
    let deep = format!("/Deep {}1{}", "[".repeat(200), "]".repeat(200));
    let bytes = one_page(&deep, b"BT /F1 10 Tf 56 786 Td (x) Tj ET", vec![]);
    assert_eq!(read(&bytes), Err(PdfRefusal::NestedTooDeep { limit: 64 }));
}

#[test]
fn nesting_inside_compressed_drawing_needs_nothing_of_the_callers_stack() {
    // Inside a compressed stream the pre-scan cannot see it: lopdf's parser stops at 100
    // levels, more than a debug build fits in a thread's 2 MiB at 99. The read runs on a stack
    // of its own, so a caller with a small one is safe.
    for depth in [99, 150] {
        let content = format!(
            "/Fm1 Do BT /F1 10 Tf 56 786 Td {}(x){} TJ ET",
            "[".repeat(depth),
            "]".repeat(depth)
        );
        let form = stream_object("/Subtype /Form /BBox [0 0 1 1]", b"BT ET");
        let bytes = one_page("/XObject << /Fm1 6 0 R >>", content.as_bytes(), vec![form]);
        let result = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || read(&bytes))
            .expect("a thread")
            .join();
        assert!(result.is_ok(), "depth {depth} took the stack");
    }
}

#[test]
fn a_form_that_draws_itself_is_refused() {
    let form = stream_object(
        "/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /Fm1 6 0 R >> >>",
        b"/Fm1 Do",
    );
    let bytes = one_page("/XObject << /Fm1 6 0 R >>", b"/Fm1 Do", vec![form]);
    assert_eq!(read(&bytes), Err(PdfRefusal::FormLoop));
    assert_eq!(
        PdfRefusal::FormLoop.to_string(),
        "the PDF's object references loop (a form that draws itself)"
    );
    // Without resources of its own it draws with the page's, and so itself again.
    let bare = stream_object(
        "/Type /XObject /Subtype /Form /BBox [0 0 10 10]",
        b"/Fm1 Do",
    );
    let bytes = one_page("/XObject << /Fm1 6 0 R >>", b"/Fm1 Do", vec![bare]);
    assert_eq!(read(&bytes), Err(PdfRefusal::FormLoop));
}

#[test]
fn forms_nested_too_deep_or_drawn_a_billion_times_are_refused() {
    // Form n draws form n+1; twenty of them.
    let forms: Vec<Vec<u8>> = (0..20)
        .map(|i| {
            let next = 7 + i;
            stream_object(
                &format!(
                    "/Subtype /Form /BBox [0 0 1 1] /Resources << /XObject << /F {next} 0 R >> >>"
                ),
                if i < 19 { b"/F Do" } else { b"BT ET" },
            )
        })
        .collect();
    let bytes = one_page("/XObject << /F 6 0 R >>", b"/F Do", forms);
    assert_eq!(read(&bytes), Err(PdfRefusal::FormsTooDeep { limit: 16 }));

    // Eight forms, each drawing the next sixteen times: 16^8 drawings of nothing.
    let forms: Vec<Vec<u8>> = (0..8)
        .map(|i| {
            let next = 7 + i;
            let body = if i < 7 {
                "/F Do ".repeat(16)
            } else {
                "0 0 m ".repeat(200)
            };
            stream_object(
                &format!(
                    "/Subtype /Form /BBox [0 0 1 1] /Resources << /XObject << /F {next} 0 R >> >>"
                ),
                body.as_bytes(),
            )
        })
        .collect();
    let bytes = one_page("/XObject << /F 6 0 R >>", b"/F Do", forms);
    let started = Instant::now();
    let refused = read(&bytes);
    assert!(
        matches!(refused, Err(PdfRefusal::PageDrawsTooMuch { page: 1, .. })),
        "{refused:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn drawing_that_would_take_the_memory_is_refused_before_it_is_parsed() {
    // Fifteen hundred bytes compressed, 800,000 operations: lopdf would spend some 500 MB
    // parsing them.
    let spam = one_page("", "Q\n".repeat(800_000).as_bytes(), vec![]);
    assert!(spam.len() < 4096);
    assert!(matches!(
        read(&spam),
        Err(PdfRefusal::PageDrawsTooMuch {
            page: 1,
            operations: 400_000,
            ..
        })
    ));
    // Each `q` copies the graphics state until its `Q`.
    let nested = one_page("", "q ".repeat(40).as_bytes(), vec![]);
    assert_eq!(read(&nested), Err(PdfRefusal::StatesTooDeep { limit: 32 }));
    let balanced =
        "q 1 0 0 1 0 0 cm Q ".repeat(100) + "BT /F1 10 Tf 56 786 Td (Balanced states read.) Tj ET";
    let pdf = read(&one_page("", balanced.as_bytes(), vec![])).expect("balanced states read");
    assert_eq!(pdf.text, "Balanced states read.");
    // A soft mask copied with every saved state: a real one has half a dozen entries.
    let heavy_mask = format!(
        "/ExtGState << /G1 << /SMask << /S /Luminosity /Junk [{}] >> >> >>",
        "0 ".repeat(5_000)
    );
    let bytes = one_page(&heavy_mask, b"/G1 gs BT /F1 10 Tf (x) Tj ET", vec![]);
    assert!(matches!(read(&bytes), Err(PdfRefusal::Damaged(_))));
}

#[test]
fn a_page_whose_parent_chain_loops_is_refused() {
    let objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        // No resources or media box of its own: pdf-extract would look for them up the chain.
        b"<< /Type /Page /Parent 6 0 R /Contents 4 0 R >>".to_vec(),
        stream_object("", b"BT /F1 10 Tf (x) Tj ET"),
        FONT.as_bytes().to_vec(),
        b"<< /Type /Pages /Parent 3 0 R /Kids [3 0 R] /Count 1 >>".to_vec(),
    ];
    let bytes = write_objects(&objects, "/Root 1 0 R");
    assert_eq!(read(&bytes), Err(PdfRefusal::ParentLoop));
}

#[test]
fn more_pages_than_the_limit_are_refused_before_extraction() {
    let source = ["one", "two", "three"].join(&format!("\n{PAGE_BREAK}\n"));
    let limits = PdfLimits {
        max_pages: 2,
        ..PdfLimits::default()
    };
    assert_eq!(
        read_with(&pdf_from_text(&source), &limits),
        Err(PdfRefusal::TooManyPages { limit: 2 })
    );
    assert_eq!(
        PdfRefusal::TooManyPages { limit: 2000 }.to_string(),
        "the PDF has more than 2000 pages (fetch.max_pdf_pages)"
    );
    assert!(read_with(&pdf_from_text("one"), &limits).is_ok());
}

#[test]
fn more_objects_or_text_than_the_limits_are_refused() {
    let source = "A line of text that is long enough to pass a small limit on text.";
    let bytes = pdf_from_text(source);
    let few_objects = PdfLimits {
        max_objects: 3,
        ..PdfLimits::default()
    };
    assert_eq!(
        read_with(&bytes, &few_objects),
        Err(PdfRefusal::TooManyObjects { limit: 3 })
    );
    let little_text = PdfLimits {
        max_text_bytes: 20,
        ..PdfLimits::default()
    };
    assert_eq!(
        read_with(&bytes, &little_text),
        Err(PdfRefusal::TextTooLong { limit: 20 })
    );
}

#[test]
fn truncated_and_garbage_files_are_damaged() {
    let whole = pdf_from_text("Some text.\n\nMore text.");
    for cut in [whole.len() / 2, whole.len() - 30, 12] {
        let refused = read(&whole[..cut]);
        assert!(
            matches!(refused, Err(PdfRefusal::Damaged(_))),
            "cut at {cut}: {refused:?}"
        );
    }
    assert!(matches!(
        read(b"<html>not a pdf</html>"),
        Err(PdfRefusal::Damaged(_))
    ));
    let mut garbage = b"%PDF-1.7\n".to_vec();
    garbage.extend((0..4000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    assert!(read(&garbage).is_err());
    assert!(looks_like_pdf(b"junk\n%PDF-1.4\n"));
    assert!(!looks_like_pdf(&[b' '; 2000]));
}

#[test]
fn a_raised_cancel_flag_stops_the_read() {
    let bytes = pdf_from_text("Text that is never read.");
    let cancel = AtomicBool::new(true);
    assert_eq!(
        pdf_to_text(&bytes, &PdfLimits::default(), &cancel),
        Err(PdfRefusal::Cancelled)
    );
}

#[test]
fn the_collector_stops_pdf_extract_within_a_few_hundred_glyphs_of_a_cancel() {
    use pdf_extract::OutputDev;
    let cancel = AtomicBool::new(false);
    let mut collector = layout::Collector::new(1 << 20, &cancel);
    let trm = pdf_extract::Transform::identity();
    for _ in 0..1000 {
        collector
            .output_character(&trm, 0.5, 0.0, 10.0, "a")
            .expect("not cancelled");
    }
    cancel.store(true, std::sync::atomic::Ordering::Relaxed);
    let stopped_after = (0..1000).position(|_| {
        collector
            .output_character(&trm, 0.5, 0.0, 10.0, "a")
            .is_err()
    });
    assert!(stopped_after.is_some_and(|n| n <= 256), "{stopped_after:?}");
    assert_eq!(collector.stop, Some(PdfRefusal::Cancelled));
}

/// The limits the property tests read within: small, so that a case stays quick.
fn small_limits() -> PdfLimits {
    PdfLimits {
        max_pages: 50,
        max_objects: 5_000,
        max_stream_bytes: 4 << 20,
        max_text_bytes: 64 * 1024,
    }
}

/// Reads `bytes`, checking that the read returned in time and within the limits.
fn read_within_bounds(bytes: &[u8]) -> Result<(), TestCaseError> {
    let limits = small_limits();
    let started = Instant::now();
    let result = pdf_to_text(bytes, &limits, &AtomicBool::new(false));
    prop_assert!(started.elapsed() < Duration::from_secs(20));
    if let Ok(pdf) = result {
        prop_assert!(pdf.text.len() <= limits.max_text_bytes);
        prop_assert!(pdf.page_starts.len() <= limits.max_pages);
        prop_assert!(pdf.page_starts.windows(2).all(|w| w[0] <= w[1]));
        prop_assert!(
            pdf.page_starts
                .iter()
                .all(|&s| s <= pdf.text.chars().count())
        );
    }
    Ok(())
}

fn seed_pdf() -> Vec<u8> {
    pdf_from_text(&format!(
        "Report\n\nThe fund grew by 4% to £1.2m.\n\n| Area | 2024 | 2025 |\n|---|---|---|\n| North | 5% | 6% |\n{PAGE_BREAK}\nA second page."
    ))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(body in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let mut bytes = b"%PDF-1.4\n".to_vec();
        bytes.extend(body);
        read_within_bounds(&bytes)?;
    }

    #[test]
    fn mutations_of_a_valid_pdf_never_panic(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..4), 1..12),
    ) {
        let mut bytes = seed_pdf();
        for (at, byte, kind) in edits {
            let i = at.index(bytes.len().max(1));
            match kind {
                0 => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                2 => { bytes.remove(i); }
                _ => bytes.truncate(i.max(16)),
            }
            if bytes.is_empty() { break; }
        }
        read_within_bounds(&bytes)?;
    }
}

/// Not run by default: a 500-page, roughly 20 MB report (a page of prose and a table, with a
/// photograph's worth of incompressible image data, as real reports' size is mostly images and
/// fonts) read with the default limits; prints the time and the text's size. Run with
/// `cargo test --release -p factgate-core --lib bench_large_pdf -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a test: run it by name"]
fn bench_large_pdf() {
    let bytes = large_pdf(500);
    let started = Instant::now();
    let pdf = read(&bytes).expect("the large report reads");
    let elapsed = started.elapsed();
    println!(
        "pdf_to_text: {} pages, {:.1} MB of PDF in {:.2?}; text {} bytes ({} chars); peak RSS {}",
        pdf.page_starts.len(),
        bytes.len() as f64 / 1e6,
        elapsed,
        pdf.text.len(),
        pdf.text.chars().count(),
        peak_rss().unwrap_or_else(|| "unknown".into()),
    );
    assert_eq!(pdf.page_starts.len(), 500);
}

/// The process's peak resident set, from `/proc` where there is one.
fn peak_rss() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.trim_start_matches("VmHWM:").trim().to_owned())
}

/// A report of `pages` pages for the bench: prose, a table, and an image per page.
fn large_pdf(pages: usize) -> Vec<u8> {
    const WORDS: &[&str] = &[
        "the",
        "council",
        "spending",
        "rose",
        "by",
        "per",
        "cent",
        "in",
        "northern",
        "wards",
        "while",
        "housing",
        "budget",
        "fell",
        "to",
        "million",
        "according",
        "report",
        "board",
        "approved",
        "plan",
        "for",
        "schools",
        "and",
        "roads",
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        Vec::new(),
        FONT.as_bytes().to_vec(),
    ];
    let mut kids = Vec::new();
    for page in 0..pages {
        let mut content =
            String::from("q 200 0 0 120 340 60 cm /Im1 Do Q BT /F1 9 Tf 11 TL 56 790 Td\n");
        for line in 0..56 {
            let words: Vec<String> = (0..16)
                .map(|w| {
                    let n = next();
                    if (w + line) % 7 == 3 {
                        format!("{}.{}%", n % 90, n % 10)
                    } else {
                        WORDS[(n % WORDS.len() as u64) as usize].to_owned()
                    }
                })
                .collect();
            content.push_str(&format!("({}) Tj T*\n", words.join(" ")));
        }
        content.push_str("ET\n");
        for (row, area) in ["Area", "North", "South", "East"].iter().enumerate() {
            let y = 150 - 12 * row;
            content.push_str(&format!("BT /F1 9 Tf 56 {y} Td ({area}) Tj ET\n"));
            for (col, x) in [200, 280].iter().enumerate() {
                let cell = if row == 0 {
                    format!("{}", 2024 + col)
                } else {
                    format!("{}.{}m", next() % 50, page % 10)
                };
                content.push_str(&format!("BT /F1 9 Tf {x} {y} Td ({cell}) Tj ET\n"));
            }
        }
        let base = objects.len() + 1;
        kids.push(format!("{base} 0 R"));
        objects.push(
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> /XObject << /Im1 {} 0 R >> >> /Contents {} 0 R >>",
                base + 2,
                base + 1
            )
            .into_bytes(),
        );
        objects.push(stream_object(
            "/Filter /FlateDecode",
            &compress(content.as_bytes()),
        ));
        let pixels: Vec<u8> = (0..36_000).map(|_| (next() >> 24) as u8).collect();
        objects.push(stream_object(
            "/Type /XObject /Subtype /Image /Width 120 /Height 100 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode",
            &compress(&pixels),
        ));
    }
    objects[1] = format!(
        "<< /Type /Pages /Kids [{}] /Count {pages} >>",
        kids.join(" ")
    )
    .into_bytes();
    write_objects(&objects, "/Root 1 0 R")
}
