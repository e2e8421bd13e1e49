//! `descent bench search <game> --algo SPEC …`: the speed of one search from the initial
//! position, with a fixed seed (iteration budgets are reproducible). `--algo` is a search spec
//! (`search::SearchSpec`, the parser of agents and YAML runs), the budget flags add its budget.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use rand::SeedableRng;
use serde::Serialize;

use crate::games::{Game, GameSpec, GameVisitor};
use crate::search::{
    Budget, ConstantEvaluator, Evaluator, KeepForLearning, RandomEvaluator, ScoreEvaluator,
    SearchRng, SearchSpec, SearchStats, TerminalEval, Variant,
};

#[derive(Clone, Copy, Debug, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EvaluatorChoice {
    /// 0 for every position.
    Constant,
    /// A seeded pseudo-random value per position.
    Random,
    /// The game's score (P0 minus P1) / 48.
    Score,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// Game spec, e.g. awale.
    #[arg(value_parser = super::parse_game)]
    game: GameSpec,
    /// The search to time: a search spec without its budget, e.g. `descent`, `ubfms`, `mcts`,
    /// `mcts:c=1.4,playout=heavy`, `alphabeta:depth=6` (the kinds: random, greedy, minimax1,
    /// mcts, alphabeta, ubfm, ubfms, descent).
    #[arg(long, default_value = "descent")]
    algo: String,
    /// Iteration budget (Descent/UBFM iterations, MCTS simulations, alpha-beta nodes).
    #[arg(long)]
    iterations: Option<u64>,
    /// Time budget in seconds (default 3 when no iteration budget is given).
    #[arg(long)]
    seconds: Option<f64>,
    /// Leaf values for the minimax searches and alpha-beta (MCTS uses random playouts).
    #[arg(long, value_enum, default_value_t = EvaluatorChoice::Constant)]
    evaluator: EvaluatorChoice,
    /// Repeat the search this many times (fresh tree each time) and report the totals.
    #[arg(long, default_value_t = 1)]
    repeat: u32,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct SearchReport {
    bench: &'static str,
    game: String,
    algo: String,
    evaluator: EvaluatorChoice,
    searches: u32,
    seconds: f64,
    iterations: u64,
    iterations_per_s: f64,
    /// Expanded states (minimax searches), created tree nodes (MCTS), or 0.
    expansions: u64,
    expansions_per_s: f64,
    /// Table entries (S) after the last search and per second of search (minimax searches).
    table_entries: usize,
    table_entries_per_s: f64,
    table_bytes_per_entry: f64,
    evaluator_calls: u64,
    evaluated_positions: u64,
    mean_batch: f64,
    max_depth: u32,
}

struct Bench {
    search: SearchSpec,
    budget: Budget,
    repeat: u32,
    seed: u64,
    evaluator: EvaluatorChoice,
}

impl Bench {
    fn run<G: Game, E: Evaluator<G>>(&self, root: &G, evaluator: &E) -> (SearchStats, usize, f64) {
        // Descent as in training (terminal states recorded), the others as when playing.
        let keep = KeepForLearning {
            terminal_states: matches!(
                self.search,
                SearchSpec::TreeSearch {
                    variant: Variant::Descent,
                    ..
                }
            ),
            positions: false,
        };
        let mut total = SearchStats::default();
        let mut entries = 0;
        let mut bytes_per_entry = 0.0;
        for i in 0..self.repeat {
            let mut rng = SearchRng::seed_from_u64(self.seed.wrapping_add(i as u64));
            let mut searcher = self.search.build::<G>(TerminalEval::Classic, keep);
            let stats = searcher.search(root, evaluator, &self.budget, &mut rng);
            assert!(
                searcher.decide(root, &mut rng).is_some(),
                "the search found no move"
            );
            if let Some(table) = searcher.table() {
                entries = table.len();
                bytes_per_entry = table.memory_bytes() as f64 / table.len().max(1) as f64;
            }
            total.add(&stats);
        }
        (total, entries, bytes_per_entry)
    }
}

impl GameVisitor for Bench {
    type Output = (SearchStats, usize, f64);
    fn visit<G: Game>(self, root: G) -> Self::Output {
        match self.evaluator {
            EvaluatorChoice::Constant => self.run(&root, &ConstantEvaluator(0.0)),
            EvaluatorChoice::Random => self.run(&root, &RandomEvaluator::new(self.seed)),
            EvaluatorChoice::Score => self.run(&root, &ScoreEvaluator::default()),
        }
    }
}

/// # Errors
/// Bad arguments or a failed subcommand, as one message for the user.
pub fn run(args: SearchArgs) -> anyhow::Result<ExitCode> {
    let time = match (args.iterations, args.seconds) {
        (None, None) => Some(3.0),
        (_, seconds) => seconds,
    };
    let time = time.map(super::seconds_arg).transpose()?;
    anyhow::ensure!(
        args.iterations != Some(0),
        "--iterations must be at least 1"
    );
    anyhow::ensure!(args.repeat >= 1, "--repeat must be at least 1");
    let budget = Budget {
        iterations: args.iterations,
        time,
        stop: None,
    };
    let mut text = args.algo.clone();
    let budget_keys = [
        budget.iterations.map(|n| format!("iters={n}")),
        budget.time.map(|t| format!("time={}s", t.as_secs_f64())),
    ];
    for key in budget_keys.into_iter().flatten() {
        text.push(if text.contains(':') { ',' } else { ':' });
        text.push_str(&key);
    }
    let search = SearchSpec::parse(&text, false).map_err(|e| e.within("--algo"))?;
    // The spec's budget: the flags' and any `iters=` / `time=` written in --algo (one-ply
    // players have none and ignore it).
    let budget = search.budget().unwrap_or(budget);
    let bench = Bench {
        search,
        budget,
        repeat: args.repeat,
        seed: args.seed,
        evaluator: args.evaluator,
    };
    let (stats, table_entries, table_bytes_per_entry) = args.game.visit(bench);
    let seconds = stats.seconds.max(1e-9);
    let report = SearchReport {
        bench: "search",
        game: args.game.to_string(),
        algo: args.algo.clone(),
        evaluator: args.evaluator,
        searches: args.repeat,
        seconds: stats.seconds,
        iterations: stats.iterations,
        iterations_per_s: stats.iterations as f64 / seconds,
        expansions: stats.expansions,
        expansions_per_s: stats.expansions as f64 / seconds,
        table_entries,
        table_entries_per_s: table_entries as f64 * args.repeat as f64 / seconds,
        table_bytes_per_entry,
        evaluator_calls: stats.evaluator_calls,
        evaluated_positions: stats.evaluated_positions,
        mean_batch: stats.mean_batch(),
        max_depth: stats.max_depth,
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print_report(&report);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_report(report: &SearchReport) {
    println!(
        "{} on {} ({} search(es), {:.2} s, evaluator {:?})",
        report.algo, report.game, report.searches, report.seconds, report.evaluator
    );
    println!(
        "  {:>12.0} iterations/s ({} iterations)",
        report.iterations_per_s, report.iterations
    );
    println!(
        "  {:>12.0} expansions/s ({} expansions)",
        report.expansions_per_s, report.expansions
    );
    if report.table_entries > 0 {
        println!(
            "  {:>12.0} table entries/s ({} entries in the last table, {:.0} bytes each)",
            report.table_entries_per_s, report.table_entries, report.table_bytes_per_entry
        );
    }
    println!(
        "  {} evaluator calls, {} positions, mean batch {:.2}, deepest ply {}",
        report.evaluator_calls, report.evaluated_positions, report.mean_batch, report.max_depth
    );
}
