//! `search:` — the search run before each self-play move, parsed into a `search::SearchSpec` by
//! the same parser as agent specs (`descent:iters=500`), so that a search added there is a
//! self-play search too.

use serde::{Deserialize, Serialize};

use super::{check, error};
use crate::search::SearchSpec;
use crate::search::spec::{SELF_PLAY_KINDS, search_keys};
use crate::settings::DurationText;
use crate::settings::config_error::ConfigError;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchSection {
    /// `descent` (default), `ubfm`, `mcts` (UCT with the network at the leaves) or `alphabeta`
    /// — any search with a tree (`descent bench search --help` lists them all).
    pub algorithm: String,
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
            algorithm: "descent".into(),
            iterations: Some(500),
            time: None,
            completed: true,
            exploration: 0.4,
            max_depth: 64,
        }
    }
}

impl SearchSection {
    /// The search, with the network valuing its leaves.
    ///
    /// # Errors
    /// An unknown algorithm or one without a search tree, no budget, a zero budget, a negative
    /// exploration constant, naming the key.
    pub fn validate(&self) -> Result<SearchSpec, ConfigError> {
        check(
            self.iterations.is_some() || self.time.is_some(),
            "search",
            "give search.iterations or search.time (or both)",
        )?;
        check(
            self.iterations != Some(0),
            "search.iterations",
            "must be at least 1",
        )?;
        check(
            self.time.is_none_or(|t| !t.0.is_zero()),
            "search.time",
            "must be longer than 0s (leave it out for iterations only)",
        )?;
        check(
            self.exploration >= 0.0,
            "search.exploration",
            "must be at least 0",
        )?;
        check(
            self.max_depth >= 1,
            "search.max_depth",
            "must be at least 1",
        )?;
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
        add("iters", self.iterations.map(|n| n.to_string()));
        add("time", self.time.map(|t| t.to_string()));
        add("completed", Some(self.completed.to_string()));
        add("c", Some(self.exploration.to_string()));
        add("depth", Some(self.max_depth.to_string()));
        Ok(format!("{kind}:{}", fields.join(",")))
    }
}
