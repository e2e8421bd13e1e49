//! perft: the number of positions reached after exactly `depth` moves from a position, a
//! reference count that any two correct move generators agree on. A game that ends before
//! `depth` adds nothing.

use rayon::prelude::*;

use super::game::{Action, Game};

/// perft(depth) from `position`, single-threaded. Counts the last ply in bulk (each legal move at
/// depth - 1 reaches one position at depth).
pub fn perft<G: Game>(position: &G, depth: usize) -> u64 {
    // One action buffer per depth, allocated once: the recursion itself allocates nothing.
    let mut buffers = vec![Vec::with_capacity(G::NUM_ACTIONS); depth.max(1)];
    perft_with(position, depth, &mut buffers)
}

fn perft_with<G: Game>(position: &G, depth: usize, buffers: &mut [Vec<Action>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (actions, deeper) = buffers.split_first_mut().expect("one buffer per depth");
    position.legal_actions(actions);
    if depth == 1 {
        return actions.len() as u64;
    }
    let mut count = 0;
    for &action in actions.iter() {
        let mut child = position.clone();
        child.play(action);
        count += perft_with(&child, depth - 1, deeper);
    }
    count
}

/// perft(depth), with the subtrees of the root's moves counted in parallel.
pub fn perft_parallel<G: Game>(position: &G, depth: usize) -> u64 {
    if depth <= 1 {
        return perft(position, depth);
    }
    let mut actions = Vec::with_capacity(G::NUM_ACTIONS);
    position.legal_actions(&mut actions);
    actions
        .par_iter()
        .map(|&action| {
            let mut child = position.clone();
            child.play(action);
            perft(&child, depth - 1)
        })
        .sum()
}
