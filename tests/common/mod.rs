//! Helpers shared by the tests that run the `descent` binary as a child process.
#![allow(dead_code)] // each test crate uses its own subset

pub mod engine;
pub mod server;
pub mod skip;
pub mod webdriver;

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// `text` without its lines that contain `needle` (which must be in it).
pub fn without_line(text: &str, needle: &str) -> String {
    let kept: String = text
        .split_inclusive('\n')
        .filter(|line| !line.contains(needle))
        .collect();
    assert_ne!(kept, text, "{needle} not in the text");
    kept
}

/// Runs `descent` with `args` and waits for it.
pub fn descent(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_descent"))
        .args(args)
        .output()
        .expect("the descent binary runs")
}

/// Runs `descent` with `args`, `input` (text or any bytes) on its standard input, and waits
/// for it.
pub fn descent_with_input(args: &[&str], input: impl AsRef<[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_descent"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the descent binary runs");
    // A child that stops before reading all its input (an error at start) closes the pipe.
    let written = child
        .stdin
        .take()
        .expect("a piped stdin")
        .write_all(input.as_ref());
    if let Err(e) = written {
        assert_eq!(
            e.kind(),
            std::io::ErrorKind::BrokenPipe,
            "the input is written"
        );
    }
    child.wait_with_output().expect("descent finishes")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `extra` YAML with `evaluation.at_end` off (20 games at 100 ms a move would make every small
/// run of the tests slow) unless it has its own `evaluation:` section.
pub fn without_end_evaluation(extra: &str) -> String {
    match extra.contains("evaluation:") {
        true => extra.to_string(),
        false => format!("{extra}\nevaluation: {{at_end: false}}\n"),
    }
}

/// Writes a small tic-tac-toe training configuration (fast enough to run several times) with
/// `extra` YAML appended, as `dir/small.yaml`; returns its path.
pub fn write_small_config(dir: &std::path::Path, extra: &str) -> String {
    let path = dir.join("small.yaml");
    std::fs::write(
        &path,
        format!(
            "game: tic_tac_toe\nseed: 5\nsearch:\n  iters: 20\nreplay:\n  games: 4\n  duplication: 2\n  batch_size: 32\n{}",
            without_end_evaluation(extra)
        ),
    )
    .unwrap();
    path.to_string_lossy().into_owned()
}

/// Trains the small tic-tac-toe configuration (with `extra` YAML) for `games` games into
/// `dir/name`, which it returns; panics with the error output if the run fails.
pub fn small_run(dir: &std::path::Path, name: &str, extra: &str, games: u64) -> std::path::PathBuf {
    let run = dir.join(name);
    train_games(&write_small_config(dir, extra), &run, games);
    run
}

/// Trains `config` into `run` for `games` games; panics with the error output if it fails.
pub fn train_games(config: &str, run: &std::path::Path, games: u64) {
    let output = descent(&[
        "train",
        config,
        "--run-dir",
        run.to_str().unwrap(),
        "--max-games",
        &games.to_string(),
        "--quiet",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
}

/// Asserts that a child process ended by itself with an error or success, not a panic (exit
/// code 101) or an abort (a signal).
pub fn assert_no_crash(output: &Output, what: &str) {
    let err = stderr(output);
    assert!(
        matches!(output.status.code(), Some(0) | Some(1) | Some(2)),
        "{what}: exit {:?}\n{err}",
        output.status
    );
    assert!(!err.contains("panicked"), "{what}: {err}");
}

/// The lines of a run's `metrics.jsonl`.
pub fn metrics(run: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(run.join("metrics.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The `state.json` of the run's latest checkpoint.
pub fn latest_state(run: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(run.join("latest/state.json")).unwrap()).unwrap()
}

/// `command` started with SIGHUP at its default disposition, as from a terminal: a test suite
/// run under `nohup` (SIGHUP ignored, and inherited) would otherwise start every child
/// ignoring it, as descent then rightly goes on doing.
pub fn sighup_as_from_a_terminal(command: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: `signal` is async-signal-safe, as `pre_exec` requires; it only resets a
    // disposition in the child before it runs the program.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGHUP, libc::SIG_DFL);
            Ok(())
        })
    }
}
