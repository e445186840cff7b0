//! The editors' pages of the HTTP endpoint: a decision as a web page, and the desk's list of
//! recent decisions. Rendering is [`crate::render::html`]'s; this module picks what to show from
//! the [`DecisionBoard`] and sets the headers every page is sent with.

use std::collections::{BTreeSet, HashMap};

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use chrono::Utc;
use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use serde::Deserialize;

use super::{AppState, DecisionBoard, DecisionSummary, RevisionQuery, RevisionState};
use crate::render::html::{self, DecisionPage, Desk, DeskEntry};
use factgate_core::events::{Decision, DecisionReason, Outcome};

/// Decisions listed at most on the desk page; the filters reach the others.
pub const DESK_ROWS: usize = 200;

/// Where the desk page is; decision pages link back to it.
const DESK: &str = "/ui/";

/// Whether the request's `Accept` header prefers an HTML page to JSON: `text/html` (or XHTML)
/// ranked above `application/json` by quality. No header, `*/*`, or a tie keeps JSON, the API's
/// answer since before there were pages.
pub(super) fn prefers_html(headers: &HeaderMap) -> bool {
    let Some(accept) = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let (mut html, mut json) = (0.0f32, 0.0f32);
    for item in accept.split(',') {
        let mut parts = item.split(';');
        let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q=").map(str::trim))
            .find_map(|q| q.parse::<f32>().ok())
            .unwrap_or(1.0);
        match media.as_str() {
            "text/html" | "application/xhtml+xml" => html = html.max(q),
            "application/json" => json = json.max(q),
            _ => {}
        }
    }
    html > 0.0 && html > json
}

/// An HTML page with the headers every page is sent with: the Content-Security-Policy that
/// forbids scripts (and framing, which a `<meta>` cannot forbid), no MIME sniffing, no referrer
/// (a page's links lead to the sources the article cites).
fn html_response(status: StatusCode, page: String) -> Response {
    let mut response = (status, page).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    let csp = format!(
        "{}; frame-ancestors 'none'",
        html::CONTENT_SECURITY_POLICY.as_str()
    );
    if let Ok(value) = HeaderValue::from_str(&csp) {
        headers.insert(header::CONTENT_SECURITY_POLICY, value);
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The path of a decision's page.
fn page_href(article_id: &str, revision: Option<u64>) -> String {
    page_href_from(article_id, revision, &DeskQuery::default())
}

/// [`page_href`] from the desk filtered by `filters`, which the page's "All decisions" link goes
/// back to.
fn page_href_from(article_id: &str, revision: Option<u64>, filters: &DeskQuery) -> String {
    let id = utf8_percent_encode(article_id, NON_ALPHANUMERIC);
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    if let Some(r) = revision {
        query.append_pair("revision", &r.to_string());
    }
    filters.append_to(&mut query);
    let query = query.finish();
    if query.is_empty() {
        format!("/ui/decisions/{id}")
    } else {
        format!("/ui/decisions/{id}?{query}")
    }
}

/// The desk, filtered by `filters`.
fn desk_href(filters: &DeskQuery) -> String {
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    filters.append_to(&mut query);
    let query = query.finish();
    if query.is_empty() {
        DESK.to_owned()
    } else {
        format!("{DESK}?{query}")
    }
}

/// The path the override form of a decision's page posts to.
fn override_href(article_id: &str) -> String {
    let id = utf8_percent_encode(article_id, NON_ALPHANUMERIC);
    format!("/ui/decisions/{id}/override")
}

/// The page of the decision on `revision` (the newest when `None`) of `article_id`, with the
/// override form when `overrides` is set.
pub(super) fn page(
    board: &DecisionBoard,
    article_id: &str,
    revision: Option<u64>,
    overrides: bool,
    back: &str,
    notice: Option<&str>,
) -> Response {
    match board.lookup(article_id, revision) {
        Some((revision, RevisionState::Decided(decision))) => {
            let labels = board.labels(article_id);
            let body = board.body(article_id, revision);
            let previous = board.previous_decision(article_id, revision);
            let action = override_href(article_id);
            let page = html::decision_page(&DecisionPage {
                decision: &decision,
                body: body.as_ref().map(|b| (&*b.body, b.format)),
                title: labels.title.as_deref(),
                section: labels.section.as_deref(),
                previous: previous.as_ref(),
                back: Some(back),
                override_action: overrides.then_some(action.as_str()),
                notice,
            });
            html_response(StatusCode::OK, page)
        }
        Some((revision, RevisionState::Pending)) => html_response(
            StatusCode::ACCEPTED,
            html::status_page(
                article_id,
                "pending",
                &format!("Revision {revision} is being checked: no decision yet. Reload later."),
                back,
            ),
        ),
        None => html_response(
            StatusCode::NOT_FOUND,
            html::status_page(
                article_id,
                "unknown",
                "This instance holds no decision on this article (or this revision).",
                back,
            ),
        ),
    }
}

/// A page saying what was wrong with the request, answered 400.
pub(super) fn bad_request_page(detail: &str) -> Response {
    (
        StatusCode::BAD_REQUEST,
        axum::response::Html(format!(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
             <title>Bad request · factgate</title></head><body><h1>This address is not \
             valid</h1><p>{}</p><p><a href=\"/ui/\">Back to the desk</a></p></body></html>",
            crate::render::html::escape(detail)
        )),
    )
        .into_response()
}

pub(super) async fn decision_page(
    State(state): State<AppState>,
    Path(article_id): Path<String>,
    query: Result<Query<RevisionQuery>, axum::extract::rejection::QueryRejection>,
    Query(filters): Query<DeskQuery>,
    Query(notice): Query<NoticeQuery>,
) -> Response {
    let Ok(Query(query)) = query else {
        return bad_request_page(super::router::REVISION_NOT_A_NUMBER);
    };
    page_off_runtime(
        state.board,
        article_id,
        query.revision,
        state.overrides.is_some(),
        desk_href(&filters),
        notice.words(),
    )
    .await
}

/// `?sent=override`: the page an override form redirects back to says the override was sent.
#[derive(Debug, Default, Deserialize)]
pub(super) struct NoticeQuery {
    sent: Option<String>,
}

/// What the decision page says after an override form's redirect back to it.
const OVERRIDE_SENT: &str = "Your override was sent. The new decision on this revision \
    replaces this one once the join has made it: reload this page to see it.";

impl NoticeQuery {
    fn words(&self) -> Option<&'static str> {
        (self.sent.as_deref() == Some("override")).then_some(OVERRIDE_SENT)
    }
}

/// [`page`] on a blocking thread: a page parses the article's body again, which is CPU work the
/// runtime's threads (serving probes and metrics) should not wait on.
pub(super) async fn page_off_runtime(
    board: DecisionBoard,
    article_id: String,
    revision: Option<u64>,
    overrides: bool,
    back: String,
    notice: Option<&'static str>,
) -> Response {
    tokio::task::spawn_blocking(move || {
        page(&board, &article_id, revision, overrides, &back, notice)
    })
    .await
    .unwrap_or_else(|e| {
        crate::internal_events::decision_page_failed(&e);
        html_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            "<!doctype html><title>Error</title><p>The page could not be rendered.</p>".to_owned(),
        )
    })
}

/// What the override form posts.
#[derive(Debug, Deserialize)]
pub(super) struct OverrideForm {
    revision: u64,
    decision_id: String,
    finding_type: String,
    #[serde(default)]
    claim_id: Option<String>,
    reason: String,
}

/// Whether the request comes from a page of this site: a form posted from another site (with
/// the browser's saved login) is refused. Browsers send `Sec-Fetch-Site` or `Origin` with a
/// POST; a request with neither (a script, `curl`) carries its credentials itself.
fn same_site(headers: &HeaderMap) -> bool {
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        return matches!(site, "same-origin" | "none");
    }
    match (
        headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()),
        headers.get(header::HOST).and_then(|v| v.to_str().ok()),
    ) {
        (Some(origin), Some(host)) => origin
            .split_once("://")
            .is_some_and(|(_, rest)| rest.trim_end_matches('/') == host),
        (Some(_), None) => false,
        (None, _) => true,
    }
}

/// `POST /ui/decisions/{article_id}/override`: an editor overrides one finding of the decision
/// in force, as the name they logged in as. The override is checked against the decision held
/// here (the join checks it again), sent to the overrides topic, and answered with a page that
/// says so; the join's new decision replaces the page's once it is made.
pub(super) async fn post_override(
    State(state): State<AppState>,
    Path(article_id): Path<String>,
    axum::Extension(editor): axum::Extension<super::login::Editor>,
    headers: HeaderMap,
    axum::Form(form): axum::Form<OverrideForm>,
) -> Response {
    let back = page_href(&article_id, Some(form.revision));
    let refuse = |status: StatusCode, why: String| {
        html_response(
            status,
            html::status_page(&article_id, "unknown", &why, &back),
        )
    };
    let Some(sink) = state.overrides.clone() else {
        return refuse(
            StatusCode::NOT_FOUND,
            "Overrides are not taken by this instance.".to_owned(),
        );
    };
    if !same_site(&headers) {
        return refuse(
            StatusCode::FORBIDDEN,
            "An override must be sent from factgate's own page.".to_owned(),
        );
    }
    let Ok(issue_type) = serde_json::from_value::<factgate_core::events::IssueType>(
        serde_json::Value::String(form.finding_type.clone()),
    ) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            format!("Unknown finding type {:?}.", form.finding_type),
        );
    };
    let finding = factgate_core::events::FindingRef {
        issue_type,
        claim_id: form.claim_id.filter(|c| !c.is_empty()),
    };
    let over = factgate_core::events::OverrideEvent::new(
        &article_id,
        form.revision,
        &form.decision_id,
        finding,
        &editor.0,
        &form.reason,
        Utc::now(),
    );
    let current = match state.board.lookup(&article_id, Some(form.revision)) {
        Some((_, RevisionState::Decided(decision))) => decision,
        _ => {
            return refuse(
                StatusCode::CONFLICT,
                "This revision has no decision here to override.".to_owned(),
            );
        }
    };
    // Checked here so the editor hears at once what the join would refuse; the policy's
    // strictness changes the outcome, not whether the override applies.
    if let Err(refusal) = factgate_core::decide::waive::apply_override(
        &current,
        &over,
        factgate_core::decide::Strictness::Normal,
    ) {
        // What the editor wrote (an empty reason, a control character) is theirs to mend:
        // 422 with the sentence; a decision that moved on is a conflict.
        return match refusal {
            factgate_core::decide::waive::OverrideRefusal::Invalid(why) => {
                refuse(StatusCode::UNPROCESSABLE_ENTITY, sentence(&why))
            }
            other => refuse(StatusCode::CONFLICT, format!("Not sent: {other}.")),
        };
    }
    match sink(over).await {
        // Post/redirect/get: the browser lands on the decision's page, which says the override
        // was sent; reloading it does not post the form again.
        Ok(()) => {
            let separator = if back.contains('?') { '&' } else { '?' };
            Redirect::to(&format!("{back}{separator}sent=override")).into_response()
        }
        Err(err) => refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("The override could not be sent: {err}. Try again."),
        ),
    }
}

/// `text` as a sentence: its first letter capitalized and a full stop at its end.
fn sentence(text: &str) -> String {
    let mut chars = text.trim().chars();
    let mut out: String = chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
}

pub(super) async fn to_desk() -> Redirect {
    Redirect::permanent(DESK)
}

/// The desk page's filters; empty values (the form's "all") filter nothing. A decision's page
/// carries them too, for its link back to the desk as it was filtered.
#[derive(Debug, Default, Deserialize)]
pub(super) struct DeskQuery {
    outcome: Option<String>,
    section: Option<String>,
}

impl DeskQuery {
    /// The filters set, as query pairs.
    fn append_to(&self, query: &mut url::form_urlencoded::Serializer<'_, String>) {
        for (name, value) in [("outcome", &self.outcome), ("section", &self.section)] {
            if let Some(value) = value.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
                query.append_pair(name, value);
            }
        }
    }
}

pub(super) async fn desk(
    State(state): State<AppState>,
    Query(query): Query<DeskQuery>,
) -> Response {
    let outcome = match query.outcome.as_deref().map(str::trim) {
        None | Some("") => None,
        Some("block") => Some(Outcome::Block),
        Some("pass") => Some(Outcome::Pass),
        Some(other) => {
            return html_response(
                StatusCode::BAD_REQUEST,
                html::status_page(
                    "Unknown filter",
                    "unknown",
                    &format!("outcome must be block or pass, not {other:?}."),
                    DESK,
                ),
            );
        }
    };
    let section = query
        .section
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let snapshot = snapshot(&state.board, outcome, section);
    let hrefs: Vec<String> = snapshot
        .rows
        .iter()
        .map(|r| page_href_from(&r.decision.article_id, r.decision.revision, &query))
        .collect();
    let desk = Desk {
        rows: snapshot
            .rows
            .iter()
            .zip(&hrefs)
            .map(|(r, href)| DeskEntry {
                decision: &r.decision,
                title: r.title.as_deref(),
                section: r.section.as_deref(),
                href,
                pending_revision: r.pending_revision,
            })
            .collect(),
        truncated: snapshot.truncated,
        outcome,
        section,
        sections: snapshot.sections.iter().map(String::as_str).collect(),
        blocked_today: snapshot.blocked_today,
        passed_today: snapshot.passed_today,
        pending: snapshot.pending,
        top_reasons: snapshot.top_reasons,
        overrides_today: snapshot.overrides_today,
        unreadable: state.board.unreadable(),
        today: Utc::now(),
    };
    html_response(StatusCode::OK, html::desk_page(&desk))
}

struct Row {
    decision: Decision,
    title: Option<String>,
    section: Option<String>,
    /// A later revision still being checked.
    pending_revision: Option<u64>,
}

/// What the desk page shows, copied out of the board.
struct Snapshot {
    rows: Vec<Row>,
    truncated: bool,
    sections: BTreeSet<String>,
    blocked_today: usize,
    passed_today: usize,
    pending: usize,
    top_reasons: Vec<(DecisionReason, usize)>,
    overrides_today: usize,
}

/// Each article's newest decision matching the filters, newest first, at most [`DESK_ROWS`];
/// and today's figures (UTC) over every decision held, whatever the filters.
fn snapshot(board: &DecisionBoard, outcome: Option<Outcome>, section: Option<&str>) -> Snapshot {
    let today = Utc::now().date_naive();
    let mut matching: Vec<(chrono::DateTime<Utc>, String, u64, Option<u64>)> = Vec::new();
    let mut sections = BTreeSet::new();
    let (mut blocked_today, mut passed_today, mut pending) = (0, 0, 0);
    let mut overrides_today = 0;
    let mut reasons: HashMap<DecisionReason, usize> = HashMap::new();
    board.for_each(|id, revisions, labels| {
        let article_section = labels.and_then(|l| l.section.as_deref());
        if let Some(s) = article_section {
            sections.insert(s.to_owned());
        }
        let pending_revision = match revisions.last() {
            Some(&(revision, None)) => Some(revision),
            _ => None,
        };
        if pending_revision.is_some() {
            pending += 1;
        }
        let mut newest: Option<(u64, &DecisionSummary)> = None;
        for &(revision, summary) in revisions {
            let Some(d) = summary else {
                continue;
            };
            if d.decided_at.date_naive() == today {
                if d.overridden {
                    overrides_today += 1;
                }
                match d.outcome {
                    Outcome::Block => {
                        blocked_today += 1;
                        for reason in d.reasons.iter() {
                            *reasons.entry(*reason).or_default() += 1;
                        }
                    }
                    Outcome::Pass => passed_today += 1,
                }
            }
            newest = Some((revision, d));
        }
        if let Some((revision, d)) = newest
            && outcome.is_none_or(|o| o == d.outcome)
            && section.is_none_or(|s| article_section == Some(s))
        {
            matching.push((
                d.decided_at,
                id.to_owned(),
                revision,
                pending_revision.filter(|p| *p > revision),
            ));
        }
    });
    matching.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let truncated = matching.len() > DESK_ROWS;
    matching.truncate(DESK_ROWS);
    let rows = matching
        .into_iter()
        .filter_map(
            |(_, id, revision, pending_revision)| match board.lookup(&id, Some(revision)) {
                Some((_, RevisionState::Decided(decision))) => {
                    let labels = board.labels(&id);
                    Some(Row {
                        decision: *decision,
                        title: labels.title,
                        section: labels.section,
                        pending_revision,
                    })
                }
                _ => None,
            },
        )
        .collect();
    let mut top_reasons: Vec<(DecisionReason, usize)> = reasons.into_iter().collect();
    top_reasons.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    top_reasons.truncate(5);
    Snapshot {
        rows,
        truncated,
        sections,
        blocked_today,
        passed_today,
        pending,
        top_reasons,
        overrides_today,
    }
}
