//! Move text: `<passive board><square>:<aggressive board><square>:<direction><length>`, e.g.
//! `0a1:1b1:N2`.

use super::{ActionParts, DIRECTION_NAMES, Player};
use crate::games::Action;

/// What is wrong with a move text (the caller adds the notation's help).
#[derive(Debug, thiserror::Error)]
pub(super) enum NotationError {
    #[error("expected three parts separated by ':'")]
    Parts,
    #[error("{0:?} is not a board 0-3 followed by a square a1-d4")]
    Stone(String),
    #[error(
        "board {board} is not a home board of {player}, who plays its passive move on boards {} and {}",
        2 * player.index(),
        2 * player.index() + 1
    )]
    NotHome { board: usize, player: Player },
    #[error("the aggressive board {aggressive} has the colour of the passive board {passive}")]
    SameColour { passive: usize, aggressive: usize },
    #[error("{0:?} is not a direction (N NE E SE S SW W NW) and a length 1 or 2")]
    Step(String),
}

/// `(board, square)` from e.g. `0a1`.
fn stone(text: &str) -> Result<(usize, usize), NotationError> {
    let &[board @ b'0'..=b'3', file @ b'a'..=b'd', rank @ b'1'..=b'4'] = text.as_bytes() else {
        return Err(NotationError::Stone(text.to_string()));
    };
    Ok((
        (board - b'0') as usize,
        ((rank - b'1') * 4 + (file - b'a')) as usize,
    ))
}

/// `(direction, length)` from e.g. `N2` or `sw1`.
fn step(text: &str) -> Result<(usize, usize), NotationError> {
    let bad = || NotationError::Step(text.to_string());
    let split = text.find(['1', '2']).ok_or_else(bad)?;
    let (direction, length) = text.split_at(split);
    let dir = DIRECTION_NAMES
        .iter()
        .position(|d| d.eq_ignore_ascii_case(direction))
        .ok_or_else(bad)?;
    match length {
        "1" => Ok((dir, 1)),
        "2" => Ok((dir, 2)),
        _ => Err(bad()),
    }
}

/// The action id of a move text of `player` (legality is not checked).
pub(super) fn parse(player: Player, text: &str) -> Result<Action, NotationError> {
    let fields: Vec<&str> = text.split(':').collect();
    let [passive, aggressive, direction_length] = fields[..] else {
        return Err(NotationError::Parts);
    };
    let (pb, ps) = stone(passive)?;
    let (ab, as_) = stone(aggressive)?;
    if pb / 2 != player.index() {
        return Err(NotationError::NotHome { board: pb, player });
    }
    if ab % 2 == pb % 2 {
        return Err(NotationError::SameColour {
            passive: pb,
            aggressive: ab,
        });
    }
    let (dir, length) = step(direction_length)?;
    Ok(ActionParts {
        j: pb % 2,
        passive: ps,
        i: ab / 2,
        aggressive: as_,
        dir,
        length,
    }
    .id())
}
