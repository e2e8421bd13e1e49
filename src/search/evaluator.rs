//! `Evaluator`: the value of non-terminal positions, f_θ in the paper (docs/algorithms.md §0).
//! Searches ask for all the children of a node in one call ("child batching"), so that a network
//! evaluates them in one forward pass.
//!
//! Implementations here need no network: a constant, a seeded pseudo-random value per position,
//! and the game's own score. The network evaluator plugs in through the same trait.

use crate::games::Game;

/// Values of non-terminal positions, **from P0's point of view**. Not `Sync` by itself: an
/// evaluator that suspends its caller (`search::in_flight`) lives on one thread; code that
/// shares one between threads asks for `Evaluator<G> + Sync`.
pub trait Evaluator<G: Game> {
    /// Writes the value of `positions[i]` into `values_p0[i]` (both slices have the same length).
    fn evaluate(&self, positions: &[G], values_p0: &mut [f32]);

    /// The values and, from an evaluator with a policy (a policy-value network), the policy
    /// logits of each position for the player to move over every action id:
    /// `logits[i·A..(i+1)·A]` for `positions[i]`, `A = G::NUM_ACTIONS`. Returns false when the
    /// evaluator has no policy (`logits` untouched; PUCT then gives every move the same prior).
    fn evaluate_with_policy(
        &self,
        positions: &[G],
        values_p0: &mut [f32],
        logits: &mut [f32],
    ) -> bool {
        let _ = logits;
        self.evaluate(positions, values_p0);
        false
    }
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for &E {
    fn evaluate(&self, positions: &[G], values_p0: &mut [f32]) {
        (**self).evaluate(positions, values_p0)
    }

    fn evaluate_with_policy(
        &self,
        positions: &[G],
        values_p0: &mut [f32],
        logits: &mut [f32],
    ) -> bool {
        (**self).evaluate_with_policy(positions, values_p0, logits)
    }
}

/// The same value for every position: a search with it is driven by terminal values alone.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstantEvaluator(pub f32);

impl<G: Game> Evaluator<G> for ConstantEvaluator {
    fn evaluate(&self, positions: &[G], values_p0: &mut [f32]) {
        debug_assert_eq!(positions.len(), values_p0.len());
        values_p0.fill(self.0);
    }
}

/// A pseudo-random value in [-1, 1] per position, fixed by the position's hash and a seed: the
/// same position always gets the same value, whatever the order or thread of the calls, so
/// searches with it are reproducible.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomEvaluator {
    pub seed: u64,
}

impl RandomEvaluator {
    pub fn new(seed: u64) -> Self {
        RandomEvaluator { seed }
    }

    /// The value of a position with hash `hash`.
    pub fn value_of_hash(&self, hash: u64) -> f32 {
        // SplitMix64's finaliser: a bijective mix, then the top 24 bits as a fraction.
        let mut z = hash ^ self.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        ((z >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
}

impl<G: Game> Evaluator<G> for RandomEvaluator {
    fn evaluate(&self, positions: &[G], values_p0: &mut [f32]) {
        for (position, value) in positions.iter().zip(values_p0.iter_mut()) {
            *value = self.value_of_hash(position.hash());
        }
    }
}

/// The game's score (P0 minus P1) times `per_point`, clamped to [-1, 1]; 0 for games without a
/// score. With Awale and `per_point` = 1/48, a lead of 12 seeds is worth 0.25.
#[derive(Clone, Copy, Debug)]
pub struct ScoreEvaluator {
    pub per_point: f32,
}

impl Default for ScoreEvaluator {
    fn default() -> Self {
        ScoreEvaluator {
            per_point: 1.0 / 48.0,
        }
    }
}

impl<G: Game> Evaluator<G> for ScoreEvaluator {
    fn evaluate(&self, positions: &[G], values_p0: &mut [f32]) {
        for (position, value) in positions.iter().zip(values_p0.iter_mut()) {
            *value = position
                .score_p0()
                .map_or(0.0, |s| (s as f32 * self.per_point).clamp(-1.0, 1.0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Awale, AwaleParams, GameExt};

    #[test]
    fn random_values_are_reproducible_and_spread() {
        let e = RandomEvaluator::new(5);
        let values: Vec<f32> = (0..10_000u64).map(|h| e.value_of_hash(h)).collect();
        assert!(values.iter().all(|v| (-1.0..=1.0).contains(v)));
        let mean = values.iter().sum::<f32>() / values.len() as f32;
        assert!(mean.abs() < 0.05, "mean {mean}");
        assert!(values.iter().any(|&v| v > 0.9) && values.iter().any(|&v| v < -0.9));
        assert_eq!(
            e.value_of_hash(42),
            RandomEvaluator::new(5).value_of_hash(42)
        );
        assert_ne!(
            e.value_of_hash(42),
            RandomEvaluator::new(6).value_of_hash(42)
        );
    }

    #[test]
    fn score_evaluator_reads_the_score_from_p0s_view() {
        let p = Awale::from_description(
            AwaleParams::default(),
            "4 4 4 4 4 4 / 4 4 4 4 0 0 ; 8 0 ; p1",
        )
        .unwrap();
        let mut v = [0.0];
        ScoreEvaluator::default().evaluate(std::slice::from_ref(&p), &mut v);
        assert_eq!(v[0], 8.0 / 48.0);
        assert_eq!(p.mobility(), 4);
    }
}
