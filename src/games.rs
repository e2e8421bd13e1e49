//! Layer `games`: the `Game` trait and the registered games. Knows nothing of search.

pub mod awale;
pub mod connect_four;
pub mod game;
pub mod hus;
pub mod perft;
pub mod random_playout;
pub mod registry;
pub mod shobu;
pub mod tic_tac_toe;
mod zobrist;

pub use awale::{Awale, AwaleParams};
pub use connect_four::ConnectFour;
pub use game::{
    Action, EncodingShape, Game, GameExt, MoveError, Outcome, Player, PositionError, Symmetry,
};
pub use hus::{Hus, HusParams};
pub use registry::{GameSpec, GameSpecError, GameVisitor, REGISTERED_GAMES};
pub use shobu::{Shobu, ShobuParams};
pub use tic_tac_toe::TicTacToe;
