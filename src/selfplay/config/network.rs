//! `network:` and `optimizer:` — the value network and its Adam optimiser.

use serde::{Deserialize, Serialize};

use super::checks::check;
use crate::games::GameSpec;
use crate::settings::config_error::ConfigError;
use crate::value::{AdamSettings, Architecture};

/// The value network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NetworkSection {
    /// `paper-cnn` or `resnet-b{blocks}c{filters}-fc{n}[-fc{m}]` (default `paper-cnn`).
    pub architecture: String,
}

impl Default for NetworkSection {
    fn default() -> Self {
        NetworkSection {
            architecture: "paper-cnn".into(),
        }
    }
}

/// Adam, with the paper's L2 penalty on the kernels in the loss.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OptimizerSection {
    /// Default 0.001.
    pub learning_rate: f64,
    /// Default 0.9.
    pub beta1: f32,
    /// Default 0.999.
    pub beta2: f32,
    /// Default 1e-8.
    pub epsilon: f32,
    /// λ of the L2 penalty λΣ‖W‖² on the kernels, biases untouched (default 0.001, the paper's;
    /// 0 = none).
    pub l2: f32,
    /// The step size at the end of the run's budget, reached from `learning_rate` by cosine
    /// annealing over `run.max_time` or `run.max_games`, the further (default: none, the step
    /// size stays `learning_rate`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_learning_rate: Option<f64>,
}

impl Default for OptimizerSection {
    fn default() -> Self {
        OptimizerSection {
            learning_rate: 1e-3,
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
            l2: 1e-3,
            final_learning_rate: None,
        }
    }
}

impl NetworkSection {
    /// The architecture, checked against the encoding of `game`.
    ///
    /// # Errors
    /// An unknown architecture, or one too large or unfit for the game's board.
    pub fn validate(&self, game: &GameSpec) -> Result<Architecture, ConfigError> {
        let architecture: Architecture = self
            .architecture
            .parse()
            .map_err(|e: ConfigError| e.within("network.architecture"))?;
        architecture
            .check_size(game.encoding_dims())
            .map_err(|e| e.within("network.architecture"))?;
        Ok(architecture)
    }
}

impl OptimizerSection {
    /// # Errors
    /// A rate, β or ε out of its range, naming the key.
    pub fn validate(&self) -> Result<AdamSettings, ConfigError> {
        check(
            self.learning_rate > 0.0 && self.learning_rate <= 1.0,
            "optimizer.learning_rate",
            "must be a number in (0, 1] (Adam's step size; the paper's is 0.001)",
        )?;
        for (key, beta) in [
            ("optimizer.beta1", self.beta1),
            ("optimizer.beta2", self.beta2),
        ] {
            check((0.0..1.0).contains(&beta), key, "must be in [0, 1)")?;
        }
        check(self.epsilon > 0.0, "optimizer.epsilon", "must be positive")?;
        check(
            (0.0..=1.0).contains(&self.l2),
            "optimizer.l2",
            "must be a number in [0, 1] (the paper's λ is 0.001)",
        )?;
        if let Some(end) = self.final_learning_rate {
            check(
                (0.0..=self.learning_rate).contains(&end),
                "optimizer.final_learning_rate",
                "must be a number in [0, optimizer.learning_rate] (the step size the run's \
                 budget ends at), or null for a constant step size",
            )?;
        }
        Ok(AdamSettings {
            learning_rate: self.learning_rate,
            beta1: self.beta1,
            beta2: self.beta2,
            epsilon: self.epsilon,
            l2: self.l2,
            final_learning_rate: self.final_learning_rate,
        })
    }
}
