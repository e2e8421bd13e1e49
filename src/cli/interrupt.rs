//! Ctrl-C for long commands: the first asks the work to stop at its next safe point and keep
//! what is done; a second stops at once. `train` finishes and learns the games in play and
//! writes a checkpoint; `eval`, `tournament` and `ladder` finish the games in play and report
//! (and write) the games played; `experiment` does the first in training, and in its
//! evaluation keeps the matches finished.

use std::sync::atomic::{AtomicU8, Ordering};

/// What the first Ctrl-C stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Interruptible {
    /// A training run (`selfplay::run::stop_request`).
    Training = 1,
    /// Matches (`arena::match_stop`).
    Matches = 2,
}

static INTERRUPTIBLE: AtomicU8 = AtomicU8::new(0);

/// The exit status of a command stopped by Ctrl-C (128 + SIGINT, as a shell reports it).
pub const INTERRUPTED_EXIT: u8 = 130;

/// Installs the Ctrl-C handler for `work`.
pub fn stop_on_first_interrupt(work: Interruptible) {
    INTERRUPTIBLE.store(work as u8, Ordering::SeqCst);
    // SAFETY: the handler only stores atomics, writes and exits (async-signal-safe).
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_interrupt as *const () as libc::sighandler_t,
        );
    }
}

extern "C" fn on_interrupt(_: libc::c_int) {
    let training = INTERRUPTIBLE.load(Ordering::SeqCst) == Interruptible::Training as u8;
    let again = match training {
        true => crate::selfplay::run::stop_request::request_stop(),
        false => crate::arena::match_stop::request_stop(),
    };
    let message: &[u8] = match (training, again) {
        (true, false) => {
            b"\nCtrl-C: finishing the games in play, learning them and writing a checkpoint (Ctrl-C again to stop at once)\n"
        }
        (true, true) => {
            b"\nCtrl-C again: stopped at once; the games since the last checkpoint are lost\n"
        }
        (false, false) => {
            b"\nCtrl-C: finishing the games in play, then reporting and writing the games played (Ctrl-C again to stop at once)\n"
        }
        (false, true) => b"\nCtrl-C again: stopped at once; nothing more is written\n",
    };
    // SAFETY: write(2) and _exit(2) are async-signal-safe; the buffers are static.
    unsafe {
        libc::write(2, message.as_ptr().cast(), message.len());
        if again {
            libc::_exit(i32::from(INTERRUPTED_EXIT));
        }
    }
}

/// Whether training was stopped by Ctrl-C: the runs wrote their checkpoints and stopped.
pub fn training_interrupted() -> bool {
    crate::selfplay::run::stop_request::stop_requested()
}

/// Whether the matches were stopped by Ctrl-C: the report holds only the games played.
pub fn matches_interrupted() -> bool {
    crate::arena::match_stop::stop_requested()
}

/// The exit of a match command that played `played` of `planned` games: success, or, after a
/// Ctrl-C, a line saying what was kept and the interrupted status.
pub fn match_exit(played: u64, planned: u64, kept: &str) -> std::process::ExitCode {
    if !matches_interrupted() {
        return std::process::ExitCode::SUCCESS;
    }
    eprintln!("interrupted by Ctrl-C: {played} of {planned} games played; {kept}");
    std::process::ExitCode::from(INTERRUPTED_EXIT)
}

/// After a Ctrl-C before any game finished: nothing to report or write.
///
/// # Errors
/// Always, saying so (the caller exits with it).
pub fn refuse_empty(played: u64) -> anyhow::Result<()> {
    if played == 0 && matches_interrupted() {
        anyhow::bail!("interrupted by Ctrl-C before any game finished: nothing written");
    }
    Ok(())
}
