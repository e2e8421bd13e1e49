//! `selection:` — how the move is drawn after each search.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::learn::{ActionSelection, Distribution, Exploitation};
use crate::selfplay::config::checks::check;
use crate::settings::config_error::ConfigError;

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
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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

impl SelectionSection {
    /// # Errors
    /// A temperature that is not positive.
    pub fn validate(&self) -> Result<ActionSelection, ConfigError> {
        check(
            self.temperature > 0.0,
            "selection.temperature",
            "must be positive",
        )?;
        Ok(ActionSelection {
            distribution: match self.distribution {
                DistributionName::EpsilonGreedy => Distribution::EpsilonGreedy,
                DistributionName::Softmax => Distribution::Softmax {
                    temperature: self.temperature,
                },
                DistributionName::Ordinal => Distribution::Ordinal,
            },
            exploitation: self.exploitation.0,
            completed: self.completed,
        })
    }
}
