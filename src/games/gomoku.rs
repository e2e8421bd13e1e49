//! Outer-Open Gomoku on 15 × 15 (docs/games.md): Black (P0) and White place stones in turn;
//! five in a row — horizontally, vertically or diagonally — wins; a full board draws. The
//! outer-open opening rule: Black's first stone goes in the outer band, the two outermost lines
//! (the 104 cells with min(row, col, 14 − row, 14 − col) ≤ 1).
//!
//! The two questions the sources leave open, as chosen here:
//! - the band is the two outer lines, as Ludii's `Gomoku.lud` ("Open-Outer") computes it and as
//!   the paper's "at a distance of 2 from the sides" reads;
//! - five **or more** in a row wins (freestyle, OpenSpiel's `gomoku`), since the Olympiad's rule
//!   was not found; `exact_five=true` makes an overline (six or more) not a win, as Ludii's
//!   default "Standard" end rule.
//!
//! With `outer_open=false` the game is OpenSpiel's `gomoku` exactly (the differential check runs
//! both: OpenSpiel's first move is then filtered to the band). Cell id `row·15 + col`; text as
//! OpenSpiel's, `row,col` (0-based, row 0 on top); a column letter and row number (`h8`, counted
//! from the top) is accepted too.

use std::fmt;

use super::bitset::CellSet;
use super::board_view::{BoardView, Layout, stone_cells};
use super::cell_text::split_cell;
use super::game::{Action, EncodingShape, Game, MoveError, Outcome, Player, Symmetry};
use super::game_params::{GameParams, Param, parse_bool};
use super::registry::GameVisitor;
use super::square_symmetry::{non_identity_cells, table_symmetries};
use super::stone_lines::line_lengths;
use super::zobrist;

const SIZE: usize = 15;
const CELLS: usize = SIZE * SIZE;
const BOARD: CellSet = CellSet::first(CELLS);

const fn in_band(cell: usize) -> bool {
    let (row, col) = (cell / SIZE, cell % SIZE);
    row <= 1 || col <= 1 || row >= SIZE - 2 || col >= SIZE - 2
}

/// The outer band of the opening rule.
const BAND: CellSet = {
    let mut band = CellSet::EMPTY;
    let mut cell = 0;
    while cell < CELLS {
        if in_band(cell) {
            band = band.with(cell);
        }
        cell += 1;
    }
    band
};

// Zobrist keys: [player][cell].
const STONE_KEYS: [u64; 2 * CELLS] = zobrist::keys(0x60A0_0000_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0x60A0_0000_0000_0002)[0];

/// Rule options of Gomoku.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GomokuParams {
    /// Black's first stone must go in the outer band.
    pub outer_open: bool,
    /// Only exactly five in a row wins (an overline does not).
    pub exact_five: bool,
}

impl Default for GomokuParams {
    fn default() -> Self {
        GomokuParams {
            outer_open: true,
            exact_five: false,
        }
    }
}

/// A Gomoku position.
#[derive(Clone, Copy, Debug)]
pub struct Gomoku {
    stones: [CellSet; 2],
    params: GomokuParams,
    to_move: Player,
    outcome: Option<Outcome>,
    ply: u8,
    mobility: [u16; 2],
    hash: u64,
}

impl Gomoku {
    /// The cells the mover may play.
    #[inline]
    fn playable(&self) -> CellSet {
        let empty = BOARD.minus(&self.stones[0].union(&self.stones[1]));
        if self.ply == 0 && self.params.outer_open {
            empty.intersection(&BAND)
        } else {
            empty
        }
    }

    /// The stone (P0, P1 or none) at `row` (0 = top), `col`.
    pub fn cell(&self, row: usize, col: usize) -> Option<Player> {
        let cell = row * SIZE + col;
        [Player::P0, Player::P1]
            .into_iter()
            .find(|p| self.stones[p.index()].contains(cell))
    }

    /// Whether `player`'s stone on `cell` lies on a winning line (five or more, or exactly five
    /// under `exact_five`) in one of the four directions.
    fn makes_five(&self, player: Player, cell: usize) -> bool {
        line_lengths(&self.stones[player.index()], SIZE, cell)
            .iter()
            .any(|&line| {
                if self.params.exact_five {
                    line == 5
                } else {
                    line >= 5
                }
            })
    }
}

static CELL_IMAGES: [[u16; CELLS]; 7] = non_identity_cells(SIZE);

const SYMMETRIES: [Symmetry; 7] = table_symmetries(&CELL_IMAGES, &CELL_IMAGES);

impl GameParams for GomokuParams {
    const NAME: &'static str = Gomoku::NAME;
    const DESCRIPTION: &'static str =
        "Outer-Open Gomoku, 15 × 15, five or more in a row (OpenSpiel's gomoku + the opening rule)";
    const PARAMS: &'static [Param<Self>] = &[
        Param {
            key: "outer_open",
            meaning: "Black's first stone goes in the two outer lines (false: OpenSpiel's gomoku)",
            set: |p, value| {
                p.outer_open = parse_bool(value)?;
                Ok(())
            },
            get: |p| p.outer_open.to_string(),
        },
        Param {
            key: "exact_five",
            meaning: "only exactly five in a row wins, not six or more",
            set: |p, value| {
                p.exact_five = parse_bool(value)?;
                Ok(())
            },
            get: |p| p.exact_five.to_string(),
        },
    ];

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        visitor.visit(Gomoku::new(self))
    }
}

impl Game for Gomoku {
    const NAME: &'static str = "gomoku";
    const NUM_ACTIONS: usize = CELLS;
    const HAS_DRAWS: bool = true;
    /// Planes over the 15 × 15 board, row 0 at the top: P0's stones, P1's stones, P0 to move,
    /// the opening rule in force (all ones on Black's first move under `outer_open`).
    const ENCODING: EncodingShape = EncodingShape {
        planes: 4,
        rows: SIZE,
        cols: SIZE,
    };
    const ENCODING_VERSION: u32 = 1;
    /// The square's 7 (the band is invariant under each).
    const SYMMETRIES: &'static [Symmetry] = &SYMMETRIES;

    type Params = GomokuParams;

    fn new(params: &GomokuParams) -> Gomoku {
        Gomoku {
            stones: [CellSet::EMPTY; 2],
            params: *params,
            to_move: Player::P0,
            outcome: None,
            ply: 0,
            mobility: [0; 2],
            hash: 0,
        }
    }

    fn params(&self) -> &GomokuParams {
        &self.params
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

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.outcome.is_none() {
            out.extend(self.playable().cells().map(|cell| cell as Action));
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        self.outcome.is_none()
            && (action as usize) < CELLS
            && self.playable().contains(action as usize)
    }

    fn play(&mut self, action: Action) {
        debug_assert!(
            self.is_legal(action),
            "illegal Gomoku action {action} in\n{self}"
        );
        let mover = self.to_move;
        let cell = action as usize;
        self.mobility[mover.index()] += self.playable().len() as u16;
        self.stones[mover.index()].insert(cell);
        self.hash ^= STONE_KEYS[mover.index() * CELLS + cell] ^ P1_TO_MOVE_KEY;
        self.ply += 1;
        self.to_move = mover.opponent();
        if self.makes_five(mover, cell) {
            self.outcome = Some(Outcome::win_for(mover));
        } else if self.ply as usize == CELLS {
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
        let side = if self.to_move == Player::P1 {
            P1_TO_MOVE_KEY
        } else {
            0
        };
        side ^ zobrist::of_cell_sets(&self.stones, &STONE_KEYS, CELLS)
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
            "Gomoku encodes into {} floats",
            shape.len()
        );
        let (planes, opening) = out.split_at_mut(3 * CELLS);
        super::board_planes::encode_stone_planes(planes, CELLS, self.to_move, |p, cell| {
            self.stones[p].contains(cell)
        });
        opening.fill((self.ply == 0 && self.params.outer_open) as u8 as f32);
    }

    fn apply_symmetry(&self, index: usize) -> Gomoku {
        let table = &CELL_IMAGES[index];
        let mut image = *self;
        image.stones = self.stones.map(|set| set.mapped(table));
        image.hash = image.hash_from_scratch();
        image
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        let cell = action as usize;
        format!("{},{}", cell / SIZE, cell % SIZE)
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let text = text.trim();
        let numbers = text.split_once(',').and_then(|(r, c)| {
            Some((
                r.trim().parse::<usize>().ok()?,
                c.trim().parse::<usize>().ok()?,
            ))
        });
        let cell = match (numbers, split_cell(text)) {
            (Some((row, col)), _) => Some((row, col)),
            (None, Some((col, number, ""))) => number.checked_sub(1).map(|row| (row, col)),
            _ => None,
        };
        match cell {
            Some((row, col)) if row < SIZE && col < SIZE => Ok((row * SIZE + col) as Action),
            _ => Err(MoveError::Unparsable {
                text: text.to_string(),
                expected: Self::notation_help().to_string(),
            }),
        }
    }

    fn notation_help() -> &'static str {
        "row,col from 0,0 (top left) to 14,14, as OpenSpiel writes it, or a column letter a-o and a row number 1-15 from the top (h8 is the centre)"
    }

    /// The lines of the 15 × 15 board; a point is named `row,col` from `0,0` at the top left.
    fn board_view(&self) -> BoardView {
        let cells = stone_cells(
            (SIZE, SIZE),
            |r, c| format!("{r},{c}"),
            |r, c| self.cell(r, c),
        );
        let layout = Layout::Intersections {
            rows: SIZE,
            cols: SIZE,
            stars: vec![(3, 3), (3, 11), (7, 7), (11, 3), (11, 11)],
        };
        let indices: Vec<String> = (0..SIZE).map(|i| i.to_string()).collect();
        BoardView::new(layout, cells, (indices.clone(), indices))
            .with_winning_line(5, self.outcome().and_then(|o| o.winner()))
    }

    fn move_cells(&self, action: Action) -> Vec<String> {
        vec![self.move_to_text(action)]
    }
}

impl fmt::Display for Gomoku {
    /// OpenSpiel's picture: rows from the top, `b` for Black (P0), `w` for White (P1).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in 0..SIZE {
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
        write!(f, "{} to move", self.to_move)
    }
}
