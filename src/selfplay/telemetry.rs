//! What a run reports: metrics records, an evaluation's report, observers (the progress bar,
//! silence) and TensorBoard event files (the games log is the run's: `run::games_log`).

pub mod eval_report;
pub mod event_file;
pub mod metrics;
pub mod observer;
pub mod tensorboard;
