//! The recipes, by name (`recipe:` in a run's YAML), each in its folder: `athenan` (the
//! paper's: completed Descent self-play, tree learning), and the policy-value recipes that
//! train in rounds (`rounds`): AlphaZero, Gumbel AlphaZero and ExIt. `train` is the one place
//! that picks a recipe's code by its name (the configuration's checks name recipes only to
//! refuse keys); everything else a run does is the one session's (`run::session`).

pub mod alphazero;
pub mod athenan;
pub mod exit;
pub mod gumbel;
pub mod rounds;

use crate::games::{Game, GameVisitor};
use crate::selfplay::config::{RecipeSettings, TrainSettings};
use crate::selfplay::recipes::alphazero::AlphaZeroTrainer;
use crate::selfplay::recipes::exit::ExitTrainer;
use crate::selfplay::recipes::gumbel::GumbelTrainer;
use crate::selfplay::run::run_dir::RunDir;
use crate::selfplay::run::session::{TrainSummary, train_recipe};
use crate::selfplay::telemetry::observer::TrainingObserver;
use athenan::Athenan;
use rounds::Rounds;

/// Trains (or resumes, with `resume`) the run in `run_dir` with `settings`, by the recipe they
/// name.
///
/// ```
/// use descent::selfplay::{RunDir, SilentObserver, TrainConfig, train};
///
/// let yaml = "game: tic_tac_toe\nsearch: {iters: 20}\nrun: {max_games: 3}\n\
///             evaluation: {games: 2, iterations_per_move: 10}\n";
/// let config = TrainConfig::from_yaml(yaml).unwrap();
/// let settings = config.validate().unwrap();
/// let dir = tempfile::tempdir().unwrap();
/// let run_dir = RunDir::create(&dir.path().join("run"), &config.to_yaml()).unwrap();
/// let summary = train(&settings, &run_dir, false, &mut SilentObserver).unwrap();
/// assert_eq!(summary.total_games, 3);
/// assert!(summary.last_checkpoint.unwrap().ends_with("ckpt-3"));
/// // The final network against UCT at 10 iterations a move, 2 games (`evaluation.at_end`).
/// assert_eq!(summary.strength.unwrap().games, 2);
/// ```
///
/// # Errors
/// A checkpoint that cannot be read or resumed under these settings, a device not compiled
/// in, a failed write.
pub fn train(
    settings: &TrainSettings,
    run_dir: &RunDir,
    resume: bool,
    observer: &mut dyn TrainingObserver,
) -> anyhow::Result<TrainSummary> {
    settings.game.visit(TrainVisitor {
        settings,
        run_dir,
        resume,
        observer,
    })
}

struct TrainVisitor<'a> {
    settings: &'a TrainSettings,
    run_dir: &'a RunDir,
    resume: bool,
    observer: &'a mut dyn TrainingObserver,
}

impl GameVisitor for TrainVisitor<'_> {
    type Output = anyhow::Result<TrainSummary>;
    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let TrainVisitor {
            settings,
            run_dir,
            resume,
            observer,
        } = self;
        match settings.recipe {
            RecipeSettings::Athenan(_) => {
                train_recipe::<G, Athenan<G>>(initial, settings, run_dir, resume, observer)
            }
            RecipeSettings::Alphazero(_) => train_recipe::<G, Rounds<AlphaZeroTrainer<G>>>(
                initial, settings, run_dir, resume, observer,
            ),
            RecipeSettings::Gumbel(_) => train_recipe::<G, Rounds<GumbelTrainer<G>>>(
                initial, settings, run_dir, resume, observer,
            ),
            RecipeSettings::Exit(_) => train_recipe::<G, Rounds<ExitTrainer<G>>>(
                initial, settings, run_dir, resume, observer,
            ),
        }
    }
}
