//! The HTTP endpoints, on two listeners.
//!
//! The admin listener (`http.admin_listen`, [`admin_router`]), without a login and without a
//! draft's words, for a cluster's scraper and probes:
//! - `GET /healthz`: 200 while the process runs.
//! - `GET /readyz`: 200 when the broker is reachable and every role has partitions assigned,
//!   else 503 with what is missing.
//! - `GET /metrics`: the Prometheus metrics of [`crate::metrics`], in text exposition format.
//!
//! The API and the editors' pages (`http.listen`, [`router`]), every request behind the login
//! of [`login`] (401 without one):
//! - `GET /v1/decisions/{article_id}[?revision=N]`: 200 with the decision (the newest revision's
//!   when no revision is given); 202 `{"status": "pending"}` while the draft is in flight; 404
//!   when the article (or that revision) is unknown.
//! - For editors, in a browser (see [`ui`]): `GET /v1/decisions/{article_id}` with
//!   `Accept: text/html`, and `GET /ui/decisions/{article_id}[?revision=N]`, answer with the
//!   decision as a web page; `GET /ui/` lists recent decisions with the desk's figures;
//!   `POST /ui/decisions/{article_id}/override` sends an editor's override of one finding, as
//!   the logged-in editor, to the overrides topic.
//!
//! [`serve`] closes connections that send their headers too slowly or sit idle, over HTTP/1 and
//! HTTP/2 alike (`http.header_read_timeout_ms`, `http.idle_timeout_ms`), and holds at most
//! `http.max_connections` at once, so open sockets cannot pile up (see [`conn`]).
//!
//! The [`DecisionBoard`] behind it ([`crate::board`]) is fed by the board's consumer and holds at most a configured number of articles, newest
//! kept: an article evicted from it answers 404, never a wrong decision.

mod conn;
pub mod login;
mod readiness;
mod router;
mod ui;

pub use readiness::*;
pub use router::*;

use crate::board::{DecisionBoard, DecisionSummary, RevisionState};
use crate::kafka::ConsumerHealth;
use axum::Json;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Serves `router` on `listener` until `shutdown` resolves, then lets requests in flight finish
/// (for at most [`GRACEFUL_SHUTDOWN`]).
///
/// Unlike `axum::serve`, a connection cannot be held open for free, over either protocol (see
/// [`conn`]): without a request in flight, the next request's headers must be complete within
/// `http.header_read_timeout_ms` (PINGs and headers trickled in CONTINUATION frames do not
/// count); a connection with nothing received or sent for `http.idle_timeout_ms` is closed,
/// whatever it is waiting for (a client that stops reading its response); and at most
/// `http.max_connections` are open, the one idle for longest giving way to a new one, so a
/// health probe is answered however many slow clients there are. An HTTP/2 connection runs at
/// most `http.max_concurrent_streams` requests at once.
///
/// # Errors
/// Never in practice: a failed `accept` (too many open files…) is logged and retried.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    config: &crate::config::HttpConfig,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    use hyper_util::server::conn::auto::Builder;
    use hyper_util::server::graceful::GracefulShutdown;

    let header_read = config.header_read_timeout();
    let idle = config.idle_timeout();
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(header_read);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(config.max_concurrent_streams);
    let connections = Arc::new(conn::Connections::default());
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    crate::internal_events::http_accept_failed(&err);
                    // Out of file descriptors, usually: give the others time to close.
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let Some(registered) = connections.admit(config.max_connections) else {
            crate::internal_events::http_connection_refused(connections.len());
            drop(stream);
            continue;
        };
        let io = TokioIo::new(conn::IdleTimeout::new(stream, idle));
        let service = conn::Tracked::new(router.clone(), Arc::clone(&registered.activity), peer);
        let connection = builder
            .serve_connection_with_upgrades(io, service)
            .into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let activity = Arc::clone(&registered.activity);
            tokio::select! {
                closed = connection => if let Err(err) = closed {
                    tracing::debug!(%peer, error = %err, "HTTP connection closed with an error");
                },
                () = conn::closing(&activity, header_read, idle) => {
                    tracing::debug!(%peer, "HTTP connection closed: no request in time, or its slot was needed");
                }
            }
            drop(registered);
        });
    }
    drop(listener);
    if tokio::time::timeout(GRACEFUL_SHUTDOWN, graceful.shutdown())
        .await
        .is_err()
    {
        crate::internal_events::http_connections_dropped_at_shutdown(GRACEFUL_SHUTDOWN.as_secs());
    }
    Ok(())
}

/// What the API's handlers and the editors' pages share.
#[derive(Clone)]
struct AppState {
    board: DecisionBoard,
    overrides: Option<OverrideSink>,
}

/// `?revision=N`.
#[derive(Debug, Deserialize)]
struct RevisionQuery {
    revision: Option<u64>,
}

/// How long requests in flight may take to finish once the server is stopping.
pub const GRACEFUL_SHUTDOWN: std::time::Duration = std::time::Duration::from_secs(5);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{BOARD_BODY_BYTES, BOARD_DECISION_BYTES};
    use axum::body::Body;
    use axum::http::Request;
    use factgate_core::decide::decide_not_checked;
    use factgate_core::events::{Decision, DraftEvent, DraftPosition};
    use factgate_core::events::{DecisionReason, Outcome};
    use factgate_core::extract::ExtractLimits;
    use tower::ServiceExt;

    async fn body_text(response: axum::response::Response) -> String {
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 22)
            .await
            .expect("a body");
        String::from_utf8_lossy(&bytes).into_owned()
    }

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

    /// The API's router, and the bearer token the requests of [`get`] carry.
    fn test_router(board: &DecisionBoard) -> Router {
        router(
            board.clone(),
            login::Login::with_credentials([("ana", "test-token-1")]),
            None,
        )
    }

    async fn get(router: &Router, uri: &str) -> (StatusCode, serde_json::Value) {
        let response = router
            .clone()
            .oneshot(
                Request::get(uri)
                    .header("authorization", "Bearer test-token-1")
                    .body(Body::empty())
                    .expect("request"),
            )
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
        let router = test_router(&board);
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
    async fn a_decision_read_from_the_topic_is_served_as_it_was_read() {
        let board = DecisionBoard::new(10);
        let router = test_router(&board);
        let read = decision("a-1", 1);
        let json = serde_json::to_vec(&read).expect("a decision serializes");
        board.record_read(read.clone(), &json);
        let (status, body) = get(&router, "/v1/decisions/a-1").await;
        assert_eq!(status, StatusCode::OK);
        let served: Decision = serde_json::from_value(body).expect("a decision is served");
        assert_eq!(served, read);
        // The same rules as a decision recorded as made: a pass read later leaves the block.
        let mut pass = read.clone();
        pass.outcome = factgate_core::events::Outcome::Pass;
        board.record_read(
            pass.clone(),
            &serde_json::to_vec(&pass).expect("serializes"),
        );
        let (_, body) = get(&router, "/v1/decisions/a-1").await;
        assert_eq!(body["outcome"], "block");
    }

    #[tokio::test]
    async fn the_api_refuses_without_a_login_and_the_admin_listener_serves_no_draft() {
        let board = DecisionBoard::new(10);
        board.record(decision("a-1", 1));
        let api = test_router(&board);
        for uri in ["/v1/decisions/a-1", "/ui/", "/ui/decisions/a-1"] {
            for auth in [None, Some("Bearer wrong-token"), Some("Basic YW5hOm5vcGU=")] {
                let mut request = Request::get(uri);
                if let Some(auth) = auth {
                    request = request.header("authorization", auth);
                }
                let response = api
                    .clone()
                    .oneshot(request.body(Body::empty()).expect("request"))
                    .await
                    .expect("answers");
                assert_eq!(
                    response.status(),
                    StatusCode::UNAUTHORIZED,
                    "{uri} {auth:?}"
                );
                assert!(response.headers().contains_key("www-authenticate"));
            }
        }
        let (status, _) = get(&api, "/v1/decisions/a-1").await;
        assert_eq!(status, StatusCode::OK, "with the token");
        // The API listener has no probes or metrics, the admin listener no decisions.
        let (status, _) = get(&api, "/metrics").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        let admin = admin_router(Arc::new(Readiness::default()));
        let (status, _) = get(&admin, "/v1/decisions/a-1").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        let (status, _) = get(&admin, "/ui/").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        let response = admin
            .clone()
            .oneshot(
                Request::get("/healthz")
                    .body(Body::empty())
                    .expect("request"),
            )
            .await
            .expect("answers");
        assert_eq!(response.status(), StatusCode::OK, "probes need no login");
    }

    /// A refused login tells an editor's browser what to do on a page, and the API's client in
    /// problem details; both ask for Basic credentials.
    #[tokio::test]
    async fn a_refused_login_says_what_to_do() {
        let api = router(
            DecisionBoard::new(10),
            login::Login::with_credentials([("Ana Editor", "test-token-1")]),
            None,
        );
        let ask = |path: &str, auth: Option<&str>| {
            let mut request = Request::get(path);
            if let Some(auth) = auth {
                request = request.header("authorization", auth);
            }
            request.body(Body::empty()).expect("request")
        };
        let page = api
            .clone()
            .oneshot(ask("/ui/", Some("Bearer wrong")))
            .await
            .expect("answers");
        assert_eq!(page.status(), StatusCode::UNAUTHORIZED);
        assert!(page.headers().contains_key("www-authenticate"));
        let content_type = page.headers()["content-type"]
            .to_str()
            .unwrap_or_default()
            .to_owned();
        assert!(content_type.starts_with("text/html"), "{content_type}");
        let text = body_text(page).await;
        assert!(
            text.contains("were not accepted") && text.contains("Reload this page"),
            "{text}"
        );
        let api_answer = api
            .clone()
            .oneshot(ask("/v1/decisions/a-1", None))
            .await
            .expect("answers");
        assert_eq!(api_answer.status(), StatusCode::UNAUTHORIZED);
        assert!(api_answer.headers().contains_key("www-authenticate"));
        assert_eq!(
            api_answer.headers()["content-type"],
            "application/problem+json"
        );
        let problem: serde_json::Value =
            serde_json::from_str(&body_text(api_answer).await).expect("problem details");
        assert_eq!(problem["status"], 401);
        assert!(
            problem["detail"]
                .as_str()
                .is_some_and(|d| d.contains("bearer token")),
            "{problem}"
        );
    }

    #[tokio::test]
    async fn the_override_form_sends_the_logged_in_editor_and_refuses_other_sites() {
        let board = DecisionBoard::new(10);
        let blocked = factgate_core::decide::decide(
            &factgate_core::decide::ArticleCheck {
                article_id: "a-1",
                revision: 1,
                content_digest: "digest",
                published_at: chrono::Utc::now(),
                claims: &factgate_core::extract::extract(
                    "Our pilot with 500 students showed 73% improvement.",
                    factgate_core::model::BodyFormat::Markdown,
                )
                .expect("extracts")
                .claims,
                results: &[],
                unfinished: &[],
            },
            factgate_core::decide::Strictness::Normal,
            chrono::Utc::now(),
        );
        let issue = blocked.report.issues[0].clone();
        board.record(blocked.clone());
        let sent: Arc<Mutex<Vec<factgate_core::events::OverrideEvent>>> = Arc::default();
        let sink: OverrideSink = {
            let sent = Arc::clone(&sent);
            Arc::new(move |over| {
                sent.lock().expect("lock").push(over);
                Box::pin(async { Ok(()) })
            })
        };
        let api = router(
            board,
            login::Login::with_credentials([("Ana Editor", "test-token-1")]),
            Some(sink),
        );
        let form = format!(
            "revision=1&decision_id={}&finding_type=unsourced&claim_id={}&reason=Checked+in+the+archive",
            blocked.decision_id,
            issue.claim_id.clone().expect("a claim")
        );
        let post = |site: Option<&'static str>| {
            let mut request = Request::post("/ui/decisions/a-1/override")
                .header("authorization", "Bearer test-token-1")
                .header("content-type", "application/x-www-form-urlencoded");
            if let Some(site) = site {
                request = request.header("sec-fetch-site", site);
            }
            request.body(Body::from(form.clone())).expect("request")
        };
        let refused = api
            .clone()
            .oneshot(post(Some("cross-site")))
            .await
            .expect("answers");
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);
        assert!(sent.lock().expect("lock").is_empty());
        let accepted = api
            .clone()
            .oneshot(post(Some("same-origin")))
            .await
            .expect("answers");
        // Post/redirect/get: back to the decision's page, which says the override was sent.
        assert_eq!(accepted.status(), StatusCode::SEE_OTHER);
        let location = accepted
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        assert!(
            location.starts_with("/ui/decisions/a%2D1?revision=1")
                && location.ends_with("sent=override"),
            "{location}"
        );
        let landed = api
            .clone()
            .oneshot(
                Request::get(location.as_str())
                    .header("authorization", "Bearer test-token-1")
                    .body(Body::empty())
                    .expect("request"),
            )
            .await
            .expect("answers");
        assert_eq!(landed.status(), StatusCode::OK);
        let page = body_text(landed).await;
        assert!(page.contains("Your override was sent."), "{page}");
        // What blocks the article comes first, with its override form, before the article and
        // the claims.
        let blocking = page.find("id=\"blocking\"").expect("a blocking section");
        let article = page.find("id=\"article-heading\"").expect("the article");
        assert!(blocking < article, "{page}");
        assert!(
            page[blocking..article].contains("<form method=\"post\""),
            "the blocking finding's override form: {page}"
        );

        // An empty reason is the editor's to mend: 422, in a sentence.
        let empty = api
            .clone()
            .oneshot(
                Request::post("/ui/decisions/a-1/override")
                    .header("authorization", "Bearer test-token-1")
                    .header("content-type", "application/x-www-form-urlencoded")
                    .header("sec-fetch-site", "same-origin")
                    .body(Body::from(form.replace("Checked+in+the+archive", "+++")))
                    .expect("request"),
            )
            .await
            .expect("answers");
        assert_eq!(empty.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let page = body_text(empty).await;
        assert!(page.contains("An override needs a reason."), "{page}");

        let sent = sent.lock().expect("lock").clone();
        assert_eq!(sent.len(), 1);
        assert_eq!(
            sent[0].editor, "Ana Editor",
            "the name logged in, not a form field"
        );
        assert_eq!(sent[0].decision_id, blocked.decision_id);
        assert_eq!(sent[0].finding.claim_id, issue.claim_id);
        assert_eq!(sent[0].reason, "Checked in the archive");
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
        let pass = factgate_core::decide::decide(
            &factgate_core::decide::ArticleCheck {
                article_id: "a-1",
                revision: 3,
                content_digest: "digest",
                published_at: chrono::Utc::now(),
                claims: &[],
                results: &[],
                unfinished: &[],
            },
            factgate_core::decide::Strictness::Normal,
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
    fn the_decision_on_the_latest_publication_of_a_revision_is_the_one_shown() {
        let at = |offset| {
            Some(DraftPosition {
                partition: 0,
                offset,
            })
        };
        let published = |reason, digest: &str, offset| {
            let d = decide_not_checked(
                "a-1",
                Some(1),
                digest,
                reason,
                "why",
                None,
                chrono::Utc::now(),
            );
            d.for_publication(at(offset))
        };
        let pass_on = |digest: &str, offset| {
            factgate_core::decide::decide(
                &factgate_core::decide::ArticleCheck {
                    article_id: "a-1",
                    revision: 1,
                    content_digest: digest,
                    published_at: chrono::Utc::now(),
                    claims: &[],
                    results: &[],
                    unfinished: &[],
                },
                factgate_core::decide::Strictness::Normal,
                chrono::Utc::now(),
            )
            .for_publication(at(offset))
        };
        let shown = |board: &DecisionBoard| match board.lookup("a-1", Some(1)) {
            Some((_, RevisionState::Decided(d))) => Some((d.outcome, d.draft_position)),
            Some((_, RevisionState::Pending)) => None,
            None => panic!("unknown"),
        };

        // A retry of a block that could not complete, passed: the pass is shown.
        let board = DecisionBoard::new(10);
        board.note_publication("a-1", 1, at(5), Some("d1".into()));
        board.record(published(DecisionReason::SourceUnjudgeable, "d1", 5));
        board.note_publication("a-1", 1, at(9), Some("d1".into()));
        assert_eq!(
            shown(&board),
            Some((Outcome::Block, at(5))),
            "the block stands while the same content is checked again"
        );
        board.record(pass_on("d1", 9));
        assert_eq!(shown(&board), Some((Outcome::Pass, at(9))));
        // A replay of the earlier publication's decision, read late, changes nothing.
        board.record(published(DecisionReason::SourceUnjudgeable, "d1", 5));
        assert_eq!(shown(&board), Some((Outcome::Pass, at(9))));

        // New content under a decided revision: pending until it is decided, and a late
        // decision on the old content does not answer for it.
        board.note_publication("a-1", 1, at(12), Some("d2".into()));
        assert_eq!(shown(&board), None, "new content is being checked");
        board.record(pass_on("d1", 9));
        assert_eq!(shown(&board), None);
        board.record(published(DecisionReason::HighSeverityIssue, "d2", 12));
        assert_eq!(shown(&board), Some((Outcome::Block, at(12))));
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

    #[test]
    fn the_board_forgets_the_oldest_articles_past_its_decision_bytes() {
        let size = serde_json::to_vec(&decision("a", 1)).expect("json").len();
        let board = DecisionBoard::new(100).with_decision_budget(2 * size + size / 2);
        for article in ["a", "b"] {
            board.record(decision(article, 1));
        }
        assert!(board.lookup("a", None).is_some(), "two decisions fit");
        board.record(decision("c", 1));
        assert!(board.lookup("a", None).is_none(), "the oldest is forgotten");
        assert!(board.lookup("b", None).is_some());
        assert!(board.lookup("c", None).is_some());
        // A decision replacing another (a later publication of the revision) weighs once.
        let at = |offset| {
            let mut d = decision("d", 1);
            d.draft_position = Some(DraftPosition {
                partition: 0,
                offset,
            });
            d
        };
        board.record(at(5));
        assert!(
            board.lookup("b", None).is_none(),
            "b, now the oldest, makes room for d"
        );
        board.record(at(6));
        let shown = board.lookup("d", Some(1));
        assert!(
            matches!(&shown, Some((1, RevisionState::Decided(d))) if d.draft_position.is_some_and(|p| p.offset == 6)),
            "the later publication's decision is shown: {shown:?}"
        );
        assert!(board.lookup("c", None).is_some(), "d weighs once");
    }

    #[test]
    fn the_decision_just_recorded_is_never_the_one_forgotten() {
        let size = serde_json::to_vec(&decision("a", 1)).expect("json").len();
        let board = DecisionBoard::new(100).with_decision_budget(2 * size + size / 2);
        // The oldest article on the board is still pending when the others are decided.
        board.note_draft("slow", 1);
        for article in ["a", "b"] {
            board.record(decision(article, 1));
        }
        board.record(decision("slow", 1));
        assert!(
            board
                .lookup("slow", None)
                .is_some_and(|(_, state)| matches!(state, RevisionState::Decided(_))),
            "the decision just made is shown"
        );
        assert!(
            board.lookup("a", None).is_none(),
            "the oldest other article goes instead"
        );
        assert!(board.lookup("b", None).is_some());
    }

    #[test]
    fn a_decision_held_as_json_reads_back_as_recorded() {
        let board = DecisionBoard::new(10);
        let first = decision("a", 1);
        let mut second = decision("a", 2);
        second.outcome = Outcome::Pass;
        second.reasons.clear();
        board.record(first.clone());
        board.record(second.clone());
        assert_eq!(
            board.lookup("a", Some(1)),
            Some((1, RevisionState::Decided(Box::new(first.clone()))))
        );
        assert_eq!(
            board.lookup("a", None),
            Some((2, RevisionState::Decided(Box::new(second.clone()))))
        );
        assert_eq!(board.previous_decision("a", 2), Some(first.clone()));
        // The desk reads each decision's outcome, time and reasons without parsing it.
        let mut seen = Vec::new();
        board.for_each(|id, revisions, _| {
            for (revision, summary) in revisions {
                let s = summary.expect("both decided");
                seen.push((id.to_owned(), *revision, s.outcome, s.reasons.to_vec()));
            }
        });
        assert_eq!(
            seen,
            vec![
                ("a".to_owned(), 1, Outcome::Block, first.reasons.clone()),
                ("a".to_owned(), 2, Outcome::Pass, vec![]),
            ]
        );
        // What the budget counts is what is held: the decisions as JSON.
        let json = |d: &Decision| serde_json::to_vec(d).expect("json").len();
        assert_eq!(
            board.with(|b| b.decision_bytes),
            json(&first) + json(&second)
        );
    }

    /// Serves the router on a loopback port with short timeouts; returns its address.
    async fn serve_with_timeouts(header_read_ms: u64, idle_ms: u64) -> std::net::SocketAddr {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let addr = listener.local_addr().expect("address");
        let config = crate::config::HttpConfig {
            listen: addr,
            header_read_timeout_ms: header_read_ms,
            idle_timeout_ms: idle_ms,
            page_body_bytes: BOARD_BODY_BYTES,
            decision_bytes: BOARD_DECISION_BYTES,
            ..crate::config::HttpConfig::default()
        };
        let app = admin_router(Arc::new(Readiness::default()));
        tokio::spawn(async move { serve(listener, app, &config, std::future::pending()).await });
        addr
    }

    /// A revision that is not a number is answered as a client can show it: problem details
    /// with a sentence, not the deserializer's message; a browser gets a page saying the same.
    #[tokio::test]
    async fn a_revision_that_is_not_a_number_gets_problem_details() {
        let router = test_router(&DecisionBoard::new(8));
        for (accept, kind) in [
            ("application/json", "application/problem+json"),
            ("text/html", "text/html; charset=utf-8"),
        ] {
            let response = get_with(&router, "/v1/decisions/a-1?revision=abc", accept).await;
            assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{accept}");
            assert_eq!(response.headers()[axum::http::header::CONTENT_TYPE], kind);
            let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
                .await
                .expect("body");
            let text = String::from_utf8_lossy(&bytes);
            assert!(
                text.contains("revision must be a revision number"),
                "{text}"
            );
            assert!(!text.contains("Failed to deserialize"), "{text}");
            if accept == "application/json" {
                let problem: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
                assert_eq!(problem["status"], 400);
                assert_eq!(problem["title"], "The query is not valid");
            }
        }
    }

    /// Wrong passwords, one after another on one connection as a guesser sends them: past a
    /// few, the name and the address must wait (429, `Retry-After`), and the right password is
    /// not tried meanwhile; another name from another address logs in; each failure is counted.
    #[tokio::test]
    async fn failed_logins_are_throttled_per_name_and_address() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let addr = listener.local_addr().expect("address");
        let config = crate::config::HttpConfig::default();
        let app = router(
            DecisionBoard::new(8),
            login::Login::with_credentials([("ana", "right-secret-1"), ("bob", "right-secret-2")]),
            None,
        );
        tokio::spawn(async move { serve(listener, app, &config, std::future::pending()).await });
        let url = format!("http://{addr}/v1/decisions/a-1");
        let client = reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("client");
        let failures_before = crate::metrics::metrics().http_login_failures.get();
        let mut statuses = Vec::new();
        for n in 0..12 {
            let response = client
                .get(&url)
                .basic_auth("ana", Some(format!("guess-{n}")))
                .send()
                .await
                .expect("answers");
            statuses.push(response.status().as_u16());
        }
        assert_eq!(
            &statuses[..5],
            [401; 5],
            "five failures are let through: {statuses:?}"
        );
        assert!(statuses[5..].iter().all(|s| *s == 429), "{statuses:?}");
        assert!(crate::metrics::metrics().http_login_failures.get() >= failures_before + 5);
        let right = client
            .get(&url)
            .basic_auth("ana", Some("right-secret-1"))
            .send()
            .await
            .expect("answers");
        assert_eq!(right.status(), 429, "the right password waits too");
        let retry: u64 = right.headers()["retry-after"]
            .to_str()
            .expect("ascii")
            .parse()
            .expect("seconds");
        assert!((1..=900).contains(&retry), "{retry}");
        // Another editor, from another loopback address, is not held up by ana's guesser.
        let elsewhere = reqwest::Client::builder()
            .no_proxy()
            .local_address(std::net::IpAddr::from([127, 0, 0, 2]))
            .build()
            .expect("client");
        let bob = elsewhere
            .get(&url)
            .basic_auth("bob", Some("right-secret-2"))
            .send()
            .await
            .expect("answers");
        assert_ne!(bob.status(), 429);
        assert_ne!(bob.status(), 401);
    }

    /// Whether the server closes `stream` within `within` (a read that ends or fails).
    async fn closed_within(
        stream: &mut tokio::net::TcpStream,
        within: std::time::Duration,
    ) -> bool {
        use tokio::io::AsyncReadExt;
        let mut buf = [0u8; 4096];
        let until = tokio::time::Instant::now() + within;
        loop {
            match tokio::time::timeout_at(until, stream.read(&mut buf)).await {
                Ok(Ok(0)) | Ok(Err(_)) => return true,
                Ok(Ok(_)) => continue,
                Err(_) => return false,
            }
        }
    }

    #[tokio::test]
    async fn half_sent_requests_and_idle_connections_are_closed() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        // Far longer than the timeouts, so a close within it is the timeout's doing.
        let bound = std::time::Duration::from_secs(10);
        let addr = serve_with_timeouts(300, 600).await;

        // Headers begun and never finished, a byte now and then (slowloris).
        let mut half = tokio::net::TcpStream::connect(addr)
            .await
            .expect("connects");
        half.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            .await
            .expect("writes");
        let trickle = async {
            for _ in 0..20 {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                if half.write_all(b"X").await.is_err() {
                    break;
                }
            }
        };
        trickle.await;
        assert!(
            closed_within(&mut half, bound).await,
            "a request whose headers never end is closed"
        );

        // Connected, and nothing sent.
        let mut silent = tokio::net::TcpStream::connect(addr)
            .await
            .expect("connects");
        assert!(
            closed_within(&mut silent, bound).await,
            "a silent connection is closed"
        );

        // A whole request is answered; the connection, kept alive and then idle, is closed.
        let mut kept = tokio::net::TcpStream::connect(addr)
            .await
            .expect("connects");
        kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .expect("writes");
        let mut response = [0u8; 256];
        let n = kept.read(&mut response).await.expect("an answer");
        assert!(
            String::from_utf8_lossy(&response[..n]).starts_with("HTTP/1.1 200"),
            "{}",
            String::from_utf8_lossy(&response[..n])
        );
        assert!(
            closed_within(&mut kept, bound).await,
            "an idle keep-alive connection is closed"
        );
    }

    async fn get_with(router: &Router, uri: &str, accept: &str) -> axum::response::Response {
        router
            .clone()
            .oneshot(
                Request::get(uri)
                    .header(axum::http::header::ACCEPT, accept)
                    .header("authorization", "Bearer test-token-1")
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
        let router = test_router(&board);
        board.note_draft_event(
            &draft("a/1 x", 1, "Business", "Our pilot showed 73% gains."),
            None,
        );
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
        let router = test_router(&board);
        board.note_draft_event(&draft("old", 1, "Science", "x"), None);
        let mut old = decision("old", 1);
        old.decided_at = chrono::Utc::now() - chrono::Duration::days(2);
        board.record(old);
        board.note_draft_event(&draft("new", 1, "Business", "x"), None);
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

    #[tokio::test]
    async fn a_decision_opened_from_a_filtered_desk_links_back_to_it() {
        let board = DecisionBoard::new(10);
        let router = test_router(&board);
        board.note_draft_event(&draft("a-1", 3, "Local news", "x"), None);
        board.record(decision("a-1", 3));

        let desk = text(
            get_with(
                &router,
                "/ui/?outcome=block&section=Local+news",
                "text/html",
            )
            .await,
        )
        .await
        .replace("&#x2f;", "/");
        let link = "/ui/decisions/a%2D1?revision=3&amp;outcome=block&amp;section=Local+news";
        assert!(desk.contains(&format!("href=\"{link}\"")), "{desk}");

        let page = text(get_with(&router, &link.replace("&amp;", "&"), "text/html").await)
            .await
            .replace("&#x2f;", "/");
        assert!(
            page.contains("href=\"/ui/?outcome=block&amp;section=Local+news\""),
            "{page}"
        );
        // Opened from nowhere (the API, a shared link): back to the whole desk.
        let page = text(get_with(&router, "/ui/decisions/a-1?revision=3", "text/html").await)
            .await
            .replace("&#x2f;", "/");
        assert!(page.contains("href=\"/ui/\""), "{page}");
    }

    #[tokio::test]
    async fn the_desk_says_when_a_later_revision_is_being_checked() {
        let board = DecisionBoard::new(10);
        let router = test_router(&board);
        board.note_draft_event(&draft("a-1", 1, "S", "Our pilot showed 73% gains."), None);
        let mut pass = decision("a-1", 1);
        pass.outcome = Outcome::Pass;
        pass.reasons.clear();
        board.record(pass);
        let page = text(get_with(&router, "/ui/", "text/html").await).await;
        assert!(!page.contains("data-pending-revision"), "{page}");

        board.note_draft_event(&draft("a-1", 2, "S", "Our pilot showed 93% gains."), None);
        let page = text(get_with(&router, "/ui/", "text/html").await).await;
        assert!(
            page.contains(r#"data-pending-revision="2""#) && page.contains("rev. 2 being checked"),
            "the pass of revision 1 is shown with revision 2 pending: {page}"
        );
        board.record(decision("a-1", 2));
        let page = text(get_with(&router, "/ui/", "text/html").await).await;
        assert!(!page.contains("data-pending-revision"), "{page}");
    }

    #[test]
    fn draft_bodies_are_kept_within_their_byte_budget() {
        let board = DecisionBoard::with_body_budget(10, 10);
        board.note_draft_event(&draft("a", 1, "S", "123456"), None);
        board.note_draft_event(&draft("b", 1, "S", "123456"), None);
        assert!(board.body("a", 1).is_none(), "the oldest body went");
        assert_eq!(board.body("b", 1).map(|b| b.body.len()), Some(6));
        board.note_draft_event(&draft("c", 1, "S", "12345678901"), None);
        assert!(board.body("c", 1).is_none(), "larger than the budget");
        assert!(board.lookup("c", Some(1)).is_some(), "still pending");
    }

    #[test]
    fn a_body_published_again_is_evicted_by_its_new_place_and_forgotten_ones_leave_no_trace() {
        let board = DecisionBoard::with_body_budget(10, 12);
        board.note_draft_event(&draft("a", 1, "S", "aaaa"), None);
        board.note_draft_event(&draft("b", 1, "S", "bbbb"), None);
        // "a" published again with other content: now the newest body, "b" the oldest.
        board.note_draft_event(&draft("a", 1, "S", "AAAA"), None);
        board.note_draft_event(&draft("c", 1, "S", "cccc"), None);
        board.note_draft_event(&draft("d", 1, "S", "dddd"), None);
        assert!(board.body("b", 1).is_none(), "the oldest body went first");
        assert_eq!(
            board.body("a", 1).map(|b| b.body.to_string()).as_deref(),
            Some("AAAA")
        );
        // Thousands of articles through a board of ten: each forgotten with its body, and the
        // order kept for eviction stays near the bodies held.
        for i in 0..5_000 {
            board.note_draft_event(&draft(&format!("n{i}"), 1, "S", "nnnn"), None);
        }
        board.with(|b| {
            assert!(b.bodies.len() <= 3, "{}", b.bodies.len());
            assert!(
                b.body_order.len() <= 2 * b.bodies.len() + 16,
                "{}",
                b.body_order.len()
            );
            assert_eq!(
                b.body_bytes,
                b.bodies.values().map(|(_, h)| h.body.len()).sum::<usize>()
            );
        });
        assert_eq!(board.body("n4999", 1).map(|b| b.body.len()), Some(4));
    }

    #[tokio::test]
    async fn bodies_extraction_refuses_are_not_held_and_their_pages_still_render() {
        let limits = ExtractLimits {
            max_body_bytes: 200,
            max_nesting_depth: 16,
            ..ExtractLimits::default()
        };
        let board = DecisionBoard::new(10).with_extract_limits(limits);
        let router = test_router(&board);
        let nested = format!("{}Deep.", "> ".repeat(64));
        let large = "Our pilot showed 73% gains. ".repeat(20);
        let fine = "Our pilot showed 73% gains.";
        for (article, body) in [("nested", &*nested), ("large", &*large), ("fine", fine)] {
            board.note_draft_event(&draft(article, 1, "S", body), None);
            board.record(decision(article, 1));
        }
        assert!(
            board.body("nested", 1).is_none(),
            "nested past the depth limit"
        );
        assert!(board.body("large", 1).is_none(), "over the byte limit");
        assert_eq!(
            board.body("fine", 1).map(|b| b.body.len()),
            Some(fine.len())
        );
        for article in ["nested", "large", "fine"] {
            let response =
                get_with(&router, &format!("/ui/decisions/{article}"), "text/html").await;
            assert_eq!(response.status(), StatusCode::OK, "{article}");
        }
    }

    #[tokio::test]
    async fn readiness_names_what_is_missing() {
        let readiness = Arc::new(Readiness::default());
        readiness.expect_role("join");
        let router = admin_router(Arc::clone(&readiness));
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
        let router = admin_router(Arc::new(Readiness::default()));
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
