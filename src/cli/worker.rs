//! `descent worker URL`: an actor of a distributed run (see `selfplay::worker`).

use std::process::ExitCode;

use clap::Args;

use crate::selfplay::recipes::athenan::worker::{WorkerOptions, run_worker};
use crate::value::DeviceChoice;

#[derive(Args, Debug)]
pub struct WorkerArgs {
    /// The run's Redis server: redis://[user:password@]HOST:PORT[/DB] (the password may
    /// instead be in DESCENT_REDIS_PASSWORD).
    url: String,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Where the network runs: descent-cpu, flex, ndarray, wgpu, cuda:0 (default: the run's
    /// run.device).
    #[arg(long)]
    device: Option<String>,
    /// This worker's name in `descent status` (default: host name and process id).
    #[arg(long)]
    id: Option<String>,
    /// Stop after this many games (default: when the learner finishes the run).
    #[arg(long, value_name = "N")]
    max_games: Option<u64>,
    /// The run to join, by name (its run directory's name): needed only where several runs
    /// share the database (default: the only one, or the only one whose learner is live).
    #[arg(long, value_name = "NAME")]
    run: Option<String>,
}

/// # Errors
/// Bad arguments, an unreachable broker, a run this build cannot play.
pub fn run(args: WorkerArgs) -> anyhow::Result<ExitCode> {
    if args.threads == 0 || args.threads > crate::settings::limits::MAX_THREADS {
        anyhow::bail!(
            "--threads {}: expected 1 to {}",
            args.threads,
            crate::settings::limits::MAX_THREADS
        );
    }
    let device = args
        .device
        .as_deref()
        .map(|d| d.parse::<DeviceChoice>())
        .transpose()
        .map_err(|e| anyhow::anyhow!("--device: {e}"))?;
    let stop = super::interrupt::stop_on_first_interrupt(super::interrupt::Interruptible::Worker);
    let summary = run_worker(&WorkerOptions {
        stop: stop.clone(),
        url: args.url,
        threads: args.threads,
        device,
        id: args.id,
        max_games: args.max_games,
        run: args.run,
    })?;
    println!(
        "worker {}: {} games in {:.0} s, {:.0} bytes per game sent",
        summary.id,
        summary.games,
        summary.seconds,
        summary.bytes_sent as f64 / summary.games.max(1) as f64
    );
    if stop.is_stopped() {
        eprintln!(
            "worker {}: stopped by {}; its heartbeat removed",
            summary.id,
            super::interrupt::interrupted_by()
        );
        return Ok(ExitCode::from(super::interrupt::interrupted_exit()));
    }
    Ok(ExitCode::SUCCESS)
}
