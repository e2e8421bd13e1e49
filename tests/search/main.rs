//! The searches: known facts (proofs, tactics, exact minimax), references written here, the
//! side to move taken from the position, and the arena's agents and matches.

#[path = "../common/mod.rs"]
mod common;

mod arena;
mod connect_four_solver;
mod facts;
mod in_flight;
mod perfect_moves;
mod references;
mod side_to_move;
