//! Every recipe of the registry through the one session: a run killed (SIGKILL) after a
//! checkpoint and resumed goes on from that checkpoint — the lines logged after it cut, no game
//! count logged twice — and stops at its new budget with a checkpoint there.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use descent::selfplay::config::RecipeName;
use serde_json::Value;

/// A small tic-tac-toe run of each recipe (its name, its YAML), each checkpointing every 8
/// games.
const RUNS: [(&str, &str); 4] = [
    ("athenan", "search: {iters: 30}\n"),
    (
        "alphazero",
        "recipe: alphazero\nnetwork: {architecture: resnet-b0c8-fc16}\n\
         alphazero: {simulations: 20, parallel_games: 8, window: 512, batch_size: 32}\n",
    ),
    (
        "gumbel",
        "recipe: gumbel\nnetwork: {architecture: resnet-b0c8-fc16}\n\
         gumbel: {m: 4, simulations: 8, parallel_games: 8, window: 512, batch_size: 32}\n",
    ),
    (
        "exit",
        "recipe: exit\nnetwork: {architecture: resnet-b0c8-fc16}\n\
         exit: {expert_iterations: 40, warm_start_games: 8, games_per_phase: 8, \
         batch_size: 16, patience: 2, max_epochs: 4, value_from: 0.5}\n",
    ),
];

/// The metrics lines of the run at `root`.
fn metrics(root: &Path) -> Vec<Value> {
    std::fs::read_to_string(root.join("metrics.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// The games of the run's latest checkpoint.
fn checkpointed_games(root: &Path) -> u64 {
    let text = std::fs::read_to_string(root.join("latest/state.json")).unwrap();
    serde_json::from_str::<Value>(&text).unwrap()["games"]
        .as_u64()
        .unwrap()
}

/// Starts the run, kills it once a checkpoint and some lines after it are logged.
fn train_and_kill(config: &Path, root: &Path) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_descent"))
        .args(["train", config.to_str().unwrap(), "--run-dir"])
        .arg(root)
        .args(["--max-games", "1000000", "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let lines = metrics(root);
        let after_checkpoint = lines
            .iter()
            .rposition(|l| l["kind"] == "checkpoint")
            .map_or(0, |at| lines.len() - at - 1);
        if after_checkpoint > 0 {
            break;
        }
        assert!(Instant::now() < deadline, "no checkpoint within 5 minutes");
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn every_recipe_killed_after_a_checkpoint_resumes_from_it_through_the_one_session() {
    let names: Vec<&str> = RecipeName::ALL.iter().map(|r| r.name()).collect();
    for name in &names {
        assert!(
            RUNS.iter().any(|(run, _)| run == name),
            "recipe {name} has no run here"
        );
    }
    for (name, yaml) in RUNS {
        let tmp = tempfile::tempdir().unwrap();
        let (root, config) = (tmp.path().join("run"), tmp.path().join("run.yaml"));
        let text = format!(
            "game: tic_tac_toe\nseed: 3\n{yaml}checkpoint: {{every_games: 8}}\n\
             evaluation: {{at_end: false}}\n"
        );
        std::fs::write(&config, &text).unwrap();
        train_and_kill(&config, &root);
        let at_kill = checkpointed_games(&root);
        let target = at_kill + 16;
        let output = Command::new(env!("CARGO_BIN_EXE_descent"))
            .args(["train", "--resume"])
            .arg(&root)
            .args(["--max-games", &target.to_string(), "--quiet"])
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(checkpointed_games(&root), target, "{name}:\n{text}");
        // One line a game or round, in order: what the killed session logged after its
        // checkpoint was cut, not kept beside the resumed session's.
        let learned: Vec<u64> = metrics(&root)
            .iter()
            .filter(|l| {
                ["game", "alphazero_round", "gumbel_round", "exit_round"]
                    .contains(&l["kind"].as_str().unwrap_or(""))
            })
            .map(|l| l["game"].as_u64().unwrap())
            .collect();
        assert!(
            learned.windows(2).all(|w| w[0] < w[1]),
            "{name}: games logged out of order or twice: {learned:?}"
        );
        assert_eq!(learned.last(), Some(&target), "{name}");
    }
}
