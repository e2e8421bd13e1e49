//! Tic-tac-toe, as OpenSpiel's `tic_tac_toe`: action id = cell `3·row + col`, row 0 at the top;
//! P0 (`x`) moves first; three in a row wins; a full board is a draw. Text: column letter `a`-`c`
//! then row number `1`-`3` from the top (`a1` is cell 0, `c3` cell 8).

use super::board_view::{BoardView, Cell, squares_board, stone};
use std::fmt;

use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, Symmetry, push_mask_actions,
};
use super::game_params::GameParams;
use super::registry::GameVisitor;
use super::zobrist;

const CELLS: usize = 9;
const FULL: u16 = (1 << CELLS) - 1;
const LINES: [u16; 8] = [
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b100_010_001,
    0b001_010_100,
];

const STONE_KEYS: [u64; 2 * CELLS] = zobrist::keys(0x7777_0000_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0x7777_0000_0000_0002)[0];

#[inline(always)]
#[allow(clippy::manual_contains)] // false positive: each line is masked with itself, not searched for
fn has_line(stones: u16) -> bool {
    LINES.iter().any(|&line| stones & line == line)
}

const fn as_actions(cells: [u16; CELLS]) -> [Action; CELLS] {
    let mut actions = [0; CELLS];
    let mut i = 0;
    while i < CELLS {
        actions[i] = cells[i] as Action;
        i += 1;
    }
    actions
}

macro_rules! dihedral {
    ($($name:ident = $label:literal: ($r:ident, $c:ident) => $image:expr;)*) => {
        mod dihedral_tables {
            use super::*;
            $(
                pub const $name: [u16; CELLS] = {
                    let mut image = [0u16; CELLS];
                    let mut i = 0;
                    while i < CELLS {
                        let ($r, $c) = (i / 3, i % 3);
                        let (row, col): (usize, usize) = $image;
                        image[i] = (row * 3 + col) as u16;
                        i += 1;
                    }
                    image
                };
            )*
        }
        const SYMMETRIES: [Symmetry; 7] = [$(
            Symmetry {
                name: $label,
                cell_image: &dihedral_tables::$name,
                action_image: &as_actions(dihedral_tables::$name),
            },
        )*];
    };
}

dihedral! {
    ROT90 = "rot90": (r, c) => (c, 2 - r);
    ROT180 = "rot180": (r, c) => (2 - r, 2 - c);
    ROT270 = "rot270": (r, c) => (2 - c, r);
    MIRROR_COLS = "mirror": (r, c) => (r, 2 - c);
    MIRROR_ROWS = "flip": (r, c) => (2 - r, c);
    TRANSPOSE = "transpose": (r, c) => (c, r);
    ANTI_TRANSPOSE = "antitranspose": (r, c) => (2 - c, 2 - r);
}

/// Tic-tac-toe has no parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TicTacToeParams;

/// A tic-tac-toe position.
#[derive(Clone, Copy, Debug)]
pub struct TicTacToe {
    /// Cells of P0 and P1 (bit = cell id).
    stones: [u16; 2],
    to_move: Player,
    outcome: Option<Outcome>,
    ply: u8,
    mobility: [u16; 2],
    hash: u64,
}

impl TicTacToe {
    #[inline]
    fn empty_cells(&self) -> u16 {
        if self.outcome.is_some() {
            0
        } else {
            !(self.stones[0] | self.stones[1]) & FULL
        }
    }

    /// The stone on cell `cell` (0-8), if any.
    pub fn cell(&self, cell: usize) -> Option<Player> {
        if self.stones[0] >> cell & 1 == 1 {
            Some(Player::P0)
        } else if self.stones[1] >> cell & 1 == 1 {
            Some(Player::P1)
        } else {
            None
        }
    }
}

impl GameParams for TicTacToeParams {
    const NAME: &'static str = TicTacToe::NAME;
    const DESCRIPTION: &'static str = "Tic-tac-toe, 3 × 3";

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        visitor.visit(TicTacToe::new(self))
    }
}

impl Game for TicTacToe {
    const NAME: &'static str = "tic_tac_toe";
    const NUM_ACTIONS: usize = CELLS;
    const HAS_DRAWS: bool = true;
    /// Planes over the 3 × 3 board, row 0 at the top: P0's stones, P1's stones, P0 to move.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 3,
        rows: 3,
        cols: 3,
    };
    const ENCODING_VERSION: u32 = 1;
    const SYMMETRIES: &'static [Symmetry] = &SYMMETRIES;

    type Params = TicTacToeParams;

    fn new(_params: &TicTacToeParams) -> TicTacToe {
        TicTacToe {
            stones: [0; 2],
            to_move: Player::P0,
            outcome: None,
            ply: 0,
            mobility: [0; 2],
            hash: 0,
        }
    }

    fn params(&self) -> &TicTacToeParams {
        &TicTacToeParams
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
        push_mask_actions(self.empty_cells() as u64, out);
    }

    #[inline]
    fn is_legal(&self, action: Action) -> bool {
        (action as usize) < CELLS && self.empty_cells() >> action & 1 == 1
    }

    #[inline]
    fn play(&mut self, action: Action) {
        let empty = self.empty_cells();
        debug_assert!(
            empty >> action & 1 == 1,
            "illegal tic-tac-toe action {action} in\n{self}"
        );
        let mover = self.to_move.index();
        self.mobility[mover] += empty.count_ones() as u16;
        self.stones[mover] |= 1 << action;
        self.hash ^= STONE_KEYS[mover * CELLS + action as usize] ^ P1_TO_MOVE_KEY;
        self.ply += 1;
        self.to_move = self.to_move.opponent();
        if has_line(self.stones[mover]) {
            self.outcome = Some(Outcome::win_for(Player::from_index(mover)));
        } else if self.stones[0] | self.stones[1] == FULL {
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
        for cell in 0..CELLS {
            if let Some(player) = self.cell(cell) {
                hash ^= STONE_KEYS[player.index() * CELLS + cell];
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
        assert_eq!(
            out.len(),
            Self::ENCODING.len(),
            "tic-tac-toe encodes into 27 floats"
        );
        let p0_to_move = if self.to_move == Player::P0 { 1.0 } else { 0.0 };
        for cell in 0..CELLS {
            let stone = self.cell(cell);
            out[cell] = (stone == Some(Player::P0)) as u8 as f32;
            out[CELLS + cell] = (stone == Some(Player::P1)) as u8 as f32;
            out[2 * CELLS + cell] = p0_to_move;
        }
    }

    fn apply_symmetry(&self, index: usize) -> TicTacToe {
        let symmetry = &SYMMETRIES[index];
        let map = |stones: u16| {
            (0..CELLS)
                .filter(|&cell| stones >> cell & 1 == 1)
                .fold(0u16, |acc, cell| acc | 1 << symmetry.cell_image[cell])
        };
        let mut image = *self;
        image.stones = [map(self.stones[0]), map(self.stones[1])];
        image.hash = image.hash_from_scratch();
        image
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        let (row, col) = (action as u8 / 3, action as u8 % 3);
        format!("{}{}", char::from(b'a' + col), row + 1)
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let lower = text.trim().to_ascii_lowercase();
        match lower.as_bytes() {
            [col @ b'a'..=b'c', row @ b'1'..=b'3'] => {
                Ok(((row - b'1') * 3 + (col - b'a')) as Action)
            }
            _ => Err(MoveError::Unparsable {
                text: text.to_string(),
                expected: Self::notation_help().to_string(),
            }),
        }
    }

    fn notation_help() -> &'static str {
        "a column letter a-c then a row number 1-3 from the top, e.g. b2"
    }

    /// 3 × 3 squares, row 1 at the top.
    fn board_view(&self) -> BoardView {
        let cells = (0..CELLS)
            .map(|cell| Cell {
                id: Self::action_to_text(self.to_move, cell as Action),
                row: cell / 3,
                col: cell % 3,
                piece: stone(self.cell(cell)),
                count: None,
            })
            .collect();
        squares_board(cells, (3, 3), false, false)
            .with_winning_line(3, self.outcome().and_then(|o| o.winner()))
    }

    fn move_cells(&self, action: Action) -> Vec<String> {
        vec![self.move_to_text(action)]
    }
}

impl fmt::Display for TicTacToe {
    /// Rows from the top, `x` for P0 and `o` for P1, with coordinates.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "  a b c")?;
        for row in 0..3 {
            write!(f, "{}", row + 1)?;
            for col in 0..3 {
                let symbol = match self.cell(row * 3 + col) {
                    Some(Player::P0) => 'x',
                    Some(Player::P1) => 'o',
                    None => '.',
                };
                write!(f, " {symbol}")?;
            }
            if row < 2 {
                writeln!(f)?;
            }
        }
        Ok(())
    }
}
