//! The experiment file of `descent experiment` (YAML): which training variants to compare, how
//! long each trains, how often its network is evaluated, how many repetitions. Each variant is
//! a training configuration — a `base` file (the same keys as `descent train`) with `set`
//! overrides — to which the protocol's own keys are then applied (time limit, checkpoints,
//! seed). Everything is checked before any training starts.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::arena::{AgentSpec, ModelSource};
use crate::selfplay::TrainConfig;
use crate::selfplay::config::TrainSettings;
use crate::settings::DurationText;
use crate::settings::config_error::ConfigError;
use crate::settings::limits::{MAX_GAMES, MAX_REPEATS, MAX_STAGES, MAX_THREADS, MAX_VARIANTS};

fn default_seed() -> u64 {
    1
}

fn default_repeats() -> u32 {
    1
}

fn default_parallel_runs() -> usize {
    1
}

/// The experiment file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentConfig {
    /// Output directory name under `experiments/` (default: the file's name).
    pub name: Option<String>,
    /// The game of every variant (default: the game of the variants' configurations, which
    /// must then agree).
    pub game: Option<String>,
    /// Repetition r (from 0) trains every variant with seed `seed + r` (default 1).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// R, the number of repetitions (default 1).
    #[serde(default = "default_repeats")]
    pub repeats: u32,
    /// Training time of every variant in every repetition, e.g. `48h`.
    pub train_time: DurationText,
    /// Evaluation stages: a network is kept every this much training time, e.g. `1h`.
    pub stage_every: DurationText,
    /// Runs trained at once (default 1), each with its share of the machine's cores: its
    /// `run.threads` games and cores ÷ `parallel_runs` threads for its learning steps. Every
    /// run trains for `train_time` of wall-clock time, so runs at once must not share a core:
    /// `parallel_runs` × a run's threads may not exceed the machine's cores.
    #[serde(default = "default_parallel_runs")]
    pub parallel_runs: usize,
    /// The training configuration every variant starts from (a path, relative to the
    /// experiment file; default: none, the defaults of `descent train`).
    pub base: Option<String>,
    /// Keys of the training configuration changed for every variant (before the variant's own
    /// `set`), dotted or nested as in a variant's `set`.
    #[serde(default)]
    pub set: BTreeMap<String, Value>,
    #[serde(default)]
    pub evaluation: EvaluationSection,
    /// The variants compared (two or more).
    pub variants: Vec<VariantSection>,
}

/// How networks are compared.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvaluationSection {
    /// The player that uses each network, an agent spec without `model=` (default `minimax1`,
    /// the paper's depth-1 minimax).
    pub agent: String,
    /// Games per pairing, half with each colour (default 2: a deterministic player plays
    /// the same game again).
    pub games_per_pair: u64,
    /// Games at once (default: the machine's cores).
    pub threads: Option<usize>,
    /// A player without a network (e.g. `mcts:time=100ms`, base MCTS) that every stage network
    /// also plays, both colours (the paper's §8.5: score = win rate − loss rate against base
    /// MCTS over training time); default none.
    pub baseline: Option<String>,
    /// Games of each stage network against the baseline, half with each colour (default 20).
    pub games_against_baseline: u64,
    /// Random plies each evaluation game starts from (default 2), games in pairs from the same
    /// opening with the colours swapped, every match of the experiment from the same openings:
    /// deterministic players then do not replay one game (0: every game from the start).
    pub opening_plies: u32,
}

impl Default for EvaluationSection {
    fn default() -> Self {
        EvaluationSection {
            agent: "minimax1".into(),
            games_per_pair: 2,
            threads: None,
            baseline: None,
            games_against_baseline: 20,
            opening_plies: 2,
        }
    }
}

/// One training variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantSection {
    /// Its name in tables, curves and directories (letters, digits, `-`, `_`, `.`).
    pub name: String,
    /// A training configuration replacing the experiment's `base` for this variant.
    pub base: Option<String>,
    /// The player of this variant's networks, replacing `evaluation.agent` (e.g. `puct:time=1s`
    /// for an AlphaZero variant, `exit:time=1s` for ExIt); without `model=`.
    pub agent: Option<String>,
    /// Keys of the training configuration to change, dotted (`search.algorithm: mcts`) or
    /// nested (`search: {algorithm: mcts}`).
    #[serde(default)]
    pub set: BTreeMap<String, Value>,
}

/// The most random plies an evaluation game may start with (past it a game is the dice's).
const MAX_OPENING_PLIES: u32 = 1000;

/// Keys the protocol sets itself; a variant's `set` may not touch them.
const PROTOCOL_KEYS: &[(&str, &str)] = &[
    ("seed", "the experiment's seed (+ the repetition)"),
    ("run.max_time", "train_time"),
    (
        "run.max_games",
        "train_time (variants train for the same time)",
    ),
    ("run.name", "the variant's name"),
    ("checkpoint.every_games", "stage_every"),
    ("checkpoint.every_time", "stage_every"),
    (
        "checkpoint.keep_last",
        "the protocol (the latest checkpoint only)",
    ),
    (
        "checkpoint.keep_nets",
        "the protocol (every stage's network)",
    ),
    (
        "evaluation.every_games",
        "the protocol (it evaluates the kept networks itself)",
    ),
    (
        "evaluation.at_end",
        "the protocol (it evaluates the kept networks itself)",
    ),
];

/// A validated experiment: every variant's training configuration for every repetition.
#[derive(Clone, Debug)]
pub struct ExperimentPlan {
    pub name: String,
    /// The game spec text, e.g. `connect_four`.
    pub game: String,
    pub repeats: u32,
    pub train_time: Duration,
    pub stage_every: Duration,
    /// The evaluation player, its model left to be filled in per network (a variant may have
    /// its own: `VariantPlan::agent`).
    pub agent: AgentSpec,
    pub games_per_pair: u64,
    /// The player without a network every stage network also meets, and how many games.
    pub baseline: Option<AgentSpec>,
    pub games_against_baseline: u64,
    /// Random plies each evaluation game starts from (`evaluation.opening_plies`).
    pub opening_plies: u32,
    pub threads: usize,
    /// Runs trained at once, and the threads of each one's learning steps (its share of the
    /// cores; `None` with one run at a time: the whole machine's pool).
    pub parallel_runs: usize,
    pub learning_threads: Option<usize>,
    pub variants: Vec<VariantPlan>,
}

#[derive(Clone, Debug)]
pub struct VariantPlan {
    pub name: String,
    /// The player of its networks, its model left to be filled in per network.
    pub agent: AgentSpec,
    /// The training configuration of each repetition (they differ by their seed).
    pub configs: Vec<TrainConfig>,
    pub settings: Vec<TrainSettings>,
}

impl ExperimentPlan {
    /// The number of evaluation stages: one per `stage_every` of training, the last at the end.
    pub fn stages(&self) -> usize {
        (self.train_time.as_secs_f64() / self.stage_every.as_secs_f64()).ceil() as usize
    }
}

/// Inserts `value` at the dotted `key` of the mapping `root`, creating mappings on the way.
fn set_path(root: &mut Value, key: &str, value: Value) -> Result<(), ConfigError> {
    let mut node = root;
    let parts: Vec<&str> = key.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        if part.is_empty() {
            return Err(ConfigError::new(key, "an empty part in a dotted key"));
        }
        let map = match node {
            Value::Object(map) => map,
            Value::Null => {
                *node = Value::Object(Default::default());
                node.as_object_mut().expect("just made a mapping")
            }
            _ => {
                let section = parts[..i].join(".");
                return Err(ConfigError::new(key, format!("{section} is not a section")));
            }
        };
        if i + 1 == parts.len() {
            map.insert(part.to_string(), value);
            return Ok(());
        }
        node = map.entry(part.to_string()).or_insert(Value::Null);
    }
    unreachable!("a key has at least one part")
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !name.starts_with('.')
}

impl ExperimentConfig {
    /// Parses YAML text (unknown keys and wrong types are errors naming the key).
    ///
    /// # Errors
    /// YAML syntax, an unknown key, a wrong type; `key` is `yaml`, the message names the key.
    pub fn from_yaml(text: &str) -> Result<ExperimentConfig, ConfigError> {
        serde_saphyr::from_str(text)
            .map_err(|e| ConfigError::new("yaml", crate::settings::config_error::yaml_message(&e)))
    }

    /// Checks the experiment and builds every variant's training configuration.
    /// `read_base(path)` returns the text of a `base` file (paths as written in the
    /// experiment); `default_name` names the experiment when `name` is absent; `cores` is the
    /// default number of evaluation threads.
    ///
    /// # Errors
    /// A bad protocol key, a base file that cannot be read, a variant's configuration that does
    /// not validate, variants of different games; each names where.
    pub fn plan(
        &self,
        default_name: &str,
        cores: usize,
        read_base: &dyn Fn(&str) -> anyhow::Result<String>,
    ) -> anyhow::Result<ExperimentPlan> {
        let name = self
            .name
            .clone()
            .unwrap_or_else(|| default_name.to_string());
        if !valid_name(&name) {
            bail!("name: {name:?} is not a directory name (letters, digits, -, _, .)");
        }
        self.check_protocol()?;
        let e = &self.evaluation;
        let agent = evaluation_agent(&e.agent).context("evaluation.agent")?;
        let mut variants: Vec<VariantPlan> = Vec::new();
        for (index, variant) in self.variants.iter().enumerate() {
            let at = format!("variants[{index}] ({})", variant.name);
            if !valid_name(&variant.name) {
                bail!(
                    "{at}: name {:?} is not a directory name (letters, digits, -, _, .)",
                    variant.name
                );
            }
            if variants.iter().any(|v| v.name == variant.name) {
                bail!("{at}: the name {:?} is used twice", variant.name);
            }
            let tree = self.variant_tree(variant, read_base).context(at.clone())?;
            let agent = match &variant.agent {
                Some(text) => evaluation_agent(text).with_context(|| format!("{at}: agent"))?,
                None => agent.clone(),
            };
            variants.push(self.variant_plan(variant, agent, &tree).context(at)?);
        }
        let game = same_game(&variants)?;
        let learning_threads = self.cores_per_run(&variants, cores)?;
        let baseline = e
            .baseline
            .as_deref()
            .map(baseline_agent)
            .transpose()
            .context("evaluation.baseline")?;
        Ok(ExperimentPlan {
            name,
            game,
            repeats: self.repeats,
            train_time: self.train_time.0,
            stage_every: self.stage_every.0,
            agent,
            games_per_pair: e.games_per_pair,
            baseline,
            games_against_baseline: e.games_against_baseline,
            opening_plies: e.opening_plies,
            threads: e.threads.unwrap_or(cores).max(1),
            parallel_runs: self.parallel_runs,
            learning_threads,
            variants,
        })
    }

    /// The cores of each run when `parallel_runs` train at once on `cores` (`None` for one at
    /// a time); refuses runs at once that would share cores, since each trains for the same
    /// wall-clock time.
    fn cores_per_run(
        &self,
        variants: &[VariantPlan],
        cores: usize,
    ) -> anyhow::Result<Option<usize>> {
        let at_once = self.parallel_runs;
        if at_once == 1 {
            return Ok(None);
        }
        let share = cores / at_once;
        for variant in variants {
            let threads = variant.settings[0].run.threads;
            if threads > share {
                bail!(
                    "parallel_runs: {at_once} runs at once on {cores} cores leave {share} a run, \
                     but variant {} plays {threads} games at once (run.threads); runs that share \
                     cores lose training time unequally — lower parallel_runs or run.threads",
                    variant.name
                );
            }
        }
        Ok(Some(share))
    }

    /// The protocol's own keys: repeats, times, evaluation games and threads, variants.
    fn check_protocol(&self) -> anyhow::Result<()> {
        if self.repeats == 0 || self.repeats > MAX_REPEATS {
            bail!(
                "repeats: {} — expected from 1 to {MAX_REPEATS} repetitions",
                self.repeats
            );
        }
        let (train_time, stage_every) = (self.train_time.0, self.stage_every.0);
        if train_time.is_zero() {
            bail!("train_time: must be longer than 0s");
        }
        if stage_every.is_zero() || stage_every > train_time {
            bail!(
                "stage_every: {} must be longer than 0s and at most train_time ({})",
                self.stage_every,
                self.train_time
            );
        }
        let stages = (train_time.as_secs_f64() / stage_every.as_secs_f64()).ceil();
        if stages > MAX_STAGES as f64 {
            bail!(
                "stage_every: {} gives {stages} evaluation stages in train_time ({}), more than the limit of {MAX_STAGES}",
                self.stage_every,
                self.train_time
            );
        }
        let e = &self.evaluation;
        // Both colours equally.
        let even_games = |key: &str, games: u64| {
            if games < 2 || !games.is_multiple_of(2) || games > MAX_GAMES {
                bail!(
                    "evaluation.{key}: {games} — expected an even number from 2 to {MAX_GAMES} (both colours equally)"
                );
            }
            Ok(())
        };
        even_games("games_per_pair", e.games_per_pair)?;
        if e.baseline.is_some() {
            even_games("games_against_baseline", e.games_against_baseline)?;
        }
        if e.threads.is_some_and(|t| t == 0 || t > MAX_THREADS) {
            bail!("evaluation.threads: must be from 1 to {MAX_THREADS}");
        }
        if e.opening_plies > MAX_OPENING_PLIES {
            bail!(
                "evaluation.opening_plies: {} — expected at most {MAX_OPENING_PLIES}",
                e.opening_plies
            );
        }
        if self.parallel_runs == 0 || self.parallel_runs > MAX_THREADS {
            bail!(
                "parallel_runs: {} — expected from 1 to {MAX_THREADS} runs at once",
                self.parallel_runs
            );
        }
        if self.variants.len() < 2 || self.variants.len() > MAX_VARIANTS {
            bail!(
                "variants: {} given — give at least two (the protocol compares them) and at most {MAX_VARIANTS}",
                self.variants.len()
            );
        }
        Ok(())
    }

    /// The variant's configuration tree: its base (or the experiment's), the experiment's `set`,
    /// the variant's `set`, the experiment's game.
    fn variant_tree(
        &self,
        variant: &VariantSection,
        read_base: &dyn Fn(&str) -> anyhow::Result<String>,
    ) -> anyhow::Result<Value> {
        let base = match variant.base.as_ref().or(self.base.as_ref()) {
            Some(path) => {
                let text = read_base(path).with_context(|| format!("base {path}"))?;
                serde_saphyr::from_str::<Value>(&text)
                    .map_err(|e| anyhow::anyhow!("base {path}: {e}"))?
            }
            None => Value::Object(Default::default()),
        };
        let mut tree = match base {
            Value::Object(_) => base,
            Value::Null => Value::Object(Default::default()),
            _ => bail!("the base configuration is not a mapping"),
        };
        apply_set(&mut tree, &self.set)?;
        apply_set(&mut tree, &variant.set)?;
        if let Some(game) = &self.game {
            set_path(&mut tree, "game", Value::String(game.clone()))?;
        }
        Ok(tree)
    }

    /// The variant's training configurations, one per repeat, with the protocol's keys.
    fn variant_plan(
        &self,
        variant: &VariantSection,
        agent: AgentSpec,
        tree: &Value,
    ) -> anyhow::Result<VariantPlan> {
        let mut configs = Vec::new();
        let mut settings = Vec::new();
        for repeat in 0..self.repeats {
            // The path of a bad key or value, e.g. `search.iters: invalid value`.
            let mut config: TrainConfig = serde_path_to_error::deserialize(tree.clone())?;
            config.take_old_keys()?;
            config.seed = self.seed.wrapping_add(u64::from(repeat));
            config.run.name = Some(variant.name.clone());
            config.run.max_time = Some(self.train_time);
            config.run.max_games = None;
            config.checkpoint.every_games = 0;
            config.checkpoint.every_time = Some(self.stage_every);
            config.checkpoint.keep_last = 1;
            config.checkpoint.keep_nets = true;
            config.evaluation.every_games = 0;
            config.evaluation.at_end = false;
            settings.push(config.validate()?);
            configs.push(config);
        }
        Ok(VariantPlan {
            name: variant.name.clone(),
            agent,
            configs,
            settings,
        })
    }
}

/// The game every variant trains.
fn same_game(variants: &[VariantPlan]) -> anyhow::Result<String> {
    let game = variants[0].configs[0].game.clone();
    for variant in &variants[1..] {
        if variant.configs[0].game != game {
            bail!(
                "variant {} trains {}, variant {} trains {}: the variants must play the same game (set `game:` in the experiment)",
                variants[0].name,
                game,
                variant.name,
                variant.configs[0].game
            );
        }
    }
    Ok(game)
}

/// Applies the `set` overrides to the configuration tree; a nested mapping merges key by key,
/// so that it changes only what it names.
fn apply_set(tree: &mut Value, set: &BTreeMap<String, Value>) -> Result<(), ConfigError> {
    for (key, value) in set {
        let mut leaves = Vec::new();
        flatten(key, value, &mut leaves);
        for (leaf, leaf_value) in leaves {
            if let Some((_, by)) = PROTOCOL_KEYS
                .iter()
                .find(|(k, _)| leaf == *k || leaf.starts_with(&format!("{k}.")))
            {
                return Err(ConfigError::new(
                    format!("set.{leaf}"),
                    format!("the experiment's {by} sets it"),
                ));
            }
            set_path(tree, &leaf, leaf_value).map_err(|e| ConfigError {
                key: format!("set.{}", e.key),
                message: e.message,
            })?;
        }
    }
    Ok(())
}

/// `(dotted key, value)` for every leaf of `value` under `key`.
fn flatten(key: &str, value: &Value, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (inner_key, inner) in map {
                flatten(&format!("{key}.{inner_key}"), inner, out);
            }
        }
        _ => out.push((key.to_string(), value.clone())),
    }
}

/// Parses the evaluation player: an agent spec that takes a network, without one.
fn evaluation_agent(text: &str) -> anyhow::Result<AgentSpec> {
    if text == "random" {
        anyhow::bail!(
            "\"random\" plays without a network; give a player that uses one (minimax1, ubfms:iters=100, mcts:iters=200, …)"
        );
    }
    if text
        .split([':', ','])
        .any(|part| part.starts_with("model="))
    {
        anyhow::bail!("{text:?}: leave out model= (the experiment gives each network)");
    }
    let with_model = if text.contains(':') {
        format!("{text},model=untrained")
    } else {
        format!("{text}:model=untrained")
    };
    let spec: AgentSpec = with_model.parse().map_err(anyhow::Error::msg)?;
    Ok(AgentSpec {
        text: text.to_string(),
        ..spec
    })
}

/// Parses the baseline: an agent spec that plays without a network (`mcts:time=100ms`).
fn baseline_agent(text: &str) -> anyhow::Result<AgentSpec> {
    let spec: AgentSpec = text.parse().map_err(anyhow::Error::msg)?;
    if spec.model.is_some() {
        anyhow::bail!(
            "{text:?}: the baseline plays without a network (mcts:time=100ms, alphabeta:depth=4, random, …)"
        );
    }
    Ok(spec)
}

/// The evaluation player `agent` with the network at `base`, named `label`.
pub fn agent_with_model(agent: &AgentSpec, base: &std::path::Path, label: String) -> AgentSpec {
    AgentSpec {
        text: label,
        search: agent.search.clone(),
        model: Some(ModelSource::Path(base.to_path_buf())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "game: tic_tac_toe\nsearch: {iters: 30}\nrun: {max_time: 1h}\n";

    fn plan(text: &str) -> anyhow::Result<ExperimentPlan> {
        let config = ExperimentConfig::from_yaml(text).map_err(anyhow::Error::msg)?;
        config.plan("exp", 2, &|path| match path {
            "base.yaml" => Ok(BASE.to_string()),
            "c4.yaml" => Ok("game: connect_four\n".to_string()),
            _ => anyhow::bail!("no such file"),
        })
    }

    fn error(text: &str) -> String {
        format!("{:#}", plan(text).expect_err("an error"))
    }

    const TWO: &str = "train_time: 10s\nstage_every: 3s\nbase: base.yaml\nrepeats: 2\nvariants:\n  - name: a\n  - name: b\n    set:\n      search.algorithm: mcts\n      learning: {targets: root}\n";

    /// A variant may have its own player; the baseline plays without a network, an even number
    /// of games.
    #[test]
    fn variants_have_their_own_players_and_the_baseline_has_no_network() {
        let text = format!(
            "{TWO}    agent: puct:iters=50\nevaluation: {{baseline: \"mcts:iters=100\", games_against_baseline: 6}}\n"
        );
        let plan = plan(&text).unwrap();
        assert_eq!(plan.variants[0].agent.text, "minimax1");
        assert_eq!(plan.variants[1].agent.text, "puct:iters=50");
        let baseline = plan.baseline.expect("a baseline");
        assert_eq!(
            (baseline.text.as_str(), plan.games_against_baseline),
            ("mcts:iters=100", 6)
        );
        let e = error(&format!("{TWO}    agent: puct:iters=50,model=x\n"));
        assert!(
            e.contains("variants[1] (b): agent") && e.contains("model="),
            "{e}"
        );
        let e = error(&format!("{TWO}    agent: nonsense\n"));
        assert!(e.contains("variants[1] (b): agent"), "{e}");
        let e = error(&format!(
            "{TWO}evaluation: {{baseline: \"minimax1:model=x\"}}\n"
        ));
        assert!(
            e.contains("evaluation.baseline") && e.contains("without a network"),
            "{e}"
        );
        let e = error(&format!(
            "{TWO}evaluation: {{baseline: random, games_against_baseline: 3}}\n"
        ));
        assert!(e.contains("games_against_baseline: 3"), "{e}");
    }

    #[test]
    fn variants_get_the_base_their_changes_and_the_protocol_keys() {
        let plan = plan(TWO).unwrap();
        assert_eq!(plan.name, "exp");
        assert_eq!(plan.game, "tic_tac_toe");
        assert_eq!(plan.stages(), 4, "3 s, 6 s, 9 s and the end at 10 s");
        assert_eq!(plan.threads, 2);
        assert_eq!(plan.opening_plies, 2, "random openings by default");
        let (a, b) = (&plan.variants[0], &plan.variants[1]);
        assert_eq!(a.configs.len(), 2);
        // The base's own search budget is kept; the variant's set changes only what it names.
        assert_eq!(a.configs[0].search.iters, Some(30));
        assert_eq!(b.configs[0].search.iters, Some(30));
        assert_eq!(b.configs[0].search.algorithm, "mcts");
        assert_eq!(
            b.configs[0].learning.targets,
            crate::selfplay::config::TargetsName::Root
        );
        // The protocol's keys replace the base's.
        for config in a.configs.iter().chain(&b.configs) {
            assert_eq!(
                config.run.max_time,
                Some(DurationText(Duration::from_secs(10)))
            );
            assert_eq!(
                config.checkpoint.every_time,
                Some(DurationText(Duration::from_secs(3)))
            );
            assert_eq!(config.checkpoint.every_games, 0);
            assert!(config.checkpoint.keep_nets);
            assert_eq!(config.evaluation.every_games, 0);
            assert!(!config.evaluation.at_end);
        }
        // Repetitions differ by their seed only; variants of a repetition share it.
        assert_eq!(a.configs[0].seed, 1);
        assert_eq!(a.configs[1].seed, 2);
        assert_eq!(b.configs[1].seed, 2);
        assert_eq!(plan.agent.text, "minimax1");
    }

    #[test]
    fn experiment_wide_set_and_game_apply_to_every_variant() {
        let text = TWO.replace(
            "repeats: 2\n",
            "repeats: 1\ngame: connect_four\nset:\n  network.architecture: resnet-b0c8-fc16\n",
        );
        let plan = plan(&text).unwrap();
        assert_eq!(plan.game, "connect_four");
        for v in &plan.variants {
            assert_eq!(v.configs[0].network.architecture, "resnet-b0c8-fc16");
            assert_eq!(v.configs[0].game, "connect_four");
        }
    }

    #[test]
    fn bad_experiments_name_the_problem() {
        assert!(error(&format!("{TWO}colour: red\n")).contains("colour"));
        assert!(error(&TWO.replace("stage_every: 3s", "stage_every: 20s")).contains("stage_every"));
        assert!(error(&TWO.replace("train_time: 10s", "train_time: 0s")).contains("train_time"));
        assert!(error(&TWO.replace("repeats: 2", "repeats: 0")).contains("repeats"));
        assert!(error(&TWO.replace("  - name: b", "  - name: a")).contains("used twice"));
        assert!(error(&TWO.replace("name: b", "name: ../b")).contains("not a directory name"));
        let one = "train_time: 10s\nstage_every: 3s\nbase: base.yaml\nvariants:\n  - name: a\n";
        assert!(error(one).contains("at least two"));
        // The protocol's keys are the experiment's.
        let e = error(&TWO.replace("search.algorithm: mcts", "run.max_time: 2h"));
        assert!(
            e.contains("set.run.max_time: the experiment's train_time sets it"),
            "{e}"
        );
        let e = error(&TWO.replace("search.algorithm: mcts", "checkpoint: {every_time: 1m}"));
        assert!(e.contains("set.checkpoint.every_time"), "{e}");
        // A training key that does not exist, or a bad value, names the variant and the key.
        let e = error(&TWO.replace("search.algorithm: mcts", "search.algoritm: mcts"));
        assert!(e.contains("(b)") && e.contains("algoritm"), "{e}");
        let e = error(&TWO.replace("search.algorithm: mcts", "search.iters: 0"));
        assert!(e.contains("(b)") && e.contains("search.iters"), "{e}");
        let e = error(&TWO.replace("search.algorithm: mcts", "search.iters.x: 1"));
        assert!(e.contains("search.iters is not a section"), "{e}");
        // alphabeta knows its best move only: not the ordinal distribution of the base.
        let e = error(&TWO.replace("search.algorithm: mcts", "search.algorithm: alphabeta"));
        assert!(e.contains("selection.distribution"), "{e}");
        assert!(
            error(&TWO.replace("base: base.yaml", "base: nowhere.yaml")).contains("nowhere.yaml")
        );
        // Different games.
        let e = error(&TWO.replace("  - name: b\n", "  - name: b\n    base: c4.yaml\n"));
        assert!(e.contains("same game"), "{e}");
        let e = error(&format!("{TWO}evaluation: {{opening_plies: 1001}}\n"));
        assert!(e.contains("opening_plies: 1001"), "{e}");
        // The evaluation player.
        let e = error(&format!("{TWO}evaluation: {{agent: 'minimax1:model=x'}}\n"));
        assert!(e.contains("leave out model="), "{e}");
        assert!(
            error(&format!("{TWO}evaluation: {{agent: random}}\n")).contains("without a network")
        );
        assert!(
            error(&format!("{TWO}evaluation: {{agent: 'mcts:c=1'}}\n"))
                .contains("evaluation.agent")
        );
        assert!(
            error(&format!("{TWO}evaluation: {{games_per_pair: 3}}\n")).contains("games_per_pair")
        );
    }

    /// Runs at once share the cores: each gets cores ÷ parallel_runs for its learning, and
    /// none may play more games at once than its share.
    #[test]
    fn runs_at_once_get_their_share_of_the_cores() {
        let one = plan(TWO).unwrap();
        assert_eq!((one.parallel_runs, one.learning_threads), (1, None));
        let two = plan(&format!("{TWO}parallel_runs: 2\n")).unwrap();
        assert_eq!((two.parallel_runs, two.learning_threads), (2, Some(1)));
        let e = error(&format!("{TWO}parallel_runs: 3\n"));
        assert!(
            e.contains("parallel_runs: 3 runs at once on 2 cores leave 0"),
            "{e}"
        );
        let e = error(&format!("{TWO}parallel_runs: 0\n"));
        assert!(e.contains("parallel_runs: 0 — expected from 1"), "{e}");
        let threads = TWO.replace(
            "      learning: {targets: root}\n",
            "      learning: {targets: root}\n      run.threads: 2\n",
        );
        assert_eq!(plan(&threads).unwrap().learning_threads, None);
        let e = error(&format!("{threads}parallel_runs: 2\n"));
        assert!(
            e.contains("variant b plays 2 games at once (run.threads)"),
            "{e}"
        );
    }

    #[test]
    fn other_evaluation_players_take_each_network() {
        let plan = plan(&format!("{TWO}evaluation: {{agent: 'ubfms:iters=20'}}\n")).unwrap();
        let spec = agent_with_model(
            &plan.agent,
            std::path::Path::new("r/nets/net-5"),
            "x".into(),
        );
        assert!(matches!(
            spec.search,
            crate::search::SearchSpec::TreeSearch { .. }
        ));
        assert_eq!(spec.model, Some(ModelSource::Path("r/nets/net-5".into())));
        assert_eq!(spec.text, "x");
    }
}
