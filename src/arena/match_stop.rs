//! A request to stop the matches being played (the first Ctrl-C of `eval`, `tournament` and
//! `ladder`): no new game starts, the games in play finish, no new pairing starts, and the
//! command reports and keeps the games played. The flag is process-wide, set from a signal
//! handler (an atomic store is all a handler may do).

use std::sync::atomic::{AtomicBool, Ordering};

static STOP_REQUESTED: AtomicBool = AtomicBool::new(false);

/// Asks the matches to stop after the games in play; true if it had been asked already.
pub fn request_stop() -> bool {
    STOP_REQUESTED.swap(true, Ordering::SeqCst)
}

/// Whether a stop was asked for.
pub fn stop_requested() -> bool {
    STOP_REQUESTED.load(Ordering::Relaxed)
}
