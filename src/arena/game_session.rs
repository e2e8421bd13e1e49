//! A game in progress between people and programs (`descent play`, `descent engine`): the
//! position, the moves so far, undo, and how a finished game is described.

use std::str::FromStr;

use crate::games::{Action, Game, GameExt, MoveError, Player};
use crate::settings::config_error::ConfigError;

/// A player named by a person or a protocol: `p0` / `b` / `black`, `p1` / `w` / `white`.
///
/// # Errors
/// Any other name.
pub fn parse_player(text: &str) -> Result<Player, ConfigError> {
    match text.to_ascii_lowercase().as_str() {
        "p0" | "b" | "black" => Ok(Player::P0),
        "p1" | "w" | "white" => Ok(Player::P1),
        _ => Err(ConfigError::new(
            "player",
            format!("unknown {text:?}: expected p0 (or b, black) or p1 (or w, white)"),
        )),
    }
}

/// Why a move given as text was not played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveRefused {
    #[error("the game is over")]
    GameOver,
    #[error("it is {to_move}'s move, not {player}'s")]
    NotYourMove { to_move: Player, player: Player },
    #[error(transparent)]
    Move(#[from] MoveError),
}

/// A side chosen on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side(pub Player);

impl FromStr for Side {
    type Err = ConfigError;

    fn from_str(text: &str) -> Result<Self, ConfigError> {
        parse_player(text).map(Side)
    }
}

/// The game so far.
#[derive(Clone, Debug)]
pub struct GameSession<G: Game> {
    initial: G,
    /// The positions before each move played, oldest first.
    history: Vec<G>,
    /// The moves played, in the game's notation.
    moves: Vec<String>,
    position: G,
}

impl<G: Game> GameSession<G> {
    pub fn new(initial: G) -> Self {
        GameSession {
            position: initial.clone(),
            initial,
            history: Vec::new(),
            moves: Vec::new(),
        }
    }

    pub fn position(&self) -> &G {
        &self.position
    }

    pub fn moves(&self) -> &[String] {
        &self.moves
    }

    /// Back to the initial position.
    pub fn reset(&mut self) {
        self.position = self.initial.clone();
        self.history.clear();
        self.moves.clear();
    }

    /// Plays `text` for `player` (when given, it must be the player to move); on any error the
    /// position is unchanged.
    ///
    /// # Errors
    /// The game is over, `player` is not to move, or `text` is not a legal move.
    pub fn play_text(&mut self, player: Option<Player>, text: &str) -> Result<Action, MoveRefused> {
        if self.position.is_terminal() {
            return Err(MoveRefused::GameOver);
        }
        let to_move = self.position.to_move();
        if let Some(player) = player
            && player != to_move
        {
            return Err(MoveRefused::NotYourMove { to_move, player });
        }
        let action = self.position.parse_legal_move(text)?;
        self.play(action);
        Ok(action)
    }

    /// Plays a legal action.
    pub fn play(&mut self, action: Action) {
        debug_assert!(self.position.is_legal(action));
        self.history.push(self.position.clone());
        self.moves.push(self.position.move_to_text(action));
        self.position.play(action);
    }

    /// Takes back the last move; false if there is none.
    pub fn undo(&mut self) -> bool {
        match self.history.pop() {
            Some(previous) => {
                self.position = previous;
                self.moves.pop();
                true
            }
            None => false,
        }
    }

    /// Whether no move has been played.
    pub fn is_empty(&self) -> bool {
        self.history.is_empty()
    }

    /// The result of a finished game as GTP's `final_score` writes it: `B+3.5` (P0, Black,
    /// won by 3.5 points), `W+` (P1, White, won a game without a score), `0` for a draw;
    /// `None` while the game is in play.
    pub fn final_score(&self) -> Option<String> {
        crate::games::sgf::result_text(&self.position)
    }

    /// A sentence for people about the finished game (see [`result_sentence`]).
    pub fn result_sentence(&self) -> Option<String> {
        result_sentence(&self.position)
    }
}

/// A sentence for people about a finished game: "Black (p0) wins (score difference p0 − p1:
/// +2)", a one-player game's score alone; `None` while the game goes on.
pub fn result_sentence<G: Game>(position: &G) -> Option<String> {
    let outcome = position.outcome()?;
    let score = position.score_p0();
    if G::ONE_PLAYER {
        return Some(format!("game over: score {}", score.unwrap_or(0)));
    }
    let what = match outcome.winner() {
        None => "draw".to_string(),
        Some(winner) => format!("{} wins", G::side_text(winner)),
    };
    Some(match score {
        Some(score) => format!("{what} (score difference p0 − p1: {score:+})"),
        None => what,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::TicTacToe;

    #[test]
    fn play_undo_and_errors_leave_the_position_unchanged() {
        let mut session = GameSession::new(TicTacToe::new(&Default::default()));
        assert!(!session.undo());
        session.play_text(Some(Player::P0), "b2").unwrap();
        let before = *session.position();
        assert!(
            session
                .play_text(Some(Player::P0), "a1")
                .unwrap_err()
                .to_string()
                .contains("p1's move")
        );
        assert!(
            session
                .play_text(None, "b2")
                .unwrap_err()
                .to_string()
                .contains("not legal")
        );
        assert!(
            session
                .play_text(None, "zz")
                .unwrap_err()
                .to_string()
                .contains("cannot parse")
        );
        assert_eq!(session.position().hash(), before.hash());
        assert_eq!(session.moves(), ["b2"]);
        session.play_text(None, "a1").unwrap();
        assert!(session.undo());
        assert_eq!(session.position().hash(), before.hash());
        for m in ["a1", "c1", "c3", "a3"] {
            session.play_text(None, m).unwrap();
        }
        assert_eq!(session.final_score().as_deref(), Some("B+"));
        assert_eq!(
            session.result_sentence().as_deref(),
            Some("Black (p0) wins")
        );
        assert!(
            session
                .play_text(None, "b1")
                .unwrap_err()
                .to_string()
                .contains("over")
        );
        session.reset();
        assert!(session.is_empty() && session.final_score().is_none());
        assert_eq!(parse_player("White"), Ok(Player::P1));
        assert!(parse_player("red").is_err());
    }
}
