//! Breakthrough on 8 × 8, as OpenSpiel's `breakthrough` (docs/games.md): each side has 16 pawns
//! on its two home rows; a pawn steps one row forward, straight onto an empty square or
//! diagonally onto an empty square or an enemy pawn (a capture). Reaching the far row wins;
//! capturing every enemy pawn wins.
//!
//! P0 is OpenSpiel's `b`, on rows 0-1 (printed ranks 8-7), moving down the rows; P1 is `w`, on
//! rows 6-7, moving up. Action id `((row·8 + col)·6 + dir)·2 + capture` with `dir` 0-2 for P0's
//! steps (+1, −1), (+1, 0), (+1, +1) and 3-5 for P1's (−1, −1), (−1, 0), (−1, +1): 768 ids.
//! Text as OpenSpiel prints it: `a7a6`, a capture `b3c4*` (ranks counted from the bottom).
//!
//! A side with pawns always has a step: its most advanced pawn has a diagonal square ahead on
//! the board that holds no own pawn (else that pawn would be further ahead), so it steps there or
//! captures there. The game thus ends only by the two rules above.
//!
//! Bitboards: bit `row·8 + col`.

use std::fmt;

use super::board_planes::encode_stone_planes;
use super::board_view::{BoardView, squares_board, stone_cells};
use super::cell_text::{cell_text, split_cell};
use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, PositionError, Symmetry,
};
use super::game_params::GameParams;
use super::picture::{read_picture, symbol_bitboards};
use super::registry::GameVisitor;
use super::zobrist;

const SIZE: usize = 8;
const CELLS: usize = SIZE * SIZE;
const NOT_COL_A: u64 = !0x0101_0101_0101_0101;
const NOT_COL_H: u64 = !0x8080_8080_8080_8080;
const ROW_0: u64 = 0xFF;
const ROW_7: u64 = 0xFF << 56;

/// A step direction: its id, how the cell index changes, and the columns a pawn may start from.
#[derive(Clone, Copy)]
struct Step {
    dir: usize,
    delta: i32,
    from_columns: u64,
}

/// The three steps of each player, in id order: diagonal to lower column, straight, diagonal to
/// higher column.
const STEPS: [[Step; 3]; 2] = [
    [
        Step {
            dir: 0,
            delta: 7,
            from_columns: NOT_COL_A,
        },
        Step {
            dir: 1,
            delta: 8,
            from_columns: !0,
        },
        Step {
            dir: 2,
            delta: 9,
            from_columns: NOT_COL_H,
        },
    ],
    [
        Step {
            dir: 3,
            delta: -9,
            from_columns: NOT_COL_A,
        },
        Step {
            dir: 4,
            delta: -8,
            from_columns: !0,
        },
        Step {
            dir: 5,
            delta: -7,
            from_columns: NOT_COL_H,
        },
    ],
];

/// The cells `delta` away from the cells of `bits` (shifting out of the board drops them).
#[inline(always)]
fn shift(bits: u64, delta: i32) -> u64 {
    if delta >= 0 {
        bits << delta
    } else {
        bits >> -delta
    }
}

const fn action_id(from: usize, dir: usize, capture: bool) -> Action {
    (((from * 6 + dir) * 2) + capture as usize) as Action
}

// Zobrist keys: [player][cell].
const PAWN_KEYS: [u64; 2 * CELLS] = zobrist::keys(0xB7B7_0000_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0xB7B7_0000_0000_0002)[0];

/// Breakthrough has no parameters (8 × 8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BreakthroughParams;

/// A Breakthrough position.
#[derive(Clone, Copy, Debug)]
pub struct Breakthrough {
    /// Pawns of P0 and P1.
    pawns: [u64; 2],
    to_move: Player,
    outcome: Option<Outcome>,
    ply: u16,
    mobility: [u16; 2],
    hash: u64,
}

impl Breakthrough {
    /// For each of the mover's three steps, the pawns that can take it.
    #[inline]
    fn movers(&self, player: Player) -> [u64; 3] {
        let own = self.pawns[player.index()];
        let empty = !(self.pawns[0] | self.pawns[1]);
        let not_own = !own;
        STEPS[player.index()].map(|step| {
            let targets = if step.dir % 3 == 1 { empty } else { not_own };
            own & step.from_columns & shift(targets, -step.delta)
        })
    }

    /// Number of legal steps of `player`.
    #[inline]
    fn step_count(&self, player: Player) -> u32 {
        self.movers(player).iter().map(|m| m.count_ones()).sum()
    }

    /// The pawn (P0, P1 or none) at `row` (0 = OpenSpiel's top row, rank 8), `col`.
    pub fn cell(&self, row: usize, col: usize) -> Option<Player> {
        let bit = 1u64 << (row * SIZE + col);
        [Player::P0, Player::P1]
            .into_iter()
            .find(|p| self.pawns[p.index()] & bit != 0)
    }

    /// A position from a picture: 8 rows from row 0 (rank 8) of `b` (P0), `w` (P1) and `.`,
    /// `to_move` to play, at ply 0. Already over if a pawn stands on its far row or a side has
    /// no pawn.
    pub fn from_picture(picture: &str, to_move: Player) -> Result<Breakthrough, PositionError> {
        let cells = read_picture(Self::NAME, picture, SIZE, SIZE, &['b', 'w'])?;
        let pawns = symbol_bitboards::<2>(&cells).map(|board| board as u64);
        let mut position = Breakthrough {
            pawns,
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

    /// The result the board shows: a pawn on its far row or a side without pawns wins for the
    /// other side... and a mover without a step loses.
    fn settled_outcome(&self) -> Option<Outcome> {
        if self.pawns[0] & ROW_7 != 0 || self.pawns[1] == 0 {
            Some(Outcome::WinP0)
        } else if self.pawns[1] & ROW_0 != 0 || self.pawns[0] == 0 {
            Some(Outcome::WinP1)
        } else if self.step_count(self.to_move) == 0 {
            Some(Outcome::win_for(self.to_move.opponent()))
        } else {
            None
        }
    }

    /// Decodes an id into (from, step, capture); `None` for ids out of range.
    fn decode(action: Action) -> Option<(usize, Step, bool)> {
        let id = action as usize;
        if id >= Self::NUM_ACTIONS {
            return None;
        }
        let (from, dir, capture) = (id / 12, (id / 2) % 6, id % 2 == 1);
        Some((from, STEPS[dir / 3][dir % 3], capture))
    }
}

const fn mirror_actions() -> [Action; 768] {
    let mut image = [0 as Action; 768];
    let mut id = 0;
    while id < 768 {
        let (from, dir, capture) = (id / 12, (id / 2) % 6, id % 2);
        let mirrored_from = from / SIZE * SIZE + (SIZE - 1 - from % SIZE);
        let mirrored_dir = dir / 3 * 3 + (2 - dir % 3);
        image[id] = ((mirrored_from * 6 + mirrored_dir) * 2 + capture) as Action;
        id += 1;
    }
    image
}
const MIRROR_CELLS: [u16; CELLS] = super::square_symmetry::dihedral_cells(4, SIZE);
const MIRROR_ACTIONS: [Action; 768] = mirror_actions();

impl GameParams for BreakthroughParams {
    const NAME: &'static str = Breakthrough::NAME;
    const DESCRIPTION: &'static str = "Breakthrough, 8 × 8 (OpenSpiel's breakthrough)";

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        visitor.visit(Breakthrough::new(self))
    }
}

impl Game for Breakthrough {
    const NAME: &'static str = "breakthrough";
    const NUM_ACTIONS: usize = CELLS * 12;
    const HAS_DRAWS: bool = false;
    /// Planes over the 8 × 8 board, row 0 = OpenSpiel's top row: P0's pawns, P1's pawns, P0 to
    /// move.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 3,
        rows: SIZE,
        cols: SIZE,
    };
    const ENCODING_VERSION: u32 = 1;
    const SYMMETRIES: &'static [Symmetry] = &[Symmetry {
        name: "mirror",
        cell_image: &MIRROR_CELLS,
        action_image: &MIRROR_ACTIONS,
    }];

    type Params = BreakthroughParams;

    fn new(_params: &BreakthroughParams) -> Breakthrough {
        let mut position = Breakthrough {
            pawns: [ROW_0 | ROW_0 << 8, ROW_7 | ROW_7 >> 8],
            to_move: Player::P0,
            outcome: None,
            ply: 0,
            mobility: [0; 2],
            hash: 0,
        };
        position.hash = position.hash_from_scratch();
        position
    }

    fn params(&self) -> &BreakthroughParams {
        &BreakthroughParams
    }

    /// OpenSpiel's bound (each pawn steps at most 6 times before the game ends: 177 is tighter).
    fn max_game_length(&self) -> usize {
        209
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
        let enemy = self.pawns[self.to_move.opponent().index()];
        let mut pawns = movers[0] | movers[1] | movers[2];
        while pawns != 0 {
            let from = pawns.trailing_zeros() as usize;
            for (k, step) in STEPS[self.to_move.index()].iter().enumerate() {
                if movers[k] >> from & 1 == 1 {
                    let to = (from as i32 + step.delta) as usize;
                    out.push(action_id(from, step.dir, enemy >> to & 1 == 1));
                }
            }
            pawns &= pawns - 1;
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        let Some((from, step, capture)) = Self::decode(action) else {
            return false;
        };
        if self.outcome.is_some() || step.dir / 3 != self.to_move.index() {
            return false;
        }
        let movers = self.movers(self.to_move)[step.dir % 3];
        let to = from as i32 + step.delta;
        let enemy = self.pawns[self.to_move.opponent().index()];
        movers >> from & 1 == 1 && (enemy >> to & 1 == 1) == capture
    }

    fn play(&mut self, action: Action) {
        debug_assert!(
            self.is_legal(action),
            "illegal Breakthrough action {action} in\n{self}"
        );
        let (from, step, capture) = Self::decode(action).expect("a legal action");
        let (mover, enemy) = (self.to_move.index(), 1 - self.to_move.index());
        let to = (from as i32 + step.delta) as usize;
        self.mobility[mover] += self.step_count(self.to_move) as u16;
        self.pawns[mover] ^= 1 << from | 1 << to;
        self.hash ^= PAWN_KEYS[mover * CELLS + from] ^ PAWN_KEYS[mover * CELLS + to];
        if capture {
            self.pawns[enemy] ^= 1 << to;
            self.hash ^= PAWN_KEYS[enemy * CELLS + to];
        }
        self.hash ^= P1_TO_MOVE_KEY;
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
            hash ^= zobrist::of_bits(self.pawns[player].into(), &PAWN_KEYS[player * CELLS..]);
        }
        hash
    }

    fn piece_counts(&self) -> [u32; 2] {
        self.pawns.map(u64::count_ones)
    }

    fn mobility_sums(&self) -> [u32; 2] {
        self.mobility.map(u32::from)
    }

    fn encode(&self, out: &mut [f32]) {
        encode_stone_planes(out, CELLS, self.to_move, |p, cell| {
            self.pawns[p] >> cell & 1 == 1
        });
    }

    fn apply_symmetry(&self, index: usize) -> Breakthrough {
        assert_eq!(index, 0, "Breakthrough has one symmetry (the mirror)");
        let mirror = |bits: u64| {
            (0..SIZE).fold(0u64, |acc, row| {
                acc | (((bits >> (row * SIZE)) as u8).reverse_bits() as u64) << (row * SIZE)
            })
        };
        let mut image = *self;
        image.pawns = self.pawns.map(mirror);
        image.hash = image.hash_from_scratch();
        image
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        let (from, step, capture) = Self::decode(action).expect("a Breakthrough action id");
        let to = (from as i32 + step.delta) as usize;
        let square = |cell: usize| cell_text(cell % SIZE, SIZE - cell / SIZE);
        let suffix = if capture { "*" } else { "" };
        format!("{}{}{suffix}", square(from), square(to))
    }

    fn action_from_text(player: Player, text: &str) -> Result<Action, MoveError> {
        let unparsable = || MoveError::Unparsable {
            text: text.to_string(),
            expected: Self::notation_help().to_string(),
        };
        let square = |col: usize, rank: usize| {
            (col < SIZE && (1..=SIZE).contains(&rank)).then(|| ((SIZE - rank) * SIZE + col) as i32)
        };
        let (col, rank, rest) = split_cell(text.trim()).ok_or_else(unparsable)?;
        let (to_col, to_rank, rest) = split_cell(rest).ok_or_else(unparsable)?;
        let capture = match rest {
            "" => false,
            "*" => true,
            _ => return Err(unparsable()),
        };
        let (from, to) = square(col, rank)
            .zip(square(to_col, to_rank))
            .ok_or_else(unparsable)?;
        let step = STEPS[player.index()]
            .iter()
            .find(|s| s.delta == to - from && (s.from_columns >> from) & 1 == 1)
            .ok_or_else(unparsable)?;
        Ok(action_id(from as usize, step.dir, capture))
    }

    fn notation_help() -> &'static str {
        "from and to squares, e.g. a7a6 (P0 steps down the ranks, P1 up), with * for a capture: b3c4*"
    }

    /// 8 × 8 squares, rank 8 at the top; a move is its pawn's square, then where it goes.
    fn board_view(&self) -> BoardView {
        let cells = stone_cells(
            (SIZE, SIZE),
            |r, c| cell_text(c, SIZE - r),
            |r, c| self.cell(r, c),
        );
        squares_board(cells, (SIZE, SIZE), true, true)
    }

    fn move_cells(&self, action: Action) -> Vec<String> {
        let (from, step, _) = Self::decode(action).expect("a Breakthrough action id");
        let to = (from as i32 + step.delta) as usize;
        [from, to]
            .map(|cell| cell_text(cell % SIZE, SIZE - cell / SIZE))
            .to_vec()
    }
}

impl fmt::Display for Breakthrough {
    /// OpenSpiel's picture: ranks 8 to 1 from the top, `b` for P0, `w` for P1.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in 0..SIZE {
            write!(f, "{}", SIZE - row)?;
            for col in 0..SIZE {
                let symbol = match self.cell(row, col) {
                    Some(Player::P0) => 'b',
                    Some(Player::P1) => 'w',
                    None => '.',
                };
                write!(f, "{symbol}")?;
            }
            writeln!(f)?;
        }
        write!(f, " abcdefgh")
    }
}
