//! What the placement games with a swap that keeps each player's index (Hex, Havannah) share:
//! the side to move and the ply of a position drawn as a picture, from its stone counts.

use super::game::{Player, PositionError};

/// The side to move and the ply of a position with `p0` and `p1` stones, one stone placed per
/// ply: P0 moves when both have as many stones, P1 when P0 has one more; with the swap, P1 one
/// stone ahead means it took P0's first stone over (a ply without a new stone), P0 to move.
pub fn turn_from_stone_counts(
    game: &'static str,
    [p0, p1]: [u32; 2],
    swap: bool,
) -> Result<(Player, u16), PositionError> {
    let plies = (p0 + p1) as u16;
    match p0 as i64 - p1 as i64 {
        0 => Ok((Player::P0, plies)),
        1 => Ok((Player::P1, plies)),
        -1 if swap => Ok((Player::P0, plies + 1)),
        _ => Err(PositionError {
            game,
            problem: format!(
                "P0 has {p0} stones and P1 {p1}: expected as many, one more for P0, \
                 or (after a swap) one more for P1"
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_give_the_mover_and_a_swap_costs_a_ply() {
        assert_eq!(
            turn_from_stone_counts("g", [3, 3], true),
            Ok((Player::P0, 6))
        );
        assert_eq!(
            turn_from_stone_counts("g", [4, 3], false),
            Ok((Player::P1, 7))
        );
        assert_eq!(
            turn_from_stone_counts("g", [0, 1], true),
            Ok((Player::P0, 2))
        );
        let err = turn_from_stone_counts("g", [0, 1], false).unwrap_err();
        assert!(
            err.to_string().contains("P0 has 0 stones and P1 1"),
            "{err}"
        );
        assert!(turn_from_stone_counts("g", [5, 3], true).is_err());
    }
}
