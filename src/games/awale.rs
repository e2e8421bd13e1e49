//! Awale (Oware abapa), move for move the rules of OpenSpiel's `oware` (docs/algorithms.md §9).
//!
//! Board: houses 0-5 are P0's (South, sown left to right), houses 6-11 P1's; sowing goes
//! counter-clockwise (index + 1 mod 12) and skips the emptied origin house on a lap. Action id =
//! the mover's house numbered 0-5 from the mover's left, text `A`-`F` for P0 and `a`-`f` for P1
//! (OpenSpiel's `ActionToString`).
//!
//! After a move, in this order (OpenSpiel's `DoApplyAction`):
//! 1. capture: if the last seed lands in the opponent's row on 2 or 3, take it and the preceding
//!    houses while they are in the opponent's row and hold 2 or 3 — unless the capture would take
//!    every seed of the opponent's row (grand slam), in which case nothing is captured;
//! 2. the side to move changes;
//! 3. repetition: if the position (board, scores, side to move) occurred before since the last
//!    capture, the game ends;
//! 4. the game ends if the side to move has no legal move: its row is empty, or the opponent's is
//!    and no move feeds it (feeding rule), or a player has more than half the seeds, or both have
//!    exactly half (24-24, a draw).
//!
//! Whenever the game ends, each player takes the seeds left in its own row (OpenSpiel's
//! `CollectAndTerminate`, also applied after a score win, so final scores always sum to 48); the
//! player with more seeds wins.
//!
//! Variants (the Awale MCTS thesis drops feeding and repetition and counts a 500-ply game as a
//! draw) are parameters. The game also stops at `max_plies` (default 1000, OpenSpiel's
//! `kMaxGameLength`, beyond which OpenSpiel refuses to play): by default each side then takes its
//! own seeds, as at a repetition, or, with `cap_is_draw`, the game is a draw.
//!
//! Repetition needs the positions since the last capture. Their hashes are kept in a fixed inline
//! buffer (no allocation while fewer than `INLINE_HISTORY` positions separate two captures, which
//! covers nearly every game) that spills older hashes into a shared, copy-on-write vector.

use std::fmt;

use super::board_view::{BoardView, Cell, Layout};
use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, PositionError, Symmetry,
    push_mask_actions,
};
use super::game_params::{GameParams, Param, parse_bool, parse_plies};
use super::registry::GameVisitor;
use super::repetition::RepetitionHistory;
use super::zobrist;

/// Houses per player.
pub const HOUSES: usize = 6;
/// Houses on the board.
pub const BOARD: usize = 2 * HOUSES;
/// Seeds per house at the start.
pub const START_SEEDS: u8 = 4;
/// Largest seed count a house or a score can hold in the standard game.
const MAX_COUNT: usize = 48;

/// Rule variants of Awale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AwaleParams {
    /// A player whose opponent has no seeds must give it some, if it can (default true).
    pub feeding: bool,
    /// A repeated position (since the last capture) ends the game (default true).
    pub repetition: bool,
    /// The game stops after this many plies (default 1000).
    pub max_plies: u16,
    /// Reaching `max_plies` is a draw (the Awale MCTS thesis) instead of ending as a repetition
    /// does.
    pub cap_is_draw: bool,
}

impl Default for AwaleParams {
    fn default() -> Self {
        AwaleParams {
            feeding: true,
            repetition: true,
            max_plies: 1000,
            cap_is_draw: false,
        }
    }
}

// Zobrist keys: [house][seed count], [player][score], side to move.
const HOUSE_KEYS: [u64; BOARD * (MAX_COUNT + 1)] = zobrist::keys(0xA3A1_E000_0000_0001);
const SCORE_KEYS: [u64; 2 * (MAX_COUNT + 1)] = zobrist::keys(0xA3A1_E000_0000_0002);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0xA3A1_E000_0000_0003)[0];

#[inline(always)]
fn house_key(house: usize, seeds: u8) -> u64 {
    HOUSE_KEYS[house * (MAX_COUNT + 1) + seeds as usize]
}

/// `house_key(house, seeds) ^ house_key(house, seeds + 1)`: the hash change of sowing one seed.
const SOW_KEYS: [u64; BOARD * MAX_COUNT] = {
    let mut keys = [0u64; BOARD * MAX_COUNT];
    let mut i = 0;
    while i < BOARD * MAX_COUNT {
        let (house, seeds) = (i / MAX_COUNT, i % MAX_COUNT);
        keys[i] = HOUSE_KEYS[house * (MAX_COUNT + 1) + seeds]
            ^ HOUSE_KEYS[house * (MAX_COUNT + 1) + seeds + 1];
        i += 1;
    }
    keys
};

#[inline(always)]
fn sow_key(house: usize, seeds_before: u8) -> u64 {
    SOW_KEYS[house * MAX_COUNT + seeds_before as usize]
}

#[inline(always)]
fn score_key(player: usize, score: u8) -> u64 {
    SCORE_KEYS[player * (MAX_COUNT + 1) + score as usize]
}

/// An Awale position.
#[derive(Clone, Debug)]
pub struct Awale {
    seeds: [u8; BOARD],
    score: [u8; 2],
    to_move: Player,
    outcome: Option<Outcome>,
    /// Legal actions of the player to move (bit `a` = action `a`), 0 once the game is over;
    /// computed once per move because the end-of-game test needs it anyway.
    legal: u8,
    /// A player with more than this many seeds wins; both at exactly this many is a draw.
    half: u8,
    ply: u16,
    mobility: [u16; 2],
    /// The seeds each player took from its own row when the game ended (0 in play): the pieces
    /// it still had on the board, which the presence heuristic reads.
    swept: [u8; 2],
    hash: u64,
    params: AwaleParams,
    history: RepetitionHistory,
}

impl Awale {
    /// Sows the seeds of house `origin` counter-clockwise, skipping the origin on laps;
    /// returns the last house sown.
    #[inline(always)]
    fn sow(&mut self, origin: usize) -> usize {
        let sown = self.seeds[origin];
        self.hash ^= house_key(origin, sown) ^ house_key(origin, 0);
        self.seeds[origin] = 0;
        let mut last = origin;
        if (sown as usize) < BOARD {
            // No lap (the common case): no origin test per seed.
            for _ in 0..sown {
                last = if last == BOARD - 1 { 0 } else { last + 1 };
                let before = self.seeds[last];
                self.hash ^= sow_key(last, before);
                self.seeds[last] = before + 1;
            }
        } else {
            let mut remaining = sown;
            while remaining > 0 {
                last = if last == BOARD - 1 { 0 } else { last + 1 };
                if last != origin {
                    let before = self.seeds[last];
                    self.hash ^= sow_key(last, before);
                    self.seeds[last] = before + 1;
                    remaining -= 1;
                }
            }
        }
        last
    }

    /// Captures the houses of 2 or 3 seeds backwards from `last` in the opponent's row, unless
    /// that would take all the opponent's seeds (a grand slam).
    #[inline(always)]
    fn capture(&mut self, mover: Player, last: usize) {
        let in_opponent_row = last / HOUSES != mover.index();
        if !in_opponent_row || self.is_grand_slam(last) {
            return;
        }
        let lower = last / HOUSES * HOUSES;
        let mut captured = 0u8;
        let mut house = last;
        loop {
            let seeds = self.seeds[house];
            if seeds != 2 && seeds != 3 {
                break;
            }
            captured += seeds;
            self.hash ^= house_key(house, seeds) ^ house_key(house, 0);
            self.seeds[house] = 0;
            if house == lower {
                break;
            }
            house -= 1;
        }
        if captured > 0 {
            let m = mover.index();
            self.hash ^= score_key(m, self.score[m]) ^ score_key(m, self.score[m] + captured);
            self.score[m] += captured;
            // Captured seeds never come back: no earlier position can recur.
            self.history.clear();
        }
    }

    /// A position from a board: `seeds[0..6]` are P0's houses A-F, `seeds[6..12]` P1's houses
    /// a-f, `score` the seeds each player has captured. The position counts as ply 0 and as the
    /// first position of its repetition history; if it is already over (a score past half, or no
    /// legal move) the remaining seeds are collected as after a move.
    ///
    /// # Errors
    /// A board with no seed, or with more than 48 seeds and scores in all.
    pub fn from_board(
        params: AwaleParams,
        seeds: [u8; BOARD],
        score: [u8; 2],
        to_move: Player,
    ) -> Result<Awale, PositionError> {
        let total: usize = seeds.iter().chain(score.iter()).map(|&s| s as usize).sum();
        if total > MAX_COUNT {
            return Err(invalid(format!(
                "a board holds at most {MAX_COUNT} seeds in all, this one {total}"
            )));
        }
        if total == 0 {
            return Err(invalid("a board needs at least one seed".to_string()));
        }
        let mut position = Awale {
            seeds,
            score,
            to_move,
            outcome: None,
            legal: 0,
            half: (total / 2) as u8,
            ply: 0,
            mobility: [0; 2],
            swept: [0; 2],
            hash: 0,
            params,
            history: RepetitionHistory::default(),
        };
        position.hash = position.hash_from_scratch();
        position.history.push(position.hash);
        position.settle();
        Ok(position)
    }

    /// A position from a text description:
    /// `"<A..F seeds> / <a..f seeds> [; <P0 score> <P1 score>] [; p0|p1]"`, e.g.
    /// `"4 4 4 4 4 4 / 4 4 4 4 4 4 ; 0 0 ; p0"` is the start. P0's houses are listed A to F and
    /// P1's a to f (each from its owner's left).
    ///
    /// # Errors
    /// A description that does not parse, or a board `from_board` refuses.
    pub fn from_description(params: AwaleParams, text: &str) -> Result<Awale, PositionError> {
        let expected = "expected \"<6 seed counts for A-F> / <6 for a-f> [; <score p0> <score p1>] [; p0|p1]\"";
        let mut sections = text.split(';').map(str::trim);
        let board = sections.next().unwrap_or_default();
        let (south, north) = board
            .split_once('/')
            .ok_or_else(|| invalid(format!("no '/' between the rows in {text:?}: {expected}")))?;
        let mut seeds = [0u8; BOARD];
        for (offset, row) in [(0, south), (HOUSES, north)] {
            let counts = parse_counts(row).map_err(|word| {
                invalid(format!(
                    "{word:?} is not a seed count in {text:?}: {expected}"
                ))
            })?;
            if counts.len() != HOUSES {
                return Err(invalid(format!(
                    "a row has 6 houses, got {} in {row:?}: {expected}",
                    counts.len()
                )));
            }
            seeds[offset..offset + HOUSES].copy_from_slice(&counts);
        }
        let mut score = [0u8; 2];
        let mut to_move = Player::P0;
        for section in sections {
            match section.to_ascii_lowercase().as_str() {
                "p0" => to_move = Player::P0,
                "p1" => to_move = Player::P1,
                _ => {
                    let counts = parse_counts(section).map_err(|word| {
                        invalid(format!(
                            "{word:?} is not a seed count in {text:?}: {expected}"
                        ))
                    })?;
                    if counts.len() != 2 {
                        return Err(invalid(format!(
                            "scores are two numbers, got {section:?}: {expected}"
                        )));
                    }
                    score = [counts[0], counts[1]];
                }
            }
        }
        Awale::from_board(params, seeds, score, to_move)
    }

    /// Seeds in each house (0-5 P0's, 6-11 P1's).
    pub fn seeds(&self) -> &[u8; BOARD] {
        &self.seeds
    }

    /// Seeds captured by each player, `[P0, P1]`.
    pub fn scores(&self) -> [u8; 2] {
        self.score
    }

    #[inline]
    fn row_total(&self, player: Player) -> u32 {
        let base = player.index() * HOUSES;
        self.seeds[base..base + HOUSES]
            .iter()
            .map(|&s| s as u32)
            .sum()
    }

    /// `player`'s six houses as the low six bytes of a word (house 0 of the row lowest): one
    /// 8-byte load instead of six.
    #[inline(always)]
    fn row_bytes(&self, player: Player) -> u64 {
        let (start, shift) = if player == Player::P0 {
            (0, 0)
        } else {
            (BOARD - 8, 16)
        };
        let bytes: [u8; 8] = self.seeds[start..start + 8].try_into().expect("8 bytes");
        (u64::from_le_bytes(bytes) >> shift) & 0xFFFF_FFFF_FFFF
    }

    /// Whether `player`'s row is empty.
    #[inline(always)]
    fn row_is_empty(&self, player: Player) -> bool {
        self.row_bytes(player) == 0
    }

    /// Whether the scores alone end the game (a player past half, or both exactly half).
    #[inline]
    fn score_decides(&self) -> bool {
        self.score[0] > self.half
            || self.score[1] > self.half
            || (self.score[0] == self.half && self.score[1] == self.half)
    }

    /// Legal actions of the player to move as a bit mask (bit `a` = action `a`); 0 once over.
    #[inline(always)]
    fn legal_mask(&self) -> u8 {
        self.legal
    }

    /// Computes the legal mask of the player to move from the board (ignoring the end of game).
    #[inline(always)]
    fn compute_legal_mask(&self) -> u8 {
        let base = self.to_move.index() * HOUSES;
        let must_feed = self.params.feeding && self.row_is_empty(self.to_move.opponent());
        if !must_feed {
            // SWAR: one bit per non-empty house of the mover's row.
            let row = self.row_bytes(self.to_move);
            const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
            let non_zero = (((row & LOW7) + LOW7) | row) & !LOW7; // high bit of each non-zero byte
            // Gather the 8 high bits into one byte.
            return ((non_zero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8;
        }
        let mut mask = 0u8;
        for i in 0..HOUSES {
            let seeds = self.seeds[base + i];
            // Feeding: the seeds must reach past the mover's last house (HOUSES - 1 - i houses
            // away).
            let legal = if must_feed {
                seeds as usize > HOUSES - 1 - i
            } else {
                seeds > 0
            };
            mask |= (legal as u8) << i;
        }
        mask
    }

    /// Decides whether the game is over for the player to move (a decisive score, or no legal
    /// move: each side then takes its seeds) and caches the legal moves otherwise.
    #[inline]
    fn settle(&mut self) {
        self.legal = 0;
        if self.score_decides() {
            self.collect_and_end();
            return;
        }
        let legal = self.compute_legal_mask();
        if legal == 0 {
            self.collect_and_end();
        } else {
            self.legal = legal;
        }
    }

    /// Ends the game: each player takes the seeds left in its own row.
    fn collect_and_end(&mut self) {
        self.legal = 0;
        for house in 0..BOARD {
            let owner = house / HOUSES;
            let seeds = self.seeds[house];
            if seeds > 0 {
                self.hash ^= house_key(house, seeds) ^ house_key(house, 0);
                self.hash ^= score_key(owner, self.score[owner]);
                self.score[owner] += seeds;
                self.swept[owner] += seeds;
                self.hash ^= score_key(owner, self.score[owner]);
                self.seeds[house] = 0;
            }
        }
        self.outcome = Some(self.outcome_from_scores());
    }

    fn outcome_from_scores(&self) -> Outcome {
        Outcome::by_counts(self.score[0], self.score[1])
    }

    /// Whether capturing backwards from `last` (in the opponent's row) would take every seed of
    /// that row (OpenSpiel's `IsGrandSlam`).
    #[inline]
    fn is_grand_slam(&self, last: usize) -> bool {
        let lower = last / HOUSES * HOUSES;
        let upper = lower + HOUSES - 1;
        self.seeds[last + 1..=upper].iter().all(|&s| s == 0)
            && self.seeds[lower..=last].iter().all(|&s| s == 2 || s == 3)
    }
}

/// A refused Awale position.
fn invalid(problem: String) -> PositionError {
    PositionError {
        game: "awale",
        problem,
    }
}

/// Seed counts separated by spaces; the error is the first word that is not one.
fn parse_counts(text: &str) -> Result<Vec<u8>, &str> {
    text.split_whitespace()
        .map(|word| word.parse::<u8>().map_err(|_| word))
        .collect()
}

impl GameParams for AwaleParams {
    const NAME: &'static str = Awale::NAME;
    const ALIASES: &'static [&'static str] = &["oware"];
    const DESCRIPTION: &'static str = "Awale / Oware abapa (OpenSpiel's oware rules)";
    const PARAMS: &'static [Param<Self>] = &[
        Param {
            key: "feeding",
            meaning: "a player must give seeds to an opponent with none, if it can",
            set: |p, value| {
                p.feeding = parse_bool(value)?;
                Ok(())
            },
            get: |p| p.feeding.to_string(),
        },
        Param {
            key: "repetition",
            meaning: "a repeated position since the last capture ends the game",
            set: |p, value| {
                p.repetition = parse_bool(value)?;
                Ok(())
            },
            get: |p| p.repetition.to_string(),
        },
        Param {
            key: "max_plies",
            meaning: "the game stops after this many plies",
            set: |p, value| {
                p.max_plies = parse_plies(value)?;
                Ok(())
            },
            get: |p| p.max_plies.to_string(),
        },
        Param {
            key: "cap_is_draw",
            meaning: "reaching max_plies is a draw instead of each side taking its seeds",
            set: |p, value| {
                p.cap_is_draw = parse_bool(value)?;
                Ok(())
            },
            get: |p| p.cap_is_draw.to_string(),
        },
    ];

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        visitor.visit(Awale::new(self))
    }
}

impl Game for Awale {
    const NAME: &'static str = "awale";
    const NUM_ACTIONS: usize = HOUSES;
    const HAS_DRAWS: bool = true;
    /// Planes over a 2 × 6 board (row 0: P1's houses f..a seen from South, i.e. houses 11..6;
    /// row 1: P0's houses A..F = 0..5): seeds / 12; one-hot 0, 1 and 2 seeds; P0 to move (all
    /// ones or zeros); P0's score / 24; P1's score / 24.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 7,
        rows: 2,
        cols: HOUSES,
    };
    const ENCODING_VERSION: u32 = 1;
    /// Turning the board round swaps the players, which changes the value: no symmetry.
    const SYMMETRIES: &'static [Symmetry] = &[];
    const SIDE_NAMES: [&'static str; 2] = ["South", "North"]; // P0's row is the near one

    type Params = AwaleParams;

    fn new(params: &AwaleParams) -> Awale {
        Awale::from_board(*params, [START_SEEDS; BOARD], [0, 0], Player::P0)
            .expect("the initial board is valid")
    }

    fn params(&self) -> &AwaleParams {
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

    #[inline]
    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        push_mask_actions(self.legal_mask() as u64, out);
    }

    #[inline]
    fn is_legal(&self, action: Action) -> bool {
        (action as usize) < HOUSES && self.legal_mask() & (1 << action) != 0
    }

    fn play(&mut self, action: Action) {
        let mask = self.legal_mask();
        debug_assert!(
            mask & (1 << action) != 0,
            "illegal Awale action {action} in\n{self}"
        );
        let mover = self.to_move;
        self.mobility[mover.index()] += mask.count_ones() as u16;

        // Sow, skipping the origin house on laps; capture backwards from the last house.
        let last = self.sow(mover.index() * HOUSES + action as usize);
        self.capture(mover, last);

        self.to_move = mover.opponent();
        self.hash ^= P1_TO_MOVE_KEY;
        self.ply += 1;

        if self.params.repetition {
            if self.history.contains(self.hash) {
                self.collect_and_end();
                return;
            }
            self.history.push(self.hash);
        }
        self.settle();
        if self.outcome.is_none() && self.ply >= self.params.max_plies {
            self.legal = 0;
            if self.params.cap_is_draw {
                self.outcome = Some(Outcome::Draw);
            } else {
                self.collect_and_end();
            }
        }
        debug_assert_eq!(
            self.hash,
            self.hash_from_scratch(),
            "incremental Awale hash drifted"
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
        let mut hash = 0;
        for (house, &seeds) in self.seeds.iter().enumerate() {
            hash ^= house_key(house, seeds);
        }
        hash ^= score_key(0, self.score[0]) ^ score_key(1, self.score[1]);
        if self.to_move == Player::P1 {
            hash ^= P1_TO_MOVE_KEY;
        }
        hash
    }

    fn score_p0(&self) -> Option<i32> {
        Some(self.score[0] as i32 - self.score[1] as i32)
    }

    /// The seeds in each player's row; once the game is over, those it had just before the
    /// final sweep (each side takes its own row), not the empty board.
    fn piece_counts(&self) -> [u32; 2] {
        [
            self.row_total(Player::P0) + self.swept[0] as u32,
            self.row_total(Player::P1) + self.swept[1] as u32,
        ]
    }

    fn mobility_sums(&self) -> [u32; 2] {
        [self.mobility[0] as u32, self.mobility[1] as u32]
    }

    fn encode(&self, out: &mut [f32]) {
        let shape = Self::ENCODING;
        assert_eq!(
            out.len(),
            shape.len(),
            "Awale encodes into {} floats",
            shape.len()
        );
        let cells = shape.cells();
        let p0_to_move = if self.to_move == Player::P0 { 1.0 } else { 0.0 };
        let score_p0 = self.score[0] as f32 / 24.0;
        let score_p1 = self.score[1] as f32 / 24.0;
        for col in 0..HOUSES {
            // Row 0 (north): P1's house seen above P0's house `col`; row 1 (south): P0's.
            for (row, house) in [(0, BOARD - 1 - col), (1, col)] {
                let cell = row * HOUSES + col;
                let seeds = self.seeds[house];
                out[cell] = seeds as f32 / 12.0;
                out[cells + cell] = (seeds == 0) as u8 as f32;
                out[2 * cells + cell] = (seeds == 1) as u8 as f32;
                out[3 * cells + cell] = (seeds == 2) as u8 as f32;
                out[4 * cells + cell] = p0_to_move;
                out[5 * cells + cell] = score_p0;
                out[6 * cells + cell] = score_p1;
            }
        }
    }

    fn apply_symmetry(&self, index: usize) -> Awale {
        panic!("Awale has no symmetry (asked for #{index})")
    }

    fn action_to_text(player: Player, action: Action) -> String {
        let base = if player == Player::P0 { b'A' } else { b'a' };
        char::from(base + action as u8).to_string()
    }

    fn action_from_text(player: Player, text: &str) -> Result<Action, MoveError> {
        let unparsable = || MoveError::Unparsable {
            text: text.to_string(),
            expected: format!(
                "a house of the player to move ({player}): {}",
                Self::notation_help()
            ),
        };
        let mut chars = text.trim().chars();
        let (Some(c), None) = (chars.next(), chars.next()) else {
            return Err(unparsable());
        };
        let base = if player == Player::P0 { 'A' } else { 'a' };
        let offset = (c as u32).wrapping_sub(base as u32);
        if offset < HOUSES as u32 {
            Ok(offset as Action)
        } else {
            Err(unparsable())
        }
    }

    fn notation_help() -> &'static str {
        "A-F for P0's houses, a-f for P1's, each from its owner's left"
    }

    /// Two rows of pits: P1's `a`-`f` on top from right to left, P0's `A`-`F` below from left
    /// to right (seeds go round counter-clockwise), the seeds taken in each player's store.
    fn board_view(&self) -> BoardView {
        let cells = (0..BOARD)
            .map(|house| {
                let (player, index) = match house < HOUSES {
                    true => (Player::P0, house),
                    false => (Player::P1, house - HOUSES),
                };
                let (row, col) = match player {
                    Player::P0 => (1, index),
                    Player::P1 => (0, HOUSES - 1 - index),
                };
                Cell {
                    id: Self::action_to_text(player, index as Action),
                    row,
                    col,
                    piece: None,
                    count: Some(u32::from(self.seeds[house])),
                }
            })
            .collect();
        let layout = Layout::Pits {
            rows: 2,
            cols: HOUSES,
            stores: Some(self.score.map(u32::from)),
        };
        BoardView::new(layout, cells, (Vec::new(), Vec::new())).with_cell_names()
    }

    fn move_cells(&self, action: Action) -> Vec<String> {
        vec![self.move_to_text(action)]
    }
}

impl fmt::Display for Awale {
    /// OpenSpiel's layout: P1's row on top, read right to left; P0's row below.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let marker = |p: Player| {
            if self.outcome.is_none() && self.to_move == p {
                " [to move]"
            } else {
                ""
            }
        };
        if self.outcome.is_some() {
            writeln!(f, "[finished]")?;
        }
        writeln!(f, "p1 score = {}{}", self.score[1], marker(Player::P1))?;
        for action in (0..HOUSES).rev() {
            write!(
                f,
                "{:>3}",
                Self::action_to_text(Player::P1, action as Action)
            )?;
        }
        writeln!(f)?;
        for house in (HOUSES..BOARD).rev() {
            write!(f, "{:>3}", self.seeds[house])?;
        }
        writeln!(f)?;
        for house in 0..HOUSES {
            write!(f, "{:>3}", self.seeds[house])?;
        }
        writeln!(f)?;
        for action in 0..HOUSES {
            write!(
                f,
                "{:>3}",
                Self::action_to_text(Player::P0, action as Action)
            )?;
        }
        writeln!(f)?;
        write!(f, "p0 score = {}{}", self.score[0], marker(Player::P0))
    }
}
