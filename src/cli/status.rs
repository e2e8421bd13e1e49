//! `descent status URL`: a distributed run at a glance — the learner's version and counts, each
//! live worker's games and games/hour, the games waiting in the stream.

use std::process::ExitCode;

use clap::Args;

use crate::selfplay::distributed::broker::{self, Broker};

/// How long `status` retries a server that does not answer (a person waits for it).
const STATUS_PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);

#[derive(Args, Debug)]
pub struct StatusArgs {
    /// The run's Redis server: redis://[user:password@]HOST:PORT[/DB].
    url: String,
    /// One JSON object instead of the table.
    #[arg(long)]
    json: bool,
    /// The run, by name: needed only where several runs share the database.
    #[arg(long, value_name = "NAME")]
    run: Option<String>,
}

/// # Errors
/// An unreachable broker.
pub fn run(args: StatusArgs) -> anyhow::Result<ExitCode> {
    let patience = broker::patience()?.min(STATUS_PATIENCE);
    let mut broker = Broker::connect_with(&args.url, patience)?;
    let name = match args.run {
        Some(name) => name,
        None => match broker.only_run()? {
            Some(name) => name,
            None => anyhow::bail!("{}: no run on this database yet", broker.url()),
        },
    };
    broker.use_run(&name)?;
    let crate::selfplay::distributed::broker::RunStatus {
        learner,
        workers,
        queued,
    } = broker.status()?;
    let finished = broker.run_finished()?;
    let parse = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap_or_default();
    let learner = learner.as_deref().map(parse);
    let workers: Vec<(String, serde_json::Value)> = workers
        .iter()
        .map(|(id, json)| (id.clone(), parse(json)))
        .collect();
    if args.json {
        let workers: serde_json::Map<String, serde_json::Value> = workers.into_iter().collect();
        let status = serde_json::json!({
            "run": name,
            "state": if finished { "finished" } else { "running" },
            "learner": learner,
            "workers": workers,
            "queued_games": queued,
        });
        println!("{status}");
        return Ok(ExitCode::SUCCESS);
    }
    if finished {
        println!(
            "run {name}: finished (its learner reached its limit; extend it with descent train --resume RUN --broker URL --max-games N)"
        );
    } else {
        println!("run {name}: running");
    }
    match &learner {
        Some(l) => println!(
            "learner: network version {}, {} games learned, {} dropped, {} records refused, {:.0} s of training",
            l["version"],
            l["games"],
            l["games_dropped"],
            l["records_rejected"],
            l["elapsed_seconds"].as_f64().unwrap_or(0.0)
        ),
        None if finished => println!("learner: stopped"),
        None => println!("learner: no heartbeat in the last 30 s"),
    }
    println!("games in the stream (not yet read, or read and not yet checkpointed): {queued}");
    println!("{} live workers", workers.len());
    for (id, w) in &workers {
        println!(
            "  {id}: {}, {} games, {:.0} games/hour, network version {}, {} threads",
            w["state"].as_str().unwrap_or("playing"),
            w["games"],
            w["games_per_hour"].as_f64().unwrap_or(0.0),
            w["version"],
            w["threads"]
        );
    }
    Ok(ExitCode::SUCCESS)
}
