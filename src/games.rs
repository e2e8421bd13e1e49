//! Layer `games`: the `Game` trait and the registered games. Knows nothing of search.

pub mod amazons;
pub mod arimaa;
pub mod ataxx;
pub mod awale;
mod bitset;
mod board_planes;
pub mod breakthrough;
mod cell_text;
pub mod clobber;
pub mod connect6;
pub mod connect_four;
pub mod draughts;
mod draughts_moves;
pub mod game;
pub mod go;
pub mod gomoku;
pub mod havannah;
pub mod hex;
pub mod hus;
pub mod lines_of_action;
pub mod morpion;
pub mod othello;
pub mod perft;
mod picture;
mod placement;
pub mod random_playout;
pub mod registry;
mod repetition;
pub mod santorini;
pub mod shobu;
pub mod square_symmetry;
mod stone_lines;
pub mod surakarta;
pub mod tic_tac_toe;
mod zobrist;

pub use amazons::Amazons;
pub use arimaa::{Arimaa, ArimaaParams};
pub use ataxx::Ataxx;
pub use awale::{Awale, AwaleParams};
pub use breakthrough::Breakthrough;
pub use clobber::Clobber;
pub use connect_four::ConnectFour;
pub use connect6::Connect6;
pub use draughts::{Draughts, DraughtsParams};
pub use game::{
    Action, EncodingShape, Game, GameExt, MoveError, Outcome, Player, PositionError, Symmetry,
};
pub use go::{Go, GoParams};
pub use gomoku::{Gomoku, GomokuParams};
pub use havannah::{Havannah, HavannahParams};
pub use hex::{Hex, HexParams};
pub use hus::{Hus, HusParams};
pub use lines_of_action::{LinesOfAction, LinesOfActionParams};
pub use morpion::{Morpion, MorpionParams};
pub use othello::Othello;
pub use registry::{
    ClobberSize, DraughtsSize, GameSpec, GameSpecError, GameVisitor, GoSize, HavannahSize, HexSize,
    OthelloSize, REGISTERED_GAMES,
};
pub use santorini::{Santorini, SantoriniParams};
pub use shobu::{Shobu, ShobuParams};
pub use surakarta::{Surakarta, SurakartaParams};
pub use tic_tac_toe::TicTacToe;
