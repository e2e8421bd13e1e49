//! Ctrl-C, SIGTERM (what systemd, Docker and SLURM send) and SIGHUP (a closed terminal or SSH
//! session, unless the command runs under `nohup`) for long commands: the first asks
//! the work to stop at its next safe point and keep what is done; a second stops at once.
//! `train` finishes and learns the games in play and writes a checkpoint; `eval`, `tournament`
//! and `ladder` finish the games in play and report (and write) the games played;
//! `experiment` does the first in training, and in its evaluation keeps the matches finished.
//! The exit status is 128 + the signal's number: 130 for Ctrl-C, 143 for SIGTERM, 129 for
//! SIGHUP.

use std::sync::atomic::{AtomicI32, AtomicU8, Ordering};

use crate::search::StopToken;
use crate::search::stop_token::stop_on_signal;

/// What the first Ctrl-C stops (what the message says it does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Interruptible {
    /// A training run: the games in play are learned and checkpointed.
    Training = 1,
    /// Matches: the games in play finish, the report keeps the games played.
    Matches = 2,
    /// A worker of a distributed run: the games in play are sent.
    Worker = 3,
}

static INTERRUPTIBLE: AtomicU8 = AtomicU8::new(0);
/// The first stopping signal received (0: none).
static FIRST_SIGNAL: AtomicI32 = AtomicI32::new(0);

/// The exit status of a command stopped by a signal: 128 + its number, as a shell reports it
/// (130 for Ctrl-C, 143 for SIGTERM).
pub fn interrupted_exit() -> u8 {
    let signal = match FIRST_SIGNAL.load(Ordering::SeqCst) {
        0 => libc::SIGINT,
        signal => signal,
    };
    128 + signal as u8
}

/// How the user stopped the command, for messages: "Ctrl-C" or "SIGTERM".
pub fn interrupted_by() -> &'static str {
    signal_name(FIRST_SIGNAL.load(Ordering::SeqCst))
}

fn signal_name(signal: libc::c_int) -> &'static str {
    match signal {
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "Ctrl-C",
    }
}

/// Installs the Ctrl-C and SIGTERM handler for `work`; the token it returns is stopped by the
/// first of them (hand it to what stops: the run, the matches).
pub fn stop_on_first_interrupt(work: Interruptible) -> StopToken {
    INTERRUPTIBLE.store(work as u8, Ordering::SeqCst);
    on_stopping_signals(on_interrupt);
    StopToken::on_signal()
}

/// Installs `handler` for SIGINT, SIGTERM and SIGHUP — SIGHUP left ignored where it is (under
/// `nohup`, as the user asked). The handler must be async-signal-safe.
pub fn on_stopping_signals(handler: extern "C" fn(libc::c_int)) {
    // SAFETY: installs a handler the caller vouches for; SIG_IGN is a valid disposition.
    unsafe {
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            let before = libc::signal(signal, handler as *const () as libc::sighandler_t);
            if signal == libc::SIGHUP && before == libc::SIG_IGN {
                libc::signal(signal, libc::SIG_IGN);
            }
        }
    }
}

extern "C" fn on_interrupt(signal: libc::c_int) {
    let _ = FIRST_SIGNAL.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
    let work = INTERRUPTIBLE.load(Ordering::SeqCst);
    let again = stop_on_signal();
    let message: &[u8] = match (work, again) {
        (1, false) => {
            b": finishing the games in play, learning them and writing a checkpoint (a second Ctrl-C or SIGTERM stops at once)\n"
        }
        (1, true) => b" again: stopped at once; the games since the last checkpoint are lost\n",
        (3, false) => {
            b": finishing the games in play and sending them (a second Ctrl-C or SIGTERM stops at once)\n"
        }
        (3, true) => b" again: stopped at once; the games in play are lost\n",
        (_, false) => {
            b": finishing the games in play, then reporting and writing the games played (a second Ctrl-C or SIGTERM stops at once)\n"
        }
        (_, true) => b" again: stopped at once; nothing more is written\n",
    };
    let name: &[u8] = match signal_name(signal) {
        "SIGTERM" => b"\nSIGTERM",
        "SIGHUP" => b"\nSIGHUP",
        _ => b"\nCtrl-C",
    };
    // SAFETY: write(2) and _exit(2) are async-signal-safe; the buffers are static.
    unsafe {
        libc::write(2, name.as_ptr().cast(), name.len());
        libc::write(2, message.as_ptr().cast(), message.len());
        if again {
            libc::_exit(i32::from(interrupted_exit()));
        }
    }
}

/// Whether a Ctrl-C, SIGTERM or SIGHUP stopped the command's work (the tokens of
/// `stop_on_first_interrupt`): runs checkpointed, reports hold only the games played.
pub fn interrupted() -> bool {
    FIRST_SIGNAL.load(Ordering::SeqCst) != 0
}

/// The exit of a match command that played `played` of `planned` games: success, or, after a
/// Ctrl-C, a line saying what was kept and the interrupted status.
pub fn match_exit(played: u64, planned: u64, kept: &str) -> std::process::ExitCode {
    if !interrupted() {
        return std::process::ExitCode::SUCCESS;
    }
    eprintln!(
        "interrupted by {}: {played} of {planned} games played; {kept}",
        interrupted_by()
    );
    std::process::ExitCode::from(interrupted_exit())
}

/// After a Ctrl-C before any game finished: nothing to report or write.
///
/// # Errors
/// Always, saying so (the caller exits with it).
pub fn refuse_empty(played: u64) -> anyhow::Result<()> {
    if played == 0 && interrupted() {
        anyhow::bail!(
            "interrupted by {} before any game finished: nothing written",
            interrupted_by()
        );
    }
    Ok(())
}
