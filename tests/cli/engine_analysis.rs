//! Live analysis in `descent engine`: `lz-analyze` and `kata-analyze` read by a parser written
//! from the protocol's published description (KataGo's "GTP Extensions" document, which gives
//! Leela Zero's format and KataGo's): `info` starts each move's entry, key-value pairs follow in
//! any order, `pv` takes the moves up to the next `info`; Leela Zero's win rates and priors are
//! integers in 1/10 000, KataGo's floats in [0, 1]; values are from the side to move; the reply
//! starts with `=`, streams until the next command, and ends with an empty line.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::common::engine::Engine;

/// One `info` entry: its move, its fields, its principal variation.
#[derive(Debug)]
struct Info {
    mv: String,
    fields: HashMap<String, String>,
    pv: Vec<String>,
}

/// The entries of one analysis line; panics on a line the description does not allow.
fn parse_info_line(line: &str) -> Vec<Info> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(tokens.first(), Some(&"info"), "{line:?}");
    let mut entries = Vec::new();
    for chunk in tokens.split(|t| *t == "info").skip(1) {
        let mut fields = HashMap::new();
        let mut pv = Vec::new();
        let mut i = 0;
        while i < chunk.len() {
            if chunk[i] == "pv" {
                pv = chunk[i + 1..].iter().map(|s| s.to_string()).collect();
                break;
            }
            assert!(
                i + 1 < chunk.len(),
                "key {} without a value: {line:?}",
                chunk[i]
            );
            fields.insert(chunk[i].to_string(), chunk[i + 1].to_string());
            i += 2;
        }
        let mv = fields
            .remove("move")
            .unwrap_or_else(|| panic!("no move: {line:?}"));
        entries.push(Info { mv, fields, pv });
    }
    assert!(!entries.is_empty(), "{line:?}");
    entries
}

impl Info {
    fn number(&self, key: &str) -> f64 {
        let text = self
            .fields
            .get(key)
            .unwrap_or_else(|| panic!("no {key}: {self:?}"));
        text.parse()
            .unwrap_or_else(|_| panic!("{key} {text:?} is no number"))
    }

    /// Checks the fields both formats share; `scale` is 10 000 (Leela Zero) or 1 (KataGo).
    fn check(&self, order: usize, scale: f64) {
        let visits = self.number("visits");
        assert!(visits >= 0.0 && visits.fract() == 0.0, "{self:?}");
        assert_eq!(self.number("order"), order as f64, "{self:?}");
        for key in ["winrate", "prior"] {
            let value = self.number(key);
            assert!((0.0..=scale).contains(&value), "{key} {value}: {self:?}");
            if scale > 1.0 {
                assert_eq!(value.fract(), 0.0, "{key} is an integer: {self:?}");
            }
        }
        assert!(self.number("lcb") <= self.number("winrate"), "{self:?}");
        assert_eq!(self.pv.first(), Some(&self.mv), "{self:?}");
    }
}

/// Reads the `=` line of a streamed reply, then `lines` analysis lines, each checked.
fn read_analysis(engine: &mut Engine, lines: usize, scale: f64) -> Vec<Vec<Info>> {
    assert_eq!(engine.read_line(), "=\n");
    (0..lines)
        .map(|_| {
            let entries = parse_info_line(&engine.read_line());
            for (order, entry) in entries.iter().enumerate() {
                entry.check(order, scale);
            }
            entries
        })
        .collect()
}

/// The Go network's expert: `lz-analyze 10` writes an `info` line every 100 ms, each a
/// well-formed entry per move, the visits growing from line to line; the next command stops it
/// at once (the empty line within 100 ms), and is then answered. `kata-analyze` likewise, with
/// KataGo's floats.
#[test]
fn lz_analyze_streams_info_lines_and_stops_at_the_next_command() {
    let mut engine = Engine::start(&["--game", "go", "--agent", "exit:model=shipped,time=1s"]);
    engine.ok("play b E5");
    engine.write("lz-analyze 10");
    let lines = read_analysis(&mut engine, 4, 10_000.0);
    let visits = |line: &Vec<Info>| -> f64 { line.iter().map(|e| e.number("visits")).sum() };
    assert!(visits(&lines[3]) > visits(&lines[0]), "visits do not grow");
    let moves: std::collections::HashSet<&str> = lines[3].iter().map(|e| e.mv.as_str()).collect();
    assert_eq!(moves.len(), lines[3].len(), "a move listed twice");
    assert!(!moves.contains("E5"), "an occupied point");
    let asked = Instant::now();
    engine.write("name");
    // Info lines already under way may come first; then the empty line that ends the reply.
    while engine.read_line() != "\n" {}
    let stopped = asked.elapsed();
    assert!(
        stopped < Duration::from_millis(100),
        "stopped after {stopped:?}"
    );
    assert_eq!(engine.read_line(), "= descent\n");
    assert_eq!(engine.read_line(), "\n");
    engine.write("2 kata-analyze w interval 10");
    assert_eq!(engine.read_line(), "=2\n");
    let entries = parse_info_line(&engine.read_line());
    for (order, entry) in entries.iter().enumerate() {
        entry.check(order, 1.0);
    }
    engine.write("");
    while engine.read_line() != "\n" {}
    assert!(engine.ok("showboard").contains("to move"));
    let refused = engine.refused("lz-analyze b 10");
    assert!(refused.contains("is to move"), "{refused}");
}

/// The win rate is the side to move's: above 50 % for the player who wins at once, X (`b`)
/// at c1, then O (`w`) at c2; the winning move is ranked first and leads its line.
#[test]
fn the_winrate_of_a_won_position_is_above_half_from_the_movers_side() {
    for (moves, winner) in [("a1 a2 b1 b2", "c1"), ("a1 a2 b1 b2 c3", "c2")] {
        let mut engine = Engine::start(&["--game", "tic_tac_toe", "--agent", "ubfms:time=1s"]);
        for (i, mv) in moves.split(' ').enumerate() {
            let side = if i % 2 == 0 { "b" } else { "w" };
            engine.ok(&format!("play {side} {mv}"));
        }
        engine.write("lz-analyze 20");
        let lines = read_analysis(&mut engine, 2, 10_000.0);
        let best = &lines[1][0];
        assert_eq!(best.mv.to_lowercase(), winner, "{best:?}");
        assert!(best.number("winrate") > 5000.0, "{best:?}");
        engine.write("");
        while engine.read_line() != "\n" {}
        // The genmove form searches, writes its line, then plays.
        let side = if moves.split(' ').count() % 2 == 0 {
            "b"
        } else {
            "w"
        };
        engine.write(&format!("lz-genmove_analyze {side} 10"));
        assert_eq!(engine.read_line(), "=\n");
        let mut line = engine.read_line();
        while line.starts_with("info") {
            line = engine.read_line();
        }
        assert_eq!(line.to_lowercase(), format!("play {winner}\n"));
        assert_eq!(engine.read_line(), "\n");
    }
}

/// Lizzie reads `version` as Leela Zero's and takes an engine started with `override-version`
/// for KataGo (which has that option for Lizzie): `--override-version` sets the reply, one word.
#[test]
fn override_version_sets_what_version_answers() {
    let mut engine = Engine::start(&["--game", "tic_tac_toe", "--agent", "ubfms:time=1s"]);
    assert_eq!(engine.ok("version"), env!("CARGO_PKG_VERSION"));
    let mut engine = Engine::start(&[
        "--game",
        "tic_tac_toe",
        "--agent",
        "ubfms:time=1s",
        "--override-version",
        "0.17",
    ]);
    assert_eq!(engine.ok("version"), "0.17");
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_descent"))
        .args([
            "engine",
            "--game",
            "tic_tac_toe",
            "--agent",
            "ubfms:time=1s",
        ])
        .args(["--override-version", "0.17 beta"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("\"0.17 beta\": a version is one word"),
        "{stderr}"
    );
}
