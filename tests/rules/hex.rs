//! Hex's rules on hand-built positions of a 5 × 5 board (the same code as 11 and 13, another
//! size): which cells touch, connections through the acute and obtuse corners, each player's
//! own sides only, and the swap as OpenSpiel plays it.

use descent::games::{Action, Game, GameExt, Hex, HexRules, Outcome, Player};

type Hex5 = Hex<5>;

fn position(picture: &str) -> Hex5 {
    Hex5::from_picture(HexRules::default(), picture).expect("valid test position")
}

fn legal(position: &Hex5) -> Vec<Action> {
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    actions
}

#[test]
fn the_short_diagonal_connects_and_the_long_one_does_not() {
    // (r, c) touches (r+1, c-1): the anti-diagonal from the acute corner e1 to a5 is a chain.
    let mut chain = position(
        ". . . . x
          . . . x o
           . . x o .
            . x o . .
             . . o . .",
    );
    assert_eq!(chain.outcome(), None);
    chain.play_moves("a5").unwrap();
    assert_eq!(chain.outcome(), Some(Outcome::WinP0));
    assert!(legal(&chain).is_empty());
    // (r, c) does not touch (r+1, c+1): the main diagonal is five separate stones.
    let mut stones = position(
        "x . . . .
          o x . . .
           . o x . .
            . . o x .
             . . . o .",
    );
    stones.play_moves("e5").unwrap();
    assert_eq!(stones.outcome(), None);
}

#[test]
fn each_player_wins_only_between_its_own_sides() {
    // P1 fills a column (top to bottom): no win for P1, whose sides are left and right.
    let column = position(
        "x o . . .
          x o . . .
           . o . . .
            x o . . .
             x . . . x",
    );
    assert_eq!(column.to_move(), Player::P1);
    let mut after = column;
    after.play_moves("b5").unwrap();
    assert_eq!(after.outcome(), None, "{after}");
    // P1 crossing a row left to right through the obtuse corner a1 wins.
    let mut row = position(
        "o o o o .
          x x . . .
           x . . . .
            x . . . .
             . . . . .",
    );
    assert_eq!(row.to_move(), Player::P0);
    row.play_moves("c2").unwrap();
    row.play_moves("e1").unwrap();
    assert_eq!(row.outcome(), Some(Outcome::WinP1));
    // A bent chain, down, back up and down again, wins for P0.
    let bent = position(
        "x o o o o
          x . x x o
           x x . x o
            . . . x o
             . . . x o",
    );
    assert_eq!(bent.outcome(), Some(Outcome::WinP0), "{bent}");
}

#[test]
fn the_swap_moves_p0s_stone_to_p1_on_the_transposed_cell() {
    let mut game = Hex5::new(&HexRules::default());
    assert!(
        !game.is_legal(Hex5::SWAP),
        "no swap before P0's first stone"
    );
    game.play_moves("c2").unwrap(); // row 1, column 2
    assert!(game.is_legal(Hex5::SWAP));
    assert_eq!(legal(&game).len(), 24 + 1);
    game.play_moves("swap").unwrap();
    assert_eq!(game.cell(1, 2), None);
    assert_eq!(game.cell(2, 1), Some(Player::P1));
    assert_eq!(game.to_move(), Player::P0);
    assert_eq!(game.ply(), 2);
    assert_eq!(game.hash(), game.hash_from_scratch());
    assert!(
        !game.is_legal(Hex5::SWAP),
        "one swap, on P1's first turn only"
    );
    game.play_moves("a1").unwrap();
    assert!(!game.is_legal(Hex5::SWAP));
    // The same position drawn: P1 one stone ahead means a swap happened.
    let drawn = position(
        ". . . . .
          . . . . .
           . o . . .
            . . . . .
             . . . . .",
    );
    assert_eq!((drawn.to_move(), drawn.ply()), (Player::P0, 2));
    assert_eq!(drawn.hash(), game_after_swap_hash(&drawn));
    assert!(!drawn.is_legal(Hex5::SWAP));
    // Without the swap rule, P1's first turn is a placement.
    let mut plain = Hex5::new(&HexRules { swap: false });
    plain.play_moves("c2").unwrap();
    assert!(!plain.is_legal(Hex5::SWAP));
    assert_eq!(legal(&plain).len(), 24);
    assert!(
        Hex5::from_picture(
            HexRules { swap: false },
            ". o . . .\n. . . . .\n. . . . .\n. . . . .\n. . . . ."
        )
        .is_err()
    );
}

/// The hash of the position reached by c2 then swap, to compare with a drawn one.
fn game_after_swap_hash(drawn: &Hex5) -> u64 {
    let mut game = Hex5::new(&HexRules::default());
    game.play_moves("c2 swap").unwrap();
    assert_eq!(drawn.hash(), drawn.hash_from_scratch());
    game.hash()
}

#[test]
fn bad_pictures_are_refused_with_the_reason() {
    let err = Hex5::from_picture(
        HexRules::default(),
        "x x x . .\n. . . . .\n. . . . .\n. . . . .\n. . . . .",
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("P0 has 3 stones and P1 0"), "{err}");
    let err = Hex5::from_picture(HexRules::default(), "x . .")
        .unwrap_err()
        .to_string();
    assert!(err.contains("1 rows, expected 5"), "{err}");
}
