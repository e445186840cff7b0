//! A real HTTP origin on 127.0.0.1:0 for cited sources, counting the requests it gets per path,
//! and one serving the demo's sources as `factgate demo` does. Only loopback: the tests never
//! reach anything else.

use axum::Router;
use axum::body::Body;
use axum::extract::{Path as UrlPath, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use factgate::demo::SOURCES;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What the origin has seen.
#[derive(Default)]
pub struct Origin {
    pub port: u16,
    counts: Mutex<HashMap<String, usize>>,
    user_agent: Mutex<Option<String>>,
}

impl Origin {
    /// Requests for `path` so far.
    pub fn count(&self, path: &str) -> usize {
        let counts = self.counts.lock().expect("counts lock");
        counts.get(path).copied().unwrap_or(0)
    }

    /// The User-Agent of the latest request.
    pub fn user_agent(&self) -> Option<String> {
        self.user_agent.lock().expect("ua lock").clone()
    }

    /// Counts a request for `path`; returns how many there have been, this one included.
    fn seen(&self, request: &Request) -> usize {
        if let Some(ua) = request.headers().get(header::USER_AGENT) {
            *self.user_agent.lock().expect("ua lock") = ua.to_str().ok().map(str::to_owned);
        }
        let mut counts = self.counts.lock().expect("counts lock");
        let n = counts.entry(request.uri().path().to_owned()).or_insert(0);
        *n += 1;
        *n
    }
}

/// A running origin.
pub struct Server {
    pub origin: Arc<Origin>,
    pub port: u16,
}

impl Server {
    /// The URL of `path` on this origin.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

/// What a test's handler is told of each request.
pub struct Hit {
    pub path: String,
    /// How many requests for this path there have been, this one included.
    pub seen: usize,
    pub port: u16,
}

/// Starts an origin answering every request with `handler`.
pub async fn start<F, Fut>(handler: F) -> Server
where
    F: Fn(Hit) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Response> + Send + 'static,
{
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let port = listener.local_addr().expect("local addr").port();
    let origin = Arc::new(Origin {
        port,
        ..Origin::default()
    });
    let app = Router::new()
        .fallback(move |State(origin): State<Arc<Origin>>, request: Request| {
            let handler = handler.clone();
            async move {
                let seen = origin.seen(&request);
                let hit = Hit {
                    path: request.uri().path().to_owned(),
                    seen,
                    port: origin.port,
                };
                handler(hit).await
            }
        })
        .with_state(Arc::clone(&origin));
    tokio::spawn(async move { axum::serve(listener, app).await });
    Server { origin, port }
}

/// A response with `status`, `headers` and `body`.
pub fn respond(status: u16, headers: &[(&str, &str)], body: impl Into<Body>) -> Response {
    let mut builder = Response::builder().status(StatusCode::from_u16(status).expect("status"));
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    builder.body(body.into()).expect("response")
}

/// Answers `/{name}` with the demo's source of that name, anything else with 404.
pub async fn demo_source(UrlPath(name): UrlPath<String>) -> Response {
    match SOURCES.iter().find(|(n, _)| *n == name) {
        Some((_, html)) => Html(*html).into_response(),
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// Serves the demo's sources at `/{name}` on 127.0.0.1, with `routes` beside them (late or held
/// variants a test needs); returns the origin's base URL.
pub async fn start_demo(routes: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("origin binds on loopback");
    let port = listener.local_addr().expect("origin address").port();
    let app = routes.route("/{name}", get(demo_source));
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://127.0.0.1:{port}")
}
