//! How often an agent plays a perfect move: Connect Four positions whose every column was scored
//! by the perfect solver (`search::connect_four_solver`), the agent asked for a move in each.
//!
//! A position is a line as Pascal Pons' solver writes it with `-a`: the moves from the empty
//! board, one digit (column 1-7) a move, then the score of each column for the side to move
//! (+k: it wins with its k-th last stone; −k: it loses to the opponent's k-th last; 0: a draw;
//! −1000: the column is full). The set the project ships, `data/connect_four_positions.txt`, is
//! built into the binary ([`SHIPPED_POSITIONS`]).
//!
//! A move is **perfect** when it keeps the position's result (a win, a draw or a loss for the
//! side to move); it is **fastest** when its score is the best one (the quickest win, the
//! slowest loss). Positions where every move keeps the result say nothing and are not sampled.

use std::collections::HashSet;
use std::ops::RangeInclusive;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use rand::{RngExt, SeedableRng};
use serde::Serialize;

use super::agent::{Agent, AgentRng};
use crate::games::{Action, ConnectFour, Game, GameExt};
use crate::search::StopToken;
use crate::search::connect_four_solver::ConnectFourSolver;

const COLS: usize = ConnectFour::COLS;
/// Pons' score of a full column.
const FULL_COLUMN: i32 = -1000;

/// The scored positions that ship with descent (1 000 random positions, plies 8 to 20).
pub const SHIPPED_POSITIONS: &str = include_str!("../../data/connect_four_positions.txt");

/// Why a scored line or a move list in Pons' notation was refused: where (the line, the ply,
/// the column) and what was expected, as one message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ScoredLineError(pub String);

impl From<String> for ScoredLineError {
    fn from(message: String) -> Self {
        ScoredLineError(message)
    }
}

impl From<&str> for ScoredLineError {
    fn from(message: &str) -> Self {
        ScoredLineError(message.to_string())
    }
}

/// A position and the exact score of each of its columns.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoredPosition {
    /// The moves from the empty board (action ids: columns 0-6).
    pub moves: Vec<Action>,
    /// Each column's score for the side to move; `None` where the column is full.
    pub column_scores: [Option<i32>; COLS],
}

/// A position's result for the side to move: the sign of its score.
fn result_of(score: i32) -> i32 {
    score.signum()
}

impl ScoredPosition {
    /// The position after the moves.
    pub fn position(&self) -> ConnectFour {
        let mut position = ConnectFour::new(&Default::default());
        for &action in &self.moves {
            position.play(action);
        }
        position
    }

    /// The best column score: the position's own score.
    pub fn score(&self) -> i32 {
        self.column_scores
            .iter()
            .flatten()
            .copied()
            .max()
            .expect("a scored position has a legal move")
    }

    /// Whether `column` keeps the position's result.
    pub fn is_perfect(&self, column: Action) -> bool {
        self.column_scores
            .get(usize::from(column))
            .copied()
            .flatten()
            .is_some_and(|s| result_of(s) == result_of(self.score()))
    }

    /// Whether `column` has the best score.
    pub fn is_fastest(&self, column: Action) -> bool {
        self.column_scores
            .get(usize::from(column))
            .copied()
            .flatten()
            == Some(self.score())
    }

    /// The number of legal moves that keep the result.
    pub fn perfect_moves(&self) -> usize {
        (0..COLS as Action).filter(|&c| self.is_perfect(c)).count()
    }

    /// Whether some legal move loses the result (so that a choice can be wrong).
    pub fn is_informative(&self) -> bool {
        (0..COLS as Action)
            .any(|c| self.column_scores[usize::from(c)].is_some() && !self.is_perfect(c))
    }

    /// The line as Pons' solver writes it with `-a`.
    pub fn to_line(&self) -> String {
        let mut line = pons_moves_text(&self.moves);
        for score in self.column_scores {
            line.push_str(&format!(" {}", score.unwrap_or(FULL_COLUMN)));
        }
        line
    }

    /// Reads a line as Pons' solver writes it with `-a`; every move is checked legal, the game
    /// not over, and full columns exactly where the board has them.
    ///
    /// # Errors
    /// The bad word and what was expected.
    pub fn parse(line: &str) -> Result<ScoredPosition, ScoredLineError> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let [moves_text, scores @ ..] = words.as_slice() else {
            return Err("an empty line".into());
        };
        if scores.len() != COLS {
            return Err(ScoredLineError(format!(
                "{} scores after the moves, expected {COLS} (one a column)",
                scores.len()
            )));
        }
        let (position, moves) = play_pons_moves(moves_text)?;
        if position.outcome().is_some() {
            return Err("the game is over after these moves".into());
        }
        let mut column_scores = [None; COLS];
        for (column, word) in scores.iter().enumerate() {
            let score: i32 = word
                .parse()
                .map_err(|_| format!("column {}: {word:?} is not a score", column + 1))?;
            let legal = position.is_legal(column as Action);
            column_scores[column] = match (legal, score) {
                (false, FULL_COLUMN) => None,
                (true, s) if s.abs() <= 21 => Some(s),
                (false, _) => {
                    return Err(ScoredLineError(format!(
                        "column {}: full, expected {FULL_COLUMN}",
                        column + 1
                    )));
                }
                (true, _) => {
                    return Err(ScoredLineError(format!(
                        "column {}: {score} is not a score from -21 to 21",
                        column + 1
                    )));
                }
            };
        }
        Ok(ScoredPosition {
            moves,
            column_scores,
        })
    }
}

/// The position after moves written as Pons writes them (one digit a move, columns 1-7, from
/// the empty board), each checked legal, and those moves as action ids.
///
/// # Errors
/// The first bad move: its number and what is wrong.
pub fn play_pons_moves(text: &str) -> Result<(ConnectFour, Vec<Action>), ScoredLineError> {
    let mut position = ConnectFour::new(&Default::default());
    let mut moves = Vec::with_capacity(text.len());
    for (index, digit) in text.chars().enumerate() {
        let ply = index + 1;
        let column = digit
            .to_digit(10)
            .filter(|d| (1..=COLS as u32).contains(d))
            .ok_or_else(|| format!("ply {ply}: {digit:?} is not a column 1-7"))?;
        let action = position
            .check_legal_id(column as usize - 1)
            .map_err(|e| format!("ply {ply}: {e}"))?;
        position.play(action);
        moves.push(action);
    }
    Ok((position, moves))
}

/// Moves (action ids) written as Pons writes them: one digit a move, columns 1-7.
pub fn pons_moves_text(moves: &[Action]) -> String {
    moves.iter().map(|&a| char::from(b'1' + a as u8)).collect()
}

/// Every non-empty line of `text` that does not start with `#`.
///
/// # Errors
/// The first bad line: its number and what is wrong.
pub fn parse_scored_positions(text: &str) -> Result<Vec<ScoredPosition>, ScoredLineError> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|(index, line)| {
            ScoredPosition::parse(line)
                .map_err(|e| ScoredLineError(format!("line {}: {e}", index + 1)))
        })
        .collect()
}

/// Distinct informative positions, each after a number of uniformly random moves drawn
/// uniformly from `plies` (positions where the game is over are drawn again), scored by the
/// solver, each given as soon as it is scored. It ends when [`MAX_DRAWS_WITHOUT_NEW`] draws in
/// a row found no new informative position: `plies` then holds (almost surely) no more.
pub struct ScoredPositionSampler {
    plies: RangeInclusive<usize>,
    rng: AgentRng,
    solver: ConnectFourSolver,
    seen: HashSet<u64>,
    legal: Vec<Action>,
    /// Only positions where at most this many moves keep the result (7: every informative one).
    max_perfect: usize,
}

/// Draws in a row that find no new informative position before [`ScoredPositionSampler`] ends
/// (one drawn before costs microseconds; the few hundred positions of a short `plies` range are
/// all found long before; a range of many positions, most of them informative, never gets
/// there).
pub const MAX_DRAWS_WITHOUT_NEW: u32 = 100_000;

impl ScoredPositionSampler {
    pub fn new(plies: RangeInclusive<usize>, seed: u64, solver: ConnectFourSolver) -> Self {
        ScoredPositionSampler {
            plies,
            rng: AgentRng::seed_from_u64(seed),
            solver,
            seen: HashSet::new(),
            legal: Vec::with_capacity(COLS),
            max_perfect: COLS,
        }
    }

    /// Only positions where at most `max_perfect` moves keep the result (critical positions:
    /// 1 or 2), drawn from the same sequence (a subsequence of the unfiltered sample).
    pub fn with_max_perfect(mut self, max_perfect: usize) -> Self {
        self.max_perfect = max_perfect;
        self
    }

    /// A random position in play, not drawn before, and its moves.
    fn draw(&mut self) -> Option<(ConnectFour, Vec<Action>)> {
        let length = self.rng.random_range(self.plies.clone());
        let mut position = ConnectFour::new(&Default::default());
        let mut moves = Vec::with_capacity(length);
        while moves.len() < length && position.outcome().is_none() {
            position.legal_actions(&mut self.legal);
            let action = self.legal[self.rng.random_range(0..self.legal.len())];
            position.play(action);
            moves.push(action);
        }
        let fresh = position.outcome().is_none() && self.seen.insert(position.hash());
        fresh.then_some((position, moves))
    }
}

impl Iterator for ScoredPositionSampler {
    type Item = ScoredPosition;

    fn next(&mut self) -> Option<ScoredPosition> {
        for _ in 0..MAX_DRAWS_WITHOUT_NEW {
            let Some((position, moves)) = self.draw() else {
                continue;
            };
            let scored = ScoredPosition {
                moves,
                column_scores: self.solver.column_scores(&position),
            };
            if scored.is_informative() && scored.perfect_moves() <= self.max_perfect {
                return Some(scored);
            }
        }
        None
    }
}

/// Perfect and fastest moves among positions of one result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PerfectMoveCount {
    pub positions: u64,
    pub perfect: u64,
    pub fastest: u64,
}

impl PerfectMoveCount {
    fn add(&mut self, position: &ScoredPosition, column: Action) {
        self.positions += 1;
        self.perfect += u64::from(position.is_perfect(column));
        self.fastest += u64::from(position.is_fastest(column));
    }
}

/// An agent's moves on a set of scored positions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PerfectMoveTally {
    pub all: PerfectMoveCount,
    /// Positions won by the side to move.
    pub won: PerfectMoveCount,
    pub drawn: PerfectMoveCount,
    /// Positions lost by the side to move: every move is perfect there, only the slowest loss
    /// is fastest (a sampled set has none: they are not informative).
    pub lost: PerfectMoveCount,
}

impl PerfectMoveTally {
    fn add(&mut self, position: &ScoredPosition, column: Action) {
        self.all.add(position, column);
        match result_of(position.score()) {
            1 => self.won.add(position, column),
            0 => self.drawn.add(position, column),
            _ => self.lost.add(position, column),
        }
    }
}

/// Asks agents (one a thread, each from `build`) for a move in every position, each position a
/// new game with its own seed; `progress` hears the positions done so far. Once `stop` is
/// stopped no new position is asked (the tally counts those answered).
pub fn count_perfect_moves(
    positions: &[ScoredPosition],
    (threads, seed, stop): (usize, u64, Option<&StopToken>),
    build: &(dyn Fn() -> Box<dyn Agent<ConnectFour>> + Sync),
    progress: &(dyn Fn(usize) + Sync),
) -> PerfectMoveTally {
    let next = AtomicUsize::new(0);
    let tally = Mutex::new(PerfectMoveTally::default());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let mut agent = build();
                while !stop.is_some_and(StopToken::is_stopped) {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(scored) = positions.get(index) else {
                        break;
                    };
                    agent.new_game();
                    let mut rng = AgentRng::seed_from_u64(seed ^ index as u64);
                    let column = agent.choose_move(&scored.position(), &mut rng).action;
                    let mut tally = tally.lock().expect("no thread panics holding it");
                    tally.add(scored, column);
                    progress(tally.all.positions as usize);
                }
            });
        }
    });
    tally.into_inner().expect("no thread panicked holding it")
}
