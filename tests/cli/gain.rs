//! `descent gain`: the card's table of a network against the same search without it, and its
//! strength-against-time chart, measured three ways (games against an agent, a match command's
//! W/D/L, perfect moves).

use crate::common::{descent, stderr, stdout};

fn report(dir: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("gain.json")).expect("gain.json written");
    serde_json::from_str(&text).unwrap()
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
    // An earlier sweep's files are kept unless --force.
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
    assert!(stderr(&again).contains("--force"), "{}", stderr(&again));
}

#[test]
fn gain_reads_the_result_line_of_a_match_command_for_each_side() {
    let dir = tempfile::tempdir().unwrap();
    let agents = dir.path().join("agents.txt");
    // The command sees each side's agent at each time; it plays no game, it prints a result.
    let command = format!(
        "echo {{agent}} {{time}} {{games}} >> {}; case {{agent}} in \
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
        "gumbel:model=untrained,time=1s 1s 4\ngumbel:model=playouts,time=1s 1s 4\n"
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
