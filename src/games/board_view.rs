//! A position as a drawing is made of, with no drawing in it: the board's layout (squares,
//! intersections, a hex rhombus or hexagon, mancala pits, several boards), each cell's name in
//! the game's notation and what stands on it. `web` draws it as SVG; a person plays by clicking
//! the cells `Game::move_cells` names, in order.
//!
//! Rows and columns are the drawing's: row 0 at the top, column 0 at the left, whatever the
//! game's own numbering (its cell names say that).

use super::game::Player;

/// The shape of a board.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Layout {
    /// No drawing: the page shows the text picture.
    #[default]
    None,
    /// `rows × cols` squares, pieces inside them; `checkered`: dark and light squares.
    Squares {
        rows: usize,
        cols: usize,
        checkered: bool,
    },
    /// Stones on the intersections of `rows × cols` lines (Go, Gomoku, Connect6), with star
    /// points at `stars` (row, column).
    Intersections {
        rows: usize,
        cols: usize,
        stars: Vec<(usize, usize)>,
    },
    /// Hex's rhombus of `size × size` hexagons, each row shifted half a cell further right;
    /// `top_bottom` is the player who joins the top and bottom edges (the other joins left
    /// and right).
    HexRhombus { size: usize, top_bottom: Player },
    /// A hexagon of hexagons with `side` cells a side (Havannah): `2·side − 1` rows, row `r`
    /// holding `side + min(r, 2·side − 2 − r)` cells.
    Hexagon { side: usize },
    /// `rows × cols` boards of `size × size` squares apart (Shobu's four); a cell's row and
    /// column count squares across the boards.
    Boards {
        size: usize,
        rows: usize,
        cols: usize,
    },
    /// Mancala pits, `rows × cols`, each with its seed count; `stores` the seeds each player
    /// has taken, in games that keep them.
    Pits {
        rows: usize,
        cols: usize,
        stores: Option<[u32; 2]>,
    },
}

/// What stands on a cell.
#[derive(Clone, Debug, PartialEq)]
pub struct Piece {
    /// Whose it is; `None` for a neutral piece (an Amazons arrow).
    pub owner: Option<Player>,
    pub kind: PieceKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieceKind {
    /// A stone or a man: a plain round piece.
    Stone,
    /// A crowned piece (a draughts king).
    King,
    /// A blocked cell (an Amazons arrow).
    Block,
    /// A piece known by its letter (Arimaa's `E M H D C R`).
    Letter(char),
}

/// One cell of the board.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Its name in the game's notation, as `move_cells` gives it (`c4`, `C`).
    pub id: String,
    pub row: usize,
    pub col: usize,
    pub piece: Option<Piece>,
    /// A number shown on the cell (a pit's seeds).
    pub count: Option<u32>,
}

/// The drawing of a position.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardView {
    pub layout: Layout,
    pub cells: Vec<Cell>,
    /// The names of the columns left to right and of the rows top to bottom, drawn along the
    /// edges (empty where the cells' own names say enough).
    pub col_labels: Vec<String>,
    pub row_labels: Vec<String>,
    /// The colours of P0's and of P1's pieces: `black` and `white` (P0 moves first, as Black
    /// does in Go), or the game's own (draughts: White moves first).
    pub colours: [&'static str; 2],
    /// Cells marked on the board, by (row, column): Arimaa's traps.
    pub marks: Vec<(usize, usize)>,
    /// Lines drawn from one cell's centre to another's, by (row, column): Morpion's lines.
    pub segments: Vec<[(usize, usize); 2]>,
    /// Each cell's name written on it, where moves are typed with names the board does not
    /// otherwise show (draughts' square numbers, Awale's house letters).
    pub cell_names: bool,
    /// A line under the board: what the position's players count (Othello's discs, Arimaa's
    /// step of the turn).
    pub caption: Option<String>,
    /// The names of the cells that won the game (a connection game's line), marked.
    pub winning: Vec<String>,
}

impl Default for BoardView {
    /// No drawing.
    fn default() -> BoardView {
        BoardView::new(Layout::None, Vec::new(), (Vec::new(), Vec::new()))
    }
}

/// P0 black, P1 white.
pub const BLACK_WHITE: [&str; 2] = ["black", "white"];

impl BoardView {
    /// A board of `layout` whose cells are `cells`, labelled by `col_labels` and `row_labels`.
    pub fn new(
        layout: Layout,
        cells: Vec<Cell>,
        (col_labels, row_labels): (Vec<String>, Vec<String>),
    ) -> BoardView {
        BoardView {
            layout,
            cells,
            col_labels,
            row_labels,
            colours: BLACK_WHITE,
            marks: Vec::new(),
            segments: Vec::new(),
            cell_names: false,
            caption: None,
            winning: Vec::new(),
        }
    }

    /// The same board with each cell's name written on it.
    pub fn with_cell_names(self) -> BoardView {
        BoardView {
            cell_names: true,
            ..self
        }
    }

    /// The same board with `caption` written under it.
    pub fn with_caption(self, caption: String) -> BoardView {
        BoardView {
            caption: Some(caption),
            ..self
        }
    }

    /// The same board with `segments` drawn.
    pub fn with_segments(self, segments: Vec<[(usize, usize); 2]>) -> BoardView {
        BoardView { segments, ..self }
    }

    /// The same board with the cells at `marks` marked.
    pub fn with_marks(self, marks: Vec<(usize, usize)>) -> BoardView {
        BoardView { marks, ..self }
    }

    /// The same board with `winner`'s lines of at least `length` pieces in a row — across,
    /// down or diagonal — marked as the game's winning line (nothing while no one has won).
    pub fn with_winning_line(self, length: usize, winner: Option<Player>) -> BoardView {
        let Some(winner) = winner else {
            return self;
        };
        let owned: std::collections::HashMap<(usize, usize), &str> = self
            .cells
            .iter()
            .filter(|c| c.piece.as_ref().is_some_and(|p| p.owner == Some(winner)))
            .map(|c| ((c.row, c.col), c.id.as_str()))
            .collect();
        let step = |(row, col): (usize, usize), (dr, dc): (isize, isize)| {
            Some((row.checked_add_signed(dr)?, col.checked_add_signed(dc)?))
        };
        let mut winning = Vec::new();
        for &start in owned.keys() {
            for direction in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                let before = step(start, (-direction.0, -direction.1));
                if before.is_some_and(|cell| owned.contains_key(&cell)) {
                    continue; // not the line's first cell
                }
                let mut line = vec![start];
                while let Some(next) =
                    step(*line.last().unwrap(), direction).filter(|cell| owned.contains_key(cell))
                {
                    line.push(next);
                }
                if line.len() >= length {
                    winning.extend(line.iter().map(|cell| owned[cell].to_string()));
                }
            }
        }
        winning.sort();
        winning.dedup();
        BoardView { winning, ..self }
    }

    /// The same board with P0's pieces in `colours[0]` and P1's in `colours[1]`.
    pub fn with_colours(self, colours: [&'static str; 2]) -> BoardView {
        BoardView { colours, ..self }
    }
}

/// A stone of `owner` (`None` when `owner` is).
pub fn stone(owner: Option<Player>) -> Option<Piece> {
    owner.map(|owner| Piece {
        owner: Some(owner),
        kind: PieceKind::Stone,
    })
}

/// Letters `a`, `b`, … for `count` columns.
pub fn letters(count: usize) -> Vec<String> {
    (0..count)
        .map(|i| char::from(b'a' + i as u8).to_string())
        .collect()
}

/// Numbers `first`, `first ± 1`, … for `count` rows top to bottom (`descending`: the top row
/// has the highest number, as on a chessboard).
pub fn numbers(count: usize, descending: bool) -> Vec<String> {
    (0..count)
        .map(|i| match descending {
            true => (count - i).to_string(),
            false => (i + 1).to_string(),
        })
        .collect()
}

/// The cells of a `rows × cols` board of stones (drawing coordinates): cell (r, c) named
/// `name(r, c)`, holding a stone of `owner(r, c)`.
pub fn stone_cells(
    (rows, cols): (usize, usize),
    name: impl Fn(usize, usize) -> String,
    owner: impl Fn(usize, usize) -> Option<Player>,
) -> Vec<Cell> {
    (0..rows)
        .flat_map(|row| (0..cols).map(move |col| (row, col)))
        .map(|(row, col)| Cell {
            id: name(row, col),
            row,
            col,
            piece: stone(owner(row, col)),
            count: None,
        })
        .collect()
}

/// A board of `rows × cols` squares (`checkered` or not) holding `cells`, its columns lettered
/// a, b, … and its rows numbered from the top, or from the bottom (`from_bottom`, as on a
/// chessboard).
pub fn squares_board(
    cells: Vec<Cell>,
    (rows, cols): (usize, usize),
    checkered: bool,
    from_bottom: bool,
) -> BoardView {
    let layout = Layout::Squares {
        rows,
        cols,
        checkered,
    };
    BoardView::new(layout, cells, (letters(cols), numbers(rows, from_bottom)))
}
