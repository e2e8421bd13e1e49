//! `Agent`: anything that picks a move in a position — random, greedy / depth-1 minimax, MCTS,
//! alpha-beta, Descent / UBFM / UBFM_s — built from an `AgentSpec` by an `AgentFactory`, which
//! loads the network once and hands it to every agent it builds (one per thread).

use std::sync::Arc;
use std::time::Duration;

use rand::rngs::Xoshiro256PlusPlus;

use super::agent_spec::{AgentKind, AgentSpec};
use super::model::load_model;
use crate::games::{Action, Game};
use crate::search::greedy::{greedy_move, random_move};
use crate::search::table::key_of;
use crate::search::{
    AlphaBeta, AlphaBetaOptions, Budget, Decision, Evaluator, Mcts, ScoreEvaluator, Table,
    TerminalEval, TreeSearch, TreeSearchOptions,
};
use crate::value::{NetDevice, NetEvaluator};

/// The random number generator agents draw from (one per game, seeded: matches replay).
pub type AgentRng = Xoshiro256PlusPlus;

/// A shared evaluator.
pub type SharedEvaluator<G> = Arc<dyn Evaluator<G> + Send>;

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
}

/// Builds agents of one spec; the network (if any) is loaded once and shared.
#[derive(Clone)]
pub struct AgentFactory<G: Game> {
    pub spec: AgentSpec,
    evaluator: SharedEvaluator<G>,
    terminal_eval: TerminalEval,
    /// Where the network came from ("score" without one).
    pub model_origin: String,
}

impl<G: Game> AgentFactory<G> {
    /// Loads the spec's model (if any) on `device` for game `game` (its spec text).
    pub fn new(spec: AgentSpec, game: &str, device: &NetDevice) -> anyhow::Result<Self> {
        match &spec.model {
            None => Ok(Self::with_evaluator(
                spec,
                Arc::new(ScoreEvaluator::default()),
                TerminalEval::Classic,
                "score".to_string(),
            )),
            Some(source) => {
                let model = load_model::<G>(source, game, &device.burn)?;
                let evaluator = NetEvaluator::<G>::new(model.net, device);
                Ok(Self::with_evaluator(
                    spec,
                    Arc::new(evaluator),
                    model.terminal_eval,
                    model.origin,
                ))
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
        }
    }

    pub fn build(&self) -> Box<dyn Agent<G>> {
        let searcher = match &self.spec.kind {
            AgentKind::Random => Searcher::Random,
            AgentKind::Greedy { epsilon } => Searcher::Greedy { epsilon: *epsilon },
            AgentKind::Mcts { budget, options } => Searcher::Mcts {
                mcts: Mcts::new(crate::search::MctsOptions {
                    terminal_eval: self.terminal_eval,
                    ..*options
                }),
                budget: *budget,
            },
            AgentKind::AlphaBeta { budget, max_depth } => Searcher::AlphaBeta {
                search: AlphaBeta::new(AlphaBetaOptions {
                    max_depth: *max_depth,
                    terminal_eval: self.terminal_eval,
                }),
                budget: *budget,
            },
            AgentKind::TreeSearch {
                budget,
                variant,
                completed,
                decision,
            } => Searcher::Tree {
                search: TreeSearch::new(TreeSearchOptions {
                    variant: *variant,
                    completed: *completed,
                    terminal_eval: self.terminal_eval,
                    record_terminals: false,
                }),
                table: Table::new(false),
                budget: *budget,
                decision: *decision,
            },
        };
        Box::new(SearchAgent {
            searcher,
            evaluator: self.evaluator.clone(),
            terminal_eval: self.terminal_eval,
        })
    }
}

enum Searcher<G: Game> {
    Random,
    Greedy {
        epsilon: f32,
    },
    Mcts {
        mcts: Mcts<G>,
        budget: Budget,
    },
    AlphaBeta {
        search: AlphaBeta<G>,
        budget: Budget,
    },
    Tree {
        search: TreeSearch<G>,
        /// Kept across the moves of a game, cleared between games.
        table: Table<G>,
        budget: Budget,
        decision: Decision,
    },
}

struct SearchAgent<G: Game> {
    searcher: Searcher<G>,
    evaluator: SharedEvaluator<G>,
    terminal_eval: TerminalEval,
}

impl<G: Game> Agent<G> for SearchAgent<G> {
    fn new_game(&mut self) {
        match &mut self.searcher {
            Searcher::Tree { table, .. } => table.clear(),
            Searcher::Mcts { mcts, .. } => mcts.clear(),
            _ => {}
        }
    }

    fn choose_move(&mut self, position: &G, rng: &mut AgentRng) -> MoveChoice {
        let evaluator: &(dyn Evaluator<G> + Send) = &*self.evaluator;
        let no_move = "choose_move is called on a position in play";
        match &mut self.searcher {
            Searcher::Random => MoveChoice {
                action: random_move(position, rng).expect(no_move),
                value_p0: None,
            },
            Searcher::Greedy { epsilon } => MoveChoice {
                action: greedy_move(position, &evaluator, &self.terminal_eval, *epsilon, rng)
                    .expect(no_move),
                value_p0: None,
            },
            Searcher::Mcts { mcts, budget } => {
                mcts.clear();
                mcts.search(position, &evaluator, budget, rng);
                let action = mcts.decide(rng).expect(no_move);
                let value_p0 = mcts
                    .root_children()
                    .iter()
                    .find(|c| c.action == action)
                    .map(|c| c.mean_value_p0);
                MoveChoice { action, value_p0 }
            }
            Searcher::AlphaBeta { search, budget } => {
                let (result, _) = search.search(position, &evaluator, budget, rng);
                let action = match result.best {
                    Some(action) => action,
                    // Not even depth 1 finished within the budget.
                    None => random_move(position, rng).expect(no_move),
                };
                MoveChoice {
                    action,
                    value_p0: result.best.map(|_| result.value_p0),
                }
            }
            Searcher::Tree {
                search,
                table,
                budget,
                decision,
            } => {
                search.search(table, position, &evaluator, budget, rng);
                let action = search
                    .decide(table, position, *decision, rng)
                    .expect(no_move);
                MoveChoice {
                    action,
                    value_p0: table.get(key_of(position)).map(|n| n.value_p0),
                }
            }
        }
    }

    fn set_time_per_move(&mut self, time: Duration) {
        match &mut self.searcher {
            Searcher::Mcts { budget, .. }
            | Searcher::AlphaBeta { budget, .. }
            | Searcher::Tree { budget, .. } => *budget = Budget::time(time),
            Searcher::Random | Searcher::Greedy { .. } => {}
        }
    }
}
