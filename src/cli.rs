//! Layer `cli`: command-line arguments (clap) → validated, typed parameters → library calls.
//! The only layer that reads files named on the command line or prints for people.

mod accuracy;
mod arena_output;
mod bench;
mod bench_learner;
mod bench_nn;
mod bench_search;
mod bench_selfplay;
mod check_net;
pub mod engine;
mod eval;
mod experiment;
mod export;
mod gain;
mod game_files;
mod games_export;
mod games_list;
mod gtp_client;
mod gtp_match;
mod gtp_rules;
mod input_lines;
mod interrupt;
mod ladder;
mod perft;
mod play;
mod progress;
mod replay;
mod serve;
mod solve;
mod status;
mod tournament;
mod train;
mod worker;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Teaches itself to play two-player board games (completed Descent + tree learning).
#[derive(Parser, Debug)]
#[command(name = "descent", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the registered games, their facts and parameters.
    Games(games_list::GamesArgs),
    /// Count the positions reached after exactly DEPTH moves (a rules check), and time it.
    Perft(perft::PerftArgs),
    /// Play a move list from the initial position and print every position.
    Replay(replay::ReplayArgs),
    /// Train a value network by self-play from a YAML configuration, or resume a run.
    Train(train::TrainArgs),
    /// Play self-play games for a distributed run's learner (`train --broker`) through Redis.
    Worker(worker::WorkerArgs),
    /// Show a distributed run: the learner, its workers, the games waiting.
    Status(status::StatusArgs),
    /// Play one agent against another, both colours, and report the result with its statistics.
    Eval(eval::EvalArgs),
    /// All-play-all between several agents: score matrix, significance, ratings.
    Tournament(tournament::TournamentArgs),
    /// Rate a run's networks against an anchor and each other (Elo with intervals): which is best.
    Ladder(ladder::LadderArgs),
    /// Compare training variants by the paper's protocol: curves over training time, final table.
    Experiment(experiment::ExperimentArgs),
    /// Write a checkpoint's network as one self-describing file (plus safetensors).
    Export(export::ExportArgs),
    /// Play against an agent at the terminal.
    Play(play::PlayArgs),
    /// A run's self-play games as SGF (go, othello, gomoku, hex) or PDN (draughts).
    GamesExport(games_export::GamesExportArgs),
    /// Serve an agent over GTP (the Go Text Protocol) on stdin / stdout.
    Engine(engine::EngineArgs),
    /// Games between two GTP engines (GNU Go, descent engine, …), each move checked by a
    /// referee engine; the result with its interval, the games of Go as SGF.
    GtpMatch(gtp_match::GtpMatchArgs),
    /// A local web application: runs with live curves, their games, a board to play any agent.
    Serve(serve::ServeArgs),
    /// A network's values of fixed positions on a device, against descent's own CPU pass and
    /// another machine's (same values to 1e-4, or a non-zero exit).
    CheckNet(check_net::CheckNetArgs),
    /// The exact score of a Connect Four position and of each of its moves (a perfect solver).
    Solve(solve::SolveArgs),
    /// The share of perfect moves an agent plays on Connect Four positions a perfect solver
    /// scored (1 000 ship with descent), with intervals.
    Accuracy(accuracy::AccuracyArgs),
    /// What a network adds over the same search without it, at several times a move, against
    /// one outside player: the card's table and its strength-against-time chart.
    Gain(gain::GainArgs),
    /// Benchmarks (each accepts --json for one JSON object on stdout).
    #[command(subcommand)]
    Bench(bench::BenchCommand),
}

/// The command line's description: every subcommand and flag, as `--help` prints them (the docs
/// tests check docs/cli.md and the README against it).
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    Cli::command()
}

/// Parses the command line and runs the subcommand.
///
/// # Errors
/// Bad arguments or a failed subcommand, as one message for the user.
pub fn run() -> anyhow::Result<ExitCode> {
    // Before any thread starts: every thread of the process inherits it.
    crate::value::direct::denormals::flush_denormals_to_zero();
    let cli = Cli::parse();
    let quiet = match &cli.command {
        Command::Train(args) => args.is_quiet(),
        Command::Experiment(args) => args.is_quiet(),
        _ => false,
    };
    init_logging(quiet);
    match cli.command {
        Command::Games(args) => games_list::run(args),
        Command::Perft(args) => perft::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Solve(args) => solve::run(args),
        Command::Accuracy(args) => accuracy::run(args),
        Command::Gain(args) => gain::run(args),
        Command::Train(args) => train::run(args),
        Command::Worker(args) => worker::run(args),
        Command::Status(args) => status::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Tournament(args) => tournament::run(args),
        Command::Experiment(args) => experiment::run(args),
        Command::Ladder(args) => ladder::run(args),
        Command::Export(args) => export::run(args),
        Command::Play(args) => play::run(args),
        Command::GamesExport(args) => games_export::run(args),
        Command::Engine(args) => engine::run(args),
        Command::GtpMatch(args) => gtp_match::run(args),
        Command::Serve(args) => serve::run(args),
        Command::CheckNet(args) => check_net::run(args),
        Command::Bench(command) => bench::run(command),
    }
}

/// Logs go to stderr (stdout is for results), printed above any progress bar;
/// `RUST_LOG` overrides the default level (`--quiet`: warnings only).
fn init_logging(quiet: bool) {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let default = if quiet { "warn" } else { "warn,descent=info" };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let progress = tracing_indicatif::IndicatifLayer::new();
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(
            tracing_subscriber::fmt::layer()
                .with_target(false)
                // Colour codes only for a terminal, not for a log file or a pipe.
                .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
                .with_writer(progress.get_stderr_writer()),
        )
        .with(progress)
        .try_init();
}

/// The words of a move list given on the command line, separated by spaces or commas.
fn move_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
}

/// Parses a game spec argument, with the registry's error message.
fn parse_game(text: &str) -> Result<crate::games::GameSpec, crate::settings::ConfigError> {
    text.parse()
}

/// `--game` when given, else the game the agents' networks were trained on (the first agent
/// with `model=` a saved or exported network: it knows its game).
///
/// # Errors
/// No `--game` and no agent with such a network; a network that cannot be read.
fn game_or_models_game(
    game: Option<crate::games::GameSpec>,
    agents: &[&crate::arena::AgentSpec],
) -> anyhow::Result<crate::games::GameSpec> {
    match game {
        Some(game) => Ok(game),
        None => models_game(agents)?.ok_or_else(|| anyhow::anyhow!(GIVE_GAME)),
    }
}

/// Why `--game` is needed: no agent's network knows its game.
const GIVE_GAME: &str = "give --game: no agent names a network that knows its game (model=…)";

/// The game of the first agent's network that knows its game (`model=`), if any.
fn models_game(
    agents: &[&crate::arena::AgentSpec],
) -> anyhow::Result<Option<crate::games::GameSpec>> {
    for agent in agents {
        if let Some(source) = &agent.model
            && let Some(name) = crate::arena::model::model_game(source)?
        {
            return name
                .parse()
                .map(Some)
                .map_err(|e| anyhow::anyhow!("the game of {agent}'s network: {e}"));
        }
    }
    Ok(None)
}

/// A settings file's error for the user: the file named once in front, and the YAML snippet
/// labelled with it instead of `<input>`.
fn file_error(path: &std::path::Path, error: impl std::fmt::Display) -> anyhow::Error {
    let name = path.display();
    let text = error
        .to_string()
        .replace("--> <input>:", &format!("--> {name}:"));
    anyhow::anyhow!("{name}: {text}")
}

/// A `--seconds` argument as a duration: a positive number of seconds, at most
/// `MAX_DURATION`.
fn seconds_arg(seconds: f64) -> anyhow::Result<std::time::Duration> {
    use crate::settings::duration_text::{MAX_DURATION, seconds_to_duration};
    seconds_to_duration(seconds)
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            anyhow::anyhow!(
                "--seconds must be a positive number of seconds up to {}, got {seconds}",
                MAX_DURATION.as_secs()
            )
        })
}

/// A number of games played half with each colour (`--games`, `--games-per-pair`): even, from
/// 2 to `MAX_GAMES`.
fn even_games_arg(flag: &str, games: u64) -> anyhow::Result<()> {
    use crate::settings::limits::MAX_GAMES;
    anyhow::ensure!(
        games >= 2 && games.is_multiple_of(2) && games <= MAX_GAMES,
        "{flag} {games}: expected an even number from 2 to {MAX_GAMES} (both colours equally)"
    );
    Ok(())
}

/// A `--threads` (or similar) count: at least 1, at most `MAX_THREADS`.
fn threads_arg(flag: &str, threads: usize) -> anyhow::Result<usize> {
    use crate::settings::limits::{MAX_THREADS, at_most};
    anyhow::ensure!(threads >= 1, "{flag} must be at least 1");
    Ok(at_most(flag, threads, MAX_THREADS)?)
}
