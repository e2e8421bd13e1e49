//! PUCT, AlphaZero's Monte Carlo tree search (Silver et al. 2018, its pseudocode; docs/
//! algorithms.md §12): each simulation descends from the root choosing the child maximising
//!
//! `Q(s, a) + c(s) · P(s, a) · √N(s) / (1 + N(s, a))`, `c(s) = ln((1 + N(s) + c_base) / c_base) +
//! c_init`
//!
//! (Q the mean value of the child for the player choosing at s — `fpu` before its first visit —
//! mapped from our values' [−1, 1] to the pseudocode's [0, 1], `(1 + v) / 2`, so that c_init and
//! c_base weigh exploration against value as they do there; P the network's prior, N visit
//! counts; N(s) counts the node's own expansion), until it reaches
//! a node never expanded: a terminal one is worth its terminal evaluation (the classic gain,
//! ±1 / 0, in AlphaZero), any other is expanded with the
//! network's priors over its legal actions (a softmax of the policy logits) and valued by the
//! network. The value is backed up along the path. Dirichlet noise `(1 − ε)·P + ε·Dir(α)` may be
//! mixed into the root's priors (self-play).
//!
//! The tree is driven one leaf at a time (`next_leaf` / `expand`), so that self-play can gather
//! the leaves of many games into one batch for the network. Values are from P0's point of view,
//! as everywhere; the selection turns them into the chooser's.

use rand::Rng;
use rand_distr::{Distribution, Gamma};

use crate::games::{Action, Game};
use crate::search::{ChildEdge, TerminalEval};

/// PUCT's settings (the AlphaZero paper's defaults; the first-play urgency is OpenSpiel's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PuctOptions {
    pub c_init: f32,
    pub c_base: f32,
    /// Q of a child never visited, from the chooser's view, on the values' scale [−1, 1]
    /// (OpenSpiel: 0, a draw; 0.5 once mapped to the pseudocode's [0, 1]).
    pub fpu: f32,
    /// Dirichlet α of the root noise; `None`: 10 / the root's legal actions, within
    /// [0.03, 1] (the AlphaZero paper's 0.3 for chess's ~35 moves, 0.03 for Go's ~250).
    pub dirichlet_alpha: Option<f32>,
    /// ε, the noise's share of the root priors (0: no noise, as when playing).
    pub dirichlet_fraction: f32,
    /// The value of terminal states, on the network's scale (AlphaZero: the classic gain).
    pub terminal_eval: TerminalEval,
    /// MCTS-Solver: game-theoretic results proven in the tree are propagated up (a node is won
    /// for its chooser when one child is, lost or drawn when every child is proven and the best
    /// of them is), proven losses are never chosen again, and a proven node is backed up at its
    /// proven value without the network. Off in AlphaZero (its paper has no solver).
    pub solver: bool,
}

impl Default for PuctOptions {
    fn default() -> Self {
        PuctOptions {
            c_init: 1.25,
            c_base: 19_652.0,
            fpu: 0.0,
            dirichlet_alpha: None,
            dirichlet_fraction: 0.0,
            terminal_eval: TerminalEval::Classic,
            solver: false,
        }
    }
}

/// One node: the edge into it (action, prior) and its statistics.
#[derive(Clone, Debug)]
struct PuctNode {
    action: Action,
    prior: f32,
    visits: u32,
    /// Sum of the values backed up through this node, P0's view.
    value_sum_p0: f32,
    /// Children `first_child..first_child + children` in `nodes`; none before expansion.
    first_child: u32,
    children: u32,
    expanded: bool,
    /// +1 or −1 when the player to move here is P0 or P1 (set on expansion).
    chooser_sign: i8,
    /// With the solver: the game-theoretic result proven here, P0's view (+1, 0, −1).
    proven_p0: Option<i8>,
}

/// What the search needs next.
pub enum Leaf<'a, G> {
    /// The network's value and policy logits of this position, then `expand`.
    Evaluate(&'a G),
    /// The simulation ended on a terminal state, already backed up.
    Resolved,
}

/// A PUCT tree over one root position.
pub struct PuctTree<G: Game> {
    root: G,
    nodes: Vec<PuctNode>,
    options: PuctOptions,
    /// The current simulation's nodes, root first.
    path: Vec<u32>,
    /// The position at the end of `path`.
    leaf: G,
    /// Scratch: the leaf's legal actions and their priors.
    actions: Vec<Action>,
    priors: Vec<f32>,
}

/// The noise-free prior: a softmax of `logits` over `legal`, written into `priors`.
pub fn legal_softmax(logits: &[f32], legal: &[Action], priors: &mut Vec<f32>) {
    let max = legal
        .iter()
        .map(|&a| logits[a as usize])
        .fold(f32::NEG_INFINITY, f32::max);
    priors.clear();
    priors.extend(legal.iter().map(|&a| (logits[a as usize] - max).exp()));
    let sum: f32 = priors.iter().sum();
    priors.iter_mut().for_each(|p| *p /= sum);
}

impl<G: Game> PuctTree<G> {
    pub fn new(root: &G, options: PuctOptions) -> PuctTree<G> {
        PuctTree {
            root: root.clone(),
            nodes: vec![PuctNode {
                action: 0,
                prior: 1.0,
                visits: 0,
                value_sum_p0: 0.0,
                first_child: 0,
                children: 0,
                expanded: false,
                chooser_sign: 0,
                proven_p0: None,
            }],
            options,
            path: Vec::new(),
            leaf: root.clone(),
            actions: Vec::new(),
            priors: Vec::new(),
        }
    }

    /// Simulations backed up so far (the root's visits).
    pub fn simulations(&self) -> u32 {
        self.nodes[0].visits
    }

    /// The PUCT score of child `child` of `parent`, for `chooser_sign` (+1: P0 chooses).
    fn score(&self, parent: &PuctNode, child: &PuctNode, chooser_sign: f32) -> f32 {
        let q_chooser = match child.visits {
            0 => self.options.fpu,
            n => chooser_sign * child.value_sum_p0 / n as f32,
        };
        // The pseudocode's values are in [0, 1], ours in [−1, 1].
        let q = (1.0 + q_chooser) / 2.0;
        let n = parent.visits as f32;
        let c = ((1.0 + n + self.options.c_base) / self.options.c_base).ln() + self.options.c_init;
        q + c * child.prior * n.sqrt() / (1.0 + child.visits as f32)
    }

    /// The child of `node` with the highest score for `chooser_sign` (the first on ties).
    fn select_child(&self, node: u32, chooser_sign: f32) -> u32 {
        let parent = &self.nodes[node as usize];
        let range = parent.first_child..parent.first_child + parent.children;
        let mut best = (range.start, f32::NEG_INFINITY);
        for child in range {
            let edge = &self.nodes[child as usize];
            if edge
                .proven_p0
                .is_some_and(|p| f32::from(p) == -chooser_sign)
            {
                continue;
            }
            let score = self.score(parent, edge, chooser_sign);
            if score > best.1 {
                best = (child, score);
            }
        }
        best.0
    }

    /// Descends to the next leaf. A terminal leaf, or with the solver a proven node, is backed
    /// up at once (`Leaf::Resolved`); otherwise the caller evaluates the returned position and
    /// calls `expand`.
    pub fn next_leaf(&mut self) -> Leaf<'_, G> {
        self.path.clear();
        self.path.push(0);
        self.leaf.clone_from(&self.root);
        let mut node = 0u32;
        while self.nodes[node as usize].expanded {
            if let Some(proven_p0) = self.nodes[node as usize].proven_p0 {
                self.backup(f32::from(proven_p0));
                return Leaf::Resolved;
            }
            let sign = self.leaf.to_move().sign();
            node = self.select_child(node, sign);
            self.leaf.play(self.nodes[node as usize].action);
            self.path.push(node);
        }
        if self.leaf.is_terminal() {
            self.backup(self.options.terminal_eval.value_p0(&self.leaf));
            if self.options.solver && !G::ONE_PLAYER {
                let outcome = self
                    .leaf
                    .outcome()
                    .expect("a terminal state has an outcome");
                self.nodes[node as usize].proven_p0 = Some(outcome.value_p0() as i8);
                self.propagate_proof();
            }
            Leaf::Resolved
        } else {
            Leaf::Evaluate(&self.leaf)
        }
    }

    /// With the solver, after the last node of `path` was proven: its ancestors proven by it in
    /// turn, up to the first that is not (MCTS-Solver, Winands, Björnsson and Saito 2008).
    fn propagate_proof(&mut self) {
        for index in (0..self.path.len().saturating_sub(1)).rev() {
            let node = self.path[index];
            match self.proof_of(node) {
                Some(proven_p0) => self.nodes[node as usize].proven_p0 = Some(proven_p0),
                None => return,
            }
        }
    }

    /// The result proven at the expanded `node` by its children, P0's view: a child won for
    /// its chooser, or every child proven and the best of them for the chooser; else `None`.
    fn proof_of(&self, node: u32) -> Option<i8> {
        let parent = &self.nodes[node as usize];
        let sign = parent.chooser_sign;
        let children = &self.nodes[parent.first_child as usize..][..parent.children as usize];
        let (mut best_for_chooser, mut all_proven) = (i8::MIN, true);
        for child in children {
            match child.proven_p0 {
                Some(proven) if proven == sign => return Some(sign),
                Some(proven) => best_for_chooser = best_for_chooser.max(proven * sign),
                None => all_proven = false,
            }
        }
        (all_proven && best_for_chooser != i8::MIN).then_some(best_for_chooser * sign)
    }

    /// The game-theoretic result proven at the root, P0's view (only with the solver).
    pub fn root_proven_p0(&self) -> Option<i8> {
        self.nodes[0].proven_p0
    }

    /// Expands the leaf `next_leaf` returned with the network's output on it — its value (P0's
    /// view) and its policy logits over every action id — and backs the value up. At the root,
    /// mixes in the Dirichlet noise when its fraction is positive.
    pub fn expand<R: Rng + ?Sized>(&mut self, value_p0: f32, logits: &[f32], rng: &mut R) {
        let node = *self.path.last().expect("expand after next_leaf");
        self.leaf.legal_actions(&mut self.actions);
        let mut priors = std::mem::take(&mut self.priors);
        legal_softmax(logits, &self.actions, &mut priors);
        if node == 0 && self.options.dirichlet_fraction > 0.0 {
            self.add_noise(&mut priors, rng);
        }
        let first = self.nodes.len() as u32;
        self.nodes.extend(
            self.actions
                .iter()
                .zip(&priors)
                .map(|(&action, &prior)| PuctNode {
                    action,
                    prior,
                    visits: 0,
                    value_sum_p0: 0.0,
                    first_child: 0,
                    children: 0,
                    expanded: false,
                    chooser_sign: 0,
                    proven_p0: None,
                }),
        );
        let parent = &mut self.nodes[node as usize];
        parent.first_child = first;
        parent.children = self.actions.len() as u32;
        parent.expanded = true;
        parent.chooser_sign = self.leaf.to_move().sign() as i8;
        self.priors = priors;
        self.backup(value_p0);
    }

    fn add_noise<R: Rng + ?Sized>(&self, priors: &mut [f32], rng: &mut R) {
        let alpha = self
            .options
            .dirichlet_alpha
            .unwrap_or((10.0 / priors.len() as f32).clamp(0.03, 1.0));
        let gamma = Gamma::new(alpha, 1.0).expect("a positive Dirichlet alpha");
        let draws: Vec<f32> = priors.iter().map(|_| gamma.sample(rng)).collect();
        let sum: f32 = draws.iter().sum::<f32>().max(f32::MIN_POSITIVE);
        let fraction = self.options.dirichlet_fraction;
        for (p, d) in priors.iter_mut().zip(draws) {
            *p = (1.0 - fraction) * *p + fraction * d / sum;
        }
    }

    fn backup(&mut self, value_p0: f32) {
        for &node in &self.path {
            let node = &mut self.nodes[node as usize];
            node.visits += 1;
            node.value_sum_p0 += value_p0;
        }
    }

    /// The tree re-rooted at the descendant whose position is `target` — the move played and
    /// the replies since, at most `max_plies` deep — its subtree and statistics kept (the
    /// AlphaZero paper keeps "the subtree below this child"); `false`, the tree unchanged, when
    /// no visited descendant is that position. Positions are matched by their hash, side to
    /// move and ply.
    pub fn reroot_at(&mut self, target: &G, max_plies: usize) -> bool {
        let Some((node, position)) = self.find_descendant(0, self.root.clone(), target, max_plies)
        else {
            return false;
        };
        let mut nodes = Vec::with_capacity(self.nodes.len());
        nodes.push(PuctNode {
            action: 0,
            prior: 1.0,
            ..self.nodes[node as usize].clone()
        });
        // Breadth first, so that each node's children stay contiguous.
        let mut queue = std::collections::VecDeque::from([(0usize, node)]);
        while let Some((new_index, old_index)) = queue.pop_front() {
            let old = &self.nodes[old_index as usize];
            if !old.expanded {
                continue;
            }
            let first = nodes.len();
            for child in old.first_child..old.first_child + old.children {
                nodes.push(self.nodes[child as usize].clone());
                queue.push_back((nodes.len() - 1, child));
            }
            nodes[new_index].first_child = first as u32;
        }
        self.nodes = nodes;
        self.root = position;
        true
    }

    /// The visited descendant of `node` (whose position is `position`) at `target`, depth first.
    fn find_descendant(
        &self,
        node: u32,
        position: G,
        target: &G,
        max_plies: usize,
    ) -> Option<(u32, G)> {
        let here = &self.nodes[node as usize];
        if here.visits == 0 {
            return None;
        }
        let same = position.ply() == target.ply()
            && position.to_move() == target.to_move()
            && position.hash() == target.hash();
        if same {
            return Some((node, position));
        }
        if max_plies == 0 || !here.expanded || position.ply() >= target.ply() {
            return None;
        }
        (here.first_child..here.first_child + here.children).find_map(|child| {
            let mut next = position.clone();
            next.play(self.nodes[child as usize].action);
            self.find_descendant(child, next, target, max_plies - 1)
        })
    }

    /// The mean of the values backed up through the root, P0's view (0 before the first).
    pub fn root_value_p0(&self) -> f32 {
        let root = &self.nodes[0];
        root.value_sum_p0 / root.visits.max(1) as f32
    }

    /// The root's legal actions with their visit counts (empty before the first expansion).
    pub fn root_visits(&self) -> Vec<(Action, u32)> {
        let root = &self.nodes[0];
        let range = root.first_child as usize..(root.first_child + root.children) as usize;
        self.nodes[range]
            .iter()
            .map(|n| (n.action, n.visits))
            .collect()
    }

    /// The root's children as edges: action, visits and mean value (P0's view; 0 before the
    /// first visit), in `out`. With the solver a proven child is `resolved`, its value the
    /// proven result.
    pub fn root_edges(&self, out: &mut Vec<ChildEdge>) {
        let root = &self.nodes[0];
        let range = root.first_child as usize..(root.first_child + root.children) as usize;
        out.clear();
        out.extend(self.nodes[range].iter().map(|n| {
            ChildEdge {
                value_p0: n
                    .proven_p0
                    .map_or(n.value_sum_p0 / n.visits.max(1) as f32, f32::from),
                visits: n.visits,
                action: n.action,
                completion: 0,
                resolved: n.proven_p0.is_some(),
            }
        }));
    }
}

/// The policy target: the root's visit counts normalised, over every action id
/// (`num_actions` floats, 0 for the actions not visited or not legal).
pub fn visit_distribution(visits: &[(Action, u32)], num_actions: usize, out: &mut Vec<f32>) {
    out.clear();
    out.resize(num_actions, 0.0);
    let total: u32 = visits.iter().map(|&(_, n)| n).sum();
    for &(action, n) in visits {
        out[action as usize] = n as f32 / total.max(1) as f32;
    }
}

/// The move to play from the root's visits: drawn in proportion to `N(a)^(1/τ)` while
/// `temperature` is positive, else the most visited (the first on ties).
pub fn choose_by_visits<R: Rng + ?Sized>(
    visits: &[(Action, u32)],
    temperature: f32,
    rng: &mut R,
) -> Action {
    use rand::RngExt;
    if temperature > 0.0 {
        let weights: Vec<f64> = visits
            .iter()
            .map(|&(_, n)| (n as f64).powf(1.0 / temperature as f64))
            .collect();
        let total: f64 = weights.iter().sum();
        if total > 0.0 {
            let mut draw = rng.random::<f64>() * total;
            for (&(action, _), w) in visits.iter().zip(&weights) {
                if draw < *w {
                    return action;
                }
                draw -= w;
            }
        }
    }
    let mut best = visits[0];
    for &v in visits {
        if v.1 > best.1 {
            best = v;
        }
    }
    best.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{ConnectFour, Player};
    use rand::RngExt;
    use rand::SeedableRng;
    use rand::rngs::Xoshiro256PlusPlus;

    /// A root expanded with `n` children holding random statistics.
    fn random_tree(rng: &mut Xoshiro256PlusPlus, mover: Player) -> PuctTree<ConnectFour> {
        let mut root = ConnectFour::new(&Default::default());
        if mover == Player::P1 {
            root.play(3);
        }
        let mut tree = PuctTree::new(&root, PuctOptions::default());
        let logits: Vec<f32> = (0..7).map(|_| rng.random_range(-2.0..2.0)).collect();
        let Leaf::Evaluate(_) = tree.next_leaf() else {
            panic!("the root is not over")
        };
        tree.expand(0.0, &logits, rng);
        for node in tree.nodes.iter_mut().skip(1) {
            node.visits = rng.random_range(0..40);
            node.value_sum_p0 = node.visits as f32 * rng.random_range(-1.0..1.0);
        }
        tree.nodes[0].visits = 1 + tree.nodes[1..].iter().map(|n| n.visits).sum::<u32>();
        tree
    }

    /// The selection is the argmax of the formula, written here again from the paper, from
    /// the mover's view for either player.
    #[test]
    fn puct_picks_the_argmax_of_its_formula_for_both_players() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        for trial in 0..400 {
            let mover = if trial % 2 == 0 {
                Player::P0
            } else {
                Player::P1
            };
            let tree = random_tree(&mut rng, mover);
            let (c_init, c_base) = (1.25f64, 19_652.0f64);
            let n = tree.nodes[0].visits as f64;
            let c = ((1.0 + n + c_base) / c_base).ln() + c_init;
            let formula = |node: &PuctNode| {
                let q = if node.visits == 0 {
                    0.0
                } else {
                    let mean_p0 = node.value_sum_p0 as f64 / node.visits as f64;
                    if mover == Player::P0 {
                        mean_p0
                    } else {
                        -mean_p0
                    }
                };
                // The pseudocode's value scale, [0, 1].
                (1.0 + q) / 2.0 + c * node.prior as f64 * n.sqrt() / (1.0 + node.visits as f64)
            };
            let expected = (1..tree.nodes.len())
                .max_by(|&a, &b| formula(&tree.nodes[a]).total_cmp(&formula(&tree.nodes[b])))
                .unwrap();
            let chosen = tree.select_child(0, mover.sign());
            assert_eq!(
                formula(&tree.nodes[chosen as usize]),
                formula(&tree.nodes[expected]),
                "trial {trial}, {mover:?}"
            );
        }
    }

    /// Priors are the softmax of the legal logits; the policy target is the visit counts
    /// normalised; a search's visits add up to its simulations.
    #[test]
    fn priors_visits_and_the_policy_target() {
        let mut priors = Vec::new();
        legal_softmax(&[0.0, 5.0, 1.0, 1.0], &[0, 2, 3], &mut priors);
        let e = 1f32.exp();
        let expected = [
            1.0 / (1.0 + 2.0 * e),
            e / (1.0 + 2.0 * e),
            e / (1.0 + 2.0 * e),
        ];
        for (p, q) in priors.iter().zip(expected) {
            assert!((p - q).abs() < 1e-6, "{priors:?}");
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let root = ConnectFour::new(&Default::default());
        let mut tree = PuctTree::new(&root, PuctOptions::default());
        let logits = [0.0f32; 7];
        for _ in 0..300 {
            if let Leaf::Evaluate(_) = tree.next_leaf() {
                let value = rng.random_range(-0.5..0.5);
                tree.expand(value, &logits, &mut rng);
            }
        }
        let visits = tree.root_visits();
        let total: u32 = visits.iter().map(|v| v.1).sum();
        assert_eq!(total + 1, tree.simulations());
        let mut target = Vec::new();
        visit_distribution(&visits, 7, &mut target);
        for &(action, n) in &visits {
            assert_eq!(target[action as usize], n as f32 / total as f32);
        }
        assert!((target.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }

    /// A win in one is found: the terminal child's value, backed up, draws the visits.
    #[test]
    fn puct_finds_a_win_in_one_with_a_uniform_network() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut root = ConnectFour::new(&Default::default());
        // P0 on a1 a2 a3 (column 0), P1 on g: P0 wins with column 0.
        for action in [0, 6, 0, 6, 0, 5] {
            root.play(action);
        }
        let mut tree = PuctTree::new(&root, PuctOptions::default());
        for _ in 0..200 {
            if let Leaf::Evaluate(_) = tree.next_leaf() {
                tree.expand(0.0, &[0.0; 7], &mut rng);
            }
        }
        assert_eq!(choose_by_visits(&tree.root_visits(), 0.0, &mut rng), 0);
        assert!(
            tree.root_value_p0() > 0.5,
            "P0 wins: {}",
            tree.root_value_p0()
        );
    }

    /// The root's value is P0's whoever moves: P1 to move with a win in one is worth less than
    /// −½ to P0 after 200 simulations of a network that values everything 0.
    #[test]
    fn the_root_value_is_p0s_when_p1_wins_in_one() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut root = ConnectFour::new(&Default::default());
        // P1 on a1 a2 a3 (column 0), P0 on f1 f2 g1 g2; P1 to move wins with column 0.
        for action in [6, 0, 6, 0, 5, 0, 5] {
            root.play(action);
        }
        let mut tree = PuctTree::new(&root, PuctOptions::default());
        assert_eq!(tree.root_value_p0(), 0.0, "nothing backed up yet");
        for _ in 0..200 {
            if let Leaf::Evaluate(_) = tree.next_leaf() {
                tree.expand(0.0, &[0.0; 7], &mut rng);
            }
        }
        assert!(
            tree.root_value_p0() < -0.5,
            "P1 wins: {}",
            tree.root_value_p0()
        );
    }

    /// `simulations` simulations on `root` with a network that values everything 0 and has
    /// no preference, the solver on or off.
    fn searched(root: &ConnectFour, solver: bool, simulations: usize) -> PuctTree<ConnectFour> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let options = PuctOptions {
            solver,
            ..PuctOptions::default()
        };
        let mut tree = PuctTree::new(root, options);
        for _ in 0..simulations {
            if let Leaf::Evaluate(_) = tree.next_leaf() {
                tree.expand(0.0, &[0.0; 7], &mut rng);
            }
        }
        tree
    }

    fn position(actions: &[Action]) -> ConnectFour {
        let mut position = ConnectFour::new(&Default::default());
        actions.iter().for_each(|&a| position.play(a));
        position
    }

    /// The solver proves a win in one for the mover (one child won), and a loss for P0 to
    /// move against P1's open three b1 c1 d1 (every child lets P1 win at a1 or e1: proven two
    /// plies down, in every child); without it nothing is proven.
    #[test]
    fn the_solver_proves_a_win_in_one_and_a_loss_in_two() {
        let win_in_one = position(&[0, 6, 0, 6, 0, 5]);
        assert_eq!(searched(&win_in_one, true, 50).root_proven_p0(), Some(1));
        let open_three = position(&[6, 1, 6, 2, 5, 3]);
        let tree = searched(&open_three, true, 3000);
        assert_eq!(tree.root_proven_p0(), Some(-1));
        let mut edges = Vec::new();
        tree.root_edges(&mut edges);
        assert!(
            edges.iter().all(|e| e.resolved && e.value_p0 == -1.0),
            "{edges:?}"
        );
        assert_eq!(searched(&open_three, false, 3000).root_proven_p0(), None);
    }

    /// P1 threatens b1 c1 d1 + a1 with a1 the only hole (e1 taken by P0): P0 must play a1.
    /// Every other move is proven lost and, once proven, visited no more: the block takes every
    /// later simulation.
    #[test]
    fn a_child_proven_lost_for_its_chooser_is_not_visited_again() {
        let single_threat = position(&[4, 1, 6, 2, 6, 3]);
        let visits_after = |simulations| {
            let tree = searched(&single_threat, true, simulations);
            let mut edges = Vec::new();
            tree.root_edges(&mut edges);
            edges
        };
        let (early, late) = (visits_after(1500), visits_after(3000));
        for (before, after) in early.iter().zip(&late) {
            if before.action == 0 {
                assert!(
                    !after.resolved && after.visits >= before.visits + 1500,
                    "{late:?}"
                );
            } else {
                assert!(before.resolved && before.value_p0 == -1.0, "{early:?}");
                assert_eq!(before.visits, after.visits, "{early:?}\n{late:?}");
            }
        }
    }
}
