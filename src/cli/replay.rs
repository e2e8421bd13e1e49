//! `descent replay <game> --moves "C d A" | --ids 2,3,0 [--json]`: plays a move list from the
//! initial position and prints every position, to check the rules against other implementations.
//!
//! JSON (stable field names, documented in docs/cli.md):
//! `{"game", "positions": [{"ply", "move", "move_id", "to_move", "legal_moves", "legal_ids",
//! "terminal", "returns", "score_p0", "pieces", "hash", "board"}]}`.

use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;
use serde::Serialize;

use crate::games::{Action, Game, GameExt, GameSpec, GameVisitor};

#[derive(Args, Debug)]
#[command(group = clap::ArgGroup::new("move_list").args(["moves", "ids"]))]
pub struct ReplayArgs {
    /// Game spec, e.g. awale or connect_four.
    #[arg(value_parser = super::parse_game)]
    game: GameSpec,
    /// Moves in the game's notation, separated by spaces or commas (e.g. "C d A").
    #[arg(long, allow_hyphen_values = true)]
    moves: Option<String>,
    /// Moves as action ids (OpenSpiel's numbering), separated by commas or spaces (e.g. 2,3,0).
    #[arg(long, allow_hyphen_values = true)]
    ids: Option<String>,
    /// Print one JSON object instead of boards.
    #[arg(long)]
    json: bool,
}

/// One position of the replay.
#[derive(Serialize)]
struct PositionReport {
    /// Plies played from the start.
    ply: usize,
    /// The move that led here (text), absent at ply 0.
    #[serde(rename = "move")]
    last_move: Option<String>,
    /// Its action id.
    move_id: Option<Action>,
    /// "p0" or "p1"; null once the game is over.
    to_move: Option<String>,
    legal_moves: Vec<String>,
    legal_ids: Vec<Action>,
    terminal: bool,
    /// OpenSpiel's returns [P0, P1]: ±1 / 0 once over, [0, 0] before.
    returns: [f32; 2],
    /// The game's score, P0 minus P1 (null for games without one).
    score_p0: Option<i32>,
    /// Pieces each player has on the board, [P0, P1].
    pieces: [u32; 2],
    /// Zobrist hash, hexadecimal.
    hash: String,
    /// The board as `Display` draws it.
    board: String,
}

#[derive(Serialize)]
struct ReplayReport {
    game: String,
    positions: Vec<PositionReport>,
}

enum MoveList {
    Texts(Vec<String>),
    Ids(Vec<String>),
}

struct Replay {
    moves: MoveList,
}

fn report<G: Game>(position: &G, last: Option<(String, Action)>) -> PositionReport {
    let mut legal = Vec::with_capacity(G::NUM_ACTIONS);
    position.legal_actions(&mut legal);
    let mover = position.to_move();
    PositionReport {
        ply: position.ply(),
        move_id: last.as_ref().map(|(_, id)| *id),
        last_move: last.map(|(text, _)| text),
        to_move: (!position.is_terminal()).then(|| mover.to_string()),
        legal_moves: legal.iter().map(|&a| position.move_to_text(a)).collect(),
        legal_ids: legal,
        terminal: position.is_terminal(),
        returns: position.outcome().map_or([0.0, 0.0], |o| o.returns()),
        score_p0: position.score_p0(),
        pieces: position.piece_counts(),
        hash: format!("{:016x}", position.hash()),
        board: position.to_string(),
    }
}

impl GameVisitor for Replay {
    type Output = anyhow::Result<Vec<PositionReport>>;
    fn visit<G: Game>(self, mut position: G) -> Self::Output {
        let mut reports = vec![report(&position, None)];
        let words = match &self.moves {
            MoveList::Texts(words) | MoveList::Ids(words) => words,
        };
        for (index, word) in words.iter().enumerate() {
            let ply = index + 1;
            let action = match self.moves {
                MoveList::Texts(_) => position.parse_legal_move(word),
                MoveList::Ids(_) => {
                    let id: usize = word.parse().with_context(|| {
                        format!("ply {ply}: action id {word:?} is not a non-negative integer")
                    })?;
                    position.check_legal_id(id)
                }
            }
            .with_context(|| format!("ply {ply}"))?;
            let text = position.move_to_text(action);
            position.play(action);
            reports.push(report(&position, Some((text, action))));
        }
        Ok(reports)
    }
}

/// # Errors
/// Bad arguments or a failed subcommand, as one message for the user.
pub fn run(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let moves = match (&args.moves, &args.ids) {
        (Some(texts), None) => {
            MoveList::Texts(super::move_words(texts).map(str::to_string).collect())
        }
        (None, Some(ids)) => MoveList::Ids(super::move_words(ids).map(str::to_string).collect()),
        (None, None) => MoveList::Texts(Vec::new()),
        (Some(_), Some(_)) => bail!("give either --moves or --ids, not both"),
    };
    let positions = args.game.visit(Replay { moves })?;
    if args.json {
        let report = ReplayReport {
            game: args.game.to_string(),
            positions,
        };
        println!("{}", serde_json::to_string(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    for p in &positions {
        let header = match (&p.last_move, p.move_id) {
            (Some(text), Some(id)) => format!("ply {} after {text} (id {id})", p.ply),
            _ => format!("ply {} (start)", p.ply),
        };
        let state = match &p.to_move {
            Some(player) => format!("{player} to move"),
            None => format!("game over, returns [{}, {}]", p.returns[0], p.returns[1]),
        };
        let legal: Vec<String> = p
            .legal_moves
            .iter()
            .zip(&p.legal_ids)
            .map(|(t, id)| format!("{t}({id})"))
            .collect();
        let score = p
            .score_p0
            .map(|s| format!(", score p0-p1 {s:+}"))
            .unwrap_or_default();
        println!(
            "{header}: {state}{score}; legal: {}",
            if legal.is_empty() {
                "-".to_string()
            } else {
                legal.join(" ")
            }
        );
        println!("{}\n", p.board);
    }
    Ok(ExitCode::SUCCESS)
}
