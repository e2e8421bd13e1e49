//! The training configuration: the YAML file of `descent train`, one typed serde section per
//! concern. Unknown keys and wrong types are refused by serde (the message names the key);
//! `TrainConfig::validate` checks ranges and combinations and turns the text into the
//! library's typed parameters. Every default is written on its field and in `configs/`.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::games::GameSpec;
use crate::learn::augment::Augmentation;
use crate::learn::{ActionSelection, Capacity, Distribution, Exploitation, ReplayPolicy, Targets};
use crate::search::Budget;
use crate::search::DurationText;
use crate::search::limits::{MAX_BATCH, MAX_GAMES, MAX_PRETRAIN_STATES, MAX_THREADS, at_most};
use crate::value::{AdamSettings, Architecture, DeviceChoice};

fn default_seed() -> u64 {
    1
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

/// Limits and resources of the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunSection {
    /// Directory name under `checkpoints/` (default: the config file's name).
    pub name: Option<String>,
    /// Stop after this many self-play games in all, resumes included (default: no limit).
    pub max_games: Option<u64>,
    /// Stop after this much training time in all, resumes included (default: no limit).
    /// Training time is self-play and learning; periodic evaluations are not counted.
    pub max_time: Option<DurationText>,
    /// Self-play games played at once, each on its own thread (default 1: the paper's loop).
    pub threads: usize,
    /// Where the network runs: `cpu`, `ndarray`, `wgpu`, `cuda:0` (default `cpu`).
    pub device: String,
}

impl Default for RunSection {
    fn default() -> Self {
        RunSection {
            name: None,
            max_games: None,
            max_time: None,
            threads: 1,
            device: "cpu".into(),
        }
    }
}

/// The value network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NetworkSection {
    /// `paper-cnn` or `resnet-b{blocks}c{filters}-fc{n}[-fc{m}]` (default `paper-cnn`).
    pub architecture: String,
}

impl Default for NetworkSection {
    fn default() -> Self {
        NetworkSection {
            architecture: "paper-cnn".into(),
        }
    }
}

/// Adam, with the paper's L2 penalty on the kernels in the loss.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OptimizerSection {
    /// Default 0.001.
    pub learning_rate: f64,
    /// Default 0.9.
    pub beta1: f32,
    /// Default 0.999.
    pub beta2: f32,
    /// Default 1e-8.
    pub epsilon: f32,
    /// λ of the L2 penalty λΣ‖W‖² on the kernels, biases untouched (default 0.001, the paper's;
    /// 0 = none).
    pub l2: f32,
}

impl Default for OptimizerSection {
    fn default() -> Self {
        OptimizerSection {
            learning_rate: 1e-3,
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
            l2: 1e-3,
        }
    }
}

/// The search run before each self-play move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SearchAlgorithm {
    Descent,
    Ubfm,
    Mcts,
    Alphabeta,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchSection {
    /// `descent` (default), `ubfm`, `mcts` (UCT with the network at the leaves) or `alphabeta`.
    pub algorithm: SearchAlgorithm,
    /// Iterations per move (default 500); with `time` too, whichever ends first.
    pub iterations: Option<u64>,
    /// Time per move, e.g. `1s` (default: none).
    pub time: Option<DurationText>,
    /// Completion and the resolution stop (default true).
    pub completed: bool,
    /// UCT's exploration constant for `mcts`, on the network's value scale (default 0.4, the
    /// paper's, section 3.3).
    pub exploration: f64,
    /// Maximum depth for `alphabeta` (default 64; the budget stops it first).
    pub max_depth: u32,
}

impl Default for SearchSection {
    fn default() -> Self {
        SearchSection {
            algorithm: SearchAlgorithm::Descent,
            iterations: Some(500),
            time: None,
            completed: true,
            exploration: 0.4,
            max_depth: 64,
        }
    }
}

/// The terminal evaluation f_t (reinforcement heuristic, docs/algorithms.md §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TerminalEvalName {
    Classic,
    AdditiveDepth,
    MultiplicativeDepth,
    Score,
    Mobility,
    Presence,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetsName {
    Tree,
    Root,
    Terminal,
}

/// What is learned and from which values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LearningSection {
    /// `tree` (default: every state of the game's table; with mcts, the visited states of each
    /// move's tree with their mean values; with alphabeta, the searched states whose value is
    /// exact), `root` or `terminal`.
    pub targets: TargetsName,
    /// `classic` (default), `additive-depth`, `multiplicative-depth`, `score`, `mobility`,
    /// `presence`. Anything but `classic` makes the network's output linear.
    pub terminal_eval: TerminalEvalName,
    /// P of the additive depth heuristic (default: P̃, the longest of 1000 random games).
    pub max_length: Option<f32>,
    /// P' of the multiplicative depth heuristic (default: the mean length of 1000 random games).
    pub mean_length: Option<f32>,
    /// Add each pair's images under the board's symmetries: `one` (default: one image under a
    /// symmetry drawn at random, the paper's way), `all` or `none`.
    pub augment_symmetries: Augmentation,
    /// Before self-play, fit the network on this many random terminal states (default 0: off).
    pub pretrain_terminal_states: usize,
    /// Passes over those states (default 1).
    pub pretrain_epochs: usize,
}

impl Default for LearningSection {
    fn default() -> Self {
        LearningSection {
            targets: TargetsName::Tree,
            terminal_eval: TerminalEvalName::Classic,
            max_length: None,
            mean_length: None,
            augment_symmetries: Augmentation::One,
            pretrain_terminal_states: 0,
            pretrain_epochs: 1,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DistributionName {
    EpsilonGreedy,
    Softmax,
    Ordinal,
}

/// ε' as written in YAML: `anneal`, `uniform` or a number in [0, 1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExploitationText(pub Exploitation);

impl Serialize for ExploitationText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Exploitation::Annealed => serializer.serialize_str("anneal"),
            Exploitation::UniformPerMove => serializer.serialize_str("uniform"),
            Exploitation::Fixed(value) => serializer.serialize_f64(value),
        }
    }
}

impl<'de> Deserialize<'de> for ExploitationText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        const EXPECTED: &str = "`anneal`, `uniform` or a number between 0 and 1";
        impl serde::de::Visitor<'_> for Visitor {
            type Value = ExploitationText;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ExploitationText, E> {
                match v {
                    "anneal" => Ok(ExploitationText(Exploitation::Annealed)),
                    "uniform" => Ok(ExploitationText(Exploitation::UniformPerMove)),
                    _ => Err(E::custom(format!(
                        "bad exploitation {v:?}: expected {EXPECTED}"
                    ))),
                }
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<ExploitationText, E> {
                if (0.0..=1.0).contains(&v) {
                    Ok(ExploitationText(Exploitation::Fixed(v)))
                } else {
                    Err(E::custom(format!(
                        "bad exploitation {v}: expected {EXPECTED}"
                    )))
                }
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<ExploitationText, E> {
                self.visit_f64(v as f64)
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<ExploitationText, E> {
                self.visit_f64(v as f64)
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// How the move is chosen after each search (docs/algorithms.md §4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelectionSection {
    /// `ordinal` (default), `epsilon-greedy` or `softmax`.
    pub distribution: DistributionName,
    /// ε': `uniform` (default: drawn in [0, 1] at each move), `anneal` (0 → 1 over the run;
    /// needs `run.max_games` or `run.max_time`) or a fixed number (ε-greedy's ε is 1 - ε').
    pub exploitation: ExploitationText,
    /// Softmax temperature τ (default 1).
    pub temperature: f64,
    /// Play proven wins, never proven losses (default true).
    pub completed: bool,
}

impl Default for SelectionSection {
    fn default() -> Self {
        SelectionSection {
            distribution: DistributionName::Ordinal,
            exploitation: ExploitationText(Exploitation::UniformPerMove),
            temperature: 1.0,
            completed: true,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReplayKind {
    None,
    Experience,
    Stratified,
}

/// The replay buffer (docs/algorithms.md §6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReplaySection {
    /// `stratified` (default), `experience`, or `none` (learn each game's pairs once).
    pub kind: ReplayKind,
    /// μ in games (stratified: default 100; experience: alternative to `pairs`).
    pub games: Option<usize>,
    /// μ in pairs (experience only; default 1 000 000 when `games` is not set).
    pub pairs: Option<usize>,
    /// σ, experience replay's sampled fraction (default 0.04).
    pub fraction: f64,
    /// δ, stratified replay's duplication (default 3).
    pub duplication: f64,
    /// Minibatch size B (default 128).
    pub batch_size: usize,
}

impl Default for ReplaySection {
    fn default() -> Self {
        ReplaySection {
            kind: ReplayKind::Stratified,
            games: None,
            pairs: None,
            fraction: 0.04,
            duplication: 3.0,
            batch_size: 128,
        }
    }
}

/// Keeping proven (resolved) states across games (docs/algorithms.md §6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ResolvedStatesSection {
    /// Keep the resolved states of each game's table for the next games (default false).
    pub keep: bool,
    /// Empty them this often (default 6h).
    pub reset_every: DurationText,
}

impl Default for ResolvedStatesSection {
    fn default() -> Self {
        ResolvedStatesSection {
            keep: false,
            reset_every: DurationText(Duration::from_secs(6 * 3600)),
        }
    }
}

/// When checkpoints are written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CheckpointSection {
    /// Every this many games (default 100; 0 = not by games).
    pub every_games: u64,
    /// And/or every this much time (default: not by time).
    pub every_time: Option<DurationText>,
    /// Keep only the last N checkpoints (default 0: keep all).
    pub keep_last: usize,
    /// Also save each checkpoint's network under `nets/`, kept when `keep_last` prunes the
    /// checkpoint (default false; `descent experiment` turns it on).
    pub keep_nets: bool,
}

impl Default for CheckpointSection {
    fn default() -> Self {
        CheckpointSection {
            every_games: 100,
            every_time: None,
            keep_last: 0,
            keep_nets: false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EvalOpponent {
    Mcts,
    Random,
}

/// Periodic evaluation inside the run: the current net with UBFM_s against a baseline, both
/// sides (paper section 8.5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvaluationSection {
    /// Every this many games (default 0: off).
    pub every_games: u64,
    /// Games per evaluation, half with each colour (default 20).
    pub games: u64,
    /// `mcts` (default: UCT with random playouts) or `random`.
    pub opponent: EvalOpponent,
    /// Time per move for both sides (default 100ms).
    pub time_per_move: Option<DurationText>,
    /// Or iterations per move for both sides (reproducible; default: none).
    pub iterations_per_move: Option<u64>,
}

impl Default for EvaluationSection {
    fn default() -> Self {
        EvaluationSection {
            every_games: 0,
            games: 20,
            opponent: EvalOpponent::Mcts,
            time_per_move: Some(DurationText(Duration::from_millis(100))),
            iterations_per_move: None,
        }
    }
}

/// The keys a resumed run may change: budgets, resources, checkpoints and evaluations, none of
/// which alters what the network learns. A key is safe when it is one of these or below one.
pub const RESUME_SAFE_KEYS: &[&str] = &[
    "run.name",
    "run.max_games",
    "run.max_time",
    "run.threads",
    "run.device",
    "checkpoint",
    "evaluation",
];

/// The validated settings of a run, in the library's types.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainSettings {
    /// The configuration these settings come from (kept in every checkpoint, so that a resume
    /// can refuse a change of what is learned).
    pub config: TrainConfig,
    pub game: GameSpec,
    pub seed: u64,
    pub max_games: Option<u64>,
    pub max_time: Option<Duration>,
    pub threads: usize,
    pub device: DeviceChoice,
    pub architecture: Architecture,
    pub adam: AdamSettings,
    pub algorithm: SearchAlgorithm,
    pub budget: Budget,
    pub completed: bool,
    pub exploration: f64,
    pub max_depth: u32,
    pub targets: Targets,
    pub terminal_eval: TerminalEvalName,
    pub max_length: Option<f32>,
    pub mean_length: Option<f32>,
    pub augment_symmetries: Augmentation,
    pub pretrain_terminal_states: usize,
    pub pretrain_epochs: usize,
    pub selection: ActionSelection,
    pub replay: ReplayPolicy,
    pub batch_size: usize,
    pub keep_resolved: Option<Duration>,
    pub checkpoint_every_games: u64,
    pub checkpoint_every_time: Option<Duration>,
    pub keep_last_checkpoints: usize,
    pub keep_nets: bool,
    pub evaluation: Option<EvaluationSettings>,
}

/// Validated periodic evaluation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EvaluationSettings {
    pub every_games: u64,
    pub games: u64,
    pub opponent: EvalOpponent,
    pub budget: Budget,
}

/// A configuration error naming the key.
#[derive(Debug, thiserror::Error)]
#[error("{key}: {message}")]
pub struct ConfigError {
    pub key: String,
    pub message: String,
}

fn error(key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError {
        key: key.to_string(),
        message: message.into(),
    }
}

fn check(ok: bool, key: &str, message: &str) -> Result<(), ConfigError> {
    if ok { Ok(()) } else { Err(error(key, message)) }
}

/// Refuses `value` above `max` (sizes that would exhaust memory: see `search::limits`).
fn limit<T: PartialOrd + fmt::Display>(key: &str, value: T, max: T) -> Result<(), ConfigError> {
    at_most("the value", value, max)
        .map(|_| ())
        .map_err(|e| error(key, e))
}

/// A run name is one directory name under `checkpoints/`: no path separators, not `.` or `..`,
/// no control characters.
fn check_run_name(name: &str) -> Result<(), ConfigError> {
    let ok = !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\'])
        && !name.chars().any(char::is_control);
    check(
        ok,
        "run.name",
        &format!(
            "{name:?} is not a directory name: use letters, digits, '-', '_' or '.', without '/' (choose another place with --run-dir)"
        ),
    )
}

impl TrainConfig {
    /// Parses YAML text (unknown keys and wrong types are errors naming the key).
    pub fn from_yaml(text: &str) -> Result<TrainConfig, String> {
        serde_saphyr::from_str(text).map_err(|e| e.to_string())
    }

    /// The resolved configuration as YAML (written into the run directory).
    pub fn to_yaml(&self) -> String {
        serde_saphyr::to_string(self).expect("a config serialises")
    }

    /// The dotted keys (`search.iterations`) whose values differ between `self` and `other`,
    /// defaults filled in on both sides.
    pub fn changed_keys(&self, other: &TrainConfig) -> Vec<String> {
        fn walk(key: String, a: &serde_json::Value, b: &serde_json::Value, out: &mut Vec<String>) {
            match (a, b) {
                (serde_json::Value::Object(a), serde_json::Value::Object(b)) => {
                    let keys: std::collections::BTreeSet<&String> =
                        a.keys().chain(b.keys()).collect();
                    let null = serde_json::Value::Null;
                    for k in keys {
                        let child = if key.is_empty() {
                            k.clone()
                        } else {
                            format!("{key}.{k}")
                        };
                        walk(
                            child,
                            a.get(k).unwrap_or(&null),
                            b.get(k).unwrap_or(&null),
                            out,
                        );
                    }
                }
                _ if a != b => out.push(key),
                _ => {}
            }
        }
        let value = |c: &TrainConfig| serde_json::to_value(c).expect("a config serialises");
        let mut changed = Vec::new();
        walk(String::new(), &value(self), &value(other), &mut changed);
        changed
    }

    /// The changes from `trained` (the configuration a checkpoint was trained with) to `self`
    /// that would alter what is learned: those outside `RESUME_SAFE_KEYS`.
    pub fn learning_changes(&self, trained: &TrainConfig) -> Vec<String> {
        self.changed_keys(trained)
            .into_iter()
            .filter(|key| {
                !RESUME_SAFE_KEYS
                    .iter()
                    .any(|safe| key == safe || key.starts_with(&format!("{safe}.")))
            })
            .collect()
    }

    /// Checks ranges and combinations and converts to typed settings.
    pub fn validate(&self) -> Result<TrainSettings, ConfigError> {
        let game: GameSpec = self
            .game
            .parse()
            .map_err(|e: crate::games::GameSpecError| error("game", e.to_string()))?;
        let run = &self.run;
        check(run.threads >= 1, "run.threads", "must be at least 1")?;
        limit("run.threads", run.threads, MAX_THREADS)?;
        if let Some(name) = &run.name {
            check_run_name(name)?;
        }
        check(
            run.max_games != Some(0),
            "run.max_games",
            "must be at least 1 (leave it out for no limit)",
        )?;
        let device: DeviceChoice = run
            .device
            .parse()
            .map_err(|e: String| error("run.device", e))?;
        let architecture: Architecture = self
            .network
            .architecture
            .parse()
            .map_err(|e: String| error("network.architecture", e))?;
        architecture
            .check_size(game.encoding_dims())
            .map_err(|e| error("network.architecture", e))?;
        let o = &self.optimizer;
        check(
            o.learning_rate > 0.0 && o.learning_rate.is_finite(),
            "optimizer.learning_rate",
            "must be a positive number",
        )?;
        check(
            (0.0..1.0).contains(&o.beta1),
            "optimizer.beta1",
            "must be in [0, 1)",
        )?;
        check(
            (0.0..1.0).contains(&o.beta2),
            "optimizer.beta2",
            "must be in [0, 1)",
        )?;
        check(o.epsilon > 0.0, "optimizer.epsilon", "must be positive")?;
        check(o.l2 >= 0.0, "optimizer.l2", "must be at least 0")?;
        let s = &self.search;
        check(
            s.iterations.is_some() || s.time.is_some(),
            "search",
            "give search.iterations or search.time (or both)",
        )?;
        check(
            s.iterations != Some(0),
            "search.iterations",
            "must be at least 1",
        )?;
        check(
            s.time.is_none_or(|t| !t.0.is_zero()),
            "search.time",
            "must be longer than 0s (leave it out for iterations only)",
        )?;
        check(
            s.exploration >= 0.0,
            "search.exploration",
            "must be at least 0",
        )?;
        check(s.max_depth >= 1, "search.max_depth", "must be at least 1")?;
        let l = &self.learning;
        let targets = match l.targets {
            TargetsName::Tree => Targets::Tree,
            TargetsName::Root => Targets::Root,
            TargetsName::Terminal => Targets::Terminal,
        };

        check(
            l.max_length.is_none_or(|p| p >= 1.0),
            "learning.max_length",
            "must be at least 1",
        )?;
        check(
            l.mean_length.is_none_or(|p| p > 0.0),
            "learning.mean_length",
            "must be positive",
        )?;
        check(
            l.pretrain_epochs >= 1,
            "learning.pretrain_epochs",
            "must be at least 1",
        )?;
        limit(
            "learning.pretrain_terminal_states",
            l.pretrain_terminal_states,
            MAX_PRETRAIN_STATES,
        )?;
        limit("learning.pretrain_epochs", l.pretrain_epochs, 1_000_000)?;
        let sel = &self.selection;
        check(
            sel.temperature > 0.0,
            "selection.temperature",
            "must be positive",
        )?;
        if sel.exploitation.0 == Exploitation::Annealed {
            check(
                run.max_games.is_some() || run.max_time.is_some(),
                "selection.exploitation",
                "`anneal` grows over the run's duration: set run.max_games or run.max_time",
            )?;
        }
        if s.algorithm == SearchAlgorithm::Alphabeta {
            check(
                sel.distribution == DistributionName::EpsilonGreedy,
                "selection.distribution",
                "alphabeta knows only its best move: use epsilon-greedy",
            )?;
        }
        let selection = ActionSelection {
            distribution: match sel.distribution {
                DistributionName::EpsilonGreedy => Distribution::EpsilonGreedy,
                DistributionName::Softmax => Distribution::Softmax {
                    temperature: sel.temperature,
                },
                DistributionName::Ordinal => Distribution::Ordinal,
            },
            exploitation: sel.exploitation.0,
            completed: sel.completed,
        };
        let r = &self.replay;
        check(r.batch_size >= 1, "replay.batch_size", "must be at least 1")?;
        limit("replay.batch_size", r.batch_size, MAX_BATCH)?;
        let replay = match r.kind {
            ReplayKind::None => {
                check(
                    r.games.is_none() && r.pairs.is_none(),
                    "replay",
                    "kind none takes no games or pairs",
                )?;
                ReplayPolicy::LastGame
            }
            ReplayKind::Experience => {
                check(
                    r.fraction > 0.0 && r.fraction <= 1.0,
                    "replay.fraction",
                    "must be in (0, 1]",
                )?;
                let capacity = match (r.games, r.pairs) {
                    (Some(_), Some(_)) => {
                        return Err(error(
                            "replay",
                            "give replay.games or replay.pairs, not both",
                        ));
                    }
                    (Some(games), None) => Capacity::Games(games),
                    (None, pairs) => Capacity::Pairs(pairs.unwrap_or(1_000_000)),
                };
                check(
                    !matches!(capacity, Capacity::Games(0) | Capacity::Pairs(0)),
                    "replay",
                    "the capacity must be at least 1",
                )?;
                ReplayPolicy::Experience {
                    capacity,
                    fraction: r.fraction,
                }
            }
            ReplayKind::Stratified => {
                check(
                    r.pairs.is_none(),
                    "replay.pairs",
                    "stratified replay counts games: use replay.games",
                )?;
                let games = r.games.unwrap_or(100);
                check(games >= 1, "replay.games", "must be at least 1")?;
                check(
                    r.duplication > 0.0 && r.duplication <= games as f64,
                    "replay.duplication",
                    "must be in (0, replay.games]",
                )?;
                ReplayPolicy::Stratified {
                    games,
                    duplication: r.duplication,
                }
            }
        };
        let c = &self.checkpoint;
        check(
            c.every_games > 0 || c.every_time.is_some(),
            "checkpoint",
            "set checkpoint.every_games or checkpoint.every_time",
        )?;
        check(
            c.every_time.is_none_or(|t| !t.0.is_zero()),
            "checkpoint.every_time",
            "must be longer than 0s",
        )?;
        let e = &self.evaluation;
        let evaluation = if e.every_games == 0 {
            None
        } else {
            check(
                e.games >= 2 && e.games.is_multiple_of(2),
                "evaluation.games",
                "must be an even number ≥ 2 (both sides)",
            )?;
            limit("evaluation.games", e.games, MAX_GAMES)?;
            check(
                e.time_per_move.is_some() || e.iterations_per_move.is_some(),
                "evaluation",
                "give evaluation.time_per_move or evaluation.iterations_per_move",
            )?;
            check(
                e.time_per_move.is_none_or(|t| !t.0.is_zero()),
                "evaluation.time_per_move",
                "must be longer than 0s",
            )?;
            check(
                e.iterations_per_move != Some(0),
                "evaluation.iterations_per_move",
                "must be at least 1",
            )?;
            Some(EvaluationSettings {
                every_games: e.every_games,
                games: e.games,
                opponent: e.opponent,
                budget: Budget {
                    iterations: e.iterations_per_move,
                    time: e.time_per_move.map(|d| d.0),
                },
            })
        };
        Ok(TrainSettings {
            config: self.clone(),
            game,
            seed: self.seed,
            max_games: run.max_games,
            max_time: run.max_time.map(|d| d.0),
            threads: run.threads,
            device,
            architecture,
            adam: AdamSettings {
                learning_rate: o.learning_rate,
                beta1: o.beta1,
                beta2: o.beta2,
                epsilon: o.epsilon,
                l2: o.l2,
            },
            algorithm: s.algorithm,
            budget: Budget {
                iterations: s.iterations,
                time: s.time.map(|d| d.0),
            },
            completed: s.completed,
            exploration: s.exploration,
            max_depth: s.max_depth,
            targets,
            terminal_eval: l.terminal_eval,
            max_length: l.max_length,
            mean_length: l.mean_length,
            augment_symmetries: l.augment_symmetries,
            pretrain_terminal_states: l.pretrain_terminal_states,
            pretrain_epochs: l.pretrain_epochs,
            selection,
            replay,
            batch_size: r.batch_size,
            keep_resolved: self
                .resolved_states
                .keep
                .then_some(self.resolved_states.reset_every.0),
            checkpoint_every_games: c.every_games,
            checkpoint_every_time: c.every_time.map(|d| d.0),
            keep_last_checkpoints: c.keep_last,
            keep_nets: c.keep_nets,
            evaluation,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<TrainSettings, String> {
        TrainConfig::from_yaml(text)?
            .validate()
            .map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_are_the_documented_ones() {
        let s = parse("game: tic_tac_toe\n").unwrap();
        assert_eq!(s.seed, 1);
        assert_eq!(s.threads, 1);
        assert_eq!(s.architecture, Architecture::PaperCnn);
        assert_eq!(s.algorithm, SearchAlgorithm::Descent);
        assert_eq!(s.budget.iterations, Some(500));
        assert_eq!(s.targets, Targets::Tree);
        assert_eq!(
            s.replay,
            ReplayPolicy::Stratified {
                games: 100,
                duplication: 3.0
            }
        );
        assert_eq!(s.batch_size, 128);
        assert_eq!(s.selection.distribution, Distribution::Ordinal);
        assert_eq!(s.evaluation, None);
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
            "game: tic_tac_toe\nseed: 4\nlearning:\n  terminal_eval: additive-depth\nsearch:\n  iterations: 500\nreplay:\n  duplication: 2\n",
        )
        .unwrap();
        // search.iterations: 500 is the default, so not a change.
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
        assert_eq!(s.max_time, Some(Duration::from_secs(5400)));
        assert_eq!(s.selection.exploitation, Exploitation::Fixed(0.25));
        assert_eq!(
            s.replay,
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
                "game: tic_tac_toe\nsearch:\n  iterations: 10\n  itrations: 5\n",
                "itrations",
            ),
            (
                "game: tic_tac_toe\nsearch:\n  algorithm: dijkstra\n",
                "dijkstra",
            ),
            (
                "game: tic_tac_toe\nsearch:\n  iterations: lots\n",
                "iterations",
            ),
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
                "game: tic_tac_toe\nsearch:\n  iterations: null\n  time: 0s\n",
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
            ("seed: 3\n", "game"),
            ("game: [1, 2\n", ""),
        ];
        for (text, needle) in cases {
            let message = parse(text).expect_err(text);
            assert!(message.contains(needle), "{text:?} → {message}");
        }
    }
}
