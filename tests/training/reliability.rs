//! What survives what, each as a child process on real files: a missing `latest` link, two
//! processes on one run or experiment, huge and zero durations, corrupted checkpoint and export
//! files, invalid bytes on stdin, absurd sizes, a resume under a changed configuration, and
//! leftovers of failed writes.

use crate::common;
use crate::common::{
    assert_no_crash, descent, descent_with_input, latest_state, metrics, stderr, stdout,
    without_line, write_small_config,
};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use descent::selfplay::run::dir_lock::DirLock;

/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn game_numbers(run: &Path) -> Vec<u64> {
    metrics(run)
        .iter()
        .filter(|m| m["kind"] == "game")
        .map(|m| m["game"].as_u64().unwrap())
        .collect()
}

/// A finished run of `games` games, checkpointed every 2.
fn small_run(dir: &Path, name: &str, games: u64) -> PathBuf {
    common::small_run(dir, name, "checkpoint:\n  every_games: 2\n", games)
}

fn resume(run: &Path, games: u64) -> std::process::Output {
    descent(&[
        "train",
        "--resume",
        run.to_str().unwrap(),
        "--max-games",
        &games.to_string(),
        "--quiet",
    ])
}

/// The checkpoint's metrics length and the file's agree.
fn assert_metrics_consistent(run: &Path) {
    let state = latest_state(run);
    let length = std::fs::metadata(run.join("metrics.jsonl")).unwrap().len();
    assert_eq!(state["metrics_bytes"].as_u64(), Some(length));
}

#[test]
fn a_missing_or_dangling_latest_link_resumes_from_the_newest_complete_checkpoint() {
    let tmp = tempfile::tempdir().unwrap();
    let run = small_run(tmp.path(), "run", 6);
    std::fs::remove_file(run.join("latest")).unwrap();
    let out = resume(&run, 8);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("latest is missing") && err.contains("ckpt-6"),
        "{err}"
    );
    assert_eq!(game_numbers(&run), (1..=8).collect::<Vec<_>>());
    assert_metrics_consistent(&run);

    // A dangling link, and an incomplete newest checkpoint (a copy cut short) skipped.
    std::fs::remove_file(run.join("latest")).unwrap();
    std::os::unix::fs::symlink("ckpt-99", run.join("latest")).unwrap();
    std::fs::remove_file(run.join("ckpt-8/optimizer.bpk")).unwrap();
    let out = resume(&run, 10);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("ckpt-99, which is missing"), "{err}");
    assert!(
        err.contains("ckpt-8 is incomplete") && err.contains("ckpt-6"),
        "{err}"
    );
    assert_eq!(game_numbers(&run), (1..=10).collect::<Vec<_>>());
    assert_metrics_consistent(&run);

    // A link into another run's directory: not followed; this run's newest checkpoint is.
    let other = small_run(tmp.path(), "other", 4);
    std::fs::remove_file(run.join("latest")).unwrap();
    std::os::unix::fs::symlink(other.join("ckpt-4"), run.join("latest")).unwrap();
    let out = resume(&run, 12);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("not a checkpoint of this run"), "{err}");
    assert_eq!(game_numbers(&run), (1..=12).collect::<Vec<_>>());
    assert_metrics_consistent(&run);
}

#[test]
fn a_locked_run_or_experiment_refuses_a_second_process_and_a_killed_holder_does_not_block() {
    let tmp = tempfile::tempdir().unwrap();
    let run = small_run(tmp.path(), "run", 2);
    let before = std::fs::read(run.join("metrics.jsonl")).unwrap();
    // This test process holds the lock, as a running `descent train` would.
    let lock = DirLock::acquire(&run, "run").unwrap();
    let out = resume(&run, 4);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("is in use") && err.contains("pid"), "{err}");
    assert_eq!(std::fs::read(run.join("metrics.jsonl")).unwrap(), before);
    drop(lock);

    // A holder killed with SIGKILL leaves the lock file, but not the lock.
    let mut child = Command::new(env!("CARGO_BIN_EXE_descent"))
        .args([
            "train",
            "--resume",
            run.to_str().unwrap(),
            "--max-games",
            "100000",
        ])
        .args(["--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while game_numbers(&run).len() < 3 {
        assert!(start.elapsed() < Duration::from_secs(60), "no game played");
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = resume(&run, 4);
    assert!(stderr(&out).contains("is in use"), "{}", stderr(&out));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(run.join(".lock").exists());
    let target = latest_state(&run)["games"].as_u64().unwrap() + 2;
    let out = resume(&run, target);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(game_numbers(&run), (1..=target).collect::<Vec<_>>());

    // An experiment directory in use.
    let experiment = tmp.path().join("experiment.yaml");
    std::fs::write(
        &experiment,
        "game: tic_tac_toe\nrepeats: 1\ntrain_time: 2s\nstage_every: 1s\nset:\n  search.iters: 10\nvariants:\n  - name: tree\n  - name: root\n    set:\n      search.algorithm: mcts\n      learning.targets: root\n",
    )
    .unwrap();
    let out_dir = tmp.path().join("exp");
    std::fs::create_dir(&out_dir).unwrap();
    let lock = DirLock::acquire(&out_dir, "experiment").unwrap();
    let out = descent(&[
        "experiment",
        experiment.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("is in use"), "{}", stderr(&out));
    let entries: Vec<_> = std::fs::read_dir(&out_dir).unwrap().collect();
    assert_eq!(entries.len(), 1, "only the lock file: {entries:?}");
    drop(lock);
}

#[test]
fn huge_durations_are_refused_with_a_message_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_small_config(tmp.path(), "");
    let run = tmp.path().join("run");
    let run_s = run.to_str().unwrap();
    let refused = |args: &[&str], needle: &str| {
        let out = descent(args);
        assert_no_crash(&out, &args.join(" "));
        assert!(!out.status.success(), "{args:?} accepted");
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
    };
    refused(
        &[
            "train",
            &config,
            "--run-dir",
            run_s,
            "--max-time",
            "99999999999999999999d",
        ],
        "bad duration",
    );
    for yaml in ["run:\n  max_time: 1e300\n", "search:\n  time: 1e20\n"] {
        let config = tmp.path().join("huge.yaml");
        std::fs::write(&config, format!("game: tic_tac_toe\n{yaml}")).unwrap();
        refused(
            &["train", config.to_str().unwrap(), "--run-dir", run_s],
            "bad duration",
        );
    }
    assert!(!run.exists(), "nothing written");
    refused(
        &[
            "eval",
            "--game",
            "tic_tac_toe",
            "--agent",
            "mcts:time=1e20",
            "--opponent",
            "random",
        ],
        "bad duration",
    );
    refused(
        &[
            "play",
            "--game",
            "tic_tac_toe",
            "--agent",
            "random",
            "--time",
            "1e300",
        ],
        "bad duration",
    );
    refused(
        &["bench", "rules", "tic_tac_toe", "--seconds", "1e300"],
        "--seconds",
    );
    refused(
        &["bench", "search", "tic_tac_toe", "--seconds", "1e300"],
        "--seconds",
    );
    let out = descent_with_input(
        &[
            "engine",
            "--game",
            "tic_tac_toe",
            "--agent",
            "mcts:iters=10",
        ],
        "set_time 1e20\ntime_settings 1e308 0 0\ntime_left p0 1e308 1\nname\n",
    );
    assert_no_crash(&out, "engine");
    let text = stdout(&out);
    let replies: Vec<&str> = text.split("\n\n").filter(|r| !r.is_empty()).collect();
    assert_eq!(replies.len(), 4, "{replies:?}");
    for reply in &replies[..3] {
        assert!(
            reply.starts_with("? ") && reply.contains("seconds"),
            "{reply}"
        );
    }
    assert_eq!(replies[3], "= descent");
}

#[test]
fn every_agent_answers_a_legal_move_under_a_zero_budget() {
    for agent in [
        "mcts:time=0ms",
        "ubfms:time=0s",
        "ubfm:time=0s",
        "descent:time=0s",
        "alphabeta:time=0s",
    ] {
        let out = descent(&[
            "eval",
            "--game",
            "connect_four",
            "--agent",
            agent,
            "--opponent",
            "random",
            "--games",
            "2",
        ]);
        assert_no_crash(&out, agent);
        assert!(out.status.success(), "{agent}: {}", stderr(&out));
    }
    // play, the agent moving first.
    let out = descent_with_input(
        &[
            "play",
            "--game",
            "tic_tac_toe",
            "--agent",
            "mcts:iters=5",
            "--as",
            "p1",
            "--time",
            "0ms",
        ],
        "quit\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("plays"), "{}", stdout(&out));
    // The engine with a tiny time per move.
    let out = descent_with_input(
        &[
            "engine",
            "--game",
            "tic_tac_toe",
            "--agent",
            "ubfms:iters=50",
        ],
        "set_time 1e-10\ngenmove p0\n",
    );
    assert_no_crash(&out, "engine");
    let text = stdout(&out);
    let replies: Vec<&str> = text.split("\n\n").filter(|r| !r.is_empty()).collect();
    assert_eq!(replies[0], "= ");
    let cell = replies[1].strip_prefix("= ").expect("a move");
    assert!(
        cell.len() == 2 && ('a'..='c').contains(&cell.chars().next().unwrap()),
        "{cell}"
    );
}

/// Flips one bit of `path` at `offset` (from the end when negative).
fn flip_bit(path: &Path, offset: i64, bit: u8) {
    let mut bytes = std::fs::read(path).unwrap();
    let at = if offset < 0 {
        bytes.len() as i64 + offset
    } else {
        offset
    } as usize;
    bytes[at] ^= 1 << bit;
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_flipped_bit_in_any_checkpoint_file_is_a_clear_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let run = small_run(tmp.path(), "run", 2);
    let pristine = tmp.path().join("pristine");
    std::fs::create_dir(&pristine).unwrap();
    let checkpoint = run.join("ckpt-2");
    let files = [
        "net.bpk",
        "net.json",
        "optimizer.bpk",
        "replay.bin.zst",
        "state.json",
    ];
    for file in files {
        std::fs::copy(checkpoint.join(file), pristine.join(file)).unwrap();
    }
    let before = std::fs::read(run.join("metrics.jsonl")).unwrap();
    for file in files {
        let length = std::fs::metadata(checkpoint.join(file)).unwrap().len() as i64;
        // Five single-bit flips spread over the file.
        for k in 0..5 {
            let offset = (length - 1) * k / 4;
            flip_bit(&checkpoint.join(file), offset, (k % 8) as u8);
            let out = resume(&run, 4);
            assert_no_crash(&out, file);
            assert!(!out.status.success(), "{file}: flip at {offset} accepted");
            let err = stderr(&out);
            assert!(
                err.contains(file) && err.contains("corrupt"),
                "{file} at {offset}: {err}"
            );
            std::fs::copy(pristine.join(file), checkpoint.join(file)).unwrap();
        }
    }
    assert_eq!(std::fs::read(run.join("metrics.jsonl")).unwrap(), before);
    // A saved network outside a checkpoint: its manifest's checksum.
    flip_bit(&checkpoint.join("net.bpk"), -3, 2);
    let out = descent(&[
        "eval",
        "--game",
        "tic_tac_toe",
        "--agent",
        &format!("ubfms:model={},iters=5", checkpoint.display()),
        "--opponent",
        "random",
        "--games",
        "2",
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("net.bpk is corrupt"),
        "{}",
        stderr(&out)
    );
    std::fs::copy(pristine.join("net.bpk"), checkpoint.join("net.bpk")).unwrap();
    let out = resume(&run, 4);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_flipped_bit_in_an_export_file_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let run = small_run(tmp.path(), "run", 2);
    let file = tmp.path().join("ttt.descent");
    let out = descent(&[
        "export",
        run.to_str().unwrap(),
        "--out",
        file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let pristine = std::fs::read(&file).unwrap();
    let length = pristine.len() as i64;
    for k in 0..8 {
        // Manifest, weights and checksum alike.
        let offset = 30 + (length - 31) * k / 7;
        flip_bit(&file, offset, (k % 8) as u8);
        let out = descent_with_input(
            &[
                "play",
                "--game",
                "tic_tac_toe",
                "--agent",
                &format!("ubfms:model={},iters=5", file.display()),
            ],
            "quit\n",
        );
        assert_no_crash(&out, "play");
        assert!(!out.status.success(), "flip at {offset} accepted");
        assert!(stderr(&out).contains("ttt.descent"), "{}", stderr(&out));
        std::fs::write(&file, &pristine).unwrap();
    }
}

#[test]
fn invalid_bytes_on_stdin_get_an_answer_and_the_session_goes_on() {
    let out = descent_with_input(
        &["engine", "--game", "tic_tac_toe", "--agent", "random"],
        b"name\n\xff\xfe\nname\n".as_slice(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let replies: Vec<&str> = text.split("\n\n").filter(|r| !r.is_empty()).collect();
    assert_eq!(replies.len(), 3, "{replies:?}");
    assert_eq!(replies[0], "= descent");
    assert!(
        replies[1].starts_with("? ") && replies[1].contains("UTF-8"),
        "{}",
        replies[1]
    );
    assert_eq!(replies[2], "= descent");

    let out = descent_with_input(
        &["play", "--game", "tic_tac_toe", "--agent", "random"],
        b"\xff\xfe\nb2\nquit\n".as_slice(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("UTF-8") && text.contains("bye"), "{text}");
}

#[test]
fn absurd_sizes_are_refused_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            "network:\n  architecture: resnet-b1000c100000-fc100000\n",
            "network.architecture",
        ),
        (
            "learning:\n  pretrain_terminal_states: 1000000000000\n",
            "learning.pretrain_terminal_states",
        ),
        (
            "evaluation:\n  every_games: 2\n  games: 1000000000000\n",
            "evaluation.games",
        ),
        ("run:\n  threads: 100000\n", "run.threads"),
        ("run:\n  name: ../../etc\n", "run.name"),
    ];
    for (extra, key) in cases {
        let config = write_small_config(tmp.path(), extra);
        let run = tmp.path().join("run");
        let out = descent(&["train", &config, "--run-dir", run.to_str().unwrap()]);
        assert_no_crash(&out, extra);
        assert!(!out.status.success(), "{extra}");
        assert!(stderr(&out).contains(key), "{extra}: {}", stderr(&out));
        assert!(!run.exists(), "{extra}: the run directory was made");
    }
    // A run name is a directory name under checkpoints/ (no --run-dir): nothing outside it.
    let config = write_small_config(tmp.path(), "run:\n  name: ../escaped\n");
    let out = Command::new(env!("CARGO_BIN_EXE_descent"))
        .args(["train", &config, "--max-games", "1"])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(!tmp.path().join("escaped").exists());
    for args in [
        vec![
            "eval",
            "--game",
            "tic_tac_toe",
            "--agent",
            "random",
            "--opponent",
            "random",
            "--games",
            "1000000000000",
        ],
        vec![
            "eval",
            "--game",
            "tic_tac_toe",
            "--agent",
            "random",
            "--opponent",
            "random",
            "--threads",
            "100000",
        ],
        vec!["bench", "nn", "tic_tac_toe", "--batch", "1000000000000"],
        vec![
            "bench",
            "nn",
            "tic_tac_toe",
            "--arch",
            "resnet-b1000c100000-fc100000",
        ],
    ] {
        let out = descent(&args);
        assert_no_crash(&out, &args.join(" "));
        assert!(!out.status.success(), "{args:?}");
        assert!(
            stderr(&out).contains("limit") || stderr(&out).contains("from 2 to"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn a_resume_refuses_a_change_of_what_is_learned_and_takes_a_change_of_budget() {
    let tmp = tempfile::tempdir().unwrap();
    let run = small_run(tmp.path(), "run", 2);
    let config_path = run.join("config.yaml");
    let original = std::fs::read_to_string(&config_path).unwrap();
    for (from, to, key) in [
        (
            "terminal_eval: classic",
            "terminal_eval: additive-depth",
            "learning.terminal_eval",
        ),
        ("iters: 20", "iters: 30", "search.iters"),
        ("seed: 5", "seed: 6", "seed"),
    ] {
        assert!(original.contains(from), "{from} not in {original}");
        std::fs::write(&config_path, original.replace(from, to)).unwrap();
        let out = resume(&run, 4);
        assert!(!out.status.success(), "{key} changed and accepted");
        let err = stderr(&out);
        assert!(
            err.contains(key) && err.contains("run.max_games"),
            "{key}: {err}"
        );
    }
    // Budgets, evaluations and checkpoints may change.
    let safe = original.replace("every_games: 2", "every_games: 1");
    assert_ne!(safe, original);
    std::fs::write(&config_path, safe).unwrap();
    let out = resume(&run, 3);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        run.join("ckpt-3").exists(),
        "the new checkpoint period holds"
    );
}

#[test]
fn a_resume_names_the_keys_its_run_predates_and_their_defaults() {
    let tmp = tempfile::tempdir().unwrap();
    let run = small_run(tmp.path(), "run", 2);
    let out = resume(&run, 3);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("predates"), "{}", stderr(&out));
    // The run's file as a descent without `learning.rows_per_evaluation` wrote it.
    let config_path = run.join("config.yaml");
    let original = std::fs::read_to_string(&config_path).unwrap();
    std::fs::write(&config_path, without_line(&original, "rows_per_evaluation")).unwrap();
    let out = resume(&run, 4);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("predates 1 key(s)") && err.contains("learning.rows_per_evaluation: 0.12"),
        "{err}"
    );

    // A checkpoint of that older descent knows nothing of the key either: the run's file may
    // then set it to what that descent did (no bound) without the resume being refused.
    let run = small_run(tmp.path(), "older", 2);
    let state_path = run.join("ckpt-2/state.json");
    let mut state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state_path).unwrap()).unwrap();
    let trained = state["config_yaml"].as_str().unwrap().to_string();
    state["config_yaml"] = without_line(&trained, "rows_per_evaluation").into();
    std::fs::write(&state_path, state.to_string()).unwrap();
    std::fs::remove_file(run.join("ckpt-2/checksums.sha256")).unwrap();
    let config_path = run.join("config.yaml");
    let text = std::fs::read_to_string(&config_path).unwrap();
    let set_to_null = text.replace("rows_per_evaluation: 0.12", "rows_per_evaluation: null");
    assert_ne!(set_to_null, text);
    std::fs::write(&config_path, set_to_null).unwrap();
    let out = descent(&[
        "train",
        "--resume",
        run.to_str().unwrap(),
        "--accept-unverified-checkpoint",
        "--max-games",
        "3",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("predates"), "{}", stderr(&out));
}

#[test]
fn a_checkpoint_line_lost_in_a_kill_is_written_again_on_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let run = small_run(tmp.path(), "run", 4);
    // Killed after the checkpoint's rename, before its metrics line: cut the line off.
    let path = run.join("metrics.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let last = text.trim_end().rsplit('\n').next().unwrap();
    assert!(last.contains("\"checkpoint\""), "{last}");
    std::fs::write(&path, &text[..text.len() - last.len() - 1]).unwrap();
    let out = resume(&run, 6);
    assert!(out.status.success(), "{}", stderr(&out));
    let checkpoints: Vec<u64> = metrics(&run)
        .iter()
        .filter(|m| m["kind"] == "checkpoint")
        .map(|m| m["game"].as_u64().unwrap())
        .collect();
    assert_eq!(checkpoints, [2, 4, 6]);
    assert_eq!(game_numbers(&run), (1..=6).collect::<Vec<_>>());
    assert_metrics_consistent(&run);
}

#[test]
fn an_export_into_a_directory_is_refused_and_leaves_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let run = small_run(tmp.path(), "run", 2);
    let dir = tmp.path().join("out");
    std::fs::create_dir(&dir).unwrap();
    let out = descent(&[
        "export",
        run.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--force",
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("is a directory"), "{}", stderr(&out));
    assert_eq!(names_in(tmp.path()), ["out", "run", "small.yaml"]);
}

#[test]
fn replay_reads_negative_ids_as_ids_and_speaks_of_ids() {
    let out = descent(&["replay", "tic_tac_toe", "--ids", "-1"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("action id \"-1\""),
        "{}",
        stderr(&out)
    );
    let out = descent(&["replay", "tic_tac_toe", "--ids", "4,4"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("action id 4 is not legal") && err.contains("legal ids: 0 1 2 3 5"),
        "{err}"
    );
}

/// Runs `descent` with `args` where no file may grow past about 200 KB (`ulimit -f`, SIGXFSZ
/// ignored): writes beyond it fail with "File too large", as on a full disk.
fn descent_on_a_full_disk(args: &[&str]) -> std::process::Output {
    Command::new("bash")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 200; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_descent"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_full_disk_leaves_no_partial_files_and_no_false_log_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let run = small_run(tmp.path(), "run", 2);
    let run_s = run.to_str().unwrap();
    // The checkpoint after game 4 cannot be written (its network alone is ~500 KB).
    let out = descent_on_a_full_disk(&["train", "--resume", run_s, "--max-games", "4", "--quiet"]);
    assert_no_crash(&out, "train on a full disk");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("File too large"), "{}", stderr(&out));
    assert!(!run.join("ckpt-4").exists() && !run.join(".tmp-ckpt-4").exists());
    assert_eq!(
        std::fs::read_link(run.join("latest")).unwrap(),
        Path::new("ckpt-2")
    );
    let logged: Vec<u64> = metrics(&run)
        .iter()
        .filter(|m| m["kind"] == "checkpoint")
        .map(|m| m["game"].as_u64().unwrap())
        .collect();
    assert_eq!(logged, [2], "a failed checkpoint is not logged");
    let out = resume(&run, 4);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(game_numbers(&run), (1..=4).collect::<Vec<_>>());
    assert_metrics_consistent(&run);

    // An export: no temporary file, no half of the files.
    let file = tmp.path().join("ttt.descent");
    let out = descent_on_a_full_disk(&["export", run_s, "--out", file.to_str().unwrap()]);
    assert!(!out.status.success());
    assert_eq!(names_in(tmp.path()), ["run", "small.yaml"]);

    // A new run failing at its first checkpoint leaves no directory to block the next one.
    let config = write_small_config(tmp.path(), "");
    let fresh = tmp.path().join("fresh");
    let out = descent_on_a_full_disk(&[
        "train",
        &config,
        "--run-dir",
        fresh.to_str().unwrap(),
        "--max-games",
        "1",
        "--quiet",
    ]);
    assert!(!out.status.success());
    assert!(!fresh.exists(), "{}", stderr(&out));
}
