//! The `descent` binary driven as a child process: output, JSON fields and exit codes.

use crate::common;
use crate::common::{descent, stderr, stdout};

#[test]
fn games_lists_every_registered_game() {
    let out = descent(&["games", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let games: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let names: Vec<&str> = games
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "awale",
            "connect_four",
            "tic_tac_toe",
            "hus",
            "shobu",
            "breakthrough",
            "othello",
            "clobber",
            "hex",
            "gomoku",
            "lines_of_action",
            "amazons",
            "go",
            "havannah",
            "ataxx",
            "draughts",
            "connect6",
            "santorini",
            "arimaa",
            "morpion",
            "surakarta"
        ]
    );
    assert_eq!(
        games[13]["num_actions"], 225,
        "Havannah 8: its 15 × 15 grid"
    );
    assert_eq!(games[13]["symmetries"].as_array().map(Vec::len), Some(11));
    assert_eq!(games[11]["num_actions"], 20736, "Amazons: whole turns");
    assert_eq!(games[8]["num_actions"], 122, "Hex 11 and the swap");
    assert_eq!(games[0]["num_actions"], 6);
    assert_eq!(games[3]["num_actions"], 32);
    assert_eq!(games[4]["num_actions"], 16384);
    assert_eq!(games[4]["symmetries"].as_array().map(Vec::len), Some(15));
    assert_eq!(games[1]["symmetries"], serde_json::json!(["mirror"]));
    let text = descent(&["games"]);
    assert!(stdout(&text).contains("connect_four"));
}

#[test]
fn perft_prints_the_counts() {
    let out = descent(&["perft", "tic_tac_toe", "9"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(" 504 ") && text.contains(" 127872 "),
        "{text}"
    );
}

#[test]
fn replay_reports_every_position_as_json() {
    let out = descent(&["replay", "awale", "--moves", "C d A", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["game"], "awale");
    let positions = report["positions"].as_array().unwrap();
    assert_eq!(positions.len(), 4);
    assert_eq!(positions[0]["ply"], 0);
    assert_eq!(positions[0]["to_move"], "p0");
    assert_eq!(
        positions[0]["legal_moves"],
        serde_json::json!(["A", "B", "C", "D", "E", "F"])
    );
    assert_eq!(positions[1]["move"], "C");
    assert_eq!(positions[1]["move_id"], 2);
    assert_eq!(positions[1]["to_move"], "p1");
    assert_eq!(positions[2]["move"], "d");
    assert_eq!(positions[3]["terminal"], false);
    assert_eq!(positions[3]["returns"], serde_json::json!([0.0, 0.0]));
    assert_eq!(positions[3]["score_p0"], 0);
    for field in ["legal_ids", "hash", "board"] {
        assert!(positions[3].get(field).is_some(), "missing field {field}");
    }
    // The same game by ids gives the same positions.
    let by_ids = descent(&["replay", "awale", "--ids", "2,3,0", "--json"]);
    assert_eq!(stdout(&by_ids), stdout(&out));
}

#[test]
fn solve_scores_every_column_of_a_connect_four_position() {
    // The first line of Pons' Test_L3_R1 set (score -1): P1 to move, only columns f and g left.
    let out = descent(&[
        "solve",
        "connect_four",
        "--pons",
        "2252576253462244111563365343671351441",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["score"], -1);
    assert_eq!(report["to_move"], "p1");
    assert_eq!(
        report["column_scores"],
        serde_json::json!([null, null, null, null, null, -1, -2])
    );
    assert_eq!(report["best"], serde_json::json!(["f"]));
    // P0 to move with b1-c1-d1 open at both ends after "b f c g d" in the game's notation.
    let out = descent(&["solve", "connect_four", "--moves", "b f c g d e", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["pons"], "263745");
    assert_eq!(report["best"], serde_json::json!(["a"]));
    assert_eq!(report["score"], 18);
}

#[test]
fn solve_refuses_bad_moves_finished_games_and_other_games() {
    for (args, expected) in [
        (vec!["--pons", "48"], "'8' is not a column 1-7"),
        (vec!["--pons", "4x"], "'x' is not a column 1-7"),
        (vec!["--pons", "1111111"], "ply 7"),
        (vec!["--moves", "d a d a d a d"], "the game is over"),
        (vec!["--moves", "d", "--pons", "4"], "cannot be used with"),
    ] {
        let mut argv = vec!["solve", "connect_four"];
        argv.extend(args.iter().copied());
        let out = descent(&argv);
        assert_eq!(
            out.status.code(),
            Some(if expected == "cannot be used with" {
                2
            } else {
                1
            }),
            "{argv:?}"
        );
        assert!(
            stderr(&out).contains(expected),
            "{argv:?}: {}",
            stderr(&out)
        );
    }
    let out = descent(&["solve", "go"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no solver for go"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn solve_samples_scored_positions_that_accuracy_reads() {
    let out = descent(&[
        "solve",
        "connect_four",
        "--sample",
        "4",
        "--plies",
        "14-18",
        "--seed",
        "5",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = stdout(&out);
    assert_eq!(lines.lines().count(), 4, "{lines}");
    for line in lines.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        assert_eq!(words.len(), 8, "{line}");
        assert!((14..=18).contains(&words[0].len()), "{line}");
    }
    // The same seed, fewer positions: the first lines again.
    let two = descent(&[
        "solve",
        "connect_four",
        "--sample",
        "2",
        "--plies",
        "14-18",
        "--seed",
        "5",
    ]);
    assert!(lines.starts_with(&stdout(&two)));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("positions.txt");
    std::fs::write(&file, &lines).unwrap();
    let out = accuracy_of_random(file.to_str().unwrap(), &["--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["all"]["positions"], 4);
    let perfect = report["all"]["perfect"].as_u64().unwrap();
    let interval = &report["all"]["perfect_ci95"];
    assert!(interval[0].as_f64().unwrap() <= perfect as f64 / 4.0);
    assert!(interval[1].as_f64().unwrap() >= perfect as f64 / 4.0);
    // The shipped set, its first 10 positions.
    let out = descent(&[
        "accuracy",
        "connect_four",
        "--agent",
        "mcts:iters=50",
        "--limit",
        "10",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("on 10 positions from data/connect_four_positions.txt"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("perfect moves"), "{}", stdout(&out));
}

/// `descent accuracy connect_four --agent random --positions PATH EXTRA...`.
fn accuracy_of_random(positions: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "accuracy",
        "connect_four",
        "--agent",
        "random",
        "--positions",
        positions,
    ];
    args.extend_from_slice(extra);
    descent(&args)
}

#[test]
fn accuracy_refuses_bad_positions_files_and_other_games() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("positions.txt");
    std::fs::write(&file, "4453 -5 -5 -2 -3 -4 -2 -2\n4453 -5 -5 -2\n").unwrap();
    let path = file.to_str().unwrap();
    let out = accuracy_of_random(path, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("line 2: 3 scores after the moves, expected 7"),
        "{}",
        stderr(&out)
    );
    let out = accuracy_of_random(dir.path().to_str().unwrap(), &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let out = descent(&["accuracy", "othello", "--agent", "random"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no solver for othello"),
        "{}",
        stderr(&out)
    );
    // 41 moves leave one empty cell: never an informative position, so never 3 of them.
    let out = descent(&["solve", "connect_four", "--sample", "3", "--plies", "41"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("only 0 distinct positions"),
        "{}",
        stderr(&out)
    );
    let out = descent(&["solve", "connect_four", "--sample", "2", "--plies", "30-50"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("\"50\" is not a number of moves from 0 to 41"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn replay_to_the_end_reports_the_result() {
    // x takes the top row: a1 b1 c1 with o on a2 b2.
    let out = descent(&[
        "replay",
        "tic_tac_toe",
        "--moves",
        "a1 a2 b1 b2 c1",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let last = &report["positions"][5];
    assert_eq!(last["terminal"], true);
    assert_eq!(last["to_move"], serde_json::Value::Null);
    assert_eq!(last["returns"], serde_json::json!([1.0, -1.0]));
    assert_eq!(last["legal_moves"], serde_json::json!([]));
}

#[test]
fn replay_refuses_an_illegal_move_naming_the_ply_and_the_move() {
    // Column a is full after six moves: the seventh is illegal.
    let out = descent(&["replay", "connect_four", "--moves", "a a a a a a a"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("ply 7") && err.contains("\"a\"") && err.contains("not legal"),
        "{err}"
    );
}

#[test]
fn replay_refuses_another_players_move_and_garbled_text() {
    // After A (P0), P1 moves with lower case: "A" is not P1's notation.
    let out = descent(&["replay", "awale", "--moves", "A A"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("ply 2") && err.contains("\"A\""), "{err}");
    let out = descent(&["replay", "awale", "--moves", "A ☃"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("ply 2"), "{}", stderr(&out));
    let out = descent(&["replay", "awale", "--ids", "2,x"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("ply 2") && err.contains("\"x\""), "{err}");
    let out = descent(&["replay", "awale", "--ids", "2,9"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("out of range"), "{}", stderr(&out));
    // A move after the end of the game.
    let out = descent(&["replay", "tic_tac_toe", "--moves", "a1 a2 b1 b2 c1 c2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("ply 6") && stderr(&out).contains("over"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn unknown_games_and_parameters_are_refused() {
    let out = descent(&["replay", "chess", "--moves", "e4"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("chess") && stderr(&out).contains("awale"),
        "{}",
        stderr(&out)
    );
    let out = descent(&["perft", "awale(seeds=3)", "2"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("seeds"), "{}", stderr(&out));
}

/// A bare number is no duration: `time=50` once meant 50 seconds a move to users who meant
/// milliseconds. On the command line, in an agent spec and in a YAML file, the message says
/// which unit to add.
#[test]
fn durations_without_a_unit_are_refused_naming_the_fix() {
    let out = descent(&[
        "eval",
        "--game",
        "tic_tac_toe",
        "--agent",
        "mcts:time=50",
        "--opponent",
        "random",
        "--games",
        "2",
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("add a unit: 50ms, 50s or 50m"),
        "{}",
        stderr(&out)
    );
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("bare.yaml");
    std::fs::write(&config, "game: tic_tac_toe\nsearch:\n  time: 2\n").unwrap();
    let run = dir.path().join("run");
    let out = descent(&[
        "train",
        config.to_str().unwrap(),
        "--run-dir",
        run.to_str().unwrap(),
        "--max-games",
        "1",
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("add a unit: 2ms, 2s or 2m") && stderr(&out).contains("time"),
        "{}",
        stderr(&out)
    );
    assert!(!run.exists(), "nothing written for a refused config");
    let out = descent(&[
        "play",
        "--game",
        "tic_tac_toe",
        "--agent",
        "random",
        "--time",
        "3",
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("add a unit: 3ms, 3s or 3m"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bench_rules_prints_one_json_object() {
    let out = descent(&[
        "bench",
        "rules",
        "tic_tac_toe",
        "--seconds",
        "0.2",
        "--threads",
        "2",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(report["bench"], "rules");
    assert_eq!(report["all_threads"]["threads"], 2);
    assert!(report["single_thread"]["moves_per_s"].as_f64().unwrap() > 0.0);
    let length = report["mean_game_length"].as_f64().unwrap();
    assert!(
        (5.0..=9.0).contains(&length),
        "tic-tac-toe games last 5 to 9 plies, mean {length}"
    );
    assert!(report["longest_game"].as_u64().unwrap() <= 9);
}

#[test]
fn bench_search_prints_one_json_object_per_algorithm() {
    for algo in ["descent", "ubfm", "ubfms", "mcts", "alphabeta"] {
        let out = descent(&[
            "bench",
            "search",
            "tic_tac_toe",
            "--algo",
            algo,
            "--iterations",
            "200",
            "--json",
        ]);
        assert!(out.status.success(), "{algo}: {}", stderr(&out));
        let report: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        assert_eq!(report["bench"], "search");
        assert_eq!(report["algo"], algo);
        assert!(report["iterations"].as_u64().unwrap() >= 1);
        for field in [
            "iterations_per_s",
            "expansions_per_s",
            "evaluator_calls",
            "mean_batch",
            "table_entries",
        ] {
            assert!(report.get(field).is_some(), "{algo}: missing {field}");
        }
    }
    // Completed Descent proves tic-tac-toe before 200 000 iterations and stops.
    let out = descent(&[
        "bench",
        "search",
        "tic_tac_toe",
        "--algo",
        "descent",
        "--iterations",
        "200000",
        "--json",
    ]);
    let report: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert!(report["iterations"].as_u64().unwrap() < 200_000);
    let out = descent(&["bench", "search", "awale", "--algo", "minimax"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("minimax") && stderr(&out).contains("descent"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bench_selfplay_merges_the_games_in_flight_into_larger_calls() {
    let out = descent(&[
        "bench",
        "selfplay",
        "tic_tac_toe",
        "--arch",
        "resnet-b1c8-fc16",
        "--games-in-flight",
        "1,8",
        "--seconds",
        "0.5",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(report["bench"], "selfplay");
    let m = report["measurements"].as_array().unwrap();
    let per_call = |i: usize| m[i]["mean_positions_per_call"].as_f64().unwrap();
    // One tic-tac-toe game asks for at most 9 children at a time; eight in flight, more.
    assert!(per_call(0) <= 9.0, "{}", per_call(0));
    assert!(per_call(1) > 9.0, "{}", per_call(1));
    assert!(m[1]["positions_per_s"].as_f64().unwrap() > 0.0);
    let length = report["mean_game_length"].as_f64().unwrap();
    assert!((5.0..=9.0).contains(&length), "{length}");
    for (flag, value, says) in [
        ("--games-in-flight", "0", "--games-in-flight"),
        ("--games-in-flight", "5000", "the limit of 4096"),
        ("--algo", "minimax", "minimax"),
    ] {
        let out = descent(&["bench", "selfplay", "tic_tac_toe", flag, value]);
        assert!(!out.status.success(), "{flag} {value}");
        assert!(
            stderr(&out).contains(says),
            "{flag} {value}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn bench_nn_prints_figures_and_refuses_uncompiled_devices() {
    let out = descent(&[
        "bench",
        "nn",
        "tic_tac_toe",
        "--arch",
        "resnet-b1c8-fc16",
        "--batch",
        "1,4",
        "--train",
        "--train-batch",
        "8,16",
        "--seconds",
        "0.1",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(report["bench"], "nn");
    assert_eq!(report["arch"], "resnet-b1c8-fc16");
    assert_eq!(report["inference"].as_array().unwrap().len(), 2);
    assert!(report["inference"][1]["positions_per_s"].as_f64().unwrap() > 0.0);
    let training = report["training"].as_array().unwrap();
    let engines: Vec<(&str, u64)> = training
        .iter()
        .map(|t| (t["engine"].as_str().unwrap(), t["batch"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        engines,
        [
            ("descent-cpu", 8),
            ("descent-cpu", 16),
            ("flex", 8),
            ("flex", 16)
        ]
    );
    assert_eq!(report["train_batches"], serde_json::json!([8, 16]));
    for t in training {
        let samples_per_s = t["samples_per_s"].as_f64().unwrap();
        assert!(samples_per_s > 0.0, "{t}");
        assert!(t["share_of_peak"].as_f64().unwrap() > 0.0, "{t}");
        // The median step's rate and the mean rate agree within a factor of ten (milliseconds,
        // not seconds or microseconds).
        let batch = t["batch"].as_f64().unwrap();
        let median_rate = batch / (t["median_step_ms"].as_f64().unwrap() / 1e3);
        let ratio = median_rate / samples_per_s;
        assert!((0.1..10.0).contains(&ratio), "{t}");
    }
    assert!(report["matrix_peak_gflops"].as_f64().unwrap() > 0.0);
    assert!(report["matrix_peak_of"].as_str().unwrap().contains("sgemm"));
    // Without --train, inference only.
    let out = descent(&[
        "bench",
        "nn",
        "tic_tac_toe",
        "--batch",
        "1",
        "--seconds",
        "0.05",
        "--json",
    ]);
    let report: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert!(report["training"].as_array().unwrap().is_empty());
    assert!(report["matrix_peak_gflops"].is_null());
    let out = descent(&["bench", "nn", "awale", "--arch", "vgg"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("vgg") && stderr(&out).contains("paper-cnn"),
        "{}",
        stderr(&out)
    );
    if !cfg!(feature = "cuda") {
        let out = descent(&[
            "bench",
            "nn",
            "awale",
            "--device",
            "cuda:0",
            "--seconds",
            "0.1",
        ]);
        assert_eq!(out.status.code(), Some(1));
        assert!(stderr(&out).contains("--features cuda"), "{}", stderr(&out));
    }
}

/// `descent games | head -1` when the reader is gone before descent writes: descent ends
/// quietly (by SIGPIPE, as Unix tools do), never with a panic on the broken pipe.
#[test]
fn a_closed_output_pipe_ends_descent_quietly() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_descent"))
        .arg("games")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The pipe's only read end closes while descent is still starting.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("panicked") && !err.contains("Broken pipe"),
        "{err}"
    );
    assert!(
        out.status.signal() == Some(libc::SIGPIPE) || out.status.success(),
        "{:?}: {err}",
        out.status
    );
}

/// Logs written to a pipe or a file carry no colour codes; a network past the size limit in
/// an agent spec is refused as it is in a config, naming the limit, before anything is
/// allocated.
#[test]
fn logs_off_a_terminal_are_plain_and_agent_networks_are_size_limited() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/tic_tac_toe.yaml");
    common::train_games(config, &run, 2);
    // A resume without its `latest` link logs a warning.
    std::fs::remove_file(run.join("latest")).unwrap();
    let out = descent(&[
        "train",
        "--resume",
        run.to_str().unwrap(),
        "--max-games",
        "3",
    ]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("WARN") && err.contains("latest is missing"),
        "{err}"
    );
    assert!(!err.contains('\u{1b}'), "no escape codes: {err:?}");
    let out = descent(&[
        "eval",
        "--game",
        "tic_tac_toe",
        "--agent",
        "greedy:model=untrained,arch=resnet-b1c100000-fc1",
        "--opponent",
        "random",
        "--games",
        "2",
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("more than the limit"), "{err}");
}

/// A YAML mistake names the file once, with the snippet labelled by the file (not `<input>`)
/// and no second `error:`.
#[test]
fn a_yaml_mistake_names_its_file_once_and_labels_the_snippet_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("bad.yaml");
    std::fs::write(&config, "game: awale\nrun:\n  max_tme: 5m\n").unwrap();
    let path = config.to_str().unwrap();
    let out = descent(&["train", path]);
    assert!(!out.status.success());
    let message = stderr(&out);
    assert!(message.contains("unknown field `max_tme`"), "{message}");
    assert!(message.contains(&format!("--> {path}:3:3")), "{message}");
    assert!(!message.contains("<input>"), "{message}");
    assert_eq!(message.matches("error:").count(), 1, "{message}");
}

/// With stderr not a terminal (a script, nohup, SLURM), `eval` writes plain progress lines —
/// one line each, no carriage return — at the interval `DESCENT_PROGRESS_SECONDS` sets (0: every
/// game); `--quiet` writes none. It wrote nothing until the end.
#[test]
fn eval_into_a_log_writes_plain_progress_lines() {
    let run = |quiet: bool| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_descent"));
        command
            .args(["eval", "--game", "tic_tac_toe", "--agent", "random"])
            .args(["--opponent", "random", "--games", "6", "--threads", "1"])
            .env("DESCENT_PROGRESS_SECONDS", "0");
        if quiet {
            command.arg("--quiet");
        }
        command.output().unwrap()
    };
    let out = run(false);
    assert!(out.status.success(), "{}", stderr(&out));
    let log = stderr(&out);
    let lines: Vec<&str> = log.lines().filter(|l| l.contains("/6 games (")).collect();
    assert_eq!(lines.len(), 6, "{log}");
    assert!(lines[5].starts_with("6/6 games (100 %)"), "{log}");
    assert!(lines[5].contains("agent W/D/L"), "{log}");
    assert!(!log.contains('\r'), "{log:?}");
    assert!(!stderr(&run(true)).contains("games ("));
}
