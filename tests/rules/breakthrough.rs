//! Breakthrough's rules on hand-built positions: steps, captures, blocked pawns, each way of
//! winning, and OpenSpiel's action ids and texts.

use descent::games::{Action, Breakthrough, Game, GameExt, Outcome, Player};

fn legal_texts(position: &Breakthrough) -> Vec<String> {
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    let mover = position.to_move();
    actions
        .iter()
        .map(|&a| Breakthrough::action_to_text(mover, a))
        .collect()
}

#[test]
fn ids_and_texts_are_openspiels() {
    let start = Breakthrough::new(&Default::default());
    // OpenSpiel's first legal actions: (98, a7a6), (100, a7b6), (108, b7a6).
    let mut actions = Vec::new();
    start.legal_actions(&mut actions);
    assert_eq!(actions[..3], [98, 100, 108]);
    assert_eq!(actions.len(), 22);
    assert_eq!(legal_texts(&start)[..3], ["a7a6", "a7b6", "b7a6"]);
    // A capture by P1, from a random OpenSpiel game: b3c4* is id 503.
    assert_eq!(Breakthrough::action_to_text(Player::P1, 503), "b3c4*");
    assert_eq!(Breakthrough::action_from_text(Player::P1, "b3c4*"), Ok(503));
    assert!(
        Breakthrough::action_from_text(Player::P0, "b3c4*").is_err(),
        "P0 steps down"
    );
    assert!(Breakthrough::action_from_text(Player::P1, "h3a5").is_err());
}

#[test]
fn pawns_step_straight_onto_empty_squares_and_capture_diagonally() {
    // P0's pawn on d5 (row 3) faces a P1 pawn on d4: no straight step; c4 is empty, e4 holds
    // a P1 pawn (a capture).
    let position = Breakthrough::from_picture(
        "........
         ........
         ........
         ...b....
         ...ww...
         ........
         ........
         .......w",
        Player::P0,
    )
    .unwrap();
    assert_eq!(legal_texts(&position), ["d5c4", "d5e4*"]);
    let mut captured = position;
    captured.play_moves("d5e4*").unwrap();
    assert_eq!(captured.piece_counts(), [1, 2]);
    assert_eq!(captured.cell(4, 4), Some(Player::P0));
    assert_eq!(captured.outcome(), None);
}

#[test]
fn reaching_the_far_row_or_taking_every_pawn_wins() {
    let mut runner = Breakthrough::from_picture(
        "........
         ........
         ........
         ........
         ........
         ........
         .b......
         w.......",
        Player::P0,
    )
    .unwrap();
    runner.play_moves("b2b1").unwrap();
    assert_eq!(runner.outcome(), Some(Outcome::WinP0));
    let mut last_capture = Breakthrough::from_picture(
        "........
         ........
         ..b.....
         .w......
         ........
         ........
         ........
         w.......",
        Player::P1,
    )
    .unwrap();
    last_capture.play_moves("b5c6*").unwrap();
    assert_eq!(last_capture.piece_counts(), [0, 2]);
    assert_eq!(last_capture.outcome(), Some(Outcome::WinP1));
}

/// Whatever the board, a side with pawns has a step (its most advanced pawn's diagonal), so no
/// game stops without a winner: random positions drawn with both sides present always offer one.
#[test]
fn a_side_with_pawns_always_has_a_step() {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(7);
    for _ in 0..2000 {
        let rows: Vec<String> = (0..8)
            .map(|row| {
                (0..8)
                    .map(|_| match rng.random_range(0..3) {
                        0 if row < 7 => 'b',
                        1 if row > 0 => 'w',
                        _ => '.',
                    })
                    .collect()
            })
            .collect();
        for to_move in [Player::P0, Player::P1] {
            let position = Breakthrough::from_picture(&rows.join("\n"), to_move).unwrap();
            if position.outcome().is_none() {
                assert!(!legal_texts(&position).is_empty(), "{position}");
            }
        }
    }
    let err = Breakthrough::from_picture("........", Player::P0).unwrap_err();
    assert!(err.to_string().contains("expected 8"), "{err}");
}

#[test]
fn the_mirror_maps_a_capture_to_a_capture() {
    let id: Action = 503;
    let image = Breakthrough::SYMMETRIES[0].action_image[id as usize];
    // b3c4* mirrored is g3f4*.
    assert_eq!(Breakthrough::action_to_text(Player::P1, image), "g3f4*");
}
