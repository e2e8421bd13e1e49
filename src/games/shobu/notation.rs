//! Move text parsing.

use super::{ActionParts, DIRECTION_NAMES, Player};
use crate::games::Action;

/// `(board, square)` from e.g. `0a1`.
fn stone(text: &str) -> Result<(usize, usize), String> {
    let bytes = text.as_bytes();
    let &[board @ b'0'..=b'3', file @ b'a'..=b'd', rank @ b'1'..=b'4'] = bytes else {
        return Err(format!(
            "{text:?} is not a board 0-3 followed by a square a1-d4"
        ));
    };
    Ok((
        (board - b'0') as usize,
        ((rank - b'1') * 4 + (file - b'a')) as usize,
    ))
}

pub(super) fn parse(player: Player, text: &str) -> Result<Action, String> {
    let fields: Vec<&str> = text.split(':').collect();
    let [passive, aggressive, step] = fields[..] else {
        return Err("expected three parts separated by ':'".to_string());
    };
    let (pb, ps) = stone(passive)?;
    let (ab, as_) = stone(aggressive)?;
    if pb / 2 != player.index() {
        return Err(format!(
            "board {pb} is not a home board of {player}, who plays its passive move on boards {} and {}",
            2 * player.index(),
            2 * player.index() + 1
        ));
    }
    if ab % 2 == pb % 2 {
        return Err(format!(
            "the aggressive board {ab} has the colour of the passive board {pb}"
        ));
    }
    let split = step.find(['1', '2']).ok_or_else(|| {
        format!("{step:?} is not a direction (N NE E SE S SW W NW) and a length 1 or 2")
    })?;
    let (direction, length) = step.split_at(split);
    let dir = DIRECTION_NAMES
        .iter()
        .position(|d| d.eq_ignore_ascii_case(direction))
        .ok_or_else(|| format!("{direction:?} is not a direction (N NE E SE S SW W NW)"))?;
    let length = match length {
        "1" => 1,
        "2" => 2,
        _ => return Err(format!("{length:?} is not a length 1 or 2")),
    };
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
