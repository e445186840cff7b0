// A small PDF writer for the tests' sources (included by `cases.rs` as its `pdf` module): a
// case's `.pdf` source is written as the text of the document (pages separated by a line
// `=== page break ===`, a table as Markdown pipe rows), and served as a real PDF made here:
// Helvetica in WinAnsiEncoding, one text object per line, a table's cells at column positions,
// content streams compressed with Flate as real PDFs' are.

use flate2::Compression;
use flate2::write::ZlibEncoder;
use std::io::Write;

/// The line that separates two pages in a source's text.
pub const PAGE_BREAK: &str = "=== page break ===";

const PAGE_WIDTH: f64 = 595.0;
const PAGE_HEIGHT: f64 = 842.0;
const MARGIN: f64 = 56.0;
const FONT_SIZE: f64 = 10.0;
const LEADING: f64 = 13.0;
/// Characters per line of body text (Helvetica at 10 pt averages about 5 pt a character).
const LINE_CHARS: usize = 92;

/// One line laid out on a page: its cells and the x position of each.
struct Line {
    cells: Vec<(f64, String)>,
    bold: bool,
}

/// The PDF for `text`, written as described in the module doc.
pub fn pdf_from_text(text: &str) -> Vec<u8> {
    let mut pages: Vec<Vec<Line>> = Vec::new();
    for page_text in text.split(PAGE_BREAK) {
        let mut lines = lay_out(page_text);
        // A page longer than the sheet flows on to the next.
        let per_page = ((PAGE_HEIGHT - 2.0 * MARGIN) / LEADING) as usize;
        while lines.len() > per_page {
            let rest = lines.split_off(per_page);
            pages.push(lines);
            lines = rest;
        }
        pages.push(lines);
    }
    write_pdf(&pages)
}

/// The lines of one page: paragraphs wrapped, pipe rows as table rows with column positions.
fn lay_out(text: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut table: Vec<Vec<String>> = Vec::new();
    let flush_table = |table: &mut Vec<Vec<String>>, out: &mut Vec<Line>| {
        if table.is_empty() {
            return;
        }
        let columns = table.iter().map(Vec::len).max().unwrap_or(1);
        // The first column takes what its labels need; the others share the rest.
        let label_chars = table
            .iter()
            .filter_map(|r| r.first())
            .map(|c| c.chars().count())
            .max()
            .unwrap_or(10)
            .clamp(8, 40);
        let label_width = label_chars as f64 * 5.2 + 12.0;
        let rest = (PAGE_WIDTH - 2.0 * MARGIN - label_width).max(60.0);
        let col_width = rest / (columns.saturating_sub(1).max(1)) as f64;
        for (i, row) in table.drain(..).enumerate() {
            let cells = row
                .into_iter()
                .enumerate()
                .map(|(c, cell)| {
                    let x = if c == 0 {
                        MARGIN
                    } else {
                        MARGIN + label_width + (c - 1) as f64 * col_width
                    };
                    (x, cell)
                })
                .collect();
            out.push(Line {
                cells,
                bold: i == 0,
            });
        }
        out.push(Line {
            cells: Vec::new(),
            bold: false,
        });
    };
    for raw in text.lines() {
        let line = raw.trim();
        if line.starts_with('|') {
            let cells: Vec<String> = line
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_owned())
                .collect();
            let separator = cells
                .iter()
                .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')));
            if !separator {
                table.push(cells);
            }
            continue;
        }
        flush_table(&mut table, &mut out);
        if line.is_empty() {
            out.push(Line {
                cells: Vec::new(),
                bold: false,
            });
            continue;
        }
        let heading = line.starts_with('#');
        let line = line.trim_start_matches('#').trim();
        for wrapped in wrap(line, LINE_CHARS) {
            out.push(Line {
                cells: vec![(MARGIN, wrapped)],
                bold: heading,
            });
        }
    }
    flush_table(&mut table, &mut out);
    out
}

/// `text` in lines of at most `width` characters, broken at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in text.split_whitespace() {
        if !current.is_empty() && current.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// `text` as a PDF string literal in WinAnsiEncoding: `(…)` with `(`, `)` and `\` escaped and
/// characters outside the encoding as `?`.
fn pdf_string(text: &str) -> Vec<u8> {
    let mut out = vec![b'('];
    for ch in text.chars() {
        let byte = win_ansi(ch).unwrap_or(b'?');
        if matches!(byte, b'(' | b')' | b'\\') {
            out.push(b'\\');
        }
        out.push(byte);
    }
    out.push(b')');
    out
}

/// The WinAnsiEncoding byte of `ch`, where it has one.
fn win_ansi(ch: char) -> Option<u8> {
    let code = ch as u32;
    match ch {
        '\u{20AC}' => Some(0x80),
        '\u{201A}' => Some(0x82),
        '\u{0192}' => Some(0x83),
        '\u{201E}' => Some(0x84),
        '\u{2026}' => Some(0x85),
        '\u{2020}' => Some(0x86),
        '\u{2021}' => Some(0x87),
        '\u{02C6}' => Some(0x88),
        '\u{2030}' => Some(0x89),
        '\u{0160}' => Some(0x8A),
        '\u{2039}' => Some(0x8B),
        '\u{0152}' => Some(0x8C),
        '\u{017D}' => Some(0x8E),
        '\u{2018}' => Some(0x91),
        '\u{2019}' => Some(0x92),
        '\u{201C}' => Some(0x93),
        '\u{201D}' => Some(0x94),
        '\u{2022}' => Some(0x95),
        '\u{2013}' => Some(0x96),
        '\u{2014}' => Some(0x97),
        '\u{02DC}' => Some(0x98),
        '\u{2122}' => Some(0x99),
        '\u{0161}' => Some(0x9A),
        '\u{203A}' => Some(0x9B),
        '\u{0153}' => Some(0x9C),
        '\u{017E}' => Some(0x9E),
        '\u{0178}' => Some(0x9F),
        '\u{2212}' => Some(b'-'),
        '\u{00A0}' => Some(b' '),
        _ if (0x20..0x7F).contains(&code) || (0xA1..=0xFF).contains(&code) => Some(code as u8),
        _ => None,
    }
}

/// The content stream of one page.
fn content(lines: &[Line]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut y = PAGE_HEIGHT - MARGIN;
    for line in lines {
        for (x, cell) in &line.cells {
            let font = if line.bold { "F2" } else { "F1" };
            out.extend_from_slice(
                format!("BT /{font} {FONT_SIZE} Tf {x:.1} {y:.1} Td ").as_bytes(),
            );
            out.extend(pdf_string(cell));
            out.extend_from_slice(b" Tj ET\n");
        }
        y -= LEADING;
    }
    out
}

pub fn compress(data: &[u8]) -> Vec<u8> {
    let mut encoder = ZlibEncoder::new(Vec::new(), Compression::default());
    encoder
        .write_all(data)
        .expect("writing to a Vec cannot fail");
    encoder.finish().expect("writing to a Vec cannot fail")
}

/// The document: catalog, page tree, two fonts, then a page and its content per page.
fn write_pdf(pages: &[Vec<Line>]) -> Vec<u8> {
    let mut objects: Vec<Vec<u8>> = Vec::new();
    let page_ids: Vec<usize> = (0..pages.len()).map(|i| 5 + 2 * i).collect();
    objects.push(b"<< /Type /Catalog /Pages 2 0 R >>".to_vec());
    let kids: Vec<String> = page_ids.iter().map(|id| format!("{id} 0 R")).collect();
    objects.push(
        format!(
            "<< /Type /Pages /Kids [{}] /Count {} >>",
            kids.join(" "),
            pages.len()
        )
        .into_bytes(),
    );
    objects.push(
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
            .to_vec(),
    );
    objects.push(
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>"
            .to_vec(),
    );
    for (i, lines) in pages.iter().enumerate() {
        let content_id = page_ids[i] + 1;
        objects.push(
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {PAGE_WIDTH} {PAGE_HEIGHT}] \
                 /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents {content_id} 0 R >>"
            )
            .into_bytes(),
        );
        let stream = compress(&content(lines));
        let mut object = format!(
            "<< /Length {} /Filter /FlateDecode >>\nstream\n",
            stream.len()
        )
        .into_bytes();
        object.extend(stream);
        object.extend_from_slice(b"\nendstream");
        objects.push(object);
    }
    write_objects(&objects, "/Root 1 0 R")
}

/// A stream object: `dict` (entries without `<< >>`) with its `/Length`, then `data`.
pub fn stream_object(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut object = format!("<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
    object.extend_from_slice(data);
    object.extend_from_slice(b"\nendstream");
    object
}

/// A document of `objects`, numbered from 1, with a cross-reference table and a trailer of
/// `trailer` (entries without `<< >>`; `/Size` is added).
pub fn write_objects(objects: &[Vec<u8>], trailer: &str) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n".to_vec();
    let mut offsets = Vec::with_capacity(objects.len());
    for (i, object) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(object);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} {trailer} >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// A one-page document whose page has `resources` (entries without `<< >>`) and draws
/// `content`; `extra` objects follow the first four (catalog, pages, page, content) as 5, 6, …
fn one_page(resources: &str, content: &[u8], extra: Vec<Vec<u8>>, trailer: &str) -> Vec<u8> {
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {PAGE_WIDTH} {PAGE_HEIGHT}] \
             /Resources << {resources} >> /Contents 4 0 R >>"
        )
        .into_bytes(),
        stream_object("", content),
    ];
    objects.extend(extra);
    write_objects(&objects, &format!("/Root 1 0 R {trailer}"))
}

/// A PDF encrypted with the standard handler (RC4, 40 bits): what a reader must not decrypt.
pub fn encrypted_pdf() -> Vec<u8> {
    let encrypt = b"<< /Filter /Standard /V 1 /R 2 \
        /O <0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef> \
        /U <0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef> /P -4 >>";
    one_page(
        "",
        b"BT /F1 10 Tf 56 786 Td (Completions rose to 48,200.) Tj ET",
        vec![encrypt.to_vec()],
        "/Encrypt 5 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]",
    )
}

/// A scanned document: one page that only draws an image XObject, with no text layer.
pub fn scanned_pdf() -> Vec<u8> {
    let jpeg = b"\xFF\xD8\xFF\xE0\x00\x10JFIF\x00 (a scan of a page) \xFF\xD9";
    let image = stream_object(
        "/Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray \
         /BitsPerComponent 8 /Filter /DCTDecode",
        jpeg,
    );
    one_page(
        "/XObject << /Im1 5 0 R >>",
        b"q 595 0 0 842 0 0 cm /Im1 Do Q",
        vec![image],
        "",
    )
}

/// A decompression bomb: a page of text beside a Flate stream that expands to `zeros` zero
/// bytes from a few kilobytes per megabyte.
pub fn bomb_pdf(zeros: usize) -> Vec<u8> {
    let font = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
    one_page(
        "/Font << /F1 5 0 R >>",
        b"BT /F1 10 Tf 56 786 Td (Completions rose to 48,200.) Tj ET",
        vec![
            font.to_vec(),
            stream_object("/Filter /FlateDecode", &compress(&vec![0u8; zeros])),
        ],
        "",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pdf_has_its_pages_and_an_xref_that_points_at_its_objects() {
        let pdf = pdf_from_text(
            "Title\n\nSome text (with brackets).\n=== page break ===\n| A | 2024 |\n|---|---|\n| North | 5% |\n",
        );
        assert!(pdf.starts_with(b"%PDF-1.4"));
        let find = |needle: &[u8]| pdf.windows(needle.len()).rposition(|w| w == needle);
        assert!(find(b"/Count 2").is_some());
        let at = find(b"startxref\n").unwrap() + b"startxref\n".len();
        let tail = String::from_utf8_lossy(&pdf[at..]);
        let start: usize = tail.lines().next().unwrap().parse().unwrap();
        assert!(pdf[start..].starts_with(b"xref"));
        // Object 3's offset, as the xref gives it, is where "3 0 obj" starts.
        let xref = String::from_utf8_lossy(&pdf[start..]);
        let entry = xref.lines().nth(5).unwrap();
        let offset: usize = entry[..10].parse().unwrap();
        assert!(pdf[offset..].starts_with(b"3 0 obj"));
    }
}
