//! What a game's learning costs and what the run spends before its first game, counted in
//! rows and positions (docs/algorithms.md §6): the learning rule (`learning.rows_per_evaluation`)
//! bounds the rows each game's phase learns by the positions its search evaluated, the window
//! grows with the run (`replay.growth`), the rows held are bounded (`replay.max_rows`), and
//! pre-training stops at its share of the run (`learning.pretrain_time_share`).

use std::path::Path;

use descent::selfplay::{RunDir, SilentObserver, TrainConfig, train};
use serde_json::Value;

/// Stratified replay of 4 games, δ = 3.
const REPLAY: &str = "replay: {games: 4, duplication: 3, batch_size: 64";

/// Trains Connect Four (tree learning) with `extra` YAML appended, in `root`; returns the
/// metrics lines. `extra` without a `replay:` line gets `REPLAY`.
fn train_connect_four(root: &Path, extra: &str) -> Vec<Value> {
    let replay = match extra.contains("replay:") {
        true => String::new(),
        false => format!("{REPLAY}}}\n"),
    };
    let text = format!(
        "game: connect_four\nseed: 3\nnetwork: {{architecture: resnet-b0c8-fc8}}\n\
         search: {{iters: 4}}\nevaluation: {{at_end: false}}\n{replay}{extra}"
    );
    let config = TrainConfig::from_yaml(&text).unwrap_or_else(|e| panic!("{text}\n{e}"));
    let settings = config.validate().unwrap_or_else(|e| panic!("{text}\n{e}"));
    let dir = RunDir::create(root, &config.to_yaml()).unwrap();
    train(&settings, &dir, false, &mut SilentObserver).unwrap();
    std::fs::read_to_string(root.join("metrics.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn u(value: &Value, key: &str) -> u64 {
    value[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} in {value}"))
}

fn games(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter(|l| l["kind"] == "game").collect()
}

/// Each game learns at most ⌈0.3 × its evaluated positions⌉ rows, where the same run without
/// the rule (`null`, the paper's) learns more (so the bound is what held them); a run that
/// does not name the rule gets its default, 0.12.
#[test]
fn the_learning_rule_bounds_each_games_rows_by_its_evaluated_positions() {
    let tmp = tempfile::tempdir().unwrap();
    let run = "run: {max_games: 6}\n";
    let rule = |rows: &str| format!("{run}learning: {{rows_per_evaluation: {rows}}}\n");
    let free = train_connect_four(&tmp.path().join("free"), &rule("null"));
    let bounded = train_connect_four(&tmp.path().join("bounded"), &rule("0.3"));
    let by_default = train_connect_four(&tmp.path().join("default"), run);
    let over = |lines: &[Value], rows: f64| {
        games(lines)
            .iter()
            .filter(|g| {
                let bound = (rows * u(g, "evaluated_positions") as f64).ceil() as u64;
                u(g, "pairs_learned") > bound
            })
            .count()
    };
    assert_eq!(games(&bounded).len(), 6);
    assert_eq!(over(&bounded, 0.3), 0, "a game over its bound");
    assert!(
        over(&free, 0.3) >= 3,
        "without the rule most games learn more"
    );
    assert_eq!(over(&by_default, 0.12), 0, "a game over the default bound");
    assert!(
        over(&bounded, 0.12) >= 3,
        "0.3 lets most games learn more than 0.12"
    );
    // The first game is the same in both runs: the bounded one learns the free one's phase
    // cut to the bound.
    let (free_first, bounded_first) = (games(&free)[0], games(&bounded)[0]);
    assert_eq!(u(free_first, "index"), u(bounded_first, "index"));
    let bound = (0.3 * u(bounded_first, "evaluated_positions") as f64).ceil() as u64;
    assert_eq!(
        u(bounded_first, "pairs_learned"),
        u(free_first, "pairs_learned").min(bound),
        "{bounded_first}"
    );
}

/// `replay.growth: 0.5`: after n games learned the window holds at most 1 + ⌊n/2⌋ games;
/// `replay.max_rows` keeps the rows held under the bound but for the newest game.
#[test]
fn the_window_grows_with_the_run_and_the_rows_held_are_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let lines = train_connect_four(
        &tmp.path().join("grow"),
        &format!("run: {{max_games: 7}}\n{REPLAY}, growth: 0.5}}\n"),
    );
    let held: Vec<u64> = games(&lines).iter().map(|g| u(g, "replay_games")).collect();
    // Game n (1-based) is learned after n − 1 others: a window of 1 + ⌊(n − 1)/2⌋, at most 4.
    assert_eq!(held, vec![1, 1, 2, 2, 3, 3, 4]);
    let lines = train_connect_four(
        &tmp.path().join("rows"),
        &format!("run: {{max_games: 6}}\n{REPLAY}, max_rows: 2000}}\n"),
    );
    let mut evicted = false;
    for (n, g) in games(&lines).iter().enumerate() {
        let (rows, newest) = (u(g, "replay_pairs"), u(g, "pairs_added"));
        assert!(rows <= 2000.max(newest), "{g}");
        evicted |= u(g, "replay_games") < (n as u64 + 1).min(4);
    }
    assert!(
        evicted,
        "the bound on the rows held evicted a game the window kept"
    );
}

/// Pre-training of 200 000 states in a 10-second run stops at its 3 % share (0.3 s): it learns
/// a fraction of the states and says so; without a time limit it learns them all.
#[test]
fn pre_training_stops_at_its_share_of_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let pretrain = "learning: {pretrain_terminal_states: 200000}\n";
    let lines = train_connect_four(
        &tmp.path().join("share"),
        &format!("run: {{max_time: 10s, max_games: 1}}\n{pretrain}"),
    );
    let line = lines.iter().find(|l| l["kind"] == "pretrain").unwrap();
    assert_eq!(line["budget_seconds"].as_f64(), Some(0.3), "{line}");
    assert_eq!(line["stopped_at_budget"], true, "{line}");
    assert!(u(line, "rows_learned") < 200_000, "{line}");
    assert_eq!(
        u(line, "rows"),
        u(line, "pairs"),
        "no symmetric image: {line}"
    );
    let lines = train_connect_four(
        &tmp.path().join("whole"),
        "run: {max_games: 1}\nlearning: {pretrain_terminal_states: 3000}\n",
    );
    let line = lines.iter().find(|l| l["kind"] == "pretrain").unwrap();
    assert_eq!(line["stopped_at_budget"], false, "{line}");
    assert_eq!(u(line, "rows_learned"), 3000, "{line}");
}
