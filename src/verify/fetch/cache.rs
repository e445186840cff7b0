//! The result cache, which also coalesces concurrent fetches of one URL into one.
//!
//! A page is kept with its [`PageIndex`]: what the judge derives from the page alone, built once
//! by the load and shared by every claim that cites the page. Entries are weighed by their text
//! bytes and the index's heap bytes against `cache_capacity_bytes`, and expire after the TTL
//! [`classify::cache_ttl`] gives their outcome. Outcomes it says not to cache (anything a retry
//! could change) and pages whose text is over `max_entry_bytes` are handed to every caller that
//! waited for them, then dropped.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use moka::Expiry;
use moka::notification::RemovalCause;

use super::classify;
use super::settings::FetchSettings;
use crate::internal_events;
use factgate_core::fetched::FetchOutcome;
use factgate_core::judge::{PageIndex, Source};

/// Weight of an entry without page text: its URL and enum, roughly.
const SMALL_ENTRY_BYTES: usize = 64;

/// A fetch outcome and, for a page, its index.
#[derive(Debug, Clone)]
pub struct Entry {
    pub outcome: Arc<FetchOutcome>,
    /// The judge's index of the page; `None` for anything but a page.
    pub index: Option<Arc<PageIndex>>,
    ttl: Duration,
}

impl Entry {
    /// [`Entry::new`] on the bounded pool ([`crate::parse_pool`]): indexing a page is CPU work
    /// (milliseconds for a long page) that the runtime's workers, fetching and serving, should
    /// not wait on, and that counts against the pool's one-per-core bound like parsing it.
    async fn indexed(outcome: FetchOutcome, ttl: Duration) -> Entry {
        if !matches!(outcome, FetchOutcome::Ok(_)) {
            return Entry::new(outcome, ttl);
        }
        match crate::parse_pool::run_bounded(move |_| Entry::new(outcome, ttl)).await {
            Ok(entry) => entry,
            // Only a panic in indexing gets here: it is the caller's to see.
            Err(err) => panic!("indexing the page failed: {err}"),
        }
    }

    /// `outcome` with the index of its page, if it is one.
    fn new(outcome: FetchOutcome, ttl: Duration) -> Entry {
        let index = match &outcome {
            FetchOutcome::Ok(page) => Some(Arc::new(PageIndex::of(Source {
                text: &page.text,
                reviews: &page.claim_reviews,
                furniture: &page.furniture,
            }))),
            _ => None,
        };
        Entry {
            outcome: Arc::new(outcome),
            index,
            ttl,
        }
    }

    fn weight(&self) -> usize {
        self.index.as_ref().map_or(0, |i| i.heap_bytes()) + self.outcome_weight()
    }

    fn outcome_weight(&self) -> usize {
        match &*self.outcome {
            FetchOutcome::Ok(page) => {
                page.text.len()
                    + page.final_url.len()
                    + page.title.as_ref().map_or(0, String::len)
                    + page.furniture.len()
                    + page.page_starts.len() * std::mem::size_of::<usize>()
                    + page
                        .claim_reviews
                        .iter()
                        .map(|r| r.claim_reviewed.len() + SMALL_ENTRY_BYTES)
                        .sum::<usize>()
                    + SMALL_ENTRY_BYTES
            }
            _ => SMALL_ENTRY_BYTES,
        }
    }
}

/// Each entry lives for the TTL chosen when it was stored.
struct PerEntryTtl;

impl Expiry<String, Entry> for PerEntryTtl {
    fn expire_after_create(&self, _key: &String, entry: &Entry, _at: Instant) -> Option<Duration> {
        Some(entry.ttl)
    }
}

/// A byte-weighted cache of fetch outcomes keyed by URL.
#[derive(Clone)]
pub struct ResultCache {
    inner: moka::future::Cache<String, Entry>,
    settings: Arc<FetchSettings>,
}

impl ResultCache {
    /// An empty cache sized by `settings`.
    pub fn new(settings: Arc<FetchSettings>) -> Self {
        let inner = moka::future::Cache::builder()
            .max_capacity(settings.cache_capacity_bytes)
            .weigher(|key: &String, entry: &Entry| {
                u32::try_from(key.len() + entry.weight()).unwrap_or(u32::MAX)
            })
            .expire_after(PerEntryTtl)
            .eviction_listener(|_key, _entry, cause| match cause {
                RemovalCause::Size => internal_events::cache_evicted("size"),
                RemovalCause::Expired => internal_events::cache_evicted("expired"),
                // Replaced or removed on purpose: not an eviction.
                RemovalCause::Replaced | RemovalCause::Explicit => {}
            })
            .build();
        Self { inner, settings }
    }

    /// The cached entry for `key`, or the outcome of `load` with its page's index, run once
    /// however many callers ask for `key` at the same time. The flag is true when the entry was
    /// not loaded by this call.
    pub async fn get_or_load<L, F>(&self, key: String, load: L) -> (Entry, bool)
    where
        L: FnOnce() -> F,
        F: Future<Output = FetchOutcome>,
    {
        // A hit, the common case, is answered without the load and its coalescing: their
        // futures are kilobytes (moka's entry API above all), and a caller's task holds and
        // moves the largest future it may await, for every claim checked.
        if let Some(entry) = self.inner.get(&key).await {
            internal_events::cache_lookup(true, self.inner.weighted_size());
            return (entry, true);
        }
        Box::pin(self.load_once(key, load())).await
    }

    /// The miss path of [`ResultCache::get_or_load`]: another caller may have loaded `key`
    /// meanwhile, or be loading it, and this caller then shares that load.
    async fn load_once<F>(&self, key: String, load: F) -> (Entry, bool)
    where
        F: Future<Output = FetchOutcome>,
    {
        let settings = &self.settings;
        // Set by the one caller whose load runs; every other caller was answered without one.
        let loaded = AtomicBool::new(false);
        let loaded_here = &loaded;
        let init = async move {
            loaded_here.store(true, Ordering::Relaxed);
            let outcome = load.await;
            let Some(ttl) = classify::cache_ttl(&outcome, settings) else {
                // Not cached, but indexed once for every caller coalesced onto this load.
                return Err(Entry::indexed(outcome, Duration::ZERO).await);
            };
            let entry = Entry::indexed(outcome, ttl).await;
            // The cap is on the page as fetched; its index weighs in the budget beside it.
            if entry.outcome_weight() as u64 <= settings.max_entry_bytes {
                Ok(entry)
            } else {
                Err(entry)
            }
        };
        let entry: Entry = match self.inner.entry(key).or_try_insert_with(init).await {
            Ok(entry) => entry.into_value(),
            // Not cached: every coalesced caller shares this one outcome and index.
            Err(entry) => (*entry).clone(),
        };
        let from_cache = !loaded.load(Ordering::Relaxed);
        internal_events::cache_lookup(from_cache, self.inner.weighted_size());
        (entry, from_cache)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use factgate_core::fetched::Page;

    fn page(text: &str) -> FetchOutcome {
        FetchOutcome::Ok(Page {
            final_url: "http://127.0.0.1/".to_owned(),
            status: 200,
            content_type: "text/html".to_owned(),
            text: text.to_owned(),
            title: None,
            claim_reviews: Vec::new(),
            furniture: String::new(),
            page_starts: Vec::new(),
        })
    }

    #[tokio::test]
    async fn entries_past_the_capacity_are_evicted_and_counted() {
        let metrics = crate::metrics::metrics();
        let evictions_before = metrics.cache_evictions.get();
        let settings = FetchSettings {
            cache_capacity_bytes: 1_000,
            ..FetchSettings::default()
        };
        let cache = ResultCache::new(Arc::new(settings));
        for i in 0..10 {
            let text = "x".repeat(300);
            let (_, from_cache) = cache
                .get_or_load(
                    format!("http://127.0.0.1/{i}"),
                    || async move { page(&text) },
                )
                .await;
            assert!(!from_cache, "a new URL is loaded");
        }
        cache.inner.run_pending_tasks().await;
        assert!(cache.inner.weighted_size() <= 1_000);
        // Other tests share the process-wide counter, so only a lower bound holds.
        assert!(metrics.cache_evictions.get() >= evictions_before + 6);
    }

    #[tokio::test]
    async fn a_page_is_indexed_once_and_its_index_weighs_in_the_budget() {
        let cache = ResultCache::new(Arc::new(FetchSettings::default()));
        let text = "The Pro plan costs $9 a month. It launched in 2021 in Berlin.\n".repeat(20);
        let key = "http://127.0.0.1/plans".to_owned();
        let load = || {
            let text = text.clone();
            async move { page(&text) }
        };
        let (first, second) = tokio::join!(
            cache.get_or_load(key.clone(), load),
            cache.get_or_load(key.clone(), load),
        );
        let (third, from_cache) = cache.get_or_load(key.clone(), load).await;
        assert!(from_cache);
        let index = first.0.index.clone().expect("a page is indexed");
        assert_eq!(index.text(), text);
        // Concurrent callers and later ones share the one index built by the load.
        for other in [&second.0, &third] {
            let other = other.index.as_ref().expect("a page is indexed");
            assert!(Arc::ptr_eq(&index, other));
        }
        cache.inner.run_pending_tasks().await;
        let weighed = cache.inner.weighted_size() as usize;
        assert!(weighed >= text.len() + index.heap_bytes(), "{weighed}");
        assert!(index.heap_bytes() > text.len());
        // What is not a page has no index.
        let (gone, _) = cache
            .get_or_load("http://127.0.0.1/gone".to_owned(), || async {
                FetchOutcome::NotFound { status: 404 }
            })
            .await;
        assert!(gone.index.is_none());
    }

    #[tokio::test]
    async fn callers_coalesced_onto_an_uncached_load_did_not_load_it() {
        let cache = ResultCache::new(Arc::new(FetchSettings::default()));
        let slow_503 = || async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            FetchOutcome::ServerError {
                status: 503,
                retry_after: None,
            }
        };
        let key = "http://127.0.0.1/busy".to_owned();
        let (first, second) = tokio::join!(
            cache.get_or_load(key.clone(), slow_503),
            cache.get_or_load(key.clone(), slow_503),
        );
        let mut flags = [first.1, second.1];
        flags.sort_unstable();
        assert_eq!(flags, [false, true], "one load, one caller answered by it");
        // Not cached: the next caller loads again.
        let (_, third) = cache.get_or_load(key, slow_503).await;
        assert!(!third);
    }
}
