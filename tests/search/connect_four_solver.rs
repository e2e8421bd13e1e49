//! The Connect Four solver: Pascal Pons' published scores of test positions (his "Test_L3_R1"
//! set: end of game, easy), an exhaustive minimax written here over the rules' own `play` and
//! `outcome` on random late positions, and facts any solver must respect.

use descent::games::ConnectFour;
use descent::games::{Action, Game, Outcome};
use descent::search::connect_four_solver::ConnectFourSolver;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// The position after `moves`, columns numbered 1-7 from the left (Pons' notation).
fn position(moves: &str) -> ConnectFour {
    let mut position = ConnectFour::new(&Default::default());
    for column in moves.bytes() {
        let action = Action::from(column - b'1');
        assert!(
            position.is_legal(action),
            "{moves}: column {}",
            column as char
        );
        position.play(action);
    }
    position
}

/// Pons' score, by exhaustive minimax over the rules (no bitboards, bounds or table): a win
/// on the move after `ply` stones scores (43 − ply) / 2 for the winner.
fn exhaustive_score(position: &ConnectFour) -> i32 {
    let mut moves = Vec::new();
    position.legal_actions(&mut moves);
    moves
        .iter()
        .map(|&action| exhaustive_column_score(position, action))
        .max()
        .expect("a position in play has a move")
}

fn exhaustive_column_score(position: &ConnectFour, action: Action) -> i32 {
    let mover = position.to_move();
    let mut child = *position;
    child.play(action);
    match child.outcome() {
        Some(outcome @ (Outcome::WinP0 | Outcome::WinP1)) => {
            assert_eq!(outcome.winner(), Some(mover));
            (43 - position.ply() as i32) / 2
        }
        Some(Outcome::Draw) => 0,
        None => -exhaustive_score(&child),
    }
}

#[test]
fn pons_test_positions_get_their_published_scores() {
    // Lines of Pascal Pons' Test_L3_R1 (position, score from the side to move).
    let published = [
        ("2252576253462244111563365343671351441", -1),
        ("7422341735647741166133573473242566", 1),
        ("23163416124767223154467471272416755633", 0),
        ("65214673556155731566316327373221417", -1),
        ("52677675164321472411331752454", 0),
        ("67152117737262713366376314254", 6),
        ("2762751722231276466633475674533", 5),
        ("427566236745127177115664464254", 2),
        ("3575316255751336464276636772271112", -3),
    ];
    let mut solver = ConnectFourSolver::with_table_entries(1 << 20);
    for (moves, score) in published {
        assert_eq!(solver.score(&position(moves)), Some(score), "{moves}");
    }
}

#[test]
fn every_column_scores_as_exhaustive_minimax_says_on_random_late_positions() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut solver = ConnectFourSolver::with_table_entries(1 << 18);
    let mut compared = 0;
    while compared < 60 {
        let mut position = ConnectFour::new(&Default::default());
        let plies = rng.random_range(28..=36);
        let mut moves = Vec::new();
        while position.ply() < plies && position.outcome().is_none() {
            position.legal_actions(&mut moves);
            position.play(moves[rng.random_range(0..moves.len())]);
        }
        if position.outcome().is_some() {
            continue;
        }
        position.legal_actions(&mut moves);
        let scores = solver.column_scores(&position);
        for (column, score) in (0..7).zip(scores) {
            let expected = moves
                .contains(&column)
                .then(|| exhaustive_column_score(&position, column));
            assert_eq!(score, expected, "column {column} of {position:?}");
        }
        assert_eq!(solver.score(&position), Some(exhaustive_score(&position)));
        compared += 1;
    }
}

#[test]
fn an_immediate_win_a_double_threat_and_a_finished_game() {
    let mut solver = ConnectFourSolver::with_table_entries(1 << 17);
    // P0 has three in column 4 and plays the fourth: a win with its 4th stone, (43 − 6) / 2.
    let three_up = position("414141");
    assert_eq!(solver.score(&three_up), Some(18));
    assert_eq!(solver.column_scores(&three_up)[3], Some(18));
    // P0 holds 2-3-4 on the bottom row with both ends open; P1 to move cannot block both:
    // P0 wins on the move after 6 stones, (43 − 6) / 2 = 18, so P1 scores −18.
    let open_three = position("26374");
    assert_eq!(solver.score(&open_three), Some(-18));
    assert!(
        solver
            .column_scores(&open_three)
            .iter()
            .all(|&score| score == Some(-18))
    );
    let won = position("4141414");
    assert_eq!(solver.score(&won), None);
    assert_eq!(solver.column_scores(&won), [None; 7]);
}

/// The empty board: a first-player win with its last stone (+1), the centre the only winning
/// first move (Allis 1988; Pons' scores −2 −1 0 +1 0 −1 −2). Minutes of search: run with
/// `cargo test --release --test search -- --ignored empty_board`.
#[test]
#[ignore = "minutes of search"]
fn the_empty_board_is_a_first_player_win_by_the_centre_only() {
    let mut solver = ConnectFourSolver::default();
    let empty = ConnectFour::new(&Default::default());
    let scores = solver.column_scores(&empty);
    assert_eq!(
        scores,
        [-2, -1, 0, 1, 0, -1, -2].map(Some),
        "column scores of the empty board"
    );
}
