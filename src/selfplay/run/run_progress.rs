//! The run's progress as a game and a round see it: the share of its budget spent, by games or
//! by time (annealing's ε' = t / t_max reads it), for every recipe.

use std::time::{Duration, Instant};

/// The share of a run's budget spent, in [0, 1]: by games (`games` of `max_games`) or by time
/// (`seconds` of `max_time`), whichever is further; 0 without either limit.
pub fn budget_share(
    games: u64,
    max_games: Option<u64>,
    seconds: f64,
    max_time: Option<Duration>,
) -> f64 {
    let by_games = max_games.map_or(0.0, |max| games as f64 / max.max(1) as f64);
    let by_time = max_time.map_or(0.0, |max| seconds / max.as_secs_f64().max(1e-9));
    by_games.max(by_time).min(1.0)
}

/// The run's progress in [0, 1] as a game sees it (annealing's ε' = t / t_max): by games, the
/// games finished when it started; by training time, read at each of its moves.
#[derive(Clone, Copy, Debug)]
pub struct RunProgress {
    /// Progress by games when the game started.
    pub by_games: f64,
    /// Training time (seconds) when the game started.
    pub elapsed_at_start: f64,
    /// The run's time limit in seconds, if any.
    pub max_time: Option<f64>,
    /// When the game started.
    pub started: Instant,
}

impl RunProgress {
    /// A progress that does not move (no time limit).
    pub fn fixed(by_games: f64) -> RunProgress {
        RunProgress {
            by_games,
            elapsed_at_start: 0.0,
            max_time: None,
            started: Instant::now(),
        }
    }

    /// The progress `since_start` seconds after the game started: the nearer of the limits.
    pub fn at(&self, since_start: f64) -> f64 {
        let by_time = self.max_time.map_or(0.0, |max| {
            (self.elapsed_at_start + since_start) / max.max(1e-9)
        });
        self.by_games.max(by_time).clamp(0.0, 1.0)
    }

    /// The progress now.
    pub fn now(&self) -> f64 {
        self.at(self.started.elapsed().as_secs_f64())
    }
}
