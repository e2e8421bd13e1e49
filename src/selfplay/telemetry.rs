//! What a run reports: metrics records, observers (the progress bar, silence), the games log
//! and TensorBoard event files.

pub mod event_file;
pub mod games_log;
pub mod metrics;
pub mod observer;
pub mod tensorboard;
