//! Positions written as pictures, for tests and for people setting up a position: one line per
//! row from row 0, one character per cell, `.` for an empty cell and a symbol per player; spaces
//! inside a line are ignored, so boards can be drawn spaced or staggered (Hex).
//!
//! ```text
//! . x .
//! o x .
//! . . o
//! ```

use super::game::PositionError;

/// Each cell's content, row-major over `rows × cols`, read from `picture`: `Some(k)` for
/// `symbols[k]` (a game's P0, P1 and other pieces, in its order), `None` for `.`.
pub fn read_picture(
    game: &'static str,
    picture: &str,
    rows: usize,
    cols: usize,
    symbols: &[char],
) -> Result<Vec<Option<usize>>, PositionError> {
    read_picture_rows(game, picture, &vec![cols; rows], symbols)
}

/// As [`read_picture`] for boards whose rows differ in length (a hexagon): row `r` has
/// `row_lengths[r]` cells.
pub fn read_picture_rows(
    game: &'static str,
    picture: &str,
    row_lengths: &[usize],
    symbols: &[char],
) -> Result<Vec<Option<usize>>, PositionError> {
    let invalid = |problem: String| PositionError { game, problem };
    let lines: Vec<&str> = picture
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    if lines.len() != row_lengths.len() {
        return Err(invalid(format!(
            "the picture has {} rows, expected {}",
            lines.len(),
            row_lengths.len()
        )));
    }
    let mut cells = Vec::with_capacity(row_lengths.iter().sum());
    for (row, (line, &cols)) in lines.iter().zip(row_lengths).enumerate() {
        let symbols_in_row: Vec<char> = line.chars().filter(|c| !c.is_whitespace()).collect();
        if symbols_in_row.len() != cols {
            return Err(invalid(format!(
                "row {row} ({line:?}) has {} cells, expected {cols}",
                symbols_in_row.len()
            )));
        }
        for symbol in symbols_in_row {
            let content = symbols.iter().position(|&s| s == symbol);
            if symbol != '.' && content.is_none() {
                return Err(invalid(format!(
                    "unknown symbol {symbol:?} in row {row}: expected '.' or one of {symbols:?}"
                )));
            }
            cells.push(content);
        }
    }
    Ok(cells)
}

/// The cells of each symbol of a picture read by [`read_picture`] as bitboards: bit `cell` of
/// `boards[k]` is set where the picture shows `symbols[k]` (boards up to 128 cells).
pub fn symbol_bitboards<const K: usize>(cells: &[Option<usize>]) -> [u128; K] {
    let mut boards = [0u128; K];
    for (cell, content) in cells.iter().enumerate() {
        if let Some(k) = content {
            boards[*k] |= 1 << cell;
        }
    }
    boards
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pictures_read_cell_by_cell_and_bad_ones_name_the_problem() {
        let cells = read_picture("t", ". x .\n o x .\n  . . o", 3, 3, &['x', 'o']).unwrap();
        assert_eq!(
            cells,
            [
                None,
                Some(0),
                None,
                Some(1),
                Some(0),
                None,
                None,
                None,
                Some(1)
            ]
        );
        assert_eq!(symbol_bitboards::<2>(&cells), [0b10010, 0b100001000]);
        let err = read_picture("t", ". x\n. .", 3, 2, &['x', 'o']).unwrap_err();
        assert!(err.to_string().contains("2 rows, expected 3"), "{err}");
        let err = read_picture("t", ". x .\n. .", 2, 3, &['x', 'o']).unwrap_err();
        assert!(err.to_string().contains("row 1"), "{err}");
        let err = read_picture("t", ". q", 1, 2, &['x', 'o']).unwrap_err();
        assert!(err.to_string().contains("'q'"), "{err}");
    }
}
