//! PDN (Portable Draughts Notation) records of draughts games: the tag pairs (`White`, `Black`,
//! `Result`, `GameType`: 20 International 10 × 10, 26 Brazilian 8 × 8, 27 Canadian 12 × 12),
//! then the moves as descent writes them — PDN's own `32-28`, `28x19` — numbered by move pair,
//! White (P0) first, and the result: `2-0` White won, `0-2` Black won, `1-1` a draw, `*` unknown.

use std::fmt::Write as _;

use super::board_view::Layout;
use super::game::{Action, Game, Player};

/// PDN's `GameType` of a draughts board of `side` squares a side.
fn game_type(side: usize) -> Option<u32> {
    match side {
        10 => Some(20),
        8 => Some(26),
        12 => Some(27),
        _ => None,
    }
}

/// Why a game cannot be written in PDN.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0} is not draughts: PDN records draughts only")]
pub struct NotDraughts(pub &'static str);

/// A PDN tag value: `"` and `\` escaped.
fn tag_value(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// PDN's result: `2-0`, `0-2`, `1-1`, or `*` while unknown.
fn result_text(winner: Option<Option<Player>>) -> &'static str {
    match winner {
        Some(Some(Player::P0)) => "2-0",
        Some(Some(Player::P1)) => "0-2",
        Some(None) => "1-1",
        None => "*",
    }
}

/// The PDN record of the draughts game played from `initial` (the standard start) by `actions`
/// (legal, in order), White (P0) and Black named by `players`, `winner` the result when known
/// (`Some(None)`: a draw).
///
/// # Errors
/// `G` is not draughts.
pub fn pdn_record<G: Game>(
    initial: &G,
    actions: &[Action],
    players: [String; 2],
    winner: Option<Option<Player>>,
    event: &str,
) -> Result<String, NotDraughts> {
    let side = match initial.board_view().layout {
        Layout::Squares { rows, .. } if G::NAME == "draughts" => rows,
        _ => return Err(NotDraughts(G::NAME)),
    };
    let result = result_text(winner);
    let mut out = String::new();
    let tags = [
        ("Event", tag_value(event)),
        ("White", tag_value(&players[0])),
        ("Black", tag_value(&players[1])),
        ("Result", result.to_string()),
        (
            "GameType",
            game_type(side).map_or("?".into(), |t| t.to_string()),
        ),
    ];
    for (name, value) in tags {
        let _ = writeln!(out, "[{name} \"{value}\"]");
    }
    out.push('\n');
    let mut position = initial.clone();
    let mut line = String::new();
    for (ply, &action) in actions.iter().enumerate() {
        let mut word = position.move_to_text(action);
        if ply % 2 == 0 {
            word = format!("{}. {word}", ply / 2 + 1);
        }
        if !line.is_empty() && line.len() + word.len() >= 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
        position.play(action);
    }
    if !line.is_empty() {
        line.push(' ');
    }
    line.push_str(result);
    out.push_str(&line);
    out.push_str("\n\n");
    Ok(out)
}
