//! Reference encodings: for a hand-built position of every game, the exact planes, written out
//! here from the documented layout (`[planes, rows, cols]`, P0's view), not from the code.

use descent::games::{Awale, AwaleParams, ConnectFour, Game, GameExt, Player, TicTacToe};

fn encoding<G: Game>(position: &G) -> Vec<f32> {
    let mut out = vec![f32::NAN; G::ENCODING.len()];
    position.encode(&mut out);
    out
}

/// Planes given as rows of cells, concatenated.
fn planes(rows: &[&[f32]]) -> Vec<f32> {
    rows.concat()
}

#[test]
fn tic_tac_toe_planes_are_x_o_and_p0_to_move() {
    // x on a1 (top left) and c1 (top right), o on b2 (the centre); o to move.
    let mut p = TicTacToe::new(&Default::default());
    p.play_moves("a1 b2 c1").unwrap();
    let expected = planes(&[
        &[1., 0., 1., 0., 0., 0., 0., 0., 0.], // P0's stones, rows from the top
        &[0., 0., 0., 0., 1., 0., 0., 0., 0.], // P1's stones
        &[0.; 9],                              // P0 to move: no
    ]);
    assert_eq!(encoding(&p), expected);
    p.play_moves("a3").unwrap();
    assert_eq!(encoding(&p)[18..], [1.0; 9], "P0 to move");
}

#[test]
fn connect_four_planes_are_p0_p1_and_p0_to_move_with_the_top_row_first() {
    // P0 in a1 and b1, P1 in a2 (rows counted from the bottom); P1 to move.
    let mut p = ConnectFour::new(&Default::default());
    p.play_moves("a a b").unwrap();
    let mut p0 = vec![0.0; 42];
    let mut p1 = vec![0.0; 42];
    // Row 5 from the top is the bottom row: cells 35.. ; row 4 holds a2.
    p0[35] = 1.0;
    p0[36] = 1.0;
    p1[28] = 1.0;
    let expected = planes(&[&p0, &p1, &[0.0; 42]]);
    assert_eq!(encoding(&p), expected);
}

#[test]
fn awale_planes_are_counts_small_counts_mover_and_scores() {
    // P0's houses A-F: 0 1 2 3 12 5; P1's a-f: 6 0 1 2 2 4; scores 6 and 4; P0 to move.
    let p = Awale::from_board(
        AwaleParams::default(),
        [0, 1, 2, 3, 12, 5, 6, 0, 1, 2, 2, 4],
        [6, 4],
        Player::P0,
    )
    .unwrap();
    // Row 0 (north) shows P1's houses f..a above P0's A..F (row 1, south).
    let north = [4., 2., 2., 1., 0., 6.];
    let south = [0., 1., 2., 3., 12., 5.];
    let cells: Vec<f32> = north.iter().chain(&south).copied().collect();
    let plane = |f: &dyn Fn(f32) -> f32| cells.iter().map(|&s| f(s)).collect::<Vec<f32>>();
    let expected = planes(&[
        &plane(&|s| s / 12.0),
        &plane(&|s| (s == 0.0) as u8 as f32),
        &plane(&|s| (s == 1.0) as u8 as f32),
        &plane(&|s| (s == 2.0) as u8 as f32),
        &[1.0; 12],
        &[6.0 / 24.0; 12],
        &[4.0 / 24.0; 12],
    ]);
    assert_eq!(encoding(&p), expected);
}

#[test]
fn hex_planes_carry_each_players_sides_on_a_padded_border() {
    use descent::games::{Hex, HexRules};
    // Hex 3 × 3, P0 on b1 (row 0, column 1); P1 to move, the swap available.
    let mut p = Hex::<3>::new(&HexRules::default());
    p.play_moves("b1").unwrap();
    #[rustfmt::skip]
    let expected = planes(&[
        // P0's stones and its sides, the top and bottom border rows (corners empty), 5 × 5.
        &[0., 1., 1., 1., 0.,
          0., 0., 1., 0., 0.,
          0., 0., 0., 0., 0.,
          0., 0., 0., 0., 0.,
          0., 1., 1., 1., 0.],
        // P1's stones and its sides, the left and right border columns.
        &[0., 0., 0., 0., 0.,
          1., 0., 0., 0., 1.,
          1., 0., 0., 0., 1.,
          1., 0., 0., 0., 1.,
          0., 0., 0., 0., 0.],
        &[0.; 25], // P0 to move: no
        &[1.; 25], // the swap is available
    ]);
    assert_eq!(encoding(&p), expected);
    p.play_moves("swap").unwrap();
    let after = encoding(&p);
    assert_eq!(
        after[25 + 2 * 5 + 1],
        1.0,
        "P1's stone on a2 (row 1, column 0)"
    );
    assert_eq!(after[5 + 2], 0.0, "P0's stone gone");
    assert_eq!(after[50..75], [1.0; 25], "P0 to move");
    assert_eq!(after[75..], [0.0; 25], "no swap any more");
}

#[test]
fn othello_planes_are_black_white_and_p0_to_move() {
    use descent::games::Othello;
    // After d3 (row 2, column 3), Black (P0) has d3 d4 d5 e4, White e5; White to move.
    let mut p = Othello::<8, 1>::new(&Default::default());
    p.play_moves("d3").unwrap();
    let mut black = vec![0.0; 64];
    let mut white = vec![0.0; 64];
    for cell in [2 * 8 + 3, 3 * 8 + 3, 4 * 8 + 3, 3 * 8 + 4] {
        black[cell] = 1.0;
    }
    white[4 * 8 + 4] = 1.0;
    assert_eq!(encoding(&p), planes(&[&black, &white, &[0.0; 64]]));
}
