//! `descent gain`: the card's table of a network against the same search without it, and its
//! strength-against-time chart, measured three ways (games against an agent, a match command's
//! W/D/L, perfect moves).

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{descent, stderr, stdout};

fn report(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("gain.json")).expect("gain.json written");
    serde_json::from_str(&text).unwrap()
}

/// A match command for `--against-command` that appends each agent it is asked for to `log` and
/// prints `W/D/L 3/1/0` for the network, `W/D/L 1/1/2` without it — but for an agent matching
/// `pattern` it prints `result`, after running `once` the first time (a flag file in `dir`).
fn logging_command(dir: &Path, pattern: &str, once: &str, result: &str) -> (String, PathBuf) {
    let log = dir.join("measured.txt");
    let flag = dir.join("once");
    std::fs::write(&flag, "").unwrap();
    let command = format!(
        "echo {{agent}} >> '{log}'; case {{agent}} in \
         {pattern}) if [ -e '{flag}' ]; then rm '{flag}'; {once}; fi; echo '{result}';; \
         *playouts*) echo 'W/D/L 1/1/2';; *) echo 'W/D/L 3/1/0';; esac",
        log = log.display(),
        flag = flag.display()
    );
    (command, log)
}

/// `descent gain` on Connect Four with `command` as the outside player, 4 games a side.
fn command_sweep(
    out_dir: &Path,
    agent: &str,
    times: &str,
    command: &str,
    extra: &[&str],
) -> Output {
    let mut args = vec![
        "gain",
        "--game",
        "connect_four",
        "--agent",
        agent,
        "--times",
        times,
        "--against-command",
        command,
        "--games",
        "4",
        "--out",
        out_dir.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    descent(&args)
}

#[test]
fn gain_writes_the_cards_table_and_chart_and_the_counterpart_searches_without_the_network() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("gain");
    let out = descent(&[
        "gain",
        "--game",
        "tic_tac_toe",
        "--agent",
        "puct:model=untrained,iters=50",
        "--times",
        "2ms,8ms",
        "--against",
        "mcts:iters=30",
        "--games",
        "4",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json = report(&out_dir);
    assert_eq!(
        json["agent"], "puct:model=untrained",
        "each row sets the time"
    );
    assert_eq!(json["agent_model"], "untrained paper-cnn");
    assert_eq!(json["counterpart"], "puct:model=playouts");
    assert_eq!(
        json["counterpart_model"], "random playouts",
        "no network behind it"
    );
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for (row, time) in rows.iter().zip(["2ms", "8ms"]) {
        assert_eq!(row["time"], time);
        for side in ["with_network", "without_network"] {
            assert_eq!(row[side]["trials"], 4, "{row}");
            let share = row[side]["share"].as_f64().unwrap();
            let [low, high] = [0, 1].map(|i| row[side]["ci95"][i].as_f64().unwrap());
            assert!(low <= share && share <= high, "{row}");
        }
    }
    let table = std::fs::read_to_string(out_dir.join("gain.markdown")).unwrap();
    assert_eq!(
        table.lines().filter(|l| l.starts_with("| ")).count(),
        3,
        "{table}"
    );
    assert!(
        table.contains("Written by `descent gain --game tic_tac_toe"),
        "{table}"
    );
    assert!(stdout(&out).contains("| 8ms | "), "{}", stdout(&out));
    let svg = std::fs::read_to_string(out_dir.join("gain.svg")).unwrap();
    assert_eq!(svg.matches("<polyline").count(), 2);
    // A sweep of something else is not written over the earlier one's files (--force would).
    let again = descent(&[
        "gain",
        "--game",
        "tic_tac_toe",
        "--agent",
        "puct:model=untrained,iters=5",
        "--against",
        "random",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(!again.status.success());
    let refusal = stderr(&again);
    assert!(
        refusal.contains("cannot continue: its against was") && refusal.contains("--force"),
        "{refusal}"
    );
}

#[test]
fn a_stopped_sweep_continues_where_it_stopped_and_measures_no_side_twice() {
    let dir = tempfile::tempdir().unwrap();
    // The counterpart's match at 2s fails the first time it runs (a sweep stopped there).
    let (command, log) = logging_command(dir.path(), "*playouts,time=2s", "exit 3", "W/D/L 1/0/3");
    let out_dir = dir.path().join("gain");
    let sweep = |agent: &str, times: &str, extra: &[&str]| {
        command_sweep(&out_dir, agent, times, &command, extra)
    };
    let measured = || std::fs::read_to_string(&log).unwrap();
    let first = sweep("puct:model=shipped,time=1s", "1s,2s", &[]);
    assert!(!first.status.success(), "{}", stderr(&first));
    let json = report(&out_dir);
    assert_eq!(json["rows"].as_array().unwrap().len(), 1, "{json}");
    assert_eq!(json["pending"][0]["time"], "2s", "{json}");
    assert_eq!(json["agent_weights_sha256"].as_str().unwrap().len(), 64);
    let before = measured().lines().count();
    assert_eq!(before, 4);

    let second = sweep("puct:model=shipped,time=1s", "1s,2s,4s", &[]);
    assert!(second.status.success(), "{}", stderr(&second));
    assert!(
        stderr(&second).contains("continuing the sweep"),
        "{}",
        stderr(&second)
    );
    let new_lines: Vec<String> = measured().lines().skip(before).map(String::from).collect();
    assert_eq!(
        new_lines,
        [
            "puct:model=playouts,time=2s",
            "puct:model=shipped,time=4s",
            "puct:model=playouts,time=4s"
        ],
        "only what the stopped sweep had not measured"
    );
    let json = report(&out_dir);
    let times: Vec<&str> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["time"].as_str().unwrap())
        .collect();
    assert_eq!(times, ["1s", "2s", "4s"]);
    assert_eq!(json["rows"][1]["with_network"]["detail"], "W/D/L 3/1/0");
    assert_eq!(json["rows"][1]["without_network"]["detail"], "W/D/L 1/0/3");
    assert!(json.get("pending").is_none(), "{json}");

    // Another agent does not continue this sweep; --force starts it again.
    let other = sweep("ubfms:model=shipped,time=1s", "1s", &[]);
    assert!(!other.status.success());
    assert!(
        stderr(&other).contains("its agent was \"puct:model=shipped\""),
        "{}",
        stderr(&other)
    );
    let forced = sweep("ubfms:model=shipped,time=1s", "1s", &["--force"]);
    assert!(forced.status.success(), "{}", stderr(&forced));
    assert_eq!(report(&out_dir)["rows"].as_array().unwrap().len(), 1);
}

#[test]
fn gain_reads_the_result_line_of_a_match_command_for_each_side() {
    let dir = tempfile::tempdir().unwrap();
    let agents = dir.path().join("agents.txt");
    // The command sees each side's agent at each time; it plays no game, it prints a result.
    let command = format!(
        "echo {{agent}} {{time}} {{games}} {{side}} >> {}; case {{agent}} in \
         *playouts*) echo 'no network: W/D/L 1/1/2, score 37.5 %';; \
         *) echo 'first line 9/9/9 (W/D/L)'; echo 'network: 3/1/0 (W/D/L)';; esac",
        agents.display()
    );
    let out = descent(&[
        "gain",
        "--game",
        "tic_tac_toe",
        "--agent",
        "gumbel:model=untrained,iters=8",
        "--times",
        "1s",
        "--against-command",
        &command,
        "--games",
        "4",
        "--out",
        dir.path().join("gain").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json = report(&dir.path().join("gain"));
    let row = &json["rows"][0];
    assert_eq!(
        row["with_network"]["detail"], "W/D/L 3/1/0",
        "the last result line counts"
    );
    assert_eq!(row["without_network"]["detail"], "W/D/L 1/1/2");
    assert!(
        (row["difference"].as_f64().unwrap() - 0.5).abs() < 1e-9,
        "{row}"
    );
    assert_eq!(
        std::fs::read_to_string(&agents).unwrap(),
        "gumbel:model=untrained,time=1s 1s 4 network\ngumbel:model=playouts,time=1s 1s 4 no_network\n"
    );
}

#[test]
fn gain_counts_perfect_moves_on_scored_positions() {
    let dir = tempfile::tempdir().unwrap();
    let positions = dir.path().join("positions.txt");
    let shipped = include_str!("../../data/connect_four_positions.txt");
    let first: Vec<&str> = shipped
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(6)
        .collect();
    std::fs::write(&positions, first.join("\n") + "\n").unwrap();
    let out = descent(&[
        "gain",
        "--agent",
        "ubfms:model=shipped,time=1s",
        "--game",
        "connect_four",
        "--times",
        "5ms",
        "--perfect-moves",
        "--positions",
        positions.to_str().unwrap(),
        "--out",
        dir.path().join("gain").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json = report(&dir.path().join("gain"));
    assert_eq!(json["measure"], "perfect moves");
    assert_eq!(json["counterpart"], "mcts", "UCT with random playouts");
    assert_eq!(json["counterpart_model"], "score");
    assert_eq!(json["rows"][0]["with_network"]["trials"], 6);
}

#[test]
fn gain_refuses_what_it_cannot_measure() {
    let refused = |args: &[&str], expected: &str| {
        let out = descent(args);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            stderr(&out).contains(expected),
            "{args:?}: {}",
            stderr(&out)
        );
    };
    let base = ["gain", "--game", "tic_tac_toe", "--times", "2ms"];
    let with = |extra: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(|s| s.to_string()).collect()
    };
    let run = |extra: &[&str], expected: &str| {
        let args = with(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&args, expected);
    };
    run(
        &["--agent", "mcts:iters=5", "--against", "random"],
        "expected an agent with a network",
    );
    run(&["--agent", "puct:model=untrained,iters=5"], "--against");
    run(
        &["--agent", "puct:model=untrained,iters=5", "--perfect-moves"],
        "Connect Four only",
    );
    run(
        &[
            "--agent",
            "puct:model=untrained,iters=5",
            "--against",
            "random",
            "--games",
            "3",
        ],
        "--games 3",
    );
    run(
        &[
            "--agent",
            "puct:model=untrained,iters=5",
            "--against-command",
            "echo no result",
        ],
        "no line with `W/D/L w/d/l`",
    );
    run(
        &[
            "--agent",
            "puct:model=untrained,iters=5",
            "--against-command",
            "exit 3",
        ],
        "exit status: 3",
    );
    run(
        &[
            "--agent",
            "puct:model=untrained,iters=5",
            "--against",
            "random",
            "--against-ratio",
            "0",
        ],
        "--against-ratio 0",
    );
}

#[test]
fn a_side_cut_short_by_ctrl_c_is_dropped_and_the_network_side_before_it_kept() {
    let dir = tempfile::tempdir().unwrap();
    // The counterpart's match presses Ctrl-C on descent (its parent) once, then still prints a
    // result: a result that came after the signal is not a whole side.
    let (command, log) = logging_command(
        dir.path(),
        "*playouts*",
        "kill -INT $PPID; sleep 1",
        "W/D/L 1/1/2",
    );
    let out_dir = dir.path().join("gain");
    let sweep = || command_sweep(&out_dir, "puct:model=shipped,time=1s", "1s", &command, &[]);
    let first = sweep();
    assert_eq!(first.status.code(), Some(130), "{}", stderr(&first));
    let json = report(&out_dir);
    assert_eq!(json["rows"].as_array().unwrap().len(), 0, "{json}");
    assert_eq!(json["pending"][0]["with_network"]["detail"], "W/D/L 3/1/0");
    let second = sweep();
    assert!(second.status.success(), "{}", stderr(&second));
    let json = report(&out_dir);
    assert_eq!(json["rows"][0]["without_network"]["detail"], "W/D/L 1/1/2");
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "puct:model=shipped,time=1s\npuct:model=playouts,time=1s\npuct:model=playouts,time=1s\n",
        "the network's side once, the counterpart's again after the cut"
    );
}
