//! What a round recipe counts: its progress over the run (`RoundProgress`) and what one round
//! of self-play and learning did (`RoundReport`, one metrics line).

use crate::value::policy_value_net::PolicyValueLoss;

/// What a round recipe did, over the run (counts resumed from its checkpoint).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RoundProgress {
    pub games: u64,
    pub positions: u64,
    /// Adam steps since this process started (a resumed run counts from 0 again).
    pub steps: u64,
    pub last_loss: Option<PolicyValueLoss>,
    /// Positions the network evaluated in self-play (rows of its calls).
    pub evaluated: u64,
    /// Rows of every minibatch learned (symmetric images included).
    pub learned: u64,
    /// Wall time of the learning (minibatches gathered and stepped), in seconds.
    pub learn_seconds: f64,
}

impl RoundProgress {
    /// What was done since `before`, as a round's report, learnt at `learning_rate`.
    pub fn since(&self, before: &RoundProgress, learning_rate: f64) -> RoundReport {
        RoundReport {
            games: self.games - before.games,
            positions: self.positions - before.positions,
            steps: self.steps - before.steps,
            loss: (self.steps > before.steps)
                .then_some(self.last_loss)
                .flatten(),
            evaluated_positions: self.evaluated - before.evaluated,
            samples_learned: self.learned - before.learned,
            learn_seconds: self.learn_seconds - before.learn_seconds,
            learning_rate,
        }
    }
}

/// What one round of self-play and learning did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundReport {
    pub games: u64,
    pub positions: u64,
    pub steps: u64,
    /// The loss of the round's last step (`None`: no step).
    pub loss: Option<PolicyValueLoss>,
    /// Positions the network evaluated in the round's self-play.
    pub evaluated_positions: u64,
    /// Rows learned (minibatch rows, symmetric images included).
    pub samples_learned: u64,
    /// Adam's step size in the round's learning.
    pub learning_rate: f64,
    /// Wall time of the round's learning; the rest of the round is self-play.
    pub learn_seconds: f64,
}
