//! Helpers shared by the tests that run the `descent` binary as a child process.
#![allow(dead_code)] // each test crate uses its own subset

use std::process::{Command, Output};

/// Runs `descent` with `args` and waits for it.
pub fn descent(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_descent"))
        .args(args)
        .output()
        .expect("the descent binary runs")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
