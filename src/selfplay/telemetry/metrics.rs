//! The records of `metrics.jsonl` written by training: one line per self-play game and one per
//! periodic evaluation (docs/run-directory.md).

use serde::Serialize;

use crate::selfplay::config::EvaluationSettings;
use crate::selfplay::telemetry::eval_report::EvalReport;

/// One line of metrics.jsonl per self-play game.
#[derive(Clone, Debug, Serialize)]
pub struct GameMetrics {
    pub kind: &'static str,
    /// Games learned in the run, this one included (also the network version it produced).
    pub game: u64,
    /// The game's number as handed out (its random stream), resumes included.
    pub index: u64,
    /// The network version the game was played with (games learned when it started), and how
    /// many versions the learner had published since when it was learned.
    pub net_version: u64,
    pub lag: u64,
    /// Games dropped so far for their lag.
    pub games_dropped: u64,
    pub plies: usize,
    /// +1 P0 won, -1 P1 won, 0 draw.
    pub result_p0: f32,
    pub final_value_p0: f32,
    pub pairs_added: usize,
    pub pairs_learned: usize,
    pub minibatches: usize,
    pub loss: Option<f64>,
    /// Adam's step size in the learning phase.
    pub learning_rate: f64,
    pub replay_pairs: usize,
    pub replay_games: usize,
    pub iterations: u64,
    pub table_states: usize,
    pub evaluated_positions: u64,
    pub mean_eval_batch: f64,
    /// Wall time of the game (searches and network), of its network calls, and of the
    /// learning phase that followed.
    pub game_seconds: f64,
    pub net_seconds: f64,
    pub learn_seconds: f64,
    pub states_per_second: f64,
    pub evaluations_per_second: f64,
    pub elapsed_seconds: f64,
    pub games_per_hour: f64,
    /// When the line was written, in seconds since the Unix epoch.
    pub unix_time: f64,
}

/// One line of metrics.jsonl per game dropped for its lag (`run.max_lag`).
#[derive(Clone, Debug, Serialize)]
pub struct DroppedGame {
    pub kind: &'static str,
    pub index: u64,
    pub net_version: u64,
    pub lag: u64,
    /// The learner's version (games learned) when the game was dropped.
    pub learner_version: u64,
    pub games_dropped: u64,
}

/// One line of metrics.jsonl per record refused by the learner of a distributed run.
#[derive(Clone, Debug, Serialize)]
pub struct RejectedRecord {
    pub kind: &'static str,
    /// The entry of the games stream.
    pub entry: String,
    pub reason: String,
    pub records_rejected: u64,
}

/// One line of metrics.jsonl per evaluation: periodic, or at the run's end (`at_end`).
#[derive(Clone, Debug, Serialize)]
pub struct EvalMetrics {
    pub kind: &'static str,
    pub game: u64,
    /// The evaluation made when the run reached its limit (`evaluation.at_end`).
    pub at_end: bool,
    pub opponent: String,
    pub seconds: f64,
    /// When the line was written, in seconds since the Unix epoch.
    pub unix_time: f64,
    #[serde(flatten)]
    pub report: EvalReport,
}

impl EvalMetrics {
    /// The line of an evaluation after `game` games learned, which took `seconds`.
    pub fn new(
        (game, at_end): (u64, bool),
        evaluation: &EvaluationSettings,
        seconds: f64,
        report: EvalReport,
    ) -> EvalMetrics {
        EvalMetrics {
            kind: "evaluation",
            game,
            at_end,
            opponent: format!("{:?}", evaluation.opponent).to_lowercase(),
            seconds,
            unix_time: crate::selfplay::telemetry::tensorboard::unix_time(),
            report,
        }
    }
}
