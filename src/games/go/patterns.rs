//! MoGo's 3 × 3 playout patterns (Gelly, Wang, Munos and Teytaud, *Modification of UCT with
//! patterns in Monte-Carlo Go*, 2006, figures 2-4: hane, cut and edge shapes), in the form michi
//! (Baudiš, 2015) writes them: an empty point whose eight neighbours match one of them, in any of
//! the eight orientations and with either colour as `X`, is an urgent reply to a stone played next
//! to it. A neighbourhood is a 16-bit code (two bits a neighbour: empty, Black, White, off the
//! board); every code is decided once, into a 65 536-bit table.

use std::sync::LazyLock;

use super::Go;

/// A neighbour's state in a neighbourhood code.
const EMPTY: u16 = 0;
const BLACK: u16 = 1;
const WHITE: u16 = 2;
const OFF_BOARD: u16 = 3;

/// The eight neighbours of a point, in code order: (row offset, column offset), rows as the
/// pattern text reads them, top first.
const NEIGHBOURS: [(i8, i8); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

/// The patterns, three rows each around the empty centre. `X` and `O` are the two colours (either
/// way round); `x` is anything but `X` (`O`, empty or off the board), `o` anything but `O`; `.`
/// empty; `?` anything; a space off the board.
const PATTERNS: [[&str; 3]; 13] = [
    ["XOX", "...", "???"], // hane: enclosing
    ["XO.", "...", "?.?"], // hane: not cutting
    ["XO?", "X..", "x.?"], // hane: magari
    [".O.", "X..", "..."], // diagonal attachment
    ["XO?", "O.o", "?o?"], // cut: unprotected
    ["XO?", "O.X", "???"], // cut: peeped
    ["?X?", "O.O", "ooo"], // cut: de
    ["OX?", "o.O", "???"], // cut: keima
    ["X.?", "O.?", "   "], // edge: chase
    ["OX?", "X.O", "   "], // edge: block the cut
    ["?X?", "x.O", "   "], // edge: block the connection
    ["?XO", "x.x", "   "], // edge: sagari
    ["?OX", "X.O", "   "], // edge: cut
];

/// Bit `code` set: the neighbourhood `code` matches a pattern.
static TABLE: LazyLock<Box<[u64; 1024]>> = LazyLock::new(|| {
    let masks = pattern_masks();
    let mut table = Box::new([0u64; 1024]);
    for code in 0..=u16::MAX {
        let fits = |mask: &[u8; 8]| (0..8).all(|i| mask[i] >> (code >> (2 * i) & 3) & 1 == 1);
        if masks.iter().any(fits) {
            table[usize::from(code) / 64] |= 1 << (code % 64);
        }
    }
    table
});

/// Whether the neighbourhood `code` matches one of MoGo's patterns.
pub(super) fn matches(code: u16) -> bool {
    TABLE[usize::from(code) / 64] >> (code % 64) & 1 == 1
}

/// Every pattern in every orientation and colouring, as the states each neighbour may take (bit
/// `s` of `mask[i]`: neighbour `i` may be in state `s`).
fn pattern_masks() -> Vec<[u8; 8]> {
    let mut masks = Vec::new();
    for rows in PATTERNS {
        let grid: Vec<&[u8]> = rows.iter().map(|row| row.as_bytes()).collect();
        for symmetry in 0..8 {
            for x_is_black in [true, false] {
                let mut mask = [0u8; 8];
                for (i, &(row, col)) in NEIGHBOURS.iter().enumerate() {
                    let (r, c) = oriented(symmetry, row, col);
                    mask[i] = states_of(grid[(r + 1) as usize][(c + 1) as usize], x_is_black);
                }
                masks.push(mask);
            }
        }
    }
    masks
}

/// The offset of the pattern's cell that lands on `(row, col)` under `symmetry` (0-7: four
/// rotations, each with or without a mirror).
fn oriented(symmetry: u8, row: i8, col: i8) -> (i8, i8) {
    let (mut r, mut c) = if symmetry & 4 != 0 {
        (row, -col)
    } else {
        (row, col)
    };
    for _ in 0..symmetry & 3 {
        (r, c) = (c, -r);
    }
    (r, c)
}

/// The states a pattern character admits, as bits.
fn states_of(symbol: u8, x_is_black: bool) -> u8 {
    let (x, o) = if x_is_black {
        (BLACK, WHITE)
    } else {
        (WHITE, BLACK)
    };
    let bit = |state: u16| 1u8 << state;
    match symbol {
        b'.' => bit(EMPTY),
        b'X' => bit(x),
        b'O' => bit(o),
        b'x' => bit(EMPTY) | bit(o) | bit(OFF_BOARD),
        b'o' => bit(EMPTY) | bit(x) | bit(OFF_BOARD),
        b'?' => 0b1111,
        b' ' => bit(OFF_BOARD),
        other => unreachable!("pattern symbol {:?}", other as char),
    }
}

impl<const N: usize> Go<N> {
    /// The neighbourhood code of `cell` on `stones`.
    pub(super) fn neighbourhood(stones: &[u128; 2], cell: usize) -> u16 {
        let (row, col) = ((cell / N) as isize, (cell % N) as isize);
        let mut code = 0;
        for (i, &(dr, dc)) in NEIGHBOURS.iter().enumerate() {
            // Rows of the pattern text run top to bottom; the board's rows bottom to top.
            let (r, c) = (row - isize::from(dr), col + isize::from(dc));
            let state = if r < 0 || c < 0 || r >= N as isize || c >= N as isize {
                OFF_BOARD
            } else {
                let point = r as usize * N + c as usize;
                match (stones[0] >> point & 1, stones[1] >> point & 1) {
                    (1, _) => BLACK,
                    (_, 1) => WHITE,
                    _ => EMPTY,
                }
            };
            code |= state << (2 * i);
        }
        code
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The code of a neighbourhood drawn as three rows (`B`, `W`, `.`, space off the board).
    fn code_of(rows: [&str; 3]) -> u16 {
        let mut code = 0;
        for (i, &(row, col)) in NEIGHBOURS.iter().enumerate() {
            let state = match rows[(row + 1) as usize].as_bytes()[(col + 1) as usize] {
                b'.' => EMPTY,
                b'B' => BLACK,
                b'W' => WHITE,
                _ => OFF_BOARD,
            };
            code |= state << (2 * i);
        }
        code
    }

    #[test]
    fn hanes_and_cuts_match_and_quiet_shapes_do_not() {
        // The enclosing hane as written, rotated, and with the colours swapped.
        assert!(matches(code_of(["BWB", "...", "..."])));
        assert!(matches(code_of(["B..", "W..", "B.."])));
        assert!(matches(code_of(["...", "...", "WBW"])));
        // The peeped cut, mirrored.
        assert!(matches(code_of(["WWB", "B.W", "..."])));
        // The edge chase at the bottom edge of the board.
        assert!(matches(code_of(["B..", "W..", "   "])));
        // Nothing near, a lone stone, a solid wall, the corner of an empty board.
        assert!(!matches(code_of(["...", "...", "..."])));
        assert!(!matches(code_of(["B..", "...", "..."])));
        assert!(!matches(code_of(["BBB", "...", "..."])));
        assert!(!matches(code_of(["   ", ".. ", ".. "])));
        // The non-cutting hane needs its `.` below: a stone there is no hane.
        assert!(!matches(code_of(["BW.", "...", ".B."])));
    }

    #[test]
    fn the_table_is_symmetric_under_rotation_mirror_and_colour_swap() {
        let remap = |code: u16, symmetry: u8, swap: bool| {
            let mut out = 0;
            for (i, &(row, col)) in NEIGHBOURS.iter().enumerate() {
                let mut state = code >> (2 * i) & 3;
                if swap && (state == BLACK || state == WHITE) {
                    state ^= 3;
                }
                let target = oriented(symmetry, row, col);
                let j = NEIGHBOURS.iter().position(|&n| n == target).unwrap();
                out |= state << (2 * j);
            }
            out
        };
        let mut matched = 0;
        for code in 0..=u16::MAX {
            matched += u32::from(matches(code));
            for symmetry in 0..8 {
                for swap in [false, true] {
                    assert_eq!(
                        matches(code),
                        matches(remap(code, symmetry, swap)),
                        "{code:#x}"
                    );
                }
            }
        }
        // Neither everything nor nothing.
        assert!((100..20_000).contains(&matched), "{matched}");
    }
}
