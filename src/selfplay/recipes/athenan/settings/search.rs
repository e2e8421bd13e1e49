//! `search:` — the search run before each self-play move, parsed into a `search::SearchSpec` by
//! the same parser as agent specs (`descent:iters=500`), so that a search added there is a
//! self-play search too.

use serde::{Deserialize, Serialize};

use crate::search::SearchSpec;
use crate::search::spec::{SELF_PLAY_KINDS, search_keys};
use crate::selfplay::config::checks::{check, error};
use crate::settings::DurationText;
use crate::settings::config_error::ConfigError;

/// The section's keys are the agent spec's (`descent:iters=500`): one name per setting.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchSection {
    /// `descent` (default), `ubfm`, `mcts` (UCT with the network at the leaves) or `alphabeta`
    /// — any search with a tree (`descent bench search --help` lists them all).
    pub algorithm: String,
    /// Iterations per move (default 500); with `time` too, whichever ends first.
    pub iters: Option<u64>,
    /// Time per move, e.g. `1s` (default: none).
    pub time: Option<DurationText>,
    /// Completion and the resolution stop (default true).
    pub completed: bool,
    /// UCT's exploration constant for `mcts`, on the network's value scale (default 0.4, the
    /// paper's, section 3.3).
    pub c: f64,
    /// Maximum depth for `alphabeta` (default 64; the budget stops it first).
    pub depth: u32,
    /// `iters`' old name, read with a deprecation notice and never written (absent: `None`;
    /// `null`: `Some(None)`).
    #[serde(deserialize_with = "present", skip_serializing)]
    iterations: Option<Option<u64>>,
    /// `c`'s old name.
    #[serde(skip_serializing)]
    exploration: Option<f64>,
    /// `depth`'s old name.
    #[serde(skip_serializing)]
    max_depth: Option<u32>,
}

/// A value that is present in the YAML, `null` included.
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

impl Default for SearchSection {
    fn default() -> Self {
        SearchSection {
            algorithm: "descent".into(),
            iters: Some(500),
            time: None,
            completed: true,
            c: 0.4,
            depth: 64,
            iterations: None,
            exploration: None,
            max_depth: None,
        }
    }
}

/// Each old name, its new name, and whether the section gave it.
type Renames = [(&'static str, &'static str, bool); 3];

impl SearchSection {
    /// The keys' old names and their names today, in the order of the fields above.
    pub const OLD_NAMES: [(&'static str, &'static str); 3] = [
        ("iterations", "iters"),
        ("exploration", "c"),
        ("max_depth", "depth"),
    ];

    /// Moves the values given under old names to their new names, with one deprecation notice
    /// per old name and process; refuses an old name beside its new one set to another value.
    ///
    /// # Errors
    /// `search.iterations` and `search.iters` both given, and so on.
    pub fn take_old_names(&mut self) -> Result<(), ConfigError> {
        let iterations = self.iterations.take();
        let exploration = self.exploration.take();
        let max_depth = self.max_depth.take();
        let default = SearchSection::default();
        let given = [
            iterations.is_some(),
            exploration.is_some(),
            max_depth.is_some(),
        ];
        let renames: Renames =
            std::array::from_fn(|i| (Self::OLD_NAMES[i].0, Self::OLD_NAMES[i].1, given[i]));
        let new_set = [
            self.iters != default.iters,
            self.c != default.c,
            self.depth != default.depth,
        ];
        for ((old_name, new_name, given), new_given) in renames.into_iter().zip(new_set) {
            if given && new_given {
                return Err(error(
                    &format!("search.{old_name}"),
                    format!(
                        "is the old name of search.{new_name}, which is given too: keep only search.{new_name}"
                    ),
                ));
            }
            if given {
                warn_once(old_name, new_name);
            }
        }
        if let Some(iterations) = iterations {
            self.iters = iterations;
        }
        self.c = exploration.unwrap_or(self.c);
        self.depth = max_depth.unwrap_or(self.depth);
        Ok(())
    }

    /// The search, with the network valuing its leaves.
    ///
    /// # Errors
    /// An unknown algorithm or one without a search tree, no budget, a zero budget, a negative
    /// exploration constant, naming the key.
    pub fn validate(&self) -> Result<SearchSpec, ConfigError> {
        check(
            self.iters.is_some() || self.time.is_some(),
            "search",
            "give search.iters or search.time (or both)",
        )?;
        check(self.iters != Some(0), "search.iters", "must be at least 1")?;
        check(
            self.time.is_none_or(|t| !t.0.is_zero()),
            "search.time",
            "must be longer than 0s (leave it out for iterations only)",
        )?;
        check(self.c >= 0.0, "search.c", "must be at least 0")?;
        check(self.depth >= 1, "search.depth", "must be at least 1")?;
        SearchSpec::parse(&self.spec_text()?, true).map_err(|e| e.within("search"))
    }

    /// The section as a search spec string, each field under the spec key the algorithm takes
    /// (fields it does not take are left out, as the section's defaults would be).
    fn spec_text(&self) -> Result<String, ConfigError> {
        let kind = self.algorithm.as_str();
        if !SELF_PLAY_KINDS.contains(&kind) {
            return Err(error(
                "search.algorithm",
                format!(
                    "{kind:?} is not a self-play search: expected one of {}",
                    SELF_PLAY_KINDS.join(", ")
                ),
            ));
        }
        let keys = search_keys(kind, "search.algorithm", kind)?;
        let mut fields = Vec::new();
        let mut add = |key: &str, value: Option<String>| {
            if let Some(value) = value
                && keys.contains(&key)
            {
                fields.push(format!("{key}={value}"));
            }
        };
        add("iters", self.iters.map(|n| n.to_string()));
        add("time", self.time.map(|t| t.to_string()));
        add("completed", Some(self.completed.to_string()));
        add("c", Some(self.c.to_string()));
        add("depth", Some(self.depth.to_string()));
        Ok(format!("{kind}:{}", fields.join(",")))
    }
}

/// Says once per process that `old` is now `new` (a file read many times, an experiment's
/// variants, says it once).
fn warn_once(old: &'static str, new: &'static str) {
    static SAID: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !said.contains(&old) {
        said.push(old);
        tracing::warn!(
            "search.{old} is deprecated: it is now search.{new}, its name in agent specs too; rename it in the file"
        );
    }
}
