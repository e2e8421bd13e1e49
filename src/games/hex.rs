//! Hex on an `N × N` rhombus, as OpenSpiel's `hex(board_size=N, swap=…)` (docs/games.md):
//! players place stones in turn; P0 (Black, `x`) connects the top and bottom rows, P1 (White,
//! `o`) the left and right columns; the first to connect wins (no draws).
//!
//! The swap rule (on by default, as at the Olympiad and in the paper; OpenSpiel's default is off):
//! on P1's first turn, action `N²` (text `swap`) removes P0's stone at (r, c) and puts a P1 stone
//! at the transposed cell (c, r); P0 moves next. This is OpenSpiel's form, the board-transposed
//! image of "swap colours", and keeps each player's index so values stay P0's.
//!
//! Cell id `row·N + col`; neighbours of (r, c): (r−1, c), (r−1, c+1), (r, c+1), (r+1, c),
//! (r+1, c−1), (r, c−1). Text: column letter and row number from the top (`c1` = row 0, col 2).
//! Sizes are a const parameter so every board has its own compiled tables; the registry offers
//! 11 and 13 (the paper's), tests use smaller ones.

use std::fmt;

use super::bitset::{CellSet, MAX_CELLS};
use super::board_view::{BoardView, Layout, letters, numbers, stone_cells};
use super::cell_text::{cell_text, split_cell};
use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, PositionError, Symmetry,
};
use super::game_params::{GameParams, Param, parse_bool, parse_word, word_of};
use super::picture::read_picture;
use super::placement::turn_from_stone_counts;
use super::registry::GameVisitor;
use super::zobrist;

/// The largest board side (its padded encoding must fit the symmetry tables).
pub const MAX_SIZE: usize = 19;
const MAX_PADDED: usize = (MAX_SIZE + 2) * (MAX_SIZE + 2);

// Zobrist keys: [player][cell].
const STONE_KEYS: [u64; 2 * MAX_CELLS] = zobrist::keys(0x4E78_0000_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0x4E78_0000_0000_0002)[0];
const SWAP_AVAILABLE_KEY: u64 = zobrist::keys::<1>(0x4E78_0000_0000_0003)[0];

/// Rule options of Hex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HexRules {
    /// Whether P1 may swap on its first turn.
    pub swap: bool,
}

impl Default for HexRules {
    fn default() -> Self {
        HexRules { swap: true }
    }
}

/// A Hex position on an `N × N` board.
#[derive(Clone, Copy, Debug)]
pub struct Hex<const N: usize> {
    stones: [CellSet; 2],
    params: HexRules,
    to_move: Player,
    outcome: Option<Outcome>,
    ply: u16,
    mobility: [u16; 2],
    hash: u64,
}

/// The 180° rotation of the padded encoding grid and of the action ids of an `n × n` board.
const fn rotation_tables(n: usize) -> ([u16; MAX_PADDED], [Action; MAX_CELLS + 1]) {
    let padded = n + 2;
    let mut cells = [0u16; MAX_PADDED];
    let mut cell = 0;
    while cell < padded * padded {
        cells[cell] = (padded * padded - 1 - cell) as u16;
        cell += 1;
    }
    let mut actions = [0 as Action; MAX_CELLS + 1];
    let mut action = 0;
    while action < n * n {
        actions[action] = (n * n - 1 - action) as Action;
        action += 1;
    }
    actions[n * n] = (n * n) as Action;
    (cells, actions)
}

impl<const N: usize> Hex<N> {
    const CELLS: usize = N * N;
    /// The swap action.
    pub const SWAP: Action = (N * N) as Action;
    const BOARD: CellSet = CellSet::first(N * N);
    const PADDED: usize = N + 2;
    const ROTATION: ([u16; MAX_PADDED], [Action; MAX_CELLS + 1]) = rotation_tables(N);
    const ROTATION_SYMMETRY: [Symmetry; 1] = [Symmetry {
        name: "rot180",
        cell_image: Self::ROTATION.0.split_at(Self::PADDED * Self::PADDED).0,
        action_image: Self::ROTATION.1.split_at(N * N + 1).0,
    }];

    /// The stone (P0, P1 or none) at `row` (0 = the top), `col`.
    pub fn cell(&self, row: usize, col: usize) -> Option<Player> {
        let cell = row * N + col;
        [Player::P0, Player::P1]
            .into_iter()
            .find(|p| self.stones[p.index()].contains(cell))
    }

    #[inline]
    fn empty_cells(&self) -> CellSet {
        Self::BOARD.minus(&self.stones[0].union(&self.stones[1]))
    }

    #[inline]
    fn swap_available(&self) -> bool {
        self.params.swap && self.ply == 1
    }

    /// The cells next to `cell`.
    #[inline]
    fn neighbours(cell: usize) -> impl Iterator<Item = usize> {
        let (row, col) = ((cell / N) as i32, (cell % N) as i32);
        [(-1, 0), (-1, 1), (0, 1), (1, 0), (1, -1), (0, -1)]
            .into_iter()
            .map(move |(dr, dc)| (row + dr, col + dc))
            .filter(|&(r, c)| r >= 0 && c >= 0 && r < N as i32 && c < N as i32)
            .map(|(r, c)| r as usize * N + c as usize)
    }

    /// Whether the group of `player`'s stone on `cell` joins `player`'s two sides.
    fn connects(&self, player: Player, cell: usize) -> bool {
        let own = &self.stones[player.index()];
        let side = |c: usize| match player {
            Player::P0 => c / N,
            Player::P1 => c % N,
        };
        let (mut near, mut far) = (false, false);
        let mut seen = CellSet::EMPTY;
        let mut stack = [0u16; MAX_CELLS];
        let mut len = 1;
        stack[0] = cell as u16;
        seen.insert(cell);
        while len > 0 {
            len -= 1;
            let current = stack[len] as usize;
            near |= side(current) == 0;
            far |= side(current) == N - 1;
            for next in Self::neighbours(current) {
                if own.contains(next) && !seen.contains(next) {
                    seen.insert(next);
                    stack[len] = next as u16;
                    len += 1;
                }
            }
        }
        near && far
    }

    /// A position from a picture: `N` rows from the top of `x` (P0), `o` (P1) and `.` (spaces
    /// and the stagger ignored); the side to move and the ply follow from the stone counts:
    /// P0 moves when both have as many stones or when P1 has one more (P1 swapped), P1 when P0
    /// has one more — so the swap is available exactly when P0 has one stone and P1 none. Over
    /// already if a side connects.
    pub fn from_picture(params: HexRules, picture: &str) -> Result<Hex<N>, PositionError> {
        let cells = read_picture(Self::NAME, picture, N, N, &['x', 'o'])?;
        let mut position = Hex::new(&params);
        for (cell, owner) in cells.iter().enumerate() {
            if let Some(p) = owner {
                position.place(Player::from_index(*p), cell);
            }
        }
        (position.to_move, position.ply) =
            turn_from_stone_counts(Self::NAME, position.piece_counts(), params.swap)?;
        position.hash = position.hash_from_scratch();
        position.outcome = [Player::P0, Player::P1].into_iter().find_map(|player| {
            position.stones[player.index()]
                .cells()
                .any(|cell| position.connects(player, cell))
                .then(|| Outcome::win_for(player))
        });
        Ok(position)
    }

    fn place(&mut self, player: Player, cell: usize) {
        self.stones[player.index()].insert(cell);
        self.hash ^= STONE_KEYS[player.index() * MAX_CELLS + cell];
    }

    fn lift(&mut self, player: Player, cell: usize) {
        self.stones[player.index()].remove(cell);
        self.hash ^= STONE_KEYS[player.index() * MAX_CELLS + cell];
    }

    /// Replaces P0's only stone by P1's on the transposed cell.
    fn swap(&mut self) {
        let cell = self.stones[0].first_cell().expect("P0's first stone");
        self.lift(Player::P0, cell);
        self.place(Player::P1, (cell % N) * N + cell / N);
    }
}

/// The Hex boards the registry compiles (each size is its own type, `Hex<N>`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HexSize {
    #[default]
    Eleven,
    Thirteen,
    Nineteen,
}

/// `board_size` as a spec writes it.
const BOARD_SIZES: &[(&str, HexSize)] = &[
    ("11", HexSize::Eleven),
    ("13", HexSize::Thirteen),
    ("19", HexSize::Nineteen),
];

/// Hex as the registry names it: the board's size and the rules.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HexParams {
    pub size: HexSize,
    pub rules: HexRules,
}

impl GameParams for HexParams {
    const NAME: &'static str = Hex::<11>::NAME;
    const DESCRIPTION: &'static str = "Hex, connect your two sides (OpenSpiel's hex)";
    const PARAMS: &'static [Param<Self>] = &[
        Param {
            key: "board_size",
            meaning: "the board's side: 11, 13 or 19",
            set: |p, value| {
                p.size = parse_word(value, BOARD_SIZES)?;
                Ok(())
            },
            get: |p| word_of(&p.size, BOARD_SIZES).to_string(),
        },
        Param {
            key: "swap",
            meaning: "P1 may swap on its first turn (OpenSpiel's default is false)",
            set: |p, value| {
                p.rules.swap = parse_bool(value)?;
                Ok(())
            },
            get: |p| p.rules.swap.to_string(),
        },
    ];

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        match self.size {
            HexSize::Eleven => visitor.visit(Hex::<11>::new(&self.rules)),
            HexSize::Thirteen => visitor.visit(Hex::<13>::new(&self.rules)),
            HexSize::Nineteen => visitor.visit(Hex::<19>::new(&self.rules)),
        }
    }
}

impl<const N: usize> Game for Hex<N> {
    const NAME: &'static str = "hex";
    const NUM_ACTIONS: usize = N * N + 1;
    const HAS_DRAWS: bool = false;
    /// Planes over the board padded with a border of one cell, row 0 at the top: P0's stones
    /// (and the top and bottom border rows, P0's sides), P1's stones (and the left and right
    /// border columns), P0 to move, swap available.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 4,
        rows: N + 2,
        cols: N + 2,
    };
    const ENCODING_VERSION: u32 = 1;
    /// The 180° rotation (the swap maps to itself).
    const SYMMETRIES: &'static [Symmetry] = &Self::ROTATION_SYMMETRY;

    type Params = HexRules;

    fn new(params: &HexRules) -> Hex<N> {
        assert!(
            (1..=MAX_SIZE).contains(&N),
            "Hex boards are 1 to {MAX_SIZE} cells wide"
        );
        let mut position = Hex {
            stones: [CellSet::EMPTY; 2],
            params: *params,
            to_move: Player::P0,
            outcome: None,
            ply: 0,
            mobility: [0; 2],
            hash: 0,
        };
        position.hash = position.hash_from_scratch();
        position
    }

    fn params(&self) -> &HexRules {
        &self.params
    }

    /// Every cell, and the swap.
    fn max_game_length(&self) -> usize {
        Self::CELLS + self.params.swap as usize
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
        out.extend(self.empty_cells().cells().map(|cell| cell as Action));
        if self.swap_available() {
            out.push(Self::SWAP);
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        let id = action as usize;
        self.outcome.is_none()
            && if action == Self::SWAP {
                self.swap_available()
            } else {
                id < Self::CELLS && self.empty_cells().contains(id)
            }
    }

    fn play(&mut self, action: Action) {
        debug_assert!(
            self.is_legal(action),
            "illegal Hex action {action} in\n{self}"
        );
        let mover = self.to_move;
        let legal = self.empty_cells().len() + self.swap_available() as u32;
        self.mobility[mover.index()] += legal as u16;
        if self.swap_available() {
            self.hash ^= SWAP_AVAILABLE_KEY;
        }
        if action == Self::SWAP {
            self.swap();
        } else {
            self.place(mover, action as usize);
            if self.connects(mover, action as usize) {
                self.outcome = Some(Outcome::win_for(mover));
            }
        }
        self.ply += 1;
        self.to_move = mover.opponent();
        self.hash ^= P1_TO_MOVE_KEY;
        if self.swap_available() {
            self.hash ^= SWAP_AVAILABLE_KEY;
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
        let mut hash = 0;
        if self.to_move == Player::P1 {
            hash ^= P1_TO_MOVE_KEY;
        }
        if self.swap_available() {
            hash ^= SWAP_AVAILABLE_KEY;
        }
        hash ^ zobrist::of_cell_sets(&self.stones, &STONE_KEYS, MAX_CELLS)
    }

    fn piece_counts(&self) -> [u32; 2] {
        self.stones.map(|s| s.len())
    }

    fn mobility_sums(&self) -> [u32; 2] {
        self.mobility.map(u32::from)
    }

    fn encode(&self, out: &mut [f32]) {
        let shape = Self::ENCODING;
        assert_eq!(
            out.len(),
            shape.len(),
            "Hex encodes into {} floats",
            shape.len()
        );
        let padded = Self::PADDED;
        let (stones, flags) = out.split_at_mut(2 * shape.cells());
        let (p0, p1) = stones.split_at_mut(shape.cells());
        for row in 0..padded {
            for col in 0..padded {
                let at = row * padded + col;
                let border_row = row == 0 || row == padded - 1;
                let border_col = col == 0 || col == padded - 1;
                let cell = (!border_row && !border_col).then(|| (row - 1) * N + col - 1);
                let has = |p: usize| cell.is_some_and(|c| self.stones[p].contains(c));
                p0[at] = (has(0) || (border_row && !border_col)) as u8 as f32;
                p1[at] = (has(1) || (border_col && !border_row)) as u8 as f32;
            }
        }
        let (side, swap) = flags.split_at_mut(shape.cells());
        side.fill((self.to_move == Player::P0) as u8 as f32);
        swap.fill(self.swap_available() as u8 as f32);
    }

    fn apply_symmetry(&self, index: usize) -> Hex<N> {
        assert_eq!(index, 0, "Hex has one symmetry (the 180° rotation)");
        let rotate = |set: &CellSet| {
            let mut image = CellSet::EMPTY;
            set.cells()
                .for_each(|cell| image.insert(Self::CELLS - 1 - cell));
            image
        };
        let mut image = *self;
        image.stones = [rotate(&self.stones[0]), rotate(&self.stones[1])];
        image.hash = image.hash_from_scratch();
        image
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        if action == Self::SWAP {
            return "swap".to_string();
        }
        let cell = action as usize;
        cell_text(cell % N, cell / N + 1)
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("swap") {
            return Ok(Self::SWAP);
        }
        match split_cell(text) {
            Some((col, row, "")) if col < N && (1..=N).contains(&row) => {
                Ok(((row - 1) * N + col) as Action)
            }
            _ => Err(MoveError::Unparsable {
                text: text.to_string(),
                expected: Self::notation_help().to_string(),
            }),
        }
    }

    fn notation_help() -> &'static str {
        "a cell: column letter then row number from the top (a1 is the top left corner), or swap"
    }

    /// The rhombus, row 1 at the top; P0 joins the top and bottom edges.
    fn board_view(&self) -> BoardView {
        let cells = stone_cells((N, N), |r, c| cell_text(c, r + 1), |r, c| self.cell(r, c));
        let layout = Layout::HexRhombus {
            size: N,
            top_bottom: Player::P0,
        };
        BoardView::new(layout, cells, (letters(N), numbers(N, false)))
    }

    fn move_cells(&self, action: Action) -> Vec<String> {
        match action == Self::SWAP {
            true => Vec::new(),
            false => vec![self.move_to_text(action)],
        }
    }
}

impl<const N: usize> fmt::Display for Hex<N> {
    /// OpenSpiel's picture: each row shifted one more space right, `x` for P0, `o` for P1.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in 0..N {
            write!(f, "{}", " ".repeat(row))?;
            for col in 0..N {
                let symbol = match self.cell(row, col) {
                    Some(Player::P0) => 'x',
                    Some(Player::P1) => 'o',
                    None => '.',
                };
                write!(f, "{symbol} ")?;
            }
            writeln!(f)?;
        }
        write!(f, "{} to move", self.to_move)
    }
}
