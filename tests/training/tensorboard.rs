//! TensorBoard event files written beside metrics.jsonl: read back record by record (both
//! checksums checked), they hold every game line's loss and every evaluation's score at the
//! right step; a resume from an earlier checkpoint rebuilds them without the games it cuts;
//! `run.tensorboard: false` writes none. games.jsonl follows the same resume rule.

use std::fs;
use std::path::Path;

use crate::common::{descent, metrics, small_run, stderr};
use descent::selfplay::telemetry::event_file::{Event, read_events};
use descent::selfplay::telemetry::tensorboard::event_files;

fn events(run: &Path) -> Vec<Event> {
    let files = event_files(run).unwrap();
    assert_eq!(files.len(), 1, "one event file per run: {files:?}");
    read_events(&mut fs::File::open(&files[0]).unwrap()).unwrap()
}

fn scalar(event: &Event, tag: &str) -> Option<f32> {
    event.scalars.iter().find(|s| s.tag == tag).map(|s| s.value)
}

fn train(args: &[&str]) {
    let output = descent(args);
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn event_files_hold_the_losses_and_evaluations_of_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let run = small_run(
        dir.path(),
        "run",
        "evaluation:\n  every_games: 3\n  games: 2\n  opponent: random\n  time_per_move: 10ms\n",
        6,
    );
    let events = events(&run);
    assert_eq!(events[0].file_version.as_deref(), Some("brain.Event:2"));
    let lines = metrics(&run);
    let games: Vec<_> = lines.iter().filter(|l| l["kind"] == "game").collect();
    assert_eq!(games.len(), 6);
    for line in &games {
        let step = line["game"].as_i64().unwrap();
        let event = events
            .iter()
            .find(|e| e.step == step && scalar(e, "selfplay/plies").is_some())
            .unwrap_or_else(|| panic!("no event for game {step}"));
        assert_eq!(
            scalar(event, "selfplay/plies"),
            Some(line["plies"].as_f64().unwrap() as f32)
        );
        assert_eq!(
            scalar(event, "learn/loss"),
            line["loss"].as_f64().map(|l| l as f32)
        );
        assert_eq!(event.wall_time, line["unix_time"].as_f64().unwrap());
    }
    let evaluations: Vec<_> = lines.iter().filter(|l| l["kind"] == "evaluation").collect();
    assert_eq!(evaluations.len(), 2);
    for line in evaluations {
        let step = line["game"].as_i64().unwrap();
        let event = events
            .iter()
            .find(|e| e.step == step && scalar(e, "eval/random/score").is_some())
            .unwrap();
        let score = line["win_minus_loss"].as_f64().unwrap();
        let low = line["win_minus_loss_ci95"][0].as_f64().unwrap();
        assert_eq!(scalar(event, "eval/random/score"), Some(score as f32));
        assert_eq!(scalar(event, "eval/random/score_low"), Some(low as f32));
    }
}

#[test]
fn a_resume_rebuilds_the_events_and_games_without_the_games_it_cuts() {
    let dir = tempfile::tempdir().unwrap();
    let run = small_run(
        dir.path(),
        "run",
        "checkpoint:\n  every_games: 3\n  keep_last: 5\n",
        6,
    );
    let run_text = run.to_str().unwrap();
    // As if killed after game 6 was logged but before its checkpoint: back to ckpt-3.
    fs::remove_dir_all(run.join("ckpt-6")).unwrap();
    fs::remove_file(run.join("latest")).unwrap();
    std::os::unix::fs::symlink("ckpt-3", run.join("latest")).unwrap();
    train(&["train", "--resume", run_text, "--max-games", "6", "--quiet"]);
    let steps: Vec<i64> = events(&run)
        .iter()
        .filter(|e| scalar(e, "selfplay/plies").is_some())
        .map(|e| e.step)
        .collect();
    assert_eq!(steps, [1, 2, 3, 4, 5, 6], "each game once, in order");
    let games: Vec<u64> = fs::read_to_string(run.join("games.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["game"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(games, [1, 2, 3, 4, 5, 6]);
}

#[test]
fn games_are_logged_with_their_moves_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let run = small_run(dir.path(), "run", "run:\n  tensorboard: false\n", 2);
    assert!(
        event_files(&run).unwrap().is_empty(),
        "run.tensorboard: false"
    );
    let text = fs::read_to_string(run.join("games.jsonl")).unwrap();
    for line in text.lines() {
        let game: serde_json::Value = serde_json::from_str(line).unwrap();
        let moves: Vec<String> = serde_json::from_value(game["moves"].clone()).unwrap();
        let values = game["values_p0"].as_array().unwrap();
        assert_eq!(values.len(), moves.len());
        assert!(values.iter().all(|v| v.as_f64().unwrap().abs() <= 1.0));
        // The moves replay to the recorded result.
        let output = descent(&[
            "replay",
            "tic_tac_toe",
            "--moves",
            &moves.join(" "),
            "--json",
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        let replay: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let last = replay["positions"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        assert_eq!(last["terminal"], true);
        assert_eq!(last["returns"][0].as_f64(), game["result_p0"].as_f64());
    }
}
