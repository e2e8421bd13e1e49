//! The Athénan recipe's settings: its YAML sections, each in its own file below — `search:`
//! (the self-play search), `learning:` (what is learned and from which values; its
//! `augment_symmetries` is the one key every recipe reads), `selection:` (the move played),
//! `replay:` and `resolved_states:` — validated together into `AthenanSettings`, with the
//! checks that need two of them or the run's section.

mod learning;
mod replay;
mod search;
mod selection;

use std::time::Duration;

pub use self::learning::{
    DEFAULT_ROWS_PER_EVALUATION, LearningSection, LearningSettings, TargetsName, TerminalEvalName,
};
pub use self::replay::{ReplayKind, ReplaySection, ReplaySettings, ResolvedStatesSection};
pub use self::search::SearchSection;
pub use self::selection::{DistributionName, ExploitationText, SelectionSection};
use crate::learn::{ActionSelection, Distribution, Exploitation};
use crate::search::SearchSpec;
use crate::selfplay::config::checks::check;
use crate::selfplay::config::run::{RunMode, RunSettings};
use crate::settings::config_error::ConfigError;

/// The validated settings of an Athénan run (`RecipeSettings::Athenan`).
#[derive(Clone, Debug, PartialEq)]
pub struct AthenanSettings {
    /// The self-play search (`search:`).
    pub search: SearchSpec,
    pub learning: LearningSettings,
    pub selection: ActionSelection,
    pub replay: ReplaySettings,
    /// How long resolved states are kept across games (`None`: not kept).
    pub keep_resolved: Option<Duration>,
}

/// Athénan's YAML sections as a run's configuration holds them.
#[derive(Clone, Copy, Debug)]
pub struct AthenanSections<'a> {
    pub search: &'a SearchSection,
    pub learning: &'a LearningSection,
    pub selection: &'a SelectionSection,
    pub replay: &'a ReplaySection,
    pub resolved_states: &'a ResolvedStatesSection,
}

impl AthenanSections<'_> {
    /// Validates each section, then what the sections and the run's section say together.
    ///
    /// # Errors
    /// The first bad value or combination, naming its key.
    pub fn validate(&self, run: &RunSettings) -> Result<AthenanSettings, ConfigError> {
        let settings = AthenanSettings {
            search: self.search.validate()?,
            learning: self.learning.validate()?,
            selection: self.selection.validate()?,
            replay: self.replay.validate()?,
            keep_resolved: self.resolved_states.keep_for(),
        };
        settings.check_with_run(run)?;
        Ok(settings)
    }

    /// Refuses every Athénan section set in a run of another recipe, `recipe`, which reads
    /// `learning.augment_symmetries` alone.
    ///
    /// # Errors
    /// The first section set, naming it and where the other recipe's settings go.
    pub fn refuse_in(&self, recipe: &str) -> Result<(), ConfigError> {
        let learning_unset = LearningSection {
            augment_symmetries: LearningSection::default().augment_symmetries,
            ..self.learning.clone()
        } == LearningSection::default();
        let sections = [
            ("search", *self.search == SearchSection::default()),
            ("learning", learning_unset),
            ("selection", *self.selection == SelectionSection::default()),
            ("replay", *self.replay == ReplaySection::default()),
            (
                "resolved_states",
                *self.resolved_states == ResolvedStatesSection::default(),
            ),
        ];
        for (section, unset) in sections {
            let but = match section {
                "learning" => " (and `learning.augment_symmetries`)",
                _ => "",
            };
            check(
                unset,
                section,
                &format!(
                    "belongs to the athenan recipe; an {recipe} run is set in `{recipe}:`{but}"
                ),
            )?;
        }
        Ok(())
    }
}

impl AthenanSettings {
    /// What no section can check alone.
    fn check_with_run(&self, run: &RunSettings) -> Result<(), ConfigError> {
        if self.selection.exploitation == Exploitation::Annealed {
            check(
                run.max_games.is_some() || run.max_time.is_some(),
                "selection.exploitation",
                "`anneal` grows over the run's duration: set run.max_games or run.max_time",
            )?;
        }
        if run.games_per_thread > 1 {
            self.check_games_in_flight(run)?;
        }
        if matches!(self.search, SearchSpec::AlphaBeta { .. }) {
            check(
                self.selection.distribution == Distribution::EpsilonGreedy,
                "selection.distribution",
                "alphabeta knows only its best move: use epsilon-greedy",
            )?;
        }
        Ok(())
    }

    /// Several games in flight a thread need an iteration budget, a lag bound above the games
    /// in play, and a local run.
    fn check_games_in_flight(&self, run: &RunSettings) -> Result<(), ConfigError> {
        check(
            self.search.budget().is_some_and(|b| b.time.is_none()),
            "run.games_per_thread",
            "games in flight share their thread, so a time per move would count the other games' work: give the search an iteration budget only (search.iters, no search.time)",
        )?;
        let in_play = (run.threads * run.games_per_thread) as u64;
        check(
            run.max_lag >= in_play,
            "run.max_lag",
            &format!(
                "is {}, below the {in_play} games in play at once (run.threads × run.games_per_thread): a game ends about that many games learned after it started, so most would be dropped; set it to at least {in_play}",
                run.max_lag
            ),
        )?;
        check(
            run.mode != RunMode::Distributed,
            "run.games_per_thread",
            "applies to the players of a local run (`sequential` or `parallel`); a distributed run's workers play one game per thread",
        )
    }
}
