//! Lines of Action on 8 × 8 (docs/games.md), the Computer Olympiad's rules by default:
//! Black (P0, `x`) on b1-g1 and b8-g8, White (P1, `o`) on a2-a7 and h2-h7, Black first. A piece
//! moves along a rank, file or diagonal exactly as many squares as there are pieces (of both
//! colours) on that whole line; it may jump over its own pieces, not over enemy ones, and captures
//! by landing on an enemy piece. Whoever gathers all its pieces into one 8-connected group wins.
//!
//! OpenSpiel's `lines_of_action` differs in four rules; each is a parameter (OpenSpiel's settings:
//! `lines_of_action(simultaneous=mover,no_move=loses,repetition=second_board,draw_first=true)`):
//! - `simultaneous`: a move connecting both sides is a `draw` (Olympiad) or a win for the `mover`;
//! - `no_move`: a player without a move must `pass` (Olympiad; action 8192) or `loses`;
//! - `repetition`: the `third` occurrence of a position with the same side to move is a draw
//!   (Olympiad), or the `second_board`: any board seen before, whichever side moves;
//! - `draw_first`: the ply cap and the repetition draw take precedence over a connection made by
//!   the same move (OpenSpiel), or not (`false`: a connection always wins).
//!
//! `max_plies` (1000, OpenSpiel's) ends the game as a draw. Action id
//! `((from·64 + to)·2 + capture` with cells `row·8 + col`, row 0 = rank 1 at the bottom
//! (OpenSpiel's `(((r·8 + c)·8 + r2)·8 + c2)·2 + capture`); text `b1-b3`, a capture `c1xa3`,
//! `pass`.

use std::fmt;

use super::board_view::{BoardView, squares_board, stone_cells};
use super::cell_text::{cell_text, split_cell};
use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, PositionError, Symmetry,
};
use super::game_params::{GameParams, Param, parse_bool, parse_plies, parse_word, word_of};
use super::picture::read_picture;
use super::registry::GameVisitor;
use super::repetition::RepetitionHistory;
use super::square_symmetry::{map_bitboard, non_identity_cells, table_symmetries};
use super::zobrist;

const SIZE: usize = 8;
const CELLS: usize = SIZE * SIZE;
/// The pass action (legal only under `no_move=pass`, for a player without a move).
pub const PASS: Action = (CELLS * CELLS * 2) as Action;

/// OpenSpiel's direction order: (row step, column step), up = towards rank 8.
const DIRECTIONS: [(i32, i32); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];

/// `LINES[cell][line]`: the cells of the file, rising diagonal, rank and falling diagonal
/// through `cell` (`line` = direction % 4).
const LINES: [[u64; 4]; CELLS] = {
    let mut lines = [[0u64; 4]; CELLS];
    let mut cell = 0;
    while cell < CELLS {
        let mut line = 0;
        while line < 4 {
            let mut mask = 1u64 << cell;
            let mut side = 0;
            while side < 2 {
                let (dr, dc) = DIRECTIONS[line + 4 * side];
                let (mut r, mut c) = ((cell / SIZE) as i32 + dr, (cell % SIZE) as i32 + dc);
                while r >= 0 && c >= 0 && r < SIZE as i32 && c < SIZE as i32 {
                    mask |= 1 << (r as usize * SIZE + c as usize);
                    r += dr;
                    c += dc;
                }
                side += 1;
            }
            lines[cell][line] = mask;
            line += 1;
        }
        cell += 1;
    }
    lines
};

const NOT_COL_A: u64 = !0x0101_0101_0101_0101;
const NOT_COL_H: u64 = !0x8080_8080_8080_8080;

/// The cells next to the cells of `bits` (8-neighbourhood), and `bits`.
#[inline]
fn dilate(bits: u64) -> u64 {
    let sideways = bits | (bits << 1 & NOT_COL_A) | (bits >> 1 & NOT_COL_H);
    sideways | sideways << 8 | sideways >> 8
}

/// Whether the pieces of `bits` form one 8-connected group (an empty set counts as connected).
#[inline]
fn connected(bits: u64) -> bool {
    let mut group = bits & bits.wrapping_neg();
    loop {
        let grown = dilate(group) & bits;
        if grown == group {
            return group == bits;
        }
        group = grown;
    }
}

// Zobrist keys: [player][cell].
const PIECE_KEYS: [u64; 2 * CELLS] = zobrist::keys(0x10A0_0000_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0x10A0_0000_0000_0002)[0];

/// What a move connecting both sides at once does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simultaneous {
    /// A draw (the Olympiad's rule).
    Draw,
    /// The mover wins (OpenSpiel's).
    MoverWins,
}

/// What happens to a player without a legal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoMove {
    /// It passes (the Olympiad's rule).
    Pass,
    /// It loses (OpenSpiel's).
    Loses,
}

/// Which repetition ends the game in a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repetition {
    /// The third occurrence of a position with the same side to move (the Olympiad's rule).
    ThirdPosition,
    /// The second occurrence of a board, whichever side is to move (OpenSpiel's).
    SecondBoard,
}

/// Each rule's words as a spec writes them.
const SIMULTANEOUS_WORDS: &[(&str, Simultaneous)] = &[
    ("draw", Simultaneous::Draw),
    ("mover", Simultaneous::MoverWins),
];
const NO_MOVE_WORDS: &[(&str, NoMove)] = &[("pass", NoMove::Pass), ("loses", NoMove::Loses)];
const REPETITION_WORDS: &[(&str, Repetition)] = &[
    ("third", Repetition::ThirdPosition),
    ("second_board", Repetition::SecondBoard),
];

/// Rule options of Lines of Action (the module doc says which is whose).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinesOfActionParams {
    pub simultaneous: Simultaneous,
    pub no_move: NoMove,
    pub repetition: Repetition,
    /// The cap and the repetition draw override a connection made by the same move.
    pub draw_first: bool,
    /// The game is a draw after this many plies.
    pub max_plies: u16,
}

impl Default for LinesOfActionParams {
    fn default() -> Self {
        LinesOfActionParams {
            simultaneous: Simultaneous::Draw,
            no_move: NoMove::Pass,
            repetition: Repetition::ThirdPosition,
            draw_first: false,
            max_plies: 1000,
        }
    }
}

impl LinesOfActionParams {
    /// OpenSpiel's `lines_of_action` rules.
    pub fn openspiel() -> Self {
        LinesOfActionParams {
            simultaneous: Simultaneous::MoverWins,
            no_move: NoMove::Loses,
            repetition: Repetition::SecondBoard,
            draw_first: true,
            max_plies: 1000,
        }
    }
}

/// A Lines of Action position.
#[derive(Clone, Debug)]
pub struct LinesOfAction {
    pieces: [u64; 2],
    params: LinesOfActionParams,
    to_move: Player,
    outcome: Option<Outcome>,
    ply: u16,
    mobility: [u16; 2],
    hash: u64,
    /// Hashes since the last capture: of the positions (`ThirdPosition`) or of the boards alone
    /// (`SecondBoard`), the current one included.
    history: RepetitionHistory,
}

impl LinesOfAction {
    /// The cells the piece on `from` can move to, for its owner `player`.
    fn targets(&self, player: Player, from: usize) -> u64 {
        let own = self.pieces[player.index()];
        let enemy = self.pieces[1 - player.index()];
        let occupied = own | enemy;
        let mut targets = 0;
        for (direction, &(dr, dc)) in DIRECTIONS.iter().enumerate() {
            let distance = (LINES[from][direction % 4] & occupied).count_ones() as i32;
            let (row, col) = ((from / SIZE) as i32, (from % SIZE) as i32);
            let (to_row, to_col) = (row + distance * dr, col + distance * dc);
            if !(0..SIZE as i32).contains(&to_row) || !(0..SIZE as i32).contains(&to_col) {
                continue;
            }
            let jumped_enemy = (1..distance).any(|k| {
                let cell = (row + k * dr) as usize * SIZE + (col + k * dc) as usize;
                enemy >> cell & 1 == 1
            });
            let to = to_row as usize * SIZE + to_col as usize;
            if !jumped_enemy && own >> to & 1 == 0 {
                targets |= 1 << to;
            }
        }
        targets
    }

    /// The mover's moves as (from, targets) pairs, from cells in increasing order.
    fn moves(&self, player: Player) -> impl Iterator<Item = (usize, u64)> + '_ {
        let mut own = self.pieces[player.index()];
        std::iter::from_fn(move || {
            (own != 0).then(|| {
                let from = own.trailing_zeros() as usize;
                own &= own - 1;
                (from, self.targets(player, from))
            })
        })
    }

    fn move_count(&self, player: Player) -> u32 {
        self.moves(player).map(|(_, t)| t.count_ones()).sum()
    }

    /// The piece (P0, P1 or none) at `row` (0 = rank 1), `col`.
    pub fn cell(&self, row: usize, col: usize) -> Option<Player> {
        let bit = 1u64 << (row * SIZE + col);
        [Player::P0, Player::P1]
            .into_iter()
            .find(|p| self.pieces[p.index()] & bit != 0)
    }

    /// The hash the repetition rule compares.
    fn repetition_key(&self) -> u64 {
        match self.params.repetition {
            Repetition::ThirdPosition => self.hash,
            Repetition::SecondBoard if self.to_move == Player::P1 => self.hash ^ P1_TO_MOVE_KEY,
            Repetition::SecondBoard => self.hash,
        }
    }

    /// A position from a picture: 8 rows from rank 8 (the top) of `x` (P0), `o` (P1) and `.`,
    /// `to_move` to play, at ply 0 with no history; over already if a side is connected (as if
    /// the other side had just moved), or under `no_move=loses` if the mover has no move.
    pub fn from_picture(
        params: LinesOfActionParams,
        picture: &str,
        to_move: Player,
    ) -> Result<LinesOfAction, PositionError> {
        let cells = read_picture(Self::NAME, picture, SIZE, SIZE, &['x', 'o'])?;
        let mut position = LinesOfAction::new(&params);
        position.pieces = [0; 2];
        for (index, owner) in cells.iter().enumerate() {
            if let Some(p) = owner {
                position.pieces[*p] |= 1 << ((SIZE - 1 - index / SIZE) * SIZE + index % SIZE);
            }
        }
        if position.pieces.contains(&0) {
            return Err(PositionError {
                game: Self::NAME,
                problem: "each side needs at least one piece".to_string(),
            });
        }
        position.to_move = to_move;
        position.hash = position.hash_from_scratch();
        position.history.clear();
        position.history.push(position.repetition_key());
        position.outcome = position.connection_outcome(to_move.opponent());
        if params.no_move == NoMove::Loses && position.move_count(to_move) == 0 {
            position
                .outcome
                .get_or_insert(Outcome::win_for(to_move.opponent()));
        }
        Ok(position)
    }

    /// The result of the connections after `mover`'s move, if any.
    fn connection_outcome(&self, mover: Player) -> Option<Outcome> {
        let mine = connected(self.pieces[mover.index()]);
        let theirs = connected(self.pieces[1 - mover.index()]);
        match (mine, theirs) {
            (true, true) if self.params.simultaneous == Simultaneous::Draw => Some(Outcome::Draw),
            (true, _) => Some(Outcome::win_for(mover)),
            (false, true) => Some(Outcome::win_for(mover.opponent())),
            (false, false) => None,
        }
    }

    /// The draw by the cap or by repetition, recording the new position in the history.
    fn draw_by_cap_or_repetition(&mut self) -> bool {
        let key = self.repetition_key();
        let repeated = match self.params.repetition {
            Repetition::ThirdPosition => self.history.count(key) >= 2,
            Repetition::SecondBoard => self.history.contains(key),
        };
        self.history.push(key);
        repeated || self.ply >= self.params.max_plies
    }

    /// Decides whether the game ended with `mover`'s move, in the order the parameters say.
    fn settle(&mut self, mover: Player) {
        let connection = self.connection_outcome(mover);
        if connection.is_some() && !self.params.draw_first {
            self.outcome = connection;
            return;
        }
        if self.draw_by_cap_or_repetition() {
            self.outcome = Some(Outcome::Draw);
        } else if connection.is_some() {
            self.outcome = connection;
        } else if self.params.no_move == NoMove::Loses && self.move_count(self.to_move) == 0 {
            self.outcome = Some(Outcome::win_for(mover));
        }
    }

    fn decode(action: Action) -> (usize, usize, bool) {
        let id = action as usize;
        (id / 128, (id / 2) % 64, id % 2 == 1)
    }
}

static CELL_IMAGES: [[u16; CELLS]; 7] = non_identity_cells(SIZE);

static ACTION_IMAGES: [[Action; PASS as usize + 1]; 7] = {
    let mut all = [[0; PASS as usize + 1]; 7];
    let mut k = 0;
    while k < 7 {
        let mut id = 0;
        while id < PASS as usize {
            let (from, to, capture) = (id / 128, (id / 2) % 64, id % 2);
            let image = &CELL_IMAGES[k];
            all[k][id] = ((image[from] as usize * 64 + image[to] as usize) * 2 + capture) as Action;
            id += 1;
        }
        all[k][PASS as usize] = PASS;
        k += 1;
    }
    all
};

const SYMMETRIES: [Symmetry; 7] = table_symmetries(&CELL_IMAGES, &ACTION_IMAGES);

impl GameParams for LinesOfActionParams {
    const NAME: &'static str = LinesOfAction::NAME;
    const DESCRIPTION: &'static str = "Lines of Action, 8 × 8, the Olympiad's rules (OpenSpiel's: simultaneous=mover,no_move=loses,repetition=second_board,draw_first=true)";
    const PARAMS: &'static [Param<Self>] = &[
        Param {
            key: "simultaneous",
            meaning: "a move connecting both sides: draw, or mover (the mover wins)",
            set: |p, value| {
                p.simultaneous = parse_word(value, SIMULTANEOUS_WORDS)?;
                Ok(())
            },
            get: |p| word_of(&p.simultaneous, SIMULTANEOUS_WORDS).to_string(),
        },
        Param {
            key: "no_move",
            meaning: "a player without a move: pass, or loses",
            set: |p, value| {
                p.no_move = parse_word(value, NO_MOVE_WORDS)?;
                Ok(())
            },
            get: |p| word_of(&p.no_move, NO_MOVE_WORDS).to_string(),
        },
        Param {
            key: "repetition",
            meaning: "draw at the third occurrence of a position (same side to move), or second_board: any board seen before",
            set: |p, value| {
                p.repetition = parse_word(value, REPETITION_WORDS)?;
                Ok(())
            },
            get: |p| word_of(&p.repetition, REPETITION_WORDS).to_string(),
        },
        Param {
            key: "draw_first",
            meaning: "the cap and the repetition draw override a connection made by the same move",
            set: |p, value| {
                p.draw_first = parse_bool(value)?;
                Ok(())
            },
            get: |p| p.draw_first.to_string(),
        },
        Param {
            key: "max_plies",
            meaning: "the game is a draw after this many plies",
            set: |p, value| {
                p.max_plies = parse_plies(value)?;
                Ok(())
            },
            get: |p| p.max_plies.to_string(),
        },
    ];

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        visitor.visit(LinesOfAction::new(self))
    }
}

impl Game for LinesOfAction {
    const NAME: &'static str = "lines_of_action";
    const NUM_ACTIONS: usize = PASS as usize + 1;
    const HAS_DRAWS: bool = true;
    const PASS_ACTION: Option<Action> = Some(PASS);
    /// Planes over the 8 × 8 board, cell `row·8 + col` with row 0 = rank 1: P0's pieces, P1's
    /// pieces, P0 to move.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 3,
        rows: SIZE,
        cols: SIZE,
    };
    const ENCODING_VERSION: u32 = 1;
    /// The square's 7 (no rule has a direction).
    const SYMMETRIES: &'static [Symmetry] = &SYMMETRIES;

    type Params = LinesOfActionParams;

    fn new(params: &LinesOfActionParams) -> LinesOfAction {
        let black_rank = 0x7E;
        let white_file = 0x0001_0101_0101_0100;
        let mut position = LinesOfAction {
            pieces: [black_rank | black_rank << 56, white_file | white_file << 7],
            params: *params,
            to_move: Player::P0,
            outcome: None,
            ply: 0,
            mobility: [0; 2],
            hash: 0,
            history: RepetitionHistory::default(),
        };
        position.hash = position.hash_from_scratch();
        position.history.push(position.repetition_key());
        position
    }

    fn params(&self) -> &LinesOfActionParams {
        &self.params
    }

    fn max_game_length(&self) -> usize {
        self.params.max_plies as usize
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
        let enemy = self.pieces[1 - self.to_move.index()];
        for (from, mut targets) in self.moves(self.to_move) {
            while targets != 0 {
                let to = targets.trailing_zeros() as usize;
                let capture = enemy >> to & 1;
                out.push(((from * 64 + to) * 2 + capture as usize) as Action);
                targets &= targets - 1;
            }
        }
        if out.is_empty() {
            out.push(PASS);
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        if self.outcome.is_some() || action > PASS {
            return false;
        }
        if action == PASS {
            return self.move_count(self.to_move) == 0;
        }
        let (from, to, capture) = Self::decode(action);
        let enemy = self.pieces[1 - self.to_move.index()];
        self.pieces[self.to_move.index()] >> from & 1 == 1
            && self.targets(self.to_move, from) >> to & 1 == 1
            && (enemy >> to & 1 == 1) == capture
    }

    fn play(&mut self, action: Action) {
        debug_assert!(
            self.is_legal(action),
            "illegal Lines of Action action {action} in\n{self}"
        );
        let mover = self.to_move;
        let (m, e) = (mover.index(), 1 - mover.index());
        self.mobility[m] += self.move_count(mover).max(1) as u16;
        if action != PASS {
            let (from, to, capture) = Self::decode(action);
            self.pieces[m] ^= 1 << from | 1 << to;
            self.hash ^= PIECE_KEYS[m * CELLS + from] ^ PIECE_KEYS[m * CELLS + to];
            if capture {
                self.pieces[e] ^= 1 << to;
                self.hash ^= PIECE_KEYS[e * CELLS + to];
                self.history.clear();
            }
        }
        self.hash ^= P1_TO_MOVE_KEY;
        self.ply += 1;
        self.to_move = mover.opponent();
        self.settle(mover);
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
            hash ^= zobrist::of_bits(self.pieces[player].into(), &PIECE_KEYS[player * CELLS..]);
        }
        hash
    }

    fn piece_counts(&self) -> [u32; 2] {
        self.pieces.map(u64::count_ones)
    }

    fn mobility_sums(&self) -> [u32; 2] {
        self.mobility.map(u32::from)
    }

    fn encode(&self, out: &mut [f32]) {
        super::board_planes::encode_stone_planes(out, CELLS, self.to_move, |p, cell| {
            self.pieces[p] >> cell & 1 == 1
        });
    }

    fn apply_symmetry(&self, index: usize) -> LinesOfAction {
        let table = &CELL_IMAGES[index];
        let mut image = self.clone();
        image.pieces = self.pieces.map(|bits| map_bitboard(bits, table, CELLS));
        image.hash = image.hash_from_scratch();
        image.history.clear();
        image.history.push(image.repetition_key());
        image
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        if action == PASS {
            return "pass".to_string();
        }
        let (from, to, capture) = Self::decode(action);
        let square = |cell: usize| cell_text(cell % SIZE, cell / SIZE + 1);
        let separator = if capture { 'x' } else { '-' };
        format!("{}{separator}{}", square(from), square(to))
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("pass") {
            return Ok(PASS);
        }
        let unparsable = || MoveError::Unparsable {
            text: text.to_string(),
            expected: Self::notation_help().to_string(),
        };
        let square = |col: usize, rank: usize| {
            (col < SIZE && (1..=SIZE).contains(&rank)).then(|| (rank - 1) * SIZE + col)
        };
        let (col, rank, rest) = split_cell(text).ok_or_else(unparsable)?;
        let capture = match rest.chars().next() {
            Some('-') => false,
            Some('x') => true,
            _ => return Err(unparsable()),
        };
        let (to_col, to_rank, rest) = split_cell(&rest[1..]).ok_or_else(unparsable)?;
        match (square(col, rank), square(to_col, to_rank), rest) {
            (Some(from), Some(to), "") => Ok(((from * 64 + to) * 2 + capture as usize) as Action),
            _ => Err(unparsable()),
        }
    }

    fn notation_help() -> &'static str {
        "from and to squares joined by - (a move) or x (a capture), e.g. b1-b3 or c1xa3 (ranks 1-8 from Black's side), or pass"
    }

    /// 8 × 8 squares, row 1 at the bottom; a move is its piece's square, then where it goes.
    fn board_view(&self) -> BoardView {
        let cells = stone_cells(
            (SIZE, SIZE),
            |r, c| cell_text(c, SIZE - r),
            |r, c| self.cell(SIZE - 1 - r, c),
        );
        squares_board(cells, (SIZE, SIZE), true, true)
    }

    fn move_cells(&self, action: Action) -> Vec<String> {
        if action == PASS {
            return Vec::new();
        }
        let (from, to, _) = Self::decode(action);
        [from, to]
            .map(|cell| cell_text(cell % SIZE, cell / SIZE + 1))
            .to_vec()
    }
}

impl fmt::Display for LinesOfAction {
    /// OpenSpiel's picture: ranks 8 to 1 from the top, `x` for Black (P0), `o` for White (P1).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..SIZE).rev() {
            write!(f, "{}", row + 1)?;
            for col in 0..SIZE {
                let symbol = match self.cell(row, col) {
                    Some(Player::P0) => 'x',
                    Some(Player::P1) => 'o',
                    None => '.',
                };
                write!(f, "{symbol}")?;
            }
            writeln!(f)?;
        }
        write!(f, " abcdefgh")
    }
}
