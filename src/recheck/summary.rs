//! The report of a run: its scope, the counts, and per article the change against the live
//! decision, written as JSON, CSV or Markdown (chosen by the file's extension).

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::diff::{ArticleDiff, Change, Finding, Summary};
use super::scope::RunScope;

/// A report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// The whole report, one JSON document.
    Json,
    /// One row per article, for a spreadsheet.
    Csv,
    /// The counts and the changed articles, for a person.
    Markdown,
}

impl ReportFormat {
    /// The format a file's extension names: `.json`, `.csv`, `.md` or `.markdown`.
    ///
    /// # Errors
    /// Names the extensions understood.
    pub fn from_path(path: &Path) -> Result<ReportFormat, String> {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("json") => Ok(ReportFormat::Json),
            Some("csv") => Ok(ReportFormat::Csv),
            Some("md" | "markdown") => Ok(ReportFormat::Markdown),
            _ => Err(format!(
                "{}: the report's format comes from its extension: .json, .csv or .md",
                path.display()
            )),
        }
    }
}

/// Everything a run found.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub run_id: String,
    pub scope: RunScope,
    pub finished_at: DateTime<Utc>,
    pub summary: Summary,
    /// Articles asked for with `--articles` that have no draft in the scope.
    pub missing_articles: Vec<String>,
    /// Unreadable drafts whose article could not be told, so nothing could be re-checked.
    pub unidentified_drafts: u64,
    /// Every article, changed ones first (newly blocked, fixed), then by id.
    pub articles: Vec<ArticleDiff>,
}

impl RunReport {
    /// The report in `format`.
    pub fn render(&self, format: ReportFormat) -> String {
        match format {
            // Plain data (strings, numbers, maps with string keys) always serializes.
            ReportFormat::Json => {
                serde_json::to_string_pretty(self).expect("the report serializes") + "\n"
            }
            ReportFormat::Csv => self.csv(),
            ReportFormat::Markdown => self.markdown(),
        }
    }

    fn csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let kinds = |findings: &[Finding]| {
            findings
                .iter()
                .map(|f| f.kind.as_str())
                .collect::<Vec<_>>()
                .join(";")
        };
        let rows = std::iter::once(
            [
                "article_id",
                "section",
                "revision",
                "live_outcome",
                "recheck_outcome",
                "change",
                "new_findings",
                "resolved_findings",
                "recheck_reasons",
                "live_decision_id",
                "recheck_decision_id",
            ]
            .map(str::to_owned),
        )
        .chain(self.articles.iter().map(|a| {
            [
                a.article_id.clone(),
                a.section.clone().unwrap_or_default(),
                a.recheck
                    .revision
                    .map(|r| r.to_string())
                    .unwrap_or_default(),
                a.live
                    .as_ref()
                    .map(|l| outcome(l.outcome).to_owned())
                    .unwrap_or_default(),
                outcome(a.recheck.outcome).to_owned(),
                a.change.as_str().to_owned(),
                kinds(&a.new_findings),
                kinds(&a.resolved_findings),
                reasons(&a.recheck.reasons),
                a.live
                    .as_ref()
                    .map(|l| l.decision_id.clone())
                    .unwrap_or_default(),
                a.recheck.decision_id.clone(),
            ]
        }));
        for row in rows {
            // Writing to a Vec cannot fail.
            writer.write_record(&row).expect("a CSV row is written");
        }
        let bytes = writer.into_inner().expect("the CSV is flushed to memory");
        String::from_utf8_lossy(&bytes).into_owned()
    }

    fn markdown(&self) -> String {
        let s = &self.summary;
        let mut out = format!(
            "# Re-check `{}`\n\nStarted {}, finished {}; drafts topic `{}`.\n\n",
            self.run_id,
            self.scope.started_at.to_rfc3339(),
            self.finished_at.to_rfc3339(),
            self.scope.drafts_topic
        );
        out.push_str("| | articles |\n|---|---:|\n");
        out.push_str(&format!("| in scope | {} |\n", s.articles));
        out.push_str(&format!("| decided | {} |\n", s.decided));
        out.push_str(&format!("| pass | {} |\n", s.passed));
        out.push_str(&format!("| block | {} |\n", s.blocked));
        for change in Change::ALL {
            let count = s.changes.get(change.as_str()).copied().unwrap_or(0);
            out.push_str(&format!("| {} | {count} |\n", change.as_str()));
        }
        if !s.new_findings.is_empty() || !s.resolved_findings.is_empty() {
            out.push_str("\n| finding | new | resolved |\n|---|---:|---:|\n");
            let mut kinds: Vec<&str> = s.new_findings.keys().copied().collect();
            kinds.extend(s.resolved_findings.keys().copied());
            kinds.sort_unstable();
            kinds.dedup();
            for kind in kinds {
                out.push_str(&format!(
                    "| {kind} | {} | {} |\n",
                    s.new_findings.get(kind).copied().unwrap_or(0),
                    s.resolved_findings.get(kind).copied().unwrap_or(0)
                ));
            }
        }
        let changed: Vec<&ArticleDiff> = self
            .articles
            .iter()
            .filter(|a| {
                a.change != Change::Unchanged
                    || !a.new_findings.is_empty()
                    || !a.resolved_findings.is_empty()
            })
            .collect();
        if !changed.is_empty() {
            out.push_str(
                "\n## Changed articles\n\n| article | live | now | change | new findings | resolved |\n|---|---|---|---|---|---|\n",
            );
            for a in changed {
                let list = |findings: &[Finding]| {
                    findings
                        .iter()
                        .map(|f| match &f.source_url {
                            Some(url) => format!("{} ({})", f.kind.as_str(), cell(url)),
                            None => f.kind.as_str().to_owned(),
                        })
                        .collect::<Vec<_>>()
                        .join("; ")
                };
                out.push_str(&format!(
                    "| {} | {} | {} | {} | {} | {} |\n",
                    cell(&a.article_id),
                    a.live.as_ref().map(|l| outcome(l.outcome)).unwrap_or("—"),
                    outcome(a.recheck.outcome),
                    a.change.as_str(),
                    list(&a.new_findings),
                    list(&a.resolved_findings)
                ));
            }
        }
        if !self.missing_articles.is_empty() {
            out.push_str(&format!(
                "\nNo draft in scope for: {}\n",
                self.missing_articles
                    .iter()
                    .map(|a| cell(a))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        out
    }

    /// Writes the report to `path` in the format its extension names.
    ///
    /// # Errors
    /// An unknown extension, or the file cannot be written.
    pub fn write_to(&self, path: &Path) -> Result<(), String> {
        let format = ReportFormat::from_path(path)?;
        std::fs::write(path, self.render(format))
            .map_err(|e| format!("writing {}: {e}", path.display()))
    }
}

fn outcome(outcome: factgate_core::events::Outcome) -> &'static str {
    outcome.into()
}

fn reasons(reasons: &[factgate_core::events::DecisionReason]) -> String {
    reasons
        .iter()
        .map(|r| <&str>::from(*r))
        .collect::<Vec<_>>()
        .join(";")
}

/// Text safe in a Markdown table cell: no pipe or line break ends the cell early.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_follows_the_extension() {
        assert_eq!(
            ReportFormat::from_path(Path::new("r.JSON")),
            Ok(ReportFormat::Json)
        );
        assert_eq!(
            ReportFormat::from_path(Path::new("out/r.csv")),
            Ok(ReportFormat::Csv)
        );
        assert_eq!(
            ReportFormat::from_path(Path::new("r.md")),
            Ok(ReportFormat::Markdown)
        );
        assert!(ReportFormat::from_path(Path::new("r.txt")).is_err());
        assert!(ReportFormat::from_path(Path::new("report")).is_err());
    }

    #[test]
    fn a_cell_keeps_its_table_intact() {
        assert_eq!(cell("a|b\nc"), "a\\|b c");
    }
}
