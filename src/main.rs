//! The `descent` binary: everything lives in the library; this only reports the outcome.

use std::process::ExitCode;

fn main() -> ExitCode {
    match descent::cli::run() {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
