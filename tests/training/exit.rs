//! `recipe: exit` through `descent train`'s library entry: the warm start and the expert
//! phases counted as Algorithm 15 says, the value switched on at `exit.value_from` and kept on
//! after a resume with a larger budget, checkpoints without Adam (each phase trains a fresh
//! network), evaluations playing the expert, and the network playing as an `exit:` agent from
//! the run and from its export with the checkpoint's values and policy logits.

use super::alphazero::train_new_run;
use descent::selfplay::{RunDir, SilentObserver, train};

const YAML: &str = "game: tic_tac_toe\nrecipe: exit\nnetwork: {architecture: resnet-b0c8-fc16}\n\
    exit: {expert_iterations: 40, warm_start_games: 8, games_per_phase: 8, batch_size: 16, \
    patience: 2, max_epochs: 4, value_from: 0.5}\n\
    run: {max_games: 32}\ncheckpoint: {every_games: 8, keep_nets: true}\n\
    evaluation: {every_games: 16, games: 2, iterations_per_move: 20}\n";

fn json_lines(root: &std::path::Path, kind: &str) -> Vec<serde_json::Value> {
    let metrics = std::fs::read_to_string(root.join("metrics.jsonl")).unwrap();
    metrics
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["kind"] == kind)
        .collect()
}

#[test]
fn an_exit_run_warm_starts_switches_the_value_on_resumes_and_plays_as_an_agent() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("run");
    let (config, summary) = train_new_run(YAML, &root);
    assert_eq!(summary.unwrap().total_games, 32);
    let rounds = json_lines(&root, "exit_round");
    assert_eq!(rounds.len(), 4, "8 games a phase, 32 games");
    // The warm start learns every position of its 8 games (5 to 9 plies each); each expert
    // phase one position per game.
    let positions: Vec<u64> = rounds
        .iter()
        .map(|r| r["positions"].as_u64().unwrap())
        .collect();
    assert!((40..=72).contains(&positions[0]), "{positions:?}");
    assert_eq!(&positions[1..], &[8, 8, 8]);
    // The value joins once half the budget (16 of 32 games) is spent: rounds 3 and 4.
    let value: Vec<bool> = rounds
        .iter()
        .map(|r| r["value_learned"].as_bool().unwrap())
        .collect();
    assert_eq!(value, [false, false, true, true]);
    assert_eq!(rounds[1]["value_loss"].as_f64(), Some(0.0));
    assert!(
        rounds[3]["value_loss"].as_f64().unwrap() > 0.0,
        "{:?}",
        rounds[3]
    );
    // Evaluations play the expert, its value weight once the value is on.
    let evals = json_lines(&root, "evaluation");
    assert_eq!(evals.len(), 2, "every 16 games");
    let players: Vec<&str> = evals
        .iter()
        .map(|e| e["player"].as_str().unwrap())
        .collect();
    assert!(
        players[0].starts_with("exit:") && players[0].ends_with("w_v=0"),
        "{players:?}"
    );
    assert!(players[1].ends_with("w_v=0.75"), "{players:?}");
    assert!(!root.join("latest").join("optimizer.bpk").exists());
    the_kept_nets_say_whether_their_value_was_trained(&root);

    // A resume with four times the budget: the value stays on though 32 / 128 < value_from.
    let mut settings = config.validate().unwrap();
    settings.run.max_games = Some(128);
    let run_dir = RunDir::open_for_writing(&root).unwrap();
    let summary = train(&settings, &run_dir, true, &mut SilentObserver).unwrap();
    assert_eq!((summary.games_this_session, summary.total_games), (96, 128));
    drop(run_dir);
    let rounds = json_lines(&root, "exit_round");
    assert_eq!(rounds.len(), 16);
    assert!(
        rounds[4..].iter().all(|r| r["value_learned"] == true),
        "{rounds:?}"
    );

    super::alphazero::assert_the_agent_plays_the_checkpoints_net(
        &root,
        dir.path(),
        "exit:iters=50",
    );
}

/// A run without a budget cannot place `exit.value_from`: refused before anything is written.
#[test]
fn an_exit_run_without_a_budget_is_refused() {
    let yaml = YAML.replace("run: {max_games: 32}\n", "");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("run");
    let error = train_new_run(&yaml, &root).1.unwrap_err().to_string();
    assert!(error.contains("run.max_time or run.max_games"), "{error}");
    assert!(!root.join("metrics.jsonl").exists());
}

/// The networks kept at 8 and 16 games (the value off) say their value head was not trained and
/// play the expert with w_v = 0 whatever the agent asks, as the run's own evaluations did; those
/// of 24 and 32 games (the value on) play the w_v asked for.
fn the_kept_nets_say_whether_their_value_was_trained(root: &std::path::Path) {
    use descent::arena::AgentFactory;
    use descent::games::TicTacToe;
    use descent::search::{SearchSpec, TreePolicy};
    use descent::value::NetDevice;
    let run_dir = RunDir::open(root).unwrap();
    let kept = run_dir.kept_nets().unwrap();
    let games: Vec<u64> = kept.iter().map(|(g, _)| *g).collect();
    assert_eq!(games, [8, 16, 24, 32]);
    for (games, base) in kept {
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(base.with_extension("json")).unwrap())
                .unwrap();
        let trained = games > 16;
        assert_eq!(manifest["value_head_trained"], trained, "{games} games");
        let spec = format!("exit:model={},iters=20,w_v=0.75", base.display())
            .parse()
            .unwrap();
        let agent = AgentFactory::<TicTacToe>::new(spec, "tic_tac_toe", &NetDevice::cpu()).unwrap();
        let SearchSpec::Mcts { options, .. } = &agent.spec.search else {
            panic!("{:?}", agent.spec.search)
        };
        let TreePolicy::Exit { w_v, .. } = options.tree_policy else {
            panic!("{options:?}")
        };
        assert_eq!(w_v, if trained { 0.75 } else { 0.0 }, "{games} games");
        assert_eq!(
            agent
                .model_origin
                .ends_with("(value head untrained: w_v = 0)"),
            !trained
        );
    }
}
