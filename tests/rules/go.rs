//! Go's rules on short games of a 9 × 9 board: captures, suicide, simple ko, the end by two
//! passes, Tromp-Taylor scoring with komi, the cap, boards that do not repeat; and the moves its
//! playouts draw from, which never fill one's own eye.

use descent::games::go::Superko;
use descent::games::random_playout::search_playout;
use descent::games::random_positions::random_position;
use descent::games::{Game, GameExt, Go, GoRules, Outcome, Player};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

type Go9 = Go<9>;

fn game(params: GoRules, moves: &str) -> Go9 {
    let mut position = Go9::new(&params);
    position.play_moves(moves).unwrap();
    position
}

#[test]
fn a_chain_without_liberties_is_captured() {
    let position = game(GoRules::default(), "b1 a1 a2");
    assert_eq!(
        position.piece_counts(),
        [2, 0],
        "White's a1 is taken\n{position}"
    );
    assert_eq!(position.cell(0, 0), None, "a1 is empty again");
    assert!(!position.is_legal(0), "and White's a1 would be suicide");
}

#[test]
fn suicide_is_illegal_unless_it_captures() {
    let position = game(GoRules::default(), "a2 j9 b1");
    assert!(
        position.parse_legal_move("a1").is_err(),
        "White's a1 would have no liberty"
    );
    // Filling the last liberty of an enemy chain is legal even without liberties of one's own.
    // White a1 has no empty neighbour but takes b1 (its last liberty); a2 keeps a3.
    let capture = game(GoRules::default(), "a2 b2 b1 c1 j9 a1");
    assert_eq!(capture.piece_counts(), [2, 3], "a1 took b1\n{capture}");
    assert_eq!(capture.cell(0, 1), None);
}

#[test]
fn a_ko_cannot_be_retaken_at_once() {
    // Black b3 a2 b1, White c3 b2 d2 c1; Black c2 takes b2 in White's eye.
    let mut ko = game(GoRules::default(), "b3 c3 a2 b2 b1 d2 j1 c1 c2");
    assert_eq!(ko.piece_counts(), [5, 3]);
    assert!(ko.parse_legal_move("b2").is_err(), "the ko point");
    ko.play_moves("j9 j8").unwrap(); // a move elsewhere lifts it
    ko.play_moves("b2").unwrap();
    assert_eq!(ko.piece_counts(), [5, 5], "White retook c2\n{ko}");
}

#[test]
fn two_passes_end_the_game_scored_by_area_and_komi() {
    let lone_stone = game(GoRules::default(), "e5 pass pass");
    assert_eq!(lone_stone.outcome(), Some(Outcome::WinP0));
    assert_eq!(lone_stone.area_difference(), 81);
    assert_eq!(
        lone_stone.score_p0(),
        Some(74),
        "81 − 7.5 rounded away from zero"
    );
    let empty = game(GoRules::default(), "pass pass");
    assert_eq!(empty.outcome(), Some(Outcome::WinP1), "komi");
    assert_eq!(empty.score_p0(), Some(-8));
    let no_komi = GoRules {
        komi: 0.0,
        ..Default::default()
    };
    assert_eq!(game(no_komi, "pass pass").outcome(), Some(Outcome::Draw));
    // A pass, then a stone, then one pass: not over.
    assert_eq!(game(GoRules::default(), "pass e5 pass").outcome(), None);
    // Dame reaching both colours count for nobody.
    let split = game(no_komi, "a1 j9 pass pass");
    assert_eq!(split.area_difference(), 0);
    assert_eq!(split.outcome(), Some(Outcome::Draw));
}

#[test]
fn the_cap_ends_and_scores_the_game() {
    let capped = GoRules {
        max_plies: 3,
        ..Default::default()
    };
    let position = game(capped, "e5 d5 pass");
    assert_eq!(position.outcome(), Some(Outcome::WinP1), "0 − 7.5");
    assert_eq!(position.max_game_length(), 3);
    assert_eq!(Go9::new(&GoRules::default()).max_game_length(), 162);
}

/// Ko fights with moves elsewhere in between never repeat a board, under either setting; and a
/// pass, which repeats the board by nature, is no superko.
#[test]
fn ko_fights_with_moves_between_repeat_no_board_and_a_pass_is_no_superko() {
    // Black takes at c2 (board A); White elsewhere, Black elsewhere; White retakes at b2 (board
    // B); Black elsewhere, White elsewhere; Black retakes at c2. Boards differ by the stones
    // played elsewhere, so nothing repeats: both settings allow every move.
    let moves = "b3 c3 a2 b2 b1 d2 j1 c1 c2 j9 j8 b2 h1 h9 c2";
    for superko in [Superko::Draw, Superko::Illegal] {
        let params = GoRules {
            superko,
            ..Default::default()
        };
        assert_eq!(game(params, moves).outcome(), None);
    }
    let passes = game(GoRules::default(), "e5 pass pass");
    assert_eq!(
        passes.outcome(),
        Some(Outcome::WinP0),
        "scored, not a superko draw"
    );
}

/// A board repeated several moves after it first stood (no simple ko: the cycle runs through
/// other captures), found by random play in OpenSpiel's `go(board_size=5,komi=0.5)`, which
/// scores it as a draw. The repetition is checked here on the boards themselves.
#[test]
fn a_move_recreating_an_earlier_board_draws_or_is_illegal_by_the_superko_setting() {
    type Go5 = Go<5>;
    let ids = [15, 3, 7, 18, 14, 11, 23, 17, 0, 9, 8, 5, 21, 16, 10, 20, 15];
    let (cycle, last) = ids.split_at(ids.len() - 1);
    let board = |p: &Go5| -> Vec<Option<descent::games::Player>> {
        (0..25).map(|cell| p.cell(cell / 5, cell % 5)).collect()
    };
    for superko in [Superko::Draw, Superko::Illegal] {
        let params = GoRules {
            komi: 0.5,
            superko,
            ..Default::default()
        };
        let mut position = Go5::new(&params);
        let mut boards = vec![board(&position)];
        for &id in cycle {
            position.play(id);
            boards.push(board(&position));
        }
        assert_eq!(
            position.outcome(),
            None,
            "no board repeats before the last move"
        );
        if superko == Superko::Illegal {
            assert!(!position.is_legal(last[0]), "{position}");
            continue;
        }
        let mut after = position.clone();
        after.play(last[0]);
        let earlier = boards.iter().position(|b| *b == board(&after));
        assert!(
            earlier.is_some_and(|ply| ply < cycle.len() - 1),
            "the last move recreates the board of an earlier ply, not the one just before"
        );
        assert_eq!(after.outcome(), Some(Outcome::Draw));
    }
}

/// Whether the empty point (`row`, `col`) is `player`'s eye, point by point: every neighbour on
/// the board is `player`'s stone and at most one diagonal point the opponent's (none on the
/// edge). An implementation independent of the bitboards'.
fn is_eye(position: &Go9, player: Player, row: usize, col: usize) -> bool {
    let at = |r: isize, c: isize| {
        ((0..9).contains(&r) && (0..9).contains(&c)).then(|| position.cell(r as usize, c as usize))
    };
    let (r, c) = (row as isize, col as isize);
    if at(r, c) != Some(None) {
        return false;
    }
    let orthogonal = [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)];
    if orthogonal
        .iter()
        .any(|&(r, c)| at(r, c).is_some_and(|s| s != Some(player)))
    {
        return false;
    }
    let diagonal = [
        (r - 1, c - 1),
        (r - 1, c + 1),
        (r + 1, c - 1),
        (r + 1, c + 1),
    ];
    let on_board: Vec<_> = diagonal.iter().filter_map(|&(r, c)| at(r, c)).collect();
    let enemy = on_board
        .iter()
        .filter(|&&s| s == Some(player.opponent()))
        .count();
    enemy <= usize::from(on_board.len() == 4)
}

#[test]
fn a_playout_never_fills_its_own_eye() {
    // Black's corner eye a1 (b1, a2), its centre eye e5 (e4, d5, f5, e6) with one White stone
    // diagonally (d4): both eyes, not for White (whose a1 or e5 would be suicide anyway).
    let position = game(GoRules::default(), "b1 d4 a2 j9 e4 j8 d5 j7 f5 j6 e6 j5");
    let (mut legal, mut playout) = (Vec::new(), Vec::new());
    position.legal_actions(&mut legal);
    position.playout_actions(&mut playout);
    for eye in ["a1", "e5"] {
        let action = position.parse_legal_move(eye).unwrap();
        assert!(legal.contains(&action), "{eye} is legal\n{position}");
        assert!(
            !playout.contains(&action),
            "{eye} is Black's eye\n{position}"
        );
    }
    assert!(
        !playout.contains(&Go9::PASS),
        "no pass while stones can be placed"
    );
    assert_eq!(
        playout.len(),
        legal.len() - 3,
        "all but the two eyes and the pass"
    );
    // A second White stone diagonal to e5 (f6), one on a1's diagonal (b2): no longer eyes.
    let false_eyes = game(GoRules::default(), "b1 d4 a2 j9 e4 j8 d5 f6 f5 b2 e6 j5");
    false_eyes.playout_actions(&mut playout);
    for point in ["a1", "e5"] {
        let action = false_eyes.parse_legal_move(point).unwrap();
        assert!(playout.contains(&action), "{point} is no eye\n{false_eyes}");
    }
}

#[test]
fn playout_moves_are_the_legal_placements_less_the_movers_eyes_or_else_a_pass() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let (mut legal, mut playout) = (Vec::new(), Vec::new());
    let mut positions = 0;
    for _ in 0..40 {
        let mut position = Go9::new(&GoRules::default());
        while position.outcome().is_none() {
            position.legal_actions(&mut legal);
            position.playout_actions(&mut playout);
            let player = position.to_move();
            let mut expected: Vec<_> = legal
                .iter()
                .copied()
                .filter(|&a| {
                    a != Go9::PASS && !is_eye(&position, player, a as usize / 9, a as usize % 9)
                })
                .collect();
            if expected.is_empty() {
                expected.push(Go9::PASS);
            }
            assert_eq!(playout, expected, "{position}");
            positions += 1;
            // Random legal moves, eye fillings included: positions a playout would not reach.
            position.play(legal[rng.random_range(0..legal.len())]);
        }
    }
    assert!(positions > 2_000, "{positions} positions compared");
}

#[test]
fn a_group_with_two_eyes_survives_every_playout() {
    // Black's corner group b1 d1 a2 b2 c2 d2 has two eyes, a1 and c1; White stones elsewhere.
    let position = game(GoRules::default(), "b1 j9 d1 j8 a2 j7 b2 j6 c2 j5 d2 j4");
    let group = [(0, 1), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3)];
    let mut actions = Vec::new();
    for seed in 0..40 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut end = position.clone();
        search_playout(&mut end, &mut rng, &mut actions, &mut Vec::new());
        assert!(
            group
                .iter()
                .all(|&(r, c)| end.cell(r, c) == Some(Player::P0)),
            "seed {seed}: the group died\n{end}"
        );
    }
}

#[test]
fn the_light_playout_plays_to_the_full_rules_result_unless_a_board_recurs() {
    // Differential: `light_playout` without tactics (stones, ko point, last pass only) against
    // `search_playout` on `play` (the full rules), with the same seed from the same position.
    // They must play the same moves to the same result, except where the full rules stop a
    // playout at a recreated board (a draw; with komi 7.5 no scored game is drawn). Both at
    // OpenSpiel's cap of 162 plies and at 1000.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let mut actions = Vec::new();
    let (mut compared, mut recurred) = (0, 0);
    for max_plies in [0, 1000] {
        let rules = GoRules {
            max_plies,
            ..GoRules::default()
        };
        for start in 0..150 {
            let position = random_position(&Go9::new(&rules), start % 120, &mut rng);
            let seed = rng.random::<u64>();
            let mut full = position.clone();
            let (mut full_moves, mut light_moves) = (Vec::new(), Vec::new());
            let (expected, _) = search_playout(
                &mut full,
                &mut Xoshiro256PlusPlus::seed_from_u64(seed),
                &mut actions,
                &mut full_moves,
            );
            let light = position.light_playout(
                false,
                &mut Xoshiro256PlusPlus::seed_from_u64(seed),
                &mut actions,
                &mut light_moves,
            );
            if expected == Outcome::Draw {
                recurred += 1;
                continue;
            }
            assert_eq!(light, expected, "seed {seed} from\n{position}\nto\n{full}");
            assert_eq!(light_moves, full_moves, "seed {seed} from\n{position}");
            compared += 1;
        }
    }
    assert!(
        compared > 250,
        "{compared} playouts compared, {recurred} recurred"
    );
}

#[test]
fn tactical_playouts_play_legal_moves_to_the_full_rules_result() {
    // Differential: the moves of MCTS's playouts (`playout_outcome`: atari answers, pattern
    // replies, no self-atari; each reply's placement reused from the check that chose it)
    // replayed by `play` under the full rules: each is legal there, and the end is scored alike,
    // except where the full rules stop at a recreated board (a draw; none with komi 7.5).
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
    let (mut legal, mut actions) = (Vec::new(), Vec::new());
    let (mut compared, mut recurred) = (0, 0);
    for start in 0..200 {
        let position = random_position(&Go9::new(&GoRules::default()), start % 100, &mut rng);
        let seed = rng.random::<u64>();
        let mut played = Vec::new();
        let tactical = position.clone().playout_outcome(
            &mut Xoshiro256PlusPlus::seed_from_u64(seed),
            &mut actions,
            &mut played,
        );
        let mut full = position.clone();
        for &(player, action) in &played {
            if full.outcome().is_some() {
                break;
            }
            full.legal_actions(&mut legal);
            assert!(
                player == full.to_move() && legal.contains(&action),
                "seed {seed}: {} is not legal in\n{full}",
                Go9::action_to_text(player, action)
            );
            full.play(action);
        }
        match full.outcome() {
            Some(Outcome::Draw) => recurred += 1,
            end => {
                assert_eq!(
                    end,
                    Some(tactical),
                    "seed {seed} from\n{position}\nto\n{full}"
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 150, "{compared} compared, {recurred} recurred");
}

/// The first move of `playout_outcome` (MCTS's playouts) from `position`, for each of 30 seeds.
fn first_playout_moves(position: &Go9) -> Vec<String> {
    (0..30)
        .map(|seed| {
            let mut played = Vec::new();
            let rng = &mut Xoshiro256PlusPlus::seed_from_u64(seed);
            position
                .clone()
                .playout_outcome(rng, &mut Vec::new(), &mut played);
            let (player, action) = played[0];
            assert_eq!(player, position.to_move());
            Go9::action_to_text(player, action)
        })
        .collect()
}

#[test]
fn playouts_capture_a_chain_in_atari_near_the_last_move_and_save_their_own() {
    // Black's e3 puts White's e4 in atari: White's playouts escape at e5 (three liberties).
    let escape = game(GoRules::default(), "d4 e4 f4 j9 e3");
    assert!(first_playout_moves(&escape).iter().all(|m| m == "e5"));
    // White's d6 is next to its chain e4 e5, in atari at e6: Black's playouts capture there.
    let capture = game(GoRules::default(), "d4 e4 f4 j9 e3 e5 d5 j8 f5 d6");
    assert!(first_playout_moves(&capture).iter().all(|m| m == "e6"));
    // The same chain in atari after a White move far from it (j7): no answer, uniform moves.
    let far = game(GoRules::default(), "d4 e4 f4 j9 e3 e5 d5 j8 f5 j7");
    let moves = first_playout_moves(&far);
    let distinct: std::collections::BTreeSet<_> = moves.iter().collect();
    assert!(distinct.len() > 10, "{moves:?}");
}

#[test]
fn playouts_reply_to_a_contact_move_with_a_hane() {
    // White attaches at e6 to Black's e5 (j1 and j2 far away): the hanes d6 and f6 (MoGo's "XO."
    // over "..."), and d5 and f5 (the same shape seen from White's e6), are Black's replies.
    let contact = game(GoRules::default(), "e5 e6");
    let moves = first_playout_moves(&contact);
    let distinct: std::collections::BTreeSet<_> = moves.iter().map(String::as_str).collect();
    assert_eq!(distinct, ["d5", "d6", "f5", "f6"].into(), "{moves:?}");
    // The same stones, a quiet White move far off: no pattern there, uniform moves.
    let quiet = game(GoRules::default(), "e5 e6 j1 a9");
    let distinct: std::collections::BTreeSet<_> = first_playout_moves(&quiet).into_iter().collect();
    assert!(distinct.len() > 10, "{distinct:?}");
}
