//! `StopToken`: a request to stop, handed down to the work it stops — a training run (its
//! Ctrl-C or SIGTERM: no new game, the games in play finish and are learned), a match (no new
//! game), a search (its budget counts as spent from the next iteration on; it still returns a
//! move: a serve request whose client left, or whose turn's time ran out). Each holder stops
//! only what was given its token: two serve searches, a match and a run in one process are
//! stopped apart. A child token stops with its parent as well as on its own.
//!
//! The one process-wide state is the signal flag: a signal handler may do nothing but an atomic
//! store (`stop_on_signal`), and the tokens made by `StopToken::on_signal` read it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the process's handler of Ctrl-C, SIGTERM and SIGHUP (`cli::interrupt`).
static SIGNALLED: AtomicBool = AtomicBool::new(false);

/// Stops every token made by `StopToken::on_signal` (and their children); true if a signal had
/// done so already. Async-signal-safe: one atomic swap.
pub fn stop_on_signal() -> bool {
    SIGNALLED.swap(true, Ordering::SeqCst)
}

/// A request to stop, shared by its clones; see the module comment.
#[derive(Clone, Debug, Default)]
pub struct StopToken(Arc<StopState>);

#[derive(Debug, Default)]
struct StopState {
    stopped: AtomicBool,
    /// Also stopped by the process's signal.
    on_signal: bool,
    parent: Option<StopToken>,
}

impl StopToken {
    /// A token only `stop` stops.
    pub fn new() -> StopToken {
        StopToken::default()
    }

    /// A token that the process's first Ctrl-C, SIGTERM or SIGHUP stops (or `stop`).
    pub fn on_signal() -> StopToken {
        StopToken(Arc::new(StopState {
            on_signal: true,
            ..StopState::default()
        }))
    }

    /// A token stopped by its own `stop` or by this one's.
    pub fn child(&self) -> StopToken {
        StopToken(Arc::new(StopState {
            parent: Some(self.clone()),
            ..StopState::default()
        }))
    }

    /// Asks the holders to stop; true if it had been asked already.
    pub fn stop(&self) -> bool {
        self.0.stopped.swap(true, Ordering::SeqCst)
    }

    /// Whether a stop was asked for, of this token, a parent or (for `on_signal`) the process.
    #[inline]
    pub fn is_stopped(&self) -> bool {
        let state = &self.0;
        state.stopped.load(Ordering::Relaxed)
            || (state.on_signal && SIGNALLED.load(Ordering::Relaxed))
            || state.parent.as_ref().is_some_and(StopToken::is_stopped)
    }
}

/// Two tokens are equal when they are clones of one.
impl PartialEq for StopToken {
    fn eq(&self, other: &StopToken) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_stops_its_clones_and_children_and_nothing_else() {
        let run = StopToken::new();
        let search = run.child();
        let other = StopToken::new();
        let clone = search.clone();
        assert!(!search.is_stopped());
        assert!(!clone.stop(), "not asked before");
        assert!(search.is_stopped() && clone.is_stopped());
        assert!(!run.is_stopped(), "a child does not stop its parent");
        let sibling = run.child();
        run.stop();
        assert!(sibling.is_stopped(), "a parent stops its children");
        assert!(!other.is_stopped());
        assert_eq!(search, clone);
        assert_ne!(search, sibling);
    }
}
