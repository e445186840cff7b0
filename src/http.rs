//! The HTTP endpoint: health, readiness, and decisions for a CMS that would rather ask than
//! consume the `decisions` topic.
//!
//! - `GET /healthz`: 200 while the process runs.
//! - `GET /readyz`: 200 when the broker is reachable and every role has partitions assigned,
//!   else 503 with what is missing.
//! - `GET /v1/decisions/{article_id}[?revision=N]`: 200 with the decision (the newest revision's
//!   when no revision is given); 202 `{"status": "pending"}` while the draft is in flight; 404
//!   when the article (or that revision) is unknown.
//! - `GET /metrics`: the Prometheus metrics of [`crate::metrics`], in text exposition format.
//! - For editors, in a browser (see [`ui`]): `GET /v1/decisions/{article_id}` with
//!   `Accept: text/html`, and `GET /ui/decisions/{article_id}[?revision=N]`, answer with the
//!   decision as a web page; `GET /ui/` lists recent decisions with the desk's figures.
//!
//! The [`DecisionBoard`] behind it is fed by whoever sees drafts and decisions (the board
//! consumer of the stream processor) and holds at most a configured number of articles, newest
//! kept: an article evicted from it answers 404, never a wrong decision.

mod ui;

use crate::events::{Decision, DraftEvent, Outcome};
use crate::kafka::ConsumerHealth;
use crate::model::BodyFormat;
use axum::Json;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;
use serde_json::json;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// What the board knows of one revision.
#[derive(Debug, Clone, PartialEq)]
pub enum RevisionState {
    /// The draft was seen; no decision yet.
    Pending,
    Decided(Box<Decision>),
}

/// Decisions and in-flight drafts by article, bounded. Cheap to clone (shared).
#[derive(Debug, Clone)]
pub struct DecisionBoard {
    inner: Arc<Mutex<Board>>,
}

/// The default of `http.page_body_bytes`: bytes of draft bodies the board keeps so pages can
/// show the article. The newest drafts' bodies are kept until their total passes it, then the
/// oldest go (their pages list the claims alone). Bounded apart from the article count because
/// one body can be large.
pub const BOARD_BODY_BYTES: usize = 64 << 20;

/// Characters of a draft's title and section kept for the pages.
const MAX_LABEL_CHARS: usize = 300;

/// What the board keeps of an article's newest draft for the pages: its title and section.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArticleLabels {
    pub title: Option<String>,
    pub section: Option<String>,
}

/// A draft body held for the pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldBody {
    pub body: Arc<str>,
    pub format: BodyFormat,
}

#[derive(Debug)]
struct Board {
    capacity: usize,
    articles: HashMap<String, BTreeMap<u64, RevisionState>>,
    /// Articles in the order first seen, oldest first, for eviction.
    order: VecDeque<String>,
    labels: HashMap<String, ArticleLabels>,
    bodies: HashMap<(String, u64), HeldBody>,
    /// Bodies in the order received, oldest first, for eviction.
    body_order: VecDeque<(String, u64)>,
    body_bytes: usize,
    body_budget: usize,
}

impl DecisionBoard {
    /// A board remembering at most `capacity` articles (at least one).
    pub fn new(capacity: usize) -> DecisionBoard {
        DecisionBoard::with_body_budget(capacity, BOARD_BODY_BYTES)
    }

    /// A board remembering at most `capacity` articles and `body_bytes` bytes of draft bodies.
    pub fn with_body_budget(capacity: usize, body_bytes: usize) -> DecisionBoard {
        DecisionBoard {
            inner: Arc::new(Mutex::new(Board {
                capacity: capacity.max(1),
                articles: HashMap::new(),
                order: VecDeque::new(),
                labels: HashMap::new(),
                bodies: HashMap::new(),
                body_order: VecDeque::new(),
                body_bytes: 0,
                body_budget: body_bytes,
            })),
        }
    }

    /// A draft was read in full: pending as [`note_draft`](Self::note_draft), and its title,
    /// section and body are kept for the pages (the body within the board's byte budget).
    pub fn note_draft_event(&self, draft: &DraftEvent) {
        self.note_draft(&draft.article_id, draft.revision);
        let label = |s: &Option<String>| {
            s.as_deref()
                .map(|t| t.chars().take(MAX_LABEL_CHARS).collect::<String>())
                .filter(|t| !t.trim().is_empty())
        };
        self.with(|b| {
            let newest = b
                .articles
                .get(&draft.article_id)
                .and_then(|r| r.keys().next_back())
                .is_none_or(|newest| *newest <= draft.revision);
            if newest {
                b.labels.insert(
                    draft.article_id.clone(),
                    ArticleLabels {
                        title: label(&draft.title),
                        section: label(&draft.section),
                    },
                );
            }
            b.hold_body(
                &draft.article_id,
                draft.revision,
                &draft.body,
                draft.body_format,
            );
        });
    }

    /// The title and section of the article's newest draft seen.
    pub fn labels(&self, article_id: &str) -> ArticleLabels {
        self.with(|b| b.labels.get(article_id).cloned().unwrap_or_default())
    }

    /// The body of `revision` of `article_id`, while the board holds it.
    pub fn body(&self, article_id: &str, revision: u64) -> Option<HeldBody> {
        self.with(|b| b.bodies.get(&(article_id.to_owned(), revision)).cloned())
    }

    /// The decision on the newest revision before `revision` that has one.
    pub fn previous_decision(&self, article_id: &str, revision: u64) -> Option<Decision> {
        self.with(|b| {
            b.articles
                .get(article_id)?
                .range(..revision)
                .rev()
                .find_map(|(_, state)| match state {
                    RevisionState::Decided(d) => Some((**d).clone()),
                    RevisionState::Pending => None,
                })
        })
    }

    /// Calls `f` with every article's revisions and labels, under the board's lock: keep it
    /// short.
    pub(crate) fn for_each(
        &self,
        mut f: impl FnMut(&str, &BTreeMap<u64, RevisionState>, Option<&ArticleLabels>),
    ) {
        self.with(|b| {
            for (id, revisions) in &b.articles {
                f(id, revisions, b.labels.get(id));
            }
        });
    }

    fn with<T>(&self, f: impl FnOnce(&mut Board) -> T) -> T {
        // A panic while holding the lock leaves plain data behind; keep serving it.
        let mut board = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut board)
    }

    /// A draft revision was published: pending until its decision arrives. A decision that
    /// arrived first (replays, ordering across topics) is kept.
    pub fn note_draft(&self, article_id: &str, revision: u64) {
        self.with(|b| {
            b.entry(article_id)
                .entry(revision)
                .or_insert(RevisionState::Pending);
        });
    }

    /// A decision was made. A decision without a revision (an unreadable draft) is kept under
    /// revision 0 only if nothing else is known of the article. A revision already decided keeps
    /// its decision unless that one passed and the new one blocks: a second decision on a
    /// revision (a replay decided again, after a restart, on results the first run lacked)
    /// never turns a block into a pass.
    pub fn record(&self, decision: Decision) {
        self.with(|b| {
            let revisions = b.entry(&decision.article_id);
            let revision = match decision.revision {
                Some(r) => r,
                None if revisions.is_empty() => 0,
                None => return,
            };
            if let Some(RevisionState::Decided(known)) = revisions.get(&revision)
                && !(known.outcome == Outcome::Pass && decision.outcome == Outcome::Block)
            {
                return;
            }
            revisions.insert(revision, RevisionState::Decided(Box::new(decision)));
        });
    }

    /// The state of `revision` of `article_id`, or of its newest revision when `None`.
    pub fn lookup(&self, article_id: &str, revision: Option<u64>) -> Option<(u64, RevisionState)> {
        self.with(|b| {
            let revisions = b.articles.get(article_id)?;
            let (rev, state) = match revision {
                Some(r) => (r, revisions.get(&r)?),
                None => revisions.iter().next_back().map(|(r, s)| (*r, s))?,
            };
            Some((rev, state.clone()))
        })
    }
}

impl Board {
    fn hold_body(&mut self, article_id: &str, revision: u64, body: &str, format: BodyFormat) {
        let key = (article_id.to_owned(), revision);
        if body.len() > self.body_budget || self.bodies.contains_key(&key) {
            return;
        }
        while self.body_bytes + body.len() > self.body_budget {
            let Some(oldest) = self.body_order.pop_front() else {
                break;
            };
            if let Some(held) = self.bodies.remove(&oldest) {
                self.body_bytes -= held.body.len();
            }
        }
        self.body_bytes += body.len();
        self.body_order.push_back(key.clone());
        self.bodies.insert(
            key,
            HeldBody {
                body: Arc::from(body),
                format,
            },
        );
    }

    fn entry(&mut self, article_id: &str) -> &mut BTreeMap<u64, RevisionState> {
        if !self.articles.contains_key(article_id) {
            while self.articles.len() >= self.capacity {
                match self.order.pop_front() {
                    Some(oldest) => {
                        if let Some(revisions) = self.articles.remove(&oldest) {
                            for revision in revisions.keys() {
                                if let Some(held) = self.bodies.remove(&(oldest.clone(), *revision))
                                {
                                    self.body_bytes -= held.body.len();
                                }
                            }
                        }
                        self.labels.remove(&oldest);
                        self.body_order.retain(|(id, _)| *id != oldest);
                    }
                    None => break,
                }
            }
            self.order.push_back(article_id.to_owned());
        }
        self.articles.entry(article_id.to_owned()).or_default()
    }
}

/// What `/readyz` reports: whether a broker answers and every role this process runs has
/// partitions assigned, read from the roles' consumers (see [`ConsumerHealth`]).
#[derive(Debug, Default)]
pub struct Readiness {
    /// Whether the broker answered at start-up; consumers' own reports take over once watched.
    broker_reachable: AtomicBool,
    roles: Mutex<BTreeMap<String, RoleHealth>>,
}

#[derive(Debug, Clone)]
enum RoleHealth {
    /// Set by hand (tests, roles without a consumer).
    Flag(bool),
    /// Read from the role's consumer.
    Consumer(Arc<ConsumerHealth>),
}

impl RoleHealth {
    fn assigned(&self) -> bool {
        match self {
            RoleHealth::Flag(assigned) => *assigned,
            RoleHealth::Consumer(health) => health.assigned_partitions() > 0,
        }
    }
}

impl Readiness {
    /// Expects `role` to report partitions before the process is ready.
    pub fn expect_role(&self, role: &str) {
        let mut roles = self.roles.lock().unwrap_or_else(|p| p.into_inner());
        roles
            .entry(role.to_owned())
            .or_insert(RoleHealth::Flag(false));
    }

    pub fn set_broker_reachable(&self, reachable: bool) {
        self.broker_reachable.store(reachable, Ordering::Relaxed);
    }

    /// Whether `role` has partitions assigned, set by hand.
    pub fn set_assigned(&self, role: &str, assigned: bool) {
        let mut roles = self.roles.lock().unwrap_or_else(|p| p.into_inner());
        roles.insert(role.to_owned(), RoleHealth::Flag(assigned));
    }

    /// Reads `role`'s readiness from its consumer from now on.
    pub fn watch(&self, role: &str, health: Arc<ConsumerHealth>) {
        let mut roles = self.roles.lock().unwrap_or_else(|p| p.into_inner());
        roles.insert(role.to_owned(), RoleHealth::Consumer(health));
    }

    /// `Ok` when ready, else what is missing.
    pub fn check(&self) -> Result<(), Vec<String>> {
        let mut missing = Vec::new();
        let roles = self.roles.lock().unwrap_or_else(|p| p.into_inner());
        let watched: Vec<&Arc<ConsumerHealth>> = roles
            .values()
            .filter_map(|r| match r {
                RoleHealth::Consumer(h) => Some(h),
                RoleHealth::Flag(_) => None,
            })
            .collect();
        let broker = if watched.is_empty() {
            self.broker_reachable.load(Ordering::Relaxed)
        } else {
            watched.iter().any(|h| h.broker_reachable())
        };
        if !broker {
            missing.push("broker not reachable".to_owned());
        }
        for (role, health) in roles.iter() {
            if !health.assigned() {
                missing.push(format!("{role}: no partitions assigned"));
            }
        }
        if missing.is_empty() {
            Ok(())
        } else {
            Err(missing)
        }
    }
}

#[derive(Clone)]
struct AppState {
    board: DecisionBoard,
    readiness: Arc<Readiness>,
}

/// The router, to serve with `axum::serve`.
pub fn router(board: DecisionBoard, readiness: Arc<Readiness>) -> Router {
    Router::new()
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(readyz))
        .route("/v1/decisions/{article_id}", get(decision))
        .route("/metrics", get(metrics))
        .route("/ui", get(ui::to_desk))
        .route("/ui/", get(ui::desk))
        .route("/ui/decisions/{article_id}", get(ui::decision_page))
        .with_state(AppState { board, readiness })
}

async fn readyz(State(state): State<AppState>) -> Response {
    match state.readiness.check() {
        Ok(()) => (StatusCode::OK, "ready\n").into_response(),
        Err(missing) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({ "ready": false, "missing": missing })),
        )
            .into_response(),
    }
}

async fn metrics() -> Response {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            crate::metrics::CONTENT_TYPE,
        )],
        crate::metrics::render(),
    )
        .into_response()
}

#[derive(Debug, Deserialize)]
struct RevisionQuery {
    revision: Option<u64>,
}

/// The decision as JSON, or as a web page when the client prefers HTML (a browser).
async fn decision(
    State(state): State<AppState>,
    Path(article_id): Path<String>,
    Query(query): Query<RevisionQuery>,
    headers: axum::http::HeaderMap,
) -> Response {
    let mut response = if ui::prefers_html(&headers) {
        ui::page(&state.board, &article_id, query.revision)
    } else {
        decision_json(&state.board, &article_id, query.revision)
    };
    // Caches must keep the JSON and the page of one URL apart.
    response.headers_mut().insert(
        axum::http::header::VARY,
        axum::http::HeaderValue::from_static("accept"),
    );
    response
}

fn decision_json(board: &DecisionBoard, article_id: &str, revision: Option<u64>) -> Response {
    let query = RevisionQuery { revision };
    match board.lookup(article_id, query.revision) {
        Some((_, RevisionState::Decided(decision))) => {
            (StatusCode::OK, Json(*decision)).into_response()
        }
        Some((revision, RevisionState::Pending)) => (
            StatusCode::ACCEPTED,
            Json(json!({ "article_id": article_id, "revision": revision, "status": "pending" })),
        )
            .into_response(),
        None => (
            StatusCode::NOT_FOUND,
            Json(json!({ "article_id": article_id, "revision": query.revision, "status": "unknown" })),
        )
            .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::decide_not_checked;
    use crate::events::DecisionReason;
    use axum::body::Body;
    use axum::http::Request;
    use tower::ServiceExt;

    fn decision(article: &str, revision: u64) -> Decision {
        decide_not_checked(
            article,
            Some(revision),
            "digest",
            DecisionReason::ExtractionFailed,
            "empty body",
            None,
            chrono::Utc::now(),
        )
    }

    async fn get(router: &Router, uri: &str) -> (StatusCode, serde_json::Value) {
        let response = router
            .clone()
            .oneshot(Request::get(uri).body(Body::empty()).expect("request"))
            .await
            .expect("the router answers");
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .expect("body");
        let json = serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null);
        (status, json)
    }

    #[tokio::test]
    async fn decisions_pending_and_unknown() {
        let board = DecisionBoard::new(10);
        let router = router(board.clone(), Arc::new(Readiness::default()));
        board.note_draft("a-1", 1);
        let (status, body) = get(&router, "/v1/decisions/a-1").await;
        assert_eq!(status, StatusCode::ACCEPTED);
        assert_eq!(body["status"], "pending");

        board.record(decision("a-1", 1));
        board.note_draft("a-1", 2);
        let (status, body) = get(&router, "/v1/decisions/a-1?revision=1").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["outcome"], "block");
        let (status, _) = get(&router, "/v1/decisions/a-1").await;
        assert_eq!(
            status,
            StatusCode::ACCEPTED,
            "the newest revision is pending"
        );

        let (status, _) = get(&router, "/v1/decisions/a-1?revision=7").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        let (status, body) = get(&router, "/v1/decisions/nobody").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(body["status"], "unknown");
    }

    #[tokio::test]
    async fn a_decision_that_arrives_first_is_not_overwritten_by_its_draft() {
        let board = DecisionBoard::new(10);
        board.record(decision("a-1", 3));
        board.note_draft("a-1", 3);
        assert!(matches!(
            board.lookup("a-1", Some(3)),
            Some((3, RevisionState::Decided(_)))
        ));
    }

    #[test]
    fn a_second_decision_on_a_revision_never_turns_a_block_into_a_pass() {
        let outcome = |board: &DecisionBoard| match board.lookup("a-1", Some(3)) {
            Some((_, RevisionState::Decided(d))) => Some(d.outcome),
            _ => None,
        };
        let pass = crate::decide::decide(
            &crate::decide::ArticleCheck {
                article_id: "a-1",
                revision: 3,
                content_digest: "digest",
                published_at: chrono::Utc::now(),
                claims: &[],
                results: &[],
                unfinished: &[],
            },
            crate::decide::Strictness::Normal,
            chrono::Utc::now(),
        );
        assert_eq!(pass.outcome, Outcome::Pass);

        let board = DecisionBoard::new(10);
        board.record(decision("a-1", 3));
        board.record(pass.clone());
        assert_eq!(outcome(&board), Some(Outcome::Block), "the block stands");

        let board = DecisionBoard::new(10);
        board.record(pass);
        board.record(decision("a-1", 3));
        assert_eq!(outcome(&board), Some(Outcome::Block), "a later block wins");
    }

    #[test]
    fn the_board_is_bounded_and_forgets_the_oldest_article() {
        let board = DecisionBoard::new(2);
        board.note_draft("a", 1);
        board.note_draft("b", 1);
        board.note_draft("c", 1);
        assert!(board.lookup("a", None).is_none());
        assert!(board.lookup("b", None).is_some());
        assert!(board.lookup("c", None).is_some());
    }

    async fn get_with(router: &Router, uri: &str, accept: &str) -> axum::response::Response {
        router
            .clone()
            .oneshot(
                Request::get(uri)
                    .header(axum::http::header::ACCEPT, accept)
                    .body(Body::empty())
                    .expect("request"),
            )
            .await
            .expect("the router answers")
    }

    async fn text(response: axum::response::Response) -> String {
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 22)
            .await
            .expect("body");
        String::from_utf8_lossy(&bytes).into_owned()
    }

    fn draft(article: &str, revision: u64, section: &str, body: &str) -> DraftEvent {
        DraftEvent::from_json(
            serde_json::json!({
                "schema_version": "factgate.draft.v1",
                "article_id": article,
                "revision": revision,
                "published_at": "2026-01-01T00:00:00Z",
                "title": format!("Title of {article} <b>bold</b>"),
                "section": section,
                "body": body,
                "body_format": "markdown",
            })
            .to_string()
            .as_bytes(),
        )
        .expect("a valid draft")
    }

    #[tokio::test]
    async fn a_browser_gets_the_page_and_an_api_client_the_json() {
        let board = DecisionBoard::new(10);
        let router = router(board.clone(), Arc::new(Readiness::default()));
        board.note_draft_event(&draft(
            "a/1 x",
            1,
            "Business",
            "Our pilot showed 73% gains.",
        ));
        board.record(decision("a/1 x", 1));

        let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        for (uri, accept) in [
            ("/v1/decisions/a%2F1%20x", browser),
            ("/ui/decisions/a%2F1%20x", "*/*"),
            ("/ui/decisions/a%2F1%20x?revision=1", "application/json"),
        ] {
            let response = get_with(&router, uri, accept).await;
            assert_eq!(response.status(), StatusCode::OK, "{uri}");
            let headers = response.headers().clone();
            assert_eq!(
                headers[axum::http::header::CONTENT_TYPE],
                "text/html; charset=utf-8"
            );
            let csp = headers[axum::http::header::CONTENT_SECURITY_POLICY]
                .to_str()
                .expect("ascii");
            assert!(csp.starts_with("default-src 'none'"), "{csp}");
            assert!(!csp.contains("script-src"), "{csp}");
            let page = text(response).await;
            assert!(
                page.contains("&lt;b&gt;bold") && !page.contains("<b>"),
                "{page}"
            );
            assert!(
                page.contains("Our pilot showed 73% gains."),
                "the body is shown"
            );
        }
        for accept in [
            "application/json",
            "*/*",
            "text/html;q=0.5, application/json",
        ] {
            let response = get_with(&router, "/v1/decisions/a%2F1%20x", accept).await;
            assert_eq!(response.headers()[axum::http::header::VARY], "accept");
            let json: serde_json::Value =
                serde_json::from_str(&text(response).await).expect("json");
            assert_eq!(json["outcome"], "block", "{accept}");
        }
        let response = get_with(&router, "/v1/decisions/nobody", browser).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
        assert!(text(response).await.contains("data-status=\"unknown\""));
    }

    #[tokio::test]
    async fn the_desk_lists_newest_first_filters_and_counts_today() {
        let board = DecisionBoard::new(10);
        let router = router(board.clone(), Arc::new(Readiness::default()));
        board.note_draft_event(&draft("old", 1, "Science", "x"));
        let mut old = decision("old", 1);
        old.decided_at = chrono::Utc::now() - chrono::Duration::days(2);
        board.record(old);
        board.note_draft_event(&draft("new", 1, "Business", "x"));
        board.record(decision("new", 1));
        board.note_draft("waiting", 1);

        let page = text(get_with(&router, "/ui/", "text/html").await).await;
        let new_at = page.find("Title of new").expect("new listed");
        let old_at = page.find("Title of old").expect("old listed");
        assert!(new_at < old_at, "newest first");
        assert!(page.contains("data-figure=\"blocked-today\">1<"), "{page}");
        assert!(page.contains("extraction_failed"), "top reasons: {page}");
        assert!(page.contains("<option value=\"Science\""));

        let page =
            text(get_with(&router, "/ui/?section=Science&outcome=", "text/html").await).await;
        assert!(page.contains("Title of old") && !page.contains("Title of new"));
        let page = text(get_with(&router, "/ui/?outcome=pass", "text/html").await).await;
        assert!(!page.contains("Title of old") && !page.contains("Title of new"));
        let response = get_with(&router, "/ui/?outcome=maybe", "text/html").await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    }

    #[test]
    fn draft_bodies_are_kept_within_their_byte_budget() {
        let board = DecisionBoard::with_body_budget(10, 10);
        board.note_draft_event(&draft("a", 1, "S", "123456"));
        board.note_draft_event(&draft("b", 1, "S", "123456"));
        assert!(board.body("a", 1).is_none(), "the oldest body went");
        assert_eq!(board.body("b", 1).map(|b| b.body.len()), Some(6));
        board.note_draft_event(&draft("c", 1, "S", "12345678901"));
        assert!(board.body("c", 1).is_none(), "larger than the budget");
        assert!(board.lookup("c", Some(1)).is_some(), "still pending");
    }

    #[tokio::test]
    async fn readiness_names_what_is_missing() {
        let readiness = Arc::new(Readiness::default());
        readiness.expect_role("join");
        let router = router(DecisionBoard::new(1), Arc::clone(&readiness));
        let (status, body) = get(&router, "/readyz").await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        let missing = body["missing"].to_string();
        assert!(
            missing.contains("broker") && missing.contains("join"),
            "{missing}"
        );
        readiness.set_broker_reachable(true);
        readiness.set_assigned("join", true);
        let (status, _) = get(&router, "/readyz").await;
        assert_eq!(status, StatusCode::OK);
        let (status, _) = get(&router, "/healthz").await;
        assert_eq!(status, StatusCode::OK);
    }

    #[tokio::test]
    async fn metrics_are_served_in_text_exposition_format() {
        let router = router(DecisionBoard::new(1), Arc::new(Readiness::default()));
        let response = router
            .oneshot(
                Request::get("/metrics")
                    .body(Body::empty())
                    .expect("request"),
            )
            .await
            .expect("the router answers");
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(
            response.headers()[axum::http::header::CONTENT_TYPE],
            "text/plain; version=0.0.4"
        );
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .expect("body");
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            text.contains("# TYPE factgate_decisions_total counter"),
            "{text}"
        );
    }
}
