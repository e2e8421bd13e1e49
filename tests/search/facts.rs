//! Searches against known facts: proofs on tic-tac-toe, tactics on Connect Four, exact minimax
//! against a brute force written here, table invariants, reproducibility, and the playing
//! strength order of the Awale MCTS thesis (UCT > plain MCTS > random) on Awale.

use std::collections::HashMap;

use descent::games::{
    Action, Awale, AwaleParams, ConnectFour, Game, GameExt, Outcome, Player, TicTacToe,
};
use descent::search::table::key_of;
use descent::search::{
    AlphaBeta, AlphaBetaOptions, Budget, ConstantEvaluator, Decision, Mcts, MctsOptions,
    RandomEvaluator, Table, TreeSearch, TreeSearchOptions, Variant,
};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;

fn rng(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

trait NewDefault: Game {
    fn initial() -> Self;
}
impl NewDefault for TicTacToe {
    fn initial() -> Self {
        TicTacToe::new(&Default::default())
    }
}
impl NewDefault for ConnectFour {
    fn initial() -> Self {
        ConnectFour::new(&Default::default())
    }
}

fn after<G: NewDefault>(moves: &str) -> G {
    let mut p = G::initial();
    p.play_moves(moves)
        .unwrap_or_else(|e| panic!("{moves}: {e}\n{p}"));
    p
}

/// Brute-force minimax value (classic gain, P0's view).
fn minimax<G: Game>(p: &G, memo: &mut HashMap<u64, f32>) -> f32 {
    if let Some(o) = p.outcome() {
        return o.value_p0();
    }
    if let Some(&v) = memo.get(&p.hash()) {
        return v;
    }
    let mut actions = Vec::new();
    p.legal_actions(&mut actions);
    let values = actions.iter().map(|&a| {
        let mut c = p.clone();
        c.play(a);
        minimax(&c, memo)
    });
    let v = if p.to_move() == Player::P0 {
        values.fold(f32::NEG_INFINITY, f32::max)
    } else {
        values.fold(f32::INFINITY, f32::min)
    };
    memo.insert(p.hash(), v);
    v
}

fn tree_search<G: Game>(variant: Variant) -> (TreeSearch<G>, Table<G>) {
    let options = match variant {
        Variant::Descent => TreeSearchOptions::descent(),
        Variant::Ubfm => TreeSearchOptions::ubfm(),
    };
    (TreeSearch::new(options), Table::new(true))
}

#[test]
fn descent_and_ubfm_prove_tic_tac_toe_is_a_draw() {
    let root = TicTacToe::initial();
    for variant in [Variant::Descent, Variant::Ubfm] {
        let (mut search, mut table) = tree_search::<TicTacToe>(variant);
        let stats = search.search(
            &mut table,
            &root,
            &ConstantEvaluator(0.0),
            &Budget::iterations(200_000),
            &mut rng(1),
        );
        let node = table.get(key_of(&root)).expect("root expanded");
        assert!(
            node.resolved,
            "{variant:?}: root not resolved after {} iterations",
            stats.iterations
        );
        assert_eq!(node.completion, 0, "{variant:?}: tic-tac-toe is a draw");
        assert!(
            stats.iterations < 200_000,
            "the resolution stop ends the search early"
        );
    }
}

#[test]
fn tree_searches_find_forced_tic_tac_toe_wins() {
    // x a1 b1 against o a2 b2: c1 wins at once. x a1 b2 against o b1 c3: a2 forks (a1-a3 and
    // a2-c2), a win in 3. After x a1 b1 a3 and o b2 c1 a2, o (P1) wins with c2.
    for (moves, winner) in [
        ("a1 a2 b1 b2", 1i8),
        ("a1 b1 b2 c3", 1),
        ("a1 b2 b1 c1 a3 a2 c3", -1),
    ] {
        let root = after::<TicTacToe>(moves);
        assert_eq!(
            minimax(&root, &mut HashMap::new()),
            winner as f32,
            "{moves}: test position"
        );
        for variant in [Variant::Descent, Variant::Ubfm] {
            let (mut search, mut table) = tree_search::<TicTacToe>(variant);
            search.search(
                &mut table,
                &root,
                &ConstantEvaluator(0.0),
                &Budget::iterations(10_000),
                &mut rng(2),
            );
            let node = table.get(key_of(&root)).unwrap();
            assert!(
                node.resolved && node.completion == winner,
                "{variant:?} {moves}: {node:?}"
            );
            // The decision is a winning move.
            for decision in [Decision::Best, Decision::Safest] {
                let action = search.decide(&table, &root, decision, &mut rng(3)).unwrap();
                let mut child = root;
                child.play(action);
                assert_eq!(
                    minimax(&child, &mut HashMap::new()),
                    winner as f32,
                    "{variant:?} {decision:?} {moves}"
                );
            }
        }
    }
}

#[test]
fn alpha_beta_at_full_depth_is_exact_on_tic_tac_toe() {
    let mut memo = HashMap::new();
    let mut r = rng(4);
    let mut actions = Vec::new();
    let mut checked = 0;
    for _ in 0..300 {
        // A random position: 0-7 random moves from the start.
        let mut p = TicTacToe::initial();
        for _ in 0..r.random_range(0..8) {
            p.legal_actions(&mut actions);
            if actions.is_empty() {
                break;
            }
            p.play(actions[r.random_range(0..actions.len())]);
        }
        if p.is_terminal() {
            continue;
        }
        let mut ab = AlphaBeta::<TicTacToe>::new(AlphaBetaOptions::default());
        let (result, _) = ab.search(
            &p,
            &ConstantEvaluator(0.0),
            &Budget::iterations(10_000_000),
            &mut r,
        );
        let expected = minimax(&p, &mut memo);
        assert!(result.exact, "full depth reaches only terminal states");
        assert_eq!(result.value_p0, expected, "alpha-beta value of\n{p}");
        let mut child = p;
        child.play(result.best.unwrap());
        assert_eq!(
            minimax(&child, &mut memo),
            expected,
            "alpha-beta's move keeps the value"
        );
        checked += 1;
    }
    assert!(checked > 200);
}

/// Win in 1 for x: a1 b1 c1 against o on a2 b2 c2; x plays d.
const C4_WIN_IN_1: &str = "a a b b c c";
/// Win in 3 for x: c1 d1 with o above; e1 (or b1) threatens both ends.
const C4_WIN_IN_3: &str = "d d c c";
/// o holds e1 f1 g1: x must block at d1; every other move loses at once.
const C4_MUST_BLOCK: &str = "a e a f b g";

fn winning_moves(root: &ConnectFour, plies: u32) -> Vec<Action> {
    let mut ab = AlphaBeta::<ConnectFour>::new(AlphaBetaOptions {
        max_depth: Some(plies),
        ..Default::default()
    });
    let mut actions = Vec::new();
    root.legal_actions(&mut actions);
    actions
        .into_iter()
        .filter(|&a| {
            let mut c = *root;
            c.play(a);
            let (r, _) = ab.search(
                &c,
                &ConstantEvaluator(0.0),
                &Budget::iterations(u64::MAX),
                &mut rng(0),
            );
            r.value_p0 * root.to_move().sign() == 1.0
        })
        .collect()
}

#[test]
fn every_search_solves_connect_four_tactics() {
    for (moves, depth) in [(C4_WIN_IN_1, 1), (C4_WIN_IN_3, 3)] {
        let root = after::<ConnectFour>(moves);
        let winning = winning_moves(&root, depth);
        assert!(
            !winning.is_empty(),
            "{moves}: the test position has a forced win"
        );
        for variant in [Variant::Descent, Variant::Ubfm] {
            let (mut search, mut table) = tree_search::<ConnectFour>(variant);
            search.search(
                &mut table,
                &root,
                &ConstantEvaluator(0.0),
                &Budget::iterations(3_000),
                &mut rng(5),
            );
            let node = table.get(key_of(&root)).unwrap();
            assert_eq!(
                node.completion, 1,
                "{variant:?} {moves}: root proven a win for x"
            );
            for decision in [Decision::Best, Decision::Safest] {
                let a = search.decide(&table, &root, decision, &mut rng(6)).unwrap();
                assert!(
                    winning.contains(&a),
                    "{variant:?} {decision:?} {moves}: played {a}"
                );
            }
        }
        let mut ab = AlphaBeta::<ConnectFour>::new(AlphaBetaOptions::default());
        let (result, _) = ab.search(
            &root,
            &ConstantEvaluator(0.0),
            &Budget::iterations(2_000_000),
            &mut rng(7),
        );
        assert_eq!(result.value_p0, 1.0, "alpha-beta {moves}");
        assert!(winning.contains(&result.best.unwrap()));
        let mut mcts = Mcts::<ConnectFour>::new(MctsOptions::uct());
        mcts.search(
            &root,
            &ConstantEvaluator(0.0),
            &Budget::iterations(20_000),
            &mut rng(8),
        );
        let a = mcts.decide(&mut rng(9)).unwrap();
        assert!(winning.contains(&a), "UCT {moves}: played {a}");
    }
}

#[test]
fn no_search_plays_into_a_proven_loss() {
    let root = after::<ConnectFour>(C4_MUST_BLOCK);
    let block = root.parse_legal_move("d").unwrap();
    for variant in [Variant::Descent, Variant::Ubfm] {
        for seed in 0..5 {
            let (mut search, mut table) = tree_search::<ConnectFour>(variant);
            search.search(
                &mut table,
                &root,
                &RandomEvaluator::new(seed),
                &Budget::iterations(500),
                &mut rng(seed),
            );
            for decision in [Decision::Best, Decision::Safest] {
                let a = search
                    .decide(&table, &root, decision, &mut rng(seed))
                    .unwrap();
                assert_eq!(a, block, "{variant:?} {decision:?} seed {seed}");
            }
            // Every other move the search looked at is proven a loss for x as soon as it is
            // expanded (o's winning reply is a terminal child).
            let children = table.children_of(&root).unwrap();
            for child in children
                .iter()
                .filter(|c| c.action != block && c.visits > 0)
            {
                assert_eq!(
                    (child.completion, child.resolved),
                    (-1, true),
                    "{variant:?}: {child:?}"
                );
            }
        }
    }
    let mut ab = AlphaBeta::<ConnectFour>::new(AlphaBetaOptions {
        max_depth: Some(4),
        ..Default::default()
    });
    let (result, _) = ab.search(
        &root,
        &RandomEvaluator::new(1),
        &Budget::iterations(u64::MAX),
        &mut rng(1),
    );
    assert_eq!(result.best, Some(block));
}

#[test]
fn descent_table_invariants_hold() {
    let root = after::<ConnectFour>("d c");
    let (mut search, mut table) = tree_search::<ConnectFour>(Variant::Descent);
    let iterations = 2_000;
    let stats = search.search(
        &mut table,
        &root,
        &RandomEvaluator::new(3),
        &Budget::iterations(iterations),
        &mut rng(3),
    );
    assert_eq!(stats.iterations, iterations);
    assert!(
        table.len() > 1_000,
        "the search grew the table: {}",
        table.len()
    );
    // Inflow: how many iterations went from a parent into each state.
    let mut inflow: HashMap<u64, u64> = HashMap::new();
    inflow.insert(key_of(&root), iterations);
    for (position, _) in table.learning_pairs() {
        let key = key_of(position);
        let (_, children) = table.node_and_children(key).unwrap();
        for edge in children {
            let mut child = *position;
            child.play(edge.action);
            *inflow.entry(key_of(&child)).or_default() += edge.visits as u64;
        }
    }
    let mut checked = 0;
    for (position, value_p0) in table.learning_pairs() {
        let key = key_of(position);
        let (node, children) = table.node_and_children(key).unwrap();
        assert_eq!(node.value_p0, value_p0);
        if position.is_terminal() {
            assert!(node.terminal && node.resolved && children.is_empty());
            assert_eq!(
                node.completion as f32,
                position.outcome().unwrap().value_p0()
            );
            continue;
        }
        // Expanded: one edge per legal action, each edge a copy of the child's own entry when
        // the child is in S, else the evaluator's value.
        assert_eq!(children.len(), position.mobility());
        for edge in children {
            let mut child = *position;
            child.play(edge.action);
            match table.get(key_of(&child)) {
                Some(c) if child.is_terminal() => {
                    assert_eq!((c.completion, c.value_p0), (edge.completion, edge.value_p0))
                }
                Some(_) => {}
                None => {
                    assert_eq!(
                        edge.value_p0,
                        RandomEvaluator::new(3).value_of_hash(child.hash())
                    );
                    assert!(!edge.resolved && edge.completion == 0 && edge.visits == 0);
                }
            }
        }
        // (v, c) of the completed best child; r = backup_resolution.
        let sign = position.to_move().sign();
        let best = children
            .iter()
            .map(|e| (sign * e.completion as f32, sign * e.value_p0))
            .fold((f32::NEG_INFINITY, f32::NEG_INFINITY), |a, k| {
                if k > a { k } else { a }
            });
        assert_eq!(
            (sign * node.completion as f32, sign * node.value_p0),
            best,
            "backup of\n{position}"
        );
        let expected_resolution = node.completion != 0 || children.iter().all(|e| e.resolved);
        assert_eq!(node.resolved, expected_resolution);
        // n counters: an unresolved state continued every iteration that entered it.
        let visits: u64 = children.iter().map(|e| e.visits as u64).sum();
        let entered = inflow.get(&key).copied().unwrap_or(0);
        if node.resolved {
            assert!(visits <= entered);
        } else {
            assert_eq!(visits, entered, "n counters of\n{position}");
        }
        checked += 1;
    }
    assert!(checked > 500);
}

#[test]
fn self_play_keeps_only_expanded_or_terminal_states_in_s() {
    let mut position = TicTacToe::initial();
    let (mut search, mut table) = tree_search::<TicTacToe>(Variant::Descent);
    let mut r = rng(10);
    while !position.is_terminal() {
        search.search(
            &mut table,
            &position,
            &ConstantEvaluator(0.0),
            &Budget::iterations(50),
            &mut r,
        );
        let action = search
            .decide(&table, &position, Decision::Best, &mut r)
            .unwrap();
        position.play(action);
    }
    let mut count = 0;
    for (state, _) in table.learning_pairs() {
        let (node, children) = table.node_and_children(key_of(state)).unwrap();
        if state.is_terminal() {
            assert!(node.terminal && children.is_empty());
        } else {
            assert!(
                !node.terminal && children.len() == state.mobility(),
                "an unexpanded leaf in S:\n{state}"
            );
        }
        count += 1;
    }
    assert_eq!(count, table.len());
    assert!(count > 9);
}

#[test]
fn searches_are_reproducible_with_a_seed() {
    let root = Awale::new(&AwaleParams::default());
    let run = |seed: u64| {
        let (mut search, mut table) = tree_search::<Awale>(Variant::Descent);
        let stats = search.search(
            &mut table,
            &root,
            &RandomEvaluator::new(seed),
            &Budget::iterations(300),
            &mut rng(seed),
        );
        let children: Vec<_> = table.children_of(&root).unwrap().to_vec();
        let mut mcts = Mcts::<Awale>::new(MctsOptions::uct());
        mcts.search(
            &root,
            &ConstantEvaluator(0.0),
            &Budget::iterations(300),
            &mut rng(seed),
        );
        (
            stats.expansions,
            stats.evaluated_positions,
            table.len(),
            children,
            mcts.root_children(),
        )
    };
    let a = run(1);
    assert_eq!(a, run(1));
    assert_ne!(a.3, run(2).3, "another seed, another search");
}

#[test]
fn mcts_tree_reuse_keeps_the_subtree() {
    let root = Awale::new(&AwaleParams::default());
    let mut mcts = Mcts::<Awale>::new(MctsOptions::uct());
    mcts.search(
        &root,
        &ConstantEvaluator(0.0),
        &Budget::iterations(2_000),
        &mut rng(11),
    );
    let children = mcts.root_children();
    let (first, second) = (children[0].action, 0);
    let mut next = root.clone();
    next.play(first);
    next.play(second);
    // Every visited state's mean before advancing, by position.
    let mut before = Vec::new();
    mcts.tree_values(&mut before);
    mcts.advance(&[first, second]);
    let kept = mcts.root_children().iter().map(|c| c.visits).sum::<u32>();
    assert!(kept > 0, "the grandchild's statistics survive");
    // The kept children are the grandchild's, with the means they had (not another subtree's).
    for child in mcts.root_children().iter().filter(|c| c.visits > 0) {
        let mut position = next.clone();
        position.play(child.action);
        let recorded: Vec<f32> = before
            .iter()
            .filter(|(p, _)| p.hash() == position.hash() && p.ply() == position.ply())
            .map(|(_, mean)| *mean)
            .collect();
        assert!(
            recorded.contains(&child.mean_value_p0),
            "{recorded:?} vs {child:?}"
        );
    }
    mcts.search(
        &next,
        &ConstantEvaluator(0.0),
        &Budget::iterations(100),
        &mut rng(12),
    );
    assert_eq!(
        mcts.root_children().iter().map(|c| c.visits).sum::<u32>(),
        kept + 100
    );
}

/// Plays a game between two move functions; returns the outcome.
fn play_game<G: Game>(
    initial: &G,
    mut p0: impl FnMut(&G) -> Action,
    mut p1: impl FnMut(&G) -> Action,
) -> Outcome {
    let mut position = initial.clone();
    while !position.is_terminal() {
        let a = if position.to_move() == Player::P0 {
            p0(&position)
        } else {
            p1(&position)
        };
        position.play(a);
    }
    position.outcome().unwrap()
}

/// Score of A against B over `games` games (A is P0 in half of them), wins + draws / 2.
fn match_score<G: Game>(
    initial: &G,
    games: u64,
    agent_a: impl Fn(&G, u64) -> Action + Sync,
    agent_b: impl Fn(&G, u64) -> Action + Sync,
) -> f64 {
    let points: f64 = (0..games)
        .into_par_iter()
        .map(|g| {
            let a_is_p0 = g % 2 == 0;
            let outcome = if a_is_p0 {
                play_game(initial, |p| agent_a(p, g), |p| agent_b(p, g))
            } else {
                play_game(initial, |p| agent_b(p, g), |p| agent_a(p, g))
            };
            let a = if a_is_p0 { Player::P0 } else { Player::P1 };
            match outcome.winner() {
                Some(w) if w == a => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            }
        })
        .sum();
    points / games as f64
}

fn mcts_agent(options: MctsOptions, simulations: u64) -> impl Fn(&Awale, u64) -> Action + Sync {
    move |p: &Awale, game: u64| {
        let mut mcts = Mcts::<Awale>::new(options);
        let mut r = rng(game * 1_000 + p.ply() as u64);
        mcts.search(
            p,
            &ConstantEvaluator(0.0),
            &Budget::iterations(simulations),
            &mut r,
        );
        mcts.decide(&mut r).unwrap()
    }
}

fn random_agent(p: &Awale, game: u64) -> Action {
    let mut actions = Vec::new();
    p.legal_actions(&mut actions);
    actions[rng(game * 7_919 + p.ply() as u64).random_range(0..actions.len())]
}

#[test]
fn on_awale_uct_beats_plain_mcts_which_beats_random() {
    let initial = Awale::new(&AwaleParams::default());
    let mcts_vs_random = match_score(
        &initial,
        100,
        mcts_agent(MctsOptions::plain(), 300),
        random_agent,
    );
    assert!(
        mcts_vs_random >= 0.95,
        "plain MCTS against random: {mcts_vs_random}"
    );
    let uct_vs_mcts = match_score(
        &initial,
        100,
        mcts_agent(MctsOptions::uct(), 300),
        mcts_agent(MctsOptions::plain(), 300),
    );
    assert!(
        uct_vs_mcts > 0.6,
        "UCT against plain MCTS at equal simulations: {uct_vs_mcts}"
    );
}

#[test]
fn greedy_takes_the_biggest_capture_and_epsilon_one_is_random() {
    use descent::search::greedy::greedy_move;
    use descent::search::{ScoreEvaluator, TerminalEval};
    // F (3 seeds) into a b c = 1 2 1 -> 2 3 2 takes 7 seeds; E (1 seed) into F takes nothing.
    let p = Awale::from_description(
        AwaleParams::default(),
        "0 0 0 0 1 3 / 1 2 1 4 0 0 ; 12 24 ; p0",
    )
    .unwrap();
    for seed in 0..20 {
        let a = greedy_move(
            &p,
            &ScoreEvaluator::default(),
            &TerminalEval::Classic,
            0.0,
            &mut rng(seed),
        );
        assert_eq!(a, Some(5));
    }
    let mut seen = [false; 6];
    for seed in 0..200 {
        let a = greedy_move(
            &p,
            &ScoreEvaluator::default(),
            &TerminalEval::Classic,
            1.0,
            &mut rng(seed),
        )
        .unwrap();
        seen[a as usize] = true;
    }
    assert_eq!(
        seen,
        [false, false, false, false, true, true],
        "ε = 1 plays every legal move"
    );
    // A winning terminal move beats any heuristic value.
    let p = after::<TicTacToe>("a1 a2 b1 b2");
    let a = greedy_move(
        &p,
        &ScoreEvaluator::default(),
        &TerminalEval::Classic,
        0.0,
        &mut rng(0),
    );
    assert_eq!(a, p.parse_legal_move("c1").ok());
}

#[test]
fn heavy_playouts_and_evaluator_leaves_play_legal_strong_moves() {
    use descent::search::{LeafValue, ScoreEvaluator};
    let initial = Awale::new(&AwaleParams::default());
    let heavy = MctsOptions {
        leaf: LeafValue::HeavyPlayout,
        ..MctsOptions::uct()
    };
    let score = match_score(&initial, 20, mcts_agent(heavy, 100), random_agent);
    assert!(
        score >= 0.95,
        "UCT with heavy playouts against random: {score}"
    );
    // Evaluator leaves (remark 3): the score evaluator, no playout.
    let leaf = MctsOptions {
        leaf: LeafValue::Evaluator,
        ..MctsOptions::uct()
    };
    let agent = move |p: &Awale, game: u64| {
        let mut mcts = Mcts::<Awale>::new(leaf);
        let mut r = rng(game * 31 + p.ply() as u64);
        let stats = mcts.search(
            p,
            &ScoreEvaluator::default(),
            &Budget::iterations(200),
            &mut r,
        );
        // Each simulation ends on the evaluator or on a terminal state, never on a playout.
        assert_eq!(stats.evaluator_calls + stats.terminal_visits, 200);
        mcts.decide(&mut r).unwrap()
    };
    let score = match_score(&initial, 20, agent, random_agent);
    assert!(
        score >= 0.9,
        "UCT with score leaves against random: {score}"
    );
}

#[test]
fn descent_ends_every_iteration_where_positions_recur() {
    // Without the repetition rule an Awale position can recur; iterations still end (the ply cap
    // ends every game) and the search runs its budget.
    let spec: descent::games::GameSpec = "awale(repetition=false,max_plies=200)".parse().unwrap();
    let descent::games::GameSpec::Awale(params) = spec else {
        unreachable!()
    };
    let root = Awale::new(&params);
    let (mut search, mut table) = tree_search::<Awale>(Variant::Descent);
    let stats = search.search(
        &mut table,
        &root,
        &RandomEvaluator::new(1),
        &Budget::iterations(2_000),
        &mut rng(1),
    );
    assert_eq!(stats.iterations, 2_000);
    assert!(stats.max_depth <= 200);
    let plain = TreeSearchOptions {
        completed: false,
        ..TreeSearchOptions::descent()
    };
    let mut search = TreeSearch::new(plain);
    let mut table = Table::new(false);
    let stats = search.search(
        &mut table,
        &root,
        &RandomEvaluator::new(1),
        &Budget::iterations(500),
        &mut rng(1),
    );
    assert_eq!(
        stats.iterations, 500,
        "plain Descent has no resolution stop"
    );
}

/// Descent with a depth or mobility heuristic: every terminal child's edge carries f_t of that
/// child, reached by its own path — two paths to the same final board (every terminal Awale board
/// is empty) keep their own values.
#[test]
fn terminal_values_follow_their_own_path_on_awale() {
    use descent::search::TerminalEval;
    let root = Awale::new(&AwaleParams::default());
    for terminal_eval in [
        TerminalEval::AdditiveDepth {
            max_length: 300.0,
            estimated: true,
        },
        TerminalEval::Mobility,
    ] {
        let mut search = TreeSearch::<Awale>::new(TreeSearchOptions {
            terminal_eval,
            ..TreeSearchOptions::descent()
        });
        let mut table = Table::new(true);
        search.search(
            &mut table,
            &root,
            &RandomEvaluator::new(5),
            &Budget::iterations(2_000),
            &mut rng(5),
        );
        let mut checked = 0;
        let mut by_board: HashMap<u64, Vec<(usize, f32)>> = HashMap::new();
        for (position, value_p0) in table.learning_pairs() {
            if position.is_terminal() {
                assert_eq!(value_p0, terminal_eval.value_p0(position), "{position}");
                by_board
                    .entry(position.hash())
                    .or_default()
                    .push((position.ply(), value_p0));
                continue;
            }
            for edge in table.children_of(position).unwrap() {
                let mut child = position.clone();
                child.play(edge.action);
                if child.is_terminal() {
                    assert_eq!(
                        edge.value_p0,
                        terminal_eval.value_p0(&child),
                        "{terminal_eval}: the edge to a terminal child at ply {}",
                        child.ply()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "{checked} terminal edges");
        // The same final board and scores at different plies: different depth values.
        if let TerminalEval::AdditiveDepth { .. } = terminal_eval {
            let shared = by_board
                .values()
                .filter(|entries| {
                    entries
                        .iter()
                        .any(|a| entries.iter().any(|b| a.0 != b.0 && a.1 != b.1))
                })
                .count();
            assert!(shared > 0, "no final board reached at two plies");
        }
    }
}

#[test]
fn descent_with_additive_depth_takes_the_faster_of_two_wins() {
    use descent::search::TerminalEval;
    // x (P0) to move can win at once (c1) or later; every win is worth +1 with the classic
    // gain, and P − ply + 1 with additive depth.
    let position = after::<TicTacToe>("a1 a2 b1 c3");
    for seed in 0..5 {
        let mut search = TreeSearch::<TicTacToe>::new(TreeSearchOptions {
            terminal_eval: TerminalEval::AdditiveDepth {
                max_length: 9.0,
                estimated: false,
            },
            ..TreeSearchOptions::descent()
        });
        let mut table = Table::new(true);
        search.search(
            &mut table,
            &position,
            &ConstantEvaluator(0.0),
            &Budget::iterations(300),
            &mut rng(seed),
        );
        let action = search
            .decide(&table, &position, Decision::Best, &mut rng(seed))
            .unwrap();
        assert_eq!(
            TicTacToe::action_to_text(Player::P0, action),
            "c1",
            "seed {seed}"
        );
    }
}

/// A network that diverged answers NaN: every search still plays legal moves to the end of a
/// game (it used to panic on an empty range of tied moves in greedy and MCTS).
#[test]
fn every_search_plays_legal_moves_on_nan_values() {
    use descent::search::{KeepForLearning, SearchSpec, TerminalEval};
    let specs = [
        "greedy",
        "minimax1",
        "mcts:iters=200",
        "mcts:iters=200,final=mean",
        "alphabeta:depth=3",
        "descent:iters=200",
        "ubfm:iters=200",
        "ubfms:iters=200",
    ];
    for text in specs {
        let spec = SearchSpec::parse(text, true).unwrap();
        let keep = KeepForLearning {
            terminal_states: false,
            positions: false,
        };
        let mut searcher = spec.build::<ConnectFour>(TerminalEval::Classic, keep);
        let budget = spec.budget().unwrap_or(Budget::iterations(1));
        let mut position = ConnectFour::initial();
        let mut r = rng(11);
        while !position.is_terminal() {
            searcher.search(&position, &ConstantEvaluator(f32::NAN), &budget, &mut r);
            let action = searcher.decide(&position, &mut r);
            let action = action.unwrap_or_else(|| panic!("{text}: no move"));
            assert!(position.is_legal(action), "{text}: {action}");
            position.play(action);
        }
    }
}
