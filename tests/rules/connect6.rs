//! Connect6 rules on short games: the turn order (one stone, then two a turn), six or more in a
//! row winning after any stone — the first of a turn included — five not winning, the texts and
//! the second-stone plane.

use descent::games::{Connect6, Game, GameExt, Outcome, Player};

fn game(moves: &str) -> Connect6 {
    let mut position = Connect6::new(&Default::default());
    position
        .play_moves(moves)
        .unwrap_or_else(|e| panic!("{moves}: {e}"));
    position
}

#[test]
fn black_places_one_stone_then_each_side_two() {
    let mut position = Connect6::new(&Default::default());
    let mut movers = Vec::new();
    let mut second = Vec::new();
    for text in ["j10", "k10", "k11", "j11", "j12", "a1", "a2", "b1"] {
        movers.push(position.to_move());
        second.push(position.is_second_stone());
        position.play_moves(text).unwrap();
    }
    use Player::{P0, P1};
    assert_eq!(movers, [P0, P1, P1, P0, P0, P1, P1, P0]);
    assert_eq!(
        second,
        [false, false, true, false, true, false, true, false]
    );
    assert_eq!(
        position.mobility_sums(),
        [361 + 358 + 357 + 354, 360 + 359 + 356 + 355]
    );
}

#[test]
fn six_in_a_row_wins_even_with_the_first_stone_of_a_turn() {
    let mut position = game("a1 a19 b19 b1 c1 c19 d19 d1 e1 e19 s19");
    assert_eq!(position.outcome(), None, "five in a row is not enough");
    position.play_moves("f1").unwrap();
    assert_eq!(
        position.outcome(),
        Some(Outcome::WinP0),
        "a1-f1 with the turn's first stone"
    );
    assert!(position.legal_moves_text().is_empty());
    // White's vertical six with the second stone of its turn.
    let position = game("j10 a1 a2 j11 j12 a3 a4 k10 k11 a5 a6");
    assert_eq!(position.outcome(), Some(Outcome::WinP1));
}

#[test]
fn an_overline_wins_and_diagonals_count() {
    // Black: a1 b1 c1 and e1 f1 g1, then d1 joins seven.
    let position = game("a1 a19 b19 b1 c1 c19 d19 e1 f1 a17 b17 g1 d1");
    assert_eq!(position.outcome(), Some(Outcome::WinP0));
    // White's anti-diagonal s1 r2 q3 p4 o5 n6.
    let position = game("j10 s1 r2 j11 j12 q3 p4 j14 j15 o5 n6");
    assert_eq!(position.outcome(), Some(Outcome::WinP1));
}

#[test]
fn texts_name_columns_a_to_s_and_rows_from_the_bottom() {
    let start = Connect6::new(&Default::default());
    assert_eq!(start.move_from_text("a19"), Ok(0));
    assert_eq!(start.move_from_text("j10"), Ok(9 * 19 + 9));
    assert_eq!(start.move_from_text("s1"), Ok(360));
    assert_eq!(Connect6::action_to_text(Player::P0, 180), "j10");
    for bad in ["t1", "a20", "a0", "j", "10", "j10k"] {
        assert!(start.move_from_text(bad).is_err(), "{bad}");
    }
    let position = game("j10");
    let error = position.parse_legal_move("j10").unwrap_err().to_string();
    assert!(
        error.contains("j10") && error.contains("not legal"),
        "{error}"
    );
}

#[test]
fn the_encoding_says_who_moves_and_which_stone_of_the_turn() {
    let mut planes = vec![0.0; Connect6::ENCODING.len()];
    let cells = 361;
    let first = game("j10");
    first.encode(&mut planes);
    assert_eq!(planes[9 * 19 + 9], 1.0, "Black's stone");
    assert_eq!(planes[2 * cells], 0.0, "White to move");
    assert_eq!(planes[3 * cells], 0.0, "its first stone");
    let second = game("j10 k10");
    second.encode(&mut planes);
    assert_eq!(planes[cells + 9 * 19 + 10], 1.0, "White's stone");
    assert_eq!(planes[3 * cells], 1.0, "White's second stone");
}
