//! `RunState`: everything of a run that is not the network, the optimiser or the replay buffer,
//! saved as `state.json` in each checkpoint (docs/run-directory.md).

use std::path::Path;

use anyhow::{Context, bail};
use rand::rngs::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use crate::selfplay::distributed::game_numbers::GameNumbers;
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
        let state: RunState = serde_json::from_str(
            &std::fs::read_to_string(&state_path)
                .with_context(|| format!("cannot read {}", state_path.display()))?,
        )
        .with_context(|| format!("{} is not a descent run state", state_path.display()))?;
        if state.format != STATE_FORMAT {
            bail!(
                "{}: state format {}, this descent reads format {STATE_FORMAT}",
                state_path.display(),
                state.format
            );
        }
        Ok(state)
    }
}
