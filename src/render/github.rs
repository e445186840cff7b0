//! Checked articles as GitHub Actions workflow commands: one annotation per issue
//! (`::error file=…,line=…,col=…::message`), which a GitHub Actions job shows in its log and on
//! the pull request's changed files, at the claim's line and column.
//!
//! The levels follow the report's severities: high is `error`, medium `warning`, low `notice`. An
//! article blocked without an issue of its own (it could not be read, its checks ran out of time)
//! gets one `error` per such reason, on the file. Each article ends with a plain line (no command)
//! with its outcome, so the log reads as the text report's headlines too.
//!
//! Escaping follows the runner's parser (`@actions/core`): in the message `%`, `\r` and `\n` are
//! written `%25`, `%0D` and `%0A`; in a property value also `:` as `%3A` and `,` as `%2C`. A
//! column is given only when the annotation starts and ends on one line, as the runner ignores it
//! otherwise.

use std::fmt::Write;

use super::{CheckedArticle, claim_region, outcome_word, reason_names, serde_name};
use factgate_core::model::Severity;

/// The workflow commands of every article, one per line.
pub fn render(articles: &[CheckedArticle<'_>]) -> String {
    let mut out = String::new();
    for article in articles {
        article_commands(&mut out, article);
    }
    // Every field is escaped for the runner; what a draft's text holds besides (escape
    // sequences, carriage returns) is made visible too.
    super::terminal_safe(&out)
}

fn article_commands(out: &mut String, article: &CheckedArticle<'_>) {
    let decision = article.decision;
    let file = article.file.map(super::checkout_path);
    for issue in &decision.report.issues {
        if issue.issue_type == factgate_core::events::IssueType::Error
            && article.extraction.is_none()
        {
            // The one issue of an article that could not be read: reported under its reason.
            continue;
        }
        let mut properties: Vec<(&str, String)> = Vec::new();
        if let Some(file) = &file {
            properties.push(("file", file.clone()));
        }
        if let Some(region) = issue
            .claim_id
            .as_deref()
            .and_then(|id| claim_region(article, id))
        {
            properties.push(("line", region.start_line.to_string()));
            properties.push(("endLine", region.end_line.to_string()));
            if region.start_line == region.end_line {
                properties.push(("col", region.start_column.to_string()));
                properties.push(("endColumn", region.end_column.to_string()));
            }
        }
        properties.push((
            "title",
            format!("factgate: {}", serde_name(&issue.issue_type)),
        ));
        let mut message = issue.problem.clone();
        if !issue.claim.is_empty() {
            let _ = write!(message, "\nClaim: \"{}\" ({})", issue.claim, issue.location);
        }
        if !issue.evidence.is_empty() {
            let _ = write!(message, "\nEvidence: {}", issue.evidence);
        }
        let _ = write!(message, "\nDo: {}", issue.recommendation);
        command(out, level(issue.severity), &properties, &message);
    }
    for w in &decision.report.waived {
        let mut properties: Vec<(&str, String)> = Vec::new();
        if let Some(file) = &file {
            properties.push(("file", file.clone()));
        }
        if let Some(region) = w
            .issue
            .claim_id
            .as_deref()
            .and_then(|id| claim_region(article, id))
        {
            properties.push(("line", region.start_line.to_string()));
        }
        properties.push((
            "title",
            format!("factgate: waived {}", serde_name(&w.issue.issue_type)),
        ));
        let message = format!(
            "Waived: {}\nClaim: \"{}\"\n{}: {}",
            w.issue.problem,
            w.issue.claim,
            super::waiver_words(&w.waiver),
            w.waiver.reason
        );
        command(out, "notice", &properties, &message);
    }
    for reason in decision.reasons.iter().filter(|r| r.is_not_checked()) {
        let mut properties: Vec<(&str, String)> = Vec::new();
        if let Some(file) = &file {
            properties.push(("file", file.clone()));
        }
        properties.push(("title", format!("factgate: {}", serde_name(reason))));
        let message = format!(
            "{}: {}",
            article.name, decision.report.recommendation_reason
        );
        command(out, "error", &properties, &message);
    }
    let reasons = reason_names(&decision.reasons);
    let _ = writeln!(
        out,
        "factgate: {} {}{}",
        outcome_word(decision.outcome),
        // A plain line, but the runner parses every line: a name holding a line break must
        // not start a workflow command of its own.
        escape_data(file.as_deref().unwrap_or(article.name)),
        if reasons.is_empty() {
            String::new()
        } else {
            format!(" ({})", reasons.join(", "))
        }
    );
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low => "notice",
    }
}

/// One workflow command: `::name key=value,…::message`.
fn command(out: &mut String, name: &str, properties: &[(&str, String)], message: &str) {
    out.push_str("::");
    out.push_str(name);
    for (i, (key, value)) in properties.iter().enumerate() {
        out.push(if i == 0 { ' ' } else { ',' });
        out.push_str(key);
        out.push('=');
        out.push_str(&escape_property(value));
    }
    out.push_str("::");
    out.push_str(&escape_data(message));
    out.push('\n');
}

/// A message, as the runner reads it back: `%`, CR and LF escaped.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value: as [`escape_data`], and `:` and `,`, which end a value.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_and_properties_are_escaped_as_the_runner_reads_them() {
        assert_eq!(escape_data("50% off\r\nnext"), "50%25 off%0D%0Anext");
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
        let mut out = String::new();
        command(
            &mut out,
            "error",
            &[("file", "a,b.md".into()), ("line", "3".into())],
            "x::y",
        );
        assert_eq!(out, "::error file=a%2Cb.md,line=3::x::y\n");
    }
}
