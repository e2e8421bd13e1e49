//! A request to stop a training run early (the first Ctrl-C of `descent train`): the run hands
//! out no new game, finishes and learns the games in play, writes a checkpoint and says so. The
//! flag is process-wide, set from a signal handler (an atomic store is all a handler may do).

use std::sync::atomic::{AtomicBool, Ordering};

static STOP_REQUESTED: AtomicBool = AtomicBool::new(false);

/// Asks the run to stop after the games in play; true if it had been asked already.
pub fn request_stop() -> bool {
    STOP_REQUESTED.swap(true, Ordering::SeqCst)
}

/// Whether a stop was asked for.
pub fn stop_requested() -> bool {
    STOP_REQUESTED.load(Ordering::Relaxed)
}
