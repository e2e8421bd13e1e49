//! `learning:` — what is learned and from which values.

use serde::{Deserialize, Serialize};

use crate::learn::Targets;
use crate::learn::augment::Augmentation;
use crate::selfplay::config::checks::{check, limit};
use crate::settings::config_error::ConfigError;
use crate::settings::limits::MAX_PRETRAIN_STATES;

/// The terminal evaluation f_t (reinforcement heuristic, docs/algorithms.md §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TerminalEvalName {
    Classic,
    AdditiveDepth,
    MultiplicativeDepth,
    Score,
    Mobility,
    Presence,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetsName {
    Tree,
    Root,
    Terminal,
}

/// The learning rule's default bound, chosen by strength per 15 minutes of training on one
/// core: against the paper's unbounded δ, the same recipe at 0.12 won the all-play-all on
/// Connect Four (74 %) and Othello (73 %) and scored at least as well against base MCTS
/// (docs/benchmarks.md, "The rule's default, by strength per 15 minutes").
pub const DEFAULT_ROWS_PER_EVALUATION: f64 = 0.12;

/// What is learned and from which values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LearningSection {
    /// `tree` (default: every state of the game's table; with mcts, the visited states of each
    /// move's tree with their mean values; with alphabeta, the searched states whose value is
    /// exact), `root` or `terminal`.
    pub targets: TargetsName,
    /// `classic` (default), `additive-depth`, `multiplicative-depth`, `score`, `mobility`,
    /// `presence`. Anything but `classic` makes the network's output linear.
    pub terminal_eval: TerminalEvalName,
    /// P of the additive depth heuristic (default: P̃, the longest of 1000 random games).
    pub max_length: Option<f32>,
    /// P' of the multiplicative depth heuristic (default: the mean length of 1000 random games).
    pub mean_length: Option<f32>,
    /// Add each pair's images under the board's symmetries: `one` (default: one image under a
    /// symmetry drawn at random, the paper's way), `all` or `none`.
    pub augment_symmetries: Augmentation,
    /// Before self-play, fit the network on this many random terminal states (default 0: off).
    pub pretrain_terminal_states: usize,
    /// Passes over those states (default 1).
    pub pretrain_epochs: usize,
    /// Symmetric images of the pre-training states, as `augment_symmetries` (default `none`).
    pub pretrain_augment_symmetries: Augmentation,
    /// Pre-training's share of `run.max_time` at most (default 0.03, as the paper's 12 hours
    /// of 15 days): it stops at the first minibatch past it. `null`: all the states, however
    /// long.
    pub pretrain_time_share: Option<f64>,
    /// The learning rule: a game's learning phase learns at most this many rows per position
    /// the game's search evaluated (default `DEFAULT_ROWS_PER_EVALUATION`; `null`: no bound,
    /// every game's rows learned δ times, the paper's). On a CPU a row learned costs about three
    /// positions evaluated (docs/benchmarks.md), so 0.12 keeps learning under a third of a
    /// Connect Four game's time.
    pub rows_per_evaluation: Option<f64>,
}

impl Default for LearningSection {
    fn default() -> Self {
        LearningSection {
            targets: TargetsName::Tree,
            terminal_eval: TerminalEvalName::Classic,
            max_length: None,
            mean_length: None,
            augment_symmetries: Augmentation::One,
            pretrain_terminal_states: 0,
            pretrain_epochs: 1,
            pretrain_augment_symmetries: Augmentation::None,
            pretrain_time_share: Some(0.03),
            rows_per_evaluation: Some(DEFAULT_ROWS_PER_EVALUATION),
        }
    }
}

/// Validated `learning:`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LearningSettings {
    pub targets: Targets,
    pub terminal_eval: TerminalEvalName,
    pub max_length: Option<f32>,
    pub mean_length: Option<f32>,
    pub augment_symmetries: Augmentation,
    pub pretrain_terminal_states: usize,
    pub pretrain_epochs: usize,
    pub pretrain_augment_symmetries: Augmentation,
    pub pretrain_time_share: Option<f64>,
    pub rows_per_evaluation: Option<f64>,
}

impl LearningSection {
    /// # Errors
    /// A length or a pre-training size out of range, naming the key.
    pub fn validate(&self) -> Result<LearningSettings, ConfigError> {
        check(
            self.max_length.is_none_or(|p| p >= 1.0),
            "learning.max_length",
            "must be at least 1",
        )?;
        check(
            self.mean_length.is_none_or(|p| p > 0.0),
            "learning.mean_length",
            "must be positive",
        )?;
        check(
            self.pretrain_epochs >= 1,
            "learning.pretrain_epochs",
            "must be at least 1",
        )?;
        limit(
            "learning.pretrain_terminal_states",
            self.pretrain_terminal_states,
            MAX_PRETRAIN_STATES,
        )?;
        limit("learning.pretrain_epochs", self.pretrain_epochs, 1_000_000)?;
        check(
            self.pretrain_time_share
                .is_none_or(|share| share > 0.0 && share <= 1.0),
            "learning.pretrain_time_share",
            "must be in (0, 1], or null for no bound",
        )?;
        check(
            self.rows_per_evaluation
                .is_none_or(|rows| rows.is_finite() && rows > 0.0 && rows <= 1e6),
            "learning.rows_per_evaluation",
            "must be a positive number (at most 1e6), or null for no bound",
        )?;
        Ok(LearningSettings {
            targets: match self.targets {
                TargetsName::Tree => Targets::Tree,
                TargetsName::Root => Targets::Root,
                TargetsName::Terminal => Targets::Terminal,
            },
            terminal_eval: self.terminal_eval,
            max_length: self.max_length,
            mean_length: self.mean_length,
            augment_symmetries: self.augment_symmetries,
            pretrain_terminal_states: self.pretrain_terminal_states,
            pretrain_epochs: self.pretrain_epochs,
            pretrain_augment_symmetries: self.pretrain_augment_symmetries,
            pretrain_time_share: self.pretrain_time_share,
            rows_per_evaluation: self.rows_per_evaluation,
        })
    }
}
