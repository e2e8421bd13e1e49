//! The registry: a game named at run time (`"awale"`, `"awale(feeding=false,max_plies=500)"`)
//! becomes a call to code monomorphised for that game, so hot paths never go through `dyn`.
//!
//! ```
//! use descent::games::{Game, GameSpec, GameVisitor};
//! struct ActionCount;
//! impl GameVisitor for ActionCount {
//!     type Output = usize;
//!     fn visit<G: Game>(self, _initial: G) -> usize { G::NUM_ACTIONS }
//! }
//! let spec: GameSpec = "connect_four".parse().unwrap();
//! assert_eq!(spec.visit(ActionCount), 7);
//! ```

use std::fmt;
use std::str::FromStr;

use super::awale::{Awale, AwaleParams};
use super::connect_four::{ConnectFour, ConnectFourParams};
use super::game::Game;
use super::tic_tac_toe::{TicTacToe, TicTacToeParams};

/// Generic code run for the game a `GameSpec` names; receives the initial position.
pub trait GameVisitor {
    type Output;
    fn visit<G: Game>(self, initial: G) -> Self::Output;
}

/// A registered game with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum GameSpec {
    Awale(AwaleParams),
    ConnectFour,
    TicTacToe,
}

/// One registered game, for listings and error messages.
pub struct RegisteredGame {
    pub name: &'static str,
    pub description: &'static str,
    /// Parameters as `key=default: meaning`.
    pub params: &'static [(&'static str, &'static str)],
}

/// Every registered game.
pub const REGISTERED_GAMES: &[RegisteredGame] = &[
    RegisteredGame {
        name: "awale",
        description: "Awale / Oware abapa (OpenSpiel's oware rules)",
        params: &[
            (
                "feeding=true",
                "a player must give seeds to an opponent with none, if it can",
            ),
            (
                "repetition=true",
                "a repeated position since the last capture ends the game",
            ),
            ("max_plies=1000", "the game stops after this many plies"),
            (
                "cap_is_draw=false",
                "reaching max_plies is a draw instead of each side taking its seeds",
            ),
        ],
    },
    RegisteredGame {
        name: "connect_four",
        description: "Connect Four, 7 columns × 6 rows",
        params: &[],
    },
    RegisteredGame {
        name: "tic_tac_toe",
        description: "Tic-tac-toe, 3 × 3",
        params: &[],
    },
];

impl GameSpec {
    /// Runs `visitor` on this game's initial position.
    pub fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        match self {
            GameSpec::Awale(params) => visitor.visit(Awale::new(params)),
            GameSpec::ConnectFour => visitor.visit(ConnectFour::new(&ConnectFourParams)),
            GameSpec::TicTacToe => visitor.visit(TicTacToe::new(&TicTacToeParams)),
        }
    }

    /// The shape `[planes, rows, cols]` of the game's network input.
    pub fn encoding_dims(&self) -> [usize; 3] {
        struct Dims;
        impl GameVisitor for Dims {
            type Output = [usize; 3];
            fn visit<G: Game>(self, _initial: G) -> [usize; 3] {
                G::ENCODING.dims()
            }
        }
        self.visit(Dims)
    }

    /// The registry name.
    pub fn name(&self) -> &'static str {
        match self {
            GameSpec::Awale(_) => Awale::NAME,
            GameSpec::ConnectFour => ConnectFour::NAME,
            GameSpec::TicTacToe => TicTacToe::NAME,
        }
    }
}

/// Why a game spec was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameSpecError {
    #[error("unknown game {0:?}; registered games: {names}", names = registered_names())]
    UnknownGame(String),
    #[error("game {game} has no parameter {key:?}; its parameters: {valid}")]
    UnknownParam {
        game: &'static str,
        key: String,
        valid: String,
    },
    #[error("bad value {value:?} for {game} parameter {key}: expected {expected}")]
    BadValue {
        game: &'static str,
        key: String,
        value: String,
        expected: &'static str,
    },
    #[error("cannot parse game {0:?}: expected NAME or NAME(key=value,...)")]
    Syntax(String),
}

fn registered_names() -> String {
    REGISTERED_GAMES
        .iter()
        .map(|g| g.name)
        .collect::<Vec<_>>()
        .join(", ")
}

fn parse_bool(game: &'static str, key: &str, value: &str) -> Result<bool, GameSpecError> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(GameSpecError::BadValue {
            game,
            key: key.to_string(),
            value: value.to_string(),
            expected: "true or false",
        }),
    }
}

impl FromStr for GameSpec {
    type Err = GameSpecError;

    fn from_str(text: &str) -> Result<GameSpec, GameSpecError> {
        let text = text.trim();
        let (name, params) = match text.split_once('(') {
            None => (text, ""),
            Some((name, rest)) => {
                let inner = rest
                    .strip_suffix(')')
                    .ok_or_else(|| GameSpecError::Syntax(text.to_string()))?;
                (name.trim(), inner)
            }
        };
        let pairs = params
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| p.split_once('=').map(|(k, v)| (k.trim(), v.trim())))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| GameSpecError::Syntax(text.to_string()))?;
        let unknown = |game: &'static str, key: &str| {
            let valid = REGISTERED_GAMES
                .iter()
                .find(|g| g.name == game)
                .map(|g| {
                    g.params
                        .iter()
                        .map(|(p, _)| *p)
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| "none".to_string());
            GameSpecError::UnknownParam {
                game,
                key: key.to_string(),
                valid,
            }
        };
        match name {
            "awale" | "oware" => {
                let mut params = AwaleParams::default();
                for (key, value) in pairs {
                    match key {
                        "feeding" => params.feeding = parse_bool("awale", key, value)?,
                        "repetition" => params.repetition = parse_bool("awale", key, value)?,
                        "cap_is_draw" => params.cap_is_draw = parse_bool("awale", key, value)?,
                        "max_plies" => {
                            params.max_plies =
                                value.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                                    GameSpecError::BadValue {
                                        game: "awale",
                                        key: key.to_string(),
                                        value: value.to_string(),
                                        expected: "an integer in 1..=65535",
                                    }
                                })?
                        }
                        _ => return Err(unknown("awale", key)),
                    }
                }
                Ok(GameSpec::Awale(params))
            }
            "connect_four" | "tic_tac_toe" => {
                let name = if name == "connect_four" {
                    "connect_four"
                } else {
                    "tic_tac_toe"
                };
                if let Some((key, _)) = pairs.first() {
                    return Err(unknown(name, key));
                }
                Ok(if name == "connect_four" {
                    GameSpec::ConnectFour
                } else {
                    GameSpec::TicTacToe
                })
            }
            _ => Err(GameSpecError::UnknownGame(name.to_string())),
        }
    }
}

impl fmt::Display for GameSpec {
    /// The canonical spec: the name, then the parameters that differ from their defaults.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        if let GameSpec::Awale(params) = self {
            let default = AwaleParams::default();
            let mut changed = Vec::new();
            if params.feeding != default.feeding {
                changed.push(format!("feeding={}", params.feeding));
            }
            if params.repetition != default.repetition {
                changed.push(format!("repetition={}", params.repetition));
            }
            if params.max_plies != default.max_plies {
                changed.push(format!("max_plies={}", params.max_plies));
            }
            if params.cap_is_draw != default.cap_is_draw {
                changed.push(format!("cap_is_draw={}", params.cap_is_draw));
            }
            if !changed.is_empty() {
                write!(f, "({})", changed.join(","))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip_through_text() {
        for text in [
            "awale",
            "connect_four",
            "tic_tac_toe",
            "awale(feeding=false,max_plies=500,cap_is_draw=true)",
        ] {
            let spec: GameSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
            assert_eq!(spec.to_string().parse::<GameSpec>().unwrap(), spec);
        }
    }

    #[test]
    fn bad_specs_name_the_problem() {
        let err = "chess".parse::<GameSpec>().unwrap_err().to_string();
        assert!(err.contains("chess") && err.contains("awale"), "{err}");
        let err = "awale(seeds=5)"
            .parse::<GameSpec>()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("seeds") && err.contains("feeding=true"),
            "{err}"
        );
        let err = "awale(feeding=maybe)"
            .parse::<GameSpec>()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("maybe") && err.contains("true or false"),
            "{err}"
        );
        let err = "awale(max_plies=0)"
            .parse::<GameSpec>()
            .unwrap_err()
            .to_string();
        assert!(err.contains("max_plies"), "{err}");
        assert!("awale(feeding".parse::<GameSpec>().is_err());
        assert!("tic_tac_toe(size=4)".parse::<GameSpec>().is_err());
    }
}
