//! What a search did: iterations, expansions, evaluator calls, depth, time — summed over the
//! moves of a game or the searches of a benchmark.

/// What a search did.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SearchStats {
    pub iterations: u64,
    /// States expanded (added to S as non-terminal).
    pub expansions: u64,
    /// Terminal states reached (with repeats).
    pub terminal_visits: u64,
    /// Calls to the evaluator, and positions evaluated by them.
    pub evaluator_calls: u64,
    pub evaluated_positions: u64,
    /// Deepest ply below the root reached by an iteration.
    pub max_depth: u32,
    pub seconds: f64,
}

impl SearchStats {
    /// Mean number of positions per evaluator call.
    pub fn mean_batch(&self) -> f64 {
        self.evaluated_positions as f64 / self.evaluator_calls.max(1) as f64
    }

    pub fn add(&mut self, other: &SearchStats) {
        self.iterations += other.iterations;
        self.expansions += other.expansions;
        self.terminal_visits += other.terminal_visits;
        self.evaluator_calls += other.evaluator_calls;
        self.evaluated_positions += other.evaluated_positions;
        self.max_depth = self.max_depth.max(other.max_depth);
        self.seconds += other.seconds;
    }
}
