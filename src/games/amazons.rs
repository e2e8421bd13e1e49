//! The Game of the Amazons on 10 × 10 (docs/games.md): White (P0, `X`) has amazons on a4, d1,
//! g1, j4, Black (P1, `O`) on a7, d10, g10, j7; White first. A turn moves one own amazon like a
//! chess queen over empty squares, then shoots an arrow from its landing square, again like a
//! queen (the square it left counts as empty); the arrow's square is blocked for good. A player
//! who cannot move loses.
//!
//! One action is one whole turn (OpenSpiel splits it into three plies by the same player; the
//! differential check maps between them): id `(q·72 + m)·72 + a` where `q` is the moving
//! amazon's rank (0-3) among the mover's amazons in cell order, `m = dir·9 + distance − 1` its
//! move and `a` the arrow's likewise from the landing square, directions N, NE, E, SE, S, SW, W,
//! NW: 20 736 ids. Because `q` depends on where the amazons stand, a symmetry's image of an id
//! depends on the position ([`Game::symmetric_action`]). Cells `row·10 + col`, row 0 = rank 10
//! at the top, as OpenSpiel's.
//!
//! Text: the usual `d1-d7/g7` (from, to, arrow) for a position's moves; position-free
//! `2:N3/SE2` (amazon rank, move, arrow) for ids alone.
//!
//! Score (the paper's score heuristic, "the territory of the winner", whose exact definition the
//! paper leaves open): the empty squares 8-connected, through empty squares, to a
//! player's amazons, P0's minus P1's; at the end the loser's is 0, so it is ± the winner's.

use std::fmt;

use super::board_view::{BoardView, Cell, Piece, PieceKind, squares_board};
use super::cell_text::{cell_text, split_cell};
use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, PositionError, Symmetry,
};
use super::game_params::GameParams;
use super::picture::{read_picture, symbol_bitboards};
use super::registry::GameVisitor;
use super::square_symmetry::{non_identity_cells, non_identity_symmetries};
use super::zobrist;

const SIZE: usize = 10;
const CELLS: usize = SIZE * SIZE;
const BOARD: u128 = (1 << CELLS) - 1;
const AMAZONS: usize = 4;
/// Queen moves from one square: 8 directions × distances 1-9.
const QUEEN_MOVES: usize = 8 * (SIZE - 1);

/// Directions in id order: N, NE, E, SE, S, SW, W, NW as (row step, column step), N = towards
/// row 0.
const DIRECTIONS: [(i32, i32); 8] = [
    (-1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
];
const DIRECTION_NAMES: [&str; 8] = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"];

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

/// The cells of `bits` and their 8 neighbours.
#[inline]
fn dilate(bits: u128) -> u128 {
    // Masked before the vertical shifts: a bit pushed past cell 99 must not come back down.
    let sideways = (bits | (bits << 1 & !COL_0) | (bits >> 1 & !COL_LAST)) & BOARD;
    (sideways | sideways << SIZE | sideways >> SIZE) & BOARD
}

/// The cell `distance` steps from `cell` in `direction`, if on the board.
#[inline]
fn cell_at(cell: usize, direction: usize, distance: usize) -> Option<usize> {
    let (dr, dc) = DIRECTIONS[direction];
    let row = (cell / SIZE) as i32 + dr * distance as i32;
    let col = (cell % SIZE) as i32 + dc * distance as i32;
    ((0..SIZE as i32).contains(&row) && (0..SIZE as i32).contains(&col))
        .then(|| row as usize * SIZE + col as usize)
}

/// `RAYS[cell][direction]`: the cells a queen on `cell` crosses in `direction` on an empty
/// board.
const RAYS: [[u128; 8]; CELLS] = {
    let mut rays = [[0; 8]; CELLS];
    let mut cell = 0;
    while cell < CELLS {
        let mut dir = 0;
        while dir < 8 {
            let (dr, dc) = DIRECTIONS[dir];
            let (mut row, mut col) = ((cell / SIZE) as i32 + dr, (cell % SIZE) as i32 + dc);
            while row >= 0 && col >= 0 && row < SIZE as i32 && col < SIZE as i32 {
                rays[cell][dir] |= 1 << (row as usize * SIZE + col as usize);
                row += dr;
                col += dc;
            }
            dir += 1;
        }
        cell += 1;
    }
    rays
};

/// How far a queen on `cell` can go in `direction` over cells not in `occupied`: the ray's
/// cells before its first occupied one (the nearest blocker is the lowest bit of the ray's
/// occupied cells when the direction goes up the cell order, the highest when it goes down).
#[inline]
fn reach(cell: usize, direction: usize, occupied: u128) -> usize {
    let ray = RAYS[cell][direction];
    let blockers = ray & occupied;
    if blockers == 0 {
        return ray.count_ones() as usize;
    }
    let (dr, dc) = DIRECTIONS[direction];
    let free = if dr * SIZE as i32 + dc > 0 {
        ray & ((1 << blockers.trailing_zeros()) - 1)
    } else {
        ray & (!0 << (128 - blockers.leading_zeros()))
    };
    free.count_ones() as usize
}

/// The squares a queen on `cell` reaches over cells not in `occupied`.
#[inline]
fn queen_reach_count(cell: usize, occupied: u128) -> usize {
    (0..8).map(|dir| reach(cell, dir, occupied)).sum()
}

/// A whole turn: the amazon's rank, its move and the arrow, as (direction, distance) pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Turn {
    rank: usize,
    step: (usize, usize),
    arrow: (usize, usize),
}

impl Turn {
    fn id(self) -> Action {
        let m = self.step.0 * (SIZE - 1) + self.step.1 - 1;
        let a = self.arrow.0 * (SIZE - 1) + self.arrow.1 - 1;
        ((self.rank * QUEEN_MOVES + m) * QUEEN_MOVES + a) as Action
    }

    fn of(action: Action) -> Option<Turn> {
        let id = action as usize;
        (id < AMAZONS * QUEEN_MOVES * QUEEN_MOVES).then(|| {
            let (m, a) = ((id / QUEEN_MOVES) % QUEEN_MOVES, id % QUEEN_MOVES);
            Turn {
                rank: id / (QUEEN_MOVES * QUEEN_MOVES),
                step: (m / (SIZE - 1), m % (SIZE - 1) + 1),
                arrow: (a / (SIZE - 1), a % (SIZE - 1) + 1),
            }
        })
    }
}

// Zobrist keys: amazons [player][cell], then arrows [cell].
const KEYS: [u64; 3 * CELLS] = zobrist::keys(0xA3A2_0000_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0xA3A2_0000_0000_0002)[0];
const ARROW_KEYS: usize = 2 * CELLS;

/// Amazons has no parameters (10 × 10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AmazonsParams;

/// An Amazons position.
#[derive(Clone, Copy, Debug)]
pub struct Amazons {
    amazons: [u128; 2],
    arrows: u128,
    to_move: Player,
    outcome: Option<Outcome>,
    ply: u8,
    /// Sums of up to ~2 000 turns a position: beyond `u16`.
    mobility: [u32; 2],
    hash: u64,
}

impl Amazons {
    #[inline]
    fn occupied(&self) -> u128 {
        self.amazons[0] | self.amazons[1] | self.arrows
    }

    /// `player`'s amazons in cell order.
    fn queens(&self, player: Player) -> impl Iterator<Item = usize> {
        let mut bits = self.amazons[player.index()];
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let cell = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                cell
            })
        })
    }

    /// The from, to and arrow cells of a turn by the mover, if the turn can be played here.
    fn cells_of(&self, turn: Turn) -> Option<(usize, usize, usize)> {
        let from = self.queens(self.to_move).nth(turn.rank)?;
        let occupied = self.occupied();
        if reach(from, turn.step.0, occupied) < turn.step.1 {
            return None;
        }
        let to = cell_at(from, turn.step.0, turn.step.1)?;
        let after_move = occupied ^ (1 << from) ^ (1 << to);
        if reach(to, turn.arrow.0, after_move) < turn.arrow.1 {
            return None;
        }
        Some((from, to, cell_at(to, turn.arrow.0, turn.arrow.1)?))
    }

    /// The number of whole turns the mover has.
    fn turn_count(&self) -> u32 {
        let occupied = self.occupied();
        let mut count = 0;
        for from in self.queens(self.to_move) {
            for dir in 0..8 {
                for distance in 1..=reach(from, dir, occupied) {
                    let to = cell_at(from, dir, distance).expect("reached");
                    count += queen_reach_count(to, occupied ^ (1 << from) ^ (1 << to)) as u32;
                }
            }
        }
        count
    }

    /// Whether `player` has a turn: an amazon with an empty square next to it.
    fn can_move(&self, player: Player) -> bool {
        dilate(self.amazons[player.index()]) & !self.occupied() & BOARD != 0
    }

    /// The empty squares connected to `player`'s amazons through empty squares.
    fn territory(&self, player: Player) -> u32 {
        let empty = !self.occupied() & BOARD;
        let mut region = dilate(self.amazons[player.index()]) & empty;
        loop {
            let grown = (dilate(region) & empty) | region;
            if grown == region {
                return region.count_ones();
            }
            region = grown;
        }
    }

    /// What is on `row` (0 = rank 10), `col`: `Some(Some(player))` an amazon, `Some(None)` an
    /// arrow, `None` nothing.
    pub fn cell(&self, row: usize, col: usize) -> Option<Option<Player>> {
        let bit = 1u128 << (row * SIZE + col);
        if self.arrows & bit != 0 {
            return Some(None);
        }
        [Player::P0, Player::P1]
            .into_iter()
            .find(|p| self.amazons[p.index()] & bit != 0)
            .map(Some)
    }

    /// A position from a picture: 10 rows from rank 10 (the top) of `X` (P0's amazons), `O`
    /// (P1's), `#` (arrows) and `.`, `to_move` to play, at ply 0; each side has 4 amazons; over
    /// already if the mover cannot move.
    pub fn from_picture(picture: &str, to_move: Player) -> Result<Amazons, PositionError> {
        let cells = read_picture(Self::NAME, picture, SIZE, SIZE, &['X', 'O', '#'])?;
        let boards = symbol_bitboards::<3>(&cells);
        if boards[0].count_ones() != 4 || boards[1].count_ones() != 4 {
            return Err(PositionError {
                game: Self::NAME,
                problem: format!(
                    "each side has 4 amazons, not {} (X) and {} (O)",
                    boards[0].count_ones(),
                    boards[1].count_ones()
                ),
            });
        }
        let mut position = Amazons {
            amazons: [boards[0], boards[1]],
            arrows: boards[2],
            to_move,
            outcome: None,
            ply: 0,
            mobility: [0; 2],
            hash: 0,
        };
        position.hash = position.hash_from_scratch();
        if !position.can_move(to_move) {
            position.outcome = Some(Outcome::win_for(to_move.opponent()));
        }
        Ok(position)
    }

    /// The turn moving from `from` to `to` and shooting at `arrow`, by the mover.
    fn turn_between(&self, from: usize, to: usize, arrow: usize) -> Option<Turn> {
        let rank = self.queens(self.to_move).position(|cell| cell == from)?;
        turn_of_cells(rank, from, to, arrow)
    }
}

/// The turn of the amazon of `rank` moving from `from` to `to` and shooting at `arrow`, if both
/// are queen lines (whatever stands in the way).
fn turn_of_cells(rank: usize, from: usize, to: usize, arrow: usize) -> Option<Turn> {
    let step = |a: usize, b: usize| {
        (0..8).find_map(|dir| {
            (1..SIZE).find_map(|d| (cell_at(a, dir, d) == Some(b)).then_some((dir, d)))
        })
    };
    Some(Turn {
        rank,
        step: step(from, to)?,
        arrow: step(to, arrow)?,
    })
}

static CELL_IMAGES: [[u16; CELLS]; 7] = non_identity_cells(SIZE);

const SYMMETRIES: [Symmetry; 7] = non_identity_symmetries(&CELL_IMAGES, [&[]; 7]);

impl GameParams for AmazonsParams {
    const NAME: &'static str = Amazons::NAME;
    const DESCRIPTION: &'static str = "Amazons, 10 × 10, one action = move + arrow, score = territory (OpenSpiel's amazons, whose turns are 3 plies)";

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        visitor.visit(Amazons::new(self))
    }
}

impl Game for Amazons {
    const NAME: &'static str = "amazons";
    const NUM_ACTIONS: usize = AMAZONS * QUEEN_MOVES * QUEEN_MOVES;
    const HAS_DRAWS: bool = false;
    /// Planes over the 10 × 10 board, row 0 = rank 10 at the top: P0's amazons, P1's amazons,
    /// arrows, P0 to move.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 4,
        rows: SIZE,
        cols: SIZE,
    };
    const ENCODING_VERSION: u32 = 1;
    /// The square's 7; action images come from [`Game::symmetric_action`] (they depend on the
    /// amazons' order), so the tables are empty.
    const SYMMETRIES: &'static [Symmetry] = &SYMMETRIES;
    // Action ids depend on the position (see `symmetric_action`).
    const ACTION_IMAGES_BY_TABLE: bool = false;

    type Params = AmazonsParams;

    fn new(_params: &AmazonsParams) -> Amazons {
        let at = |cells: [usize; 4]| cells.iter().fold(0u128, |acc, &c| acc | 1 << c);
        let mut position = Amazons {
            amazons: [at([60, 69, 93, 96]), at([3, 6, 30, 39])],
            arrows: 0,
            to_move: Player::P0,
            outcome: None,
            ply: 0,
            mobility: [0; 2],
            hash: 0,
        };
        position.hash = position.hash_from_scratch();
        position
    }

    fn params(&self) -> &AmazonsParams {
        &AmazonsParams
    }

    /// Every turn fills a square with an arrow: at most 92.
    fn max_game_length(&self) -> usize {
        CELLS - 2 * AMAZONS
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
        let occupied = self.occupied();
        for (rank, from) in self.queens(self.to_move).enumerate() {
            for dir in 0..8 {
                for distance in 1..=reach(from, dir, occupied) {
                    let to = cell_at(from, dir, distance).expect("reached");
                    let after_move = occupied ^ (1 << from) ^ (1 << to);
                    for arrow_dir in 0..8 {
                        for arrow_distance in 1..=reach(to, arrow_dir, after_move) {
                            out.push(
                                Turn {
                                    rank,
                                    step: (dir, distance),
                                    arrow: (arrow_dir, arrow_distance),
                                }
                                .id(),
                            );
                        }
                    }
                }
            }
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        self.outcome.is_none() && Turn::of(action).is_some_and(|t| self.cells_of(t).is_some())
    }

    fn play(&mut self, action: Action) {
        let turn = Turn::of(action).expect("an Amazons action id");
        let (from, to, arrow) = self.cells_of(turn).expect("a legal Amazons turn");
        let mover = self.to_move.index();
        self.mobility[mover] += self.turn_count();
        self.amazons[mover] ^= 1 << from | 1 << to;
        self.arrows |= 1 << arrow;
        self.hash ^= KEYS[mover * CELLS + from]
            ^ KEYS[mover * CELLS + to]
            ^ KEYS[ARROW_KEYS + arrow]
            ^ P1_TO_MOVE_KEY;
        self.ply += 1;
        self.to_move = self.to_move.opponent();
        if !self.can_move(self.to_move) {
            self.outcome = Some(Outcome::win_for(Player::from_index(mover)));
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
        let boards = [self.amazons[0], self.amazons[1], self.arrows];
        for (k, &board) in boards.iter().enumerate() {
            hash ^= zobrist::of_bits(board, &KEYS[k * CELLS..]);
        }
        hash
    }

    /// Territories: P0's minus P1's (± the winner's at the end).
    fn score_p0(&self) -> Option<i32> {
        Some(self.territory(Player::P0) as i32 - self.territory(Player::P1) as i32)
    }

    fn piece_counts(&self) -> [u32; 2] {
        self.amazons.map(u128::count_ones)
    }

    fn mobility_sums(&self) -> [u32; 2] {
        self.mobility
    }

    fn encode(&self, out: &mut [f32]) {
        let shape = Self::ENCODING;
        assert_eq!(
            out.len(),
            shape.len(),
            "Amazons encodes into {} floats",
            shape.len()
        );
        let (pieces, planes) = out.split_at_mut(2 * CELLS);
        let (arrows, side) = planes.split_at_mut(CELLS);
        for cell in 0..CELLS {
            pieces[cell] = (self.amazons[0] >> cell & 1) as f32;
            pieces[CELLS + cell] = (self.amazons[1] >> cell & 1) as f32;
            arrows[cell] = (self.arrows >> cell & 1) as f32;
        }
        side.fill((self.to_move == Player::P0) as u8 as f32);
    }

    fn apply_symmetry(&self, index: usize) -> Amazons {
        let table = &CELL_IMAGES[index];
        let map = |bits: u128| {
            (0..CELLS)
                .filter(|&cell| bits >> cell & 1 == 1)
                .fold(0u128, |acc, cell| acc | 1 << table[cell])
        };
        let mut image = *self;
        image.amazons = self.amazons.map(map);
        image.arrows = map(self.arrows);
        image.hash = image.hash_from_scratch();
        image
    }

    fn symmetric_action(&self, index: usize, action: Action) -> Action {
        let turn = Turn::of(action).expect("an Amazons action id");
        let (from, to, arrow) = self.cells_of(turn).expect("a legal Amazons turn");
        let map = |cell: usize| CELL_IMAGES[index][cell] as usize;
        // The mover's amazons on the image, in cell order, give the moving one's new rank.
        let mut images = [0usize; AMAZONS];
        for (image, cell) in images.iter_mut().zip(self.queens(self.to_move)) {
            *image = map(cell);
        }
        images.sort_unstable();
        let rank = images
            .iter()
            .position(|&c| c == map(from))
            .expect("a queen");
        turn_of_cells(rank, map(from), map(to), map(arrow))
            .expect("the image of a turn is a turn")
            .id()
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        let turn = Turn::of(action).expect("an Amazons action id");
        format!(
            "{}:{}{}/{}{}",
            turn.rank,
            DIRECTION_NAMES[turn.step.0],
            turn.step.1,
            DIRECTION_NAMES[turn.arrow.0],
            turn.arrow.1
        )
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let unparsable = || MoveError::Unparsable {
            text: text.to_string(),
            expected: Self::notation_help().to_string(),
        };
        let step = |part: &str| {
            let split = part.find(|c: char| c.is_ascii_digit())?;
            let dir = DIRECTION_NAMES.iter().position(|&n| n == &part[..split])?;
            let distance: usize = part[split..].parse().ok()?;
            (1..SIZE).contains(&distance).then_some((dir, distance))
        };
        let (rank, rest) = text.trim().split_once(':').ok_or_else(unparsable)?;
        let (step_text, arrow_text) = rest.split_once('/').ok_or_else(unparsable)?;
        let rank: usize = rank
            .parse()
            .ok()
            .filter(|&r| r < AMAZONS)
            .ok_or_else(unparsable)?;
        let (step, arrow) = step(step_text)
            .zip(step(arrow_text))
            .ok_or_else(unparsable)?;
        Ok(Turn { rank, step, arrow }.id())
    }

    fn move_to_text(&self, action: Action) -> String {
        let square = |cell: usize| cell_text(cell % SIZE, SIZE - cell / SIZE);
        match Turn::of(action).and_then(|t| self.cells_of(t)) {
            Some((from, to, arrow)) => format!("{}-{}/{}", square(from), square(to), square(arrow)),
            None => Self::action_to_text(self.to_move, action),
        }
    }

    fn move_from_text(&self, text: &str) -> Result<Action, MoveError> {
        let squares = || {
            let square = |col: usize, rank: usize| {
                (col < SIZE && (1..=SIZE).contains(&rank)).then(|| (SIZE - rank) * SIZE + col)
            };
            let (col, rank, rest) = split_cell(text.trim())?;
            let (to_col, to_rank, rest) = split_cell(rest.strip_prefix('-')?)?;
            let (a_col, a_rank, rest) = split_cell(rest.strip_prefix('/')?)?;
            let cells = (
                square(col, rank)?,
                square(to_col, to_rank)?,
                square(a_col, a_rank)?,
            );
            rest.is_empty().then_some(cells)
        };
        match squares() {
            Some((from, to, arrow)) => self
                .turn_between(from, to, arrow)
                .map(Turn::id)
                .ok_or_else(|| MoveError::Unparsable {
                    text: text.to_string(),
                    expected: "a move from an amazon of the player to move along a line, and an arrow along a line from its landing square".to_string(),
                }),
            None => Self::action_from_text(self.to_move, text),
        }
    }

    fn notation_help() -> &'static str {
        "from-to/arrow squares, e.g. d1-d7/g7 (columns a-j, ranks 1-10 from White's side), or amazon:move/arrow as rank in cell order and direction+distance, e.g. 2:N3/SE2"
    }

    /// 10 × 10 squares, rank 10 at the top; a move is the amazon's square, where it goes, and
    /// where it shoots.
    fn board_view(&self) -> BoardView {
        let cells = (0..CELLS)
            .map(|cell| {
                let (row, col) = (cell / SIZE, cell % SIZE);
                Cell {
                    id: cell_text(col, SIZE - row),
                    row,
                    col,
                    piece: self.cell(row, col).map(|owner| Piece {
                        owner,
                        kind: match owner {
                            Some(_) => PieceKind::Stone,
                            None => PieceKind::Block,
                        },
                    }),
                    count: None,
                }
            })
            .collect();
        squares_board(cells, (SIZE, SIZE), true, true)
    }

    fn move_cells(&self, action: Action) -> Vec<String> {
        let square = |cell: usize| cell_text(cell % SIZE, SIZE - cell / SIZE);
        Turn::of(action)
            .and_then(|t| self.cells_of(t))
            .map_or(Vec::new(), |(from, to, arrow)| {
                vec![square(from), square(to), square(arrow)]
            })
    }
}

impl fmt::Display for Amazons {
    /// OpenSpiel's picture: ranks 10 to 1 from the top, `X` for P0, `O` for P1, `#` arrows.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in 0..SIZE {
            for col in 0..SIZE {
                let symbol = match self.cell(row, col) {
                    Some(Some(Player::P0)) => 'X',
                    Some(Some(Player::P1)) => 'O',
                    Some(None) => '#',
                    None => '.',
                };
                write!(f, "{symbol}")?;
            }
            writeln!(f)?;
        }
        write!(f, "{} to move", self.to_move)
    }
}
