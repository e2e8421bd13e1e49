//! The simplest players (docs/algorithms.md §2.3): uniformly random, and greedy — one ply, the
//! child with the best immediate value for the mover (f_t for terminal children, the evaluator
//! otherwise, e.g. the score), ties at random; with probability ε a uniformly random move instead.

use rand::{Rng, RngExt};

use super::evaluator::Evaluator;
use super::terminal_eval::TerminalEval;
use crate::games::{Action, Game, GameExt};

/// A uniformly random legal move (`None` if the game is over).
pub fn random_move<G: Game, R: Rng + ?Sized>(position: &G, rng: &mut R) -> Option<Action> {
    let mut actions = Vec::with_capacity(G::NUM_ACTIONS);
    position.legal_actions(&mut actions);
    (!actions.is_empty()).then(|| actions[rng.random_range(0..actions.len())])
}

/// The greedy move, or a random one with probability `epsilon`.
pub fn greedy_move<G: Game, E: Evaluator<G>, R: Rng + ?Sized>(
    position: &G,
    evaluator: &E,
    terminal_eval: &TerminalEval,
    epsilon: f32,
    rng: &mut R,
) -> Option<Action> {
    if epsilon > 0.0 && rng.random::<f32>() < epsilon {
        return random_move(position, rng);
    }
    let (actions, children) = position.children();
    if actions.is_empty() {
        return None;
    }
    let mut values = vec![0.0; children.len()];
    evaluator.evaluate(&children, &mut values);
    // Terminal children: proven results dominate heuristic values.
    let keys: Vec<(f32, f32)> = children
        .iter()
        .zip(&values)
        .map(|(c, &v)| match c.outcome() {
            Some(o) => (o.value_p0() * 2.0, terminal_eval.value_p0(c)),
            None => (0.0, v),
        })
        .collect();
    let sign = position.to_move().sign();
    let key = |k: (f32, f32)| (sign * k.0, sign * k.1);
    let best = keys
        .iter()
        .map(|&k| key(k))
        .fold((f32::NEG_INFINITY, f32::NEG_INFINITY), |a, k| {
            if k > a { k } else { a }
        });
    let mut tied: Vec<usize> = (0..keys.len()).filter(|&i| key(keys[i]) == best).collect();
    if tied.is_empty() {
        // Every value NaN (a broken evaluator): no child is better than another.
        tied = (0..keys.len()).collect();
    }
    Some(actions[tied[rng.random_range(0..tied.len())]])
}
