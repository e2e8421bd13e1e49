//! Gumbel AlphaZero as a training recipe (Danihelka, Guez, Schrittwieser and Silver, "Policy
//! improvement by planning with Gumbel", ICLR 2022; docs/algorithms.md §14): each self-play move
//! searched with Gumbel search (`search::gumbel`: Gumbel-Top-m root actions, Sequential Halving
//! over the simulations, deterministic selection below the root), the move played the one the
//! search chooses — the root's Gumbel noise is the only exploration, no Dirichlet noise, no
//! temperature — and each position learned with the improved policy softmax(logits + σ(q̂)) as
//! its policy target. Made for few simulations a move (the paper: 2 to 16 still improve the
//! policy). The rounds, the lockstep self-play and the learning are every self-play round
//! recipe's (`rounds::self_play_trainer`); this file is what Gumbel AlphaZero decides in them.

pub mod settings;

pub use settings::{GumbelSection, GumbelSettings};

use rand::rngs::Xoshiro256PlusPlus;

use crate::games::{Action, Game};
use crate::search::gumbel::{GumbelOptions, GumbelTree, Leaf};
use crate::search::{Budget, SearchSpec};
use crate::selfplay::config::RecipeSettings;
use crate::selfplay::recipes::rounds::self_play::{MoveTree, SelfPlaySearch};
use crate::selfplay::recipes::rounds::self_play_trainer::SelfPlayTrainer;
use crate::selfplay::run::periodic_eval::budget_text;

/// The Gumbel AlphaZero recipe.
pub struct GumbelAlphaZero;

/// Gumbel AlphaZero's training on one game.
pub type GumbelTrainer<G> = SelfPlayTrainer<G, GumbelAlphaZero>;

impl<G: Game> SelfPlaySearch<G> for GumbelAlphaZero {
    const ROUND_KIND: &'static str = "gumbel_round";
    type Options = GumbelOptions;
    type Tree = GumbelTree<G>;

    fn settings(recipe: &RecipeSettings) -> Option<&GumbelSettings> {
        match recipe {
            RecipeSettings::Gumbel(settings) => Some(settings),
            _ => None,
        }
    }

    /// A full search draws its root's Gumbel noise; a fast one searches without it.
    fn new_tree(position: &G, options: &GumbelOptions, simulations: u32, full: bool) -> Self::Tree {
        let options = GumbelOptions {
            noise: full,
            ..*options
        };
        GumbelTree::new(position, options, simulations as usize)
    }

    /// The search's own choice: among the most visited, argmax g + logits + σ(q̂).
    fn play_choice(
        tree: &mut GumbelTree<G>,
        _: usize,
        _: &GumbelOptions,
        _: &mut Xoshiro256PlusPlus,
    ) -> Action {
        tree.chosen()
    }

    /// Gumbel search without the root's noise.
    fn evaluation_search(options: &GumbelOptions, budget: Budget) -> (String, SearchSpec) {
        let options = GumbelOptions {
            noise: false,
            ..*options
        };
        (
            format!("gumbel:model=<current>,{}", budget_text(&budget)),
            SearchSpec::Gumbel { budget, options },
        )
    }
}

impl<G: Game> MoveTree<G> for GumbelTree<G> {
    /// Sequential Halving ends on its own budget, given when the tree was made.
    fn is_done(&self, _: u32) -> bool {
        GumbelTree::is_done(self)
    }

    fn next_leaf(&mut self) -> Option<&G> {
        match GumbelTree::next_leaf(self) {
            Leaf::Evaluate(position) => Some(position),
            Leaf::Resolved => None,
        }
    }

    fn expand(&mut self, value_p0: f32, logits: &[f32], rng: &mut Xoshiro256PlusPlus) {
        GumbelTree::expand(self, value_p0, Some(logits), rng);
    }

    /// The improved policy at the root.
    fn policy_target(&mut self, out: &mut Vec<f32>) {
        self.improved_policy_target(out);
    }

    /// The mean value of the move played.
    fn root_value_p0(&self, played: Action) -> f32 {
        self.child_value_p0(played)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use rand::SeedableRng;

    use super::*;
    use crate::games::TicTacToe;

    /// The moves Gumbel AlphaZero's search of a self-play move chooses at the empty board for
    /// 16 seeds, every leaf valued 0 with equal logits: without noise nothing tells the moves
    /// apart, so one move is chosen every time; with it, the draws decide.
    fn chosen(full: bool) -> BTreeSet<Action> {
        let initial = TicTacToe::new(&Default::default());
        let options = GumbelOptions {
            noise: true,
            ..GumbelOptions::default()
        };
        let logits = [0.0; 9];
        let choose = |seed: u64| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut tree = <GumbelAlphaZero as SelfPlaySearch<TicTacToe>>::new_tree(
                &initial, &options, 8, full,
            );
            while !MoveTree::is_done(&tree, 8) {
                if MoveTree::next_leaf(&mut tree).is_some() {
                    MoveTree::expand(&mut tree, 0.0, &logits, &mut rng);
                }
            }
            <GumbelAlphaZero as SelfPlaySearch<TicTacToe>>::play_choice(
                &mut tree, 0, &options, &mut rng,
            )
        };
        (0..16).map(choose).collect()
    }

    #[test]
    fn a_fast_search_draws_no_gumbel_noise_and_a_full_one_does() {
        assert_eq!(chosen(false).len(), 1, "a fast search: {:?}", chosen(false));
        assert!(chosen(true).len() > 2, "a full search: {:?}", chosen(true));
    }
}
