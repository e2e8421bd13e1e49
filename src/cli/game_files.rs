//! A game written in its community's file format: SGF for Go, Othello, Gomoku and Hex, PDN for
//! draughts (`descent games-export`, `descent play --save`).

use anyhow::{Context, bail};

use crate::games::pdn::pdn_record;
use crate::games::sgf::{game_number, result_text, sgf_record};
use crate::games::{Action, Game, GameExt, GameSpec};

/// The file extension of `game`'s format (`sgf`, `pdn`), `None` for a game without one.
pub fn record_extension(game: &GameSpec) -> Option<&'static str> {
    match game.name() {
        "draughts" => Some("pdn"),
        name if game_number(name).is_some() => Some("sgf"),
        _ => None,
    }
}

/// The record of the game `rules` played from `initial` by `moves` (in the game's notation),
/// its players named `players` (P0 first); `event` says where it comes from.
///
/// # Errors
/// A game without a file format, or a move that is not legal where it is played.
pub fn record_text<G: Game>(
    rules: &GameSpec,
    initial: &G,
    moves: &[String],
    players: [String; 2],
    event: &str,
) -> anyhow::Result<String> {
    let Some(extension) = record_extension(rules) else {
        bail!(
            "{} has no standard game file: SGF records go, othello, gomoku and hex, PDN records draughts",
            rules.name()
        );
    };
    let mut position = initial.clone();
    let mut actions: Vec<Action> = Vec::with_capacity(moves.len());
    for (ply, text) in moves.iter().enumerate() {
        let action = position
            .parse_legal_move(text)
            .with_context(|| format!("move {} ({text:?})", ply + 1))?;
        actions.push(action);
        position.play(action);
    }
    let winner = position.outcome().map(|o| o.winner());
    Ok(match extension {
        "pdn" => pdn_record(initial, &actions, players, winner, event)?,
        _ => {
            let mut record = sgf_record(initial, &actions, players, result_text(&position))?;
            record.komi = rules.param("komi").and_then(|k| k.parse().ok());
            record.comment = Some(event.to_string());
            record.to_string()
        }
    })
}
