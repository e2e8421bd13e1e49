//! Iterative-deepening alpha-beta (negamax form) with a transposition table and move ordering
//! (docs/algorithms.md §2.3; the LINFO1361 Shobu report).
//!
//! Values are P0's view outside, the mover's view inside negamax. Leaves at depth 0 are valued by
//! the `Evaluator` (all children of a node at the frontier in one call), terminal states by f_t.
//! Move ordering: the transposition table's best move first, then the other children by their
//! evaluator value for the mover (the children's values are computed once per node and kept).
//! Each deepening iteration that completes within the budget replaces the result; an iteration
//! cut off by the budget is discarded. Subtrees that reach terminal states only are marked exact
//! in the table and reused at any depth; an exact root ends the deepening. With a node budget the
//! search is deterministic.

use rand::Rng;

use super::budget::{Budget, BudgetClock};
use super::evaluator::Evaluator;
use super::stats::SearchStats;
use super::table::{ZobristMap, key_of};
use super::terminal_eval::TerminalEval;
use crate::games::{Action, Game, GameExt};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AlphaBetaOptions {
    /// Deepest iteration (plies); `None`: deepen until the budget runs out or the game tree ends.
    pub max_depth: Option<u32>,
    pub terminal_eval: TerminalEval,
}

impl Default for AlphaBetaOptions {
    fn default() -> Self {
        AlphaBetaOptions {
            max_depth: None,
            terminal_eval: TerminalEval::Classic,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Debug)]
struct TtEntry {
    depth: u32,
    value: f32,
    bound: Bound,
    best: Option<Action>,
    /// The subtree searched reached terminal states only: the bound holds at any depth.
    exact: bool,
}

/// Result of an alpha-beta search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AlphaBetaResult {
    pub best: Option<Action>,
    /// Minimax value of the root at `depth`, P0's view.
    pub value_p0: f32,
    /// Depth of the last completed iteration.
    pub depth: u32,
    /// Whether the last completed iteration reached only terminal states (exact game value).
    pub exact: bool,
}

struct Aborted;

pub struct AlphaBeta<G: Game> {
    pub options: AlphaBetaOptions,
    tt: ZobristMap<TtEntry>,
    nodes: u64,
    /// The deepest iteration of the current search that finished (0 before the first).
    completed_depth: u32,
    stats: SearchStats,
    _game: std::marker::PhantomData<G>,
}

impl<G: Game> AlphaBeta<G> {
    pub fn new(options: AlphaBetaOptions) -> Self {
        AlphaBeta {
            options,
            tt: ZobristMap::default(),
            nodes: 0,
            completed_depth: 0,
            stats: SearchStats::default(),
            _game: std::marker::PhantomData,
        }
    }

    /// Searches `root` by iterative deepening within `budget` (iterations = nodes visited).
    pub fn search<E: Evaluator<G>, R: Rng + ?Sized>(
        &mut self,
        root: &G,
        evaluator: &E,
        budget: &Budget,
        _rng: &mut R,
    ) -> (AlphaBetaResult, SearchStats) {
        self.tt.clear();
        self.nodes = 0;
        self.completed_depth = 0;
        self.stats = SearchStats::default();
        let clock = budget.start();
        let mut result = AlphaBetaResult {
            best: None,
            value_p0: 0.0,
            depth: 0,
            exact: false,
        };
        if root.is_terminal() {
            result.value_p0 = self.options.terminal_eval.value_p0(root);
            result.exact = true;
            return (result, self.stats);
        }
        let max_depth = self
            .options
            .max_depth
            .unwrap_or(root.max_game_length() as u32)
            .max(1);
        for depth in 1..=max_depth {
            match self.negamax(
                root,
                depth,
                f32::NEG_INFINITY,
                f32::INFINITY,
                evaluator,
                &clock,
            ) {
                Ok((value_for_mover, exact)) => {
                    let best = self.tt.get(&key_of(root)).and_then(|e| e.best);
                    result = AlphaBetaResult {
                        best,
                        value_p0: value_for_mover * root.to_move().sign(),
                        depth,
                        exact,
                    };
                    self.stats.max_depth = depth;
                    self.completed_depth = depth;
                    if result.exact {
                        break;
                    }
                }
                Err(Aborted) => break,
            }
            if clock.exhausted(self.nodes) {
                break;
            }
        }
        self.stats.iterations = self.nodes;
        self.stats.seconds = clock.elapsed().as_secs_f64();
        (result, self.stats)
    }

    /// The states of the last search's tree whose value is exact at the depth searched below
    /// them (not a bound), as `(position, minimax value P0's view, depth)`: alpha-beta's
    /// tree-learning pairs (paper sections 3.4 and 4.2), and the terminal states the search
    /// reached below them (every child of an exact state was searched), valued by the terminal
    /// evaluation at depth 0 — Algorithm 3's S holds the terminal states. Walks the
    /// transposition table from `root` (the position last searched), the root first.
    pub fn exact_states(&self, root: &G) -> Vec<(G, f32, u32)> {
        let mut out = Vec::new();
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![root.clone()];
        let mut actions = Vec::with_capacity(G::NUM_ACTIONS);
        while let Some(position) = stack.pop() {
            let key = key_of(&position);
            if !seen.insert(key) {
                continue;
            }
            let Some(entry) = self.tt.get(&key) else {
                continue;
            };
            let exact = entry.bound == Bound::Exact;
            if exact {
                out.push((
                    position.clone(),
                    entry.value * position.to_move().sign(),
                    entry.depth,
                ));
            }
            position.legal_actions(&mut actions);
            for &action in actions.iter().rev() {
                let mut child = position.clone();
                child.play(action);
                if !child.is_terminal() {
                    stack.push(child);
                } else if exact && entry.depth > 0 && seen.insert(key_of(&child)) {
                    let value_p0 = self.options.terminal_eval.value_p0(&child);
                    out.push((child, value_p0, 0));
                }
            }
        }
        out
    }

    fn negamax<E: Evaluator<G>>(
        &mut self,
        position: &G,
        depth: u32,
        mut alpha: f32,
        beta: f32,
        evaluator: &E,
        clock: &BudgetClock,
    ) -> Result<(f32, bool), Aborted> {
        self.nodes += 1;
        // The depth-1 iteration always finishes: it gives the move when the budget is tiny.
        if self.nodes.is_multiple_of(256) && self.completed_depth > 0 && clock.exhausted(self.nodes)
        {
            return Err(Aborted);
        }
        let sign = position.to_move().sign();
        if position.is_terminal() {
            self.stats.terminal_visits += 1;
            return Ok((sign * self.options.terminal_eval.value_p0(position), true));
        }
        let key = key_of(position);
        let tt_entry = self.tt.get(&key).copied();
        if let Some(cut) = tt_entry.and_then(|entry| entry.cutoff(depth, alpha, beta)) {
            return Ok(cut);
        }
        let (actions, children, values_p0, order) =
            self.ordered_children(position, tt_entry.and_then(|e| e.best), evaluator);
        let original_alpha = alpha;
        let mut best_value = f32::NEG_INFINITY;
        let mut best_action = None;
        let mut exact = true;
        for &i in &order {
            let child = &children[i];
            let value = if child.is_terminal() {
                self.nodes += 1;
                self.stats.terminal_visits += 1;
                sign * values_p0[i]
            } else if depth == 1 {
                self.nodes += 1;
                exact = false;
                sign * values_p0[i]
            } else {
                // Negamax flips the view only when the side to move changes: in games where a
                // player moves twice in a row, the child's mover is still this one.
                let same_mover = child.to_move() == position.to_move();
                let (child_alpha, child_beta) = if same_mover {
                    (alpha, beta)
                } else {
                    (-beta, -alpha)
                };
                let (child_value, child_exact) =
                    self.negamax(child, depth - 1, child_alpha, child_beta, evaluator, clock)?;
                exact &= child_exact;
                if same_mover {
                    child_value
                } else {
                    -child_value
                }
            };
            if value > best_value {
                best_value = value;
                best_action = Some(actions[i]);
            }
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        let bound = if best_value <= original_alpha {
            Bound::Upper
        } else if best_value >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let entry = TtEntry {
            depth,
            value: best_value,
            bound,
            best: best_action,
            exact,
        };
        self.tt.insert(key, entry);
        Ok((best_value, exact))
    }

    /// The children of `position` with their values (P0's view: the evaluator's, f_t for
    /// terminal ones, all open children in one call), and the order to search them: the
    /// transposition table's best move first, then the best for the mover.
    #[allow(clippy::type_complexity)]
    fn ordered_children<E: Evaluator<G>>(
        &mut self,
        position: &G,
        tt_best: Option<Action>,
        evaluator: &E,
    ) -> (Vec<Action>, Vec<G>, Vec<f32>, Vec<usize>) {
        let sign = position.to_move().sign();
        let (actions, children) = position.children();
        let mut values_p0 = vec![0.0f32; children.len()];
        let open: Vec<usize> = (0..children.len())
            .filter(|&i| !children[i].is_terminal())
            .collect();
        if !open.is_empty() {
            let batch: Vec<G> = open.iter().map(|&i| children[i].clone()).collect();
            let mut values = vec![0.0f32; batch.len()];
            evaluator.evaluate(&batch, &mut values);
            self.stats.evaluator_calls += 1;
            self.stats.evaluated_positions += batch.len() as u64;
            for (&i, v) in open.iter().zip(values) {
                values_p0[i] = v;
            }
        }
        for (i, child) in children.iter().enumerate() {
            if child.is_terminal() {
                values_p0[i] = self.options.terminal_eval.value_p0(child);
            }
        }
        let mut order: Vec<usize> = (0..children.len()).collect();
        order.sort_by(|&a, &b| (sign * values_p0[b]).total_cmp(&(sign * values_p0[a])));
        if let Some(best) = tt_best
            && let Some(pos) = order.iter().position(|&i| actions[i] == best)
        {
            let i = order.remove(pos);
            order.insert(0, i);
        }
        (actions, children, values_p0, order)
    }
}

impl TtEntry {
    /// The value (mover's view) and exactness this entry settles at `depth` within the window
    /// (`alpha`, `beta`), if it does.
    fn cutoff(&self, depth: u32, alpha: f32, beta: f32) -> Option<(f32, bool)> {
        if self.depth < depth && !self.exact {
            return None;
        }
        match self.bound {
            Bound::Exact => Some((self.value, self.exact)),
            Bound::Lower if self.value >= beta => Some((self.value, self.exact)),
            Bound::Upper if self.value <= alpha => Some((self.value, self.exact)),
            _ => None,
        }
    }
}
