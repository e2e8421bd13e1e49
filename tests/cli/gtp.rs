//! `descent engine` as a GTP engine among others: whole games of Go against GNU Go 3.8 and
//! against a second `descent engine`, played by `descent gtp-match` with a third engine as
//! referee that every move is played on first (GNU Go for Go, descent for Hex); the games' SGF
//! read back by `sgf-parse` and scored again by descent's rules. GNU Go is Debian's `gnugo`
//! (installed by `.ci/run`, where `DESCENT_REQUIRE_GNUGO=1` makes its absence a failure).
//! Also the GTP commands a graphical program sends: `boardsize`, `komi`, upper-case vertices,
//! `final_score`, `resign`.

use std::path::Path;
use std::process::Command;

use crate::common::engine::Engine;

use descent::games::sgf::result_text;
use descent::games::{Game, GameExt, GameSpec, GameVisitor};

const DESCENT: &str = env!("CARGO_BIN_EXE_descent");

/// GNU Go's binary, or `None` (with a message) when it is not installed.
fn gnugo() -> Option<String> {
    let found = ["gnugo", "/usr/games/gnugo"].into_iter().find(|path| {
        Command::new(path)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if found.is_none() {
        crate::common::skip::skip(
            "DESCENT_REQUIRE_GNUGO",
            "GNU Go is not installed (apt-get install gnugo)",
        );
    }
    found.map(str::to_string)
}

/// Runs `descent gtp-match` with `args`; its stdout.
fn gtp_match(args: &[&str]) -> String {
    let output = Command::new(DESCENT)
        .arg("gtp-match")
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// Two games of Go on 9 × 9, komi 7.5, between `black` and `white` refereed by `referee`, each
/// saved in `sgf_dir`; the match's stdout.
fn go_match_with_sgf([black, white, referee]: [&str; 3], sgf_dir: &Path) -> String {
    gtp_match(&[
        "--black",
        black,
        "--white",
        white,
        "--referee",
        referee,
        "--games",
        "2",
        "--size",
        "9",
        "--komi",
        "7.5",
        "--sgf-dir",
        sgf_dir.to_str().unwrap(),
    ])
}

/// Checks a match's report: `games` games, each with a result, none with a move refused by
/// the referee, and (`scores_agree`) none whose players' score differs from the referee's;
/// returns the games' lines.
fn check_report(stdout: &str, games: usize, scores_agree: bool) -> Vec<String> {
    let lines: Vec<String> = stdout
        .lines()
        .filter(|l| l.starts_with("game "))
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), games, "{stdout}");
    assert!(!stdout.contains("refused by the referee"), "{stdout}");
    assert!(
        !scores_agree || !stdout.contains("differs from the referee"),
        "{stdout}"
    );
    assert!(!stdout.contains("without a result"), "{stdout}");
    assert!(!stdout.contains(" ? after"), "{stdout}");
    let summary = stdout.lines().last().unwrap();
    let counts = summary
        .split_once(" (W/D/L)")
        .and_then(|(before, _)| before.rsplit(' ').next())
        .unwrap_or_else(|| panic!("no W/D/L in {summary:?}"));
    let total: usize = counts.split('/').map(|n| n.parse::<usize>().unwrap()).sum();
    assert_eq!(total, games, "{summary}");
    lines
}

/// Each SGF of `dir` replayed by descent's `rules`: every move legal, the game over at its end
/// (two passes) and descent's own result the record's (the referee's).
struct ReplaySgf<'a> {
    dir: &'a Path,
    games: usize,
    /// Whether the record's result must be descent's.
    check_result: bool,
}

impl GameVisitor for ReplaySgf<'_> {
    type Output = ();

    fn visit<G: Game>(self, initial: G) {
        for index in 1..=self.games {
            let path = self.dir.join(format!("game-{index:03}.sgf"));
            let text = std::fs::read_to_string(&path).unwrap();
            let root = sgf_parse::go::parse(&text)
                .expect("sgf-parse reads it")
                .remove(0);
            // The players as the engines name themselves, not their command lines; the rules.
            for prop in root.properties() {
                if let sgf_parse::go::Prop::PB(name) | sgf_parse::go::Prop::PW(name) = prop {
                    assert!(!name.text.contains('/'), "{text}");
                }
            }
            assert!(text.contains("RU[Chinese]"), "{text}");
            let mut position = initial.clone();
            let mut result = None;
            for node in root.main_variation() {
                for prop in node.properties() {
                    use sgf_parse::go::{Move, Prop};
                    let vertex = match prop {
                        Prop::RE(re) => {
                            result = Some(re.text.clone());
                            continue;
                        }
                        Prop::B(Move::Pass) | Prop::W(Move::Pass) => "pass".to_string(),
                        Prop::B(Move::Move(p)) | Prop::W(Move::Move(p)) => {
                            let col = b"abcdefghjklmnopqrst"[p.x as usize] as char;
                            format!("{col}{}", 9 - p.y)
                        }
                        _ => continue,
                    };
                    position
                        .play_moves(&vertex)
                        .unwrap_or_else(|e| panic!("{e}\n{text}"));
                }
            }
            let result = result.expect("RE");
            if !result.ends_with("+R") {
                assert!(position.is_terminal(), "two passes end the game\n{text}");
                if self.check_result {
                    assert_eq!(result_text(&position), Some(result), "{text}");
                }
            }
        }
    }
}

#[test]
fn descent_plays_whole_games_against_gnu_go_every_move_refereed() {
    let Some(gnugo) = gnugo() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let sgf_dir = dir.path().join("sgf");
    let rules = "go(superko=illegal,max_plies=1000)";
    let opponent = format!(
        "{gnugo} --mode gtp --level 1 --chinese-rules --positional-superko --capture-all-dead"
    );
    let engine =
        format!("{DESCENT} engine --game {rules} --agent mcts:iters=100 --resign-below never");
    let referee = format!("{gnugo} --mode gtp --chinese-rules --positional-superko");
    let stdout = go_match_with_sgf([&opponent, &engine, &referee], &sgf_dir);
    for line in check_report(&stdout, 2, true) {
        assert!(line.contains("(two passes)"), "{stdout}");
    }
    // The referee's count (GNU Go, area scoring, dead stones captured) is descent's
    // Tromp-Taylor result, half point of komi included.
    let spec: GameSpec = rules.parse().unwrap();
    spec.visit(ReplaySgf {
        dir: &sgf_dir,
        games: 2,
        check_result: true,
    });
}

#[test]
fn two_descent_engines_play_go_refereed_by_gnu_go_and_hex_refereed_by_descent() {
    if let Some(gnugo) = gnugo() {
        let dir = tempfile::tempdir().unwrap();
        let sgf_dir = dir.path().join("sgf");
        let rules = "go(superko=illegal,max_plies=1000)";
        let first =
            format!("{DESCENT} engine --game {rules} --agent mcts:iters=30 --resign-below never");
        let second = format!("{DESCENT} engine --game {rules} --agent random");
        let referee = format!("{gnugo} --mode gtp --chinese-rules --positional-superko");
        let stdout = go_match_with_sgf([&first, &second, &referee], &sgf_dir);
        // GNU Go's count judges dead stones, which these players leave on the board: only its
        // judgment of the moves is asked here, and descent's rules replay them.
        check_report(&stdout, 2, false);
        let spec: GameSpec = rules.parse().unwrap();
        spec.visit(ReplaySgf {
            dir: &sgf_dir,
            games: 2,
            check_result: false,
        });
    }
    // Hex has no pass: a game ends when the mover's engine says it is over, and the referee's
    // final_score (B+ / W+) decides.
    let first = format!("{DESCENT} engine --game hex --agent mcts:iters=20 --resign-below never");
    let second = format!("{DESCENT} engine --game hex --agent random --seed 7");
    let referee = format!("{DESCENT} engine --game hex --agent random");
    let stdout = gtp_match(&[
        "--black",
        &first,
        "--white",
        &second,
        "--referee",
        &referee,
        "--games",
        "2",
        "--size",
        "11",
    ]);
    for line in check_report(&stdout, 2, true) {
        assert!(
            line.contains("B+ after") || line.contains("W+ after"),
            "{line}"
        );
    }
    // Each engine is named as it names itself (GTP's name and version), numbered when two
    // share a name, and its command line is said once.
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        stdout.contains(&format!(
            "game 1: black descent {version} #1 · white descent {version} #2"
        )),
        "{stdout}"
    );
    assert_eq!(stdout.matches(first.as_str()).count(), 1, "{stdout}");
    assert!(
        stdout.contains(&format!("second engine: descent {version} #2 = {second}")),
        "{stdout}"
    );
}

/// Two engines whose Go rules are known and differ — descent's default (a repeated board draws)
/// against positional superko, or GNU Go's default simple ko — are refused before the first
/// move, each rule and the fix named; one rule for all plays, the rule printed.
#[test]
fn a_match_between_engines_of_different_ko_rules_refuses_to_start() {
    let engine = |rules: &str| format!("{DESCENT} engine --game {rules} --agent random");
    let run = |black: &str, white: &str| {
        Command::new(DESCENT)
            .args(["gtp-match", "--black", black, "--white", white])
            .args(["--games", "2", "--size", "9", "--max-moves", "20"])
            .output()
            .unwrap()
    };
    let out = run(&engine("go"), &engine("go(superko=illegal)"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("different ko rules")
            && stderr.contains("a repeated board ends the game as a draw")
            && stderr.contains("positional superko")
            && stderr.contains("superko=illegal"),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("game 1:"));
    let out = run(
        &engine("go(superko=illegal)"),
        &engine("go(superko=illegal)"),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("ko rule: ") && stdout.contains("game 2:"),
        "{stdout}"
    );
    if let Some(gnugo) = gnugo() {
        let out = run(
            &engine("go(superko=illegal)"),
            &format!("{gnugo} --mode gtp"),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(
            stderr.contains("simple ko") && stderr.contains("--positional-superko"),
            "{stderr}"
        );
    }
}

#[test]
fn the_engine_answers_what_a_go_program_sends() {
    let mut engine = Engine::start(&["--game", "go", "--agent", "mcts:iters=30"]);
    assert_eq!(engine.reply("boardsize 9"), Ok(String::new()));
    let refused = engine.reply("boardsize 13").unwrap_err();
    assert!(refused.starts_with("unacceptable size"), "{refused}");
    // Vertices in either case; Go's moves answered in upper case.
    assert_eq!(engine.reply("play b D4"), Ok(String::new()));
    assert_eq!(engine.reply("play w e5"), Ok(String::new()));
    let reply = engine.reply("genmove black").unwrap();
    assert!(
        reply == "PASS" || reply.chars().all(|c| !c.is_ascii_lowercase()),
        "{reply}"
    );
    // komi keeps the moves; boardsize starts a new game (here on 11 × 11, another type).
    let board = engine.reply("showboard").unwrap();
    assert_eq!(engine.reply("komi 0.5"), Ok(String::new()));
    assert_eq!(
        engine.reply("showboard").unwrap(),
        board,
        "komi keeps the moves"
    );
    assert_eq!(engine.reply("boardsize 11"), Ok(String::new()));
    assert_eq!(
        engine.reply("play b L11"),
        Ok(String::new()),
        "a point of 11 × 11 only"
    );
    assert_eq!(engine.reply("play w pass"), Ok(String::new()));
    assert_eq!(engine.reply("play b PASS"), Ok(String::new()));
    // One black stone owns the empty board: 121 points, komi 0.5 kept across boardsize.
    assert_eq!(engine.reply("final_score"), Ok("B+120.5".to_string()));
    assert_eq!(engine.reply("komi 6.5"), Ok(String::new()));
    assert_eq!(engine.reply("final_score"), Ok("B+114.5".to_string()));
    assert_eq!(engine.reply("clear_board"), Ok(String::new()));
    assert_eq!(engine.reply("play b pass"), Ok(String::new()));
    assert_eq!(engine.reply("play w pass"), Ok(String::new()));
    assert_eq!(engine.reply("final_score"), Ok("W+6.5".to_string()));
    assert!(engine.reply("komi lots").is_err());
    assert!(engine.reply("boardsize nine").is_err());

    // A game with one size accepts it and refuses others; a game without komi ignores it.
    let mut engine = Engine::start(&["--game", "gomoku", "--agent", "random"]);
    assert_eq!(engine.reply("boardsize 15"), Ok(String::new()));
    assert!(
        engine
            .reply("boardsize 19")
            .unwrap_err()
            .contains("unacceptable size")
    );
    assert_eq!(engine.reply("komi 7.5"), Ok(String::new()));
    assert!(engine.reply("komi nan").is_err());

    // An agent whose value for its side is always at or below 1 resigns at its first move.
    let mut engine = Engine::start(&[
        "--game",
        "go",
        "--agent",
        "mcts:iters=10",
        "--resign-below",
        "1",
        "--resign-moves",
        "1",
    ]);
    assert_eq!(engine.reply("genmove b"), Ok("resign".to_string()));
    assert!(
        engine
            .reply("showboard")
            .unwrap()
            .contains("Black (p0) to move"),
        "nothing played"
    );
}

/// The SGF directory of a match must exist beside a size, and a bad engine command is refused
/// by name.
/// `komi` takes a number and nothing else: text that would add game settings (an end after one
/// ply, another ko rule) is refused with `?`, the engine goes on, the komi and moves unchanged.
#[test]
fn komi_is_a_number_never_game_settings() {
    for agent in ["random", "mcts:iters=10"] {
        let mut engine = Engine::start(&["--game", "go(board_size=9)", "--agent", agent]);
        assert_eq!(engine.reply("play b A1"), Ok(String::new()));
        assert_eq!(engine.reply("play w B1"), Ok(String::new()));
        assert_eq!(engine.reply("play b pass"), Ok(String::new()));
        assert_eq!(engine.reply("play w pass"), Ok(String::new()));
        let board = engine.reply("showboard").unwrap();
        // A1 and B1 one point each, the rest neutral: White by the default komi 7.5.
        assert_eq!(engine.reply("final_score"), Ok("W+7.5".to_string()));
        for smuggled in ["7.5,max_plies=1", "7.5,superko=illegal", "7.5)", "=7.5"] {
            let refused = engine.reply(&format!("komi {smuggled}")).unwrap_err();
            assert!(refused.contains("not a komi"), "{smuggled}: {refused}");
        }
        assert_eq!(engine.reply("showboard").unwrap(), board);
        assert_eq!(engine.reply("final_score"), Ok("W+7.5".to_string()));
        assert_eq!(engine.reply("komi 0.5"), Ok(String::new()));
        assert_eq!(engine.reply("final_score"), Ok("W+0.5".to_string()));
    }
}

#[test]
fn gtp_match_refuses_bad_arguments_by_name() {
    let output = Command::new(DESCENT)
        .args([
            "gtp-match",
            "--black",
            "no-such-engine-x",
            "--white",
            "also-not",
            "--games",
            "1",
        ])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no-such-engine-x"), "{stderr}");
    let output = Command::new(DESCENT)
        .args([
            "gtp-match",
            "--black",
            "a",
            "--white",
            "b",
            "--sgf-dir",
            "/tmp/x",
        ])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--size"));
    // A komi that is no number of points (it reached the engines and the SGF as `KM[NaN]`), a
    // timeout no engine can meet.
    for (flag, value, named) in [
        ("--komi", "nan", "--komi NaN"),
        ("--komi", "inf", "--komi inf"),
        ("--komi", "1e308", "--komi 1e308"),
        ("--timeout", "0s", "--timeout 0s"),
    ] {
        let output = Command::new(DESCENT)
            .args(["gtp-match", "--black", "cat", "--white", "cat", flag, value])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{flag} {value}: {stderr}");
        assert!(stderr.contains(named), "{flag} {value}: {stderr}");
    }
}

/// A network trained with `terminal_eval: score` answers in points: Black facing komi 20 on
/// 9 × 9 sits tens of points behind from the start. The engine reads that as a margin (a share
/// of the board), not as a lost game, and plays the whole game instead of resigning at its
/// third move.
#[test]
fn a_score_trained_go_network_plays_a_whole_game_through_the_engine() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("go-score.yaml");
    std::fs::write(
        &config,
        "game: go(komi=20)
seed: 1
network: {architecture: resnet-b0c8-fc16}
search: {algorithm: descent, iters: 2}
learning: {targets: tree, terminal_eval: score, pretrain_terminal_states: 3000, pretrain_epochs: 3}
replay: {games: 4, duplication: 2, batch_size: 32}
evaluation: {at_end: false}
",
    )
    .unwrap();
    let run = dir.path().join("run");
    crate::common::train_games(config.to_str().unwrap(), &run, 1);
    let black = format!(
        "{DESCENT} engine --agent ubfms:model={},iters=20",
        run.display()
    );
    let white = format!("{DESCENT} engine --game go(komi=20) --agent random --seed 3");
    let stdout = gtp_match(&[
        "--black",
        &black,
        "--white",
        &white,
        "--games",
        "1",
        "--no-alternate",
        "--size",
        "9",
        "--komi",
        "20",
        "--max-moves",
        "80",
    ]);
    assert!(!stdout.contains("resigned"), "{stdout}");
    assert!(
        stdout.contains("after 80 moves") || stdout.contains("two passes"),
        "{stdout}"
    );
}

/// The Go engine lines the documentation gives (README, docs/, the cards), in backticks:
/// `descent engine …` with its line breaks joined.
fn documented_go_engine_lines() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    for dir in ["docs", "networks"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    let mut lines = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for piece in text.split('`').skip(1).step_by(2) {
            let line = piece.split_whitespace().collect::<Vec<_>>().join(" ");
            let go =
                line.contains("--game go") || line.contains("model=go9") || line.contains("/go9");
            let whole = line.contains("--agent") && !line.contains('…');
            if line.starts_with("descent engine ") && go && whole {
                lines.push(line);
            }
        }
    }
    lines.sort();
    lines.dedup();
    lines
}

/// Every Go engine line the documentation gives plays a whole game against GNU Go under
/// positional superko, refereed — its network swapped for the shipped one and its time a move
/// cut to 50 ms — ending by two passes or a resignation, never refused before the first move
/// or on a rule mid-game.
#[test]
fn each_documented_go_engine_line_plays_gnu_go_to_the_end() {
    let Some(gnugo) = gnugo() else {
        return;
    };
    let lines = documented_go_engine_lines();
    assert!(lines.len() >= 2, "documented Go engine lines: {lines:?}");
    let model = |word: &str| {
        word.split(',')
            .map(|part| match part.split_once('=') {
                Some((key, _)) if key.ends_with("model") => format!("{key}=shipped"),
                Some(("time", _)) => "time=50ms".to_string(),
                _ => part.to_string(),
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    for line in lines {
        let runnable = line
            .replacen("descent", DESCENT, 1)
            .split(' ')
            .map(model)
            .collect::<Vec<_>>()
            .join(" ");
        let opponent = format!(
            "{gnugo} --mode gtp --level 1 --chinese-rules --positional-superko --capture-all-dead"
        );
        let referee = format!("{gnugo} --mode gtp --chinese-rules --positional-superko");
        let stdout = gtp_match(&[
            "--black",
            &runnable,
            "--white",
            &opponent,
            "--referee",
            &referee,
            "--games",
            "1",
            "--size",
            "9",
            "--komi",
            "7.5",
        ]);
        let game = stdout
            .lines()
            .find(|l| l.starts_with("game 1:"))
            .unwrap_or("");
        assert!(
            game.contains("(two passes)") || game.contains("resigned)"),
            "{line}: {stdout}"
        );
    }
}
