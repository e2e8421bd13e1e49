//! Ataxx on 7 × 7, as the PyPI `ataxx` library (2.2.0) plays it (docs/games.md): Black (P0,
//! `x`) on a7 and g1, White (P1, `o`) on g7 and a1, Black first. A move is a **single** (a new
//! own piece on an empty square next to an own piece, diagonals included) or a **double** (an own
//! piece jumps to an empty square at king distance exactly 2, leaving its square empty); then
//! every enemy piece next to the destination becomes the mover's. A player without a move passes
//! when the opponent has one. The game ends when neither side can move (a full board included):
//! more pieces wins, equal counts draw; when a side has no piece left (the other wins); or after
//! 100 plies without a single (the 50-move rule, a draw). Score: P0's pieces minus P1's.
//!
//! Cell `row·7 + col`, row 0 = rank 1, col 0 = file a. Action ids: a single is its destination
//! (0-48: every clone onto a square is the same move), a double `49 + from·16 + k` (`k` the
//! index of the jump in [`JUMPS`]), pass 833. Text as the library writes moves: `b2`, `a1c3`,
//! `0000` (or `pass`).

use std::fmt;

use super::board_planes::encode_stone_planes;
use super::board_view::{BoardView, squares_board, stone_cells};
use super::cell_text::{cell_text, split_cell};
use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, PositionError, Symmetry,
    push_mask_actions,
};
use super::game_params::GameParams;
use super::picture::read_picture;
use super::registry::GameVisitor;
use super::square_symmetry::{dihedral_cells, dihedral_step, non_identity_cells, table_symmetries};
use super::zobrist;

const SIZE: usize = 7;
const CELLS: usize = SIZE * SIZE;
const BOARD: u64 = (1 << CELLS) - 1;
const FIRST_DOUBLE: usize = CELLS;
/// The pass action.
pub const PASS: Action = (CELLS + 16 * CELLS) as Action;
/// Plies without a single that end the game in a draw.
const FIFTY_MOVES: u16 = 100;

/// The 16 jumps of a double as (row step, column step), in id order.
pub const JUMPS: [(i32, i32); 16] = [
    (-2, -2),
    (-2, -1),
    (-2, 0),
    (-2, 1),
    (-2, 2),
    (-1, -2),
    (-1, 2),
    (0, -2),
    (0, 2),
    (1, -2),
    (1, 2),
    (2, -2),
    (2, -1),
    (2, 0),
    (2, 1),
    (2, 2),
];

const fn offset_cell(cell: usize, d_row: i32, d_col: i32) -> Option<usize> {
    let row = (cell / SIZE) as i32 + d_row;
    let col = (cell % SIZE) as i32 + d_col;
    if row >= 0 && col >= 0 && row < SIZE as i32 && col < SIZE as i32 {
        Some(row as usize * SIZE + col as usize)
    } else {
        None
    }
}

/// `(NEIGHBOURS, RING2)`: for each cell, the cells at king distance 1 and exactly 2.
const AROUND: ([u64; CELLS], [u64; CELLS]) = {
    let mut near = [0u64; CELLS];
    let mut far = [0u64; CELLS];
    let mut cell = 0;
    while cell < CELLS {
        let mut dr = -2;
        while dr <= 2 {
            let mut dc = -2;
            while dc <= 2 {
                if let Some(other) = offset_cell(cell, dr, dc) {
                    let distance = if dr.abs() > dc.abs() {
                        dr.abs()
                    } else {
                        dc.abs()
                    };
                    if distance == 1 {
                        near[cell] |= 1 << other;
                    } else if distance == 2 {
                        far[cell] |= 1 << other;
                    }
                }
                dc += 1;
            }
            dr += 1;
        }
        cell += 1;
    }
    (near, far)
};
const NEIGHBOURS: [u64; CELLS] = AROUND.0;
const RING2: [u64; CELLS] = AROUND.1;

const fn jump_index(d_row: i32, d_col: i32) -> usize {
    let mut k = 0;
    while JUMPS[k].0 != d_row || JUMPS[k].1 != d_col {
        k += 1;
    }
    k
}

// Zobrist keys: [player][cell], then one key per halfmove clock value.
const PIECE_KEYS: [u64; 2 * CELLS] = zobrist::keys(0xA7A0_0000_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0xA7A0_0000_0000_0002)[0];
const CLOCK_KEYS: [u64; FIFTY_MOVES as usize + 1] = zobrist::keys(0xA7A0_0000_0000_0003);

/// Ataxx has no parameters yet (the standard start on 7 × 7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AtaxxParams;

/// An Ataxx position.
#[derive(Clone, Copy, Debug)]
pub struct Ataxx {
    /// Pieces of P0 (Black) and P1 (White), bit `row·7 + col`.
    pieces: [u64; 2],
    to_move: Player,
    outcome: Option<Outcome>,
    /// Plies since the last single.
    clock: u16,
    ply: u16,
    mobility: [u16; 2],
    hash: u64,
}

/// The cells of a bitboard in increasing order.
fn cells_of(mut bits: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let cell = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            cell
        })
    })
}

fn dilate(bits: u64) -> u64 {
    cells_of(bits).fold(0, |acc, cell| acc | NEIGHBOURS[cell])
}

impl Ataxx {
    #[inline]
    fn empty(&self) -> u64 {
        !(self.pieces[0] | self.pieces[1]) & BOARD
    }

    /// The destinations of `player`'s singles.
    #[inline]
    fn singles(&self, player: Player) -> u64 {
        dilate(self.pieces[player.index()]) & self.empty()
    }

    fn can_move(&self, player: Player) -> bool {
        let empty = self.empty();
        cells_of(self.pieces[player.index()])
            .any(|cell| (NEIGHBOURS[cell] | RING2[cell]) & empty != 0)
    }

    /// The piece (P0, P1 or none) at `row` (0 = rank 1), `col` (0 = file a).
    pub fn cell(&self, row: usize, col: usize) -> Option<Player> {
        let bit = 1u64 << (row * SIZE + col);
        [Player::P0, Player::P1]
            .into_iter()
            .find(|p| self.pieces[p.index()] & bit != 0)
    }

    /// A position from a picture: 7 rows from rank 7 (the top) of `x` (P0), `o` (P1) and `.`,
    /// `to_move` to play, the 50-move clock at `clock`; over already when the rules say so.
    pub fn from_picture(
        picture: &str,
        to_move: Player,
        clock: u16,
    ) -> Result<Ataxx, PositionError> {
        let cells = read_picture(Self::NAME, picture, SIZE, SIZE, &['x', 'o'])?;
        if clock > FIFTY_MOVES {
            return Err(PositionError {
                game: Self::NAME,
                problem: format!("clock {clock}: expected 0 to {FIFTY_MOVES} plies"),
            });
        }
        let mut position = Ataxx::new(&AtaxxParams);
        position.pieces = [0; 2];
        for (index, owner) in cells.iter().enumerate() {
            if let Some(p) = owner {
                position.pieces[*p] |= 1 << ((SIZE - 1 - index / SIZE) * SIZE + index % SIZE);
            }
        }
        (position.to_move, position.clock) = (to_move, clock);
        position.hash = position.hash_from_scratch();
        position.outcome = position.settled_outcome();
        Ok(position)
    }

    /// The library's `result()`: nobody can move → more pieces wins; a side without pieces
    /// loses; 100 plies without a single → draw.
    fn settled_outcome(&self) -> Option<Outcome> {
        let [p0, p1] = self.piece_counts();
        let nobody_moves = !self.can_move(Player::P0) && !self.can_move(Player::P1);
        if nobody_moves || p0 == 0 || p1 == 0 {
            Some(Outcome::by_counts(p0, p1))
        } else if self.clock >= FIFTY_MOVES {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    /// The legal actions of the mover into `out` (cleared first), not checking the outcome.
    fn moves(&self, out: &mut Vec<Action>) {
        out.clear();
        let mover = self.to_move;
        push_mask_actions(self.singles(mover), out);
        let empty = self.empty();
        for from in cells_of(self.pieces[mover.index()]) {
            for to in cells_of(RING2[from] & empty) {
                out.push(Self::double_id(from, to));
            }
        }
        if out.is_empty() {
            out.push(PASS);
        }
    }

    /// How many legal actions the mover has (a pass counts one).
    fn move_count(&self) -> u32 {
        let empty = self.empty();
        let doubles: u32 = cells_of(self.pieces[self.to_move.index()])
            .map(|from| (RING2[from] & empty).count_ones())
            .sum();
        (self.singles(self.to_move).count_ones() + doubles).max(1)
    }

    fn double_id(from: usize, to: usize) -> Action {
        let d_row = (to / SIZE) as i32 - (from / SIZE) as i32;
        let d_col = (to % SIZE) as i32 - (from % SIZE) as i32;
        (FIRST_DOUBLE + from * 16 + jump_index(d_row, d_col)) as Action
    }

    /// `(from, to)` of a move id: `from` is `None` for a single.
    fn from_to(action: Action) -> Option<(Option<usize>, usize)> {
        let id = action as usize;
        if id < CELLS {
            return Some((None, id));
        }
        let (from, k) = ((id - FIRST_DOUBLE) / 16, (id - FIRST_DOUBLE) % 16);
        (id < PASS as usize)
            .then(|| offset_cell(from, JUMPS[k].0, JUMPS[k].1).map(|to| (Some(from), to)))
            .flatten()
    }
}

const fn symmetry_actions(k: usize) -> [Action; PASS as usize + 1] {
    let cells: [u16; CELLS] = dihedral_cells(k, SIZE);
    let mut image = [PASS; PASS as usize + 1];
    let mut cell = 0;
    while cell < CELLS {
        image[cell] = cells[cell];
        let mut j = 0;
        while j < 16 {
            let (dr, dc) = dihedral_step(k, JUMPS[j].0, JUMPS[j].1);
            image[FIRST_DOUBLE + cell * 16 + j] =
                (FIRST_DOUBLE + cells[cell] as usize * 16 + jump_index(dr, dc)) as Action;
            j += 1;
        }
        cell += 1;
    }
    image
}

static CELL_IMAGES: [[u16; CELLS]; 7] = non_identity_cells(SIZE);
static ACTION_IMAGES: [[Action; PASS as usize + 1]; 7] = {
    let mut all = [[0; PASS as usize + 1]; 7];
    let mut k = 0;
    while k < 7 {
        all[k] = symmetry_actions(k + 1);
        k += 1;
    }
    all
};
const SYMMETRIES: [Symmetry; 7] = table_symmetries(&CELL_IMAGES, &ACTION_IMAGES);

impl GameParams for AtaxxParams {
    const NAME: &'static str = Ataxx::NAME;
    const DESCRIPTION: &'static str =
        "Ataxx, 7 × 7, the standard start, score = piece difference (PyPI ataxx's rules)";

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        visitor.visit(Ataxx::new(self))
    }
}

impl Game for Ataxx {
    const NAME: &'static str = "ataxx";
    const NUM_ACTIONS: usize = PASS as usize + 1;
    const HAS_DRAWS: bool = true;
    const PASS_ACTION: Option<Action> = Some(PASS);
    /// Planes over the board, row 0 = rank 1: P0's pieces, P1's pieces, P0 to move, plies since
    /// the last single / 100 (the 50-move rule).
    const ENCODING: EncodingShape = EncodingShape {
        planes: 4,
        rows: SIZE,
        cols: SIZE,
    };
    const ENCODING_VERSION: u32 = 1;
    /// The 7 non-identity symmetries of the square.
    const SYMMETRIES: &'static [Symmetry] = &SYMMETRIES;

    type Params = AtaxxParams;

    fn new(_params: &AtaxxParams) -> Ataxx {
        let at = |row: usize, col: usize| 1u64 << (row * SIZE + col);
        let mut position = Ataxx {
            pieces: [at(6, 0) | at(0, 6), at(6, 6) | at(0, 0)],
            to_move: Player::P0,
            outcome: None,
            clock: 0,
            ply: 0,
            mobility: [0; 2],
            hash: 0,
        };
        position.hash = position.hash_from_scratch();
        position
    }

    fn params(&self) -> &AtaxxParams {
        &AtaxxParams
    }

    /// At most 45 singles (each adds a piece), fewer than 100 plies after each.
    fn max_game_length(&self) -> usize {
        (CELLS - 4 + 1) * FIFTY_MOVES as usize
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
        if self.outcome.is_some() {
            out.clear();
        } else {
            self.moves(out);
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        let own = self.pieces[self.to_move.index()];
        let empty = self.empty();
        self.outcome.is_none()
            && match Self::from_to(action) {
                _ if action == PASS => !self.can_move(self.to_move),
                Some((None, to)) => self.singles(self.to_move) >> to & 1 == 1,
                Some((Some(from), to)) => own >> from & 1 == 1 && empty >> to & 1 == 1,
                None => false,
            }
    }

    fn play(&mut self, action: Action) {
        debug_assert!(
            self.is_legal(action),
            "illegal Ataxx action {action}\n{self}"
        );
        let (mover, enemy) = (self.to_move.index(), 1 - self.to_move.index());
        self.mobility[mover] += self.move_count() as u16;
        self.hash ^= CLOCK_KEYS[self.clock as usize] ^ P1_TO_MOVE_KEY;
        self.clock += 1;
        if let Some((from, to)) = Self::from_to(action).filter(|_| action != PASS) {
            match from {
                Some(from) => {
                    self.pieces[mover] ^= 1 << from;
                    self.hash ^= PIECE_KEYS[mover * CELLS + from];
                }
                None => self.clock = 0,
            }
            self.pieces[mover] |= 1 << to;
            self.hash ^= PIECE_KEYS[mover * CELLS + to];
            for cell in cells_of(NEIGHBOURS[to] & self.pieces[enemy]) {
                self.pieces[enemy] ^= 1 << cell;
                self.pieces[mover] |= 1 << cell;
                self.hash ^= PIECE_KEYS[enemy * CELLS + cell] ^ PIECE_KEYS[mover * CELLS + cell];
            }
        }
        self.hash ^= CLOCK_KEYS[self.clock as usize];
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
        let side = if self.to_move == Player::P1 {
            P1_TO_MOVE_KEY
        } else {
            0
        };
        side ^ CLOCK_KEYS[self.clock as usize]
            ^ zobrist::of_bits(self.pieces[0].into(), &PIECE_KEYS[..CELLS])
            ^ zobrist::of_bits(self.pieces[1].into(), &PIECE_KEYS[CELLS..])
    }

    /// Pieces of P0 minus pieces of P1.
    fn score_p0(&self) -> Option<i32> {
        let [p0, p1] = self.piece_counts();
        Some(p0 as i32 - p1 as i32)
    }

    fn piece_counts(&self) -> [u32; 2] {
        self.pieces.map(u64::count_ones)
    }

    fn mobility_sums(&self) -> [u32; 2] {
        self.mobility.map(u32::from)
    }

    fn encode(&self, out: &mut [f32]) {
        let (stones, clock) = out.split_at_mut(3 * CELLS);
        encode_stone_planes(stones, CELLS, self.to_move, |p, cell| {
            self.pieces[p] >> cell & 1 == 1
        });
        clock.fill(f32::from(self.clock) / f32::from(FIFTY_MOVES));
    }

    fn apply_symmetry(&self, index: usize) -> Ataxx {
        let table = &CELL_IMAGES[index];
        let map = |bits: u64| cells_of(bits).fold(0u64, |acc, cell| acc | 1 << table[cell]);
        let mut image = *self;
        image.pieces = self.pieces.map(map);
        image.hash = image.hash_from_scratch();
        image
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        let square = |cell: usize| cell_text(cell % SIZE, cell / SIZE + 1);
        match Self::from_to(action) {
            _ if action == PASS => "0000".to_string(),
            Some((None, to)) => square(to),
            Some((Some(from), to)) => format!("{}{}", square(from), square(to)),
            None => format!("?{action}"),
        }
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let text = text.trim();
        let unparsable = || MoveError::Unparsable {
            text: text.to_string(),
            expected: Self::notation_help().to_string(),
        };
        if text == "0000" || text.eq_ignore_ascii_case("pass") {
            return Ok(PASS);
        }
        let square = |col: usize, number: usize| {
            (col < SIZE && (1..=SIZE).contains(&number)).then(|| (number - 1) * SIZE + col)
        };
        let (col, number, rest) = split_cell(text).ok_or_else(unparsable)?;
        let first = square(col, number).ok_or_else(unparsable)?;
        if rest.is_empty() {
            return Ok(first as Action);
        }
        let (to_col, to_number, rest) = split_cell(rest).ok_or_else(unparsable)?;
        let to = square(to_col, to_number)
            .filter(|&to| rest.is_empty() && RING2[first] >> to & 1 == 1)
            .ok_or_else(unparsable)?;
        Ok(Self::double_id(first, to))
    }

    fn notation_help() -> &'static str {
        "a single as its square (b2), a double as from and to squares two apart (a1c3), or 0000 to pass"
    }

    /// 7 × 7 squares, row 1 at the bottom; a clone is the square it fills, a jump its piece's
    /// square then the one it lands on.
    fn board_view(&self) -> BoardView {
        let cells = stone_cells(
            (SIZE, SIZE),
            |r, c| cell_text(c, SIZE - r),
            |r, c| self.cell(SIZE - 1 - r, c),
        );
        squares_board(cells, (SIZE, SIZE), false, true)
    }

    fn move_cells(&self, action: Action) -> Vec<String> {
        let square = |cell: usize| cell_text(cell % SIZE, cell / SIZE + 1);
        match Self::from_to(action) {
            _ if action == PASS => Vec::new(),
            Some((None, to)) => vec![square(to)],
            Some((Some(from), to)) => vec![square(from), square(to)],
            None => Vec::new(),
        }
    }
}

impl fmt::Display for Ataxx {
    /// Ranks 7 to 1 from the top, `x` for Black (P0), `o` for White (P1), `-` empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..SIZE).rev() {
            write!(f, "{}", row + 1)?;
            for col in 0..SIZE {
                let symbol = match self.cell(row, col) {
                    Some(Player::P0) => 'x',
                    Some(Player::P1) => 'o',
                    None => '-',
                };
                write!(f, " {symbol}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "  a b c d e f g")?;
        write!(f, "{} to move", self.to_move)
    }
}
