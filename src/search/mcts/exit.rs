//! ExIt's expert (paper §8.1, Algorithm 15): MCTS with random playouts whose selection adds the
//! apprentice's policy and, once it is used, its value:
//! `UCT_ExIt(s, a) = UCT(s, a) + w_a · π(a|s) / (n(s,a) + 1) + w_v · Q̂(s, a)`.
//! UCT(s, a) is the mean playout reward in [0, 1] for the player choosing at s plus
//! `c · √(ln N(s) / n(s,a))`; Q̂(s, a) is the mean of the apprentice's values (same [0, 1]
//! scale, same player) backed up through the child; π(a|s) is the softmax of the apprentice's
//! logits over the legal moves (the same for every move when the evaluator has no policy).
//! A node is expanded on its first visit — one apprentice call gives its children's priors and
//! its own value — then valued by a random playout from it. Unvisited children come first, the
//! highest prior first (equals at random).

use rand::Rng;

use super::{Mcts, MctsNode, RandomArgmax, SearchStats, reward};
use crate::games::{Game, Player};
use crate::search::evaluator::Evaluator;

/// ExIt's statistics of a node, beside its `MctsNode`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ExitNode {
    /// π(a|s) of the move that led here.
    prior: f32,
    /// Sum of the apprentice's values backed up through here, P0's view, in [-1, 1].
    net_value_sum_p0: f64,
    net_visits: u32,
}

/// The constants of `UCT_ExIt`.
#[derive(Clone, Copy, Debug)]
pub(super) struct ExitWeights {
    pub c: f32,
    pub w_a: f32,
    pub w_v: f32,
}

impl<G: Game> Mcts<G> {
    /// One ExIt simulation from `root`.
    pub(super) fn simulate_exit<E: Evaluator<G>, R: Rng + ?Sized>(
        &mut self,
        root: &G,
        evaluator: &E,
        weights: ExitWeights,
        rng: &mut R,
        stats: &mut SearchStats,
    ) {
        let mut position = root.clone();
        self.path.clear();
        let mut node = 0u32;
        self.path.push(node);
        let mut net_value_p0 = None;
        if !self.nodes[0].expanded && !position.is_terminal() {
            net_value_p0 = Some(self.expand_with_priors(0, &position, evaluator, stats));
        }
        while self.nodes[node as usize].expanded && !position.is_terminal() {
            node = self.select_exit(node, position.to_move(), weights, rng);
            position.play(self.nodes[node as usize].action);
            self.path.push(node);
            if self.nodes[node as usize].visits == 0 {
                if !position.is_terminal() {
                    net_value_p0 = Some(self.expand_with_priors(node, &position, evaluator, stats));
                    stats.expansions += 1;
                }
                break;
            }
        }
        stats.max_depth = stats.max_depth.max(self.path.len() as u32 - 1);
        let value_p0 = match position.outcome() {
            Some(outcome) => {
                stats.terminal_visits += 1;
                // A terminal state's value is exact: it is Q̂'s too.
                net_value_p0 = Some(outcome.value_p0());
                outcome.value_p0()
            }
            None => {
                self.played.clear();
                position
                    .playout_outcome(rng, &mut self.actions, &mut self.played)
                    .value_p0()
            }
        };
        for &n in &self.path {
            let node = &mut self.nodes[n as usize];
            node.visits += 1;
            node.value_sum_p0 += value_p0 as f64;
            if let Some(v) = net_value_p0 {
                let exit = &mut self.exit_nodes[n as usize];
                exit.net_visits += 1;
                exit.net_value_sum_p0 += v as f64;
            }
        }
    }

    /// Creates `node`'s children with the evaluator's priors at `position`; returns the
    /// evaluator's value of `position` (P0's view).
    fn expand_with_priors<E: Evaluator<G>>(
        &mut self,
        node: u32,
        position: &G,
        evaluator: &E,
        stats: &mut SearchStats,
    ) -> f32 {
        self.single.clear();
        self.single.push(position.clone());
        self.logits.resize(G::NUM_ACTIONS, 0.0);
        let mut value = [0.0f32];
        if !evaluator.evaluate_with_policy(&self.single, &mut value, &mut self.logits) {
            self.logits.fill(0.0);
        }
        stats.evaluator_calls += 1;
        stats.evaluated_positions += 1;
        self.expand(node, position);
        self.exit_nodes
            .resize(self.nodes.len(), ExitNode::default());
        let n = self.nodes[node as usize];
        let children = n.first_child as usize..(n.first_child + n.num_children as u32) as usize;
        let logit = |c: usize| self.logits[self.nodes[c].action as usize];
        let max = children
            .clone()
            .map(logit)
            .fold(f32::NEG_INFINITY, f32::max);
        let total: f32 = children.clone().map(|c| (logit(c) - max).exp()).sum();
        for c in children {
            let prior = (logit(c) - max).exp() / total;
            // A NaN policy (a broken network) gives every move the same prior.
            self.exit_nodes[c].prior = if prior.is_finite() {
                prior
            } else {
                1.0 / n.num_children as f32
            };
        }
        value[0]
    }

    /// The child of `node` maximising `UCT_ExIt` for `mover`; unvisited children first, the
    /// highest prior first (equals at random).
    fn select_exit<R: Rng + ?Sized>(
        &self,
        node: u32,
        mover: Player,
        w: ExitWeights,
        rng: &mut R,
    ) -> u32 {
        let n: MctsNode = self.nodes[node as usize];
        let log_parent = (n.visits.max(1) as f64).ln();
        let mut best = RandomArgmax::new(n.first_child, (false, f64::NEG_INFINITY));
        for child in n.first_child..n.first_child + n.num_children as u32 {
            let ch = self.nodes[child as usize];
            let exit = self.exit_nodes[child as usize];
            let score = if ch.visits == 0 {
                (true, exit.prior as f64)
            } else {
                let visits = ch.visits as f64;
                let uct = reward(ch.value_sum_p0 / visits, mover)
                    + w.c as f64 * (log_parent / visits).sqrt();
                let q_hat = match exit.net_visits {
                    0 => 0.5,
                    k => reward(exit.net_value_sum_p0 / k as f64, mover),
                };
                let score =
                    uct + w.w_a as f64 * exit.prior as f64 / (visits + 1.0) + w.w_v as f64 * q_hat;
                (false, score)
            };
            best.offer(child, score, rng);
        }
        best.child
    }
}

#[cfg(test)]
mod tests {
    use super::super::{MctsOptions, TreePolicy};
    use super::*;
    use crate::games::{Action, ConnectFour};
    use crate::search::budget::Budget;
    use rand::RngExt;
    use rand::SeedableRng;
    use rand::rngs::Xoshiro256PlusPlus;

    const W: ExitWeights = ExitWeights {
        c: 0.05,
        w_a: 100.0,
        w_v: 0.75,
    };

    /// A root and children with `(visits, playout value sum P0, prior, net visits, net value
    /// sum P0)`.
    fn tree(children: &[(u32, f64, f32, u32, f64)]) -> Mcts<ConnectFour> {
        let mut mcts = Mcts::new(MctsOptions {
            tree_policy: TreePolicy::Exit {
                c: W.c,
                w_a: W.w_a,
                w_v: W.w_v,
            },
            ..MctsOptions::uct()
        });
        let mut root = MctsNode::new(0);
        root.expanded = true;
        root.first_child = 1;
        root.num_children = children.len() as u16;
        root.visits = children.iter().map(|c| c.0).sum::<u32>() + 1;
        mcts.nodes.push(root);
        mcts.exit_nodes.push(ExitNode::default());
        for (k, &(visits, sum, prior, net_visits, net_sum)) in children.iter().enumerate() {
            let mut child = MctsNode::new(k as Action);
            child.visits = visits;
            child.value_sum_p0 = sum;
            mcts.nodes.push(child);
            mcts.exit_nodes.push(ExitNode {
                prior,
                net_value_sum_p0: net_sum,
                net_visits,
            });
        }
        mcts
    }

    #[test]
    fn selection_is_the_argmax_of_uct_exit_for_either_player() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
        for case in 0..500 {
            let count = rng.random_range(2..8);
            let children: Vec<_> = (0..count)
                .map(|_| {
                    let visits = rng.random_range(1..300u32);
                    let net_visits = rng.random_range(0..=visits);
                    (
                        visits,
                        rng.random_range(-1.0..1.0f64) * visits as f64,
                        rng.random_range(0.0..1.0f32),
                        net_visits,
                        rng.random_range(-1.0..1.0f64) * net_visits as f64,
                    )
                })
                .collect();
            let mcts = tree(&children);
            let ln_parent = (mcts.nodes[0].visits as f64).ln();
            for mover in [Player::P0, Player::P1] {
                let s = mover.sign() as f64;
                let score = |&(n, sum, prior, k, net): &(u32, f64, f32, u32, f64)| {
                    let n = n as f64;
                    let q_hat = if k == 0 {
                        0.5
                    } else {
                        (s * net / k as f64 + 1.0) / 2.0
                    };
                    (s * sum / n + 1.0) / 2.0
                        + 0.05 * (ln_parent / n).sqrt()
                        + 100.0 * prior as f64 / (n + 1.0)
                        + 0.75 * q_hat
                };
                let expected = (0..count)
                    .max_by(|&a, &b| score(&children[a]).total_cmp(&score(&children[b])))
                    .unwrap();
                let chosen = mcts.select_exit(0, mover, W, &mut rng) as usize - 1;
                assert_eq!(chosen, expected, "case {case}, {mover}: {children:?}");
            }
        }
        // Unvisited children first, the highest prior first.
        let mcts = tree(&[
            (90, 90.0, 0.9, 90, 90.0),
            (0, 0.0, 0.1, 0, 0.0),
            (0, 0.0, 0.3, 0, 0.0),
        ]);
        assert_eq!(mcts.select_exit(0, Player::P0, W, &mut rng), 3);
    }

    /// Value 0 everywhere and, as its policy, a logit of 3 for one action id.
    struct Prefers(Action);

    impl Evaluator<ConnectFour> for Prefers {
        fn evaluate(&self, _: &[ConnectFour], values_p0: &mut [f32]) {
            values_p0.fill(0.0);
        }

        fn evaluate_with_policy(
            &self,
            p: &[ConnectFour],
            v: &mut [f32],
            logits: &mut [f32],
        ) -> bool {
            self.evaluate(p, v);
            logits.fill(0.0);
            for l in logits.chunks_mut(ConnectFour::NUM_ACTIONS) {
                l[self.0 as usize] = 3.0;
            }
            true
        }
    }

    /// The root's visits after `iterations` ExIt simulations steered by `evaluator`.
    fn root_visits(evaluator: &dyn Evaluator<ConnectFour>, w_a: f32) -> Vec<u32> {
        let mut mcts = Mcts::<ConnectFour>::new(MctsOptions {
            tree_policy: TreePolicy::Exit {
                c: 0.05,
                w_a,
                w_v: 0.0,
            },
            ..MctsOptions::uct()
        });
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let root = ConnectFour::new(&Default::default());
        mcts.search(&root, &evaluator, &Budget::iterations(400), &mut rng);
        // Every simulation backed an apprentice (or exact) value up through the root.
        assert_eq!(mcts.exit_nodes[0].net_visits, 400);
        mcts.root_children().iter().map(|c| c.visits).collect()
    }

    /// The apprentice's policy steers the expert: with w_a = 100, the preferred column takes
    /// most visits, whichever it is; without the bonus (w_a = 0) it does not.
    #[test]
    fn the_apprentices_policy_steers_the_expert() {
        for column in [0, 6] {
            let visits = root_visits(&Prefers(column), 100.0);
            let most = *visits.iter().max().unwrap();
            assert!(
                visits[column as usize] == most && most > 200,
                "{column}: {visits:?}"
            );
            let plain = root_visits(&Prefers(column), 0.0);
            assert!(plain[column as usize] < 200, "{column}: {plain:?}");
        }
    }
}
