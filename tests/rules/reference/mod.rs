//! Deliberately naive reference implementations of the registered games, written independently
//! of `src/games` (plain vectors and grids, full rescans, a `HashSet` of whole boards for Awale
//! repetition, following OpenSpiel's `oware.cc` step by step). Used to compute the recorded perft
//! counts and for move-by-move differential checks.

#![allow(dead_code)]

pub mod awale;
pub mod connect6;
pub mod connect_four;
pub mod draughts;
pub mod havannah;
pub mod hus;
pub mod morpion;
pub mod othello;
pub mod santorini;
pub mod shobu;
pub mod surakarta;
pub mod tic_tac_toe;

/// What a differential check compares.
pub trait ReferenceGame: Clone {
    /// Legal action ids in increasing order; empty once the game is over.
    fn legal(&self) -> Vec<usize>;
    fn apply(&mut self, action: usize);
    fn terminal(&self) -> bool;
    /// [P0, P1] returns, [0, 0] while the game goes on.
    fn returns(&self) -> [f32; 2];
    /// Score P0 minus P1, if the game has one.
    fn score_p0(&self) -> Option<i32>;
}

/// perft of a reference game: positions after exactly `depth` moves, by full expansion.
pub fn naive_perft<R: ReferenceGame>(state: &R, depth: usize) -> u64 {
    if depth == 0 {
        return 1;
    }
    state
        .legal()
        .into_iter()
        .map(|a| {
            let mut child = state.clone();
            child.apply(a);
            naive_perft(&child, depth - 1)
        })
        .sum()
}
