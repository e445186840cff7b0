//! The bounded pool for CPU-heavy work: a draft's extraction, a fetched page's parsing and
//! indexing, and judging a claim against its page run on tokio's blocking threads, at most one
//! per core at once, never on the async worker threads that read Kafka, serve `/healthz` and
//! drive every other draft.
//!
//! A slot is held until the work itself ends, not only until its caller stops waiting: work whose
//! caller gave up (its deadline passed) is told to stop (the flag it is given), and until it does
//! it still counts against the bound. So however slow one draft's work is, at most one core per
//! slot is busy with it, and the runtime's threads stay free. What bounds the time of one piece
//! of work is the per-draft and per-claim limits (`[extract]`) and the judge's own caps.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock};

use tokio::sync::Semaphore;

use factgate_core::text::markup::Cancelled;

/// Parses running at once in the process: one per core, so parsing never takes every thread of
/// the blocking pool nor more cores than there are.
static PARSE_SLOTS: LazyLock<Arc<Semaphore>> = LazyLock::new(|| Arc::new(Semaphore::new(slots())));

/// How many pieces of work may run on the pool at once (one per core).
pub fn slots() -> usize {
    std::thread::available_parallelism()
        .map(usize::from)
        .unwrap_or(2)
}

/// Pieces of work running on the pool right now (those whose caller left included).
pub fn busy() -> usize {
    slots().saturating_sub(PARSE_SLOTS.available_permits())
}

/// Sets the flag when dropped: the future awaiting the work was dropped (its time ran out), so
/// the work should stop.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs CPU-heavy `work` on tokio's blocking pool, at most one per core at once, and tells it to
/// stop (the flag it is given) as soon as the returned future is dropped: a caller whose time
/// runs out (a `timeout` around it) does not leave the work running where the work looks at the
/// flag. Work that does not look at it runs to its end, and keeps its slot until then.
///
/// # Errors
/// [`Cancelled`] when the work panicked or the runtime shut down.
pub async fn run_bounded<T, F>(work: F) -> Result<T, Cancelled>
where
    F: FnOnce(&AtomicBool) -> T + Send + 'static,
    T: Send + 'static,
{
    run_on(Arc::clone(&PARSE_SLOTS), work).await
}

/// [`run_bounded`] with the slots of `slots`.
async fn run_on<T, F>(slots: Arc<Semaphore>, work: F) -> Result<T, Cancelled>
where
    F: FnOnce(&AtomicBool) -> T + Send + 'static,
    T: Send + 'static,
{
    // The semaphore is never closed, so acquiring fails only if it were.
    let slot = slots.acquire_owned().await.map_err(|_| Cancelled)?;
    let cancel = Arc::new(AtomicBool::new(false));
    let _guard = CancelOnDrop(Arc::clone(&cancel));
    let flag = Arc::clone(&cancel);
    tokio::task::spawn_blocking(move || {
        // Given back when the work ends, whether or not anyone still waits for it.
        let _slot = slot;
        work(&flag)
    })
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

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn work_that_runs_on_after_its_caller_left_keeps_its_slot() {
        // One slot: the second piece of work may start only once the first has ended, even
        // though the first one's caller stopped waiting for it long before.
        let slots = Arc::new(Semaphore::new(1));
        let first_ended = Arc::new(AtomicBool::new(false));
        let ended = Arc::clone(&first_ended);
        let abandoned = tokio::time::timeout(
            std::time::Duration::from_millis(20),
            run_on(Arc::clone(&slots), move |_ignored_flag| {
                std::thread::sleep(std::time::Duration::from_millis(300));
                ended.store(true, Ordering::SeqCst);
            }),
        )
        .await;
        assert!(abandoned.is_err(), "the caller gave up first");
        let seen = Arc::clone(&first_ended);
        let started_after_end = run_on(slots, move |_| seen.load(Ordering::SeqCst))
            .await
            .expect("the second piece of work runs");
        assert!(
            started_after_end,
            "the second piece of work started while the first still held a core"
        );
    }
}
