//! The 15 value-preserving symmetries as `Symmetry` tables, computed at compile time.

use super::{ACTIONS, ActionParts, DIRECTION_STEPS, SQUARES, encoding_cell};
use crate::games::{Action, Symmetry};

/// The 8 symmetries of the square as 2 × 2 matrices acting on (row, column) around the
/// board's centre: identity, the three rotations, the two mirrors, the two diagonals.
const SQUARE_GROUP: [[[i8; 2]; 2]; 8] = [
    [[1, 0], [0, 1]],
    [[0, -1], [1, 0]],
    [[-1, 0], [0, -1]],
    [[0, 1], [-1, 0]],
    [[1, 0], [0, -1]],
    [[-1, 0], [0, 1]],
    [[0, 1], [1, 0]],
    [[0, -1], [-1, 0]],
];
const NAMES: [&str; 16] = [
    "identity",
    "rot90",
    "rot180",
    "rot270",
    "mirror-columns",
    "mirror-rows",
    "transpose",
    "anti-transpose",
    "swap-boards",
    "swap-boards+rot90",
    "swap-boards+rot180",
    "swap-boards+rot270",
    "swap-boards+mirror-columns",
    "swap-boards+mirror-rows",
    "swap-boards+transpose",
    "swap-boards+anti-transpose",
];

/// Where element `g` of the square's group sends each square.
const fn square_map(g: usize) -> [usize; SQUARES] {
    let m = SQUARE_GROUP[g];
    let mut map = [0; SQUARES];
    let mut square = 0;
    while square < SQUARES {
        // Doubled coordinates around the centre (1.5, 1.5): -3, -1, 1, 3.
        let r = 2 * (square / 4) as i8 - 3;
        let c = 2 * (square % 4) as i8 - 3;
        let r2 = (m[0][0] * r + m[0][1] * c + 3) / 2;
        let c2 = (m[1][0] * r + m[1][1] * c + 3) / 2;
        map[square] = (r2 * 4 + c2) as usize;
        square += 1;
    }
    map
}

/// Where element `g` sends each direction.
const fn direction_map(g: usize) -> [usize; 8] {
    let m = SQUARE_GROUP[g];
    let mut map = [0; 8];
    let mut dir = 0;
    while dir < 8 {
        let (dr, dc) = DIRECTION_STEPS[dir];
        let image = (m[0][0] * dr + m[0][1] * dc, m[1][0] * dr + m[1][1] * dc);
        let mut k = 0;
        while DIRECTION_STEPS[k].0 != image.0 || DIRECTION_STEPS[k].1 != image.1 {
            k += 1;
        }
        map[dir] = k;
        dir += 1;
    }
    map
}

/// Element `k` of the 16: the square map, and whether the two columns of boards swap.
pub(super) const fn element(k: usize) -> ([usize; SQUARES], bool) {
    (square_map(k % 8), k >= 8)
}

const fn cell_image(k: usize) -> [u16; 64] {
    let (map, swap) = element(k);
    let mut image = [0u16; 64];
    let mut board = 0;
    while board < 4 {
        let image_board = if swap { board ^ 1 } else { board };
        let mut square = 0;
        while square < SQUARES {
            image[encoding_cell(board, square)] = encoding_cell(image_board, map[square]) as u16;
            square += 1;
        }
        board += 1;
    }
    image
}

const fn action_image(k: usize) -> [Action; ACTIONS] {
    let (map, swap) = element(k);
    let dirs = direction_map(k % 8);
    let mut image = [0 as Action; ACTIONS];
    let mut action = 0;
    while action < ACTIONS {
        let p = ActionParts::of(action as Action);
        // Swapping the columns of boards flips the passive board within the home pair and
        // keeps the aggressive board's row: 2·i + 1 − j becomes 2·i + j.
        image[action] = ActionParts {
            j: if swap { 1 - p.j } else { p.j },
            passive: map[p.passive],
            i: p.i,
            aggressive: map[p.aggressive],
            dir: dirs[p.dir],
            length: p.length,
        }
        .id();
        action += 1;
    }
    image
}

static CELL_IMAGES: [[u16; 64]; 15] = {
    let mut all = [[0u16; 64]; 15];
    let mut k = 0;
    while k < 15 {
        all[k] = cell_image(k + 1);
        k += 1;
    }
    all
};

static ACTION_IMAGES: [[Action; ACTIONS]; 15] = {
    let mut all = [[0 as Action; ACTIONS]; 15];
    let mut k = 0;
    while k < 15 {
        all[k] = action_image(k + 1);
        k += 1;
    }
    all
};

macro_rules! symmetry {
    ($k:expr) => {
        Symmetry {
            name: NAMES[$k + 1],
            cell_image: &CELL_IMAGES[$k],
            action_image: &ACTION_IMAGES[$k],
        }
    };
}

pub(super) const SYMMETRIES: [Symmetry; 15] = [
    symmetry!(0),
    symmetry!(1),
    symmetry!(2),
    symmetry!(3),
    symmetry!(4),
    symmetry!(5),
    symmetry!(6),
    symmetry!(7),
    symmetry!(8),
    symmetry!(9),
    symmetry!(10),
    symmetry!(11),
    symmetry!(12),
    symmetry!(13),
    symmetry!(14),
];
