//! `descent train` end to end, as a child process on real files: the run directory, resume,
//! reproducibility across a resume, a kill during a checkpoint write, bad configurations, and
//! that the tic-tac-toe network learns the game's values.

use crate::common;
use crate::common::{descent, latest_state, metrics, stderr, train_games};

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use burn::prelude::Device;
use descent::games::{Game, GameExt, TicTacToe};
use descent::search::Evaluator;
use descent::value::saved_net::{load_net, read_manifest};
use descent::value::{NetDevice, NetEvaluator};
use serde_json::Value;

const TTT_CONFIG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/tic_tac_toe.yaml");

fn games(run: &Path) -> Vec<Value> {
    metrics(run)
        .into_iter()
        .filter(|m| m["kind"] == "game")
        .collect()
}

fn write_config(dir: &Path, extra: &str) -> String {
    common::write_small_config(dir, extra)
}

fn values(run: &Path, positions: &[TicTacToe]) -> Vec<f32> {
    let base = run.join("latest").join("net");
    let manifest = read_manifest(&base).unwrap();
    let device = Device::flex();
    let net = load_net(&base, &manifest, &device).unwrap();
    let evaluator = NetEvaluator::<TicTacToe>::new(net, &NetDevice::cpu());
    let mut values = vec![0.0; positions.len()];
    evaluator.evaluate(positions, &mut values);
    values
}

fn ttt(moves: &str) -> TicTacToe {
    let mut p = TicTacToe::new(&Default::default());
    p.play_moves(moves).unwrap();
    p
}

#[test]
fn tic_tac_toe_run_writes_its_directory_resumes_and_learns() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let run_s = run.to_str().unwrap();
    let out = descent(&[
        "train",
        TTT_CONFIG,
        "--run-dir",
        run_s,
        "--max-games",
        "40",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    for file in [
        "config.yaml",
        "metrics.jsonl",
        "ckpt-20",
        "ckpt-40",
        "latest",
    ] {
        assert!(run.join(file).exists(), "{file} missing");
    }
    for file in [
        "net.bpk",
        "net.json",
        "optimizer.bpk",
        "replay.bin.zst",
        "state.json",
    ] {
        assert!(
            run.join("latest").join(file).is_file(),
            "checkpoint file {file} missing"
        );
    }
    assert_eq!(
        std::fs::read_link(run.join("latest")).unwrap(),
        Path::new("ckpt-40")
    );
    // The resolved configuration parses back, with the command line's limit in it.
    let config = std::fs::read_to_string(run.join("config.yaml")).unwrap();
    assert!(config.contains("max_games: 40"), "{config}");

    // Resumed at its limit: nothing to do, and the way on said.
    let out = descent(&["train", "--resume", run_s, "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = common::stdout(&out);
    assert!(
        said.contains("reached its game limit") && said.contains("--max-games 140"),
        "{said}"
    );
    let out = descent(&["train", "--resume", run_s, "--max-games", "60", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = common::stdout(&out);
    assert!(
        said.contains("resume with: descent train --resume"),
        "{said}"
    );
    let lines = games(&run);
    let numbers: Vec<u64> = lines.iter().map(|g| g["game"].as_u64().unwrap()).collect();
    assert_eq!(
        numbers,
        (1..=60).collect::<Vec<_>>(),
        "counters continue across the resume"
    );
    // The new limit is the run's now: its config.yaml (the run page) says it, and a plain
    // resume keeps it.
    let config = std::fs::read_to_string(run.join("config.yaml")).unwrap();
    assert!(config.contains("max_games: 60"), "{config}");
    let out = descent(&["train", "--resume", run_s, "--quiet"]);
    assert!(
        common::stdout(&out).contains("reached its game limit"),
        "{}",
        common::stdout(&out)
    );
    let state = latest_state(&run);
    assert_eq!(state["games"], 60);
    for g in &lines {
        assert!(g["pairs_added"].as_u64().unwrap() > 0);
        assert!(g["loss"].as_f64().unwrap().is_finite());
    }

    // The classic gain: tic-tac-toe is a draw, and x to move with two in a row wins.
    let empty = TicTacToe::new(&Default::default());
    let x_wins = ttt("a1 a2 b1 b2"); // x to move plays c1
    let o_wins = ttt("a1 a2 b1 b2 c3"); // o to move plays c2
    let v = values(&run, &[empty, x_wins, o_wins]);
    assert!(v[0].abs() < 0.3, "empty board {v:?}");
    assert!(v[1] > 0.6, "x to win {v:?}");
    assert!(v[2] < -0.6, "o to win {v:?}");
}

#[test]
fn a_resumed_run_continues_as_if_never_stopped() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), "checkpoint:\n  every_games: 3\n");
    let straight = tmp.path().join("straight");
    let split = tmp.path().join("split");
    let run = |dir: &Path, games: &str, resume: bool| {
        let dir_s = dir.to_str().unwrap();
        let args: Vec<&str> = if resume {
            vec!["train", "--resume", dir_s, "--max-games", games, "--quiet"]
        } else {
            vec![
                "train",
                &config,
                "--run-dir",
                dir_s,
                "--max-games",
                games,
                "--quiet",
            ]
        };
        let out = descent(&args);
        assert!(out.status.success(), "{}", stderr(&out));
    };
    run(&straight, "8", false);
    run(&split, "4", false);
    run(&split, "8", true);
    // A checkpoint of an older descent, its replay buffer uncompressed, resumes the same way.
    let legacy = tmp.path().join("legacy");
    run(&legacy, "4", false);
    let latest = legacy.join("latest");
    let compressed = std::fs::read(latest.join("replay.bin.zst")).unwrap();
    let plain = zstd::decode_all(compressed.as_slice()).unwrap();
    assert!(
        plain.len() > 2 * compressed.len(),
        "{} → {}",
        plain.len(),
        compressed.len()
    );
    std::fs::write(latest.join("replay.bin"), plain).unwrap();
    std::fs::remove_file(latest.join("replay.bin.zst")).unwrap();
    // Nor had it checksums: refused unless the user accepts it unverified.
    std::fs::remove_file(latest.join("checksums.sha256")).unwrap();
    let legacy_s = legacy.to_str().unwrap();
    let refused = descent(&["train", "--resume", legacy_s, "--max-games", "8", "--quiet"]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("no checksums.sha256")
            && stderr(&refused).contains("--accept-unverified-checkpoint"),
        "{}",
        stderr(&refused)
    );
    let out = descent(&[
        "train",
        "--resume",
        legacy_s,
        "--max-games",
        "8",
        "--quiet",
        "--accept-unverified-checkpoint",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let key = |g: &Value| {
        (
            g["game"].clone(),
            g["plies"].clone(),
            g["result_p0"].clone(),
            g["pairs_added"].clone(),
            g["replay_pairs"].clone(),
            g["loss"].clone(),
        )
    };
    let a: Vec<_> = games(&straight).iter().map(key).collect();
    let b: Vec<_> = games(&split).iter().map(key).collect();
    assert_eq!(a.len(), 8);
    assert_eq!(a, b);
    let c: Vec<_> = games(&legacy).iter().map(key).collect();
    assert_eq!(a, c);
}

#[test]
fn a_run_killed_while_checkpointing_resumes_from_the_previous_checkpoint() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), "checkpoint:\n  every_games: 2\n");
    let run = tmp.path().join("run");
    let mut child = Command::new(env!("CARGO_BIN_EXE_descent"))
        .args([
            "train",
            &config,
            "--run-dir",
            run.to_str().unwrap(),
            "--max-games",
            "6",
            "--quiet",
        ])
        .env("DESCENT_CHECKPOINT_PAUSE_MS", "400")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the second checkpoint to be half written, then SIGKILL.
    let start = Instant::now();
    while !run.join(".tmp-ckpt-4").exists() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no checkpoint started"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!run.join("ckpt-4").exists());
    assert_eq!(
        std::fs::read_link(run.join("latest")).unwrap(),
        Path::new("ckpt-2")
    );

    let out = descent(&[
        "train",
        "--resume",
        run.to_str().unwrap(),
        "--max-games",
        "6",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("ckpt-2"), "{}", stderr(&out));
    assert!(!run.join(".tmp-ckpt-4").exists());
    let numbers: Vec<u64> = games(&run)
        .iter()
        .map(|g| g["game"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, (1..=6).collect::<Vec<_>>());
}

#[test]
fn kept_networks_outlive_pruned_checkpoints_and_a_resume_drops_lost_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(
        tmp.path(),
        "checkpoint:\n  every_games: 2\n  keep_last: 1\n  keep_nets: true\n",
    );
    let run = tmp.path().join("run");
    let run_s = run.to_str().unwrap();
    let train = |games: &str| {
        let out = descent(&[
            "train",
            &config,
            "--run-dir",
            run_s,
            "--max-games",
            games,
            "--quiet",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
    };
    train("6");
    let checkpoints: Vec<String> = std::fs::read_dir(&run)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("ckpt-"))
        .collect();
    assert_eq!(checkpoints, ["ckpt-6"]);
    let kept = |games: u64| run.join(format!("nets/net-{games}"));
    for games in [2, 4, 6] {
        // Each kept network loads, as its checkpoint's did.
        let base = kept(games);
        let manifest = read_manifest(&base).unwrap();
        load_net(&base, &manifest, &Device::flex()).unwrap();
    }
    assert_eq!(
        std::fs::read(kept(6).with_extension("bpk")).unwrap(),
        std::fs::read(run.join("latest/net.bpk")).unwrap(),
        "the kept network is the checkpoint's"
    );
    // A network kept beyond the latest checkpoint (its checkpoint lost in a kill) goes on resume.
    std::fs::copy(
        kept(6).with_extension("json"),
        kept(8).with_extension("json"),
    )
    .unwrap();
    std::fs::copy(kept(6).with_extension("bpk"), kept(8).with_extension("bpk")).unwrap();
    let out = descent(&["train", "--resume", run_s, "--max-games", "7", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!kept(8).with_extension("json").exists());
    assert!(
        kept(7).with_extension("json").exists(),
        "the final checkpoint is kept too"
    );
}

/// `descent ladder` rates a run's networks — its checkpoint and the networks kept of pruned
/// ones — against an anchor and their neighbours, writes `ladder.json` with an Elo and an
/// interval per network and names the best; refuses what it cannot do.
#[test]
fn the_ladder_rates_every_network_of_a_run_and_names_the_best() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(
        tmp.path(),
        "checkpoint:\n  every_games: 2\n  keep_last: 1\n  keep_nets: true\n",
    );
    let run = tmp.path().join("run");
    let run_s = run.to_str().unwrap();
    let out = descent(&[
        "train",
        &config,
        "--run-dir",
        run_s,
        "--max-games",
        "6",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let ladder = |(agent, games_per_pair): (&str, &str), extra: &[&str]| {
        let mut args = vec!["ladder", run_s, "--anchor", "random", "--quiet"];
        args.extend_from_slice(&["--agent", agent, "--games-per-pair", games_per_pair]);
        args.extend_from_slice(extra);
        descent(&args)
    };
    let usual = ("ubfms:iters=5", "2");
    let out = ladder(usual, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("3 networks and the anchor random (rated 0)"),
        "{said}"
    );
    assert_eq!(said.matches("← best").count(), 1, "{said}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("ladder.json")).unwrap()).unwrap();
    let networks = report["networks"].as_array().unwrap();
    let games: Vec<u64> = networks
        .iter()
        .map(|n| n["games"].as_u64().unwrap())
        .collect();
    assert_eq!(
        games,
        [2, 4, 6],
        "two kept networks of pruned checkpoints, then the checkpoint"
    );
    assert!(
        networks[0]["agent"]
            .as_str()
            .unwrap()
            .ends_with("nets/net-2.json")
    );
    assert!(networks[2]["agent"].as_str().unwrap().ends_with("ckpt-6"));
    assert_eq!(
        report["tournament"]["pairs"].as_array().unwrap().len(),
        5,
        "2k − 3 matches"
    );
    every_network_rated_and_the_best_named(&report);
    // Two networks: the first and the last.
    let out = ladder(usual, &["--max-networks", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("ladder.json")).unwrap()).unwrap();
    let games: Vec<u64> = report["networks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["games"].as_u64().unwrap())
        .collect();
    assert_eq!(games, [2, 6]);
    for (options, extra, mention) in [
        (("ubfms:iters=5", "3"), &[][..], "--games-per-pair 3"),
        (usual, &["--max-networks", "0"][..], "--max-networks 0"),
        (
            ("ubfms:iters=5,model=x", "2"),
            &[][..],
            "give the search only",
        ),
    ] {
        let out = ladder(options, extra);
        assert!(!out.status.success());
        assert!(
            stderr(&out).contains(mention),
            "{mention}: {}",
            stderr(&out)
        );
    }
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    std::fs::copy(run.join("config.yaml"), empty.join("config.yaml")).unwrap();
    let out = descent(&["ladder", empty.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("has no network yet"),
        "{}",
        stderr(&out)
    );
}

/// Every network of a ladder's `report` rated with an interval, the best the one of highest
/// Elo, the matches written without their games.
fn every_network_rated_and_the_best_named(report: &Value) {
    let networks = report["networks"].as_array().unwrap();
    let elo = |n: &Value| n["elo"].as_f64().unwrap();
    for network in networks {
        assert!(network["elo_ci95"].as_f64().unwrap() > 0.0, "{network}");
    }
    let best = networks
        .iter()
        .max_by(|a, b| elo(a).total_cmp(&elo(b)))
        .unwrap();
    assert_eq!(report["best"], best["games"]);
    assert!(
        report["tournament"]["matches"][0].get("games").is_none(),
        "the matches without their games"
    );
}

/// Every run says how strong it ended: one evaluation at its end (`evaluation.at_end`, on by
/// default), in the closing summary with its interval and in metrics.jsonl, where a resume
/// keeps it (it follows the final checkpoint, whose length the resume cuts the log back to).
#[test]
fn a_run_ends_with_its_strength_and_a_resume_keeps_it() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(
        tmp.path(),
        "evaluation:\n  games: 4\n  opponent: random\n  iterations_per_move: 10\n",
    );
    let run = tmp.path().join("run");
    let run_s = run.to_str().unwrap();
    let out = descent(&[
        "train",
        &config,
        "--run-dir",
        run_s,
        "--max-games",
        "6",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("strength: ubfms:model=<current>,iters=10 against random: W/D/L ")
            && said.contains("over 4 games, both colours; score ")
            && said.contains("win − loss "),
        "{said}"
    );
    let evaluations = |run: &Path| -> Vec<(u64, bool)> {
        metrics(run)
            .iter()
            .filter(|m| m["kind"] == "evaluation")
            .map(|m| {
                let [low, high] = [0, 1].map(|i| m["win_minus_loss_ci95"][i].as_f64().unwrap());
                let score = m["win_minus_loss"].as_f64().unwrap();
                assert!(low <= score && score <= high && high - low > 0.5, "{m}");
                (m["game"].as_u64().unwrap(), m["at_end"].as_bool().unwrap())
            })
            .collect()
    };
    assert_eq!(evaluations(&run), [(6, true)]);
    let out = descent(&["train", "--resume", run_s, "--max-games", "8", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("strength: "));
    assert_eq!(evaluations(&run), [(6, true), (8, true)]);
}

#[test]
fn periodic_evaluations_do_not_count_as_training_time() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(
        tmp.path(),
        "evaluation:\n  every_games: 1\n  at_end: false\n  games: 2\n  opponent: random\n  time_per_move: 100ms\ncheckpoint:\n  every_games: 1000\n",
    );
    let run = tmp.path().join("run");
    let start = Instant::now();
    let out = descent(&[
        "train",
        &config,
        "--run-dir",
        run.to_str().unwrap(),
        "--max-time",
        "3s",
        "--quiet",
    ]);
    let wall = start.elapsed().as_secs_f64();
    assert!(out.status.success(), "{}", stderr(&out));
    let evaluation_seconds: f64 = metrics(&run)
        .iter()
        .filter(|m| m["kind"] == "evaluation")
        .map(|m| m["seconds"].as_f64().unwrap())
        .sum();
    assert!(evaluation_seconds > 1.0, "{evaluation_seconds}");
    let state = latest_state(&run);
    let trained = state["elapsed_seconds"].as_f64().unwrap();
    assert!(trained >= 3.0, "{trained}");
    assert!(
        trained <= wall - evaluation_seconds,
        "training time {trained} s includes evaluations ({evaluation_seconds} s of {wall} s)"
    );
}

/// On a one-player game the periodic evaluation compares scores: each side plays its own games.
#[test]
fn a_one_player_run_evaluates_by_mean_score() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("morpion.yaml");
    std::fs::write(
        &config,
        "game: morpion\nseed: 2\nsearch:\n  iters: 2\nlearning:\n  terminal_eval: score\nreplay:\n  games: 4\n  duplication: 1\n  batch_size: 32\nevaluation:\n  every_games: 1\n  games: 2\n  opponent: random\n  time_per_move: 5ms\n",
    )
    .unwrap();
    let run = tmp.path().join("run");
    train_games(config.to_str().unwrap(), &run, 1);
    let lines = metrics(&run);
    let eval = lines
        .iter()
        .find(|m| m["kind"] == "evaluation")
        .expect("an evaluation line");
    let mean = eval["mean_score"]
        .as_f64()
        .expect("the network's mean score");
    let best = eval["best_score"].as_f64().expect("its best score");
    let baseline = eval["baseline_mean_score"]
        .as_f64()
        .expect("the baseline's");
    // One game each: the mean is that game's score, Morpion games draw at least a few lines.
    assert_eq!(mean, best);
    assert!(mean >= 10.0 && baseline >= 10.0, "{eval}");
}

#[test]
fn bad_configurations_are_refused_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        ("search:\n  iters: 10\n  budget: 3\n", "budget"),
        ("selection:\n  distribution: boltzmann\n", "boltzmann"),
        ("learning:\n  terminal_eval: score\n", "score"),
        ("replay:\n  batch_size: many\n", "batch_size"),
    ];
    for (k, (extra, needle)) in cases.iter().enumerate() {
        let config = write_config(tmp.path(), extra);
        let run = tmp.path().join(format!("bad{k}"));
        let out = descent(&[
            "train",
            &config,
            "--run-dir",
            run.to_str().unwrap(),
            "--max-games",
            "2",
        ]);
        assert!(!out.status.success(), "{extra}");
        assert!(stderr(&out).contains(needle), "{extra}: {}", stderr(&out));
        // Validation errors are found before the run directory is made; the score check needs
        // the game, after it: a run that fails before its first checkpoint is removed.
        assert!(!run.exists(), "{extra}: {run:?} left behind");
    }
    let out = descent(&["train", "/nonexistent/config.yaml"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("/nonexistent/config.yaml"));
    // An existing run is never overwritten.
    let config = write_config(tmp.path(), "");
    let run = tmp.path().join("once");
    train_games(&config, &run, 1);
    let before = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    let out = descent(&[
        "train",
        &config,
        "--run-dir",
        run.to_str().unwrap(),
        "--max-games",
        "1",
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--resume"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(run.join("metrics.jsonl")).unwrap(),
        before
    );
    // Resuming what is not a run.
    let out = descent(&["train", "--resume", tmp.path().to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("not a run directory"));
}

/// Lines of `metrics.jsonl` of kind `kind`.
fn count_lines(run: &Path, kind: &str) -> usize {
    // Read while the run writes: the file may be missing or end in a partial line.
    std::fs::read_to_string(run.join("metrics.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["kind"] == kind)
        .count()
}

fn start_training(dir: &Path, config: &str) -> (std::process::Child, std::path::PathBuf) {
    let path = dir.join("long.yaml");
    std::fs::write(&path, config).unwrap();
    let run = dir.join("run");
    let child =
        crate::common::sighup_as_from_a_terminal(&mut Command::new(env!("CARGO_BIN_EXE_descent")))
            .args(["train", path.to_str().unwrap(), "--run-dir"])
            .arg(&run)
            .arg("--quiet")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
    (child, run)
}

/// A run that ends without its evaluation says how to measure its network with the recipe's
/// own player: UBFM_s for Athénan (above), PUCT for AlphaZero, ExIt's expert for ExIt.
#[test]
fn the_strength_hint_names_the_recipes_own_player() {
    let tmp = tempfile::tempdir().unwrap();
    for (recipe, section, player) in [
        (
            "alphazero",
            "alphazero: {simulations: 4, parallel_games: 2, batch_size: 8, window: 64}",
            "puct",
        ),
        (
            "exit",
            "exit: {expert_iterations: 4, warm_start_games: 1, games_per_phase: 1}",
            "exit",
        ),
    ] {
        let path = tmp.path().join(format!("{recipe}.yaml"));
        let config = format!(
            "game: tic_tac_toe\nrecipe: {recipe}\n{section}\nnetwork: {{architecture: resnet-b0c2-fc4}}\nrun: {{max_games: 2}}\nevaluation: {{at_end: false}}\n"
        );
        std::fs::write(&path, config).unwrap();
        let run = tmp.path().join(recipe);
        let out = descent(&[
            "train",
            path.to_str().unwrap(),
            "--run-dir",
            run.to_str().unwrap(),
            "--quiet",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let said = String::from_utf8_lossy(&out.stdout);
        let hint =
            format!("measure it with: descent eval --game tic_tac_toe --agent {player}:model=");
        assert!(said.contains(&hint), "{recipe}: {said}");
    }
}

fn wait_for_games(run: &Path, games: usize) {
    let start = Instant::now();
    while count_lines(run, "game") < games {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no {games} games"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A tic-tac-toe run sent `signal` once it has played 5 games: its output, after checking that
/// every game played is in its last checkpoint.
fn run_stopped_by(signal: i32) -> std::process::Output {
    let tmp = tempfile::tempdir().unwrap();
    let (child, run) = start_training(
        tmp.path(),
        "game: tic_tac_toe\nsearch: {iters: 30}\nrun: {max_games: 1000000}\ncheckpoint: {every_games: 100000}\n",
    );
    wait_for_games(&run, 5);
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, signal) };
    let out = child.wait_with_output().unwrap();
    let played = count_lines(&run, "game") as u64;
    assert_eq!(
        latest_state(&run)["games"],
        played,
        "every game played is in the checkpoint"
    );
    assert!(played >= 5);
    out
}

/// SIGTERM (what systemd, Docker and SLURM send) stops a run as Ctrl-C does — the games in play
/// learned, a checkpoint — and exits 143, saying so.
#[test]
fn sigterm_checkpoints_what_was_played_and_exits_143() {
    let out = run_stopped_by(libc::SIGTERM);
    assert_eq!(out.status.code(), Some(143), "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("stopped by SIGTERM"), "{said}");
    assert!(
        stderr(&out).contains("SIGTERM: finishing the games in play"),
        "{}",
        stderr(&out)
    );
}

/// SIGHUP (the terminal or SSH session closed, the command not under `nohup`) stops a run as
/// SIGTERM does, exiting 129; before, it killed the run with nothing checkpointed.
#[test]
fn sighup_checkpoints_what_was_played_and_exits_129() {
    let out = run_stopped_by(libc::SIGHUP);
    assert_eq!(out.status.code(), Some(129), "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("stopped by SIGHUP"), "{said}");
}

/// The first Ctrl-C finishes the games in play, learns them, writes a checkpoint and says so:
/// nothing played is lost and the run resumes from there. A second Ctrl-C stops at once,
/// saying what is lost.
#[test]
fn ctrl_c_checkpoints_what_was_played_and_a_second_stops_at_once() {
    let out = run_stopped_by(libc::SIGINT);
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("stopped by Ctrl-C"), "{said}");
    assert!(
        said.contains("strength: not measured (stopped by Ctrl-C); measure it with: descent eval --game tic_tac_toe --agent ubfms:model="),
        "no evaluation at the end after Ctrl-C: {said}"
    );
    assert!(
        stderr(&out).contains("finishing the games in play"),
        "{}",
        stderr(&out)
    );

    let tmp = tempfile::tempdir().unwrap();
    let (child, run) = start_training(
        tmp.path(),
        "game: connect_four\nsearch: {iters: 300}\nrun: {max_games: 1000000}\ncheckpoint: {every_games: 100000}\n",
    );
    wait_for_games(&run, 1);
    for _ in 0..2 {
        // SAFETY: signalling our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        std::thread::sleep(Duration::from_millis(30));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(stderr(&out).contains("stopped at once"), "{}", stderr(&out));
}

/// `--max-time` holds the whole run, its final evaluation included: self-play stops early
/// enough to leave it time, and it starts no move after the limit. Here the evaluation (20
/// games at 100 ms a move) is estimated at more than half of 30 s, so it gets half and plays
/// the games that fit, and the report says how many of how many. Athénan and AlphaZero, at
/// once.
#[test]
fn a_timed_run_ends_within_its_max_time_final_evaluation_included() {
    let tmp = tempfile::tempdir().unwrap();
    let evaluation = "evaluation:\n  games: 20\n  opponent: mcts\n  time_per_move: 100ms\n";
    let athenan = common::write_small_config(tmp.path(), evaluation);
    let alphazero = tmp.path().join("alphazero.yaml");
    std::fs::write(
        &alphazero,
        format!(
            "game: tic_tac_toe\nrecipe: alphazero\nnetwork: {{architecture: resnet-b0c8-fc16}}\n\
             alphazero: {{simulations: 20, parallel_games: 8, window: 512, batch_size: 32}}\n{evaluation}"
        ),
    )
    .unwrap();
    let start = Instant::now();
    let runs: Vec<_> = [athenan.as_str(), alphazero.to_str().unwrap()]
        .iter()
        .enumerate()
        .map(|(i, config)| {
            let run = tmp.path().join(format!("run{i}"));
            let child = Command::new(env!("CARGO_BIN_EXE_descent"))
                .args(["train", config, "--run-dir", run.to_str().unwrap()])
                .args(["--max-time", "30s", "--quiet"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            (run, child)
        })
        .collect();
    for (run, child) in runs {
        let out = child.wait_with_output().unwrap();
        let seconds = start.elapsed().as_secs_f64();
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            seconds <= 31.5,
            "{} ended after {seconds:.1} s",
            run.display()
        );
        let said = String::from_utf8_lossy(&out.stdout);
        let end = metrics(&run)
            .into_iter()
            .find(|m| m["kind"] == "evaluation" && m["at_end"] == true)
            .expect("an evaluation at the run's end");
        // All 20 when the searches end early (a solved tic-tac-toe position), else those that
        // fit, said so (`arena::a_match_with_a_deadline_reports_the_games_it_finished`).
        let games = end["games"].as_u64().unwrap();
        assert!(games >= 2, "{end}");
        assert_eq!(end["games_asked"], 20, "{end}");
        let over = match games {
            20 => "over 20 games, both colours".to_string(),
            _ => format!("over {games} of 20 games (the run's time ran out)"),
        };
        assert!(said.contains(&over), "{said}");
    }
}

/// The evaluation at the run's end prints the `descent eval` command that plays its games
/// again; with an iterations budget it gives the same W/D/L, side by side.
#[test]
fn the_evaluation_at_the_end_and_its_eval_command_play_the_same_games() {
    let tmp = tempfile::tempdir().unwrap();
    let config = common::write_small_config(
        tmp.path(),
        "evaluation:\n  games: 10\n  opponent: mcts\n  iterations_per_move: 8\n",
    );
    let run = tmp.path().join("run");
    let out = descent(&[
        "train",
        &config,
        "--run-dir",
        run.to_str().unwrap(),
        "--max-games",
        "6",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    let command = said
        .lines()
        .find_map(|l| l.trim().strip_prefix("the same games: descent "))
        .unwrap_or_else(|| panic!("no eval command in {said}"));
    let mut args = single_quoted_words(command);
    args.push("--json".to_string());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let eval = descent(&args);
    assert!(eval.status.success(), "{}", stderr(&eval));
    let report: Value = serde_json::from_slice(&eval.stdout).unwrap();
    let end = metrics(&run)
        .into_iter()
        .find(|m| m["kind"] == "evaluation" && m["at_end"] == true)
        .unwrap();
    assert_eq!(report["as_p0"], end["as_p0"], "{report} / {end}");
    assert_eq!(report["as_p1"], end["as_p1"], "{report} / {end}");
    assert_eq!(report["summary"]["games"], 10);
}

/// Splits a shell command whose quoted words are in single quotes without quotes inside.
fn single_quoted_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in command.chars() {
        match c {
            '\'' => quoted = !quoted,
            ' ' if !quoted => words.push(std::mem::take(&mut word)),
            c => word.push(c),
        }
    }
    words.push(word);
    words.retain(|w| !w.is_empty());
    words
}
