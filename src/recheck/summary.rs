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
        // Articles whose outcome changed (or that had no live decision), then articles whose
        // outcome is the same but whose findings differ: an unchanged article is never listed
        // as changed.
        let outcome_changed: Vec<&ArticleDiff> = self
            .articles
            .iter()
            .filter(|a| a.change != Change::Unchanged)
            .collect();
        let findings_changed: Vec<&ArticleDiff> = self
            .articles
            .iter()
            .filter(|a| {
                a.change == Change::Unchanged
                    && (!a.new_findings.is_empty() || !a.resolved_findings.is_empty())
            })
            .collect();
        for (heading, articles) in [
            ("Changed articles", outcome_changed),
            ("Same outcome, findings changed", findings_changed),
        ] {
            if articles.is_empty() {
                continue;
            }
            out.push_str(&format!(
                "\n## {heading}\n\n| article | live | now | change | new findings | resolved |\n|---|---|---|---|---|---|\n"
            ));
            for a in articles {
                out.push_str(&format!(
                    "| {} | {} | {} | {} | {} | {} |\n",
                    cell(&a.article_id),
                    a.live.as_ref().map(|l| outcome(l.outcome)).unwrap_or("—"),
                    outcome(a.recheck.outcome),
                    a.change.as_str(),
                    finding_list(&a.new_findings),
                    finding_list(&a.resolved_findings)
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

/// Findings for a Markdown cell: each kind with its source, once, with a count where several
/// claims share it ("figure_mismatch ×2 (https://…)").
fn finding_list(findings: &[Finding]) -> String {
    let mut seen: Vec<(String, usize)> = Vec::new();
    for f in findings {
        let label = match &f.source_url {
            Some(url) => format!("{} ({})", f.kind.as_str(), cell(url)),
            None => f.kind.as_str().to_owned(),
        };
        match seen.iter_mut().find(|(l, _)| *l == label) {
            Some((_, n)) => *n += 1,
            None => seen.push((label, 1)),
        }
    }
    seen.into_iter()
        .map(|(label, n)| match (n, label.split_once(" (")) {
            (1, _) => label,
            (n, Some((kind, rest))) => format!("{kind} \u{d7}{n} ({rest}"),
            (n, None) => format!("{label} \u{d7}{n}"),
        })
        .collect::<Vec<_>>()
        .join("; ")
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

    fn decision(
        article: &str,
        outcome: factgate_core::events::Outcome,
        issues: &[(&str, &str)],
    ) -> factgate_core::events::Decision {
        use factgate_core::events::{DecisionReason, Issue, IssueType, Outcome, content_digest};
        use factgate_core::model::Severity;
        let mut d = factgate_core::decide::decide_not_checked(
            article,
            Some(1),
            &content_digest(b"x"),
            DecisionReason::HighSeverityIssue,
            "x",
            None,
            Utc::now(),
        );
        d.outcome = outcome;
        if outcome == Outcome::Pass {
            d.reasons.clear();
        }
        d.report.issues = issues
            .iter()
            .map(|(claim, url)| Issue {
                severity: Severity::High,
                issue_type: IssueType::FigureMismatch,
                claim: "Sales rose 4%.".into(),
                location: "paragraph 1".into(),
                problem: "The claim says 4% where the source says 9%".into(),
                evidence: String::new(),
                recommendation: String::new(),
                claim_id: Some((*claim).into()),
                source_url: Some((*url).into()),
                element: None,
                difference: None,
            })
            .collect();
        d
    }

    /// The Markdown report lists an article whose outcome is the same under its own heading,
    /// never under "Changed articles", and a finding once (with a count where two claims share
    /// its kind and source).
    #[test]
    fn the_markdown_report_tells_changed_outcomes_from_changed_findings() {
        use factgate_core::events::Outcome;
        let url = "http://127.0.0.1/stats";
        let fixed = super::super::diff::compare(
            Some(&decision(
                "fixed-1",
                Outcome::Block,
                &[("c1", url), ("c2", url), ("c2", url)],
            )),
            &decision("fixed-1", Outcome::Pass, &[]),
        );
        let same = super::super::diff::compare(
            Some(&decision("same-1", Outcome::Block, &[("c1", url)])),
            &decision("same-1", Outcome::Block, &[("c1", url), ("c3", url)]),
        );
        let untouched = super::super::diff::compare(
            Some(&decision("untouched-1", Outcome::Pass, &[])),
            &decision("untouched-1", Outcome::Pass, &[]),
        );
        let diffs = vec![fixed, same, untouched];
        let report = RunReport {
            run_id: "r1".into(),
            scope: RunScope {
                schema_version: "recheck_run.v1".into(),
                run_id: "r1".into(),
                started_at: Utc::now(),
                drafts_topic: "drafts.published".into(),
                end_offsets: std::collections::BTreeMap::new(),
                since: None,
                until: None,
                articles: Vec::new(),
                sections: Vec::new(),
            },
            finished_at: Utc::now(),
            summary: Summary::of(3, &diffs),
            missing_articles: Vec::new(),
            unidentified_drafts: 0,
            articles: diffs,
        };
        let md = report.render(ReportFormat::Markdown);
        let (changed, rest) = md
            .split_once("## Changed articles")
            .and_then(|(_, after)| after.split_once("## Same outcome, findings changed"))
            .expect("both headings, changed first");
        assert!(
            changed.contains("| fixed-1 | block | pass | fixed |"),
            "{md}"
        );
        assert!(
            changed.contains(&format!("figure_mismatch \u{d7}2 ({url})")),
            "two claims' findings, counted once each: {md}"
        );
        assert!(!changed.contains("same-1"), "{md}");
        assert!(
            rest.contains("| same-1 | block | block | unchanged |"),
            "{md}"
        );
        assert!(!md.contains("untouched-1"), "{md}");
    }

    #[test]
    fn a_cell_keeps_its_table_intact() {
        assert_eq!(cell("a|b\nc"), "a\\|b c");
    }
}
