//! Legal-move generation on bitboards: one player's stones on the four boards packed in a `u64`
//! (board `b` in bits `16·b..16·b + 16`, square `4·row + column`), so that one shift and one
//! mask find, for every stone of every board at once, whether its neighbour in a direction is
//! empty, the opponent's or off the board.
//!
//! For each (direction, length) pair — bit `2·dir + length − 1` of the action id — `MoveSets`
//! holds the stones that can make it as a passive move and as an aggressive move. An action is a
//! passive stone on a home board and an aggressive stone on a board of the other column sharing a
//! pair, so the number of actions is a sum of products of popcounts, and the actions in id order
//! come from each stone's 16-bit mask of pairs.

const ROW0: u64 = 0x000F_000F_000F_000F;
const ROW3: u64 = 0xF000_F000_F000_F000;
const COL0: u64 = 0x1111_1111_1111_1111;
const COL3: u64 = 0x8888_8888_8888_8888;
/// Boards 0 and 2 (one colour) and boards 1 and 3 (the other).
const LEFT_BOARDS: u64 = 0x0000_FFFF_0000_FFFF;
const RIGHT_BOARDS: u64 = 0xFFFF_0000_FFFF_0000;

/// Packs one player's four 16-square boards into a `u64`.
#[inline(always)]
pub(super) fn pack(boards: &[u16; 4]) -> u64 {
    boards
        .iter()
        .enumerate()
        .fold(0, |all, (b, &stones)| all | (stones as u64) << (16 * b))
}

/// The squares whose neighbour in direction `dir` (N, NE, E, SE, S, SW, W, NW) is on the same
/// board and in `x`.
#[inline(always)]
fn from_neighbours(x: u64, dir: usize) -> u64 {
    match dir {
        0 => (x >> 4) & !ROW3,
        1 => (x >> 5) & !(ROW3 | COL3),
        2 => (x >> 1) & !COL3,
        3 => (x << 3) & !(ROW0 | COL3),
        4 => (x << 4) & !ROW0,
        5 => (x << 5) & !(ROW0 | COL0),
        6 => (x << 1) & !COL0,
        _ => (x >> 3) & !(ROW3 | COL0),
    }
}

/// For each (direction, length) pair, the mover's stones that can make it.
pub(super) struct MoveSets {
    /// Passive moves, on the mover's home boards only.
    pub passive: [u64; 16],
    /// Aggressive moves, on all four boards.
    pub aggressive: [u64; 16],
}

impl MoveSets {
    /// The move sets of the player with stones `own` (home boards `home`, a mask of two boards)
    /// against `theirs`.
    #[inline(always)]
    pub(super) fn new(own: u64, theirs: u64, home: u64) -> MoveSets {
        let empty = !(own | theirs);
        let mut sets = MoveSets {
            passive: [0; 16],
            aggressive: [0; 16],
        };
        for dir in 0..8 {
            let on2 = from_neighbours(from_neighbours(!0, dir), dir);
            let on3 = from_neighbours(on2, dir);
            let e1 = from_neighbours(empty, dir);
            let e2 = from_neighbours(e1, dir);
            let e3 = from_neighbours(e2, dir);
            let t1 = from_neighbours(theirs, dir);
            let t2 = from_neighbours(t1, dir);
            // The square a pushed stone goes to: empty or off the board.
            let free2 = e2 | !on2;
            let free3 = e3 | !on3;
            sets.passive[2 * dir] = own & home & e1;
            sets.passive[2 * dir + 1] = own & home & e1 & e2;
            sets.aggressive[2 * dir] = own & (e1 | (t1 & free2));
            sets.aggressive[2 * dir + 1] =
                own & on2 & ((e1 & (e2 | (t2 & free3))) | (t1 & e2 & free3));
        }
        sets
    }

    /// The number of actions: for each pair, passive stones on each home board times aggressive
    /// stones on the boards of the other column.
    #[inline(always)]
    pub(super) fn count(&self) -> u32 {
        self.passive
            .iter()
            .zip(&self.aggressive)
            .map(|(&p, &a)| {
                (p & LEFT_BOARDS).count_ones() * (a & RIGHT_BOARDS).count_ones()
                    + (p & RIGHT_BOARDS).count_ones() * (a & LEFT_BOARDS).count_ones()
            })
            .sum()
    }

    /// The pairs the passive stone on global square `bit` (`16·board + square`) can make.
    #[inline(always)]
    pub(super) fn passive_pairs(&self, bit: usize) -> u16 {
        pairs_at(&self.passive, bit)
    }

    /// The pairs the aggressive stone on global square `bit` can make.
    #[inline(always)]
    pub(super) fn aggressive_pairs(&self, bit: usize) -> u16 {
        pairs_at(&self.aggressive, bit)
    }
}

/// Bit `pair` set where `sets[pair]` holds `bit`: one stone's row of the pairs × squares matrix,
/// read without branches.
#[inline(always)]
fn pairs_at(sets: &[u64; 16], bit: usize) -> u16 {
    let mut pairs = 0u16;
    for (pair, &set) in sets.iter().enumerate() {
        pairs |= (((set >> bit) & 1) as u16) << pair;
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same question answered square by square with (row, column) arithmetic.
    fn naive_from_neighbours(x: u64, dir: usize) -> u64 {
        const STEPS: [(i32, i32); 8] = [
            (1, 0),
            (1, 1),
            (0, 1),
            (-1, 1),
            (-1, 0),
            (-1, -1),
            (0, -1),
            (1, -1),
        ];
        let mut out = 0;
        for bit in 0..64 {
            let (board, square) = (bit / 16, bit % 16);
            let (row, col) = (square / 4 + STEPS[dir].0, square % 4 + STEPS[dir].1);
            if (0..4).contains(&row) && (0..4).contains(&col) {
                let neighbour = board * 16 + row * 4 + col;
                if x & (1 << neighbour) != 0 {
                    out |= 1 << bit;
                }
            }
        }
        out
    }

    #[test]
    fn neighbour_shifts_never_leave_their_board() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200 {
            x = x.rotate_left(7).wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (x >> 3);
            for dir in 0..8 {
                assert_eq!(
                    from_neighbours(x, dir),
                    naive_from_neighbours(x, dir),
                    "dir {dir}"
                );
            }
        }
        for dir in 0..8 {
            assert_eq!(from_neighbours(!0, dir), naive_from_neighbours(!0, dir));
        }
    }
}
