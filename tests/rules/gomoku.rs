//! Outer-Open Gomoku's rules: the opening band, five or more in a row, the exact-five variant,
//! lines that must not wrap round the board's edge.

use descent::games::{Action, Game, GameExt, Gomoku, GomokuParams, Outcome};

fn legal(position: &Gomoku) -> Vec<Action> {
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    actions
}

/// Plays Black's stones `black` and White's `white` alternately (Black first), as "row,col",
/// until the game ends.
fn game(params: GomokuParams, black: &[&str], white: &[&str]) -> Gomoku {
    let mut position = Gomoku::new(&params);
    for (k, b) in black.iter().enumerate() {
        position.play_moves(b).unwrap();
        if let Some(w) = white.get(k).filter(|_| !position.is_terminal()) {
            position.play_moves(w).unwrap();
        }
    }
    position
}

#[test]
fn blacks_first_stone_goes_in_the_two_outer_lines() {
    let start = Gomoku::new(&GomokuParams::default());
    let band = legal(&start);
    assert_eq!(band.len(), 104);
    assert!(start.is_legal(16), "1,1 is on the second line");
    assert!(!start.is_legal(2 * 15 + 2), "2,2 is inside");
    assert!(
        start.parse_legal_move("h8").is_err(),
        "the centre is closed at first"
    );
    let mut after = start;
    after.play_moves("0,0").unwrap();
    assert_eq!(legal(&after).len(), 224, "then every empty point");
    let plain = Gomoku::new(&GomokuParams {
        outer_open: false,
        ..Default::default()
    });
    assert_eq!(legal(&plain).len(), 225);
}

#[test]
fn five_in_a_row_wins_in_every_direction_and_four_does_not() {
    let white = ["14,0", "14,2", "14,4", "14,6", "14,8"];
    for line in [
        ["0,3", "1,3", "2,3", "3,3", "4,3"],     // a column
        ["1,10", "1,11", "1,12", "1,13", "1,9"], // a row, filled out of order
        ["0,0", "1,1", "2,2", "3,3", "4,4"],     // a diagonal
        ["0,8", "1,7", "2,6", "3,5", "4,4"],     // an anti-diagonal
    ] {
        let four = game(GomokuParams::default(), &line[..4], &white[..4]);
        assert_eq!(four.outcome(), None, "{line:?}");
        let five = game(GomokuParams::default(), &line, &white);
        assert_eq!(five.outcome(), Some(Outcome::WinP0), "{line:?}");
    }
}

#[test]
fn a_line_does_not_wrap_from_one_row_to_the_next() {
    // Cells 12, 13, 14 of row 0 and 0, 1 of row 1 are consecutive ids, not a line.
    let wrapped = game(
        GomokuParams::default(),
        &["0,12", "0,13", "0,14", "1,0", "1,1"],
        &["7,7", "7,8", "8,7", "8,9"],
    );
    assert_eq!(wrapped.outcome(), None);
}

#[test]
fn an_overline_wins_in_freestyle_only() {
    // Black: 0,0-0,2 and 0,4-0,5, then 0,3 joins them into six.
    let black = ["0,0", "0,1", "0,2", "0,4", "0,5", "0,3"];
    let white = ["9,0", "9,2", "9,4", "9,6", "9,8"];
    let freestyle = game(GomokuParams::default(), &black, &white);
    assert_eq!(freestyle.outcome(), Some(Outcome::WinP0));
    let exact = game(
        GomokuParams {
            exact_five: true,
            ..Default::default()
        },
        &black,
        &white,
    );
    assert_eq!(
        exact.outcome(),
        None,
        "six in a row is no win under exact_five"
    );
}
