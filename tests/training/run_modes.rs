//! `run.mode` (sequential / parallel) and versioned networks through the library: which network
//! version each game was played with, the lag the learner saw, the games dropped for their lag,
//! and resumes that hand out new game numbers.

use std::collections::BTreeSet;
use std::path::Path;

use descent::selfplay::{RunDir, SilentObserver, TrainConfig, train};
use serde_json::Value;

/// Trains tic-tac-toe with `run` (YAML flow mapping body) in `root` (a new run, or a resume);
/// returns the metrics lines.
fn train_ttt(root: &Path, run: &str, resume: bool) -> Vec<Value> {
    let text = format!(
        "game: tic_tac_toe\nseed: 5\nsearch: {{iters: 20}}\nrun: {{{run}}}\ncheckpoint: {{every_games: 4}}\nevaluation: {{at_end: false}}\n"
    );
    let config = TrainConfig::from_yaml(&text).unwrap_or_else(|e| panic!("{text}\n{e}"));
    let settings = config.validate().unwrap_or_else(|e| panic!("{text}\n{e}"));
    let dir = if resume {
        RunDir::open_for_writing(root).unwrap()
    } else {
        RunDir::create(root, &config.to_yaml()).unwrap()
    };
    train(&settings, &dir, resume, &mut SilentObserver).unwrap();
    metrics(root)
}

fn metrics(root: &Path) -> Vec<Value> {
    std::fs::read_to_string(root.join("metrics.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn of_kind<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["kind"] == kind).collect()
}

fn u(value: &Value, key: &str) -> u64 {
    value[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} in {value}"))
}

fn latest_json(root: &Path, file: &str) -> Value {
    let text = std::fs::read_to_string(root.join("latest").join(file)).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn sequential_games_are_played_with_the_network_of_all_games_before_them() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("run");
    let lines = train_ttt(&root, "max_games: 6", false);
    let games = of_kind(&lines, "game");
    assert_eq!(games.len(), 6);
    for (n, g) in games.iter().enumerate() {
        let n = n as u64;
        assert_eq!(
            (
                u(g, "game"),
                u(g, "index"),
                u(g, "net_version"),
                u(g, "lag")
            ),
            (n + 1, n, n, 0),
            "{g}"
        );
    }
    assert_eq!(latest_json(&root, "net.json")["net_version"], 6);
    assert_eq!(latest_json(&root, "state.json")["games_dropped"], 0);
}

/// Checks what every parallel run must hold: each game played and either learned or dropped
/// once, lags as the learner saw them, counts that add up; `in_play` games at once.
fn check_parallel_lines(lines: &[Value], max_lag: u64, in_play: u64) -> (u64, u64) {
    let games = of_kind(lines, "game");
    let dropped = of_kind(lines, "dropped");
    let mut indices = BTreeSet::new();
    for (n, g) in games.iter().enumerate() {
        let learned_before = n as u64;
        assert_eq!(u(g, "game"), learned_before + 1);
        assert!(u(g, "net_version") <= learned_before, "{g}");
        assert_eq!(u(g, "lag"), learned_before - u(g, "net_version"), "{g}");
        assert!(u(g, "lag") <= max_lag, "{g}");
        assert!(
            indices.insert(u(g, "index")),
            "game {} learned twice",
            g["index"]
        );
    }
    for (n, d) in dropped.iter().enumerate() {
        assert!(u(d, "lag") > max_lag, "{d}");
        assert_eq!(u(d, "lag"), u(d, "learner_version") - u(d, "net_version"));
        assert_eq!(u(d, "games_dropped"), n as u64 + 1);
        assert!(
            indices.insert(u(d, "index")),
            "game {} seen twice",
            d["index"]
        );
    }
    // Back-pressure: a player waits while 2 × in_play games are handed out and not received
    // (two players may pass the check at once: threads - 1 more).
    let received = lines
        .iter()
        .filter(|l| l["kind"] == "game" || l["kind"] == "dropped");
    for (n, line) in received.enumerate() {
        assert!(
            u(line, "index") < n as u64 + 3 * in_play,
            "{line} received {n}th"
        );
    }
    (games.len() as u64, dropped.len() as u64)
}

/// The numbers of the games learned or dropped.
fn played_indices(lines: &[Value]) -> BTreeSet<u64> {
    lines
        .iter()
        .filter(|l| l["kind"] == "game" || l["kind"] == "dropped")
        .map(|g| u(g, "index"))
        .collect()
}

/// The players of the parallel runs below.
const THREADS: u64 = 2;

#[test]
fn parallel_players_play_the_whole_budget_beside_the_learner() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("run");
    let lines = train_ttt(
        &root,
        "max_games: 30, threads: 2, mode: parallel, max_lag: 1000",
        false,
    );
    let (learned, dropped) = check_parallel_lines(&lines, 1000, THREADS);
    assert_eq!((learned, dropped), (30, 0));
    let indices: BTreeSet<u64> = of_kind(&lines, "game")
        .iter()
        .map(|g| u(g, "index"))
        .collect();
    assert_eq!(indices, (0..30).collect(), "games 0 to 29, each once");
    assert_eq!(latest_json(&root, "net.json")["net_version"], 30);
}

#[test]
fn games_too_far_behind_the_learner_are_dropped_counted_and_not_replayed_after_a_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("run");
    let run = "threads: 2, mode: parallel, max_lag: 0";
    let first = train_ttt(&root, &format!("max_games: 24, {run}"), false);
    let (learned, dropped) = check_parallel_lines(&first, 0, THREADS);
    assert_eq!(learned + dropped, 24, "max_games counts the games played");
    assert!(learned >= 1);
    let state = latest_json(&root, "state.json");
    assert_eq!(
        (u(&state, "games"), u(&state, "games_dropped")),
        (learned, dropped)
    );
    assert_eq!(u(&state, "next_game_index"), 24);

    let all = train_ttt(&root, &format!("max_games: 40, {run}"), true);
    let (learned, dropped) = check_parallel_lines(&all, 0, THREADS);
    assert_eq!(learned + dropped, 40);
    let resumed: Vec<u64> = of_kind(&all, "game")
        .iter()
        .chain(&of_kind(&all, "dropped"))
        .map(|g| u(g, "index"))
        .filter(|&i| i >= 24)
        .collect();
    assert_eq!(
        resumed.len(),
        16,
        "the resumed session numbers its games from 24"
    );
}

#[test]
fn an_unknown_mode_or_a_negative_lag_is_refused_naming_the_key() {
    for (run, key) in [("mode: turbo", "mode"), ("max_lag: -1", "max_lag")] {
        let text = format!("game: tic_tac_toe\nrun: {{{run}}}\n");
        let error = TrainConfig::from_yaml(&text).unwrap_err().to_string();
        assert!(error.contains(key), "{run}: {error}");
    }
}

#[test]
fn games_in_flight_are_each_played_once_and_a_resume_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("run");
    // Sequential, one thread, four games in flight: four tickets out at once, each next one
    // after a game is learned.
    let run = "games_per_thread: 4, max_lag: 4";
    let first = train_ttt(&root, &format!("max_games: 10, {run}"), false);
    // A game that runs long while the others in flight are learned can pass `max_lag` and be
    // dropped (how often depends on timing): each game is learned or dropped, once.
    let (learned, dropped) = check_parallel_lines(&first, 4, 4);
    assert_eq!(played_indices(&first), (0..10).collect(), "games 0 to 9");
    assert_eq!(learned + dropped, 10);
    for (n, g) in of_kind(&first, "game").iter().enumerate() {
        assert_eq!(u(g, "game"), n as u64 + 1);
    }
    assert!(
        first
            .iter()
            .filter(|l| l["kind"] == "game" || l["kind"] == "dropped")
            .any(|g| u(g, "lag") > 0),
        "games in flight overlap: some are learned after others started later"
    );
    assert_eq!(latest_json(&root, "net.json")["net_version"], learned);
    let all = train_ttt(&root, &format!("max_games: 16, {run}"), true);
    let (learned, dropped) = check_parallel_lines(&all, 4, 4);
    assert_eq!(
        played_indices(&all),
        (0..16).collect(),
        "games 10 to 15 after the resume"
    );
    assert_eq!(learned + dropped, 16);
    assert_eq!(latest_json(&root, "net.json")["net_version"], learned);

    // Parallel, two threads of three games each.
    let root = tmp.path().join("parallel");
    let lines = train_ttt(
        &root,
        "max_games: 24, threads: 2, games_per_thread: 3, mode: parallel, max_lag: 100",
        false,
    );
    assert_eq!(check_parallel_lines(&lines, 100, 6), (24, 0));
}

#[test]
fn games_in_flight_are_refused_where_they_cannot_work() {
    for (extra, key) in [
        ("run: {games_per_thread: 0}", "run.games_per_thread"),
        (
            "run: {games_per_thread: 5000, max_lag: 9999}",
            "run.games_per_thread",
        ),
        (
            "run: {games_per_thread: 4, max_lag: 8}\nsearch: {iters: 20, time: 1s}",
            "run.games_per_thread",
        ),
        ("run: {threads: 4, games_per_thread: 8}", "run.max_lag"),
        (
            "run: {games_per_thread: 2, mode: distributed}",
            "run.games_per_thread",
        ),
    ] {
        let text = format!("game: tic_tac_toe\n{extra}\n");
        let error = TrainConfig::from_yaml(&text)
            .and_then(|c| c.validate().map(|_| ()))
            .unwrap_err()
            .to_string();
        assert!(error.contains(key), "{extra}: {error}");
    }
}

/// The games of a run's games.jsonl, in order: their numbers and moves.
fn logged_games(root: &Path) -> Vec<(u64, Value)> {
    std::fs::read_to_string(root.join("games.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|g| (u(&g, "index"), g["moves"].clone()))
        .collect()
}

/// The numbers of the games in a run's games.jsonl, in order.
fn logged_indices(root: &Path) -> Vec<u64> {
    logged_games(root)
        .into_iter()
        .map(|(index, _)| index)
        .collect()
}

/// The numbers of the records in a run's pending/.
fn pending_numbers(root: &Path) -> BTreeSet<u64> {
    std::fs::read_dir(root.join("pending"))
        .map(|entries| {
            entries
                .filter_map(|e| {
                    let name = e.ok()?.file_name().into_string().ok()?;
                    name.strip_prefix("game-")?
                        .strip_suffix(".rec")?
                        .parse()
                        .ok()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A parallel run SIGKILLed between checkpoints (games learned since its last checkpoint,
/// others finished and waiting) and resumed learns every game that had finished exactly once:
/// those learned after the checkpoint again (their learning died with the process), those
/// waiting for the learner too, none twice; the records it kept for them are gone once a
/// checkpoint holds them.
#[test]
fn a_parallel_run_killed_and_resumed_learns_every_finished_game_exactly_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, config) = (tmp.path().join("run"), tmp.path().join("ttt.yaml"));
    std::fs::write(
        &config,
        "game: tic_tac_toe\nseed: 5\nsearch: {iters: 200}\n\
         run: {threads: 2, mode: parallel, max_lag: 100000}\n\
         checkpoint: {every_games: 20}\nevaluation: {at_end: false}\n",
    )
    .unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_descent"))
        .args(["train", config.to_str().unwrap(), "--run-dir"])
        .arg(&root)
        .args(["--max-games", "1000000", "--quiet"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Killed once at least 5 games are learned past the first checkpoint (at game 20), and
    // before the second.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let learned = logged_indices(&root).len();
        if (25..38).contains(&learned) {
            break;
        }
        assert!(
            learned < 38,
            "the run passed its second checkpoint before the kill"
        );
        assert!(std::time::Instant::now() < deadline, "no progress");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before_kill = logged_games(&root);
    let learned_before_kill: BTreeSet<u64> = before_kill.iter().map(|(i, _)| *i).collect();
    let pending_at_kill = pending_numbers(&root);
    let checkpoint = latest_json(&root, "state.json");
    assert_eq!(
        u(&checkpoint, "games"),
        20,
        "the kill fell after the first checkpoint"
    );
    assert!(pending_at_kill.len() >= 5, "{pending_at_kill:?}");
    let finished: BTreeSet<u64> = learned_before_kill
        .union(&pending_at_kill)
        .copied()
        .collect();

    let output = std::process::Command::new(env!("CARGO_BIN_EXE_descent"))
        .args(["train", "--resume"])
        .arg(&root)
        .args(["--max-games", "80", "--quiet"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lineage = logged_indices(&root);
    let distinct: BTreeSet<u64> = lineage.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        lineage.len(),
        "a game learned twice: {lineage:?}"
    );
    let missing: Vec<_> = finished.difference(&distinct).collect();
    assert!(
        missing.is_empty(),
        "finished games never learned: {missing:?}"
    );
    // The same games, not new ones under their numbers.
    let after: std::collections::BTreeMap<u64, Value> = logged_games(&root).into_iter().collect();
    for (index, moves) in &before_kill {
        assert_eq!(
            &after[index], moves,
            "game {index} is another game after the resume"
        );
    }
    assert!(
        pending_numbers(&root).is_empty(),
        "records left after the final checkpoint"
    );
}

/// A pending record that cannot be learned (damaged bytes) is moved to `pending/set-aside/`
/// with its reason on the resume that finds it, so the next resume neither warns about it nor
/// learns it; the resumed run plays its budget all the same.
#[test]
fn a_damaged_pending_record_is_set_aside_with_its_reason_once() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("run");
    let run = "threads: 2, mode: parallel, max_lag: 1000";
    train_ttt(&root, &format!("max_games: 8, {run}"), false);
    assert!(pending_numbers(&root).is_empty());
    std::fs::write(root.join("pending/game-100.rec"), b"not a game record").unwrap();

    let lines = train_ttt(&root, &format!("max_games: 10, {run}"), true);
    assert!(
        pending_numbers(&root).is_empty(),
        "the damaged record stays"
    );
    let aside = root.join("pending/set-aside");
    assert_eq!(
        std::fs::read(aside.join("game-100.rec")).unwrap(),
        b"not a game record"
    );
    let why = std::fs::read_to_string(aside.join("game-100.why")).unwrap();
    assert!(!why.trim().is_empty());
    let new_games: BTreeSet<u64> = of_kind(&lines, "game")
        .iter()
        .map(|g| u(g, "index"))
        .filter(|&i| i >= 8)
        .collect();
    assert_eq!(new_games, BTreeSet::from([8, 9]), "the budget's two games");

    train_ttt(&root, &format!("max_games: 12, {run}"), true);
    let entries = std::fs::read_dir(&aside).unwrap().count();
    assert_eq!(entries, 2, "set aside once: a .rec and its .why");
}
