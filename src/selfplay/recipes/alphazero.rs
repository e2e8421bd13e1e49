//! AlphaZero as a training recipe (docs/algorithms.md §12): self-play with PUCT (`search::puct`)
//! guided by a policy-value network, Dirichlet noise at the root, moves drawn in proportion to
//! the visits for the opening plies and the most visited after; each position learned with the
//! normalised visit counts as its policy target. The rounds, the lockstep self-play and the
//! learning are every self-play round recipe's (`rounds::self_play_trainer`); this file is
//! what AlphaZero decides in them.

pub mod settings;

pub use settings::{AlphaZeroSection, AlphaZeroSettings, PuctSelfPlay};

use rand::rngs::Xoshiro256PlusPlus;

use crate::games::{Action, Game};
use crate::search::puct::{Leaf, PuctOptions, PuctTree, choose_by_visits, visit_distribution};
use crate::search::{Budget, SearchSpec};
use crate::selfplay::config::RecipeSettings;
use crate::selfplay::recipes::rounds::self_play::{MoveTree, SelfPlaySearch};
use crate::selfplay::recipes::rounds::self_play_trainer::SelfPlayTrainer;
use crate::selfplay::run::periodic_eval::budget_text;

/// The AlphaZero recipe.
pub struct AlphaZero;

/// AlphaZero's training on one game.
pub type AlphaZeroTrainer<G> = SelfPlayTrainer<G, AlphaZero>;

impl<G: Game> SelfPlaySearch<G> for AlphaZero {
    const ROUND_KIND: &'static str = "alphazero_round";
    type Options = PuctSelfPlay;
    type Tree = PuctTree<G>;

    fn settings(recipe: &RecipeSettings) -> Option<&AlphaZeroSettings> {
        match recipe {
            RecipeSettings::Alphazero(settings) => Some(settings),
            _ => None,
        }
    }

    /// A fast search has no root noise.
    fn new_tree(position: &G, options: &PuctSelfPlay, _: u32, full: bool) -> PuctTree<G> {
        let puct = match full {
            true => options.puct,
            false => PuctOptions {
                dirichlet_fraction: 0.0,
                ..options.puct
            },
        };
        PuctTree::new(position, puct)
    }

    /// Drawn in proportion to the visits in the first `temperature_plies` plies, the most
    /// visited after.
    fn play_choice(
        tree: &mut PuctTree<G>,
        ply: usize,
        options: &PuctSelfPlay,
        rng: &mut Xoshiro256PlusPlus,
    ) -> Action {
        let temperature = match ply < options.temperature_plies {
            true => 1.0,
            false => 0.0,
        };
        choose_by_visits(&tree.root_visits(), temperature, rng)
    }

    /// PUCT without the root noise.
    fn evaluation_search(options: &PuctSelfPlay, budget: Budget) -> (String, SearchSpec) {
        let options = PuctOptions {
            dirichlet_fraction: 0.0,
            ..options.puct
        };
        (
            format!("puct:model=<current>,{}", budget_text(&budget)),
            SearchSpec::Puct { budget, options },
        )
    }
}

impl<G: Game> MoveTree<G> for PuctTree<G> {
    fn is_done(&self, simulations: u32) -> bool {
        self.simulations() > simulations
    }

    fn next_leaf(&mut self) -> Option<&G> {
        match PuctTree::next_leaf(self) {
            Leaf::Evaluate(position) => Some(position),
            Leaf::Resolved => None,
        }
    }

    fn expand(&mut self, value_p0: f32, logits: &[f32], rng: &mut Xoshiro256PlusPlus) {
        PuctTree::expand(self, value_p0, logits, rng);
    }

    /// The root's visit distribution.
    fn policy_target(&mut self, out: &mut Vec<f32>) {
        visit_distribution(&self.root_visits(), G::NUM_ACTIONS, out);
    }

    /// The root's mean value.
    fn root_value_p0(&self, _: Action) -> f32 {
        PuctTree::root_value_p0(self)
    }
}
