//! Encoded positions reached by short random playouts: the fixed inputs that network
//! benchmarks time and that `descent check-net` compares devices on.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use super::Game;

/// The longest random playout, in plies, before a position is encoded.
pub const MAX_RANDOM_PLIES: usize = 30;

/// `count` encoded positions, contiguous: each reached from `initial` by 0 to 29 uniformly
/// random plies (fewer where the game ends first), all drawn from `seed`.
pub fn encoded_random_positions<G: Game>(initial: &G, count: usize, seed: u64) -> Vec<f32> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let size = G::ENCODING.len();
    let mut out = vec![0.0; count * size];
    let mut actions = Vec::new();
    for slot in out.chunks_exact_mut(size) {
        let mut p = initial.clone();
        for _ in 0..rng.random_range(0..MAX_RANDOM_PLIES) {
            p.legal_actions(&mut actions);
            if actions.is_empty() {
                break;
            }
            p.play(actions[rng.random_range(0..actions.len())]);
        }
        p.encode(slot);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::ConnectFour;

    #[test]
    fn the_positions_depend_on_the_seed_alone() {
        let initial = ConnectFour::new(&Default::default());
        let a = encoded_random_positions(&initial, 16, 7);
        assert_eq!(a, encoded_random_positions(&initial, 16, 7));
        assert_ne!(a, encoded_random_positions(&initial, 16, 8));
        let size = ConnectFour::ENCODING.len();
        let mut first = vec![0.0; size];
        initial.encode(&mut first);
        // Not every position is the initial one: the playouts moved.
        assert!(a.chunks_exact(size).any(|p| p != first.as_slice()));
    }
}
