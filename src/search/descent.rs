//! Completed Descent (paper Algorithm 10) and UBFM / UBFM_s (Algorithms 1, 12, 13),
//! docs/algorithms.md §2.1-2.2.
//!
//! Both grow the table T of `table.rs` by best-first minimax, values from P0's point of view:
//! ```text
//! iteration(s):
//!   if terminal(s): add s to S; (r, c, v)(s) = (1, b_t(s), f_t(s)); return
//!   if s not in S: expand s — every child a(s) gets (r, c, v) = iteration(a(s)) if terminal,
//!                  else v = f_θ(a(s)), c = 0, r = 0 (all non-terminal children in ONE evaluator
//!                  call: child batching); back up (c, v) of the best child and r
//!                  [UBFM: return here]
//!   if r(s) = 0: a = best_dual(unresolved children); n(s, a) += 1; (r, c, v)(s, a) =
//!                iteration(a(s)); back up
//! search(s): while budget left and r(s) = 0: iteration(s)
//! ```
//! Descent differs from UBFM only in that an iteration does not stop after expanding a leaf: it
//! keeps following the best child down to a terminal state. Comparisons are lexicographic on
//! `(c, v)` (a proven win beats any heuristic value), `r(s) = 1` when `|c(s)| = 1` or every
//! child is resolved, and a resolved root stops the search. Plain (uncompleted) Descent ignores
//! `c` and `r` and runs until the budget is spent.
//!
//! Each iteration plays real moves on a real position, so it ends within the game's maximum
//! length even where positions recur (an Awale position can repeat under
//! `repetition=false`; transpositions merge such states in the table but cannot loop the search).

use rand::Rng;

use super::budget::Budget;
use super::decision::{self, Decision};
use super::evaluator::Evaluator;
use super::stats::SearchStats;
use super::table::{ChildEdge, Table, Triple, key_of};
use super::terminal_eval::TerminalEval;
use crate::games::{Action, Game, Player};

/// Which best-first minimax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// An iteration follows the best child down to a terminal state (training).
    Descent,
    /// An iteration stops after expanding one leaf (playing).
    Ubfm,
}

/// Options of a Descent / UBFM search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TreeSearchOptions {
    pub variant: Variant,
    /// Completion and resolution stop (section 5); off = the plain algorithms 1 and 9.
    pub completed: bool,
    /// f_t, the value of terminal states.
    pub terminal_eval: TerminalEval,
    /// Add terminal states to S (needed for tree learning; not when only playing).
    pub record_terminals: bool,
}

impl TreeSearchOptions {
    /// Completed Descent with the classic gain, as used for training.
    pub fn descent() -> Self {
        TreeSearchOptions {
            variant: Variant::Descent,
            completed: true,
            terminal_eval: TerminalEval::Classic,
            record_terminals: true,
        }
    }

    /// Completed UBFM (UBFM_s when its decision is `Decision::Safest`), for playing.
    pub fn ubfm() -> Self {
        TreeSearchOptions {
            variant: Variant::Ubfm,
            completed: true,
            terminal_eval: TerminalEval::Classic,
            record_terminals: false,
        }
    }
}

/// A Descent / UBFM searcher: scratch buffers and options; the table is passed in so that it can
/// outlive the searcher (kept across the moves of a game).
pub struct TreeSearch<G: Game> {
    pub options: TreeSearchOptions,
    actions: Vec<Action>,
    batch: Vec<G>,
    batch_edges: Vec<usize>,
    values: Vec<f32>,
    stats: SearchStats,
}

impl<G: Game> TreeSearch<G> {
    pub fn new(options: TreeSearchOptions) -> Self {
        TreeSearch {
            options,
            actions: Vec::with_capacity(G::NUM_ACTIONS),
            batch: Vec::with_capacity(G::NUM_ACTIONS),
            batch_edges: Vec::with_capacity(G::NUM_ACTIONS),
            values: Vec::with_capacity(G::NUM_ACTIONS),
            stats: SearchStats::default(),
        }
    }

    /// Runs iterations from `root` until the budget is spent or the root is resolved (completed
    /// searches). Returns what this call did.
    pub fn search<E: Evaluator<G>, R: Rng + ?Sized>(
        &mut self,
        table: &mut Table<G>,
        root: &G,
        evaluator: &E,
        budget: &Budget,
        rng: &mut R,
    ) -> SearchStats {
        self.stats = SearchStats::default();
        if root.is_terminal() {
            return self.stats;
        }
        let clock = budget.start();
        let root_key = key_of(root);
        while !clock.exhausted(self.stats.iterations) {
            if self.options.completed && table.get(root_key).is_some_and(|n| n.resolved) {
                break;
            }
            let mut position = root.clone();
            self.iteration(table, &mut position, 0, evaluator, rng);
            self.stats.iterations += 1;
        }
        self.stats.seconds = clock.elapsed().as_secs_f64();
        self.stats
    }

    /// The final decision at `root` after a search: the action, or `None` if the root has not
    /// been expanded.
    pub fn decide<R: Rng + ?Sized>(
        &self,
        table: &Table<G>,
        root: &G,
        decision: Decision,
        rng: &mut R,
    ) -> Option<Action> {
        let children = table.children_of(root)?;
        decision::decide(
            children,
            root.to_move(),
            decision,
            self.options.completed,
            rng,
        )
        .map(|i| children[i].action)
    }

    fn terminal(&mut self, table: &mut Table<G>, position: &G) -> Triple {
        self.stats.terminal_visits += 1;
        let outcome = position.outcome().expect("terminal position");
        let completion = if self.options.completed {
            outcome.value_p0() as i8
        } else {
            0
        };
        let value_p0 = self.options.terminal_eval.value_p0(position);
        if self.options.record_terminals {
            let path_key = self.options.terminal_eval.path_key(position);
            table.insert_terminal(position, path_key, completion, value_p0)
        } else {
            Triple {
                resolved: self.options.completed,
                completion,
                value_p0,
            }
        }
    }

    /// Expands the non-terminal `position`: creates its edges, evaluates its non-terminal
    /// children in one evaluator call, and backs up.
    fn expand<E: Evaluator<G>, R: Rng + ?Sized>(
        &mut self,
        table: &mut Table<G>,
        position: &G,
        evaluator: &E,
        rng: &mut R,
    ) {
        self.stats.expansions += 1;
        position.legal_actions(&mut self.actions);
        self.batch.clear();
        self.batch_edges.clear();
        let begin = table.begin_expansion();
        for i in 0..self.actions.len() {
            let action = self.actions[i];
            let mut child = position.clone();
            child.play(action);
            if child.is_terminal() {
                let triple = self.terminal(table, &child);
                table.push_edge(ChildEdge::new(action, triple));
            } else {
                table.push_edge(ChildEdge::new(
                    action,
                    Triple {
                        resolved: false,
                        completion: 0,
                        value_p0: 0.0,
                    },
                ));
                self.batch_edges.push(i);
                self.batch.push(child);
            }
        }
        if !self.batch.is_empty() {
            self.values.clear();
            self.values.resize(self.batch.len(), 0.0);
            evaluator.evaluate(&self.batch, &mut self.values);
            self.stats.evaluator_calls += 1;
            self.stats.evaluated_positions += self.batch.len() as u64;
            let edges = table.pending_edges_mut(begin);
            for (&edge, &value) in self.batch_edges.iter().zip(&self.values) {
                edges[edge].value_p0 = value;
            }
        }
        let triple = backed_up(
            table.pending_edges_mut(begin),
            position.to_move(),
            self.options.completed,
            rng,
        );
        table.finish_expansion(position, begin, triple);
    }

    /// One iteration from `position` (played along in place); returns the state's new triple.
    fn iteration<E: Evaluator<G>, R: Rng + ?Sized>(
        &mut self,
        table: &mut Table<G>,
        position: &mut G,
        depth: u32,
        evaluator: &E,
        rng: &mut R,
    ) -> Triple {
        self.stats.max_depth = self.stats.max_depth.max(depth);
        if position.is_terminal() {
            return self.terminal(table, position);
        }
        let key = key_of(position);
        let newly_expanded = !table.contains(key);
        if newly_expanded {
            self.expand(table, position, evaluator, rng);
        }
        let (node, children) = table.node_and_children_mut(key).expect("expanded above");
        if (self.options.completed && node.resolved)
            || (newly_expanded && self.options.variant == Variant::Ubfm)
        {
            return node.triple();
        }
        let mover = position.to_move();
        let Some(chosen) = decision::best_dual(children, mover, self.options.completed, rng) else {
            // Every child resolved but the node not marked (cannot happen once backed up).
            return node.triple();
        };
        children[chosen].visits += 1;
        let action = children[chosen].action;
        position.play(action);
        let child = self.iteration(table, position, depth + 1, evaluator, rng);
        let (node, children) = table
            .node_and_children_mut(key)
            .expect("still in the table");
        children[chosen].set(child);
        let triple = backed_up(children, mover, self.options.completed, rng);
        node.value_p0 = triple.value_p0;
        node.completion = triple.completion;
        node.resolved = triple.resolved;
        triple
    }
}

/// The backup of a state from its children: `(c, v)` of the completed best child and
/// `backup_resolution` (1 if `|c| = 1`, else the minimum of the children's `r`).
fn backed_up<R: Rng + ?Sized>(
    children: &[ChildEdge],
    mover: Player,
    completed: bool,
    rng: &mut R,
) -> Triple {
    let best =
        decision::best(children, mover, completed, rng).expect("a non-terminal state has children");
    let completion = if completed {
        children[best].completion
    } else {
        0
    };
    let resolved = completed && (completion != 0 || children.iter().all(|c| c.resolved));
    Triple {
        resolved,
        completion,
        value_p0: children[best].value_p0,
    }
}
