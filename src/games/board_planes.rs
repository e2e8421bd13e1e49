//! The encoding shared by the stone-placing and stone-moving games: one plane of P0's stones, one
//! of P1's, one that is all ones when P0 is to move (the fixed P0 frame of every encoding).

use super::game::Player;

/// Writes the three planes of `cells` cells into `out`: `stone(player, cell)` says whether
/// `player` (0 or 1) has a stone on `cell`.
///
/// # Panics
/// If `out` does not hold exactly three planes.
#[inline]
pub fn encode_stone_planes(
    out: &mut [f32],
    cells: usize,
    to_move: Player,
    stone: impl Fn(usize, usize) -> bool,
) {
    assert_eq!(out.len(), 3 * cells, "encodes into {} floats", 3 * cells);
    let p0_to_move = (to_move == Player::P0) as u8 as f32;
    let (p0, rest) = out.split_at_mut(cells);
    let (p1, side) = rest.split_at_mut(cells);
    for cell in 0..cells {
        p0[cell] = stone(0, cell) as u8 as f32;
        p1[cell] = stone(1, cell) as u8 as f32;
        side[cell] = p0_to_move;
    }
}
