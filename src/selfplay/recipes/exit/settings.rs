//! `exit:` — ExIt's settings (`recipe: exit`; paper §8.1, Algorithm 15; docs/algorithms.md
//! §13). The defaults are the paper's §8.4.2 where it gives them (2 500 expert rollouts, UCT
//! constants 0.25 then 0.05, w_a = 100, w_v = 0.75, T_softmax = 0.1, batch 250, the value from
//! day 3 of 15); the phase size is its inference batch (500).

use serde::{Deserialize, Serialize};

use crate::learn::augment::Augmentation;
use crate::search::spec::{EXIT_C, EXIT_W_A, EXIT_W_V};
use crate::selfplay::config::checks::{check, limit};
use crate::settings::config_error::ConfigError;
use crate::value::{AdamSettings, Architecture};

/// ExIt's self-play, expert and learning.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExitSection {
    /// Simulations (random playouts) of each expert search (default 2500, §8.4.2).
    pub expert_iterations: u64,
    /// Games of base MCTS against itself learned first (default 100).
    pub warm_start_games: u64,
    /// UCT's constant during the warm start (default 0.25) and after it (default 0.05).
    pub warm_start_c: f32,
    pub c: f32,
    /// The expert's weights of the apprentice's policy (default 100) and value (default 0.75).
    pub w_a: f32,
    pub w_v: f32,
    /// Softmax temperature of the apprentice's moves in self-play (default 0.1).
    pub temperature: f32,
    /// Games per phase, played at once (default 500).
    pub games_per_phase: usize,
    /// Positions per minibatch (default 250).
    pub batch_size: usize,
    /// Epochs without a better held-out loss before a phase's training stops (default 3),
    /// and the most epochs of a phase (default 50).
    pub patience: usize,
    pub max_epochs: usize,
    /// The share of the run's budget (run.max_time or run.max_games) after which the value
    /// is learned and used (default 0.2: day 3 of the paper's 15).
    pub value_from: f64,
    /// The most positions kept, the latest (default 131072).
    pub max_positions: usize,
}

impl Default for ExitSection {
    fn default() -> Self {
        ExitSection {
            expert_iterations: 2500,
            warm_start_games: 100,
            warm_start_c: 0.25,
            c: EXIT_C,
            w_a: EXIT_W_A,
            w_v: EXIT_W_V,
            temperature: 0.1,
            games_per_phase: 500,
            batch_size: 250,
            patience: 3,
            max_epochs: 50,
            value_from: 0.2,
            max_positions: 1 << 17,
        }
    }
}

impl ExitSection {
    /// # Errors
    /// A value out of its range, naming the key.
    pub fn validate(
        &self,
        architecture: Architecture,
        adam: AdamSettings,
        seed: u64,
    ) -> Result<ExitSettings, ConfigError> {
        let key = |k: &str| format!("exit.{k}");
        let at_least_one = |name: &str, value: u64, max: u64| -> Result<(), ConfigError> {
            check(value >= 1, &key(name), "must be at least 1")?;
            limit(&key(name), value, max)
        };
        at_least_one("expert_iterations", self.expert_iterations, 10_000_000)?;
        limit(&key("warm_start_games"), self.warm_start_games, 1_000_000)?;
        at_least_one("games_per_phase", self.games_per_phase as u64, 100_000)?;
        at_least_one("batch_size", self.batch_size as u64, 65_536)?;
        at_least_one("patience", self.patience as u64, 1000)?;
        at_least_one("max_epochs", self.max_epochs as u64, 100_000)?;
        at_least_one("max_positions", self.max_positions as u64, 1 << 22)?;
        for (name, value) in [
            ("warm_start_c", self.warm_start_c),
            ("c", self.c),
            ("w_a", self.w_a),
            ("w_v", self.w_v),
        ] {
            check(
                value.is_finite() && value >= 0.0,
                &key(name),
                "must be a number ≥ 0",
            )?;
        }
        check(
            self.temperature.is_finite() && self.temperature > 0.0,
            &key("temperature"),
            "must be a positive number",
        )?;
        check(
            (0.0..=1.0).contains(&self.value_from),
            &key("value_from"),
            "must be a share of the run's budget in [0, 1]",
        )?;
        Ok(ExitSettings {
            architecture,
            expert_iterations: self.expert_iterations,
            warm_start_games: self.warm_start_games,
            warm_start_c: self.warm_start_c,
            c: self.c,
            w_a: self.w_a,
            w_v: self.w_v,
            temperature: self.temperature,
            games_per_phase: self.games_per_phase,
            batch_size: self.batch_size,
            patience: self.patience,
            max_epochs: self.max_epochs,
            value_from: self.value_from,
            max_positions: self.max_positions,
            adam,
            augmentation: crate::learn::augment::Augmentation::One,
            threads: 1,
            seed,
        })
    }
}

/// ExIt's settings (defaults: §8.4.2 where the paper gives them).
#[derive(Clone, Debug, PartialEq)]
pub struct ExitSettings {
    pub architecture: Architecture,
    /// Simulations of each expert search (the paper: 2 500 rollouts).
    pub expert_iterations: u64,
    /// Games of base MCTS against itself learned first.
    pub warm_start_games: u64,
    /// UCT's constant during the warm start (0.25) and after (0.05).
    pub warm_start_c: f32,
    pub c: f32,
    /// The expert's policy and value weights (100, 0.75).
    pub w_a: f32,
    pub w_v: f32,
    /// The apprentice's softmax temperature in self-play (0.1).
    pub temperature: f32,
    /// Games per phase, played at once.
    pub games_per_phase: usize,
    /// Minibatch size (250).
    pub batch_size: usize,
    /// Epochs without a better held-out loss before a phase's training stops, and its most.
    pub patience: usize,
    pub max_epochs: usize,
    /// The share of the run's budget after which the value is learned and used.
    pub value_from: f64,
    /// The most positions kept (the latest).
    pub max_positions: usize,
    pub adam: AdamSettings,
    /// Each training position learned with its images under the board's symmetries
    /// (`learning.augment_symmetries`); held-out positions are not augmented.
    pub augmentation: Augmentation,
    /// Threads the warm start's games and each phase's expert searches are dealt to
    /// (`run.threads`; at most `games_per_phase`): the same data whatever their number.
    pub threads: usize,
    pub seed: u64,
}
