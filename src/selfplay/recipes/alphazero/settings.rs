//! `alphazero:` — AlphaZero's settings (docs/algorithms.md §12): the YAML section and the
//! settings it validates into. The defaults are the AlphaZero paper's search settings with
//! OpenSpiel's learning sizes; `network:` and `optimizer:` apply to both recipes (AlphaZero's
//! network is the same trunk with a policy head added).

use serde::{Deserialize, Serialize};

use crate::learn::augment::Augmentation;
use crate::search::gumbel::GumbelOptions;
use crate::search::puct::PuctOptions;
use crate::selfplay::config::checks::{check, limit};
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
    /// The self-play search: `puct` (default, AlphaZero's) or `gumbel` (Gumbel AlphaZero:
    /// Gumbel search, the improved policy as the policy target, docs/algorithms.md §14).
    pub search: SelfPlaySearch,
    /// Gumbel search: the root actions considered (default 16), c_visit (default 50) and
    /// c_scale (default 0.1), `mctx`'s.
    pub gumbel_m: u32,
    pub c_visit: f32,
    pub c_scale: f32,
}

/// AlphaZero's self-play search (`alphazero.search`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SelfPlaySearch {
    #[default]
    Puct,
    Gumbel,
}

impl Default for AlphaZeroSection {
    fn default() -> Self {
        let puct = PuctOptions::default();
        let gumbel = GumbelOptions::default();
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
            search: SelfPlaySearch::Puct,
            gumbel_m: gumbel.considered,
            c_visit: gumbel.c_visit,
            c_scale: gumbel.c_scale,
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
        self.check_self_play()?;
        self.check_learning()?;
        self.check_search()?;
        Ok(AlphaZeroSettings {
            architecture,
            gumbel: (self.search == SelfPlaySearch::Gumbel).then_some(GumbelOptions {
                considered: self.gumbel_m,
                c_visit: self.c_visit,
                c_scale: self.c_scale,
                noise: true,
                ..GumbelOptions::default()
            }),
            puct: PuctOptions {
                c_init: self.c_init,
                c_base: self.c_base,
                fpu: self.fpu,
                dirichlet_alpha: self.dirichlet_alpha,
                dirichlet_fraction: self.dirichlet_fraction,
                ..PuctOptions::default()
            },
            simulations: self.simulations,
            fast_simulations: (self.fast_simulations > 0).then_some(self.fast_simulations),
            full_search_fraction: self.full_search_fraction,
            temperature_plies: self.temperature_plies,
            random_opening_plies: self.random_opening_plies,
            parallel_games: self.parallel_games,
            threads: 1,
            window: self.window,
            batch_size: self.batch_size,
            reuse: self.reuse,
            q_ratio: self.q_ratio,
            adam,
            augmentation: crate::learn::augment::Augmentation::One,
            seed,
        })
    }

    /// The self-play keys: simulations, their playout cap, openings, games at once.
    fn check_self_play(&self) -> Result<(), ConfigError> {
        let key = |k: &str| format!("alphazero.{k}");
        check(
            self.simulations >= 2,
            &key("simulations"),
            "must be at least 2",
        )?;
        limit(&key("simulations"), self.simulations, 1_000_000)?;
        check(
            self.fast_simulations == 0 || (2..self.simulations).contains(&self.fast_simulations),
            &key("fast_simulations"),
            "must be 0 (off) or from 2 to fewer than alphazero.simulations",
        )?;
        check(
            self.full_search_fraction > 0.0 && self.full_search_fraction <= 1.0,
            &key("full_search_fraction"),
            "must be a number in (0, 1]",
        )?;
        limit(
            &key("random_opening_plies"),
            self.random_opening_plies,
            100_000,
        )?;
        check(
            self.parallel_games >= 1,
            &key("parallel_games"),
            "must be at least 1",
        )?;
        limit(&key("parallel_games"), self.parallel_games, 4096)?;
        Ok(())
    }

    /// The learning keys: minibatch, window, reuse, value target.
    fn check_learning(&self) -> Result<(), ConfigError> {
        let key = |k: &str| format!("alphazero.{k}");
        check(
            self.batch_size >= 1,
            &key("batch_size"),
            "must be at least 1",
        )?;
        limit(&key("batch_size"), self.batch_size, 65_536)?;
        check(
            self.window >= self.batch_size,
            &key("window"),
            "must hold at least one minibatch (≥ batch_size)",
        )?;
        limit(&key("window"), self.window, 1 << 22)?;
        check(
            self.reuse > 0.0 && self.reuse <= 1000.0,
            &key("reuse"),
            "must be a number in (0, 1000]",
        )?;
        check(
            (0.0..=1.0).contains(&self.q_ratio),
            &key("q_ratio"),
            "must be in [0, 1]",
        )?;
        Ok(())
    }

    /// PUCT's and Gumbel's constants.
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
        check(
            (1..=1024).contains(&self.gumbel_m),
            &key("gumbel_m"),
            "must be from 1 to 1024",
        )?;
        for (name, value) in [("c_visit", self.c_visit), ("c_scale", self.c_scale)] {
            check(
                value.is_finite() && value > 0.0,
                &key(name),
                "must be a positive number",
            )?;
        }
        Ok(())
    }
}

/// AlphaZero's training settings.
#[derive(Clone, Debug, PartialEq)]
pub struct AlphaZeroSettings {
    pub architecture: Architecture,
    /// PUCT in self-play (its Dirichlet fraction the AlphaZero paper's 0.25).
    pub puct: PuctOptions,
    /// Gumbel search in self-play instead of PUCT (Gumbel AlphaZero, docs/algorithms.md §14):
    /// the improved policy is the policy target, the root's Gumbel noise the exploration.
    pub gumbel: Option<GumbelOptions>,
    /// Simulations per move (AlphaZero: 800).
    pub simulations: u32,
    /// Playout cap randomisation (KataGo; Wu 2019, §3.1): with `Some(n)`, a move's search is
    /// the full one (`simulations`, root noise, learned) with probability
    /// `full_search_fraction`, else a fast one of `n` simulations, without noise and not
    /// learned. `None`: every search full (AlphaZero's).
    pub fast_simulations: Option<u32>,
    /// The share of full searches when `fast_simulations` is set (KataGo: 0.25).
    pub full_search_fraction: f64,
    /// Plies whose move is drawn in proportion to the visits (AlphaZero: 30); the most
    /// visited after.
    pub temperature_plies: usize,
    /// Each self-play game opens with a number of uniformly random moves drawn uniformly from 0
    /// to this (0: every game from the initial position), never one that ends the game; those
    /// plies are not learned.
    pub random_opening_plies: usize,
    /// Games played at once in a round, their leaves evaluated in one batch a thread.
    pub parallel_games: usize,
    /// Threads a round's games are dealt to (`run.threads`; at most `parallel_games`).
    pub threads: usize,
    /// Positions kept for learning, the latest (OpenSpiel: 2^16).
    pub window: usize,
    pub batch_size: usize,
    /// How many times each new position is learned on average (OpenSpiel's buffer reuse: 3).
    pub reuse: f64,
    /// The value target's share of the search's root value: `(1 − q_ratio)·z + q_ratio·q`, z the
    /// game's outcome, q the root's mean value after the move's search (0: AlphaZero's z).
    pub q_ratio: f32,
    pub adam: AdamSettings,
    /// Each drawn position learned with its images under the board's symmetries
    /// (`learning.augment_symmetries`, as the Athénan recipe learns its pairs).
    pub augmentation: Augmentation,
    pub seed: u64,
}

impl AlphaZeroSettings {
    /// The AlphaZero paper's search settings with OpenSpiel's learning sizes.
    pub fn new(architecture: Architecture) -> AlphaZeroSettings {
        AlphaZeroSettings {
            architecture,
            puct: PuctOptions {
                dirichlet_fraction: 0.25,
                ..PuctOptions::default()
            },
            gumbel: None,
            simulations: 800,
            fast_simulations: None,
            full_search_fraction: 0.25,
            temperature_plies: 30,
            random_opening_plies: 0,
            parallel_games: 32,
            threads: 1,
            window: 1 << 16,
            batch_size: 1024,
            reuse: 3.0,
            q_ratio: 0.0,
            adam: AdamSettings {
                l2: 1e-4,
                ..AdamSettings::default()
            },
            augmentation: Augmentation::One,
            seed: 1,
        }
    }
}
