//! `descent bench selfplay <game> --games-in-flight 1,16,64,256 …`: the self-play players of a
//! training run (`SelfPlayer`, the run's batching evaluator), timed with each number of games in
//! flight per thread (`search::in_flight`), on a network of fresh weights: the positions per
//! network call, positions/s, moves/s, games/h, and the network's compute against the device's
//! matrix peak.
//!
//! Each measurement stops at its deadline with games unfinished (they are abandoned, not
//! waited for: with hundreds in flight, finishing them would take minutes). Games per hour are
//! therefore positions/s × 3 600 over the mean positions evaluated in a whole game (the games
//! finished in all measurements): moves/s would read the early moves of games all started
//! together, which cost more than a game's mean.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::Args;
use serde::Serialize;

use super::bench_nn::{DEVICE_PEAK_SIZE, device_matrix_peak, matrix_peak};
use crate::games::{Game, GameSpec, GameVisitor};
use crate::search::in_flight::{InFlightStats, KeyedTask, NextTask, TaskSource, run_in_flight};
use crate::search::{Evaluator, SearchSpec};
use crate::selfplay::recipes::athenan::self_play::{FinishedGame, SelfPlaySettings, SelfPlayer};
use crate::selfplay::run::run_progress::RunProgress;
use crate::selfplay::run::streams::{STREAM_GAME, stream_rng};
use crate::settings::limits::{MAX_THREADS, at_most};
use crate::value::batching_evaluator::PinnedEvaluator;
use crate::value::{Architecture, BatchingEvaluator, DeviceChoice, NetDevice, ValueNet};

#[derive(Args, Debug)]
pub struct SelfplayArgs {
    /// Game spec, e.g. connect_four.
    #[arg(value_parser = super::parse_game)]
    game: GameSpec,
    /// Architecture of the network (fresh weights): paper-cnn or
    /// resnet-b<blocks>c<filters>-fc<n>[-fc<n>].
    #[arg(long, default_value = "paper-cnn", value_parser = |s: &str| s.parse::<Architecture>())]
    arch: Architecture,
    /// The self-play search, without its budget: descent, ubfms, ubfm, mcts, puct.
    #[arg(long, default_value = "descent")]
    algo: String,
    /// Search iterations per move.
    #[arg(long, default_value_t = 20)]
    iterations: u64,
    /// Games in flight per thread, comma-separated: one measurement each.
    #[arg(long, default_value = "1,16,64,256", value_delimiter = ',')]
    games_in_flight: Vec<usize>,
    /// Self-play threads (sharing one batching evaluator, as a run's do).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Device: descent-cpu, flex, ndarray, wgpu, cuda or cuda:N (GPU backends need their
    /// cargo feature).
    #[arg(long, default_value = "descent-cpu", value_parser = |s: &str| s.parse::<DeviceChoice>())]
    device: DeviceChoice,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// The most games in flight one measurement may keep (each a search table and a stack).
const MAX_GAMES_IN_FLIGHT: usize = 4096;

#[derive(Serialize)]
struct Measurement {
    games_per_thread: usize,
    games_in_flight: usize,
    seconds: f64,
    network_calls: u64,
    mean_positions_per_call: f64,
    positions_per_s: f64,
    moves_per_s: f64,
    games_finished: u64,
    /// positions/s × 3 600 / the mean positions of a finished game (all measurements).
    games_per_hour: Option<f64>,
    gflops: f64,
    share_of_peak: f64,
    /// Share of the wall time the player threads spent in network calls.
    network_share: f64,
}

#[derive(Serialize)]
struct SelfplayReport {
    bench: &'static str,
    game: String,
    arch: String,
    device: String,
    search: String,
    threads: usize,
    mflop_per_position: f64,
    mean_game_length: Option<f64>,
    mean_positions_per_game: Option<f64>,
    matrix_peak_gflops: f64,
    matrix_peak_of: String,
    measurements: Vec<Measurement>,
}

/// What one measurement counted.
struct Counts {
    games_per_thread: usize,
    seconds: f64,
    passes: u64,
    positions: u64,
    moves: u64,
    finished_games: u64,
    finished_moves: u64,
    finished_positions: u64,
    evaluation_seconds: f64,
}

struct SelfplayBench<'a> {
    args: &'a SelfplayArgs,
    device: NetDevice,
    search: SearchSpec,
}

impl GameVisitor for SelfplayBench<'_> {
    type Output = anyhow::Result<Vec<Counts>>;

    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let net = ValueNet::new(&self.args.arch, G::ENCODING.dims(), true, &self.device.burn);
        let settings = SelfPlaySettings::plain(self.search.clone());
        let mut all = Vec::new();
        for &per_thread in &self.args.games_in_flight {
            all.push(self.measure(&initial, &net, &settings, per_thread));
        }
        Ok(all)
    }
}

impl SelfplayBench<'_> {
    /// Self-play with `per_thread` games in flight on each of the threads, for the bench's
    /// seconds.
    fn measure<G: Game>(
        &self,
        initial: &G,
        net: &ValueNet,
        settings: &SelfPlaySettings,
        per_thread: usize,
    ) -> Counts {
        let threads = self.args.threads;
        let max_batch = BatchingEvaluator::<G>::players_max_batch(
            threads,
            per_thread,
            self.device.direct_inference,
        );
        let shared = BatchingEvaluator::<G>::new(
            net.clone(),
            &self.device,
            max_batch,
            Duration::from_micros(500),
        )
        .chunked_for(threads);
        let moves = Arc::new(AtomicU64::new(0));
        let next_game = AtomicU64::new(0);
        let deadline = Instant::now() + Duration::from_secs_f64(self.args.seconds);
        let start = Instant::now();
        let per_thread_counts: Vec<(InFlightStats, [u64; 3])> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    let (shared, next_game, moves) = (&shared, &next_game, &moves);
                    scope.spawn(move || {
                        let mut source = BenchGames {
                            initial,
                            shared,
                            seed: self.args.seed,
                            next_game,
                            deadline,
                            idle_players: (0..per_thread)
                                .map(|_| {
                                    Some(
                                        SelfPlayer::new(settings.clone())
                                            .counting_moves_in(Arc::clone(moves)),
                                    )
                                })
                                .collect(),
                            finished: [0; 3],
                        };
                        let stats = run_in_flight(per_thread, &mut source);
                        (stats, source.finished)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a self-play thread panicked"))
                .collect()
        });
        let seconds = start.elapsed().as_secs_f64();
        let batching = shared.stats();
        Counts {
            games_per_thread: per_thread,
            seconds,
            passes: batching.passes,
            positions: batching.positions,
            moves: moves.load(Ordering::Relaxed),
            finished_games: per_thread_counts.iter().map(|c| c.1[0]).sum(),
            finished_moves: per_thread_counts.iter().map(|c| c.1[1]).sum(),
            finished_positions: per_thread_counts.iter().map(|c| c.1[2]).sum(),
            evaluation_seconds: per_thread_counts
                .iter()
                .map(|c| c.0.evaluation_seconds)
                .sum(),
        }
    }
}

/// The games of one bench thread: new ones until the deadline, then abandoned.
struct BenchGames<'a, G: Game> {
    initial: &'a G,
    shared: &'a BatchingEvaluator<G>,
    seed: u64,
    next_game: &'a AtomicU64,
    deadline: Instant,
    idle_players: Vec<Option<SelfPlayer<G>>>,
    finished: [u64; 3],
}

type BenchGame<G> = (SelfPlayer<G>, FinishedGame<G>);

impl<'a, G: Game> TaskSource<G, PinnedEvaluator<'a, G>, BenchGame<G>> for BenchGames<'a, G> {
    fn next_task(
        &mut self,
        slot: usize,
        _wait: bool,
    ) -> NextTask<KeyedTask<G, PinnedEvaluator<'a, G>, BenchGame<G>>> {
        if Instant::now() >= self.deadline {
            return NextTask::Done;
        }
        let index = self.next_game.fetch_add(1, Ordering::Relaxed);
        let mut player = self.idle_players[slot]
            .take()
            .expect("a free slot's player");
        let initial = self.initial.clone();
        let mut rng = stream_rng(self.seed, STREAM_GAME, index);
        let task = Box::new(move |evaluator: &dyn Evaluator<G>| {
            let game = player.play(&initial, &evaluator, &RunProgress::fixed(0.5), &mut rng);
            (player, game)
        });
        let pinned = self.shared.pin();
        NextTask::Task((pinned.version(), pinned, task))
    }

    fn finished(&mut self, slot: usize, (player, game): BenchGame<G>, _seconds: f64) {
        self.idle_players[slot] = Some(player);
        self.finished[0] += 1;
        self.finished[1] += game.moves.len() as u64;
        self.finished[2] += game.search.evaluated_positions;
    }

    fn abandon(&mut self) -> bool {
        Instant::now() >= self.deadline
    }
}

/// # Errors
/// Bad arguments, or a device that failed.
pub fn run(args: SelfplayArgs) -> anyhow::Result<ExitCode> {
    let seconds = super::seconds_arg(args.seconds)?;
    anyhow::ensure!(
        !args.games_in_flight.is_empty() && args.games_in_flight.iter().all(|&n| n > 0),
        "--games-in-flight: give positive numbers, e.g. 1,16,64,256"
    );
    anyhow::ensure!(args.threads >= 1, "--threads must be at least 1");
    at_most("--threads", args.threads, MAX_THREADS)?;
    for &n in &args.games_in_flight {
        at_most(
            "--threads × --games-in-flight",
            n.saturating_mul(args.threads),
            MAX_GAMES_IN_FLIGHT,
        )?;
    }
    anyhow::ensure!(args.iterations >= 1, "--iterations must be at least 1");
    let search = SearchSpec::parse(&format!("{}:iters={}", args.algo, args.iterations), true)
        .map_err(|e| anyhow::anyhow!("--algo: {e}"))?;
    args.arch
        .check_size(args.game.encoding_dims())
        .map_err(anyhow::Error::msg)?;
    let device = args.device.device().map_err(anyhow::Error::msg)?;
    let bench = SelfplayBench {
        args: &args,
        device: device.clone(),
        search: search.clone(),
    };
    let counts = args.game.visit(bench)?;
    let peak_seconds = seconds.min(Duration::from_secs(2));
    let (peak, peak_of) = if args.device.is_gpu() {
        (
            device_matrix_peak(&device.burn, DEVICE_PEAK_SIZE, peak_seconds)?,
            format!(
                "{DEVICE_PEAK_SIZE}³ f32 products through burn on {}",
                args.device
            ),
        )
    } else {
        (
            matrix_peak(peak_seconds),
            format!(
                "1024³ sgemm products on {} threads at once",
                rayon::current_num_threads()
            ),
        )
    };
    let report = report(&args, &search, counts, (peak, peak_of));
    print_report(&report, args.json)
}

fn report(
    args: &SelfplayArgs,
    search: &SearchSpec,
    counts: Vec<Counts>,
    (peak, peak_of): (f64, String),
) -> SelfplayReport {
    let [planes, rows, cols] = args.game.encoding_dims();
    let mflop = args.arch.flops(planes, rows, cols) as f64 / 1e6;
    let games: u64 = counts.iter().map(|c| c.finished_games).sum();
    let per_game = |total: u64| (games > 0).then(|| total as f64 / games as f64);
    let mean_length = per_game(counts.iter().map(|c| c.finished_moves).sum());
    let mean_positions = per_game(counts.iter().map(|c| c.finished_positions).sum());
    let measurements = counts
        .iter()
        .map(|c| {
            let positions_per_s = c.positions as f64 / c.seconds;
            let moves_per_s = c.moves as f64 / c.seconds;
            let gflops = positions_per_s * mflop / 1e3;
            Measurement {
                games_per_thread: c.games_per_thread,
                games_in_flight: c.games_per_thread * args.threads,
                seconds: c.seconds,
                network_calls: c.passes,
                mean_positions_per_call: c.positions as f64 / c.passes.max(1) as f64,
                positions_per_s,
                moves_per_s,
                games_finished: c.finished_games,
                games_per_hour: mean_positions.map(|p| positions_per_s * 3600.0 / p),
                gflops,
                share_of_peak: gflops / peak,
                network_share: c.evaluation_seconds / (c.seconds * args.threads as f64),
            }
        })
        .collect();
    SelfplayReport {
        bench: "selfplay",
        game: args.game.to_string(),
        arch: args.arch.to_string(),
        device: args.device.to_string(),
        search: format!("{search:?}"),
        threads: args.threads,
        mflop_per_position: mflop,
        mean_game_length: mean_length,
        mean_positions_per_game: mean_positions,
        matrix_peak_gflops: peak,
        matrix_peak_of: peak_of,
        measurements,
    }
}

fn print_report(report: &SelfplayReport, json: bool) -> anyhow::Result<ExitCode> {
    if json {
        println!("{}", serde_json::to_string(report)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "self-play of {} with {} ({:.2} MFLOP a position) on {}, {} thread(s), {}",
        report.game,
        report.arch,
        report.mflop_per_position,
        report.device,
        report.threads,
        report.search
    );
    for m in &report.measurements {
        let games = m
            .games_per_hour
            .map_or("—".to_string(), |g| format!("{g:.0}"));
        println!(
            "  {:>5} games in flight: {:>7.1} positions a call, {:>9.0} positions/s, {:>7.1} moves/s, {:>7} games/h ({} finished in {:.1} s), {:.2} GFLOP/s = {:.2} % of the peak, {:.0} % of the time in network calls",
            m.games_in_flight,
            m.mean_positions_per_call,
            m.positions_per_s,
            m.moves_per_s,
            games,
            m.games_finished,
            m.seconds,
            m.gflops,
            100.0 * m.share_of_peak,
            100.0 * m.network_share,
        );
    }
    let length = match (report.mean_game_length, report.mean_positions_per_game) {
        (Some(moves), Some(positions)) => {
            format!("a finished game: {moves:.1} moves, {positions:.0} positions evaluated")
        }
        _ => "no game finished: no games/h".to_string(),
    };
    println!(
        "  {length}; matrix peak {:.1} GFLOP/s ({})",
        report.matrix_peak_gflops, report.matrix_peak_of
    );
    Ok(ExitCode::SUCCESS)
}
