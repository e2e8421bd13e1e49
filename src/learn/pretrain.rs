//! Pre-initialisation (docs/algorithms.md §6): before self-play, the network can be fitted on the
//! terminal evaluation of terminal states reached by random play.

use rand::Rng;

use crate::games::Game;
use crate::search::TerminalEval;
use crate::search::greedy::random_move;

/// `count` terminal positions of uniformly random games from `initial`, each with f_t (P0's
/// view).
pub fn random_terminal_pairs<G: Game, R: Rng + ?Sized>(
    initial: &G,
    count: usize,
    terminal_eval: &TerminalEval,
    rng: &mut R,
) -> Vec<(G, f32)> {
    (0..count)
        .map(|_| {
            let mut position = initial.clone();
            while let Some(action) = random_move(&position, rng) {
                position.play(action);
            }
            let value = terminal_eval.value_p0(&position);
            (position, value)
        })
        .collect()
}

/// The lengths in plies of `games` random games.
fn random_game_lengths<G: Game, R: Rng + ?Sized>(
    initial: &G,
    games: usize,
    rng: &mut R,
) -> Vec<usize> {
    random_terminal_pairs(initial, games, &TerminalEval::Classic, rng)
        .iter()
        .map(|(p, _)| p.ply() - initial.ply())
        .collect()
}

/// The mean length in plies of `games` random games (the empirical P' of the multiplicative
/// depth heuristic).
pub fn mean_random_game_length<G: Game, R: Rng + ?Sized>(
    initial: &G,
    games: usize,
    rng: &mut R,
) -> f32 {
    let total: usize = random_game_lengths(initial, games, rng).iter().sum();
    total as f32 / games.max(1) as f32
}

/// The longest of `games` random games, in plies: the estimate P̃ of the maximum game length
/// that the additive depth heuristic uses by default (the paper's P̃; a game's length cap, such
/// as Awale's 1 000 plies, is far beyond any real game and would give targets near ±1 000).
pub fn longest_random_game<G: Game, R: Rng + ?Sized>(
    initial: &G,
    games: usize,
    rng: &mut R,
) -> f32 {
    random_game_lengths(initial, games, rng)
        .into_iter()
        .max()
        .unwrap_or(1)
        .max(1) as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Awale, TicTacToe};
    use rand::SeedableRng;
    use rand::rngs::Xoshiro256PlusPlus;

    #[test]
    fn random_terminals_are_terminal_with_their_value() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let t = TicTacToe::new(&Default::default());
        // With additive depth, the value depends on the ply: ±(9 − ply + 1), 0 for a draw.
        let additive = TerminalEval::AdditiveDepth {
            max_length: 9.0,
            estimated: false,
        };
        let pairs = random_terminal_pairs(&t, 200, &additive, &mut rng);
        assert_eq!(pairs.len(), 200);
        let mut plies = std::collections::BTreeSet::new();
        for (p, v) in pairs {
            assert!(p.is_terminal());
            let expected = p.outcome().unwrap().value_p0() * (10 - p.ply()) as f32;
            assert_eq!(v, expected, "{p}");
            plies.insert(p.ply());
        }
        assert!(
            plies.len() >= 3,
            "terminal states of several lengths: {plies:?}"
        );
        // docs/algorithms.md §10: random Awale games last about 100 plies; the longest of 1000 a
        // few hundred, far below the 1 000-ply cap.
        let a = Awale::new(&Default::default());
        let mean = mean_random_game_length(&a, 300, &mut rng);
        assert!((60.0..160.0).contains(&mean), "{mean}");
        let longest = longest_random_game(&a, 1000, &mut rng);
        assert!((200.0..700.0).contains(&longest), "{longest}");
        // Tic-tac-toe: some random game fills the board.
        assert_eq!(longest_random_game(&t, 1000, &mut rng), 9.0);
    }
}
