//! Games written in their communities' formats and read back by parsers descent did not write:
//! SGF (Go, Othello, Gomoku, Hex) by the `sgf-parse` crate, PDN (draughts) by the PyPI
//! `pydraughts` library, which also replays every move on its own board (`scripts/read_pdn.py`).
//! The PDN check needs a Python with pydraughts: `DESCENT_REFERENCE_PYTHON` (set by `.ci/run`,
//! where `DESCENT_REQUIRE_REFERENCES=1` makes its absence a failure), else `scripts/.venv`.

use std::path::PathBuf;
use std::process::Command;

use descent::games::draughts::Draughts;
use descent::games::pdn::pdn_record;
use descent::games::sgf::{result_text, sgf_record};
use descent::games::{Action, Game, GameExt, GameSpec, GameVisitor, Player};
use rand::{RngExt, SeedableRng};
use sgf_parse::{GameTree, SgfProp};

/// A game of uniformly random moves from `initial`, at most `max_plies` long.
fn random_game<G: Game>(initial: &G, seed: u64, max_plies: usize) -> (Vec<Action>, G) {
    let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut position = initial.clone();
    let mut actions = Vec::new();
    let mut legal = Vec::new();
    while !position.is_terminal() && actions.len() < max_plies {
        position.legal_actions(&mut legal);
        let action = legal[rng.random_range(0..legal.len())];
        actions.push(action);
        position.play(action);
    }
    (actions, position)
}

/// Properties as `(identifier, value)` pairs.
type Properties = Vec<(String, String)>;

/// Each node of the main line as its properties' `(identifier, value)`, values as `value` reads
/// them.
fn main_line<P: SgfProp>(
    root: &sgf_parse::SgfNode<P>,
    value: impl Fn(&P) -> String,
) -> Vec<Properties> {
    root.main_variation()
        .map(|node| {
            node.properties()
                .map(|p| (p.identifier(), value(p)))
                .collect()
        })
        .collect()
}

/// The root's `(identifier, value)` pairs and the main line's moves `(colour, value)` of an SGF
/// text, as the parser reads them (Go's points turned back into letters).
fn parsed_sgf(text: &str) -> (Properties, Properties) {
    let tree = sgf_parse::parse(text)
        .expect("sgf-parse reads it")
        .remove(0);
    let letters = |x: u8| char::from(b"abcdefghijklmnopqrstuvwxyz"[x as usize]).to_string();
    let props = match &tree {
        GameTree::GoGame(root) => main_line(root, |p| {
            use sgf_parse::go::{Move, Prop};
            match p {
                Prop::B(Move::Move(pt)) | Prop::W(Move::Move(pt)) => letters(pt.x) + &letters(pt.y),
                Prop::B(Move::Pass) | Prop::W(Move::Pass) => String::new(),
                Prop::KM(komi) => komi.to_string(),
                Prop::SZ((c, r)) => format!("{c}:{r}"),
                Prop::RE(text) | Prop::PB(text) => text.text.clone(),
                _ => "-".into(),
            }
        }),
        GameTree::Unknown(root) => main_line(root, |p| {
            use sgf_parse::unknown_game::Prop;
            match p {
                Prop::B(m) | Prop::W(m) => m.clone(),
                Prop::SZ((c, r)) => format!("{c}:{r}"),
                Prop::RE(text) | Prop::PB(text) => text.text.clone(),
                _ => "-".into(),
            }
        }),
    };
    let mut nodes = props.into_iter();
    let root = nodes.next().expect("a root node");
    let moves = nodes
        .flatten()
        .filter(|(id, _)| id == "B" || id == "W")
        .collect();
    (root, moves)
}

fn root_value(root: &[(String, String)], id: &str) -> Option<String> {
    root.iter().find(|(k, _)| k == id).map(|(_, v)| v.clone())
}

struct SgfRoundTrip {
    seed: u64,
}

impl GameVisitor for SgfRoundTrip {
    type Output = ();

    fn visit<G: Game>(self, initial: G) {
        let (actions, end) = random_game(&initial, self.seed, 400);
        let players = ["black ] \\ name".to_string(), "white".to_string()];
        let record = sgf_record(&initial, &actions, players, result_text(&end)).unwrap();
        let text = record.to_string();
        let (root, moves) = parsed_sgf(&text);
        let view = initial.board_view();
        let cols = view.cells.iter().map(|c| c.col + 1).max().unwrap();
        assert_eq!(
            root_value(&root, "SZ"),
            Some(format!("{cols}:{cols}")),
            "{text}"
        );
        assert_eq!(root_value(&root, "PB").as_deref(), Some("black ] \\ name"));
        assert_eq!(root_value(&root, "RE"), result_text(&end));
        assert_eq!(moves.len(), actions.len(), "{text}");
        // Each move read back is the move played: same colour, same cell.
        let mut position = initial.clone();
        for ((colour, value), &action) in moves.iter().zip(&actions) {
            let mover = if position.to_move() == Player::P0 {
                "B"
            } else {
                "W"
            };
            assert_eq!(colour, mover);
            let text = match value.as_str() {
                "" => "pass".to_string(),
                "swap-pieces" => "swap".to_string(),
                point => {
                    let b = point.as_bytes();
                    let (col, row) = (usize::from(b[0] - b'a'), usize::from(b[1] - b'a'));
                    let cell = view.cells.iter().find(|c| c.col == col && c.row == row);
                    cell.unwrap_or_else(|| panic!("{point} is no cell"))
                        .id
                        .clone()
                }
            };
            assert_eq!(position.parse_legal_move(&text), Ok(action), "{text}");
            position.play(action);
        }
        assert_eq!(position.hash(), end.hash());
    }
}

#[test]
fn games_written_as_sgf_are_read_back_move_for_move_by_sgf_parse() {
    for spec in ["go", "go(board_size=11)", "othello", "gomoku", "hex"] {
        for seed in 0..3 {
            spec.parse::<GameSpec>()
                .unwrap()
                .visit(SgfRoundTrip { seed });
        }
    }
}

/// A Python with pydraughts, or `None` (with a message) when there is none.
fn reference_python() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("DESCENT_REFERENCE_PYTHON").map(PathBuf::from),
        Some(PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/.venv/bin/python"
        ))),
    ];
    let found = candidates.into_iter().flatten().find(|python| {
        Command::new(python)
            .args(["-c", "import draughts"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if found.is_none() {
        crate::common::skip::skip(
            "DESCENT_REQUIRE_REFERENCES",
            "no Python with pydraughts (set DESCENT_REFERENCE_PYTHON)",
        );
    }
    found
}

/// A FEN's pieces: (colour letter, king, square), whatever the order or ranges.
fn fen_pieces(fen: &str) -> Vec<(char, bool, u32)> {
    let mut pieces = Vec::new();
    for part in fen.split(':').skip(1) {
        let mut chars = part.chars();
        let colour = chars.next().unwrap();
        for item in chars.as_str().split(',').filter(|s| !s.is_empty()) {
            let (king, squares) = match item.strip_prefix('K') {
                Some(rest) => (true, rest),
                None => (false, item),
            };
            let (first, last) = squares.split_once('-').unwrap_or((squares, squares));
            for square in first.parse::<u32>().unwrap()..=last.parse::<u32>().unwrap() {
                pieces.push((colour, king, square));
            }
        }
    }
    pieces.sort();
    pieces
}

#[test]
fn draughts_games_written_as_pdn_are_replayed_by_pydraughts() {
    let Some(python) = reference_python() else {
        return;
    };
    let initial = Draughts::<10>::new(&Default::default());
    let mut text = String::new();
    let mut ends = Vec::new();
    for seed in 0..6 {
        let (actions, end) = random_game(&initial, seed, 150 + 50 * seed as usize);
        let winner = end.outcome().map(|o| o.winner());
        let players = [format!("white \"{seed}\""), "black".to_string()];
        text.push_str(&pdn_record(&initial, &actions, players, winner, "test").unwrap());
        ends.push((actions.len(), end, winner));
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("games.pdn");
    std::fs::write(&file, &text).unwrap();
    let output = Command::new(python)
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/read_pdn.py"))
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}\n{text}");
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), ends.len(), "{text}");
    for (seed, (line, (plies, end, winner))) in lines.iter().zip(&ends).enumerate() {
        assert_eq!(line["variant"], "standard");
        assert_eq!(line["moves"], *plies as u64, "game {seed}");
        assert_eq!(
            line["white"],
            format!("white \\\"{seed}\\\""),
            "the tag as written"
        );
        let result = match winner {
            Some(Some(Player::P0)) => "2-0",
            Some(Some(Player::P1)) => "0-2",
            Some(None) => "1-1",
            None => "*",
        };
        assert_eq!(line["result"], result, "game {seed}");
        let library_fen = line["fen"].as_str().unwrap();
        assert_eq!(
            fen_pieces(library_fen),
            fen_pieces(&end.fen()),
            "game {seed}"
        );
        assert_eq!(
            library_fen.chars().next(),
            end.fen().chars().next(),
            "side to move"
        );
    }
}

/// A run directory holding `config` and the games `moves` as games.jsonl lines.
fn run_with_games(dir: &std::path::Path, config: &str, games: &[Vec<String>]) -> PathBuf {
    let run = dir.join("run");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(run.join("config.yaml"), config).unwrap();
    let mut lines = String::new();
    for (i, moves) in games.iter().enumerate() {
        let line = serde_json::json!({
            "game": i + 1, "index": i, "net_version": i, "result_p0": 0.0,
            "moves": moves, "values_p0": [],
        });
        lines.push_str(&format!("{line}\n"));
    }
    lines.push_str("{not a game\n");
    std::fs::write(run.join("games.jsonl"), lines).unwrap();
    run
}

/// The moves of a random game of `spec`, in its notation.
fn random_moves(spec: &str, seed: u64) -> Vec<String> {
    struct Moves(u64);
    impl GameVisitor for Moves {
        type Output = Vec<String>;
        fn visit<G: Game>(self, initial: G) -> Vec<String> {
            let (actions, _) = random_game(&initial, self.0, 200);
            let mut position = initial;
            actions
                .iter()
                .map(|&a| {
                    let text = position.move_to_text(a);
                    position.play(a);
                    text
                })
                .collect()
        }
    }
    spec.parse::<GameSpec>().unwrap().visit(Moves(seed))
}

#[test]
fn games_export_writes_a_runs_games_as_one_sgf_collection_and_refuses_other_games() {
    let dir = tempfile::tempdir().unwrap();
    let games: Vec<Vec<String>> = (0..3)
        .map(|seed| random_moves("go(komi=6.5)", seed))
        .collect();
    let run = run_with_games(dir.path(), "game: go(komi=6.5)\n", &games);
    let output = crate::common::descent(&["games-export", run.to_str().unwrap(), "--last", "2"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        crate::common::stderr(&output)
    );
    assert!(
        stdout.contains("2 game(s) written") && stdout.contains("1 line(s)"),
        "{stdout}"
    );
    let text = std::fs::read_to_string(run.join("games.sgf")).unwrap();
    let trees = sgf_parse::go::parse(&text).expect("sgf-parse reads the collection");
    assert_eq!(trees.len(), 2, "the last two games");
    for (tree, moves) in trees.iter().zip(&games[1..]) {
        assert!(
            tree.properties()
                .any(|p| *p == sgf_parse::go::Prop::KM(6.5))
        );
        let plies = tree.main_variation().skip(1).count();
        assert_eq!(plies, moves.len());
    }
    // Awale has no standard file: refused by name, nothing written.
    let run = run_with_games(&dir.path().join("awale"), "game: awale\n", &[]);
    let output = crate::common::descent(&["games-export", run.to_str().unwrap()]);
    assert!(!output.status.success());
    assert!(crate::common::stderr(&output).contains("awale has no standard game file"));
    assert!(!run.join("games.sgf").exists() && !run.join("games.pdn").exists());
}

#[test]
fn play_saves_the_game_played_as_pdn() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.pdn");
    let output = crate::common::descent_with_input(
        &[
            "play",
            "--game",
            "draughts",
            "--agent",
            "random",
            "--save",
            file.to_str().unwrap(),
        ],
        "32-28\nquit\n",
    );
    assert!(
        output.status.success(),
        "{}",
        crate::common::stderr(&output)
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("[GameType \"20\"]") && text.contains("[White \"you\"]"),
        "{text}"
    );
    assert!(text.contains("1. 32-28 "), "{text}");
    assert!(text.trim_end().ends_with('*'), "unfinished: {text}");
    // A game without a file format is refused before it starts.
    let output = crate::common::descent_with_input(
        &[
            "play", "--game", "awale", "--agent", "random", "--save", "x.sgf",
        ],
        "quit\n",
    );
    assert!(!output.status.success());
    assert!(crate::common::stderr(&output).contains("no standard game file"));
}
