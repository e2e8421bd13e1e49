//! Arimaa (arimaa.com's rules; docs/games.md), one **step** per action. Gold (P0, upper-case
//! letters) and Silver (P1, lower-case) each have an Elephant, a Camel, two Horses, two Dogs, two
//! Cats and eight Rabbits (`E M H D C R`, strongest first) on an 8 × 8 board with traps on c3,
//! f3, c6 and f6.
//!
//! **Setup.** Gold places its pieces on ranks 1-2, then Silver on ranks 7-8. One action places
//! the next piece in the fixed order E, M, H, H, D, D, C, C on a chosen empty square of the
//! mover's two home ranks; after the second cat the eight rabbits fill the squares left. Eight
//! actions a side reach every one of the 64 864 800 setups (a pair's two orders transpose), and
//! the order does not depend on where earlier pieces went, so mirroring stays a symmetry of the
//! setup phase. `setup=false` starts instead from the usual fixed setup (rabbits on the back
//! rank; `D H C M E C H D` on a2-h2 for Gold, `d h c e m c h d` on a7-h7 for Silver).
//!
//! **A turn** is one to four steps. A step moves a piece to an orthogonally adjacent empty
//! square; rabbits never step backwards on their own. A piece next to a stronger enemy piece and
//! to no friendly piece is frozen and cannot move. A **push** is two steps: an enemy piece next
//! to a stronger, unfrozen own piece steps to an empty neighbour (any direction), then a stronger
//! own piece next to the square it left must step into it (the next action). A **pull**: after an
//! own piece's step, an enemy piece weaker than it, next to the square it left, may step into
//! that square (also as the turn's last step; a push's completing step starts no pull). After
//! every step a piece on a trap with no friendly neighbour is removed; a piece that stepped onto a
//! trap and was removed may still pull (as `pyrimaa`, the AEI reference, does).
//!
//! **Ending a turn.** The turn ends after the fourth step, or earlier by the `end` action. A turn
//! must change the board, and may not produce for the third time the same board with the same
//! player to move (positions at turn starts since the last capture, compared by Zobrist hash).
//! Since a step decomposition would otherwise let a player walk into a dead end (three steps
//! that can only be completed by a null or third-repetition turn), a step is legal only if the
//! turn can still be ended legally after it: every legal action list is non-empty until the
//! game is over, and the legal step sequences are exactly the legal turns.
//!
//! **End** (checked when a turn ends, in this order): a rabbit of the mover on its goal rank
//! (rank 8 for Gold, 1 for Silver) wins for the mover; one of the opponent's wins for the
//! opponent; the opponent without rabbits loses, then the mover without rabbits; the opponent
//! without a legal turn loses. After `max_turns` turns (both sides together) the game is a draw
//! (the rules have no draw; a bound keeps games finite).
//!
//! **Score** (the paper's §11.3 heuristic): `score_p0` is the material difference V = Σ v(Gold's
//! pieces) − Σ v(Silver's) with v = E 5, M 4, H 3, D 2, C 1, R 6 (a full side is 69); a finished
//! game adds +69 when Gold won and −69 when Silver won, so that the `score` reinforcement
//! heuristic is exactly ±69 + V(s).
//!
//! Squares `rank·8 + file`, a1 = 0, h8 = 63. Ids: 0-63 a setup placement on that square;
//! `64 + 4·square + direction` (N, E, S, W; N towards rank 8) the step of the piece on `square`,
//! own or enemy (the halves of pushes and pulls); 320 ends the turn. Text: `Ed2` a placement,
//! `Ee2n` a step (the piece's letter, upper-case for Gold, is optional when typing), `end`.

use std::fmt;

use super::board_view::{BoardView, Cell, Piece, PieceKind, squares_board};
use super::cell_text::{cell_text, split_cell};
use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, PositionError, Symmetry,
};
use super::game_params::{GameParams, Param, parse_bool, parse_integer};
use super::registry::GameVisitor;
use super::repetition::RepetitionHistory;
use super::zobrist;

mod board;
mod turn;

use board::{Board, for_each_bit, mirror_direction, mirror_square, neighbours, target};
use turn::{Pending, Turn};

const CELLS: usize = 64;
const KINDS: usize = 6;
const RABBIT: usize = 0;
const CAT: usize = 1;
const DOG: usize = 2;
const HORSE: usize = 3;
const CAMEL: usize = 4;
const ELEPHANT: usize = 5;
/// Piece letters by kind, Gold's (Silver's are lower-case).
const LETTERS: [char; KINDS] = ['R', 'C', 'D', 'H', 'M', 'E'];
/// The paper's piece values (§11.3), by kind.
const VALUES: [i32; KINDS] = [6, 1, 2, 3, 4, 5];
/// A full side's value: what Gold's win adds to the score (Silver's takes it off).
const WIN_SCORE: i32 = 69;
/// The order in which the setup places the non-rabbit pieces.
const SETUP_ORDER: [usize; 8] = [ELEPHANT, CAMEL, HORSE, HORSE, DOG, DOG, CAT, CAT];
const SETUP_PLIES: u8 = 16;
const FIRST_STEP: usize = CELLS;
const END_TURN: usize = FIRST_STEP + 4 * CELLS;
const NUM_ACTIONS: usize = END_TURN + 1;
const MAX_STEPS: u8 = 4;
const EMPTY: u8 = u8::MAX;

const TRAPS: u64 = (1 << 18) | (1 << 21) | (1 << 42) | (1 << 45);
const NOT_FILE_A: u64 = 0xFEFE_FEFE_FEFE_FEFE;
const NOT_FILE_H: u64 = 0x7F7F_7F7F_7F7F_7F7F;
/// Each side's home ranks (setup squares) and goal rank.
const HOME: [u64; 2] = [0xFFFF, 0xFFFF << 48];
const GOAL: [u64; 2] = [0xFF << 56, 0xFF];
/// Direction letters (N, E, S, W) and a rabbit's backward direction per colour.
const DIRECTION_LETTERS: [char; 4] = ['n', 'e', 's', 'w'];
const BACKWARD: [usize; 2] = [2, 0];

// Zobrist keys: [colour][kind][square], P1 to move, steps taken, the pending push or pull square
// by kind, the setup phase.
const PIECE_KEYS: [u64; 2 * KINDS * CELLS] = zobrist::keys(0xA41A_0000_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0xA41A_0000_0000_0002)[0];
const STEP_KEYS: [u64; 4] = zobrist::keys(0xA41A_0000_0000_0003);
const PULL_KEYS: [u64; KINDS * CELLS] = zobrist::keys(0xA41A_0000_0000_0004);
const PUSH_KEYS: [u64; KINDS * CELLS] = zobrist::keys(0xA41A_0000_0000_0005);
const SETUP_KEY: u64 = zobrist::keys::<1>(0xA41A_0000_0000_0006)[0];

/// Rule options of Arimaa.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArimaaParams {
    /// The players set their pieces up first (false: the fixed setup of the module doc).
    pub setup: bool,
    /// The game is a draw after this many turns (both players' together).
    pub max_turns: u16,
}

impl Default for ArimaaParams {
    fn default() -> Self {
        ArimaaParams {
            setup: true,
            max_turns: 400,
        }
    }
}

/// A move text's leading piece letter, if it has one (`Ee2n`, not `e2n`), and the rest.
fn split_letter(text: &str) -> (Option<char>, &str) {
    let mut chars = text.chars();
    match chars.next() {
        Some(c)
            if LETTERS.contains(&c.to_ascii_uppercase())
                && split_cell(chars.as_str()).is_some() =>
        {
            (Some(c), chars.as_str())
        }
        _ => (None, text),
    }
}

#[inline(always)]
fn side_key(to_move: usize) -> u64 {
    if to_move == 1 { P1_TO_MOVE_KEY } else { 0 }
}

#[inline(always)]
fn step_id(square: usize, direction: usize) -> Action {
    (FIRST_STEP + 4 * square + direction) as Action
}

/// An Arimaa position.
#[derive(Clone, Debug)]
pub struct Arimaa {
    turn: Turn,
    params: ArimaaParams,
    /// Setup placements still to come (16 at the start with `setup=true`).
    setup_left: u8,
    /// Repetition keys of the positions at turn starts since the last capture: the board's own
    /// and its mirror image's (swapped by the symmetry).
    history: [RepetitionHistory; 2],
    /// Turns completed since the setup.
    turns: u16,
    ply: u16,
    outcome: Option<Outcome>,
    mobility: [u32; 2],
    /// Actions played by each player (several in a row in a turn).
    plies: [u16; 2],
}

impl Arimaa {
    /// The usual fixed setup (`setup=false`).
    fn fixed_setup() -> Board {
        let mut board = Board::EMPTY;
        let second_rank = [DOG, HORSE, CAT, CAMEL, ELEPHANT, CAT, HORSE, DOG];
        for (file, &gold) in second_rank.iter().enumerate() {
            board.toggle(0, RABBIT, file);
            board.toggle(0, gold, 8 + file);
            board.toggle(1, RABBIT, 56 + file);
            let silver = match gold {
                CAMEL => ELEPHANT,
                ELEPHANT => CAMEL,
                kind => kind,
            };
            board.toggle(1, silver, 48 + file);
        }
        board
    }

    fn in_setup(&self) -> bool {
        self.setup_left > 0
    }

    /// Under the drawn board: `Gold: turn 3, step 2 of 4`, or the piece a setup places next.
    fn turn_caption(&self) -> String {
        let side = Self::SIDE_NAMES[self.turn.mover as usize];
        if self.in_setup() {
            let letter = Self::letter(self.turn.mover as usize, self.setup_kind());
            return format!("{side}: setup, placing {letter}");
        }
        format!(
            "{side}: turn {}, step {} of 4",
            self.turns + 1,
            self.turn.steps + 1
        )
    }

    /// The kind the next setup action places.
    fn setup_kind(&self) -> usize {
        SETUP_ORDER[(SETUP_PLIES - self.setup_left) as usize % 8]
    }

    /// Starts the turn of `mover` on the current board.
    fn start_turn(&mut self, mover: usize) {
        self.turn.mover = mover as u8;
        self.turn.steps = 0;
        self.turn.pending = Pending::Nothing;
        self.turn.start = (self.turn.board.hash, self.turn.board.mirror_hash);
        let side = side_key(mover);
        self.history[0].push(self.turn.board.hash ^ side);
        self.history[1].push(self.turn.board.mirror_hash ^ side);
    }

    fn place(&mut self, square: usize) {
        let mover = self.turn.mover as usize;
        let kind = self.setup_kind();
        self.turn.board.toggle(mover, kind, square);
        self.setup_left -= 1;
        if !self.setup_left.is_multiple_of(8) {
            return;
        }
        let free = HOME[mover] & self.turn.board.empty();
        for_each_bit(free, |square| {
            self.turn.board.toggle(mover, RABBIT, square);
            true
        });
        if self.setup_left == 0 {
            self.start_turn(0);
        } else {
            self.turn.mover = 1;
        }
    }

    /// Ends the mover's turn: the next player's turn starts, and the game may be over.
    fn end_turn(&mut self) {
        let mover = self.turn.mover as usize;
        let opponent = 1 - mover;
        self.turns += 1;
        self.start_turn(opponent);
        self.outcome = self.outcome_after_turn(mover);
    }

    /// The result once `mover`'s turn ended, the opponent to move (module doc, **End**).
    fn outcome_after_turn(&self, mover: usize) -> Option<Outcome> {
        let opponent = 1 - mover;
        let board = &self.turn.board;
        let rabbits = |c: usize| board.pieces[c][RABBIT];
        let win = |c: usize| Some(Outcome::win_for(Player::from_index(c)));
        if rabbits(mover) & GOAL[mover] != 0 {
            return win(mover);
        }
        if rabbits(opponent) & GOAL[opponent] != 0 {
            return win(opponent);
        }
        if rabbits(opponent) == 0 {
            return win(mover);
        }
        if rabbits(mover) == 0 {
            return win(opponent);
        }
        if !self.turn.has_legal_action(&self.history[0]) {
            return win(mover);
        }
        (self.turns >= self.params.max_turns).then_some(Outcome::Draw)
    }

    fn for_each_legal(&self, mut f: impl FnMut(Action)) {
        if self.outcome.is_some() {
            return;
        }
        if self.in_setup() {
            let free = HOME[self.turn.mover as usize] & self.turn.board.empty();
            for_each_bit(free, |square| {
                f(square as Action);
                true
            });
            return;
        }
        self.turn.for_each_legal(&self.history[0], f);
    }

    /// The piece letter of `color`'s `kind`.
    fn letter(color: usize, kind: usize) -> char {
        match color {
            0 => LETTERS[kind],
            _ => LETTERS[kind].to_ascii_lowercase(),
        }
    }

    /// The letter of the piece on `square` (`row` 0 = rank 1, `col` 0 = file a), if any.
    pub fn piece_letter(&self, row: usize, col: usize) -> Option<char> {
        self.turn
            .board
            .piece(row * 8 + col)
            .map(|(color, kind)| Self::letter(color, kind))
    }

    /// A position at the start of `to_move`'s turn from 8 rows, rank 8 first, of 8 squares each:
    /// a piece letter (`RCDHME` Gold, `rcdhme` Silver), or `.` / `x` for an empty square.
    pub fn from_rows(
        rows: &str,
        to_move: Player,
        params: &ArimaaParams,
    ) -> Result<Arimaa, PositionError> {
        let invalid = |problem: String| PositionError {
            game: Self::NAME,
            problem,
        };
        let lines: Vec<Vec<char>> = rows
            .lines()
            .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect::<Vec<_>>())
            .filter(|l| !l.is_empty())
            .collect();
        if lines.len() != 8 {
            return Err(invalid(format!("{} rows, expected 8", lines.len())));
        }
        let mut board = Board::EMPTY;
        for (top_row, line) in lines.iter().enumerate() {
            if line.len() != 8 {
                return Err(invalid(format!(
                    "row {} has {} squares, expected 8",
                    8 - top_row,
                    line.len()
                )));
            }
            for (file, &c) in line.iter().enumerate() {
                let square = (7 - top_row) * 8 + file;
                if c == '.' || c == 'x' {
                    continue;
                }
                let kind = LETTERS.iter().position(|&l| l == c.to_ascii_uppercase());
                let kind = kind.ok_or_else(|| {
                    invalid(format!(
                        "square {}: {c:?} is not a piece (RCDHME, rcdhme, . or x)",
                        cell_text(file, 8 - top_row)
                    ))
                })?;
                board.toggle(c.is_ascii_lowercase() as usize, kind, square);
            }
        }
        let mut position = Arimaa::new(&ArimaaParams {
            setup: false,
            ..*params
        });
        position.history = Default::default();
        position.turn.board = board;
        position.start_turn(to_move.index());
        position.outcome = position.outcome_after_turn(to_move.opponent().index());
        Ok(position)
    }

    fn step_text(square: usize, direction: usize) -> String {
        format!(
            "{}{}",
            cell_text(square % 8, square / 8 + 1),
            DIRECTION_LETTERS[direction]
        )
    }
}

static CELL_IMAGE: [u16; CELLS] = {
    let mut image = [0; CELLS];
    let mut square = 0;
    while square < CELLS {
        image[square] = mirror_square(square) as u16;
        square += 1;
    }
    image
};

static ACTION_IMAGE: [Action; NUM_ACTIONS] = {
    let mut image = [0; NUM_ACTIONS];
    let mut square = 0;
    while square < CELLS {
        image[square] = mirror_square(square) as Action;
        let mut direction = 0;
        while direction < 4 {
            image[FIRST_STEP + 4 * square + direction] =
                (FIRST_STEP + 4 * mirror_square(square) + mirror_direction(direction)) as Action;
            direction += 1;
        }
        square += 1;
    }
    image[END_TURN] = END_TURN as Action;
    image
};

const SYMMETRIES: [Symmetry; 1] = [Symmetry {
    name: "mirror",
    cell_image: &CELL_IMAGE,
    action_image: &ACTION_IMAGE,
}];

/// Planes of the encoding (module doc of `encode`).
const PLANES: usize = 21;

impl GameParams for ArimaaParams {
    const NAME: &'static str = Arimaa::NAME;
    const DESCRIPTION: &'static str = "Arimaa, 8 × 8: set up, then turns of up to four steps (one action each) with pushes, pulls, freezing and traps; a rabbit home wins";
    const PARAMS: &'static [Param<Self>] = &[
        Param {
            key: "setup",
            meaning: "the players set their pieces up first (false: the usual fixed setup)",
            set: |p, value| {
                p.setup = parse_bool(value)?;
                Ok(())
            },
            get: |p| p.setup.to_string(),
        },
        Param {
            key: "max_turns",
            meaning: "the game is a draw after this many turns (both players' together)",
            set: |p, value| {
                p.max_turns = parse_integer(value, (1, 10000), "")?;
                Ok(())
            },
            get: |p| p.max_turns.to_string(),
        },
    ];

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        visitor.visit(Arimaa::new(self))
    }
}

impl Game for Arimaa {
    const NAME: &'static str = "arimaa";
    const NUM_ACTIONS: usize = NUM_ACTIONS;
    const HAS_DRAWS: bool = true;
    /// Planes over the board, row 0 = rank 1: Gold's R C D H M E, Silver's R C D H M E, the
    /// traps, Gold to move, steps taken (one-hot 0-3), the square a pushed piece left (to be
    /// filled), the square the last own step left (a pull may fill it), the setup phase.
    const ENCODING: EncodingShape = EncodingShape {
        planes: PLANES,
        rows: 8,
        cols: 8,
    };
    const ENCODING_VERSION: u32 = 1;
    /// Left-right mirror (files a ↔ h); the traps map onto traps.
    const SYMMETRIES: &'static [Symmetry] = &SYMMETRIES;
    const SIDE_NAMES: [&'static str; 2] = ["Gold", "Silver"]; // Arimaa's sides

    type Params = ArimaaParams;

    fn new(params: &ArimaaParams) -> Arimaa {
        let mut position = Arimaa {
            turn: Turn {
                board: Board::EMPTY,
                mover: 0,
                steps: 0,
                pending: Pending::Nothing,
                start: (0, 0),
            },
            params: *params,
            setup_left: SETUP_PLIES,
            history: Default::default(),
            turns: 0,
            ply: 0,
            outcome: None,
            mobility: [0; 2],
            plies: [0; 2],
        };
        if !params.setup {
            position.setup_left = 0;
            position.turn.board = Self::fixed_setup();
            position.start_turn(0);
        }
        position
    }

    fn params(&self) -> &ArimaaParams {
        &self.params
    }

    fn max_game_length(&self) -> usize {
        SETUP_PLIES as usize + self.params.max_turns as usize * (MAX_STEPS as usize + 1)
    }

    #[inline]
    fn to_move(&self) -> Player {
        Player::from_index(self.turn.mover as usize)
    }

    #[inline]
    fn ply(&self) -> usize {
        self.ply as usize
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        self.for_each_legal(|a| out.push(a));
    }

    fn is_legal(&self, action: Action) -> bool {
        let id = action as usize;
        if self.outcome.is_some() || id >= NUM_ACTIONS {
            return false;
        }
        if self.in_setup() {
            let free = HOME[self.turn.mover as usize] & self.turn.board.empty();
            return id < CELLS && free & (1 << id) != 0;
        }
        if id == END_TURN {
            return self.turn.can_end(&self.history[0]);
        }
        if id < FIRST_STEP {
            return false;
        }
        let (square, direction) = ((id - FIRST_STEP) / 4, (id - FIRST_STEP) % 4);
        let mut allowed = false;
        self.turn.for_each_step(|s, d| {
            allowed = s == square && d == direction;
            !allowed
        });
        allowed && self.turn.step_is_legal(square, direction, &self.history[0])
    }

    fn play(&mut self, action: Action) {
        debug_assert!(
            self.is_legal(action),
            "illegal Arimaa action {action}\n{self}"
        );
        let mover = self.turn.mover as usize;
        let mut count = 0;
        self.for_each_legal(|_| count += 1);
        self.mobility[mover] += count;
        self.plies[mover] += 1;
        self.ply += 1;
        let id = action as usize;
        if self.in_setup() {
            self.place(id);
            return;
        }
        if id == END_TURN {
            self.end_turn();
            return;
        }
        let (square, direction) = ((id - FIRST_STEP) / 4, (id - FIRST_STEP) % 4);
        if self.turn.step(square, direction) {
            // A capture is irreversible: no earlier position can occur again.
            self.history = Default::default();
        }
        if self.turn.steps == MAX_STEPS {
            self.end_turn();
        }
    }

    #[inline]
    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn hash(&self) -> u64 {
        self.hash_with(self.turn.board.hash)
    }

    fn hash_from_scratch(&self) -> u64 {
        self.hash_with(self.turn.board.hash_from_scratch().0)
    }

    fn score_p0(&self) -> Option<i32> {
        let board = &self.turn.board;
        let material = board.material(0) - board.material(1);
        let win = match self.outcome {
            Some(Outcome::WinP0) => WIN_SCORE,
            Some(Outcome::WinP1) => -WIN_SCORE,
            _ => 0,
        };
        Some(material + win)
    }

    fn piece_counts(&self) -> [u32; 2] {
        self.turn.board.occupied.map(u64::count_ones)
    }

    fn plies_by_player(&self) -> [u32; 2] {
        self.plies.map(u32::from)
    }

    fn mobility_sums(&self) -> [u32; 2] {
        self.mobility
    }

    fn encode(&self, out: &mut [f32]) {
        assert_eq!(out.len(), Self::ENCODING.len(), "one encoded position");
        out.fill(0.0);
        let board = &self.turn.board;
        for color in 0..2 {
            for kind in 0..KINDS {
                let plane = &mut out[(color * KINDS + kind) * CELLS..][..CELLS];
                for_each_bit(board.pieces[color][kind], |square| {
                    plane[square] = 1.0;
                    true
                });
            }
        }
        for_each_bit(TRAPS, |square| {
            out[12 * CELLS + square] = 1.0;
            true
        });
        out[13 * CELLS..14 * CELLS].fill((self.turn.mover == 0) as u8 as f32);
        out[(14 + self.turn.steps as usize) * CELLS..][..CELLS].fill(1.0);
        match self.turn.pending {
            Pending::Nothing => {}
            Pending::Push { from, .. } => out[18 * CELLS + from as usize] = 1.0,
            Pending::Pull { from, .. } => out[19 * CELLS + from as usize] = 1.0,
        }
        out[20 * CELLS..].fill(self.in_setup() as u8 as f32);
    }

    fn apply_symmetry(&self, index: usize) -> Arimaa {
        assert_eq!(index, 0, "Arimaa has one symmetry");
        let mut image = self.clone();
        image.turn.board = self.turn.board.mirrored();
        image.turn.pending = self.turn.pending.mirrored();
        image.turn.start = (self.turn.start.1, self.turn.start.0);
        image.history = [self.history[1].clone(), self.history[0].clone()];
        image
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        let id = action as usize;
        match id {
            _ if id < CELLS => cell_text(id % 8, id / 8 + 1),
            END_TURN => "end".to_string(),
            _ if id < END_TURN => Self::step_text((id - FIRST_STEP) / 4, (id - FIRST_STEP) % 4),
            _ => format!("?{action}"),
        }
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let text = text.trim();
        let unparsable = || MoveError::Unparsable {
            text: text.to_string(),
            expected: Self::notation_help().to_string(),
        };
        if text == "end" {
            return Ok(END_TURN as Action);
        }
        // An optional piece letter, then a square, then an optional direction.
        let (_, rest) = split_letter(text);
        let (file, rank, tail) = split_cell(rest).ok_or_else(unparsable)?;
        if rest.starts_with(|c: char| c.is_ascii_uppercase())
            || file >= 8
            || !(1..=8).contains(&rank)
        {
            return Err(unparsable());
        }
        let square = (rank - 1) * 8 + file;
        match tail {
            "" => Ok(square as Action),
            _ => match DIRECTION_LETTERS.iter().position(|d| tail == d.to_string()) {
                Some(direction) => Ok(step_id(square, direction)),
                None => Err(unparsable()),
            },
        }
    }

    /// The piece's letter before the square (`Ed2`, `Ee2n`), upper-case for Gold.
    fn move_to_text(&self, action: Action) -> String {
        let id = action as usize;
        let text = Self::action_to_text(self.to_move(), action);
        let letter = if self.in_setup() && id < CELLS {
            Some(Self::letter(self.turn.mover as usize, self.setup_kind()))
        } else if (FIRST_STEP..END_TURN).contains(&id) {
            let square = (id - FIRST_STEP) / 4;
            (self.turn.board.piece(square)).map(|(color, kind)| Self::letter(color, kind))
        } else {
            None
        };
        match letter {
            Some(letter) => format!("{letter}{text}"),
            None => text,
        }
    }

    /// As `action_from_text`, refusing a piece letter that does not match the piece moved.
    fn move_from_text(&self, text: &str) -> Result<Action, MoveError> {
        let action = Self::action_from_text(self.to_move(), text)?;
        let (typed, _) = split_letter(text.trim());
        let shown = self.move_to_text(action).chars().next();
        match typed {
            Some(letter) if Some(letter) != shown => Err(MoveError::Unparsable {
                text: text.trim().to_string(),
                expected: format!(
                    "the letter of the piece moved or placed here ({})",
                    self.move_to_text(action)
                ),
            }),
            _ => Ok(action),
        }
    }

    fn notation_help() -> &'static str {
        "a setup placement as piece letter and square (Ed2, or d2); a step as piece letter, square and direction n/e/s/w (Ee2n, or e2n; upper-case Gold, lower-case Silver); end to end the turn early"
    }

    /// 8 × 8 squares, rank 8 at the top, the traps marked; Gold (P0) is gold, Silver silver,
    /// each piece its letter. A step is its piece's square, then where it goes; a setup
    /// placement its square; ending the turn early is a button.
    fn board_view(&self) -> BoardView {
        let cells = (0..CELLS)
            .map(|square| {
                let (rank, file) = (square / 8, square % 8);
                Cell {
                    id: cell_text(file, rank + 1),
                    row: 7 - rank,
                    col: file,
                    piece: self.turn.board.piece(square).map(|(color, kind)| Piece {
                        owner: Some(Player::from_index(color)),
                        kind: PieceKind::Letter(Self::letter(color, kind)),
                    }),
                    count: None,
                }
            })
            .collect();
        let traps = vec![(5, 2), (5, 5), (2, 2), (2, 5)];
        squares_board(cells, (8, 8), false, true)
            .with_colours(["gold", "silver"])
            .with_marks(traps)
            .with_caption(self.turn_caption())
    }

    fn move_cells(&self, action: Action) -> Vec<String> {
        let id = action as usize;
        let square = |cell: usize| cell_text(cell % 8, cell / 8 + 1);
        match id {
            _ if id < CELLS => vec![square(id)],
            _ if (FIRST_STEP..END_TURN).contains(&id) => {
                let (from, direction) = ((id - FIRST_STEP) / 4, (id - FIRST_STEP) % 4);
                let to = match direction {
                    0 => from + 8,
                    1 => from + 1,
                    2 => from - 8,
                    _ => from - 1,
                };
                vec![square(from), square(to)]
            }
            _ => Vec::new(),
        }
    }
}

impl Arimaa {
    fn hash_with(&self, board_hash: u64) -> u64 {
        let turn = &self.turn;
        let mut hash = board_hash ^ side_key(turn.mover as usize);
        if self.in_setup() {
            return hash ^ SETUP_KEY;
        }
        hash ^= STEP_KEYS[turn.steps as usize] ^ turn.pending.key();
        if turn.steps > 0 {
            // Whether the turn may end depends on the board it started from.
            hash ^= turn
                .start
                .0
                .rotate_left(23)
                .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        hash
    }
}

impl fmt::Display for Arimaa {
    /// Ranks 8 to 1 from the top, `.` an empty square, `x` an empty trap; then the side to move
    /// and the turn's state.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8).rev() {
            write!(f, "{}", rank + 1)?;
            for file in 0..8 {
                let square = rank * 8 + file;
                let c = match self.piece_letter(rank, file) {
                    Some(letter) => letter,
                    None if TRAPS & (1 << square) != 0 => 'x',
                    None => '.',
                };
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "  a b c d e f g h")?;
        let side = ["gold", "silver"][self.turn.mover as usize];
        if self.in_setup() {
            let letter = Self::letter(self.turn.mover as usize, self.setup_kind());
            return write!(f, "{} ({side}) to place {letter}", self.to_move());
        }
        write!(
            f,
            "{} ({side}) to move, turn {}, step {} of 4",
            self.to_move(),
            self.turns + 1,
            self.turn.steps + 1
        )?;
        match self.turn.pending {
            Pending::Nothing => Ok(()),
            Pending::Push { from, .. } => write!(
                f,
                ", a push to complete into {}",
                cell_text(from as usize % 8, from as usize / 8 + 1)
            ),
            Pending::Pull { from, .. } => write!(
                f,
                ", may pull into {}",
                cell_text(from as usize % 8, from as usize / 8 + 1)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_stay_on_the_board() {
        assert_eq!(neighbours(1), (1 << 1) | (1 << 8));
        assert_eq!(neighbours(1 << 7), (1 << 6) | (1 << 15));
        assert_eq!(neighbours(1 << 63), (1 << 62) | (1 << 55));
        assert_eq!(neighbours(1 << 8), 1 | (1 << 9) | (1 << 16));
        for square in 0..CELLS {
            let expected = (0..4)
                .filter_map(|d| target(square, d))
                .fold(0u64, |b, s| b | (1 << s));
            assert_eq!(neighbours(1 << square), expected, "square {square}");
        }
    }

    #[test]
    fn mirror_keeps_the_traps() {
        for_each_bit(TRAPS, |square| {
            assert_ne!(TRAPS & (1 << mirror_square(square)), 0);
            true
        });
        assert_eq!(mirror_direction(1), 3);
        assert_eq!(mirror_direction(0), 0);
    }

    #[test]
    fn fixed_setup_has_every_piece() {
        let board = Arimaa::fixed_setup();
        for color in 0..2 {
            let counts: Vec<u32> = board.pieces[color].iter().map(|b| b.count_ones()).collect();
            assert_eq!(counts, [8, 2, 2, 2, 1, 1]);
            assert_eq!(board.material(color), 69);
        }
    }
}
