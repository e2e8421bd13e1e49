//! `descent bench learner URL`: how many games one distributed learner absorbs a second when it
//! never waits for them. Records of the run already waiting in its stream (real games of its
//! workers) are sampled, then sender threads — synthetic workers — send them again as fast as
//! they can, each under a new game number and the newest network version, keeping at most the
//! backlog a worker keeps (`run.max_lag / 2`). The learner's own heartbeat gives its games and
//! the seconds of each stage (`LearnerStages`) before and after, so the report says the
//! learner's rate, its first bottleneck, the bytes Redis holds per 1 000 waiting games, and how
//! many workers of the sampled games' speed one learner serves (docs/distributed.md).

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Args;
use serde::Serialize;

use crate::selfplay::TrainConfig;
use crate::selfplay::distributed::broker::Broker;
use crate::selfplay::recipes::athenan::game_record::GameRecord;
use crate::selfplay::recipes::athenan::learner_stages::LearnerStages;

#[derive(Args, Debug)]
pub struct LearnerArgs {
    /// The run's Redis server: redis://[user:password@]HOST:PORT[/DB]. Its learner must be live
    /// and its stream hold games (a learner that has not checkpointed them yet).
    url: String,
    /// The run, by name: needed only where several runs share the database.
    #[arg(long, value_name = "NAME")]
    run: Option<String>,
    /// Sender threads: synthetic workers.
    #[arg(long, default_value_t = 4)]
    senders: usize,
    /// Seconds of the measurement.
    #[arg(long, default_value_t = 30.0)]
    seconds: f64,
    /// Records sampled from the stream, sent again in turn.
    #[arg(long, default_value_t = 256)]
    sample: usize,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// The learner's heartbeat fields the bench reads.
#[derive(Clone, Copy)]
struct LearnerReading {
    at: Instant,
    games: u64,
    dropped: u64,
    refused: u64,
    stages: LearnerStages,
}

#[derive(Serialize)]
struct LearnerReport {
    bench: &'static str,
    run: String,
    game: String,
    senders: usize,
    seconds: f64,
    records_sent: u64,
    games_learned: u64,
    games_dropped: u64,
    records_refused: u64,
    games_per_s: f64,
    pairs_per_s: f64,
    pairs_per_game: f64,
    record_bytes: f64,
    redis_bytes_per_1000_waiting: u64,
    /// Share of the learner's time in each stage over the measurement.
    stage_shares: LearnerStages,
    bottleneck: &'static str,
    worker_game_seconds: f64,
    workers_served: f64,
}

/// # Errors
/// An unreachable broker, no live learner, no records in the stream.
pub fn run(args: LearnerArgs) -> anyhow::Result<ExitCode> {
    let seconds = super::seconds_arg(args.seconds)?;
    let senders = super::threads_arg("--senders", args.senders)?;
    if args.sample == 0 || args.sample > 100_000 {
        bail!("--sample {}: expected 1 to 100000 records", args.sample);
    }
    let mut broker = Broker::connect(&args.url)?;
    let run = match args.run.clone() {
        Some(name) => name,
        None => broker
            .only_run()?
            .with_context(|| format!("{}: no run on this database", broker.url()))?,
    };
    broker.use_run(&run)?;
    let (yaml, _) = broker
        .run_config()?
        .with_context(|| format!("run {run}: no configuration published"))?;
    let config = TrainConfig::from_yaml(&yaml)?;
    let backlog = (config.run.max_lag / 2).max(2);
    let sample = sampled_records(&mut broker, args.sample)?;
    let redis_bytes = broker.stream_bytes(&encoded(&sample))? * 1000 / sample.len() as u64;
    let before = read_learner(&mut broker)?;
    let sent = send_for(&args.url, &run, &sample, senders, backlog, seconds)?;
    let after = read_learner(&mut broker)?;
    let report = report(
        &args,
        (run, config.game.clone()),
        &sample,
        (before, after),
        (sent, redis_bytes),
    );
    print_report(&report, args.json)?;
    Ok(ExitCode::SUCCESS)
}

/// Up to `count` records waiting in the stream, decoded.
fn sampled_records(broker: &mut Broker, count: usize) -> anyhow::Result<Vec<GameRecord>> {
    let records: Vec<GameRecord> = broker
        .sample_records(count)?
        .iter()
        .filter_map(|bytes| GameRecord::from_bytes(bytes).ok())
        .collect();
    if records.is_empty() {
        bail!(
            "{}: no game record waiting in the run's stream to send again (let a worker play \
             a few games while the learner has not checkpointed them: a large \
             checkpoint.every_games)",
            broker.url()
        );
    }
    Ok(records)
}

fn encoded(records: &[GameRecord]) -> Vec<Vec<u8>> {
    records.iter().map(GameRecord::to_bytes).collect()
}

/// The learner's heartbeat now.
fn read_learner(broker: &mut Broker) -> anyhow::Result<LearnerReading> {
    let json = broker
        .status()?
        .learner
        .context("no live learner on this run (its heartbeat is missing)")?;
    let value: serde_json::Value = serde_json::from_str(&json)?;
    let count = |key: &str| value[key].as_u64().unwrap_or(0);
    let stages = serde_json::from_value(value["stage_seconds"].clone())
        .context("the learner's heartbeat has no stage_seconds (an older build)")?;
    Ok(LearnerReading {
        at: Instant::now(),
        games: count("games"),
        dropped: count("games_dropped"),
        refused: count("records_rejected"),
        stages,
    })
}

/// Sends the sample in turn from `senders` threads for `seconds`, each record under a new game
/// number and the newest version, while fewer than `backlog` games wait; returns the records
/// sent.
fn send_for(
    url: &str,
    run: &str,
    sample: &[GameRecord],
    senders: usize,
    backlog: u64,
    seconds: Duration,
) -> anyhow::Result<u64> {
    let sent = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let deadline = Instant::now() + seconds;
    std::thread::scope(|scope| {
        let threads: Vec<_> = (0..senders)
            .map(|t| {
                let (sent, stop) = (&sent, &stop);
                scope.spawn(move || -> anyhow::Result<()> {
                    let mut broker = Broker::connect(url)?;
                    broker.use_run(run)?;
                    let mut next = t;
                    while Instant::now() < deadline && !stop.load(Ordering::Relaxed) {
                        if broker.backlog()? >= backlog {
                            std::thread::sleep(Duration::from_millis(1));
                            continue;
                        }
                        let mut record = sample[next % sample.len()].clone();
                        next += senders;
                        record.index = broker.take_game_index()?;
                        record.net_version = broker.net_version()?.unwrap_or(0);
                        broker.send_game(&record.to_bytes())?;
                        sent.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(())
                })
            })
            .collect();
        let results: Vec<anyhow::Result<()>> = threads
            .into_iter()
            .map(|t| t.join().expect("a sender thread"))
            .collect();
        stop.store(true, Ordering::Relaxed);
        results.into_iter().collect::<anyhow::Result<Vec<()>>>()
    })?;
    Ok(sent.load(Ordering::Relaxed))
}

fn report(
    args: &LearnerArgs,
    (run, game): (String, String),
    sample: &[GameRecord],
    (before, after): (LearnerReading, LearnerReading),
    (sent, redis_bytes): (u64, u64),
) -> LearnerReport {
    let span = (after.at - before.at).as_secs_f64().max(1e-9);
    let learned = after.games - before.games;
    let n = sample.len() as f64;
    let pairs_per_game = sample.iter().map(GameRecord::pairs).sum::<usize>() as f64 / n;
    let game_seconds = sample.iter().map(|r| r.stats.game_seconds).sum::<f64>() / n;
    let stage = |f: fn(&LearnerStages) -> f64| (f(&after.stages) - f(&before.stages)) / span;
    let shares = LearnerStages {
        redis: stage(|s| s.redis),
        decode: stage(|s| s.decode),
        replay: stage(|s| s.replay),
        learn: stage(|s| s.learn),
        publish: stage(|s| s.publish),
    };
    let games_per_s = learned as f64 / span;
    LearnerReport {
        bench: "learner",
        run,
        game,
        senders: args.senders,
        seconds: span,
        records_sent: sent,
        games_learned: learned,
        games_dropped: after.dropped - before.dropped,
        records_refused: after.refused - before.refused,
        games_per_s,
        pairs_per_s: games_per_s * pairs_per_game,
        pairs_per_game,
        record_bytes: encoded(sample).iter().map(Vec::len).sum::<usize>() as f64 / n,
        redis_bytes_per_1000_waiting: redis_bytes,
        bottleneck: bottleneck(&shares),
        stage_shares: shares,
        worker_game_seconds: game_seconds,
        workers_served: games_per_s * game_seconds,
    }
}

/// The stage with the largest share of the learner's time.
fn bottleneck(shares: &LearnerStages) -> &'static str {
    [
        ("Redis", shares.redis),
        ("decoding", shares.decode),
        ("replaying", shares.replay),
        ("learning", shares.learn),
        ("publishing", shares.publish),
    ]
    .into_iter()
    .max_by(|a, b| a.1.total_cmp(&b.1))
    .map_or("learning", |(name, _)| name)
}

fn print_report(r: &LearnerReport, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string(r)?);
        return Ok(());
    }
    let s = &r.stage_shares;
    println!(
        "learner of run {} ({}): {} senders, {:.1} s",
        r.run, r.game, r.senders, r.seconds
    );
    println!(
        "  {:.1} games/s learned ({} of {} sent; {} dropped, {} refused), {:.0} pairs/s ({:.0} a game)",
        r.games_per_s,
        r.games_learned,
        r.records_sent,
        r.games_dropped,
        r.records_refused,
        r.pairs_per_s,
        r.pairs_per_game
    );
    println!(
        "  time: Redis {:.0} %, decoding {:.0} %, replaying {:.0} %, learning {:.0} %, publishing {:.0} %: first bottleneck {}",
        100.0 * s.redis,
        100.0 * s.decode,
        100.0 * s.replay,
        100.0 * s.learn,
        100.0 * s.publish,
        r.bottleneck
    );
    println!(
        "  a record {:.0} bytes; Redis holds {:.1} MB per 1 000 waiting games",
        r.record_bytes,
        r.redis_bytes_per_1000_waiting as f64 / 1e6
    );
    println!(
        "  the sampled games took a worker thread {:.2} s each: one learner serves about {:.0} such worker threads",
        r.worker_game_seconds, r.workers_served
    );
    Ok(())
}
