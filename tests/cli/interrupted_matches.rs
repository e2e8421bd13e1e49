//! Ctrl-C on `eval`, `tournament` and `ladder` (as a user presses it: SIGINT to the child
//! process): the first lets the games in play finish, then the command reports and writes the
//! games played and exits 130; a second stops at once and writes nothing.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::common::{small_run, stderr};

fn start(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_descent"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Sends `count` SIGINTs, `after` the start and 30 ms apart, and waits for the child.
fn interrupt(child: Child, after: Duration, count: usize) -> Output {
    std::thread::sleep(after);
    for _ in 0..count {
        // SAFETY: signalling our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        std::thread::sleep(Duration::from_millis(30));
    }
    child.wait_with_output().unwrap()
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn ctrl_c_on_eval_keeps_the_games_played_and_a_second_stops_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("eval");
    let child = start(&[
        "eval",
        "--game",
        "tic_tac_toe",
        "--agent",
        "mcts:iters=500",
        "--opponent",
        "random",
        "--games",
        "1000000",
        "--threads",
        "1",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let out = interrupt(child, Duration::from_secs(2), 1);
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("finishing the games in play"),
        "{}",
        stderr(&out)
    );
    let report = json(&out_dir.join("report.json"));
    let games = report["summary"]["games"].as_u64().unwrap();
    assert!((1..1_000_000).contains(&games), "{games} games");
    assert_eq!(report["games"].as_array().unwrap().len() as u64, games);
    assert!(
        stderr(&out).contains(&format!(
            "{games} of 1000000 games played; the report holds them"
        )),
        "{}",
        stderr(&out)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("{games} games in")));

    // Twice: at once, in the middle of a slow game, nothing written.
    let out_dir = tmp.path().join("twice");
    let child = start(&[
        "eval",
        "--game",
        "connect_four",
        "--agent",
        "mcts:iters=200000",
        "--opponent",
        "mcts:iters=200000",
        "--games",
        "2",
        "--threads",
        "1",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let out = interrupt(child, Duration::from_millis(500), 2);
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(stderr(&out).contains("stopped at once"), "{}", stderr(&out));
    assert!(!out_dir.join("report.json").exists());
}

/// A tournament stopped in its first pairing writes that pairing's games and rates the agents
/// that played; an agent that never played is said to be unrated.
#[test]
fn ctrl_c_on_a_tournament_reports_the_pairings_played() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("tournament");
    let child = start(&[
        "tournament",
        "--game",
        "tic_tac_toe",
        "--agent",
        "random",
        "--agent",
        "mcts:iters=300",
        "--agent",
        "greedy",
        "--games-per-pair",
        "200000",
        "--threads",
        "1",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let out = interrupt(child, Duration::from_secs(2), 1);
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let report = json(&out_dir.join("tournament.json"));
    let matches = report["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 1, "{report}");
    let games = matches[0]["summary"]["games"].as_u64().unwrap();
    assert!((1..200_000).contains(&games), "{games}");
    assert!(
        stderr(&out).contains(&format!(
            "{games} of 600000 games played; the report holds them"
        )),
        "{}",
        stderr(&out)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("unrated (no game played) greedy"),
        "{stdout}"
    );
}

#[test]
fn ctrl_c_on_a_ladder_rates_the_networks_that_played() {
    let tmp = tempfile::tempdir().unwrap();
    let run = small_run(
        tmp.path(),
        "run",
        "checkpoint:\n  every_games: 2\n  keep_last: 1\n  keep_nets: true\n",
        6,
    );
    let child = start(&[
        "ladder",
        run.to_str().unwrap(),
        "--anchor",
        "random",
        "--agent",
        "ubfms:iters=5",
        "--games-per-pair",
        "200000",
        "--threads",
        "1",
        "--quiet",
    ]);
    let out = interrupt(child, Duration::from_secs(2), 1);
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    // Three networks: five pairings of 200 000 games; the first (the anchor against the
    // first network) was in play.
    let said = stderr(&out);
    assert!(
        said.contains("of 1000000 games played; ladder.json rates the networks that played"),
        "{said}"
    );
    let ladder = json(&run.join("ladder.json"));
    let networks = ladder["networks"].as_array().unwrap();
    assert_eq!(networks.len(), 1, "{ladder}");
    assert_eq!(networks[0]["games"], 2);
    let matches = ladder["tournament"]["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 1);
    let games = matches[0]["summary"]["games"].as_u64().unwrap();
    assert!((1..200_000).contains(&games), "{games}");
    assert!(networks[0]["elo_ci95"].as_f64().unwrap() > 0.0);
}
