//! `replay:` and `resolved_states:` — the replay buffer and the resolved states kept across games.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::learn::{Capacity, ReplayPolicy};
use crate::selfplay::config::checks::{check, error, limit};
use crate::settings::DurationText;
use crate::settings::config_error::ConfigError;
use crate::settings::limits::MAX_BATCH;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReplayKind {
    None,
    Experience,
    Stratified,
}

/// The replay buffer (docs/algorithms.md §6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReplaySection {
    /// `stratified` (default), `experience`, or `none` (learn each game's pairs once).
    pub kind: ReplayKind,
    /// μ in games (stratified: default 100; experience: alternative to `pairs`).
    pub games: Option<usize>,
    /// μ in pairs (experience only; default 1 000 000 when `games` is not set).
    pub pairs: Option<usize>,
    /// σ, experience replay's sampled fraction (default 0.04).
    pub fraction: f64,
    /// δ, stratified replay's duplication (default 3).
    pub duplication: f64,
    /// Minibatch size B (default 128).
    pub batch_size: usize,
    /// Rows held at most (default `null`: no bound but μ): the oldest whole games leave first,
    /// so that memory and learning per game level off in a run of days.
    pub max_rows: Option<usize>,
    /// The window grows with the run: it holds at most `1 + ⌊growth · games learned⌋` games,
    /// up to μ (default `null`: μ from the first game, the paper's).
    pub growth: Option<f64>,
}

impl Default for ReplaySection {
    fn default() -> Self {
        ReplaySection {
            kind: ReplayKind::Stratified,
            games: None,
            pairs: None,
            fraction: 0.04,
            duplication: 3.0,
            batch_size: 128,
            max_rows: None,
            growth: None,
        }
    }
}

/// Keeping proven (resolved) states across games (docs/algorithms.md §6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ResolvedStatesSection {
    /// Keep the resolved states of each game's table for the next games (default false).
    pub keep: bool,
    /// Empty them this often (default 6h).
    pub reset_every: DurationText,
}

impl Default for ResolvedStatesSection {
    fn default() -> Self {
        ResolvedStatesSection {
            keep: false,
            reset_every: DurationText(Duration::from_secs(6 * 3600)),
        }
    }
}

/// Validated `replay:`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReplaySettings {
    pub policy: ReplayPolicy,
    pub batch_size: usize,
    pub max_rows: Option<usize>,
    pub growth: Option<f64>,
}

impl ReplaySettings {
    /// The window in games after `games_learned` games (`growth`), `None` without growth.
    pub fn window_games(&self, games_learned: u64) -> Option<usize> {
        let growth = self.growth?;
        let grown = 1.0 + (growth * games_learned as f64).floor();
        Some(grown.min(usize::MAX as f64) as usize)
    }
}

impl ReplaySection {
    /// # Errors
    /// A size, fraction or duplication out of range, or keys that do not go with the kind.
    pub fn validate(&self) -> Result<ReplaySettings, ConfigError> {
        check(
            self.batch_size >= 1,
            "replay.batch_size",
            "must be at least 1",
        )?;
        limit("replay.batch_size", self.batch_size, MAX_BATCH)?;
        let policy = match self.kind {
            ReplayKind::None => {
                check(
                    self.games.is_none() && self.pairs.is_none(),
                    "replay",
                    "kind none takes no games or pairs",
                )?;
                ReplayPolicy::LastGame
            }
            ReplayKind::Experience => self.experience()?,
            ReplayKind::Stratified => self.stratified()?,
        };
        check(
            self.max_rows.is_none_or(|rows| rows >= 1),
            "replay.max_rows",
            "must be at least 1, or null for no bound",
        )?;
        check(
            self.growth
                .is_none_or(|growth| growth.is_finite() && growth > 0.0),
            "replay.growth",
            "must be a positive number, or null for a fixed window",
        )?;
        Ok(ReplaySettings {
            policy,
            batch_size: self.batch_size,
            max_rows: self.max_rows,
            growth: self.growth,
        })
    }

    fn experience(&self) -> Result<ReplayPolicy, ConfigError> {
        check(
            self.fraction > 0.0 && self.fraction <= 1.0,
            "replay.fraction",
            "must be in (0, 1]",
        )?;
        let capacity = match (self.games, self.pairs) {
            (Some(_), Some(_)) => {
                return Err(error(
                    "replay",
                    "give replay.games or replay.pairs, not both",
                ));
            }
            (Some(games), None) => Capacity::Games(games),
            (None, pairs) => Capacity::Pairs(pairs.unwrap_or(1_000_000)),
        };
        check(
            !matches!(capacity, Capacity::Games(0) | Capacity::Pairs(0)),
            "replay",
            "the capacity must be at least 1",
        )?;
        Ok(ReplayPolicy::Experience {
            capacity,
            fraction: self.fraction,
        })
    }

    fn stratified(&self) -> Result<ReplayPolicy, ConfigError> {
        check(
            self.pairs.is_none(),
            "replay.pairs",
            "stratified replay counts games: use replay.games",
        )?;
        let games = self.games.unwrap_or(100);
        check(games >= 1, "replay.games", "must be at least 1")?;
        check(
            self.duplication > 0.0 && self.duplication <= games as f64,
            "replay.duplication",
            "must be in (0, replay.games]",
        )?;
        Ok(ReplayPolicy::Stratified {
            games,
            duplication: self.duplication,
        })
    }
}

impl ResolvedStatesSection {
    /// How long resolved states are kept across games (`None`: not kept).
    pub fn keep_for(&self) -> Option<Duration> {
        self.keep.then_some(self.reset_every.0)
    }
}
