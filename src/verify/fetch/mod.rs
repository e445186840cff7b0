//! Fetching cited sources safely, politely and once.
//!
//! [`Fetcher::fetch`] takes a cited URL and returns a [`FetchOutcome`]: a page reduced to its
//! visible text, or the typed reason there is none. On the way:
//!
//! 1. the URL is checked: http(s) only, IP literals against the address policy ([`policy`]);
//! 2. the [`cache`] answers, or runs one load for all concurrent callers of the same URL;
//! 3. the load waits for the host's slot and rate and the global rate ([`limiter`]), then sends
//!    requests through a client whose resolver drops refused addresses ([`client`]), following
//!    redirects itself so every hop is checked again and counted;
//! 4. the body is streamed within its caps (a page's, or a document's: a PDF, a CSV file) and
//!    decompressed as it streams ([`body`]), then decoded and reduced to text ([`content`]);
//! 5. outcomes worth retrying are retried with backoff or as Retry-After asks ([`classify`]),
//!    all within the total time cap.
//!
//! Every decision about statuses, retries and caching is made in [`classify`].

pub mod body;
pub mod cache;
pub mod classify;
pub mod client;
pub mod content;
mod error;
pub mod limiter;
pub mod policy;
pub mod settings;

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;
use url::Url;

pub use error::FetchError;
use factgate_core::fetched::{FetchOutcome, RefusalReason};
pub use policy::check_address;
pub use settings::FetchSettings;

use crate::internal_events;
use factgate_core::judge::PageIndex;

/// What [`Fetcher::fetch`] returns.
#[derive(Debug, Clone)]
pub struct FetchResult {
    /// How the fetch ended. Shared with the cache and with concurrent callers of the same URL.
    pub outcome: Arc<FetchOutcome>,
    /// For a page, the judge's index of it, built once and kept with it in the cache.
    pub index: Option<Arc<PageIndex>>,
    /// True when this call did not load the outcome itself: a cache hit, or a load another
    /// caller ran at the same time.
    pub from_cache: bool,
}

/// Counters of what the fetcher has done, for tests and metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FetchStats {
    /// HTTP requests sent, redirect hops and retries included.
    pub requests_sent: u64,
    /// Requests that had to wait for a rate limit.
    pub limiter_waits: u64,
    /// Retries after an attempt that could be retried.
    pub retries: u64,
}

/// The shared fetcher. Cheap to clone; clones share the client, cache, limits and counters.
#[derive(Clone)]
pub struct Fetcher {
    inner: Arc<Inner>,
}

struct Inner {
    settings: Arc<FetchSettings>,
    http: reqwest::Client,
    cache: cache::ResultCache,
    limiter: limiter::Limiter,
    requests_sent: AtomicU64,
    retries: AtomicU64,
}

impl Fetcher {
    /// A fetcher with `settings`.
    ///
    /// # Errors
    /// [`FetchError`] when a setting is out of range or the HTTP client cannot be built.
    pub fn new(settings: FetchSettings) -> Result<Self, FetchError> {
        let settings = Arc::new(settings);
        let inner = Inner {
            http: client::build(&settings)?,
            cache: cache::ResultCache::new(Arc::clone(&settings)),
            limiter: limiter::Limiter::new(&settings)?,
            settings,
            requests_sent: AtomicU64::new(0),
            retries: AtomicU64::new(0),
        };
        Ok(Self {
            inner: Arc::new(inner),
        })
    }

    /// Fetches `url` and reduces it to text, or says why not. Never fails: every way a fetch can
    /// end is a [`FetchOutcome`].
    pub async fn fetch(&self, url: &str) -> FetchResult {
        let settings = &self.inner.settings;
        let mut url = match Url::parse(url) {
            Ok(url) => url,
            Err(err) => {
                let reason = RefusalReason::InvalidUrl(err.to_string());
                return Box::pin(self.refused(url.to_owned(), None, reason)).await;
            }
        };
        // The fragment never reaches the server: pages differing only by it are one page.
        url.set_fragment(None);
        if let Err(reason) = policy::check_url(&url, settings) {
            // Boxed, as the load is: a refusal is rare, and the common path's future stays small.
            return Box::pin(self.refused(url.to_string(), Some(url), reason)).await;
        }
        let (entry, from_cache) = self
            .inner
            .cache
            .get_or_load(url.to_string(), || self.inner.load(url))
            .await;
        FetchResult {
            outcome: entry.outcome,
            index: entry.index,
            from_cache,
        }
    }

    /// A URL refused before any request, through the cache like any other outcome: the claims
    /// that cite it again are answered from it, so the refusal is logged once.
    async fn refused(&self, key: String, url: Option<Url>, reason: RefusalReason) -> FetchResult {
        let (entry, from_cache) = self
            .inner
            .cache
            .get_or_load(key, || async move {
                internal_events::fetch_refused_at_once(url.as_ref(), &reason);
                FetchOutcome::RefusedByPolicy(reason)
            })
            .await;
        FetchResult {
            outcome: entry.outcome,
            index: entry.index,
            from_cache,
        }
    }

    /// What the fetcher has done so far.
    pub fn stats(&self) -> FetchStats {
        FetchStats {
            requests_sent: self.inner.requests_sent.load(Ordering::Relaxed),
            limiter_waits: self.inner.limiter.waits(),
            retries: self.inner.retries.load(Ordering::Relaxed),
        }
    }
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("settings", &self.inner.settings)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl Inner {
    /// One fetch from the network, retries included, within the total time cap. The cap starts
    /// once the first request may go out: waiting for politeness is not the source's fault.
    async fn load(&self, url: Url) -> FetchOutcome {
        let started = Instant::now();
        let permit = self.limiter.acquire(url.host_str().unwrap_or("")).await;
        let deadline = Instant::now() + self.settings.timeout;
        let mut attempts = 0;
        let run = self.attempts(&url, permit, deadline, &mut attempts);
        let outcome = tokio::time::timeout_at(deadline, run)
            .await
            .unwrap_or(FetchOutcome::Timeout);
        internal_events::fetch_done(&url, &outcome, started.elapsed(), attempts);
        outcome
    }

    async fn attempts(
        &self,
        url: &Url,
        permit: OwnedSemaphorePermit,
        deadline: Instant,
        attempts: &mut u32,
    ) -> FetchOutcome {
        let mut permit = Some(permit);
        loop {
            *attempts += 1;
            let outcome = self.follow(url, permit.take()).await;
            match classify::retry_delay(&outcome, *attempts - 1, &self.settings) {
                // A wait that would end past the deadline would only turn this into a timeout.
                Some(delay) if Instant::now() + delay < deadline => {
                    internal_events::fetch_retried(url, &outcome, *attempts, delay);
                    self.retries.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(delay).await;
                }
                _ => return outcome,
            }
        }
    }

    /// One attempt: the request and the redirects it leads to, each hop checked and limited.
    async fn follow(&self, start: &Url, mut permit: Option<OwnedSemaphorePermit>) -> FetchOutcome {
        let mut url = start.clone();
        let mut visited = HashSet::from([url.clone()]);
        for hop in 0..=self.settings.max_redirects {
            // The first URL was checked by `fetch`; every redirect target is checked here.
            if hop > 0
                && let Err(reason) = policy::check_url(&url, &self.settings)
            {
                internal_events::fetch_refused(Some(&url), &reason);
                return FetchOutcome::RefusedByPolicy(reason);
            }
            let _permit = match permit.take() {
                Some(permit) => permit,
                None => self.limiter.acquire(url.host_str().unwrap_or("")).await,
            };
            self.requests_sent.fetch_add(1, Ordering::Relaxed);
            let response = match self.http.get(url.clone()).send().await {
                Ok(response) => response,
                Err(err) => {
                    let outcome = classify::network_outcome(&err);
                    if let FetchOutcome::RefusedByPolicy(reason) = &outcome {
                        internal_events::fetch_refused(Some(&url), reason);
                    }
                    return outcome;
                }
            };
            match client::redirect_target(&response, &url) {
                None => return client::read_response(response, &url, &self.settings).await,
                Some(Err(reason)) => return FetchOutcome::NetworkError { reason },
                Some(Ok(next)) if !visited.insert(next.clone()) => {
                    let reason = RefusalReason::RedirectLoop;
                    internal_events::fetch_refused(Some(&next), &reason);
                    return FetchOutcome::RefusedByPolicy(reason);
                }
                Some(Ok(next)) => url = next,
            }
        }
        let reason = RefusalReason::TooManyRedirects {
            max: self.settings.max_redirects,
        };
        internal_events::fetch_refused(Some(&url), &reason);
        FetchOutcome::RefusedByPolicy(reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every claim checked awaits a fetch, and its task holds (and moves, when it is spawned)
    /// the largest future it may await. A cache hit is the common case: the load, with its HTTP
    /// client, and the cache's coalescing are boxed on the miss path, so they stay out of it.
    #[test]
    fn a_fetch_future_does_not_carry_the_load() {
        let fetcher = Fetcher::new(FetchSettings::default()).expect("fetcher");
        let fetch = fetcher.fetch("http://127.0.0.1/page");
        let bytes = std::mem::size_of_val(&fetch);
        eprintln!("fetch future: {bytes} bytes");
        assert!(bytes <= 2048, "{bytes} bytes");
    }
}
