//! `evaluation:` — the evaluations inside a run: periodic ones, and one at its end so that every
//! run says how strong it is.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::checks::{check, limit};
use crate::search::Budget;
use crate::settings::DurationText;
use crate::settings::config_error::ConfigError;
use crate::settings::limits::MAX_GAMES;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EvalOpponent {
    Mcts,
    Random,
}

/// Periodic evaluation inside the run: the current net with UBFM_s against a baseline, both
/// sides (paper section 8.5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvaluationSection {
    /// Every this many games (default 0: off).
    pub every_games: u64,
    /// The first evaluation once the run has trained this long, so that a run says early
    /// whether it learns (default 2m; 0s: none; a run resumed past it has had it).
    pub first_after: DurationText,
    /// Once more when the run reaches its game or time limit (default true; not after Ctrl-C).
    pub at_end: bool,
    /// Games per evaluation, half with each colour (default 20).
    pub games: u64,
    /// `mcts` (default: UCT with random playouts) or `random`.
    pub opponent: EvalOpponent,
    /// Time per move for both sides (default: 100ms unless `iterations_per_move` is given).
    pub time_per_move: Option<DurationText>,
    /// Or iterations per move for both sides (reproducible: no time limit unless
    /// `time_per_move` is given too; default: none).
    pub iterations_per_move: Option<u64>,
}

impl Default for EvaluationSection {
    fn default() -> Self {
        EvaluationSection {
            every_games: 0,
            first_after: DurationText(DEFAULT_FIRST_AFTER),
            at_end: true,
            games: 20,
            opponent: EvalOpponent::Mcts,
            time_per_move: None,
            iterations_per_move: None,
        }
    }
}
/// When a run's first evaluation comes by default (`first_after`).
pub const DEFAULT_FIRST_AFTER: Duration = Duration::from_secs(120);

/// The time per move of an evaluation that names no budget.
pub const DEFAULT_TIME_PER_MOVE: Duration = Duration::from_millis(100);

/// Validated periodic evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct EvaluationSettings {
    /// 0: no periodic evaluation.
    pub every_games: u64,
    /// Training time of the first evaluation (`None`: none by time).
    pub first_after: Option<Duration>,
    pub at_end: bool,
    pub games: u64,
    pub opponent: EvalOpponent,
    pub budget: Budget,
}

impl EvaluationSection {
    /// `None` when evaluations are off (`every_games: 0`, `at_end: false`).
    ///
    /// # Errors
    /// An odd or huge number of games, no budget, a zero budget.
    pub fn validate(&self) -> Result<Option<EvaluationSettings>, ConfigError> {
        if self.every_games == 0 && !self.at_end {
            return Ok(None);
        }
        check(
            self.games >= 2 && self.games.is_multiple_of(2),
            "evaluation.games",
            "must be an even number ≥ 2 (both sides)",
        )?;
        limit("evaluation.games", self.games, MAX_GAMES)?;
        check(
            self.time_per_move.is_none_or(|t| !t.0.is_zero()),
            "evaluation.time_per_move",
            "must be longer than 0s",
        )?;
        check(
            self.iterations_per_move != Some(0),
            "evaluation.iterations_per_move",
            "must be at least 1",
        )?;
        Ok(Some(EvaluationSettings {
            every_games: self.every_games,
            first_after: Some(self.first_after.0).filter(|t| !t.is_zero()),
            at_end: self.at_end,
            games: self.games,
            opponent: self.opponent,
            budget: Budget {
                iterations: self.iterations_per_move,
                time: match (self.time_per_move, self.iterations_per_move) {
                    (Some(time), _) => Some(time.0),
                    (None, Some(_)) => None,
                    (None, None) => Some(DEFAULT_TIME_PER_MOVE),
                },
                stop: None,
            },
        }))
    }
}
