//! The bounded parsing pool: CPU-heavy parsing (a draft's extraction, a fetched page's HTML) runs
//! on tokio's blocking pool, at most one per core at once, and stops when its caller gives up.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock};

use tokio::sync::Semaphore;

pub use factgate_core::text::markup::Cancelled;

/// Parses running at once in the process: one per core, so parsing never takes every thread of
/// the blocking pool nor more cores than there are.
static PARSE_SLOTS: LazyLock<Semaphore> = LazyLock::new(|| {
    Semaphore::new(
        std::thread::available_parallelism()
            .map(usize::from)
            .unwrap_or(2),
    )
});

/// Sets the flag when dropped: the future awaiting the work was dropped (its time ran out), so
/// the work should stop.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs CPU-heavy parsing `work` on tokio's blocking pool, at most one per core at once, and
/// tells it to stop (the flag it is given) as soon as the returned future is dropped: a caller
/// whose time runs out (a `timeout` around it) does not leave the work running.
///
/// # Errors
/// [`Cancelled`] when the work panicked or the runtime shut down.
pub async fn run_bounded<T, F>(work: F) -> Result<T, Cancelled>
where
    F: FnOnce(&AtomicBool) -> T + Send + 'static,
    T: Send + 'static,
{
    // The semaphore is never closed, so acquiring fails only if it were.
    let _slot = PARSE_SLOTS.acquire().await.map_err(|_| Cancelled)?;
    let cancel = Arc::new(AtomicBool::new(false));
    let _guard = CancelOnDrop(Arc::clone(&cancel));
    let flag = Arc::clone(&cancel);
    tokio::task::spawn_blocking(move || work(&flag))
        .await
        .map_err(|_| Cancelled)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn work_whose_caller_timed_out_is_told_to_stop() {
        let stopped = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&stopped);
        let outcome = tokio::time::timeout(
            std::time::Duration::from_millis(50),
            run_bounded(move |cancel| {
                while !cancel.load(Ordering::Relaxed) {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                seen.store(true, Ordering::Relaxed);
            }),
        )
        .await;
        assert!(outcome.is_err(), "the caller gave up first");
        let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !stopped.load(Ordering::Relaxed) {
            assert!(
                std::time::Instant::now() < until,
                "the work went on after its caller left"
            );
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        // A panic in the work is an error, not a crash.
        assert!(run_bounded(|_| -> () { panic!("a defect") }).await.is_err());
    }
}
