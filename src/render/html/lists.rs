//! The pages that list decisions: the index of several articles `factgate check --format html`
//! writes, and the desk's list of recent decisions served at `/ui/`.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{CONTENT_SECURITY_POLICY, CSS, reason_views, render_template};
use crate::render::{CheckedArticle, outcome_word, serde_name};
use factgate_core::events::{Decision, DecisionReason, Outcome};

#[derive(Serialize)]
struct IndexRow {
    outcome: String,
    outcome_word: &'static str,
    name: String,
    href: String,
    reasons: Vec<String>,
    claims: u32,
    high: u32,
    medium: u32,
    low: u32,
}

/// The index of several checked articles, each linked to its page at `hrefs[i]`.
pub fn index_page(
    articles: &[CheckedArticle<'_>],
    hrefs: &[String],
    unreadable: &[String],
) -> String {
    let rows: Vec<IndexRow> = articles
        .iter()
        .zip(hrefs)
        .map(|(a, href)| {
            let s = &a.decision.report.summary;
            IndexRow {
                outcome: serde_name(&a.decision.outcome),
                outcome_word: outcome_word(a.decision.outcome),
                name: a.name.to_owned(),
                href: href.clone(),
                reasons: a
                    .decision
                    .reasons
                    .iter()
                    .map(|r| crate::render::reason_words(*r).to_owned())
                    .collect(),
                claims: s.total_claims,
                high: s.severity_counts.high,
                medium: s.severity_counts.medium,
                low: s.severity_counts.low,
            }
        })
        .collect();
    let blocked = articles
        .iter()
        .filter(|a| a.decision.outcome == Outcome::Block)
        .count();
    render_template(
        "index.html",
        serde_json::json!({
            "csp": CONTENT_SECURITY_POLICY.as_str(),
            "css": CSS,
            "rows": rows,
            "blocked": blocked,
            "unreadable": unreadable,
            "generated_at": Utc::now().format("%Y-%m-%d %H:%M UTC").to_string(),
        }),
    )
}

/// One decision on the desk's list.
#[derive(Debug, Clone, Copy)]
pub struct DeskEntry<'a> {
    pub decision: &'a Decision,
    pub title: Option<&'a str>,
    pub section: Option<&'a str>,
    /// Where the decision's page is.
    pub href: &'a str,
    /// A later revision of the article still being checked: this row's decision no longer
    /// answers for the article as it stands.
    pub pending_revision: Option<u64>,
}

/// What the desk's list page shows.
#[derive(Debug, Clone)]
pub struct Desk<'a> {
    /// The decisions to list, newest first, filtered already.
    pub rows: Vec<DeskEntry<'a>>,
    /// Whether more decisions matched than are listed.
    pub truncated: bool,
    /// The filters applied, to show them selected.
    pub outcome: Option<Outcome>,
    pub section: Option<&'a str>,
    /// Every section known, for the filter.
    pub sections: Vec<&'a str>,
    /// Decisions of today (UTC), whatever the filters: blocked and passed.
    pub blocked_today: usize,
    pub passed_today: usize,
    /// Drafts waiting for a decision.
    pub pending: usize,
    /// Reasons of today's blocks, most frequent first.
    pub top_reasons: Vec<(DecisionReason, usize)>,
    /// Decisions made today to answer an editor's override.
    pub overrides_today: usize,
    /// Drafts read lately that could not be read (newest first): where they were and why.
    pub unreadable: Vec<(String, String, DateTime<Utc>)>,
    pub today: DateTime<Utc>,
}

#[derive(Serialize)]
struct DeskRow {
    outcome: String,
    outcome_word: &'static str,
    title: String,
    revision: Option<u64>,
    pending_revision: Option<u64>,
    section: String,
    href: String,
    decided_at: String,
    reasons: Vec<String>,
    article_id: String,
    /// The first finding that blocks, in words; for a pass, what was overridden or waived.
    first_finding: String,
    overridden_by: Option<String>,
    /// Claims for review (not blocking).
    review: usize,
    high: u32,
    medium: u32,
    low: u32,
}

/// The first finding of a decision in words: what blocks it first, or, for a pass, what was
/// waived.
fn first_finding(d: &Decision) -> String {
    let blocking = d
        .report
        .issues
        .iter()
        .find(|i| factgate_core::decide::review::blocks(d, i));
    if let Some(issue) = blocking {
        // A check that did not complete says why: an unreadable draft's error, say.
        let why = if issue.issue_type == factgate_core::events::IssueType::Error
            && !issue.evidence.is_empty()
        {
            format!(" ({})", issue.evidence)
        } else {
            String::new()
        };
        return format!(
            "{}: {}{why}",
            crate::render::finding_words(issue.issue_type),
            issue.problem
        );
    }
    if let Some(w) = d.report.waived.first() {
        // The row names the overriding editor itself ("overridden by Ana"): said once.
        if d.override_applied.is_some() {
            return crate::render::finding_words(w.issue.issue_type).to_owned();
        }
        return format!(
            "{} {}",
            crate::render::finding_words(w.issue.issue_type),
            crate::render::waiver_words(&w.waiver)
        );
    }
    String::new()
}

/// The desk's page of recent decisions (`/ui/`).
pub fn desk_page(desk: &Desk<'_>) -> String {
    let rows: Vec<DeskRow> = desk
        .rows
        .iter()
        .map(|e| {
            let d = e.decision;
            let s = &d.report.summary;
            DeskRow {
                outcome: serde_name(&d.outcome),
                outcome_word: outcome_word(d.outcome),
                title: e
                    .title
                    .filter(|t| !t.trim().is_empty())
                    .unwrap_or(&d.article_id)
                    .to_owned(),
                revision: d.revision,
                pending_revision: e.pending_revision,
                section: e.section.unwrap_or("").to_owned(),
                href: e.href.to_owned(),
                decided_at: d.decided_at.format("%Y-%m-%d %H:%M").to_string(),
                reasons: d
                    .reasons
                    .iter()
                    .map(|r| crate::render::reason_words(*r).to_owned())
                    .collect(),
                article_id: d.article_id.clone(),
                first_finding: first_finding(d),
                overridden_by: d.override_applied.as_ref().map(|o| o.editor.clone()),
                review: factgate_core::decide::review::for_review(d).len(),
                high: s.severity_counts.high,
                medium: s.severity_counts.medium,
                low: s.severity_counts.low,
            }
        })
        .collect();
    render_template(
        "desk.html",
        serde_json::json!({
            "csp": CONTENT_SECURITY_POLICY.as_str(),
            "css": CSS,
            "rows": rows,
            "truncated": desk.truncated,
            "outcome": desk.outcome.map(|o| serde_name(&o)),
            "section": desk.section,
            "sections": desk.sections,
            "blocked_today": desk.blocked_today,
            "passed_today": desk.passed_today,
            "pending": desk.pending,
            "top_reasons": reason_views(desk.top_reasons.iter().copied()),
            "overrides_today": desk.overrides_today,
            "unreadable": desk.unreadable.iter().map(|(at, error, seen)| serde_json::json!({
                "at": at,
                "error": error,
                "seen": seen.format("%Y-%m-%d %H:%M").to_string(),
            })).collect::<Vec<_>>(),
            "today": desk.today.format("%Y-%m-%d").to_string(),
        }),
    )
}
