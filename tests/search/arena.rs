//! The arena: agents from specs on every game, reproducible matches, the Awale MCTS thesis'
//! tournament order, and `descent eval` / `descent tournament` as child processes.

use crate::common::descent;

use descent::arena::match_play::{MatchRun, Openings, play_match_until};
use descent::arena::{AgentFactory, AgentSpec, play_match, play_tournament};
use descent::games::{Game, GameExt, GameSpec, GameVisitor, REGISTERED_GAMES};

fn factory<G: Game>(spec: &str, game: &str) -> AgentFactory<G> {
    let device = descent::value::NetDevice::cpu();
    AgentFactory::new(spec.parse::<AgentSpec>().unwrap(), game, &device)
        .unwrap_or_else(|e| panic!("{spec}: {e:#}"))
}

/// Every agent kind plays a legal game against `random` on every registered game.
struct EveryAgent;

/// Where the agents start: the initial position, or, on games whose long games have many moves
/// a position (Go, Gomoku, Hex, Amazons, ...), the position 12 plies before the end of a random
/// game, so that the slowest agents finish in seconds.
fn start_of_checks<G: Game>(initial: &G) -> G {
    use rand::{RngExt, SeedableRng};
    if G::NUM_ACTIONS.min(4096) * initial.max_game_length() <= 10_000 {
        return initial.clone();
    }
    let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(3);
    let (mut actions, mut line) = (Vec::new(), Vec::new());
    let mut position = initial.clone();
    loop {
        position.legal_actions(&mut actions);
        if actions.is_empty() {
            break;
        }
        let action = actions[rng.random_range(0..actions.len())];
        line.push(action);
        position.play(action);
    }
    let mut start = initial.clone();
    for &action in &line[..line.len().saturating_sub(12)] {
        start.play(action);
    }
    start
}

impl GameVisitor for EveryAgent {
    type Output = ();

    fn visit<G: Game>(self, initial: G) {
        let initial = start_of_checks(&initial);
        let game = G::NAME;
        let random = factory::<G>("random", game);
        for spec in [
            "greedy",
            "greedy:eps=0.3",
            "minimax1:model=untrained",
            "mcts:iters=30",
            "mcts:iters=30,policy=random,final=mean,playout=heavy",
            "mcts:iters=30,model=untrained,arch=resnet-b0c32-fc64",
            "alphabeta:depth=2",
            "alphabeta:iters=60,model=untrained,arch=resnet-b0c32-fc64",
            "ubfm:iters=20",
            "ubfms:iters=20,model=untrained,arch=resnet-b0c32-fc64",
            // Plain Descent follows every iteration to a terminal state: with Hus's or Shobu's
            // long games, the small network keeps this at seconds instead of a minute.
            "descent:iters=2,model=untrained,arch=resnet-b0c32-fc64,completed=false",
        ] {
            let agent = factory::<G>(spec, game);
            let report = play_match(&initial, &agent, &random, 2, 7, 1, &|_| {});
            assert_eq!(report.games.len(), 2, "{game} {spec}");
            for record in &report.games {
                // The recorded moves replay legally to a finished game with the recorded result.
                let mut position = initial.clone();
                position
                    .play_moves(&record.moves.join(" "))
                    .unwrap_or_else(|e| panic!("{game} {spec}: {e}"));
                assert!(position.is_terminal(), "{game} {spec}");
                assert_eq!(
                    position.outcome().unwrap().value_p0() as i8,
                    record.result_p0,
                    "{game} {spec}"
                );
            }
        }
    }
}

#[test]
fn every_agent_kind_plays_legal_games_on_every_game() {
    for registered in REGISTERED_GAMES {
        let spec: GameSpec = registered.name.parse().unwrap();
        spec.visit(EveryAgent);
    }
}

#[test]
fn a_match_replays_game_for_game_whatever_the_threads() {
    use descent::games::ConnectFour;
    let initial = ConnectFour::new(&Default::default());
    let a = factory::<ConnectFour>("mcts:iters=60", "connect_four");
    let b = factory::<ConnectFour>("greedy:eps=0.5", "connect_four");
    let one = play_match(&initial, &a, &b, 8, 11, 1, &|_| {});
    let two = play_match(&initial, &a, &b, 8, 11, 3, &|_| {});
    assert_eq!(one, two);
    let other_seed = play_match(&initial, &a, &b, 8, 12, 1, &|_| {});
    assert_ne!(one.games, other_seed.games);
    // Colours alternate; the report adds up per side.
    for record in &one.games {
        let expected = if record.index % 2 == 0 { "p0" } else { "p1" };
        assert_eq!(record.agent_side, expected);
        let sign = if expected == "p0" { 1 } else { -1 };
        assert_eq!(record.agent_result, record.result_p0 * sign);
    }
    assert_eq!(one.as_p0.iter().sum::<u64>(), 4);
    assert_eq!(one.as_p1.iter().sum::<u64>(), 4);
    let s = &one.summary;
    assert_eq!(s.wins, one.as_p0[0] + one.as_p1[0]);
    assert_eq!(s.draws, one.as_p0[1] + one.as_p1[1]);
    assert_eq!(s.losses, one.as_p0[2] + one.as_p1[2]);
}

/// A match's games run on threads whose network passes stay on them (never split over the
/// other cores, which the match beside it or the opponent's clock is using), whatever the
/// threads; the test's own thread is left as it was.
#[test]
fn match_threads_keep_their_network_passes_to_themselves() {
    use descent::games::TicTacToe;
    use descent::value::direct::cpu_net::passes_stay_on_this_thread;
    use std::sync::atomic::{AtomicU64, Ordering};
    let initial = TicTacToe::new(&Default::default());
    let a = factory::<TicTacToe>("random", "tic_tac_toe");
    for threads in [1, 2] {
        let (kept, games) = (AtomicU64::new(0), AtomicU64::new(0));
        play_match(&initial, &a, &a, 4, 1, threads, &|_| {
            games.fetch_add(1, Ordering::Relaxed);
            if passes_stay_on_this_thread() {
                kept.fetch_add(1, Ordering::Relaxed);
            }
        });
        assert_eq!(games.load(Ordering::Relaxed), 4);
        assert_eq!(kept.load(Ordering::Relaxed), 4, "{threads} threads");
    }
    assert!(!passes_stay_on_this_thread());
}

/// Deterministic players from random four-ply openings: each pair of games starts from one
/// opening (its moves recorded first), the agent playing it with each colour; the pairs'
/// openings differ, every match given the same openings plays the same ones, and the games are
/// not all the same (from the start alone, the two alpha-beta players replay one or two games).
#[test]
fn games_in_pairs_start_from_shared_random_openings() {
    use descent::arena::match_play::{Openings, play_match_from};
    use descent::games::ConnectFour;
    let initial = ConnectFour::new(&Default::default());
    let a = factory::<ConnectFour>("alphabeta:depth=2", "connect_four");
    let b = factory::<ConnectFour>("alphabeta:depth=3", "connect_four");
    let openings = Openings { plies: 4, seed: 5 };
    let report = play_match_from((&initial, openings), [&a, &b], 20, (1, 2), &|_| {});
    let opening = |r: &descent::arena::GameRecord| r.moves[..4].to_vec();
    for pair in report.games.chunks(2) {
        assert_eq!(pair[0].opening_plies, 4);
        assert_eq!(opening(&pair[0]), opening(&pair[1]));
        assert_eq!(
            (pair[0].agent_side.as_str(), pair[1].agent_side.as_str()),
            ("p0", "p1")
        );
    }
    let distinct_openings: std::collections::HashSet<_> =
        report.games.iter().map(opening).collect();
    assert!(distinct_openings.len() >= 4, "{distinct_openings:?}");
    let distinct_games: std::collections::HashSet<_> =
        report.games.iter().map(|r| r.moves.clone()).collect();
    assert!(
        distinct_games.len() >= 8,
        "{} distinct games",
        distinct_games.len()
    );
    let again = play_match_from((&initial, openings), [&b, &a], 12, (99, 1), &|_| {});
    for (x, y) in report.games.iter().zip(&again.games) {
        assert_eq!(opening(x), opening(y));
    }
    let plain = play_match(&initial, &a, &b, 20, 1, 2, &|_| {});
    let plain_games: std::collections::HashSet<_> =
        plain.games.iter().map(|r| r.moves.clone()).collect();
    assert!(
        plain_games.len() <= 2,
        "alpha-beta from the start replays its game(s)"
    );
}

#[test]
fn mcts_crushes_random_at_connect_four() {
    use descent::games::ConnectFour;
    let initial = ConnectFour::new(&Default::default());
    let mcts = factory::<ConnectFour>("mcts:iters=1000", "connect_four");
    let random = factory::<ConnectFour>("random", "connect_four");
    let report = play_match(&initial, &mcts, &random, 20, 1, 2, &|_| {});
    assert!(report.summary.score >= 0.9, "{:?}", report.summary);
    assert!(report.summary.p_value_equal < 1e-4);
}

#[test]
fn awale_tournament_reproduces_the_awale_thesis_order() {
    use descent::games::{Awale, AwaleParams};
    // The Awale MCTS thesis' greedy player with ε = 0.95 picks a random move with
    // probability 0.95 (its code, `random() < eps`); its tournament found UCT ≥ MCTS >
    // greedy ≈ random.
    let initial = Awale::new(&AwaleParams::default());
    let specs = [
        "random",
        "greedy:eps=0.95",
        "mcts:iters=300,policy=random,final=mean",
        "mcts:iters=300",
    ];
    let agents: Vec<_> = specs.iter().map(|s| factory::<Awale>(s, "awale")).collect();
    let report = play_tournament(
        (&initial, Default::default()),
        &agents,
        20,
        MatchRun::new(3, 2),
        0,
        &|_| {},
    );
    let [random, greedy, mcts, uct] = [0, 1, 2, 3];
    let stronger = &report.stronger;
    assert!(!stronger[random][greedy] && !stronger[greedy][random]);
    for weak in [random, greedy] {
        assert!(stronger[mcts][weak] && stronger[uct][weak], "{stronger:?}");
    }
    assert!(!stronger[mcts][uct], "{stronger:?}");
    let elo = &report.ratings.elo;
    assert!(elo[uct] >= elo[mcts] && elo[mcts] > elo[greedy].max(elo[random]));
    assert_eq!(report.matches.len(), 6);
    for (i, row) in report.score.iter().enumerate() {
        for (j, score) in row.iter().enumerate() {
            match (score, report.score[j][i]) {
                (Some(a), Some(b)) => assert!((a + b - 1.0).abs() < 1e-12),
                (None, None) => assert_eq!(i, j),
                _ => panic!("score matrix not antisymmetric at {i},{j}"),
            }
        }
    }
}

#[test]
fn eval_cli_writes_every_game_and_a_chart_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("eval");
    let out_text = out.to_str().unwrap();
    let args = [
        "eval",
        "--game",
        "tic_tac_toe",
        "--agent",
        "alphabeta:depth=9",
        "--opponent",
        "random",
        "--games",
        "10",
        "--seed",
        "4",
        "--quiet",
        "--out",
        out_text,
    ];
    let output = descent(&args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for needle in ["as P0", "as P1", "score", "win − loss", "Elo", "verdict"] {
        assert!(stdout.contains(needle), "{needle} missing from {stdout}");
    }
    // One verdict, from the score's interval; the sign test only on request.
    assert!(!stdout.contains("p-value"), "{stdout}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let games = report["games"].as_array().unwrap();
    assert_eq!(games.len(), 10);
    let low = report["summary"]["score_ci95"][0].as_f64().unwrap();
    let (verdict, line) = if low > 0.5 {
        (
            "stronger",
            "verdict     stronger than the opponent (the score's 95 % interval lies above 50 %)",
        )
    } else {
        (
            "not_shown",
            "verdict     no difference shown (the score's 95 % interval holds 50 %)",
        )
    };
    assert_eq!(report["summary"]["verdict"], verdict);
    assert!(stdout.contains(line), "{stdout}");
    // Perfect play never loses at tic-tac-toe.
    assert_eq!(report["summary"]["losses"], 0);
    assert!(
        games
            .iter()
            .all(|g| g["agent_result"].as_i64().unwrap() >= 0)
    );
    let chart = std::fs::read_to_string(out.join("chart.svg")).unwrap();
    assert!(chart.starts_with("<svg") && chart.contains("alphabeta:depth=9"));
    // Again into the same directory: refused, the report untouched.
    let before = std::fs::read(out.join("report.json")).unwrap();
    let again = descent(&args);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    assert_eq!(std::fs::read(out.join("report.json")).unwrap(), before);
    // `--p-value` adds the sign test, named as such.
    let with_p = descent(&[
        "eval",
        "--game",
        "tic_tac_toe",
        "--agent",
        "random",
        "--opponent",
        "random",
        "--games",
        "4",
        "--quiet",
        "--p-value",
    ]);
    let stdout = String::from_utf8_lossy(&with_p.stdout);
    assert!(stdout.contains("sign test on the"), "{stdout}");
}

/// A one-player game: each agent plays its own games (the agent the even ones), and the report
/// compares their scores, computed from the games it lists.
#[test]
fn eval_on_a_one_player_game_compares_scores() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("eval");
    let output = descent(&[
        "eval",
        "--game",
        "morpion",
        "--agent",
        "mcts:iters=20",
        "--opponent",
        "random",
        "--games",
        "6",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for needle in ["compared by score", "mean score", "Welch"] {
        assert!(stdout.contains(needle), "{needle} missing from {stdout}");
    }
    assert!(!stdout.contains("Elo"), "no duel statistics: {stdout}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    for (side, key) in [("p0", "agent"), ("p1", "opponent")] {
        let scores: Vec<i64> = report["games"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["agent_side"] == side)
            .map(|g| g["score_p0"].as_i64().unwrap())
            .collect();
        let summary = &report["scores"][key];
        assert_eq!(summary["games"], 3, "{key}");
        let mean = scores.iter().sum::<i64>() as f64 / 3.0;
        assert!(
            (summary["mean"].as_f64().unwrap() - mean).abs() < 1e-9,
            "{key}"
        );
        assert_eq!(summary["best"].as_i64(), scores.iter().max().copied());
        // A Morpion game ends with at least a few lines drawn.
        assert!(scores.iter().all(|&s| s >= 10), "{key}: {scores:?}");
    }
}

#[test]
fn eval_and_tournament_refuse_bad_input_with_a_message() {
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "eval",
                "--game",
                "awale",
                "--agent",
                "minimax",
                "--opponent",
                "random",
            ],
            "unknown agent \"minimax\"",
        ),
        (
            &[
                "eval",
                "--game",
                "awale",
                "--agent",
                "mcts:iters=5,depth=2",
                "--opponent",
                "random",
            ],
            "valid keys",
        ),
        (
            &[
                "eval",
                "--game",
                "awale",
                "--agent",
                "ubfms:model=/nonexistent/run,iters=5",
                "--opponent",
                "random",
            ],
            "no such file",
        ),
        (
            &[
                "eval",
                "--game",
                "awale",
                "--agent",
                "random",
                "--opponent",
                "random",
                "--games",
                "3",
            ],
            "even number",
        ),
        (
            &["tournament", "--game", "awale", "--agent", "random"],
            "at least two agents",
        ),
        (
            &[
                "tournament",
                "--game",
                "awale",
                "--agent",
                "random",
                "--agent",
                "greedy",
                "--anchor",
                "3",
            ],
            "--anchor 3",
        ),
    ];
    for (args, needle) in cases {
        let output = descent(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

#[test]
fn tournament_cli_prints_the_matrix_and_ratings_and_writes_json() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let output = descent(&[
        "tournament",
        "--game",
        "connect_four",
        "--agent",
        "random",
        "--agent",
        "mcts:iters=200",
        "--agent",
        "greedy",
        "--games-per-pair",
        "4",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("Bradley-Terry") && stdout.contains("#3"),
        "{stdout}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(json["matches"].as_array().unwrap().len(), 3);
    assert_eq!(json["ratings"]["elo"][0], 0.0);
    assert!(
        std::fs::read_to_string(out.join("heatmap.svg"))
            .unwrap()
            .contains("Bradley-Terry")
    );
}

/// The winning move of `moves`' position, for `spec`.
fn move_of<G: Game>(spec: &str, initial: &G, moves: &str) -> String {
    let mut position = initial.clone();
    position.play_moves(moves).unwrap();
    let mut agent = factory::<G>(spec, G::NAME).build();
    let choice = agent.choose_move(
        &position,
        &mut <descent::arena::AgentRng as rand::SeedableRng>::seed_from_u64(3),
    );
    G::action_to_text(position.to_move(), choice.action)
}

#[test]
fn every_search_agent_takes_a_win_in_one_for_either_side() {
    use descent::games::{ConnectFour, TicTacToe};
    let ttt = TicTacToe::new(&Default::default());
    let c4 = ConnectFour::new(&Default::default());
    for spec in [
        "greedy:eps=0",
        "minimax1:model=untrained",
        "mcts:iters=400",
        "alphabeta:depth=2",
        "alphabeta:iters=60,model=untrained",
        "ubfm:iters=50",
        "ubfms:iters=50,model=untrained",
        "descent:iters=50,model=untrained",
    ] {
        // x (P0) completes the top row; o (P1), to move, completes the middle row.
        assert_eq!(move_of(spec, &ttt, "a1 a2 b1 b2"), "c1", "{spec}");
        assert_eq!(move_of(spec, &ttt, "a1 a2 b1 b2 c3"), "c2", "{spec}");
        // P0 completes column a; P1, to move, completes column b (P0 has no threat).
        assert_eq!(move_of(spec, &c4, "a b a b a b"), "a", "{spec}");
        assert_eq!(move_of(spec, &c4, "a b c b e b g"), "b", "{spec}");
    }
}

/// A match with a deadline starts no move after it: the games unfinished then are left out, the
/// report counts those finished, and a deadline already past plays none.
#[test]
fn a_match_with_a_deadline_reports_the_games_it_finished() {
    use descent::games::ConnectFour;
    use std::time::{Duration, Instant};
    let initial = ConnectFour::new(&Default::default());
    let mcts = factory::<ConnectFour>("mcts:time=20ms", "connect_four");
    let random = factory::<ConnectFour>("random", "connect_four");
    let from = (&initial, Openings::default());
    let past = Some(Instant::now());
    let none = play_match_until(
        from,
        [&mcts, &random],
        10,
        MatchRun::new(1, 1).until(past),
        &|_| {},
    );
    assert_eq!(none.summary.games, 0);
    // A game is at least 4 moves of 20 ms for MCTS: at most a few fit in 300 ms.
    let deadline = Some(Instant::now() + Duration::from_millis(300));
    let some = play_match_until(
        from,
        [&mcts, &random],
        10,
        MatchRun::new(1, 1).until(deadline),
        &|_| {},
    );
    assert!(some.summary.games < 10, "{:?}", some.summary);
    assert_eq!(some.games.len() as u64, some.summary.games);
    assert!(
        some.games
            .iter()
            .all(|g| g.result_p0 != 0 || g.moves.len() == 42)
    );
    let all = play_match_until(from, [&mcts, &random], 4, MatchRun::new(1, 1), &|_| {});
    assert_eq!(all.summary.games, 4);
}

#[test]
fn a_stop_token_ends_its_match_after_the_games_in_play_and_no_other_match() {
    use descent::games::TicTacToe;
    use descent::search::StopToken;
    let initial = TicTacToe::new(&Default::default());
    let a = factory::<TicTacToe>("mcts:iters=50", "tic_tac_toe");
    let b = factory::<TicTacToe>("random", "tic_tac_toe");
    let from = (&initial, Openings::default());
    let (stopped, other) = (StopToken::new(), StopToken::new());
    // The first game stops its own match: it finishes, no other starts.
    let on_game = |_: &descent::arena::GameRecord| {
        stopped.stop();
    };
    let run = MatchRun::new(1, 1).stopped_by(&stopped);
    let short = play_match_until(from, [&a, &b], 10, run, &on_game);
    assert_eq!(
        short.summary.games, 1,
        "the game in play finished, no other started"
    );
    let run = MatchRun::new(1, 1).stopped_by(&other);
    let whole = play_match_until(from, [&a, &b], 10, run, &|_| {});
    assert_eq!(whole.summary.games, 10, "another match, its own token");
    assert_eq!(whole.games[0], short.games[0], "the same first game");
}
