//! The symmetries of a square board, as `const` tables: the 8 elements of the dihedral group
//! acting on the cells `(row, col)` of an `n × n` grid, identity first. Games build their
//! [`Symmetry`] tables from these (cells of the encoding and action ids).

use super::game::{Action, Symmetry};

/// Names of the 8 elements, identity first (the order of [`dihedral_point`]).
pub const DIHEDRAL_NAMES: [&str; 8] = [
    "identity",
    "rot90",
    "rot180",
    "rot270",
    "mirror",
    "flip",
    "transpose",
    "antitranspose",
];

/// The image of `(row, col)` under element `k` (0-7) of the dihedral group of an `n × n` grid:
/// rotations by 90°, 180°, 270° (clockwise), the left–right mirror, the up–down flip, the
/// transpose and the anti-transpose.
pub const fn dihedral_point(k: usize, n: usize, row: usize, col: usize) -> (usize, usize) {
    let last = n - 1;
    match k {
        0 => (row, col),
        1 => (col, last - row),
        2 => (last - row, last - col),
        3 => (last - col, row),
        4 => (row, last - col),
        5 => (last - row, col),
        6 => (col, row),
        7 => (last - col, last - row),
        _ => panic!("the dihedral group has 8 elements"),
    }
}

/// The image of a step `(d_row, d_col)` under element `k`: the linear part of
/// [`dihedral_point`].
pub const fn dihedral_step(k: usize, d_row: i32, d_col: i32) -> (i32, i32) {
    match k {
        0 => (d_row, d_col),
        1 => (d_col, -d_row),
        2 => (-d_row, -d_col),
        3 => (-d_col, d_row),
        4 => (d_row, -d_col),
        5 => (-d_row, d_col),
        6 => (d_col, d_row),
        7 => (-d_col, -d_row),
        _ => panic!("the dihedral group has 8 elements"),
    }
}

/// `image[row·n + col]` = the cell of `(row, col)`'s image under element `k`, for the first
/// `n·n` entries of a table of `CELLS ≥ n·n` (the rest stay 0, for boards of several sizes
/// sharing one table length).
pub const fn dihedral_cells<const CELLS: usize>(k: usize, n: usize) -> [u16; CELLS] {
    assert!(n * n <= CELLS, "table too small for the board");
    let mut image = [0u16; CELLS];
    let mut cell = 0;
    while cell < n * n {
        let (row, col) = dihedral_point(k, n, cell / n, cell % n);
        image[cell] = (row * n + col) as u16;
        cell += 1;
    }
    image
}

/// The image of a board of at most 64 cells held in a `u64` (bit `c` = cell `c`) under a cell
/// table (`table[c]` = the image of cell `c`), for the first `cells` cells.
pub fn map_bitboard(bits: u64, table: &[u16], cells: usize) -> u64 {
    (0..cells)
        .filter(|&cell| bits >> cell & 1 == 1)
        .fold(0u64, |image, cell| image | 1 << table[cell])
}

/// The 7 non-identity elements' cell tables (`dihedral_cells` for elements 1-7).
pub const fn non_identity_cells<const CELLS: usize>(n: usize) -> [[u16; CELLS]; 7] {
    let mut all = [[0; CELLS]; 7];
    let mut k = 0;
    while k < 7 {
        all[k] = dihedral_cells(k + 1, n);
        k += 1;
    }
    all
}

/// The 7 non-identity symmetries from their cell and action tables (`actions` empty when a
/// game's action images depend on the position).
pub const fn non_identity_symmetries<const CELLS: usize>(
    cells: &'static [[u16; CELLS]; 7],
    actions: [&'static [Action]; 7],
) -> [Symmetry; 7] {
    let mut k = 0;
    let mut all = [const {
        Symmetry {
            name: "",
            cell_image: &[],
            action_image: &[],
        }
    }; 7];
    while k < 7 {
        all[k] = Symmetry {
            name: DIHEDRAL_NAMES[k + 1],
            cell_image: &cells[k],
            action_image: actions[k],
        };
        k += 1;
    }
    all
}

/// The cell and action tables of the 7 non-identity symmetries of an `n × n` board whose
/// actions are its cells plus one fixed action `n²` (a pass), in tables of `CELLS ≥ n²` and
/// `ACTIONS > n²` entries shared by several sizes (cut with [`sliced_symmetries`]).
pub const fn tables_with_pass<const CELLS: usize, const ACTIONS: usize>(
    n: usize,
) -> ([[u16; CELLS]; 7], [[Action; ACTIONS]; 7]) {
    let cells: [[u16; CELLS]; 7] = non_identity_cells(n);
    let mut actions = [[0; ACTIONS]; 7];
    let mut k = 0;
    while k < 7 {
        let mut cell = 0;
        while cell < n * n {
            actions[k][cell] = cells[k][cell];
            cell += 1;
        }
        actions[k][n * n] = (n * n) as Action;
        k += 1;
    }
    (cells, actions)
}

/// The 7 non-identity symmetries from their cell and action tables, whole.
pub const fn table_symmetries<const CELLS: usize, const ACTIONS: usize>(
    cell_tables: &'static [[u16; CELLS]; 7],
    action_tables: &'static [[Action; ACTIONS]; 7],
) -> [Symmetry; 7] {
    sliced_symmetries(cell_tables, action_tables, CELLS, ACTIONS)
}

/// The 7 non-identity symmetries from tables longer than the board: the first `cells` cell
/// images and `actions` action images of each.
pub const fn sliced_symmetries<const CELLS: usize, const ACTIONS: usize>(
    cell_tables: &'static [[u16; CELLS]; 7],
    action_tables: &'static [[Action; ACTIONS]; 7],
    cells: usize,
    actions: usize,
) -> [Symmetry; 7] {
    let mut all = [const {
        Symmetry {
            name: "",
            cell_image: &[],
            action_image: &[],
        }
    }; 7];
    let mut k = 0;
    while k < 7 {
        all[k] = Symmetry {
            name: DIHEDRAL_NAMES[k + 1],
            cell_image: cell_tables[k].split_at(cells).0,
            action_image: action_tables[k].split_at(actions).0,
        };
        k += 1;
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_element_is_a_distinct_permutation_and_steps_agree_with_points() {
        let n = 5;
        let mut seen = Vec::new();
        for (k, name) in DIHEDRAL_NAMES.iter().enumerate() {
            let image = dihedral_cells::<25>(k, n);
            let mut sorted = image.to_vec();
            sorted.sort_unstable();
            assert_eq!(
                sorted,
                (0..25).collect::<Vec<u16>>(),
                "{}",
                DIHEDRAL_NAMES[k]
            );
            assert!(!seen.contains(&image), "{} repeats", DIHEDRAL_NAMES[k]);
            seen.push(image);
            // The step from (1, 2) to (2, 4) maps to the step between the images.
            let (a, b) = (dihedral_point(k, n, 1, 2), dihedral_point(k, n, 2, 4));
            let step = dihedral_step(k, 1, 2);
            assert_eq!(
                (b.0 as i32 - a.0 as i32, b.1 as i32 - a.1 as i32),
                step,
                "{name}"
            );
        }
        // rot90 applied four times is the identity; the mirror is an involution.
        let rot = |p: (usize, usize)| dihedral_point(1, n, p.0, p.1);
        assert_eq!(rot(rot(rot(rot((1, 3))))), (1, 3));
        assert_eq!(rot((0, 0)), (0, 4));
    }
}
