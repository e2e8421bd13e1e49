//! `run:` — limits and resources of the run.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::checks::{check, limit};
use crate::settings::DurationText;
use crate::settings::config_error::ConfigError;
use crate::settings::limits::MAX_THREADS;
use crate::value::DeviceChoice;

/// Limits and resources of the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunSection {
    /// Directory name under `checkpoints/` (default: the config file's name).
    pub name: Option<String>,
    /// Stop after this many self-play games in all, resumes included (default: no limit).
    pub max_games: Option<u64>,
    /// Stop after this much training time in all, resumes included (default: no limit).
    /// Training time is self-play and learning; periodic evaluations are not counted.
    pub max_time: Option<DurationText>,
    /// Self-play threads (default 1: the paper's loop).
    pub threads: usize,
    /// Games in flight on each self-play thread (default 1): while one game's search waits for
    /// its network values the thread advances the others, and their positions are evaluated in
    /// one call (batches of about this many games' child sets, for GPUs). Needs an iteration
    /// budget (`search.iters`): a time budget would count the other games' work.
    pub games_per_thread: usize,
    /// `sequential` (default): a game is handed out only after a finished one is learned —
    /// with one thread, the paper's loop; `parallel`: the players never wait for the learner,
    /// which learns the finished games as they come, beside them; `distributed`: the games come
    /// from `descent worker` processes through Redis (`descent train --broker URL`); `auto`:
    /// `parallel` where the process has a core more than `threads`, else `sequential`.
    pub mode: RunMode,
    /// A game whose network version is more than this many versions (games learned) behind
    /// the learner's when its turn to be learned comes is dropped, not learned (default 16).
    pub max_lag: u64,
    /// Where the network runs: `descent-cpu`, `flex`, `ndarray`, `wgpu`, `cuda:0` (default
    /// `descent-cpu`, descent's own CPU engine; `cpu` is read as it).
    pub device: String,
    /// Write TensorBoard event files beside metrics.jsonl (default true).
    pub tensorboard: bool,
}

impl Default for RunSection {
    fn default() -> Self {
        RunSection {
            name: None,
            max_games: None,
            max_time: None,
            threads: 1,
            games_per_thread: 1,
            mode: RunMode::Sequential,
            max_lag: DEFAULT_MAX_LAG,
            device: "descent-cpu".into(),
            tensorboard: true,
        }
    }
}

/// How self-play and learning take turns (`run.mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunMode {
    #[default]
    Sequential,
    Parallel,
    Distributed,
    /// `parallel` where a core is left for the learner beside the players (more cores
    /// available to this process than `run.threads`), else `sequential`: resolved when the
    /// configuration is validated (`RunSettings::mode` is never `auto`).
    Auto,
}

impl RunMode {
    /// `auto` resolved for `threads` players on `cores` available cores; other modes as they
    /// are.
    pub fn resolved(self, threads: usize, cores: usize) -> RunMode {
        match self {
            RunMode::Auto if cores > threads => RunMode::Parallel,
            RunMode::Auto => RunMode::Sequential,
            mode => mode,
        }
    }
}

/// The most games in flight on one thread (each holds a search table and a 2 MiB stack).
pub const MAX_GAMES_PER_THREAD: usize = 4096;

/// `run.max_lag` when the configuration leaves it out.
pub const DEFAULT_MAX_LAG: u64 = 16;

/// Validated `run:`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunSettings {
    pub max_games: Option<u64>,
    pub max_time: Option<Duration>,
    pub threads: usize,
    pub games_per_thread: usize,
    pub mode: RunMode,
    pub max_lag: u64,
    pub device: DeviceChoice,
    pub tensorboard: bool,
}

impl RunSection {
    /// # Errors
    /// A bad thread count, run name, game limit or device, naming the key.
    pub fn validate(&self) -> Result<RunSettings, ConfigError> {
        check(self.threads >= 1, "run.threads", "must be at least 1")?;
        limit("run.threads", self.threads, MAX_THREADS)?;
        check(
            self.games_per_thread >= 1,
            "run.games_per_thread",
            "must be at least 1",
        )?;
        limit(
            "run.games_per_thread",
            self.games_per_thread,
            MAX_GAMES_PER_THREAD,
        )?;
        if let Some(name) = &self.name {
            check_run_name(name)?;
        }
        check(
            self.max_games != Some(0),
            "run.max_games",
            "must be at least 1 (leave it out for no limit)",
        )?;
        Ok(RunSettings {
            max_games: self.max_games,
            max_time: self.max_time.map(|d| d.0),
            threads: self.threads,
            games_per_thread: self.games_per_thread,
            mode: self.mode.resolved(self.threads, available_cores()),
            max_lag: self.max_lag,
            device: self
                .device
                .parse()
                .map_err(|e: ConfigError| e.within("run.device"))?,
            tensorboard: self.tensorboard,
        })
    }
}

/// The cores this process may run on (its CPU affinity: `taskset -c 1` gives one).
fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// A run name is one directory name under `checkpoints/`: no path separators, not `.` or `..`,
/// no control characters.
fn check_run_name(name: &str) -> Result<(), ConfigError> {
    let ok = !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\'])
        && !name.chars().any(char::is_control);
    check(
        ok,
        "run.name",
        &format!(
            "{name:?} is not a directory name: use letters, digits, '-', '_' or '.', without '/' (choose another place with --run-dir)"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_is_parallel_where_a_core_is_left_for_the_learner() {
        assert_eq!(RunMode::Auto.resolved(1, 1), RunMode::Sequential);
        assert_eq!(RunMode::Auto.resolved(1, 2), RunMode::Parallel);
        assert_eq!(RunMode::Auto.resolved(2, 2), RunMode::Sequential);
        assert_eq!(RunMode::Auto.resolved(3, 16), RunMode::Parallel);
        for mode in [RunMode::Sequential, RunMode::Parallel, RunMode::Distributed] {
            assert_eq!(mode.resolved(1, 16), mode);
            assert_eq!(mode.resolved(8, 1), mode);
        }
        let section = RunSection {
            mode: RunMode::Auto,
            ..RunSection::default()
        };
        let mode = section.validate().unwrap().mode;
        assert!(
            matches!(mode, RunMode::Sequential | RunMode::Parallel),
            "{mode:?}"
        );
    }
}
