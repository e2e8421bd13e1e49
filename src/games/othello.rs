//! Othello on `N × N` (8, 10 and 16 in the registry), 8 × 8 as OpenSpiel's `othello`
//! (docs/games.md): Black (P0, `x`) moves first from the four central discs (on 8 × 8: d4 and e5
//! White, e4 and d5 Black); a move places a disc that brackets at least one line of enemy discs,
//! and every bracketed line flips. A player without such a move passes (action `N²`, then its only
//! legal action); the game ends when neither can place; more discs wins, equal counts draw. Score
//! (the paper's score heuristic): P0's discs minus P1's.
//!
//! Action id `row·N + col`, row 0 = rank `1` at the top; text `d3`, and `pass`.
//! Bitboards of `W` words (`Bits<1>` on 8 × 8, `Bits<2>` on 10 × 10, `Bits<4>` on 16 × 16): bit
//! `row·N + col`; moves and flips by shifts along the 8 directions.

use std::fmt;

use super::bitset::Bits;
use super::board_planes::encode_stone_planes;
use super::board_view::{BoardView, squares_board, stone_cells};
use super::cell_text::{cell_text, split_cell};
use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, PositionError, Symmetry,
};
use super::game_params::{GameParams, Param, parse_word, word_of};
use super::picture::read_picture;
use super::registry::GameVisitor;
use super::square_symmetry::{sliced_symmetries, tables_with_pass};
use super::zobrist;

/// The largest board side.
pub const MAX_SIZE: usize = 16;
const MAX_CELLS: usize = MAX_SIZE * MAX_SIZE;

// Zobrist keys: [player][cell].
const DISC_KEYS: [u64; 2 * MAX_CELLS] = zobrist::keys(0x0711_0000_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0x0711_0000_0000_0002)[0];

/// Othello has no rule parameters; the board's side is the type's (`Othello<N, W>`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OthelloRules;

/// An Othello position on `N × N`, discs in bitboards of `W` 64-bit words.
#[derive(Clone, Copy, Debug)]
pub struct Othello<const N: usize = 8, const W: usize = 1> {
    /// Discs of P0 (Black) and P1 (White).
    discs: [Bits<W>; 2],
    to_move: Player,
    outcome: Option<Outcome>,
    ply: u16,
    mobility: [u16; 2],
    hash: u64,
}

/// The cells of column `col` of an `n × n` board.
const fn column<const W: usize>(n: usize, col: usize) -> Bits<W> {
    let mut set = Bits::EMPTY;
    let mut row = 0;
    while row < n {
        set = set.with(row * n + col);
        row += 1;
    }
    set
}

impl<const N: usize, const W: usize> Othello<N, W> {
    const CELLS: usize = N * N;
    /// The pass action.
    pub const PASS: Action = (N * N) as Action;
    const BOARD: Bits<W> = Bits::first(N * N);
    const NOT_FIRST_COL: Bits<W> = Self::BOARD.and_not(column(N, 0));
    const NOT_LAST_COL: Bits<W> = Self::BOARD.and_not(column(N, N - 1));
    /// The 8 directions as (shift, mask of the cells a shifted disc may land on).
    const DIRECTIONS: [(i32, Bits<W>); 8] = {
        let n = N as i32;
        [
            (1, Self::NOT_FIRST_COL),
            (-1, Self::NOT_LAST_COL),
            (n, Self::BOARD),
            (-n, Self::BOARD),
            (n + 1, Self::NOT_FIRST_COL),
            (n - 1, Self::NOT_LAST_COL),
            (-(n - 1), Self::NOT_FIRST_COL),
            (-(n + 1), Self::NOT_LAST_COL),
        ]
    };
    const SYMMETRY_TABLES: ([[u16; MAX_CELLS]; 7], [[Action; MAX_CELLS + 1]; 7]) =
        tables_with_pass(N);
    const SYMMETRY_TABLE: [Symmetry; 7] = sliced_symmetries(
        &Self::SYMMETRY_TABLES.0,
        &Self::SYMMETRY_TABLES.1,
        N * N,
        N * N + 1,
    );

    #[inline(always)]
    fn shift(bits: &Bits<W>, (delta, mask): &(i32, Bits<W>)) -> Bits<W> {
        bits.shifted(*delta).intersection(mask)
    }

    /// The empty cells where the owner of `own` can place a disc against `enemy`.
    #[inline]
    fn placements(own: &Bits<W>, enemy: &Bits<W>) -> Bits<W> {
        let empty = Self::BOARD.minus(&own.union(enemy));
        let mut moves = Bits::EMPTY;
        for direction in &Self::DIRECTIONS {
            let mut line = Self::shift(own, direction).intersection(enemy);
            for _ in 0..N - 3 {
                line = line.union(&Self::shift(&line, direction).intersection(enemy));
            }
            moves = moves.union(&Self::shift(&line, direction).intersection(&empty));
        }
        moves
    }

    /// The enemy discs a disc placed on `cell` flips.
    #[inline]
    fn flips(own: &Bits<W>, enemy: &Bits<W>, cell: usize) -> Bits<W> {
        let mut flipped = Bits::EMPTY;
        for direction in &Self::DIRECTIONS {
            let mut line = Bits::EMPTY;
            let mut probe = Self::shift(&Bits::EMPTY.with(cell), direction);
            while !probe.intersection(enemy).is_empty() {
                line = line.union(&probe);
                probe = Self::shift(&probe, direction);
            }
            if !probe.intersection(own).is_empty() {
                flipped = flipped.union(&line);
            }
        }
        flipped
    }

    /// The mover's placements.
    #[inline]
    fn mover_placements(&self) -> Bits<W> {
        let mover = self.to_move.index();
        Self::placements(&self.discs[mover], &self.discs[1 - mover])
    }

    /// The disc (P0, P1 or none) at `row` (0 = rank 1, the top), `col`.
    pub fn cell(&self, row: usize, col: usize) -> Option<Player> {
        let cell = row * N + col;
        [Player::P0, Player::P1]
            .into_iter()
            .find(|p| self.discs[p.index()].contains(cell))
    }

    /// A position from a picture: `N` rows from rank 1 (the top) of `x` (P0, Black), `o` (P1)
    /// and `.`, `to_move` to play, at ply 0; over already if neither side can place.
    pub fn from_picture(picture: &str, to_move: Player) -> Result<Othello<N, W>, PositionError> {
        let cells = read_picture(Self::NAME, picture, N, N, &['x', 'o'])?;
        let mut discs = [Bits::EMPTY; 2];
        for (cell, owner) in cells.iter().enumerate() {
            if let Some(p) = owner {
                discs[*p].insert(cell);
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
        let [p0, p1] = &self.discs;
        if !Self::placements(p0, p1).is_empty() || !Self::placements(p1, p0).is_empty() {
            return None;
        }
        let [p0, p1] = self.piece_counts();
        Some(Outcome::by_counts(p0, p1))
    }
}

/// The Othello boards the registry compiles (each side is its own type, `Othello<N, W>`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OthelloSize {
    #[default]
    Eight,
    Ten,
    Sixteen,
}

/// `board_size` as a spec writes it.
const BOARD_SIZES: &[(&str, OthelloSize)] = &[
    ("8", OthelloSize::Eight),
    ("10", OthelloSize::Ten),
    ("16", OthelloSize::Sixteen),
];

/// Othello as the registry names it: the board's size and the rules.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OthelloParams {
    pub size: OthelloSize,
}

impl GameParams for OthelloParams {
    const NAME: &'static str = Othello::<8, 1>::NAME;
    const DESCRIPTION: &'static str =
        "Othello, passes, score = disc difference (8 × 8: OpenSpiel's othello)";
    const PARAMS: &'static [Param<Self>] = &[Param {
        key: "board_size",
        meaning: "the board's side: 8, 10 or 16",
        set: |p, value| {
            p.size = parse_word(value, BOARD_SIZES)?;
            Ok(())
        },
        get: |p| word_of(&p.size, BOARD_SIZES).to_string(),
    }];

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        match self.size {
            OthelloSize::Eight => visitor.visit(Othello::<8, 1>::new(&OthelloRules)),
            OthelloSize::Ten => visitor.visit(Othello::<10, 2>::new(&OthelloRules)),
            OthelloSize::Sixteen => visitor.visit(Othello::<16, 4>::new(&OthelloRules)),
        }
    }
}

impl<const N: usize, const W: usize> Game for Othello<N, W> {
    const NAME: &'static str = "othello";
    const NUM_ACTIONS: usize = N * N + 1;
    const HAS_DRAWS: bool = true;
    const PASS_ACTION: Option<Action> = Some(Self::PASS);
    /// Planes over the board, row 0 = rank 1 at the top: P0's discs, P1's discs, P0 to move.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 3,
        rows: N,
        cols: N,
    };
    const ENCODING_VERSION: u32 = 1;
    /// The 7 non-identity symmetries of the square.
    const SYMMETRIES: &'static [Symmetry] = &Self::SYMMETRY_TABLE;

    type Params = OthelloRules;

    fn new(_params: &OthelloRules) -> Othello<N, W> {
        assert!(
            N >= 4 && N.is_multiple_of(2) && N * N <= 64 * W && N <= MAX_SIZE,
            "Othello boards are even, 4 to {MAX_SIZE} wide, and fit {W} words"
        );
        let (low, high) = (N / 2 - 1, N / 2);
        let at = |row: usize, col: usize| Bits::EMPTY.with(row * N + col);
        let mut position = Othello {
            discs: [
                at(low, high).union(&at(high, low)),
                at(low, low).union(&at(high, high)),
            ],
            to_move: Player::P0,
            outcome: None,
            ply: 0,
            mobility: [0; 2],
            hash: 0,
        };
        position.hash = position.hash_from_scratch();
        position
    }

    fn params(&self) -> &OthelloRules {
        &OthelloRules
    }

    /// `N² − 4` placements, and a pass never follows a pass: at most `2·N²` plies.
    fn max_game_length(&self) -> usize {
        2 * Self::CELLS
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
        let moves = self.mover_placements();
        if moves.is_empty() {
            out.push(Self::PASS);
        } else {
            out.extend(moves.cells().map(|cell| cell as Action));
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        if self.outcome.is_some() || action > Self::PASS {
            return false;
        }
        let moves = self.mover_placements();
        if action == Self::PASS {
            moves.is_empty()
        } else {
            moves.contains(action as usize)
        }
    }

    fn play(&mut self, action: Action) {
        debug_assert!(
            self.is_legal(action),
            "illegal Othello action {action} in\n{self}"
        );
        let (mover, enemy) = (self.to_move.index(), 1 - self.to_move.index());
        let moves = self.mover_placements();
        self.mobility[mover] += moves.len().max(1) as u16;
        self.ply += 1;
        self.to_move = self.to_move.opponent();
        self.hash ^= P1_TO_MOVE_KEY;
        if action == Self::PASS {
            return;
        }
        let cell = action as usize;
        let flipped = Self::flips(&self.discs[mover], &self.discs[enemy], cell);
        self.discs[mover] = self.discs[mover].union(&flipped).with(cell);
        self.discs[enemy] = self.discs[enemy].minus(&flipped);
        self.hash ^= DISC_KEYS[mover * MAX_CELLS + cell];
        for flipped_cell in flipped.cells() {
            self.hash ^= DISC_KEYS[mover * MAX_CELLS + flipped_cell]
                ^ DISC_KEYS[enemy * MAX_CELLS + flipped_cell];
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
        let side = if self.to_move == Player::P1 {
            P1_TO_MOVE_KEY
        } else {
            0
        };
        side ^ zobrist::of_cell_sets(&self.discs, &DISC_KEYS, MAX_CELLS)
    }

    /// Discs of P0 minus discs of P1, at any point of the game.
    fn score_p0(&self) -> Option<i32> {
        let [p0, p1] = self.piece_counts();
        Some(p0 as i32 - p1 as i32)
    }

    fn piece_counts(&self) -> [u32; 2] {
        self.discs.map(|discs| discs.len())
    }

    fn mobility_sums(&self) -> [u32; 2] {
        self.mobility.map(u32::from)
    }

    fn encode(&self, out: &mut [f32]) {
        encode_stone_planes(out, Self::CELLS, self.to_move, |p, cell| {
            self.discs[p].contains(cell)
        });
    }

    fn apply_symmetry(&self, index: usize) -> Othello<N, W> {
        let table = &Self::SYMMETRY_TABLES.0[index];
        let map = |bits: Bits<W>| {
            bits.cells()
                .fold(Bits::EMPTY, |acc, cell| acc.with(table[cell] as usize))
        };
        let mut image = *self;
        image.discs = self.discs.map(map);
        image.hash = image.hash_from_scratch();
        image
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        if action == Self::PASS {
            return "pass".to_string();
        }
        let cell = action as usize;
        cell_text(cell % N, cell / N + 1)
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("pass") {
            return Ok(Self::PASS);
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
        "a square such as d3 (column letter, row number from the top, as OpenSpiel prints), or pass"
    }

    /// N × N squares, row 1 at the top, each side's disc count under the board.
    fn board_view(&self) -> BoardView {
        let cells = stone_cells((N, N), |r, c| cell_text(c, r + 1), |r, c| self.cell(r, c));
        let discs = |player: Player| {
            cells
                .iter()
                .filter(|cell| cell.piece.as_ref().is_some_and(|p| p.owner == Some(player)))
                .count()
        };
        let [black, white] = Self::SIDE_NAMES;
        let caption = format!(
            "{black} {} · {white} {}",
            discs(Player::P0),
            discs(Player::P1)
        );
        squares_board(cells, (N, N), false, false).with_caption(caption)
    }

    fn move_cells(&self, action: Action) -> Vec<String> {
        match action == Self::PASS {
            true => Vec::new(),
            false => vec![self.move_to_text(action)],
        }
    }
}

impl<const N: usize, const W: usize> fmt::Display for Othello<N, W> {
    /// OpenSpiel's picture: rows 1-8 from the top, `x` for Black (P0), `o` for White (P1); row
    /// numbers padded on boards of 10 rows or more.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = if N < 10 { 1 } else { 2 };
        write!(f, "{}", " ".repeat(width))?;
        for col in 0..N {
            write!(f, " {}", char::from(b'a' + col as u8))?;
        }
        writeln!(f)?;
        for row in 0..N {
            write!(f, "{:>width$}", row + 1)?;
            for col in 0..N {
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
