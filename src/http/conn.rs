//! What one connection to the HTTP endpoint may hold, for both protocols.
//!
//! A connection costs a file descriptor and memory until it closes, so none stays open for free:
//!
//! - **Work, not bytes, keeps a connection open.** [`Activity`] follows a connection's requests:
//!   a handler running, a response body being sent. With neither, the next request's headers
//!   must be complete within `http.header_read_timeout_ms` of the last work (or of the
//!   connection's start); while a response body waits for the client,
//!   `http.idle_timeout_ms` after its last frame. Bytes alone do not count: an HTTP/2
//!   connection that only sends PINGs, or a request's headers trickled in CONTINUATION frames,
//!   is closed as a silent one is. (hyper bounds HTTP/1's header read itself; HTTP/2 has no
//!   such timeout.)
//! - **[`IdleTimeout`]** closes a socket with nothing received or sent for
//!   `http.idle_timeout_ms`, whatever the protocol is waiting for (a client that stops reading).
//! - **A cap on connections** (`http.max_connections`, [`Connections`]): at the cap, a new
//!   connection takes the place of the one idle for longest (no request in flight), so slow or
//!   silent clients cannot hold every slot while a health probe waits; when every connection is
//!   at work, the new one is closed at once. The file descriptors the endpoint uses stay under
//!   the cap, leaving the process's others to Kafka and the fetcher.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use bytes::Bytes;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::service::TowerToHyperService;
use tokio::sync::Notify;
use tokio::time::Instant;

/// What one connection is doing, as its requests show it.
#[derive(Debug)]
pub(super) struct Activity {
    state: Mutex<ActivityState>,
    changed: Notify,
}

#[derive(Debug)]
struct ActivityState {
    /// Handlers running.
    handlers: usize,
    /// Response bodies not yet sent whole.
    bodies: usize,
    /// When work last started, moved or ended (the connection's start at first).
    last: Instant,
    /// Closed to make room for a newer connection.
    evicted: bool,
}

impl Activity {
    fn new() -> Self {
        Self {
            state: Mutex::new(ActivityState {
                handlers: 0,
                bodies: 0,
                last: Instant::now(),
                evicted: false,
            }),
            changed: Notify::new(),
        }
    }

    fn state(&self) -> MutexGuard<'_, ActivityState> {
        // Counters only: a panic elsewhere leaves nothing half-updated that matters.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn update(&self, f: impl FnOnce(&mut ActivityState)) {
        {
            let mut state = self.state();
            f(&mut state);
            state.last = Instant::now();
        }
        self.changed.notify_one();
    }

    /// Since when the connection has had nothing in flight, if it has nothing.
    fn idle_since(&self) -> Option<Instant> {
        let state = self.state();
        (state.handlers == 0 && state.bodies == 0 && !state.evicted).then_some(state.last)
    }

    /// Resolves once the connection has gone without work past its allowance (see the module
    /// doc), or was evicted; never while a handler runs.
    async fn expired(&self, header_read: Duration, idle: Duration) {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            // Registered before the state is read, so a change in between is not missed.
            changed.as_mut().enable();
            let deadline = {
                let state = self.state();
                if state.evicted {
                    return;
                }
                match (state.handlers, state.bodies) {
                    (0, 0) => Some(state.last + header_read),
                    (0, _) => Some(state.last + idle),
                    _ => None,
                }
            };
            match deadline {
                Some(deadline) if Instant::now() >= deadline => return,
                Some(deadline) => {
                    tokio::select! {
                        () = &mut changed => {}
                        () = tokio::time::sleep_until(deadline) => {}
                    }
                }
                None => changed.await,
            }
        }
    }
}

/// The open connections, for the cap.
#[derive(Debug, Default)]
pub(super) struct Connections {
    open: Mutex<HashMap<u64, Arc<Activity>>>,
    next_id: AtomicU64,
}

/// A connection's place among the open ones; leaves it when dropped.
pub(super) struct Registered {
    connections: Arc<Connections>,
    id: u64,
    pub(super) activity: Arc<Activity>,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.connections.open_map().remove(&self.id);
    }
}

impl Connections {
    fn open_map(&self) -> MutexGuard<'_, HashMap<u64, Arc<Activity>>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a new connection, making room for it when `max` are open: the connection idle
    /// for longest is told to close. `None` when every open connection is at work: the new one
    /// is to be closed.
    pub(super) fn admit(self: &Arc<Self>, max: usize) -> Option<Registered> {
        let mut open = self.open_map();
        // Connections already told to close still hold their socket for a moment.
        let staying = open.values().filter(|a| !a.state().evicted).count();
        if staying >= max {
            let oldest = open
                .values()
                .filter_map(|a| a.idle_since().map(|since| (since, a)))
                .min_by_key(|(since, _)| *since)
                .map(|(_, a)| Arc::clone(a));
            let oldest = oldest?;
            oldest.update(|state| state.evicted = true);
            crate::internal_events::http_connection_evicted(staying);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let activity = Arc::new(Activity::new());
        open.insert(id, Arc::clone(&activity));
        Some(Registered {
            connections: Arc::clone(self),
            id,
            activity,
        })
    }

    /// Connections open now (those told to close included, until they have).
    pub(super) fn len(&self) -> usize {
        self.open_map().len()
    }
}

/// Serves one connection's requests with the router, and tells its [`Activity`] when a handler
/// starts and ends and how its response body goes.
#[derive(Clone)]
pub(super) struct Tracked {
    inner: TowerToHyperService<Router>,
    activity: Arc<Activity>,
    /// The client's address, handed to handlers as `ConnectInfo` (the login throttles by it).
    peer: std::net::SocketAddr,
}

impl Tracked {
    pub(super) fn new(router: Router, activity: Arc<Activity>, peer: std::net::SocketAddr) -> Self {
        Self {
            inner: TowerToHyperService::new(router),
            activity,
            peer,
        }
    }
}

/// Counts a handler as running until dropped (finished, or abandoned with its connection).
struct Handling(Arc<Activity>);

impl Handling {
    fn start(activity: Arc<Activity>) -> Self {
        activity.update(|state| state.handlers += 1);
        Self(activity)
    }
}

impl Drop for Handling {
    fn drop(&mut self) {
        self.0
            .update(|state| state.handlers = state.handlers.saturating_sub(1));
    }
}

impl hyper::service::Service<hyper::Request<Incoming>> for Tracked {
    type Response = hyper::Response<TrackedBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, mut request: hyper::Request<Incoming>) -> Self::Future {
        request
            .extensions_mut()
            .insert(axum::extract::ConnectInfo(self.peer));
        let handling = Handling::start(Arc::clone(&self.activity));
        let response = self.inner.call(request);
        Box::pin(async move {
            let response = response.await?;
            // The body counts from here, before the handler stops counting: no gap between.
            let activity = Arc::clone(&handling.0);
            activity.update(|state| state.bodies += 1);
            drop(handling);
            Ok(response.map(|body| TrackedBody {
                inner: body,
                activity: Some(activity),
            }))
        })
    }
}

/// A response body that tells its connection's [`Activity`] when a frame goes out and when it
/// is done (sent whole, failed or dropped).
pub(super) struct TrackedBody {
    inner: axum::body::Body,
    activity: Option<Arc<Activity>>,
}

impl TrackedBody {
    fn done(&mut self) {
        if let Some(activity) = self.activity.take() {
            activity.update(|state| state.bodies = state.bodies.saturating_sub(1));
        }
    }
}

impl Drop for TrackedBody {
    fn drop(&mut self) {
        self.done();
    }
}

impl hyper::body::Body for TrackedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(_))) => {
                if let Some(activity) = &this.activity {
                    activity.update(|_| {});
                }
            }
            Poll::Ready(None | Some(Err(_))) => this.done(),
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        hyper::body::Body::is_end_stream(&self.inner)
    }

    fn size_hint(&self) -> SizeHint {
        hyper::body::Body::size_hint(&self.inner)
    }
}

/// Resolves when the connection of `activity` is to close: out of time without work, or
/// evicted to make room.
pub(super) async fn closing(activity: &Activity, header_read: Duration, idle: Duration) {
    activity.expired(header_read, idle).await;
}

/// A connection that fails with `TimedOut` once nothing was received or sent for `idle`: each
/// read or write that moves bytes starts the wait again, and one that waits past it ends the
/// connection.
pub(super) struct IdleTimeout<S> {
    inner: S,
    idle: std::time::Duration,
    deadline: std::pin::Pin<Box<tokio::time::Sleep>>,
}

impl<S> IdleTimeout<S> {
    pub(super) fn new(inner: S, idle: std::time::Duration) -> Self {
        Self {
            inner,
            idle,
            deadline: Box::pin(tokio::time::sleep(idle)),
        }
    }

    fn progressed(&mut self) {
        self.deadline
            .as_mut()
            .reset(tokio::time::Instant::now() + self.idle);
    }

    /// Called when the inner stream has nothing to give: the error once the wait is over.
    fn check(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<std::io::Error> {
        match self.deadline.as_mut().poll(cx) {
            std::task::Poll::Ready(()) => std::task::Poll::Ready(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "connection idle for longer than http.idle_timeout_ms",
            )),
            std::task::Poll::Pending => std::task::Poll::Pending,
        }
    }
}

impl<S: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for IdleTimeout<S> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        match std::pin::Pin::new(&mut self.inner).poll_read(cx, buf) {
            std::task::Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    self.progressed();
                }
                std::task::Poll::Ready(Ok(()))
            }
            std::task::Poll::Ready(Err(err)) => std::task::Poll::Ready(Err(err)),
            std::task::Poll::Pending => self.check(cx).map(Err),
        }
    }
}

impl<S: tokio::io::AsyncWrite + Unpin> tokio::io::AsyncWrite for IdleTimeout<S> {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        match std::pin::Pin::new(&mut self.inner).poll_write(cx, buf) {
            std::task::Poll::Ready(Ok(n)) => {
                if n > 0 {
                    self.progressed();
                }
                std::task::Poll::Ready(Ok(n))
            }
            std::task::Poll::Ready(Err(err)) => std::task::Poll::Ready(Err(err)),
            std::task::Poll::Pending => self.check(cx).map(Err),
        }
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        match std::pin::Pin::new(&mut self.inner).poll_flush(cx) {
            std::task::Poll::Pending => self.check(cx).map(Err),
            ready => ready,
        }
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> std::task::Poll<std::io::Result<usize>> {
        match std::pin::Pin::new(&mut self.inner).poll_write_vectored(cx, bufs) {
            std::task::Poll::Ready(Ok(n)) => {
                if n > 0 {
                    self.progressed();
                }
                std::task::Poll::Ready(Ok(n))
            }
            std::task::Poll::Ready(Err(err)) => std::task::Poll::Ready(Err(err)),
            std::task::Poll::Pending => self.check(cx).map(Err),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
