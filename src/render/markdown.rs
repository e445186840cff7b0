//! Checked articles as Markdown, for a pull-request comment or a CI job summary
//! (`$GITHUB_STEP_SUMMARY`): a table of every article first, then each blocked article's issues
//! and every article's verdicts.

use std::fmt::Write;

use super::{CheckedArticle, claim_place, outcome_word, reason_names, serde_name, severity_word};
use factgate_core::events::Outcome;

/// The report of every article, as one Markdown document.
pub fn render(articles: &[CheckedArticle<'_>], unreadable: &[String]) -> String {
    let mut out = String::new();
    let blocked = articles
        .iter()
        .filter(|a| a.decision.outcome == Outcome::Block)
        .count();
    // Writing to a String cannot fail.
    let unread = match unreadable.len() {
        0 => String::new(),
        1 => "; 1 input could not be read".to_owned(),
        n => format!("; {n} inputs could not be read"),
    };
    let _ = writeln!(
        out,
        "# factgate: {} of {} {} blocked{unread}\n",
        blocked,
        articles.len(),
        if articles.len() == 1 {
            "article"
        } else {
            "articles"
        }
    );
    if !unreadable.is_empty() {
        let _ = writeln!(out, "## Inputs that could not be read (not checked)\n");
        for message in unreadable {
            let _ = writeln!(out, "- {}", cell(message));
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(
        out,
        "| article | outcome | reasons | claims | issues (high / medium / low) | accuracy |"
    );
    let _ = writeln!(out, "|---|---|---|---:|---|---:|");
    for a in articles {
        let s = &a.decision.report.summary;
        let _ = writeln!(
            out,
            "| {} | **{}** | {} | {} | {} / {} / {} | {:.1} |",
            cell(a.name),
            outcome_word(a.decision.outcome),
            cell(
                &a.decision
                    .reasons
                    .iter()
                    .zip(reason_names(&a.decision.reasons))
                    .map(|(r, code)| format!("{} ({code})", super::reason_words(*r)))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            s.total_claims,
            s.severity_counts.high,
            s.severity_counts.medium,
            s.severity_counts.low,
            s.accuracy_score
        );
    }
    for a in articles {
        article_section(&mut out, a);
    }
    // A draft's words reach a CI log or a terminal: none of its control characters do.
    super::terminal_safe(&out)
}

fn article_section(out: &mut String, a: &CheckedArticle<'_>) {
    let r = &a.decision.report;
    let _ = writeln!(
        out,
        "\n## {} {}\n",
        outcome_word(a.decision.outcome),
        code(a.name)
    );
    if let Some(changes) = &r.changes_since_previous {
        let _ = writeln!(
            out,
            "**{}**\n",
            text(&factgate_core::decide::revisions::headline(
                a.decision.revision,
                changes
            ))
        );
    }
    let _ = writeln!(out, "{}\n", text(&r.recommendation_reason));
    let (blocking, other): (Vec<_>, Vec<_>) = r
        .issues
        .iter()
        .partition(|i| factgate_core::decide::review::blocks(a.decision, i));
    for (heading, issues) in [("Findings that block", blocking), ("Other findings", other)] {
        if issues.is_empty() {
            continue;
        }
        let _ = writeln!(out, "### {heading}\n");
        for issue in issues {
            let _ = writeln!(
                out,
                "- **{}** {} (`{}`): {}",
                severity_word(issue.severity),
                super::finding_words(issue.issue_type),
                serde_name(&issue.issue_type),
                text(&issue.problem)
            );
            if !issue.claim.is_empty() {
                let at = issue.claim_id.as_deref().and_then(|id| claim_place(a, id));
                let _ = writeln!(
                    out,
                    "  - claim: “{}” ({})",
                    text(&issue.claim),
                    text(&super::text::located(at.as_deref(), &issue.location))
                );
            }
            let _ = writeln!(out, "  - evidence: {}", text(&issue.evidence));
            let _ = writeln!(out, "  - do: {}", text(&issue.recommendation));
        }
        let _ = writeln!(out);
    }
    let review = factgate_core::decide::review::for_review(a.decision);
    if !review.is_empty() {
        let _ = writeln!(out, "### For review (not blocking)\n");
        for item in &review {
            let at = claim_place(a, &item.claim_id);
            let _ = writeln!(
                out,
                "- “{}” ({}): {}",
                text(&item.claim),
                text(&super::text::located(at.as_deref(), &item.location)),
                text(&item.why)
            );
        }
        let _ = writeln!(out);
    }
    if !r.waived.is_empty() {
        let _ = writeln!(out, "### Waived\n");
        for w in &r.waived {
            let _ = writeln!(
                out,
                "- **{}** {} (`{}`) on “{}”: {}: {}",
                severity_word(w.issue.severity),
                super::finding_words(w.issue.issue_type),
                serde_name(&w.issue.issue_type),
                text(&w.issue.claim),
                text(&super::waiver_words(&w.waiver)),
                text(&w.waiver.reason)
            );
        }
        let _ = writeln!(out);
    }
    let judged: Vec<_> = r.claims.iter().filter(|c| c.verdict.is_some()).collect();
    if !judged.is_empty() {
        let _ = writeln!(out, "### Verdicts\n");
        let _ = writeln!(
            out,
            "| verdict | confidence (raw support) | claim | source | correction |"
        );
        let _ = writeln!(out, "|---|---:|---|---|---|");
        for c in judged {
            let source = match (c.source_url.as_deref(), c.evidence_page) {
                (Some(url), Some(page)) => format!("{url} (p. {page})"),
                (url, _) => url.unwrap_or("").to_owned(),
            };
            let source = match &c.supporting_source {
                Some(backing) => format!("{source} (refutes); {} (supports)", backing.source_url),
                None => source,
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                c.verdict.as_ref().map(serde_name).unwrap_or_default(),
                super::text::score_text(c.confidence, c.support),
                cell(&c.text),
                cell(&source),
                cell(c.correction.as_deref().unwrap_or(""))
            );
        }
    }
}

/// Text from an article or a source, made inert: Markdown's own characters escaped so a claim
/// cannot open a link, an image or a heading in the report, and HTML tags cannot render.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '!' | '|' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// Text for a table cell: [`text`], on one line.
fn cell(s: &str) -> String {
    text(s)
}

/// An inline code span holding `s` whatever backticks it holds.
fn code(s: &str) -> String {
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{}{pad}{fence}", s.replace(['\n', '\r'], " "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn article_text_cannot_break_the_table_or_open_links() {
        assert_eq!(text("a | b"), "a \\| b");
        assert_eq!(text("[x](http://e)"), "\\[x\\](http://e)");
        assert_eq!(text("<script>"), "\\<script\\>");
        assert_eq!(text("one\ntwo"), "one two");
    }

    #[test]
    fn a_name_with_backticks_stays_one_code_span() {
        assert_eq!(code("a.md"), "`a.md`");
        assert_eq!(code("a`b.md"), "``a`b.md``");
    }
}
