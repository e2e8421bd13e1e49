//! `LearnableGame`: a finished game as the learner takes it — its learning pairs encoded (before
//! augmentation), the network version it was played with, and what its metrics line reports —
//! whether it was played on a thread of this process (`from_finished`) or arrived as a record
//! (`GameRecord::replay`).

use crate::games::{Action, Game, Outcome};
use crate::learn::augment::{EncodedPairs, encode_positions};
use crate::search::SearchStats;
use crate::selfplay::recipes::athenan::self_play::FinishedGame;
use crate::selfplay::run::games_log::GameLine;

/// A finished game, the network version it was played with, and the wall time of its network
/// calls.
pub struct Finished<G> {
    pub game: FinishedGame<G>,
    /// The game's number (0-based, resumes included).
    pub index: u64,
    pub net_version: u64,
    pub net_seconds: f64,
}

/// A finished game, ready to learn.
#[derive(Clone, Debug)]
pub struct LearnableGame {
    /// The game's number in the run (its random stream).
    pub index: u64,
    /// The network version it was played with.
    pub net_version: u64,
    pub pairs: EncodedPairs,
    pub plies: usize,
    /// The moves of the game, and the search's value before each (P0's view) where the actor
    /// recorded it (games from a worker have none).
    pub moves: Vec<Action>,
    pub values_p0: Vec<f32>,
    pub outcome: Outcome,
    /// f_t of the final position.
    pub final_value_p0: f32,
    pub search: SearchStats,
    /// Wall time of the game, and of its network calls.
    pub seconds: f64,
    pub net_seconds: f64,
    pub table_states: usize,
    /// The game's record (`GameRecord` bytes) where the run keeps its finished games in
    /// `pending/` until a checkpoint holds them (`parallel` mode), made on the player's thread.
    pub record: Option<Vec<u8>>,
}

impl LearnableGame {
    /// This game's line of games.jsonl, learned as game number `learned`, played from
    /// `initial`.
    pub fn games_line<G: Game>(&self, initial: &G, learned: u64) -> GameLine {
        let mut position = initial.clone();
        let mut moves = Vec::with_capacity(self.moves.len());
        for &action in &self.moves {
            moves.push(position.move_to_text(action));
            position.play(action);
        }
        GameLine {
            game: learned,
            index: self.index,
            net_version: self.net_version,
            result_p0: self.outcome.value_p0(),
            moves,
            values_p0: self
                .values_p0
                .iter()
                .map(|v| (v * 1000.0).round() / 1000.0)
                .collect(),
        }
    }

    /// `finished`, its pairs encoded.
    pub fn from_finished<G: Game>(finished: &Finished<G>) -> LearnableGame {
        let game = &finished.game;
        LearnableGame {
            index: finished.index,
            net_version: finished.net_version,
            pairs: encode_positions(&game.pairs),
            plies: game.moves.len(),
            moves: game.moves.clone(),
            values_p0: game.values_p0.clone(),
            outcome: game.outcome,
            final_value_p0: game.final_value_p0,
            search: game.search,
            seconds: game.seconds,
            net_seconds: finished.net_seconds,
            table_states: game.table_states,
            record: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_line_names_its_moves_in_the_games_notation() {
        use crate::games::{Outcome, TicTacToe};
        let initial = TicTacToe::new(&Default::default());
        let game = LearnableGame {
            index: 7,
            net_version: 2,
            pairs: Default::default(),
            plies: 2,
            moves: vec![0, 4],
            values_p0: vec![0.123_456, -0.5],
            outcome: Outcome::Draw,
            final_value_p0: 0.0,
            search: Default::default(),
            seconds: 0.0,
            net_seconds: 0.0,
            table_states: 0,
            record: None,
        };
        let line = game.games_line(&initial, 3);
        assert_eq!(line.moves, ["a1", "b2"]);
        assert_eq!(line.values_p0, [0.123, -0.5]);
        assert_eq!((line.game, line.index, line.net_version), (3, 7, 2));
    }
}
