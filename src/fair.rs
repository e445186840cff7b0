//! Judging shared fairly between drafts: a draft's judgments take turns with every other
//! draft's, and each draft has a budget of judging time per process.
//!
//! The bounded pool ([`crate::parse_pool`]) hands its slots out first come, first served. One
//! draft inside every limit (a thousand claims of a hundred figures each, citing a page of ten
//! thousand figures) queues a thousand judgments of tens of milliseconds each, and every draft
//! published after it waits behind all of them: a clean draft was blocked `deadline_exceeded`
//! behind such a draft, and publishing the heavy one again kept the newsroom blocked.
//!
//! - [`FairGate`]: at most one judgment per pool slot is let through at once, and when one ends
//!   the next is taken from the draft after the last one served, round-robin over the drafts
//!   waiting: a clean draft's few judgments wait behind at most one of each other draft's.
//! - [`Budgets`]: each draft's judging time is added up; past `judge.max_draft_judge_ms` the
//!   draft's remaining checks are not judged, and it is blocked `limit_exceeded` saying so.
//!   The tally is per process (every verify instance gives a draft that much) and bounded.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::oneshot;

/// Who work is for: an article's revision.
pub type Owner = (String, u64);

/// Round-robin admission of work by owner, `slots` at a time.
#[derive(Debug)]
pub struct FairGate {
    state: Mutex<GateState>,
}

#[derive(Debug)]
struct GateState {
    free: usize,
    /// Each owner's waiting work, oldest first.
    waiting: HashMap<Owner, VecDeque<oneshot::Sender<()>>>,
    /// Owners with waiting work, in the order they are served next.
    turns: VecDeque<Owner>,
}

/// A place in the gate: given back when dropped, to the next owner's work.
#[derive(Debug)]
pub struct Admitted<'g> {
    gate: &'g FairGate,
}

impl Drop for Admitted<'_> {
    fn drop(&mut self) {
        self.gate.release();
    }
}

/// Work waiting for its turn: dropped before it is admitted, it gives back a place already handed
/// to it.
struct Waiting<'g> {
    gate: &'g FairGate,
    turn: Option<oneshot::Receiver<()>>,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if let Some(mut turn) = self.turn.take() {
            turn.close();
            if turn.try_recv().is_ok() {
                self.gate.release();
            }
        }
    }
}

impl FairGate {
    /// A gate letting `slots` pieces of work through at once.
    pub fn new(slots: usize) -> FairGate {
        FairGate {
            state: Mutex::new(GateState {
                free: slots.max(1),
                waiting: HashMap::new(),
                turns: VecDeque::new(),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Waits for `owner`'s turn, then holds a place until the returned guard is dropped.
    pub async fn admit(&self, owner: &Owner) -> Admitted<'_> {
        let turn = {
            let mut state = self.lock();
            if state.free > 0 && state.turns.is_empty() {
                state.free -= 1;
                return Admitted { gate: self };
            }
            let (tx, rx) = oneshot::channel();
            let queue = state.waiting.entry(owner.clone()).or_default();
            let first = queue.is_empty();
            queue.push_back(tx);
            if first {
                state.turns.push_back(owner.clone());
            }
            rx
        };
        // The place is handed over by `release`; a sender dropped without one (never) admits.
        // A caller that gives up (its deadline passed) after the place was handed to it gives
        // the place back, or the gate would lose it for good.
        let mut waiting = Waiting {
            gate: self,
            turn: Some(turn),
        };
        if let Some(turn) = waiting.turn.as_mut() {
            let _ = turn.await;
        }
        waiting.turn = None;
        Admitted { gate: self }
    }

    /// A place given back: to the next owner in turn with work still waiting, else freed.
    fn release(&self) {
        let mut state = self.lock();
        while let Some(owner) = state.turns.pop_front() {
            let Some(queue) = state.waiting.get_mut(&owner) else {
                continue;
            };
            let next = queue.pop_front();
            if queue.is_empty() {
                state.waiting.remove(&owner);
            } else {
                state.turns.push_back(owner);
            }
            // A waiter whose caller gave up has dropped its receiver: the place goes on.
            if let Some(tx) = next
                && tx.send(()).is_ok()
            {
                return;
            }
        }
        state.free += 1;
    }
}

/// Judging time spent per draft in this process, bounded in the drafts it remembers.
#[derive(Debug)]
pub struct Budgets {
    limit: Duration,
    spent: Mutex<SpentLedger>,
}

#[derive(Debug, Default)]
struct SpentLedger {
    by_owner: HashMap<Owner, Duration>,
    /// Owners in the order first seen, to forget the oldest past [`MAX_REMEMBERED`].
    order: VecDeque<Owner>,
}

/// Drafts whose judging time is remembered at most: a draft forgotten is one long decided.
const MAX_REMEMBERED: usize = 50_000;

impl Budgets {
    /// Budgets of `limit` each; a zero limit is no limit.
    pub fn new(limit: Duration) -> Budgets {
        Budgets {
            limit,
            spent: Mutex::new(SpentLedger::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SpentLedger> {
        self.spent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The budget each draft has.
    pub fn limit(&self) -> Duration {
        self.limit
    }

    /// Whether `owner` has spent its budget.
    pub fn spent(&self, owner: &Owner) -> bool {
        !self.limit.is_zero()
            && self
                .lock()
                .by_owner
                .get(owner)
                .is_some_and(|spent| *spent >= self.limit)
    }

    /// `owner` spent `took` more judging.
    pub fn charge(&self, owner: &Owner, took: Duration) {
        let mut ledger = self.lock();
        if !ledger.by_owner.contains_key(owner) {
            ledger.order.push_back(owner.clone());
            while ledger.order.len() > MAX_REMEMBERED {
                if let Some(oldest) = ledger.order.pop_front() {
                    ledger.by_owner.remove(&oldest);
                }
            }
        }
        *ledger.by_owner.entry(owner.clone()).or_default() += took;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// With one place, a draft that queued many pieces of work first and a draft that queued
    /// one later take turns: the later one's runs second, not after all of the first's.
    #[tokio::test]
    async fn drafts_take_turns_whatever_they_queued_first() {
        let gate = Arc::new(FairGate::new(1));
        let heavy: Owner = ("heavy".into(), 1);
        let clean: Owner = ("clean".into(), 1);
        let order = Arc::new(Mutex::new(Vec::new()));
        let first = gate.admit(&heavy).await;
        let mut tasks = Vec::new();
        for (i, owner) in std::iter::repeat_n(heavy.clone(), 5)
            .chain([clean.clone()])
            .enumerate()
        {
            let (gate, order) = (Arc::clone(&gate), Arc::clone(&order));
            tasks.push(tokio::spawn(async move {
                let _place = gate.admit(&owner).await;
                order.lock().expect("order").push((i, owner.0.clone()));
                tokio::task::yield_now().await;
            }));
            // Queued in this order.
            tokio::task::yield_now().await;
        }
        drop(first);
        for task in tasks {
            task.await.expect("task");
        }
        let served: Vec<String> = order
            .lock()
            .expect("order")
            .iter()
            .map(|(_, o)| o.clone())
            .collect();
        let clean_at = served.iter().position(|o| o == "clean").expect("served");
        assert!(
            clean_at <= 1,
            "the clean draft waited behind the heavy one's queue: {served:?}"
        );
    }

    /// A caller that gives up after its turn came (its deadline passed before it ran) gives the
    /// place back: the next caller is admitted at once.
    #[tokio::test]
    async fn a_turn_handed_to_a_caller_that_left_is_given_back() {
        let gate = FairGate::new(1);
        let a: Owner = ("a".into(), 1);
        let b: Owner = ("b".into(), 1);
        let first = gate.admit(&a).await;
        let mut waiting = Box::pin(gate.admit(&b));
        assert!(
            futures::poll!(waiting.as_mut()).is_pending(),
            "b waits its turn"
        );
        drop(first);
        // b's turn is handed over, but b left before taking it.
        drop(waiting);
        let next = tokio::time::timeout(Duration::from_secs(5), gate.admit(&a)).await;
        assert!(next.is_ok(), "the place handed to b was lost");
    }

    #[test]
    fn a_budget_is_spent_by_what_is_charged_to_its_draft_only() {
        let budgets = Budgets::new(Duration::from_millis(100));
        let heavy: Owner = ("heavy".into(), 1);
        let clean: Owner = ("clean".into(), 1);
        budgets.charge(&heavy, Duration::from_millis(60));
        assert!(!budgets.spent(&heavy));
        budgets.charge(&heavy, Duration::from_millis(60));
        assert!(budgets.spent(&heavy));
        assert!(!budgets.spent(&clean));
        assert!(!Budgets::new(Duration::ZERO).spent(&heavy), "no limit");
    }
}
