//! Lines of stones on a square board of cell sets, for the k-in-a-row games (Gomoku, Connect6).

use super::bitset::CellSet;

/// The four line directions (row step, column step): horizontal, vertical, both diagonals.
const DIRECTIONS: [(i32, i32); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

/// The length of the line of `own` stones through `cell` (counted in) in each of the four
/// directions, on a `side × side` board numbered `row · side + col`.
pub fn line_lengths(own: &CellSet, side: usize, cell: usize) -> [usize; 4] {
    let (row, col) = ((cell / side) as i32, (cell % side) as i32);
    let run = |dr: i32, dc: i32| {
        (1..)
            .map(|k| (row + k * dr, col + k * dc))
            .take_while(|&(r, c)| {
                (0..side as i32).contains(&r)
                    && (0..side as i32).contains(&c)
                    && own.contains(r as usize * side + c as usize)
            })
            .count()
    };
    DIRECTIONS.map(|(dr, dc)| 1 + run(dr, dc) + run(-dr, -dc))
}
