//! Clobber on `R × C` (10 × 10, the Computer Olympiad's board, by default; 8 × 8 and OpenSpiel's
//! 5 × 6 too), as OpenSpiel's `clobber(rows=R,columns=C)` (docs/games.md): the board starts full
//! in a checkerboard, a1 (bottom left) holding a stone of the first player; a move takes an own
//! stone onto an orthogonally adjacent enemy stone, which is removed. A player who cannot move
//! loses.
//!
//! P0 is OpenSpiel's `o` (the first player), P1 is `x`. Action id `(row·C + col)·4 + dir`, row 0 =
//! the top row (printed `R`), dir 0 up, 1 right, 2 down, 3 left. Text `b10c10` (from, to).
//!
//! Bitboards: bit `row·C + col` of a `u128` (boards up to 128 cells).

use std::fmt;

use super::board_planes::encode_stone_planes;
use super::board_view::{BoardView, squares_board, stone_cells};
use super::cell_text::{cell_text, split_cell};
use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, PositionError, Symmetry,
};
use super::game_params::{GameParams, Param, ParamError, parse_integer};
use super::picture::{read_picture, symbol_bitboards};
use super::registry::GameVisitor;
use super::square_symmetry::{DIHEDRAL_NAMES, dihedral_point, dihedral_step};
use super::zobrist;

const MAX_CELLS: usize = 128;

// Zobrist keys: [player][cell].
const STONE_KEYS: [u64; 2 * MAX_CELLS] = zobrist::keys(0xC10B_0000_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0xC10B_0000_0000_0002)[0];

/// Clobber has no rule parameters; the board's size is the type's (`Clobber<R, C>`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClobberRules;

/// A Clobber position on `R` rows and `C` columns.
#[derive(Clone, Copy, Debug)]
pub struct Clobber<const R: usize = 10, const C: usize = 10> {
    /// Stones of P0 and P1.
    stones: [u128; 2],
    to_move: Player,
    outcome: Option<Outcome>,
    ply: u8,
    mobility: [u16; 2],
    hash: u64,
}

/// The steps of the four directions in id order (up, right, down, left).
const STEPS: [(i32, i32); 4] = [(-1, 0), (0, 1), (1, 0), (0, -1)];

const fn direction_of(d_row: i32, d_col: i32) -> usize {
    let mut dir = 0;
    while STEPS[dir].0 != d_row || STEPS[dir].1 != d_col {
        dir += 1;
    }
    dir
}

/// The image of `(row, col)` under dihedral element `k` on a `rows × cols` board (the
/// transposes, 6 and 7, only on square boards).
const fn board_point(k: usize, rows: usize, cols: usize, row: usize, col: usize) -> (usize, usize) {
    match k {
        2 => (rows - 1 - row, cols - 1 - col),
        4 => (row, cols - 1 - col),
        5 => (rows - 1 - row, col),
        _ => dihedral_point(k, rows, row, col),
    }
}

/// Whether a cell starts with P0's stone: OpenSpiel's checkerboard, a1 (bottom left) P0's.
const fn starts_p0(rows: usize, row: usize, col: usize) -> bool {
    (row + rows - 1 + col).is_multiple_of(2)
}

/// The symmetries of an `R × C` board that keep the start's checkerboard colours: their
/// dihedral elements, cell images and action images, and how many there are.
struct SymmetryTables {
    elements: [usize; 5],
    cells: [[u16; MAX_CELLS]; 5],
    actions: [[Action; 4 * MAX_CELLS]; 5],
    count: usize,
}

const fn symmetry_tables(rows: usize, cols: usize) -> SymmetryTables {
    let mut t = SymmetryTables {
        elements: [0; 5],
        cells: [[0; MAX_CELLS]; 5],
        actions: [[0; 4 * MAX_CELLS]; 5],
        count: 0,
    };
    let candidates = [2, 4, 5, 6, 7];
    let mut i = 0;
    while i < candidates.len() {
        let k = candidates[i];
        i += 1;
        if k >= 6 && rows != cols {
            continue;
        }
        let mut keeps = true;
        let mut cell = 0;
        while cell < rows * cols {
            let (row, col) = (cell / cols, cell % cols);
            let (r, c) = board_point(k, rows, cols, row, col);
            keeps &= starts_p0(rows, r, c) == starts_p0(rows, row, col);
            t.cells[t.count][cell] = (r * cols + c) as u16;
            let mut dir = 0;
            while dir < 4 {
                let (dr, dc) = dihedral_step(k, STEPS[dir].0, STEPS[dir].1);
                t.actions[t.count][cell * 4 + dir] =
                    ((r * cols + c) * 4 + direction_of(dr, dc)) as Action;
                dir += 1;
            }
            cell += 1;
        }
        if keeps {
            t.elements[t.count] = k;
            t.count += 1;
        }
    }
    t
}

const fn symmetries(tables: &'static SymmetryTables, cells: usize) -> [Symmetry; 5] {
    let mut all = [const {
        Symmetry {
            name: "",
            cell_image: &[],
            action_image: &[],
        }
    }; 5];
    let mut k = 0;
    while k < tables.count {
        all[k] = Symmetry {
            name: DIHEDRAL_NAMES[tables.elements[k]],
            cell_image: tables.cells[k].split_at(cells).0,
            action_image: tables.actions[k].split_at(4 * cells).0,
        };
        k += 1;
    }
    all
}

impl<const R: usize, const C: usize> Clobber<R, C> {
    const CELLS: usize = R * C;
    const BOARD: u128 = if R * C == 128 { !0 } else { (1 << (R * C)) - 1 };
    const COL_0: u128 = {
        let mut mask = 0;
        let mut row = 0;
        while row < R {
            mask |= 1 << (row * C);
            row += 1;
        }
        mask
    };
    const COL_LAST: u128 = Self::COL_0 << (C - 1);
    /// The four directions in id order: the cell index change, and the cells a stone may
    /// start from.
    const DIRECTIONS: [(i32, u128); 4] = [
        (-(C as i32), Self::BOARD),
        (1, Self::BOARD & !Self::COL_LAST),
        (C as i32, Self::BOARD),
        (-1, Self::BOARD & !Self::COL_0),
    ];
    const SYMMETRY_TABLES: SymmetryTables = symmetry_tables(R, C);
    const SYMMETRY_ARRAY: [Symmetry; 5] = symmetries(&Self::SYMMETRY_TABLES, R * C);

    #[inline(always)]
    fn shift(bits: u128, delta: i32) -> u128 {
        if delta >= 0 {
            (bits << delta) & Self::BOARD
        } else {
            bits >> -delta
        }
    }

    /// For each direction, the stones of `player` that can move that way.
    #[inline]
    fn movers(&self, player: Player) -> [u128; 4] {
        let own = self.stones[player.index()];
        let enemy = self.stones[1 - player.index()];
        Self::DIRECTIONS.map(|(delta, from)| own & from & Self::shift(enemy, -delta))
    }

    #[inline]
    fn move_count(&self, player: Player) -> u32 {
        self.movers(player).iter().map(|m| m.count_ones()).sum()
    }

    /// The stone (P0, P1 or none) at `row` (0 = the top row, printed `R`), `col`.
    pub fn cell(&self, row: usize, col: usize) -> Option<Player> {
        let bit = 1u128 << (row * C + col);
        [Player::P0, Player::P1]
            .into_iter()
            .find(|p| self.stones[p.index()] & bit != 0)
    }

    /// A position from a picture: `R` rows from the top (row `R`) of `o` (P0), `x` (P1) and
    /// `.`, `to_move` to play, at ply 0; over already if the mover has no move.
    pub fn from_picture(picture: &str, to_move: Player) -> Result<Clobber<R, C>, PositionError> {
        let cells = read_picture(Self::NAME, picture, R, C, &['o', 'x'])?;
        let stones = symbol_bitboards::<2>(&cells);
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
        let (dr, dc) = STEPS[dir];
        let row = (from / C) as i32 + dr;
        let col = (from % C) as i32 + dc;
        (from, (row * C as i32 + col) as usize)
    }
}

/// The Clobber boards the registry compiles (each is its own type, `Clobber<R, C>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ClobberBoard {
    /// 10 × 10, the Olympiad's.
    Ten,
    Eight,
    /// 5 rows × 6 columns, OpenSpiel's default.
    FiveBySix,
}

/// Each compiled board's rows and columns.
const BOARDS: &[((u8, u8), ClobberBoard)] = &[
    ((10, 10), ClobberBoard::Ten),
    ((8, 8), ClobberBoard::Eight),
    ((5, 6), ClobberBoard::FiveBySix),
];

/// The compiled boards as an error message lists them.
const BOARDS_TEXT: &str = "10, 10 or 8, 8 or 5, 6";

/// Clobber as the registry names it: the board's rows and columns (OpenSpiel's keys), one of
/// the compiled boards once `GameParams::check` has passed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClobberParams {
    rows: u8,
    columns: u8,
}

impl Default for ClobberParams {
    fn default() -> Self {
        ClobberParams {
            rows: 10,
            columns: 10,
        }
    }
}

impl ClobberParams {
    fn board(&self) -> Option<ClobberBoard> {
        BOARDS
            .iter()
            .find(|(sides, _)| *sides == (self.rows, self.columns))
            .map(|(_, board)| *board)
    }
}

impl GameParams for ClobberParams {
    const NAME: &'static str = Clobber::<10, 10>::NAME;
    const DESCRIPTION: &'static str = "Clobber (OpenSpiel's clobber(rows=10,columns=10))";
    const PARAMS: &'static [Param<Self>] = &[
        Param {
            key: "rows",
            meaning: "the board's rows: 10 × 10, 8 × 8 or 5 × 6",
            set: |p, value| {
                let note = format!(" (rows, columns: {BOARDS_TEXT})");
                let side = parse_integer(value, (1, u8::MAX), &note);
                p.rows = side?;
                Ok(())
            },
            get: |p| p.rows.to_string(),
        },
        Param {
            key: "columns",
            meaning: "the board's columns",
            set: |p, value| {
                let note = format!(" (rows, columns: {BOARDS_TEXT})");
                let side = parse_integer(value, (1, u8::MAX), &note);
                p.columns = side?;
                Ok(())
            },
            get: |p| p.columns.to_string(),
        },
    ];

    fn check(&self) -> Result<(), ParamError> {
        match self.board() {
            Some(_) => Ok(()),
            None => Err(ParamError::BadCombination {
                keys: "rows, columns",
                values: format!("{}, {}", self.rows, self.columns),
                expected: BOARDS_TEXT.to_string(),
            }),
        }
    }

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        match self.board() {
            Some(ClobberBoard::Ten) => visitor.visit(Clobber::<10, 10>::new(&ClobberRules)),
            Some(ClobberBoard::Eight) => visitor.visit(Clobber::<8, 8>::new(&ClobberRules)),
            Some(ClobberBoard::FiveBySix) => visitor.visit(Clobber::<5, 6>::new(&ClobberRules)),
            None => panic!(
                "clobber {} × {}: `GameParams::check` refuses boards not compiled",
                self.rows, self.columns
            ),
        }
    }
}

impl<const R: usize, const C: usize> Game for Clobber<R, C> {
    const NAME: &'static str = "clobber";
    const NUM_ACTIONS: usize = 4 * R * C;
    const HAS_DRAWS: bool = false;
    /// Planes over the board, row 0 at the top: P0's stones, P1's stones, P0 to move.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 3,
        rows: R,
        cols: C,
    };
    const ENCODING_VERSION: u32 = 1;
    /// The board's symmetries that keep the checkerboard's colours (rot180, transpose and
    /// anti-transpose on 10 × 10 and 8 × 8; the up-down flip on 5 × 6).
    const SYMMETRIES: &'static [Symmetry] =
        Self::SYMMETRY_ARRAY.split_at(Self::SYMMETRY_TABLES.count).0;

    type Params = ClobberRules;

    fn new(_params: &ClobberRules) -> Clobber<R, C> {
        assert!(
            R * C <= MAX_CELLS && (1..=26).contains(&C) && R >= 1,
            "Clobber boards hold at most {MAX_CELLS} cells"
        );
        let mut stones = [0u128; 2];
        for cell in 0..Self::CELLS {
            let owner = if starts_p0(R, cell / C, cell % C) {
                0
            } else {
                1
            };
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

    fn params(&self) -> &ClobberRules {
        &ClobberRules
    }

    /// Each move removes a stone, and one is always left.
    fn max_game_length(&self) -> usize {
        Self::CELLS - 1
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
        self.hash ^= STONE_KEYS[mover * MAX_CELLS + from]
            ^ STONE_KEYS[mover * MAX_CELLS + to]
            ^ STONE_KEYS[enemy * MAX_CELLS + to]
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
            hash ^= zobrist::of_bits(self.stones[player], &STONE_KEYS[player * MAX_CELLS..]);
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
        encode_stone_planes(out, Self::CELLS, self.to_move, |p, cell| {
            self.stones[p] >> cell & 1 == 1
        });
    }

    fn apply_symmetry(&self, index: usize) -> Clobber<R, C> {
        let table = &Self::SYMMETRY_TABLES.cells[index];
        let map = |bits: u128| {
            (0..Self::CELLS)
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
        let square = |cell: usize| cell_text(cell % C, R - cell / C);
        format!("{}{}", square(from), square(to))
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let unparsable = || MoveError::Unparsable {
            text: text.to_string(),
            expected: Self::notation_help().to_string(),
        };
        let square = |col: usize, number: usize| {
            (col < C && (1..=R).contains(&number)).then(|| (R - number, col))
        };
        let (col, number, rest) = split_cell(text.trim()).ok_or_else(unparsable)?;
        let (to_col, to_number, rest) = split_cell(rest).ok_or_else(unparsable)?;
        let ((row, col), (to_row, to_col)) = square(col, number)
            .zip(square(to_col, to_number))
            .filter(|_| rest.is_empty())
            .ok_or_else(unparsable)?;
        let step = (to_row as i32 - row as i32, to_col as i32 - col as i32);
        let dir = STEPS
            .iter()
            .position(|&s| s == step)
            .ok_or_else(unparsable)?;
        Ok(((row * C + col) * 4 + dir) as Action)
    }

    fn notation_help() -> &'static str {
        "from and to squares, orthogonally adjacent, e.g. b10c10 (column letters from a, row numbers from 1 at the bottom)"
    }

    /// R × C squares, row 1 at the bottom; a move is its stone's square, then the one it
    /// clobbers.
    fn board_view(&self) -> BoardView {
        let cells = stone_cells((R, C), |r, c| cell_text(c, R - r), |r, c| self.cell(r, c));
        squares_board(cells, (R, C), true, true)
    }

    fn move_cells(&self, action: Action) -> Vec<String> {
        let (from, to) = Self::from_to(action);
        [from, to]
            .map(|cell| cell_text(cell % C, R - cell / C))
            .to_vec()
    }
}

impl<const R: usize, const C: usize> fmt::Display for Clobber<R, C> {
    /// OpenSpiel's picture: rows `R` to 1 from the top, `o` for P0, `x` for P1.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in 0..R {
            write!(f, "{:>2}", R - row)?;
            for col in 0..C {
                let symbol = match self.cell(row, col) {
                    Some(Player::P0) => 'o',
                    Some(Player::P1) => 'x',
                    None => '.',
                };
                write!(f, "{symbol}")?;
            }
            writeln!(f)?;
        }
        write!(f, "  ")?;
        (0..C).try_for_each(|col| write!(f, "{}", char::from(b'a' + col as u8)))
    }
}
