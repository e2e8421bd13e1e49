//! The settings every round recipe that searches its self-play moves with its network has
//! (AlphaZero's `alphazero:` section, Gumbel AlphaZero's `gumbel:`), with its search's own
//! settings as `search`; and the section keys they share, checked once for both.

use crate::learn::augment::Augmentation;
use crate::selfplay::config::checks::{check, limit};
use crate::settings::config_error::ConfigError;
use crate::value::{AdamSettings, Architecture};

/// A self-play round recipe's training settings; `O` is its search's own.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlaySettings<O> {
    pub architecture: Architecture,
    /// The search's own settings (AlphaZero: PUCT with root noise and its temperature plies;
    /// Gumbel AlphaZero: Gumbel search).
    pub search: O,
    /// Simulations per move (AlphaZero: 800).
    pub simulations: u32,
    /// Playout cap randomisation (KataGo; Wu 2019, §3.1): with `Some(n)`, a move's search is
    /// the full one (`simulations`, root noise, learned) with probability
    /// `full_search_fraction`, else a fast one of `n` simulations, without noise and not
    /// learned. `None`: every search full (AlphaZero's).
    pub fast_simulations: Option<u32>,
    /// The share of full searches when `fast_simulations` is set (KataGo: 0.25).
    pub full_search_fraction: f64,
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
    /// game's outcome, q the search's value of the move played (0: AlphaZero's z).
    pub q_ratio: f32,
    pub adam: AdamSettings,
    /// Each drawn position learned with its images under the board's symmetries
    /// (`learning.augment_symmetries`, as the Athénan recipe learns its pairs).
    pub augmentation: Augmentation,
    pub seed: u64,
}

impl<O> SelfPlaySettings<O> {
    /// OpenSpiel's learning sizes, 32 games at once, every search full, from the initial
    /// position, with `search` and `simulations` a move.
    pub fn with_search(
        architecture: Architecture,
        search: O,
        simulations: u32,
    ) -> SelfPlaySettings<O> {
        SelfPlaySettings {
            architecture,
            search,
            simulations,
            fast_simulations: None,
            full_search_fraction: 0.25,
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

/// The keys the `alphazero:` and `gumbel:` sections share, as a section wrote them.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlayKeys {
    pub simulations: u32,
    pub fast_simulations: u32,
    pub full_search_fraction: f64,
    pub random_opening_plies: usize,
    pub parallel_games: usize,
    pub window: usize,
    pub batch_size: usize,
    pub reuse: f64,
    pub q_ratio: f32,
}

impl SelfPlayKeys {
    /// The settings these keys make with the search's own `search`; `run.threads` and
    /// `learning.augment_symmetries` are set by the configuration after.
    ///
    /// # Errors
    /// A value out of its range, naming the key under `section`.
    pub fn validate<O>(
        &self,
        section: &str,
        search: O,
        architecture: Architecture,
        adam: AdamSettings,
        seed: u64,
    ) -> Result<SelfPlaySettings<O>, ConfigError> {
        self.check_self_play(section)?;
        self.check_learning(section)?;
        Ok(SelfPlaySettings {
            fast_simulations: (self.fast_simulations > 0).then_some(self.fast_simulations),
            full_search_fraction: self.full_search_fraction,
            random_opening_plies: self.random_opening_plies,
            parallel_games: self.parallel_games,
            window: self.window,
            batch_size: self.batch_size,
            reuse: self.reuse,
            q_ratio: self.q_ratio,
            adam,
            seed,
            ..SelfPlaySettings::with_search(architecture, search, self.simulations)
        })
    }

    /// The self-play keys: simulations, their playout cap, openings, games at once.
    fn check_self_play(&self, section: &str) -> Result<(), ConfigError> {
        let key = |k: &str| format!("{section}.{k}");
        check(
            self.simulations >= 2,
            &key("simulations"),
            "must be at least 2",
        )?;
        limit(&key("simulations"), self.simulations, 1_000_000)?;
        check(
            self.fast_simulations == 0 || (2..self.simulations).contains(&self.fast_simulations),
            &key("fast_simulations"),
            &format!("must be 0 (off) or from 2 to fewer than {section}.simulations"),
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
    fn check_learning(&self, section: &str) -> Result<(), ConfigError> {
        let key = |k: &str| format!("{section}.{k}");
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
}
