//! The `descent` binary: everything lives in the library; this only reports the outcome.

use std::process::ExitCode;

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`descent games | head`) would panic;
    // the default action ends the process quietly, as for any Unix tool.
    #[cfg(unix)]
    // SAFETY: called first, before any thread starts; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    match descent::cli::run() {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
