//! Gumbel search (Danihelka, Guez, Schrittwieser and Silver, "Policy improvement by planning with
//! Gumbel", ICLR 2022; DeepMind's `mctx` is the reference implementation; docs/algorithms.md):
//! a policy-value network's search that improves its policy with few simulations a move.
//!
//! - At the root, Gumbel-Top-k: g(a) ~ Gumbel(0, 1) for each legal action (0 without noise), and
//!   the m actions of largest g(a) + ℓ(a) (ℓ the policy logits) are the ones searched.
//! - Sequential Halving spends the n simulations: each phase gives every action still
//!   considered the same visits, then keeps the better half by g + ℓ + σ(q̂) (`visit_schedule`).
//! - σ(q̂) = (c_visit + max_b N(b)) · c_scale · q̂, q̂ the completed Q-values (an unvisited
//!   action gets the mixed value `mixed_value`) rescaled to [0, 1] by their min and max.
//! - Below the root, deterministic: argmax_a π'(a) − N(a) / (1 + Σ_b N(b)), π' the improved
//!   policy softmax(ℓ + σ(q̂)) at that node (`improved_policy`).
//! - The move: among the most visited root actions, argmax g + ℓ + σ(q̂); the policy target is
//!   the root's π'.
//!
//! Values are P0's view in the tree, as everywhere; q is the mover's at each node.

use rand::{Rng, RngExt};

use super::budget::Budget;
use super::evaluator::Evaluator;
use super::searcher::{SearchRng, SearchRoot, Searcher};
use super::stats::SearchStats;
use super::table::ChildEdge;
use super::terminal_eval::TerminalEval;
use crate::games::{Action, Game};

/// The search's settings (`mctx`'s defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GumbelOptions {
    /// m: the root actions considered at most.
    pub considered: u32,
    pub c_visit: f32,
    pub c_scale: f32,
    /// Gumbel noise at the root (self-play); without it g = 0 and the search is deterministic.
    pub noise: bool,
    pub terminal_eval: TerminalEval,
}

impl Default for GumbelOptions {
    fn default() -> Self {
        GumbelOptions {
            considered: 16,
            c_visit: 50.0,
            c_scale: 0.1,
            noise: false,
            terminal_eval: TerminalEval::Classic,
        }
    }
}

/// The visit count each of `n` simulations targets when `m` actions are considered: `mctx`'s
/// `get_sequence_of_considered_visits`. With L = ⌈log2 m⌉ and k actions left, a phase adds
/// max(1, ⌊n / (L·k)⌋) visits to each of them, then k ← max(2, ⌊k / 2⌋).
pub fn visit_schedule(m: usize, n: usize) -> Vec<u32> {
    if m <= 1 {
        return (0..n as u32).collect();
    }
    let log2m = (m as f64).log2().ceil() as usize;
    let mut sequence = Vec::with_capacity(n + m);
    let mut visits = vec![0u32; m];
    let mut considered = m;
    while sequence.len() < n {
        let extra = (n / (log2m * considered)).max(1);
        for _ in 0..extra {
            sequence.extend_from_slice(&visits[..considered]);
            visits[..considered].iter_mut().for_each(|v| *v += 1);
        }
        considered = (considered / 2).max(2);
    }
    sequence.truncate(n);
    sequence
}

/// The mixed value of a node: its network value `raw` (the mover's) blended with the
/// prior-weighted mean of its visited actions' q: (v̂ + ΣN · Σ_{N>0} π q / Σ_{N>0} π) / (1 + ΣN).
pub fn mixed_value(raw: f32, priors: &[f32], q: &[f32], visits: &[u32]) -> f32 {
    let total: u32 = visits.iter().sum();
    if total == 0 {
        return raw;
    }
    let (mut weight, mut weighted_q) = (0.0f32, 0.0f32);
    for ((&p, &q), &n) in priors.iter().zip(q).zip(visits) {
        if n > 0 {
            let p = p.max(f32::MIN_POSITIVE);
            weight += p;
            weighted_q += p * q;
        }
    }
    (raw + total as f32 * weighted_q / weight) / (1.0 + total as f32)
}

/// σ(q̂) of each action: the completed Q-values (q of the visited, the mixed value of the
/// others) rescaled to [0, 1] by their min and max, times (c_visit + max N) · c_scale.
pub fn sigma_completed_q(
    logits: &[f32],
    q: &[f32],
    visits: &[u32],
    raw: f32,
    options: &GumbelOptions,
    out: &mut Vec<f32>,
) {
    // `out` holds the priors first (no allocation), then σ(q̂).
    out.clear();
    out.extend_from_slice(logits);
    softmax_in_place(out);
    let mixed = mixed_value(raw, out, q, visits);
    out.clear();
    out.extend(
        q.iter()
            .zip(visits)
            .map(|(&q, &n)| if n > 0 { q } else { mixed }),
    );
    let low = out.iter().copied().fold(f32::INFINITY, f32::min);
    let high = out.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let range = (high - low).max(1e-8);
    let max_visits = visits.iter().copied().max().unwrap_or(0) as f32;
    let scale = (options.c_visit + max_visits) * options.c_scale;
    out.iter_mut().for_each(|v| *v = scale * (*v - low) / range);
}

/// The improved policy π' = softmax(ℓ + σ(q̂)).
pub fn improved_policy(
    logits: &[f32],
    q: &[f32],
    visits: &[u32],
    raw: f32,
    options: &GumbelOptions,
) -> Vec<f32> {
    let mut policy = Vec::new();
    improved_policy_into(logits, q, visits, raw, options, &mut policy);
    policy
}

/// `improved_policy` into `out` (no allocation once it has grown).
fn improved_policy_into(
    logits: &[f32],
    q: &[f32],
    visits: &[u32],
    raw: f32,
    options: &GumbelOptions,
    out: &mut Vec<f32>,
) {
    sigma_completed_q(logits, q, visits, raw, options, out);
    out.iter_mut().zip(logits).for_each(|(s, l)| *s += l);
    softmax_in_place(out);
}

/// Replaces logits by their softmax.
fn softmax_in_place(values: &mut [f32]) {
    let top = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    values.iter_mut().for_each(|v| *v = (*v - top).exp());
    let total: f32 = values.iter().sum();
    values.iter_mut().for_each(|v| *v /= total);
}

/// One node: the edge into it and its statistics.
#[derive(Clone, Debug)]
struct Node {
    action: Action,
    /// ℓ(a): the parent's policy logit of this action.
    logit: f32,
    visits: u32,
    value_sum_p0: f32,
    /// The network's value of the position here, P0's view (set on expansion).
    raw_p0: f32,
    first_child: u32,
    children: u32,
    expanded: bool,
}

impl Node {
    fn new(action: Action, logit: f32) -> Node {
        Node {
            action,
            logit,
            visits: 0,
            value_sum_p0: 0.0,
            raw_p0: 0.0,
            first_child: 0,
            children: 0,
            expanded: false,
        }
    }
}

/// What the search needs next.
pub enum Leaf<'a, G> {
    /// The network's value and policy logits of this position, then `expand`.
    Evaluate(&'a G),
    /// The simulation ended on a terminal state, already backed up.
    Resolved,
}

/// A Gumbel search of one position for `n` simulations, driven one leaf at a time
/// (`next_leaf` / `expand`) so that self-play can batch the leaves of many games. The first
/// leaf is the root itself; the simulations follow.
pub struct GumbelTree<G: Game> {
    root: G,
    options: GumbelOptions,
    nodes: Vec<Node>,
    /// The root's Gumbel draws, one per root child.
    gumbel: Vec<f32>,
    /// The planned simulations and the visit level of each (set when the root is expanded).
    simulations: usize,
    schedule: Vec<u32>,
    done: usize,
    path: Vec<u32>,
    leaf: G,
    // Scratch.
    actions: Vec<Action>,
    logits: Vec<f32>,
    sigma: Vec<f32>,
    q: Vec<f32>,
    visits: Vec<u32>,
}

impl<G: Game> GumbelTree<G> {
    /// A search of `root` (not over) for `simulations` simulations.
    pub fn new(root: &G, options: GumbelOptions, simulations: usize) -> Self {
        GumbelTree {
            root: root.clone(),
            options,
            nodes: vec![Node::new(0, 0.0)],
            gumbel: Vec::new(),
            simulations: simulations.max(1),
            schedule: Vec::new(),
            done: 0,
            path: Vec::new(),
            leaf: root.clone(),
            actions: Vec::new(),
            logits: Vec::new(),
            sigma: Vec::new(),
            q: Vec::new(),
            visits: Vec::new(),
        }
    }

    /// Whether every simulation has run (the move can be played).
    pub fn is_done(&self) -> bool {
        self.nodes[0].expanded && self.done >= self.simulations
    }

    /// Simulations run so far.
    pub fn simulations_done(&self) -> usize {
        self.done
    }

    /// Descends to the next leaf: the root first, then one simulation's end. A terminal leaf is
    /// backed up at once (`Leaf::Resolved`); otherwise the caller evaluates the position and
    /// calls `expand`.
    pub fn next_leaf(&mut self) -> Leaf<'_, G> {
        self.path.clear();
        self.path.push(0);
        self.leaf.clone_from(&self.root);
        if !self.nodes[0].expanded {
            return Leaf::Evaluate(&self.leaf);
        }
        let level = self.schedule.get(self.done).copied();
        let first = self.root_choice(level, self.root.to_move().sign());
        let mut index = self.nodes[0].first_child + first as u32;
        loop {
            self.leaf.play(self.nodes[index as usize].action);
            self.path.push(index);
            if self.leaf.is_terminal() {
                let value = self.options.terminal_eval.value_p0(&self.leaf);
                self.backup(value);
                return Leaf::Resolved;
            }
            if !self.nodes[index as usize].expanded {
                return Leaf::Evaluate(&self.leaf);
            }
            let sign = self.leaf.to_move().sign();
            let child = self.interior_choice(index, sign);
            index = self.nodes[index as usize].first_child + child as u32;
        }
    }

    /// Expands the leaf `next_leaf` returned with the network's value (P0's view) and policy
    /// logits over every action id (`None`: no policy, every logit 0), and backs the value up.
    /// The root's expansion draws its Gumbel noise (with `options.noise`) and plans the
    /// simulations.
    pub fn expand<R: Rng + ?Sized>(&mut self, value_p0: f32, logits: Option<&[f32]>, rng: &mut R) {
        let index = *self.path.last().expect("expand after next_leaf");
        self.leaf.legal_actions(&mut self.actions);
        let first = self.nodes.len() as u32;
        for &action in &self.actions {
            let logit = logits.map_or(0.0, |l| l[action as usize]);
            self.nodes.push(Node::new(action, logit));
        }
        let node = &mut self.nodes[index as usize];
        node.first_child = first;
        node.children = self.actions.len() as u32;
        node.expanded = true;
        node.raw_p0 = value_p0;
        if index == 0 {
            self.plan(rng);
        } else {
            self.backup(value_p0);
        }
    }

    /// At the root's expansion: the Gumbel draws and the visit schedule.
    fn plan<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        let children = self.nodes[0].children as usize;
        self.gumbel.clear();
        for _ in 0..children {
            let g = if self.options.noise {
                gumbel_draw(rng)
            } else {
                0.0
            };
            self.gumbel.push(g);
        }
        let m = children.min(self.options.considered as usize);
        self.schedule = visit_schedule(m, self.simulations);
    }

    /// The children of `index`: their logits, the mover's q and visits, into the scratch, and
    /// σ of their completed Q-values.
    fn gather(&mut self, index: u32, sign: f32) {
        let node = &self.nodes[index as usize];
        let range = node.first_child as usize..(node.first_child + node.children) as usize;
        self.logits.clear();
        self.q.clear();
        self.visits.clear();
        for child in &self.nodes[range] {
            self.logits.push(child.logit);
            self.visits.push(child.visits);
            self.q.push(match child.visits {
                0 => 0.0,
                n => sign * child.value_sum_p0 / n as f32,
            });
        }
        let raw = sign * self.nodes[index as usize].raw_p0;
        sigma_completed_q(
            &self.logits,
            &self.q,
            &self.visits,
            raw,
            &self.options,
            &mut self.sigma,
        );
    }

    /// The root child to simulate for target visit count `level`: the largest g + ℓ + σ(q̂)
    /// among those with exactly `level` visits (or, past the schedule, among all).
    fn root_choice(&mut self, level: Option<u32>, sign: f32) -> usize {
        self.gather(0, sign);
        let mut best = (0, f32::NEG_INFINITY);
        for i in 0..self.logits.len() {
            if level.is_some_and(|level| self.visits[i] != level) {
                continue;
            }
            let score = self.gumbel[i] + self.logits[i] + self.sigma[i];
            if score > best.1 {
                best = (i, score);
            }
        }
        best.0
    }

    /// Below the root: argmax π'(a) − N(a) / (1 + ΣN).
    fn interior_choice(&mut self, index: u32, sign: f32) -> usize {
        self.gather(index, sign);
        // σ(q̂) becomes π' = softmax(ℓ + σ(q̂)) in place.
        self.sigma
            .iter_mut()
            .zip(&self.logits)
            .for_each(|(s, l)| *s += l);
        softmax_in_place(&mut self.sigma);
        let total: u32 = self.visits.iter().sum();
        let mut best = (0, f32::NEG_INFINITY);
        for (i, p) in self.sigma.iter().enumerate() {
            let score = p - self.visits[i] as f32 / (1.0 + total as f32);
            if score > best.1 {
                best = (i, score);
            }
        }
        best.0
    }

    /// Backs a simulation's value up its path (the root's own expansion is no simulation).
    fn backup(&mut self, value_p0: f32) {
        for &index in &self.path {
            let node = &mut self.nodes[index as usize];
            node.visits += 1;
            node.value_sum_p0 += value_p0;
        }
        self.done += 1;
    }

    /// The move to play: among the most visited root actions, argmax g + ℓ + σ(q̂).
    pub fn chosen(&mut self) -> Action {
        let sign = self.root.to_move().sign();
        let first = self.nodes[0].first_child as usize;
        let children = &self.nodes[first..first + self.nodes[0].children as usize];
        let most = children.iter().map(|c| c.visits).max();
        let chosen = self.root_choice(most, sign);
        self.nodes[self.nodes[0].first_child as usize + chosen].action
    }

    /// The mean value of the root's child `action` (P0's view; the root's network value when
    /// unvisited or not a child).
    pub fn child_value_p0(&self, action: Action) -> f32 {
        let first = self.nodes[0].first_child as usize;
        let raw = self.nodes[0].raw_p0;
        self.nodes[first..first + self.nodes[0].children as usize]
            .iter()
            .find(|c| c.action == action)
            .map_or(raw, |c| match c.visits {
                0 => raw,
                n => c.value_sum_p0 / n as f32,
            })
    }

    /// The root's children: their actions, visits and mean values (P0's view; the root's
    /// network value for those unvisited).
    pub fn root_children(&self) -> Vec<ChildEdge> {
        let first = self.nodes[0].first_child as usize;
        let raw = self.nodes[0].raw_p0;
        self.nodes[first..first + self.nodes[0].children as usize]
            .iter()
            .map(|c| ChildEdge {
                value_p0: match c.visits {
                    0 => raw,
                    n => c.value_sum_p0 / n as f32,
                },
                visits: c.visits,
                action: c.action,
                completion: 0,
                resolved: false,
            })
            .collect()
    }

    /// The improved policy at the root over every action id (0 off the legal moves): the
    /// policy target of Gumbel AlphaZero.
    pub fn improved_policy_target(&mut self, out: &mut Vec<f32>) {
        let sign = self.root.to_move().sign();
        self.gather(0, sign);
        let raw = sign * self.nodes[0].raw_p0;
        let policy = &mut self.sigma;
        improved_policy_into(
            &self.logits,
            &self.q,
            &self.visits,
            raw,
            &self.options,
            policy,
        );
        out.clear();
        out.resize(G::NUM_ACTIONS, 0.0);
        let first = self.nodes[0].first_child as usize;
        for (k, &p) in policy.iter().enumerate() {
            out[self.nodes[first + k].action as usize] = p;
        }
    }
}

/// A draw of Gumbel(0, 1).
fn gumbel_draw<R: Rng + ?Sized>(rng: &mut R) -> f32 {
    let u: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
    -(-u.ln()).ln() as f32
}

/// Gumbel search as a `Searcher`: a fresh tree each search, its leaves evaluated one at a
/// time; `iters` counts simulations (a time budget plans as many as the last searches' speed
/// fits in it).
pub struct GumbelSearcher<G: Game> {
    pub options: GumbelOptions,
    children: Vec<ChildEdge>,
    value_p0: Option<f32>,
    chosen: Option<Action>,
    /// Simulations a second, measured (time budgets).
    simulations_per_second: f64,
    logits: Vec<f32>,
    _game: std::marker::PhantomData<G>,
}

impl<G: Game> GumbelSearcher<G> {
    pub fn new(options: GumbelOptions) -> Self {
        GumbelSearcher {
            options,
            children: Vec::new(),
            value_p0: None,
            chosen: None,
            simulations_per_second: 1000.0,
            logits: Vec::new(),
            _game: std::marker::PhantomData,
        }
    }

    /// The simulations of a search under `budget`.
    fn simulations(&self, budget: &Budget) -> usize {
        let by_time = budget
            .time
            .map(|t| (t.as_secs_f64() * self.simulations_per_second) as usize);
        match (budget.iterations, by_time) {
            (Some(n), Some(t)) => (n as usize).min(t),
            (Some(n), None) => n as usize,
            (None, Some(t)) => t,
            (None, None) => 16,
        }
        .clamp(1, 1 << 24)
    }
}

impl<G: Game> Searcher<G> for GumbelSearcher<G> {
    fn new_game(&mut self, _keep_resolved: bool) {
        self.children.clear();
        self.value_p0 = None;
        self.chosen = None;
    }

    fn search(
        &mut self,
        position: &G,
        evaluator: &dyn Evaluator<G>,
        budget: &Budget,
        rng: &mut SearchRng,
    ) -> SearchStats {
        let start = std::time::Instant::now();
        let mut stats = SearchStats::default();
        let mut tree = GumbelTree::new(position, self.options, self.simulations(budget));
        self.logits.resize(G::NUM_ACTIONS, 0.0);
        while !tree.is_done() {
            let Leaf::Evaluate(leaf) = tree.next_leaf() else {
                continue;
            };
            let mut value = [0.0f32];
            let has_policy = evaluator.evaluate_with_policy(
                std::slice::from_ref(leaf),
                &mut value,
                &mut self.logits,
            );
            stats.evaluated_positions += 1;
            tree.expand(value[0], has_policy.then_some(&self.logits[..]), rng);
        }
        stats.iterations = tree.simulations_done() as u64;
        self.children = tree.root_children();
        let chosen = tree.chosen();
        self.chosen = Some(chosen);
        self.value_p0 = self
            .children
            .iter()
            .find(|c| c.action == chosen)
            .map(|c| c.value_p0);
        let seconds = start.elapsed().as_secs_f64();
        if stats.iterations > 0 && seconds > 0.0 {
            self.simulations_per_second = stats.iterations as f64 / seconds;
        }
        stats.seconds = seconds;
        stats
    }

    fn root(&self, _position: &G) -> SearchRoot<'_> {
        SearchRoot {
            children: &self.children,
            value_p0: self.value_p0,
        }
    }

    fn decide(&self, _position: &G, _rng: &mut SearchRng) -> Option<Action> {
        self.chosen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{GameExt, TicTacToe};
    use crate::search::ConstantEvaluator;
    use rand::SeedableRng;

    /// The schedule from the paper's definition, worked by hand: n = 8, m = 4 (L = 2): a phase
    /// of max(1, ⌊8 / 8⌋) = 1 visit to each of 4, then ⌊8 / 4⌋ = 2 to each of 2.
    #[test]
    fn sequential_halving_visits_follow_the_papers_schedule() {
        assert_eq!(visit_schedule(4, 8), [0, 0, 0, 0, 1, 1, 2, 2]);
        // n = 16, m = 4: ⌊16 / 8⌋ = 2 to each of 4, then ⌊16 / 4⌋ = 4 to each of 2.
        assert_eq!(
            visit_schedule(4, 16),
            [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
        );
        // m = 16, n = 4: only the first visits of 4 actions.
        assert_eq!(visit_schedule(16, 4), [0, 0, 0, 0]);
        // m = 2, n = 5 (L = 1): ⌊5 / 2⌋ = 2 to each, then again (k stays 2).
        assert_eq!(visit_schedule(2, 5), [0, 0, 1, 1, 2]);
        // m = 3, n = 10 (L = 2): ⌊10 / 6⌋ = 1 to each of 3, then ⌊10 / 4⌋ = 2 to each of 2,
        // then again 2 each of 2 (k stays 2).
        assert_eq!(visit_schedule(3, 10), [0, 0, 0, 1, 1, 2, 2, 3, 3, 4]);
        assert_eq!(visit_schedule(1, 3), [0, 1, 2]);
        for (m, n) in [(16, 50), (7, 33), (5, 200)] {
            assert_eq!(visit_schedule(m, n).len(), n);
        }
    }

    /// The improved policy of a fixed prior and Q-vector, worked by hand: logits ln(0.5),
    /// ln(0.3), ln(0.2); a visited once with q = 1, b visited once with q = −1, c unvisited;
    /// raw value 0. Mixed value (0 + 2 · (0.5 · 1 + 0.3 · (−1)) / 0.8) / 3 = 1/6; completed
    /// (1, −1, 1/6) rescaled to (1, 0, 7/12); σ = (50 + 1) · 0.1 · that = (5.1, 0, 2.975);
    /// π' ∝ (0.5 e^5.1, 0.3, 0.2 e^2.975).
    #[test]
    fn the_improved_policy_is_the_softmax_of_logits_and_sigma() {
        let logits = [0.5f32.ln(), 0.3f32.ln(), 0.2f32.ln()];
        let policy = improved_policy(
            &logits,
            &[1.0, -1.0, 0.0],
            &[1, 1, 0],
            0.0,
            &GumbelOptions::default(),
        );
        let weights = [0.5 * 5.1f64.exp(), 0.3, 0.2 * 2.975f64.exp()];
        let total: f64 = weights.iter().sum();
        for (p, w) in policy.iter().zip(weights) {
            assert!((f64::from(*p) - w / total).abs() < 1e-5, "{policy:?}");
        }
        assert!(
            (mixed_value(0.0, &[0.5, 0.3, 0.2], &[1.0, -1.0, 0.0], &[1, 1, 0]) - 1.0 / 6.0).abs()
                < 1e-6
        );
    }

    /// X to move wins at c1: with 16 simulations and no network the search plays it, spends
    /// exactly its simulations, and values the move as a win for X.
    #[test]
    fn it_takes_the_win_with_few_simulations() {
        let mut position = TicTacToe::new(&Default::default());
        position.play_moves("a1 a2 b1 b2").unwrap();
        let mut searcher = GumbelSearcher::<TicTacToe>::new(GumbelOptions::default());
        let mut rng = SearchRng::seed_from_u64(1);
        let evaluator = ConstantEvaluator::default();
        let stats = searcher.search(&position, &evaluator, &Budget::iterations(16), &mut rng);
        assert_eq!(stats.iterations, 16);
        let total: u32 = searcher
            .root(&position)
            .children
            .iter()
            .map(|c| c.visits)
            .sum();
        assert_eq!(total, 16);
        let action = searcher.decide(&position, &mut rng).unwrap();
        assert_eq!(TicTacToe::action_to_text(position.to_move(), action), "c1");
        assert!(searcher.root(&position).value_p0.unwrap() > 0.9);
    }
}
