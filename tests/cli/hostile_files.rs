//! The files descent writes and reads, met as a hostile but fair user would: a device, a FIFO
//! or an existing file at an output path, a FIFO or an empty file as a network. Every file is
//! written by one function (`settings::files`): it replaces nothing but a regular file, and that
//! only with the command's `--force`, and checks the path before the work. Devices are made
//! with `mknod` where the tests run as root (skipped with a message otherwise).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{assert_no_crash, descent, descent_with_input, stderr, stdout};

/// Makes a FIFO at `path`; false (with a message) where `mkfifo` fails.
fn mkfifo(path: &Path) -> bool {
    let made = Command::new("mkfifo").arg(path).status();
    let ok = made.is_ok_and(|s| s.success());
    if !ok {
        crate::common::skip::skip_unprivileged("DESCENT_REQUIRE_ROOT", "mkfifo failed");
    }
    ok
}

/// Makes a character device like /dev/null at `path`; false (with a message) where the test
/// may not (not root).
fn mknod_null(path: &Path) -> bool {
    let made = Command::new("mknod")
        .arg(path)
        .args(["c", "1", "3"])
        .status();
    let ok = made.is_ok_and(|s| s.success());
    if !ok {
        crate::common::skip::skip_unprivileged("DESCENT_REQUIRE_ROOT", "mknod needs root");
    }
    ok
}

/// Whether `path` is still what it was made as: not a regular file.
fn still_special(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file())
}

/// A trained tic-tac-toe run (one checkpoint) in `dir`.
fn trained_run(dir: &Path) -> PathBuf {
    crate::common::small_run(dir, "run", "", 2)
}

/// The special files an output may meet: a FIFO, and a device where we may make one.
fn special_targets(dir: &Path) -> Vec<PathBuf> {
    let mut targets = Vec::new();
    let fifo = dir.join("fifo");
    if mkfifo(&fifo) {
        targets.push(fifo);
    }
    let device = dir.join("null");
    if mknod_null(&device) {
        targets.push(device);
    }
    targets
}

/// Runs `descent` with `args`, a watchdog killing it after 60 s (a FIFO opened for writing
/// would block for ever).
fn descent_within_a_minute(args: &[&str]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_descent"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("descent {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn no_command_writes_over_a_device_or_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let run = trained_run(dir.path());
    let export = dir.path().join("ttt.descent");
    let done = descent(&[
        "export",
        run.to_str().unwrap(),
        "--out",
        export.to_str().unwrap(),
    ]);
    assert!(done.status.success(), "{}", stderr(&done));
    for target in special_targets(dir.path()) {
        let out = target.to_str().unwrap();
        let commands: Vec<Vec<&str>> = vec![
            vec!["export", run.to_str().unwrap(), "--out", out, "--force"],
            vec![
                "check-net",
                run.to_str().unwrap(),
                "--game",
                "tic_tac_toe",
                "--out",
                out,
            ],
            vec![
                "check-net",
                run.to_str().unwrap(),
                "--game",
                "tic_tac_toe",
                "--out",
                out,
                "--force",
            ],
        ];
        for args in commands {
            let output = descent_within_a_minute(&args);
            assert_no_crash(&output, &format!("{args:?}"));
            assert!(!output.status.success(), "{args:?}: {}", stdout(&output));
            assert!(
                stderr(&output).contains("not a regular file"),
                "{args:?}: {}",
                stderr(&output)
            );
            assert!(still_special(&target), "{args:?} replaced {out}");
        }
        // `play --save` is checked before the game: nothing is asked of the player.
        let output = descent_with_input(
            &["play", "--game", "go", "--agent", "random", "--save", out],
            "quit\n",
        );
        assert!(!output.status.success());
        assert!(stderr(&output).contains("--save"), "{}", stderr(&output));
        assert!(still_special(&target));
    }
}

#[test]
fn games_export_refuses_a_device_and_keeps_an_existing_file_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(run.join("config.yaml"), "game: go\n").unwrap();
    // A legal game, a line that is not UTF-8, an illegal game, a line that is not a game.
    let mut lines = Vec::new();
    lines.extend_from_slice(
        b"{\"game\":1,\"index\":0,\"net_version\":0,\"result_p0\":0.0,\"moves\":[\"e5\",\"pass\",\"pass\"],\"values_p0\":[]}\n",
    );
    lines.extend_from_slice(b"\xff\xfe not text\n");
    lines.extend_from_slice(
        b"{\"game\":2,\"index\":1,\"net_version\":0,\"result_p0\":0.0,\"moves\":[\"e5\",\"e5\"],\"values_p0\":[]}\n",
    );
    lines.extend_from_slice(b"{not a game\n");
    std::fs::write(run.join("games.jsonl"), lines).unwrap();
    for target in special_targets(dir.path()) {
        let output = descent_within_a_minute(&[
            "games-export",
            run.to_str().unwrap(),
            "--out",
            target.to_str().unwrap(),
            "--force",
        ]);
        assert!(!output.status.success(), "{}", stdout(&output));
        assert!(stderr(&output).contains("not a regular file"));
        assert!(still_special(&target));
    }
    let out = dir.path().join("games.sgf");
    std::fs::write(&out, "mine").unwrap();
    let output = descent(&[
        "games-export",
        run.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("--force"), "{}", stderr(&output));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "mine");
    // With --force: the legal game written; the three others skipped, counted, the first named
    // with its file and line.
    let output = descent(&[
        "games-export",
        run.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--force",
    ]);
    let text = stdout(&output);
    assert!(output.status.success(), "{text}{}", stderr(&output));
    assert!(text.contains("1 game(s) written"), "{text}");
    assert!(text.contains("3 line(s) of games.jsonl skipped"), "{text}");
    assert!(text.contains("games.jsonl:2: not UTF-8"), "{text}");
    assert!(std::fs::read_to_string(&out).unwrap().starts_with("(;"));
}

#[test]
fn play_keeps_an_existing_save_file_without_force_and_checks_the_path_first() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("game.sgf");
    std::fs::write(&save, "an earlier game").unwrap();
    let play = |save: &Path, force: bool| {
        let mut args = vec!["play", "--game", "go", "--agent", "random"];
        args.extend(["--save", save.to_str().unwrap()]);
        if force {
            args.push("--force");
        }
        descent_with_input(&args, "e5\nquit\n")
    };
    let output = play(&save, false);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("--force"), "{}", stderr(&output));
    assert!(
        !stdout(&output).contains("e5"),
        "refused before the game starts: {}",
        stdout(&output)
    );
    assert_eq!(std::fs::read_to_string(&save).unwrap(), "an earlier game");
    let output = play(&save, true);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(std::fs::read_to_string(&save).unwrap().contains(";B[ee]"));
    // A directory that does not exist: refused before the game, naming it.
    let output = play(&dir.path().join("no/such/dir/game.sgf"), false);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("does not exist"),
        "{}",
        stderr(&output)
    );
}

/// Two games of tic-tac-toe of `greedy:model=MODEL` against random, within a minute.
fn eval_greedy_of(model: &Path) -> std::process::Output {
    let agent = format!("greedy:model={}", model.display());
    descent_within_a_minute(&[
        "eval",
        "--game",
        "tic_tac_toe",
        "--agent",
        &agent,
        "--opponent",
        "random",
        "--games",
        "2",
    ])
}

#[test]
fn a_fifo_or_an_empty_file_as_a_network_is_refused_at_once_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let run = trained_run(dir.path());
    // A checkpoint whose manifest is a FIFO: refused at once, not waited on.
    let fake = dir.path().join("fake");
    std::fs::create_dir_all(&fake).unwrap();
    std::fs::copy(run.join("latest/net.bpk"), fake.join("net.bpk")).unwrap();
    if mkfifo(&fake.join("net.json")) {
        let output = eval_greedy_of(&fake.join("net"));
        assert!(!output.status.success());
        assert!(
            stderr(&output).contains("not a regular file"),
            "{}",
            stderr(&output)
        );
    }
    // An empty export file is named as such, not as a missing `…json` manifest.
    let empty = dir.path().join("empty.descent");
    std::fs::write(&empty, "").unwrap();
    let output = eval_greedy_of(&empty);
    let err = stderr(&output);
    assert!(!output.status.success());
    assert!(err.contains("empty.descent"), "{err}");
    assert!(!err.contains("empty.json"), "{err}");
}

/// Every file descent reads goes through the regular-file, bounded reader: a FIFO as the
/// configuration of `train` or `experiment`, as an experiment's `base:`, or as a run's
/// `games.jsonl` / `metrics.jsonl` on `--resume`, is refused at once; `/dev/zero` as a
/// configuration is refused, not read until the memory runs out.
#[test]
fn a_fifo_or_a_device_as_a_configuration_or_a_run_log_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.yaml");
    if !mkfifo(&fifo) {
        return;
    }
    let fifo_s = fifo.to_str().unwrap();
    for args in [
        vec!["train", fifo_s],
        vec!["experiment", fifo_s],
        vec!["train", "/dev/zero"],
    ] {
        let output = descent_within_a_minute(&args);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("not a regular file"),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    let experiment = dir.path().join("experiment.yaml");
    std::fs::write(
        &experiment,
        "name: e\ngame: tic_tac_toe\ntrain_time: 1s\nstage_every: 1s\nvariants:\n  - name: a\n    base: fifo.yaml\n  - name: b\n",
    )
    .unwrap();
    let output = descent_within_a_minute(&["experiment", experiment.to_str().unwrap()]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("not a regular file"),
        "{}",
        stderr(&output)
    );
    for log in ["games.jsonl", "metrics.jsonl"] {
        let run = crate::common::small_run(dir.path(), &format!("run-{log}"), "", 2);
        std::fs::remove_file(run.join(log)).unwrap();
        assert!(mkfifo(&run.join(log)));
        let run_s = run.to_str().unwrap();
        let output = descent_within_a_minute(&["train", "--resume", run_s, "--max-games", "4"]);
        assert_eq!(output.status.code(), Some(1), "{log}: {}", stderr(&output));
        assert!(
            stderr(&output).contains("not a regular file"),
            "{log}: {}",
            stderr(&output)
        );
    }
}

/// A model path that is not a regular file names the real cause — not the `.json` manifest a
/// saved network would have; a path with a comma is written in quotes.
#[test]
fn a_model_path_names_what_it_is_and_may_hold_a_comma_in_quotes() {
    let dir = tempfile::tempdir().unwrap();
    let zero = dir.path().join("zero.descent");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let output = eval_greedy_of(&zero);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("not a regular file"),
        "{}",
        stderr(&output)
    );
    let empty_dir = dir.path().join("dir.descent");
    std::fs::create_dir_all(&empty_dir).unwrap();
    let output = eval_greedy_of(&empty_dir);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("holds no run or checkpoint"),
        "{}",
        stderr(&output)
    );
    let run = crate::common::small_run(dir.path(), "a,b", "", 2);
    let agent = format!("greedy:model=\"{}\"", run.display());
    let output = descent_within_a_minute(&[
        "eval",
        "--game",
        "tic_tac_toe",
        "--agent",
        &agent,
        "--opponent",
        "random",
        "--games",
        "2",
        "--quiet",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
}

/// A FIFO in a run directory where a resume reads a regular file — `config.yaml`, the
/// checkpoint's `state.json`, or in `latest`'s place — is named as what it is, at once (it
/// said "no config.yaml", "missing", "Invalid argument").
#[test]
fn a_run_whose_files_are_not_regular_files_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let run = trained_run(dir.path());
    let run_text = run.to_str().unwrap();
    let resume = || descent_within_a_minute(&["train", "--resume", run_text, "--max-games", "3"]);
    let latest_target = std::fs::read_link(run.join("latest")).unwrap();
    let checkpoint = run.join(&latest_target);

    let config = run.join("config.yaml");
    let config_text = std::fs::read(&config).unwrap();
    std::fs::remove_file(&config).unwrap();
    if !mkfifo(&config) {
        return;
    }
    let out = resume();
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("config.yaml: a FIFO"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_file(&config).unwrap();
    std::fs::write(&config, config_text).unwrap();

    std::fs::remove_file(run.join("latest")).unwrap();
    assert!(mkfifo(&run.join("latest")));
    let out = resume();
    assert!(
        stderr(&out).contains("latest is not a link to a checkpoint but a FIFO"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_file(run.join("latest")).unwrap();
    std::os::unix::fs::symlink(&latest_target, run.join("latest")).unwrap();

    let state = checkpoint.join("state.json");
    std::fs::remove_file(&state).unwrap();
    assert!(mkfifo(&state));
    let out = resume();
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("state.json is a FIFO"),
        "{}",
        stderr(&out)
    );
}
