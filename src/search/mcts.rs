//! Monte Carlo tree search (docs/algorithms.md §2.3; N. Marchant, *Playing Awale with MCTS*, 2021;
//! J. Domingue, *Hus* project report, McGill COMP 424, 2016; the Athénan paper, remark 3).
//!
//! Each simulation: **selection** from the root down the tree — UCT picks the child maximising
//! `W/N + c·sqrt(ln N_parent / N)` (unvisited children first, at random), where `W/N` is the mean
//! reward in [0, 1] for the player choosing at the parent; the Awale MCTS thesis' plain "MCTS"
//! picks children uniformly at random — then **expansion** of the reached leaf (all its children
//! are created at once, one of them is selected), **evaluation** of the new node — a uniformly
//! random playout to the end (classic), a heavy playout (moves drawn with weight `1 + points scored
//! by the move`, the Awale MCTS thesis), or the `Evaluator` without playout (remark 3) — and
//! **backpropagation** of the value along the path. The move played is the most visited child (UCT)
//! or the best mean (plain MCTS, the Awale MCTS thesis' `argmax Score`). The tree is
//! transposition-free; it can be kept between moves. Playouts (`Game::playout_outcome`) draw
//! from `Game::playout_actions`, the legal moves less those no playout should play (in Go,
//! filling one's own eye: with them a playout kills living groups at random and values life and
//! death at random); Go plays them on simple ko only, without the board history, and answers
//! ataris first.
//!
//! Value scales and defaults: with playouts, `W/N` is the mean reward in [0, 1] (a P0 win 1, a
//! draw ½) and `c = √2/2` (the Awale MCTS thesis found the plateau there); with the evaluator at
//! the leaves, `W/N` is the mean value itself, on the network's scale (the mover's view, not
//! clamped: a network trained with a linear heuristic keeps its range), and `c = 0.4`, the paper's
//! UCT constant for its comparisons (section 3.3; section 3.3 also reports c = √2 gave similar
//! results).

use rand::{Rng, RngExt};

use super::budget::Budget;
use super::evaluator::Evaluator;
use super::stats::SearchStats;
use super::terminal_eval::TerminalEval;
use crate::games::{Action, Game, Player};

mod exit;
mod rave;

/// How to choose a child inside the tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TreePolicy {
    /// UCB1 applied to trees with exploration constant `c`.
    Uct { c: f32 },
    /// Uniformly at random (the Awale MCTS thesis' plain MCTS).
    Random,
    /// ExIt's expert (paper §8.1, Algorithm 15; `mcts/exit.rs`): UCT on the playouts' rewards
    /// plus `w_a · π(a|s) / (n(s,a) + 1)` from the evaluator's policy plus `w_v · Q̂(s,a)`, the
    /// mean of the evaluator's values backed up through the child (0 turns the value off).
    Exit { c: f32, w_a: f32, w_v: f32 },
    /// UCT-RAVE (Gelly and Silver, 2007; `mcts/rave.rs`): the mean reward blended with the
    /// all-moves-as-first mean by `β = √(k / (3·N(s) + k))`, plus `c·√(ln N(s) / (n + 1))`.
    Rave { c: f32, k: f32 },
}

/// How to value a new leaf.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeafValue {
    RandomPlayout,
    HeavyPlayout,
    /// The `Evaluator`, no playout.
    Evaluator,
}

/// The move played after the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FinalMove {
    MostVisits,
    BestMean,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MctsOptions {
    pub tree_policy: TreePolicy,
    pub leaf: LeafValue,
    pub final_move: FinalMove,
    /// f_t of terminal states reached in the tree when the evaluator values the leaves (on the
    /// network's scale); with playouts, terminal states are worth the classic gain.
    pub terminal_eval: TerminalEval,
}

impl MctsOptions {
    /// UCT's default exploration constant with playouts, 1/√2 (Kocsis and Szepesvári's choice
    /// for rewards in [0, 1]).
    pub const DEFAULT_C: f32 = std::f32::consts::FRAC_1_SQRT_2;
    /// UCT's default exploration constant with the evaluator at the leaves: the paper's 0.4
    /// (section 3.3), on the evaluator's value scale.
    pub const DEFAULT_C_NETWORK: f32 = 0.4;
    /// UCT-RAVE's equivalence parameter `k`: MoGo's 1000 (Gelly and Silver, 2007).
    pub const DEFAULT_RAVE_K: f32 = 1000.0;

    /// UCT with random playouts, c = √2/2.
    pub fn uct() -> Self {
        MctsOptions {
            tree_policy: TreePolicy::Uct { c: Self::DEFAULT_C },
            leaf: LeafValue::RandomPlayout,
            final_move: FinalMove::MostVisits,
            terminal_eval: TerminalEval::Classic,
        }
    }

    /// The Awale MCTS thesis' plain MCTS: random tree policy, random playouts, best mean.
    pub fn plain() -> Self {
        MctsOptions {
            tree_policy: TreePolicy::Random,
            leaf: LeafValue::RandomPlayout,
            final_move: FinalMove::BestMean,
            terminal_eval: TerminalEval::Classic,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct MctsNode {
    /// Sum of the values backed up through this node, P0's view, each in [-1, 1].
    value_sum_p0: f64,
    visits: u32,
    first_child: u32,
    num_children: u16,
    expanded: bool,
    /// The action that led here from the parent.
    action: Action,
    /// RAVE only: the values of the simulations through the parent in which the parent's mover
    /// played this node's action first (at the parent or later), P0's view, and their count.
    amaf_value_sum_p0: f64,
    amaf_visits: u32,
}

impl MctsNode {
    fn new(action: Action) -> Self {
        MctsNode {
            value_sum_p0: 0.0,
            visits: 0,
            first_child: 0,
            num_children: 0,
            expanded: false,
            action,
            amaf_value_sum_p0: 0.0,
            amaf_visits: 0,
        }
    }
}

/// An MCTS searcher and its tree (rooted at the position of the last search).
pub struct Mcts<G: Game> {
    pub options: MctsOptions,
    nodes: Vec<MctsNode>,
    root: Option<G>,
    path: Vec<u32>,
    actions: Vec<Action>,
    weights: Vec<f32>,
    single: Vec<G>,
    /// Per node, beside `nodes` (ExIt only): the evaluator's prior for the move that led to it
    /// and the evaluator's values backed up through it.
    exit_nodes: Vec<exit::ExitNode>,
    /// Scratch: one position's policy logits.
    logits: Vec<f32>,
    /// Scratch: the moves of one simulation with their players, the tree's then the playout's.
    played: Vec<(Player, Action)>,
    /// Scratch (RAVE): per action, who played it first from the ply being scanned on.
    first_mover: Vec<Option<Player>>,
}

/// One child of the root after a search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootChild {
    pub action: Action,
    pub visits: u32,
    /// Mean value, P0's view, in [-1, 1].
    pub mean_value_p0: f32,
}

impl<G: Game> Mcts<G> {
    pub fn new(options: MctsOptions) -> Self {
        Mcts {
            options,
            nodes: Vec::new(),
            root: None,
            path: Vec::new(),
            actions: Vec::with_capacity(G::NUM_ACTIONS),
            weights: Vec::with_capacity(G::NUM_ACTIONS),
            single: Vec::with_capacity(1),
            exit_nodes: Vec::new(),
            logits: Vec::new(),
            played: Vec::new(),
            first_mover: Vec::new(),
        }
    }

    /// Forgets the tree.
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.exit_nodes.clear();
        self.root = None;
    }

    /// Number of nodes in the tree.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Keeps the subtree reached from the last searched root by `moves` (tree reuse): the next
    /// search from that position starts with its statistics. Anything else resets the tree.
    pub fn advance(&mut self, moves: &[Action]) {
        let Some(mut position) = self.root.clone() else {
            return;
        };
        if matches!(self.options.tree_policy, TreePolicy::Exit { .. }) {
            // ExIt's expert searches one position at a time, afresh.
            self.clear();
            return;
        }
        let mut node = 0u32;
        for &action in moves {
            let n = self.nodes[node as usize];
            let child = (n.first_child..n.first_child + n.num_children as u32)
                .find(|&c| self.nodes[c as usize].action == action);
            match child {
                Some(c) if n.expanded => node = c,
                _ => {
                    self.clear();
                    return;
                }
            }
            position.play(action);
        }
        // Copy the subtree of `node` into a fresh arena, breadth first.
        let old = std::mem::take(&mut self.nodes);
        let mut new = vec![old[node as usize]];
        let mut queue = vec![(node, 0u32)];
        let mut head = 0;
        while head < queue.len() {
            let (old_index, new_index) = queue[head];
            head += 1;
            let n = old[old_index as usize];
            if n.expanded {
                let first = new.len() as u32;
                new[new_index as usize].first_child = first;
                for c in 0..n.num_children as u32 {
                    new.push(old[(n.first_child + c) as usize]);
                    queue.push((n.first_child + c, first + c));
                }
            }
        }
        self.nodes = new;
        self.root = Some(position);
    }

    /// Runs simulations from `root` within the budget. Reuses the tree if `root` is the position
    /// it is rooted at (after `advance`), else starts a new one.
    pub fn search<E: Evaluator<G>, R: Rng + ?Sized>(
        &mut self,
        root: &G,
        evaluator: &E,
        budget: &Budget,
        rng: &mut R,
    ) -> SearchStats {
        let mut stats = SearchStats::default();
        if root.is_terminal() {
            return stats;
        }
        let same_root = self
            .root
            .as_ref()
            .is_some_and(|r| r.hash() == root.hash() && r.ply() == root.ply());
        if !same_root || self.nodes.is_empty() {
            self.clear();
            self.nodes.push(MctsNode::new(0));
            self.root = Some(root.clone());
        }
        let clock = budget.start();
        while !clock.exhausted(stats.iterations) {
            match self.options.tree_policy {
                TreePolicy::Exit { c, w_a, w_v } => {
                    let weights = exit::ExitWeights { c, w_a, w_v };
                    self.simulate_exit(root, evaluator, weights, rng, &mut stats);
                }
                _ => self.simulate(root, evaluator, rng, &mut stats),
            }
            stats.iterations += 1;
        }
        stats.seconds = clock.elapsed().as_secs_f64();
        stats
    }

    fn simulate<E: Evaluator<G>, R: Rng + ?Sized>(
        &mut self,
        root: &G,
        evaluator: &E,
        rng: &mut R,
        stats: &mut SearchStats,
    ) {
        let mut position = root.clone();
        self.path.clear();
        self.played.clear();
        let mut node = 0u32;
        self.path.push(node);
        // Selection and expansion.
        loop {
            if position.is_terminal() {
                break;
            }
            if !self.nodes[node as usize].expanded {
                self.expand(node, &position);
                let child = self.select(node, position.to_move(), rng);
                self.play_in_tree(&mut position, child);
                self.path.push(child);
                stats.expansions += 1;
                break;
            }
            let child = self.select(node, position.to_move(), rng);
            self.play_in_tree(&mut position, child);
            node = child;
            self.path.push(node);
            // A node never visited is a new leaf: its first value is its own (f(node), paper
            // remark 3), not a child's; it is expanded when a later simulation reaches it.
            if self.nodes[node as usize].visits == 0 {
                break;
            }
        }
        stats.max_depth = stats.max_depth.max(self.path.len() as u32 - 1);
        // Evaluation.
        let value_p0 = if let Some(outcome) = position.outcome() {
            stats.terminal_visits += 1;
            if self.options.leaf == LeafValue::Evaluator {
                self.options.terminal_eval.value_p0(&position)
            } else {
                outcome.value_p0()
            }
        } else {
            match self.options.leaf {
                LeafValue::RandomPlayout => position
                    .playout_outcome(rng, &mut self.actions, &mut self.played)
                    .value_p0(),
                LeafValue::HeavyPlayout => self.heavy_playout(&mut position, rng),
                LeafValue::Evaluator => {
                    self.single.clear();
                    self.single.push(position);
                    let mut value = [0.0f32];
                    evaluator.evaluate(&self.single, &mut value);
                    stats.evaluator_calls += 1;
                    stats.evaluated_positions += 1;
                    value[0]
                }
            }
        };
        // Backpropagation.
        for &n in &self.path {
            let node = &mut self.nodes[n as usize];
            node.visits += 1;
            node.value_sum_p0 += value_p0 as f64;
        }
        if matches!(self.options.tree_policy, TreePolicy::Rave { .. }) {
            self.back_up_amaf(value_p0);
        }
    }

    /// Plays `child`'s move at `position` (one step down the tree), recording it.
    fn play_in_tree(&mut self, position: &mut G, child: u32) {
        let action = self.nodes[child as usize].action;
        self.played.push((position.to_move(), action));
        position.play(action);
    }

    fn expand(&mut self, node: u32, position: &G) {
        position.legal_actions(&mut self.actions);
        let first = self.nodes.len() as u32;
        for &action in &self.actions {
            self.nodes.push(MctsNode::new(action));
        }
        let n = &mut self.nodes[node as usize];
        n.first_child = first;
        n.num_children = self.actions.len() as u16;
        n.expanded = true;
    }

    /// The child to follow from `node`, for the player to move there.
    fn select<R: Rng + ?Sized>(&self, node: u32, mover: Player, rng: &mut R) -> u32 {
        let n = self.nodes[node as usize];
        let children = n.first_child..n.first_child + n.num_children as u32;
        match self.options.tree_policy {
            TreePolicy::Random => n.first_child + rng.random_range(0..n.num_children as u32),
            TreePolicy::Exit { .. } => unreachable!("ExIt selects by select_exit"),
            TreePolicy::Rave { c, k } => self.select_rave(node, mover, c, k, rng),
            TreePolicy::Uct { c } => {
                let sign = mover.sign() as f64;
                let on_evaluator_scale = self.options.leaf == LeafValue::Evaluator;
                let log_parent = (n.visits.max(1) as f64).ln();
                let mut best = RandomArgmax::new(n.first_child, f64::NEG_INFINITY);
                for child in children {
                    let ch = self.nodes[child as usize];
                    let score = if ch.visits == 0 {
                        f64::INFINITY
                    } else {
                        let mean_p0 = ch.value_sum_p0 / ch.visits as f64;
                        let reward = if on_evaluator_scale {
                            sign * mean_p0
                        } else {
                            (sign * mean_p0 + 1.0) / 2.0
                        };
                        reward + c as f64 * (log_parent / ch.visits as f64).sqrt()
                    };
                    best.offer(child, score, rng);
                }
                best.child
            }
        }
    }

    /// A playout whose moves (`Game::playout_actions`) are drawn with weight `1 + points the move
    /// scores for the mover`.
    fn heavy_playout<R: Rng + ?Sized>(&mut self, position: &mut G, rng: &mut R) -> f32 {
        loop {
            position.playout_actions(&mut self.actions);
            if self.actions.is_empty() {
                return position
                    .outcome()
                    .expect("no legal action: game over")
                    .value_p0();
            }
            let sign = position.to_move().sign();
            let before = position.score_p0().unwrap_or(0) as f32;
            self.weights.clear();
            let mut total = 0.0;
            for &action in &self.actions {
                let mut child = position.clone();
                child.play(action);
                let gain = (sign * (child.score_p0().unwrap_or(0) as f32 - before)).max(0.0);
                total += 1.0 + gain;
                self.weights.push(total);
            }
            let draw = rng.random::<f32>() * total;
            let index = self
                .weights
                .iter()
                .position(|&w| draw < w)
                .unwrap_or(self.actions.len() - 1);
            self.played.push((position.to_move(), self.actions[index]));
            position.play(self.actions[index]);
        }
    }

    /// The states of the tree the search expanded, and the terminal states it reached, with
    /// their mean values (P0's view), the root first then depth first: MCTS's tree-learning
    /// pairs (paper sections 3.4 and 4.2). Non-terminal leaves are left out, as Algorithm 3's
    /// caption leaves them out of S: their only value is their own evaluation, and learning it
    /// back would overlearn the network's own output.
    pub fn tree_values(&self, out: &mut Vec<(G, f32)>) {
        let Some(root) = &self.root else {
            return;
        };
        if self.nodes.is_empty() {
            return;
        }
        let mut stack = vec![(0u32, root.clone())];
        while let Some((index, position)) = stack.pop() {
            let node = self.nodes[index as usize];
            if node.visits == 0 || !(node.expanded || position.is_terminal()) {
                continue;
            }
            out.push((
                position.clone(),
                (node.value_sum_p0 / node.visits as f64) as f32,
            ));
            if node.expanded {
                for child in (node.first_child..node.first_child + node.num_children as u32).rev() {
                    let mut next = position.clone();
                    next.play(self.nodes[child as usize].action);
                    stack.push((child, next));
                }
            }
        }
    }

    /// The root's children after a search.
    pub fn root_children(&self) -> Vec<RootChild> {
        let Some(root) = self.nodes.first() else {
            return Vec::new();
        };
        (root.first_child..root.first_child + root.num_children as u32)
            .map(|c| {
                let n = self.nodes[c as usize];
                RootChild {
                    action: n.action,
                    visits: n.visits,
                    mean_value_p0: if n.visits == 0 {
                        0.0
                    } else {
                        (n.value_sum_p0 / n.visits as f64) as f32
                    },
                }
            })
            .collect()
    }

    /// The move to play at the searched root (`None` before any search).
    pub fn decide<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<Action> {
        let root = self.root.as_ref()?;
        let sign = root.to_move().sign();
        let children = self.root_children();
        let key = |c: &RootChild| match self.options.final_move {
            FinalMove::MostVisits => (c.visits as f32, sign * c.mean_value_p0),
            FinalMove::BestMean => (
                if c.visits == 0 {
                    f32::NEG_INFINITY
                } else {
                    sign * c.mean_value_p0
                },
                c.visits as f32,
            ),
        };
        let best_key =
            children
                .iter()
                .map(key)
                .fold(None, |acc: Option<(f32, f32)>, k| match acc {
                    Some(a) if a >= k => Some(a),
                    _ => Some(k),
                })?;
        let mut tied: Vec<&RootChild> = children.iter().filter(|c| key(c) == best_key).collect();
        if tied.is_empty() {
            // NaN means (a broken evaluator): no child is better than another.
            tied = children.iter().collect();
        }
        Some(tied[rng.random_range(0..tied.len())].action)
    }
}

/// A P0 value in [-1, 1] as the reward in [0, 1] of `mover`.
fn reward(value_p0: f64, mover: Player) -> f64 {
    (mover.sign() as f64 * value_p0 + 1.0) / 2.0
}

/// The best-scoring child seen so far, equal scores broken uniformly at random (reservoir
/// sampling: the k-th equal replaces the kept one with probability 1/k).
pub(super) struct RandomArgmax<S> {
    pub child: u32,
    score: S,
    ties: u32,
}

impl<S: PartialOrd + Copy> RandomArgmax<S> {
    /// Nothing offered yet: `first` is kept if nothing scores above `lowest`.
    pub fn new(first: u32, lowest: S) -> Self {
        RandomArgmax {
            child: first,
            score: lowest,
            ties: 0,
        }
    }

    pub fn offer<R: Rng + ?Sized>(&mut self, child: u32, score: S, rng: &mut R) {
        if score > self.score {
            (self.child, self.score, self.ties) = (child, score, 1);
        } else if score == self.score {
            self.ties += 1;
            if rng.random_range(0..self.ties) == 0 {
                self.child = child;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::ConnectFour;
    use crate::search::ConstantEvaluator;
    use rand::SeedableRng;
    use rand::rngs::Xoshiro256PlusPlus;

    /// A tree of a root and children with the given `(visits, value sum P0)`.
    fn tree(children: &[(u32, f64)]) -> Mcts<ConnectFour> {
        let mut mcts = Mcts::new(MctsOptions::uct());
        let mut root = MctsNode::new(0);
        root.expanded = true;
        root.first_child = 1;
        root.num_children = children.len() as u16;
        root.visits = children.iter().map(|c| c.0).sum::<u32>() + 1;
        mcts.nodes.push(root);
        for (k, &(visits, value_sum_p0)) in children.iter().enumerate() {
            let mut child = MctsNode::new(k as Action);
            child.visits = visits;
            child.value_sum_p0 = value_sum_p0;
            mcts.nodes.push(child);
        }
        mcts
    }

    /// Every node of the tree with its index and position, depth first from `root`.
    fn nodes_with_positions(
        mcts: &Mcts<ConnectFour>,
        root: ConnectFour,
    ) -> Vec<(u32, MctsNode, ConnectFour)> {
        let (mut out, mut stack) = (Vec::new(), vec![(0u32, root)]);
        while let Some((index, position)) = stack.pop() {
            let node = mcts.nodes[index as usize];
            for child in node.first_child..node.first_child + node.num_children as u32 {
                let mut next = position;
                next.play(mcts.nodes[child as usize].action);
                stack.push((child, next));
            }
            out.push((index, node, position));
        }
        out
    }

    /// Every node visited once holds f(node) itself: a simulation that reaches a node never
    /// visited evaluates that node, not one of its children (remark 3). Checked on every such
    /// node of 20 searches of 40 simulations on Connect Four (before the fix, the root children
    /// first reached through selection held a grandchild's value).
    #[test]
    fn a_new_nodes_first_value_is_its_own_evaluation() {
        let evaluator = crate::search::RandomEvaluator::new(11);
        let mut options = MctsOptions::uct();
        options.leaf = LeafValue::Evaluator;
        options.tree_policy = TreePolicy::Uct {
            c: MctsOptions::DEFAULT_C_NETWORK,
        };
        let mut checked = 0;
        for seed in 0..20 {
            let mut mcts = Mcts::new(options);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let root = ConnectFour::new(&Default::default());
            mcts.search(&root, &evaluator, &Budget::iterations(40), &mut rng);
            for (index, node, position) in nodes_with_positions(&mcts, root) {
                if node.visits == 1 && index != 0 && !position.is_terminal() {
                    let own = evaluator.value_of_hash(position.hash());
                    assert_eq!(
                        node.value_sum_p0 as f32, own,
                        "seed {seed}: valued by another"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked >= 100, "only {checked} leaves checked");
    }

    #[test]
    fn uct_picks_the_argmax_of_its_formula_for_either_player() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let c = MctsOptions::DEFAULT_C as f64;
        for case in 0..500 {
            let count = rng.random_range(2..8);
            let children: Vec<(u32, f64)> = (0..count)
                .map(|_| {
                    let visits = rng.random_range(1..200u32);
                    let mean = rng.random_range(-1.0..1.0f64);
                    (visits, mean * visits as f64)
                })
                .collect();
            let mcts = tree(&children);
            let parent_visits = mcts.nodes[0].visits as f64;
            for mover in [Player::P0, Player::P1] {
                let sign = mover.sign() as f64;
                // UCB1: the mover's mean reward in [0, 1] + c·sqrt(ln N_parent / N_child).
                let score = |&(visits, sum): &(u32, f64)| {
                    let reward = (sign * sum / visits as f64 + 1.0) / 2.0;
                    reward + c * (parent_visits.ln() / visits as f64).sqrt()
                };
                let expected = (0..count)
                    .max_by(|&a, &b| score(&children[a]).total_cmp(&score(&children[b])))
                    .unwrap();
                let chosen = mcts.select(0, mover, &mut rng) as usize - 1;
                assert_eq!(chosen, expected, "case {case}, {mover}: {children:?}");
            }
        }
        // Unvisited children come first.
        let mcts = tree(&[(50, 45.0), (0, 0.0), (3, -3.0)]);
        assert_eq!(mcts.select(0, Player::P0, &mut rng), 2);
        // With the evaluator at the leaves, the mean value on its own scale and the paper's
        // c = 0.4: (visits 10, mean 0.5) beats (2, 0.1) for P0 — on the [0, 1] scale of playout
        // rewards the value gap would be halved and exploration would pick the other.
        let mut mcts = tree(&[(10, 5.0), (2, 0.2)]);
        mcts.options.leaf = LeafValue::Evaluator;
        mcts.options.tree_policy = TreePolicy::Uct {
            c: MctsOptions::DEFAULT_C_NETWORK,
        };
        assert_eq!(mcts.select(0, Player::P0, &mut rng), 1);
        assert_eq!(mcts.select(0, Player::P1, &mut rng), 2);
    }

    #[test]
    fn tree_values_are_the_expanded_and_terminal_states_with_their_means() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let root = ConnectFour::new(&Default::default());
        let mut mcts = Mcts::new(MctsOptions::uct());
        mcts.search(
            &root,
            &ConstantEvaluator(0.0),
            &Budget::iterations(400),
            &mut rng,
        );
        let mut pairs = Vec::new();
        mcts.tree_values(&mut pairs);
        // The expanded or terminal states, walked here; non-terminal leaves are not learned.
        let (mut learnable, mut leaves) = (Vec::new(), 0);
        for (_, node, position) in nodes_with_positions(&mcts, root) {
            if node.visits > 0 && (node.expanded || position.is_terminal()) {
                learnable.push(position.hash());
            } else if node.visits > 0 {
                leaves += 1;
            }
        }
        assert!(leaves > 50, "{leaves} leaves");
        let learned: Vec<u64> = pairs.iter().map(|(p, _)| p.hash()).collect();
        assert_eq!(learned.len(), learnable.len());
        assert!(learnable.iter().all(|h| learned.contains(h)));
        assert_eq!(pairs[0].0.hash(), root.hash());
        // The root's expanded children: their positions and means as `root_children` reports.
        for (k, child) in mcts.root_children().iter().enumerate() {
            let mut position = root;
            position.play(child.action);
            let learned = pairs.iter().find(|(p, _)| p.hash() == position.hash());
            let node = mcts.nodes[mcts.nodes[0].first_child as usize + k];
            assert_eq!(learned.is_some(), node.expanded || position.is_terminal());
            if let Some((_, mean)) = learned {
                assert_eq!(*mean, child.mean_value_p0);
            }
        }
        assert!(pairs.iter().all(|(_, v)| (-1.0..=1.0).contains(v)));
    }

    #[test]
    fn advancing_keeps_the_subtree_statistics_and_the_next_search_adds_its_budget() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let root = ConnectFour::new(&Default::default());
        let mut mcts = Mcts::new(MctsOptions::uct());
        mcts.search(
            &root,
            &ConstantEvaluator(0.0),
            &Budget::iterations(3000),
            &mut rng,
        );
        // The most visited child's own children, as recorded before advancing.
        let first = mcts.nodes[0].first_child;
        let chosen = (first..first + mcts.nodes[0].num_children as u32)
            .max_by_key(|&c| mcts.nodes[c as usize].visits)
            .unwrap();
        let node = mcts.nodes[chosen as usize];
        let grandchildren: Vec<RootChild> = (node.first_child
            ..node.first_child + node.num_children as u32)
            .map(|g| {
                let n = mcts.nodes[g as usize];
                RootChild {
                    action: n.action,
                    visits: n.visits,
                    mean_value_p0: (n.value_sum_p0 / n.visits.max(1) as f64) as f32
                        * (n.visits > 0) as u8 as f32,
                }
            })
            .collect();
        assert!(grandchildren.iter().map(|g| g.visits).sum::<u32>() > 100);
        mcts.advance(&[node.action]);
        assert_eq!(mcts.root_children(), grandchildren);
        assert_eq!(mcts.nodes[0].visits, node.visits);
        let mut after = root;
        after.play(node.action);
        mcts.search(
            &after,
            &ConstantEvaluator(0.0),
            &Budget::iterations(250),
            &mut rng,
        );
        assert_eq!(
            mcts.nodes[0].visits,
            node.visits + 250,
            "the tree was reused"
        );
        // A move into a part of the tree never expanded clears it.
        let deep: Vec<Action> = vec![0; 12];
        mcts.advance(&deep);
        assert!(mcts.is_empty());
        assert!(mcts.root_children().is_empty());
    }
}
