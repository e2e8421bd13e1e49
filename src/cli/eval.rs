//! `descent eval`: a trained network (UBFM_s) against a baseline, both sides, with the win
//! rate minus loss rate and its 95 % interval. First step of the arena: the agent is
//! `ubfms:model=…`, the opponent `mcts:…` or `random`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;

use crate::games::{Game, GameSpec, GameVisitor};
use crate::search::{Budget, TerminalEval};
use crate::selfplay::DurationText;
use crate::selfplay::periodic_eval::{Baseline, EvalReport, play_match};
use crate::value::saved_net::{NetManifest, load_net, read_manifest};
use crate::value::{Architecture, NetEvaluator, ValueNet};

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// The game, e.g. awale.
    #[arg(long, value_parser = super::parse_game)]
    game: GameSpec,
    /// The evaluated agent: `ubfms:model=<run dir | checkpoint dir | net file>,time=1s` (or
    /// `iters=N`); `model=untrained[,arch=paper-cnn]` for a freshly initialised network.
    #[arg(long)]
    agent: String,
    /// The opponent: `mcts:time=1s` or `mcts:iters=N` (UCT, random playouts; `c=0.7`), or `random`.
    #[arg(long)]
    opponent: String,
    /// Games, half with each colour.
    #[arg(long, default_value_t = 100)]
    games: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// `key=value` pairs after `kind:`.
fn spec_pairs<'a>(
    spec: &'a str,
    kind: &str,
    valid: &[&str],
) -> anyhow::Result<Vec<(&'a str, &'a str)>> {
    let rest = spec.strip_prefix(kind).unwrap_or("");
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    let mut pairs = Vec::new();
    for item in rest.split(',').filter(|s| !s.is_empty()) {
        let Some((key, value)) = item.split_once('=') else {
            bail!(
                "{spec:?}: expected key=value, got {item:?} (keys: {})",
                valid.join(", ")
            );
        };
        if !valid.contains(&key) {
            bail!(
                "{spec:?}: unknown key {key:?} (valid keys: {})",
                valid.join(", ")
            );
        }
        pairs.push((key, value));
    }
    Ok(pairs)
}

fn budget(spec: &str, pairs: &[(&str, &str)]) -> anyhow::Result<Budget> {
    let mut budget = Budget {
        iterations: None,
        time: None,
    };
    for &(key, value) in pairs {
        match key {
            "iters" => {
                budget.iterations =
                    Some(value.parse().ok().filter(|&n| n > 0).with_context(|| {
                        format!("{spec:?}: iters={value:?} is not a positive whole number")
                    })?)
            }
            "time" => {
                budget.time = Some(
                    value
                        .parse::<DurationText>()
                        .map_err(|e| anyhow::anyhow!("{spec:?}: {e}"))?
                        .0,
                )
            }
            _ => {}
        }
    }
    if budget.iterations.is_none() && budget.time.is_none() {
        bail!("{spec:?}: give a budget, time=… or iters=…");
    }
    Ok(budget)
}

fn parse_opponent(spec: &str) -> anyhow::Result<Baseline> {
    match spec.split(':').next().unwrap_or("") {
        "random" if spec == "random" => Ok(Baseline::Random),
        "mcts" => {
            let pairs = spec_pairs(spec, "mcts", &["time", "iters", "c"])?;
            let mut c = crate::search::MctsOptions::DEFAULT_C;
            for &(key, value) in &pairs {
                if key == "c" {
                    c = value
                        .parse()
                        .ok()
                        .filter(|c: &f32| *c >= 0.0)
                        .with_context(|| format!("{spec:?}: c={value:?} is not a number ≥ 0"))?;
                }
            }
            Ok(Baseline::Mcts {
                budget: budget(spec, &pairs)?,
                c,
            })
        }
        _ => bail!("unknown opponent {spec:?}: expected `mcts:time=…|iters=…[,c=…]` or `random`"),
    }
}

/// Where a `model=` path points: a run directory (its latest checkpoint), a checkpoint
/// directory, or a saved network's base path.
fn network_base(path: &Path) -> PathBuf {
    if path.join("latest").join("net.json").is_file() {
        path.join("latest").join("net")
    } else if path.join("net.json").is_file() {
        path.join("net")
    } else {
        path.with_extension("")
    }
}

struct EvalVisitor<'a> {
    args: &'a EvalArgs,
}

impl GameVisitor for EvalVisitor<'_> {
    type Output = anyhow::Result<EvalReport>;

    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let args = self.args;
        if !args.agent.starts_with("ubfms:") {
            bail!(
                "unknown agent {:?}: expected `ubfms:model=…,time=…|iters=…`",
                args.agent
            );
        }
        let pairs = spec_pairs(&args.agent, "ubfms", &["model", "time", "iters", "arch"])?;
        let net_budget = budget(&args.agent, &pairs)?;
        let value = |key: &str| pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
        let model = value("model").with_context(|| format!("{:?}: give model=…", args.agent))?;
        let device = burn::prelude::Device::flex();
        device.seed(args.seed);
        let shape = G::ENCODING.dims();
        let net = if model == "untrained" {
            let architecture: Architecture = value("arch")
                .unwrap_or("paper-cnn")
                .parse()
                .map_err(|e: String| anyhow::anyhow!(e))?;
            ValueNet::new(&architecture, shape, true, &device)
        } else {
            let base = network_base(Path::new(model));
            let found = read_manifest(&base)?;
            if !found.tanh_output {
                bail!(
                    "{}: a network with a linear output (trained with a reinforcement heuristic) cannot be evaluated yet; only classic-gain (tanh) networks",
                    base.display()
                );
            }
            let architecture: Architecture = found
                .architecture
                .parse()
                .map_err(|e: String| anyhow::anyhow!(e))?;
            let expected = NetManifest::new(
                &args.game.to_string(),
                &architecture,
                G::ENCODING_VERSION,
                shape,
                true,
            );
            load_net(&base, &expected, &device)?
        };
        let evaluator = NetEvaluator::<G>::new(net, device);
        Ok(play_match(
            &initial,
            &evaluator,
            &net_budget,
            parse_opponent(&args.opponent)?,
            args.games,
            TerminalEval::Classic,
            args.seed,
        ))
    }
}

pub fn run(args: EvalArgs) -> anyhow::Result<ExitCode> {
    if args.games < 2 || !args.games.is_multiple_of(2) {
        bail!(
            "--games {}: expected an even number ≥ 2 (both sides)",
            args.games
        );
    }
    parse_opponent(&args.opponent)?;
    let start = Instant::now();
    let report = args.game.visit(EvalVisitor { args: &args })?;
    let seconds = start.elapsed().as_secs_f64();
    if args.json {
        let mut value = serde_json::to_value(&report)?;
        value["game"] = args.game.to_string().into();
        value["agent"] = args.agent.clone().into();
        value["opponent"] = args.opponent.clone().into();
        value["seconds"] = seconds.into();
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        let side = |t: [u64; 3]| format!("{}/{}/{}", t[0], t[1], t[2]);
        println!(
            "{} vs {} on {} ({} games, {seconds:.0} s)",
            args.agent, args.opponent, args.game, report.games
        );
        println!("  as P0  W/D/L {}", side(report.as_p0));
        println!("  as P1  W/D/L {}", side(report.as_p1));
        println!(
            "  total  W/D/L {}/{}/{}  score {:.1} %  win-loss {:+.2} ± {:.2} (95 %)",
            report.wins,
            report.draws,
            report.losses,
            100.0 * (report.wins as f64 + 0.5 * report.draws as f64) / report.games as f64,
            report.win_minus_loss,
            report.ci95
        );
    }
    Ok(ExitCode::SUCCESS)
}
