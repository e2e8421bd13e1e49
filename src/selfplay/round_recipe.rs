//! `RoundRecipe`: what a run directory needs of a policy-value recipe that trains in rounds —
//! AlphaZero (`selfplay::alphazero`) and ExIt (`selfplay::exit`) — so that both share one
//! session (`run::round_run`): the same lock, limits, metrics, evaluations and checkpoints.

use rand::rngs::Xoshiro256PlusPlus;

use super::alphazero::RoundReport;
use super::alphazero_window::Window;
use crate::games::Game;
use crate::search::{Budget, SearchSpec};
use crate::value::policy_value_net::PolicyValueNet;

/// A recipe that plays and learns in rounds of games, with a policy-value network.
pub trait RoundRecipe<G: Game> {
    /// The metrics line's `kind` of a round, e.g. `alphazero_round`.
    const ROUND_KIND: &'static str;

    /// Plays and learns one round; `budget_used` is the share of the run's budget (time or
    /// games, whichever is further) spent before it, in [0, 1] (0 for a run without one).
    fn round(&mut self, budget_used: f64) -> RoundReport;

    /// The network as trained so far.
    fn net(&self) -> &PolicyValueNet;

    /// The positions kept for learning, to checkpoint.
    fn window(&self) -> &Window;

    /// The learner's random stream, to checkpoint.
    fn rng(&self) -> &Xoshiro256PlusPlus;

    /// Adam's state, to checkpoint; `None` for a recipe that keeps none across rounds.
    ///
    /// # Errors
    /// The state cannot be serialised.
    fn optimizer_bytes(&self) -> anyhow::Result<Option<Vec<u8>>>;

    /// Whether the value head is learned and used (ExIt's switch; always for AlphaZero).
    fn value_on(&self) -> bool {
        true
    }

    /// The search the current network plays in evaluations, at `budget` a move, and its name
    /// in the metrics (`model=<current>`).
    fn evaluation_search(&self, budget: Budget) -> (String, SearchSpec);
}
