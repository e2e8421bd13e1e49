//! `descent experiment` end to end on tic-tac-toe, as a child process on real files: the runs,
//! the stage networks, the curves and the final table, a kill and the continuation, the
//! determinism of the evaluation, and refusals.

use crate::common::{descent, stderr, stdout};

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const STAGES: usize = 3;
const REPEATS: u64 = 2;
const VARIANTS: u64 = 2;
const GAMES_PER_PAIR: u64 = 2;

fn experiment_text(repeats: u64) -> String {
    format!(
        "game: tic_tac_toe
repeats: {repeats}
train_time: 3s
stage_every: 1s
set:
  search.iters: 20
  replay: {{games: 4, duplication: 2, batch_size: 32}}
  network.architecture: resnet-b0c8-fc16
variants:
  - name: tree
  - name: root
    set:
      search.algorithm: mcts
      learning.targets: root
"
    )
}

/// `descent args` started as a child, returned once `file` exists (within two minutes).
fn started_until(args: &[&str], file: &Path) -> Child {
    let child = Command::new(env!("CARGO_BIN_EXE_descent"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !file.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no {}",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn wdl(v: &Value) -> [u64; 3] {
    let a: Vec<u64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    [a[0], a[1], a[2]]
}

#[test]
fn an_experiment_trains_evaluates_survives_a_kill_and_continues() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("exp.yaml");
    std::fs::write(&file, experiment_text(REPEATS)).unwrap();
    let out = tmp.path().join("out");
    let args = [
        "experiment",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];

    // Killed while the second run trains (after its first checkpoint).
    let mut child = started_until(&args, &out.join("runs/root/rep-1/latest"));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!out.join("report.json").exists());

    let run = descent(&args);
    assert!(run.status.success(), "{}", stderr(&run));
    let log = stderr(&run);
    assert!(log.contains("tree, repetition 1: already trained"), "{log}");
    assert!(log.contains("root, repetition 1: resuming"), "{log}");
    assert!(log.contains("tree, repetition 2: training"), "{log}");
    let text = stdout(&run);
    assert!(text.contains("final networks, all-play-all"), "{text}");
    for name in [
        "experiment.yaml",
        "report.json",
        "curves.csv",
        "curves.svg",
        "final.csv",
        "final.svg",
    ] {
        assert!(out.join(name).is_file(), "{name}");
    }

    runs_kept_one_checkpoint_and_a_network_a_stage(&out);

    let report = read_json(&out.join("report.json"));
    let stage_matches = report["stage_matches"].as_array().unwrap();
    assert_eq!(
        stage_matches.len() as u64,
        REPEATS * VARIANTS * STAGES as u64 * VARIANTS
    );
    for m in stage_matches {
        stage_network_is_the_one_at_its_mark(&out, m);
    }
    curve_points_pool_their_repetitions(&out, stage_matches);
    let matches = final_stage_matches_replay_the_all_play_all(&report);
    final_table_pairs_every_network(&report);

    // Running it again keeps the runs and the matches and rebuilds the same report from them.
    let again = descent(&args);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(stderr(&again).matches("already trained").count(), 4);
    let all_matches = stage_matches.len() + matches;
    assert!(
        stderr(&again).contains(&format!("{all_matches} matches read back")),
        "{}",
        stderr(&again)
    );
    assert_eq!(read_json(&out.join("report.json")), report);
    // Without the kept matches, the evaluation plays them again, game for game the same.
    std::fs::remove_dir_all(out.join("evaluation")).unwrap();
    let replayed = descent(&args);
    assert!(replayed.status.success(), "{}", stderr(&replayed));
    assert!(!stderr(&replayed).contains("read back"));
    assert_eq!(read_json(&out.join("report.json")), report);

    // Another experiment in the same directory is refused; nothing changes.
    std::fs::write(&file, experiment_text(REPEATS + 1)).unwrap();
    let refused = descent(&args);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("holds another experiment"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(read_json(&out.join("report.json")), report);
}

/// The final stage network is the final network: its stage match against another variant's
/// final network replays, game for game, their match in the all-play-all (the player is
/// deterministic) — two code paths, one result. Returns the all-play-all's matches.
fn final_stage_matches_replay_the_all_play_all(report: &Value) -> usize {
    let stage_matches = report["stage_matches"].as_array().unwrap();
    let tournament = &report["tournament"];
    let agents: Vec<&str> = tournament["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(agents.len() as u64, REPEATS * VARIANTS);
    let matches = tournament["matches"].as_array().unwrap();
    assert_eq!(matches.len(), agents.len() * (agents.len() - 1) / 2);
    for repeat in 1..=REPEATS {
        let stage_match = stage_matches
            .iter()
            .find(|m| {
                m["variant"] == "tree"
                    && m["opponent_variant"] == "root"
                    && m["repeat"] == repeat
                    && m["stage"] == STAGES as u64
            })
            .unwrap();
        let final_match = matches
            .iter()
            .find(|m| {
                m["agent"] == format!("tree#{repeat}") && m["opponent"] == format!("root#{repeat}")
            })
            .unwrap();
        assert_eq!(wdl(&stage_match["as_p0"]), wdl(&final_match["as_p0"]));
        assert_eq!(wdl(&stage_match["as_p1"]), wdl(&final_match["as_p1"]));
    }
    matches.len()
}

/// Each run kept one checkpoint and a network per stage, on the grid of training time.
fn runs_kept_one_checkpoint_and_a_network_a_stage(out: &Path) {
    for variant in ["tree", "root"] {
        for repeat in 1..=REPEATS {
            let dir = out.join(format!("runs/{variant}/rep-{repeat}"));
            let checkpoints = std::fs::read_dir(&dir)
                .unwrap()
                .filter(|e| {
                    e.as_ref()
                        .unwrap()
                        .file_name()
                        .to_string_lossy()
                        .starts_with("ckpt-")
                })
                .count();
            assert_eq!(checkpoints, 1, "{}", dir.display());
            assert!(std::fs::read_dir(dir.join("nets")).unwrap().count() >= 2 * STAGES);
        }
    }
}

/// The stage match `m` played the run's network at the stage's mark: made at or before it,
/// and the next network (the next game's learning) made after it; half its games each colour.
fn stage_network_is_the_one_at_its_mark(out: &Path, m: &Value) {
    let mark = (m["stage"].as_u64().unwrap() as f64).min(3.0);
    assert!(
        m["train_seconds"].as_f64().unwrap() <= mark,
        "a stage network made after its mark: {m}"
    );
    let run = out.join(format!(
        "runs/{}/rep-{}/metrics.jsonl",
        m["variant"].as_str().unwrap(),
        m["repeat"]
    ));
    let next = m["games_learned"].as_u64().unwrap() + 1;
    let next_line = std::fs::read_to_string(&run)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|line| line["kind"] == "game" && line["game"] == next);
    if let Some(line) = next_line {
        assert!(
            line["elapsed_seconds"].as_f64().unwrap() > mark,
            "game {next} was learned before the mark, yet the stage network is older: {m}"
        );
    }
    let (p0, p1) = (wdl(&m["as_p0"]), wdl(&m["as_p1"]));
    assert_eq!(p0.iter().sum::<u64>(), GAMES_PER_PAIR / 2);
    assert_eq!(p1.iter().sum::<u64>(), GAMES_PER_PAIR / 2);
}

/// Each curve point pools its repetitions and opponents, and is the mean of the repetitions'
/// scores — recomputed here from the stage matches — within an interval that holds the pooled
/// games' Wilson interval.
fn curve_points_pool_their_repetitions(out: &Path, stage_matches: &[Value]) {
    let curves = std::fs::read_to_string(out.join("curves.csv")).unwrap();
    let rows: Vec<&str> = curves.lines().skip(1).collect();
    assert_eq!(rows.len(), VARIANTS as usize * STAGES);
    for row in &rows {
        let f: Vec<&str> = row.split(',').collect();
        assert_eq!(f[4], REPEATS.to_string(), "{row}");
        let n: Vec<u64> = f[8..12].iter().map(|x| x.parse().unwrap()).collect();
        assert_eq!(n[0], REPEATS * VARIANTS * GAMES_PER_PAIR, "{row}");
        assert_eq!(n[1] + n[2] + n[3], n[0], "{row}");
        let number = |i: usize| f[i].parse::<f64>().unwrap();
        let score = number(12);
        assert!((score - (n[1] as f64 + 0.5 * n[2] as f64) / n[0] as f64).abs() < 1e-3);
        let stage: u64 = f[1].parse().unwrap();
        let repetition_score = |repeat: u64| {
            let mut counts = [0u64; 3];
            for m in stage_matches
                .iter()
                .filter(|m| m["variant"] == f[0] && m["stage"] == stage && m["repeat"] == repeat)
            {
                for side in ["as_p0", "as_p1"] {
                    for (k, count) in wdl(&m[side]).iter().enumerate() {
                        counts[k] += count;
                    }
                }
            }
            (counts[0] as f64 + 0.5 * counts[1] as f64) / counts.iter().sum::<u64>() as f64
        };
        let mean = (1..=REPEATS).map(repetition_score).sum::<f64>() / REPEATS as f64;
        let (mean_score, low, high) = (number(5), number(6), number(7));
        assert!(
            (mean_score - mean).abs() < 1e-3,
            "{row}: the mean is {mean}"
        );
        assert!(low <= number(13) && number(14) <= high, "{row}");
        assert!(low <= mean_score && mean_score <= high, "{row}");
    }
}

/// The final table: every pairing of the two variants' networks, scores adding up to 1; overall,
/// as the paper pools it: every game of the variant's networks, those between its own
/// repetitions too (once from each side, half the points each).
fn final_table_pairs_every_network(report: &Value) {
    let table = &report["final_table"];
    assert_eq!(
        table["games"][0][1].as_u64().unwrap(),
        REPEATS * REPEATS * GAMES_PER_PAIR
    );
    let sum = table["score"][0][1].as_f64().unwrap() + table["score"][1][0].as_f64().unwrap();
    assert!((sum - 1.0).abs() < 1e-9);
    assert!(table["score"][0][0].is_null());
    let (cross, own) = (
        REPEATS * REPEATS * GAMES_PER_PAIR,
        REPEATS * (REPEATS - 1) * GAMES_PER_PAIR,
    );
    let overall = &table["overall"][0];
    assert_eq!(overall["games"].as_u64().unwrap(), cross + own);
    let points = overall["score"].as_f64().unwrap() * (cross + own) as f64;
    let expected = table["score"][0][1].as_f64().unwrap() * cross as f64 + own as f64 / 2.0;
    assert!((points - expected).abs() < 1e-6, "{points} vs {expected}");
}

/// Ctrl-C in the evaluation (SIGINT to the child, as a user presses it) keeps the matches
/// finished, writes no report and exits 130; the same command then plays only the rest.
#[test]
fn ctrl_c_in_the_evaluation_keeps_the_matches_finished_and_a_rerun_plays_the_rest() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("exp.yaml");
    let text = experiment_text(1).replace("train_time: 3s", "train_time: 2s")
        + "evaluation: {agent: 'ubfms:iters=3000', games_per_pair: 4, threads: 1}\n";
    std::fs::write(&file, text).unwrap();
    let out = tmp.path().join("out");
    let args = [
        "experiment",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let child = started_until(&args, &out.join("evaluation/stage-0.json"));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let stopped = child.wait_with_output().unwrap();
    assert_eq!(stopped.status.code(), Some(130), "{}", stderr(&stopped));
    assert!(
        stderr(&stopped).contains("the matches finished are kept"),
        "{}",
        stderr(&stopped)
    );
    assert!(!out.join("report.json").exists());
    let kept = std::fs::read_dir(out.join("evaluation")).unwrap().count();
    // 2 variants × 2 stages × 2 opponents, then the all-play-all's one pair.
    let all_matches = 9;
    assert!((1..all_matches).contains(&kept), "{kept} matches kept");

    let rest = descent(&args);
    assert!(rest.status.success(), "{}", stderr(&rest));
    assert!(
        stderr(&rest).contains(&format!("{kept} matches read back")),
        "{}",
        stderr(&rest)
    );
    let report = read_json(&out.join("report.json"));
    assert_eq!(report["stage_matches"].as_array().unwrap().len(), 8);
    for m in report["stage_matches"].as_array().unwrap() {
        assert_eq!(m["moves"].as_array().unwrap().len(), 4, "{m}");
    }
    assert_eq!(
        std::fs::read_dir(out.join("evaluation")).unwrap().count(),
        all_matches
    );
}

#[test]
fn bad_experiment_files_are_refused_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let missing = descent(&["experiment", "nowhere.yaml", "--out", out.to_str().unwrap()]);
    assert!(!missing.status.success());
    assert!(
        stderr(&missing).contains("nowhere.yaml"),
        "{}",
        stderr(&missing)
    );
    for (bad, expected) in [
        ("train_tim: 3s\n", "train_tim"),
        (
            &experiment_text(1).replace("search.iters: 20", "search.iters: -1") as &str,
            "search.iters",
        ),
        (
            &experiment_text(1).replace("search.algorithm: mcts", "search.algorithm: dijkstra"),
            "root",
        ),
        (
            &experiment_text(1).replace("stage_every: 1s", "stage_every: 1 parsec"),
            "stage_every",
        ),
        // Counts past their limits, refused before anything is allocated for them (a billion
        // repetitions once took 3.8 GB in 24 s, saying nothing).
        (&experiment_text(1_000_000_000), "repeats: 1000000000"),
        (
            &experiment_text(1)
                .replace("train_time: 3s", "train_time: 1000d")
                .replace("stage_every: 1s", "stage_every: 1ms"),
            "evaluation stages",
        ),
        (
            &format!(
                "{}{}",
                experiment_text(1),
                (0..200)
                    .map(|i| format!("  - name: v{i}\n"))
                    .collect::<String>()
            ),
            "variants: 202 given",
        ),
    ] {
        let file = tmp.path().join("bad.yaml");
        std::fs::write(&file, bad).unwrap();
        let run = descent(&[
            "experiment",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(!run.status.success(), "{bad}");
        assert!(stderr(&run).contains(expected), "{bad}: {}", stderr(&run));
        assert!(!out.exists(), "{bad}: wrote {}", out.display());
    }
}

/// The paper's §8 comparison on one protocol: Athénan, AlphaZero and ExIt variants, each
/// playing through its own player (`agent:`), every stage network also against base MCTS
/// (`evaluation.baseline`), both colours.
#[test]
fn three_recipes_compare_with_their_own_players_and_against_a_baseline() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("exp.yaml");
    let text = "game: tic_tac_toe
train_time: 2s
stage_every: 1s
set:
  network.architecture: resnet-b0c8-fc16
evaluation:
  baseline: mcts:iters=30
  games_against_baseline: 4
variants:
  - name: athenan
    agent: ubfms:iters=10
    set:
      search.iters: 20
      replay: {games: 4, duplication: 2, batch_size: 32}
  - name: alphazero
    agent: puct:iters=10
    set:
      recipe: alphazero
      alphazero: {simulations: 20, parallel_games: 8, window: 512, batch_size: 32}
  - name: exit
    agent: exit:iters=10
    set:
      recipe: exit
      exit: {expert_iterations: 30, warm_start_games: 4, games_per_phase: 4, batch_size: 16, max_epochs: 3}
";
    std::fs::write(&file, text).unwrap();
    let out = tmp.path().join("out");
    let run = descent(&[
        "experiment",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let text = stdout(&run);
    assert!(text.contains("against mcts:iters=30"), "{text}");
    let report = read_json(&out.join("report.json"));
    let agents: Vec<&str> = report["variant_agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(agents, ["ubfms:iters=10", "puct:iters=10", "exit:iters=10"]);
    assert_eq!(report["baseline"], "mcts:iters=30");
    // One point per variant and stage, 4 games each (one repetition), both colours.
    let points = report["baseline_curves"].as_array().unwrap();
    assert_eq!(points.len(), 3 * 2);
    for p in points {
        let (w, d, l) = (
            p["wins"].as_u64().unwrap(),
            p["draws"].as_u64().unwrap(),
            p["losses"].as_u64().unwrap(),
        );
        assert_eq!(w + d + l, 4, "{p}");
        let wml = p["win_minus_loss"].as_f64().unwrap();
        assert!((wml - (w as f64 - l as f64) / 4.0).abs() < 1e-9, "{p}");
    }
    let csv = std::fs::read_to_string(out.join("baseline.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 6, "{csv}");
    // Each recipe's run directory holds its own kind of network.
    let metrics = |variant: &str| {
        std::fs::read_to_string(out.join(format!("runs/{variant}/rep-1/metrics.jsonl"))).unwrap()
    };
    assert!(metrics("alphazero").contains("alphazero_round"));
    assert!(metrics("exit").contains("exit_round"));
    assert!(!metrics("athenan").contains("_round"));
    // Every stage network was the run's network at its mark, never one made after it.
    for m in report["stage_matches"].as_array().unwrap() {
        let mark = (m["stage"].as_u64().unwrap() as f64).min(2.0);
        assert!(m["train_seconds"].as_f64().unwrap() <= mark, "{m}");
    }
    each_recipe_reports_what_it_computed(&report, &text);
}

/// What each recipe computed, in the experiment's report and its text: positions and samples a
/// second, games, and where its time went.
fn each_recipe_reports_what_it_computed(report: &Value, text: &str) {
    let compute = report["compute"].as_array().unwrap();
    assert_eq!(compute.len(), 3);
    for c in compute {
        for key in ["positions_per_second", "samples_per_second", "games"] {
            assert!(c[key].as_f64().unwrap() > 0.0, "{key}: {c}");
        }
        // Where each recipe's time went: self-play and learning within its training time,
        // and the evaluations of its stage networks beside it.
        let split = &c["time_split"];
        let (search, learn) = (
            split["search_seconds"].as_f64().unwrap(),
            split["learn_seconds"].as_f64().unwrap(),
        );
        assert!(search > 0.0 && learn > 0.0, "{c}");
        assert!(
            search + learn <= 2.0 * 3.0,
            "far more than the training time: {c}"
        );
        assert!(split["evaluation_seconds"].as_f64().unwrap() >= 0.0, "{c}");
    }
    assert!(text.contains("network compute in training"), "{text}");
    for variant in ["athenan", "alphazero", "exit"] {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(variant) && l.contains("learning"))
            .unwrap_or_else(|| panic!("no time split of {variant}: {text}"));
        assert!(
            line.contains("search") && line.contains("evaluation"),
            "{line}"
        );
    }
}
