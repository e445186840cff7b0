//! A cited data file (CSV) read to text, as an HTML table is read.
//!
//! A statistics office often publishes its figures as a CSV beside the page, and a story cites
//! the file. The judge reads prose, so the file is written as the sentences a table on a web
//! page becomes (`webpage::table_row_text`): the first row is the header, the first column
//! each row's label, and every figure a sentence with both ("Wellington, March 2025: 1,412.").
//! A figure then reads the same from the CSV, the page's table and a PDF's.
//!
//! The header row is not a passage of its own, as an HTML table's is not: it is in every
//! sentence. The file is bounded twice: by its rows ([`CsvLimits::max_rows`]), refused in words past them,
//! and by the text it becomes ([`CsvLimits::max_text_bytes`]), checked as it is written.

use std::sync::atomic::{AtomicBool, Ordering};

use super::webpage::{self, TextKind, table_row_text};

/// How much of a CSV file is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvLimits {
    /// The most rows, the header included (`fetch.max_csv_rows`).
    pub max_rows: usize,
    /// The most bytes of the text the rows become (`fetch.max_text_bytes`).
    pub max_text_bytes: usize,
}

/// The default `max_rows`: a year of daily figures for a hundred places fits, a dump of a
/// database does not, and the text of more rows than this would pass the text cap anyway.
pub const DEFAULT_MAX_CSV_ROWS: usize = 50_000;

/// Why a CSV file was not read, in words an editor understands.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum CsvRefusal {
    #[error("the data file has more than {limit} rows (fetch.max_csv_rows)")]
    TooManyRows { limit: usize },
    #[error("the data file's rows make more than {limit} bytes of text (fetch.max_text_bytes)")]
    TextTooLong { limit: usize },
    #[error("the data file is not text (it holds NUL bytes)")]
    NotText,
    #[error("the data file could not be read: {0}")]
    Damaged(String),
    #[error("the data file has no text")]
    NoText,
    #[error("reading the data file was cancelled")]
    Cancelled,
}

/// How often (in rows) the cancel flag is looked at.
const CANCEL_EVERY_ROWS: usize = 1024;

/// The text of the CSV file in `bytes` (decoded by its BOM or `charset`, else as UTF-8), read
/// within `limits`: each row's sentences, blank lines between them.
///
/// # Errors
///
/// A [`CsvRefusal`]: too many rows, too much text, binary data, a row that cannot be parsed, no
/// text at all, or `cancel` raised.
pub fn csv_to_text(
    bytes: &[u8],
    charset: Option<&str>,
    limits: &CsvLimits,
    cancel: &AtomicBool,
) -> Result<String, CsvRefusal> {
    if bytes.contains(&0) {
        return Err(CsvRefusal::NotText);
    }
    let text = webpage::decode(bytes, charset, TextKind::Plain);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter(&text))
        .from_reader(text.as_bytes());
    let mut header: Option<Vec<String>> = None;
    let mut out: Vec<String> = Vec::new();
    let mut bytes_out = 0usize;
    for (row, record) in reader.records().enumerate() {
        if row >= limits.max_rows {
            return Err(CsvRefusal::TooManyRows {
                limit: limits.max_rows,
            });
        }
        if row % CANCEL_EVERY_ROWS == 0 && cancel.load(Ordering::Relaxed) {
            return Err(CsvRefusal::Cancelled);
        }
        let record = record.map_err(|e| CsvRefusal::Damaged(e.to_string()))?;
        let cells: Vec<String> = record.iter().map(tidy_cell).collect();
        if cells.iter().all(String::is_empty) {
            continue;
        }
        // The header is written into every row's sentences, as an HTML table's is: it is not
        // a passage of its own.
        let Some(header) = &header else {
            header = Some(cells);
            continue;
        };
        let written = out.len();
        table_row_text(Some(header), &cells, true, &mut out);
        bytes_out += out[written..].iter().map(|s| s.len() + 2).sum::<usize>();
        if bytes_out > limits.max_text_bytes {
            return Err(CsvRefusal::TextTooLong {
                limit: limits.max_text_bytes,
            });
        }
    }
    // A file of headings alone says what they are.
    if out.is_empty()
        && let Some(header) = header
    {
        out.push(header.join(" | "));
    }
    let text = out.join("\n\n");
    if text.trim().is_empty() {
        return Err(CsvRefusal::NoText);
    }
    Ok(text)
}

/// The delimiter the file's first line uses most: a comma, or the semicolon of the locales that
/// write a decimal comma, or a tab.
fn delimiter(text: &str) -> u8 {
    let first = text.lines().next().unwrap_or("");
    let count = |c: char| first.matches(c).count();
    [(b',', count(',')), (b';', count(';')), (b'\t', count('\t'))]
        .into_iter()
        .max_by_key(|&(delimiter, n)| (n, delimiter == b','))
        .map_or(b',', |(delimiter, _)| delimiter)
}

/// A cell as a sentence holds it: trimmed, its line breaks and runs of space one space.
fn tidy_cell(cell: &str) -> String {
    cell.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(csv: &str) -> Result<String, CsvRefusal> {
        let limits = CsvLimits {
            max_rows: 100,
            max_text_bytes: 10_000,
        };
        csv_to_text(csv.as_bytes(), None, &limits, &AtomicBool::new(false))
    }

    #[test]
    fn rows_become_the_sentences_an_html_table_becomes() {
        let text = read(
            "Region,2023,2024\nNorth,\"1,204\",\"1,310\"\nSouth,980,1015\n\n\"East\nCoast\",7%,8%\n",
        )
        .expect("read");
        assert_eq!(
            text,
            "North, 2023: 1,204.\n\nNorth, 2024: 1,310.\n\n\
             South, 2023: 980.\n\nSouth, 2024: 1015.\n\nEast Coast, 2023: 7%.\n\n\
             East Coast, 2024: 8%."
        );
        // A decimal-comma locale's semicolons.
        let text = read("Gemeinde;Einwohner\nBerg;1.204\n").expect("read");
        assert_eq!(text, "Berg, Einwohner: 1.204.");
        // Headings alone are read as what they are.
        assert_eq!(read("Region,Count\n").as_deref(), Ok("Region | Count"));
    }

    #[test]
    fn files_past_their_caps_or_not_text_are_refused_in_words() {
        let long: String = std::iter::once("Place,Count\n".to_owned())
            .chain((0..200).map(|i| format!("Place,{i}\n")))
            .collect();
        assert_eq!(read(&long), Err(CsvRefusal::TooManyRows { limit: 100 }));
        let wide = format!("A,B\nRow,{}\n", "9".repeat(20_000));
        assert_eq!(read(&wide), Err(CsvRefusal::TextTooLong { limit: 10_000 }));
        assert_eq!(read("a,b\0c\n"), Err(CsvRefusal::NotText));
        assert_eq!(read(" , \n,,\n"), Err(CsvRefusal::NoText));
        let cancelled = AtomicBool::new(true);
        let limits = CsvLimits {
            max_rows: 10,
            max_text_bytes: 100,
        };
        assert_eq!(
            csv_to_text(b"a,b\n", None, &limits, &cancelled),
            Err(CsvRefusal::Cancelled)
        );
        assert!(
            CsvRefusal::TooManyRows { limit: 50_000 }
                .to_string()
                .contains("more than 50000 rows")
        );
    }
}
