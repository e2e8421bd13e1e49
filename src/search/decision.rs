//! Choosing among a state's children (paper Algorithms 11 and 13, docs/algorithms.md §1-2).
//!
//! Every rule is "maximise a key" where the key is lexicographic; the player to move's sign `σ`
//! (+1 for P0, -1 for P1) turns P1's argmin into an argmax, so
//! - `best`: P0 argmax `(c, v, n)`, P1 argmin `(c, v, -n)` → maximise `(σc, σv, n)`;
//! - `best_dual` (which child to explore): maximise `(σc, σv, -n)`, ties to the less visited;
//! - `safest` (UBFM_s' decision): P0 argmax `(c, n, v)`, P1 argmin `(c, -n, v)` → `(σc, n, σv)`;
//! - `safest_prefer_draw` (remark 10): `(σc, r, n, σv)` — a resolved draw beats an unresolved
//!   equal value. (The paper prints P1's key as `(c, -r, n, v)`; the `n` there would make P1
//!   prefer the least visited child, unlike every other rule, so both players use `n` the same
//!   way here.)
//!
//! With completion off (`completed = false`) the `c` term is left out, and so is `best`'s `n`:
//! plain best_action breaks value ties at random (paper, Remark 7). Remaining ties are broken
//! uniformly at random with the caller's RNG.

use rand::{Rng, RngExt};

use super::table::ChildEdge;
use crate::games::Player;

/// Which final decision a minimax search makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The best child: `best` (UBFM, Descent).
    Best,
    /// The most visited among the best completions: `safest` (UBFM_s).
    Safest,
    /// `safest`, preferring resolved children (remark 10).
    SafestPreferDraw,
}

/// The index of the child maximising `key` among those `eligible`, ties uniformly at random;
/// `None` when nothing is eligible.
#[inline]
pub fn argmax_random_ties<R: Rng + ?Sized>(
    children: &[ChildEdge],
    rng: &mut R,
    mut eligible: impl FnMut(&ChildEdge) -> bool,
    mut key: impl FnMut(&ChildEdge) -> [f64; 4],
) -> Option<usize> {
    let mut best: Option<(usize, [f64; 4])> = None;
    let mut ties = 0u32;
    for (index, child) in children.iter().enumerate() {
        if !eligible(child) {
            continue;
        }
        let k = key(child);
        match best {
            Some((_, best_key)) if k < best_key => {}
            Some((_, best_key)) if k == best_key => {
                // Reservoir sampling over the tied children: each is kept with probability 1/ties.
                ties += 1;
                if rng.random_range(0..ties) == 0 {
                    best = Some((index, k));
                }
            }
            _ => {
                best = Some((index, k));
                ties = 1;
            }
        }
    }
    best.map(|(index, _)| index)
}

#[inline]
fn completion_term(child: &ChildEdge, sign: f64, completed: bool) -> f64 {
    if completed {
        sign * child.completion as f64
    } else {
        0.0
    }
}

/// `completed_best_action(s, A)` over all children; without completion, `best_action(s)`
/// (value ties at random, Remark 7).
#[inline]
pub fn best<R: Rng + ?Sized>(
    children: &[ChildEdge],
    mover: Player,
    completed: bool,
    rng: &mut R,
) -> Option<usize> {
    let sign = mover.sign() as f64;
    argmax_random_ties(
        children,
        rng,
        |_| true,
        |c| {
            [
                completion_term(c, sign, completed),
                sign * c.value_p0 as f64,
                if completed { c.visits as f64 } else { 0.0 },
                0.0,
            ]
        },
    )
}

/// `completed_best_action_dual(s, A)`: the child to explore; with completion, only among the
/// unresolved children.
#[inline]
pub fn best_dual<R: Rng + ?Sized>(
    children: &[ChildEdge],
    mover: Player,
    completed: bool,
    rng: &mut R,
) -> Option<usize> {
    let sign = mover.sign() as f64;
    argmax_random_ties(
        children,
        rng,
        |c| !completed || !c.resolved,
        |c| {
            [
                completion_term(c, sign, completed),
                sign * c.value_p0 as f64,
                -(c.visits as f64),
                0.0,
            ]
        },
    )
}

/// `safest_action(s)` (Algorithm 13), or its draw-preferring variant.
pub fn safest<R: Rng + ?Sized>(
    children: &[ChildEdge],
    mover: Player,
    prefer_resolved: bool,
    rng: &mut R,
) -> Option<usize> {
    let sign = mover.sign() as f64;
    argmax_random_ties(
        children,
        rng,
        |_| true,
        |c| {
            let resolved = if prefer_resolved {
                c.resolved as u8 as f64
            } else {
                0.0
            };
            [
                sign * c.completion as f64,
                resolved,
                c.visits as f64,
                sign * c.value_p0 as f64,
            ]
        },
    )
}

/// The final decision of a minimax search.
pub fn decide<R: Rng + ?Sized>(
    children: &[ChildEdge],
    mover: Player,
    decision: Decision,
    completed: bool,
    rng: &mut R,
) -> Option<usize> {
    match decision {
        Decision::Best => best(children, mover, completed, rng),
        Decision::Safest => safest(children, mover, false, rng),
        Decision::SafestPreferDraw => safest(children, mover, true, rng),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::Xoshiro256PlusPlus;

    fn edge(action: u16, value_p0: f32, completion: i8, resolved: bool, visits: u32) -> ChildEdge {
        ChildEdge {
            value_p0,
            visits,
            action,
            completion,
            resolved,
        }
    }

    #[test]
    fn completion_dominates_value() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0);
        // A proven loss for P0 with a high heuristic value, a proven win with a low one.
        let children = [
            edge(0, 0.9, -1, true, 0),
            edge(1, -0.9, 1, true, 0),
            edge(2, 0.5, 0, false, 0),
        ];
        assert_eq!(best(&children, Player::P0, true, &mut rng), Some(1));
        assert_eq!(best(&children, Player::P0, false, &mut rng), Some(0));
        // For P1 (minimiser) child 0 is a proven win.
        assert_eq!(best(&children, Player::P1, true, &mut rng), Some(0));
        // The dual never picks a resolved child when completed.
        assert_eq!(best_dual(&children, Player::P0, true, &mut rng), Some(2));
    }

    #[test]
    fn visits_break_value_ties_in_opposite_directions() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0);
        let children = [edge(0, 0.3, 0, false, 5), edge(1, 0.3, 0, false, 2)];
        assert_eq!(best(&children, Player::P0, true, &mut rng), Some(0));
        assert_eq!(best_dual(&children, Player::P0, true, &mut rng), Some(1));
        assert_eq!(best(&children, Player::P1, true, &mut rng), Some(0));
        assert_eq!(best_dual(&children, Player::P1, true, &mut rng), Some(1));
    }

    #[test]
    fn plain_best_action_breaks_value_ties_at_random() {
        // Remark 7: without completion, equal values are a coin toss, whatever the visits.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let children = [edge(0, 0.3, 0, false, 50), edge(1, 0.3, 0, false, 2)];
        let mut counts = [0u32; 2];
        for _ in 0..10_000 {
            counts[best(&children, Player::P0, false, &mut rng).unwrap()] += 1;
        }
        assert!(
            counts.iter().all(|&c| (4_700..5_300).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn safest_prefers_visits_over_value() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0);
        let children = [
            edge(0, 0.8, 0, false, 3),
            edge(1, 0.1, 0, false, 30),
            edge(2, -0.5, -1, true, 100),
        ];
        assert_eq!(safest(&children, Player::P0, false, &mut rng), Some(1));
        // P1 wants the proven P1 win (c = -1) first.
        assert_eq!(safest(&children, Player::P1, false, &mut rng), Some(2));
        // Draw preference: a resolved draw beats a more visited unresolved child.
        let children = [edge(0, 0.0, 0, true, 3), edge(1, 0.1, 0, false, 30)];
        assert_eq!(safest(&children, Player::P0, true, &mut rng), Some(0));
        assert_eq!(safest(&children, Player::P0, false, &mut rng), Some(1));
    }

    #[test]
    fn ties_are_broken_uniformly() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let children = [
            edge(0, 0.0, 0, false, 0),
            edge(1, 0.0, 0, false, 0),
            edge(2, 0.0, 0, false, 0),
        ];
        let mut counts = [0u32; 3];
        for _ in 0..30_000 {
            counts[best(&children, Player::P0, true, &mut rng).unwrap()] += 1;
        }
        for c in counts {
            assert!((9_400..10_600).contains(&c), "{counts:?}");
        }
    }
}
