//! SGF (Smart Game Format, `FF[4]`) records of the games played by placing stones on cells: Go
//! (`GM[1]`), Othello (`GM[2]`), Gomoku (`GM[4]`) and Hex (`GM[11]`). A point is written as
//! SGF writes it: its column then its row as letters, `a` the left column and the top row, as
//! the board is drawn (`Game::board_view`); a pass is `[]`, Hex's swap is HexGui's
//! `[swap-pieces]`.

use std::fmt;

use super::game::{Action, Game, Player};

/// A move as SGF writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SgfMove {
    /// A stone on the cell at `(col, row)`, counted from the top-left corner.
    Point {
        col: usize,
        row: usize,
    },
    Pass,
    /// Hex's swap (HexGui's `swap-pieces`).
    Swap,
}

/// One game as an SGF record.
#[derive(Clone, Debug, PartialEq)]
pub struct SgfRecord {
    /// SGF's game number: 1 Go, 2 Othello, 4 Gomoku, 11 Hex.
    pub game_number: u32,
    /// Columns and rows.
    pub size: (usize, usize),
    pub komi: Option<f64>,
    /// SGF's `RU`: the rules the result was scored by ("Chinese"); `None`: not said.
    pub rules: Option<String>,
    /// Who played Black (the first player, P0) and White.
    pub players: [String; 2],
    /// SGF's `RE`: `B+3.5`, `W+R` (resignation), `0` (a draw); `None`: unknown.
    pub result: Option<String>,
    /// What the record is: a comment on the root node.
    pub comment: Option<String>,
    pub moves: Vec<(Player, SgfMove)>,
}

/// SGF's game number of a game descent writes in SGF, `None` for the others.
pub fn game_number(game: &str) -> Option<u32> {
    match game {
        "go" => Some(1),
        "othello" => Some(2),
        "gomoku" => Some(4),
        "hex" => Some(11),
        _ => None,
    }
}

/// A point's letter: `a`-`z`, then `A`-`Z` (`FF[4]` boards up to 52).
fn coordinate(index: usize) -> char {
    const LETTERS: &[u8; 52] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    char::from(LETTERS[index])
}

/// A property value with SGF's escapes (`\` and `]`).
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\\' || c == ']' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl fmt::Display for SgfRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (cols, rows) = self.size;
        write!(
            f,
            "(;FF[4]CA[UTF-8]GM[{}]AP[descent:{}]",
            self.game_number,
            env!("CARGO_PKG_VERSION")
        )?;
        if cols == rows {
            write!(f, "SZ[{cols}]")?;
        } else {
            write!(f, "SZ[{cols}:{rows}]")?;
        }
        if let Some(komi) = self.komi {
            write!(f, "KM[{komi}]")?;
        }
        if let Some(rules) = &self.rules {
            write!(f, "RU[{}]", escaped(rules))?;
        }
        write!(
            f,
            "PB[{}]PW[{}]",
            escaped(&self.players[0]),
            escaped(&self.players[1])
        )?;
        if let Some(result) = &self.result {
            write!(f, "RE[{}]", escaped(result))?;
        }
        if let Some(comment) = &self.comment {
            write!(f, "C[{}]", escaped(comment))?;
        }
        for (i, (player, mv)) in self.moves.iter().enumerate() {
            if i % 10 == 0 {
                writeln!(f)?;
            }
            let colour = if *player == Player::P0 { 'B' } else { 'W' };
            let mut value = String::new();
            match *mv {
                SgfMove::Point { col, row } => {
                    value.push(coordinate(col));
                    value.push(coordinate(row));
                }
                SgfMove::Pass => {}
                SgfMove::Swap => value.push_str("swap-pieces"),
            }
            write!(f, ";{colour}[{value}]")?;
        }
        writeln!(f, ")")
    }
}

/// Why a game cannot be written in SGF.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SgfError {
    #[error("{0} has no SGF game number (SGF records go, othello, gomoku and hex)")]
    NotAnSgfGame(&'static str),
    #[error("move {0:?} is neither one cell nor a pass")]
    NotAStone(String),
}

/// The SGF record of the game played from `initial` by `actions` (legal, in order), its
/// players named `players`, with `result` (SGF's `RE`) when known.
///
/// # Errors
/// A game SGF does not record, or a move that is not one stone, a pass or Hex's swap.
pub fn sgf_record<G: Game>(
    initial: &G,
    actions: &[Action],
    players: [String; 2],
    result: Option<String>,
) -> Result<SgfRecord, SgfError> {
    let game_number = game_number(G::NAME).ok_or(SgfError::NotAnSgfGame(G::NAME))?;
    let view = initial.board_view();
    let cols = view.cells.iter().map(|c| c.col + 1).max().unwrap_or(0);
    let rows = view.cells.iter().map(|c| c.row + 1).max().unwrap_or(0);
    let mut position = initial.clone();
    let mut moves = Vec::with_capacity(actions.len());
    for &action in actions {
        let text = position.move_to_text(action);
        let mv = match position.move_cells(action).as_slice() {
            [] if text == "pass" => SgfMove::Pass,
            [] if text == "swap" => SgfMove::Swap,
            [cell] => view
                .cells
                .iter()
                .find(|c| c.id == *cell)
                .map(|c| SgfMove::Point {
                    col: c.col,
                    row: c.row,
                })
                .ok_or_else(|| SgfError::NotAStone(text.clone()))?,
            _ => return Err(SgfError::NotAStone(text)),
        };
        moves.push((position.to_move(), mv));
        position.play(action);
    }
    Ok(SgfRecord {
        game_number,
        size: (cols, rows),
        komi: None,
        rules: None,
        players,
        result,
        comment: None,
        moves,
    })
}

/// The result of a finished game as SGF's `RE` and GTP's `final_score` write it: `B+3.5`
/// (P0, Black, won by 3.5 points), `W+` (P1, White, won a game without a score), `0` (a draw);
/// `None` while the game goes on.
pub fn result_text<G: Game>(position: &G) -> Option<String> {
    let outcome = position.outcome()?;
    let winner = match outcome.winner() {
        None => return Some("0".to_string()),
        Some(Player::P0) => "B",
        Some(Player::P1) => "W",
    };
    Some(match position.exact_score_p0() {
        Some(score) => format!("{winner}+{}", score.abs()),
        None => format!("{winner}+"),
    })
}
