//! `PlayoutEvaluator`: a position's value from one random playout to the end of the game (the
//! classic gain of its outcome, +1 / 0 / -1 from P0's view), and no policy, so PUCT gives every
//! move the same prior. It is a network-free counterpart: a search built for a network
//! (`puct`, `gumbel`) keeps its own tree and decisions but learns nothing from a network
//! (agent specs' `model=playouts`, `descent gain`).
//!
//! The playout draws from `Game::playout_actions` (as classic MCTS does; in Go it never fills
//! its own eye), seeded by the position's hash and the evaluator's seed: the same position gets
//! the same value whatever the order or thread of the calls, so searches with it replay.

use std::cell::RefCell;

use rand::SeedableRng;

use super::Evaluator;
use super::searcher::SearchRng;
use crate::games::{Action, Game, Player};

/// One random playout a position; see the module comment.
#[derive(Clone, Copy, Debug, Default)]
pub struct PlayoutEvaluator {
    pub seed: u64,
}

/// A playout's scratch: the legal moves, the moves played with their players.
type PlayoutScratch = (Vec<Action>, Vec<(Player, Action)>);

thread_local! {
    /// Grown once a thread, then reused.
    static SCRATCH: RefCell<PlayoutScratch> = const { RefCell::new((Vec::new(), Vec::new())) };
}

impl PlayoutEvaluator {
    /// The classic gain of one random playout from `position` (P0's view).
    pub fn playout_value_p0<G: Game>(&self, position: &G) -> f32 {
        if let Some(outcome) = position.outcome() {
            return outcome.value_p0();
        }
        let mut rng = SearchRng::seed_from_u64(position.hash() ^ self.seed.rotate_left(17));
        SCRATCH.with_borrow_mut(|(actions, played)| {
            played.clear();
            position
                .clone()
                .playout_outcome(&mut rng, actions, played)
                .value_p0()
        })
    }
}

impl<G: Game> Evaluator<G> for PlayoutEvaluator {
    fn evaluate(&self, positions: &[G], values_p0: &mut [f32]) {
        debug_assert_eq!(positions.len(), values_p0.len());
        for (position, value) in positions.iter().zip(values_p0.iter_mut()) {
            *value = self.playout_value_p0(position);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{ConnectFour, GameExt, TicTacToe};

    #[test]
    fn a_finished_game_is_worth_its_outcome() {
        let mut position = TicTacToe::new(&Default::default());
        position.play_moves("a1 a2 b1 b2 c1").unwrap();
        let mut values = [0.0];
        PlayoutEvaluator::default().evaluate(&[position], &mut values);
        assert_eq!(values, [1.0]);
    }

    #[test]
    fn values_are_outcomes_reproducible_and_follow_the_position() {
        let evaluator = PlayoutEvaluator { seed: 3 };
        let start = ConnectFour::new(&Default::default());
        // X (P0) has three in the bottom row with both ends open: every playout where X plays
        // either end before O blocks both is a P0 win; most are.
        let mut strong_p0 = start;
        strong_p0.play_moves("c a d a e g").unwrap();
        let mut values = vec![0.0; 200];
        let positions: Vec<ConnectFour> = (0..200)
            .map(|i| {
                let mut p = strong_p0;
                // Two positions (one more pair of moves, away from the row): two seeds.
                p.play_moves(if i % 2 == 0 { "a g" } else { "g a" })
                    .unwrap();
                p
            })
            .collect();
        evaluator.evaluate(&positions, &mut values);
        assert!(values.iter().all(|v| [-1.0, 0.0, 1.0].contains(v)));
        let mut again = vec![0.0; 200];
        evaluator.evaluate(&positions, &mut again);
        assert_eq!(values, again, "the same positions, the same values");
        let mut single = [0.0];
        evaluator.evaluate(&positions[..1], &mut single);
        assert_eq!(single[0], values[0], "a value does not depend on the batch");
        let wins = (0..40)
            .map(|seed| PlayoutEvaluator { seed }.playout_value_p0(&strong_p0))
            .filter(|&v| v == 1.0)
            .count();
        let start_wins = (0..40)
            .map(|seed| PlayoutEvaluator { seed }.playout_value_p0(&start))
            .filter(|&v| v == 1.0)
            .count();
        assert!(
            wins > start_wins + 5,
            "a won-looking position wins more playouts ({wins} of 40) than the start ({start_wins})"
        );
    }
}
