//! `alphazero:` — AlphaZero's section (docs/algorithms.md §12), validated into its settings
//! (`AlphaZeroSettings`). The defaults are the AlphaZero paper's search settings with
//! OpenSpiel's learning sizes; `network:` and `optimizer:` apply to every recipe (AlphaZero's
//! network is the same trunk with a policy head added).

use serde::{Deserialize, Serialize};

use crate::search::puct::PuctOptions;
use crate::selfplay::config::checks::check;
use crate::selfplay::recipes::rounds::settings::{SelfPlayKeys, SelfPlaySettings};
use crate::settings::config_error::ConfigError;
use crate::value::{AdamSettings, Architecture};

/// AlphaZero's self-play and learning.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AlphaZeroSection {
    /// Simulations per move (default 800, the AlphaZero paper's).
    pub simulations: u32,
    /// Playout cap randomisation (KataGo's): the simulations of a fast search, one that is
    /// played but not learned and has no root noise (default 0: every search is a full one).
    pub fast_simulations: u32,
    /// The share of moves searched in full when `fast_simulations` is set (default 0.25,
    /// KataGo's); only those positions are learned.
    pub full_search_fraction: f64,
    /// Plies whose move is drawn in proportion to the visits; the most visited after
    /// (default 30).
    pub temperature_plies: usize,
    /// The most uniformly random moves a self-play game opens with, their number drawn from 0 to
    /// this for each game; never a move that ends the game; not learned (default 0).
    pub random_opening_plies: usize,
    /// Games played at once, their leaves evaluated in one batch (default 32).
    pub parallel_games: usize,
    /// Positions kept for learning, the latest (default 65536, OpenSpiel's).
    pub window: usize,
    /// Positions per minibatch (default 1024, OpenSpiel's).
    pub batch_size: usize,
    /// Times each new position is learned on average (default 3, OpenSpiel's).
    pub reuse: f64,
    /// The value target's share of the search's root value, in [0, 1] (default 0: the outcome).
    pub q_ratio: f32,
    /// PUCT's c_init (default 1.25) and c_base (default 19652).
    pub c_init: f32,
    pub c_base: f32,
    /// Value of an unvisited child for the player choosing (default 0, OpenSpiel's).
    pub fpu: f32,
    /// Dirichlet α of the root noise (default: 10 / legal moves, within [0.03, 1]).
    pub dirichlet_alpha: Option<f32>,
    /// The noise's share of the root priors in self-play (default 0.25).
    pub dirichlet_fraction: f32,
    /// Kept so that the configuration of a run made before Gumbel AlphaZero became its own
    /// recipe still reads: `puct` only (`gumbel` is refused, naming `recipe: gumbel`).
    #[serde(skip_serializing)]
    pub search: LegacySearch,
    /// Kept, as `search`, at the values such a run wrote (16, 50, 0.1); any other is refused.
    #[serde(skip_serializing)]
    pub gumbel_m: Option<u32>,
    #[serde(skip_serializing)]
    pub c_visit: Option<f32>,
    #[serde(skip_serializing)]
    pub c_scale: Option<f32>,
}

/// `alphazero.search` of runs made before `recipe: gumbel`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LegacySearch {
    #[default]
    Puct,
    Gumbel,
}

impl Default for AlphaZeroSection {
    fn default() -> Self {
        let puct = PuctOptions::default();
        AlphaZeroSection {
            simulations: 800,
            fast_simulations: 0,
            full_search_fraction: 0.25,
            temperature_plies: 30,
            random_opening_plies: 0,
            parallel_games: 32,
            window: 1 << 16,
            batch_size: 1024,
            reuse: 3.0,
            q_ratio: 0.0,
            c_init: puct.c_init,
            c_base: puct.c_base,
            fpu: puct.fpu,
            dirichlet_alpha: None,
            dirichlet_fraction: 0.25,
            search: LegacySearch::Puct,
            gumbel_m: None,
            c_visit: None,
            c_scale: None,
        }
    }
}

impl AlphaZeroSection {
    /// # Errors
    /// A value out of its range, naming the key.
    pub fn validate(
        &self,
        architecture: Architecture,
        adam: AdamSettings,
        seed: u64,
    ) -> Result<AlphaZeroSettings, ConfigError> {
        self.check_search()?;
        self.check_legacy_keys()?;
        let search = PuctSelfPlay {
            puct: PuctOptions {
                c_init: self.c_init,
                c_base: self.c_base,
                fpu: self.fpu,
                dirichlet_alpha: self.dirichlet_alpha,
                dirichlet_fraction: self.dirichlet_fraction,
                ..PuctOptions::default()
            },
            temperature_plies: self.temperature_plies,
        };
        self.keys()
            .validate("alphazero", search, architecture, adam, seed)
    }

    /// The keys every self-play round recipe has.
    fn keys(&self) -> SelfPlayKeys {
        SelfPlayKeys {
            simulations: self.simulations,
            fast_simulations: self.fast_simulations,
            full_search_fraction: self.full_search_fraction,
            random_opening_plies: self.random_opening_plies,
            parallel_games: self.parallel_games,
            window: self.window,
            batch_size: self.batch_size,
            reuse: self.reuse,
            q_ratio: self.q_ratio,
        }
    }

    /// Reads away the Gumbel keys a run's configuration held before `recipe: gumbel`: at the
    /// values such a run wrote they are dropped, so that the section equals the one written
    /// today (an experiment compares the two); any other value is refused.
    ///
    /// # Errors
    /// `search: gumbel`, or a Gumbel key at another value, naming the recipe it became.
    pub fn take_old_keys(&mut self) -> Result<(), ConfigError> {
        self.check_legacy_keys()?;
        self.gumbel_m = None;
        self.c_visit = None;
        self.c_scale = None;
        Ok(())
    }

    /// The Gumbel keys a run's configuration held before `recipe: gumbel`: read at the values
    /// it wrote, refused otherwise.
    fn check_legacy_keys(&self) -> Result<(), ConfigError> {
        let moved = "Gumbel AlphaZero is its own recipe: write `recipe: gumbel` with a `gumbel:` section (configs/gumbel-connect_four.yaml)";
        check(self.search == LegacySearch::Puct, "alphazero.search", moved)?;
        let legacy = [
            ("gumbel_m", self.gumbel_m.map(|m| m as f32), 16.0),
            ("c_visit", self.c_visit, 50.0),
            ("c_scale", self.c_scale, 0.1),
        ];
        for (name, value, written) in legacy {
            check(
                value.is_none_or(|v| v == written),
                &format!("alphazero.{name}"),
                moved,
            )?;
        }
        Ok(())
    }

    /// PUCT's constants.
    fn check_search(&self) -> Result<(), ConfigError> {
        let key = |k: &str| format!("alphazero.{k}");
        for (name, value) in [("c_init", self.c_init), ("c_base", self.c_base)] {
            check(
                value.is_finite() && value > 0.0,
                &key(name),
                "must be a positive number",
            )?;
        }
        check(
            (-1.0..=1.0).contains(&self.fpu),
            &key("fpu"),
            "must be in [-1, 1]",
        )?;
        check(
            self.dirichlet_alpha
                .is_none_or(|a| a.is_finite() && a > 0.0),
            &key("dirichlet_alpha"),
            "must be a positive number (leave it out for 10 / legal moves)",
        )?;
        check(
            (0.0..=1.0).contains(&self.dirichlet_fraction),
            &key("dirichlet_fraction"),
            "must be in [0, 1]",
        )?;
        Ok(())
    }
}

/// AlphaZero's training settings.
pub type AlphaZeroSettings = SelfPlaySettings<PuctSelfPlay>;

/// AlphaZero's self-play search: PUCT with root noise, and the plies played at temperature 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PuctSelfPlay {
    /// PUCT in self-play (its Dirichlet fraction the AlphaZero paper's 0.25).
    pub puct: PuctOptions,
    /// Plies whose move is drawn in proportion to the visits (AlphaZero: 30); the most
    /// visited after.
    pub temperature_plies: usize,
}

impl AlphaZeroSettings {
    /// The AlphaZero paper's search settings (800 simulations, root noise 0.25, 30 plies at
    /// temperature 1) with OpenSpiel's learning sizes.
    pub fn new(architecture: Architecture) -> AlphaZeroSettings {
        let search = PuctSelfPlay {
            puct: PuctOptions {
                dirichlet_fraction: 0.25,
                ..PuctOptions::default()
            },
            temperature_plies: 30,
        };
        SelfPlaySettings::with_search(architecture, search, 800)
    }
}
