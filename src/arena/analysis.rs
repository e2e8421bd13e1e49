//! Live analysis: what an agent's search thinks of each move of a position — its visits, its
//! value, the network's prior and the line the search expects — for `descent engine`'s
//! `lz-analyze` and `kata-analyze` (docs/engine-protocol.md).

use crate::games::{Action, Game};
use crate::search::{Evaluator, SearchRoot, Searcher};

/// The longest principal variation reported.
pub const MAX_PV_PLIES: usize = 16;

/// One move of the position analysed, as its search left it.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub action: Action,
    /// How often the search chose the move (n(s, a); MCTS's visits).
    pub visits: u32,
    /// The search's value of the move, P0's view, on its terminal evaluation's scale.
    pub value_p0: f32,
    /// The network's policy for the move (softmax over the legal moves); without a policy
    /// network every move has the same prior, as the searches weigh them.
    pub prior: f32,
    /// The line the search expects, the move first.
    pub pv: Vec<Action>,
}

/// The candidates of `root` (the last search of `position`), best first: most visits, then
/// the best value for the player to move.
pub fn candidates<G: Game>(
    position: &G,
    root: SearchRoot<'_>,
    searcher: &dyn Searcher<G>,
    evaluator: &dyn Evaluator<G>,
) -> Vec<Candidate> {
    let priors = priors(position, evaluator);
    let sign = position.to_move().sign();
    let mut list: Vec<Candidate> = root
        .children
        .iter()
        .map(|c| Candidate {
            action: c.action,
            visits: c.visits,
            value_p0: c.value_p0,
            prior: priors
                .iter()
                .find(|(a, _)| *a == c.action)
                .map_or(0.0, |(_, p)| *p),
            pv: searcher.principal_variation(position, c.action, MAX_PV_PLIES),
        })
        .collect();
    list.sort_by(|a, b| {
        (b.visits, sign * b.value_p0)
            .partial_cmp(&(a.visits, sign * a.value_p0))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    list
}

/// The prior of each legal move of `position`: the evaluator's policy, softmaxed over the legal
/// moves, or the same for each without a policy.
fn priors<G: Game>(position: &G, evaluator: &dyn Evaluator<G>) -> Vec<(Action, f32)> {
    let mut legal = Vec::new();
    position.legal_actions(&mut legal);
    let mut logits = vec![0.0f32; G::NUM_ACTIONS];
    let mut value = [0.0f32];
    let has_policy =
        evaluator.evaluate_with_policy(std::slice::from_ref(position), &mut value, &mut logits);
    if !has_policy || legal.is_empty() {
        let same = 1.0 / legal.len().max(1) as f32;
        return legal.into_iter().map(|a| (a, same)).collect();
    }
    let mut weights = Vec::with_capacity(legal.len());
    crate::search::puct::legal_softmax(&logits, &legal, &mut weights);
    legal.into_iter().zip(weights).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{GameExt, TicTacToe};
    use crate::search::{Budget, ConstantEvaluator};

    /// X to move wins at c1 (a1 b1 taken, O on a2 b2): the search's best candidate is c1, with
    /// the most visits and a winning value for X, every prior the same without a policy, and a
    /// principal variation that starts with the move.
    #[test]
    fn the_winning_move_comes_first_with_its_line() {
        let mut position = TicTacToe::new(&Default::default());
        position.play_moves("a1 a2 b1 b2").unwrap();
        for spec in ["ubfms:iters=200", "mcts:iters=400"] {
            let spec: crate::arena::AgentSpec = spec.parse().unwrap();
            let mut searcher = spec.search.build(
                crate::search::TerminalEval::Classic,
                crate::search::KeepForLearning::default(),
            );
            let evaluator = ConstantEvaluator::default();
            let mut rng = rand::SeedableRng::seed_from_u64(3);
            searcher.search(&position, &evaluator, &Budget::iterations(200), &mut rng);
            let list = candidates(&position, searcher.root(&position), &*searcher, &evaluator);
            assert_eq!(list.len(), 5, "{spec}");
            let best = &list[0];
            assert_eq!(
                TicTacToe::action_to_text(position.to_move(), best.action),
                "c1"
            );
            assert!(best.value_p0 > 0.9, "{spec}: {best:?}");
            assert_eq!(best.pv[0], best.action);
            assert!(list.iter().all(|c| (c.prior - 0.2).abs() < 1e-6));
            assert!(list.windows(2).all(|w| w[0].visits >= w[1].visits));
        }
    }
}
