//! Export, play and engine end to end: a trained tic-tac-toe checkpoint exported to one file,
//! loaded back with the same values, refused for another game or a newer encoding; `descent
//! engine` driven through its protocol; `descent play` driven through stdin.

use crate::common::engine::Engine;
use crate::common::{descent, descent_with_input, stderr, stdout};

use std::path::{Path, PathBuf};
use std::process::Output;

use burn::prelude::Device;
use descent::arena::ModelSource;
use descent::arena::model::load_model;
use descent::games::{Game, GameExt, TicTacToe};
use descent::search::Evaluator;
use descent::settings::files::Existing;
use descent::value::exported_net::{read_export, write_export};
use descent::value::{NetDevice, NetEvaluator};
use rand::{RngExt, SeedableRng};

/// A short tic-tac-toe run (4 games) with its checkpoint.
fn trained_run(dir: &Path) -> PathBuf {
    run_of(
        dir,
        "game: tic_tac_toe\nseed: 3\nsearch:\n  iters: 20\nreplay:\n  games: 4\n  batch_size: 32\nevaluation:\n  at_end: false\n",
        "4",
    )
}

/// The run of the configuration `yaml` trained for `games` games in `dir/run`.
fn run_of(dir: &Path, yaml: &str, games: &str) -> PathBuf {
    let config = dir.join("run.yaml");
    std::fs::write(&config, yaml).unwrap();
    let run = dir.join("run");
    let output = descent(&[
        "train",
        config.to_str().unwrap(),
        "--run-dir",
        run.to_str().unwrap(),
        "--max-games",
        games,
        "--quiet",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    run
}

/// `descent export RUN --out FILE [extra…]`.
fn export(run: &Path, file: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "export",
        run.to_str().unwrap(),
        "--out",
        file.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    descent(&args)
}

/// A short run exported to `dir/ttt.descent`: the run, the file and the export's output.
fn trained_and_exported(dir: &Path, extra: &[&str]) -> (PathBuf, PathBuf, Output) {
    let run = trained_run(dir);
    let file = dir.join("ttt.descent");
    let output = export(&run, &file, extra);
    assert!(output.status.success(), "{}", stderr(&output));
    (run, file, output)
}

fn sample_positions() -> Vec<TicTacToe> {
    let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(9);
    let mut positions = Vec::new();
    while positions.len() < 40 {
        let mut p = TicTacToe::new(&Default::default());
        let plies = rng.random_range(0..6);
        for _ in 0..plies {
            let (actions, _) = p.children();
            if p.is_terminal() {
                break;
            }
            p.play(actions[rng.random_range(0..actions.len())]);
        }
        if !p.is_terminal() {
            positions.push(p);
        }
    }
    positions
}

fn values_of(source: &Path) -> Vec<f32> {
    let device = Device::flex();
    let model = load_model::<TicTacToe>(&ModelSource::Path(source.into()), "tic_tac_toe", &device)
        .unwrap_or_else(|e| panic!("{}: {e:#}", source.display()));
    let evaluator = NetEvaluator::<TicTacToe>::new(model.net.into_value_net(), &NetDevice::cpu());
    let positions = sample_positions();
    let mut values = vec![0.0; positions.len()];
    evaluator.evaluate(&positions, &mut values);
    values
}

/// The safetensors copy beside the export (`ttt.descent.safetensors` in `dir`) holds the same
/// weights: the same values as `from_checkpoint` on the sample positions.
fn the_safetensors_copy_holds_the_same_weights(dir: &std::path::Path, from_checkpoint: &[f32]) {
    use burn::store::{ModuleSnapshot, SafetensorsStore};
    let device = Device::flex();
    let mut net = descent::value::ValueNet::new(
        &descent::value::Architecture::PaperCnn,
        TicTacToe::ENCODING.dims(),
        true,
        &device,
    );
    let side = dir.join("ttt.descent.safetensors");
    net.load_from(&mut SafetensorsStore::from_file(side))
        .unwrap();
    let evaluator = NetEvaluator::<TicTacToe>::new(net, &NetDevice::cpu());
    let positions = sample_positions();
    let mut values = vec![0.0; positions.len()];
    evaluator.evaluate(&positions, &mut values);
    assert_eq!(values, from_checkpoint);
}

#[test]
fn export_loads_back_bit_exact_and_is_refused_where_it_does_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    let (run, file, output) = trained_and_exported(dir.path(), &[]);
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        said.contains("descent play --game tic_tac_toe --agent ubfms:model="),
        "{said}"
    );
    assert!(said.contains("terminal evaluation classic)"), "{said}");

    // The same values as the checkpoint, bit for bit.
    let from_checkpoint = values_of(&run);
    assert_eq!(values_of(&file), from_checkpoint);
    assert!(from_checkpoint.iter().any(|&v| v != from_checkpoint[0]));

    // The manifest describes the network and where it came from.
    let (manifest, _) = read_export(&file).unwrap();
    assert_eq!(manifest.net.game, "tic_tac_toe");
    assert_eq!(manifest.net.encoding_version, TicTacToe::ENCODING_VERSION);
    assert_eq!(manifest.net.architecture, "paper-cnn");
    assert_eq!(manifest.provenance.games, 4);
    assert_eq!(manifest.provenance.run, "run");
    assert_eq!(manifest.provenance.checkpoint, "ckpt-4");
    assert_eq!(manifest.provenance.config_fnv1a64.len(), 16);
    assert_eq!(manifest.provenance.recipe.as_deref(), Some("athenan"));

    the_safetensors_copy_holds_the_same_weights(dir.path(), &from_checkpoint);

    // Not overwritten without --force.
    let before = std::fs::read(&file).unwrap();
    let again = export(&run, &file, &[]);
    assert!(!again.status.success() && stderr(&again).contains("already exists"));
    assert_eq!(std::fs::read(&file).unwrap(), before);

    // Another game: a clear error.
    let wrong = descent(&[
        "eval",
        "--game",
        "connect_four",
        "--agent",
        &format!("ubfms:model={},iters=5", file.display()),
        "--opponent",
        "random",
        "--games",
        "2",
    ]);
    assert!(!wrong.status.success());
    assert!(
        stderr(&wrong).contains("exported for tic_tac_toe, not connect_four"),
        "{}",
        stderr(&wrong)
    );

    // A newer encoding version: a clear error.
    let device = Device::flex();
    let (mut newer, _) = read_export(&file).unwrap();
    newer.net.encoding_version += 1;
    let model =
        load_model::<TicTacToe>(&ModelSource::Path(file.clone()), "tic_tac_toe", &device).unwrap();
    let newer_file = dir.path().join("newer.descent");
    write_export(
        &newer_file,
        &newer,
        &model.net.into_value_net(),
        Existing::Replace,
    )
    .unwrap();
    let error = load_model::<TicTacToe>(&ModelSource::Path(newer_file), "tic_tac_toe", &device)
        .err()
        .unwrap();
    assert!(
        format!("{error:#}").contains("newer than this descent's"),
        "{error:#}"
    );

    // A truncated file and a file that is no export: clear errors.
    let truncated = dir.path().join("truncated.descent");
    std::fs::write(&truncated, &before[..before.len() / 2]).unwrap();
    let error = load_model::<TicTacToe>(&ModelSource::Path(truncated), "tic_tac_toe", &device)
        .err()
        .unwrap();
    assert!(format!("{error:#}").contains("truncated"), "{error:#}");
    let junk = dir.path().join("junk.descent");
    std::fs::write(&junk, b"hello").unwrap();
    assert!(load_model::<TicTacToe>(&ModelSource::Path(junk), "tic_tac_toe", &device).is_err());
}

#[test]
fn engine_plays_a_full_game_refuses_bad_commands_and_undoes() {
    let dir = tempfile::tempdir().unwrap();
    let (_, file, _) = trained_and_exported(dir.path(), &["--no-safetensors"]);
    let agent = format!("ubfms:model={},iters=30", file.display());
    let mut engine = Engine::start(&["--game", "tic_tac_toe", "--agent", &agent]);

    // Framing: ids echoed, replies end with an empty line.
    assert_eq!(engine.send("7 protocol_version"), "=7 2\n\n");
    assert_eq!(engine.send("name"), "= descent\n\n");
    assert_eq!(engine.send("known_command genmove"), "= true\n\n");
    assert_eq!(engine.send("known_command fly"), "= false\n\n");
    assert!(
        engine
            .ok("list_commands")
            .lines()
            .any(|l| l == "final_score")
    );

    // Refusals leave the position unchanged.
    let board = engine.ok("showboard");
    assert!(
        engine
            .refused("3 frobnicate")
            .starts_with("?3 unknown command")
    );
    engine.refused("play p1 b2"); // P0 is to move
    engine.refused("play p0 z9"); // garbled
    engine.refused("play p0"); // missing argument
    engine.refused("play red b2"); // unknown player
    engine.refused("genmove p1"); // not p1's move
    engine.refused("undo"); // nothing to undo
    engine.refused("final_score"); // not over
    assert_eq!(engine.ok("showboard"), board);

    // Undo restores the board.
    engine.ok("play b b2");
    engine.refused("play w b2"); // occupied
    assert!(engine.ok("showboard").contains("White (p1) to move"));
    engine.ok("undo");
    assert_eq!(engine.ok("showboard"), board);

    // No time at all still gets a legal move (docs/engine-protocol.md).
    engine.ok("set_time 0");
    let mv = engine.ok("genmove p0");
    let initial = TicTacToe::new(&Default::default()).legal_moves_text();
    assert!(initial.split(' ').any(|m| m == mv), "{mv} in {initial}");
    engine.ok("undo");

    // A full game: the engine as p0 against random moves.
    let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(1);
    let mut game = TicTacToe::new(&Default::default());
    engine.ok("set_time 0.05");
    loop {
        let mv = engine.ok("genmove p0");
        game.play_moves(&mv).unwrap();
        if game.is_terminal() {
            break;
        }
        let legal = engine.ok("legal_moves");
        assert_eq!(legal, game.legal_moves_text());
        let moves: Vec<&str> = legal.split(' ').collect();
        let reply = moves[rng.random_range(0..moves.len())].to_string();
        engine.ok(&format!("play white {reply}"));
        game.play_moves(&reply).unwrap();
        if game.is_terminal() {
            break;
        }
    }
    let score = engine.ok("final_score");
    let expected = match game.outcome().unwrap().winner() {
        Some(descent::games::Player::P0) => "B+",
        Some(descent::games::Player::P1) => "W+",
        None => "0",
    };
    assert_eq!(score, expected);
    engine.refused("genmove p0");
    engine.ok("clear_board");
    assert_eq!(engine.ok("showboard"), board);
    assert_eq!(engine.send("quit"), "= \n\n");
    assert!(engine.child.wait().unwrap().success());
}

#[test]
fn play_through_stdin_refuses_bad_moves_gives_hints_and_finishes() {
    // Every cell in turn (occupied ones are refused), with garbage, a hint and an undo first.
    let input = "zz\nhint\nb2\nundo\nmoves\nb2\na1\nb1\nc1\na2\nc2\na3\nb3\nc3\n";
    let output = descent_with_input(
        &[
            "play",
            "--game",
            "tic_tac_toe",
            "--agent",
            "alphabeta:depth=9",
            "--as",
            "p0",
        ],
        input,
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout.contains("cannot parse move \"zz\""), "{stdout}");
    assert!(stdout.contains("hint: "), "{stdout}");
    assert!(stdout.contains("is not legal here"), "{stdout}");
    assert!(stdout.contains("alphabeta:depth=9 plays"), "{stdout}");
    assert!(
        stdout.contains("moves: \n") || stdout.contains("moves: \r\n"),
        "{stdout}"
    );
    // Perfect play never loses: the game ends in a draw or a loss for the person.
    assert!(
        stdout.contains("Game over: draw") || stdout.contains("Game over: White (p1) wins"),
        "{stdout}"
    );
}

/// A network that knows its game makes `--game` optional; without one, the message says to
/// give it.
#[test]
fn the_game_defaults_to_the_networks_own() {
    let dir = tempfile::tempdir().unwrap();
    let (_, file, _) = trained_and_exported(dir.path(), &["--no-safetensors"]);
    let agent = format!("ubfms:model={},iters=10", file.display());
    let out = descent(&[
        "eval",
        "--agent",
        &agent,
        "--opponent",
        "random",
        "--games",
        "2",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("on tic_tac_toe: 2 games"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = descent(&[
        "eval",
        "--agent",
        "random",
        "--opponent",
        "greedy",
        "--games",
        "2",
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("give --game"), "{}", stderr(&out));
}

#[test]
fn play_quits_on_request_and_at_end_of_input() {
    for input in ["quit\n", ""] {
        let output = descent_with_input(
            &["play", "--game", "awale", "--agent", "greedy", "--as", "p1"],
            input,
        );
        assert!(output.status.success());
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(stdout.contains("greedy plays"), "{stdout}");
        assert!(
            stdout.contains("bye") || stdout.contains("quit"),
            "{stdout}"
        );
    }
    // P1 plays the lower-case houses: `C` is refused naming `c`.
    let output = descent_with_input(
        &["play", "--game", "awale", "--agent", "greedy", "--as", "p1"],
        "C\nquit\n",
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("did you mean \"c\"?"), "{stdout}");
}

/// A trained tic-tac-toe network exported into `dir`, read back: its manifest and network.
fn exported_net(
    dir: &Path,
) -> (
    descent::value::exported_net::ExportManifest,
    descent::value::ValueNet,
) {
    let (_, file, _) = trained_and_exported(dir, &[]);
    let (manifest, weights) = read_export(&file).unwrap();
    let net = descent::value::saved_net::net_from_burnpack(
        weights,
        &manifest.net,
        &Device::flex(),
        "the export",
    )
    .unwrap();
    (manifest, net)
}

/// Every weight times NaN.
struct Poison;

/// Every weight times a factor.
struct Scaled(f32);

impl burn::module::ModuleMapper for Scaled {
    fn map_float<const D: usize>(
        &mut self,
        param: burn::module::Param<burn::prelude::Tensor<D>>,
    ) -> burn::module::Param<burn::prelude::Tensor<D>> {
        let factor = self.0;
        param.map(|t| t.mul_scalar(factor))
    }
}

impl burn::module::ModuleMapper for Poison {
    fn map_float<const D: usize>(
        &mut self,
        param: burn::module::Param<burn::prelude::Tensor<D>>,
    ) -> burn::module::Param<burn::prelude::Tensor<D>> {
        param.map(|t| t.mul_scalar(f32::NAN))
    }
}

/// A network whose weights are not finite (a run whose learning diverged) is refused when
/// loaded, naming the file, by every command that plays with it; no search sees a NaN value.
#[test]
fn a_network_with_non_finite_weights_is_refused_naming_the_file() {
    use burn::module::Module;
    let dir = tempfile::tempdir().unwrap();
    let (manifest, net) = exported_net(dir.path());
    let bad = dir.path().join("diverged.descent");
    write_export(&bad, &manifest, &net.map(&mut Poison), Existing::Replace).unwrap();
    let agent = format!("greedy:model={}", bad.display());
    for args in [
        vec![
            "eval",
            "--game",
            "tic_tac_toe",
            "--agent",
            &agent,
            "--opponent",
            "random",
            "--games",
            "2",
        ],
        vec![
            "tournament",
            "--game",
            "tic_tac_toe",
            "--agent",
            &agent,
            "--agent",
            "random",
            "--games-per-pair",
            "2",
        ],
    ] {
        let out = descent(&args);
        let err = stderr(&out);
        assert!(!out.status.success(), "{args:?}: {err}");
        assert!(
            err.contains("diverged") && err.contains("diverged.descent"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// `descent check-net FILE --game tic_tac_toe [extra…]`.
fn check_net(file: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "check-net",
        file.to_str().unwrap(),
        "--game",
        "tic_tac_toe",
        "--positions",
        "32",
    ];
    args.extend_from_slice(extra);
    descent(&args)
}

/// Finite weights whose activations overflow f32: check-net names the values that are not
/// finite instead of comparing NaN with NaN.
#[test]
fn check_net_names_values_that_are_not_finite() {
    use burn::module::Module;
    let dir = tempfile::tempdir().unwrap();
    let (manifest, net) = exported_net(dir.path());
    // A linear output (a score network's), so that the overflow reaches the values.
    let mut manifest = manifest;
    manifest.net.tanh_output = false;
    manifest.net.terminal_eval = Some(descent::search::TerminalEval::Score);
    let huge = dir.path().join("huge.descent");
    write_export(
        &huge,
        &manifest,
        &net.map(&mut Scaled(1e30)),
        Existing::Replace,
    )
    .unwrap();
    let output = check_net(&huge, &[]);
    let (out, err) = (stdout(&output), stderr(&output));
    assert!(!output.status.success(), "{out}");
    assert!(err.contains("not finite at"), "{out}{err}");
    assert!(!out.contains("NaN vs NaN"), "{out}");
}

#[test]
fn check_net_writes_the_models_values_and_catches_a_different_one() {
    let dir = tempfile::tempdir().unwrap();
    let (_, file, _) = trained_and_exported(dir.path(), &[]);
    let written = dir.path().join("flex.json");
    let output = check_net(
        &file,
        &["--device", "flex", "--out", written.to_str().unwrap()],
    );
    let text = crate::common::stdout(&output);
    assert!(output.status.success(), "{text}{}", stderr(&output));
    assert!(
        text.contains("flex against descent-cpu") && text.contains("same values"),
        "{text}"
    );

    // The values are the exported network's, on the positions the library draws.
    let file_values: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&written).unwrap()).unwrap();
    let model = load_model::<TicTacToe>(
        &ModelSource::Path(file.clone()),
        "tic_tac_toe",
        &Device::flex(),
    )
    .unwrap();
    let inputs = descent::games::random_positions::encoded_random_positions(
        &TicTacToe::new(&Default::default()),
        32,
        0,
    );
    // burn-flex's forward pass: not the direct CPU pass check-net compares with.
    let expected =
        model
            .net
            .into_value_net()
            .predict(inputs, 32, TicTacToe::ENCODING.dims(), &Device::flex());
    let found: Vec<f32> = file_values["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect();
    assert_eq!(found.len(), 32);
    for (f, e) in found.iter().zip(&expected) {
        assert!((f - e).abs() <= 1e-4, "{found:?} vs {expected:?}");
    }
    assert!(
        found.iter().any(|v| (v - found[0]).abs() > 1e-3),
        "one value for all: {found:?}"
    );

    // The same model elsewhere agrees; a changed value is caught, by position.
    let output = check_net(&file, &["--against", written.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "{}",
        crate::common::stdout(&output)
    );
    let mut changed = file_values.clone();
    changed["values"][5] = serde_json::json!(found[5] + 0.01);
    let changed_path = dir.path().join("changed.json");
    std::fs::write(&changed_path, changed.to_string()).unwrap();
    let output = check_net(&file, &["--against", changed_path.to_str().unwrap()]);
    let text = crate::common::stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains("at position 5") && text.contains("DIFFERENT"),
        "{text}"
    );

    // Files that do not fit are refused with what was expected.
    let output = descent(&[
        "check-net",
        file.to_str().unwrap(),
        "--game",
        "tic_tac_toe",
        "--against",
        written.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("values of 32 positions"),
        "{}",
        stderr(&output)
    );
    std::fs::write(&changed_path, "{\"game\": 3}").unwrap();
    let output = check_net(&file, &["--against", changed_path.to_str().unwrap()]);
    assert!(
        stderr(&output).contains("not a check-net values file"),
        "{}",
        stderr(&output)
    );
}

/// A network of Go (trained with a move limit of 16 plies) plays its board under other rules of
/// play (superko, move limit, komi) — loaded from its run (the checkpoint's manifest) and from
/// its export — and is refused on another board, naming both games.
#[test]
fn a_go_network_plays_under_other_rules_of_play_and_not_on_another_board() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_of(
        dir.path(),
        "game: go(max_plies=16)\nseed: 3\nnetwork: {architecture: resnet-b0c8-fc16}\nsearch: {iters: 2}\n\
         replay: {games: 4, batch_size: 16}\nevaluation: {at_end: false}\n",
        "1",
    );
    let file = dir.path().join("go.descent");
    let exported = export(&run, &file, &[]);
    assert!(exported.status.success(), "{}", stderr(&exported));
    let eval = |game: &str, model: &Path| {
        descent(&[
            "eval",
            "--game",
            game,
            "--agent",
            &format!("ubfms:model={},iters=3", model.display()),
            "--opponent",
            "random",
            "--games",
            "2",
        ])
    };
    for model in [&run, &file] {
        let rules = "go(komi=6.5,superko=illegal,max_plies=20)";
        let out = eval(rules, model);
        assert!(
            out.status.success(),
            "{}: {}",
            model.display(),
            stderr(&out)
        );
        assert!(stdout(&out).contains("2 games"), "{}", stdout(&out));
        let wrong = eval("go(board_size=11,superko=illegal)", model);
        assert!(!wrong.status.success(), "{}", model.display());
        let said = stderr(&wrong);
        assert!(
            said.contains("go(max_plies=16)") && said.contains("board_size=11"),
            "{said}"
        );
    }
}
