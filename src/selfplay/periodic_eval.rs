//! The evaluation run inside training (paper section 8.5): the current network plays with
//! completed UBFM_s against a baseline — UCT with random playouts, or random moves — with the
//! same budget per move, half the games as P0 and half as P1. Reported as the win rate minus
//! the loss rate with a 95 % interval (normal approximation over the per-game results
//! +1 / 0 / -1). The arena layer has the full statistics; this is what a run logs as it goes.

use rand::Rng;
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use serde::Serialize;

use super::config::{EvalOpponent, EvaluationSettings};
use crate::games::{Game, Player};
use crate::search::greedy::random_move;
use crate::search::{
    Budget, Decision, Evaluator, Mcts, MctsOptions, Table, TerminalEval, TreeSearch,
    TreeSearchOptions,
};

/// The result of one evaluation, from the network's side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EvalReport {
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// (wins - losses) / games.
    pub win_minus_loss: f64,
    /// Half-width of the 95 % interval of `win_minus_loss`.
    pub ci95: f64,
    /// Wins, draws, losses with the network as P0, then as P1.
    pub as_p0: [u64; 3],
    pub as_p1: [u64; 3],
}

/// Plays `settings.games` games between the network (through `net`) and the baseline, both
/// with `settings.budget` per move.
pub fn evaluate_against_baseline<G: Game, E: Evaluator<G>>(
    initial: &G,
    net: &E,
    settings: &EvaluationSettings,
    terminal_eval: TerminalEval,
    seed: u64,
) -> EvalReport {
    play_match(
        initial,
        net,
        &settings.budget,
        Baseline::from_settings(settings),
        settings.games,
        terminal_eval,
        seed,
    )
}

/// The baseline player and its budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Baseline {
    /// UCT with random playouts (exploration constant `c`).
    Mcts {
        budget: Budget,
        c: f32,
    },
    Random,
}

impl Baseline {
    fn from_settings(settings: &EvaluationSettings) -> Baseline {
        match settings.opponent {
            EvalOpponent::Mcts => Baseline::Mcts {
                budget: settings.budget,
                c: MctsOptions::DEFAULT_C,
            },
            EvalOpponent::Random => Baseline::Random,
        }
    }
}

/// Plays `games` games (`games / 2` with the network as P0) between the network, searching
/// with completed UBFM_s within `net_budget`, and `baseline`.
pub fn play_match<G: Game, E: Evaluator<G>>(
    initial: &G,
    net: &E,
    net_budget: &Budget,
    baseline: Baseline,
    games: u64,
    terminal_eval: TerminalEval,
    seed: u64,
) -> EvalReport {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut ubfm = TreeSearch::<G>::new(TreeSearchOptions {
        terminal_eval,
        ..TreeSearchOptions::ubfm()
    });
    let mut mcts = Mcts::<G>::new(match baseline {
        Baseline::Mcts { c, .. } => MctsOptions {
            tree_policy: crate::search::TreePolicy::Uct { c },
            ..MctsOptions::uct()
        },
        Baseline::Random => MctsOptions::uct(),
    });
    let mut table = Table::new(false);
    let mut tally = [[0u64; 3]; 2];
    for game in 0..games {
        let net_side = if game % 2 == 0 {
            Player::P0
        } else {
            Player::P1
        };
        table.clear();
        let mut position = initial.clone();
        while !position.is_terminal() {
            let action = if position.to_move() == net_side {
                ubfm.search(&mut table, &position, net, net_budget, &mut rng);
                ubfm.decide(&table, &position, Decision::Safest, &mut rng)
            } else {
                baseline_move(&mut mcts, baseline, &position, &mut rng)
            }
            .expect("a position in play has a move");
            position.play(action);
        }
        let result = position.outcome().expect("over").value_p0() * net_side.sign();
        let column = if result > 0.0 {
            0
        } else if result == 0.0 {
            1
        } else {
            2
        };
        tally[net_side.index()][column] += 1;
    }
    let [as_p0, as_p1] = tally;
    let (wins, draws, losses) = (
        as_p0[0] + as_p1[0],
        as_p0[1] + as_p1[1],
        as_p0[2] + as_p1[2],
    );
    let n = games as f64;
    let mean = (wins as f64 - losses as f64) / n;
    let mean_square = (wins + losses) as f64 / n;
    let variance = (mean_square - mean * mean).max(0.0);
    EvalReport {
        games,
        wins,
        draws,
        losses,
        win_minus_loss: mean,
        ci95: 1.96 * (variance / n).sqrt(),
        as_p0,
        as_p1,
    }
}

fn baseline_move<G: Game, R: Rng + ?Sized>(
    mcts: &mut Mcts<G>,
    baseline: Baseline,
    position: &G,
    rng: &mut R,
) -> Option<crate::games::Action> {
    match baseline {
        Baseline::Random => random_move(position, rng),
        Baseline::Mcts { budget, .. } => {
            mcts.clear();
            // The random playouts need no evaluator; any will do.
            mcts.search(
                position,
                &crate::search::ConstantEvaluator::default(),
                &budget,
                rng,
            );
            mcts.decide(rng)
        }
    }
}
