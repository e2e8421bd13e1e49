//! Layer `selfplay`: the training loop (paper Algorithm 3) — self-play games with the
//! configured search and move selection, learning phases, the run directory with its metrics
//! and checkpoints, resume, and the periodic evaluation. Three concerns, one folder each:
//! `run/` (the run itself), `distributed/` (the Redis broker, workers and game records),
//! `telemetry/` (metrics, observers, games log, TensorBoard); `config/` is the YAML file.

pub mod alphazero;
pub mod alphazero_selfplay;
pub mod alphazero_window;
pub mod config;
pub mod distributed;
pub mod exit;
pub mod round_recipe;
pub mod run;
pub mod telemetry;

pub use crate::settings::DurationText;
pub use config::{TrainConfig, TrainSettings};
pub use run::run_dir::RunDir;
pub use run::training::{StopReason, TrainSummary, train};
pub use telemetry::observer::{SilentObserver, TrainingObserver};
