//! The configurations that say they are the paper's protocol parse to the paper's settings
//! (section 3.3.1, Algorithms 2 and 7; section 8.3 for Athénan's long runs).

use std::path::Path;

use descent::experiment::ExperimentConfig;
use descent::learn::replay::{Capacity, ReplayPolicy};
use descent::learn::selection::{Distribution, Exploitation};
use descent::search::SearchSpec;
use descent::search::mcts::TreePolicy;
use descent::selfplay::config::TerminalEvalName;
use descent::selfplay::{TrainConfig, TrainSettings};

const CONFIGS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs");

fn read(name: &str) -> String {
    std::fs::read_to_string(Path::new(CONFIGS).join(name)).unwrap()
}

/// Section 3.3.1's protocol: ε-greedy with simulated annealing (Algorithm 2), no completion,
/// the classic gain, experience replay of 10^6 pairs at σ = 4 %, B = 128, L2 λ = 0.001.
fn assert_section_3_3_1(run: &TrainSettings, what: &str) {
    let settings = run.athenan().expect("an athenan run");
    let selection = settings.selection;
    assert_eq!(
        selection.distribution,
        Distribution::EpsilonGreedy,
        "{what}"
    );
    assert_eq!(selection.exploitation, Exploitation::Annealed, "{what}");
    assert!(!selection.completed, "{what}: completed selection");
    assert_eq!(run.adam.l2, 0.001, "{what}: L2");
    assert_eq!(run.adam.learning_rate, 0.001, "{what}: learning rate");
    assert_eq!(settings.replay.batch_size, 128, "{what}: B");
    assert_eq!(
        settings.replay.policy,
        ReplayPolicy::Experience {
            capacity: Capacity::Pairs(1_000_000),
            fraction: 0.04
        },
        "{what}: replay"
    );
    assert_eq!(
        settings.learning.terminal_eval,
        TerminalEvalName::Classic,
        "{what}"
    );
    match &settings.search {
        SearchSpec::TreeSearch { completed, .. } => assert!(!completed, "{what}: completed"),
        SearchSpec::Mcts { options, .. } => {
            assert_eq!(options.tree_policy, TreePolicy::Uct { c: 0.4 }, "{what}")
        }
        SearchSpec::AlphaBeta { .. } => {}
        other => panic!("{what}: {other:?}"),
    }
}

#[test]
fn the_table3_presets_follow_the_protocol_of_section_3_3_1() {
    for name in [
        "experiment-table3-connect_four.yaml",
        "experiment-table3-awale.yaml",
    ] {
        let config = ExperimentConfig::from_yaml(&read(name)).unwrap();
        let plan = config.plan("x", 2, &|base| Ok(read(base))).unwrap();
        assert_eq!(plan.variants.len(), 6, "{name}: Table 3's six combinations");
        for variant in &plan.variants {
            for settings in &variant.settings {
                assert_section_3_3_1(settings, &format!("{name} {}", variant.name));
            }
        }
    }
}

#[test]
fn the_protocol_configuration_is_section_3_3_1s() {
    let config = TrainConfig::from_yaml(&read("paper-3.3.1-protocol.yaml")).unwrap();
    assert_section_3_3_1(&config.validate().unwrap(), "paper-3.3.1-protocol.yaml");
}

/// §8.3 learns no symmetric image, and Athénan's pre-training and learning in the §8 presets
/// are sized to a 15-minute run: pre-training within its 3 % share, without images.
#[test]
fn the_section_8_presets_learn_no_symmetric_image() {
    use descent::learn::augment::Augmentation;
    for game in ["connect_four", "othello", "breakthrough"] {
        let name = format!("experiment-paper-8-{game}.yaml");
        let config = ExperimentConfig::from_yaml(&read(&name)).unwrap();
        let plan = config.plan("x", 1, &|base| Ok(read(base))).unwrap();
        let athenan = plan
            .variants
            .iter()
            .find(|v| v.name == "athenan")
            .unwrap_or_else(|| panic!("{name}: an athenan variant"));
        for variant in &plan.variants {
            let recipe = &variant.settings[0].recipe;
            let what = format!("{name} {}", variant.name);
            assert_eq!(recipe.augmentation(), Augmentation::None, "{what}");
        }
        let learning = athenan.settings[0].athenan().unwrap().learning;
        assert_eq!(
            learning.pretrain_augment_symmetries,
            Augmentation::None,
            "{name}"
        );
        assert_eq!(learning.pretrain_time_share, Some(0.03), "{name}");
        assert_eq!(
            learning.rows_per_evaluation,
            Some(0.12),
            "{name}: the learning rule"
        );
    }
}

/// The two-core race: every recipe of the §8 race and Athénan with its heuristic as a row of its
/// own, one run at a time on two cores, each using both as its recipe does best (Athénan's
/// player beside its learner, two players or two expert threads otherwise), no symmetric
/// image, and the heuristic row differing from §8.3's Athénan by its gain alone.
#[test]
fn the_two_core_race_presets_give_every_recipe_both_cores() {
    use descent::learn::augment::Augmentation;
    use descent::selfplay::config::RunMode;
    let heuristics = [
        ("connect_four", TerminalEvalName::AdditiveDepth),
        ("othello", TerminalEvalName::Score),
        ("breakthrough", TerminalEvalName::AdditiveDepth),
    ];
    for (game, heuristic) in heuristics {
        let name = format!("experiment-race-{game}.yaml");
        let config = ExperimentConfig::from_yaml(&read(&name)).unwrap();
        let plan = config.plan("x", 2, &|base| Ok(read(base))).unwrap();
        let names: Vec<&str> = plan.variants.iter().map(|v| v.name.as_str()).collect();
        let expected = [
            "athenan",
            "athenan-heuristic",
            "alphazero",
            "gumbel",
            "exit",
        ];
        assert_eq!(names, expected, "{name}");
        assert!(plan.repeats >= 4 && plan.parallel_runs == 1, "{name}");
        assert_eq!(plan.train_time.as_secs(), 15 * 60, "{name}");
        for variant in &plan.variants {
            let settings = &variant.settings[0];
            let what = format!("{name} {}", variant.name);
            assert_eq!(settings.recipe.augmentation(), Augmentation::None, "{what}");
            let (threads, mode) = (settings.run.threads, settings.run.mode);
            if settings.athenan().is_some() {
                assert_eq!((threads, mode), (1, RunMode::Parallel), "{what}");
            } else {
                assert_eq!(threads, 2, "{what}");
            }
        }
        let learning = |v: usize| plan.variants[v].settings[0].athenan().unwrap().learning;
        let (classic, with_heuristic) = (learning(0), learning(1));
        assert_eq!(classic.terminal_eval, TerminalEvalName::Classic, "{name}");
        assert_eq!(with_heuristic.terminal_eval, heuristic, "{name}");
        let same_otherwise = descent::selfplay::config::LearningSettings {
            terminal_eval: classic.terminal_eval,
            ..with_heuristic
        };
        assert_eq!(same_otherwise, classic, "{name}: the gain alone differs");
    }
}
