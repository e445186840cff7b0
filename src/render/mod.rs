//! Reports of checked articles, in every format `factgate check --format` writes. All report
//! formatting lives here, one file per format, so a new one (HTML, say) is one more file and one
//! more [`Format`] variant:
//!
//! - [`text`]: for a person at a terminal (the default).
//! - [`json`]: the decision events, one per line (JSON Lines), as on the `decisions` topic.
//! - [`html`]: web pages for editors: the article with each claim marked and the evidence
//!   beside it; an index page over several articles.
//! - [`markdown`]: for a pull-request comment or a CI job summary.
//! - [`junit`]: JUnit XML, one test case per article, a blocked article a failure: what CI
//!   systems show as test results.
//! - [`sarif`]: SARIF 2.1.0, one result per issue, located in the article where the claim can be
//!   found: what code-review tools and code-scanning dashboards show.
//! - [`github`]: GitHub Actions workflow commands, one annotation per issue at the claim's line
//!   and column: what a GitHub Actions job shows on the pull request.
//! - [`gitlab`]: a GitLab Code Quality report, one issue per issue: what GitLab shows on the merge
//!   request.
//!
//! Every format that names where a claim is gives its line and column in the article's file
//! (or in the body of a draft event), from [`claim_region`].

pub mod github;
pub mod gitlab;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod sarif;
pub mod text;

use std::fmt::Write as _;
use std::path::Path;

use factgate_core::events::{Decision, DecisionReason, Outcome};
use factgate_core::extract::Extraction;
use factgate_core::model::Severity;

pub use text::{article_text, decision_text};

/// An output format of `factgate check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Text,
    Json,
    Markdown,
    Junit,
    Sarif,
    Github,
    Gitlab,
    Html,
}

impl Format {
    /// Every format, as named on the command line.
    pub const ALL: [Format; 8] = [
        Format::Text,
        Format::Json,
        Format::Markdown,
        Format::Junit,
        Format::Sarif,
        Format::Github,
        Format::Gitlab,
        Format::Html,
    ];

    /// The format's name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Markdown => "markdown",
            Format::Junit => "junit",
            Format::Sarif => "sarif",
            Format::Github => "github",
            Format::Gitlab => "gitlab",
            Format::Html => "html",
        }
    }

    /// Whether each article's report can be written as soon as it is checked; the others are one
    /// document over all articles, written at the end.
    pub fn streams(self) -> bool {
        matches!(self, Format::Text | Format::Json | Format::Github)
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
                format!(
                    "unknown format {s:?} (expected one of: {})",
                    names.join(", ")
                )
            })
    }
}

/// `s` safe to print on a terminal or into a CI log: every control character but the line
/// feed and the tab (escape sequences, carriage returns, backspaces, C1 controls) and every
/// bidirectional override is written as a visible escape (`\u{1b}`), so a draft's text can
/// neither move the cursor, recolour a line, hide text nor overwrite what was printed.
pub fn terminal_safe(s: &str) -> String {
    escape_controls(s, |c| c == '\n' || c == '\t')
}

/// `s` on one line and safe to print ([`terminal_safe`]): line breaks are escaped too, so a
/// file name holding one cannot start a line of its own.
pub fn one_line(s: &str) -> String {
    escape_controls(s, |_| false)
}

fn escape_controls(s: &str, keep: impl Fn(char) -> bool) -> String {
    let unsafe_char = |c: char| {
        !keep(c)
            && (c.is_control()
                || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'))
    };
    if !s.chars().any(unsafe_char) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_char(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

/// One checked article, as the reports need it.
#[derive(Debug, Clone, Copy)]
pub struct CheckedArticle<'a> {
    /// What the user calls it: a path, `path:3` for line 3 of a JSON Lines file, `-` for
    /// standard input.
    pub name: &'a str,
    /// The file the article's body is, when it is one (not a draft event inside JSON): claims
    /// are located in it by line and column.
    pub file: Option<&'a Path>,
    /// The body, to turn claim offsets into lines and columns.
    pub body: Option<&'a str>,
    pub decision: &'a Decision,
    /// `None` when the body could not be read.
    pub extraction: Option<&'a Extraction>,
    /// Seconds the check took.
    pub seconds: f64,
}

/// The report of `articles` in `format`. For a format that [streams](Format::streams), the
/// reports of the articles one after another.
pub fn render(format: Format, articles: &[CheckedArticle<'_>]) -> String {
    render_with_unreadable(format, articles, &[])
}

/// [`render`], with the inputs that could not be read at all (`unreadable`: one message each,
/// e.g. "cannot read a.md: No such file"): the Markdown and HTML summaries count and list them,
/// so a run where inputs failed never reads as "0 of 0 blocked", and JUnit reports each as an
/// error. Text, JSON Lines and SARIF carry decisions only; the messages are on stderr.
pub fn render_with_unreadable(
    format: Format,
    articles: &[CheckedArticle<'_>],
    unreadable: &[String],
) -> String {
    match format {
        Format::Text => articles
            .iter()
            .map(text::article_text)
            .collect::<Vec<_>>()
            .join("\n"),
        Format::Json => articles.iter().map(json::decision_line).collect(),
        Format::Markdown => markdown::render(articles, unreadable),
        Format::Junit => junit::render(articles, unreadable),
        Format::Sarif => sarif::render(articles),
        Format::Github => github::render(articles),
        Format::Gitlab => gitlab::render(articles),
        Format::Html => match articles {
            [one] => html::article_page(one, None),
            several => html::index_page(several, &html_page_names(several), unreadable),
        },
    }
}

/// The file names of the pages of `articles` when the HTML report is an index and a page per
/// article (`factgate check --format html` with several inputs): `01-name.html`…, numbered so
/// names stay distinct and in order, the rest of the name taken from the article's.
pub fn html_page_names(articles: &[CheckedArticle<'_>]) -> Vec<String> {
    let width = articles.len().to_string().len().max(2);
    articles
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let stem = std::path::Path::new(a.name)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!("{:0width$}-{}.html", i + 1, file_slug(&stem))
        })
        .collect()
}

/// `name` made safe as a file name and a relative link: ASCII letters, digits, `-` and `_`, at
/// most 60 of them.
pub fn file_slug(name: &str) -> String {
    let slug: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(60)
        .collect();
    slug.trim_matches('-').to_owned()
}

/// The snake_case name of a serde enum value (`high_severity_issue`), as the events write it.
pub fn serde_name<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// The decision's reasons, as the events name them.
pub fn reason_names(reasons: &[DecisionReason]) -> Vec<String> {
    reasons.iter().map(serde_name).collect()
}

/// A finding's type in words, for a person (the events' names are for machines).
pub fn finding_words(issue_type: factgate_core::events::IssueType) -> &'static str {
    use factgate_core::events::IssueType;
    match issue_type {
        IssueType::Unsourced => "no source given",
        IssueType::VerifiedFalse => "the source says otherwise",
        IssueType::FigureMismatch => "a figure differs from the source",
        IssueType::QuoteMismatch => "a quote is not in the source",
        IssueType::Misattributed => "said by someone else",
        IssueType::UnsupportedDetail => "adds a detail the source does not state",
        IssueType::Unverifiable => "the source could not confirm it",
        IssueType::OutdatedSource => "the source's data is old",
        IssueType::Contested => "the sources disagree",
        IssueType::Error => "the check did not complete",
    }
}

/// A decision's reason in words, for a person.
pub fn reason_words(reason: DecisionReason) -> &'static str {
    match reason {
        DecisionReason::HighSeverityIssue => "a serious problem with a claim",
        DecisionReason::MediumSeverityIssue => "problems with claims that need an editor",
        DecisionReason::LowSeverityIssue => "a minor problem (strict policy)",
        DecisionReason::DraftUnreadable => "the draft could not be read",
        DecisionReason::ExtractionFailed => "the article's text could not be read",
        DecisionReason::DeadlineExceeded => "the checks did not finish in time",
        DecisionReason::SourceUnjudgeable => "a source could not be checked",
        DecisionReason::Superseded => "a newer revision arrived first",
        DecisionReason::InternalError => "factgate failed internally",
        DecisionReason::LimitExceeded => "the article is over a per-draft limit",
    }
}

/// How many claims the check confirmed, in words that agree with the outcome: the supported
/// claims among those checked or found at fault ("1 of 2 claims confirmed"), never a bare
/// "100%" on a blocked article whose fault lies in a claim without a source.
pub fn accuracy_words(decision: &Decision) -> String {
    let s = &decision.report.summary;
    let unsourced_at_fault = decision
        .report
        .issues
        .iter()
        .filter(|i| i.issue_type == factgate_core::events::IssueType::Unsourced)
        .filter_map(|i| i.claim_id.as_deref())
        .collect::<std::collections::BTreeSet<_>>()
        .len() as u32;
    let considered = s.sourced_claims + unsourced_at_fault;
    let confirmed = s.verification_results.verified_true;
    if considered == 0 {
        return match decision.outcome {
            Outcome::Pass => "no claim needed a source".to_owned(),
            Outcome::Block => "no claim could be confirmed".to_owned(),
        };
    }
    format!("{confirmed} of {considered} claims confirmed by their sources")
}

/// Who waived a finding, in words: "overridden by Ana", "waived in the draft".
pub fn waiver_words(waiver: &factgate_core::events::Waiver) -> String {
    use factgate_core::events::WaiverKind;
    match (waiver.kind, &waiver.editor) {
        (WaiverKind::Override, Some(editor)) => format!("overridden by {editor}"),
        (WaiverKind::Override, None) => "overridden".to_owned(),
        (WaiverKind::Inline, _) => "waived in the draft".to_owned(),
        (WaiverKind::File, _) => "waived in the waivers file".to_owned(),
    }
}

/// `PASS` or `BLOCK`.
pub(crate) fn outcome_word(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "PASS",
        Outcome::Block => "BLOCK",
    }
}

/// `HIGH`, `MEDIUM` or `LOW`.
pub(crate) fn severity_word(severity: Severity) -> &'static str {
    match severity {
        Severity::High => "HIGH",
        Severity::Medium => "MEDIUM",
        Severity::Low => "LOW",
    }
}

/// Where a claim is in its file: 1-based line and column (in UTF-16 code units, SARIF's
/// default), start and end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub start_line: usize,
    pub start_column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

/// The region of the claim `claim_id` in `article`'s file, when the article is a file and the
/// claim's sentence was located in its body.
pub fn claim_region(article: &CheckedArticle<'_>, claim_id: &str) -> Option<Region> {
    article.file?;
    body_region(article, claim_id)
}

/// The region of the claim `claim_id` in `article`'s body, a file's or a draft event's.
fn body_region(article: &CheckedArticle<'_>, claim_id: &str) -> Option<Region> {
    let body = article.body?;
    let claim = article
        .extraction?
        .claims
        .iter()
        .find(|c| c.id == claim_id)?;
    let span = claim.location.span?;
    let (start_line, start_column) = line_column(body, span.start)?;
    let (end_line, end_column) = line_column(body, span.end)?;
    Some(Region {
        start_line,
        start_column,
        end_line,
        end_column,
    })
}

/// Where a person finds the claim `claim_id`: `path:line:column` in the article's file, as
/// compilers and linters write it (terminals and editors open it there), or `line L, column C of
/// the body` for a draft event's body; `None` when the claim was not located.
pub fn claim_place(article: &CheckedArticle<'_>, claim_id: &str) -> Option<String> {
    let region = body_region(article, claim_id)?;
    Some(match article.file {
        Some(file) => format!(
            "{}:{}:{}",
            file.display(),
            region.start_line,
            region.start_column
        ),
        None => format!(
            "line {}, column {} of the body",
            region.start_line, region.start_column
        ),
    })
}

/// `path` as CI systems match it against the repository's files: relative to the working
/// directory (a CI job's checkout) when it is inside it, with forward slashes and no leading `./`.
pub fn checkout_path(path: &Path) -> String {
    let relative = std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok())
        .unwrap_or(path);
    let text = relative.to_string_lossy().replace('\\', "/");
    let mut text = text.as_str();
    while let Some(rest) = text.strip_prefix("./") {
        text = rest;
    }
    text.to_owned()
}

/// The 1-based line and UTF-16 column of character offset `offset` in `text`.
fn line_column(text: &str, offset: usize) -> Option<(usize, usize)> {
    let mut line = 1;
    let mut column = 1;
    let mut chars = text.chars();
    for _ in 0..offset {
        let c = chars.next()?;
        if c == '\n' {
            line += 1;
            column = 1;
        } else {
            column += c.len_utf16();
        }
    }
    Some((line, column))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_parse_from_their_names() {
        for format in Format::ALL {
            assert_eq!(format.as_str().parse::<Format>(), Ok(format));
        }
        let err = "xml".parse::<Format>().unwrap_err();
        assert!(
            err.contains("text, json, markdown, junit, sarif, github, gitlab, html"),
            "{err}"
        );
    }

    #[test]
    fn offsets_become_lines_and_utf16_columns() {
        let text = "ab\nc€d\n𝄞x";
        assert_eq!(line_column(text, 0), Some((1, 1)));
        assert_eq!(line_column(text, 3), Some((2, 1)));
        assert_eq!(line_column(text, 5), Some((2, 3)));
        assert_eq!(line_column(text, 7), Some((3, 1)));
        // 𝄞 is two UTF-16 code units.
        assert_eq!(line_column(text, 8), Some((3, 3)));
        assert_eq!(line_column(text, 9), Some((3, 4)));
        assert_eq!(line_column(text, 10), None);
    }
}
