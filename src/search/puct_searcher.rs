//! `PuctSearcher`: PUCT (`search::puct`) behind the `Searcher` interface, so that an AlphaZero
//! network plays wherever an agent plays (`eval`, `tournament`, `play`, `engine`, `serve`).
//! One leaf is evaluated at a time, with the evaluator's policy as the priors when it has one
//! (a policy-value network) and the same prior for every move when it has none. No noise; the
//! move played is the most visited (the first of equals) — with the solver (`solver=true`), a
//! proven win before it and a proven loss only when every move is one; the root's value is the
//! mean value of that child, as MCTS reports it (its proven result when proven). Between the
//! moves of a game the tree is kept: the next search starts from the subtree of the position
//! reached (the move played and the replies since), its visits kept, as the AlphaZero paper
//! does; a budget counts the new simulations.

use std::time::Instant;

use super::budget::Budget;
use super::evaluator::Evaluator;
use super::puct::{Leaf, PuctOptions, PuctTree};
use super::searcher::{SearchRng, SearchRoot, Searcher};
use super::stats::SearchStats;
use super::table::ChildEdge;
use crate::games::{Action, Game};

/// The deepest descendant of the last root looked for when a search starts (the move played
/// and the replies: several plies in games where a turn makes several actions).
const REUSE_PLIES: usize = 8;

/// PUCT as a `Searcher`.
pub struct PuctSearcher<G: Game> {
    pub options: PuctOptions,
    children: Vec<ChildEdge>,
    value_p0: Option<f32>,
    /// Scratch: one leaf's policy logits over every action id.
    logits: Vec<f32>,
    /// The last search's tree, kept for the next move of the game.
    tree: Option<PuctTree<G>>,
}

impl<G: Game> PuctSearcher<G> {
    pub fn new(options: PuctOptions) -> Self {
        PuctSearcher {
            options,
            children: Vec::new(),
            value_p0: None,
            logits: Vec::new(),
            tree: None,
        }
    }

    /// The tree to search `position` with: the last one re-rooted there, or a new one.
    fn tree_for(&mut self, position: &G) -> PuctTree<G> {
        if let Some(mut tree) = self.tree.take()
            && tree.reroot_at(position, REUSE_PLIES)
        {
            return tree;
        }
        PuctTree::new(position, self.options)
    }

    /// Simulations of the tree the next search of `position` starts from (0: a new tree).
    pub fn kept_simulations(&mut self, position: &G) -> u32 {
        let tree = self.tree_for(position);
        let kept = tree.simulations();
        self.tree = Some(tree);
        kept
    }
}

impl<G: Game> Searcher<G> for PuctSearcher<G> {
    fn new_game(&mut self, _keep_resolved: bool) {
        self.children.clear();
        self.value_p0 = None;
        self.tree = None;
    }

    fn search(
        &mut self,
        position: &G,
        evaluator: &dyn Evaluator<G>,
        budget: &Budget,
        rng: &mut SearchRng,
    ) -> SearchStats {
        let start = Instant::now();
        let clock = budget.start();
        let mut tree = self.tree_for(position);
        let mut stats = SearchStats::default();
        self.logits.resize(G::NUM_ACTIONS, 0.0);
        while !clock.exhausted(stats.iterations) && tree.root_proven_p0().is_none() {
            stats.iterations += 1;
            let mut value = [0.0f32];
            match tree.next_leaf() {
                Leaf::Resolved => {
                    stats.terminal_visits += 1;
                    continue;
                }
                Leaf::Evaluate(leaf) => {
                    if !evaluator.evaluate_with_policy(
                        std::slice::from_ref(leaf),
                        &mut value,
                        &mut self.logits,
                    ) {
                        self.logits.fill(0.0);
                    }
                }
            }
            stats.evaluator_calls += 1;
            stats.evaluated_positions += 1;
            stats.expansions += 1;
            tree.expand(value[0], &self.logits, rng);
        }
        tree.root_edges(&mut self.children);
        self.value_p0 =
            proof_aware_most_visited(&self.children, position.to_move().sign()).map(|c| c.value_p0);
        self.tree = Some(tree);
        stats.seconds = start.elapsed().as_secs_f64();
        stats
    }

    fn root(&self, _position: &G) -> SearchRoot<'_> {
        SearchRoot {
            children: &self.children,
            value_p0: self.value_p0,
        }
    }

    fn decide(&self, position: &G, _rng: &mut SearchRng) -> Option<Action> {
        proof_aware_most_visited(&self.children, position.to_move().sign()).map(|c| c.action)
    }
}

/// The most visited child, but with the solver's proofs (`resolved` children) first: a proven
/// win for the chooser (`chooser_sign`, +1 for P0) before any other, a proven loss after every
/// other. Without proofs, `most_visited`.
fn proof_aware_most_visited(children: &[ChildEdge], chooser_sign: f32) -> Option<&ChildEdge> {
    let rank = |c: &ChildEdge| match c.resolved {
        true if c.value_p0 * chooser_sign > 0.0 => 2,
        true if c.value_p0 * chooser_sign < 0.0 => 0,
        _ => 1,
    };
    let best = children.iter().map(|c| (rank(c), c.visits)).max()?;
    children.iter().find(|c| (rank(c), c.visits) == best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{GameExt, TicTacToe};
    use crate::search::ConstantEvaluator;
    use rand::SeedableRng;

    /// Value 0 everywhere and, as its policy, a logit of 4 for one action id (0 elsewhere).
    struct Prefers(Action);

    impl Evaluator<TicTacToe> for Prefers {
        fn evaluate(&self, _: &[TicTacToe], values_p0: &mut [f32]) {
            values_p0.fill(0.0);
        }

        fn evaluate_with_policy(&self, p: &[TicTacToe], v: &mut [f32], logits: &mut [f32]) -> bool {
            self.evaluate(p, v);
            logits.fill(0.0);
            for l in logits.chunks_mut(TicTacToe::NUM_ACTIONS) {
                l[self.0 as usize] = 4.0;
            }
            true
        }
    }

    fn visits(evaluator: &dyn Evaluator<TicTacToe>, iterations: u64) -> Vec<u32> {
        let mut searcher = PuctSearcher::<TicTacToe>::new(PuctOptions::default());
        let position = TicTacToe::new(&Default::default());
        let mut rng = SearchRng::seed_from_u64(1);
        let stats = searcher.search(
            &position,
            evaluator,
            &Budget::iterations(iterations),
            &mut rng,
        );
        assert_eq!(stats.iterations, iterations);
        let root = Searcher::<TicTacToe>::root(&searcher, &position);
        assert_eq!(
            root.children.iter().map(|c| c.visits).sum::<u32>() as u64,
            iterations - 1,
            "every simulation but the root's expansion goes through a child"
        );
        root.children.iter().map(|c| c.visits).collect()
    }

    /// The evaluator's policy is the search's prior: with every value 0, the visits follow it;
    /// an evaluator without a policy gives every move the same prior and the same visits.
    #[test]
    fn the_evaluators_policy_steers_the_visits() {
        let steered = visits(&Prefers(4), 19);
        assert_eq!(steered.iter().max(), Some(&steered[4]), "{steered:?}");
        assert!(steered[4] >= 9, "{steered:?}");
        assert_eq!(visits(&ConstantEvaluator(0.0), 19), vec![2; 9]);
    }

    /// After a move, the next search starts with the played child's subtree: its visits kept,
    /// the budget's simulations added; a position outside the tree, or a new game, starts anew.
    #[test]
    fn the_next_search_starts_from_the_played_childs_subtree() {
        let mut rng = SearchRng::seed_from_u64(4);
        let evaluator = ConstantEvaluator(0.0);
        let mut searcher = PuctSearcher::<TicTacToe>::new(PuctOptions::default());
        let position = TicTacToe::new(&Default::default());
        searcher.search(&position, &evaluator, &Budget::iterations(200), &mut rng);
        let played = searcher.decide(&position, &mut rng).unwrap();
        let root = Searcher::<TicTacToe>::root(&searcher, &position);
        let child_visits = root
            .children
            .iter()
            .find(|c| c.action == played)
            .unwrap()
            .visits;
        assert!(child_visits > 1);
        let mut after = position;
        after.play(played);
        assert_eq!(searcher.kept_simulations(&after), child_visits);
        searcher.search(&after, &evaluator, &Budget::iterations(50), &mut rng);
        let root = Searcher::<TicTacToe>::root(&searcher, &after);
        let visits: u32 = root.children.iter().map(|c| c.visits).sum();
        assert_eq!(
            visits + 1,
            child_visits + 50,
            "kept visits and 50 new simulations"
        );
        // The reply the search liked best is kept too, two plies below the last root.
        let reply = searcher.decide(&after, &mut rng).unwrap();
        let mut replied = after;
        replied.play(reply);
        assert!(searcher.kept_simulations(&replied) > 0);
        // Another game's position, or a new game: a new tree.
        let mut elsewhere = TicTacToe::new(&Default::default());
        elsewhere.play_moves("a1 a2 b1").unwrap();
        assert_eq!(searcher.kept_simulations(&elsewhere), 0);
        searcher.search(&replied, &evaluator, &Budget::iterations(10), &mut rng);
        Searcher::<TicTacToe>::new_game(&mut searcher, false);
        assert_eq!(searcher.kept_simulations(&replied), 0);
    }

    /// Terminal states are found by the search: X to move wins at c1, and avoids losing.
    /// With the solver's proofs: a proven win first, however few its visits; a proven loss
    /// last, however many; without proofs, the most visited.
    #[test]
    fn a_proven_win_comes_first_and_a_proven_loss_last() {
        let edge = |action, visits, value_p0, resolved| ChildEdge {
            value_p0,
            visits,
            action,
            completion: 0,
            resolved,
        };
        let children = [
            edge(0, 90, -1.0, true),
            edge(1, 50, 0.2, false),
            edge(2, 5, 1.0, true),
            edge(3, 60, 0.1, false),
        ];
        let chosen = |children: &[ChildEdge], sign| {
            proof_aware_most_visited(children, sign).map(|c| c.action)
        };
        assert_eq!(chosen(&children, 1.0), Some(2));
        assert_eq!(chosen(&children, -1.0), Some(0), "P1 wins with 0");
        assert_eq!(chosen(&children[1..], -1.0), Some(3), "2 loses for P1");
        assert_eq!(chosen(&children[..2], 1.0), Some(1));
        assert_eq!(chosen(&children[..1], 1.0), Some(0));
        let unproven = children.map(|c| ChildEdge {
            resolved: false,
            ..c
        });
        assert_eq!(chosen(&unproven, 1.0), Some(0));
        assert_eq!(chosen(&[], 1.0), None);
    }

    #[test]
    fn it_takes_a_win_and_blocks_a_loss() {
        let mut rng = SearchRng::seed_from_u64(3);
        for (moves, expected) in [("a1 a2 b1 b2", "c1"), ("a1 a2 c3 b2", "c2")] {
            let mut position = TicTacToe::new(&Default::default());
            position.play_moves(moves).unwrap();
            let mut searcher = PuctSearcher::<TicTacToe>::new(PuctOptions::default());
            searcher.search(
                &position,
                &ConstantEvaluator(0.0),
                &Budget::iterations(400),
                &mut rng,
            );
            let action = searcher.decide(&position, &mut rng).unwrap();
            assert_eq!(
                TicTacToe::action_to_text(position.to_move(), action),
                expected,
                "{moves}"
            );
        }
    }
}
