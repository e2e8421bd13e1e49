//! `gumbel:` — Gumbel AlphaZero's section (docs/algorithms.md §14), validated into its settings
//! (`GumbelSettings`). Its keys are AlphaZero's less PUCT's (`c_init`, `c_base`, `fpu`, the
//! Dirichlet noise, `temperature_plies`: Gumbel search explores by its root's Gumbel noise and
//! plays its own choice), with Gumbel search's `m`, `c_visit` and `c_scale` (`mctx`'s defaults).

use serde::{Deserialize, Serialize};

use crate::search::gumbel::GumbelOptions;
use crate::selfplay::config::checks::check;
use crate::selfplay::recipes::rounds::settings::{SelfPlayKeys, SelfPlaySettings};
use crate::settings::config_error::ConfigError;
use crate::value::{AdamSettings, Architecture};

/// Gumbel AlphaZero's self-play and learning.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GumbelSection {
    /// Simulations per move (default 16; the Gumbel paper: 2 to 16 still improve the policy).
    pub simulations: u32,
    /// The root actions considered, the m of Gumbel-Top-m (default 16, `mctx`'s).
    pub m: u32,
    /// σ(q̂) = (c_visit + max N) · c_scale · q̂ (defaults 50 and 0.1, `mctx`'s).
    pub c_visit: f32,
    pub c_scale: f32,
    /// Playout cap randomisation, as `alphazero.fast_simulations` (a fast search has no Gumbel
    /// noise and is not learned; default 0: off).
    pub fast_simulations: u32,
    /// The share of moves searched in full when `fast_simulations` is set (default 0.25).
    pub full_search_fraction: f64,
    /// The most uniformly random moves a game opens with, as `alphazero.random_opening_plies`
    /// (default 0).
    pub random_opening_plies: usize,
    /// Games played at once, their leaves evaluated in one batch (default 32).
    pub parallel_games: usize,
    /// Positions kept for learning, the latest (default 65536).
    pub window: usize,
    /// Positions per minibatch (default 1024).
    pub batch_size: usize,
    /// Times each new position is learned on average (default 3).
    pub reuse: f64,
    /// The value target's share of the search's value of the move played, in [0, 1] (default
    /// 0: the outcome).
    pub q_ratio: f32,
}

impl Default for GumbelSection {
    fn default() -> Self {
        let search = GumbelOptions::default();
        GumbelSection {
            simulations: 16,
            m: search.considered,
            c_visit: search.c_visit,
            c_scale: search.c_scale,
            fast_simulations: 0,
            full_search_fraction: 0.25,
            random_opening_plies: 0,
            parallel_games: 32,
            window: 1 << 16,
            batch_size: 1024,
            reuse: 3.0,
            q_ratio: 0.0,
        }
    }
}

impl GumbelSection {
    /// # Errors
    /// A value out of its range, naming the key.
    pub fn validate(
        &self,
        architecture: Architecture,
        adam: AdamSettings,
        seed: u64,
    ) -> Result<GumbelSettings, ConfigError> {
        check(
            (1..=1024).contains(&self.m),
            "gumbel.m",
            "must be from 1 to 1024",
        )?;
        for (name, value) in [("c_visit", self.c_visit), ("c_scale", self.c_scale)] {
            check(
                value.is_finite() && value > 0.0,
                &format!("gumbel.{name}"),
                "must be a positive number",
            )?;
        }
        let search = GumbelOptions {
            considered: self.m,
            c_visit: self.c_visit,
            c_scale: self.c_scale,
            noise: true,
            ..GumbelOptions::default()
        };
        let keys = SelfPlayKeys {
            simulations: self.simulations,
            fast_simulations: self.fast_simulations,
            full_search_fraction: self.full_search_fraction,
            random_opening_plies: self.random_opening_plies,
            parallel_games: self.parallel_games,
            window: self.window,
            batch_size: self.batch_size,
            reuse: self.reuse,
            q_ratio: self.q_ratio,
        };
        keys.validate("gumbel", search, architecture, adam, seed)
    }
}

/// Gumbel AlphaZero's training settings.
pub type GumbelSettings = SelfPlaySettings<GumbelOptions>;

impl GumbelSettings {
    /// `mctx`'s search settings (m = 16, c_visit = 50, c_scale = 0.1), 16 simulations a move,
    /// OpenSpiel's learning sizes.
    pub fn new(architecture: Architecture) -> GumbelSettings {
        SelfPlaySettings::with_search(architecture, GumbelOptions::default(), 16)
    }
}
