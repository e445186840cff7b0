//! Step 5 of judging, for a statement without a source of its own: which of the article's
//! sources backs it.
//!
//! A news story links its source once and reports its figures over the paragraphs after, so a
//! statement with no link of its own borrows the sources of its paragraph, of the paragraphs
//! before it in its section, then of the whole article (`extract`, "Which citations back a
//! claim"). Each is judged on its own (steps 1–4); this step reads those judgments together,
//! as an editor would:
//!
//! 1. A source that states it backs it: **supported**, the source that states it best (highest
//!    support, the nearest on a tie) its evidence. What the others do not state is no issue of
//!    this statement's.
//! 2. Else a source that plainly states the same fact otherwise: **refuted**, with that source's
//!    issue (the nearest such source).
//! 3. Else, among the sources that were read, the one that comes closest decides:
//!    - a quotation a source gives to someone else, or a cited fact-check's mixed rating, keeps
//!      its issue (it is about this statement wherever it stands);
//!    - a specific the closest source's sentence lacks, or a figure 10–20% off, keeps its
//!      (medium) issue, unless the statement is reported speech;
//!    - a figure or year that **no** source gives, in any form: the statement's own issue for a
//!      claim without a source (`Claim::unbacked`): an unsourced statistic is high, what a
//!      named person said is low (reported speech, not checkable against the sources);
//!    - anything else is for review (low): the sources do not clearly state it, and do not
//!      contradict it.
//! 4. When no source could be read at all, their issues stand: the statement could not be
//!    checked, and that fails closed.
//!
//! The report says which source backed the statement: "the article's source in paragraph 1".

use crate::events::{ClaimResult, ClaimStatus, Issue, IssueType};
use crate::model::{Claim, ClaimElement, Severity, UnsourcedKind, Verdict};

/// What the sources a statement borrows say of it together.
#[derive(Debug)]
pub struct Backing<'a> {
    /// `None` when no source answered.
    pub status: Option<ClaimStatus>,
    /// The result the verdict names.
    pub deciding: Option<&'a ClaimResult>,
    /// The statement's issues.
    pub issues: Vec<Issue>,
    /// Which source decided, in words: "the article's source in paragraph 1".
    pub backed_by: Option<String>,
}

/// Reads the results `own` of a borrowing `claim` (one per source it was judged against).
pub fn choose<'a>(claim: &Claim, own: &[&'a ClaimResult]) -> Backing<'a> {
    let order = |r: &ClaimResult| {
        claim
            .citations
            .iter()
            .position(|c| c.url == r.source_url)
            .unwrap_or(usize::MAX)
    };
    let mut ranked: Vec<&'a ClaimResult> = own.to_vec();
    ranked.sort_by_key(|r| order(r));
    let best_of = |verdict: Verdict| {
        ranked
            .iter()
            .copied()
            .filter(|r| r.verdict == verdict)
            .fold(None, |best: Option<&ClaimResult>, r| match best {
                Some(b) if b.support >= r.support => Some(b),
                _ => Some(r),
            })
    };
    let speech = claim
        .unbacked
        .as_ref()
        .is_some_and(|u| u.kind == UnsourcedKind::ReportedSpeech);

    // 1. Supported by the source that states it best.
    if let Some(r) = best_of(Verdict::Supported) {
        return decided(claim, ClaimStatus::Supported, r, r.issue.iter().cloned());
    }
    // 2. Refuted by the nearest source that states the same fact otherwise.
    if let Some(r) = ranked
        .iter()
        .copied()
        .find(|r| r.verdict == Verdict::Refuted)
    {
        return decided(claim, ClaimStatus::Refuted, r, r.issue.iter().cloned());
    }
    let read: Vec<&'a ClaimResult> = ranked
        .iter()
        .copied()
        .filter(|r| r.fetch_status.is_ok())
        .collect();
    // 4. Nothing could be read: what went wrong with each source stands.
    let Some(closest) = best_of_read(&read) else {
        return Backing {
            status: (!ranked.is_empty()).then_some(ClaimStatus::Unconfirmed),
            deciding: ranked.first().copied(),
            issues: ranked.iter().filter_map(|r| r.issue.clone()).collect(),
            backed_by: None,
        };
    };
    // 3. Unconfirmed by every source read.
    let about_this_statement = read.iter().copied().find_map(|r| {
        let issue = r.issue.as_ref()?;
        let keeps = issue.severity > Severity::Low
            && (issue.issue_type == IssueType::Misattributed
                || issue.element == Some(ClaimElement::Rating));
        keeps.then(|| (r, issue.clone()))
    });
    if let Some((r, issue)) = about_this_statement {
        return decided(claim, ClaimStatus::Unconfirmed, r, [issue]);
    }
    if let Some(issue) = closest.issue.as_ref().filter(|i| {
        !speech
            && i.severity > Severity::Low
            && matches!(
                i.issue_type,
                IssueType::UnsupportedDetail | IssueType::FigureMismatch
            )
    }) {
        return decided(claim, ClaimStatus::Unconfirmed, closest, [issue.clone()]);
    }
    // A figure check left undone fails closed, whatever the sources say.
    if let Some(issue) = read.iter().find_map(|r| {
        r.issue
            .as_ref()
            .filter(|i| i.severity == Severity::High && i.issue_type == IssueType::Unverifiable)
    }) {
        return decided(claim, ClaimStatus::Unconfirmed, closest, [issue.clone()]);
    }
    let given_nowhere = read.iter().all(|r| {
        r.issue
            .as_ref()
            .is_some_and(|i| i.issue_type == IssueType::Unsourced)
    });
    let issue = if given_nowhere {
        unstated_issue(claim, &read, closest)
    } else {
        for_review(claim, closest, speech)
    };
    decided(claim, ClaimStatus::Unconfirmed, closest, [issue])
}

/// The result that comes closest to stating the claim: the highest support, the nearest on a tie.
fn best_of_read<'a>(read: &[&'a ClaimResult]) -> Option<&'a ClaimResult> {
    read.iter()
        .copied()
        .fold(None, |best: Option<&ClaimResult>, r| match best {
            Some(b) if b.support >= r.support => Some(b),
            _ => Some(r),
        })
}

fn decided<'a>(
    claim: &Claim,
    status: ClaimStatus,
    r: &'a ClaimResult,
    issues: impl IntoIterator<Item = Issue>,
) -> Backing<'a> {
    Backing {
        status: Some(status),
        deciding: Some(r),
        issues: issues.into_iter().collect(),
        backed_by: Some(backed_by(claim, &r.source_url)),
    }
}

/// "the source linked in its paragraph", "the article's source in paragraph 3".
pub fn backed_by(claim: &Claim, url: &str) -> String {
    let linked = claim
        .citations
        .iter()
        .find(|c| c.url == url)
        .and_then(|c| c.paragraph);
    match linked {
        Some(p) if p == claim.location.paragraph => "the source linked in its paragraph".to_owned(),
        Some(p) => format!("the article's source in paragraph {}", p + 1),
        None => "the article's source".to_owned(),
    }
}

/// A figure or year no source the article cites gives: the statement's issue as a claim without
/// a source (an unsourced statistic is high; reported speech low), naming the sources read.
fn unstated_issue(claim: &Claim, read: &[&ClaimResult], closest: &ClaimResult) -> Issue {
    let Some(unbacked) = claim.unbacked.as_ref() else {
        return closest
            .issue
            .clone()
            .unwrap_or_else(|| for_review(claim, closest, false));
    };
    let closest_issue = closest.issue.as_ref();
    let what = closest_issue
        .and_then(|i| i.difference.as_ref().map(|d| d.claim.clone()))
        .or_else(|| {
            closest_issue.and_then(|i| {
                i.problem
                    .strip_prefix("The source never gives ")
                    .and_then(|p| p.split(':').next())
                    .map(str::to_owned)
            })
        });
    let sources: Vec<&str> = read.iter().map(|r| r.source_url.as_str()).collect();
    let count = match sources.len() {
        1 => "the one source the article cites".to_owned(),
        n => format!("any of the {n} sources the article cites"),
    };
    let (severity, issue_type, problem, recommendation) = match unbacked.kind {
        UnsourcedKind::ReportedSpeech | UnsourcedKind::Qualitative => (
            Severity::Low,
            IssueType::Unverifiable,
            unbacked.problem.clone(),
            unbacked.recommendation.clone(),
        ),
        _ => {
            // A year the sources never give is strong evidence the claim is not theirs, as for a
            // cited source (medium); a statistic is unsourced (high).
            let year = closest_issue.is_some_and(|i| i.element == Some(ClaimElement::Date));
            let severity = if year {
                Severity::Medium
            } else {
                unbacked.severity.max(Severity::Medium)
            };
            (
                severity,
                IssueType::Unsourced,
                match &what {
                    Some(w) => format!("Not in {count}: {w} is an unsourced statistic"),
                    None => format!("Not in {count}: an unsourced statistic"),
                },
                "Cite the source it comes from, or remove it".to_owned(),
            )
        }
    };
    Issue {
        severity,
        issue_type,
        claim: claim.text.clone(),
        location: claim.location.to_string(),
        problem,
        evidence: format!("Checked against: {}", sources.join(", ")),
        recommendation,
        claim_id: Some(claim.id.clone()),
        source_url: None,
        element: closest_issue.and_then(|i| i.element),
        difference: None,
    }
}

/// The closest source's issue as one for review (low): the sources do not clearly state the
/// statement, and none contradicts it.
fn for_review(claim: &Claim, closest: &ClaimResult, speech: bool) -> Issue {
    let mut issue = closest.issue.clone().unwrap_or_else(|| Issue {
        severity: Severity::Low,
        issue_type: IssueType::Unverifiable,
        claim: claim.text.clone(),
        location: claim.location.to_string(),
        problem: "The article's sources do not clearly state the claim".to_owned(),
        evidence: format!("{}: no matching passage", closest.source_url),
        recommendation: "Check the claim against the sources, or cite a clearer one".to_owned(),
        claim_id: Some(claim.id.clone()),
        source_url: Some(closest.source_url.clone()),
        element: None,
        difference: None,
    });
    issue.severity = Severity::Low;
    if speech && let Some(unbacked) = &claim.unbacked {
        issue.issue_type = IssueType::Unverifiable;
        issue.problem = unbacked.problem.clone();
        issue.recommendation = unbacked.recommendation.clone();
    }
    issue
}
