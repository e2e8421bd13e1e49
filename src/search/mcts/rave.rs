//! UCT-RAVE (S. Gelly and D. Silver, *Combining online and offline knowledge in UCT*, ICML
//! 2007; *Monte-Carlo tree search and rapid action value estimation in computer Go*, AIJ 2011):
//! each child also keeps the all-moves-as-first (AMAF) statistics — the values of every
//! simulation through its parent in which the parent's mover played the child's move at the
//! parent or at any later ply of the simulation, tree or playout, before the opponent played it.
//! Selection blends the child's mean reward `Q` with its AMAF mean `Q̃`:
//! `(1 − β)·Q + β·Q̃ + c·√(ln N / (n + 1))`, with the hand-set schedule `β = √(k / (3N + k))`
//! (`N` the parent's visits, `k` the equivalence parameter: the visits at which both weigh
//! alike); a child not yet visited is valued by `Q̃` alone, one with neither by 1 (tried first).
//! Rewards are in [0, 1] for the player choosing. A move one plays anywhere in a simulation is
//! credited as if played now: in Go, where a point is often as good now as a little later,
//! this gives each of a node's children a value after a few simulations instead of one each.

use rand::Rng;

use super::{Mcts, RandomArgmax, reward};
use crate::games::{Game, Player};

impl<G: Game> Mcts<G> {
    /// The child to follow from `node` for `mover` by UCT-RAVE (see the module doc).
    pub(super) fn select_rave<R: Rng + ?Sized>(
        &self,
        node: u32,
        mover: Player,
        c: f32,
        k: f32,
        rng: &mut R,
    ) -> u32 {
        let n = self.nodes[node as usize];
        let parent_visits = n.visits as f64;
        let (c, k) = (c as f64, k as f64);
        let beta = (k / (3.0 * parent_visits + k)).sqrt();
        let log_parent = parent_visits.max(1.0).ln();
        let mut best = RandomArgmax::new(n.first_child, f64::NEG_INFINITY);
        for child in n.first_child..n.first_child + n.num_children as u32 {
            let ch = self.nodes[child as usize];
            let mean = (ch.visits > 0).then(|| reward(ch.value_sum_p0 / ch.visits as f64, mover));
            let amaf = (ch.amaf_visits > 0)
                .then(|| reward(ch.amaf_value_sum_p0 / ch.amaf_visits as f64, mover));
            let value = match (mean, amaf) {
                (Some(q), Some(q_amaf)) => (1.0 - beta) * q + beta * q_amaf,
                (Some(q), None) => q,
                (None, Some(q_amaf)) => q_amaf,
                (None, None) => 1.0,
            };
            let score = value + c * (log_parent / (ch.visits as f64 + 1.0)).sqrt();
            best.offer(child, score, rng);
        }
        best.child
    }

    /// Adds the simulation's value to the AMAF statistics of the children of every node on its
    /// path whose move that node's mover played first from that node on (the simulation's
    /// moves, tree then playout, are in `played`; the path's last node has no children yet).
    /// Scans the moves backwards once, keeping per action who played it earliest so far. A pass
    /// (`Game::PASS_ACTION`) is never credited: every playout ends with passes, so its AMAF
    /// mean would be the mean of all, and a search that trusts it passes while the opponent
    /// plays on.
    pub(super) fn back_up_amaf(&mut self, value_p0: f32) {
        if self.first_mover.len() < G::NUM_ACTIONS {
            self.first_mover.resize(G::NUM_ACTIONS, None);
        }
        let nodes_with_children = self.path.len() - 1;
        for ply in (0..self.played.len()).rev() {
            let (player, action) = self.played[ply];
            if Some(action) != G::PASS_ACTION {
                self.first_mover[action as usize] = Some(player);
            }
            if ply >= nodes_with_children {
                continue;
            }
            let parent = self.nodes[self.path[ply] as usize];
            for child in parent.first_child..parent.first_child + parent.num_children as u32 {
                let ch = &mut self.nodes[child as usize];
                if self.first_mover[ch.action as usize] == Some(player) {
                    ch.amaf_visits += 1;
                    ch.amaf_value_sum_p0 += value_p0 as f64;
                }
            }
        }
        for &(_, action) in &self.played {
            self.first_mover[action as usize] = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::Xoshiro256PlusPlus;

    use super::super::{MctsNode, MctsOptions, TreePolicy};
    use super::*;
    use crate::games::{Action, ConnectFour};
    use Player::{P0, P1};

    /// Root (node 0) with children 1..=7 for the columns 0..=6; the child of column 2 (node 3)
    /// with children 8..=14, the same columns.
    fn two_level_tree() -> Mcts<ConnectFour> {
        let mut mcts = Mcts::new(MctsOptions {
            tree_policy: TreePolicy::Rave { c: 0.0, k: 1000.0 },
            ..MctsOptions::uct()
        });
        let parent = |first_child| MctsNode {
            expanded: true,
            first_child,
            num_children: 7,
            ..MctsNode::new(0)
        };
        mcts.nodes.push(parent(1));
        for column in 0..7 {
            mcts.nodes.push(if column == 2 {
                MctsNode {
                    action: 2,
                    ..parent(8)
                }
            } else {
                MctsNode::new(column)
            });
        }
        mcts.nodes.extend((0..7).map(MctsNode::new));
        mcts
    }

    /// The columns among `nodes` whose AMAF statistics are `(visits, value sum)`.
    fn amaf_of(mcts: &Mcts<ConnectFour>, nodes: std::ops::Range<usize>) -> Vec<(Action, u32, f64)> {
        mcts.nodes[nodes]
            .iter()
            .filter(|n| n.amaf_visits > 0)
            .map(|n| (n.action, n.amaf_visits, n.amaf_value_sum_p0))
            .collect()
    }

    #[test]
    fn amaf_credits_each_move_its_nodes_mover_played_first_from_that_node_on() {
        let mut mcts = two_level_tree();
        // Tree moves: P0 column 2 (root → node 3), P1 column 3 (node 3 → node 11, the leaf);
        // then the playout.
        mcts.path = vec![0, 3, 11];
        mcts.played = vec![
            (P0, 2),
            (P1, 3),
            (P0, 5),
            (P1, 2),
            (P0, 3),
            (P1, 6),
            (P0, 6),
        ];
        mcts.back_up_amaf(1.0);
        // At the root P0 moves: 2 and 5 are P0's first; 3 and 6 P1 played first.
        assert_eq!(amaf_of(&mcts, 1..8), [(2, 1, 1.0), (5, 1, 1.0)]);
        // At node 3 P1 moves, from ply 1 on: 2 (its ply-3 move; ply 0 is before), 3 and 6.
        assert_eq!(
            amaf_of(&mcts, 8..15),
            [(2, 1, 1.0), (3, 1, 1.0), (6, 1, 1.0)]
        );
        // A second simulation starts from a clean slate of first movers.
        mcts.path = vec![0, 3, 11];
        mcts.played = vec![(P0, 2), (P1, 3), (P0, 6)];
        mcts.back_up_amaf(-1.0);
        assert_eq!(
            amaf_of(&mcts, 1..8),
            [(2, 2, 0.0), (5, 1, 1.0), (6, 1, -1.0)]
        );
        assert_eq!(
            amaf_of(&mcts, 8..15),
            [(2, 1, 1.0), (3, 2, 0.0), (6, 1, 1.0)]
        );
    }

    #[test]
    fn a_pass_earns_no_amaf_credit_though_its_player_passed_first() {
        type Go9 = crate::games::Go<9>;
        let mut mcts = Mcts::<Go9>::new(MctsOptions {
            tree_policy: TreePolicy::Rave { c: 0.0, k: 1000.0 },
            ..MctsOptions::uct()
        });
        // The root's children: e5 (40), a1 (0) and the pass; the simulation went through e5, and
        // its playout ended with the root's mover (P0) passing first.
        mcts.nodes.push(MctsNode {
            expanded: true,
            first_child: 1,
            num_children: 3,
            ..MctsNode::new(0)
        });
        mcts.nodes.extend([40, 0, Go9::PASS].map(MctsNode::new));
        mcts.path = vec![0, 1];
        mcts.played = vec![
            (P0, 40),
            (P1, 3),
            (P0, 0),
            (P1, 5),
            (P0, Go9::PASS),
            (P1, Go9::PASS),
        ];
        mcts.back_up_amaf(1.0);
        let amaf_visits: Vec<u32> = mcts.nodes[1..].iter().map(|n| n.amaf_visits).collect();
        assert_eq!(amaf_visits, [1, 1, 0]);
    }

    /// Root children: `(visits, value sum P0, AMAF visits, AMAF value sum P0)`.
    fn root_with(parent_visits: u32, children: &[(u32, f64, u32, f64)]) -> Mcts<ConnectFour> {
        let mut mcts = two_level_tree();
        mcts.nodes.truncate(1 + children.len());
        mcts.nodes[0].visits = parent_visits;
        mcts.nodes[0].num_children = children.len() as u16;
        for (node, &(visits, sum, amaf_visits, amaf_sum)) in
            mcts.nodes[1..].iter_mut().zip(children)
        {
            (node.visits, node.value_sum_p0) = (visits, sum);
            (node.amaf_visits, node.amaf_value_sum_p0) = (amaf_visits, amaf_sum);
            node.expanded = false;
        }
        mcts
    }

    #[test]
    fn rave_trusts_amaf_early_and_the_mean_late_for_either_player() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        // Column 0: mean +0.8 for P0 over 10 visits, AMAF −0.5; column 1: mean 0, AMAF +0.9.
        let children = [(10, 8.0, 100, -50.0), (10, 0.0, 100, 90.0)];
        // 20 visits: β = √(1000 / 1060) ≈ 0.97, the AMAF means decide: P0 column 1, P1 column 0.
        let early = root_with(20, &children);
        assert_eq!(early.select_rave(0, P0, 0.0, 1000.0, &mut rng), 2);
        assert_eq!(early.select_rave(0, P1, 0.0, 1000.0, &mut rng), 1);
        // A million visits: β ≈ 0.018, the means decide: P0 column 0, P1 column 1.
        let late = root_with(1_000_000, &children);
        assert_eq!(late.select_rave(0, P0, 0.0, 1000.0, &mut rng), 1);
        assert_eq!(late.select_rave(0, P1, 0.0, 1000.0, &mut rng), 2);
        // k sets the crossing: with k = 1 the means decide at 20 visits already.
        assert_eq!(early.select_rave(0, P0, 0.0, 1.0, &mut rng), 1);
        // An unvisited child is valued by its AMAF mean alone, one without any AMAF first.
        let unvisited = root_with(
            20,
            &[(10, 8.0, 10, 8.0), (0, 0.0, 10, 9.0), (5, 2.5, 0, 0.0)],
        );
        assert_eq!(unvisited.select_rave(0, P0, 0.0, 1000.0, &mut rng), 2);
        let untried = root_with(20, &[(10, 5.0, 10, 5.0), (0, 0.0, 0, 0.0)]);
        assert_eq!(untried.select_rave(0, P0, 0.0, 1000.0, &mut rng), 2);
        // Exploration: c·√(ln N / (n + 1)) lifts the less visited of two equal children.
        let equal = root_with(100, &[(80, 0.0, 80, 0.0), (5, 0.0, 5, 0.0)]);
        assert_eq!(equal.select_rave(0, P0, 0.5, 1000.0, &mut rng), 2);
    }
}
