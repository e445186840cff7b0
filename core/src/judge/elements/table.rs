//! A table's cell is evidence for its own row and column only. A page's table is read as one
//! sentence per cell ("Ward 7, 2020: $3 million.", `webpage::table_text`), so a claim's figure
//! found in a cell was taken as stated, whichever row the cell was in: "Ward 0 spent $3 million
//! in 2020" was supported by the table whose $3 million is Ward 7's.
//!
//! When the claim names a row of the table and the figure it gives that row is in the table only
//! in other rows, the table gives the claim's row its own value in that column: if that value
//! differs, the source plainly says otherwise (a contradiction, its cell quoted).

use super::Finding;
use super::figure::relative_error;
use super::specifics::{Cell, is_summary_row, table_cells};
use crate::judge::align::Alignment;
use crate::model::{ClaimElement, Unit};

/// Fewest letters and digits of a row label looked for in a claim: a one-letter label ("A")
/// would be found in any claim.
const MIN_ROW_LABEL_CHARS: usize = 2;

impl Alignment<'_> {
    /// The claim's figure given by the page's table to another row than the one the claim
    /// names, where the table gives the claim's row another value in the same column.
    pub(crate) fn table_rows(&self) -> Vec<Finding> {
        let figures: Vec<_> = self
            .claim
            .figures
            .iter()
            .filter(|(f, _)| f.unit != Unit::Year && f.value != 0.0)
            .collect();
        if figures.is_empty() {
            return Vec::new();
        }
        let cells = table_cells(self.page);
        if cells.len() < 2 {
            return Vec::new();
        }
        // One figure, of one row: a claim of several figures may give each to something else.
        if figures.len() != 1 {
            return Vec::new();
        }
        let claim_text = self.claim.text();
        let claim_lower = claim_text.to_lowercase();
        let names = |label: &str| names_row(&claim_lower, label);
        let claim_words: std::collections::HashSet<String> =
            crate::judge::retrieve::tokenize(self.claim.text())
                .into_iter()
                .collect();
        // The column is the claim's: it has no heading, or its heading shares a word (a year,
        // a measure) with the claim.
        let claims_column = |header: &str| {
            header.is_empty()
                || crate::judge::retrieve::tokenize(header)
                    .iter()
                    .any(|w| claim_words.contains(w))
        };
        let mut out = Vec::new();
        for (figure, _) in figures {
            // The same value, of the same kind (a currency, a percentage), in the claim's column.
            let same = |c: &Cell<'_>| {
                relative_error(c.value.abs(), figure.value) <= 0.005
                    && claims_column(c.header)
                    && crate::text::figures::parse_figures(c.text)
                        .first()
                        .is_some_and(|f| super::figure::comparable(figure, f))
            };
            let holding: Vec<&Cell<'_>> = cells.iter().filter(|c| same(c)).collect();
            if holding.is_empty() || holding.iter().any(|c| names(c.label)) {
                // Not in the table, or in the row the claim names: other rules judge it.
                continue;
            }
            // The claim's row: a row of a table holding the figure, named in the claim.
            let Some(found) = holding.iter().find_map(|held| {
                cells
                    .iter()
                    .find(|c| {
                        c.run == held.run
                            && c.header == held.header
                            && c.label != held.label
                            && !is_summary_row(c.label)
                            && names(c.label)
                    })
                    .map(|own| (*held, own))
            }) else {
                continue;
            };
            let (held, own) = found;
            if relative_error(own.value.abs(), figure.value) <= self.high_tolerance {
                continue;
            }
            // The figure is the named row's only when the claim is about that row alone: it
            // names no other row of the table, and none of its other figures is that row's
            // ("Kelbridge recorded 122.5, against a county-wide rate of 100": the 100 is not
            // Kelbridge's).
            let rows_named = cells
                .iter()
                .filter(|c| c.run == held.run && names(c.label))
                .map(|c| c.label)
                .collect::<std::collections::HashSet<_>>();
            let row_accounted = self.claim.figures.iter().any(|(other, _)| {
                !std::ptr::eq(other, figure)
                    && other.unit != Unit::Year
                    && cells.iter().any(|c| {
                        c.run == held.run
                            && c.label == own.label
                            && relative_error(c.value.abs(), other.value) <= 0.005
                    })
            });
            if rows_named.len() != 1 || row_accounted {
                continue;
            }
            // The row is named as a name ("Ward 0", "in Kelbridge"), before the figure, and the
            // claim says nothing of the row the table gives the figure to ("a £21.4m budget" is
            // the net revenue budget's, whatever row the claim names first).
            let Some(named_at) = name_position(claim_text, own.label) else {
                continue;
            };
            let figure_at = claim_lower
                .find(&figure.text.to_lowercase())
                .unwrap_or(claim_lower.len());
            let own_words = crate::judge::retrieve::tokenize(own.label);
            let speaks_of_held = crate::judge::retrieve::tokenize(held.label)
                .iter()
                .any(|w| !own_words.contains(w) && claim_words.contains(w));
            if named_at > figure_at || speaks_of_held {
                continue;
            }
            let column = if held.header.is_empty() {
                String::new()
            } else {
                format!(" ({})", held.header)
            };
            out.push(Finding {
                element: ClaimElement::Subject,
                contradiction: true,
                strong: false,
                review_only: false,
                problem: format!(
                    "The source's table gives {} to {}, not to {}: it gives {} {}{column}",
                    held.text, held.label, own.label, own.label, own.text
                ),
                correction: Some(format!(
                    "the source says: \u{201C}{}, {}: {}\u{201D}",
                    own.label, own.header, own.text
                )),
                sentence: None,
            });
        }
        out
    }
}

/// Where `claim` names the row `label` as a name: a label with a digit ("Ward 0"), or one the
/// claim writes capitalized past its first word ("spending in Kelbridge"). A label that is a
/// common word ("Turnout", "Year") names a measure, not a row the claim is about.
fn name_position(claim: &str, label: &str) -> Option<usize> {
    let has_digit = label.chars().any(|c| c.is_ascii_digit());
    let lower = claim.to_lowercase();
    let l = label.to_lowercase();
    crate::text::whole_word_positions(&lower, &l).find(|&at| {
        let capitalized = at > 0 && claim[at..].chars().next().is_some_and(char::is_uppercase);
        has_digit || capitalized
    })
}

/// Whether `claim_lower` names the row `label`, as whole words.
pub(crate) fn names_row(claim_lower: &str, label: &str) -> bool {
    let l = label.to_lowercase();
    l.chars().filter(|c| c.is_alphanumeric()).count() >= MIN_ROW_LABEL_CHARS
        && l.chars().any(char::is_alphabetic)
        && crate::text::contains_whole_words(claim_lower, &l)
}
