//! Havannah on a hexagon of base `B` (8 and 10 in the registry), as OpenSpiel's
//! `havannah(board_size=B, swap=…)` (docs/games.md): players place stones in turn; a player wins
//! with a chain that forms a **ring** (a closed loop around at least one cell, whatever that cell
//! holds), a **bridge** (joins two of the six corners) or a **fork** (joins three of the six
//! edges; corners belong to no edge). A full board without a winner is a draw.
//!
//! The swap rule (on by default, as Hex here; OpenSpiel's default is off): on P1's first turn,
//! P1 may play on the cell of P0's stone, which becomes P1's; P0 moves next. The action id is
//! that cell's (OpenSpiel's form), so there is no extra swap id.
//!
//! Cells use OpenSpiel's axial grid of side `D = 2B − 1`: id `x + y·D`, on the board when
//! |x − y| < B. Neighbours of (x, y): (x−1, y−1), (x, y−1), (x+1, y), (x+1, y+1), (x, y+1),
//! (x−1, y), in that (clockwise) order. Text: column letter of `x`, then `y + 1` (`a1` is a
//! corner).
//!
//! A ring is found exactly: a new stone closes one when a region of cells not the mover's, next
//! to it, no longer reaches the board's rim, or when a neighbour of the mover's becomes
//! surrounded by the mover's stones; three mutually adjacent stones enclose nothing.

use std::fmt;

use super::bitset::{CellSet, MAX_CELLS};
use super::board_view::{BoardView, Cell, Layout, stone};
use super::cell_text::{cell_text, split_cell};
use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, PositionError, Symmetry,
};
use super::game_params::{GameParams, Param, parse_bool, parse_word, word_of};
use super::picture::read_picture_rows;
use super::placement::turn_from_stone_counts;
use super::registry::GameVisitor;
use super::zobrist;

/// The largest base (its grid must fit a `CellSet` and the symmetry tables).
pub const MAX_BASE: usize = 10;
const MAX_GRID: usize = (2 * MAX_BASE - 1) * (2 * MAX_BASE - 1);

// Zobrist keys: [player][cell].
const STONE_KEYS: [u64; 2 * MAX_CELLS] = zobrist::keys(0x4A76_0000_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0x4A76_0000_0000_0002)[0];
const SWAP_AVAILABLE_KEY: u64 = zobrist::keys::<1>(0x4A76_0000_0000_0003)[0];

/// The six directions in (x, y), clockwise, as OpenSpiel orders them.
const DIRECTIONS: [(i32, i32); 6] = [(-1, -1), (0, -1), (1, 0), (1, 1), (0, 1), (-1, 0)];
const OFF_BOARD: u16 = u16::MAX;

/// Rule options of Havannah.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HavannahRules {
    /// Whether P1 may take over P0's first stone.
    pub swap: bool,
}

impl Default for HavannahRules {
    fn default() -> Self {
        HavannahRules { swap: true }
    }
}

/// A Havannah position on the hexagon of base `B`.
#[derive(Clone, Copy, Debug)]
pub struct Havannah<const B: usize> {
    stones: [CellSet; 2],
    params: HavannahRules,
    to_move: Player,
    outcome: Option<Outcome>,
    ply: u16,
    mobility: [u16; 2],
    hash: u64,
}

/// The geometry of base `base`: board cells, the six edges, the corners, neighbour ids.
struct Geometry {
    board: CellSet,
    edges: [CellSet; 6],
    corners: CellSet,
    /// The cells with a side on the board's outline: edges and corners.
    rim: CellSet,
    /// `neighbours[cell][direction]`, `OFF_BOARD` off the board.
    neighbours: [[u16; 6]; MAX_GRID],
}

const fn on_board(base: usize, x: i32, y: i32) -> bool {
    let side = (2 * base - 1) as i32;
    x >= 0 && y >= 0 && x < side && y < side && (x - y).abs() < base as i32
}

const fn geometry(base: usize) -> Geometry {
    let (side, m) = (2 * base - 1, base - 1);
    let e = 2 * m;
    let mut g = Geometry {
        board: CellSet::EMPTY,
        edges: [CellSet::EMPTY; 6],
        corners: CellSet::EMPTY,
        rim: CellSet::EMPTY,
        neighbours: [[OFF_BOARD; 6]; MAX_GRID],
    };
    let mut cell = 0;
    while cell < side * side {
        let (x, y) = (cell % side, cell / side);
        if on_board(base, x as i32, y as i32) {
            g.board = g.board.with(cell);
            let corner = (x == 0 || x == m || x == e) && (y == 0 || y == m || y == e) && x != y
                || x == y && (x == 0 || x == e);
            let mut around = 0;
            let mut d = 0;
            while d < 6 {
                let (nx, ny) = (x as i32 + DIRECTIONS[d].0, y as i32 + DIRECTIONS[d].1);
                if on_board(base, nx, ny) {
                    g.neighbours[cell][d] = (nx as usize + ny as usize * side) as u16;
                    around += 1;
                }
                d += 1;
            }
            if around < 6 {
                g.rim = g.rim.with(cell);
            }
            if corner {
                g.corners = g.corners.with(cell);
            } else {
                let on_edge = [y == 0, x == m + y, x == e, y == e, y == m + x, x == 0];
                let mut k = 0;
                while k < 6 {
                    if on_edge[k] {
                        g.edges[k] = g.edges[k].with(cell);
                    }
                    k += 1;
                }
            }
        }
        cell += 1;
    }
    g
}

/// Cell `(x, y)`'s image under element `k` of the hexagon's 12 symmetries (`k < 6`: a rotation
/// by `k · 60°`; `k ≥ 6`: a reflection, then the rotation by `(k − 6) · 60°`), in cube
/// coordinates `(q, r, s) = (x − c, (y − c) − (x − c), −(y − c))` around the centre `c`.
const fn hexagon_image(base: usize, k: usize, x: usize, y: usize) -> (usize, usize) {
    let c = base as i32 - 1;
    let (a, b) = (x as i32 - c, y as i32 - c);
    let mut cube = [a, b - a, -b];
    if k >= 6 {
        cube = [cube[0], cube[2], cube[1]];
    }
    let mut turns = k % 6;
    while turns > 0 {
        cube = [-cube[1], -cube[2], -cube[0]];
        turns -= 1;
    }
    ((cube[0] + c) as usize, (c - cube[2]) as usize)
}

/// The 11 non-identity symmetries' images of every grid id (off-board ids map to themselves).
const fn symmetry_images(base: usize) -> [[u16; MAX_GRID]; 11] {
    let side = 2 * base - 1;
    let mut all = [[0u16; MAX_GRID]; 11];
    let mut k = 0;
    while k < 11 {
        let mut cell = 0;
        while cell < side * side {
            let (x, y) = (cell % side, cell / side);
            all[k][cell] = if on_board(base, x as i32, y as i32) {
                let (ix, iy) = hexagon_image(base, k + 1, x, y);
                (ix + iy * side) as u16
            } else {
                cell as u16
            };
            cell += 1;
        }
        k += 1;
    }
    all
}

const SYMMETRY_NAMES: [&str; 11] = [
    "rot60",
    "rot120",
    "rot180",
    "rot240",
    "rot300",
    "mirror",
    "mirror+rot60",
    "mirror+rot120",
    "mirror+rot180",
    "mirror+rot240",
    "mirror+rot300",
];

const fn symmetries(images: &'static [[u16; MAX_GRID]; 11], cells: usize) -> [Symmetry; 11] {
    let mut all = [const {
        Symmetry {
            name: "",
            cell_image: &[],
            action_image: &[],
        }
    }; 11];
    let mut k = 0;
    while k < 11 {
        let image = images[k].split_at(cells).0;
        all[k] = Symmetry {
            name: SYMMETRY_NAMES[k],
            cell_image: image,
            action_image: image,
        };
        k += 1;
    }
    all
}

impl<const B: usize> Havannah<B> {
    /// The side of the axial grid.
    pub const SIDE: usize = 2 * B - 1;
    const GRID: usize = Self::SIDE * Self::SIDE;
    const GEOMETRY: Geometry = geometry(B);
    const IMAGES: [[u16; MAX_GRID]; 11] = symmetry_images(B);
    const SYMMETRY_TABLE: [Symmetry; 11] = symmetries(&Self::IMAGES, Self::GRID);

    /// The stone (P0, P1 or none) at `(x, y)`; `None` off the board too.
    pub fn cell(&self, x: usize, y: usize) -> Option<Player> {
        let cell = x + y * Self::SIDE;
        [Player::P0, Player::P1]
            .into_iter()
            .find(|p| self.stones[p.index()].contains(cell))
    }

    /// Whether `(x, y)` is a cell of the board.
    pub fn is_cell(x: usize, y: usize) -> bool {
        on_board(B, x as i32, y as i32)
    }

    #[inline]
    fn empty_cells(&self) -> CellSet {
        Self::GEOMETRY
            .board
            .minus(&self.stones[0].union(&self.stones[1]))
    }

    #[inline]
    fn swap_available(&self) -> bool {
        self.params.swap && self.ply == 1
    }

    /// The empty cells, and P0's stone while the swap is available.
    #[inline]
    fn playable_cells(&self) -> CellSet {
        if self.swap_available() {
            self.empty_cells().union(&self.stones[0])
        } else {
            self.empty_cells()
        }
    }

    /// The board cells next to a cell of `set`, bit-parallel (no id wraps a row onto a board
    /// cell: the hexagon's corners of the grid are off the board).
    #[inline]
    fn next_to(set: &CellSet) -> CellSet {
        let side = Self::SIDE as i32;
        [-side - 1, -side, 1, side + 1, side, -1]
            .into_iter()
            .fold(CellSet::EMPTY, |acc, offset| {
                acc.union(&set.shifted(offset))
            })
            .intersection(&Self::GEOMETRY.board)
    }

    /// The chain of `own` stones holding `cell`.
    fn chain(own: &CellSet, cell: usize) -> CellSet {
        let (mut chain, mut frontier) = (CellSet::EMPTY.with(cell), CellSet::EMPTY.with(cell));
        while !frontier.is_empty() {
            frontier = Self::next_to(&frontier).intersection(own).minus(&chain);
            chain = chain.union(&frontier);
        }
        chain
    }

    /// Whether `chain` joins two corners or three edges.
    fn bridge_or_fork(chain: &CellSet) -> bool {
        let geometry = &Self::GEOMETRY;
        let edges = geometry
            .edges
            .iter()
            .filter(|edge| !edge.intersection(chain).is_empty())
            .count();
        edges >= 3 || chain.intersection(&geometry.corners).len() >= 2
    }

    /// Whether the region of cells not in `own` holding `seed` stays off the board's rim.
    fn enclosed(own: &CellSet, seed: usize) -> bool {
        let geometry = &Self::GEOMETRY;
        let open = geometry.board.minus(own);
        let (mut region, mut frontier) = (CellSet::EMPTY.with(seed), CellSet::EMPTY.with(seed));
        while !frontier.is_empty() {
            if !frontier.intersection(&geometry.rim).is_empty() {
                return false;
            }
            frontier = Self::next_to(&frontier).intersection(&open).minus(&region);
            region = region.union(&frontier);
        }
        true
    }

    /// Whether the stone just placed on `cell` closes a ring of `own` stones (`own` holds it).
    fn closes_ring(own: &CellSet, cell: usize) -> bool {
        let neighbours = &Self::GEOMETRY.neighbours;
        let around = neighbours[cell];
        let is_own = around.map(|n| n != OFF_BOARD && own.contains(n as usize));
        if is_own.iter().filter(|&&o| o).count() < 2 {
            return false;
        }
        // A neighbour of the mover's now surrounded by the mover's stones (a full hexagon).
        let surrounded = |n: u16| {
            neighbours[n as usize]
                .iter()
                .all(|&m| m != OFF_BOARD && own.contains(m as usize))
        };
        if (0..6).any(|d| is_own[d] && surrounded(around[d])) {
            return true;
        }
        // A gap between two runs of own neighbours cut off from the rim.
        (0..6)
            .filter(|&d| !is_own[d] && is_own[(d + 5) % 6])
            .any(|start| {
                let mut gap = (0..6).map(|i| (start + i) % 6).take_while(|&d| !is_own[d]);
                gap.all(|d| around[d] != OFF_BOARD) && Self::enclosed(own, around[start] as usize)
            })
    }

    /// Whether `player`'s stone on `cell` is in a winning chain.
    fn wins_with(&self, player: Player, cell: usize) -> bool {
        let own = &self.stones[player.index()];
        Self::bridge_or_fork(&Self::chain(own, cell)) || Self::closes_ring(own, cell)
    }

    /// Whether `own` holds a ring anywhere (for positions set up from a picture).
    fn has_ring(own: &CellSet) -> bool {
        Self::GEOMETRY
            .board
            .cells()
            .any(|cell| own.contains(cell) && Self::closes_ring(own, cell))
    }

    /// The rows of the hexagon: row `y` holds the cells `x` in `first_x(y)..first_x(y) + len`.
    fn row_span(y: usize) -> (usize, usize) {
        let first = y.saturating_sub(B - 1);
        (first, Self::SIDE - (B - 1).abs_diff(y))
    }

    /// A position from a picture: `2B − 1` rows from `y = 0`, row `y` listing its cells by
    /// increasing `x` (`B` cells in the first row, `2B − 1` in the middle one), `x` for P0, `o`
    /// for P1, `.` empty (spaces and the stagger ignored). The side to move and the ply follow
    /// from the stone counts as in [`super::hex::Hex::from_picture`]: after a swap P1 has one
    /// stone more. Over already if a side has a ring, bridge or fork, or the board is full.
    pub fn from_picture(
        params: HavannahRules,
        picture: &str,
    ) -> Result<Havannah<B>, PositionError> {
        let lengths: Vec<usize> = (0..Self::SIDE).map(|y| Self::row_span(y).1).collect();
        let contents = read_picture_rows(Self::NAME, picture, &lengths, &['x', 'o'])?;
        let cells = (0..Self::SIDE).flat_map(|y| {
            let (first, len) = Self::row_span(y);
            (first..first + len).map(move |x| x + y * Self::SIDE)
        });
        let mut position = Havannah::new(&params);
        for (cell, owner) in cells.zip(contents) {
            if let Some(p) = owner {
                position.place(Player::from_index(p), cell);
            }
        }
        (position.to_move, position.ply) =
            turn_from_stone_counts(Self::NAME, position.piece_counts(), params.swap)?;
        position.hash = position.hash_from_scratch();
        position.outcome = position.outcome_from_scratch();
        Ok(position)
    }

    fn outcome_from_scratch(&self) -> Option<Outcome> {
        let winner = [Player::P0, Player::P1].into_iter().find(|&player| {
            let own = &self.stones[player.index()];
            own.cells()
                .any(|c| Self::bridge_or_fork(&Self::chain(own, c)))
                || Self::has_ring(own)
        });
        match winner {
            Some(player) => Some(Outcome::win_for(player)),
            None if self.empty_cells().is_empty() => Some(Outcome::Draw),
            None => None,
        }
    }

    fn place(&mut self, player: Player, cell: usize) {
        self.stones[player.index()].insert(cell);
        self.hash ^= STONE_KEYS[player.index() * MAX_CELLS + cell];
    }

    fn lift(&mut self, player: Player, cell: usize) {
        self.stones[player.index()].remove(cell);
        self.hash ^= STONE_KEYS[player.index() * MAX_CELLS + cell];
    }
}

/// The Havannah boards the registry compiles (each base is its own type, `Havannah<B>`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HavannahSize {
    #[default]
    Eight,
    Ten,
}

/// `board_size` as a spec writes it.
const BOARD_SIZES: &[(&str, HavannahSize)] =
    &[("8", HavannahSize::Eight), ("10", HavannahSize::Ten)];

/// Havannah as the registry names it: the board's size and the rules.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HavannahParams {
    pub size: HavannahSize,
    pub rules: HavannahRules,
}

impl GameParams for HavannahParams {
    const NAME: &'static str = Havannah::<8>::NAME;
    const DESCRIPTION: &'static str =
        "Havannah, a ring, a bridge or a fork wins (OpenSpiel's havannah)";
    const PARAMS: &'static [Param<Self>] = &[
        Param {
            key: "board_size",
            meaning: "the hexagon's base (cells on a side): 8 or 10",
            set: |p, value| {
                p.size = parse_word(value, BOARD_SIZES)?;
                Ok(())
            },
            get: |p| word_of(&p.size, BOARD_SIZES).to_string(),
        },
        Param {
            key: "swap",
            meaning: "P1 may take over P0's first stone (OpenSpiel's default is false)",
            set: |p, value| {
                p.rules.swap = parse_bool(value)?;
                Ok(())
            },
            get: |p| p.rules.swap.to_string(),
        },
    ];

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        match self.size {
            HavannahSize::Eight => visitor.visit(Havannah::<8>::new(&self.rules)),
            HavannahSize::Ten => visitor.visit(Havannah::<10>::new(&self.rules)),
        }
    }
}

impl<const B: usize> Game for Havannah<B> {
    const NAME: &'static str = "havannah";
    const NUM_ACTIONS: usize = Self::GRID;
    const HAS_DRAWS: bool = true;
    /// Planes over the axial grid (row `y`, column `x`): P0's stones, P1's stones, the board's
    /// cells, P0 to move, swap available.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 5,
        rows: Self::SIDE,
        cols: Self::SIDE,
    };
    const ENCODING_VERSION: u32 = 1;
    /// The hexagon's 11 rotations and reflections (the cells off the board stay put).
    const SYMMETRIES: &'static [Symmetry] = &Self::SYMMETRY_TABLE;

    type Params = HavannahRules;

    fn new(params: &HavannahRules) -> Havannah<B> {
        assert!(
            (2..=MAX_BASE).contains(&B),
            "Havannah boards have a base of 2 to {MAX_BASE} cells"
        );
        let mut position = Havannah {
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

    fn params(&self) -> &HavannahRules {
        &self.params
    }

    /// Every cell, and the swap.
    fn max_game_length(&self) -> usize {
        Self::GEOMETRY.board.len() as usize + self.params.swap as usize
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
        if self.outcome.is_none() {
            out.extend(self.playable_cells().cells().map(|cell| cell as Action));
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        let cell = action as usize;
        self.outcome.is_none() && cell < Self::GRID && self.playable_cells().contains(cell)
    }

    fn play(&mut self, action: Action) {
        debug_assert!(
            self.is_legal(action),
            "illegal Havannah action {action} in\n{self}"
        );
        let (mover, cell) = (self.to_move, action as usize);
        self.mobility[mover.index()] += self.playable_cells().len() as u16;
        if self.swap_available() {
            self.hash ^= SWAP_AVAILABLE_KEY;
            if self.stones[0].contains(cell) {
                self.lift(Player::P0, cell);
            }
        }
        self.place(mover, cell);
        if self.wins_with(mover, cell) {
            self.outcome = Some(Outcome::win_for(mover));
        } else if self.empty_cells().is_empty() {
            self.outcome = Some(Outcome::Draw);
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
        let cells = Self::ENCODING.cells();
        assert_eq!(
            out.len(),
            Self::ENCODING.len(),
            "Havannah encodes into {} floats",
            Self::ENCODING.len()
        );
        let planes = [self.stones[0], self.stones[1], Self::GEOMETRY.board];
        for (plane, set) in out.chunks_exact_mut(cells).zip(&planes) {
            for (cell, value) in plane.iter_mut().enumerate() {
                *value = set.contains(cell) as u8 as f32;
            }
        }
        let (side, swap) = out[3 * cells..].split_at_mut(cells);
        side.fill((self.to_move == Player::P0) as u8 as f32);
        swap.fill(self.swap_available() as u8 as f32);
    }

    fn apply_symmetry(&self, index: usize) -> Havannah<B> {
        let table = &Self::IMAGES[index];
        let mut image = *self;
        image.stones = self.stones.map(|set| set.mapped(table));
        image.hash = image.hash_from_scratch();
        image
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        let cell = action as usize;
        cell_text(cell % Self::SIDE, cell / Self::SIDE + 1)
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let text = text.trim();
        match split_cell(text) {
            Some((x, number, "")) if number >= 1 && Self::is_cell(x, number - 1) => {
                Ok((x + (number - 1) * Self::SIDE) as Action)
            }
            _ => Err(MoveError::Unparsable {
                text: text.to_string(),
                expected: Self::notation_help().to_string(),
            }),
        }
    }

    fn notation_help() -> &'static str {
        "a cell: column letter then row number as on the board's picture (a1 is a corner); \
         P1's first move may be P0's cell (the swap)"
    }

    /// The hexagon of base B, as the picture stages it: row `y` from the top, its cells by
    /// increasing `x`.
    fn board_view(&self) -> BoardView {
        let cells = (0..Self::SIDE)
            .flat_map(|y| {
                let (first, len) = Self::row_span(y);
                (first..first + len).map(move |x| (x, y, x - first))
            })
            .map(|(x, y, col)| Cell {
                id: cell_text(x, y + 1),
                row: y,
                col,
                piece: stone(self.cell(x, y)),
                count: None,
            })
            .collect();
        BoardView::new(Layout::Hexagon { side: B }, cells, (Vec::new(), Vec::new()))
    }

    fn move_cells(&self, action: Action) -> Vec<String> {
        vec![self.move_to_text(action)]
    }
}

impl<const B: usize> fmt::Display for Havannah<B> {
    /// OpenSpiel's picture: column letters above the first `B` diagonals and after the rows of
    /// the upper half, row numbers on the left, `x` for P0, `o` for P1.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", " ".repeat(B + 3))?;
        for x in 0..B {
            write!(f, " {}", char::from(b'a' + x as u8))?;
        }
        writeln!(f)?;
        for y in 0..Self::SIDE {
            let indent = (B - 1).abs_diff(y) + 1 + usize::from(y + 1 < 10);
            write!(f, "{}{}", " ".repeat(indent), y + 1)?;
            let (first, len) = Self::row_span(y);
            for x in first..first + len {
                let symbol = match self.cell(x, y) {
                    Some(Player::P0) => 'x',
                    Some(Player::P1) => 'o',
                    None => '.',
                };
                write!(f, " {symbol}")?;
            }
            if y + 1 < B {
                write!(f, " {}", char::from(b'a' + (B + y) as u8))?;
            }
            writeln!(f)?;
        }
        write!(f, "{} to move", self.to_move)
    }
}
