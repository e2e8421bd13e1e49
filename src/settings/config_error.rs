//! `ConfigError`: the one error type of every setting a user writes — YAML run and experiment
//! files, agent and search spec strings, architecture and device names, durations. It names
//! where the bad value is (a dotted YAML key such as `search.iters`, or the spec text) and
//! what was expected, so that the CLI prints one line a user can act on and a library caller can
//! match on the key.
//!
//! It sits below every layer (each of them parses some setting) and imports nothing of the crate.

use std::fmt;

/// A bad setting: `key` says where (a dotted YAML key, `agent "mcts:iters=0"`, `--algo`, …),
/// `message` what is wrong and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct ConfigError {
    pub key: String,
    pub message: String,
}

impl ConfigError {
    pub fn new(key: impl fmt::Display, message: impl Into<String>) -> ConfigError {
        ConfigError {
            key: key.to_string(),
            message: message.into(),
        }
    }

    /// The same error placed under `outer` (e.g. a spec's error under the YAML key holding it).
    pub fn within(self, outer: &str) -> ConfigError {
        ConfigError {
            key: format!("{outer}: {}", self.key),
            message: self.message,
        }
    }
}

/// A YAML parser's message without its own leading `error: ` (the key `yaml` says it already).
pub fn yaml_message(error: &impl fmt::Display) -> String {
    let text = error.to_string();
    text.strip_prefix("error: ").unwrap_or(&text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_key_then_the_problem() {
        let error = ConfigError::new("search.iters", "0 is not a positive whole number");
        assert_eq!(
            error.to_string(),
            "search.iters: 0 is not a positive whole number"
        );
        assert_eq!(
            error.within("experiment.yaml").to_string(),
            "experiment.yaml: search.iters: 0 is not a positive whole number"
        );
    }
}
