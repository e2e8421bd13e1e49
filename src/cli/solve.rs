//! `descent solve connect_four [--moves "d d e c" | --pons 4453] [--json]`: the exact score of a
//! Connect Four position and of each of its moves (`search::connect_four_solver`);
//! `--sample N` instead writes N random positions scored (the lines `descent accuracy` reads).

use std::ops::RangeInclusive;
use std::process::ExitCode;
use std::time::Instant;

use std::io::Write;

use anyhow::{Context, anyhow, bail, ensure};
use clap::Args;
use serde::Serialize;

use crate::arena::perfect_moves::{ScoredPositionSampler, play_pons_moves, pons_moves_text};
use crate::games::{Action, ConnectFour, Game, GameExt, GameSpec};
use crate::search::connect_four_solver::ConnectFourSolver;

const COLS: usize = ConnectFour::COLS;

#[derive(Args, Debug)]
#[command(group = clap::ArgGroup::new("move_list").args(["moves", "pons", "sample"]))]
pub struct SolveArgs {
    /// The game (connect_four: the one with a solver).
    #[arg(value_parser = super::parse_game)]
    game: GameSpec,
    /// Moves from the start in the game's notation, separated by spaces or commas ("d d e c").
    #[arg(long, allow_hyphen_values = true)]
    moves: Option<String>,
    /// Moves from the start as Pascal Pons writes them: one digit a move, columns 1-7 ("4453").
    #[arg(long, allow_hyphen_values = true)]
    pons: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// Instead of one position: N distinct random positions where some move loses the result,
    /// each line the moves and every column's score as Pons' solver writes them with `-a`.
    #[arg(long, value_name = "N")]
    sample: Option<usize>,
    /// With --sample: the number of random moves, drawn uniformly from this range.
    #[arg(long, default_value = "8-20", value_parser = parse_plies, requires = "sample")]
    plies: RangeInclusive<usize>,
    /// With --sample: the seed of the random moves.
    #[arg(long, default_value_t = 1, requires = "sample")]
    seed: u64,
    /// With --sample: only positions where at most K moves keep the result (1 or 2: positions
    /// where the move decides), a subsequence of the sample without it.
    #[arg(long, value_name = "K", requires = "sample",
          value_parser = clap::value_parser!(u8).range(1..=6))]
    max_perfect: Option<u8>,
}

/// At most this many sampled positions (each takes up to seconds to solve).
const MAX_SAMPLE: usize = 1_000_000;

/// "8-20" (or "12": one length); lengths from 0 to 41 (a full board ends the game). A
/// string error: clap's value parser shows it as it is.
fn parse_plies(text: &str) -> Result<RangeInclusive<usize>, String> {
    let number = |word: &str| {
        word.trim()
            .parse::<usize>()
            .ok()
            .filter(|&n| n < ConnectFour::COLS * ConnectFour::ROWS)
            .ok_or_else(|| format!("{word:?} is not a number of moves from 0 to 41"))
    };
    let (low, high) = match text.split_once('-') {
        Some((low, high)) => (number(low)?, number(high)?),
        None => (number(text)?, number(text)?),
    };
    if low > high {
        return Err(format!("{text:?}: the first number is above the second"));
    }
    Ok(low..=high)
}

#[derive(Serialize)]
struct SolveReport {
    /// The moves played, in the game's notation.
    moves: Vec<String>,
    /// The same in Pons' notation.
    pons: String,
    to_move: String,
    /// The position's score for the side to move (Pons': +k wins with its k-th last stone).
    score: i32,
    /// Each column's score for the side to move, null where the column is full.
    column_scores: [Option<i32>; COLS],
    /// The columns of the best score, in the game's notation.
    best: Vec<String>,
    nodes: u64,
    seconds: f64,
}

/// The position after `args`' moves, each checked legal, and those moves.
fn position_of(args: &SolveArgs) -> anyhow::Result<(ConnectFour, Vec<Action>)> {
    let (position, played) = match (&args.moves, &args.pons) {
        (Some(_), Some(_)) => bail!("give either --moves or --pons, not both"),
        (None, Some(pons)) => play_pons_moves(pons).map_err(|e| anyhow!("--pons: {e}"))?,
        (Some(moves), None) => play_moves(moves)?,
        (None, None) => (ConnectFour::new(&Default::default()), Vec::new()),
    };
    ensure!(
        position.outcome().is_none(),
        "the game is over after these {} moves: nothing to solve",
        played.len()
    );
    Ok((position, played))
}

/// The position after moves in the game's notation, separated by spaces or commas.
fn play_moves(text: &str) -> anyhow::Result<(ConnectFour, Vec<Action>)> {
    let mut position = ConnectFour::new(&Default::default());
    let mut played = Vec::new();
    for (index, word) in super::move_words(text).enumerate() {
        let action = position
            .parse_legal_move(word)
            .with_context(|| format!("ply {}", index + 1))?;
        position.play(action);
        played.push(action);
    }
    Ok((position, played))
}

fn solve(args: &SolveArgs) -> anyhow::Result<SolveReport> {
    let (position, played) = position_of(args)?;
    let mut solver = ConnectFourSolver::default();
    let start = Instant::now();
    let column_scores = solver.column_scores(&position);
    let seconds = start.elapsed().as_secs_f64();
    let score = column_scores
        .iter()
        .flatten()
        .copied()
        .max()
        .context("no move")?;
    let name = |column: usize| position.move_to_text(column as Action);
    let mut replay = ConnectFour::new(&Default::default());
    let mut moves = Vec::new();
    for &action in &played {
        moves.push(replay.move_to_text(action));
        replay.play(action);
    }
    Ok(SolveReport {
        moves,
        pons: pons_moves_text(&played),
        to_move: position.to_move().to_string(),
        score,
        best: (0..COLS)
            .filter(|&c| column_scores[c] == Some(score))
            .map(name)
            .collect(),
        column_scores,
        nodes: solver.nodes(),
        seconds,
    })
}

/// # Errors
/// Bad arguments, as one message for the user.
pub fn run(args: SolveArgs) -> anyhow::Result<ExitCode> {
    ensure!(
        args.game.name() == "connect_four",
        "no solver for {}: `descent solve` solves connect_four",
        args.game
    );
    if let Some(count) = args.sample {
        crate::settings::limits::at_most("--sample", count, MAX_SAMPLE)?;
        let sampler =
            ScoredPositionSampler::new(args.plies.clone(), args.seed, ConnectFourSolver::default())
                .with_max_perfect(args.max_perfect.map_or(COLS, usize::from));
        let mut out = std::io::stdout().lock();
        let mut written = 0;
        for scored in sampler.take(count) {
            writeln!(out, "{}", scored.to_line())?;
            out.flush()?;
            written += 1;
        }
        ensure!(
            written == count,
            "--sample {count}: only {written} distinct positions in play and not all equal \
             (informative) after {}-{} random moves; ask for fewer or widen --plies",
            args.plies.start(),
            args.plies.end()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let report = solve(&args)?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    let cells = |f: &dyn Fn(usize) -> String| (0..COLS).map(f).collect::<Vec<_>>().join(" ");
    println!(
        "after {} (Pons {}): {} to move, score {:+}",
        if report.moves.is_empty() {
            "no move".to_string()
        } else {
            report.moves.join(" ")
        },
        if report.pons.is_empty() {
            "-"
        } else {
            &report.pons
        },
        report.to_move,
        report.score
    );
    println!(
        "column {}",
        cells(&|c| format!("{:>4}", (b'a' + c as u8) as char))
    );
    println!(
        "score  {}",
        cells(&|c| report.column_scores[c].map_or("   -".to_string(), |s| format!("{s:>+4}")))
    );
    println!(
        "best: {} ({} nodes, {:.3} s). Scores from the side to move: +k wins with its k-th last \
         stone, −k loses to the opponent's k-th last, 0 a draw.",
        report.best.join(" "),
        report.nodes,
        report.seconds
    );
    Ok(ExitCode::SUCCESS)
}
