//! `checkpoint:` — when checkpoints are written and how many are kept.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::checks::check;
use crate::settings::DurationText;
use crate::settings::config_error::ConfigError;

/// When checkpoints are written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CheckpointSection {
    /// Every this many games (default 100; 0 = not by games).
    pub every_games: u64,
    /// And/or every this much time (default: not by time).
    pub every_time: Option<DurationText>,
    /// Keep only the last N checkpoints (default 0: keep all).
    pub keep_last: usize,
    /// Also save each checkpoint's network under `nets/`, kept when `keep_last` prunes the
    /// checkpoint (default false; `descent experiment` turns it on).
    pub keep_nets: bool,
}

impl Default for CheckpointSection {
    fn default() -> Self {
        CheckpointSection {
            every_games: 100,
            every_time: None,
            keep_last: 0,
            keep_nets: false,
        }
    }
}

/// Validated `checkpoint:`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CheckpointSettings {
    pub every_games: u64,
    pub every_time: Option<Duration>,
    pub keep_last: usize,
    pub keep_nets: bool,
}

impl CheckpointSection {
    /// # Errors
    /// No period, or a zero time period.
    pub fn validate(&self) -> Result<CheckpointSettings, ConfigError> {
        check(
            self.every_games > 0 || self.every_time.is_some(),
            "checkpoint",
            "set checkpoint.every_games or checkpoint.every_time",
        )?;
        check(
            self.every_time.is_none_or(|t| !t.0.is_zero()),
            "checkpoint.every_time",
            "must be longer than 0s",
        )?;
        Ok(CheckpointSettings {
            every_games: self.every_games,
            every_time: self.every_time.map(|d| d.0),
            keep_last: self.keep_last,
            keep_nets: self.keep_nets,
        })
    }
}
