//! Helpers shared by the tests that run the `descent` binary as a child process.
#![allow(dead_code)] // each test crate uses its own subset

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `descent` with `args` and waits for it.
pub fn descent(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_descent"))
        .args(args)
        .output()
        .expect("the descent binary runs")
}

/// Runs `descent` with `args`, `input` on its standard input, and waits for it.
pub fn descent_with_input(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_descent"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the descent binary runs");
    child
        .stdin
        .take()
        .expect("a piped stdin")
        .write_all(input.as_bytes())
        .expect("the input is written");
    child.wait_with_output().expect("descent finishes")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
