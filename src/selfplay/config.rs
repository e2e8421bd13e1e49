//! The training configuration: the YAML file of `descent train`, one typed serde section per
//! concern, each in its own file with its own validation returning its own settings type: here
//! the sections every recipe has (`run:`, `network:`, `optimizer:`, `checkpoint:`,
//! `evaluation:`), and each recipe's own in its folder (`recipes/<recipe>/settings.rs`), which
//! validates them into its variant of `RecipeSettings`.
//! Unknown keys and wrong types are refused by serde (the message names the key);
//! `TrainConfig::validate` validates each section, then the combinations across sections.
//! Every default is written on its field and in `configs/`.

mod checkpoint;
pub(crate) mod checks;
mod evaluation;
mod key_paths;
mod keys_added;
mod network;
mod recipe_name;
pub(crate) mod run;

use crate::search::StopToken;

use serde::{Deserialize, Serialize};

pub use self::checkpoint::{CheckpointSection, CheckpointSettings};
pub use self::evaluation::{EvalOpponent, EvaluationSection, EvaluationSettings};
pub use self::network::{NetworkSection, OptimizerSection};
pub use self::recipe_name::RecipeName;
pub use self::run::{DEFAULT_MAX_LAG, RunMode, RunSection, RunSettings};
use crate::games::GameSpec;
use crate::learn::augment::Augmentation;
pub use crate::selfplay::recipes::alphazero::settings::{AlphaZeroSection, AlphaZeroSettings};
pub use crate::selfplay::recipes::athenan::settings::{
    AthenanSections, AthenanSettings, DistributionName, ExploitationText, LearningSection,
    LearningSettings, ReplayKind, ReplaySection, ReplaySettings, ResolvedStatesSection,
    SearchSection, SelectionSection, TargetsName, TerminalEvalName,
};
pub use crate::selfplay::recipes::exit::settings::{ExitSection, ExitSettings};
pub use crate::selfplay::recipes::gumbel::settings::{GumbelSection, GumbelSettings};
pub use crate::settings::config_error::ConfigError;
use crate::settings::config_error::yaml_message;
use crate::value::{AdamSettings, Architecture};
use checks::{check, error};

fn default_seed() -> u64 {
    1
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// A whole training run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainConfig {
    /// The game and its parameters, e.g. `awale` or `awale(feeding=false)`.
    pub game: String,
    /// Seed of every random choice of the run (default 1).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// `athenan` (default), `alphazero`, `gumbel` or `exit` (then the `alphazero:`, `gumbel:`
    /// or `exit:` section, not `search:`, `learning:`, `selection:`, `replay:` or
    /// `resolved_states:`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub recipe: RecipeName,
    #[serde(default, skip_serializing_if = "is_default")]
    pub alphazero: AlphaZeroSection,
    #[serde(default, skip_serializing_if = "is_default")]
    pub gumbel: GumbelSection,
    #[serde(default, skip_serializing_if = "is_default")]
    pub exit: ExitSection,
    #[serde(default)]
    pub run: RunSection,
    #[serde(default)]
    pub network: NetworkSection,
    #[serde(default)]
    pub optimizer: OptimizerSection,
    #[serde(default)]
    pub search: SearchSection,
    #[serde(default)]
    pub learning: LearningSection,
    #[serde(default)]
    pub selection: SelectionSection,
    #[serde(default)]
    pub replay: ReplaySection,
    #[serde(default)]
    pub resolved_states: ResolvedStatesSection,
    #[serde(default)]
    pub checkpoint: CheckpointSection,
    #[serde(default)]
    pub evaluation: EvaluationSection,
}

/// The keys a resumed run may change: budgets, resources, checkpoints and evaluations, none of
/// which alters what the network learns. A key is safe when it is one of these or below one.
pub const RESUME_SAFE_KEYS: &[&str] = &[
    "run.name",
    "run.max_games",
    "run.max_time",
    "run.threads",
    "run.games_per_thread",
    "run.mode",
    "run.max_lag",
    "run.device",
    "run.tensorboard",
    "checkpoint",
    "evaluation",
];

/// The validated settings of a run, in the library's types: one field per section every recipe
/// has, and the recipe's own settings in `recipe`.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainSettings {
    /// The configuration these settings come from (kept in every checkpoint, so that a resume
    /// can refuse a change of what is learned).
    pub config: TrainConfig,
    pub game: GameSpec,
    pub seed: u64,
    pub run: RunSettings,
    pub architecture: Architecture,
    pub adam: AdamSettings,
    pub checkpoint: CheckpointSettings,
    pub evaluation: Option<EvaluationSettings>,
    /// The recipe (`recipe:`) with its own settings (its section, validated by its recipe).
    pub recipe: RecipeSettings,
    /// The Redis URL of a distributed run (`descent train --broker`; never in the YAML, so
    /// that no password is written into the run directory or published).
    pub broker: Option<String>,
    /// Stops the run (never in the YAML): `descent train`'s Ctrl-C or SIGTERM, an
    /// experiment's; a fresh token, stopped by nothing, otherwise. The run hands out no new
    /// game, learns those in play, checkpoints and says so.
    pub stop: StopToken,
}

/// The recipe of a run with its settings: one variant a recipe (`recipe:` names it), each
/// validated by its recipe from its own sections (Athénan's: `search:`, `learning:`,
/// `selection:`, `replay:`, `resolved_states:`).
#[derive(Clone, Debug, PartialEq)]
pub enum RecipeSettings {
    Athenan(AthenanSettings),
    Alphazero(AlphaZeroSettings),
    Gumbel(GumbelSettings),
    Exit(ExitSettings),
}

impl RecipeSettings {
    /// The symmetric images each learned row adds (`learning.augment_symmetries`, the one
    /// key of `learning:` every recipe reads).
    pub fn augmentation(&self) -> Augmentation {
        match self {
            RecipeSettings::Athenan(settings) => settings.learning.augment_symmetries,
            RecipeSettings::Alphazero(settings) => settings.augmentation,
            RecipeSettings::Gumbel(settings) => settings.augmentation,
            RecipeSettings::Exit(settings) => settings.augmentation,
        }
    }
}

impl TrainSettings {
    /// The Athénan recipe's settings; `None` in a run of another recipe.
    pub fn athenan(&self) -> Option<&AthenanSettings> {
        match &self.recipe {
            RecipeSettings::Athenan(settings) => Some(settings),
            _ => None,
        }
    }
}

impl TrainConfig {
    /// Parses YAML text (unknown keys and wrong types are errors naming the key).
    ///
    /// # Errors
    /// YAML syntax, an unknown key, a wrong type; `key` is `yaml`, the message names the key.
    pub fn from_yaml(text: &str) -> Result<TrainConfig, ConfigError> {
        let mut config: TrainConfig =
            serde_saphyr::from_str(text).map_err(|e| error("yaml", yaml_message(&e)))?;
        config.take_old_keys()?;
        Ok(config)
    }

    /// Reads away the keys of older versions (`search.iterations` and the like, the Gumbel keys
    /// of `alphazero:`): renamed, or dropped where they hold what is meant today.
    ///
    /// # Errors
    /// An old key beside its new name, or at a value that has no meaning today.
    pub fn take_old_keys(&mut self) -> Result<(), ConfigError> {
        self.search.take_old_names()?;
        self.alphazero.take_old_keys()
    }

    /// The resolved configuration as YAML (written into the run directory).
    pub fn to_yaml(&self) -> String {
        serde_saphyr::to_string(self).expect("a config serialises")
    }

    /// The dotted keys (`search.iters`) whose values differ between `self` and `other`,
    /// defaults filled in on both sides.
    pub fn changed_keys(&self, other: &TrainConfig) -> Vec<String> {
        let value = |c: &TrainConfig| serde_json::to_value(c).expect("a config serialises");
        key_paths::differing_keys(&value(self), &value(other))
    }

    /// The run's hash (16 hex digits of SHA-256) over what it learns: the configuration as JSON
    /// without the keys a resume may change (`RESUME_SAFE_KEYS`), so that a resume with new
    /// limits, threads, checkpoints or evaluations is the same run to its workers and records.
    pub fn learned_hash(&self) -> String {
        let mut value = serde_json::to_value(self).expect("a config serialises");
        for safe in RESUME_SAFE_KEYS {
            let (parent, last) = match safe.rsplit_once('.') {
                Some((parent, last)) => (value.pointer_mut(&format!("/{parent}")), last),
                None => (Some(&mut value), *safe),
            };
            if let Some(serde_json::Value::Object(map)) = parent {
                map.remove(last);
            }
        }
        crate::value::checksum::sha256_hex(value.to_string().as_bytes())[..16].to_string()
    }

    /// The changes from `trained` (the configuration a checkpoint was trained with) to `self`
    /// that would alter what is learned: those outside `RESUME_SAFE_KEYS`.
    pub fn learning_changes(&self, trained: &TrainConfig) -> Vec<String> {
        self.changed_keys(trained)
            .into_iter()
            .filter(|key| {
                !RESUME_SAFE_KEYS
                    .iter()
                    .any(|safe| key_paths::is_at_or_under(key, safe))
            })
            .collect()
    }

    /// Validates each section, then the combinations across sections.
    ///
    /// # Errors
    /// The first bad value or combination, naming its key.
    pub fn validate(&self) -> Result<TrainSettings, ConfigError> {
        let game: GameSpec = self
            .game
            .parse()
            .map_err(|e: ConfigError| error("game", e.message))?;
        let run = self.run.validate()?;
        let architecture = self.network.validate(&game)?;
        let adam = self.optimizer.validate()?;
        // Athénan's sections are checked where they were before they became its own.
        let athenan = match self.recipe {
            RecipeName::Athenan => Some(self.athenan_sections().validate(&run)?),
            _ => None,
        };
        let checkpoint = self.checkpoint.validate()?;
        let evaluation = self.evaluation.validate()?;
        self.check_learning_rate_schedule(&run)?;
        let recipe_section = |recipe: RecipeName, name: &str, unset: bool| {
            check(
                unset || self.recipe == recipe,
                name,
                &format!("is the {name} recipe's section: add `recipe: {name}`, or remove it"),
            )
        };
        recipe_section(
            RecipeName::Alphazero,
            "alphazero",
            is_default(&self.alphazero),
        )?;
        recipe_section(RecipeName::Gumbel, "gumbel", is_default(&self.gumbel))?;
        recipe_section(RecipeName::Exit, "exit", is_default(&self.exit))?;
        if self.recipe != RecipeName::Athenan {
            self.check_policy_value_sections(&run)?;
        }
        let augmentation = self.learning.augment_symmetries;
        let recipe = match self.recipe {
            RecipeName::Athenan => {
                RecipeSettings::Athenan(athenan.expect("validated above for an athenan run"))
            }
            RecipeName::Alphazero => RecipeSettings::Alphazero(AlphaZeroSettings {
                augmentation,
                threads: run.threads,
                ..self
                    .alphazero
                    .validate(architecture.clone(), adam, self.seed)?
            }),
            RecipeName::Gumbel => RecipeSettings::Gumbel(GumbelSettings {
                augmentation,
                threads: run.threads,
                ..self
                    .gumbel
                    .validate(architecture.clone(), adam, self.seed)?
            }),
            RecipeName::Exit => RecipeSettings::Exit(ExitSettings {
                augmentation,
                threads: run.threads,
                ..self.exit.validate(architecture.clone(), adam, self.seed)?
            }),
        };
        Ok(TrainSettings {
            config: self.clone(),
            game,
            seed: self.seed,
            run,
            architecture,
            adam,
            checkpoint,
            evaluation,
            recipe,
            broker: None,
            stop: StopToken::new(),
        })
    }

    /// Athénan's sections, which its recipe validates (`recipe: athenan`) or refuses.
    fn athenan_sections(&self) -> AthenanSections<'_> {
        AthenanSections {
            search: &self.search,
            learning: &self.learning,
            selection: &self.selection,
            replay: &self.replay,
            resolved_states: &self.resolved_states,
        }
    }

    /// `optimizer.final_learning_rate` anneals over the run's budget, and not in ExIt, whose
    /// phases each train a fresh network.
    fn check_learning_rate_schedule(&self, run: &RunSettings) -> Result<(), ConfigError> {
        if self.optimizer.final_learning_rate.is_none() {
            return Ok(());
        }
        let key = "optimizer.final_learning_rate";
        check(
            self.recipe != RecipeName::Exit,
            key,
            "anneals one network's step size over the run, but each ExIt phase trains a fresh network: remove it (optimizer.learning_rate sets every phase's)",
        )?;
        check(
            run.max_games.is_some() || run.max_time.is_some(),
            key,
            "is reached at the end of the run's budget: set run.max_games or run.max_time",
        )
    }

    /// A policy-value run sets none of the Athénan recipe's sections and plays its games in its
    /// own process on up to a round's games threads: AlphaZero's and Gumbel AlphaZero's
    /// `parallel_games`, ExIt's `games_per_phase` (its warm start's games, its expert's searches).
    fn check_policy_value_sections(&self, run: &RunSettings) -> Result<(), ConfigError> {
        let recipe = self.recipe.name();
        self.athenan_sections().refuse_in(recipe)?;
        check(
            run.games_per_thread == 1 && run.mode != RunMode::Distributed,
            "run",
            &format!(
                "an {recipe} run plays a round's games at once in its own process ({recipe}.parallel_games); leave run.games_per_thread at 1 and run.mode local"
            ),
        )?;
        let (round, games) = match self.recipe {
            RecipeName::Alphazero => ("parallel_games", self.alphazero.parallel_games),
            RecipeName::Gumbel => ("parallel_games", self.gumbel.parallel_games),
            _ => ("games_per_phase", self.exit.games_per_phase),
        };
        let why = format!(
            "is {}, above {recipe}.{round} ({games}): each thread plays some of a round's games",
            run.threads
        );
        // A round of no games is its own section's error.
        check(games == 0 || run.threads <= games, "run.threads", &why)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn alphazero_of(s: &TrainSettings) -> AlphaZeroSettings {
        match &s.recipe {
            RecipeSettings::Alphazero(settings) => settings.clone(),
            other => panic!("not alphazero: {other:?}"),
        }
    }

    fn athenan_of(s: &TrainSettings) -> AthenanSettings {
        s.athenan().expect("an athenan run").clone()
    }

    fn exit_of(s: &TrainSettings) -> ExitSettings {
        match &s.recipe {
            RecipeSettings::Exit(settings) => settings.clone(),
            other => panic!("not exit: {other:?}"),
        }
    }
    use crate::learn::{Capacity, Distribution, Exploitation, ReplayPolicy};
    use crate::search::SearchSpec;
    use crate::search::gumbel::GumbelOptions;

    fn parse(text: &str) -> Result<TrainSettings, ConfigError> {
        TrainConfig::from_yaml(text).and_then(|config| config.validate())
    }

    #[test]
    fn the_run_hash_covers_what_is_learned_only() {
        let hash = |text: &str| TrainConfig::from_yaml(text).unwrap().learned_hash();
        let base = hash("game: awale\nsearch: {iters: 50}\n");
        assert_eq!(base.len(), 16);
        for same in [
            "game: awale\nsearch: {iters: 50}\nrun: {max_games: 70, threads: 4, max_time: 40m}\n",
            "game: awale\nsearch: {iters: 50}\ncheckpoint: {every_games: 3}\n",
            "game: awale\nsearch: {iters: 50}\nevaluation: {every_games: 9}\nrun: {name: x, max_lag: 3}\n",
        ] {
            assert_eq!(hash(same), base, "{same}");
        }
        for other in [
            "game: awale\nsearch: {iters: 51}\n",
            "game: awale(feeding=false)\nsearch: {iters: 50}\n",
            "game: awale\nsearch: {iters: 50}\nseed: 2\n",
            "game: awale\nsearch: {iters: 50}\noptimizer: {learning_rate: 0.01}\n",
        ] {
            assert_ne!(hash(other), base, "{other}");
        }
    }

    #[test]
    fn gumbel_is_its_own_recipe_with_its_own_section() {
        let s = parse("game: connect_four\nrecipe: gumbel\n").unwrap();
        let RecipeSettings::Gumbel(defaults) = &s.recipe else {
            panic!("not gumbel: {:?}", s.recipe);
        };
        let paper = GumbelSettings::new(Architecture::PaperCnn);
        let search = GumbelOptions {
            noise: true,
            ..paper.search
        };
        let adam = AdamSettings::default();
        assert_eq!(
            *defaults,
            GumbelSettings {
                adam,
                search,
                ..paper
            }
        );
        let s = parse(
            "game: connect_four\nrecipe: gumbel\ngumbel: {m: 4, c_scale: 0.2, simulations: 8}\n",
        )
        .unwrap();
        let RecipeSettings::Gumbel(gumbel) = &s.recipe else {
            panic!("not gumbel");
        };
        let o = gumbel.search;
        assert_eq!(
            (o.considered, o.c_visit, o.c_scale, gumbel.simulations),
            (4, 50.0, 0.2, 8)
        );
        let error = |text: &str| parse(text).unwrap_err();
        for (section, key) in [
            ("{m: 0}", "gumbel.m"),
            ("{c_visit: -1}", "gumbel.c_visit"),
            ("{simulations: 1}", "gumbel.simulations"),
            ("{batch_size: 64, window: 32}", "gumbel.window"),
        ] {
            let e = error(&format!(
                "game: connect_four\nrecipe: gumbel\ngumbel: {section}\n"
            ));
            assert_eq!(e.key, key, "{section}");
        }
        let e = error("game: connect_four\ngumbel: {m: 4}\n");
        assert_eq!(e.key, "gumbel", "the section without its recipe");
        let e = error("game: connect_four\nrecipe: gumbel\ngumbel: {m: 4}\nrun: {threads: 40}\n");
        assert!(e.message.contains("gumbel.parallel_games"), "{}", e.message);
        for puct_key in [
            "c_init: 2",
            "temperature_plies: 3",
            "dirichlet_fraction: 0.1",
        ] {
            let text = format!("game: connect_four\nrecipe: gumbel\ngumbel: {{{puct_key}}}\n");
            assert!(TrainConfig::from_yaml(&text).is_err(), "{puct_key}");
        }
    }

    /// A run made when Gumbel AlphaZero was `alphazero.search: gumbel` wrote the Gumbel keys
    /// into its configuration: at the values it wrote they still read, so that the run resumes;
    /// `search: gumbel` names the recipe it became.
    #[test]
    fn an_alphazero_configuration_written_before_the_gumbel_recipe_still_reads() {
        let written = "game: connect_four\nrecipe: alphazero\nalphazero: \
                       {search: puct, gumbel_m: 16, c_visit: 50.0, c_scale: 0.1}\n";
        let config = TrainConfig::from_yaml(written).unwrap();
        let today = "game: connect_four\nrecipe: alphazero\n";
        assert_eq!(
            config,
            TrainConfig::from_yaml(today).unwrap(),
            "an experiment's check"
        );
        assert!(is_default(&config.alphazero));
        let s = config.validate().unwrap();
        assert_eq!(s.recipe, parse(today).unwrap().recipe);
        assert!(!config.to_yaml().contains("gumbel"), "{}", config.to_yaml());
        let error = |text: &str| parse(text).unwrap_err();
        let e = error("game: connect_four\nrecipe: alphazero\nalphazero: {search: gumbel}\n");
        assert_eq!(e.key, "alphazero.search");
        assert!(e.message.contains("recipe: gumbel"), "{}", e.message);
        let e = error("game: connect_four\nrecipe: alphazero\nalphazero: {gumbel_m: 4}\n");
        assert_eq!(e.key, "alphazero.gumbel_m");
    }

    #[test]
    fn the_alphazero_recipe_has_its_own_section_only() {
        let s = parse("game: connect_four\nrecipe: alphazero\n").unwrap();
        let az = alphazero_of(&s);
        let paper = AlphaZeroSettings::new(Architecture::PaperCnn);
        let adam = AdamSettings::default();
        assert_eq!(az, AlphaZeroSettings { adam, ..paper });
        let s = parse(
            "game: connect_four\nrecipe: alphazero\nalphazero: {simulations: 200, fpu: -1}\n",
        )
        .unwrap();
        let az = alphazero_of(&s);
        assert_eq!((az.simulations, az.search.puct.fpu), (200, -1.0));
        let error = |text: &str| parse(text).unwrap_err();
        let e = error("game: connect_four\nrecipe: alphazero\nsearch: {iters: 9}\n");
        assert_eq!(e.key, "search");
        let e = error("game: connect_four\nalphazero: {simulations: 9}\n");
        assert!(e.message.contains("recipe: alphazero"), "{e}");
        // AlphaZero deals a round's games to run.threads threads, at most one a game; ExIt a
        // phase's, at most one a game of the phase.
        let s = parse("game: connect_four\nrecipe: alphazero\nrun: {threads: 2}\n").unwrap();
        assert_eq!(alphazero_of(&s).threads, 2);
        let e = error(
            "game: connect_four\nrecipe: alphazero\nalphazero: {parallel_games: 4}\nrun: {threads: 5}\n",
        );
        assert_eq!(e.key, "run.threads");
        assert!(e.message.contains("parallel_games (4)"), "{e}");
        let s = parse("game: connect_four\nrecipe: exit\nrun: {threads: 2}\n").unwrap();
        assert_eq!(exit_of(&s).threads, 2);
        let e = error(
            "game: connect_four\nrecipe: exit\nexit: {games_per_phase: 3}\nrun: {threads: 4}\n",
        );
        assert_eq!(e.key, "run.threads");
        assert!(e.message.contains("games_per_phase (3)"), "{e}");
        let e = error("game: connect_four\nrecipe: alphazero\nrun: {games_per_thread: 2}\n");
        assert_eq!(e.key, "run");
        let e = error("game: connect_four\nrecipe: alphazero\nalphazero: {window: 10}\n");
        assert_eq!(e.key, "alphazero.window");
        let e =
            error("game: connect_four\nrecipe: alphazero\nalphazero: {dirichlet_fraction: 2}\n");
        assert_eq!(e.key, "alphazero.dirichlet_fraction");
        let s = parse("game: connect_four\nrecipe: alphazero\nalphazero: {q_ratio: 0.5}\n");
        assert_eq!(alphazero_of(&s.unwrap()).q_ratio, 0.5);
        assert_eq!(az.q_ratio, 0.0, "AlphaZero's outcome alone by default");
        assert_eq!(
            az.random_opening_plies, 0,
            "every game from the initial position"
        );
        let s =
            parse("game: connect_four\nrecipe: alphazero\nalphazero: {random_opening_plies: 20}\n");
        assert_eq!(alphazero_of(&s.unwrap()).random_opening_plies, 20);
        for bad in ["-1", "100001", "many"] {
            let text = format!(
                "game: connect_four\nrecipe: alphazero\nalphazero: {{random_opening_plies: {bad}}}\n"
            );
            assert!(
                error(&text).to_string().contains("random_opening_plies"),
                "{bad}"
            );
        }
        for bad in ["-0.1", "1.5", ".nan"] {
            let text =
                format!("game: connect_four\nrecipe: alphazero\nalphazero: {{q_ratio: {bad}}}\n");
            assert_eq!(error(&text).key, "alphazero.q_ratio", "{bad}");
        }
        // Playout cap randomisation: off by default; fast searches shorter than full ones.
        assert_eq!(az.fast_simulations, None, "every search a full one");
        let text = "alphazero: {simulations: 100, fast_simulations: 20, full_search_fraction: 0.5}";
        let s = parse(&format!("game: connect_four\nrecipe: alphazero\n{text}\n")).unwrap();
        let az_fast = alphazero_of(&s);
        assert_eq!(az_fast.fast_simulations, Some(20));
        assert_eq!(az_fast.full_search_fraction, 0.5);
        for (bad, key) in [
            ("fast_simulations: 100", "fast_simulations"),
            ("fast_simulations: 1", "fast_simulations"),
            ("fast_simulations: -3", "fast_simulations"),
            ("full_search_fraction: 0", "full_search_fraction"),
            ("full_search_fraction: 1.5", "full_search_fraction"),
            ("full_search_fraction: .nan", "full_search_fraction"),
        ] {
            let text = format!(
                "game: connect_four\nrecipe: alphazero\nalphazero: {{simulations: 100, {bad}}}\n"
            );
            assert!(error(&text).to_string().contains(key), "{bad}");
        }
    }

    #[test]
    fn symmetry_augmentation_is_every_recipes_and_athenans_yaml_names_no_recipe() {
        // Symmetry augmentation is every recipe's setting, `one` by default as for Athénan; the
        // other `learning:` keys stay Athénan's.
        let error = |text: &str| parse(text).unwrap_err();
        let s = parse("game: connect_four\nrecipe: alphazero\n").unwrap();
        let az = alphazero_of(&s);
        assert_eq!(az.augmentation, crate::learn::augment::Augmentation::One);
        for recipe in ["alphazero", "exit"] {
            let text = format!(
                "game: connect_four\nrecipe: {recipe}\nlearning: {{augment_symmetries: none}}\n"
            );
            let s = parse(&text).unwrap();
            let augmentation = match recipe {
                "alphazero" => alphazero_of(&s).augmentation,
                _ => exit_of(&s).augmentation,
            };
            assert_eq!(augmentation, crate::learn::augment::Augmentation::None);
            let e = error(&format!(
                "game: connect_four\nrecipe: {recipe}\nlearning: {{targets: root}}\n"
            ));
            assert_eq!(e.key, "learning");
            assert!(e.message.contains("augment_symmetries"), "{e}");
        }
        // An Athénan run's configuration (and so its hash) does not mention the recipe.
        let athenan = TrainConfig::from_yaml("game: awale\n").unwrap().to_yaml();
        assert!(
            !athenan.contains("recipe") && !athenan.contains("alphazero"),
            "{athenan}"
        );
    }

    /// `optimizer.final_learning_rate`: none by default (and then absent from the resolved
    /// YAML, so older runs' hashes hold); within [0, learning_rate]; needs a budget; not ExIt.
    #[test]
    fn the_final_learning_rate_needs_a_budget_and_a_single_network() {
        let s = parse("game: awale\n").unwrap();
        assert_eq!(s.adam.final_learning_rate, None);
        let yaml = TrainConfig::from_yaml("game: awale\n").unwrap().to_yaml();
        assert!(!yaml.contains("final_learning_rate"), "{yaml}");
        let budget = "run: {max_time: 1h}\n";
        for recipe in ["athenan", "alphazero"] {
            let text = format!(
                "game: awale\nrecipe: {recipe}\n{budget}\
                 optimizer: {{learning_rate: 0.003, final_learning_rate: 0.0003}}\n"
            );
            assert_eq!(parse(&text).unwrap().adam.final_learning_rate, Some(0.0003));
        }
        let key = "optimizer.final_learning_rate";
        for bad in ["-0.001", "0.004", ".nan"] {
            let text = format!(
                "game: awale\n{budget}\
                 optimizer: {{learning_rate: 0.003, final_learning_rate: {bad}}}\n"
            );
            assert_eq!(parse(&text).unwrap_err().key, key, "{bad}");
        }
        let e = parse("game: awale\noptimizer: {final_learning_rate: 0.0001}\n").unwrap_err();
        assert_eq!(e.key, key);
        assert!(e.message.contains("run.max_time"), "{e}");
        let text = format!(
            "game: hex\nrecipe: exit\n{budget}optimizer: {{final_learning_rate: 0.0001}}\n"
        );
        let e = parse(&text).unwrap_err();
        assert_eq!(e.key, key);
        assert!(e.message.contains("fresh network"), "{e}");
    }

    /// `recipe: exit` reads the paper's §8.4.2 constants by default; its section needs the
    /// recipe, and the Athénan sections are refused.
    #[test]
    fn the_exit_recipe_has_the_papers_defaults_and_its_own_section_only() {
        let s = parse("game: hex\nrecipe: exit\n").unwrap();
        assert!(!matches!(s.recipe, RecipeSettings::Alphazero(_)));
        let exit = exit_of(&s);
        assert_eq!(exit.expert_iterations, 2500);
        assert_eq!((exit.warm_start_c, exit.c), (0.25, 0.05));
        assert_eq!((exit.w_a, exit.w_v, exit.temperature), (100.0, 0.75, 0.1));
        assert_eq!((exit.batch_size, exit.games_per_phase), (250, 500));
        assert_eq!(exit.value_from, 0.2);
        let s = parse("game: hex\nrecipe: exit\nexit: {expert_iterations: 100, value_from: 0.5}\n")
            .unwrap();
        let exit = exit_of(&s);
        assert_eq!((exit.expert_iterations, exit.value_from), (100, 0.5));
        let error = |text: &str| parse(text).unwrap_err();
        let e = error("game: hex\nexit: {w_a: 1}\n");
        assert!(e.message.contains("recipe: exit"), "{e}");
        let e = error("game: hex\nrecipe: alphazero\nexit: {w_a: 1}\n");
        assert_eq!(e.key, "exit");
        let e = error("game: hex\nrecipe: exit\nalphazero: {simulations: 9}\n");
        assert_eq!(e.key, "alphazero");
        let e = error("game: hex\nrecipe: exit\nreplay: {games: 9}\n");
        assert_eq!(e.key, "replay");
        assert!(e.message.contains("an exit run"), "{e}");
        for (bad, key) in [
            ("value_from: 1.5", "exit.value_from"),
            ("temperature: 0", "exit.temperature"),
            ("w_v: -1", "exit.w_v"),
            ("games_per_phase: 0", "exit.games_per_phase"),
            ("max_positions: 100000000", "exit.max_positions"),
        ] {
            let e = error(&format!("game: hex\nrecipe: exit\nexit: {{{bad}}}\n"));
            assert_eq!(e.key, key, "{bad}: {e}");
        }
    }

    /// A run's settings hold its own recipe's settings and no other's: Athénan's sections are
    /// validated into `RecipeSettings::Athenan` only in an Athénan run.
    #[test]
    fn each_recipe_carries_its_own_settings_only() {
        let s = parse("game: awale\nsearch: {iters: 40}\nreplay: {games: 7}\n").unwrap();
        let athenan = athenan_of(&s);
        assert_eq!(athenan.search.budget().unwrap().iterations, Some(40));
        assert_eq!(s.recipe.augmentation(), Augmentation::One);
        let all = parse("game: awale\nlearning: {augment_symmetries: all}\n").unwrap();
        assert_eq!(all.recipe.augmentation(), Augmentation::All);
        assert!(
            matches!(
                athenan.replay.policy,
                ReplayPolicy::Stratified { games: 7, .. }
            ),
            "{:?}",
            athenan.replay.policy
        );
        for recipe in ["alphazero", "gumbel", "exit"] {
            let text = format!("game: awale\nrecipe: {recipe}\n");
            let s = parse(&text).unwrap();
            assert!(s.athenan().is_none(), "{recipe}");
            assert_eq!(s.recipe.augmentation(), Augmentation::One, "{recipe}");
            let text = format!("{text}learning: {{augment_symmetries: all}}\n");
            assert_eq!(
                parse(&text).unwrap().recipe.augmentation(),
                Augmentation::All,
                "{recipe}"
            );
        }
        // Athénan's checks across sections run for Athénan's run.
        let e = parse("game: awale\nselection: {exploitation: anneal}\n").unwrap_err();
        assert_eq!(e.key, "selection.exploitation");
    }

    #[test]
    fn defaults_are_the_documented_ones() {
        let s = parse("game: tic_tac_toe\n").unwrap();
        let athenan = athenan_of(&s);
        assert_eq!(s.seed, 1);
        assert_eq!(s.run.threads, 1);
        assert_eq!(s.architecture, Architecture::PaperCnn);
        assert_eq!(
            athenan.search,
            SearchSpec::TreeSearch {
                budget: crate::search::Budget::iterations(500),
                variant: crate::search::Variant::Descent,
                completed: true,
                decision: crate::search::Decision::Best,
            }
        );
        assert_eq!(athenan.learning.targets, crate::learn::Targets::Tree);
        assert_eq!(
            athenan.replay.policy,
            ReplayPolicy::Stratified {
                games: 100,
                duplication: 3.0
            }
        );
        assert_eq!(athenan.replay.batch_size, 128);
        assert_eq!(athenan.selection.distribution, Distribution::Ordinal);
        // No periodic evaluation; one at the run's end, 20 games against UCT at 100 ms a move.
        let evaluation = s.evaluation.expect("the evaluation at the run's end");
        assert_eq!(
            (evaluation.every_games, evaluation.at_end, evaluation.games),
            (0, true, 20)
        );
        assert_eq!(
            evaluation.budget.time,
            Some(std::time::Duration::from_millis(100))
        );
        // And one early, after 2 minutes of training; `0s` turns that one off.
        assert_eq!(
            evaluation.first_after,
            Some(std::time::Duration::from_secs(120))
        );
        let off = "game: awale\nevaluation: {first_after: 0s}\n";
        let off = TrainConfig::from_yaml(off).unwrap().validate().unwrap();
        assert_eq!(off.evaluation.unwrap().first_after, None);
    }

    #[test]
    fn learning_changes_are_named_and_budgets_are_not() {
        let trained = TrainConfig::from_yaml("game: tic_tac_toe\nrun:\n  max_games: 20\n").unwrap();
        let same = TrainConfig::from_yaml(
            "game: tic_tac_toe\nrun:\n  max_games: 90\n  max_time: 1h\n  threads: 2\n  device: flex\ncheckpoint:\n  every_games: 7\nevaluation:\n  every_games: 10\n",
        )
        .unwrap();
        assert_eq!(same.learning_changes(&trained), Vec::<String>::new());
        assert_eq!(
            same.changed_keys(&trained),
            [
                "checkpoint.every_games",
                "evaluation.every_games",
                "run.device",
                "run.max_games",
                "run.max_time",
                "run.threads"
            ]
        );
        let changed = TrainConfig::from_yaml(
            "game: tic_tac_toe\nseed: 4\nlearning:\n  terminal_eval: additive-depth\nsearch:\n  iters: 500\nreplay:\n  duplication: 2\n",
        )
        .unwrap();
        // search.iters: 500 is the default, so not a change.
        assert_eq!(
            changed.learning_changes(&trained),
            ["learning.terminal_eval", "replay.duplication", "seed"]
        );
    }

    #[test]
    fn round_trips_through_yaml() {
        let text = "game: awale(feeding=false)\nseed: 9\nrun:\n  max_time: 1h30m\nselection:\n  exploitation: 0.25\nreplay:\n  kind: experience\n  games: 7\n";
        let config = TrainConfig::from_yaml(text).unwrap();
        let again = TrainConfig::from_yaml(&config.to_yaml()).unwrap();
        assert_eq!(config, again);
        let s = again.validate().unwrap();
        let athenan = athenan_of(&s);
        assert_eq!(s.run.max_time, Some(Duration::from_secs(5400)));
        assert_eq!(athenan.selection.exploitation, Exploitation::Fixed(0.25));
        assert_eq!(
            athenan.replay.policy,
            ReplayPolicy::Experience {
                capacity: Capacity::Games(7),
                fraction: 0.04
            }
        );
    }

    #[test]
    fn bad_input_names_the_key_and_the_expected_form() {
        let cases = [
            (
                "game: tic_tac_toe\nsearch:\n  iters: 10\n  itrations: 5\n",
                "itrations",
            ),
            (
                "game: tic_tac_toe\nsearch:\n  algorithm: dijkstra\n",
                "dijkstra",
            ),
            ("game: tic_tac_toe\nsearch:\n  iters: lots\n", "iters"),
            ("game: chess\n", "game"),
            (
                "game: tic_tac_toe\nselection:\n  exploitation: 1.5\n",
                "exploitation",
            ),
            (
                "game: tic_tac_toe\nselection:\n  exploitation: anneal\n",
                "run.max_games",
            ),
            ("game: tic_tac_toe\nrun:\n  max_time: soon\n", "duration"),
            ("game: tic_tac_toe\nrun:\n  threads: 0\n", "run.threads"),
            (
                "game: tic_tac_toe\nreplay:\n  duplication: 200\n",
                "replay.duplication",
            ),
            (
                "game: tic_tac_toe\nsearch:\n  algorithm: alphabeta\n",
                "selection.distribution",
            ),
            (
                "game: tic_tac_toe\nnetwork:\n  architecture: transformer\n",
                "network.architecture",
            ),
            ("game: tic_tac_toe\nrun:\n  device: tpu\n", "run.device"),
            (
                "game: tic_tac_toe\nrun:\n  threads: 100000\n",
                "run.threads",
            ),
            ("game: tic_tac_toe\nrun:\n  name: ../../etc\n", "run.name"),
            ("game: tic_tac_toe\nrun:\n  name: ..\n", "run.name"),
            ("game: tic_tac_toe\nrun:\n  name: a/b\n", "run.name"),
            ("game: tic_tac_toe\nrun:\n  name: \"\"\n", "run.name"),
            (
                "game: tic_tac_toe\nrun:\n  max_time: 99999999999999999999d\n",
                "duration",
            ),
            ("game: tic_tac_toe\nrun:\n  max_time: 1e300\n", "duration"),
            ("game: tic_tac_toe\nsearch:\n  time: 1e20\n", "duration"),
            (
                "game: tic_tac_toe\nsearch:\n  iters: null\n  time: 0s\n",
                "search.time",
            ),
            (
                "game: tic_tac_toe\nnetwork:\n  architecture: resnet-b1000c100000-fc100000\n",
                "network.architecture",
            ),
            (
                "game: tic_tac_toe\nlearning:\n  pretrain_terminal_states: 1000000000000\n",
                "learning.pretrain_terminal_states",
            ),
            (
                "game: tic_tac_toe\nevaluation:\n  every_games: 5\n  games: 1000000000000\n",
                "evaluation.games",
            ),
            (
                "game: tic_tac_toe\nevaluation:\n  every_games: 5\n  time_per_move: 0s\n",
                "evaluation.time_per_move",
            ),
            (
                "game: tic_tac_toe\nreplay:\n  batch_size: 100000000000\n",
                "replay.batch_size",
            ),
            (
                "game: tic_tac_toe\nlearning:\n  terminal_eval: elo\n",
                "elo",
            ),
            (
                "game: tic_tac_toe\noptimizer:\n  learning_rate: -1\n",
                "optimizer.learning_rate",
            ),
            (
                "game: tic_tac_toe\noptimizer:\n  learning_rate: 1e300\n",
                "optimizer.learning_rate",
            ),
            (
                "game: tic_tac_toe\noptimizer:\n  l2: 1e30\n",
                "optimizer.l2",
            ),
            ("seed: 3\n", "game"),
            ("game: [1, 2\n", ""),
        ];
        for (text, needle) in cases {
            let message = parse(text).expect_err(text).to_string();
            assert!(message.contains(needle), "{text:?} → {message}");
        }
    }
}
