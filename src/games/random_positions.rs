//! Positions reached by short random playouts: the fixed inputs that network benchmarks time
//! and that `descent check-net` compares devices on, and the random openings of self-play.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, RngExt, SeedableRng};

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
        let plies = rng.random_range(0..MAX_RANDOM_PLIES);
        random_moves(initial, plies, &mut rng, &mut actions, false).encode(slot);
    }
    out
}

/// `initial` after `plies` uniformly random moves, fewer where the game ends first.
pub fn random_position<G: Game, R: Rng>(initial: &G, plies: usize, rng: &mut R) -> G {
    random_moves(initial, plies, rng, &mut Vec::new(), false)
}

/// `initial` after up to `plies` uniformly random moves: fewer where the next one would end the
/// game, so that a move is left to play.
pub fn random_opening<G: Game, R: Rng>(initial: &G, plies: usize, rng: &mut R) -> G {
    random_moves(initial, plies, rng, &mut Vec::new(), true)
}

/// Up to `plies` uniformly random moves from `initial`: fewer where no move is left, or, with
/// `keep_a_move`, where the one drawn would end the game.
fn random_moves<G: Game, R: Rng>(
    initial: &G,
    plies: usize,
    rng: &mut R,
    actions: &mut Vec<crate::games::Action>,
    keep_a_move: bool,
) -> G {
    let mut position = initial.clone();
    for _ in 0..plies {
        position.legal_actions(actions);
        if actions.is_empty() {
            break;
        }
        let action = actions[rng.random_range(0..actions.len())];
        if keep_a_move {
            let mut next = position.clone();
            next.play(action);
            if next.is_terminal() {
                break;
            }
            position = next;
        } else {
            position.play(action);
        }
    }
    position
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

    #[test]
    fn an_opening_longer_than_any_game_stops_before_the_games_end() {
        let initial = ConnectFour::new(&Default::default());
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut actions = Vec::new();
        for _ in 0..50 {
            let opened = random_opening(&initial, 100, &mut rng);
            assert!(!opened.is_terminal());
            // It stopped where the move it drew would have ended the game: a move is left, and
            // four in a row takes seven plies.
            opened.legal_actions(&mut actions);
            assert!(!actions.is_empty());
            assert!(opened.ply() >= 6, "{}", opened.ply());
        }
        let short = random_opening(&initial, 5, &mut rng);
        assert_eq!(
            short.ply(),
            5,
            "five moves cannot end a game of Connect Four"
        );
    }
}
