//! Search budgets: a number of iterations, a wall-clock time, or both (whichever runs out
//! first). Iteration budgets make searches reproducible with a seed. A budget is never spent
//! before the first iteration: every search runs at least one, so that it always has a move to
//! give, whatever the time (even zero). A budget may carry a `StopToken`: once stopped, the
//! budget counts as spent from the next iteration on (a serve request whose client left).

use std::time::{Duration, Instant};

use super::stop_token::StopToken;

/// How long a search may run.
#[derive(Clone, Debug, PartialEq)]
pub struct Budget {
    /// Iterations (Descent / UBFM iterations, MCTS simulations, alpha-beta nodes).
    pub iterations: Option<u64>,
    /// Wall-clock time.
    pub time: Option<Duration>,
    /// Spends the budget once stopped (`None`: only iterations and time do).
    pub stop: Option<StopToken>,
}

impl Budget {
    pub const fn iterations(n: u64) -> Budget {
        Budget {
            iterations: Some(n),
            time: None,
            stop: None,
        }
    }

    pub fn time(t: Duration) -> Budget {
        Budget {
            iterations: None,
            time: Some(t),
            stop: None,
        }
    }

    /// The same budget, spent as well once `stop` is stopped.
    pub fn until_stopped(self, stop: &StopToken) -> Budget {
        Budget {
            stop: Some(stop.clone()),
            ..self
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
            iterations: self.iterations,
            time: self.time,
            stop: self.stop.clone(),
            start: Instant::now(),
        }
    }
}

/// A running budget.
#[derive(Clone, Debug)]
pub struct BudgetClock {
    iterations: Option<u64>,
    time: Option<Duration>,
    stop: Option<StopToken>,
    start: Instant,
}

impl BudgetClock {
    /// Whether `done` iterations exhaust the budget (the clock is read only with a time budget),
    /// or its stop token is stopped. Never before the first iteration.
    #[inline]
    pub fn exhausted(&self, done: u64) -> bool {
        done > 0
            && (self.iterations.is_some_and(|n| done >= n)
                || self.time.is_some_and(|t| self.start.elapsed() >= t)
                || self.stop.as_ref().is_some_and(StopToken::is_stopped))
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopped_budget_is_spent_after_the_first_iteration_and_another_budget_is_not() {
        let stop = StopToken::new();
        let stopped = Budget::iterations(u64::MAX).until_stopped(&stop);
        let other = Budget::iterations(u64::MAX).until_stopped(&StopToken::new());
        let clock = stopped.start();
        assert!(!clock.exhausted(1));
        stop.stop();
        assert!(!clock.exhausted(0), "never before the first iteration");
        assert!(clock.exhausted(1));
        assert!(
            stopped.start().exhausted(1),
            "a budget started after the stop"
        );
        assert!(!other.start().exhausted(1), "a budget with its own token");
        assert!(
            !Budget::iterations(u64::MAX).start().exhausted(1),
            "one without a token"
        );
    }
}
