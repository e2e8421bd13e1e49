//! Surakarta on 6 × 6 points (docs/games.md; Ludii's "Official" rules, the Computer Olympiad's
//! end rule). Each player has 12 pieces: P0 on rows 1-2, P1 on rows 5-6; P0 moves first.
//!
//! - **Step**: a piece moves to one of its 8 neighbouring points, if empty.
//! - **Capture**: a piece travels along a circuit over empty points, through at least one of the
//!   circuit's corner loops, and lands on the first occupied point, which must hold an enemy
//!   piece (removed). Its own starting point counts as empty when the path crosses it again.
//!   Captures are optional.
//! - **Circuits**: the inner one runs along lines 2 and 5 (columns b, e and rows 2, 5), the outer
//!   one along lines 3 and 4; each joins the ends of its lines by four loops around the corners.
//!   The corner points lie on no circuit.
//! - **End**: a player left without pieces loses, and so does a player with no move (the
//!   sources do not cover it). The Olympiad's rule ends the game, counting pieces (more
//!   wins, equal draws), after 50 plies without a capture (`no_capture_plies`) or as soon as a
//!   position recurs with the same side to move (`repetition=false` turns that off). After a
//!   move, in this order: the opponent has no piece, the count of plies, the repetition, the
//!   opponent has no move.
//!
//! Point `row·6 + col`, row 0 = rank 1 (P0's side), col 0 = file a. Ids `from·36 + to` (a step
//! goes to an empty point and a capture to an enemy piece, so the pair names the move even when
//! several paths reach it). Text: `b2-c3` for a step, `b1xa5` for a capture (either separator or
//! none is read). Score: the piece difference (the paper's presence heuristic). Symmetries: the
//! square's 7 (they map each circuit onto itself); an image starts a new repetition history.

use std::fmt;

use super::board_view::{BoardView, squares_board, stone_cells};
use super::cell_text::{cell_text, split_cell};
use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, PositionError, Symmetry,
};
use super::game_params::{GameParams, Param, parse_bool, parse_integer};
use super::picture::{read_picture, symbol_bitboards};
use super::registry::GameVisitor;
use super::repetition::RepetitionHistory;
use super::square_symmetry::{map_bitboard, non_identity_cells, table_symmetries};
use super::zobrist;

const SIZE: usize = 6;
const CELLS: usize = SIZE * SIZE;
const NUM_ACTIONS: usize = CELLS * CELLS;
/// Points of a circuit, the intersections counted twice.
const CIRCUIT_LEN: usize = 24;

/// The inner (lines 2 and 5) and outer (lines 3 and 4) circuits, each as its 24 points in the
/// order of travel: up the line's column, the top-left loop, right along the row, the top-right
/// loop, down the column, the bottom-right loop, left along the row, the bottom-left loop. A
/// loop lies between indices 5 and 6, 11 and 12, 17 and 18, 23 and 0.
const CIRCUITS: [[u8; CIRCUIT_LEN]; 2] = [circuit(1), circuit(2)];

const fn circuit(line: usize) -> [u8; CIRCUIT_LEN] {
    let far = SIZE - 1 - line;
    let mut points = [0u8; CIRCUIT_LEN];
    let mut k = 0;
    while k < SIZE {
        points[k] = (k * SIZE + line) as u8; // up column `line`
        points[SIZE + k] = (far * SIZE + k) as u8; // right along row `far`
        points[2 * SIZE + k] = ((SIZE - 1 - k) * SIZE + far) as u8; // down column `far`
        points[3 * SIZE + k] = (line * SIZE + SIZE - 1 - k) as u8; // left along row `line`
        k += 1;
    }
    points
}

/// `(circuit, index)` of each occurrence of a point on the circuits (at most 2), and how many.
const OCCURRENCES: [([(u8, u8); 2], u8); CELLS] = {
    let mut table = [([(0u8, 0u8); 2], 0u8); CELLS];
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < CIRCUIT_LEN {
            let cell = CIRCUITS[c][i] as usize;
            let n = table[cell].1 as usize;
            table[cell].0[n] = (c as u8, i as u8);
            table[cell].1 += 1;
            i += 1;
        }
        c += 1;
    }
    table
};

/// Points on each circuit, as bitboards.
const ON_CIRCUIT: [u64; 2] = {
    let mut masks = [0u64; 2];
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < CIRCUIT_LEN {
            masks[c] |= 1 << CIRCUITS[c][i];
            i += 1;
        }
        c += 1;
    }
    masks
};

/// The 8 neighbours of each point, as bitboards.
const NEIGHBOURS: [u64; CELLS] = {
    let mut table = [0u64; CELLS];
    let mut cell = 0;
    while cell < CELLS {
        let (row, col) = ((cell / SIZE) as i32, (cell % SIZE) as i32);
        let mut dr = -1;
        while dr <= 1 {
            let mut dc = -1;
            while dc <= 1 {
                let (r, c) = (row + dr, col + dc);
                if (dr != 0 || dc != 0) && r >= 0 && c >= 0 && r < SIZE as i32 && c < SIZE as i32 {
                    table[cell] |= 1 << (r as usize * SIZE + c as usize);
                }
                dc += 1;
            }
            dr += 1;
        }
        cell += 1;
    }
    table
};

const PIECE_KEYS: [u64; 2 * CELLS] = zobrist::keys(0x5A4A_0000_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0x5A4A_0000_0000_0002)[0];
/// The plies since the last capture (0..=1000): positions that differ only there
/// have different values and encodings, so the hash tells them apart.
const QUIET_KEYS: [u64; 1001] = zobrist::keys(0x5A4A_0000_0000_0003);

/// Rule options of Surakarta.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurakartaParams {
    /// Plies without a capture after which the game ends, the pieces counted (the Olympiad: 50).
    pub no_capture_plies: u16,
    /// A position recurring with the same side to move ends the game, the pieces counted.
    pub repetition: bool,
}

impl Default for SurakartaParams {
    fn default() -> Self {
        SurakartaParams {
            no_capture_plies: 50,
            repetition: true,
        }
    }
}

/// A Surakarta position.
#[derive(Clone, Debug)]
pub struct Surakarta {
    /// Each player's pieces, bit `row·6 + col`.
    pieces: [u64; 2],
    params: SurakartaParams,
    to_move: Player,
    outcome: Option<Outcome>,
    ply: u16,
    /// Plies since the last capture.
    since_capture: u16,
    /// The legal moves of the player to move (its mobility, counted when it moves).
    moves_available: u16,
    mobility: [u32; 2],
    /// The pieces and the side to move (the repetition rule's key), without the quiet plies.
    board_hash: u64,
    /// The positions since the last capture (this one included).
    history: RepetitionHistory,
}

impl Surakarta {
    fn occupied(&self) -> u64 {
        self.pieces[0] | self.pieces[1]
    }

    /// The enemy pieces the piece on `from` can capture along the circuits.
    fn capture_targets(&self, from: usize) -> u64 {
        let (occurrences, count) = OCCURRENCES[from];
        let enemy = self.pieces[self.to_move.opponent().index()];
        let blocking = self.occupied() & !(1 << from);
        let mut targets = 0;
        for &(c, start) in &occurrences[..count as usize] {
            let path = &CIRCUITS[c as usize];
            for forward in [true, false] {
                let mut index = start as usize;
                let mut looped = false;
                for _ in 0..CIRCUIT_LEN {
                    // A loop joins indices 5 | 6, 11 | 12, 17 | 18 and 23 | 0.
                    let next = if forward {
                        looped |= index % SIZE == SIZE - 1;
                        (index + 1) % CIRCUIT_LEN
                    } else {
                        looped |= index.is_multiple_of(SIZE);
                        (index + CIRCUIT_LEN - 1) % CIRCUIT_LEN
                    };
                    index = next;
                    let cell = path[index];
                    if blocking >> cell & 1 == 1 {
                        targets |= u64::from(looped) * (enemy & 1 << cell);
                        break;
                    }
                }
            }
        }
        targets
    }

    /// The points the piece on `from` can move to: empty neighbours and capture targets.
    fn destinations(&self, from: usize) -> u64 {
        let steps = NEIGHBOURS[from] & !self.occupied();
        let on_circuit = (ON_CIRCUIT[0] | ON_CIRCUIT[1]) >> from & 1 == 1;
        if on_circuit {
            steps | self.capture_targets(from)
        } else {
            steps
        }
    }

    fn count_moves(&self) -> u16 {
        let mut count = 0;
        let mut mine = self.pieces[self.to_move.index()];
        while mine != 0 {
            count += self
                .destinations(mine.trailing_zeros() as usize)
                .count_ones();
            mine &= mine - 1;
        }
        count as u16
    }

    /// The end by counting pieces: more wins, equal draws.
    fn by_count(&self) -> Outcome {
        let [p0, p1] = self.piece_counts();
        Outcome::by_counts(p0, p1)
    }

    /// A position from a picture (rank 1 first; `x` a P0 piece, `o` a P1 piece, `.` empty) with
    /// `to_move` to play, at ply 0, no capture counted and no history; over already if a side
    /// has no piece or the mover no move.
    pub fn from_picture(
        picture: &str,
        to_move: Player,
        params: &SurakartaParams,
    ) -> Result<Surakarta, PositionError> {
        let cells = read_picture(Self::NAME, picture, SIZE, SIZE, &['x', 'o'])?;
        let [p0, p1] = symbol_bitboards::<2>(&cells);
        let mut position = Surakarta::new(params);
        position.pieces = [p0 as u64, p1 as u64];
        position.to_move = to_move;
        position.board_hash = position.board_hash_from_scratch();
        position.history.clear();
        position.history.push(position.board_hash);
        position.moves_available = position.count_moves();
        position.outcome = match position.piece_counts() {
            [0, _] => Some(Outcome::WinP1),
            [_, 0] => Some(Outcome::WinP0),
            _ if position.moves_available == 0 => Some(Outcome::win_for(to_move.opponent())),
            _ => None,
        };
        Ok(position)
    }

    fn board_hash_from_scratch(&self) -> u64 {
        let side = if self.to_move == Player::P1 {
            P1_TO_MOVE_KEY
        } else {
            0
        };
        side ^ zobrist::of_bits(u128::from(self.pieces[0]), &PIECE_KEYS[..CELLS])
            ^ zobrist::of_bits(u128::from(self.pieces[1]), &PIECE_KEYS[CELLS..])
    }

    /// Plies since the last capture.
    pub fn plies_since_capture(&self) -> usize {
        self.since_capture as usize
    }

    /// Whether `action` (legal here) captures.
    fn captures(&self, action: Action) -> bool {
        let to = action as usize % CELLS;
        self.pieces[self.to_move.opponent().index()] >> to & 1 == 1
    }
}

static CELL_IMAGES: [[u16; CELLS]; 7] = non_identity_cells(SIZE);
static ACTION_IMAGES: [[Action; NUM_ACTIONS]; 7] = {
    let mut all = [[0; NUM_ACTIONS]; 7];
    let mut k = 0;
    while k < 7 {
        let mut action = 0;
        while action < NUM_ACTIONS {
            let (from, to) = (action / CELLS, action % CELLS);
            all[k][action] = CELL_IMAGES[k][from] * CELLS as u16 + CELL_IMAGES[k][to];
            action += 1;
        }
        k += 1;
    }
    all
};
const SYMMETRIES: [Symmetry; 7] = table_symmetries(&CELL_IMAGES, &ACTION_IMAGES);

impl GameParams for SurakartaParams {
    const NAME: &'static str = Surakarta::NAME;
    const DESCRIPTION: &'static str =
        "Surakarta, 6 × 6: step to a neighbour, or capture along a circuit through a corner loop";
    const PARAMS: &'static [Param<Self>] = &[
        Param {
            key: "no_capture_plies",
            meaning: "the game ends after this many plies without a capture, the pieces counted",
            set: |p, value| {
                p.no_capture_plies = parse_integer(value, (1, 1000), "")?;
                Ok(())
            },
            get: |p| p.no_capture_plies.to_string(),
        },
        Param {
            key: "repetition",
            meaning: "a position recurring with the same side to move ends the game, the pieces counted",
            set: |p, value| {
                p.repetition = parse_bool(value)?;
                Ok(())
            },
            get: |p| p.repetition.to_string(),
        },
    ];

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        visitor.visit(Surakarta::new(self))
    }
}

impl Game for Surakarta {
    const NAME: &'static str = "surakarta";
    const NUM_ACTIONS: usize = NUM_ACTIONS;
    const HAS_DRAWS: bool = true;
    /// Planes over the board, row 0 = rank 1: P0's pieces, P1's pieces, P0 to move, the plies
    /// since the last capture over `no_capture_plies`, the inner circuit, the outer circuit.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 6,
        rows: SIZE,
        cols: SIZE,
    };
    const ENCODING_VERSION: u32 = 1;
    const SYMMETRIES: &'static [Symmetry] = &SYMMETRIES;

    type Params = SurakartaParams;

    fn new(params: &SurakartaParams) -> Surakarta {
        let mut position = Surakarta {
            pieces: [(1 << (2 * SIZE)) - 1, ((1 << (2 * SIZE)) - 1) << (4 * SIZE)],
            params: *params,
            to_move: Player::P0,
            outcome: None,
            ply: 0,
            since_capture: 0,
            moves_available: 0,
            mobility: [0; 2],
            board_hash: 0,
            history: RepetitionHistory::default(),
        };
        position.board_hash = position.board_hash_from_scratch();
        position.history.push(position.board_hash);
        position.moves_available = position.count_moves();
        position
    }

    fn params(&self) -> &SurakartaParams {
        &self.params
    }

    /// At most 23 captures, each after fewer than `no_capture_plies` plies, and as many plies
    /// after the last.
    fn max_game_length(&self) -> usize {
        24 * self.params.no_capture_plies as usize
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
        let mut mine = self.pieces[self.to_move.index()];
        while mine != 0 {
            let from = mine.trailing_zeros() as usize;
            let mut to = self.destinations(from);
            while to != 0 {
                out.push((from * CELLS + to.trailing_zeros() as usize) as Action);
                to &= to - 1;
            }
            mine &= mine - 1;
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        let (from, to) = (action as usize / CELLS, action as usize % CELLS);
        self.outcome.is_none()
            && (action as usize) < NUM_ACTIONS
            && self.pieces[self.to_move.index()] >> from & 1 == 1
            && self.destinations(from) >> to & 1 == 1
    }

    fn play(&mut self, action: Action) {
        debug_assert!(
            self.is_legal(action),
            "illegal Surakarta action {action}\n{self}"
        );
        let (from, to) = (action as usize / CELLS, action as usize % CELLS);
        let (me, them) = (self.to_move.index(), self.to_move.opponent().index());
        let captures = self.captures(action);
        self.mobility[me] += u32::from(self.moves_available);
        self.pieces[me] ^= 1 << from | 1 << to;
        self.board_hash ^= PIECE_KEYS[me * CELLS + from] ^ PIECE_KEYS[me * CELLS + to];
        if captures {
            self.pieces[them] ^= 1 << to;
            self.board_hash ^= PIECE_KEYS[them * CELLS + to];
            self.since_capture = 0;
            self.history.clear();
        } else {
            self.since_capture += 1;
        }
        self.to_move = self.to_move.opponent();
        self.board_hash ^= P1_TO_MOVE_KEY;
        self.ply += 1;
        let repeated = self.params.repetition && self.history.contains(self.board_hash);
        self.history.push(self.board_hash);
        self.moves_available = self.count_moves();
        self.outcome = if self.pieces[them] == 0 {
            Some(Outcome::win_for(Player::from_index(me)))
        } else if self.since_capture >= self.params.no_capture_plies || repeated {
            Some(self.by_count())
        } else if self.moves_available == 0 {
            Some(Outcome::win_for(Player::from_index(me)))
        } else {
            None
        };
    }

    #[inline]
    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// The pieces, the side to move and the plies since the last capture.
    #[inline]
    fn hash(&self) -> u64 {
        self.board_hash ^ QUIET_KEYS[self.since_capture as usize]
    }

    fn hash_from_scratch(&self) -> u64 {
        self.board_hash_from_scratch() ^ QUIET_KEYS[self.since_capture as usize]
    }

    fn score_p0(&self) -> Option<i32> {
        let [p0, p1] = self.piece_counts();
        Some(p0 as i32 - p1 as i32)
    }

    fn piece_counts(&self) -> [u32; 2] {
        self.pieces.map(u64::count_ones)
    }

    fn mobility_sums(&self) -> [u32; 2] {
        self.mobility
    }

    fn encode(&self, out: &mut [f32]) {
        assert_eq!(out.len(), Self::ENCODING.len(), "one encoded position");
        out.fill(0.0);
        let planes = [
            self.pieces[0],
            self.pieces[1],
            0,
            0,
            ON_CIRCUIT[0],
            ON_CIRCUIT[1],
        ];
        for (plane, bits) in out.chunks_exact_mut(CELLS).zip(planes) {
            for (cell, value) in plane.iter_mut().enumerate() {
                *value = (bits >> cell & 1) as f32;
            }
        }
        out[2 * CELLS..3 * CELLS].fill((self.to_move == Player::P0) as u8 as f32);
        let counter = f32::from(self.since_capture) / f32::from(self.params.no_capture_plies);
        out[3 * CELLS..4 * CELLS].fill(counter);
    }

    fn apply_symmetry(&self, index: usize) -> Surakarta {
        let table = &CELL_IMAGES[index];
        let mut image = self.clone();
        image.pieces = self.pieces.map(|bits| map_bitboard(bits, table, CELLS));
        image.board_hash = image.board_hash_from_scratch();
        image.history.clear();
        image.history.push(image.board_hash);
        image
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        let square = |cell: usize| cell_text(cell % SIZE, cell / SIZE + 1);
        let (from, to) = (action as usize / CELLS, action as usize % CELLS);
        if from >= CELLS {
            return format!("?{action}");
        }
        format!("{}-{}", square(from), square(to))
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let text = text.trim();
        let unparsable = || MoveError::Unparsable {
            text: text.to_string(),
            expected: Self::notation_help().to_string(),
        };
        fn point(text: &str) -> Option<(usize, &str)> {
            let (col, number, rest) = split_cell(text)?;
            (col < SIZE && (1..=SIZE).contains(&number)).then(|| ((number - 1) * SIZE + col, rest))
        }
        if text.chars().any(|c| c.is_ascii_uppercase()) {
            return Err(unparsable());
        }
        let (from, rest) = point(text).ok_or_else(unparsable)?;
        let rest = rest
            .strip_prefix('-')
            .or_else(|| rest.strip_prefix('x'))
            .unwrap_or(rest);
        match point(rest) {
            Some((to, "")) => Ok((from * CELLS + to) as Action),
            _ => Err(unparsable()),
        }
    }

    fn move_to_text(&self, action: Action) -> String {
        let text = Self::action_to_text(self.to_move, action);
        if (action as usize) < NUM_ACTIONS && self.captures(action) {
            text.replacen('-', "x", 1)
        } else {
            text
        }
    }

    fn notation_help() -> &'static str {
        "from and to points, lower-case: b2-c3 (a step), b1xa5 (a capture); the separator may be left out"
    }

    /// 6 × 6 squares, row 1 at the bottom (the circuits are not drawn); a move is its piece's
    /// square, then where it goes.
    fn board_view(&self) -> BoardView {
        let owner = |r: usize, c: usize| {
            let cell = (SIZE - 1 - r) * SIZE + c;
            [Player::P0, Player::P1]
                .into_iter()
                .find(|p| self.pieces[p.index()] >> cell & 1 == 1)
        };
        let cells = stone_cells((SIZE, SIZE), |r, c| cell_text(c, SIZE - r), owner);
        squares_board(cells, (SIZE, SIZE), false, true)
    }

    fn move_cells(&self, action: Action) -> Vec<String> {
        let (from, to) = (action as usize / CELLS, action as usize % CELLS);
        if from >= CELLS {
            return Vec::new();
        }
        [from, to]
            .map(|cell| cell_text(cell % SIZE, cell / SIZE + 1))
            .to_vec()
    }
}

impl fmt::Display for Surakarta {
    /// Rank 6 first: `x` P0's pieces, `o` P1's, `.` empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..SIZE).rev() {
            write!(f, "{}", row + 1)?;
            for col in 0..SIZE {
                let cell = row * SIZE + col;
                let symbol = match (self.pieces[0] >> cell & 1, self.pieces[1] >> cell & 1) {
                    (1, _) => 'x',
                    (_, 1) => 'o',
                    _ => '.',
                };
                write!(f, " {symbol}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "  a b c d e f")?;
        write!(f, "{} to move", self.to_move)
    }
}
