//! `RunState`: everything of a run that is not the network, the optimiser or the replay buffer,
//! saved as `state.json` in each checkpoint (docs/run-directory.md).

use std::path::Path;

use anyhow::{Context, bail};
use rand::rngs::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use crate::selfplay::run::game_numbers::GameNumbers;
use crate::selfplay::run::run_dir::STATE_FILE;

/// The version of `state.json` this build reads and writes.
pub const STATE_FORMAT: u32 = 1;

/// Everything of a run that is not the network, the optimiser or the replay buffer; saved as
/// `state.json` in each checkpoint.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunState {
    pub format: u32,
    /// The game spec the run trains.
    pub game: String,
    /// Self-play games finished and learned.
    pub games: u64,
    pub pairs_added: u64,
    pub pairs_learned: u64,
    /// Training time so far, resumes included.
    pub elapsed_seconds: f64,
    /// Games not learned because their network was more than `run.max_lag` versions old.
    #[serde(default)]
    pub games_dropped: u64,
    /// The number of the next game to hand out: one past the highest game learned or dropped
    /// (absent in older checkpoints: then `games + games_dropped`).
    #[serde(default)]
    pub next_game_index: u64,
    /// Distributed runs: the id of the last entry of the games stream read (learned, dropped
    /// or rejected), so that a resume skips the entries this checkpoint already holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_position: Option<String>,
    /// Distributed runs: records refused (undecodable, of another run, illegal …).
    #[serde(default)]
    pub records_rejected: u64,
    /// Distributed runs: the numbers of the games learned or dropped, so that a game sent
    /// again is refused, also after a resume.
    #[serde(default, skip_serializing_if = "GameNumbers::is_empty")]
    pub games_taken: GameNumbers,
    /// The learner's random stream (replay sampling and minibatch order).
    pub learner_rng: Xoshiro256PlusPlus,
    /// Length of metrics.jsonl when the checkpoint was taken.
    pub metrics_bytes: u64,
    /// The terminal evaluation in use, its parameters resolved.
    pub terminal_eval: String,
    /// The configuration the run was trained with (YAML), to refuse a resume that would change
    /// what is learned. Absent in checkpoints of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_yaml: Option<String>,
    /// ExIt runs: the value head has joined (`exit.value_from` was reached; it stays on after
    /// a resume with a larger budget).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub value_learned: bool,
    /// Training time (seconds) at which the checkpoint's network was made: the end of the
    /// learning that produced it (absent in older checkpoints and before any learning).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_made_at_seconds: Option<f64>,
    /// Positions the network evaluated in self-play (every row of every network call).
    #[serde(default)]
    pub positions_evaluated: u64,
    /// Where the run's time went, in seconds, resumes included (absent in older checkpoints):
    /// self-play games (their wall time), learning, pre-training, and evaluations (not
    /// training time). In `parallel` mode self-play and learning overlap.
    #[serde(default)]
    pub time_split: TimeSplit,
}

/// Seconds spent on each part of a run (`RunState::time_split`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeSplit {
    pub search_seconds: f64,
    pub learn_seconds: f64,
    pub pretrain_seconds: f64,
    pub evaluation_seconds: f64,
}

impl TimeSplit {
    /// Each part that is not a finite, non-negative number of seconds set to 0.
    pub fn keep_finite(&mut self) {
        for part in [
            &mut self.search_seconds,
            &mut self.learn_seconds,
            &mut self.pretrain_seconds,
            &mut self.evaluation_seconds,
        ] {
            if !(part.is_finite() && *part >= 0.0) {
                *part = 0.0;
            }
        }
    }
}

impl RunState {
    /// The state of a new run of `game`: nothing played yet.
    pub fn new(game: String, learner_rng: Xoshiro256PlusPlus, terminal_eval: String) -> RunState {
        RunState {
            format: STATE_FORMAT,
            game,
            games: 0,
            pairs_added: 0,
            pairs_learned: 0,
            elapsed_seconds: 0.0,
            games_dropped: 0,
            next_game_index: 0,
            stream_position: None,
            records_rejected: 0,
            games_taken: Default::default(),
            learner_rng,
            metrics_bytes: 0,
            terminal_eval,
            config_yaml: None,
            value_learned: false,
            net_made_at_seconds: None,
            positions_evaluated: 0,
            time_split: TimeSplit::default(),
        }
    }

    /// The number of the first game a resumed session hands out.
    pub fn next_game_index(&self) -> u64 {
        self.next_game_index.max(self.games + self.games_dropped)
    }

    /// Reads `state.json` of the checkpoint directory `dir`.
    ///
    /// # Errors
    /// A missing or unreadable `state.json`, or one of another format.
    pub fn read(dir: &Path) -> anyhow::Result<RunState> {
        let state_path = dir.join(STATE_FILE);
        let state: RunState = serde_json::from_str(&crate::settings::files::read_regular_text(
            &state_path,
            crate::settings::limits::MAX_SMALL_FILE_BYTES,
        )?)
        .with_context(|| format!("{} is not a descent run state", state_path.display()))?;
        if state.format != STATE_FORMAT {
            bail!(
                "{}: state format {}, this descent reads format {STATE_FORMAT}",
                state_path.display(),
                state.format
            );
        }
        let mut state = state;
        state
            .check_ranges()
            .with_context(|| format!("{} is corrupt", state_path.display()))?;
        state.time_split.keep_finite();
        Ok(state)
    }

    /// Refuses figures no run reaches: a training time that is negative, not a number or over
    /// a century, a count over 2^48 (sums of counts then never overflow). The time split is a
    /// statistic (its self-play seconds add up the games' own times, many at once): it is kept
    /// finite, never refused.
    ///
    /// # Errors
    /// The first figure out of range, named.
    pub fn check_ranges(&self) -> anyhow::Result<()> {
        const MAX_SECONDS: f64 = 100.0 * 365.25 * 86_400.0;
        const MAX_COUNT: u64 = 1 << 48;
        let seconds = [
            ("elapsed_seconds", self.elapsed_seconds),
            (
                "net_made_at_seconds",
                self.net_made_at_seconds.unwrap_or(0.0),
            ),
        ];
        for (key, value) in seconds {
            if !(0.0..=MAX_SECONDS).contains(&value) {
                bail!("{key} = {value}: expected seconds from 0 to {MAX_SECONDS}");
            }
        }
        let counts = [
            ("games", self.games),
            ("pairs_added", self.pairs_added),
            ("pairs_learned", self.pairs_learned),
            ("games_dropped", self.games_dropped),
            ("next_game_index", self.next_game_index),
            ("records_rejected", self.records_rejected),
            ("metrics_bytes", self.metrics_bytes),
            ("positions_evaluated", self.positions_evaluated),
        ];
        for (key, value) in counts {
            if value > MAX_COUNT {
                bail!("{key} = {value}: expected at most {MAX_COUNT}");
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn figures_no_run_reaches_are_refused_by_name() {
        let state = || {
            RunState::new(
                "tic_tac_toe".into(),
                SeedableRng::seed_from_u64(1),
                "classic".into(),
            )
        };
        assert!(state().check_ranges().is_ok());
        let mut bad = state();
        bad.elapsed_seconds = -5.0;
        let error = bad.check_ranges().unwrap_err().to_string();
        assert!(error.contains("elapsed_seconds = -5"), "{error}");
        let mut split = state().time_split;
        (split.learn_seconds, split.search_seconds) = (f64::NAN, 1e12);
        split.keep_finite();
        assert_eq!((split.learn_seconds, split.search_seconds), (0.0, 1e12));
        let mut bad = state();
        bad.net_made_at_seconds = Some(f64::NAN);
        assert!(bad.check_ranges().is_err());
        let mut bad = state();
        bad.games = u64::MAX;
        let error = bad.check_ranges().unwrap_err().to_string();
        assert!(error.contains("games = 18446744073709551615"), "{error}");
    }
}
