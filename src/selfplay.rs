//! Layer `selfplay`: training by self-play — the recipes by name, one folder each
//! (`recipes/`: Athénan's Algorithm 3, AlphaZero, ExIt), the one session that runs any of them
//! with its run directory, metrics, checkpoints, resume, periodic evaluation, game records and
//! games log (`run/`), the Redis broker and workers (`distributed/`), metrics, evaluation
//! reports, observers and TensorBoard (`telemetry/`); `config/` is the YAML file.

pub mod config;
pub mod distributed;
pub mod recipes;
pub mod run;
pub mod telemetry;

pub use crate::settings::DurationText;
pub use config::{TrainConfig, TrainSettings};
pub use recipes::train;
pub use run::run_dir::RunDir;
pub use run::session::{StopReason, TrainSummary};
pub use telemetry::observer::{SilentObserver, TrainingObserver};
