//! The time a run keeps at its end for its last evaluation (`evaluation.at_end`): self-play
//! stops that long before `run.max_time`, and the evaluation starts no move after it, so that
//! the run, its final evaluation included, ends within `run.max_time`.
//!
//! The estimate: the evaluation's games in rounds of `run.threads`, each game as long as the
//! last periodic evaluation's games took (measured), or else `plies × time_per_move` with plies
//! 1.5 × the mean of random games (strong games last longer than random ones in most games).
//! It takes at most half of `run.max_time`: a run shorter than twice its evaluation plays the
//! evaluation games that fit and says how many.

use crate::games::Game;
use crate::learn::pretrain::mean_random_game_length;
use crate::selfplay::config::{EvaluationSettings, TrainSettings};
use crate::selfplay::run::run_clock::RunClock;
use crate::selfplay::run::streams::{STREAM_EVAL, stream_rng};

/// The most of `run.max_time` the reserve takes.
pub const MAX_SHARE: f64 = 0.5;
/// The share of `run.max_time` kept when the evaluation's budget is iterations and no
/// evaluation has measured their time yet.
pub const UNKNOWN_SHARE: f64 = 0.1;
/// Strong games against random ones, in plies (the estimate's margin).
const PLIES_MARGIN: f64 = 1.5;
/// Per-game margin on a measured or computed game time.
const TIME_MARGIN: f64 = 1.1;
/// Loading the network and building the agents, once.
const SETUP_SECONDS: f64 = 1.0;

/// The reserve of one session: its settings and what the session measured.
#[derive(Clone, Debug)]
pub struct EndReserve {
    evaluation: Option<EvaluationSettings>,
    max_time: Option<f64>,
    threads: usize,
    random_plies: f64,
    /// Seconds a game of the last periodic evaluation took on one thread.
    measured_game_seconds: Option<f64>,
    /// The last unit of self-play (a game and its learning, or a round), in seconds: one
    /// started just before self-play stops runs that long into the reserve.
    last_unit_seconds: f64,
}

impl EndReserve {
    /// For a run with these evaluation settings, `run.max_time` (seconds), `run.threads`, and
    /// random games of `random_plies` plies on average.
    pub fn new(
        evaluation: Option<EvaluationSettings>,
        max_time: Option<f64>,
        threads: usize,
        random_plies: f64,
    ) -> Self {
        EndReserve {
            evaluation,
            max_time,
            threads: threads.max(1),
            random_plies,
            measured_game_seconds: None,
            last_unit_seconds: 0.0,
        }
    }

    /// The reserve of a run of `settings` from `initial` (16 random games give the plies),
    /// kept on `clock`; says what it keeps when the evaluation will not fit.
    pub fn for_run<G: Game>(settings: &TrainSettings, initial: &G, clock: &RunClock) -> Self {
        let mut rng = stream_rng(settings.seed, STREAM_EVAL, u64::MAX);
        let random_plies = f64::from(mean_random_game_length(initial, 16, &mut rng));
        let reserve = EndReserve::new(
            settings.evaluation.clone(),
            settings.run.max_time.map(|t| t.as_secs_f64()),
            settings.run.threads,
            random_plies,
        );
        reserve.keep_on(clock);
        if reserve.is_cut() {
            tracing::warn!(
                "the evaluation at the run's end ({} games) needs more than half of run.max_time: it gets {:.0} s and plays the games that fit (fewer evaluation.games, or a longer --max-time, for all of them)",
                settings.evaluation.clone().map_or(0, |e| e.games),
                reserve.seconds()
            );
        }
        reserve
    }

    /// Sets the reserve on the run's clock: self-play stops the evaluation's time and one
    /// unit of self-play before the limit (none without an evaluation at the end).
    pub fn keep_on(&self, clock: &RunClock) {
        let unit = match self.seconds() > 0.0 {
            true => self.last_unit_seconds,
            false => 0.0,
        };
        clock.set_end_reserve(self.seconds() + unit);
    }

    /// A unit of self-play (a game and its learning, or a round) took `seconds`; kept on
    /// `clock`.
    pub fn unit_took(&mut self, seconds: f64, clock: &RunClock) {
        self.last_unit_seconds = seconds.max(0.0);
        self.keep_on(clock);
    }

    /// An evaluation of `games` games took `seconds` on `threads` threads.
    pub fn measured(&mut self, seconds: f64, games: u64, threads: usize) {
        if games > 0 {
            self.measured_game_seconds = Some(seconds * threads.max(1) as f64 / games as f64);
        }
    }

    /// Seconds of `run.max_time` kept for the evaluation at the run's end (0 without one, or
    /// without a time limit).
    pub fn seconds(&self) -> f64 {
        let (Some(e), Some(max_time)) = (self.evaluation.clone(), self.max_time) else {
            return 0.0;
        };
        if !e.at_end {
            return 0.0;
        }
        let game_seconds = self.measured_game_seconds.or_else(|| {
            e.budget
                .time
                .map(|t| PLIES_MARGIN * self.random_plies * t.as_secs_f64())
        });
        let Some(game_seconds) = game_seconds else {
            return UNKNOWN_SHARE * max_time;
        };
        let rounds = e.games.div_ceil(self.threads as u64) as f64;
        let needed = SETUP_SECONDS + rounds * game_seconds * TIME_MARGIN;
        needed.min(MAX_SHARE * max_time)
    }

    /// Whether the reserve is cut to `MAX_SHARE` (the evaluation will not play all its games).
    pub fn is_cut(&self) -> bool {
        self.max_time
            .is_some_and(|max| self.seconds() >= MAX_SHARE * max - 1e-9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Budget;
    use crate::selfplay::config::EvalOpponent;
    use std::time::Duration;

    fn evaluation(games: u64, budget: Budget) -> EvaluationSettings {
        EvaluationSettings {
            every_games: 0,
            first_after: None,
            at_end: true,
            games,
            opponent: EvalOpponent::Mcts,
            budget,
        }
    }

    #[test]
    fn a_timed_evaluation_is_reserved_in_rounds_of_the_threads() {
        let timed = evaluation(20, Budget::time(Duration::from_millis(100)));
        // 20 games on 2 threads: 10 rounds of 1.5 × 20 plies × 0.1 s = 3 s, +10 %, +1 s.
        let reserve = EndReserve::new(Some(timed), Some(3600.0), 2, 20.0);
        assert!((reserve.seconds() - (1.0 + 10.0 * 3.0 * 1.1)).abs() < 1e-9);
        assert!(!reserve.is_cut());
    }

    #[test]
    fn a_measured_evaluation_replaces_the_estimate() {
        let timed = evaluation(20, Budget::time(Duration::from_millis(100)));
        let mut reserve = EndReserve::new(Some(timed), Some(3600.0), 1, 20.0);
        // 10 games in 20 s on one thread: 2 s a game, 20 games.
        reserve.measured(20.0, 10, 1);
        assert!((reserve.seconds() - (1.0 + 20.0 * 2.0 * 1.1)).abs() < 1e-9);
        let iterations = evaluation(20, Budget::iterations(100));
        let mut reserve = EndReserve::new(Some(iterations), Some(3600.0), 1, 20.0);
        assert!((reserve.seconds() - UNKNOWN_SHARE * 3600.0).abs() < 1e-9);
        reserve.measured(20.0, 10, 1);
        assert!((reserve.seconds() - 45.0).abs() < 1e-9);
    }

    /// A game (or round) started just before self-play stops runs its whole length: the last
    /// one's time is kept out too, when there is an evaluation to keep time for.
    #[test]
    fn the_last_unit_of_self_play_is_kept_out_with_the_evaluation() {
        let timed = evaluation(2, Budget::time(Duration::from_millis(100)));
        let mut reserve = EndReserve::new(Some(timed), Some(3600.0), 1, 10.0);
        let clock = RunClock::start(0.0);
        let evaluation_seconds = reserve.seconds();
        assert!((evaluation_seconds - (1.0 + 2.0 * 1.5 * 10.0 * 0.1 * 1.1)).abs() < 1e-9);
        reserve.unit_took(100.0, &clock);
        assert!(clock.self_play_time_is_up(evaluation_seconds + 100.0));
        assert!(!clock.self_play_time_is_up(evaluation_seconds + 100.5));
        let mut none = EndReserve::new(None, Some(3600.0), 1, 10.0);
        let clock = RunClock::start(0.0);
        none.unit_took(100.0, &clock);
        assert!(!clock.self_play_time_is_up(1.0));
    }

    #[test]
    fn the_reserve_takes_at_most_half_the_run_and_none_without_a_limit_or_an_end() {
        let timed = evaluation(20, Budget::time(Duration::from_millis(100)));
        let short = EndReserve::new(Some(timed.clone()), Some(30.0), 1, 40.0);
        assert_eq!(short.seconds(), 15.0);
        assert!(short.is_cut());
        assert_eq!(
            EndReserve::new(Some(timed.clone()), None, 1, 40.0).seconds(),
            0.0
        );
        let no_end = EvaluationSettings {
            at_end: false,
            ..timed
        };
        assert_eq!(
            EndReserve::new(Some(no_end), Some(30.0), 1, 40.0).seconds(),
            0.0
        );
        assert_eq!(EndReserve::new(None, Some(30.0), 1, 40.0).seconds(), 0.0);
    }
}
