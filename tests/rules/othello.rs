//! Othello's rules on hand-built positions and on games recorded from OpenSpiel's `othello`
//! (pyspiel 2.0.2): flips along several lines, passes, the end by two blocked sides, the score.

use descent::games::{Action, Game, GameExt, Othello, Outcome, Player};

type Othello8 = Othello<8, 1>;

fn legal(position: &Othello) -> Vec<Action> {
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    actions
}

fn play_ids(ids: &[Action]) -> Othello {
    let mut position = Othello8::new(&Default::default());
    for &id in ids {
        assert!(position.is_legal(id), "{id} illegal in\n{position}");
        position.play(id);
    }
    position
}

fn picture_of(position: &Othello) -> String {
    (0..8)
        .map(|row| {
            (0..8)
                .map(|col| match position.cell(row, col) {
                    Some(Player::P0) => 'x',
                    Some(Player::P1) => 'o',
                    None => '.',
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_placement_flips_every_bracketed_line_and_nothing_else() {
    // x on d4 (row 3, col 3) brackets o lines to the east (e4 f4, ended by g4), south-east
    // (e5, ended by f6) and south (d5 d6, ended by d7); the o on c4 is not bracketed.
    let mut position = Othello8::from_picture(
        "........
         ........
         ........
         ..o.oox.
         ...oo...
         ...o.x..
         ...x....
         ........",
        Player::P0,
    )
    .unwrap();
    position.play_moves("d4").unwrap();
    assert_eq!(
        picture_of(&position),
        "........\n........\n........\n..oxxxx.\n...xx...\n...x.x..\n...x....\n........"
    );
    assert_eq!(position.score_p0(), Some(8));
    assert_eq!(position.to_move(), Player::P1);
}

#[test]
fn a_side_without_a_placement_passes_and_only_passes() {
    // x has no bracketing move anywhere; o has one: c1, flipping b1 against a1.
    let position = Othello8::from_picture(
        "ox......
         ........
         ........
         ........
         ........
         ........
         ........
         ........",
        Player::P0,
    )
    .unwrap();
    assert_eq!(legal(&position), [Othello8::PASS]);
    assert!(!position.is_legal(2));
    let mut after = position;
    after.play(Othello8::PASS);
    assert_eq!(after.to_move(), Player::P1);
    assert_eq!(after.outcome(), None);
    assert_eq!(legal(&after), [2]);
    assert!(
        !after.is_legal(Othello8::PASS),
        "pass is legal only without a placement"
    );
    assert_eq!(Othello8::action_to_text(Player::P0, Othello8::PASS), "pass");
    assert_eq!(
        Othello8::action_from_text(Player::P0, "PASS"),
        Ok(Othello8::PASS)
    );
}

#[test]
fn the_game_ends_when_neither_side_can_place_even_with_empty_squares() {
    let drawn = Othello8::from_picture(
        "xx......
         ........
         ........
         ........
         ........
         ........
         ......oo
         ........",
        Player::P0,
    )
    .unwrap();
    assert_eq!(drawn.outcome(), Some(Outcome::Draw));
    assert!(legal(&drawn).is_empty());
    assert_eq!(drawn.score_p0(), Some(0));
}

/// A game of OpenSpiel's with three passes that ends with 37 empty squares, every disc white
/// (P1 wins 27-0), as OpenSpiel's terminal board shows.
#[test]
fn an_openspiel_game_with_passes_ends_as_openspiel_says() {
    let ids = [
        26, 18, 19, 34, 33, 11, 12, 20, 10, 2, 9, 3, 45, 17, 25, 24, 64, 0, 1, 16, 4, 5, 64, 32,
        64, 54,
    ];
    for (ply, &id) in ids.iter().enumerate() {
        let position = play_ids(&ids[..ply]);
        assert_eq!(
            position.is_legal(Othello8::PASS),
            id == Othello8::PASS,
            "ply {ply}"
        );
        if id == Othello8::PASS {
            assert_eq!(
                legal(&position),
                [Othello8::PASS],
                "ply {ply}: a forced pass"
            );
        }
    }
    let end = play_ids(&ids);
    assert_eq!(end.outcome(), Some(Outcome::WinP1));
    assert_eq!(end.piece_counts(), [0, 27]);
    assert_eq!(end.score_p0(), Some(-27));
    assert_eq!(end.ply(), 26);
}

#[test]
fn a_full_board_game_of_openspiel_with_a_late_pass() {
    let ids = [
        26, 18, 19, 20, 12, 25, 33, 34, 17, 16, 9, 24, 45, 10, 11, 3, 64, 40, 32, 42, 8, 0, 64, 21,
        4, 29, 2, 54, 30, 14, 38, 37, 52, 13, 63, 53, 44, 46, 47, 5, 1, 60, 51, 62, 61, 58, 59, 39,
        31, 55, 57, 23, 6, 7, 22, 15, 43, 50, 41, 48, 64, 49, 56,
    ];
    let end = play_ids(&ids);
    // OpenSpiel's terminal board: 20 x, 44 o.
    assert_eq!(end.piece_counts(), [20, 44]);
    assert_eq!(end.outcome(), Some(Outcome::WinP1));
    assert!(end.ply() <= end.max_game_length());
}
