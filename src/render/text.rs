//! A decision as text for a person at a terminal: the outcome and why, the headline counts, every
//! issue with what to do about it, and the per-claim verdicts.

use super::{CheckedArticle, claim_place, outcome_word, reason_names, serde_name, severity_word};
use factgate_core::decide::revisions::headline;
use factgate_core::events::{Decision, IssueChange, RevisionChanges};
use std::fmt::Write;

/// Renders a checked article for reading: its decision, with each claim's place in the file.
pub fn article_text(article: &CheckedArticle<'_>) -> String {
    render(article.name, article.decision, &|id| {
        claim_place(article, id)
    })
}

/// Renders `decision` for reading; `title` names the article (a file name, an id). Claims are
/// placed by their section and paragraph only: [`article_text`] adds the line and column.
pub fn decision_text(title: &str, decision: &Decision) -> String {
    render(title, decision, &|_| None)
}

fn render(title: &str, decision: &Decision, place: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    let r = &decision.report;
    summary_text(&mut out, &super::one_line(title), decision);
    findings_text(&mut out, decision, place);
    review_text(&mut out, decision, place);
    waived_text(&mut out, decision);
    if let Some(changes) = &r.changes_since_previous {
        changes_text(&mut out, changes);
    }
    if !r.top_priorities.is_empty() {
        let _ = writeln!(out, "\ntop priorities:");
        for p in &r.top_priorities {
            let _ = writeln!(out, "  {p}");
        }
    }
    verdicts_text(&mut out, decision);
    // A draft's words reach a terminal: none of its control characters do.
    super::terminal_safe(&out)
}

// Writing to a String cannot fail: the results of `writeln!` below are ignored.

/// The outcome, why, what changed since the previous revision, and the counts.
fn summary_text(out: &mut String, title: &str, decision: &Decision) {
    let r = &decision.report;
    let s = &r.summary;
    let outcome = outcome_word(decision.outcome);
    let reasons = reason_names(&decision.reasons);
    if let Some(changes) = &r.changes_since_previous {
        let _ = writeln!(out, "{}", headline(decision.revision, changes));
    }
    let _ = writeln!(out, "{outcome}  {title}");
    if !reasons.is_empty() {
        let words: Vec<String> = decision
            .reasons
            .iter()
            .zip(&reasons)
            .map(|(r, code)| format!("{} ({code})", super::reason_words(*r)))
            .collect();
        let _ = writeln!(out, "why: {}", words.join("; "));
    }
    let _ = writeln!(out, "{}", r.recommendation_reason);
    let v = &s.verification_results;
    let _ = writeln!(
        out,
        "claims: {} ({} sourced, {} unsourced); supported {}, refuted {}, contested {}, unverifiable {}; accuracy {:.1}",
        s.total_claims,
        s.sourced_claims,
        s.unsourced_claims,
        v.verified_true,
        v.verified_false,
        v.contested,
        v.unverifiable,
        s.accuracy_score
    );
    let _ = writeln!(
        out,
        "citations: {} checked, {} working; issues: {} high, {} medium, {} low",
        s.citations_checked,
        s.citations_working,
        s.severity_counts.high,
        s.severity_counts.medium,
        s.severity_counts.low
    );
}

/// The findings that block, then the others, each with its claim, evidence and what to do.
fn findings_text(out: &mut String, decision: &Decision, place: &dyn Fn(&str) -> Option<String>) {
    let r = &decision.report;
    let (blocking, other): (Vec<_>, Vec<_>) = r
        .issues
        .iter()
        .partition(|i| factgate_core::decide::review::blocks(decision, i));
    for (heading, issues) in [("findings that block", blocking), ("other findings", other)] {
        if issues.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{heading}:");
        for issue in issues {
            let issue_type = serde_name(&issue.issue_type);
            let _ = writeln!(
                out,
                "  [{}] {} ({issue_type}) — {}",
                severity_word(issue.severity),
                super::finding_words(issue.issue_type),
                issue.problem
            );
            if !issue.claim.is_empty() {
                let at = issue.claim_id.as_deref().and_then(place);
                let _ = writeln!(
                    out,
                    "      claim:    \"{}\" ({})",
                    issue.claim,
                    located(at.as_deref(), &issue.location)
                );
            }
            let _ = writeln!(out, "      evidence: {}", one_line(&issue.evidence));
            let _ = writeln!(out, "      do:       {}", issue.recommendation);
        }
    }
}

/// The claims listed for review, which do not block.
fn review_text(out: &mut String, decision: &Decision, place: &dyn Fn(&str) -> Option<String>) {
    let review = factgate_core::decide::review::for_review(decision);
    if !review.is_empty() {
        let _ = writeln!(out, "\nfor review (not blocking):");
        for item in &review {
            let at = place(&item.claim_id);
            let _ = writeln!(
                out,
                "  \"{}\" ({}) — {}",
                item.claim,
                located(at.as_deref(), &item.location),
                item.why
            );
        }
    }
}

/// The findings waived, with the waiver and its reason.
fn waived_text(out: &mut String, decision: &Decision) {
    let r = &decision.report;
    if !r.waived.is_empty() {
        let _ = writeln!(out, "\nwaived:");
        for w in &r.waived {
            let _ = writeln!(
                out,
                "  [{}] {} ({}) — \"{}\": {}: {}",
                severity_word(w.issue.severity),
                super::finding_words(w.issue.issue_type),
                serde_name(&w.issue.issue_type),
                w.issue.claim,
                super::waiver_words(&w.waiver),
                w.waiver.reason
            );
        }
    }
}

/// Each judged claim's verdict, score, the page of a document its evidence is on, and its
/// correction.
fn verdicts_text(out: &mut String, decision: &Decision) {
    let r = &decision.report;
    let judged: Vec<_> = r.claims.iter().filter(|c| c.verdict.is_some()).collect();
    if !judged.is_empty() {
        let _ = writeln!(out, "\nverdicts:");
        for c in judged {
            let verdict = c.verdict.as_ref().map(serde_name).unwrap_or_default();
            let score = score_text(c.confidence, c.support);
            let _ = write!(out, "  {verdict:<12} {score}  \"{}\"", c.text);
            if let Some(page) = c.evidence_page {
                let _ = write!(out, " (source p. {page})");
            }
            if let Some(correction) = &c.correction {
                let _ = write!(out, " — {correction}");
            }
            if let Some(backing) = &c.supporting_source {
                let _ = write!(
                    out,
                    " — refuted by {}, supported by {}",
                    c.source_url.as_deref().unwrap_or("?"),
                    backing.source_url
                );
            }
            let _ = writeln!(out);
        }
    }
}

/// `text` on one line: each run of whitespace that holds a line break (a quoted page's paragraphs)
/// becomes one space, so every issue keeps its four lines.
fn one_line(text: &str) -> String {
    if !text.contains(['\n', '\r']) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut pending = String::new();
    for c in text.chars() {
        if c.is_whitespace() {
            pending.push(c);
            continue;
        }
        if !pending.is_empty() {
            if pending.contains(['\n', '\r']) {
                out.push(' ');
            } else {
                out.push_str(&pending);
            }
            pending.clear();
        }
        out.push(c);
    }
    out
}

/// `place; section, paragraph N` when the claim was located, the report's location alone when not.
pub(super) fn located(place: Option<&str>, location: &str) -> String {
    match (place, location.is_empty()) {
        (Some(place), false) => format!("{place}; {location}"),
        (Some(place), true) => place.to_owned(),
        (None, _) => location.to_owned(),
    }
}

/// The claim's calibrated confidence with the raw support score beside it; the raw score alone
/// for a report written before confidence was computed.
pub(super) fn score_text(confidence: Option<f64>, support: Option<f64>) -> String {
    match (confidence, support) {
        (Some(p), Some(raw)) => format!("confidence {p:.2} (raw {raw:.2})"),
        (Some(p), None) => format!("confidence {p:.2}"),
        (None, raw) => format!("support {:.2}", raw.unwrap_or(0.0)),
    }
}

/// The changes since the previous revision, list by list.
fn changes_text(out: &mut String, changes: &RevisionChanges) {
    let _ = writeln!(
        out,
        "\nchanges since revision {}:",
        changes.previous_revision
    );
    let issue = |out: &mut String, word: &str, i: &IssueChange| {
        let _ = write!(
            out,
            "  {word:<10} [{}] {} — {}",
            severity_word(i.severity),
            serde_name(&i.issue_type),
            i.problem
        );
        if !i.claim.is_empty() {
            let _ = write!(out, ": \"{}\"", i.claim);
        }
        if let Some(now) = &i.claim_now {
            let _ = write!(out, " (now: \"{now}\")");
        }
        if let Some(how) = &i.resolution {
            let _ = write!(out, " ({})", serde_name(how).replace('_', " "));
        }
        let _ = writeln!(out);
    };
    for i in &changes.fixed {
        issue(out, "fixed", i);
    }
    for i in &changes.still_open {
        issue(out, "open", i);
    }
    for i in &changes.new {
        issue(out, "new", i);
    }
    for c in &changes.citations_replaced {
        let now = if c.replacements.is_empty() {
            "removed".to_owned()
        } else {
            format!("replaced by {}", c.replacements.join(", "))
        };
        let _ = writeln!(
            out,
            "  citation   {} ({}) {now}: \"{}\"",
            c.previous_url, c.previous_problem, c.claim
        );
    }
    for c in &changes.rechecked {
        let how = if c.from_cache {
            "served from cache"
        } else {
            "fetched again"
        };
        let _ = writeln!(
            out,
            "  rechecked  {} ({how}): \"{}\"",
            c.source_url, c.claim
        );
    }
    let listed = changes.fixed.len() + changes.still_open.len() + changes.new.len();
    let c = &changes.counts;
    let total = (c.fixed + c.still_open + c.new) as usize;
    if listed < total {
        let _ = writeln!(out, "  … {} more not listed", total - listed);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn line_breaks_in_evidence_become_one_space() {
        assert_eq!(
            super::one_line("Plans and pricing\n\nBudgetTutor  costs $9"),
            "Plans and pricing BudgetTutor  costs $9"
        );
        assert_eq!(super::one_line("a b"), "a b");
    }
}
