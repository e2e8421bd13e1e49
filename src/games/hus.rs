//! Hus as the McGill COMP 424 course (winter 2016) plays it: a 4 × 16 mancala, 32 pits per
//! player, relay sowing, captures from the inner row. The rules are those of the course's public
//! starter code (`hus/HusBoardState.java`, `BOARD_WIDTH = 16`); this implementation reproduces a
//! course report's counts of action sequences by depth, 24 / 576 / 11 040 / 207 443 / 3 439 088 /
//! 55 769 962 (depth 1-6).
//!
//! Pits are numbered per player, counter-clockwise from that player's point of view: 0-15 its
//! outer row from its left to its right, 16-31 its inner row from its right to its left. A
//! player's inner pit `p` faces the opponent's inner pit `47 - p`, behind which lies the
//! opponent's outer pit `p - 16`. Each player starts with 2 seeds in pits 0-23.
//!
//! A move (action id = text = the pit number 0-31) takes every seed of one of the mover's pits
//! holding at least 2 and sows them one by one into the following pits of the mover's own 32
//! (never the opponent's). Where the last seed lands:
//! - in an empty pit: the move ends;
//! - in an inner pit facing a non-empty opponent pit, from the second round on: the mover
//!   captures the seeds of that opponent pit and of the outer pit behind it, and sows them on from
//!   the landing pit (which keeps its seeds);
//! - otherwise: the mover lifts the landing pit's seeds and sows them on (relay).
//!
//! A move that needs more than `max_laps` sowings (200) is abandoned and loses for the mover (the
//! reference "cancels" the game because of that player). After a move the side to move changes
//! and, in this order: a player with no pit of 2 seeds or more to play loses; after `max_rounds`
//! rounds (5 000; a round is a move of each player) the game is a draw.
//!
//! The hash is additive rather than Zobrist's XOR: `Σ key(player, pit) · seeds` (wrapping), plus
//! a key for P1 to move and one for captures enabled. Sowing `n` seeds from a pit then adds one
//! difference of prefix sums of the keys (plus `laps · Σ keys`), whatever `n`: a move with relays
//! sows dozens of seeds in a few such steps. Two different boards share a hash only when a small
//! integer combination of the 64 random keys vanishes modulo 2⁶⁴.

use std::fmt;

use super::board_view::{BoardView, Cell, Layout};
use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, PositionError, Symmetry,
    push_mask_actions,
};
use super::game_params::{GameParams, Param, parse_plies};
use super::registry::GameVisitor;
use super::zobrist;

/// Pits in one row.
pub const ROW: usize = 16;
/// Pits per player (two rows).
pub const PITS: usize = 2 * ROW;
/// Seeds on the board (2 in each of pits 0-23, for both players).
pub const TOTAL_SEEDS: usize = 96;
/// Pits holding seeds at the start (0-23 of each player).
const STARTING_PITS: usize = 24;

/// Rule parameters of Hus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HusParams {
    /// Rounds (a move of each player) after which the game is a draw (default 5 000).
    pub max_rounds: u16,
    /// Sowings one move may need before it is abandoned and lost by the mover (default 200).
    pub max_laps: u16,
}

impl Default for HusParams {
    fn default() -> Self {
        HusParams {
            max_rounds: 5000,
            max_laps: 200,
        }
    }
}

// Additive hash keys (see the module doc): [player][pit], side to move, captures enabled.
const PIT_KEYS: [u64; 2 * PITS] = zobrist::keys(0x4855_5300_0000_0001);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0x4855_5300_0000_0002)[0];
const CAPTURES_KEY: u64 = zobrist::keys::<1>(0x4855_5300_0000_0003)[0];

/// `KEY_PREFIX[player][i]`: the sum of the keys of `player`'s pits `0..i` (wrapping).
const KEY_PREFIX: [[u64; PITS + 1]; 2] = {
    let mut prefix = [[0u64; PITS + 1]; 2];
    let mut player = 0;
    while player < 2 {
        let mut pit = 0;
        while pit < PITS {
            prefix[player][pit + 1] =
                prefix[player][pit].wrapping_add(PIT_KEYS[player * PITS + pit]);
            pit += 1;
        }
        player += 1;
    }
    prefix
};

/// The hash of `seeds` seeds in `player`'s pit `pit`.
#[inline(always)]
fn pit_hash(player: usize, pit: usize, seeds: u8) -> u64 {
    PIT_KEYS[player * PITS + pit].wrapping_mul(seeds as u64)
}

/// The hash change of sowing `hand` seeds into `player`'s pits after `from`.
#[inline(always)]
fn sowing_hash(player: usize, from: usize, hand: usize) -> u64 {
    let prefix = &KEY_PREFIX[player];
    let (laps, rest) = ((hand / PITS) as u64, hand % PITS);
    let start = (from + 1) % PITS;
    let end = start + rest;
    let partial = if end <= PITS {
        prefix[end].wrapping_sub(prefix[start])
    } else {
        prefix[PITS]
            .wrapping_sub(prefix[start])
            .wrapping_add(prefix[end - PITS])
    };
    prefix[PITS].wrapping_mul(laps).wrapping_add(partial)
}

/// The pits of one player holding at least 2 seeds, as a bit mask (bit `p` = pit `p`).
#[inline(always)]
fn playable_mask(pits: &[u8; PITS]) -> u32 {
    let mut mask = 0u32;
    for (pit, &seeds) in pits.iter().enumerate() {
        mask |= ((seeds >= 2) as u32) << pit;
    }
    mask
}

/// Sows `hand` seeds into the pits after `from` (wrapping round the 32); returns the last pit.
#[inline(always)]
fn sow(pits: &mut [u8; PITS], from: usize, hand: usize) -> usize {
    let (laps, rest) = (hand / PITS, hand % PITS);
    if laps > 0 {
        for seeds in pits.iter_mut() {
            *seeds += laps as u8;
        }
    }
    let start = from + 1;
    let end = start + rest;
    for seeds in &mut pits[start.min(PITS)..end.min(PITS)] {
        *seeds += 1;
    }
    for seeds in &mut pits[..end.saturating_sub(PITS)] {
        *seeds += 1;
    }
    (from + hand) % PITS
}

/// A Hus position.
#[derive(Clone, Debug)]
pub struct Hus {
    /// `pits[player][pit]`, each player's pits in its own numbering.
    pits: [[u8; PITS]; 2],
    to_move: Player,
    /// Completed rounds (the reference's `turn_number`): captures are allowed once it is > 0.
    round: u16,
    ply: u32,
    /// Playable pits of the side to move; 0 once the game is over.
    legal: u32,
    outcome: Option<Outcome>,
    /// Sum of each player's legal move counts over its turns.
    mobility: [u32; 2],
    hash: u64,
    params: HusParams,
}

impl Hus {
    /// A position from each player's 32 pits (in its own numbering), the side to move and the
    /// number of completed rounds (0 at the start: no capture until P1 has moved once). It counts
    /// as ply 0; if the side to move cannot play, the game is already over (the other side won).
    ///
    /// # Errors
    /// A pit or the board holding more than 96 seeds.
    pub fn from_pits(
        params: HusParams,
        pits: [[u8; PITS]; 2],
        to_move: Player,
        round: u16,
    ) -> Result<Hus, PositionError> {
        let total: usize = pits.iter().flatten().map(|&s| s as usize).sum();
        if total > TOTAL_SEEDS {
            return Err(PositionError {
                game: "hus",
                problem: format!("the board holds {total} seeds, at most {TOTAL_SEEDS} expected"),
            });
        }
        let mut position = Hus {
            pits,
            to_move,
            round,
            ply: 0,
            legal: 0,
            outcome: None,
            mobility: [0; 2],
            hash: 0,
            params,
        };
        position.hash = position.hash_from_scratch();
        position.settle();
        Ok(position)
    }

    /// Seeds in each pit, `[player][pit]`, each player's pits in its own numbering.
    pub fn pits(&self) -> &[[u8; PITS]; 2] {
        &self.pits
    }

    /// Completed rounds (a move of each player).
    pub fn round(&self) -> u16 {
        self.round
    }

    /// Seeds on `player`'s side.
    fn seeds_of(&self, player: Player) -> u32 {
        self.pits[player.index()].iter().map(|&s| s as u32).sum()
    }

    /// After a move: the side to move loses if it cannot play; else the round cap makes a draw.
    fn settle(&mut self) {
        self.legal = playable_mask(&self.pits[self.to_move.index()]);
        if self.legal == 0 {
            self.outcome = Some(Outcome::win_for(self.to_move.opponent()));
        } else if self.round > self.params.max_rounds {
            self.legal = 0;
            self.outcome = Some(Outcome::Draw);
        }
    }

    /// Runs the sowing of `pit` for the side to move, keeping the hash; false if the move needed
    /// more than `max_laps` sowings (the board is then left as the abandoned move made it).
    fn run_move(&mut self, pit: usize) -> bool {
        let mover = self.to_move.index();
        let other = 1 - mover;
        let captures = self.round > 0;
        let [mine, theirs] = if mover == 0 {
            let [a, b] = &mut self.pits;
            [a, b]
        } else {
            let [a, b] = &mut self.pits;
            [b, a]
        };
        let mut hash = self.hash;
        let mut hand = mine[pit] as usize;
        hash = hash.wrapping_sub(pit_hash(mover, pit, mine[pit]));
        mine[pit] = 0;
        let mut from = pit;
        let mut completed = false;
        for _ in 0..self.params.max_laps {
            let last = sow(mine, from, hand);
            hash = hash.wrapping_add(sowing_hash(mover, from, hand));
            if mine[last] == 1 {
                completed = true;
                break;
            }
            let facing = 3 * ROW - 1 - last; // 47 - last, meaningful for inner pits only
            if captures && last >= ROW && theirs[facing] > 0 {
                let behind = last - ROW;
                hand = (theirs[facing] + theirs[behind]) as usize;
                hash = hash
                    .wrapping_sub(pit_hash(other, facing, theirs[facing]))
                    .wrapping_sub(pit_hash(other, behind, theirs[behind]));
                theirs[facing] = 0;
                theirs[behind] = 0;
            } else {
                hand = mine[last] as usize;
                hash = hash.wrapping_sub(pit_hash(mover, last, mine[last]));
                mine[last] = 0;
            }
            from = last;
        }
        self.hash = hash;
        completed
    }
}

impl GameParams for HusParams {
    const NAME: &'static str = Hus::NAME;
    const DESCRIPTION: &'static str =
        "Hus, 4 × 16 mancala with relay sowing (McGill COMP 424 rules)";
    const PARAMS: &'static [Param<Self>] = &[
        Param {
            key: "max_rounds",
            meaning: "the game is a draw after this many rounds",
            set: |p, value| {
                p.max_rounds = parse_plies(value)?;
                Ok(())
            },
            get: |p| p.max_rounds.to_string(),
        },
        Param {
            key: "max_laps",
            meaning: "a move needing more sowings than this loses for the mover",
            set: |p, value| {
                p.max_laps = parse_plies(value)?;
                Ok(())
            },
            get: |p| p.max_laps.to_string(),
        },
    ];

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        visitor.visit(Hus::new(self))
    }
}

impl Game for Hus {
    const NAME: &'static str = "hus";
    const NUM_ACTIONS: usize = PITS;
    const HAS_DRAWS: bool = true;
    /// Planes over the 4 × 16 board seen from P0's side (row 0: P1's outer row, row 1: P1's inner
    /// row, row 2: P0's inner row, row 3: P0's outer row; P0's inner pit `p`, the P1 pit facing it
    /// and the one behind share column `31 - p`): seeds / 8; one-hot 0, 1 and ≥ 2 seeds (playable);
    /// P0 to move; captures enabled (from the second round); (P0's seeds − P1's) / 96.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 7,
        rows: 4,
        cols: ROW,
    };
    const ENCODING_VERSION: u32 = 1;
    /// Turning the board round swaps the players, which changes the value: no symmetry.
    const SYMMETRIES: &'static [Symmetry] = &[];
    const SIDE_NAMES: [&'static str; 2] = ["South", "North"]; // P0's rows are the near ones

    type Params = HusParams;

    fn new(params: &HusParams) -> Hus {
        let mut row = [0u8; PITS];
        row[..STARTING_PITS].fill(2);
        Hus::from_pits(*params, [row, row], Player::P0, 0).expect("the initial board is valid")
    }

    fn params(&self) -> &HusParams {
        &self.params
    }

    fn max_game_length(&self) -> usize {
        2 * (self.params.max_rounds as usize + 1)
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
        push_mask_actions(self.legal as u64, out);
    }

    #[inline]
    fn is_legal(&self, action: Action) -> bool {
        (action as usize) < PITS && self.legal & (1 << action) != 0
    }

    fn play(&mut self, action: Action) {
        debug_assert!(
            self.is_legal(action),
            "illegal Hus action {action} in\n{self}"
        );
        let mover = self.to_move;
        self.mobility[mover.index()] += self.legal.count_ones();
        let completed = self.run_move(action as usize);
        self.ply += 1;
        if !completed {
            self.legal = 0;
            self.outcome = Some(Outcome::win_for(mover.opponent()));
            return;
        }
        if mover == Player::P1 {
            if self.round == 0 {
                self.hash = self.hash.wrapping_add(CAPTURES_KEY);
            }
            self.round += 1;
        }
        self.to_move = mover.opponent();
        self.hash = match mover {
            Player::P0 => self.hash.wrapping_add(P1_TO_MOVE_KEY),
            Player::P1 => self.hash.wrapping_sub(P1_TO_MOVE_KEY),
        };
        self.settle();
        debug_assert_eq!(
            self.hash,
            self.hash_from_scratch(),
            "incremental Hus hash drifted"
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
        let mut hash = 0u64;
        for (player, pits) in self.pits.iter().enumerate() {
            for (pit, &seeds) in pits.iter().enumerate() {
                hash = hash.wrapping_add(pit_hash(player, pit, seeds));
            }
        }
        if self.to_move == Player::P1 {
            hash = hash.wrapping_add(P1_TO_MOVE_KEY);
        }
        if self.round > 0 {
            hash = hash.wrapping_add(CAPTURES_KEY);
        }
        hash
    }

    /// Seeds on P0's side minus seeds on P1's side.
    fn score_p0(&self) -> Option<i32> {
        Some(self.seeds_of(Player::P0) as i32 - self.seeds_of(Player::P1) as i32)
    }

    fn piece_counts(&self) -> [u32; 2] {
        [self.seeds_of(Player::P0), self.seeds_of(Player::P1)]
    }

    fn mobility_sums(&self) -> [u32; 2] {
        self.mobility
    }

    fn encode(&self, out: &mut [f32]) {
        let shape = Self::ENCODING;
        assert_eq!(
            out.len(),
            shape.len(),
            "Hus encodes into {} floats",
            shape.len()
        );
        let cells = shape.cells();
        let p0_to_move = (self.to_move == Player::P0) as u8 as f32;
        let captures = (self.round > 0) as u8 as f32;
        let difference = self.score_p0().unwrap_or(0) as f32 / TOTAL_SEEDS as f32;
        for player in 0..2 {
            for (pit, &seeds) in self.pits[player].iter().enumerate() {
                let cell = encoding_cell(player, pit);
                out[cell] = seeds as f32 / 8.0;
                out[cells + cell] = (seeds == 0) as u8 as f32;
                out[2 * cells + cell] = (seeds == 1) as u8 as f32;
                out[3 * cells + cell] = (seeds >= 2) as u8 as f32;
                out[4 * cells + cell] = p0_to_move;
                out[5 * cells + cell] = captures;
                out[6 * cells + cell] = difference;
            }
        }
    }

    fn apply_symmetry(&self, index: usize) -> Hus {
        panic!("Hus has no symmetry (asked for #{index})")
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        action.to_string()
    }

    fn action_from_text(player: Player, text: &str) -> Result<Action, MoveError> {
        let text = text.trim();
        match text.parse::<u8>() {
            Ok(pit) if (pit as usize) < PITS && text.bytes().all(|b| b.is_ascii_digit()) => {
                Ok(pit as Action)
            }
            _ => Err(MoveError::Unparsable {
                text: text.to_string(),
                expected: format!(
                    "a pit of the player to move ({player}): {}",
                    Self::notation_help()
                ),
            }),
        }
    }

    fn notation_help() -> &'static str {
        "the pit number 0-31 in the mover's own numbering (0-15 its outer row from its left, \
         16-31 its inner row from its right)"
    }

    /// Four rows of 16 pits: P1's outer and inner rows on top, P0's inner and outer rows
    /// below, each player's pits numbered from its own left; a pit is named by its owner and
    /// number (`p0:5`).
    fn board_view(&self) -> BoardView {
        let cells = [Player::P0, Player::P1]
            .into_iter()
            .flat_map(|player| (0..PITS).map(move |pit| (player, pit)))
            .map(|(player, pit)| {
                let (row, col) = match (player, pit < 16) {
                    (Player::P0, true) => (3, pit),
                    (Player::P0, false) => (2, 31 - pit),
                    (Player::P1, true) => (0, 15 - pit),
                    (Player::P1, false) => (1, pit - 16),
                };
                Cell {
                    id: format!("{player}:{pit}"),
                    row,
                    col,
                    piece: None,
                    count: Some(u32::from(self.pits[player.index()][pit])),
                }
            })
            .collect();
        let layout = Layout::Pits {
            rows: 4,
            cols: 16,
            stores: None,
        };
        BoardView::new(layout, cells, (Vec::new(), Vec::new()))
    }

    fn move_cells(&self, action: Action) -> Vec<String> {
        vec![format!("{}:{action}", self.to_move)]
    }
}

/// The cell (row-major over 4 × 16, P0's outer row at the bottom) of `player`'s pit `pit`.
#[inline(always)]
fn encoding_cell(player: usize, pit: usize) -> usize {
    let (row, col) = match (player, pit < ROW) {
        (0, true) => (3, pit),
        (0, false) => (2, PITS - 1 - pit),
        (_, true) => (0, ROW - 1 - pit),
        (_, false) => (1, pit - ROW),
    };
    row * ROW + col
}

impl fmt::Display for Hus {
    /// The board from P0's side, P1's rows on top; above each row the pit numbers (each player's
    /// own), below it the seeds.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.outcome {
            Some(outcome) => writeln!(f, "[finished: {outcome:?}] round {}", self.round)?,
            None => writeln!(f, "round {}, {} to move", self.round, self.to_move)?,
        }
        for row in 0..4 {
            let (player, owner) = if row < 2 { (1, "p1") } else { (0, "p0") };
            let pit_at = |col: usize| match row {
                0 => ROW - 1 - col,
                1 => ROW + col,
                2 => PITS - 1 - col,
                _ => col,
            };
            write!(f, "{owner} pits ")?;
            for col in 0..ROW {
                write!(f, "{:>3}", pit_at(col))?;
            }
            writeln!(f)?;
            write!(f, "   seeds")?;
            for col in 0..ROW {
                write!(f, "{:>3}", self.pits[player][pit_at(col)])?;
            }
            if row < 3 {
                writeln!(f)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sowing_wraps_and_laps() {
        let mut pits = [0u8; PITS];
        assert_eq!(sow(&mut pits, 30, 3), 1);
        assert_eq!((pits[31], pits[0], pits[1], pits[2]), (1, 1, 1, 0));
        let mut pits = [0u8; PITS];
        assert_eq!(sow(&mut pits, 5, 65), 6);
        assert!(
            pits.iter()
                .enumerate()
                .all(|(p, &s)| s == 2 + (p == 6) as u8)
        );
        let mut pits = [0u8; PITS];
        assert_eq!(sow(&mut pits, 7, 32), 7, "a full lap ends where it began");
        assert!(pits.iter().all(|&s| s == 1));
    }

    #[test]
    fn encoding_cells_line_up_facing_pits() {
        for p in ROW..PITS {
            let col = encoding_cell(0, p) % ROW;
            assert_eq!(encoding_cell(1, 3 * ROW - 1 - p) % ROW, col);
            assert_eq!(encoding_cell(1, p - ROW) % ROW, col);
        }
        let mut cells: Vec<usize> = (0..2)
            .flat_map(|player| (0..PITS).map(move |pit| encoding_cell(player, pit)))
            .collect();
        cells.sort_unstable();
        assert_eq!(cells, (0..4 * ROW).collect::<Vec<_>>());
    }
}
