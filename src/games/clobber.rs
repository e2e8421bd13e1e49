//! Clobber on 10 × 10, the Computer Olympiad's board, as OpenSpiel's
//! `clobber(rows=10,columns=10)` (GAMES.md §3.7): the board starts full in a checkerboard, a1
//! (bottom left) holding a stone of the first player; a move takes an own stone onto an
//! orthogonally adjacent enemy stone, which is removed. A player who cannot move loses.
//!
//! P0 is OpenSpiel's `o` (the first player, on the cells whose row + column is odd counting row 0
//! at the top), P1 is `x`. Action id `(row·10 + col)·4 + dir`, row 0 = the top row (printed 10),
//! dir 0 up, 1 right, 2 down, 3 left: 400 ids. Text `b10c10` (from, to).
//!
//! Bitboards: bit `row·10 + col` of a `u128`.

use std::fmt;

use super::board_planes::encode_stone_planes;
use super::cell_text::{cell_text, split_cell};
use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, PositionError, Symmetry,
};
use super::picture::read_picture;
use super::square_symmetry::{DIHEDRAL_NAMES, dihedral_cells, dihedral_step};
use super::zobrist;

const SIZE: usize = 10;
const CELLS: usize = SIZE * SIZE;
const BOARD: u128 = (1 << CELLS) - 1;
const COL_0: u128 = {
    let mut mask = 0;
    let mut row = 0;
    while row < SIZE {
        mask |= 1 << (row * SIZE);
        row += 1;
    }
    mask
};
const COL_LAST: u128 = COL_0 << (SIZE - 1);

/// The four directions in id order (up, right, down, left): (row step, column step), the cell
/// index change, and the cells a stone may start from.
const DIRECTIONS: [(i32, i32, i32, u128); 4] = [
    (-1, 0, -(SIZE as i32), BOARD),
    (0, 1, 1, BOARD & !COL_LAST),
    (1, 0, SIZE as i32, BOARD),
    (0, -1, -1, BOARD & !COL_0),
];

#[inline(always)]
fn shift(bits: u128, delta: i32) -> u128 {
    if delta >= 0 {
        (bits << delta) & BOARD
    } else {
        bits >> -delta
    }
}

// Zobrist keys: [player][cell].
const STONE_KEYS: [u64; 2 * CELLS] = zobrist::keys(0xC10B_0000_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0xC10B_0000_0000_0002)[0];

/// Clobber has no parameters yet (10 × 10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClobberParams;

/// A Clobber position.
#[derive(Clone, Copy, Debug)]
pub struct Clobber {
    /// Stones of P0 and P1.
    stones: [u128; 2],
    to_move: Player,
    outcome: Option<Outcome>,
    ply: u8,
    mobility: [u16; 2],
    hash: u64,
}

impl Clobber {
    /// For each direction, the stones of `player` that can move that way.
    #[inline]
    fn movers(&self, player: Player) -> [u128; 4] {
        let own = self.stones[player.index()];
        let enemy = self.stones[1 - player.index()];
        DIRECTIONS.map(|(_, _, delta, from)| own & from & shift(enemy, -delta))
    }

    #[inline]
    fn move_count(&self, player: Player) -> u32 {
        self.movers(player).iter().map(|m| m.count_ones()).sum()
    }

    /// The stone (P0, P1 or none) at `row` (0 = the top row, printed 10), `col`.
    pub fn cell(&self, row: usize, col: usize) -> Option<Player> {
        let bit = 1u128 << (row * SIZE + col);
        [Player::P0, Player::P1]
            .into_iter()
            .find(|p| self.stones[p.index()] & bit != 0)
    }

    /// A position from a picture: 10 rows from the top (row 10) of `o` (P0), `x` (P1) and `.`,
    /// `to_move` to play, at ply 0; over already if the mover has no move.
    pub fn from_picture(picture: &str, to_move: Player) -> Result<Clobber, PositionError> {
        let cells = read_picture(Self::NAME, picture, SIZE, SIZE, &['o', 'x'])?;
        let mut stones = [0u128; 2];
        for (cell, owner) in cells.iter().enumerate() {
            if let Some(p) = owner {
                stones[*p] |= 1 << cell;
            }
        }
        let mut position = Clobber {
            stones,
            to_move,
            outcome: None,
            ply: 0,
            mobility: [0; 2],
            hash: 0,
        };
        position.hash = position.hash_from_scratch();
        position.outcome = position.settled_outcome();
        Ok(position)
    }

    /// A mover without a move has lost.
    fn settled_outcome(&self) -> Option<Outcome> {
        (self.move_count(self.to_move) == 0).then(|| Outcome::win_for(self.to_move.opponent()))
    }

    /// The start and end cells of an action id (no legality check).
    fn from_to(action: Action) -> (usize, usize) {
        let (from, dir) = (action as usize / 4, action as usize % 4);
        let (dr, dc, _, _) = DIRECTIONS[dir];
        let row = (from / SIZE) as i32 + dr;
        let col = (from % SIZE) as i32 + dc;
        (from, (row * SIZE as i32 + col) as usize)
    }
}

const fn direction_of(d_row: i32, d_col: i32) -> usize {
    let mut dir = 0;
    while DIRECTIONS[dir].0 != d_row || DIRECTIONS[dir].1 != d_col {
        dir += 1;
    }
    dir
}

/// The dihedral elements that keep the checkerboard's colours: rot180, transpose,
/// anti-transpose (indices into the dihedral group).
const COLOUR_KEEPING: [usize; 3] = [2, 6, 7];

const fn symmetry_actions(k: usize) -> [Action; 4 * CELLS] {
    let cells: [u16; CELLS] = dihedral_cells(k, SIZE);
    let mut image = [0; 4 * CELLS];
    let mut action = 0;
    while action < 4 * CELLS {
        let (dr, dc, _, _) = DIRECTIONS[action % 4];
        let (ir, ic) = dihedral_step(k, dr, dc);
        image[action] = cells[action / 4] * 4 + direction_of(ir, ic) as u16;
        action += 1;
    }
    image
}

static CELL_IMAGES: [[u16; CELLS]; 3] = [
    dihedral_cells(COLOUR_KEEPING[0], SIZE),
    dihedral_cells(COLOUR_KEEPING[1], SIZE),
    dihedral_cells(COLOUR_KEEPING[2], SIZE),
];
static ACTION_IMAGES: [[Action; 4 * CELLS]; 3] = [
    symmetry_actions(COLOUR_KEEPING[0]),
    symmetry_actions(COLOUR_KEEPING[1]),
    symmetry_actions(COLOUR_KEEPING[2]),
];

const SYMMETRIES: [Symmetry; 3] = {
    macro_rules! symmetry {
        ($k:literal) => {
            Symmetry {
                name: DIHEDRAL_NAMES[COLOUR_KEEPING[$k]],
                cell_image: &CELL_IMAGES[$k],
                action_image: &ACTION_IMAGES[$k],
            }
        };
    }
    [symmetry!(0), symmetry!(1), symmetry!(2)]
};

impl Game for Clobber {
    const NAME: &'static str = "clobber";
    const NUM_ACTIONS: usize = 4 * CELLS;
    const HAS_DRAWS: bool = false;
    /// Planes over the 10 × 10 board, row 0 at the top: P0's stones, P1's stones, P0 to move.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 3,
        rows: SIZE,
        cols: SIZE,
    };
    const ENCODING_VERSION: u32 = 1;
    /// The symmetries of the square that keep the checkerboard's colours.
    const SYMMETRIES: &'static [Symmetry] = &SYMMETRIES;

    type Params = ClobberParams;

    fn new(_params: &ClobberParams) -> Clobber {
        let mut stones = [0u128; 2];
        for cell in 0..CELLS {
            let owner = 1 - (cell / SIZE + cell % SIZE) % 2;
            stones[owner] |= 1 << cell;
        }
        let mut position = Clobber {
            stones,
            to_move: Player::P0,
            outcome: None,
            ply: 0,
            mobility: [0; 2],
            hash: 0,
        };
        position.hash = position.hash_from_scratch();
        position
    }

    fn params(&self) -> &ClobberParams {
        &ClobberParams
    }

    /// Each move removes a stone, and one is always left.
    fn max_game_length(&self) -> usize {
        CELLS - 1
    }

    #[inline]
    fn to_move(&self) -> Player {
        self.to_move
    }

    #[inline]
    fn ply(&self) -> usize {
        self.ply as usize
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        let movers = self.movers(self.to_move);
        let mut stones = movers[0] | movers[1] | movers[2] | movers[3];
        while stones != 0 {
            let from = stones.trailing_zeros() as usize;
            for (dir, mask) in movers.iter().enumerate() {
                if mask >> from & 1 == 1 {
                    out.push((from * 4 + dir) as Action);
                }
            }
            stones &= stones - 1;
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        let id = action as usize;
        id < Self::NUM_ACTIONS
            && self.outcome.is_none()
            && self.movers(self.to_move)[id % 4] >> (id / 4) & 1 == 1
    }

    fn play(&mut self, action: Action) {
        debug_assert!(
            self.is_legal(action),
            "illegal Clobber action {action} in\n{self}"
        );
        let (mover, enemy) = (self.to_move.index(), 1 - self.to_move.index());
        let (from, to) = Self::from_to(action);
        self.mobility[mover] += self.move_count(self.to_move) as u16;
        self.stones[mover] ^= 1 << from | 1 << to;
        self.stones[enemy] ^= 1 << to;
        self.hash ^= STONE_KEYS[mover * CELLS + from]
            ^ STONE_KEYS[mover * CELLS + to]
            ^ STONE_KEYS[enemy * CELLS + to]
            ^ P1_TO_MOVE_KEY;
        self.ply += 1;
        self.to_move = self.to_move.opponent();
        self.outcome = self.settled_outcome();
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
            hash ^= zobrist::of_bits(self.stones[player], &STONE_KEYS[player * CELLS..]);
        }
        hash
    }

    fn piece_counts(&self) -> [u32; 2] {
        self.stones.map(u128::count_ones)
    }

    fn mobility_sums(&self) -> [u32; 2] {
        self.mobility.map(u32::from)
    }

    fn encode(&self, out: &mut [f32]) {
        encode_stone_planes(out, CELLS, self.to_move, |p, cell| {
            self.stones[p] >> cell & 1 == 1
        });
    }

    fn apply_symmetry(&self, index: usize) -> Clobber {
        let table = &CELL_IMAGES[index];
        let map = |bits: u128| {
            (0..CELLS)
                .filter(|&cell| bits >> cell & 1 == 1)
                .fold(0u128, |acc, cell| acc | 1 << table[cell])
        };
        let mut image = *self;
        image.stones = self.stones.map(map);
        image.hash = image.hash_from_scratch();
        image
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        let (from, to) = Self::from_to(action);
        let square = |cell: usize| cell_text(cell % SIZE, SIZE - cell / SIZE);
        format!("{}{}", square(from), square(to))
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let unparsable = || MoveError::Unparsable {
            text: text.to_string(),
            expected: Self::notation_help().to_string(),
        };
        let square = |col: usize, number: usize| {
            (col < SIZE && (1..=SIZE).contains(&number)).then(|| (SIZE - number, col))
        };
        let (col, number, rest) = split_cell(text.trim()).ok_or_else(unparsable)?;
        let (to_col, to_number, rest) = split_cell(rest).ok_or_else(unparsable)?;
        let ((row, col), (to_row, to_col)) = square(col, number)
            .zip(square(to_col, to_number))
            .filter(|_| rest.is_empty())
            .ok_or_else(unparsable)?;
        let step = (to_row as i32 - row as i32, to_col as i32 - col as i32);
        let dir = DIRECTIONS
            .iter()
            .position(|&(dr, dc, _, _)| (dr, dc) == step)
            .ok_or_else(unparsable)?;
        Ok(((row * SIZE + col) * 4 + dir) as Action)
    }

    fn notation_help() -> &'static str {
        "from and to squares, orthogonally adjacent, e.g. b10c10 (columns a-j, rows 1-10 from the bottom)"
    }
}

impl fmt::Display for Clobber {
    /// OpenSpiel's picture: rows 10 to 1 from the top, `o` for P0, `x` for P1.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in 0..SIZE {
            write!(f, "{:>2}", SIZE - row)?;
            for col in 0..SIZE {
                let symbol = match self.cell(row, col) {
                    Some(Player::P0) => 'o',
                    Some(Player::P1) => 'x',
                    None => '.',
                };
                write!(f, "{symbol}")?;
            }
            writeln!(f)?;
        }
        write!(f, "  abcdefghij")
    }
}
