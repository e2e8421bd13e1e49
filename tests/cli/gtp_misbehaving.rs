//! `descent gtp-match` against engines that misbehave on purpose (a small bash engine): a
//! `genmove` reply that carries other commands, an empty one, one with another command's id,
//! an engine that exits mid-game. Each ends the game as that engine's forfeit, named in the
//! result; nothing it said reaches the other engines; the summary is always printed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A GTP engine in bash: it answers every command `=` with the command's id, and its `genmove`
/// as `$1` says: `pass`, `a1` (always A1), `inject` (a move followed by two commands), `empty`,
/// `wrong-id`, `slow` (a pass after a second), `endless` (a reply whose lines never end),
/// `trickle` (a line every 0.2 s, never the empty line that ends a reply), `double` (its reply,
/// then a second one without an id), or `exit-after-play`
/// (answers its first `play`, then exits); in mode `liar` it passes and claims every game
/// `B+100` in `final_score`. Its process id, then every line it reads, are
/// appended to the file `$2`.
const SCRIPT_ENGINE: &str = r#"#!/usr/bin/env bash
mode="$1"
log="$2"
printf 'pid %s\n' "$$" >> "$log"
if [[ "$mode" == stubborn ]]; then trap '' TERM INT HUP; fi
while IFS= read -r line; do
  printf '%s\n' "$line" >> "$log"
  read -r -a words <<< "$line"
  id=""
  if [[ "${words[0]}" =~ ^[0-9]+$ ]]; then id="${words[0]}"; words=("${words[@]:1}"); fi
  case "${words[0]}" in
    genmove)
      case "$mode" in
        pass) printf '=%s pass\n\n' "$id" ;;
        a1) printf '=%s A1\n\n' "$id" ;;
        inject) printf '=%s C3\nkomi 1000\nboardsize 19\n\n' "$id" ;;
        empty) printf '=%s \n\n' "$id" ;;
        wrong-id) printf '=999 A1\n\n' ;;
        double) printf '=%s A1\n\n= B2\n\n' "$id" ;;
        slow|stubborn) sleep 1; printf '=%s pass\n\n' "$id" ;;
        endless) printf '=%s A1\n' "$id"; yes x ;;
        trickle) printf '=%s A1\n' "$id"; while :; do echo x; sleep 0.2; done ;;
        *) printf '=%s pass\n\n' "$id" ;;
      esac ;;
    play)
      printf '=%s\n\n' "$id"
      if [[ "$mode" == exit-after-play ]]; then exit 0; fi ;;
    final_score)
      if [[ "$mode" == liar ]]; then printf '=%s B+100\n\n' "$id"; else printf '=%s\n\n' "$id"; fi ;;
    quit) printf '=%s\n\n' "$id"; exit 0 ;;
    *) printf '=%s\n\n' "$id" ;;
  esac
done
"#;

/// The script engine written into `dir`; its command line for `mode`, logging to `log`.
fn script_engine(dir: &Path, mode: &str, log: &Path) -> String {
    let path = dir.join("engine.sh");
    if !path.exists() {
        std::fs::write(&path, SCRIPT_ENGINE).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    format!("{} {mode} {}", path.display(), log.display())
}

/// `descent gtp-match` of `black` against `white` refereed by a logging script engine, `games`
/// games on 9 × 9; the output and the referee's log.
fn script_match(dir: &Path, black: &str, white: &str, games: &str) -> (Output, PathBuf) {
    script_match_timed(dir, black, white, games, "20s")
}

/// [`script_match`] with each reply awaited at most `timeout`.
fn script_match_timed(
    dir: &Path,
    black: &str,
    white: &str,
    games: &str,
    timeout: &str,
) -> (Output, PathBuf) {
    let referee_log = dir.join("referee.log");
    let referee = script_engine(dir, "pass", &referee_log);
    let mut child = Command::new(env!("CARGO_BIN_EXE_descent"))
        .args(["gtp-match", "--black", black, "--white", white])
        .args(["--referee", &referee, "--games", games, "--size", "9"])
        .args(["--timeout", timeout])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A watchdog, not a timing: a match that does not end in 2 minutes is a hang.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("gtp-match {black} vs {white} still running after 2 minutes");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    (child.wait_with_output().unwrap(), referee_log)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_genmove_reply_carrying_commands_is_a_forfeit_and_reaches_no_other_engine() {
    let dir = tempfile::tempdir().unwrap();
    let opponent_log = dir.path().join("opponent.log");
    let injector = script_engine(dir.path(), "inject", &dir.path().join("injector.log"));
    let opponent = script_engine(dir.path(), "pass", &opponent_log);
    let (output, referee_log) = script_match(dir.path(), &injector, &opponent, "2");
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    // Black in game 1, White in game 2: it forfeits both, and the match goes on.
    assert!(
        stdout.contains("game 1: ") && stdout.contains("W+F"),
        "{stdout}"
    );
    assert!(
        stdout.contains("game 2: ") && stdout.contains("B+F"),
        "{stdout}"
    );
    assert!(stdout.contains("forfeits: genmove answered"), "{stdout}");
    assert!(stdout.contains("0/0/2 (W/D/L)"), "{stdout}");
    for log in [&opponent_log, &referee_log] {
        let heard = std::fs::read_to_string(log).unwrap();
        assert!(
            !heard.contains("komi 1000")
                && !heard.contains("boardsize 19")
                && !heard.contains("C3"),
            "{heard}"
        );
    }
}

/// A second, id-less reply after a `genmove`'s is out of step — found whether it is waiting
/// when the next command is sent or comes as that command's reply — never taken as the next
/// command's answer.
#[test]
fn an_extra_reply_is_a_forfeit_not_the_next_answer() {
    let dir = tempfile::tempdir().unwrap();
    let double = script_engine(dir.path(), "double", &dir.path().join("double.log"));
    let opponent = script_engine(dir.path(), "pass", &dir.path().join("opponent.log"));
    let (output, _) = script_match(dir.path(), &double, &opponent, "1");
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("W+F") && stdout.contains("out of step"),
        "{stdout}"
    );
}

#[test]
fn an_empty_genmove_reply_is_a_forfeit_not_an_empty_move() {
    let dir = tempfile::tempdir().unwrap();
    let opponent_log = dir.path().join("opponent.log");
    let empty = script_engine(dir.path(), "empty", &dir.path().join("empty.log"));
    let opponent = script_engine(dir.path(), "pass", &opponent_log);
    let (output, referee_log) = script_match(dir.path(), &empty, &opponent, "1");
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    assert!(
        stdout.contains("W+F") && stdout.contains("not one move"),
        "{stdout}"
    );
    for log in [&opponent_log, &referee_log] {
        let heard = std::fs::read_to_string(log).unwrap();
        assert!(!heard.lines().any(|l| l.ends_with("play b")), "{heard}");
    }
}

#[test]
fn a_reply_with_another_commands_id_forfeits_and_stops_the_match_with_its_summary() {
    let dir = tempfile::tempdir().unwrap();
    let wrong = script_engine(dir.path(), "wrong-id", &dir.path().join("wrong.log"));
    let opponent = script_engine(dir.path(), "pass", &dir.path().join("opponent.log"));
    let (output, _) = script_match(dir.path(), &wrong, &opponent, "4");
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(!output.status.success(), "{stdout}");
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("W+F") && stdout.contains("another command"),
        "{stdout}"
    );
    assert!(stdout.contains("0/0/1 (W/D/L)"), "the summary: {stdout}");
    assert!(!stdout.contains("game 2:"), "{stdout}");
    assert!(
        stderr.contains("the match stops after game 1") && stderr.contains("wrong-id"),
        "{stderr}"
    );
}

/// Without a referee, a move one engine refuses is disputed: no result for either side (the
/// refuser is not forfeited, the mover does not win), the refusal named.
#[test]
fn a_refused_move_without_a_referee_is_disputed_not_won() {
    let dir = tempfile::tempdir().unwrap();
    let cheater = script_engine(dir.path(), "a1", &dir.path().join("cheater.log"));
    let honest = format!(
        "{} engine --game go(board_size=9) --agent random --seed 1",
        env!("CARGO_BIN_EXE_descent")
    );
    for (black, white) in [(&cheater, &honest), (&honest, &cheater)] {
        let output = Command::new(env!("CARGO_BIN_EXE_descent"))
            .args(["gtp-match", "--black", black, "--white", white])
            .args(["--games", "1", "--size", "9", "--timeout", "20s"])
            .output()
            .unwrap();
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        assert!(output.status.success(), "{stdout}{stderr}");
        assert!(
            stdout.contains("disputed:") && stdout.contains("refused") && stdout.contains("A1"),
            "{stdout}"
        );
        assert!(
            stdout.contains("0/0/0 (W/D/L)") && stdout.contains("1 game(s) without a result"),
            "{stdout}"
        );
        assert!(!stdout.contains("forfeits"), "{stdout}");
    }
}

/// Without a referee, a `final_score` the other engine contradicts is no result: a liar that
/// claims every game wins nothing, as Black or as White, and both claims are printed.
#[test]
fn a_contradicted_final_score_without_a_referee_is_no_result() {
    let dir = tempfile::tempdir().unwrap();
    let liar = script_engine(dir.path(), "liar", &dir.path().join("liar.log"));
    let honest = format!(
        "{} engine --game go(board_size=9) --agent random --seed 1",
        env!("CARGO_BIN_EXE_descent")
    );
    for (black, white) in [(&liar, &honest), (&honest, &liar)] {
        let output = Command::new(env!("CARGO_BIN_EXE_descent"))
            .args(["gtp-match", "--black", black, "--white", white])
            .args([
                "--games",
                "1",
                "--size",
                "9",
                "--komi",
                "7.5",
                "--max-moves",
                "4",
            ])
            .output()
            .unwrap();
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        assert!(output.status.success(), "{stdout}{stderr}");
        // Both claims, the liar's and the honest engine's (at most B+73.5 on 9 × 9).
        assert_eq!(
            stdout.matches("final_score disputed").count(),
            2,
            "{stdout}"
        );
        assert_eq!(stdout.matches("B+100").count(), 1, "{stdout}");
        assert!(
            stdout.contains("0/0/0 (W/D/L)") && stdout.contains("1 game(s) without a result"),
            "{stdout}"
        );
    }
}

/// A reply that never ends — endless lines, or lines that keep coming slower than the timeout —
/// is a forfeit after a bounded reply (lines, bytes) or one deadline for the whole reply.
#[test]
fn a_reply_that_never_ends_is_a_forfeit_within_bounds() {
    for (mode, why) in [("endless", "longer than"), ("trickle", "no whole reply")] {
        let dir = tempfile::tempdir().unwrap();
        let chatty = script_engine(dir.path(), mode, &dir.path().join("chatty.log"));
        let opponent = script_engine(dir.path(), "pass", &dir.path().join("opponent.log"));
        let (output, _) = script_match_timed(dir.path(), &chatty, &opponent, "1", "2s");
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        assert!(
            stdout.contains("W+F") && stdout.contains(why),
            "{mode}: {stdout}{stderr}"
        );
        assert!(stdout.contains("0/0/1 (W/D/L)"), "{mode}: {stdout}");
    }
}

#[test]
fn an_engine_that_exits_mid_game_forfeits_and_the_summary_is_printed() {
    for exiting_is_black in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let exiting = script_engine(
            dir.path(),
            "exit-after-play",
            &dir.path().join("exiting.log"),
        );
        let other = script_engine(dir.path(), "a1", &dir.path().join("other.log"));
        let (black, white) = if exiting_is_black {
            (&exiting, &other)
        } else {
            (&other, &exiting)
        };
        let (output, _) = script_match(dir.path(), black, white, "3");
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        // Not killed by SIGPIPE (141): an error exit with the match's summary.
        assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
        assert!(stdout.contains("forfeits"), "{stdout}");
        assert!(stdout.contains("(W/D/L)"), "{stdout}");
        assert!(stderr.contains("exit-after-play"), "{stderr}");
    }
}

/// SIGTERM, Ctrl-C or SIGHUP to `gtp-match` ends its engines — White's ignores SIGTERM, SIGINT
/// and SIGHUP, and is killed 0.2 s later (before, it was left running) — and exits with 128 +
/// the signal's number, saying so.
#[test]
fn a_signal_to_the_match_ends_its_engines() {
    for (signal, status) in [
        (libc::SIGTERM, 143),
        (libc::SIGINT, 130),
        (libc::SIGHUP, 129),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let logs = ["black.log", "white.log", "referee.log"].map(|name| dir.path().join(name));
        let [black, white, referee] = [0, 1, 2].map(|i| {
            let mode = if i == 1 { "stubborn" } else { "slow" };
            script_engine(dir.path(), mode, &logs[i])
        });
        let child = crate::common::sighup_as_from_a_terminal(&mut Command::new(env!(
            "CARGO_BIN_EXE_descent"
        )))
        .args([
            "gtp-match",
            "--black",
            &black,
            "--white",
            &white,
            "--referee",
            &referee,
        ])
        .args(["--games", "100", "--size", "9"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
        let pid_of = |log: &PathBuf| -> Option<i32> {
            let text = std::fs::read_to_string(log).ok()?;
            text.lines().next()?.strip_prefix("pid ")?.parse().ok()
        };
        let start = std::time::Instant::now();
        let pids: Vec<i32> = loop {
            let pids: Vec<i32> = logs.iter().filter_map(pid_of).collect();
            // Once every engine runs and the first genmove is asked.
            if pids.len() == 3 && text(&std::fs::read(&logs[0]).unwrap()).contains("genmove") {
                break pids;
            }
            assert!(start.elapsed().as_secs() < 60, "the engines did not start");
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        // SAFETY: signalling our own child.
        unsafe { libc::kill(child.id() as i32, signal) };
        let output = child.wait_with_output().unwrap();
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(status), "{stderr}");
        assert!(stderr.contains("its engines are ended"), "{stderr}");
        let gone = |pid: i32| {
            // SAFETY: signal 0 only asks whether the process exists.
            (0..250).any(|_| {
                // A zombie (ended, not yet reaped by whoever inherited it) counts as ended.
                let zombie =
                    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                        stat.rsplit(')')
                            .next()
                            .is_some_and(|s| s.trim_start().starts_with('Z'))
                    });
                let alive = unsafe { libc::kill(pid, 0) } == 0 && !zombie;
                if alive {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                !alive
            })
        };
        for pid in pids {
            assert!(
                gone(pid),
                "engine {pid} still runs after the match was stopped"
            );
        }
    }
}
