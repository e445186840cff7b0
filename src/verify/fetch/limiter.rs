//! Politeness: a per-host and a global request rate, and a cap on requests in flight per host.
//!
//! The rate limiters run on tokio's clock ([`TokioClock`]), so a test with `tokio::time::pause`
//! controls them like every other timer.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use governor::clock::Clock;
use governor::middleware::NoOpMiddleware;
use governor::nanos::Nanos;
use governor::state::keyed::DashMapStateStore;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::FetchError;
use super::settings::FetchSettings;

/// Hosts whose limiter state and semaphore are kept; past it, idle hosts are forgotten.
const MAX_TRACKED_HOSTS: u64 = 10_000;

/// A governor clock reading tokio's time, measured from the limiter's creation.
#[derive(Debug, Clone)]
pub struct TokioClock {
    start: tokio::time::Instant,
}

impl Clock for TokioClock {
    type Instant = Nanos;

    fn now(&self) -> Nanos {
        Nanos::from(tokio::time::Instant::now().duration_since(self.start))
    }
}

type HostLimiter =
    RateLimiter<String, DashMapStateStore<String>, TokioClock, NoOpMiddleware<Nanos>>;
type GlobalLimiter = RateLimiter<NotKeyed, InMemoryState, TokioClock, NoOpMiddleware<Nanos>>;

/// The politeness gate every request passes through.
#[derive(Debug)]
pub struct Limiter {
    clock: TokioClock,
    per_host: HostLimiter,
    global: GlobalLimiter,
    /// One semaphore per host, in a bounded cache. A semaphore evicted while its permits are held
    /// is replaced by a fresh one, so the cap can be exceeded briefly for a host idle long enough
    /// to be evicted yet busy; with the capacity and idle time below that needs >10,000 hosts.
    semaphores: moka::future::Cache<String, Arc<Semaphore>>,
    per_host_concurrency: usize,
    waits: AtomicU64,
}

fn non_zero(value: u32, key: &'static str) -> Result<NonZeroU32, FetchError> {
    NonZeroU32::new(value).ok_or(FetchError::InvalidSetting {
        key,
        message: "must be at least 1".to_owned(),
    })
}

/// A quota of `rps` requests per second, fractions allowed (0.5: one every two seconds).
fn steady_rate(rps: f64, key: &'static str) -> Result<Quota, FetchError> {
    let invalid = || FetchError::InvalidSetting {
        key,
        message: format!("must be a positive number of requests per second, not {rps}"),
    };
    if !(rps.is_finite() && rps > 0.0) {
        return Err(invalid());
    }
    Quota::with_period(Duration::from_secs_f64(1.0 / rps)).ok_or_else(invalid)
}

impl Limiter {
    /// A limiter for `settings`' rates and concurrency.
    ///
    /// # Errors
    /// [`FetchError::InvalidSetting`] when a rate, burst or concurrency is zero.
    pub fn new(settings: &FetchSettings) -> Result<Self, FetchError> {
        let clock = TokioClock {
            start: tokio::time::Instant::now(),
        };
        let host_quota = steady_rate(settings.per_host_rps, "per_host_rps")?
            .allow_burst(non_zero(settings.per_host_burst, "per_host_burst")?);
        // The global rate may burst by one second's worth, as `Quota::per_second` would.
        let global_burst = settings.global_rps.ceil().clamp(1.0, f64::from(u32::MAX)) as u32;
        let global_quota = steady_rate(settings.global_rps, "global_rps")?
            .allow_burst(non_zero(global_burst, "global_rps")?);
        if settings.per_host_concurrency == 0 {
            return Err(FetchError::InvalidSetting {
                key: "per_host_concurrency",
                message: "must be at least 1".to_owned(),
            });
        }
        Ok(Self {
            per_host: RateLimiter::dashmap_with_clock(host_quota, clock.clone()),
            global: RateLimiter::direct_with_clock(global_quota, clock.clone()),
            clock,
            semaphores: moka::future::Cache::builder()
                .max_capacity(MAX_TRACKED_HOSTS)
                .time_to_idle(Duration::from_secs(600))
                .build(),
            per_host_concurrency: settings.per_host_concurrency,
            waits: AtomicU64::new(0),
        })
    }

    /// Waits until a request to `host` may go out: a free slot for the host first (so queued
    /// requests do not burn rate tokens), then the host's rate, then the global rate. The request
    /// holds the returned permit while it runs.
    pub async fn acquire(&self, host: &str) -> OwnedSemaphorePermit {
        let concurrency = self.per_host_concurrency;
        let semaphore = self
            .semaphores
            .get_with(host.to_owned(), async move {
                Arc::new(Semaphore::new(concurrency))
            })
            .await;
        // Safe: these semaphores are never closed, and only a closed one fails to acquire.
        let permit = semaphore
            .acquire_owned()
            .await
            .expect("host semaphores are never closed");
        if self.per_host.len() as u64 > MAX_TRACKED_HOSTS {
            self.per_host.retain_recent();
        }
        let key = host.to_owned();
        let started = tokio::time::Instant::now();
        let mut waited = false;
        while let Err(not_until) = self.per_host.check_key(&key) {
            waited = true;
            tokio::time::sleep(not_until.wait_time_from(self.clock.now())).await;
        }
        while let Err(not_until) = self.global.check() {
            waited = true;
            tokio::time::sleep(not_until.wait_time_from(self.clock.now())).await;
        }
        if waited {
            self.waits.fetch_add(1, Ordering::Relaxed);
        }
        crate::internal_events::rate_limit_passed(host, started.elapsed());
        permit
    }

    /// How many requests had to wait for a rate limit so far.
    pub fn waits(&self) -> u64 {
        self.waits.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(rps: f64, burst: u32, concurrency: usize) -> FetchSettings {
        FetchSettings {
            per_host_rps: rps,
            per_host_burst: burst,
            global_rps: 1000.0,
            per_host_concurrency: concurrency,
            ..FetchSettings::default()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn requests_to_one_host_are_spaced_by_its_rate() {
        let limiter = Limiter::new(&settings(2.0, 1, 10)).expect("valid settings");
        let start = tokio::time::Instant::now();
        for _ in 0..5 {
            drop(limiter.acquire("example.com").await);
        }
        // Burst 1 at 2/s: the 2nd..5th wait 0.5 s each.
        assert_eq!(start.elapsed(), Duration::from_millis(2000));
        assert_eq!(limiter.waits(), 4);
        // Another host has its own budget.
        let before = tokio::time::Instant::now();
        drop(limiter.acquire("example.org").await);
        assert_eq!(before.elapsed(), Duration::ZERO);
    }

    #[tokio::test(start_paused = true)]
    async fn the_burst_goes_out_at_once() {
        let limiter = Limiter::new(&settings(1.0, 3, 10)).expect("valid settings");
        for _ in 0..3 {
            drop(limiter.acquire("example.com").await);
        }
        assert_eq!(limiter.waits(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn concurrency_per_host_is_capped() {
        let limiter = Limiter::new(&settings(1000.0, 1000, 2)).expect("valid settings");
        let first = limiter.acquire("example.com").await;
        let _second = limiter.acquire("example.com").await;
        let third = tokio::time::timeout(Duration::from_secs(1), limiter.acquire("example.com"));
        assert!(third.await.is_err(), "a third request must wait for a slot");
        drop(first);
        let third = tokio::time::timeout(Duration::from_secs(1), limiter.acquire("example.com"));
        assert!(third.await.is_ok());
    }

    #[test]
    fn zero_rates_are_rejected() {
        assert!(Limiter::new(&settings(0.0, 1, 1)).is_err());
        assert!(Limiter::new(&settings(1.0, 1, 0)).is_err());
    }
}
