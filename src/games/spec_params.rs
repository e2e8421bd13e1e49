//! The parameters of a game spec as text: set from `key=value` pairs, read back, and the
//! refusals of the registry's parser (`GameSpecError`) with the valid keys or the nearest
//! registered name.

use super::game_params::{GameParams, ParamError};
use super::registry::{REGISTERED_GAMES, RegisteredGame};

/// Why a game spec's name or parameters were refused (the parser's `ConfigError` carries its
/// message, naming the spec).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameSpecError {
    /// No registered game has this name or alias.
    #[error("unknown game {name:?}{hint}; registered games: {registered}")]
    UnknownGame {
        name: String,
        /// ` (did you mean "connect_four"?)` or nothing.
        hint: String,
        registered: String,
    },
    /// A parameter of the game refused, with the key and the value it was given.
    #[error("{0}")]
    Param(String),
}

impl GameSpecError {
    pub fn unknown_game(name: &str) -> GameSpecError {
        GameSpecError::UnknownGame {
            name: name.to_string(),
            hint: nearest_name_hint(name),
            registered: registered_names(),
        }
    }
}

pub fn param_value<P: GameParams>(params: &P, key: &str) -> Option<String> {
    P::PARAMS
        .iter()
        .find(|p| p.key == key)
        .map(|p| (p.get)(params))
}

pub fn changed_params<P: GameParams>(params: &P) -> Vec<String> {
    P::PARAMS
        .iter()
        .zip(params.values())
        .zip(P::default().values())
        .filter(|((_, value), default)| value != default)
        .map(|((key, value), _)| format!("{}={value}", key.key))
        .collect()
}

/// `P`'s defaults, then each pair set in order, then the combination checked.
pub fn params_from_pairs<P: GameParams>(pairs: &[(&str, &str)]) -> Result<P, GameSpecError> {
    let mut params = P::default();
    for &(key, value) in pairs {
        params
            .set(key, value)
            .map_err(|error| GameSpecError::Param(param_message::<P>(error, key, value)))?;
    }
    params
        .check()
        .map_err(|error| GameSpecError::Param(param_message::<P>(error, "", "")))?;
    Ok(params)
}

/// What a game's `ParamError` means, with the key and the value named as an agent spec's
/// errors name them.
fn param_message<P: GameParams>(error: ParamError, key: &str, value: &str) -> String {
    match error {
        ParamError::UnknownKey => {
            let valid: Vec<String> = RegisteredGame::of::<P>()
                .params()
                .into_iter()
                .map(|(key_default, _)| key_default)
                .collect();
            let valid = if valid.is_empty() {
                "none".to_string()
            } else {
                valid.join(", ")
            };
            format!("unknown key {key:?} for {} (valid keys: {valid})", P::NAME)
        }
        ParamError::BadValue { expected } => format!("{key}={value:?} is not {expected}"),
        ParamError::BadCombination {
            keys,
            values,
            expected,
        } => format!("{keys}={values:?} is not {expected}"),
    }
}

/// ` (did you mean "connect_four"?)` where a registered name is close to `name`, else nothing.
/// Names are compared without case, separators, or digits as digits (`connect4` is
/// `connectfour`, not a letter away from `connect6`).
fn nearest_name_hint(name: &str) -> String {
    let typed = comparable_name(name);
    REGISTERED_GAMES
        .iter()
        .map(|g| {
            (
                strsim::jaro_winkler(&typed, &comparable_name(g.name)),
                g.name,
            )
        })
        .filter(|&(similarity, _)| similarity >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, nearest)| format!(" (did you mean {nearest:?}?)"))
        .unwrap_or_default()
}

/// `name` in lower case, without `_`, `-` or spaces, each digit spelled out.
fn comparable_name(name: &str) -> String {
    const DIGITS: [&str; 10] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    ];
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(|c| match c.to_digit(10) {
            Some(d) => DIGITS[d as usize].chars().collect::<Vec<_>>(),
            None => c.to_lowercase().collect(),
        })
        .collect()
}

fn registered_names() -> String {
    REGISTERED_GAMES
        .iter()
        .map(|g| g.name)
        .collect::<Vec<_>>()
        .join(", ")
}
