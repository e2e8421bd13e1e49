//! `descent accuracy connect_four --agent SPEC [--positions FILE]`: the share of perfect moves an
//! agent plays on positions scored by the perfect solver (`arena::perfect_moves`), with Wilson
//! intervals. Without `--positions`, the 1 000 positions that ship with descent.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, ensure};
use clap::Args;
use serde::Serialize;

use super::arena_output::PlayOptions;
use crate::arena::perfect_moves::{
    PerfectMoveCount, PerfectMoveTally, SHIPPED_POSITIONS, ScoredPosition, count_perfect_moves,
    parse_scored_positions,
};
use crate::arena::statistics::wilson_interval;
use crate::arena::{AgentFactory, AgentSpec};
use crate::games::{ConnectFour, GameSpec};
use crate::settings::files::read_regular_text;

/// A positions file larger than this is refused (the shipped one is ~40 KB).
const MAX_POSITIONS_FILE_BYTES: u64 = 64 << 20;

#[derive(Args, Debug)]
pub struct AccuracyArgs {
    /// The game (connect_four: the one with a solver).
    #[arg(value_parser = super::parse_game)]
    game: GameSpec,
    /// The agent, e.g. `ubfms:time=100ms,model=runs/c4` or `mcts:time=100ms`.
    #[arg(long)]
    agent: AgentSpec,
    /// Scored positions, one a line as Pascal Pons' solver writes them with `-a` (`descent solve
    /// connect_four --sample N` makes such a file); default: the 1 000 that ship with descent.
    #[arg(long)]
    positions: Option<PathBuf>,
    /// Only the first N positions.
    #[arg(long)]
    limit: Option<usize>,
    #[command(flatten)]
    play: PlayOptions,
}

#[derive(Serialize)]
struct CountReport {
    positions: u64,
    perfect: u64,
    perfect_share: f64,
    perfect_ci95: (f64, f64),
    fastest: u64,
    fastest_share: f64,
    fastest_ci95: (f64, f64),
}

impl CountReport {
    fn of(count: PerfectMoveCount) -> CountReport {
        let share = |k: u64| k as f64 / count.positions.max(1) as f64;
        let interval = |k: u64| wilson_interval(k as f64, count.positions as f64);
        CountReport {
            positions: count.positions,
            perfect: count.perfect,
            perfect_share: share(count.perfect),
            perfect_ci95: interval(count.perfect),
            fastest: count.fastest,
            fastest_share: share(count.fastest),
            fastest_ci95: interval(count.fastest),
        }
    }

    fn perfect_text(&self) -> String {
        self.share_text(self.perfect, self.perfect_share, self.perfect_ci95)
    }

    fn fastest_text(&self) -> String {
        self.share_text(self.fastest, self.fastest_share, self.fastest_ci95)
    }

    fn share_text(&self, count: u64, share: f64, ci95: (f64, f64)) -> String {
        format!(
            "{count} / {} = {:.1} % [{:.1}, {:.1}]",
            self.positions,
            100.0 * share,
            100.0 * ci95.0,
            100.0 * ci95.1
        )
    }
}

#[derive(Serialize)]
struct AccuracyReport {
    agent: String,
    model: String,
    positions_from: String,
    seed: u64,
    threads: usize,
    all: CountReport,
    won: CountReport,
    drawn: CountReport,
    lost: CountReport,
    seconds: f64,
}

/// # Errors
/// Bad arguments or a bad positions file, as one message for the user.
pub fn run(args: AccuracyArgs) -> anyhow::Result<ExitCode> {
    ensure!(
        args.game.name() == "connect_four",
        "no solver for {}: `descent accuracy` measures connect_four",
        args.game
    );
    super::threads_arg("--threads", args.play.threads)?;
    let (mut positions, positions_from) = read_positions(args.positions.as_deref())?;
    positions.truncate(args.limit.unwrap_or(usize::MAX).max(1));
    let device = args.play.device()?;
    let factory =
        AgentFactory::<ConnectFour>::new(args.agent.clone(), &args.game.to_string(), &device)?;
    let bar = super::progress::Progress::new(
        positions.len() as u64,
        "positions",
        args.play.quiet || args.play.json,
    );
    let start = Instant::now();
    let tally = count_perfect_moves(
        &positions,
        (args.play.threads, args.play.seed, None),
        &|| factory.build(),
        &|done| bar.set_position(done as u64),
    );
    bar.finish_and_clear();
    let report = report_of(
        &args,
        &factory,
        positions_from,
        tally,
        start.elapsed().as_secs_f64(),
    );
    if args.play.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print_report(&report);
    }
    Ok(ExitCode::SUCCESS)
}

/// The scored positions of `path` (a file as `solve --sample` writes it) or the 1 000 built
/// in, and where they come from.
///
/// # Errors
/// A file that cannot be read, a bad line (its number and what is wrong), no position.
pub(super) fn read_positions(path: Option<&Path>) -> anyhow::Result<(Vec<ScoredPosition>, String)> {
    let (text, from) = match path {
        Some(path) => (
            read_regular_text(path, MAX_POSITIONS_FILE_BYTES)?,
            path.display().to_string(),
        ),
        None => (
            SHIPPED_POSITIONS.to_string(),
            "data/connect_four_positions.txt (built in)".to_string(),
        ),
    };
    let positions = parse_scored_positions(&text).with_context(|| {
        format!("{from}: expected lines as Pons' solver writes them with -a (\"4453 -5 -5 -2 -3 -4 -2 -2\")")
    })?;
    ensure!(!positions.is_empty(), "{from}: no position");
    Ok((positions, from))
}

fn report_of(
    args: &AccuracyArgs,
    factory: &AgentFactory<ConnectFour>,
    positions_from: String,
    tally: PerfectMoveTally,
    seconds: f64,
) -> AccuracyReport {
    AccuracyReport {
        agent: args.agent.to_string(),
        model: factory.model_origin.clone(),
        positions_from,
        seed: args.play.seed,
        threads: args.play.threads,
        all: CountReport::of(tally.all),
        won: CountReport::of(tally.won),
        drawn: CountReport::of(tally.drawn),
        lost: CountReport::of(tally.lost),
        seconds,
    }
}

fn print_report(report: &AccuracyReport) {
    println!(
        "{} ({}) on {} positions from {}, {:.0} s:",
        report.agent, report.model, report.all.positions, report.positions_from, report.seconds
    );
    println!("  perfect moves  {}", report.all.perfect_text());
    println!("  fastest moves  {}", report.all.fastest_text());
    for (name, count) in [
        ("won", &report.won),
        ("drawn", &report.drawn),
        ("lost", &report.lost),
    ] {
        if count.positions > 0 {
            println!("  {name:<5} positions, perfect  {}", count.perfect_text());
        }
    }
    println!(
        "A move is perfect when it keeps the position's result (win, draw or loss for the side to \
         move), fastest when it has the best score (the quickest win); 95 % Wilson intervals."
    );
}
