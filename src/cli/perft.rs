//! `descent perft <game> <depth>`: leaf counts per depth and speed.

use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use crate::games::perft::perft_parallel;
use crate::games::{Game, GameSpec, GameVisitor};

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Game spec, e.g. awale or awale(repetition=false).
    #[arg(value_parser = super::parse_game)]
    game: GameSpec,
    /// Count every depth from 1 to this one.
    depth: usize,
}

struct PerftTable {
    depth: usize,
}

impl GameVisitor for PerftTable {
    type Output = ();
    fn visit<G: Game>(self, initial: G) {
        println!(
            "{:>5} {:>16} {:>10} {:>14}",
            "depth", "positions", "seconds", "positions/s"
        );
        for depth in 1..=self.depth {
            let start = Instant::now();
            let count = perft_parallel(&initial, depth);
            let seconds = start.elapsed().as_secs_f64();
            println!(
                "{depth:>5} {count:>16} {seconds:>10.3} {:>14.0}",
                count as f64 / seconds.max(1e-9)
            );
        }
    }
}

/// # Errors
/// Bad arguments or a failed subcommand, as one message for the user.
pub fn run(args: PerftArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        args.depth >= 1,
        "depth must be at least 1, got {}",
        args.depth
    );
    args.game.visit(PerftTable { depth: args.depth });
    Ok(ExitCode::SUCCESS)
}
