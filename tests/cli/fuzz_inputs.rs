//! Fuzz-style tests (bounded, seeded): random bytes and token soup fed to the YAML loaders, the
//! agent-spec parser, the engine, `play` and `replay`. Nothing may panic: every input is either
//! accepted or refused with a message (a non-zero exit, a `?` reply).

use crate::common::{assert_no_crash, descent, descent_with_input, stderr, stdout};

use std::panic::{AssertUnwindSafe, catch_unwind};

use descent::arena::AgentSpec;
use descent::experiment::ExperimentConfig;
use descent::selfplay::TrainConfig;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// `count` words drawn from `vocabulary` (or, one time in eight, random bytes), joined by
/// separators drawn from `separators`.
fn soup(
    rng: &mut Xoshiro256PlusPlus,
    vocabulary: &[&str],
    separators: &[&str],
    count: usize,
) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..count {
        if rng.random_range(0..8) == 0 {
            for _ in 0..rng.random_range(1..6) {
                out.push(rng.random::<u8>());
            }
        } else {
            out.extend_from_slice(vocabulary[rng.random_range(0..vocabulary.len())].as_bytes());
        }
        out.extend_from_slice(separators[rng.random_range(0..separators.len())].as_bytes());
    }
    out
}

/// Runs `f` on `input`, failing the test (with the input) if it panics.
fn no_panic(what: &str, input: &str, f: impl FnOnce(&str)) {
    let outcome = catch_unwind(AssertUnwindSafe(|| f(input)));
    assert!(outcome.is_ok(), "{what} panicked on {input:?}");
}

const YAML_WORDS: &[&str] = &[
    "game",
    "tic_tac_toe",
    "awale",
    "awale(feeding=false)",
    "connect_four",
    "seed",
    "run",
    "max_games",
    "max_time",
    "threads",
    "device",
    "name",
    "network",
    "architecture",
    "paper-cnn",
    "resnet-b2c32-fc64",
    "resnet-b99999c99999-fc9",
    "search",
    "algorithm",
    "descent",
    "mcts",
    "alphabeta",
    "iterations",
    "time",
    "1e300",
    "0s",
    "-1",
    "0",
    "1",
    "99999999999999999999",
    "1.5",
    "null",
    "true",
    "learning",
    "targets",
    "tree",
    "root",
    "terminal_eval",
    "classic",
    "additive-depth",
    "replay",
    "kind",
    "stratified",
    "games",
    "duplication",
    "batch_size",
    "selection",
    "exploitation",
    "anneal",
    "checkpoint",
    "every_games",
    "evaluation",
    "variants",
    "repeats",
    "train_time",
    "stage_every",
    "set",
    "base",
    "[",
    "]",
    "{",
    "}",
    ":",
    "-",
    "&a",
    "*a",
    "!!str",
    "'",
    "\"",
    "|",
    ">",
    "#",
    "~",
];

#[test]
fn the_yaml_loaders_never_panic() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(14);
    for case in 0..3000 {
        let separators: &[&str] = &[" ", "\n", ": ", "\n  ", "\n    ", ", ", "\n- "];
        let bytes = if case % 5 == 0 {
            (0..rng.random_range(0..200))
                .map(|_| rng.random::<u8>())
                .collect()
        } else {
            let count = rng.random_range(1..40);
            soup(&mut rng, YAML_WORDS, separators, count)
        };
        let text = String::from_utf8_lossy(&bytes);
        no_panic("TrainConfig", &text, |t| {
            if let Ok(config) = TrainConfig::from_yaml(t) {
                let _ = config.validate();
            }
        });
        no_panic("ExperimentConfig", &text, |t| {
            let _ = ExperimentConfig::from_yaml(t);
        });
    }
    // Deep nesting is refused, not a stack overflow.
    let deep = format!("game: {}1{}", "[".repeat(5000), "]".repeat(5000));
    no_panic("TrainConfig", &deep, |t| {
        assert!(TrainConfig::from_yaml(t).is_err())
    });
}

#[test]
fn the_agent_spec_parser_never_panics() {
    let words: &[&str] = &[
        "random",
        "greedy",
        "minimax1",
        "mcts",
        "alphabeta",
        "ubfm",
        "ubfms",
        "descent",
        "iters",
        "time",
        "depth",
        "c",
        "policy",
        "uct",
        "playout",
        "heavy",
        "net",
        "final",
        "visits",
        "mean",
        "model",
        "untrained",
        "arch",
        "resnet-b1c8-fc8",
        "completed",
        "eps",
        "0",
        "-3",
        "1e309",
        "0.5",
        "NaN",
        "inf",
        "200ms",
        "99999999999999999999d",
        "",
        "=",
        ":",
        ",",
    ];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(15);
    for _ in 0..5000 {
        let count = rng.random_range(1..10);
        let bytes = soup(&mut rng, words, &["", "", ":", "=", ","], count);
        let text = String::from_utf8_lossy(&bytes);
        no_panic("AgentSpec", &text, |t| {
            if let Err(message) = t.parse::<AgentSpec>() {
                assert!(!message.to_string().is_empty());
            }
        });
    }
}

#[test]
fn the_engine_answers_every_line_of_garbage() {
    let words: &[&str] = &[
        "protocol_version",
        "name",
        "version",
        "list_commands",
        "known_command",
        "clear_board",
        "play",
        "genmove",
        "undo",
        "showboard",
        "legal_moves",
        "final_score",
        "set_time",
        "time_settings",
        "time_left",
        "boardsize",
        "komi",
        "p0",
        "p1",
        "b",
        "w",
        "black",
        "a1",
        "b2",
        "c3",
        "d4",
        "pass",
        "1e308",
        "1e-10",
        "0",
        "-1",
        "30",
        "12",
        "#",
        "\t",
        "\u{0}",
        "é",
        "18446744073709551616",
    ];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(16);
    let mut input = Vec::new();
    for _ in 0..1500 {
        let count = rng.random_range(1..5);
        input.extend(soup(&mut rng, words, &[" ", " ", "  "], count));
        input.push(b'\n');
    }
    // A line of 8 MB (a stuck sender) is refused whole and the next line answered.
    input.extend(std::iter::repeat_n(b'x', 8 << 20));
    input.extend_from_slice(b"\nname\n");
    let output = descent_with_input(
        &[
            "engine",
            "--game",
            "tic_tac_toe",
            "--agent",
            "mcts:iters=10",
        ],
        &input,
    );
    assert_no_crash(&output, "engine");
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let replies: Vec<&str> = text.split("\n\n").filter(|r| !r.is_empty()).collect();
    assert!(replies.len() > 1000, "{} replies", replies.len());
    for reply in &replies {
        assert!(
            reply.starts_with('=') || reply.starts_with('?'),
            "{reply:?}"
        );
    }
    assert_eq!(replies.last(), Some(&"= descent"));
    assert_eq!(
        replies[replies.len() - 2],
        "? the line is longer than 65536 bytes"
    );
}

#[test]
fn play_reads_on_through_garbage() {
    let words: &[&str] = &[
        "a1", "b2", "c3", "z9", "undo", "hint", "moves", "help", "?", "é", "",
    ];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(17);
    let mut input = Vec::new();
    for _ in 0..300 {
        input.extend(soup(&mut rng, words, &["\n", " "], 1));
    }
    input.extend_from_slice(b"\nquit\n");
    let output = descent_with_input(
        &["play", "--game", "tic_tac_toe", "--agent", "mcts:iters=10"],
        &input,
    );
    assert_no_crash(&output, "play");
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn replay_refuses_garbage_move_lists_without_panicking() {
    let words: &[&str] = &[
        "A",
        "b",
        "F",
        "g",
        "a1",
        "c3",
        "d",
        "0",
        "5",
        "6",
        "7",
        "-1",
        "999999999999999999999",
        "1.5",
        "é",
        "--json",
        "-",
        "",
        "x",
    ];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(18);
    for case in 0..120 {
        let game = ["awale", "connect_four", "tic_tac_toe"][case % 3];
        let flag = if case % 2 == 0 { "--moves" } else { "--ids" };
        let count = rng.random_range(1..12);
        // A command-line argument holds no NUL byte.
        let list =
            String::from_utf8_lossy(&soup(&mut rng, words, &[" ", ","], count)).replace('\0', "");
        let output = descent(&["replay", game, flag, &list]);
        assert_no_crash(&output, &format!("replay {game} {flag} {list:?}"));
        if !output.status.success() {
            assert!(
                !stderr(&output).trim().is_empty(),
                "{list:?}: a silent refusal"
            );
        }
    }
}
