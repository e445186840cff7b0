//! Decisions as web pages for editors: one self-contained page per decision (the article with
//! each claim marked by its verdict, and beside it the evidence), an index of several checked
//! articles, and the desk's list of recent decisions served at `/ui/`.
//!
//! Pages are rendered by minijinja from templates compiled into the binary (`templates/`), with
//! HTML auto-escaping on: every value from a draft or a fetched source is untrusted and reaches
//! the page only as an escaped template value, never as markup. The Rust side only cuts text into
//! runs (a claim, the words a source shares with it); it never writes HTML itself.
//!
//! The pages hold no script and load nothing: the style sheet is inline, and the
//! Content-Security-Policy (sent as a header by the HTTP endpoint, and repeated in a `<meta>` so a
//! page saved by `factgate check` keeps it) allows that one style sheet by its hash and nothing
//! else, so markup that slipped through could neither run nor fetch.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::LazyLock;

use base64::Engine as _;
use minijinja::Environment;
use serde::Serialize;
use sha2::{Digest, Sha256};
use unicode_segmentation::UnicodeSegmentation;

use super::{CheckedArticle, outcome_word, serde_name};
use factgate_core::decide::revisions;
use factgate_core::events::{
    ClaimStatus, ClaimVerdict, Decision, DecisionReason, Issue, IssueType, Outcome, RevisionChanges,
};
use factgate_core::extract::{self, ViewBlock, ViewKind};
use factgate_core::judge::CredibilityLevel;
use factgate_core::model::BlockRole;
use factgate_core::model::{BodyFormat, Severity};

/// The page's one style sheet.
const CSS: &str = include_str!("../templates/style.css");

/// The Content-Security-Policy of every page: nothing may load or run but the inline style sheet
/// whose hash this names. No `script-src`, so `default-src 'none'` forbids every script.
pub static CONTENT_SECURITY_POLICY: LazyLock<String> = LazyLock::new(|| {
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(CSS.as_bytes()));
    format!(
        "default-src 'none'; style-src 'sha256-{hash}'; img-src 'none'; base-uri 'none'; \
         form-action 'self'"
    )
});

static TEMPLATES: LazyLock<Environment<'static>> = LazyLock::new(|| {
    let mut env = Environment::new();
    // A misspelt field is an error in the tests, not a silently empty cell.
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    // Escape everything, whatever a template's name: no page may hold unescaped values.
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
    for (name, source) in [
        ("layout.html", include_str!("../templates/layout.html")),
        ("macros.html", include_str!("../templates/macros.html")),
        ("decision.html", include_str!("../templates/decision.html")),
        ("index.html", include_str!("../templates/index.html")),
        ("desk.html", include_str!("../templates/desk.html")),
        ("status.html", include_str!("../templates/status.html")),
    ] {
        // The templates are part of the binary; the unit tests render each of them.
        env.add_template(name, source)
            .expect("the compiled-in templates parse");
    }
    env
});

/// Renders `template` with `context`. The templates are compiled in and their contexts are
/// built here, so a failure is a defect; it is shown as a page rather than a panic.
fn render_template(template: &str, context: serde_json::Value) -> String {
    let rendered = TEMPLATES
        .get_template(template)
        .and_then(|t| t.render(minijinja::value::Serde(&context)));
    match rendered {
        Ok(page) => page,
        Err(err) => {
            crate::internal_events::page_render_failed(template, &err);
            format!(
                "<!DOCTYPE html><title>factgate</title><p>The page could not be rendered: {}</p>",
                escape(&err.to_string())
            )
        }
    }
}

/// Minimal escaping for the one message built outside a template.
pub(crate) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Everything one decision page shows.
#[derive(Debug, Clone, Copy)]
pub struct DecisionPage<'a> {
    pub decision: &'a Decision,
    /// The article's body and format, when known: the page then shows the article with each claim
    /// marked in it. Without it the claims are listed alone.
    pub body: Option<(&'a str, BodyFormat)>,
    /// The draft's title, when known; else the article id heads the page.
    pub title: Option<&'a str>,
    pub section: Option<&'a str>,
    /// The decision on the article's previous revision, when known: the page lists what changed.
    pub previous: Option<&'a Decision>,
    /// A link back to a list of decisions, when there is one.
    pub back: Option<&'a str>,
    /// Where the override form posts, when the page offers one (served pages behind the login;
    /// never a page `check` writes).
    pub override_action: Option<&'a str>,
    /// A line shown above the decision: what the editor's last action did ("Your override was
    /// sent…"), after the form's redirect back here.
    pub notice: Option<&'a str>,
}

/// How a claim is shown: its verdict, or why it has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Mark {
    Refuted,
    Contested,
    Unsourced,
    Unverifiable,
    Unchecked,
    Supported,
}

impl Mark {
    fn of(claim: &ClaimVerdict, issues: &[&Issue]) -> Mark {
        // `contested` alone marks a report written before it was a verdict.
        if claim.contested {
            return Mark::Contested;
        }
        match claim.verdict {
            Some(ClaimStatus::Contested) => Mark::Contested,
            // One source backs it, yet an issue about it counts against the article (another
            // of its sources is dead, say): the editor must act on it, so it is not shown as
            // supported.
            Some(ClaimStatus::Supported)
                if issues.iter().any(|i| i.severity >= Severity::Medium) =>
            {
                Mark::Unverifiable
            }
            Some(ClaimStatus::Supported) => Mark::Supported,
            Some(ClaimStatus::Refuted) => Mark::Refuted,
            Some(ClaimStatus::Unconfirmed) => Mark::Unverifiable,
            None if issues.iter().any(|i| i.issue_type == IssueType::Unsourced) => Mark::Unsourced,
            None => Mark::Unchecked,
        }
    }

    /// The CSS class and the `data-verdict` value.
    fn class(self) -> &'static str {
        match self {
            Mark::Supported => "supported",
            Mark::Refuted => "refuted",
            Mark::Unverifiable => "unverifiable",
            Mark::Contested => "contested",
            Mark::Unsourced => "unsourced",
            Mark::Unchecked => "unchecked",
        }
    }

    /// The words shown: a verdict is never told by colour alone.
    fn label(self) -> &'static str {
        match self {
            Mark::Supported => "Supported",
            Mark::Refuted => "Refuted",
            Mark::Unverifiable => "Unverifiable",
            Mark::Contested => "Contested",
            Mark::Unsourced => "Unsourced",
            Mark::Unchecked => "Not checked",
        }
    }

    fn icon(self) -> &'static str {
        match self {
            Mark::Supported => "✔",
            Mark::Refuted => "✘",
            Mark::Unverifiable => "?",
            Mark::Contested => "⇄",
            Mark::Unsourced => "!",
            Mark::Unchecked => "…",
        }
    }
}

#[derive(Serialize)]
struct Segment {
    text: String,
    /// The claim's number (from 1) when the run is a claim.
    claim: Option<usize>,
    class: &'static str,
    label: &'static str,
    icon: &'static str,
    severity: Option<&'static str>,
}

#[derive(Serialize)]
struct BlockView {
    kind: ViewKind,
    segments: Vec<Segment>,
}

#[derive(Serialize)]
struct Run {
    text: String,
    mark: bool,
    /// The element that differs between the claim and its source (a figure, a name): marked in
    /// its own colour and said in words beside it.
    differs: bool,
}

#[derive(Serialize)]
struct IssueView {
    severity: &'static str,
    problem: String,
    evidence: String,
    recommendation: String,
    /// The finding's type as events name it, and in words.
    finding_type: String,
    finding_words: &'static str,
    claim_id: Option<String>,
    /// Whether an editor may override it (a check that did not complete may not).
    waivable: bool,
}

#[derive(Serialize)]
struct WaivedView {
    issue: IssueView,
    claim: String,
    /// "overridden by Ana Editor", "waived in the draft", "waived in the waivers file".
    by: String,
    reason: String,
    when: Option<String>,
}

#[derive(Serialize)]
struct ClaimView {
    n: usize,
    id: String,
    text: String,
    location: String,
    class: &'static str,
    label: &'static str,
    icon: &'static str,
    severity: Option<&'static str>,
    contested: bool,
    /// The claim's text in runs, the element the source states otherwise marked.
    claim_runs: Vec<Run>,
    /// "The source says 7% where the claim says 17%": the difference in words.
    difference: Option<String>,
    /// For a contested claim, the source that backs it (the fields below name the refuting one).
    supporting: Option<SupportingView>,
    evidence: Vec<Run>,
    /// The page of a document (a PDF) the evidence is on: "p. 3".
    page: Option<String>,
    source_url: Option<String>,
    /// The source as a link, only when it is http(s); for a document's evidence, to its page.
    source_href: Option<String>,
    credibility: String,
    support: Option<String>,
    correction: Option<String>,
    issues: Vec<IssueView>,
    in_text: bool,
    prev: Option<usize>,
    next: Option<usize>,
}

#[derive(Serialize)]
struct SupportingView {
    source_url: String,
    source_href: Option<String>,
    evidence: Vec<Run>,
    credibility: String,
    support: String,
}

#[derive(Serialize)]
struct LegendEntry {
    class: &'static str,
    label: &'static str,
    icon: &'static str,
    count: usize,
}

#[derive(Serialize)]
struct ReasonView {
    name: String,
    label: &'static str,
    count: usize,
}

#[derive(Serialize)]
struct ChangedVerdict {
    text: String,
    from: &'static str,
    to: &'static str,
}

#[derive(Serialize)]
struct EditedClaim {
    before: String,
    after: String,
    from: &'static str,
    to: &'static str,
}

#[derive(Serialize)]
struct Changes {
    previous_revision: Option<u64>,
    previous_outcome: &'static str,
    /// The editor whose override made the previous revision's decision, when one did.
    previous_overridden_by: Option<String>,
    /// "Revision 3: 2 of 3 issues fixed; 1 still open; 1 new", from the report's section.
    headline: Option<String>,
    /// The report's `changes_since_previous` (or the same comparison made with the previous
    /// decision the board holds, for a report written before it had one).
    issues: Option<RevisionChanges>,
    added: Vec<String>,
    removed: Vec<String>,
    changed: Vec<ChangedVerdict>,
    /// Claims reworded since: listed once, before and after, not as one gone and one new.
    edited: Vec<EditedClaim>,
}

/// The article's blocks with each claim marked where it is, the claims marked in them, and
/// what the page says when the text is not there to mark. Extraction is deterministic, so
/// extracting the body again gives the same claim ids, each with its (paragraph, sentence).
fn article_blocks(
    page: &DecisionPage<'_>,
    marks: &[Mark],
) -> (Vec<BlockView>, HashSet<usize>, &'static str) {
    let report = &page.decision.report;
    let mut blocks: Vec<BlockView> = Vec::new();
    let mut in_text: HashSet<usize> = HashSet::new();
    let mut no_text = "The article's text is not held here: its claims are listed alone.";
    if let Some((body, format)) = page.body {
        match (
            extract::extract(body, format),
            extract::article_view(body, format),
        ) {
            (Ok(extraction), Ok(view)) => {
                let number: HashMap<&str, usize> = report
                    .claims
                    .iter()
                    .enumerate()
                    .map(|(i, c)| (c.claim_id.as_str(), i))
                    .collect();
                // Sentences by (paragraph, sentence); headings apart, since a heading's claim
                // carries the index of the paragraph after it; the draft's title is not in the
                // body, and its claim is listed alone.
                let mut at: HashMap<(usize, usize), usize> = HashMap::new();
                let mut headings: Vec<(usize, usize, Vec<String>)> = Vec::new();
                for claim in &extraction.claims {
                    let Some(&i) = number.get(claim.id.as_str()) else {
                        continue;
                    };
                    match claim.location.block {
                        Some(BlockRole::Title) => {}
                        Some(BlockRole::Heading) => {
                            headings.push((claim.location.paragraph, i, words(&claim.text)));
                        }
                        _ => {
                            at.insert((claim.location.paragraph, claim.location.sentence), i);
                        }
                    }
                }
                let last = extraction.paragraphs.saturating_sub(1);
                let mut next_paragraph = 0;
                blocks = view
                    .iter()
                    .map(|b| {
                        let heading = match b.paragraph {
                            Some(p) => {
                                next_paragraph = p + 1;
                                None
                            }
                            None => {
                                let before = next_paragraph.min(last);
                                let text = words(&b.text);
                                headings
                                    .iter()
                                    .find(|(p, _, w)| *p == before && contains_in_order(&text, w))
                                    .map(|h| h.1)
                            }
                        };
                        block_view(b, &at, heading, report, marks, &mut in_text)
                    })
                    .collect();
            }
            _ => no_text = "The article's text could not be read, so no claim is marked in it.",
        }
    }
    (blocks, in_text, no_text)
}

/// The panel of claim `i` (of `claims`), marked `mark`, with its own issues `own` (and those
/// waived, `waived`, which still say what differs).
fn claim_view(
    i: usize,
    c: &ClaimVerdict,
    mark: Mark,
    own: &[&Issue],
    waived: &[&Issue],
    in_text: &HashSet<usize>,
    claims: usize,
) -> ClaimView {
    // A PDF viewer opens a document at the page its URL's `#page=` names (RFC 8118).
    let source_href =
        c.source_url
            .as_deref()
            .and_then(web_link)
            .map(|href| match c.evidence_page {
                Some(page) if !href.contains('#') => format!("{href}#page={page}"),
                _ => href,
            });
    let with_waived: Vec<&Issue> = own.iter().chain(waived).copied().collect();
    let difference = difference_of(c, &with_waived);
    let disagrees = matches!(mark, Mark::Refuted | Mark::Contested);
    ClaimView {
        n: i + 1,
        id: c.claim_id.clone(),
        text: c.text.clone(),
        location: c.location.clone(),
        class: mark.class(),
        label: mark.label(),
        icon: mark.icon(),
        severity: c.severity.map(severity_name),
        contested: mark == Mark::Contested,
        claim_runs: match &difference {
            Some((claimed, _)) => marked_runs(&c.text, claimed),
            None => vec![plain_run(&c.text)],
        },
        difference: difference.as_ref().map(|(claimed, stated)| {
            format!("The source says {stated} where the claim says {claimed}.")
        }),
        supporting: c.supporting_source.as_ref().map(|s| SupportingView {
            source_url: s.source_url.clone(),
            source_href: web_link(&s.source_url),
            evidence: s
                .evidence_quote
                .as_deref()
                .map(|q| shared_words(q, &c.text))
                .unwrap_or_default(),
            credibility: credibility_label(Some(s.source_credibility)),
            support: super::text::score_text(s.confidence, Some(s.support)),
        }),
        evidence: c
            .evidence_quote
            .as_deref()
            .map(|q| match &difference {
                // The passage of a source that disagrees: the element that differs is
                // marked, not the words it shares with the claim, which would read as
                // agreement.
                Some((_, stated)) => marked_runs(q, stated),
                None if disagrees => vec![plain_run(q)],
                None => shared_words(q, &c.text),
            })
            .unwrap_or_default(),
        page: c.evidence_page.map(|page| format!("p. {page}")),
        source_url: c.source_url.clone(),
        source_href,
        credibility: credibility_label(c.source_credibility),
        support: (c.support.is_some() || c.confidence.is_some())
            .then(|| super::text::score_text(c.confidence, c.support)),
        correction: c.correction.clone(),
        issues: own.iter().copied().map(issue_view).collect(),
        in_text: in_text.contains(&i),
        prev: (i > 0).then_some(i),
        next: (i + 1 < claims).then_some(i + 2),
    }
}

/// How many claims carry each mark, for the legend.
fn legend_of(marks: &[Mark]) -> Vec<LegendEntry> {
    let mut legend: BTreeMap<Mark, usize> = BTreeMap::new();
    for mark in marks {
        *legend.entry(*mark).or_default() += 1;
    }
    legend
        .into_iter()
        .map(|(mark, count)| LegendEntry {
            class: mark.class(),
            label: mark.label(),
            icon: mark.icon(),
            count,
        })
        .collect()
}

/// The page of one decision.
pub fn decision_page(page: &DecisionPage<'_>) -> String {
    let d = page.decision;
    let report = &d.report;
    let issues_of = |id: &str| -> Vec<&Issue> {
        report
            .issues
            .iter()
            .filter(|i| i.claim_id.as_deref() == Some(id))
            .collect()
    };
    // An overridden or waived finding still says what differs: the card keeps both sides.
    let waived_of = |id: &str| -> Vec<&Issue> {
        report
            .waived
            .iter()
            .map(|w| &w.issue)
            .filter(|i| i.claim_id.as_deref() == Some(id))
            .collect()
    };
    let marks: Vec<Mark> = report
        .claims
        .iter()
        .map(|c| Mark::of(c, &issues_of(&c.claim_id)))
        .collect();

    let (blocks, in_text, no_text) = article_blocks(page, &marks);

    let claims: Vec<ClaimView> = report
        .claims
        .iter()
        .enumerate()
        .map(|(i, c)| {
            claim_view(
                i,
                c,
                marks[i],
                &issues_of(&c.claim_id),
                &waived_of(&c.claim_id),
                &in_text,
                report.claims.len(),
            )
        })
        .collect();

    let legend = legend_of(&marks);
    let article_issues: Vec<IssueView> = report
        .issues
        .iter()
        .filter(|i| {
            i.claim_id
                .as_deref()
                .is_none_or(|id| !report.claims.iter().any(|c| c.claim_id == id))
        })
        .map(issue_view)
        .collect();

    let context = serde_json::json!({
        "csp": CONTENT_SECURITY_POLICY.as_str(),
        "css": CSS,
        "back": page.back,
        "heading": page.title.filter(|t| !t.trim().is_empty()).unwrap_or(&d.article_id),
        "article_id": d.article_id,
        "revision": d.revision,
        "section": page.section,
        "decision_id": d.decision_id,
        "decided_at": d.decided_at.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
        "outcome": serde_name(&d.outcome),
        "outcome_word": outcome_word(d.outcome),
        "recommendation_reason": report.recommendation_reason,
        "reasons": reason_views(d.reasons.iter().map(|r| (*r, 1))),
        "summary": report.summary,
        "accuracy": super::accuracy_words(d),
        "review": factgate_core::decide::review::for_review(d)
            .into_iter()
            .map(|r| {
                let n = report
                    .claims
                    .iter()
                    .position(|c| c.claim_id == r.claim_id)
                    .map(|i| i + 1);
                serde_json::json!({ "claim": r.claim, "location": r.location, "why": r.why, "n": n })
            })
            .collect::<Vec<_>>(),
        "blocking": blocking_view(d),
        "notice": page.notice,
        // "Priority 1: …" in a numbered list would read "1. Priority 1: …".
        "priorities": report
            .top_priorities
            .iter()
            .map(|p| strip_priority_number(p))
            .collect::<Vec<_>>(),
        "article_issues": article_issues,
        "changes": changes_view(d, page.previous),
        "legend": legend,
        "blocks": blocks,
        "no_text": no_text,
        "claims": claims,
        "not_checked": d.reasons.iter().any(|r| r.is_not_checked()),
        "waived": report.waived.iter().map(waived_view).collect::<Vec<_>>(),
        "override": d.override_applied.as_ref().map(|o| serde_json::json!({
            "editor": o.editor,
            "reason": o.reason,
            "overrides": o.overrides,
            "finding": super::finding_words(o.finding.issue_type),
            "when": o.overridden_at.format("%Y-%m-%d %H:%M UTC").to_string(),
        })),
        "override_action": page
            .override_action
            .filter(|_| d.run_id.is_none() && d.revision.is_some()),
    });
    render_template("decision.html", context)
}

/// The words of `text`, lower-cased, for matching a heading's claim to its heading.
fn words(text: &str) -> Vec<String> {
    text.unicode_words().map(str::to_lowercase).collect()
}

/// Whether `needle`'s words all appear in `hay`, in order (a claim's text is its block's with
/// citation markers left out).
fn contains_in_order(hay: &[String], needle: &[String]) -> bool {
    let mut rest = hay.iter();
    !needle.is_empty() && needle.iter().all(|w| rest.any(|h| h == w))
}

/// `block` with its claims marked: the sentences at `at`, or the whole of a heading whose claim
/// is `heading`.
fn block_view(
    block: &ViewBlock,
    at: &HashMap<(usize, usize), usize>,
    heading: Option<usize>,
    report: &factgate_core::events::Report,
    marks: &[Mark],
    in_text: &mut HashSet<usize>,
) -> BlockView {
    let plain = |text: &str| Segment {
        text: text.to_owned(),
        claim: None,
        class: "",
        label: "",
        icon: "",
        severity: None,
    };
    let marked = |i: usize, text: &str| {
        let mark = marks[i];
        Segment {
            text: text.to_owned(),
            claim: Some(i + 1),
            class: mark.class(),
            label: mark.label(),
            icon: mark.icon(),
            severity: report.claims[i].severity.map(severity_name),
        }
    };
    if let Some(i) = heading {
        in_text.insert(i);
        return BlockView {
            kind: block.kind,
            segments: vec![marked(i, &block.text)],
        };
    }
    let mut segments = Vec::new();
    let mut cursor = 0;
    if let Some(paragraph) = block.paragraph {
        for (s, range) in block.sentences.iter().enumerate() {
            let Some(&i) = at.get(&(paragraph, s)) else {
                continue;
            };
            let (Some(before), Some(claim_text)) = (
                block.text.get(cursor..range.start),
                block.text.get(range.clone()),
            ) else {
                continue;
            };
            if !before.is_empty() {
                segments.push(plain(before));
            }
            segments.push(marked(i, claim_text));
            in_text.insert(i);
            cursor = range.end;
        }
    }
    if let Some(rest) = block.text.get(cursor..)
        && !rest.is_empty()
    {
        segments.push(plain(rest));
    }
    BlockView {
        kind: block.kind,
        segments,
    }
}

/// The findings that block `d`, each with its claim and the number of the claim's card.
fn blocking_view(d: &Decision) -> Vec<serde_json::Value> {
    let report = &d.report;
    report
        .issues
        .iter()
        .filter(|i| factgate_core::decide::review::blocks(d, i))
        .map(|i| {
            let n = i
                .claim_id
                .as_ref()
                .and_then(|id| report.claims.iter().position(|c| &c.claim_id == id))
                .map(|k| k + 1);
            serde_json::json!({
                "issue": issue_view(i),
                "claim": i.claim,
                "location": i.location,
                "n": n,
            })
        })
        .collect()
}

/// A report's priority without its "Priority 1: " label, for a list that numbers it.
fn strip_priority_number(priority: &str) -> &str {
    priority
        .strip_prefix("Priority ")
        .and_then(|rest| rest.split_once(": "))
        .filter(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .map_or(priority, |(_, text)| text)
}

fn issue_view(issue: &Issue) -> IssueView {
    IssueView {
        severity: severity_name(issue.severity),
        problem: issue.problem.clone(),
        evidence: issue.evidence.clone(),
        recommendation: issue.recommendation.clone(),
        finding_type: serde_name(&issue.issue_type),
        finding_words: super::finding_words(issue.issue_type),
        claim_id: issue.claim_id.clone(),
        waivable: factgate_core::decide::waive::is_waivable(issue.issue_type),
    }
}

fn waived_view(waived: &factgate_core::events::WaivedIssue) -> WaivedView {
    WaivedView {
        issue: issue_view(&waived.issue),
        claim: waived.issue.claim.clone(),
        by: super::waiver_words(&waived.waiver),
        reason: waived.waiver.reason.clone(),
        when: waived
            .waiver
            .waived_at
            .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string()),
    }
}

fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::High => "high",
        Severity::Medium => "medium",
        Severity::Low => "low",
    }
}

/// `url` as a link target, only when it is http(s).
fn web_link(url: &str) -> Option<String> {
    url::Url::parse(url)
        .is_ok_and(|u| matches!(u.scheme(), "http" | "https"))
        .then(|| url.to_owned())
}

/// A source's credibility for a person: its class and score.
fn credibility_label(score: Option<f64>) -> String {
    // A check that never read its source reports 0: no class was assessed.
    score.filter(|s| *s > 0.0).map_or_else(
        || "not assessed".to_owned(),
        |s| format!("{} ({s:.2})", credibility_name(s)),
    )
}

/// The credibility class whose score is nearest `score` (the classes of the `[credibility]`
/// lists).
fn credibility_name(score: f64) -> &'static str {
    let levels = [
        (CredibilityLevel::High, "high"),
        (CredibilityLevel::Reputable, "reputable"),
        (CredibilityLevel::Generic, "generic"),
        (CredibilityLevel::Low, "low"),
    ];
    levels
        .iter()
        .min_by(|a, b| {
            (a.0.score() - score)
                .abs()
                .total_cmp(&(b.0.score() - score).abs())
        })
        .map_or("generic", |l| l.1)
}

/// A reason for a person, beside its machine name.
fn reason_label(reason: DecisionReason) -> &'static str {
    match reason {
        DecisionReason::HighSeverityIssue => "A high-severity issue",
        DecisionReason::MediumSeverityIssue => "Medium-severity issues",
        DecisionReason::LowSeverityIssue => "A low-severity issue (strict policy)",
        DecisionReason::DraftUnreadable => "The draft could not be read",
        DecisionReason::ExtractionFailed => "The article's text could not be read",
        DecisionReason::DeadlineExceeded => "Checks did not finish in time",
        DecisionReason::SourceUnjudgeable => "A source could not be checked",
        DecisionReason::Superseded => "A newer revision arrived first",
        DecisionReason::InternalError => "factgate failed internally",
        DecisionReason::LimitExceeded => "The article is over a per-draft limit",
    }
}

fn reason_views(reasons: impl IntoIterator<Item = (DecisionReason, usize)>) -> Vec<ReasonView> {
    reasons
        .into_iter()
        .map(|(reason, count)| ReasonView {
            name: serde_name(&reason),
            label: reason_label(reason),
            count,
        })
        .collect()
}

fn plain_run(text: &str) -> Run {
    Run {
        text: text.to_owned(),
        mark: false,
        differs: false,
    }
}

/// `text` in runs, the first occurrence of `element` (case-insensitive) marked as differing;
/// one plain run when `element` is not in it.
fn marked_runs(text: &str, element: &str) -> Vec<Run> {
    let element = element.trim();
    let found = (!element.is_empty())
        .then(|| text.to_lowercase().find(&element.to_lowercase()))
        .flatten()
        // Lower-casing can move byte offsets (ß, İ): use the match only where it lines up.
        .filter(|&at| {
            text.get(at..at + element.len()).is_some_and(|t| {
                t.eq_ignore_ascii_case(element) || t.to_lowercase() == element.to_lowercase()
            })
        });
    let Some(at) = found else {
        return vec![plain_run(text)];
    };
    let end = at + element.len();
    let mut runs = Vec::new();
    if at > 0 {
        runs.push(plain_run(&text[..at]));
    }
    runs.push(Run {
        text: text[at..end].to_owned(),
        mark: false,
        differs: true,
    });
    if end < text.len() {
        runs.push(plain_run(&text[end..]));
    }
    runs
}

/// The element a claim and its source state differently, as (the claim's, the source's), from
/// the claim's issues ("The claim says 17% where the source says 7%") or its correction
/// ("source says $9/month", the claim's figure then unknown).
fn difference_of(claim: &ClaimVerdict, issues: &[&Issue]) -> Option<(String, String)> {
    // The judge names the element that differs: the claim's and the source's.
    if let Some(d) = issues.iter().find_map(|i| i.difference.as_ref()) {
        return Some((d.claim.clone(), d.source.clone()));
    }
    for issue in issues {
        let Some(rest) = issue.problem.strip_prefix("The claim says ") else {
            continue;
        };
        let Some((claimed, after)) = rest.split_once(" where the source says ") else {
            continue;
        };
        let stated = after
            .split(" (")
            .next()
            .unwrap_or(after)
            .trim_end_matches('.');
        return Some((claimed.trim().to_owned(), stated.trim().to_owned()));
    }
    let stated = claim.correction.as_deref()?.strip_prefix("source says ")?;
    Some((String::new(), stated.trim().to_owned()))
}

/// `quote` cut into runs, the words it shares with `claim` marked: the reader sees at once which
/// figures and names the source confirms, and which it does not. A word counts when it holds a
/// digit (figures, years) or has four letters or more: shorter words are mostly function words,
/// whose agreement says nothing.
fn shared_words(quote: &str, claim: &str) -> Vec<Run> {
    let significant = |w: &str| {
        w.chars().any(|c| c.is_numeric()) || w.chars().filter(|c| c.is_alphabetic()).count() >= 4
    };
    let claim_words: HashSet<String> = claim
        .unicode_words()
        .filter(|w| significant(w))
        .map(str::to_lowercase)
        .collect();
    let mut runs: Vec<Run> = Vec::new();
    let pieces: Vec<&str> = quote.split_word_bounds().collect();
    let shared = |i: usize| {
        pieces
            .get(i)
            .is_some_and(|p| significant(p) && claim_words.contains(&p.to_lowercase()))
    };
    for (i, piece) in pieces.iter().enumerate() {
        // Spaces between two shared words join them in one mark: "plan costs", not two.
        let mark =
            shared(i) || (piece.trim().is_empty() && i > 0 && shared(i - 1) && shared(i + 1));
        match runs.last_mut() {
            Some(last) if last.mark == mark => last.text.push_str(piece),
            _ => runs.push(Run {
                text: (*piece).to_owned(),
                mark,
                differs: false,
            }),
        }
    }
    runs
}

/// What changed since the previous revision: the report's own section when it has one, and,
/// when the previous decision is at hand, the claims new, gone or with another verdict.
fn changes_view(current: &Decision, previous: Option<&Decision>) -> Option<Changes> {
    let section = current.report.changes_since_previous.clone().or_else(|| {
        let previous = previous?;
        let digest = revisions::RevisionDigest::of(previous)?;
        let earlier = matches!((previous.revision, current.revision), (Some(p), Some(c)) if p < c);
        earlier.then(|| revisions::compare(&digest, &current.report))
    });
    let mut view = match previous {
        Some(p) => changes(p, current),
        None => {
            let s = section.as_ref()?;
            Changes {
                previous_revision: Some(s.previous_revision),
                previous_outcome: outcome_past(s.previous_outcome),
                previous_overridden_by: None,
                headline: None,
                issues: None,
                added: Vec::new(),
                removed: Vec::new(),
                changed: Vec::new(),
                edited: Vec::new(),
            }
        }
    };
    if let Some(s) = &section {
        view.previous_revision = Some(s.previous_revision);
        view.previous_outcome = outcome_past(s.previous_outcome);
        view.headline = Some(revisions::headline(current.revision, s));
    }
    // An editor's override is the last word on the previous revision: it passed, by their hand.
    if let Some((p, o)) = previous.and_then(|p| p.override_applied.as_ref().map(|o| (p, o))) {
        view.previous_outcome = outcome_past(p.outcome);
        view.previous_overridden_by = Some(o.editor.clone());
    }
    view.issues = section;
    Some(view)
}

fn outcome_past(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "passed",
        Outcome::Block => "blocked",
    }
}

/// What changed from the decision on the previous revision to `current`, claim by claim (a claim
/// is the same claim when its text is).
fn changes(previous: &Decision, current: &Decision) -> Changes {
    let verdicts = |d: &Decision| -> Vec<(String, &'static str)> {
        let issues: Vec<&Issue> = d.report.issues.iter().collect();
        d.report
            .claims
            .iter()
            .map(|c| {
                let own: Vec<&Issue> = issues
                    .iter()
                    .copied()
                    .filter(|i| i.claim_id.as_deref() == Some(c.claim_id.as_str()))
                    .collect();
                (c.text.clone(), Mark::of(c, &own).label())
            })
            .collect()
    };
    let before = verdicts(previous);
    let after = verdicts(current);
    let before_map: HashMap<&str, &'static str> =
        before.iter().map(|(t, v)| (t.as_str(), *v)).collect();
    let after_texts: HashSet<&str> = after.iter().map(|(t, _)| t.as_str()).collect();
    let mut out = Changes {
        previous_revision: previous.revision,
        previous_outcome: outcome_past(previous.outcome),
        previous_overridden_by: None,
        headline: None,
        issues: None,
        added: Vec::new(),
        removed: Vec::new(),
        changed: Vec::new(),
        edited: Vec::new(),
    };
    for (text, verdict) in &after {
        match before_map.get(text.as_str()) {
            None => out.added.push(text.clone()),
            Some(old) if old != verdict => out.changed.push(ChangedVerdict {
                text: text.clone(),
                from: old,
                to: verdict,
            }),
            Some(_) => {}
        }
    }
    for (text, _) in &before {
        if !after_texts.contains(text.as_str()) {
            out.removed.push(text.clone());
        }
    }
    // A sentence edited between the revisions is one claim changed, not one gone and one new.
    let gone: Vec<&str> = out.removed.iter().map(String::as_str).collect();
    let added: Vec<&str> = out.added.iter().map(String::as_str).collect();
    let pairs = revisions::paired_edits(&gone, &added);
    let verdict_of = |list: &[(String, &'static str)], text: &str| {
        list.iter().find(|(t, _)| t == text).map_or("", |(_, v)| *v)
    };
    for &(g, a) in &pairs {
        out.edited.push(EditedClaim {
            before: gone[g].to_owned(),
            after: added[a].to_owned(),
            from: verdict_of(&before, gone[g]),
            to: verdict_of(&after, added[a]),
        });
    }
    let (gone_paired, added_paired): (HashSet<usize>, HashSet<usize>) =
        pairs.iter().copied().unzip();
    out.removed = out
        .removed
        .iter()
        .enumerate()
        .filter(|(i, _)| !gone_paired.contains(i))
        .map(|(_, t)| t.clone())
        .collect();
    out.added = out
        .added
        .iter()
        .enumerate()
        .filter(|(i, _)| !added_paired.contains(i))
        .map(|(_, t)| t.clone())
        .collect();
    out
}

/// The page of one checked article, as `factgate check --format html` writes it.
pub fn article_page(article: &CheckedArticle<'_>, back: Option<&str>) -> String {
    let body = article.body.zip(article.extraction.map(|e| e.format));
    // Each claim's place in the file (`path:line:column`) beside its section and paragraph, as
    // the other reports of `check` give it.
    let mut decision = article.decision.clone();
    for claim in &mut decision.report.claims {
        let place = super::claim_place(article, &claim.claim_id);
        claim.location = super::text::located(place.as_deref(), &claim.location);
    }
    decision_page(&DecisionPage {
        decision: &decision,
        body,
        title: Some(article.name),
        section: None,
        previous: None,
        back,
        override_action: None,
        notice: None,
    })
}

/// A page that says where a decision stands when there is none to show: `status` is `pending`
/// or `unknown`.
pub fn status_page(heading: &str, status: &str, message: &str, back: &str) -> String {
    render_template(
        "status.html",
        serde_json::json!({
            "csp": CONTENT_SECURITY_POLICY.as_str(),
            "css": CSS,
            "heading": heading,
            "status": status,
            "message": message,
            "back": back,
        }),
    )
}

mod lists;

pub use lists::{Desk, DeskEntry, desk_page, index_page};

#[cfg(test)]
mod tests;
