//! Which move self-play plays after each search (docs/algorithms.md §4, paper sections 2.3, 5 and
//! 7).
//!
//! The move is drawn from the root's children values `v(s, a)` (P0's view, turned into the
//! mover's view with the sign `σ` of the player to move):
//! - ε-greedy: the best child with probability ε' (the *exploitation*), else a uniform one;
//! - softmax: `P(a) ∝ exp(σ·v(s, a) / τ)`;
//! - ordinal: sort the children from best to worst for the mover; walking the list, stop at
//!   position i (0-based, n children) with probability `(ε'·(n-i-1) + 1) / (n-i)`. The best
//!   child gets `ε' + (1-ε')/n`; the last one is always taken if reached.
//!
//! The exploitation ε' is fixed, grows linearly from 0 to 1 over the run (annealing), or is
//! drawn uniformly in [0, 1] at each move (the paper's long runs). *Completed* selection plays a
//! proven win when there is one and never a proven loss while anything else exists.

use rand::{Rng, RngExt};

use crate::games::Player;
use crate::search::ChildEdge;
use crate::search::decision::argmax_random_ties;

/// The distribution the move is drawn from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Distribution {
    /// Best child with probability ε', else uniform (ε = 1 - ε').
    EpsilonGreedy,
    /// `P(a) ∝ exp(σ·v / temperature)`; ignores the exploitation.
    Softmax { temperature: f64 },
    /// The ordinal distribution of docs/algorithms.md §4.
    Ordinal,
}

/// How the exploitation ε' is set at each move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Exploitation {
    /// A constant ε' in [0, 1].
    Fixed(f64),
    /// ε' = t / t_max, the run's progress (0 at the start, 1 at the end).
    Annealed,
    /// ε' drawn uniformly in [0, 1] at each move.
    UniformPerMove,
}

/// The self-play action selection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ActionSelection {
    pub distribution: Distribution,
    pub exploitation: Exploitation,
    /// Play proven wins, avoid proven losses (section 5).
    pub completed: bool,
}

impl ActionSelection {
    /// ε' for a move made when the run is at `progress` ∈ [0, 1] of its duration.
    pub fn exploitation_at<R: Rng + ?Sized>(&self, progress: f64, rng: &mut R) -> f64 {
        match self.exploitation {
            Exploitation::Fixed(value) => value,
            Exploitation::Annealed => progress.clamp(0.0, 1.0),
            Exploitation::UniformPerMove => rng.random::<f64>(),
        }
    }

    /// The index of the child to play among `children` (non-empty), for `mover`, with
    /// exploitation `exploitation`.
    ///
    /// # Panics
    /// If `children` is empty.
    pub fn choose<R: Rng + ?Sized>(
        &self,
        children: &[ChildEdge],
        mover: Player,
        exploitation: f64,
        rng: &mut R,
    ) -> usize {
        assert!(!children.is_empty(), "no child to choose from");
        let sign = mover.sign();
        let mover_value = |c: &ChildEdge| (sign * c.value_p0) as f64;
        let mut candidates: Vec<usize> = (0..children.len()).collect();
        if self.completed {
            let for_mover = |c: &ChildEdge| sign as i32 * c.completion as i32;
            if let Some(win) = argmax_random_ties(
                children,
                rng,
                |c| for_mover(c) == 1,
                |c| [mover_value(c), 0.0, 0.0, 0.0],
            ) {
                return win;
            }
            if children.iter().any(|c| for_mover(c) != -1) {
                candidates.retain(|&i| for_mover(&children[i]) != -1);
            }
        }
        let n = candidates.len();
        if n == 1 {
            return candidates[0];
        }
        match self.distribution {
            Distribution::EpsilonGreedy => {
                if rng.random::<f64>() < exploitation {
                    let best = argmax_random_ties(
                        children,
                        rng,
                        |c| candidates.iter().any(|&i| children[i].action == c.action),
                        |c| [mover_value(c), 0.0, 0.0, 0.0],
                    );
                    best.expect("candidates are not empty")
                } else {
                    candidates[rng.random_range(0..n)]
                }
            }
            Distribution::Softmax { temperature } => {
                let max = candidates
                    .iter()
                    .map(|&i| mover_value(&children[i]))
                    .fold(f64::NEG_INFINITY, f64::max);
                let weights: Vec<f64> = candidates
                    .iter()
                    .map(|&i| ((mover_value(&children[i]) - max) / temperature).exp())
                    .collect();
                let mut draw = rng.random::<f64>() * weights.iter().sum::<f64>();
                for (k, w) in weights.iter().enumerate() {
                    if draw < *w {
                        return candidates[k];
                    }
                    draw -= w;
                }
                candidates[n - 1]
            }
            Distribution::Ordinal => {
                // Random order first, then a stable sort: equal values are ranked at random.
                for k in (1..n).rev() {
                    candidates.swap(k, rng.random_range(0..=k));
                }
                candidates.sort_by(|&a, &b| {
                    mover_value(&children[b]).total_cmp(&mover_value(&children[a]))
                });
                for (i, &index) in candidates.iter().enumerate() {
                    let left = (n - i) as f64;
                    let stop = (exploitation * (left - 1.0) + 1.0) / left;
                    if rng.random::<f64>() < stop {
                        return index;
                    }
                }
                candidates[n - 1]
            }
        }
    }
}

/// The probability that the ordinal distribution picks the child of rank `rank` (0 = best) among
/// `n`, with exploitation `exploitation` — the closed form of the walk above.
pub fn ordinal_probability(rank: usize, n: usize, exploitation: f64) -> f64 {
    let mut reach = 1.0;
    for i in 0..rank {
        let left = (n - i) as f64;
        reach *= 1.0 - (exploitation * (left - 1.0) + 1.0) / left;
    }
    let left = (n - rank) as f64;
    reach * (exploitation * (left - 1.0) + 1.0) / left
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::Xoshiro256PlusPlus;

    fn edge(action: u16, value_p0: f32, completion: i8) -> ChildEdge {
        ChildEdge {
            value_p0,
            visits: 0,
            action,
            completion,
            resolved: completion != 0,
        }
    }

    fn frequencies(
        selection: ActionSelection,
        children: &[ChildEdge],
        mover: Player,
        e: f64,
    ) -> Vec<f64> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let draws = 200_000;
        let mut counts = vec![0u32; children.len()];
        for _ in 0..draws {
            counts[selection.choose(children, mover, e, &mut rng)] += 1;
        }
        counts.iter().map(|&c| c as f64 / draws as f64).collect()
    }

    const ORDINAL: ActionSelection = ActionSelection {
        distribution: Distribution::Ordinal,
        exploitation: Exploitation::Fixed(0.6),
        completed: false,
    };

    #[test]
    fn ordinal_matches_its_closed_form() {
        // Values for P0, best first: child 2 (0.9), 0 (0.5), 3 (0.1), 1 (-0.4).
        let children = [
            edge(0, 0.5, 0),
            edge(1, -0.4, 0),
            edge(2, 0.9, 0),
            edge(3, 0.1, 0),
        ];
        let rank_of_child = [1, 3, 0, 2];
        for e in [0.0, 0.6, 1.0] {
            let f = frequencies(ORDINAL, &children, Player::P0, e);
            for (child, &rank) in rank_of_child.iter().enumerate() {
                let p = ordinal_probability(rank, 4, e);
                assert!(
                    (f[child] - p).abs() < 0.005,
                    "ε'={e} child {child}: {} vs {p}",
                    f[child]
                );
            }
        }
        // The best child: ε' + (1-ε')/n; the probabilities sum to 1.
        assert!((ordinal_probability(0, 4, 0.6) - (0.6 + 0.4 / 4.0)).abs() < 1e-12);
        let total: f64 = (0..4).map(|r| ordinal_probability(r, 4, 0.3)).sum();
        assert!((total - 1.0).abs() < 1e-12);
        // ε' = 0 is uniform.
        assert!((ordinal_probability(2, 4, 0.0) - 0.25).abs() < 1e-12);
        // For P1 the order reverses: child 1 (-0.4) is the best.
        let f = frequencies(ORDINAL, &children, Player::P1, 0.6);
        assert!((f[1] - ordinal_probability(0, 4, 0.6)).abs() < 0.005);
    }

    #[test]
    fn epsilon_greedy_and_softmax() {
        let children = [edge(0, 0.2, 0), edge(1, 0.8, 0), edge(2, -0.5, 0)];
        let greedy = ActionSelection {
            distribution: Distribution::EpsilonGreedy,
            ..ORDINAL
        };
        let f = frequencies(greedy, &children, Player::P0, 0.7);
        assert!((f[1] - (0.7 + 0.3 / 3.0)).abs() < 0.005, "{f:?}");
        assert!((f[0] - 0.1).abs() < 0.005, "{f:?}");
        let softmax = ActionSelection {
            distribution: Distribution::Softmax { temperature: 0.5 },
            ..ORDINAL
        };
        let f = frequencies(softmax, &children, Player::P1, 0.0);
        let w: Vec<f64> = [0.2f64, 0.8, -0.5]
            .iter()
            .map(|v| (-v / 0.5).exp())
            .collect();
        let z: f64 = w.iter().sum();
        for i in 0..3 {
            assert!((f[i] - w[i] / z).abs() < 0.005, "{f:?}");
        }
    }

    #[test]
    fn completed_selection_plays_wins_and_avoids_losses() {
        let completed = ActionSelection {
            completed: true,
            exploitation: Exploitation::Fixed(0.0),
            ..ORDINAL
        };
        // P0: child 2 is a proven P0 win (low heuristic value), child 0 a proven loss.
        let children = [
            edge(0, 0.9, -1),
            edge(1, 0.3, 0),
            edge(2, -0.2, 1),
            edge(3, 0.1, 0),
        ];
        let f = frequencies(completed, &children, Player::P0, 0.0);
        assert_eq!(f[2], 1.0);
        // P1: child 0 is its proven win.
        let f = frequencies(completed, &children, Player::P1, 0.0);
        assert_eq!(f[0], 1.0);
        // No win: the proven loss is never played, the others uniformly (ε' = 0).
        let children = [edge(0, 0.9, -1), edge(1, 0.3, 0), edge(2, -0.2, 0)];
        let f = frequencies(completed, &children, Player::P0, 0.0);
        assert_eq!(f[0], 0.0);
        assert!(
            (f[1] - 0.5).abs() < 0.005 && (f[2] - 0.5).abs() < 0.005,
            "{f:?}"
        );
        // Only losses: one of them is played.
        let children = [edge(0, 0.9, -1), edge(1, 0.3, -1)];
        let f = frequencies(completed, &children, Player::P0, 1.0);
        assert_eq!(f[0], 1.0);
        // Without completion the proven loss with the best value is the greedy choice.
        let plain = ActionSelection {
            completed: false,
            ..completed
        };
        let f = frequencies(plain, &children, Player::P0, 1.0);
        assert_eq!(f[0], 1.0);
    }

    #[test]
    fn exploitation_schedules() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let annealed = ActionSelection {
            exploitation: Exploitation::Annealed,
            ..ORDINAL
        };
        assert_eq!(annealed.exploitation_at(0.25, &mut rng), 0.25);
        assert_eq!(annealed.exploitation_at(1.5, &mut rng), 1.0);
        let uniform = ActionSelection {
            exploitation: Exploitation::UniformPerMove,
            ..ORDINAL
        };
        let mean: f64 = (0..10_000)
            .map(|_| uniform.exploitation_at(0.0, &mut rng))
            .sum::<f64>()
            / 1e4;
        assert!((mean - 0.5).abs() < 0.02);
        assert_eq!(ORDINAL.exploitation_at(0.9, &mut rng), 0.6);
    }
}
