//! The routes of the two listeners and the API's handlers.

use super::*;

/// Where the override form sends an editor's override (the overrides topic): resolves once the
/// broker has it, or to why not.
pub type OverrideSink = Arc<
    dyn Fn(
            factgate_core::events::OverrideEvent,
        ) -> futures::future::BoxFuture<'static, Result<(), String>>
        + Send
        + Sync,
>;

/// The router of the API and the editors' pages, every route behind `login`. `overrides` takes
/// the override form's posts; without it the pages offer no form.
pub fn router(
    board: DecisionBoard,
    login: login::Login,
    overrides: Option<OverrideSink>,
) -> Router {
    Router::new()
        .route("/v1/decisions/{article_id}", get(decision))
        .route("/ui", get(ui::to_desk))
        .route("/ui/", get(ui::desk))
        .route("/ui/decisions/{article_id}", get(ui::decision_page))
        .route(
            "/ui/decisions/{article_id}/override",
            axum::routing::post(ui::post_override),
        )
        .with_state(AppState { board, overrides })
        .layer(axum::middleware::from_fn_with_state(login, login::require))
}

/// The router of the admin listener: probes and metrics, no login, nothing of any draft.
pub fn admin_router(readiness: Arc<Readiness>) -> Router {
    Router::new()
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .with_state(readiness)
}

async fn readyz(State(readiness): State<Arc<Readiness>>) -> Response {
    match readiness.check() {
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

/// An API error as RFC 9457 problem details (`application/problem+json`): a title and a detail
/// in words a client can show its user.
pub(super) fn problem(status: StatusCode, title: &str, detail: &str) -> Response {
    let body = json!({
        "type": "about:blank",
        "title": title,
        "status": status.as_u16(),
        "detail": detail,
    });
    (
        status,
        [(
            axum::http::header::CONTENT_TYPE,
            axum::http::HeaderValue::from_static("application/problem+json"),
        )],
        body.to_string(),
    )
        .into_response()
}

/// What a `?revision=` that is not a revision number gets: words, not the deserializer's.
pub(super) const REVISION_NOT_A_NUMBER: &str =
    "revision must be a revision number: a whole number of 0 or more, as the draft's `revision`";

/// The decision as JSON, or as a web page when the client prefers HTML (a browser).
async fn decision(
    State(state): State<AppState>,
    Path(article_id): Path<String>,
    query: Result<Query<RevisionQuery>, axum::extract::rejection::QueryRejection>,
    headers: axum::http::HeaderMap,
) -> Response {
    let Ok(Query(query)) = query else {
        let mut response = if ui::prefers_html(&headers) {
            ui::bad_request_page(REVISION_NOT_A_NUMBER)
        } else {
            problem(
                StatusCode::BAD_REQUEST,
                "The query is not valid",
                REVISION_NOT_A_NUMBER,
            )
        };
        response.headers_mut().insert(
            axum::http::header::VARY,
            axum::http::HeaderValue::from_static("accept"),
        );
        return response;
    };
    let mut response = if ui::prefers_html(&headers) {
        ui::page_off_runtime(
            state.board.clone(),
            article_id,
            query.revision,
            state.overrides.is_some(),
            "/ui/".to_owned(),
            None,
        )
        .await
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
