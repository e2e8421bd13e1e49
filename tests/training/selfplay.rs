//! The self-play layer through the library: what each learning target yields from a real
//! game, and every training option reachable from YAML running end to end.

use descent::games::{Game, TicTacToe};
use descent::learn::Targets;
use descent::search::table::key_of;
use descent::search::{Budget, ConstantEvaluator, RandomEvaluator, SearchSpec};
use descent::selfplay::recipes::athenan::self_play::{SelfPlaySettings, SelfPlayer};
use descent::selfplay::run::run_progress::RunProgress;
use descent::selfplay::{RunDir, SilentObserver, TrainConfig, train};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

fn settings(targets: Targets) -> SelfPlaySettings {
    SelfPlaySettings {
        targets,
        ..SelfPlaySettings::plain(SearchSpec::parse("descent:iters=30", true).unwrap())
    }
}

#[test]
fn tree_learning_yields_exactly_the_tables_states_with_their_values() {
    let initial = TicTacToe::new(&Default::default());
    let mut player = SelfPlayer::<TicTacToe>::new(settings(Targets::Tree));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let game = player.play(
        &initial,
        &RandomEvaluator { seed: 3 },
        &RunProgress::fixed(0.0),
        &mut rng,
    );
    let table = player.table().expect("Descent keeps a table");
    assert_eq!(game.pairs.len(), table.len(), "one pair per state of S");
    let mut keys: Vec<u64> = game.pairs.iter().map(|(p, _)| key_of(p)).collect();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), table.len(), "no state twice");
    for (position, value) in &game.pairs {
        let node = table
            .get(key_of(position))
            .expect("a learned state is in S");
        assert_eq!(node.value_p0, *value);
        if position.is_terminal() {
            assert_eq!(*value, position.outcome().unwrap().value_p0());
        }
    }
    // Leaves evaluated by the network but never expanded are not learned: S is smaller than
    // the set of positions the search evaluated.
    assert!((table.len() as u64) < game.search.evaluated_positions + game.search.terminal_visits);
}

#[test]
fn root_and_terminal_learning_yield_the_played_positions_and_the_final_one() {
    let initial = TicTacToe::new(&Default::default());
    for targets in [Targets::Root, Targets::Terminal] {
        let mut player = SelfPlayer::<TicTacToe>::new(settings(targets));
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let game = player.play(
            &initial,
            &ConstantEvaluator(0.0),
            &RunProgress::fixed(0.0),
            &mut rng,
        );
        assert_eq!(
            game.pairs.len(),
            game.moves.len() + 1,
            "{targets:?}: one pair per move and the final position (Algorithms 4-5)"
        );
        let mut position = initial;
        for ((learned, value), &action) in game.pairs.iter().zip(&game.moves) {
            assert_eq!(
                learned.hash(),
                position.hash(),
                "{targets:?}: the played positions"
            );
            if targets == Targets::Terminal {
                assert_eq!(*value, game.final_value_p0);
            } else {
                assert!((-1.0..=1.0).contains(value));
            }
            position.play(action);
        }
        assert_eq!(position.outcome(), Some(game.outcome));
        let (last, value) = game.pairs.last().unwrap();
        assert_eq!(
            last.hash(),
            position.hash(),
            "{targets:?}: the final position"
        );
        assert!(last.is_terminal());
        assert_eq!(*value, game.final_value_p0);
    }
}

/// Trains `games` games of tic-tac-toe with the YAML `extra` on top of a small base.
fn run(extra: &str, games: u64) -> Vec<serde_json::Value> {
    run_on_threads(extra, games, 1)
}

fn run_on_threads(extra: &str, games: u64, threads: usize) -> Vec<serde_json::Value> {
    let text = format!(
        "game: tic_tac_toe\nseed: 3\nrun:\n  max_games: {games}\n  threads: {threads}\ncheckpoint:\n  every_games: 2\n{}",
        crate::common::without_end_evaluation(extra)
    );
    let config = TrainConfig::from_yaml(&text).unwrap_or_else(|e| panic!("{text}\n{e}"));
    let settings = config.validate().unwrap_or_else(|e| panic!("{text}\n{e}"));
    let tmp = tempfile::tempdir().unwrap();
    let dir = RunDir::create(&tmp.path().join("run"), &config.to_yaml()).unwrap();
    let summary = train(&settings, &dir, false, &mut SilentObserver).unwrap();
    assert_eq!(summary.total_games, games);
    std::fs::read_to_string(dir.metrics_path())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn of_kind<'a>(lines: &'a [serde_json::Value], kind: &str) -> Vec<&'a serde_json::Value> {
    lines.iter().filter(|l| l["kind"] == kind).collect()
}

#[test]
fn mcts_with_root_learning_softmax_experience_replay_and_evaluation() {
    let lines = run(
        "search:\n  algorithm: mcts\n  iters: 50\n  c: 1.0\nlearning:\n  targets: root\n  augment_symmetries: none\nselection:\n  distribution: softmax\n  temperature: 0.3\nreplay:\n  kind: experience\n  pairs: 12\n  fraction: 0.5\n  batch_size: 4\nevaluation:\n  every_games: 2\n  games: 4\n  opponent: random\n  iterations_per_move: 10\n",
        4,
    );
    for g in of_kind(&lines, "game") {
        assert_eq!(
            g["pairs_added"].as_u64().unwrap(),
            g["plies"].as_u64().unwrap() + 1,
            "root learning: one pair per move and the final position"
        );
        assert!(g["replay_pairs"].as_u64().unwrap() <= 12);
        // Once more than σμ = 6 pairs are held, 6 are learned.
        if g["replay_pairs"].as_u64().unwrap() > 6 {
            assert_eq!(g["pairs_learned"], 6);
        }
    }
    let evals = of_kind(&lines, "evaluation");
    assert_eq!(evals.len(), 2);
    for e in evals {
        let total = e["wins"].as_u64().unwrap()
            + e["draws"].as_u64().unwrap()
            + e["losses"].as_u64().unwrap();
        assert_eq!(total, 4);
    }
}

#[test]
fn alphabeta_with_terminal_learning_epsilon_greedy_and_no_replay() {
    let lines = run(
        "search:\n  algorithm: alphabeta\n  iters: 200\n  depth: 3\nlearning:\n  targets: terminal\n  terminal_eval: additive-depth\n  augment_symmetries: none\nselection:\n  distribution: epsilon-greedy\n  exploitation: 0.9\nreplay:\n  kind: none\n",
        3,
    );
    for g in of_kind(&lines, "game") {
        let plies = g["plies"].as_u64().unwrap();
        assert_eq!(g["pairs_added"].as_u64().unwrap(), plies + 1);
        assert_eq!(
            g["pairs_learned"].as_u64().unwrap(),
            plies + 1,
            "no replay: the game's pairs once"
        );
        assert_eq!(g["replay_games"], 1);
        // Additive depth with the estimate P̃ = 9 (the longest random tic-tac-toe game): a win
        // at ply p is worth max(1, P̃ − p) (section 6.2.2's form for an estimate).
        let result = g["result_p0"].as_f64().unwrap();
        let value = g["final_value_p0"].as_f64().unwrap();
        let plies = g["plies"].as_f64().unwrap();
        if result != 0.0 {
            assert_eq!(value, result * (9.0 - plies).max(1.0));
        }
    }
}

#[test]
fn ubfm_with_heuristics_augmentation_pretraining_kept_resolved_states_and_two_threads() {
    let lines = run_on_threads(
        "search:\n  algorithm: ubfm\n  iters: 40\nlearning:\n  terminal_eval: multiplicative-depth\n  augment_symmetries: true\n  pretrain_terminal_states: 50\n  pretrain_epochs: 2\nselection:\n  exploitation: uniform\nreplay:\n  kind: experience\n  games: 2\nresolved_states:\n  keep: true\n  reset_every: 1h\n",
        4,
        2,
    );
    let pretrain = of_kind(&lines, "pretrain");
    assert_eq!(pretrain.len(), 1);
    assert_eq!(pretrain[0]["pairs"], 50);
    for g in of_kind(&lines, "game") {
        // Augmentation: every pair comes with its 7 images.
        assert_eq!(g["pairs_added"].as_u64().unwrap() % 8, 0);
    }
    let games: Vec<u64> = of_kind(&lines, "game")
        .iter()
        .map(|g| g["game"].as_u64().unwrap())
        .collect();
    assert_eq!(games, vec![1, 2, 3, 4]);
    for (heuristic, more) in [("mobility", ""), ("presence", ""), ("score", "")] {
        let yaml = format!("search:\n  iters: 10\nlearning:\n  terminal_eval: {heuristic}\n{more}");
        if heuristic == "score" {
            // Tic-tac-toe has no score: refused with the key named.
            let config = TrainConfig::from_yaml(&format!("game: tic_tac_toe\n{yaml}")).unwrap();
            let settings = config.validate().unwrap();
            let tmp = tempfile::tempdir().unwrap();
            let dir = RunDir::create(&tmp.path().join("run"), &config.to_yaml()).unwrap();
            let err = train(&settings, &dir, false, &mut SilentObserver).unwrap_err();
            assert!(err.to_string().contains("learning.terminal_eval"), "{err}");
        } else {
            assert_eq!(of_kind(&run(&yaml, 1), "game").len(), 1);
        }
    }
}

#[test]
fn kept_resolved_states_spare_the_search_and_are_not_learned_again() {
    use descent::search::{Table, TreeSearch, TreeSearchOptions};
    let initial = TicTacToe::new(&Default::default());
    let mut table = Table::new(true);
    let mut search = TreeSearch::<TicTacToe>::new(TreeSearchOptions::descent());
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
    let evaluator = ConstantEvaluator(0.0);
    search.search(
        &mut table,
        &initial,
        &evaluator,
        &Budget::iterations(100_000),
        &mut rng,
    );
    let root = *table.get(key_of(&initial)).unwrap();
    assert!(
        root.resolved && root.completion == 0,
        "tic-tac-toe is a proven draw"
    );
    let resolved = table.nodes().filter(|(_, n)| n.resolved).count();
    assert!(resolved < table.len());
    table.retain_resolved();
    assert_eq!(table.len(), resolved);
    assert!(table.nodes().all(|(_, n)| n.resolved));
    assert_eq!(
        table.learning_pairs().count(),
        0,
        "kept states are not learned again"
    );
    // The root is still proven with its children: a new search does nothing.
    assert_eq!(table.children_of(&initial).unwrap().len(), 9);
    let again = search.search(
        &mut table,
        &initial,
        &evaluator,
        &Budget::iterations(10),
        &mut rng,
    );
    assert_eq!(again.iterations, 0);
}

#[test]
fn additive_depth_estimates_the_longest_game_and_a_resume_keeps_the_estimate() {
    use descent::search::TerminalEval;
    use descent::value::saved_net::read_manifest;
    let tmp = tempfile::tempdir().unwrap();
    let text = "game: awale\nseed: 3\nnetwork:\n  architecture: resnet-b0c8-fc16\nsearch:\n  iters: 8\nlearning:\n  terminal_eval: additive-depth\nreplay:\n  games: 2\n  duplication: 1\ncheckpoint:\n  every_games: 1\nevaluation:\n  at_end: false\n";
    let trained = |games: u64, resume: bool| {
        let mut config = TrainConfig::from_yaml(text).unwrap();
        config.run.max_games = Some(games);
        let settings = config.validate().unwrap();
        let path = tmp.path().join("run");
        let dir = if resume {
            RunDir::open_for_writing(&path).unwrap()
        } else {
            RunDir::create(&path, &config.to_yaml()).unwrap()
        };
        train(&settings, &dir, resume, &mut SilentObserver).unwrap();
        read_manifest(&path.join("latest/net"))
            .unwrap()
            .terminal_eval
    };
    let Some(TerminalEval::AdditiveDepth {
        max_length,
        estimated: true,
    }) = trained(1, false)
    else {
        panic!("an estimated additive depth expected");
    };
    // The longest of 1000 random Awale games, not the 1 000-ply cap.
    assert!((200.0..700.0).contains(&max_length), "{max_length}");
    assert_eq!(
        trained(2, true),
        Some(TerminalEval::AdditiveDepth {
            max_length,
            estimated: true
        }),
        "a resume keeps the run's estimate"
    );
    let sessions: Vec<String> = std::fs::read_to_string(tmp.path().join("run/metrics.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|l| l["kind"] == "session")
        .map(|l| l["terminal_eval"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(sessions.len(), 2);
    assert!(
        sessions
            .iter()
            .all(|s| *s == format!("additive-depth(estimated max_length={max_length})"))
    );
}

#[test]
fn mcts_and_alphabeta_learn_their_trees() {
    // Tree learning (the default targets) is accepted with both searches (paper §3.4, §4.2).
    for text in [
        "game: tic_tac_toe\nsearch:\n  algorithm: mcts\n",
        "game: tic_tac_toe\nsearch:\n  algorithm: alphabeta\nselection:\n  distribution: epsilon-greedy\n",
    ] {
        let settings = TrainConfig::from_yaml(text).unwrap().validate().unwrap();
        assert_eq!(
            settings.athenan().unwrap().learning.targets,
            Targets::Tree,
            "{text}"
        );
    }
    for name in ["mcts:iters=60,c=0.7", "alphabeta:iters=60,depth=3"] {
        let mut player = SelfPlayer::<TicTacToe>::new(SelfPlaySettings {
            search: SearchSpec::parse(name, true).unwrap(),
            ..settings(Targets::Tree)
        });
        let initial = TicTacToe::new(&Default::default());
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let game = player.play(
            &initial,
            &RandomEvaluator { seed: 9 },
            &RunProgress::fixed(0.0),
            &mut rng,
        );
        // More states than moves, each once, with values on the classic scale.
        assert!(
            game.pairs.len() > game.moves.len(),
            "{name}: {}",
            game.pairs.len()
        );
        let mut keys: Vec<u64> = game.pairs.iter().map(|(p, _)| key_of(p)).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), game.pairs.len(), "{name}: a state twice");
        assert!(
            game.pairs.iter().all(|(_, v)| (-1.0..=1.0).contains(v)),
            "{name}"
        );
        // The first search's root is the initial position.
        assert_eq!(game.pairs[0].0.hash(), initial.hash(), "{name}");
    }
}
