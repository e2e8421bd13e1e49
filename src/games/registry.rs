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

use super::amazons::{Amazons, AmazonsParams};
use super::arimaa::{Arimaa, ArimaaParams};
use super::ataxx::{Ataxx, AtaxxParams};
use super::awale::{Awale, AwaleParams};
use super::breakthrough::{Breakthrough, BreakthroughParams};
use super::clobber::{Clobber, ClobberParams};
use super::connect_four::{ConnectFour, ConnectFourParams};
use super::connect6::{Connect6, Connect6Params};
use super::draughts::{Draughts, DraughtsParams};
use super::game::Game;
use super::go::{Go, GoParams, Superko};
use super::gomoku::{Gomoku, GomokuParams};
use super::havannah::{Havannah, HavannahParams};
use super::hex::{Hex, HexParams};
use super::hus::{Hus, HusParams};
use super::lines_of_action::{
    LinesOfAction, LinesOfActionParams, NoMove, Repetition, Simultaneous,
};
use super::morpion::{Morpion, MorpionParams};
use super::othello::{Othello, OthelloParams};
use super::santorini::{Santorini, SantoriniParams};
use super::shobu::{Shobu, ShobuParams};
use super::surakarta::{Surakarta, SurakartaParams};
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
    Hus(HusParams),
    Shobu(ShobuParams),
    Breakthrough,
    Othello(OthelloSize),
    Clobber(ClobberSize),
    Hex(HexSize, HexParams),
    Gomoku(GomokuParams),
    LinesOfAction(LinesOfActionParams),
    Amazons,
    Go(GoSize, GoParams),
    Havannah(HavannahSize, HavannahParams),
    Ataxx,
    Draughts(DraughtsSize, DraughtsParams),
    Connect6,
    Santorini(SantoriniParams),
    Surakarta(SurakartaParams),
    Morpion,
    Arimaa(ArimaaParams),
}

/// The draughts boards the registry compiles (each side is its own type, `Draughts<N>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DraughtsSize {
    /// Brazilian draughts.
    Eight,
    /// International draughts.
    Ten,
    /// Canadian draughts.
    Twelve,
}

impl DraughtsSize {
    /// The board's side.
    pub fn side(self) -> usize {
        match self {
            DraughtsSize::Eight => 8,
            DraughtsSize::Ten => 10,
            DraughtsSize::Twelve => 12,
        }
    }
}

/// The Havannah boards the registry compiles (each base is its own type, `Havannah<B>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HavannahSize {
    Eight,
    Ten,
}

impl HavannahSize {
    /// The hexagon's base (cells on a side).
    pub fn base(self) -> usize {
        match self {
            HavannahSize::Eight => 8,
            HavannahSize::Ten => 10,
        }
    }
}

/// The Go boards the registry compiles (each size is its own type, `Go<N>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoSize {
    Nine,
    Eleven,
}

impl GoSize {
    /// The board's side.
    pub fn side(self) -> usize {
        match self {
            GoSize::Nine => 9,
            GoSize::Eleven => 11,
        }
    }
}

/// The Clobber boards the registry compiles (each is its own type, `Clobber<R, C>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClobberSize {
    /// 10 × 10, the Olympiad's.
    Ten,
    Eight,
    /// 5 rows × 6 columns, OpenSpiel's default.
    FiveBySix,
}

impl ClobberSize {
    /// Rows and columns.
    pub fn rows_columns(self) -> (usize, usize) {
        match self {
            ClobberSize::Ten => (10, 10),
            ClobberSize::Eight => (8, 8),
            ClobberSize::FiveBySix => (5, 6),
        }
    }
}

/// The Othello boards the registry compiles (each side is its own type, `Othello<N, W>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OthelloSize {
    Eight,
    Ten,
    Sixteen,
}

impl OthelloSize {
    /// The board's side.
    pub fn side(self) -> usize {
        match self {
            OthelloSize::Eight => 8,
            OthelloSize::Ten => 10,
            OthelloSize::Sixteen => 16,
        }
    }
}

/// The Hex boards the registry compiles (each size is its own type, `Hex<N>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HexSize {
    Eleven,
    Thirteen,
    Nineteen,
}

impl HexSize {
    /// The board's side.
    pub fn side(self) -> usize {
        match self {
            HexSize::Eleven => 11,
            HexSize::Thirteen => 13,
            HexSize::Nineteen => 19,
        }
    }
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
    RegisteredGame {
        name: "hus",
        description: "Hus, 4 × 16 mancala with relay sowing (McGill COMP 424 rules)",
        params: &[
            (
                "max_rounds=5000",
                "the game is a draw after this many rounds",
            ),
            (
                "max_laps=200",
                "a move needing more sowings than this loses for the mover",
            ),
        ],
    },
    RegisteredGame {
        name: "shobu",
        description: "Shobu, four 4 × 4 boards, passive + aggressive moves (UCLouvain LINFO1361 rules)",
        params: &[
            (
                "no_push_draw=50",
                "a draw after this many actions in a row without a push (0: never)",
            ),
            (
                "no_move_loses=true",
                "a player with no legal action loses (false: a draw)",
            ),
            ("max_plies=1000", "the game is a draw after this many plies"),
        ],
    },
    RegisteredGame {
        name: "breakthrough",
        description: "Breakthrough, 8 × 8 (OpenSpiel's breakthrough)",
        params: &[],
    },
    RegisteredGame {
        name: "othello",
        description: "Othello, passes, score = disc difference (8 × 8: OpenSpiel's othello)",
        params: &[("board_size=8", "the board's side: 8, 10 or 16")],
    },
    RegisteredGame {
        name: "clobber",
        description: "Clobber (OpenSpiel's clobber(rows=10,columns=10))",
        params: &[
            ("rows=10", "the board's rows: 10 × 10, 8 × 8 or 5 × 6"),
            ("columns=10", "the board's columns"),
        ],
    },
    RegisteredGame {
        name: "hex",
        description: "Hex, connect your two sides (OpenSpiel's hex)",
        params: &[
            ("board_size=11", "the board's side: 11, 13 or 19"),
            (
                "swap=true",
                "P1 may swap on its first turn (OpenSpiel's default is false)",
            ),
        ],
    },
    RegisteredGame {
        name: "gomoku",
        description: "Outer-Open Gomoku, 15 × 15, five or more in a row (OpenSpiel's gomoku + the opening rule)",
        params: &[
            (
                "outer_open=true",
                "Black's first stone goes in the two outer lines (false: OpenSpiel's gomoku)",
            ),
            (
                "exact_five=false",
                "only exactly five in a row wins, not six or more",
            ),
        ],
    },
    RegisteredGame {
        name: "lines_of_action",
        description: "Lines of Action, 8 × 8, the Olympiad's rules (OpenSpiel's: simultaneous=mover,no_move=loses,repetition=second_board,draw_first=true)",
        params: &[
            (
                "simultaneous=draw",
                "a move connecting both sides: draw, or mover (the mover wins)",
            ),
            ("no_move=pass", "a player without a move: pass, or loses"),
            (
                "repetition=third",
                "draw at the third occurrence of a position (same side to move), or second_board: any board seen before",
            ),
            (
                "draw_first=false",
                "the cap and the repetition draw override a connection made by the same move",
            ),
            ("max_plies=1000", "the game is a draw after this many plies"),
        ],
    },
    RegisteredGame {
        name: "amazons",
        description: "Amazons, 10 × 10, one action = move + arrow, score = territory (OpenSpiel's amazons, whose turns are 3 plies)",
        params: &[],
    },
    RegisteredGame {
        name: "go",
        description: "Go, Tromp-Taylor area scoring, simple ko, no suicide (OpenSpiel's go)",
        params: &[
            ("board_size=9", "the board's side: 9 or 11"),
            ("komi=7.5", "points given to White (P1)"),
            (
                "superko=draw",
                "a move recreating an earlier board: draw (OpenSpiel) or illegal",
            ),
            (
                "max_plies=0",
                "the game ends and is scored after this many plies (0: 2·N², OpenSpiel's)",
            ),
        ],
    },
    RegisteredGame {
        name: "havannah",
        description: "Havannah, a ring, a bridge or a fork wins (OpenSpiel's havannah)",
        params: &[
            (
                "board_size=8",
                "the hexagon's base (cells on a side): 8 or 10",
            ),
            (
                "swap=true",
                "P1 may take over P0's first stone (OpenSpiel's default is false)",
            ),
        ],
    },
    RegisteredGame {
        name: "ataxx",
        description: "Ataxx, 7 × 7, the standard start, score = piece difference (PyPI ataxx's rules)",
        params: &[],
    },
    RegisteredGame {
        name: "draughts",
        description: "International draughts (FMJD rules): majority capture, flying kings; 8 × 8 Brazilian, 10 × 10 International, 12 × 12 Canadian",
        params: &[
            ("board_size=10", "the board's side: 8, 10 or 12"),
            (
                "king_moves=25",
                "a draw after this many moves each of only kings moving without a capture (0: never)",
            ),
            (
                "endgame_rule=true",
                "FMJD's short endings against a lone king: a draw after 16 moves each (3 pieces) or 5 (2 pieces)",
            ),
            ("max_plies=1000", "the game is a draw after this many plies"),
        ],
    },
    RegisteredGame {
        name: "connect6",
        description: "Connect6, 19 × 19, one stone first then two a turn (one action each), six or more in a row wins",
        params: &[],
    },
    RegisteredGame {
        name: "santorini",
        description: "Santorini, 5 × 5, no god powers: move a worker, then build; climbing onto level 3 wins",
        params: &[(
            "placement=true",
            "the players place their workers first (false: fixed squares b2, d4 and d2, b4)",
        )],
    },
    RegisteredGame {
        name: "arimaa",
        description: "Arimaa, 8 × 8: set up, then turns of up to four steps (one action each) with pushes, pulls, freezing and traps; a rabbit home wins",
        params: &[
            (
                "setup=true",
                "the players set their pieces up first (false: the usual fixed setup)",
            ),
            (
                "max_turns=400",
                "the game is a draw after this many turns (both players' together)",
            ),
        ],
    },
    RegisteredGame {
        name: "morpion",
        description: "Morpion Solitaire 5D, one player: add a point completing a line of five, lines of a direction disjoint; score = lines",
        params: &[],
    },
    RegisteredGame {
        name: "surakarta",
        description: "Surakarta, 6 × 6: step to a neighbour, or capture along a circuit through a corner loop",
        params: &[
            (
                "no_capture_plies=50",
                "the game ends after this many plies without a capture, the pieces counted",
            ),
            (
                "repetition=true",
                "a position recurring with the same side to move ends the game, the pieces counted",
            ),
        ],
    },
];

impl GameSpec {
    /// Runs `visitor` on this game's initial position.
    pub fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        match self {
            GameSpec::Awale(params) => visitor.visit(Awale::new(params)),
            GameSpec::ConnectFour => visitor.visit(ConnectFour::new(&ConnectFourParams)),
            GameSpec::TicTacToe => visitor.visit(TicTacToe::new(&TicTacToeParams)),
            GameSpec::Hus(params) => visitor.visit(Hus::new(params)),
            GameSpec::Shobu(params) => visitor.visit(Shobu::new(params)),
            GameSpec::Breakthrough => visitor.visit(Breakthrough::new(&BreakthroughParams)),
            GameSpec::Othello(OthelloSize::Eight) => {
                visitor.visit(Othello::<8, 1>::new(&OthelloParams))
            }
            GameSpec::Othello(OthelloSize::Ten) => {
                visitor.visit(Othello::<10, 2>::new(&OthelloParams))
            }
            GameSpec::Othello(OthelloSize::Sixteen) => {
                visitor.visit(Othello::<16, 4>::new(&OthelloParams))
            }
            GameSpec::Clobber(ClobberSize::Ten) => {
                visitor.visit(Clobber::<10, 10>::new(&ClobberParams))
            }
            GameSpec::Clobber(ClobberSize::Eight) => {
                visitor.visit(Clobber::<8, 8>::new(&ClobberParams))
            }
            GameSpec::Clobber(ClobberSize::FiveBySix) => {
                visitor.visit(Clobber::<5, 6>::new(&ClobberParams))
            }
            GameSpec::Hex(HexSize::Eleven, params) => visitor.visit(Hex::<11>::new(params)),
            GameSpec::Hex(HexSize::Thirteen, params) => visitor.visit(Hex::<13>::new(params)),
            GameSpec::Hex(HexSize::Nineteen, params) => visitor.visit(Hex::<19>::new(params)),
            GameSpec::Gomoku(params) => visitor.visit(Gomoku::new(params)),
            GameSpec::LinesOfAction(params) => visitor.visit(LinesOfAction::new(params)),
            GameSpec::Amazons => visitor.visit(Amazons::new(&AmazonsParams)),
            GameSpec::Go(GoSize::Nine, params) => visitor.visit(Go::<9>::new(params)),
            GameSpec::Go(GoSize::Eleven, params) => visitor.visit(Go::<11>::new(params)),
            GameSpec::Havannah(HavannahSize::Eight, params) => {
                visitor.visit(Havannah::<8>::new(params))
            }
            GameSpec::Havannah(HavannahSize::Ten, params) => {
                visitor.visit(Havannah::<10>::new(params))
            }
            GameSpec::Ataxx => visitor.visit(Ataxx::new(&AtaxxParams)),
            GameSpec::Draughts(DraughtsSize::Eight, params) => {
                visitor.visit(Draughts::<8>::new(params))
            }
            GameSpec::Draughts(DraughtsSize::Ten, params) => {
                visitor.visit(Draughts::<10>::new(params))
            }
            GameSpec::Draughts(DraughtsSize::Twelve, params) => {
                visitor.visit(Draughts::<12>::new(params))
            }
            GameSpec::Connect6 => visitor.visit(Connect6::new(&Connect6Params)),
            GameSpec::Santorini(params) => visitor.visit(Santorini::new(params)),
            GameSpec::Surakarta(params) => visitor.visit(Surakarta::new(params)),
            GameSpec::Morpion => visitor.visit(Morpion::new(&MorpionParams)),
            GameSpec::Arimaa(params) => visitor.visit(Arimaa::new(params)),
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
            GameSpec::Hus(_) => Hus::NAME,
            GameSpec::Shobu(_) => Shobu::NAME,
            GameSpec::Breakthrough => Breakthrough::NAME,
            GameSpec::Othello(_) => Othello::<8, 1>::NAME,
            GameSpec::Clobber(_) => Clobber::<10, 10>::NAME,
            GameSpec::Hex(..) => Hex::<11>::NAME,
            GameSpec::Gomoku(_) => Gomoku::NAME,
            GameSpec::LinesOfAction(_) => LinesOfAction::NAME,
            GameSpec::Amazons => Amazons::NAME,
            GameSpec::Go(..) => Go::<9>::NAME,
            GameSpec::Havannah(..) => Havannah::<8>::NAME,
            GameSpec::Ataxx => Ataxx::NAME,
            GameSpec::Draughts(..) => Draughts::<10>::NAME,
            GameSpec::Connect6 => Connect6::NAME,
            GameSpec::Santorini(_) => Santorini::NAME,
            GameSpec::Surakarta(_) => Surakarta::NAME,
            GameSpec::Morpion => Morpion::NAME,
            GameSpec::Arimaa(_) => Arimaa::NAME,
        }
    }
}

impl GameSpec {
    /// `key=value` for each parameter that differs from its default, in the registry's order.
    fn changed_params(&self) -> Vec<String> {
        let defaults = self
            .name()
            .parse::<GameSpec>()
            .expect("a registered name parses")
            .param_values();
        self.param_values()
            .into_iter()
            .zip(defaults)
            .filter(|((_, value), (_, default))| value != default)
            .map(|((key, value), _)| format!("{key}={value}"))
            .collect()
    }

    /// Every parameter's value as the spec writes it, in the registry's order.
    fn param_values(&self) -> Vec<(&'static str, String)> {
        match self {
            GameSpec::Awale(p) => vec![
                ("feeding", p.feeding.to_string()),
                ("repetition", p.repetition.to_string()),
                ("max_plies", p.max_plies.to_string()),
                ("cap_is_draw", p.cap_is_draw.to_string()),
            ],
            GameSpec::Hus(p) => vec![
                ("max_rounds", p.max_rounds.to_string()),
                ("max_laps", p.max_laps.to_string()),
            ],
            GameSpec::Shobu(p) => vec![
                ("no_push_draw", p.no_push_draw.to_string()),
                ("no_move_loses", p.no_move_loses.to_string()),
                ("max_plies", p.max_plies.to_string()),
            ],
            GameSpec::Othello(size) => vec![("board_size", size.side().to_string())],
            GameSpec::Clobber(size) => {
                let (rows, columns) = size.rows_columns();
                vec![("rows", rows.to_string()), ("columns", columns.to_string())]
            }
            GameSpec::Hex(size, p) => vec![
                ("board_size", size.side().to_string()),
                ("swap", p.swap.to_string()),
            ],
            GameSpec::Havannah(size, p) => vec![
                ("board_size", size.base().to_string()),
                ("swap", p.swap.to_string()),
            ],
            GameSpec::Go(size, p) => vec![
                ("board_size", size.side().to_string()),
                ("komi", p.komi.to_string()),
                ("superko", superko_word(p.superko).to_string()),
                ("max_plies", p.max_plies.to_string()),
            ],
            GameSpec::Draughts(size, p) => vec![
                ("board_size", size.side().to_string()),
                ("king_moves", p.king_moves.to_string()),
                ("endgame_rule", p.endgame_rule.to_string()),
                ("max_plies", p.max_plies.to_string()),
            ],
            GameSpec::Santorini(p) => vec![("placement", p.placement.to_string())],
            GameSpec::Arimaa(p) => vec![
                ("setup", p.setup.to_string()),
                ("max_turns", p.max_turns.to_string()),
            ],
            GameSpec::Surakarta(p) => vec![
                ("no_capture_plies", p.no_capture_plies.to_string()),
                ("repetition", p.repetition.to_string()),
            ],
            GameSpec::Gomoku(p) => vec![
                ("outer_open", p.outer_open.to_string()),
                ("exact_five", p.exact_five.to_string()),
            ],
            GameSpec::LinesOfAction(p) => vec![
                (
                    "simultaneous",
                    simultaneous_word(p.simultaneous).to_string(),
                ),
                ("no_move", no_move_word(p.no_move).to_string()),
                ("repetition", repetition_word(p.repetition).to_string()),
                ("draw_first", p.draw_first.to_string()),
                ("max_plies", p.max_plies.to_string()),
            ],
            GameSpec::ConnectFour
            | GameSpec::TicTacToe
            | GameSpec::Breakthrough
            | GameSpec::Amazons
            | GameSpec::Ataxx
            | GameSpec::Connect6
            | GameSpec::Morpion => vec![],
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
    #[error("game {spec:?} gives parameter {key} twice")]
    RepeatedParam { spec: String, key: String },
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

fn parse_integer<T: FromStr + PartialOrd + Copy + fmt::Display>(
    game: &'static str,
    key: &str,
    value: &str,
    range: (T, T),
    expected: &'static str,
) -> Result<T, GameSpecError> {
    value
        .parse::<T>()
        .ok()
        .filter(|n| *n >= range.0 && *n <= range.1)
        .ok_or_else(|| GameSpecError::BadValue {
            game,
            key: key.to_string(),
            value: value.to_string(),
            expected,
        })
}

/// The `key=value` pairs of a spec, in order.
type Pairs<'a> = Vec<(&'a str, &'a str)>;

/// The error for a parameter `game` does not have, listing those it has.
fn unknown_param(game: &'static str, key: &str) -> GameSpecError {
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
}

const PLY_COUNT: ((u16, u16), &str) = ((1, u16::MAX), "an integer in 1..=65535");

fn awale_params(pairs: Pairs<'_>) -> Result<AwaleParams, GameSpecError> {
    let mut params = AwaleParams::default();
    for (key, value) in pairs {
        match key {
            "feeding" => params.feeding = parse_bool("awale", key, value)?,
            "repetition" => params.repetition = parse_bool("awale", key, value)?,
            "cap_is_draw" => params.cap_is_draw = parse_bool("awale", key, value)?,
            "max_plies" => {
                params.max_plies = parse_integer("awale", key, value, PLY_COUNT.0, PLY_COUNT.1)?
            }
            _ => return Err(unknown_param("awale", key)),
        }
    }
    Ok(params)
}

fn hus_params(pairs: Pairs<'_>) -> Result<HusParams, GameSpecError> {
    let mut params = HusParams::default();
    for (key, value) in pairs {
        let parse = || parse_integer("hus", key, value, PLY_COUNT.0, PLY_COUNT.1);
        match key {
            "max_rounds" => params.max_rounds = parse()?,
            "max_laps" => params.max_laps = parse()?,
            _ => return Err(unknown_param("hus", key)),
        }
    }
    Ok(params)
}

fn shobu_params(pairs: Pairs<'_>) -> Result<ShobuParams, GameSpecError> {
    let mut params = ShobuParams::default();
    for (key, value) in pairs {
        match key {
            "no_push_draw" => {
                let expected = "an integer in 0..=255 (0: no such draw)";
                params.no_push_draw = parse_integer("shobu", key, value, (0, u8::MAX), expected)?
            }
            "no_move_loses" => params.no_move_loses = parse_bool("shobu", key, value)?,
            "max_plies" => {
                params.max_plies = parse_integer("shobu", key, value, PLY_COUNT.0, PLY_COUNT.1)?
            }
            _ => return Err(unknown_param("shobu", key)),
        }
    }
    Ok(params)
}

fn clobber_params(pairs: Pairs<'_>) -> Result<GameSpec, GameSpecError> {
    let (mut rows, mut columns) = ("10", "10");
    for (key, value) in pairs {
        match key {
            "rows" => rows = value,
            "columns" => columns = value,
            _ => return Err(unknown_param("clobber", key)),
        }
    }
    let size = match (rows, columns) {
        ("10", "10") => ClobberSize::Ten,
        ("8", "8") => ClobberSize::Eight,
        ("5", "6") => ClobberSize::FiveBySix,
        _ => {
            return Err(GameSpecError::BadValue {
                game: "clobber",
                key: "rows, columns".to_string(),
                value: format!("{rows}, {columns}"),
                expected: "10, 10 or 8, 8 or 5, 6",
            });
        }
    };
    Ok(GameSpec::Clobber(size))
}

fn othello_params(pairs: Pairs<'_>) -> Result<GameSpec, GameSpecError> {
    let mut size = OthelloSize::Eight;
    for (key, value) in pairs {
        match (key, value) {
            ("board_size", "8") => size = OthelloSize::Eight,
            ("board_size", "10") => size = OthelloSize::Ten,
            ("board_size", "16") => size = OthelloSize::Sixteen,
            ("board_size", _) => {
                return Err(GameSpecError::BadValue {
                    game: "othello",
                    key: key.to_string(),
                    value: value.to_string(),
                    expected: "8, 10 or 16",
                });
            }
            _ => return Err(unknown_param("othello", key)),
        }
    }
    Ok(GameSpec::Othello(size))
}

fn hex_params(pairs: Pairs<'_>) -> Result<GameSpec, GameSpecError> {
    let (mut size, mut params) = (HexSize::Eleven, HexParams::default());
    for (key, value) in pairs {
        match key {
            "board_size" => {
                size = match value {
                    "11" => HexSize::Eleven,
                    "13" => HexSize::Thirteen,
                    "19" => HexSize::Nineteen,
                    _ => {
                        return Err(GameSpecError::BadValue {
                            game: "hex",
                            key: key.to_string(),
                            value: value.to_string(),
                            expected: "11, 13 or 19",
                        });
                    }
                }
            }
            "swap" => params.swap = parse_bool("hex", key, value)?,
            _ => return Err(unknown_param("hex", key)),
        }
    }
    Ok(GameSpec::Hex(size, params))
}

fn havannah_params(pairs: Pairs<'_>) -> Result<GameSpec, GameSpecError> {
    let (mut size, mut params) = (HavannahSize::Eight, HavannahParams::default());
    for (key, value) in pairs {
        match key {
            "board_size" => {
                size = match value {
                    "8" => HavannahSize::Eight,
                    "10" => HavannahSize::Ten,
                    _ => {
                        return Err(GameSpecError::BadValue {
                            game: "havannah",
                            key: key.to_string(),
                            value: value.to_string(),
                            expected: "8 or 10",
                        });
                    }
                }
            }
            "swap" => params.swap = parse_bool("havannah", key, value)?,
            _ => return Err(unknown_param("havannah", key)),
        }
    }
    Ok(GameSpec::Havannah(size, params))
}

fn gomoku_params(pairs: Pairs<'_>) -> Result<GomokuParams, GameSpecError> {
    let mut params = GomokuParams::default();
    for (key, value) in pairs {
        match key {
            "outer_open" => params.outer_open = parse_bool("gomoku", key, value)?,
            "exact_five" => params.exact_five = parse_bool("gomoku", key, value)?,
            _ => return Err(unknown_param("gomoku", key)),
        }
    }
    Ok(params)
}

fn superko_word(rule: Superko) -> &'static str {
    match rule {
        Superko::Draw => "draw",
        Superko::Illegal => "illegal",
    }
}

fn simultaneous_word(rule: Simultaneous) -> &'static str {
    match rule {
        Simultaneous::Draw => "draw",
        Simultaneous::MoverWins => "mover",
    }
}

fn no_move_word(rule: NoMove) -> &'static str {
    match rule {
        NoMove::Pass => "pass",
        NoMove::Loses => "loses",
    }
}

fn repetition_word(rule: Repetition) -> &'static str {
    match rule {
        Repetition::ThirdPosition => "third",
        Repetition::SecondBoard => "second_board",
    }
}

/// `value` as one of `choices` (each a word and its meaning).
fn parse_choice<T: Copy>(
    key: &str,
    value: &str,
    choices: &[(&str, T)],
    expected: &'static str,
) -> Result<T, GameSpecError> {
    choices
        .iter()
        .find(|(word, _)| *word == value)
        .map(|(_, choice)| *choice)
        .ok_or_else(|| GameSpecError::BadValue {
            game: "lines_of_action",
            key: key.to_string(),
            value: value.to_string(),
            expected,
        })
}

fn lines_of_action_params(pairs: Pairs<'_>) -> Result<LinesOfActionParams, GameSpecError> {
    let mut params = LinesOfActionParams::default();
    for (key, value) in pairs {
        match key {
            "simultaneous" => {
                let choices = [
                    ("draw", Simultaneous::Draw),
                    ("mover", Simultaneous::MoverWins),
                ];
                params.simultaneous = parse_choice(key, value, &choices, "draw or mover")?
            }
            "no_move" => {
                let choices = [("pass", NoMove::Pass), ("loses", NoMove::Loses)];
                params.no_move = parse_choice(key, value, &choices, "pass or loses")?
            }
            "repetition" => {
                let choices = [
                    ("third", Repetition::ThirdPosition),
                    ("second_board", Repetition::SecondBoard),
                ];
                params.repetition = parse_choice(key, value, &choices, "third or second_board")?
            }
            "draw_first" => params.draw_first = parse_bool("lines_of_action", key, value)?,
            "max_plies" => {
                params.max_plies =
                    parse_integer("lines_of_action", key, value, PLY_COUNT.0, PLY_COUNT.1)?
            }
            _ => return Err(unknown_param("lines_of_action", key)),
        }
    }
    Ok(params)
}

fn go_params(pairs: Pairs<'_>) -> Result<GameSpec, GameSpecError> {
    let (mut size, mut params) = (GoSize::Nine, GoParams::default());
    let bad = |key: &str, value: &str, expected| GameSpecError::BadValue {
        game: "go",
        key: key.to_string(),
        value: value.to_string(),
        expected,
    };
    for (key, value) in pairs {
        match key {
            "board_size" => {
                size = match value {
                    "9" => GoSize::Nine,
                    "11" => GoSize::Eleven,
                    _ => return Err(bad(key, value, "9 or 11")),
                }
            }
            "komi" => {
                params.komi = value
                    .parse::<f32>()
                    .ok()
                    .filter(|k| k.is_finite() && k.abs() <= 1000.0)
                    .ok_or_else(|| bad(key, value, "a number of points, e.g. 7.5"))?
            }
            "superko" => {
                params.superko = match value {
                    "draw" => Superko::Draw,
                    "illegal" => Superko::Illegal,
                    _ => return Err(bad(key, value, "draw or illegal")),
                }
            }
            "max_plies" => {
                let expected = "an integer in 0..=65535 (0: 2·N²)";
                params.max_plies = parse_integer("go", key, value, (0, u16::MAX), expected)?
            }
            _ => return Err(unknown_param("go", key)),
        }
    }
    Ok(GameSpec::Go(size, params))
}

fn draughts_params(pairs: Pairs<'_>) -> Result<GameSpec, GameSpecError> {
    let (mut size, mut params) = (DraughtsSize::Ten, DraughtsParams::default());
    for (key, value) in pairs {
        match key {
            "board_size" => {
                size = match value {
                    "8" => DraughtsSize::Eight,
                    "10" => DraughtsSize::Ten,
                    "12" => DraughtsSize::Twelve,
                    _ => {
                        return Err(GameSpecError::BadValue {
                            game: "draughts",
                            key: key.to_string(),
                            value: value.to_string(),
                            expected: "8, 10 or 12",
                        });
                    }
                }
            }
            "king_moves" => {
                let expected = "an integer in 0..=100 (0: no such draw)";
                params.king_moves = parse_integer("draughts", key, value, (0, 100), expected)?
            }
            "endgame_rule" => params.endgame_rule = parse_bool("draughts", key, value)?,
            "max_plies" => {
                params.max_plies = parse_integer("draughts", key, value, PLY_COUNT.0, PLY_COUNT.1)?
            }
            _ => return Err(unknown_param("draughts", key)),
        }
    }
    Ok(GameSpec::Draughts(size, params))
}

fn santorini_params(pairs: Pairs<'_>) -> Result<GameSpec, GameSpecError> {
    let mut params = SantoriniParams::default();
    for (key, value) in pairs {
        match key {
            "placement" => params.placement = parse_bool("santorini", key, value)?,
            _ => return Err(unknown_param("santorini", key)),
        }
    }
    Ok(GameSpec::Santorini(params))
}

fn arimaa_params(pairs: Pairs<'_>) -> Result<GameSpec, GameSpecError> {
    let mut params = ArimaaParams::default();
    for (key, value) in pairs {
        match key {
            "setup" => params.setup = parse_bool("arimaa", key, value)?,
            "max_turns" => {
                let expected = "an integer in 1..=10000";
                params.max_turns = parse_integer("arimaa", key, value, (1, 10000), expected)?
            }
            _ => return Err(unknown_param("arimaa", key)),
        }
    }
    Ok(GameSpec::Arimaa(params))
}

fn surakarta_params(pairs: Pairs<'_>) -> Result<GameSpec, GameSpecError> {
    let mut params = SurakartaParams::default();
    for (key, value) in pairs {
        match key {
            "no_capture_plies" => {
                let expected = "an integer in 1..=1000";
                params.no_capture_plies =
                    parse_integer("surakarta", key, value, (1, 1000), expected)?
            }
            "repetition" => params.repetition = parse_bool("surakarta", key, value)?,
            _ => return Err(unknown_param("surakarta", key)),
        }
    }
    Ok(GameSpec::Surakarta(params))
}

/// A game without parameters: any pair is an error.
fn no_params(
    game: &'static str,
    spec: GameSpec,
    pairs: Pairs<'_>,
) -> Result<GameSpec, GameSpecError> {
    match pairs.first() {
        Some((key, _)) => Err(unknown_param(game, key)),
        None => Ok(spec),
    }
}

impl FromStr for GameSpec {
    type Err = GameSpecError;

    fn from_str(text: &str) -> Result<GameSpec, GameSpecError> {
        let text = text.trim();
        let syntax = || GameSpecError::Syntax(text.to_string());
        let (name, params) = match text.split_once('(') {
            None => (text, ""),
            Some((name, rest)) => (name.trim(), rest.strip_suffix(')').ok_or_else(syntax)?),
        };
        let pairs = params
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| p.split_once('=').map(|(k, v)| (k.trim(), v.trim())))
            .collect::<Option<Pairs<'_>>>()
            .ok_or_else(syntax)?;
        let repeated = (0..pairs.len()).find(|&i| pairs[..i].iter().any(|(k, _)| *k == pairs[i].0));
        if let Some(i) = repeated {
            let key = pairs[i].0;
            return Err(GameSpecError::RepeatedParam {
                spec: text.to_string(),
                key: key.to_string(),
            });
        }
        match name {
            "awale" | "oware" => Ok(GameSpec::Awale(awale_params(pairs)?)),
            "connect_four" => no_params("connect_four", GameSpec::ConnectFour, pairs),
            "tic_tac_toe" => no_params("tic_tac_toe", GameSpec::TicTacToe, pairs),
            "hus" => Ok(GameSpec::Hus(hus_params(pairs)?)),
            "shobu" => Ok(GameSpec::Shobu(shobu_params(pairs)?)),
            "breakthrough" => no_params("breakthrough", GameSpec::Breakthrough, pairs),
            "othello" => othello_params(pairs),
            "clobber" => clobber_params(pairs),
            "hex" => hex_params(pairs),
            "gomoku" => Ok(GameSpec::Gomoku(gomoku_params(pairs)?)),
            "lines_of_action" => Ok(GameSpec::LinesOfAction(lines_of_action_params(pairs)?)),
            "amazons" => no_params("amazons", GameSpec::Amazons, pairs),
            "go" => go_params(pairs),
            "havannah" => havannah_params(pairs),
            "ataxx" => no_params("ataxx", GameSpec::Ataxx, pairs),
            "draughts" => draughts_params(pairs),
            "connect6" => no_params("connect6", GameSpec::Connect6, pairs),
            "santorini" => santorini_params(pairs),
            "surakarta" => surakarta_params(pairs),
            "morpion" => no_params("morpion", GameSpec::Morpion, pairs),
            "arimaa" => arimaa_params(pairs),
            _ => Err(GameSpecError::UnknownGame(name.to_string())),
        }
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

    /// The defaults `descent games` and the docs show are the code's: each game's default spec
    /// has exactly the registered keys, in that order, with those values.
    #[test]
    fn registered_defaults_are_the_codes_defaults() {
        for game in REGISTERED_GAMES {
            let spec: GameSpec = game.name.parse().unwrap();
            let values: Vec<String> = spec
                .param_values()
                .into_iter()
                .map(|(key, value)| format!("{key}={value}"))
                .collect();
            let registered: Vec<&str> = game.params.iter().map(|(kd, _)| *kd).collect();
            assert_eq!(values, registered, "{}", game.name);
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
