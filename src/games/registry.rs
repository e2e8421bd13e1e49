//! The registry: a game named at run time (`"awale"`, `"awale(feeding=false,max_plies=500)"`)
//! becomes a call to code monomorphised for that game, so hot paths never go through `dyn`.
//! Each game's parameters, their defaults, their parser and its board sizes live in the game's
//! own file ([`GameParams`]); registering a game is one line of `register_games!` below.
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

use super::game::Game;
use super::game_params::{GameParams, ParamKey};
use super::spec_params::{GameSpecError, changed_params, param_value, params_from_pairs};
use crate::settings::ConfigError;
use crate::settings::key_values::{KeyValueError, key_values};

/// Generic code run for the game a `GameSpec` names; receives the initial position.
pub trait GameVisitor {
    type Output;
    fn visit<G: Game>(self, initial: G) -> Self::Output;
}

/// One registered game, for listings and error messages.
pub struct RegisteredGame {
    pub name: &'static str,
    pub description: &'static str,
    keys: fn() -> Vec<ParamKey>,
    default_values: fn() -> Vec<String>,
    play_only: &'static [&'static str],
}

impl RegisteredGame {
    pub(crate) const fn of<P: GameParams>() -> RegisteredGame {
        RegisteredGame {
            name: P::NAME,
            description: P::DESCRIPTION,
            keys: P::keys,
            default_values: default_values::<P>,
            play_only: P::PLAY_ONLY,
        }
    }

    /// Its parameters' keys and meanings, in the order a spec writes them.
    pub fn keys(&self) -> Vec<ParamKey> {
        (self.keys)()
    }

    /// Each parameter as `key=default` (the code's `Default`) with its meaning.
    pub fn params(&self) -> Vec<(String, &'static str)> {
        self.keys()
            .into_iter()
            .zip((self.default_values)())
            .map(|(key, default)| (format!("{}={default}", key.key), key.meaning))
            .collect()
    }
}

fn default_values<P: GameParams>() -> Vec<String> {
    P::default().values()
}

/// Registers each game by its variant of [`GameSpec`] and the type of its parameters, and
/// generates the enum, `REGISTERED_GAMES`, the dispatch, the names and the parser's lookup.
macro_rules! register_games {
    ($($variant:ident($params:ty),)*) => {
        /// A registered game with its parameters.
        #[derive(Clone, Debug, PartialEq)]
        pub enum GameSpec {
            $($variant($params),)*
        }

        /// Every registered game, in the order listings show them.
        pub const REGISTERED_GAMES: &[RegisteredGame] = &[$(RegisteredGame::of::<$params>(),)*];

        impl GameSpec {
            /// Runs `visitor` on this game's initial position.
            pub fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
                match self {
                    $(GameSpec::$variant(params) => params.visit(visitor),)*
                }
            }

            /// The registry name.
            pub fn name(&self) -> &'static str {
                match self {
                    $(GameSpec::$variant(_) => <$params as GameParams>::NAME,)*
                }
            }

            /// The value of the parameter `key` as a spec writes it (`None`: no such key).
            pub fn param(&self, key: &str) -> Option<String> {
                match self {
                    $(GameSpec::$variant(params) => param_value(params, key),)*
                }
            }

            /// `key=value` for each parameter that differs from its default, in the keys' order.
            fn changed_params(&self) -> Vec<String> {
                match self {
                    $(GameSpec::$variant(params) => changed_params(params),)*
                }
            }

            /// The game `name` names (or an alias of it), its parameters set from `pairs`.
            fn from_pairs(name: &str, pairs: &[(&str, &str)]) -> Result<GameSpec, GameSpecError> {
                $(if name == <$params>::NAME || <$params>::ALIASES.contains(&name) {
                    return Ok(GameSpec::$variant(params_from_pairs(pairs)?));
                })*
                Err(GameSpecError::unknown_game(name))
            }
        }
    };
}

register_games! {
    Awale(super::awale::AwaleParams),
    ConnectFour(super::connect_four::ConnectFourParams),
    TicTacToe(super::tic_tac_toe::TicTacToeParams),
    Hus(super::hus::HusParams),
    Shobu(super::shobu::ShobuParams),
    Breakthrough(super::breakthrough::BreakthroughParams),
    Othello(super::othello::OthelloParams),
    Clobber(super::clobber::ClobberParams),
    Hex(super::hex::HexParams),
    Gomoku(super::gomoku::GomokuParams),
    LinesOfAction(super::lines_of_action::LinesOfActionParams),
    Amazons(super::amazons::AmazonsParams),
    Go(super::go::GoParams),
    Havannah(super::havannah::HavannahParams),
    Ataxx(super::ataxx::AtaxxParams),
    Draughts(super::draughts::DraughtsParams),
    Connect6(super::connect6::Connect6Params),
    Santorini(super::santorini::SantoriniParams),
    Arimaa(super::arimaa::ArimaaParams),
    Morpion(super::morpion::MorpionParams),
    Surakarta(super::surakarta::SurakartaParams),
}

impl GameSpec {
    /// The initial position of this game if it is played by the type `G` (Go's 9 × 9 and
    /// 11 × 11 boards are two types; a Go with another komi is the same type).
    pub fn initial_as<G: Game>(&self) -> Option<G> {
        struct Downcast<G>(std::marker::PhantomData<G>);
        impl<G: Game> GameVisitor for Downcast<G> {
            type Output = Option<G>;
            fn visit<H: Game>(self, initial: H) -> Option<G> {
                (Box::new(initial) as Box<dyn std::any::Any>)
                    .downcast::<G>()
                    .ok()
                    .map(|g| *g)
            }
        }
        self.visit(Downcast(std::marker::PhantomData))
    }

    /// Whether the game has the parameter `key` (`board_size`, `komi`).
    pub fn has_param(&self, key: &str) -> bool {
        self.registered()
            .is_some_and(|g| g.keys().iter().any(|k| k.key == key))
    }

    /// The registry's entry of this game.
    fn registered(&self) -> Option<&'static RegisteredGame> {
        REGISTERED_GAMES.iter().find(|g| g.name == self.name())
    }

    /// Whether a network trained on `network_game` plays this game: the same game with the same
    /// parameters, except those of play only ([`GameParams::PLAY_ONLY`]: Go's komi, superko and
    /// move limit), which change neither the board nor the network's input.
    pub fn plays_networks_of(&self, network_game: &GameSpec) -> bool {
        let play_only = self.registered().map_or(&[][..], |g| g.play_only);
        let as_played = play_only
            .iter()
            .try_fold(network_game.clone(), |spec, key| match self.param(key) {
                Some(value) => spec.with_param(key, &value).ok(),
                None => Some(spec),
            });
        as_played.as_ref() == Some(self)
    }

    /// This game with the parameter `key` set to `value`, the others kept (GTP's `boardsize`
    /// and `komi`).
    ///
    /// # Errors
    /// A key the game does not have, or a value it refuses; a `value` holding the
    /// specification's own syntax (`,`, `=`, parentheses), never read as more parameters.
    pub fn with_param(&self, key: &str, value: &str) -> Result<GameSpec, ConfigError> {
        if let Some(c) = value.chars().find(|c| matches!(c, ',' | '=' | '(' | ')')) {
            return Err(ConfigError::new(
                key,
                format!("{value:?}: one value, without {c:?}"),
            ));
        }
        let mut pairs: Vec<String> = self
            .changed_params()
            .into_iter()
            .filter(|pair| pair.split_once('=').map(|(k, _)| k) != Some(key))
            .collect();
        pairs.push(format!("{key}={value}"));
        format!("{}({})", self.name(), pairs.join(",")).parse()
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
}

impl FromStr for GameSpec {
    type Err = ConfigError;

    /// `NAME` or `NAME(key=value, …)`, with the grammar of every spec string
    /// ([`key_values`]); an error names the spec as `game "…"`.
    fn from_str(text: &str) -> Result<GameSpec, ConfigError> {
        let text = text.trim();
        let error = |message: String| ConfigError::new(format!("game {text:?}"), message);
        let (name, params) = match text.split_once('(') {
            None => (text, ""),
            Some((name, rest)) => (
                name.trim(),
                rest.strip_suffix(')').ok_or_else(|| {
                    error("expected NAME or NAME(key=value, …): no closing parenthesis".into())
                })?,
            ),
        };
        let pairs = key_values(params).map_err(|e| {
            error(match e {
                KeyValueError::NotAPair(item) => format!("expected key=value, got {item:?}"),
                KeyValueError::Repeated(key) => format!("key {key:?} given twice"),
                KeyValueError::BadQuote(item) => format!("{item:?}: an unclosed quote"),
            })
        })?;
        GameSpec::from_pairs(name, &pairs).map_err(|e| error(e.to_string()))
    }
}

impl fmt::Display for GameSpec {
    /// The canonical spec: the name, then the parameters that differ from their defaults.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        let changed = self.changed_params();
        if !changed.is_empty() {
            write!(f, "({})", changed.join(","))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A network plays its own game under any komi, superko rule and move limit (the rules of
    /// play), on no other board and in no other game.
    #[test]
    fn a_network_plays_its_game_whatever_the_rules_of_play() {
        let spec = |s: &str| s.parse::<GameSpec>().unwrap();
        let network = spec("go");
        assert!(spec("go").plays_networks_of(&network));
        assert!(spec("go(komi=6.5)").plays_networks_of(&network));
        assert!(!spec("go(board_size=11)").plays_networks_of(&network));
        assert!(spec("go(superko=illegal)").plays_networks_of(&network));
        assert!(spec("go(komi=7,superko=illegal,max_plies=1000)").plays_networks_of(&network));
        assert!(network.plays_networks_of(&spec("go(superko=illegal)")));
        assert!(!spec("go(board_size=11,superko=illegal)").plays_networks_of(&network));
        assert!(!spec("hex(board_size=13)").plays_networks_of(&spec("hex")));
        assert!(spec("hex").plays_networks_of(&spec("hex")));
    }

    #[test]
    fn a_mistyped_game_name_suggests_the_nearest_registered_one() {
        for (typed, meant) in [
            ("connect4", "connect_four"),
            ("connect-6", "connect6"),
            ("ConnectFour", "connect_four"),
            ("Connect_Four", "connect_four"),
            ("tictactoe", "tic_tac_toe"),
            ("othelo", "othello"),
            ("breaktrough", "breakthrough"),
        ] {
            let message = typed.parse::<GameSpec>().unwrap_err().to_string();
            assert!(
                message.contains(&format!("(did you mean {meant:?}?)")),
                "{typed}: {message}"
            );
            assert!(message.contains("registered games: "), "{message}");
        }
        let far = "xyzzy".parse::<GameSpec>().unwrap_err().to_string();
        assert!(!far.contains("did you mean"), "{far}");
    }

    #[test]
    fn a_parameter_is_set_keeping_the_others() {
        let go: GameSpec = "go(komi=6.5,superko=illegal)".parse().unwrap();
        assert!(go.has_param("board_size") && go.has_param("komi"));
        let bigger = go.with_param("board_size", "11").unwrap();
        assert_eq!(
            bigger.to_string(),
            "go(board_size=11,komi=6.5,superko=illegal)"
        );
        assert_eq!(
            bigger.with_param("komi", "7.5").unwrap().to_string(),
            "go(board_size=11,superko=illegal)",
            "7.5 is the default komi"
        );
        assert!(go.with_param("board_size", "12").is_err());
        let awale: GameSpec = "awale".parse().unwrap();
        assert!(!awale.has_param("komi") && awale.with_param("komi", "1").is_err());
        assert_eq!(go.param("komi").as_deref(), Some("6.5"));
        assert_eq!(bigger.param("board_size").as_deref(), Some("11"));
        assert_eq!(awale.param("komi"), None);
    }

    /// A spec's initial position is found as its own type only: Go 9 × 9 with another komi is
    /// the same type, 11 × 11 is not.
    #[test]
    fn a_spec_gives_its_initial_position_as_its_own_type_only() {
        use crate::games::Go;
        let go: GameSpec = "go(komi=6.5)".parse().unwrap();
        let nine = go.initial_as::<Go<9>>().expect("go is Go<9>");
        assert_eq!(nine.exact_score_p0(), Some(-6.5), "the komi is the spec's");
        assert!(go.initial_as::<Go<11>>().is_none());
        let eleven = go.with_param("board_size", "11").unwrap();
        assert!(eleven.initial_as::<Go<11>>().is_some());
        assert!(eleven.initial_as::<Go<9>>().is_none());
    }

    /// Each game's `GameParams` agrees with itself and with its game: each key once, a value
    /// for every key, each default read back unchanged by `set` (a value written in a form it
    /// cannot read fails here), and the registry name is the game's `Game::NAME`.
    #[test]
    fn every_games_params_read_back_their_defaults() {
        struct NameOf;
        impl GameVisitor for NameOf {
            type Output = &'static str;
            fn visit<G: Game>(self, _initial: G) -> &'static str {
                G::NAME
            }
        }
        for game in REGISTERED_GAMES {
            let default: GameSpec = game.name.parse().unwrap();
            assert_eq!(default.visit(NameOf), game.name);
            assert_eq!(
                (game.default_values)().len(),
                game.keys().len(),
                "{}",
                game.name
            );
            let keys: std::collections::BTreeSet<&str> =
                game.keys().iter().map(|k| k.key).collect();
            assert_eq!(
                keys.len(),
                game.keys().len(),
                "{}: a key declared twice",
                game.name
            );
            for (key_default, _) in game.params() {
                let spec = format!("{}({key_default})", game.name);
                assert_eq!(spec.parse::<GameSpec>(), Ok(default.clone()), "{spec}");
            }
        }
    }

    /// A side's name is the colour its pieces are drawn in (Black, White; draughts' White
    /// first; Arimaa's Gold and Silver), or South and North on a mancala board.
    #[test]
    fn every_games_side_names_match_its_drawing() {
        use crate::games::board_view::Layout;
        struct Sides;
        impl GameVisitor for Sides {
            type Output = ([&'static str; 2], [String; 2]);
            fn visit<G: Game>(self, initial: G) -> Self::Output {
                let view = initial.board_view();
                let expected = match view.layout {
                    Layout::Pits { .. } => ["south".to_string(), "north".to_string()],
                    _ => view.colours.map(str::to_string),
                };
                (G::SIDE_NAMES, expected)
            }
        }
        for game in REGISTERED_GAMES {
            let (names, expected) = game.name.parse::<GameSpec>().unwrap().visit(Sides);
            assert_eq!(names.map(str::to_lowercase), expected, "{}", game.name);
        }
    }

    #[test]
    fn specs_round_trip_through_text() {
        for text in [
            "awale",
            "connect_four",
            "tic_tac_toe",
            "awale(feeding=false,max_plies=500,cap_is_draw=true)",
            "hus",
            "hus(max_rounds=100,max_laps=50)",
            "shobu",
            "shobu(no_push_draw=0,no_move_loses=false,max_plies=300)",
            "breakthrough",
            "othello",
            "clobber",
            "hex",
            "hex(board_size=13)",
            "hex(board_size=13,swap=false)",
            "gomoku",
            "gomoku(outer_open=false,exact_five=true)",
            "lines_of_action",
            "lines_of_action(simultaneous=mover,no_move=loses,repetition=second_board,draw_first=true)",
            "lines_of_action(max_plies=300)",
            "amazons",
            "go",
            "go(board_size=11,komi=6,superko=illegal,max_plies=300)",
            "hex(board_size=19)",
            "othello(board_size=10)",
            "othello(board_size=16)",
            "clobber(rows=8,columns=8)",
            "clobber(rows=5,columns=6)",
            "havannah",
            "havannah(board_size=10,swap=false)",
            "ataxx",
            "draughts",
            "draughts(board_size=8)",
            "draughts(board_size=12,king_moves=0,endgame_rule=false,max_plies=400)",
            "connect6",
            "santorini",
            "santorini(placement=false)",
            "surakarta",
            "surakarta(no_capture_plies=100,repetition=false)",
            "morpion",
            "arimaa",
            "arimaa(setup=false,max_turns=200)",
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
        for (repeated, key) in [
            ("awale(feeding=true,feeding=false)", "feeding"),
            ("hex(board_size=11, board_size=13)", "board_size"),
        ] {
            let err = repeated.parse::<GameSpec>().unwrap_err().to_string();
            assert!(err.contains("twice") && err.contains(key), "{err}");
        }
        assert!("tic_tac_toe(size=4)".parse::<GameSpec>().is_err());
        for (bad, named) in [
            ("hus(max_rounds=0)", "max_rounds"),
            ("hus(max_laps=x)", "max_laps"),
            ("shobu(no_push_draw=300)", "0..=255"),
            ("shobu(board=5)", "no_push_draw=50"),
            ("hex(board_size=12)", "11, 13 or 19"),
            ("havannah(board_size=9)", "8 or 10"),
            ("havannah(ring=false)", "board_size=8"),
            ("hex(size=11)", "board_size=11"),
            ("othello(size=10)", "board_size=8"),
            ("othello(board_size=12)", "8, 10 or 16"),
            ("clobber(rows=6)", "10, 10 or 8, 8 or 5, 6"),
            ("clobber(size=6)", "rows=10"),
            ("lines_of_action(no_move=skip)", "pass or loses"),
            ("go(board_size=19)", "9 or 11"),
            ("go(komi=inf)", "number of points"),
            ("lines_of_action(repetition=2)", "third or second_board"),
            ("draughts(board_size=9)", "8, 10 or 12"),
            ("draughts(king_moves=101)", "0..=100"),
            ("draughts(flying=false)", "board_size=10"),
            ("santorini(placement=no)", "true or false"),
            ("santorini(gods=true)", "placement=true"),
            ("surakarta(no_capture_plies=0)", "1..=1000"),
            ("surakarta(repetition=2)", "true or false"),
            ("surakarta(loops=8)", "no_capture_plies=50"),
            ("arimaa(max_turns=0)", "1..=10000"),
            ("arimaa(setup=maybe)", "true or false"),
            ("arimaa(goal=7)", "setup=true"),
        ] {
            let err = bad.parse::<GameSpec>().unwrap_err().to_string();
            assert!(err.contains(named), "{bad}: {err}");
        }
    }
}
