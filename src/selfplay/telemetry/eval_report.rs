//! What one evaluation inside training found (`EvalReport`): the network's and the baseline's
//! agents, the games, the score with its interval, and the command that plays them again; the
//! run logs it in metrics.jsonl (`EvalMetrics`) and keeps the last one as the run's strength.

use serde::Serialize;

/// The result of one evaluation, from the network's side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EvalReport {
    /// The network's agent, e.g. `ubfms:model=<current>,time=100ms`.
    pub player: String,
    /// The baseline's agent, e.g. `mcts:time=100ms`.
    pub baseline: String,
    /// The games finished: `games_asked`, or fewer when the run's time ran out first (the
    /// evaluation at the run's end starts no move after `run.max_time`).
    pub games: u64,
    /// The games the evaluation was to play (`evaluation.games`).
    pub games_asked: u64,
    /// The match's seed: `descent eval … --seed` with it plays the same games (see
    /// `reproduce_command`).
    pub seed: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// (wins - losses) / games.
    pub win_minus_loss: f64,
    /// The 95 % interval of `win_minus_loss`, `[low, high]`: the Wilson interval of the score
    /// mapped to win − loss (as wide as the sample allows at 10-0 or all draws). Lines written
    /// before it held `ci95`, the half-width of a normal interval.
    pub win_minus_loss_ci95: [f64; 2],
    /// Wins, draws, losses with the network as P0, then as P1.
    pub as_p0: [u64; 3],
    pub as_p1: [u64; 3],
    /// One-player games (each side plays half the games alone): the network's mean score with
    /// its 95 % half-width, its best, and the baseline's mean score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_score_ci95: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_score: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_mean_score: Option<f64>,
}

impl EvalReport {
    /// "20 games", or "12 of 20 games (the run's time ran out)".
    pub fn games_text(&self) -> String {
        match self.games < self.games_asked {
            true => format!(
                "{} of {} games (the run's time ran out)",
                self.games, self.games_asked
            ),
            false => format!("{} games", self.games),
        }
    }

    /// The `descent eval` command that plays this evaluation's games again with the network
    /// of `checkpoint` (the run's network when it was made): the same agents, budgets, seed
    /// and colours, so the same moves where the budget is iterations (a time budget's moves
    /// depend on the machine's speed and load).
    pub fn reproduce_command(&self, game: &str, checkpoint: &std::path::Path) -> String {
        let agent = self
            .player
            .replace("<current>", &checkpoint.display().to_string());
        format!(
            "descent eval --game '{game}' --agent '{agent}' --opponent '{}' --games {} --seed {}",
            self.baseline, self.games_asked, self.seed
        )
    }
}
