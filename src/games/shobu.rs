//! Shobu as the UCLouvain LINFO1361 course (2024) plays it, with the official rulebook's variant
//! as parameters.
//!
//! Four 4 × 4 boards in a 2 × 2 arrangement: boards 0 (bottom left) and 1 (bottom right) are P0's
//! home boards, 2 and 3 P1's; the left column (0, 2) is of one colour, the right (1, 3) of the
//! other. Squares 0-15 on each board, `4 · row + column`, row 0 at the bottom (P0's side); text
//! names them `a1`-`d4` (column a-d, row 1-4). Each player starts with 4 stones on each board, P0
//! on the bottom row, P1 on the top row. P0 moves first.
//!
//! One action is a passive move followed by an aggressive move, in the same direction (one of the
//! 8 king directions) and over the same distance (1 or 2):
//! - passive: one of the mover's stones on one of its home boards moves over empty squares only;
//! - aggressive: one of the mover's stones on a board of the other colour (either player's)
//!   moves without passing through or onto an own stone; it may push the first opposing stone it
//!   meets, which ends one square beyond the moving stone, or leaves the board if that square is
//!   off it. A move that would push two stones, or push a stone onto another, is illegal.
//!
//! After an action, in this order (the course's `compute_utility`): the player to move loses if it
//! has no legal action (`no_move_loses`, or with it off the game is a draw — the rulebook says
//! nothing); a player with no stone left on some board loses; the game is a draw after
//! `no_push_draw` (50) consecutive actions that pushed nothing (0: never), or after `max_plies`
//! (1 000; the course has no cap, random games last at most a few hundred plies).
//!
//! Action ids (16 384) follow the course's `ShobuAction(passive board, passive stone, aggressive
//! board, aggressive stone, direction, length)`: `((((j·16 + ps)·2 + i)·16 + as)·8 + dir)·2 +
//! length − 1`, where the passive board is `2·player + j`, the aggressive board `2·i + 1 − j`,
//! `ps` and `as` the stones' squares before the move and `dir` counts N, NE, E, SE, S, SW, W, NW.
//! The low 4 bits are the (direction, length) pair, so a legal-move generator that intersects a
//! passive stone's 16-bit mask of feasible (direction, length) pairs with an aggressive stone's
//! writes the ids in increasing order.
//!
//! Symmetries: the 8 symmetries of the square applied to all four boards at once (directions
//! turn with them), times swapping the two columns of boards — 15 besides the identity.

use std::fmt;

use super::board_view::{BoardView, Cell, Layout, stone};
use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, PositionError, Symmetry,
};
use super::game_params::{GameParams, Param, parse_bool, parse_integer, parse_plies};
use super::registry::GameVisitor;
use super::zobrist;

mod move_sets;
use move_sets::{MoveSets, pack};

/// Boards in the game.
pub const BOARDS: usize = 4;
/// Squares on one board.
pub const SQUARES: usize = 16;
/// Number of action ids.
pub const ACTIONS: usize = 2 * SQUARES * 2 * SQUARES * 8 * 2;
/// Direction names, in id order.
pub const DIRECTION_NAMES: [&str; 8] = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"];
/// (row, column) steps of the directions, in id order (row grows towards P1).
const DIRECTION_STEPS: [(i8, i8); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];
/// Marks a step off the board in `STEP`.
const OFF: u8 = 16;

/// `STEP[square][direction]`: the square one step away, or `OFF`.
const STEP: [[u8; 8]; SQUARES] = {
    let mut table = [[OFF; 8]; SQUARES];
    let mut square = 0;
    while square < SQUARES {
        let mut dir = 0;
        while dir < 8 {
            let row = (square / 4) as i8 + DIRECTION_STEPS[dir].0;
            let col = (square % 4) as i8 + DIRECTION_STEPS[dir].1;
            if row >= 0 && row < 4 && col >= 0 && col < 4 {
                table[square][dir] = (row * 4 + col) as u8;
            }
            dir += 1;
        }
        square += 1;
    }
    table
};

/// Rule parameters of Shobu.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShobuParams {
    /// Consecutive actions without a push that make a draw (default 50; 0: never).
    pub no_push_draw: u8,
    /// A player with no legal action loses (default true); false: the game is a draw.
    pub no_move_loses: bool,
    /// The game is a draw after this many plies (default 1 000).
    pub max_plies: u16,
}

impl Default for ShobuParams {
    fn default() -> Self {
        ShobuParams {
            no_push_draw: 50,
            no_move_loses: true,
            max_plies: 1000,
        }
    }
}

// Zobrist keys: [player][board][square], side to move, the no-push counter.
const STONE_KEYS: [u64; 2 * BOARDS * SQUARES] = zobrist::keys(0x5348_4F42_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0x5348_4F42_0000_0002)[0];
const NO_PUSH_KEYS: [u64; 256] = zobrist::keys(0x5348_4F42_0000_0003);

#[inline(always)]
fn stone_key(player: usize, board: usize, square: usize) -> u64 {
    STONE_KEYS[(player * BOARDS + board) * SQUARES + square]
}

#[inline(always)]
fn has(stones: u16, square: u8) -> bool {
    square < OFF && stones & (1 << square) != 0
}

/// The squares of the set bits of `stones`, in increasing order.
#[inline(always)]
fn squares(mut stones: u16) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (stones != 0).then(|| {
            let square = stones.trailing_zeros() as usize;
            stones &= stones - 1;
            square
        })
    })
}

/// `BIT_POSITIONS[b]`: the positions of the set bits of byte `b`, in increasing order (the rest
/// of the 8 slots unused).
const BIT_POSITIONS: [[Action; 8]; 256] = {
    let mut table = [[0 as Action; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let (mut bit, mut k) = (0, 0);
        while bit < 8 {
            if byte & (1 << bit) != 0 {
                table[byte][k] = bit as Action;
                k += 1;
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

/// A Shobu position.
#[derive(Clone, Debug)]
pub struct Shobu {
    /// `stones[player][board]`: bit `s` = a stone on square `s`.
    stones: [[u16; BOARDS]; 2],
    to_move: Player,
    /// Consecutive actions that pushed nothing.
    no_push: u8,
    ply: u16,
    /// Legal actions of the side to move; 0 once the game is over.
    moves_now: u16,
    outcome: Option<Outcome>,
    mobility: [u32; 2],
    hash: u64,
    params: ShobuParams,
}

impl Shobu {
    /// A position from the stones (`stones[player][board]`, bit `s` = square `s`), the side to
    /// move and the count of consecutive actions without a push. It counts as ply 0 and is settled
    /// as after an action (it may already be over).
    ///
    /// # Errors
    /// A square holding stones of both players.
    pub fn from_stones(
        params: ShobuParams,
        stones: [[u16; BOARDS]; 2],
        to_move: Player,
        no_push: u8,
    ) -> Result<Shobu, PositionError> {
        for (board, (&p0, &p1)) in stones[0].iter().zip(&stones[1]).enumerate() {
            let both = p0 & p1;
            if both != 0 {
                return Err(PositionError {
                    game: "shobu",
                    problem: format!(
                        "square {} of board {board} holds a stone of each player",
                        square_name(both.trailing_zeros() as usize)
                    ),
                });
            }
        }
        let mut position = Shobu {
            stones,
            to_move,
            no_push,
            ply: 0,
            moves_now: 0,
            outcome: None,
            mobility: [0; 2],
            hash: 0,
            params,
        };
        position.hash = position.hash_from_scratch();
        position.settle();
        Ok(position)
    }

    /// The stones, `[player][board]`, bit `s` = square `s`.
    pub fn stones(&self) -> &[[u16; BOARDS]; 2] {
        &self.stones
    }

    /// Consecutive actions that pushed nothing.
    pub fn no_push_count(&self) -> u8 {
        self.no_push
    }

    /// The move sets of `player` (see `move_sets`).
    #[inline(always)]
    fn move_sets(&self, player: Player) -> MoveSets {
        let (me, them) = (player.index(), player.opponent().index());
        let home = 0xFFFF_FFFFu64 << (32 * me);
        MoveSets::new(pack(&self.stones[me]), pack(&self.stones[them]), home)
    }

    /// Calls `visit(key, pairs)` for every (passive stone, aggressive stone) of `player` (`pairs`
    /// the (direction, length) pairs both can make, possibly none), in increasing order of `key`,
    /// the action id without its low 4 bits.
    #[inline(always)]
    fn for_each_pair(&self, player: Player, sets: &MoveSets, mut visit: impl FnMut(usize, u16)) {
        let me = player.index();
        let mut aggressive_pairs = [0u16; BOARDS * SQUARES];
        for board in 0..BOARDS {
            for square in squares(self.stones[me][board]) {
                let bit = board * SQUARES + square;
                aggressive_pairs[bit] = sets.aggressive_pairs(bit);
            }
        }
        for j in 0..2 {
            let passive_board = 2 * me + j;
            for passive in squares(self.stones[me][passive_board]) {
                let passive_pairs = sets.passive_pairs(passive_board * SQUARES + passive);
                if passive_pairs == 0 {
                    continue;
                }
                for i in 0..2 {
                    let board = 2 * i + 1 - j;
                    for aggressive in squares(self.stones[me][board]) {
                        let pairs = passive_pairs & aggressive_pairs[board * SQUARES + aggressive];
                        visit(
                            ((j * SQUARES + passive) * 2 + i) * SQUARES + aggressive,
                            pairs,
                        );
                    }
                }
            }
        }
    }

    /// Decides whether the game is over, for the side to move (see the module doc for the order).
    fn settle(&mut self) {
        let moves = self.move_sets(self.to_move).count();
        self.moves_now = moves as u16;
        let emptied = (0..BOARDS).find_map(|board| {
            [Player::P0, Player::P1]
                .into_iter()
                .find(|p| self.stones[p.index()][board] == 0)
        });
        self.outcome = if moves == 0 && self.params.no_move_loses {
            Some(Outcome::win_for(self.to_move.opponent()))
        } else if let Some(loser) = emptied {
            Some(Outcome::win_for(loser.opponent()))
        } else if moves == 0
            || (self.params.no_push_draw > 0 && self.no_push >= self.params.no_push_draw)
            || self.ply >= self.params.max_plies
        {
            Some(Outcome::Draw)
        } else {
            None
        };
        if self.outcome.is_some() {
            self.moves_now = 0;
        }
    }

    /// Moves `player`'s stone on `board` from `from` to `to`, keeping the hash.
    #[inline(always)]
    fn move_stone(&mut self, player: usize, board: usize, from: usize, to: u8) {
        self.stones[player][board] ^= 1 << from;
        self.hash ^= stone_key(player, board, from);
        if to != OFF {
            self.stones[player][board] |= 1 << to;
            self.hash ^= stone_key(player, board, to as usize);
        }
    }
}

/// An action id taken apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ActionParts {
    /// Passive board index among the mover's home boards (0 or 1).
    j: usize,
    passive: usize,
    /// Row of the aggressive board (0: P0's home row of boards, 1: P1's).
    i: usize,
    aggressive: usize,
    dir: usize,
    length: usize,
}

impl ActionParts {
    #[inline(always)]
    const fn of(action: Action) -> ActionParts {
        let a = action as usize;
        ActionParts {
            length: (a & 1) + 1,
            dir: (a >> 1) & 7,
            aggressive: (a >> 4) & 15,
            i: (a >> 8) & 1,
            passive: (a >> 9) & 15,
            j: (a >> 13) & 1,
        }
    }

    #[inline(always)]
    const fn id(self) -> Action {
        (((((self.j * SQUARES + self.passive) * 2 + self.i) * SQUARES + self.aggressive) * 8
            + self.dir)
            * 2
            + self.length
            - 1) as Action
    }

    fn passive_board(self, player: Player) -> usize {
        2 * player.index() + self.j
    }

    fn aggressive_board(self) -> usize {
        2 * self.i + 1 - self.j
    }
}

/// `a1`-`d4` for squares 0-15.
fn square_name(square: usize) -> String {
    format!(
        "{}{}",
        char::from(b'a' + (square % 4) as u8),
        square / 4 + 1
    )
}

impl GameParams for ShobuParams {
    const NAME: &'static str = Shobu::NAME;
    const DESCRIPTION: &'static str =
        "Shobu, four 4 × 4 boards, passive + aggressive moves (UCLouvain LINFO1361 rules)";
    const PARAMS: &'static [Param<Self>] = &[
        Param {
            key: "no_push_draw",
            meaning: "a draw after this many actions in a row without a push (0: never)",
            set: |p, value| {
                p.no_push_draw = parse_integer(value, (0, u8::MAX), " (0: no such draw)")?;
                Ok(())
            },
            get: |p| p.no_push_draw.to_string(),
        },
        Param {
            key: "no_move_loses",
            meaning: "a player with no legal action loses (false: a draw)",
            set: |p, value| {
                p.no_move_loses = parse_bool(value)?;
                Ok(())
            },
            get: |p| p.no_move_loses.to_string(),
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
        visitor.visit(Shobu::new(self))
    }
}

impl Game for Shobu {
    const NAME: &'static str = "shobu";
    const NUM_ACTIONS: usize = ACTIONS;
    const HAS_DRAWS: bool = true;
    /// Planes over 8 × 8, the four boards side by side (board `b` at rows `4·(b / 2)..`, columns
    /// `4·(b % 2)..`, row 0 at P0's side): P0's stones; P1's stones; P0 to move; actions without a
    /// push / 50.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 4,
        rows: 8,
        cols: 8,
    };
    const ENCODING_VERSION: u32 = 1;
    const SYMMETRIES: &'static [Symmetry] = &symmetries::SYMMETRIES;

    type Params = ShobuParams;

    fn new(params: &ShobuParams) -> Shobu {
        Shobu::from_stones(*params, [[0x000F; BOARDS], [0xF000; BOARDS]], Player::P0, 0)
            .expect("the initial board is valid")
    }

    fn params(&self) -> &ShobuParams {
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
        let sets = self.move_sets(self.to_move);
        // Written without a branch per action: the ids of each byte of a stone pair's mask come
        // from a table, 8 at a time, into a vector with room for 16 more than the count.
        let count = self.moves_now as usize;
        out.resize(count + 16, 0);
        let mut next = 0;
        self.for_each_pair(self.to_move, &sets, |key, pairs| {
            let base = (key << 4) as Action;
            for (half, byte) in [(0, pairs & 0xFF), (8, pairs >> 8)] {
                let positions = &BIT_POSITIONS[byte as usize];
                for (slot, &position) in out[next..next + 8].iter_mut().zip(positions) {
                    *slot = base | half | position;
                }
                next += byte.count_ones() as usize;
            }
        });
        debug_assert_eq!(next, count, "Shobu's action count and its actions disagree");
        out.truncate(next);
    }

    fn is_legal(&self, action: Action) -> bool {
        if self.outcome.is_some() || action as usize >= ACTIONS {
            return false;
        }
        let parts = ActionParts::of(action);
        let sets = self.move_sets(self.to_move);
        let pair = 2 * parts.dir + parts.length - 1;
        let passive = parts.passive_board(self.to_move) * SQUARES + parts.passive;
        let aggressive = parts.aggressive_board() * SQUARES + parts.aggressive;
        sets.passive[pair] & (1 << passive) != 0 && sets.aggressive[pair] & (1 << aggressive) != 0
    }

    fn play(&mut self, action: Action) {
        debug_assert!(
            self.is_legal(action),
            "illegal Shobu action {action} in\n{self}"
        );
        let parts = ActionParts::of(action);
        let mover = self.to_move;
        let (me, them) = (mover.index(), mover.opponent().index());
        self.mobility[me] += self.moves_now as u32;
        let walk = |mut square: u8, steps: usize| {
            for _ in 0..steps {
                if square == OFF {
                    break;
                }
                square = STEP[square as usize][parts.dir];
            }
            square
        };
        let pb = parts.passive_board(mover);
        self.move_stone(
            me,
            pb,
            parts.passive,
            walk(parts.passive as u8, parts.length),
        );
        let ab = parts.aggressive_board();
        let pushed = (1..=parts.length)
            .map(|steps| walk(parts.aggressive as u8, steps))
            .find(|&square| has(self.stones[them][ab], square));
        self.move_stone(
            me,
            ab,
            parts.aggressive,
            walk(parts.aggressive as u8, parts.length),
        );
        self.hash ^= NO_PUSH_KEYS[self.no_push as usize];
        if let Some(square) = pushed {
            let landing = walk(parts.aggressive as u8, parts.length + 1);
            self.move_stone(them, ab, square as usize, landing);
            self.no_push = 0;
        } else {
            self.no_push = self.no_push.saturating_add(1);
        }
        self.hash ^= NO_PUSH_KEYS[self.no_push as usize] ^ P1_TO_MOVE_KEY;
        self.to_move = mover.opponent();
        self.ply += 1;
        self.settle();
        debug_assert_eq!(
            self.hash,
            self.hash_from_scratch(),
            "incremental Shobu hash drifted"
        );
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
        let mut hash = NO_PUSH_KEYS[self.no_push as usize];
        for player in 0..2 {
            for board in 0..BOARDS {
                for square in squares(self.stones[player][board]) {
                    hash ^= stone_key(player, board, square);
                }
            }
        }
        if self.to_move == Player::P1 {
            hash ^= P1_TO_MOVE_KEY;
        }
        hash
    }

    /// Stones of P0 minus stones of P1 (all start with 16: the stones each has pushed off).
    fn score_p0(&self) -> Option<i32> {
        let [p0, p1] = self.piece_counts();
        Some(p0 as i32 - p1 as i32)
    }

    fn piece_counts(&self) -> [u32; 2] {
        self.stones
            .map(|boards| boards.iter().map(|b| b.count_ones()).sum())
    }

    fn mobility_sums(&self) -> [u32; 2] {
        self.mobility
    }

    fn encode(&self, out: &mut [f32]) {
        let shape = Self::ENCODING;
        assert_eq!(
            out.len(),
            shape.len(),
            "Shobu encodes into {} floats",
            shape.len()
        );
        let cells = shape.cells();
        out.fill(0.0);
        for board in 0..BOARDS {
            for square in 0..SQUARES {
                let cell = encoding_cell(board, square);
                out[cell] = has(self.stones[0][board], square as u8) as u8 as f32;
                out[cells + cell] = has(self.stones[1][board], square as u8) as u8 as f32;
            }
        }
        let p0_to_move = (self.to_move == Player::P0) as u8 as f32;
        out[2 * cells..3 * cells].fill(p0_to_move);
        out[3 * cells..].fill(self.no_push as f32 / 50.0);
    }

    fn apply_symmetry(&self, index: usize) -> Shobu {
        let (square_map, swap) = symmetries::element(index + 1);
        let mut stones = [[0u16; BOARDS]; 2];
        for (image_boards, boards) in stones.iter_mut().zip(&self.stones) {
            for (board, &stones_on_board) in boards.iter().enumerate() {
                let image_board = if swap { board ^ 1 } else { board };
                for square in squares(stones_on_board) {
                    image_boards[image_board] |= 1 << square_map[square];
                }
            }
        }
        let mut image = self.clone();
        image.stones = stones;
        image.hash = image.hash_from_scratch();
        image
    }

    fn action_to_text(player: Player, action: Action) -> String {
        let parts = ActionParts::of(action);
        format!(
            "{}{}:{}{}:{}{}",
            parts.passive_board(player),
            square_name(parts.passive),
            parts.aggressive_board(),
            square_name(parts.aggressive),
            DIRECTION_NAMES[parts.dir],
            parts.length
        )
    }

    fn action_from_text(player: Player, text: &str) -> Result<Action, MoveError> {
        notation::parse(player, text.trim()).map_err(|problem| MoveError::Unparsable {
            text: text.to_string(),
            expected: format!("{problem}; a move is {}", Self::notation_help()),
        })
    }

    fn notation_help() -> &'static str {
        "<passive board><square>:<aggressive board><square>:<direction><length>, e.g. 0a1:1b1:N2 — \
         boards 0-3 (P0's home boards 0 and 1, P1's 2 and 3; the aggressive board is of the other \
         column than the passive one), squares a1-d4 (column, row from P0's side), directions N NE \
         E SE S SW W NW, length 1 or 2"
    }

    /// The four boards as they face the players: P1's home boards 2 and 3 on top, P0's 0 and
    /// 1 below, each with row 1 at its bottom; a cell is named by its board and square
    /// (`0a1`). A move is the passive stone, where it goes, then the aggressive stone (which
    /// moves the same way).
    fn board_view(&self) -> BoardView {
        let cells = (0..BOARDS)
            .flat_map(|board| (0..16).map(move |square| (board, square)))
            .map(|(board, square)| {
                let (board_row, board_col) = (1 - board / 2, board % 2);
                let owner = [Player::P0, Player::P1]
                    .into_iter()
                    .find(|p| self.stones[p.index()][board] >> square & 1 == 1);
                Cell {
                    id: format!("{board}{}", square_name(square)),
                    row: board_row * 4 + 3 - square / 4,
                    col: board_col * 4 + square % 4,
                    piece: stone(owner),
                    count: None,
                }
            })
            .collect();
        let layout = Layout::Boards {
            size: 4,
            rows: 2,
            cols: 2,
        };
        BoardView::new(layout, cells, (Vec::new(), Vec::new()))
    }

    fn move_cells(&self, action: Action) -> Vec<String> {
        let parts = ActionParts::of(action);
        let (dr, dc) = DIRECTION_STEPS[parts.dir];
        let length = parts.length as i8;
        let (row, col) = ((parts.passive / 4) as i8, (parts.passive % 4) as i8);
        let to = ((row + dr * length) * 4 + col + dc * length) as usize;
        let passive_board = parts.passive_board(self.to_move);
        vec![
            format!("{passive_board}{}", square_name(parts.passive)),
            format!("{passive_board}{}", square_name(to)),
            format!(
                "{}{}",
                parts.aggressive_board(),
                square_name(parts.aggressive)
            ),
        ]
    }
}

/// The cell (row-major over 8 × 8) of `square` of `board`.
#[inline(always)]
const fn encoding_cell(board: usize, square: usize) -> usize {
    let row = 4 * (board / 2) + square / 4;
    let col = 4 * (board % 2) + square % 4;
    row * 8 + col
}

mod notation;

mod symmetries;

impl fmt::Display for Shobu {
    /// The four boards as the players see them: P1's home boards (2, 3) on top, row 4 first;
    /// `o` P0's stones, `x` P1's.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.outcome {
            Some(outcome) => writeln!(f, "[finished: {outcome:?}]")?,
            None => writeln!(
                f,
                "{} to move, {} actions without a push",
                self.to_move, self.no_push
            )?,
        }
        for (upper, lower) in [(2, 3), (0, 1)] {
            writeln!(f, "   board {upper}    board {lower}")?;
            for row in (0..4).rev() {
                write!(f, "{} ", row + 1)?;
                for board in [upper, lower] {
                    for col in 0..4 {
                        let square = (row * 4 + col) as u8;
                        let c = if has(self.stones[0][board], square) {
                            'o'
                        } else if has(self.stones[1][board], square) {
                            'x'
                        } else {
                            '.'
                        };
                        write!(f, " {c}")?;
                    }
                    write!(f, "  ")?;
                }
                writeln!(f)?;
            }
        }
        write!(f, "   a b c d     a b c d")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_parts_round_trip() {
        for action in 0..ACTIONS as Action {
            assert_eq!(ActionParts::of(action).id(), action);
        }
    }

    #[test]
    fn step_table_stays_on_the_board() {
        // Corner a1 (0): N, NE, E only.
        let on: Vec<usize> = (0..8).filter(|&d| STEP[0][d] != OFF).collect();
        assert_eq!(on, vec![0, 1, 2]);
        assert_eq!(STEP[3][2], OFF, "d1 east leaves the board");
        assert_eq!(STEP[5][7], 8, "b2 north-west is a3");
    }
}
