//! `descent bench …`: throughput benchmarks. Each prints a table, or with `--json` one JSON
//! object whose field names are documented in the README.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use serde::Serialize;

use crate::games::random_playout::{PlayoutTotals, run_playouts};
use crate::games::{Game, GameSpec, GameVisitor};

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Random-playout throughput of a game's rules, on one thread and on all cores.
    Rules(RulesArgs),
    /// Speed of one search from the initial position (iterations/s, nodes/s, evaluator batches).
    Search(super::bench_search::SearchArgs),
    /// Value-network speed: inference positions/s and GFLOP/s per batch size, training samples/s.
    Nn(super::bench_nn::NnArgs),
    /// Self-play throughput with many games in flight per thread: positions per network call,
    /// positions/s, games/h, the network's share of the device's peak.
    Selfplay(super::bench_selfplay::SelfplayArgs),
    /// How many games a distributed run's learner absorbs a second: its stages' shares, Redis
    /// bytes per waiting game, the workers one learner serves (records of the run sent again).
    Learner(super::bench_learner::LearnerArgs),
}

#[derive(Args, Debug)]
pub struct RulesArgs {
    /// Game spec, e.g. awale.
    #[arg(value_parser = super::parse_game)]
    game: GameSpec,
    /// Seconds for each of the two measurements (one thread, all threads).
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Threads for the parallel measurement (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Seed of the random playouts.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// One measurement.
#[derive(Serialize, Clone, Copy)]
struct Throughput {
    threads: usize,
    seconds: f64,
    games: u64,
    moves: u64,
    moves_per_s: f64,
    games_per_s: f64,
}

#[derive(Serialize)]
struct RulesReport {
    bench: &'static str,
    game: String,
    single_thread: Throughput,
    all_threads: Throughput,
    mean_game_length: f64,
    longest_game: usize,
    mean_result_p0: f64,
}

struct RulesBench {
    seconds: Duration,
    threads: usize,
    seed: u64,
}

fn timed_playouts<G: Game>(initial: &G, seed: u64, budget: Duration) -> (PlayoutTotals, f64) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let start = Instant::now();
    let totals = run_playouts(initial, &mut rng, |_| start.elapsed() < budget);
    (totals, start.elapsed().as_secs_f64())
}

fn throughput(threads: usize, totals: &PlayoutTotals, seconds: f64) -> Throughput {
    Throughput {
        threads,
        seconds,
        games: totals.games,
        moves: totals.moves,
        moves_per_s: totals.moves as f64 / seconds,
        games_per_s: totals.games as f64 / seconds,
    }
}

impl GameVisitor for RulesBench {
    type Output = (Throughput, Throughput, PlayoutTotals);
    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let budget = self.seconds;
        let (single, single_seconds) = timed_playouts(&initial, self.seed, budget);
        let results: Vec<(PlayoutTotals, f64)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..self.threads)
                .map(|t| {
                    let initial = &initial;
                    let seed = self.seed.wrapping_add(1 + t as u64);
                    scope.spawn(move || timed_playouts(initial, seed, budget))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a playout thread panicked"))
                .collect()
        });
        let mut parallel = PlayoutTotals::default();
        let mut parallel_seconds: f64 = 0.0;
        for (totals, seconds) in &results {
            parallel.add(totals);
            parallel_seconds = parallel_seconds.max(*seconds);
        }
        let mut all = single;
        all.add(&parallel);
        (
            throughput(1, &single, single_seconds),
            throughput(self.threads, &parallel, parallel_seconds),
            all,
        )
    }
}

/// # Errors
/// Bad arguments or a failed subcommand, as one message for the user.
pub fn run(command: BenchCommand) -> anyhow::Result<ExitCode> {
    match command {
        BenchCommand::Rules(args) => bench_rules(args),
        BenchCommand::Search(args) => super::bench_search::run(args),
        BenchCommand::Selfplay(args) => super::bench_selfplay::run(args),
        BenchCommand::Nn(args) => super::bench_nn::run(args),
        BenchCommand::Learner(args) => super::bench_learner::run(args),
    }
}

fn bench_rules(args: RulesArgs) -> anyhow::Result<ExitCode> {
    let seconds = super::seconds_arg(args.seconds)?;
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let threads = super::threads_arg("--threads", threads)?;
    let (single, all_threads, totals) = args.game.visit(RulesBench {
        seconds,
        threads,
        seed: args.seed,
    });
    let report = RulesReport {
        bench: "rules",
        game: args.game.to_string(),
        single_thread: single,
        all_threads,
        mean_game_length: totals.moves as f64 / totals.games.max(1) as f64,
        longest_game: totals.longest,
        mean_result_p0: totals.sum_value_p0 / totals.games.max(1) as f64,
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!(
            "random playouts of {} ({:.1} s each)",
            report.game, args.seconds
        );
        for t in [&report.single_thread, &report.all_threads] {
            println!(
                "  {:>2} thread(s): {:>8.2} M moves/s  {:>10.0} games/s",
                t.threads,
                t.moves_per_s / 1e6,
                t.games_per_s
            );
        }
        println!(
            "  mean game length {:.1} plies (longest {}), mean result for P0 {:+.4}",
            report.mean_game_length, report.longest_game, report.mean_result_p0
        );
    }
    Ok(ExitCode::SUCCESS)
}
