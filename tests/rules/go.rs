//! Go's rules on short games of a 9 × 9 board: captures, suicide, simple ko, the end by two
//! passes, Tromp-Taylor scoring with komi, the cap, boards that do not repeat.

use descent::games::go::Superko;
use descent::games::{Game, GameExt, Go, GoRules, Outcome};

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
