//! Layer `selfplay`: the training loop (paper Algorithm 3) — self-play games with the
//! configured search and move selection, learning phases, the run directory with its metrics
//! and checkpoints, resume, and the periodic evaluation.

pub mod broker;
pub mod checkpoint;
pub mod config;
pub mod dir_lock;
pub mod event_file;
pub mod export;
pub mod game_numbers;
pub mod game_pool;
pub mod game_record;
pub mod games_log;
pub mod host_name;
pub mod learnable_game;
pub mod learner;
pub mod metrics;
pub mod observer;
pub mod periodic_eval;
pub mod replay_file;
pub mod run_clock;
pub mod run_dir;
pub mod run_state;
pub mod self_play;
pub mod stop_request;
pub mod streams;
pub mod tensorboard;
pub mod terminal_eval_choice;
pub mod training;
pub mod worker;

pub use crate::search::DurationText;
pub use config::{TrainConfig, TrainSettings};
pub use observer::{SilentObserver, TrainingObserver};
pub use run_dir::RunDir;
pub use training::{StopReason, TrainSummary, train};
