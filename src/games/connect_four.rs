//! Connect Four on the standard 7 × 6 board, as OpenSpiel's `connect_four`: action id = column
//! 0-6 from the left; P0 (`x`) moves first; four in a row horizontally, vertically or diagonally
//! wins; a full board is a draw. Text: columns `a`-`g`.
//!
//! Bitboards (Pons' layout): bit `7·col + row` with row 0 at the bottom; the seventh bit of each
//! column stays empty so that shifts never carry a line from one column into the next.

use std::fmt;

use super::board_view::{BoardView, squares_board, stone_cells};
use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, Symmetry, push_mask_actions,
};
use super::game_params::GameParams;
use super::registry::GameVisitor;
use super::zobrist;

pub const COLS: usize = 7;
pub const ROWS: usize = 6;
const COLUMN_BITS: usize = ROWS + 1;
const CELLS: usize = COLS * ROWS;

const fn bottom_row() -> u64 {
    let mut mask = 0;
    let mut col = 0;
    while col < COLS {
        mask |= 1 << (col * COLUMN_BITS);
        col += 1;
    }
    mask
}
/// One bit at the bottom of every column.
const BOTTOM: u64 = bottom_row();
/// The top playable cell of every column.
const TOP: u64 = BOTTOM << (ROWS - 1);
/// Every playable cell.
const BOARD_MASK: u64 = BOTTOM * ((1 << ROWS) - 1);

#[inline(always)]
const fn column_mask(col: usize) -> u64 {
    ((1 << ROWS) - 1) << (col * COLUMN_BITS)
}

// Zobrist keys: [player][bit index].
const STONE_KEYS: [u64; 2 * COLS * COLUMN_BITS] = zobrist::keys(0xC4C4_0000_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0xC4C4_0000_0000_0002)[0];

/// Whether `stones` holds four in a row.
#[inline(always)]
fn has_four(stones: u64) -> bool {
    // vertical, horizontal, diagonal /, diagonal \ .
    for shift in [1, COLUMN_BITS, COLUMN_BITS + 1, COLUMN_BITS - 1] {
        let pairs = stones & (stones >> shift);
        if pairs & (pairs >> (2 * shift)) != 0 {
            return true;
        }
    }
    false
}

/// Connect Four has no parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnectFourParams;

/// A Connect Four position.
#[derive(Clone, Copy, Debug)]
pub struct ConnectFour {
    /// Stones of P0 and P1.
    stones: [u64; 2],
    to_move: Player,
    outcome: Option<Outcome>,
    ply: u8,
    mobility: [u16; 2],
    hash: u64,
}

impl ConnectFour {
    /// Columns of the board.
    pub const COLS: usize = COLS;
    /// Rows of the board.
    pub const ROWS: usize = ROWS;
    /// Bits a column takes in a bitboard (its cells and one empty bit above).
    pub const COLUMN_BITS: usize = COLUMN_BITS;
    /// One bit at the bottom of every column.
    pub const BOTTOM: u64 = BOTTOM;
    /// Every playable cell.
    pub const BOARD_MASK: u64 = BOARD_MASK;

    /// The stones of P0 and of P1 as bitboards (bit `7·col + row`, row 0 at the bottom).
    pub fn stones(&self) -> [u64; 2] {
        self.stones
    }

    #[inline]
    fn occupied(&self) -> u64 {
        self.stones[0] | self.stones[1]
    }

    /// Legal columns as a bit mask (bit `c` = column `c`).
    #[inline]
    fn legal_mask(&self) -> u8 {
        if self.outcome.is_some() {
            return 0;
        }
        let open_tops = !self.occupied() & TOP;
        let mut mask = 0u8;
        for col in 0..COLS {
            mask |= (((open_tops >> (col * COLUMN_BITS + ROWS - 1)) & 1) as u8) << col;
        }
        mask
    }

    /// The stone (P0, P1 or none) at `row` (0 = bottom), `col`.
    pub fn cell(&self, row: usize, col: usize) -> Option<Player> {
        let bit = 1u64 << (col * COLUMN_BITS + row);
        if self.stones[0] & bit != 0 {
            Some(Player::P0)
        } else if self.stones[1] & bit != 0 {
            Some(Player::P1)
        } else {
            None
        }
    }
}

/// Mirror image of a cell index `row·7 + col` of the encoding (row 0 at the top).
const fn mirror_cells() -> [u16; CELLS] {
    let mut image = [0u16; CELLS];
    let mut i = 0;
    while i < CELLS {
        let (row, col) = (i / COLS, i % COLS);
        image[i] = (row * COLS + (COLS - 1 - col)) as u16;
        i += 1;
    }
    image
}
const MIRROR_CELLS: [u16; CELLS] = mirror_cells();
const MIRROR_ACTIONS: [Action; COLS] = [6, 5, 4, 3, 2, 1, 0];

impl GameParams for ConnectFourParams {
    const NAME: &'static str = ConnectFour::NAME;
    const DESCRIPTION: &'static str = "Connect Four, 7 columns × 6 rows";

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        visitor.visit(ConnectFour::new(self))
    }
}

impl Game for ConnectFour {
    const NAME: &'static str = "connect_four";
    const SIDE_NAMES: [&'static str; 2] = ["Red", "Yellow"]; // the discs of the boxed game
    const TERMINAL_PIECES: Option<[(char, &'static str); 2]> = Some([('x', "1;31"), ('o', "1;33")]);
    const NUM_ACTIONS: usize = COLS;
    const HAS_DRAWS: bool = true;
    /// Planes over the 6 × 7 board, row 0 at the top: P0's stones, P1's stones, P0 to move.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 3,
        rows: ROWS,
        cols: COLS,
    };
    const ENCODING_VERSION: u32 = 1;
    const SYMMETRIES: &'static [Symmetry] = &[Symmetry {
        name: "mirror",
        cell_image: &MIRROR_CELLS,
        action_image: &MIRROR_ACTIONS,
    }];

    type Params = ConnectFourParams;

    fn new(_params: &ConnectFourParams) -> ConnectFour {
        ConnectFour {
            stones: [0; 2],
            to_move: Player::P0,
            outcome: None,
            ply: 0,
            mobility: [0; 2],
            hash: 0,
        }
    }

    fn params(&self) -> &ConnectFourParams {
        &ConnectFourParams
    }

    fn max_game_length(&self) -> usize {
        CELLS
    }

    #[inline]
    fn to_move(&self) -> Player {
        self.to_move
    }

    #[inline]
    fn ply(&self) -> usize {
        self.ply as usize
    }

    #[inline]
    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        push_mask_actions(self.legal_mask() as u64, out);
    }

    #[inline]
    fn is_legal(&self, action: Action) -> bool {
        (action as usize) < COLS && self.legal_mask() & (1 << action) != 0
    }

    #[inline]
    fn play(&mut self, action: Action) {
        let legal = self.legal_mask();
        debug_assert!(
            legal & (1 << action) != 0,
            "illegal Connect Four action {action} in\n{self}"
        );
        let mover = self.to_move.index();
        self.mobility[mover] += legal.count_ones() as u16;
        let col = action as usize;
        let occupied = self.occupied();
        let new_stone = (occupied + (1 << (col * COLUMN_BITS))) & column_mask(col);
        self.stones[mover] |= new_stone;
        self.hash ^= STONE_KEYS[mover * COLS * COLUMN_BITS + new_stone.trailing_zeros() as usize]
            ^ P1_TO_MOVE_KEY;
        self.ply += 1;
        self.to_move = self.to_move.opponent();
        if has_four(self.stones[mover]) {
            self.outcome = Some(Outcome::win_for(Player::from_index(mover)));
        } else if self.occupied() == BOARD_MASK {
            self.outcome = Some(Outcome::Draw);
        }
    }

    #[inline]
    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    #[inline]
    fn hash(&self) -> u64 {
        self.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        let mut hash = if self.to_move == Player::P1 {
            P1_TO_MOVE_KEY
        } else {
            0
        };
        for player in 0..2 {
            let mut stones = self.stones[player];
            while stones != 0 {
                hash ^= STONE_KEYS[player * COLS * COLUMN_BITS + stones.trailing_zeros() as usize];
                stones &= stones - 1;
            }
        }
        hash
    }

    fn piece_counts(&self) -> [u32; 2] {
        [self.stones[0].count_ones(), self.stones[1].count_ones()]
    }

    fn mobility_sums(&self) -> [u32; 2] {
        [self.mobility[0] as u32, self.mobility[1] as u32]
    }

    fn encode(&self, out: &mut [f32]) {
        let shape = Self::ENCODING;
        assert_eq!(
            out.len(),
            shape.len(),
            "Connect Four encodes into {} floats",
            shape.len()
        );
        let p0_to_move = if self.to_move == Player::P0 { 1.0 } else { 0.0 };
        for row_from_top in 0..ROWS {
            for col in 0..COLS {
                let cell = row_from_top * COLS + col;
                let stone = self.cell(ROWS - 1 - row_from_top, col);
                out[cell] = (stone == Some(Player::P0)) as u8 as f32;
                out[CELLS + cell] = (stone == Some(Player::P1)) as u8 as f32;
                out[2 * CELLS + cell] = p0_to_move;
            }
        }
    }

    fn apply_symmetry(&self, index: usize) -> ConnectFour {
        assert_eq!(index, 0, "Connect Four has one symmetry (the mirror)");
        let mirror = |stones: u64| {
            (0..COLS).fold(0u64, |acc, col| {
                let column = (stones >> (col * COLUMN_BITS)) & column_mask(0);
                acc | column << ((COLS - 1 - col) * COLUMN_BITS)
            })
        };
        let mut image = *self;
        image.stones = [mirror(self.stones[0]), mirror(self.stones[1])];
        image.hash = image.hash_from_scratch();
        image
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        char::from(b'a' + action as u8).to_string()
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let mut chars = text.trim().chars();
        match (chars.next(), chars.next()) {
            (Some(c @ ('a'..='g' | 'A'..='G')), None) => {
                Ok((c.to_ascii_lowercase() as u8 - b'a') as Action)
            }
            _ => Err(MoveError::Unparsable {
                text: text.to_string(),
                expected: Self::notation_help().to_string(),
            }),
        }
    }

    fn notation_help() -> &'static str {
        "a column letter a-g (left to right)"
    }

    /// 6 × 7 squares; a cell is named by its column and its row from the bottom (`d1`).
    fn board_view(&self) -> BoardView {
        let cells = stone_cells(
            (ROWS, COLS),
            |r, c| cell_name(ROWS - 1 - r, c),
            |r, c| self.cell(ROWS - 1 - r, c),
        );
        squares_board(cells, (ROWS, COLS), false, true)
            .with_colours(["red", "yellow"])
            .with_winning_line(4, self.outcome().and_then(|o| o.winner()))
    }

    /// The cell the stone falls to.
    fn move_cells(&self, action: Action) -> Vec<String> {
        let col = action as usize;
        let row = (0..ROWS).find(|&row| self.cell(row, col).is_none());
        row.map(|row| cell_name(row, col)).into_iter().collect()
    }
}

/// The name of the cell at `row` (0 = bottom), `col`: `d1`.
fn cell_name(row: usize, col: usize) -> String {
    format!("{}{}", char::from(b'a' + col as u8), row + 1)
}

impl fmt::Display for ConnectFour {
    /// Rows from the top, `x` for P0 and `o` for P1 (OpenSpiel's symbols), column letters below.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..ROWS).rev() {
            for col in 0..COLS {
                let symbol = match self.cell(row, col) {
                    Some(Player::P0) => 'x',
                    Some(Player::P1) => 'o',
                    None => '.',
                };
                write!(f, "{symbol}")?;
                if col + 1 < COLS {
                    write!(f, " ")?;
                }
            }
            writeln!(f)?;
        }
        write!(f, "a b c d e f g")
    }
}
