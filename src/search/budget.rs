//! Search budgets: a number of iterations, a wall-clock time, or both (whichever runs out
//! first). Iteration budgets make searches reproducible with a seed. A budget is never spent
//! before the first iteration: every search runs at least one, so that it always has a move to
//! give, whatever the time (even zero).

use std::time::{Duration, Instant};

/// How long a search may run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// Iterations (Descent / UBFM iterations, MCTS simulations, alpha-beta nodes).
    pub iterations: Option<u64>,
    /// Wall-clock time.
    pub time: Option<Duration>,
}

impl Budget {
    pub fn iterations(n: u64) -> Budget {
        Budget {
            iterations: Some(n),
            time: None,
        }
    }

    pub fn time(t: Duration) -> Budget {
        Budget {
            iterations: None,
            time: Some(t),
        }
    }

    /// Starts the clock.
    ///
    /// # Panics
    /// If the budget has neither iterations nor a time (the constructors never build one).
    pub fn start(&self) -> BudgetClock {
        assert!(
            self.iterations.is_some() || self.time.is_some(),
            "a search budget needs iterations or a time"
        );
        BudgetClock {
            budget: *self,
            start: Instant::now(),
        }
    }
}

/// A running budget.
#[derive(Clone, Copy, Debug)]
pub struct BudgetClock {
    budget: Budget,
    start: Instant,
}

impl BudgetClock {
    /// Whether `done` iterations exhaust the budget (the clock is read only with a time budget),
    /// or the thread's searches are cancelled (`search::cancel`). Never before the first
    /// iteration.
    #[inline]
    pub fn exhausted(&self, done: u64) -> bool {
        done > 0
            && (self.budget.iterations.is_some_and(|n| done >= n)
                || self.budget.time.is_some_and(|t| self.start.elapsed() >= t)
                || super::cancel::cancelled())
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
}
