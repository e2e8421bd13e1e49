//! `TrainingObserver`: what a caller (the command line's progress bar) is told while a run trains.

use std::path::Path;

use crate::selfplay::telemetry::metrics::{EvalMetrics, GameMetrics};

/// Receives the run's progress (the command line draws a progress bar from it).
pub trait TrainingObserver {
    fn on_start(
        &mut self,
        _games_done: u64,
        _max_games: Option<u64>,
        _resumed_from: Option<&Path>,
    ) {
    }
    fn on_pretrain(&mut self, _pairs: usize, _loss: Option<f64>) {}
    fn on_game(&mut self, _metrics: &GameMetrics) {}
    fn on_evaluation(&mut self, _metrics: &EvalMetrics) {}
    fn on_checkpoint(&mut self, _games: u64, _path: &Path) {}
}

/// An observer that ignores everything.
pub struct SilentObserver;
impl TrainingObserver for SilentObserver {}
