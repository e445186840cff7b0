//! The result cache, which also coalesces concurrent fetches of one URL into one.
//!
//! Entries are weighed by their text bytes against `cache_capacity_bytes`, and expire after the
//! TTL [`classify::cache_ttl`] gives their outcome. Outcomes it says not to cache (anything a
//! retry could change) and pages over `max_entry_bytes` are handed to every caller that waited
//! for them, then dropped.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use moka::Expiry;
use moka::notification::RemovalCause;

use super::classify;
use super::log;
use super::outcome::FetchOutcome;
use super::settings::FetchSettings;

/// Weight of an entry without page text: its URL and enum, roughly.
const SMALL_ENTRY_BYTES: usize = 64;

#[derive(Debug, Clone)]
struct Entry {
    outcome: Arc<FetchOutcome>,
    ttl: Duration,
}

impl Entry {
    fn weight(&self) -> usize {
        match &*self.outcome {
            FetchOutcome::Ok(page) => {
                page.text.len()
                    + page.final_url.len()
                    + page.title.as_ref().map_or(0, String::len)
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
                RemovalCause::Size => log::cache_evicted("size"),
                RemovalCause::Expired => log::cache_evicted("expired"),
                // Replaced or removed on purpose: not an eviction.
                RemovalCause::Replaced | RemovalCause::Explicit => {}
            })
            .build();
        Self { inner, settings }
    }

    /// The cached outcome for `key`, or the outcome of `load`, run once however many callers ask
    /// for `key` at the same time. The flag is true when the outcome was not loaded by this call.
    pub async fn get_or_load<F>(&self, key: String, load: F) -> (Arc<FetchOutcome>, bool)
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
                return Err(Arc::new(outcome));
            };
            let entry = Entry {
                outcome: Arc::new(outcome),
                ttl,
            };
            if entry.weight() as u64 <= settings.max_entry_bytes {
                Ok(entry)
            } else {
                Err(entry.outcome)
            }
        };
        let outcome: Arc<FetchOutcome> = match self.inner.entry(key).or_try_insert_with(init).await
        {
            Ok(entry) => entry.into_value().outcome,
            // Not cached: every coalesced caller shares this one outcome.
            Err(outcome) => Arc::clone(&outcome),
        };
        let from_cache = !loaded.load(Ordering::Relaxed);
        log::cache_lookup(from_cache, self.inner.weighted_size());
        (outcome, from_cache)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::fetch::Page;

    fn page(text: &str) -> FetchOutcome {
        FetchOutcome::Ok(Page {
            final_url: "http://127.0.0.1/".to_owned(),
            status: 200,
            content_type: "text/html".to_owned(),
            text: text.to_owned(),
            title: None,
            claim_reviews: Vec::new(),
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
                .get_or_load(format!("http://127.0.0.1/{i}"), async move { page(&text) })
                .await;
            assert!(!from_cache, "a new URL is loaded");
        }
        cache.inner.run_pending_tasks().await;
        assert!(cache.inner.weighted_size() <= 1_000);
        // Other tests share the process-wide counter, so only a lower bound holds.
        assert!(metrics.cache_evictions.get() >= evictions_before + 6);
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
            cache.get_or_load(key.clone(), slow_503()),
            cache.get_or_load(key.clone(), slow_503()),
        );
        let mut flags = [first.1, second.1];
        flags.sort_unstable();
        assert_eq!(flags, [false, true], "one load, one caller answered by it");
        // Not cached: the next caller loads again.
        let (_, third) = cache.get_or_load(key, slow_503()).await;
        assert!(!third);
    }
}
