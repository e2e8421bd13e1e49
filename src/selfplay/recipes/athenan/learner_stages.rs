//! Where a distributed learner's time goes, stage by stage, summed since it started: Redis
//! (reading entries, numbers handed out, the backlog notes, acknowledgements), decoding records,
//! replaying them (the moves and every pair checked, the positions encoded), learning (with the
//! checkpoints it writes) and publishing networks. The heartbeat carries them (`stage_seconds`),
//! so `descent bench learner` reads the learner's first bottleneck from outside.

use std::time::Instant;

use serde::{Deserialize, Serialize};

/// Seconds spent in each stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LearnerStages {
    /// Redis commands of the read loop: reads (a blocking read waits up to a second when the
    /// stream is empty), handed-out numbers, backlog notes, acknowledgements.
    pub redis: f64,
    /// Records decompressed and decoded.
    pub decode: f64,
    /// Records replayed and checked (`GameRecord::replay`).
    pub replay: f64,
    /// Games learned, checkpoints included.
    pub learn: f64,
    /// Networks published.
    pub publish: f64,
}

impl LearnerStages {
    /// Runs `work`, adding its seconds to `stage`.
    pub fn time<T>(stage: &mut f64, work: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let result = work();
        *stage += start.elapsed().as_secs_f64();
        result
    }
}
