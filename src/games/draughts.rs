//! International draughts (FMJD rules) on an N × N board, docs/games.md: Brazilian on
//! 8 × 8 (12 men each), International on 10 × 10 (20), Canadian on 12 × 12 (30). White (P0,
//! `w` / `W` for a king) starts at the bottom and moves first, Black (P1, `b` / `B`) at the top.
//! Men step diagonally forward and capture both ways; kings fly; capturing is compulsory and only
//! the sequences taking the most pieces are legal (kings count as men); taken pieces leave the
//! board after the whole sequence; a man promotes only if it ends its move on the far row. A
//! player who cannot move loses. The move generation is in `draughts_moves.rs`.
//!
//! **Draws** (FMJD article 6; which ones the Olympiad applies is not known, so the
//! last two are parameters): the third occurrence of a position with the same side to move; 25
//! moves each of king moves without a capture (`king_moves`); three pieces with at least one king
//! against a lone king after 16 more moves each, two pieces or fewer with a king against a lone
//! king after 5 (`endgame_rule`; the count starts when that material arises, and starts again
//! after a capture); and a safety cap of `max_plies` plies (not an FMJD rule).
//!
//! **Action ids**: a move is `(from · S + to) · K + k` over the S dark squares (PDN order from 0),
//! where `k` numbers the distinct captured sets of the legal captures from `from` to `to`, in
//! increasing order of the set's bits (two captures between the same squares that take different
//! pieces are different moves; the same pieces taken along another path are the same move). K is
//! 16 on 8 × 8 and 10 × 10 and 12 on 12 × 12 (ids fit 16 bits); a position with more distinct
//! captured sets between two squares than that would lose the extras — it needs a flying king and
//! over a dozen enemy pieces in a lattice no game reaches.
//!
//! **Text** as PDN writes it: `32-28`, captures `28x19`, and a capture whose from and to squares
//! another capture shares with every landing square, `28x19x10`. Positions are read and written
//! as PDN FEN (`W:W31-50:B1-20`). No symmetry preserves values without swapping colours.

use std::cell::RefCell;
use std::fmt;

use super::board_view::{BoardView, Cell, Layout, Piece, PieceKind};
use super::draughts_moves::{
    DraughtsMove, Geometry, Sides, bits, capture_path, geometry_of, has_move, is_capture_path,
    legal_moves,
};
use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, PositionError, Symmetry,
};
use super::game_params::{
    GameParams, Param, parse_bool, parse_integer, parse_plies, parse_word, word_of,
};
use super::registry::GameVisitor;
use super::repetition::RepetitionHistory;
use super::zobrist;

/// Most squares of a supported board (12 × 12).
const MAX_SQUARES: usize = 72;
/// The king clock is hashed up to this many plies (100 moves each).
const MAX_KING_PLIES: usize = 200;

const PIECE_KEYS: [u64; 4 * MAX_SQUARES] = zobrist::keys(0xD4A0_0000_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0xD4A0_0000_0000_0002)[0];
const KING_CLOCK_KEYS: [u64; MAX_KING_PLIES + 1] = zobrist::keys(0xD4A0_0000_0000_0003);
const ENDING_KEYS: [u64; 33] = zobrist::keys(0xD4A0_0000_0000_0004);

thread_local! {
    /// The legal moves of the position being looked at, reused by every call on this thread.
    static MOVES: RefCell<Vec<DraughtsMove>> = RefCell::new(Vec::with_capacity(128));
}

/// Rule options (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DraughtsRules {
    /// Moves of each side with only kings moved and nothing taken that draw (FMJD: 25; 0: never).
    pub king_moves: u16,
    /// FMJD's short endgames against a lone king: 16 moves each with three pieces, 5 with two.
    pub endgame_rule: bool,
    /// The game is a draw after this many plies.
    pub max_plies: u16,
}

impl Default for DraughtsRules {
    fn default() -> Self {
        DraughtsRules {
            king_moves: 25,
            endgame_rule: true,
            max_plies: 1000,
        }
    }
}

/// An ending against a lone king, whose length FMJD limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    None,
    /// Three pieces, at least one a king, against a lone king: 16 moves each.
    ThreeAgainstKing,
    /// Two pieces or one, at least one a king, against a lone king: 5 moves each.
    TwoAgainstKing,
}

impl Ending {
    /// Plies after which the ending is a draw.
    fn limit(self) -> u16 {
        match self {
            Ending::None => u16::MAX,
            Ending::ThreeAgainstKing => 32,
            Ending::TwoAgainstKing => 10,
        }
    }
}

/// A draughts position on an N × N board.
#[derive(Clone, Debug)]
pub struct Draughts<const N: usize> {
    /// Men and kings of P0 (White) and P1 (Black), bit = square (PDN number − 1).
    men: [u128; 2],
    kings: [u128; 2],
    to_move: Player,
    outcome: Option<Outcome>,
    ply: u16,
    /// Plies in a row of king moves without a capture.
    king_plies: u16,
    ending: Ending,
    /// Plies since `ending` began (0 while there is none).
    ending_plies: u16,
    mobility: [u32; 2],
    /// Hash of the pieces and the side to move (what a repetition compares).
    board_hash: u64,
    history: RepetitionHistory,
    params: DraughtsRules,
}

impl<const N: usize> Draughts<N> {
    const SQUARES: usize = N * N / 2;
    /// Captured-set slots per (from, to) pair.
    const K: usize = {
        let fit = 65_536 / (Self::SQUARES * Self::SQUARES);
        if fit < 16 { fit } else { 16 }
    };

    #[inline(always)]
    fn geometry() -> &'static Geometry {
        geometry_of(N)
    }

    /// The pieces as `player` sees them.
    fn sides(&self, player: Player) -> Sides {
        let (own, enemy) = (player.index(), 1 - player.index());
        Sides {
            own: self.men[own] | self.kings[own],
            enemy: self.men[enemy] | self.kings[enemy],
            kings: self.kings[own],
            upwards: player == Player::P0,
        }
    }

    /// Runs `f` on the mover's legal moves, each with its action id (ids increasing).
    fn with_moves<R>(&self, f: impl FnOnce(&[(Action, DraughtsMove)]) -> R) -> R {
        thread_local! {
            static IDS: RefCell<Vec<(Action, DraughtsMove)>> = RefCell::new(Vec::with_capacity(128));
        }
        MOVES.with_borrow_mut(|moves| {
            legal_moves(Self::geometry(), self.sides(self.to_move), moves);
            IDS.with_borrow_mut(|ids| {
                ids.clear();
                let mut k = 0;
                for (i, m) in moves.iter().enumerate() {
                    let same_squares =
                        i > 0 && (moves[i - 1].from, moves[i - 1].to) == (m.from, m.to);
                    k = if same_squares { k + 1 } else { 0 };
                    if k < Self::K {
                        ids.push((Self::id(m.from as usize, m.to as usize, k), *m));
                    }
                }
                f(ids)
            })
        })
    }

    fn id(from: usize, to: usize, k: usize) -> Action {
        ((from * Self::SQUARES + to) * Self::K + k) as Action
    }

    /// `(from, to, k)` of an id.
    fn decode(action: Action) -> (usize, usize, usize) {
        let pair = action as usize / Self::K;
        (
            pair / Self::SQUARES,
            pair % Self::SQUARES,
            action as usize % Self::K,
        )
    }

    /// The piece on `square` (0-based): `Some((owner, is_king))`.
    pub fn piece(&self, square: usize) -> Option<(Player, bool)> {
        [Player::P0, Player::P1].into_iter().find_map(|p| {
            let (man, king) = (
                self.men[p.index()] >> square & 1,
                self.kings[p.index()] >> square & 1,
            );
            (man | king == 1).then_some((p, king == 1))
        })
    }

    fn ending_now(&self) -> Ending {
        let pieces = [0, 1].map(|p| (self.men[p] | self.kings[p]).count_ones());
        let kings = self.kings.map(u128::count_ones);
        for strong in 0..2 {
            let weak = 1 - strong;
            if pieces[weak] == 1 && kings[weak] == 1 && kings[strong] >= 1 {
                return match pieces[strong] {
                    1 | 2 => Ending::TwoAgainstKing,
                    3 => Ending::ThreeAgainstKing,
                    _ => Ending::None,
                };
            }
        }
        Ending::None
    }

    /// The outcome of the position as the rules settle it, the mover to play.
    fn settled_outcome(&self) -> Option<Outcome> {
        let params = &self.params;
        if !has_move(Self::geometry(), self.sides(self.to_move)) {
            Some(Outcome::win_for(self.to_move.opponent()))
        } else if self.history.count(self.board_hash) >= 3
            || (params.king_moves > 0 && self.king_plies >= 2 * params.king_moves)
            || (params.endgame_rule && self.ending_plies >= self.ending.limit())
            || self.ply >= params.max_plies
        {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    #[inline]
    fn toggle(&mut self, player: usize, king: bool, square: usize) {
        let bit = 1u128 << square;
        if king {
            self.kings[player] ^= bit;
        } else {
            self.men[player] ^= bit;
        }
        self.board_hash ^= PIECE_KEYS[(2 * player + king as usize) * MAX_SQUARES + square];
    }

    /// Moves the piece and takes the captured ones; promotes a man ending on the far row.
    fn apply(&mut self, m: DraughtsMove) {
        let (mover, enemy) = (self.to_move.index(), 1 - self.to_move.index());
        let (from, to) = (m.from as usize, m.to as usize);
        let was_king = self.kings[mover] >> from & 1 == 1;
        self.toggle(mover, was_king, from);
        for square in bits(m.captured) {
            let king = self.kings[enemy] >> square & 1 == 1;
            self.toggle(enemy, king, square);
        }
        let far_row = if mover == 0 { 0 } else { N - 1 };
        let promotes = !was_king && Self::geometry().row_col(to).0 == far_row;
        self.toggle(mover, was_king || promotes, to);
        self.board_hash ^= P1_TO_MOVE_KEY;
        let irreversible = !was_king || m.captured != 0;
        self.king_plies = if irreversible { 0 } else { self.king_plies + 1 };
        let ending = self.ending_now();
        let same_ending = ending == self.ending && m.captured == 0 && ending != Ending::None;
        self.ending_plies = if same_ending {
            self.ending_plies + 1
        } else {
            0
        };
        self.ending = ending;
        if irreversible {
            self.history.clear();
        }
        self.history.push(self.board_hash);
    }

    /// A position from PDN FEN (`W:W31-50:B1-20`, `K` before a king's square, ranges allowed), with
    /// the clocks at zero; over already when the rules say so.
    pub fn from_fen(params: &DraughtsRules, fen: &str) -> Result<Self, PositionError> {
        let invalid = |problem: String| PositionError {
            game: Self::NAME,
            problem: format!("{problem} in FEN {fen:?} (expected e.g. W:W31-50:B1-20)"),
        };
        let mut position = Self::new(params);
        position.men = [0; 2];
        position.kings = [0; 2];
        let mut fields = fen.trim().trim_end_matches('.').split(':');
        position.to_move = match fields.next().map(str::trim) {
            Some("W") => Player::P0,
            Some("B") => Player::P1,
            other => return Err(invalid(format!("side to move {other:?}: expected W or B"))),
        };
        for field in fields {
            let field = field.trim();
            let player = match field.chars().next() {
                Some('W') => 0,
                Some('B') => 1,
                _ => return Err(invalid(format!("piece list {field:?}: expected W… or B…"))),
            };
            for item in field[1..]
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
            {
                let (king, squares) = match item.strip_prefix('K') {
                    Some(rest) => (true, rest),
                    None => (false, item),
                };
                for square in Self::square_range(squares).ok_or_else(|| {
                    invalid(format!("square {item:?}: expected 1 to {}", Self::SQUARES))
                })? {
                    if position.piece(square).is_some() {
                        return Err(invalid(format!("square {} named twice", square + 1)));
                    }
                    position.toggle(player, king, square);
                }
            }
        }
        position.board_hash = position.board_hash_from_scratch();
        position.history.clear();
        position.history.push(position.board_hash);
        position.ending = position.ending_now();
        position.outcome = position.settled_outcome();
        Ok(position)
    }

    /// The squares (0-based) of `13` or `31-35` (PDN numbers).
    fn square_range(text: &str) -> Option<std::ops::RangeInclusive<usize>> {
        let number = |t: &str| {
            t.trim()
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=Self::SQUARES).contains(n))
        };
        let (first, last) = match text.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(text)?, number(text)?),
        };
        (first <= last).then(|| first - 1..=last - 1)
    }

    /// The position as PDN FEN, squares listed one by one.
    pub fn fen(&self) -> String {
        let side = |p: usize| {
            bits(self.men[p] | self.kings[p])
                .map(|s| {
                    let king = if self.kings[p] >> s & 1 == 1 { "K" } else { "" };
                    format!("{king}{}", s + 1)
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        let mover = if self.to_move == Player::P0 { 'W' } else { 'B' };
        format!("{mover}:W{}:B{}", side(0), side(1))
    }

    fn board_hash_from_scratch(&self) -> u64 {
        let side = if self.to_move == Player::P1 {
            P1_TO_MOVE_KEY
        } else {
            0
        };
        (0..4).fold(side, |hash, kind| {
            let set = if kind % 2 == 0 {
                self.men[kind / 2]
            } else {
                self.kings[kind / 2]
            };
            hash ^ zobrist::of_bits(set, &PIECE_KEYS[kind * MAX_SQUARES..][..MAX_SQUARES])
        })
    }

    /// The legal moves from `from` to `to` here, with their ids.
    fn moves_between(&self, from: usize, to: usize) -> Vec<(Action, DraughtsMove)> {
        self.with_moves(|moves| {
            moves
                .iter()
                .filter(|(_, m)| (m.from as usize, m.to as usize) == (from, to))
                .copied()
                .collect()
        })
    }

    /// The squares (0-based) a move text names and whether it wrote `x`: `32-28`, `28x19x10`.
    fn squares_of_text(text: &str) -> Option<(Vec<usize>, bool)> {
        let capture = text.contains('x');
        let squares: Option<Vec<usize>> = text
            .split(['x', '-'])
            .map(|t| {
                t.parse::<usize>()
                    .ok()
                    .filter(|n| (1..=Self::SQUARES).contains(n))
            })
            .map(|n| n.map(|n| n - 1))
            .collect();
        let squares = squares?;
        let mixed = capture && text.contains('-');
        (squares.len() >= 2 && !mixed).then_some((squares, capture))
    }

    fn unparsable(text: &str) -> MoveError {
        MoveError::Unparsable {
            text: text.to_string(),
            expected: Self::notation_help().to_string(),
        }
    }
}

/// The draughts boards the registry compiles (each side is its own type, `Draughts<N>`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DraughtsSize {
    /// Brazilian draughts.
    Eight,
    /// International draughts.
    #[default]
    Ten,
    /// Canadian draughts.
    Twelve,
}

/// `board_size` as a spec writes it.
const BOARD_SIZES: &[(&str, DraughtsSize)] = &[
    ("8", DraughtsSize::Eight),
    ("10", DraughtsSize::Ten),
    ("12", DraughtsSize::Twelve),
];

/// Draughts as the registry names it: the board's size and the rules.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DraughtsParams {
    pub size: DraughtsSize,
    pub rules: DraughtsRules,
}

impl GameParams for DraughtsParams {
    const NAME: &'static str = Draughts::<8>::NAME;
    const DESCRIPTION: &'static str = "International draughts (FMJD rules): majority capture, flying kings; 8 × 8 Brazilian, 10 × 10 International, 12 × 12 Canadian";
    const PARAMS: &'static [Param<Self>] = &[
        Param {
            key: "board_size",
            meaning: "the board's side: 8, 10 or 12",
            set: |p, value| {
                p.size = parse_word(value, BOARD_SIZES)?;
                Ok(())
            },
            get: |p| word_of(&p.size, BOARD_SIZES).to_string(),
        },
        Param {
            key: "king_moves",
            meaning: "a draw after this many moves each of only kings moving without a capture (0: never)",
            set: |p, value| {
                p.rules.king_moves = parse_integer(value, (0, 100), " (0: no such draw)")?;
                Ok(())
            },
            get: |p| p.rules.king_moves.to_string(),
        },
        Param {
            key: "endgame_rule",
            meaning: "FMJD's short endings against a lone king: a draw after 16 moves each (3 pieces) or 5 (2 pieces)",
            set: |p, value| {
                p.rules.endgame_rule = parse_bool(value)?;
                Ok(())
            },
            get: |p| p.rules.endgame_rule.to_string(),
        },
        Param {
            key: "max_plies",
            meaning: "the game is a draw after this many plies",
            set: |p, value| {
                p.rules.max_plies = parse_plies(value)?;
                Ok(())
            },
            get: |p| p.rules.max_plies.to_string(),
        },
    ];

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        match self.size {
            DraughtsSize::Eight => visitor.visit(Draughts::<8>::new(&self.rules)),
            DraughtsSize::Ten => visitor.visit(Draughts::<10>::new(&self.rules)),
            DraughtsSize::Twelve => visitor.visit(Draughts::<12>::new(&self.rules)),
        }
    }
}

impl<const N: usize> Game for Draughts<N> {
    const NAME: &'static str = "draughts";
    const NUM_ACTIONS: usize = Self::SQUARES * Self::SQUARES * Self::K;
    const HAS_DRAWS: bool = true;
    /// Planes over the whole N × N board (row 0 = the top, Black's side; light squares stay 0):
    /// White's men, White's kings, Black's men, Black's kings, White to move, the king-move clock
    /// as a fraction of its limit, the short-ending clock as a fraction of its limit.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 7,
        rows: N,
        cols: N,
    };
    const ENCODING_VERSION: u32 = 1;
    const SYMMETRIES: &'static [Symmetry] = &[];
    const SIDE_NAMES: [&'static str; 2] = ["White", "Black"]; // White moves first

    type Params = DraughtsRules;

    fn new(params: &DraughtsRules) -> Self {
        let geometry = Self::geometry();
        let rows = N / 2 - 1;
        let mut position = Draughts {
            men: [geometry.rows_mask(N - rows..N), geometry.rows_mask(0..rows)],
            kings: [0; 2],
            to_move: Player::P0,
            outcome: None,
            ply: 0,
            king_plies: 0,
            ending: Ending::None,
            ending_plies: 0,
            mobility: [0; 2],
            board_hash: 0,
            history: RepetitionHistory::default(),
            params: *params,
        };
        position.board_hash = position.board_hash_from_scratch();
        position.history.push(position.board_hash);
        position
    }

    fn params(&self) -> &DraughtsRules {
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
        if self.outcome.is_none() {
            self.with_moves(|moves| out.extend(moves.iter().map(|(id, _)| *id)));
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        self.outcome.is_none()
            && (action as usize) < Self::NUM_ACTIONS
            && self.with_moves(|moves| moves.binary_search_by_key(&action, |(id, _)| *id).is_ok())
    }

    fn play(&mut self, action: Action) {
        let (chosen, count) = self.with_moves(|moves| {
            let index = moves.binary_search_by_key(&action, |(id, _)| *id);
            (index.ok().map(|i| moves[i].1), moves.len())
        });
        let chosen = chosen.unwrap_or_else(|| panic!("illegal draughts action {action}\n{self}"));
        debug_assert!(self.outcome.is_none(), "a move after the end\n{self}");
        self.mobility[self.to_move.index()] += count as u32;
        self.apply(chosen);
        self.to_move = self.to_move.opponent();
        self.ply += 1;
        self.outcome = self.settled_outcome();
    }

    #[inline]
    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    #[inline]
    fn hash(&self) -> u64 {
        self.board_hash
            ^ KING_CLOCK_KEYS[(self.king_plies as usize).min(MAX_KING_PLIES)]
            ^ ENDING_KEYS[(self.ending_plies as usize).min(32)]
    }

    fn hash_from_scratch(&self) -> u64 {
        self.board_hash_from_scratch()
            ^ KING_CLOCK_KEYS[(self.king_plies as usize).min(MAX_KING_PLIES)]
            ^ ENDING_KEYS[(self.ending_plies as usize).min(32)]
    }

    fn piece_counts(&self) -> [u32; 2] {
        [0, 1].map(|p| (self.men[p] | self.kings[p]).count_ones())
    }

    fn mobility_sums(&self) -> [u32; 2] {
        self.mobility
    }

    fn encode(&self, out: &mut [f32]) {
        assert_eq!(out.len(), Self::ENCODING.len(), "one encoded position");
        out.fill(0.0);
        let cells = N * N;
        let geometry = Self::geometry();
        let sets = [self.men[0], self.kings[0], self.men[1], self.kings[1]];
        for (plane, set) in sets.into_iter().enumerate() {
            for square in bits(set) {
                let (row, col) = geometry.row_col(square);
                out[plane * cells + row * N + col] = 1.0;
            }
        }
        let p0_to_move = (self.to_move == Player::P0) as u8 as f32;
        out[4 * cells..5 * cells].fill(p0_to_move);
        let king_limit = 2 * self.params.king_moves.max(1);
        let king_clock = f32::from(self.king_plies.min(king_limit)) / f32::from(king_limit);
        out[5 * cells..6 * cells].fill(king_clock);
        let ending_clock = match self.ending {
            Ending::None => 0.0,
            ending => f32::from(self.ending_plies) / f32::from(ending.limit()),
        };
        out[6 * cells..].fill(ending_clock);
    }

    fn apply_symmetry(&self, index: usize) -> Self {
        panic!("draughts has no value-preserving symmetry (asked for {index})")
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        let (from, to, k) = Self::decode(action);
        let slot = if k == 0 {
            String::new()
        } else {
            format!("#{k}")
        };
        format!("{}-{}{slot}", from + 1, to + 1)
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let text = text.trim();
        let (squares, k) = match text.split_once('#') {
            Some((squares, k)) => (squares, k.parse::<usize>().ok().filter(|&k| k < Self::K)),
            None => (text, Some(0)),
        };
        match (Self::squares_of_text(squares), k) {
            (Some((squares, _)), Some(k)) if squares.len() == 2 => {
                Ok(Self::id(squares[0], squares[1], k))
            }
            _ => Err(Self::unparsable(text)),
        }
    }

    fn move_to_text(&self, action: Action) -> String {
        let (from, to, _) = Self::decode(action);
        let between = self.moves_between(from, to);
        let Some(&(_, chosen)) = between.iter().find(|(id, _)| *id == action) else {
            return Self::action_to_text(self.to_move, action);
        };
        if chosen.captured == 0 {
            return format!("{}-{}", from + 1, to + 1);
        }
        let squares = if between.len() > 1 {
            capture_path(Self::geometry(), self.sides(self.to_move), chosen)
        } else {
            vec![from, to]
        };
        let numbers: Vec<String> = squares.iter().map(|s| (s + 1).to_string()).collect();
        numbers.join("x")
    }

    fn move_from_text(&self, text: &str) -> Result<Action, MoveError> {
        let text = text.trim();
        let (squares, capture) = Self::squares_of_text(text.split('#').next().unwrap_or(text))
            .ok_or_else(|| Self::unparsable(text))?;
        if !capture {
            // `from-to` and `from-to#k` name slot k (0 when not given), as without the position.
            return Self::action_from_text(self.to_move, text);
        }
        let (from, to) = (squares[0], squares[squares.len() - 1]);
        let between = self.moves_between(from, to);
        let matching: Vec<Action> = between
            .iter()
            .filter(|(_, m)| {
                squares.len() == 2
                    || is_capture_path(Self::geometry(), self.sides(self.to_move), *m, &squares)
            })
            .map(|(id, _)| *id)
            .collect();
        match matching[..] {
            [] if between.is_empty() => Ok(Self::id(from, to, 0)),
            [id] => Ok(id),
            _ => {
                let texts: Vec<String> = between
                    .iter()
                    .map(|(id, _)| self.move_to_text(*id))
                    .collect();
                Err(MoveError::Unparsable {
                    text: text.to_string(),
                    expected: format!(
                        "the landing squares of one of the captures from {} to {}: {}",
                        from + 1,
                        to + 1,
                        texts.join(", ")
                    ),
                })
            }
        }
    }

    fn notation_help() -> &'static str {
        "PDN square numbers: a move as from-to (32-28), a capture as fromxto (28x19), with its landing squares when two captures share them (28x19x10)"
    }

    /// The board from Black's side at the top; its cells are the dark squares, named by their
    /// PDN numbers; White (P0) moves first.
    fn board_view(&self) -> BoardView {
        let geometry = Self::geometry();
        let cells = (0..N)
            .flat_map(|row| (0..N).map(move |col| (row, col)))
            .filter_map(|(row, col)| {
                let square = geometry.square_at(row as i32, col as i32)?;
                Some(Cell {
                    id: (square + 1).to_string(),
                    row,
                    col,
                    piece: self.piece(square).map(|(owner, king)| Piece {
                        owner: Some(owner),
                        kind: if king {
                            PieceKind::King
                        } else {
                            PieceKind::Stone
                        },
                    }),
                    count: None,
                })
            })
            .collect();
        let layout = Layout::Squares {
            rows: N,
            cols: N,
            checkered: true,
        };
        BoardView::new(layout, cells, (Vec::new(), Vec::new()))
            .with_colours(["white", "black"])
            .with_cell_names()
    }

    /// A step's two squares; a capture's start, every landing square and its end.
    fn move_cells(&self, action: Action) -> Vec<String> {
        let (from, to, _) = Self::decode(action);
        let between = self.moves_between(from, to);
        let squares = match between.iter().find(|(id, _)| *id == action) {
            Some(&(_, chosen)) if chosen.captured != 0 => {
                capture_path(Self::geometry(), self.sides(self.to_move), chosen)
            }
            _ => vec![from, to],
        };
        squares.iter().map(|s| (s + 1).to_string()).collect()
    }
}

impl<const N: usize> fmt::Display for Draughts<N> {
    /// The board from Black's side at the top: `w`/`W` White's men/kings, `b`/`B` Black's, `.` an
    /// empty dark square, blank a light one; then the FEN.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let geometry = Self::geometry();
        for row in 0..N {
            let line: String = (0..N)
                .map(|col| match geometry.square_at(row as i32, col as i32) {
                    None => ' ',
                    Some(square) => match self.piece(square) {
                        None => '.',
                        Some((Player::P0, false)) => 'w',
                        Some((Player::P0, true)) => 'W',
                        Some((Player::P1, false)) => 'b',
                        Some((Player::P1, true)) => 'B',
                    },
                })
                .flat_map(|c| [c, ' '])
                .collect();
            writeln!(f, "{}", line.trim_end())?;
        }
        write!(f, "{}", self.fen())
    }
}
