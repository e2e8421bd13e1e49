//! `Agent`: anything that picks a move in a position — random, greedy / depth-1 minimax, MCTS,
//! alpha-beta, Descent / UBFM / UBFM_s — built from an `AgentSpec` by an `AgentFactory`, which
//! loads the network once and hands it to every agent it builds (one per thread). An agent is a
//! `search::Searcher` with its budget per move and the shared evaluator.

use std::sync::Arc;
use std::time::Duration;

use super::agent_spec::{AgentSpec, ModelSource};
use super::analysis::Candidate;
use super::model::load_model;
use crate::games::{Action, Game};
use crate::search::{
    Budget, Evaluator, KeepForLearning, PlayoutEvaluator, ScoreEvaluator, SearchRng, SearchSpec,
    Searcher, StopToken, TerminalEval, TreePolicy,
};
use crate::value::saved_net::LoadedNet;
use crate::value::{NetDevice, NetEvaluator, PolicyValueEvaluator};

/// The random number generator agents draw from (one per game, seeded: matches replay).
pub type AgentRng = SearchRng;

/// A shared evaluator.
pub type SharedEvaluator<G> = Arc<dyn Evaluator<G> + Send + Sync>;

/// A chosen move and, when the agent searched, its value of the position (P0's view).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveChoice {
    pub action: Action,
    pub value_p0: Option<f32>,
}

/// A player.
pub trait Agent<G: Game>: Send {
    /// Forgets everything kept from an earlier game (search tables).
    fn new_game(&mut self);

    /// The move to play in `position`, which is not over.
    fn choose_move(&mut self, position: &G, rng: &mut AgentRng) -> MoveChoice;

    /// Replaces the budget per move by a time (engine time controls); agents without a search
    /// ignore it.
    fn set_time_per_move(&mut self, time: Duration);

    /// Stops the agent's searches once `stop` is stopped, as well as at their budget (each
    /// still returns a move); agents without a search ignore it.
    fn stop_when(&mut self, _stop: &StopToken) {}

    /// Searches `position` (not over) `time` further, adding to what the last search of it
    /// found (live analysis); false for an agent without a search tree (one-ply players).
    fn search_further(&mut self, _position: &G, _time: Duration, _rng: &mut AgentRng) -> bool {
        false
    }

    /// The moves of `position` as the agent's last search of it left them, best first (empty
    /// for an agent without a search tree).
    fn candidates(&self, _position: &G) -> Vec<Candidate> {
        Vec::new()
    }
}

/// Builds agents of one spec; the network (if any) is loaded once and shared.
///
/// ```
/// use descent::arena::{AgentFactory, AgentRng, AgentSpec};
/// use descent::games::{Game, GameExt, TicTacToe};
/// use descent::value::NetDevice;
/// use rand::SeedableRng;
///
/// let spec: AgentSpec = "ubfms:iters=300".parse().unwrap();
/// let factory = AgentFactory::<TicTacToe>::new(spec, "tic_tac_toe", &NetDevice::cpu()).unwrap();
/// let mut agent = factory.build();
/// // X to move can win at c1 (a1 b1 taken, O on a2 b2).
/// let mut position = TicTacToe::new(&Default::default());
/// position.play_moves("a1 a2 b1 b2").unwrap();
/// let choice = agent.choose_move(&position, &mut AgentRng::seed_from_u64(1));
/// assert_eq!(TicTacToe::action_to_text(position.to_move(), choice.action), "c1");
/// ```
#[derive(Clone)]
pub struct AgentFactory<G: Game> {
    pub spec: AgentSpec,
    evaluator: SharedEvaluator<G>,
    terminal_eval: TerminalEval,
    /// Where the network came from ("score" without one).
    pub model_origin: String,
    /// The SHA-256 of the network's weights as its file records it (`LoadedModel`).
    pub model_weights_sha256: Option<String>,
}

impl<G: Game> AgentFactory<G> {
    /// The terminal evaluation the agent's values are scaled to (its network's; classic
    /// without one).
    pub fn terminal_eval(&self) -> TerminalEval {
        self.terminal_eval
    }

    /// Loads the spec's model (if any) on `device` for game `game` (its spec text).
    ///
    /// # Errors
    /// The model cannot be loaded (a missing or damaged file, another game, a device not compiled
    /// in).
    pub fn new(spec: AgentSpec, game: &str, device: &NetDevice) -> anyhow::Result<Self> {
        match &spec.model {
            None => Ok(Self::with_evaluator(
                spec,
                Arc::new(ScoreEvaluator::default()),
                TerminalEval::Classic,
                "score".to_string(),
            )),
            Some(ModelSource::Playouts) => Ok(Self::with_evaluator(
                spec,
                Arc::new(PlayoutEvaluator::default()),
                TerminalEval::Classic,
                "random playouts".to_string(),
            )),
            Some(source) => {
                let model = load_model::<G>(source, game, &device.burn)?;
                let evaluator: SharedEvaluator<G> = match model.net {
                    LoadedNet::Value(net) => Arc::new(NetEvaluator::<G>::new(net, device)),
                    LoadedNet::PolicyValue(net) => {
                        anyhow::ensure!(
                            net.num_actions() == G::NUM_ACTIONS,
                            "{}: a policy over {} action ids, but {game} has {}",
                            model.origin,
                            net.num_actions(),
                            G::NUM_ACTIONS
                        );
                        Arc::new(PolicyValueEvaluator::<G>::new(*net, device))
                    }
                };
                let (spec, origin) = match model.value_trained {
                    true => (spec, model.origin),
                    false => without_value_weight(spec, model.origin),
                };
                Ok(AgentFactory {
                    model_weights_sha256: model.weights_sha256,
                    ..Self::with_evaluator(spec, evaluator, model.terminal_eval, origin)
                })
            }
        }
    }

    /// Agents searching with `evaluator` (e.g. the network of a training run), whose values are
    /// on the scale of `terminal_eval`.
    pub fn with_evaluator(
        spec: AgentSpec,
        evaluator: SharedEvaluator<G>,
        terminal_eval: TerminalEval,
        model_origin: String,
    ) -> Self {
        AgentFactory {
            spec,
            evaluator,
            terminal_eval,
            model_origin,
            model_weights_sha256: None,
        }
    }

    /// The evaluator every agent of this factory shares.
    pub fn evaluator(&self) -> &SharedEvaluator<G> {
        &self.evaluator
    }

    pub fn build(&self) -> Box<dyn Agent<G>> {
        Box::new(SearchAgent {
            searcher: self
                .spec
                .search
                .build(self.terminal_eval, KeepForLearning::default()),
            budget: self.spec.search.budget(),
            evaluator: self.evaluator.clone(),
        })
    }
}

/// `spec` for a network whose value head was never trained (ExIt's before its value joined):
/// the ExIt expert's value weight `w_v` set to 0, as the run itself played it, and the origin
/// saying so. Other searches are left as asked.
fn without_value_weight(mut spec: AgentSpec, origin: String) -> (AgentSpec, String) {
    if let SearchSpec::Mcts { options, .. } = &mut spec.search
        && let TreePolicy::Exit { w_v, .. } = &mut options.tree_policy
        && *w_v != 0.0
    {
        *w_v = 0.0;
        return (spec, format!("{origin} (value head untrained: w_v = 0)"));
    }
    (spec, origin)
}

/// An agent: a searcher, its budget per move and the shared evaluator.
struct SearchAgent<G: Game> {
    searcher: Box<dyn Searcher<G>>,
    /// `None` for one-ply players.
    budget: Option<Budget>,
    evaluator: SharedEvaluator<G>,
}

impl<G: Game> Agent<G> for SearchAgent<G> {
    fn new_game(&mut self) {
        self.searcher.new_game(false);
    }

    fn choose_move(&mut self, position: &G, rng: &mut AgentRng) -> MoveChoice {
        let evaluator: &(dyn Evaluator<G> + Send + Sync) = &*self.evaluator;
        // One-ply players ignore the budget.
        static ONE_PLY: Budget = Budget::iterations(1);
        let budget = self.budget.as_ref().unwrap_or(&ONE_PLY);
        self.searcher.search(position, evaluator, budget, rng);
        let action = self
            .searcher
            .decide(position, rng)
            .expect("choose_move is called on a position in play");
        MoveChoice {
            action,
            value_p0: self.searcher.root(position).value_p0,
        }
    }

    fn set_time_per_move(&mut self, time: Duration) {
        if let Some(budget) = &mut self.budget {
            *budget = Budget {
                stop: budget.stop.take(),
                ..Budget::time(time)
            };
        }
    }

    fn stop_when(&mut self, stop: &StopToken) {
        if let Some(budget) = &mut self.budget {
            budget.stop = Some(stop.clone());
        }
    }

    fn search_further(&mut self, position: &G, time: Duration, rng: &mut AgentRng) -> bool {
        if self.budget.is_none() {
            return false;
        }
        let evaluator: &(dyn Evaluator<G> + Send + Sync) = &*self.evaluator;
        let budget = Budget {
            stop: self.budget.as_ref().and_then(|b| b.stop.clone()),
            ..Budget::time(time)
        };
        self.searcher
            .search_further(position, evaluator, &budget, rng);
        true
    }

    fn candidates(&self, position: &G) -> Vec<Candidate> {
        if self.budget.is_none() {
            return Vec::new();
        }
        let evaluator: &(dyn Evaluator<G> + Send + Sync) = &*self.evaluator;
        let root = self.searcher.root(position);
        super::analysis::candidates(position, root, &*self.searcher, evaluator)
    }
}
