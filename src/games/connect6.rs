//! Connect6 on 19 × 19 (docs/games.md; I-C. Wu's rules, Ludii's `Connect6.lud`): Black (P0)
//! places one stone, then the players place two stones a turn, White (P1) first; six **or more**
//! in a row — horizontally, vertically or diagonally — wins, checked after every stone (a line
//! made by a turn's first stone ends the game there); a full board draws.
//!
//! **One stone per action**: a turn of two stones is two plies by the same player — plies 1-2
//! are White's, 3-4 Black's, and so on. A whole turn as one action would need 64 980 ids and give
//! a root ~65 000 children; one stone per ply keeps 361 ids and lets the searches see the first
//! stone's position. Every search takes the side to move from the position (never by ply parity;
//! `tests/search/side_to_move.rs`), so the Descent backups, the completion and the ordinal
//! distribution treat the second stone as the same player's choice.
//!
//! Cell id `row·19 + col`, row 0 at the top. Text: a column letter `a`-`s` (no letter skipped)
//! and a row number 1-19 from the bottom, `j10` the centre.

use std::fmt;

use super::bitset::CellSet;
use super::board_planes::encode_stone_planes;
use super::board_view::{BoardView, Layout, letters, numbers, stone_cells};
use super::cell_text::{cell_text, split_cell};
use super::game::{Action, EncodingShape, Game, MoveError, Outcome, Player, Symmetry};
use super::game_params::GameParams;
use super::registry::GameVisitor;
use super::square_symmetry::{non_identity_cells, table_symmetries};
use super::stone_lines::line_lengths;
use super::zobrist;

const SIZE: usize = 19;
const CELLS: usize = SIZE * SIZE;
const BOARD: CellSet = CellSet::first(CELLS);
/// Stones in a row that win.
const SIX: usize = 6;

// Zobrist keys: [player][cell].
const STONE_KEYS: [u64; 2 * CELLS] = zobrist::keys(0xC060_0000_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0xC060_0000_0000_0002)[0];

/// Connect6 has no parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Connect6Params;

/// A Connect6 position.
#[derive(Clone, Copy, Debug)]
pub struct Connect6 {
    stones: [CellSet; 2],
    outcome: Option<Outcome>,
    ply: u16,
    mobility: [u16; 2],
    hash: u64,
}

/// The player placing the stone of ply `ply`: P0 the first, then two each, P1 first.
#[inline]
pub const fn mover_at_ply(ply: usize) -> Player {
    if ply == 0 || (ply - 1) / 2 % 2 == 1 {
        Player::P0
    } else {
        Player::P1
    }
}

impl Connect6 {
    #[inline]
    fn empty(&self) -> CellSet {
        BOARD.minus(&self.stones[0].union(&self.stones[1]))
    }

    /// Whether this ply's stone is the second of its player's turn.
    #[inline]
    pub fn is_second_stone(&self) -> bool {
        self.ply > 0 && self.ply.is_multiple_of(2)
    }

    /// The stone (P0, P1 or none) at `row` (0 = top), `col`.
    pub fn cell(&self, row: usize, col: usize) -> Option<Player> {
        let cell = row * SIZE + col;
        [Player::P0, Player::P1]
            .into_iter()
            .find(|p| self.stones[p.index()].contains(cell))
    }

    fn makes_six(&self, player: Player, cell: usize) -> bool {
        line_lengths(&self.stones[player.index()], SIZE, cell)
            .iter()
            .any(|&line| line >= SIX)
    }
}

static CELL_IMAGES: [[u16; CELLS]; 7] = non_identity_cells(SIZE);
const SYMMETRIES: [Symmetry; 7] = table_symmetries(&CELL_IMAGES, &CELL_IMAGES);

impl GameParams for Connect6Params {
    const NAME: &'static str = Connect6::NAME;
    const DESCRIPTION: &'static str = "Connect6, 19 × 19, one stone first then two a turn (one action each), six or more in a row wins";

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        visitor.visit(Connect6::new(self))
    }
}

impl Game for Connect6 {
    const NAME: &'static str = "connect6";
    const NUM_ACTIONS: usize = CELLS;
    const HAS_DRAWS: bool = true;
    /// Planes over the 19 × 19 board, row 0 at the top: P0's stones, P1's stones, P0 to move,
    /// the stone to place is the second of the turn.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 4,
        rows: SIZE,
        cols: SIZE,
    };
    const ENCODING_VERSION: u32 = 1;
    /// The square's 7.
    const SYMMETRIES: &'static [Symmetry] = &SYMMETRIES;

    type Params = Connect6Params;

    fn new(_params: &Connect6Params) -> Connect6 {
        Connect6 {
            stones: [CellSet::EMPTY; 2],
            outcome: None,
            ply: 0,
            mobility: [0; 2],
            hash: 0,
        }
    }

    fn params(&self) -> &Connect6Params {
        &Connect6Params
    }

    fn max_game_length(&self) -> usize {
        CELLS
    }

    #[inline]
    fn to_move(&self) -> Player {
        mover_at_ply(self.ply as usize)
    }

    #[inline]
    fn ply(&self) -> usize {
        self.ply as usize
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.outcome.is_none() {
            out.extend(self.empty().cells().map(|cell| cell as Action));
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        self.outcome.is_none()
            && (action as usize) < CELLS
            && self.empty().contains(action as usize)
    }

    fn play(&mut self, action: Action) {
        debug_assert!(
            self.is_legal(action),
            "illegal Connect6 action {action} in\n{self}"
        );
        let mover = self.to_move();
        let cell = action as usize;
        self.mobility[mover.index()] += (CELLS - self.ply as usize) as u16;
        self.stones[mover.index()].insert(cell);
        self.hash ^= STONE_KEYS[mover.index() * CELLS + cell];
        self.ply += 1;
        if self.to_move() != mover {
            self.hash ^= P1_TO_MOVE_KEY;
        }
        if self.makes_six(mover, cell) {
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
        let side = if self.to_move() == Player::P1 {
            P1_TO_MOVE_KEY
        } else {
            0
        };
        side ^ zobrist::of_cell_sets(&self.stones, &STONE_KEYS, CELLS)
    }

    fn piece_counts(&self) -> [u32; 2] {
        self.stones.map(|s| s.len())
    }

    fn plies_by_player(&self) -> [u32; 2] {
        let p0 = (0..self.ply as usize)
            .filter(|&ply| mover_at_ply(ply) == Player::P0)
            .count() as u32;
        [p0, self.ply as u32 - p0]
    }

    fn mobility_sums(&self) -> [u32; 2] {
        self.mobility.map(u32::from)
    }

    fn encode(&self, out: &mut [f32]) {
        assert_eq!(out.len(), Self::ENCODING.len(), "one encoded position");
        let (planes, second) = out.split_at_mut(3 * CELLS);
        encode_stone_planes(planes, CELLS, self.to_move(), |p, cell| {
            self.stones[p].contains(cell)
        });
        second.fill(self.is_second_stone() as u8 as f32);
    }

    fn apply_symmetry(&self, index: usize) -> Connect6 {
        let table = &CELL_IMAGES[index];
        let mut image = *self;
        image.stones = self.stones.map(|set| set.mapped(table));
        image.hash = image.hash_from_scratch();
        image
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        let cell = action as usize;
        cell_text(cell % SIZE, SIZE - cell / SIZE)
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let text = text.trim();
        match split_cell(text) {
            Some((col, number, "")) if col < SIZE && (1..=SIZE).contains(&number) => {
                Ok(((SIZE - number) * SIZE + col) as Action)
            }
            _ => Err(MoveError::Unparsable {
                text: text.to_string(),
                expected: Self::notation_help().to_string(),
            }),
        }
    }

    fn notation_help() -> &'static str {
        "a column letter a-s and a row number 1-19 from the bottom (j10 is the centre)"
    }

    /// The lines of the 19 × 19 board; a point is named by its column letter and its row from
    /// the bottom (`j10`).
    fn board_view(&self) -> BoardView {
        let cells = stone_cells(
            (SIZE, SIZE),
            |r, c| cell_text(c, SIZE - r),
            |r, c| self.cell(r, c),
        );
        let stars = [3, 9, 15]
            .iter()
            .flat_map(|&r| [3, 9, 15].map(|c| (r, c)))
            .collect();
        let layout = Layout::Intersections {
            rows: SIZE,
            cols: SIZE,
            stars,
        };
        BoardView::new(layout, cells, (letters(SIZE), numbers(SIZE, true)))
            .with_winning_line(6, self.outcome().and_then(|o| o.winner()))
    }

    fn move_cells(&self, action: Action) -> Vec<String> {
        vec![self.move_to_text(action)]
    }
}

impl fmt::Display for Connect6 {
    /// Rows 19 to 1 from the top, `x` for Black (P0), `o` for White (P1), `.` empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in 0..SIZE {
            write!(f, "{:>2}", SIZE - row)?;
            for col in 0..SIZE {
                let symbol = match self.cell(row, col) {
                    Some(Player::P0) => 'x',
                    Some(Player::P1) => 'o',
                    None => '.',
                };
                write!(f, " {symbol}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "   a b c d e f g h i j k l m n o p q r s")?;
        let stone = if self.is_second_stone() {
            "second"
        } else {
            "first"
        };
        write!(f, "{} to move ({stone} stone of the turn)", self.to_move())
    }
}
