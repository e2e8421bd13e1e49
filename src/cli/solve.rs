//! `descent solve connect_four [--moves "d d e c" | --pons 4453] [--json]`: the exact score of a
//! Connect Four position and of each of its moves (`search::connect_four_solver`).

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail, ensure};
use clap::Args;
use serde::Serialize;

use crate::games::{Action, ConnectFour, Game, GameExt, GameSpec};
use crate::search::connect_four_solver::ConnectFourSolver;

const COLS: usize = ConnectFour::COLS;

#[derive(Args, Debug)]
#[command(group = clap::ArgGroup::new("move_list").args(["moves", "pons"]))]
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
    let mut position = ConnectFour::new(&Default::default());
    let mut played = Vec::new();
    let words: Vec<String> = match (&args.moves, &args.pons) {
        (Some(moves), None) => moves
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect(),
        (None, Some(pons)) => pons.chars().map(|c| c.to_string()).collect(),
        (None, None) => Vec::new(),
        (Some(_), Some(_)) => bail!("give either --moves or --pons, not both"),
    };
    for (index, word) in words.iter().enumerate() {
        let ply = index + 1;
        let action = if args.pons.is_some() {
            let column = word
                .parse::<Action>()
                .ok()
                .filter(|c| (1..=COLS as Action).contains(c))
                .with_context(|| format!("ply {ply}: {word:?} is not a column 1-7 (--pons)"))?;
            position.check_legal_id(usize::from(column - 1))
        } else {
            position.parse_legal_move(word)
        }
        .with_context(|| format!("ply {ply}"))?;
        position.play(action);
        played.push(action);
    }
    ensure!(
        position.outcome().is_none(),
        "the game is over after these {} moves: nothing to solve",
        words.len()
    );
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
    let mut pons = String::new();
    for action in played {
        moves.push(replay.move_to_text(action));
        pons.push(char::from(b'1' + action as u8));
        replay.play(action);
    }
    Ok(SolveReport {
        moves,
        pons,
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
