//! Cancelling the searches of one thread from another: `descent serve` runs an agent's search
//! under a flag that it sets when the client who asked is gone, and every budget on that
//! thread counts as spent from the next iteration on (the search still returns a move).
//! A thread with no flag (every other caller) pays one thread-local read per iteration.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

thread_local! {
    static CANCEL: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Runs `work` with the searches of this thread cancelled once `flag` is set.
pub fn cancellable<R>(flag: Arc<AtomicBool>, work: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            CANCEL.with(|c| *c.borrow_mut() = None);
        }
    }
    CANCEL.with(|c| *c.borrow_mut() = Some(flag));
    let _reset = Reset;
    work()
}

/// Whether the searches of this thread are cancelled.
#[inline]
pub fn cancelled() -> bool {
    CANCEL.with(|c| {
        c.borrow()
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Budget;

    #[test]
    fn a_cancelled_budget_is_spent_after_the_first_iteration_on_its_thread_only() {
        let flag = Arc::new(AtomicBool::new(false));
        let budget = Budget::iterations(u64::MAX);
        cancellable(flag.clone(), || {
            let clock = budget.start();
            assert!(!clock.exhausted(1));
            flag.store(true, Ordering::Relaxed);
            assert!(!clock.exhausted(0), "never before the first iteration");
            assert!(clock.exhausted(1));
            std::thread::scope(|s| {
                s.spawn(|| assert!(!budget.start().exhausted(1), "another thread"));
            });
        });
        assert!(!budget.start().exhausted(1), "after cancellable returns");
    }
}
