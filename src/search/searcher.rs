//! `Searcher`: the one interface of every way `descent` picks a move — completed Descent,
//! UBFM / UBFM_s, MCTS / UCT, alpha-beta, greedy and random. Self-play (`selfplay`), agents
//! (`arena`) and `descent bench search` drive searches only through it; a `SearchSpec` builds
//! one. Adding a search means a type here implementing the trait, and its arm in `spec.rs`.
//!
//! A searcher runs under a budget, then reports the root: its children with their values (P0's
//! view), visits, completion and resolution where the search has them, the search's value of the
//! root, and the move its own decision rule picks. Tree learning reads the table (Descent /
//! UBFM) or the searched states (MCTS, alpha-beta).

use rand::rngs::Xoshiro256PlusPlus;

use super::alphabeta::{AlphaBeta, AlphaBetaResult};
use super::budget::Budget;
use super::decision::Decision;
use super::descent::TreeSearch;
use super::evaluator::Evaluator;
use super::greedy::{greedy_move, random_move};
use super::mcts::Mcts;
use super::stats::SearchStats;
use super::table::{ChildEdge, Table, key_of};
use super::terminal_eval::TerminalEval;
use crate::games::{Action, Game};

/// The random number generator searches draw from (seeded per game: games replay).
pub type SearchRng = Xoshiro256PlusPlus;

/// The root after a search.
#[derive(Clone, Copy, Debug)]
pub struct SearchRoot<'a> {
    /// The root's children with their values (P0's view), visits, completion, resolution; empty
    /// for searches that value only their best move (alpha-beta's other root moves are bounds,
    /// not values) or no move at all (random, greedy).
    pub children: &'a [ChildEdge],
    /// The search's value of the root, P0's view (`None`: no search ran, or none finished).
    pub value_p0: Option<f32>,
}

/// A search, or a simpler player, behind one interface.
pub trait Searcher<G: Game>: Send {
    /// Starts a new game: forgets what was kept from the last one (tables, trees), except the
    /// resolved states of a table when `keep_resolved` (docs/algorithms.md §7).
    fn new_game(&mut self, keep_resolved: bool);

    /// Searches `position` (not over) within `budget`; returns the work done.
    fn search(
        &mut self,
        position: &G,
        evaluator: &dyn Evaluator<G>,
        budget: &Budget,
        rng: &mut SearchRng,
    ) -> SearchStats;

    /// The root of the last search, which was from `position`.
    fn root(&self, position: &G) -> SearchRoot<'_>;

    /// The move this search's own decision rule plays after searching `position` (`None` when
    /// the search found none: alpha-beta cut off before depth 1).
    fn decide(&self, position: &G, rng: &mut SearchRng) -> Option<Action>;

    /// Searches `position` further within `budget`, adding to what the last search of the same
    /// position found (live analysis: each interval adds to one tree). Searches that keep their
    /// tree or table between searches do so already.
    fn search_further(
        &mut self,
        position: &G,
        evaluator: &dyn Evaluator<G>,
        budget: &Budget,
        rng: &mut SearchRng,
    ) -> SearchStats {
        self.search(position, evaluator, budget, rng)
    }

    /// The line the search expects after `first` from `position`, `first` included, at most
    /// `max_plies` long (`first` alone where the search keeps no deeper statistics).
    fn principal_variation(&self, _position: &G, first: Action, _max_plies: usize) -> Vec<Action> {
        vec![first]
    }

    /// The table grown by the search (Descent / UBFM), whose states are the tree-learning pairs.
    fn table(&self) -> Option<&Table<G>> {
        None
    }

    /// Searches without a table: appends the states of the last search from `position` with
    /// their values (P0's view), for tree learning (paper sections 3.4 and 4.2).
    fn searched_states(&self, _position: &G, _out: &mut Vec<(G, f32)>) {}
}

/// Descent / UBFM / UBFM_s: the search and the table it keeps across the moves of a game.
pub struct TableSearcher<G: Game> {
    pub search: TreeSearch<G>,
    pub table: Table<G>,
    pub decision: Decision,
}

impl<G: Game> Searcher<G> for TableSearcher<G> {
    fn new_game(&mut self, keep_resolved: bool) {
        if keep_resolved {
            self.table.retain_resolved();
        } else {
            self.table.clear();
        }
    }

    fn search(
        &mut self,
        position: &G,
        evaluator: &dyn Evaluator<G>,
        budget: &Budget,
        rng: &mut SearchRng,
    ) -> SearchStats {
        self.search
            .search(&mut self.table, position, &evaluator, budget, rng)
    }

    fn root(&self, position: &G) -> SearchRoot<'_> {
        match self.table.node_and_children(key_of(position)) {
            Some((node, children)) => SearchRoot {
                children,
                value_p0: Some(node.value_p0),
            },
            None => SearchRoot {
                children: &[],
                value_p0: None,
            },
        }
    }

    fn decide(&self, position: &G, rng: &mut SearchRng) -> Option<Action> {
        self.search
            .decide(&self.table, position, self.decision, rng)
    }

    fn table(&self) -> Option<&Table<G>> {
        Some(&self.table)
    }

    /// From each position on, the child the table visited most (the best for the mover among
    /// equals), while the table holds the position.
    fn principal_variation(&self, position: &G, first: Action, max_plies: usize) -> Vec<Action> {
        let mut line = vec![first];
        let mut at = position.clone();
        at.play(first);
        while line.len() < max_plies && !at.is_terminal() {
            let Some((_, children)) = self.table.node_and_children(key_of(&at)) else {
                break;
            };
            let sign = at.to_move().sign();
            let best = children.iter().max_by(|a, b| {
                (a.visits, sign * a.value_p0)
                    .partial_cmp(&(b.visits, sign * b.value_p0))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            let Some(best) = best else { break };
            line.push(best.action);
            at.play(best.action);
        }
        line
    }
}

/// MCTS / UCT, a fresh tree per search; the root's children copied out after each.
pub struct MctsSearcher<G: Game> {
    pub mcts: Mcts<G>,
    children: Vec<ChildEdge>,
    value_p0: Option<f32>,
}

impl<G: Game> MctsSearcher<G> {
    pub fn new(mcts: Mcts<G>) -> Self {
        MctsSearcher {
            mcts,
            children: Vec::new(),
            value_p0: None,
        }
    }
}

impl<G: Game> MctsSearcher<G> {
    /// Copies the root's children out of the tree after a search.
    fn copy_root(&mut self) {
        self.children.clear();
        self.children
            .extend(self.mcts.root_children().iter().map(|c| ChildEdge {
                value_p0: c.mean_value_p0,
                visits: c.visits,
                action: c.action,
                completion: 0,
                resolved: false,
            }));
        // The root's value: the mean of its most visited child (the first of equals).
        self.value_p0 = most_visited(&self.children).map(|c| c.value_p0);
    }
}

impl<G: Game> Searcher<G> for MctsSearcher<G> {
    fn new_game(&mut self, _keep_resolved: bool) {
        self.mcts.clear();
    }

    fn search(
        &mut self,
        position: &G,
        evaluator: &dyn Evaluator<G>,
        budget: &Budget,
        rng: &mut SearchRng,
    ) -> SearchStats {
        self.mcts.clear();
        let stats = self.mcts.search(position, &evaluator, budget, rng);
        self.copy_root();
        stats
    }

    fn root(&self, _position: &G) -> SearchRoot<'_> {
        SearchRoot {
            children: &self.children,
            value_p0: self.value_p0,
        }
    }

    fn decide(&self, _position: &G, rng: &mut SearchRng) -> Option<Action> {
        self.mcts.decide(rng)
    }

    fn searched_states(&self, _position: &G, out: &mut Vec<(G, f32)>) {
        self.mcts.tree_values(out);
    }

    /// The tree is kept while the root is the same position (`Mcts::search` continues it).
    fn search_further(
        &mut self,
        position: &G,
        evaluator: &dyn Evaluator<G>,
        budget: &Budget,
        rng: &mut SearchRng,
    ) -> SearchStats {
        let stats = self.mcts.search(position, &evaluator, budget, rng);
        self.copy_root();
        stats
    }
}

/// The most visited of `children` (the first of equals).
pub(super) fn most_visited(children: &[ChildEdge]) -> Option<&ChildEdge> {
    let most = children.iter().map(|c| c.visits).max()?;
    children.iter().find(|c| c.visits == most)
}

/// Iterative-deepening alpha-beta; its result is the best move and the root's value.
pub struct AlphaBetaSearcher<G: Game> {
    pub search: AlphaBeta<G>,
    result: Option<AlphaBetaResult>,
}

impl<G: Game> AlphaBetaSearcher<G> {
    pub fn new(search: AlphaBeta<G>) -> Self {
        AlphaBetaSearcher {
            search,
            result: None,
        }
    }
}

impl<G: Game> Searcher<G> for AlphaBetaSearcher<G> {
    fn new_game(&mut self, _keep_resolved: bool) {
        self.result = None;
    }

    fn search(
        &mut self,
        position: &G,
        evaluator: &dyn Evaluator<G>,
        budget: &Budget,
        rng: &mut SearchRng,
    ) -> SearchStats {
        let (result, stats) = self.search.search(position, &evaluator, budget, rng);
        self.result = Some(result);
        stats
    }

    fn root(&self, _position: &G) -> SearchRoot<'_> {
        SearchRoot {
            children: &[],
            value_p0: self
                .result
                .and_then(|r| r.best.is_some().then_some(r.value_p0)),
        }
    }

    /// The best move of the deepest finished iteration; a random move when not even depth 1
    /// finished within the budget.
    fn decide(&self, position: &G, rng: &mut SearchRng) -> Option<Action> {
        self.result
            .and_then(|r| r.best)
            .or_else(|| random_move(position, rng))
    }

    fn searched_states(&self, position: &G, out: &mut Vec<(G, f32)>) {
        let states = self.search.exact_states(position);
        out.extend(states.into_iter().map(|(p, value_p0, _)| (p, value_p0)));
    }
}

/// One ply (the best immediate value, ε random moves) or uniformly random moves: the move is
/// drawn when "searching", the decision returns it.
pub struct OnePlySearcher {
    /// `None`: uniformly random; `Some(ε)`: greedy, a random move with probability ε.
    pub greedy_epsilon: Option<f32>,
    pub terminal_eval: TerminalEval,
    chosen: Option<Action>,
}

impl OnePlySearcher {
    pub fn random() -> Self {
        OnePlySearcher {
            greedy_epsilon: None,
            terminal_eval: TerminalEval::Classic,
            chosen: None,
        }
    }

    pub fn greedy(epsilon: f32, terminal_eval: TerminalEval) -> Self {
        OnePlySearcher {
            greedy_epsilon: Some(epsilon),
            terminal_eval,
            chosen: None,
        }
    }
}

impl<G: Game> Searcher<G> for OnePlySearcher {
    fn new_game(&mut self, _keep_resolved: bool) {
        self.chosen = None;
    }

    fn search(
        &mut self,
        position: &G,
        evaluator: &dyn Evaluator<G>,
        _budget: &Budget,
        rng: &mut SearchRng,
    ) -> SearchStats {
        self.chosen = match self.greedy_epsilon {
            None => random_move(position, rng),
            Some(epsilon) => greedy_move(position, &evaluator, &self.terminal_eval, epsilon, rng),
        };
        SearchStats::default()
    }

    fn root(&self, _position: &G) -> SearchRoot<'_> {
        SearchRoot {
            children: &[],
            value_p0: None,
        }
    }

    fn decide(&self, _position: &G, _rng: &mut SearchRng) -> Option<Action> {
        self.chosen
    }
}
