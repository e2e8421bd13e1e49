//! Searches against references written here, on positions where a plausible bug would show:
//! alpha-beta (its transposition table, its bounds) against a plain fixed-depth negamax with
//! random leaf values; the `ubfms` and `ubfm` agents against the search and decision they name,
//! on positions where the best and the safest child differ.

use descent::arena::{AgentFactory, AgentRng, AgentSpec};
use descent::games::random_positions::random_position;
use descent::games::{Action, Awale, ConnectFour, Game, GameExt, Player, TicTacToe};
use descent::search::table::{ChildEdge, Table};
use descent::search::{
    AlphaBeta, AlphaBetaOptions, Budget, Decision, Evaluator, RandomEvaluator, TerminalEval,
    TreeSearch, TreeSearchOptions, Variant,
};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// Fixed-depth negamax, the mover's view: terminal positions by the classic gain, positions at
/// the horizon by `leaves`; no pruning, no table.
fn negamax<G: Game>(position: &G, depth: u32, leaves: &RandomEvaluator) -> f32 {
    let sign = position.to_move().sign();
    if position.is_terminal() {
        return sign * TerminalEval::Classic.value_p0(position);
    }
    if depth == 0 {
        let mut value = [0.0f32];
        leaves.evaluate(std::slice::from_ref(position), &mut value);
        return sign * value[0];
    }
    let (_, children) = position.children();
    children
        .iter()
        .map(|child| -negamax(child, depth - 1, leaves))
        .fold(f32::NEG_INFINITY, f32::max)
}

fn alpha_beta_matches_negamax<G: Game>(initial: G, positions: usize, seed: u64) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut compared = 0;
    while compared < positions {
        let plies = rng.random_range(0..24);
        let root = random_position(&initial, plies, &mut rng);
        if root.is_terminal() {
            continue;
        }
        let depth = rng.random_range(3..=6u32);
        let leaves = RandomEvaluator::new(rng.random());
        let mut search = AlphaBeta::<G>::new(AlphaBetaOptions {
            max_depth: Some(depth),
            terminal_eval: TerminalEval::Classic,
        });
        let (result, _) = search.search(&root, &leaves, &Budget::iterations(u64::MAX), &mut rng);
        let sign = root.to_move().sign();
        let expected = negamax(&root, depth, &leaves);
        assert_eq!(
            result.value_p0 * sign,
            expected,
            "{} after {plies} plies, depth {depth}:\n{root}",
            G::NAME
        );
        // The chosen move keeps the value.
        let best: Action = result.best.expect("a move");
        let mut child = root.clone();
        child.play(best);
        assert_eq!(
            -negamax(&child, depth - 1, &leaves),
            expected,
            "{}",
            G::NAME
        );
        compared += 1;
    }
}

#[test]
fn alpha_beta_equals_a_plain_negamax_with_random_leaf_values() {
    alpha_beta_matches_negamax(ConnectFour::new(&Default::default()), 150, 1);
    alpha_beta_matches_negamax(Awale::new(&Default::default()), 150, 2);
}

/// The move `spec` chooses at `position` with the RNG seeded by `seed`.
fn agent_move(spec: &str, position: &Awale, seed: u64) -> Action {
    let spec: AgentSpec = spec.parse().unwrap();
    let mut agent = AgentFactory::<Awale>::with_evaluator(
        spec,
        std::sync::Arc::new(RandomEvaluator::new(3)),
        TerminalEval::Classic,
        "score".into(),
    )
    .build();
    agent
        .choose_move(position, &mut AgentRng::seed_from_u64(seed))
        .action
}

#[test]
fn ubfms_plays_the_safest_child_and_ubfm_the_best_where_they_differ() {
    let initial = Awale::new(&Default::default());
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut differing = 0;
    for case in 0..100u64 {
        let plies = rng.random_range(0..30);
        let position = random_position(&initial, plies, &mut rng);
        if position.is_terminal() {
            continue;
        }
        // The search the agents run, done here: UBFM, completed, 60 iterations, random values.
        let mut search = TreeSearch::<Awale>::new(TreeSearchOptions {
            variant: Variant::Ubfm,
            completed: true,
            terminal_eval: TerminalEval::Classic,
            record_terminals: false,
        });
        let mut table = Table::new(false);
        let mut search_rng = AgentRng::seed_from_u64(case);
        search.search(
            &mut table,
            &position,
            &RandomEvaluator::new(3),
            &Budget::iterations(60),
            &mut search_rng,
        );
        let children: Vec<ChildEdge> = table.children_of(&position).unwrap().to_vec();
        let decide = |decision| {
            let index = descent::search::decision::decide(
                &children,
                position.to_move(),
                decision,
                true,
                &mut search_rng.clone(),
            )
            .unwrap();
            children[index].action
        };
        let (best, safest) = (decide(Decision::Best), decide(Decision::Safest));
        assert_eq!(agent_move("ubfm:iters=60", &position, case), best);
        assert_eq!(agent_move("ubfms:iters=60", &position, case), safest);
        if best != safest {
            differing += 1;
            // Safest: the most visited among the best completions; best: the best value.
            let visits = |a: Action| children.iter().find(|c| c.action == a).unwrap().visits;
            let value = |a: Action| {
                let v = children.iter().find(|c| c.action == a).unwrap().value_p0;
                if position.to_move() == Player::P0 {
                    v
                } else {
                    -v
                }
            };
            assert!(visits(safest) >= visits(best), "case {case}");
            assert!(value(best) >= value(safest), "case {case}");
        }
    }
    assert!(
        differing >= 3,
        "only {differing} positions where best and safest differ"
    );
}

/// Alpha-beta's tree-learning states carry their negamax values, and hold the terminal states
/// the search reached below its exact states (Algorithm 3's S holds the terminal states).
#[test]
fn alpha_beta_tree_states_carry_their_negamax_values() {
    exact_states_match::<ConnectFour>(ConnectFour::new(&Default::default()), 3);
    exact_states_match::<Awale>(Awale::new(&Default::default()), 4);
    let ttt = exact_states_match::<TicTacToe>(TicTacToe::new(&Default::default()), 5);
    assert!(ttt > 20, "{ttt} terminal states learned on tic-tac-toe");
}

/// The number of terminal states among the learned ones.
fn exact_states_match<G: Game>(initial: G, seed: u64) -> usize {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut checked, mut terminals) = (0, 0);
    for _ in 0..40 {
        let root = random_position(&initial, rng.random_range(0..16), &mut rng);
        if root.is_terminal() {
            continue;
        }
        let depth = rng.random_range(2..=5u32);
        let leaves = RandomEvaluator::new(rng.random());
        let mut search = AlphaBeta::<G>::new(AlphaBetaOptions {
            max_depth: Some(depth),
            terminal_eval: TerminalEval::Classic,
        });
        let (result, _) = search.search(&root, &leaves, &Budget::iterations(u64::MAX), &mut rng);
        let states = search.exact_states(&root);
        assert_eq!(states[0].0.hash(), root.hash(), "the root first");
        assert_eq!(states[0].1, result.value_p0);
        for (position, value_p0, at_depth) in &states {
            let expected = negamax(position, *at_depth, &leaves) * position.to_move().sign();
            assert_eq!(
                *value_p0,
                expected,
                "{} at depth {at_depth}:\n{position}",
                G::NAME
            );
            checked += 1;
            terminals += position.is_terminal() as usize;
        }
    }
    assert!(checked > 100, "{checked}");
    terminals
}
