//! Go on `N × N` (9 and 11 in the registry), as OpenSpiel's `go(board_size=N, komi=…)`
//! (docs/games.md): Black (P0) first; a stone without liberties is captured; suicide is illegal;
//! simple ko (a single stone that captured a single stone in an enemy eye cannot be retaken at
//! once); two passes in a row end the game, as do `max_plies` plies (OpenSpiel's 2·N²). Scoring
//! is Tromp-Taylor: stones plus empty regions that reach only one colour, Black's minus White's,
//! minus komi; positive wins for Black, zero draws.
//!
//! Positional superko as OpenSpiel treats it (`superko=draw`, the default): a move (not a pass)
//! that recreates any earlier board ends the game as a draw. `superko=illegal` forbids such moves
//! instead, the stricter engines' rule.
//!
//! Action id `row·N + col`, row 0 = the row numbered 1 (the bottom in diagrams), pass = N².
//! Text: column letter (skipping `i`, as Go does) and row number, `e5`, or `pass`.

use std::fmt;
use std::sync::Arc;

use rand::Rng;

use super::board_view::{BoardView, Layout, numbers, stone_cells};
use super::game::{Action, EncodingShape, Game, MoveError, Outcome, Player, Symmetry};
use super::game_params::{GameParams, Param, ParamError, parse_integer, parse_word, word_of};
use super::registry::GameVisitor;
use super::square_symmetry::{sliced_symmetries, tables_with_pass};
use super::zobrist;

mod patterns;
mod playout;

/// The largest board (its cells fit a `u128`).
pub const MAX_SIZE: usize = 11;
const MAX_CELLS: usize = MAX_SIZE * MAX_SIZE;
/// Column letters: Go skips `i`.
const COLUMN_LETTERS: &[u8; 11] = b"abcdefghjkl";

// Zobrist keys: [player][cell].
const STONE_KEYS: [u64; 2 * MAX_CELLS] = zobrist::keys(0x6060_0000_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0x6060_0000_0000_0002)[0];
const KO_KEYS: [u64; MAX_CELLS] = zobrist::keys(0x6060_0000_0000_0003);

/// What recreating an earlier board does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Superko {
    /// The game ends in a draw (OpenSpiel's rule).
    Draw,
    /// The move is illegal (positional superko).
    Illegal,
}

/// `superko` as a spec writes it.
const SUPERKO_WORDS: &[(&str, Superko)] = &[("draw", Superko::Draw), ("illegal", Superko::Illegal)];

/// Komi: a finite number of points, at most 1000 either way.
fn parse_komi(value: &str) -> Result<f32, ParamError> {
    value
        .parse::<f32>()
        .ok()
        .filter(|k| k.is_finite() && k.abs() <= 1000.0)
        .ok_or_else(|| ParamError::BadValue {
            expected: "a number of points, e.g. 7.5".to_string(),
        })
}

/// Rule options of Go.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GoRules {
    /// Points given to White (P1).
    pub komi: f32,
    pub superko: Superko,
    /// The game ends (and is scored) after this many plies; 0 means OpenSpiel's 2·N².
    pub max_plies: u16,
}

impl Default for GoRules {
    fn default() -> Self {
        GoRules {
            komi: 7.5,
            superko: Superko::Draw,
            max_plies: 0,
        }
    }
}

/// A Go position on an `N × N` board.
#[derive(Clone, Debug)]
pub struct Go<const N: usize> {
    stones: [u128; 2],
    params: GoRules,
    to_move: Player,
    outcome: Option<Outcome>,
    /// The point a simple ko forbids to the mover, if any.
    ko: Option<usize>,
    last_was_pass: bool,
    /// The point of the last move if it placed a stone (playouts answer it).
    last_placement: Option<u8>,
    ply: u16,
    mobility: [u16; 2],
    hash: u64,
    /// Every board so far, the current one included: boards, not hashes, so that a symmetry
    /// maps the history too (under `superko=illegal` it decides which moves are legal).
    boards: BoardHistory,
}

/// The boards of a game, newest first, as a list shared between positions: a clone or a move
/// costs one pointer, whatever the game's length.
#[derive(Clone, Debug, Default)]
struct BoardHistory(Option<Arc<BoardNode>>);

#[derive(Debug)]
struct BoardNode {
    board: [u128; 2],
    older: BoardHistory,
}

impl BoardHistory {
    fn push(&mut self, board: [u128; 2]) {
        let older = std::mem::take(self);
        *self = BoardHistory(Some(Arc::new(BoardNode { board, older })));
    }

    fn iter(&self) -> impl Iterator<Item = &[u128; 2]> {
        std::iter::successors(self.0.as_deref(), |node| node.older.0.as_deref())
            .map(|node| &node.board)
    }

    fn contains(&self, board: &[u128; 2]) -> bool {
        self.iter().any(|b| b == board)
    }

    /// The same history with every board mapped by `map`.
    fn map(&self, map: impl Fn(&[u128; 2]) -> [u128; 2]) -> BoardHistory {
        let boards: Vec<[u128; 2]> = self.iter().map(map).collect();
        let mut history = BoardHistory::default();
        for board in boards.into_iter().rev() {
            history.push(board);
        }
        history
    }
}

/// The result of placing a stone: the stones after captures, and what was captured.
struct Placement {
    stones: [u128; 2],
    captured: u128,
}

impl<const N: usize> Go<N> {
    const CELLS: usize = N * N;
    /// The pass action.
    pub const PASS: Action = (N * N) as Action;
    const BOARD: u128 = if N * N == 128 { !0 } else { (1 << (N * N)) - 1 };
    const COL_0: u128 = {
        let mut mask = 0;
        let mut row = 0;
        while row < N {
            mask |= 1 << (row * N);
            row += 1;
        }
        mask
    };
    const COL_LAST: u128 = Self::COL_0 << (N - 1);
    const SYMMETRY_TABLES: ([[u16; MAX_CELLS]; 7], [[Action; MAX_CELLS + 1]; 7]) =
        tables_with_pass(N);
    const SYMMETRY_TABLE: [Symmetry; 7] = sliced_symmetries(
        &Self::SYMMETRY_TABLES.0,
        &Self::SYMMETRY_TABLES.1,
        N * N,
        N * N + 1,
    );

    /// The points next to the points of `bits`.
    #[inline]
    fn neighbours(bits: u128) -> u128 {
        ((bits << 1 & !Self::COL_0) | (bits >> 1 & !Self::COL_LAST) | bits << N | bits >> N)
            & Self::BOARD
    }

    /// The chain of `stones` holding `cell`.
    #[inline]
    fn chain(stones: u128, cell: usize) -> u128 {
        let mut chain = 1u128 << cell;
        loop {
            let grown = (Self::neighbours(chain) & stones) | chain;
            if grown == chain {
                return chain;
            }
            chain = grown;
        }
    }

    /// Places `player`'s stone on the empty `cell` of `stones` and removes the enemy chains left
    /// without liberties; `None` if the stone's own chain then has none (suicide).
    fn place(stones: &[u128; 2], player: Player, cell: usize) -> Option<Placement> {
        let (me, them) = (player.index(), 1 - player.index());
        let mut stones = *stones;
        stones[me] |= 1 << cell;
        let mut captured = 0;
        let mut enemy_neighbours = Self::neighbours(1 << cell) & stones[them];
        while enemy_neighbours != 0 {
            let chain = Self::chain(stones[them], enemy_neighbours.trailing_zeros() as usize);
            let empty = !(stones[0] | stones[1]) & Self::BOARD;
            if Self::neighbours(chain) & empty == 0 {
                captured |= chain;
                stones[them] &= !chain;
            }
            enemy_neighbours &= !chain;
        }
        let empty = !(stones[0] | stones[1]) & Self::BOARD;
        (Self::neighbours(Self::chain(stones[me], cell)) & empty != 0)
            .then_some(Placement { stones, captured })
    }

    /// The point a simple ko forbids after `player` placed on `cell` (`placed`, from
    /// `before`): the one stone captured, if the new stone filled an enemy eye.
    fn ko_after(
        before: &[u128; 2],
        player: Player,
        cell: usize,
        placed: &Placement,
    ) -> Option<usize> {
        let enemy_eye = Self::neighbours(1 << cell) & !before[1 - player.index()] == 0;
        (enemy_eye && placed.captured.count_ones() == 1)
            .then(|| placed.captured.trailing_zeros() as usize)
    }

    /// The points diagonally next to the points of `bits`.
    #[inline]
    fn diagonals(bits: u128) -> u128 {
        ((bits << (N + 1) & !Self::COL_0)
            | (bits << (N - 1) & !Self::COL_LAST)
            | (bits >> (N - 1) & !Self::COL_0)
            | (bits >> (N + 1) & !Self::COL_LAST))
            & Self::BOARD
    }

    /// The empty points of `stones` that are `player`'s eyes, as Monte-Carlo Go programs define
    /// them for their playouts: every neighbour on the board is `player`'s stone, and of the
    /// diagonal points at most one is the opponent's (none on the edge or in a corner). Filling
    /// one only takes a liberty from one's own group.
    fn eyes_of(stones: &[u128; 2], player: Player) -> u128 {
        let (mine, theirs) = (stones[player.index()], stones[1 - player.index()]);
        let empty = !(mine | theirs) & Self::BOARD;
        let mut candidates = empty & !Self::neighbours(empty | theirs);
        let mut eyes = 0;
        while candidates != 0 {
            let cell = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            let diagonals = Self::diagonals(1 << cell);
            let allowed = u32::from(diagonals.count_ones() == 4);
            if (diagonals & theirs).count_ones() <= allowed {
                eyes |= 1 << cell;
            }
        }
        eyes
    }

    /// Pushes the point of each bit of `bits` onto `out`, lowest first.
    fn push_points(mut bits: u128, out: &mut Vec<Action>) {
        while bits != 0 {
            out.push(bits.trailing_zeros() as Action);
            bits &= bits - 1;
        }
    }

    /// The Zobrist hash of a board (stones only).
    fn board_hash(stones: &[u128; 2]) -> u64 {
        zobrist::of_bits(stones[0], &STONE_KEYS[..MAX_CELLS])
            ^ zobrist::of_bits(stones[1], &STONE_KEYS[MAX_CELLS..])
    }

    /// The cells where the mover may place (empty, not the ko point, no suicide, and under
    /// `superko=illegal` no earlier board), as a bitboard. A cell with an empty neighbour is a
    /// liberty for the new stone, so under `superko=draw` only the cells without one need the
    /// capture test.
    fn placeable(&self) -> u128 {
        let empty = !(self.stones[0] | self.stones[1]) & Self::BOARD;
        let open = empty & !Self::ko_bit(self.ko);
        if self.params.superko == Superko::Draw {
            return Self::non_suicides(&self.stones, self.to_move, open);
        }
        let mut placeable = 0;
        let mut to_test = open;
        while to_test != 0 {
            let cell = to_test.trailing_zeros() as usize;
            to_test &= to_test - 1;
            let allowed = Self::place(&self.stones, self.to_move, cell)
                .is_some_and(|placed| !self.boards.contains(&placed.stones));
            if allowed {
                placeable |= 1 << cell;
            }
        }
        placeable
    }

    /// The points of `open` (empty ones) where `mover` places without suicide on `stones`: those
    /// beside an empty point at once, the others by placing.
    fn non_suicides(stones: &[u128; 2], mover: Player, open: u128) -> u128 {
        let empty = !(stones[0] | stones[1]) & Self::BOARD;
        let with_liberty = open & Self::neighbours(empty);
        let mut placeable = with_liberty;
        let mut to_test = open & !with_liberty;
        while to_test != 0 {
            let cell = to_test.trailing_zeros() as usize;
            to_test &= to_test - 1;
            if Self::place(stones, mover, cell).is_some() {
                placeable |= 1 << cell;
            }
        }
        placeable
    }

    /// The bit of the point a simple ko forbids, none without one.
    fn ko_bit(ko: Option<usize>) -> u128 {
        ko.map_or(0, |cell| 1 << cell)
    }

    fn max_plies(&self) -> usize {
        match self.params.max_plies {
            0 => 2 * Self::CELLS,
            plies => plies as usize,
        }
    }

    /// Tromp-Taylor area, Black's minus White's (komi not included).
    pub fn area_difference(&self) -> i32 {
        Self::area_difference_of(&self.stones)
    }

    /// Tromp-Taylor area of `stones`, Black's minus White's (komi not included).
    fn area_difference_of(stones: &[u128; 2]) -> i32 {
        let empty = !(stones[0] | stones[1]) & Self::BOARD;
        let mut difference = stones[0].count_ones() as i32 - stones[1].count_ones() as i32;
        let mut unvisited = empty;
        while unvisited != 0 {
            let region = Self::chain(empty, unvisited.trailing_zeros() as usize);
            let border = Self::neighbours(region);
            let (black, white) = (border & stones[0] != 0, border & stones[1] != 0);
            let size = region.count_ones() as i32;
            difference += match (black, white) {
                (true, false) => size,
                (false, true) => -size,
                _ => 0,
            };
            unvisited &= !region;
        }
        difference
    }

    /// The outcome of scoring `stones` with `komi`.
    fn scored(stones: &[u128; 2], komi: f32) -> Outcome {
        let margin = Self::area_difference_of(stones) as f32 - komi;
        if margin > 0.0 {
            Outcome::WinP0
        } else if margin < 0.0 {
            Outcome::WinP1
        } else {
            Outcome::Draw
        }
    }

    /// The stone (P0 = Black, P1 = White, or none) at `row` (0 = the row numbered 1), `col`.
    pub fn cell(&self, row: usize, col: usize) -> Option<Player> {
        let bit = 1u128 << (row * N + col);
        [Player::P0, Player::P1]
            .into_iter()
            .find(|p| self.stones[p.index()] & bit != 0)
    }

    fn ko_hash(ko: Option<usize>) -> u64 {
        ko.map_or(0, |cell| KO_KEYS[cell])
    }
}

/// The Go boards the registry compiles (each size is its own type, `Go<N>`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GoSize {
    #[default]
    Nine,
    Eleven,
}

/// `board_size` as a spec writes it.
const BOARD_SIZES: &[(&str, GoSize)] = &[("9", GoSize::Nine), ("11", GoSize::Eleven)];

/// Go as the registry names it: the board's size and the rules.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GoParams {
    pub size: GoSize,
    pub rules: GoRules,
}

impl GameParams for GoParams {
    const NAME: &'static str = Go::<9>::NAME;
    const DESCRIPTION: &'static str =
        "Go, Tromp-Taylor area scoring, simple ko, no suicide (OpenSpiel's go)";
    const PLAY_ONLY: &'static [&'static str] = &["komi", "superko", "max_plies"];
    const PARAMS: &'static [Param<Self>] = &[
        Param {
            key: "board_size",
            meaning: "the board's side: 9 or 11",
            set: |p, value| {
                p.size = parse_word(value, BOARD_SIZES)?;
                Ok(())
            },
            get: |p| word_of(&p.size, BOARD_SIZES).to_string(),
        },
        Param {
            key: "komi",
            meaning: "points given to White (P1)",
            set: |p, value| {
                p.rules.komi = parse_komi(value)?;
                Ok(())
            },
            get: |p| p.rules.komi.to_string(),
        },
        Param {
            key: "superko",
            meaning: "a move recreating an earlier board: draw (OpenSpiel) or illegal",
            set: |p, value| {
                p.rules.superko = parse_word(value, SUPERKO_WORDS)?;
                Ok(())
            },
            get: |p| word_of(&p.rules.superko, SUPERKO_WORDS).to_string(),
        },
        Param {
            key: "max_plies",
            meaning: "the game ends and is scored after this many plies (0: 2·N², OpenSpiel's)",
            set: |p, value| {
                p.rules.max_plies = parse_integer(value, (0, u16::MAX), " (0: 2·N²)")?;
                Ok(())
            },
            get: |p| p.rules.max_plies.to_string(),
        },
    ];

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        match self.size {
            GoSize::Nine => visitor.visit(Go::<9>::new(&self.rules)),
            GoSize::Eleven => visitor.visit(Go::<11>::new(&self.rules)),
        }
    }
}

impl<const N: usize> Game for Go<N> {
    const NAME: &'static str = "go";
    const NUM_ACTIONS: usize = N * N + 1;
    const HAS_DRAWS: bool = true;
    const PASS_ACTION: Option<Action> = Some(Self::PASS);
    const GTP_UPPER_CASE: bool = true;
    /// Planes over the board, cell `row·N + col` with row 0 = the row numbered 1: Black's
    /// stones, White's stones, Black to move, the ko point.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 4,
        rows: N,
        cols: N,
    };
    const ENCODING_VERSION: u32 = 1;
    /// The square's 7.
    const SYMMETRIES: &'static [Symmetry] = &Self::SYMMETRY_TABLE;

    type Params = GoRules;

    fn new(params: &GoRules) -> Go<N> {
        assert!((2..=MAX_SIZE).contains(&N), "Go boards are 2 to 11 wide");
        let mut position = Go {
            stones: [0; 2],
            params: *params,
            to_move: Player::P0,
            outcome: None,
            ko: None,
            last_was_pass: false,
            last_placement: None,
            ply: 0,
            mobility: [0; 2],
            hash: 0,
            boards: BoardHistory::default(),
        };
        position.boards.push([0; 2]);
        position.hash = position.hash_from_scratch();
        position
    }

    fn params(&self) -> &GoRules {
        &self.params
    }

    fn max_game_length(&self) -> usize {
        self.max_plies()
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
        Self::push_points(self.placeable(), out);
        out.push(Self::PASS);
    }

    /// The placements that fill none of the mover's eyes; a pass only when there is none.
    fn playout_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        match self.params.superko {
            Superko::Draw => Self::playout_moves(&self.stones, self.to_move, self.ko, out),
            Superko::Illegal => {
                let eyes = Self::eyes_of(&self.stones, self.to_move);
                Self::push_points(self.placeable() & !eyes, out);
                if out.is_empty() {
                    out.push(Self::PASS);
                }
            }
        }
    }

    /// On lighter rules: `go/playout.rs`.
    fn playout_outcome<R: Rng + ?Sized>(
        self,
        rng: &mut R,
        actions: &mut Vec<Action>,
        played: &mut Vec<(Player, Action)>,
    ) -> Outcome {
        self.light_playout(true, rng, actions, played)
    }

    fn is_legal(&self, action: Action) -> bool {
        self.outcome.is_none()
            && (action == Self::PASS
                || ((action as usize) < Self::CELLS && self.placeable() >> action & 1 == 1))
    }

    fn play(&mut self, action: Action) {
        debug_assert!(
            self.is_legal(action),
            "illegal Go action {action} in\n{self}"
        );
        let mover = self.to_move;
        let legal = 1 + self.placeable().count_ones();
        self.mobility[mover.index()] += legal as u16;
        self.ko = None;
        let was_pass = self.last_was_pass;
        self.last_was_pass = action == Self::PASS;
        self.last_placement = (action != Self::PASS).then_some(action as u8);
        let mut recreated = false;
        if action != Self::PASS {
            let cell = action as usize;
            let placed = Self::place(&self.stones, mover, cell).expect("a legal placement");
            self.ko = Self::ko_after(&self.stones, mover, cell, &placed);
            self.stones = placed.stones;
            recreated = self.boards.contains(&self.stones);
            self.boards.push(self.stones);
        }
        self.ply += 1;
        self.to_move = mover.opponent();
        if recreated {
            self.outcome = Some(Outcome::Draw);
        } else if (was_pass && self.last_was_pass) || self.ply as usize >= self.max_plies() {
            self.outcome = Some(Self::scored(&self.stones, self.params.komi));
        }
        // Captures change many stones: recomputed rather than updated.
        self.hash = self.hash_from_scratch();
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
        Self::board_hash(&self.stones) ^ side ^ Self::ko_hash(self.ko)
    }

    /// The Tromp-Taylor margin, komi included, rounded away from zero (so its sign is the
    /// result's).
    fn score_p0(&self) -> Option<i32> {
        let margin = self.area_difference() as f32 - self.params.komi;
        Some(if margin >= 0.0 {
            margin.ceil() as i32
        } else {
            margin.floor() as i32
        })
    }

    /// The Tromp-Taylor margin, komi included, unrounded (`B+3.5`).
    fn exact_score_p0(&self) -> Option<f64> {
        Some(f64::from(self.area_difference()) - f64::from(self.params.komi))
    }

    fn piece_counts(&self) -> [u32; 2] {
        self.stones.map(u128::count_ones)
    }

    fn mobility_sums(&self) -> [u32; 2] {
        self.mobility.map(u32::from)
    }

    fn encode(&self, out: &mut [f32]) {
        let cells = Self::CELLS;
        assert_eq!(out.len(), 4 * cells, "Go encodes into {} floats", 4 * cells);
        let (stones, ko) = out.split_at_mut(3 * cells);
        super::board_planes::encode_stone_planes(stones, cells, self.to_move, |p, cell| {
            self.stones[p] >> cell & 1 == 1
        });
        ko.fill(0.0);
        if let Some(cell) = self.ko {
            ko[cell] = 1.0;
        }
    }

    /// The image board, ko point, last placement and board history; the same side to move.
    fn apply_symmetry(&self, index: usize) -> Go<N> {
        let table = &Self::SYMMETRY_TABLES.0[index];
        let map = |bits: u128| {
            (0..Self::CELLS)
                .filter(|&cell| bits >> cell & 1 == 1)
                .fold(0u128, |acc, cell| acc | 1 << table[cell])
        };
        let mut image = self.clone();
        image.stones = self.stones.map(map);
        image.ko = self.ko.map(|cell| table[cell] as usize);
        image.last_placement = self.last_placement.map(|cell| table[cell as usize] as u8);
        image.boards = self.boards.map(|board| board.map(map));
        image.hash = image.hash_from_scratch();
        image
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        if action == Self::PASS {
            return "pass".to_string();
        }
        let cell = action as usize;
        format!("{}{}", char::from(COLUMN_LETTERS[cell % N]), cell / N + 1)
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let text = text.trim().to_ascii_lowercase();
        if text == "pass" {
            return Ok(Self::PASS);
        }
        let mut chars = text.chars();
        let col = chars
            .next()
            .and_then(|c| COLUMN_LETTERS[..N].iter().position(|&l| char::from(l) == c));
        let row = chars
            .as_str()
            .parse::<usize>()
            .ok()
            .filter(|r| (1..=N).contains(r));
        match (col, row) {
            (Some(col), Some(row)) => Ok(((row - 1) * N + col) as Action),
            _ => Err(MoveError::Unparsable {
                text: text.to_string(),
                expected: Self::notation_help().to_string(),
            }),
        }
    }

    fn notation_help() -> &'static str {
        "a point: column letter (a-j or a-l, no i) and row number from the bottom, e.g. e5, or pass"
    }

    /// The lines of the board with its star points; a point is named by its column letter
    /// and its row from the bottom (`e5`).
    fn board_view(&self) -> BoardView {
        let name = |r: usize, c: usize| format!("{}{}", char::from(COLUMN_LETTERS[c]), N - r);
        let cells = stone_cells((N, N), name, |r, c| self.cell(N - 1 - r, c));
        let edge = if N >= 13 { 3 } else { 2 };
        let stars = [
            (edge, edge),
            (edge, N - 1 - edge),
            (N / 2, N / 2),
            (N - 1 - edge, edge),
            (N - 1 - edge, N - 1 - edge),
        ];
        let layout = Layout::Intersections {
            rows: N,
            cols: N,
            stars: stars.to_vec(),
        };
        let columns = COLUMN_LETTERS[..N]
            .iter()
            .map(|&l| char::from(l).to_string())
            .collect();
        BoardView::new(layout, cells, (columns, numbers(N, true)))
    }

    fn move_cells(&self, action: Action) -> Vec<String> {
        match action == Self::PASS {
            true => Vec::new(),
            false => vec![self.move_to_text(action)],
        }
    }
}

impl<const N: usize> fmt::Display for Go<N> {
    /// OpenSpiel's picture: rows from N down to 1, `X` Black (P0), `O` White (P1), `+` empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..N).rev() {
            write!(f, "{:>2} ", row + 1)?;
            for col in 0..N {
                let symbol = match self.cell(row, col) {
                    Some(Player::P0) => 'X',
                    Some(Player::P1) => 'O',
                    None => '+',
                };
                write!(f, "{symbol}")?;
            }
            writeln!(f)?;
        }
        let letters: String = COLUMN_LETTERS[..N].iter().map(|&l| char::from(l)).collect();
        write!(f, "   {}  {} to move", letters.to_uppercase(), self.to_move)
    }
}
