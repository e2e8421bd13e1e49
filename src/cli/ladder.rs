//! `descent ladder RUN`: which of a run's networks is best, and how strong each is. The run's
//! networks (its checkpoints and the networks kept in `nets/`, at most `--max-networks` of
//! them, evenly spaced, the last always in) play a fixed anchor and their neighbours (or every
//! pair, `--all-pairs`), both colours; Bradley-Terry ratings with 95 % intervals, anchored at
//! 0 on the anchor. Written to `RUN/ladder.json`, which the run's page shows (a later ladder
//! replaces it).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;
use serde::Serialize;

use super::arena_output::PlayOptions;
use super::interrupt::{self, Interruptible};
use crate::arena::match_play::MatchRun;
use crate::arena::statistics::Ratings;
use crate::arena::tournament::{all_pairs, ladder_pairs, play_pairs};
use crate::arena::{AgentFactory, AgentSpec, TournamentReport};
use crate::games::{Game, GameSpec, GameVisitor};
use crate::search::StopToken;
use crate::selfplay::run::run_dir::LADDER_FILE;
use crate::selfplay::{RunDir, TrainConfig};
use crate::settings::files::{Existing, write_atomically};

#[derive(Args, Debug)]
pub struct LadderArgs {
    /// The run directory.
    run: PathBuf,
    /// How the networks play, without `model=` (default: the run's recipe's player at 100 ms
    /// a move — `ubfms:time=100ms`, `puct:time=100ms`, `gumbel:time=100ms` or
    /// `exit:time=100ms`).
    #[arg(long)]
    agent: Option<String>,
    /// The agent rated 0, which every network plays.
    #[arg(long, default_value = "mcts:time=100ms")]
    anchor: AgentSpec,
    /// Games per pair, half with each colour.
    #[arg(long, default_value_t = 20)]
    games_per_pair: u64,
    /// At most this many of the run's networks, evenly spaced in training (the last always in).
    #[arg(long, default_value_t = 8)]
    max_networks: usize,
    /// Every pair plays (k(k + 1)/2 matches for k networks) instead of each network against
    /// the anchor and the next network (2k − 1).
    #[arg(long)]
    all_pairs: bool,
    #[command(flatten)]
    options: PlayOptions,
}

/// One network of the ladder.
#[derive(Clone, Debug, Serialize)]
pub struct LadderNetwork {
    /// Games learned when it was saved.
    pub games: u64,
    /// Training time then (seconds), where the run's metrics record it.
    pub training_seconds: Option<f64>,
    /// Its agent spec.
    pub agent: String,
    /// Its rating against the anchor (Elo scale) and the half-width of its 95 % interval.
    pub elo: f64,
    pub elo_ci95: f64,
}

/// `RUN/ladder.json`.
#[derive(Clone, Debug, Serialize)]
pub struct LadderReport {
    pub run: String,
    pub game: String,
    pub anchor: String,
    pub games_per_pair: u64,
    /// The networks, oldest first.
    pub networks: Vec<LadderNetwork>,
    /// The games of the best-rated network.
    pub best: u64,
    /// Every match (without its games) and the ratings (agent 0 is the anchor).
    pub tournament: TournamentReport,
    pub seed: u64,
    pub seconds: f64,
}

/// `count` of `available` items, evenly spaced, the first and last included.
fn evenly_spaced<T: Clone>(available: &[T], count: usize) -> Vec<T> {
    let n = available.len();
    if n <= count {
        return available.to_vec();
    }
    if count == 1 {
        return available[n - 1..].to_vec();
    }
    (0..count)
        .map(|i| available[(i * (n - 1) + (count - 1) / 2) / (count - 1)].clone())
        .collect()
}

struct LadderVisitor<'a> {
    args: &'a LadderArgs,
    agents: Vec<AgentSpec>,
    stop: &'a StopToken,
}

impl GameVisitor for LadderVisitor<'_> {
    type Output = anyhow::Result<TournamentReport>;

    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let args = self.args;
        let device = args.options.device()?;
        let game = G::NAME;
        let agents = self
            .agents
            .iter()
            .map(|spec| AgentFactory::<G>::new(spec.clone(), game, &device))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let pairs = match args.all_pairs {
            true => all_pairs(agents.len()),
            false => ladder_pairs(agents.len(), 0),
        };
        let progress = args
            .options
            .progress(pairs.len() as u64 * args.games_per_pair);
        let report = play_pairs(
            (&initial, Default::default()),
            &agents,
            (&pairs, args.games_per_pair),
            MatchRun::new(args.options.seed, args.options.threads).stopped_by(self.stop),
            0,
            &|_| progress.inc(1),
        );
        progress.finish_and_clear();
        Ok(report)
    }
}

/// # Errors
/// Bad arguments, a run without networks, a network that does not load, a failed write.
pub fn run(args: LadderArgs) -> anyhow::Result<ExitCode> {
    check_args(&args)?;
    let run_dir = RunDir::open(&args.run)?;
    let config = TrainConfig::from_yaml(&run_dir.config_text()?)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.run.join("config.yaml").display()))?;
    let game: GameSpec = config.game.parse()?;
    let networks = evenly_spaced(&run_dir.networks()?, args.max_networks);
    if networks.is_empty() {
        bail!(
            "{} has no network yet (no checkpoint, nothing in nets/): train it first",
            args.run.display()
        );
    }
    let search = args
        .agent
        .clone()
        .unwrap_or_else(|| format!("{}:time=100ms", config.recipe.player_kind()));
    let mut agents = vec![args.anchor.clone()];
    for (_, path) in &networks {
        let text = with_model(&search, path);
        agents.push(text.parse().with_context(|| format!("--agent {search}"))?);
    }
    let planned = (2 * agents.len() as u64 - 3) * args.games_per_pair;
    let planned = match args.all_pairs {
        true => agents.len() as u64 * (agents.len() as u64 - 1) / 2 * args.games_per_pair,
        false => planned,
    };
    let stop = interrupt::stop_on_first_interrupt(Interruptible::Matches);
    let start = Instant::now();
    let tournament = game.visit(LadderVisitor {
        args: &args,
        agents,
        stop: &stop,
    })?;
    interrupt::refuse_empty(tournament.games_played())?;
    let played = tournament.games_played();
    let times = run_dir.checkpoint_times().unwrap_or_default();
    let report = ladder_report(&args, &game, (&networks, &times), tournament, start);
    // The matches without their games: the page reads the whole file.
    let mut json = serde_json::to_value(&report)?;
    for m in json["tournament"]["matches"]
        .as_array_mut()
        .expect("an array")
    {
        m.as_object_mut().expect("an object").remove("games");
    }
    let text = serde_json::to_string_pretty(&json)?;
    write_atomically(
        &args.run.join(LADDER_FILE),
        text.as_bytes(),
        Existing::Replace,
    )?;
    if args.options.json {
        println!("{text}");
    } else {
        print_ladder(&report);
        println!("wrote {}", args.run.join(LADDER_FILE).display());
    }
    let kept = format!("{LADDER_FILE} rates the networks that played");
    Ok(interrupt::match_exit(played, planned, &kept))
}

/// The agent spec `search` (`ubfms:time=100ms`, or a bare `greedy`) playing the network at
/// `path`.
fn with_model(search: &str, path: &Path) -> String {
    let separator = if search.contains(':') { ',' } else { ':' };
    let path = path.display().to_string();
    let model = crate::settings::key_values::quoted_value(&path);
    format!("{search}{separator}model={model}")
}

fn check_args(args: &LadderArgs) -> anyhow::Result<()> {
    super::even_games_arg("--games-per-pair", args.games_per_pair)?;
    if !(1..=64).contains(&args.max_networks) {
        bail!("--max-networks {}: expected 1 to 64", args.max_networks);
    }
    if let Some(agent) = &args.agent
        && agent.contains("model=")
    {
        bail!("--agent {agent}: give the search only; the ladder adds each network's model=");
    }
    super::threads_arg("--threads", args.options.threads)?;
    Ok(())
}

/// The report: each network with its rating, the best one.
fn ladder_report(
    args: &LadderArgs,
    game: &GameSpec,
    (networks, times): (&[(u64, PathBuf)], &std::collections::BTreeMap<u64, f64>),
    tournament: TournamentReport,
    start: Instant,
) -> LadderReport {
    let Ratings { elo, elo_ci95, .. } = &tournament.ratings;
    // Networks whose pairings were never reached (a ladder stopped by Ctrl-C) are left out.
    let rated: Vec<LadderNetwork> = networks
        .iter()
        .enumerate()
        .filter(|(i, _)| tournament.games_of(i + 1) > 0)
        .map(|(i, (games, _))| LadderNetwork {
            games: *games,
            training_seconds: times.get(games).copied(),
            agent: tournament.agents[i + 1].clone(),
            elo: elo[i + 1],
            elo_ci95: elo_ci95[i + 1],
        })
        .collect();
    let best = rated
        .iter()
        .max_by(|a, b| a.elo.total_cmp(&b.elo))
        .map_or(0, |n| n.games);
    LadderReport {
        run: args.run.display().to_string(),
        game: game.to_string(),
        anchor: args.anchor.to_string(),
        games_per_pair: args.games_per_pair,
        networks: rated,
        best,
        tournament,
        seed: args.options.seed,
        seconds: start.elapsed().as_secs_f64(),
    }
}

fn print_ladder(report: &LadderReport) {
    println!(
        "ladder of {} on {}: {} networks and the anchor {} (rated 0), {} games a pair, {} matches, {:.0} s",
        report.run,
        report.game,
        report.networks.len(),
        report.anchor,
        report.games_per_pair,
        report.tournament.pairs.len(),
        report.seconds
    );
    println!("  games   training   Elo (Bradley-Terry, 95 %)");
    for n in &report.networks {
        let time = n.training_seconds.map_or("-".to_string(), |s| match s {
            _ if s < 120.0 => format!("{s:.0} s"),
            _ if s < 7200.0 => format!("{:.1} min", s / 60.0),
            _ => format!("{:.1} h", s / 3600.0),
        });
        let mark = if n.games == report.best {
            "  ← best"
        } else {
            ""
        };
        println!(
            "  {:<7} {:>8}   {:>+5.0} ± {:<4.0}{mark}",
            n.games, time, n.elo, n.elo_ci95
        );
    }
    if let Some(note) = best_note(report) {
        println!("{note}");
    }
}

/// Whether the best network's lead is more than the intervals allow (a rough reading: the
/// intervals of the two best ratings overlap or not).
fn best_note(report: &LadderReport) -> Option<String> {
    let best = report.networks.iter().find(|n| n.games == report.best)?;
    let second = report
        .networks
        .iter()
        .filter(|n| n.games != report.best)
        .max_by(|a, b| a.elo.total_cmp(&b.elo))?;
    let overlap = best.elo - best.elo_ci95 <= second.elo + second.elo_ci95;
    Some(match overlap {
        true => format!(
            "the best ({} games) and the next ({} games) are within each other's intervals: play more games a pair (--games-per-pair) to tell them apart",
            best.games, second.games
        ),
        false => format!(
            "the best ({} games) is ahead of every other network beyond their intervals",
            best.games
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn networks_are_spaced_evenly_with_the_first_and_last() {
        let all: Vec<u32> = (1..=10).collect();
        assert_eq!(evenly_spaced(&all, 20), all);
        assert_eq!(evenly_spaced(&all, 2), [1, 10]);
        assert_eq!(evenly_spaced(&all, 4), [1, 4, 7, 10]);
        assert_eq!(evenly_spaced(&all, 1), [10]);
        let picked = evenly_spaced(&all, 5);
        assert_eq!((picked[0], picked[4], picked.len()), (1, 10, 5));
        assert!(picked.windows(2).all(|w| w[0] < w[1]), "{picked:?}");
    }

    /// A bare search (`greedy`) gets its model after a colon, and parses.
    #[test]
    fn a_bare_search_takes_its_model_as_its_first_option() {
        let path = Path::new("runs/a/ckpt-4");
        for search in ["greedy", "ubfms:time=100ms", "mcts:iters=10"] {
            let spec = with_model(search, path);
            let parsed: Result<crate::arena::AgentSpec, _> = spec.parse();
            assert!(parsed.is_ok(), "{spec}: {:?}", parsed.err());
        }
        assert_eq!(with_model("greedy", path), "greedy:model=runs/a/ckpt-4");
    }
}
