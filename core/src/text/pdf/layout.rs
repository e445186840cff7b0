//! A PDF page's glyphs as text: lines, words, paragraphs and tables.
//!
//! pdf-extract interprets the drawing and hands each glyph to an [`OutputDev`] with the matrix
//! that places it; its own text output guesses breaks glyph by glyph and loses the columns of a
//! table. [`Collector`] keeps each glyph's position and size instead and lays a page out when it
//! ends ([`page_text`]):
//!
//! 1. Glyphs drawn one after another on one baseline make a line (a line drawn in pieces, as a
//!    table's cells are, stays one line); a line's glyphs are read left to right.
//! 2. Within a line a gap of [`WORD_GAP`] ems is a space and one of [`CELL_GAP`] ems or more
//!    parts cells.
//! 3. A run of lines of two or more cells with figures in their later cells is a table, written
//!    as webpage's tables are ([`table_row_text`]): `"{row label}, {column header}: {cell}."`.
//! 4. Other lines make paragraphs, parted by a gap of more than 1.5 times the page's usual line
//!    pitch, a change of indentation or of type size; a paragraph's lines are joined by a space,
//!    and a word hyphenated across two lines is joined again where the next line begins in
//!    lower case.
//!
//! It also keeps the read bounded: the text received is counted against `max_text_bytes`, and
//! the cancel flag read, every [`CHECK_EVERY`] glyphs; either stops pdf-extract by answering
//! its next call with an error.

use std::sync::atomic::{AtomicBool, Ordering};

use pdf_extract::{MediaBox, OutputDev, OutputError, Transform};

use super::PdfRefusal;
use crate::text::webpage::table_row_text;

/// Glyphs between two looks at the cancel flag and the text budget.
const CHECK_EVERY: usize = 256;
/// A horizontal gap, in ems of the glyph's size, that separates two words: a space is about a
/// quarter of an em, letters' own spacing a few hundredths.
const WORD_GAP: f32 = 0.15;
/// A gap, in ems, that separates two cells of a table row: several spaces, more than justified
/// prose stretches one.
const CELL_GAP: f32 = 1.2;
/// How far, in ems, a glyph's baseline may sit from its line's and still belong to it
/// (superscripts and subscripts do; the next line, an em or more below, does not).
const BASELINE_TOLERANCE: f32 = 0.5;
/// The most rows of one table read cell by cell, as for HTML tables; past it, rows are lines.
const MAX_TABLE_ROWS_BY_CELL: usize = 500;

/// One glyph as drawn on the page, in the page's user space (y grows upwards).
#[derive(Debug, Clone, Copy)]
struct Glyph {
    x: f32,
    y: f32,
    /// Its type size on the page, the font size through the text matrix.
    size: f32,
    /// Its advance on the page.
    width: f32,
    /// Where its text starts in the page's glyph text, and its length in bytes.
    start: u32,
    len: u32,
    /// Whether a space glyph came just before it: a word break even where a font gives no
    /// widths and so no gaps.
    space_before: bool,
}

/// The pages read so far, each as its text.
#[derive(Debug, Default)]
pub(super) struct PageTexts {
    pub(super) pages: Vec<String>,
    /// The first line of the first page, a title where the document has none.
    pub(super) first_line: Option<String>,
}

/// The [`OutputDev`] pdf-extract draws into.
pub(super) struct Collector<'c> {
    cancel: &'c AtomicBool,
    max_text_bytes: usize,
    received: usize,
    until_check: usize,
    glyphs: Vec<Glyph>,
    glyph_text: String,
    space_pending: bool,
    pub(super) out: PageTexts,
    /// Why the read was stopped, when the collector stopped it.
    pub(super) stop: Option<PdfRefusal>,
}

impl<'c> Collector<'c> {
    pub(super) fn new(max_text_bytes: usize, cancel: &'c AtomicBool) -> Self {
        Collector {
            cancel,
            max_text_bytes,
            received: 0,
            until_check: CHECK_EVERY,
            glyphs: Vec::new(),
            glyph_text: String::new(),
            space_pending: false,
            out: PageTexts::default(),
            stop: None,
        }
    }

    /// Stops the read with `why`: pdf-extract returns at its next call into the collector.
    fn halt(&mut self, why: PdfRefusal) -> Result<(), OutputError> {
        self.stop = Some(why);
        Err(OutputError::FormatError(std::fmt::Error))
    }

    /// The budget and cancel checks, every [`CHECK_EVERY`] glyphs and at page ends.
    fn check(&mut self, now: bool) -> Result<(), OutputError> {
        if self.stop.is_some() {
            return Err(OutputError::FormatError(std::fmt::Error));
        }
        self.until_check = self.until_check.saturating_sub(1);
        if !now && self.until_check > 0 {
            return Ok(());
        }
        self.until_check = CHECK_EVERY;
        if self.cancel.load(Ordering::Relaxed) {
            return self.halt(PdfRefusal::Cancelled);
        }
        if self.received > self.max_text_bytes {
            let limit = self.max_text_bytes;
            return self.halt(PdfRefusal::TextTooLong { limit });
        }
        Ok(())
    }
}

impl OutputDev for Collector<'_> {
    fn begin_page(
        &mut self,
        _page_num: u32,
        _media_box: &MediaBox,
        _art_box: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        self.glyphs.clear();
        self.glyph_text.clear();
        self.space_pending = false;
        self.check(true)
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        let (text, first_line) = page_text(&self.glyphs, &self.glyph_text);
        if self.out.pages.is_empty() {
            self.out.first_line = first_line;
        }
        self.out.pages.push(text);
        self.glyphs.clear();
        self.glyph_text.clear();
        self.check(true)
    }

    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        _spacing: f64,
        font_size: f64,
        char: &str,
    ) -> Result<(), OutputError> {
        self.check(false)?;
        self.received = self.received.saturating_add(char.len());
        if char.chars().all(char::is_whitespace) {
            self.space_pending = true;
            return Ok(());
        }
        // The type size on the page: the font size scaled by the text matrix's area.
        let scale = (trm.m11 * trm.m22 - trm.m12 * trm.m21).abs().sqrt();
        let size = (font_size.abs() * scale) as f32;
        let (x, y) = (trm.m31 as f32, trm.m32 as f32);
        let advance = (width * font_size.abs() * scale) as f32;
        if ![x, y, size, advance].iter().all(|v| v.is_finite()) || size <= 0.0 {
            return Ok(());
        }
        let start = self.glyph_text.len();
        self.glyph_text
            .extend(char.chars().filter(|c| !c.is_control()));
        let (Ok(start32), Ok(len)) = (
            u32::try_from(start),
            u32::try_from(self.glyph_text.len() - start),
        ) else {
            let limit = self.max_text_bytes;
            return self.halt(PdfRefusal::TextTooLong { limit });
        };
        self.glyphs.push(Glyph {
            x,
            y,
            size,
            width: advance.max(0.0),
            start: start32,
            len,
            space_before: std::mem::take(&mut self.space_pending),
        });
        Ok(())
    }

    fn begin_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
}

/// A word on a line: its text and horizontal extent.
#[derive(Debug, Clone)]
struct Word {
    x0: f32,
    x1: f32,
    text: String,
}

/// A line of a page.
#[derive(Debug, Clone)]
struct Line {
    /// Its baseline.
    y: f32,
    /// Its largest type size.
    size: f32,
    /// Its cells, each a run of words.
    cells: Vec<Vec<Word>>,
}

impl Line {
    fn x0(&self) -> f32 {
        self.cells
            .first()
            .and_then(|c| c.first())
            .map_or(0.0, |w| w.x0)
    }

    fn cell_text(cell: &[Word]) -> String {
        cell.iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn cell_texts(&self) -> Vec<String> {
        self.cells.iter().map(|c| Self::cell_text(c)).collect()
    }

    /// The line as plain text: its cells joined by " | ".
    fn text(&self) -> String {
        self.cell_texts().join(" | ")
    }
}

/// A page's text, its blocks parted by blank lines, and its first line.
fn page_text(glyphs: &[Glyph], text: &str) -> (String, Option<String>) {
    let lines = lines(glyphs, text);
    let first_line = lines.first().map(Line::text);
    let pitch = line_pitch(&lines);
    let mut blocks: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if let Some(table) = table_at(&lines, i, pitch) {
            blocks.extend(table.text);
            i = table.end;
            continue;
        }
        let end = paragraph_end(&lines, i, pitch);
        blocks.push(paragraph(&lines[i..end]));
        i = end;
    }
    blocks.retain(|b| !b.is_empty());
    (blocks.join("\n\n"), first_line)
}

/// Step 1 and 2 of the module doc: glyphs into lines, each line's into words and cells.
fn lines(glyphs: &[Glyph], text: &str) -> Vec<Line> {
    // Runs of glyphs on one baseline, in drawing order; a run that continues the line before
    // (same baseline, to its right) joins it.
    let mut runs: Vec<Vec<Glyph>> = Vec::new();
    for glyph in glyphs {
        let joins = runs.last().and_then(|run| run.last()).is_some_and(|last| {
            let tolerance = BASELINE_TOLERANCE * last.size.max(glyph.size);
            (glyph.y - last.y).abs() <= tolerance
        });
        match runs.last_mut() {
            Some(run) if joins => run.push(*glyph),
            _ => runs.push(vec![*glyph]),
        }
    }
    runs.into_iter()
        .map(|mut run| {
            run.sort_by(|a, b| a.x.total_cmp(&b.x));
            words_and_cells(&run, text)
        })
        .filter(|line| !line.cells.is_empty())
        .collect()
}

fn words_and_cells(run: &[Glyph], text: &str) -> Line {
    let mut line = Line {
        y: run.first().map_or(0.0, |g| g.y),
        size: run.iter().map(|g| g.size).fold(0.0, f32::max),
        cells: Vec::new(),
    };
    let mut end = f32::NEG_INFINITY;
    let mut previous: Option<(&str, f32)> = None;
    for glyph in run {
        let start = glyph.start as usize;
        let piece = text.get(start..start + glyph.len as usize).unwrap_or("");
        // A glyph drawn twice, a hair apart, is a bold faked by overprinting: read once.
        let overprint = previous.is_some_and(|(p, x)| {
            p == piece && glyph.width > 0.0 && (glyph.x - x).abs() < 0.25 * glyph.width
        });
        if piece.is_empty() || overprint {
            continue;
        }
        previous = Some((piece, glyph.x));
        let gap = glyph.x - end;
        let new_cell = line.cells.is_empty() || gap >= CELL_GAP * glyph.size;
        let new_word = new_cell || gap > WORD_GAP * glyph.size || glyph.space_before;
        if new_cell {
            line.cells.push(Vec::new());
        }
        let Some(cell) = line.cells.last_mut() else {
            continue;
        };
        match cell.last_mut() {
            Some(word) if !new_word => {
                word.text.push_str(piece);
                word.x1 = word.x1.max(glyph.x + glyph.width);
            }
            _ => cell.push(Word {
                x0: glyph.x,
                x1: glyph.x + glyph.width,
                text: piece.to_owned(),
            }),
        }
        end = end.max(glyph.x + glyph.width);
    }
    line
}

/// The usual distance between the baselines of consecutive lines: the commonest, to the half
/// point, of the downward steps under three ems, but no more than 1.5 ems (a page of two lines
/// parted by a blank one has no other step to go by).
fn line_pitch(lines: &[Line]) -> f32 {
    let mut counts: Vec<(i32, usize)> = Vec::new();
    for pair in lines.windows(2) {
        let step = pair[0].y - pair[1].y;
        if step > 0.0 && step < 3.0 * pair[0].size.max(pair[1].size) {
            let key = (step * 2.0).round() as i32;
            match counts.iter_mut().find(|(k, _)| *k == key) {
                Some((_, n)) => *n += 1,
                None => counts.push((key, 1)),
            }
        }
    }
    let common = counts
        .iter()
        .max_by_key(|(key, n)| (*n, -key))
        .map(|(key, _)| *key as f32 / 2.0);
    let size = lines.first().map_or(10.0, |l| l.size);
    common.unwrap_or(1.2 * size).min(1.5 * size)
}

/// The end (exclusive) of the paragraph that starts at line `start` (step 4 of the module doc).
fn paragraph_end(lines: &[Line], start: usize, pitch: f32) -> usize {
    let mut end = start + 1;
    while let Some(line) = lines.get(end) {
        let prev = &lines[end - 1];
        let step = prev.y - line.y;
        let em = prev.size.max(line.size);
        let first_line_indent = end - 1 == start && line.x0() < prev.x0();
        let breaks = step > 1.5 * pitch.max(0.8 * em)
            || step < 0.5 * em
            || (line.size - prev.size).abs() > 0.2 * prev.size
            || ((line.x0() - prev.x0()).abs() > em && !first_line_indent)
            || line.cells.len() > 1
            || prev.cells.len() > 1;
        if breaks {
            break;
        }
        end += 1;
    }
    end
}

/// A paragraph's lines joined by spaces, a word hyphenated across a line break joined again
/// where the next line begins in lower case.
fn paragraph(lines: &[Line]) -> String {
    let mut out = String::new();
    for line in lines {
        let text = line.text();
        if out.is_empty() {
            out = text;
            continue;
        }
        let continues_lower = text.chars().next().is_some_and(char::is_lowercase);
        let before_hyphen = out
            .strip_suffix('-')
            .and_then(|rest| rest.chars().next_back());
        match before_hyphen {
            // "com-" + "prehensive": one word broken by the line.
            Some(c) if c.is_alphabetic() && continues_lower => {
                out.pop();
            }
            // "Anglo-" + "Saxon", "2019-" + "20": a hyphen of the text's own.
            Some(c) if c.is_alphanumeric() => {}
            _ => out.push(' '),
        }
        out.push_str(&text);
    }
    out
}

/// A table found at a line, and the line after it.
struct Table {
    text: Vec<String>,
    end: usize,
}

fn has_digit(text: &str) -> bool {
    text.chars().any(|c| c.is_ascii_digit())
}

/// Whether a line's cells after the first hold a figure.
fn is_figure_row(line: &Line) -> bool {
    line.cells.len() > 1 && line.cell_texts().iter().skip(1).any(|c| has_digit(c))
}

/// Whether a cell reads as a column heading: words, or a period such as "2024", "2024-25",
/// "FY2025" or "Q3 2024", rather than a figure.
fn is_heading_cell(cell: &str) -> bool {
    if !has_digit(cell) {
        return true;
    }
    let cell = cell.trim();
    let cell = cell.strip_prefix("FY").unwrap_or(cell).trim_start();
    let cell = match cell.as_bytes() {
        [b'Q' | b'H', b'1'..=b'4', b' ', ..] => &cell[3..],
        _ => cell,
    };
    let Some(year) = cell.get(..4).and_then(|y| y.parse::<u32>().ok()) else {
        return false;
    };
    let rest = &cell[4..];
    let rest = rest.strip_prefix(['-', '/', '\u{2013}']).unwrap_or(rest);
    (1900..=2099).contains(&year)
        && (rest.is_empty()
            || (matches!(rest.len(), 2 | 4) && rest.bytes().all(|b| b.is_ascii_digit())))
}

/// The table that starts at line `start`, if one does (step 3 of the module doc): a run of
/// lines of two or more cells holding at least one row of figures after its header.
fn table_at(lines: &[Line], start: usize, pitch: f32) -> Option<Table> {
    let run_end = (start..lines.len())
        .find(|&i| {
            lines[i].cells.len() < 2
                || (i > start && lines[i - 1].y - lines[i].y > 2.5 * pitch.max(lines[i].size))
        })
        .unwrap_or(lines.len());
    let run = &lines[start..run_end];
    if run.len() < 2 {
        return None;
    }
    let head_in_run = run[0]
        .cell_texts()
        .iter()
        .skip(1)
        .all(|c| is_heading_cell(c));
    let (header, rows) = if head_in_run {
        (Some(&run[0]), &run[1..])
    } else {
        (None, run)
    };
    if !rows.iter().any(is_figure_row) {
        return None;
    }
    // No header in the run: the line just above it, if close, may be one whose columns were
    // set too close to part into cells.
    let above = (header.is_none() && start > 0)
        .then(|| &lines[start - 1])
        .filter(|l| l.y - run[0].y <= 2.0 * pitch.max(l.size));
    let text = match (header, above) {
        (Some(h), _) => table_text(Some(h), rows),
        (None, Some(above)) => table_text_under(above, rows),
        (None, None) => table_text(None, rows),
    };
    Some(Table { text, end: run_end })
}

/// Columns as the union of the cells' extents over the rows given; `None` where a row has two
/// cells in one column (the layout cannot be recovered).
fn columns(rows: &[&Line]) -> Option<Vec<(f32, f32)>> {
    let mut spans: Vec<(f32, f32)> = rows
        .iter()
        .flat_map(|l| l.cells.iter())
        .filter_map(|c| Some((c.first()?.x0, c.last()?.x1)))
        .collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut merged: Vec<(f32, f32)> = Vec::new();
    for (x0, x1) in spans {
        match merged.last_mut() {
            Some(last) if x0 <= last.1 => last.1 = last.1.max(x1),
            _ => merged.push((x0, x1)),
        }
    }
    for row in rows {
        let mut used = vec![false; merged.len()];
        for cell in &row.cells {
            let column = column_of(&merged, cell.first()?.x0)?;
            if std::mem::replace(&mut used[column], true) {
                return None;
            }
        }
    }
    Some(merged)
}

fn column_of(columns: &[(f32, f32)], x: f32) -> Option<usize> {
    columns.iter().position(|&(x0, x1)| x >= x0 && x <= x1)
}

/// A row's cells placed in their columns, empty where it has none.
fn aligned(line: &Line, columns: &[(f32, f32)]) -> Vec<String> {
    let mut cells = vec![String::new(); columns.len()];
    for cell in &line.cells {
        if let Some(column) = cell.first().and_then(|w| column_of(columns, w.x0)) {
            cells[column] = Line::cell_text(cell);
        }
    }
    cells
}

/// A table's rows as text, under the header line given if any.
fn table_text(header: Option<&Line>, rows: &[Line]) -> Vec<String> {
    let all: Vec<&Line> = header.into_iter().chain(rows).collect();
    let Some(columns) = columns(&all) else {
        return rows.iter().map(Line::text).collect();
    };
    let header = header.map(|h| aligned(h, &columns));
    let by_cell = rows.len() <= MAX_TABLE_ROWS_BY_CELL;
    let mut out = Vec::new();
    for row in rows {
        table_row_text(
            header.as_deref(),
            &aligned(row, &columns),
            by_cell,
            &mut out,
        );
    }
    out
}

/// A table's rows as text under a one-cell line whose words, placed by position, head its
/// columns (the line is already written as a paragraph).
fn table_text_under(above: &Line, rows: &[Line]) -> Vec<String> {
    let all: Vec<&Line> = rows.iter().collect();
    let Some(columns) = columns(&all) else {
        return rows.iter().map(Line::text).collect();
    };
    let mut header = vec![String::new(); columns.len()];
    for word in above.cells.iter().flatten() {
        let centre = (word.x0 + word.x1) / 2.0;
        let column = columns
            .iter()
            .position(|&(x0, x1)| centre >= x0 - 1.0 && centre <= x1 + 1.0);
        if let Some(column) = column {
            if !header[column].is_empty() {
                header[column].push(' ');
            }
            header[column].push_str(&word.text);
        }
    }
    let usable = header.iter().skip(1).filter(|h| !h.is_empty()).count() >= 1;
    if !usable {
        return table_text(None, rows);
    }
    let by_cell = rows.len() <= MAX_TABLE_ROWS_BY_CELL;
    let mut out = Vec::new();
    for row in rows {
        table_row_text(Some(&header), &aligned(row, &columns), by_cell, &mut out);
    }
    out
}
