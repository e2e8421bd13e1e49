//! The networks that ship inside descent (`networks/`): each loads as `model=shipped` for its
//! game and gives the values of its file, plays through `engine`, and its card describes the
//! very file built in (its checksum, the games it was trained on, the commands of its figures).

use crate::common::engine::Engine;
use crate::common::{descent, stderr};

use burn::prelude::Device;
use descent::arena::ModelSource;
use descent::arena::model::load_model;
use descent::games::{ConnectFour, Game};
use descent::search::Evaluator;
use descent::value::checksum::sha256_hex;
use descent::value::exported_net::fnv1a64;
use descent::value::shipped_nets::{SHIPPED_NETS, shipped_net};
use descent::value::{NetDevice, NetEvaluator};

fn repository_file(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Values of a few Connect Four positions by the network of `source`.
fn connect_four_values(source: &ModelSource) -> Vec<f32> {
    let loaded = load_model::<ConnectFour>(source, "connect_four", &Device::flex())
        .unwrap_or_else(|e| panic!("{source:?}: {e:#}"));
    let evaluator =
        NetEvaluator::<ConnectFour>::new(loaded.net.into_value_net(), &NetDevice::cpu());
    let mut position = ConnectFour::new(&Default::default());
    let mut positions = vec![position];
    for column in [3, 3, 2, 4, 4, 1] {
        position.play(column);
        positions.push(position);
    }
    let mut values = vec![0.0; positions.len()];
    evaluator.evaluate(&positions, &mut values);
    values
}

#[test]
fn every_shipped_network_is_its_file_for_its_game_and_its_card_names_it() {
    assert!(!SHIPPED_NETS.is_empty());
    for shipped in SHIPPED_NETS {
        let file = std::fs::read(repository_file(shipped.file)).unwrap();
        assert_eq!(shipped.bytes, file.as_slice(), "{}", shipped.file);
        let manifest = shipped.manifest().unwrap();
        assert_eq!(manifest.net.game, shipped.game);
        let card_path = shipped.file.replace(".descent", ".md");
        let card = std::fs::read_to_string(repository_file(&card_path))
            .unwrap_or_else(|e| panic!("{card_path}: {e}"));
        let digest = sha256_hex(shipped.bytes);
        assert!(
            card.contains(&digest),
            "{card_path} names another file than {digest}"
        );
        let games = format!("{} self-play games", manifest.provenance.games);
        assert!(card.contains(&games), "{card_path} does not say {games:?}");
        // The training file beside it is the very configuration its run was trained with, and
        // the card names it.
        let config_path = shipped.file.replace(".descent", ".yaml");
        let config = std::fs::read(repository_file(&config_path)).unwrap();
        assert_eq!(
            format!("{:016x}", fnv1a64(&config)),
            manifest.provenance.config_fnv1a64,
            "{config_path} is not the configuration of {}",
            shipped.file
        );
        assert!(
            card.contains(&format!("descent train {config_path}")),
            "{card_path}"
        );
        // The command of its figures against outside players, with the network's own search:
        // PUCT for a policy-value network, UBFM_s for a value network, ExIt's expert for Go's.
        let search = match manifest.net.policy_actions {
            Some(_) => "puct",
            None => "ubfms",
        };
        let figures = match shipped.game {
            "connect_four" => {
                "descent accuracy connect_four --agent puct:time=100ms,model=shipped".to_string()
            }
            "go" => "AGENT=exit:model=shipped,time=1s LEVELS=1 scripts/gnugo_ladder.sh".to_string(),
            game => {
                format!("scripts/vs_openspiel_mcts.sh --game {game} --agent {search}:model=shipped")
            }
        };
        assert!(card.contains(&figures), "{card_path} lacks {figures:?}");
    }
    assert!(shipped_net("connect_four").is_some());
    assert!(shipped_net("othello").is_some());
    assert!(shipped_net("awale").is_some());
    assert!(shipped_net("breakthrough").is_some());
    assert!(shipped_net("hex").is_some());
    assert!(shipped_net("go").is_some());
    // Go's network plays the GNU Go ladder's rules of play; not another board.
    let ladder = shipped_net("go(superko=illegal,max_plies=1000,komi=7)");
    assert_eq!(ladder.map(|net| net.game), Some("go"));
    assert!(shipped_net("go(board_size=13)").is_none());
    assert!(shipped_net("tic_tac_toe").is_none());
}

#[test]
fn model_shipped_loads_the_built_in_network_and_refuses_games_without_one() {
    let shipped = connect_four_values(&ModelSource::Shipped);
    let from_file = connect_four_values(&ModelSource::Path(repository_file(
        "networks/connect_four.descent",
    )));
    assert_eq!(shipped, from_file);
    assert!(
        shipped.iter().all(|v| v.is_finite() && v.abs() <= 1.0),
        "{shipped:?}"
    );
    // Not a constant function: the positions differ in value.
    assert!(shipped.iter().any(|&v| v != shipped[0]), "{shipped:?}");

    // Every shipped network plays a legal move behind `engine` (the engine refuses an illegal
    // `play`, so the move it chose is played back to it in a second engine).
    for shipped in SHIPPED_NETS {
        let mut engine = Engine::start(&[
            "--game",
            shipped.game,
            "--agent",
            "puct:iters=30,model=shipped",
        ]);
        let reply = engine.ok("genmove p0");
        let chosen = reply.trim_start_matches('=').trim();
        let mut referee = Engine::start(&["--game", shipped.game, "--agent", "random"]);
        referee.ok(&format!("play p0 {chosen}"));
    }

    let out = descent(&[
        "eval",
        "--game",
        "tic_tac_toe",
        "--agent",
        "ubfms:iters=10,model=shipped",
        "--opponent",
        "random",
        "--games",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("no network ships for tic_tac_toe (they ship for connect_four, othello, awale, breakthrough, hex, go)"),
        "{}",
        stderr(&out)
    );
}

/// The keys named in the `file` row of networks/README.md's table of keys added since a run.
fn keys_named_added_since(readme: &str, file: &str) -> std::collections::BTreeSet<String> {
    let row = readme
        .lines()
        .find(|line| line.starts_with(&format!("| `{file}` |")));
    let Some(row) = row else {
        return Default::default();
    };
    let column = row.split('|').nth(2).unwrap_or_default();
    column
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn every_key_a_shipped_runs_file_lacks_is_named_with_what_its_run_did() {
    // A key added to descent after a network's run takes today's default when the run's file is
    // trained again: networks/README.md must name each one (and say what the run did instead).
    let readme = std::fs::read_to_string(repository_file("networks/README.md")).unwrap();
    for shipped in SHIPPED_NETS {
        let config_path = shipped.file.replace(".descent", ".yaml");
        let text = std::fs::read_to_string(repository_file(&config_path)).unwrap();
        let config = descent::selfplay::config::TrainConfig::from_yaml(&text)
            .unwrap_or_else(|e| panic!("{config_path}: {e}"));
        let lacking: std::collections::BTreeSet<String> = config
            .keys_not_named_in(&text)
            .into_iter()
            .map(|(key, _)| key)
            .collect();
        let name = config_path.trim_start_matches("networks/");
        assert_eq!(
            keys_named_added_since(&readme, name),
            lacking,
            "networks/README.md's row of {name} and the keys the file lacks"
        );
    }
}

#[test]
fn the_configs_named_as_a_shipped_networks_run_are_that_run() {
    // configs/ holds commented copies of two runs: the same settings, defaults filled in.
    use descent::selfplay::config::TrainConfig;
    for (commented, run) in [
        (
            "configs/athenan-breakthrough.yaml",
            "networks/breakthrough.yaml",
        ),
        ("configs/alphazero-awale.yaml", "networks/awale.yaml"),
    ] {
        let load = |path: &str| {
            let text = std::fs::read_to_string(repository_file(path)).unwrap();
            TrainConfig::from_yaml(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
        };
        // The keys the run's file lacks take today's defaults there; the commented file sets
        // them to what the run did (networks/README.md).
        let run_text = std::fs::read_to_string(repository_file(run)).unwrap();
        let changed =
            load(run).changes_named_in(&run_text, load(commented).changed_keys(&load(run)));
        assert!(
            changed.is_empty(),
            "{commented} differs from {run} at {changed:?}"
        );
    }
}
