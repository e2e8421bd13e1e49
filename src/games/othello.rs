//! Othello on 8 × 8, as OpenSpiel's `othello` (GAMES.md §3.2): Black (P0, `x`) moves first from
//! the four central discs (d4 and e5 White, e4 and d5 Black); a move places a disc that brackets
//! at least one line of enemy discs, and every bracketed line flips. A player without such a move
//! passes (action 64, then its only legal action); the game ends when neither can place; more
//! discs wins, equal counts draw. Score (the paper's score heuristic): P0's discs minus P1's.
//!
//! Action id `row·8 + col`, row 0 = rank `1` at the top; text `d3`, and `pass`.
//! Bitboards: bit `row·8 + col`; moves and flips by shifts along the 8 directions.

use std::fmt;

use super::board_planes::encode_stone_planes;
use super::cell_text::{cell_text, split_cell};
use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, PositionError, Symmetry,
    push_mask_actions,
};
use super::picture::read_picture;
use super::square_symmetry::{dihedral_cells, non_identity_cells, non_identity_symmetries};
use super::zobrist;

const SIZE: usize = 8;
const CELLS: usize = SIZE * SIZE;
/// The pass action.
pub const PASS: Action = CELLS as Action;
const NOT_COL_A: u64 = !0x0101_0101_0101_0101;
const NOT_COL_H: u64 = !0x8080_8080_8080_8080;

/// The 8 directions as (shift, mask of the cells a shifted disc may land on).
const DIRECTIONS: [(i32, u64); 8] = [
    (1, NOT_COL_A),
    (-1, NOT_COL_H),
    (8, !0),
    (-8, !0),
    (9, NOT_COL_A),
    (7, NOT_COL_H),
    (-7, NOT_COL_A),
    (-9, NOT_COL_H),
];

#[inline(always)]
fn shift(bits: u64, (delta, mask): (i32, u64)) -> u64 {
    (if delta >= 0 {
        bits << delta
    } else {
        bits >> -delta
    }) & mask
}

/// The empty cells where the owner of `own` can place a disc against `enemy`.
#[inline]
fn placements(own: u64, enemy: u64) -> u64 {
    let empty = !(own | enemy);
    let mut moves = 0;
    for direction in DIRECTIONS {
        let mut line = shift(own, direction) & enemy;
        for _ in 0..5 {
            line |= shift(line, direction) & enemy;
        }
        moves |= shift(line, direction) & empty;
    }
    moves
}

/// The enemy discs a disc placed on `cell` flips.
#[inline]
fn flips(own: u64, enemy: u64, cell: usize) -> u64 {
    let mut flipped = 0;
    for direction in DIRECTIONS {
        let mut line = 0;
        let mut probe = shift(1 << cell, direction);
        while probe & enemy != 0 {
            line |= probe;
            probe = shift(probe, direction);
        }
        if probe & own != 0 {
            flipped |= line;
        }
    }
    flipped
}

// Zobrist keys: [player][cell].
const DISC_KEYS: [u64; 2 * CELLS] = zobrist::keys(0x0711_0000_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0x0711_0000_0000_0002)[0];

/// Othello has no parameters yet (8 × 8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OthelloParams;

/// An Othello position.
#[derive(Clone, Copy, Debug)]
pub struct Othello {
    /// Discs of P0 (Black) and P1 (White).
    discs: [u64; 2],
    to_move: Player,
    outcome: Option<Outcome>,
    ply: u8,
    mobility: [u16; 2],
    hash: u64,
}

impl Othello {
    /// The mover's placements.
    #[inline]
    fn mover_placements(&self) -> u64 {
        let mover = self.to_move.index();
        placements(self.discs[mover], self.discs[1 - mover])
    }

    /// The disc (P0, P1 or none) at `row` (0 = rank 1, the top), `col`.
    pub fn cell(&self, row: usize, col: usize) -> Option<Player> {
        let bit = 1u64 << (row * SIZE + col);
        [Player::P0, Player::P1]
            .into_iter()
            .find(|p| self.discs[p.index()] & bit != 0)
    }

    /// A position from a picture: 8 rows from rank 1 (the top) of `x` (P0, Black), `o` (P1)
    /// and `.`, `to_move` to play, at ply 0; over already if neither side can place.
    pub fn from_picture(picture: &str, to_move: Player) -> Result<Othello, PositionError> {
        let cells = read_picture(Self::NAME, picture, SIZE, SIZE, &['x', 'o'])?;
        let mut discs = [0u64; 2];
        for (cell, owner) in cells.iter().enumerate() {
            if let Some(p) = owner {
                discs[*p] |= 1 << cell;
            }
        }
        let mut position = Othello {
            discs,
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

    /// Over when neither side can place: more discs wins.
    fn settled_outcome(&self) -> Option<Outcome> {
        let [p0, p1] = self.discs;
        if placements(p0, p1) != 0 || placements(p1, p0) != 0 {
            return None;
        }
        let [p0, p1] = self.piece_counts();
        Some(match p0.cmp(&p1) {
            std::cmp::Ordering::Greater => Outcome::WinP0,
            std::cmp::Ordering::Less => Outcome::WinP1,
            std::cmp::Ordering::Equal => Outcome::Draw,
        })
    }
}

const fn symmetry_actions(k: usize) -> [Action; CELLS + 1] {
    let cells: [u16; CELLS] = dihedral_cells(k, SIZE);
    let mut image = [PASS; CELLS + 1];
    let mut cell = 0;
    while cell < CELLS {
        image[cell] = cells[cell];
        cell += 1;
    }
    image
}

static CELL_IMAGES: [[u16; CELLS]; 7] = non_identity_cells(SIZE);

static ACTION_IMAGES: [[Action; CELLS + 1]; 7] = {
    let mut all = [[0; CELLS + 1]; 7];
    let mut k = 0;
    while k < 7 {
        all[k] = symmetry_actions(k + 1);
        k += 1;
    }
    all
};

const SYMMETRIES: [Symmetry; 7] = non_identity_symmetries(
    &CELL_IMAGES,
    [
        &ACTION_IMAGES[0],
        &ACTION_IMAGES[1],
        &ACTION_IMAGES[2],
        &ACTION_IMAGES[3],
        &ACTION_IMAGES[4],
        &ACTION_IMAGES[5],
        &ACTION_IMAGES[6],
    ],
);

impl Game for Othello {
    const NAME: &'static str = "othello";
    const NUM_ACTIONS: usize = CELLS + 1;
    const HAS_DRAWS: bool = true;
    /// Planes over the 8 × 8 board, row 0 = rank 1 at the top: P0's discs, P1's discs, P0 to
    /// move.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 3,
        rows: SIZE,
        cols: SIZE,
    };
    const ENCODING_VERSION: u32 = 1;
    /// The 7 non-identity symmetries of the square.
    const SYMMETRIES: &'static [Symmetry] = &SYMMETRIES;

    type Params = OthelloParams;

    fn new(_params: &OthelloParams) -> Othello {
        let at = |row: usize, col: usize| 1u64 << (row * SIZE + col);
        let mut position = Othello {
            discs: [at(3, 4) | at(4, 3), at(3, 3) | at(4, 4)],
            to_move: Player::P0,
            outcome: None,
            ply: 0,
            mobility: [0; 2],
            hash: 0,
        };
        position.hash = position.hash_from_scratch();
        position
    }

    fn params(&self) -> &OthelloParams {
        &OthelloParams
    }

    /// 60 placements, and a pass never follows a pass.
    fn max_game_length(&self) -> usize {
        128
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
        match self.mover_placements() {
            0 => out.push(PASS),
            moves => push_mask_actions(moves, out),
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        if self.outcome.is_some() || action > PASS {
            return false;
        }
        let moves = self.mover_placements();
        if action == PASS {
            moves == 0
        } else {
            moves >> action & 1 == 1
        }
    }

    fn play(&mut self, action: Action) {
        debug_assert!(
            self.is_legal(action),
            "illegal Othello action {action} in\n{self}"
        );
        let (mover, enemy) = (self.to_move.index(), 1 - self.to_move.index());
        let moves = self.mover_placements();
        self.mobility[mover] += moves.count_ones().max(1) as u16;
        self.ply += 1;
        self.to_move = self.to_move.opponent();
        self.hash ^= P1_TO_MOVE_KEY;
        if action == PASS {
            return;
        }
        let cell = action as usize;
        let flipped = flips(self.discs[mover], self.discs[enemy], cell);
        self.discs[mover] |= flipped | 1 << cell;
        self.discs[enemy] ^= flipped;
        self.hash ^= DISC_KEYS[mover * CELLS + cell];
        let mut bits = flipped;
        while bits != 0 {
            let flipped_cell = bits.trailing_zeros() as usize;
            self.hash ^=
                DISC_KEYS[mover * CELLS + flipped_cell] ^ DISC_KEYS[enemy * CELLS + flipped_cell];
            bits &= bits - 1;
        }
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
            hash ^= zobrist::of_bits(self.discs[player].into(), &DISC_KEYS[player * CELLS..]);
        }
        hash
    }

    /// Discs of P0 minus discs of P1, at any point of the game.
    fn score_p0(&self) -> Option<i32> {
        let [p0, p1] = self.piece_counts();
        Some(p0 as i32 - p1 as i32)
    }

    fn piece_counts(&self) -> [u32; 2] {
        self.discs.map(u64::count_ones)
    }

    fn mobility_sums(&self) -> [u32; 2] {
        self.mobility.map(u32::from)
    }

    fn encode(&self, out: &mut [f32]) {
        encode_stone_planes(out, CELLS, self.to_move, |p, cell| {
            self.discs[p] >> cell & 1 == 1
        });
    }

    fn apply_symmetry(&self, index: usize) -> Othello {
        let table = &CELL_IMAGES[index];
        let map = |bits: u64| {
            (0..CELLS)
                .filter(|&cell| bits >> cell & 1 == 1)
                .fold(0u64, |acc, cell| acc | 1 << table[cell])
        };
        let mut image = *self;
        image.discs = self.discs.map(map);
        image.hash = image.hash_from_scratch();
        image
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        if action == PASS {
            return "pass".to_string();
        }
        let cell = action as usize;
        cell_text(cell % SIZE, cell / SIZE + 1)
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("pass") {
            return Ok(PASS);
        }
        match split_cell(text) {
            Some((col, row, "")) if col < SIZE && (1..=SIZE).contains(&row) => {
                Ok(((row - 1) * SIZE + col) as Action)
            }
            _ => Err(MoveError::Unparsable {
                text: text.to_string(),
                expected: Self::notation_help().to_string(),
            }),
        }
    }

    fn notation_help() -> &'static str {
        "a square a1-h8 (column letter, row number from the top, as OpenSpiel prints), or pass"
    }
}

impl fmt::Display for Othello {
    /// OpenSpiel's picture: rows 1-8 from the top, `x` for Black (P0), `o` for White (P1).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "  a b c d e f g h")?;
        for row in 0..SIZE {
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
        write!(f, "{} to move", self.to_move)
    }
}
