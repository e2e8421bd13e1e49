//! `games.jsonl`: one JSON line per self-play game learned — its moves in the game's notation
//! and the search's value of the position before each move (P0's view; absent for games from
//! distributed workers), so that a person can replay a run's games (`descent serve`) or a script
//! study its openings. Like metrics.jsonl, a resume cuts the lines of games learned after the
//! checkpoint it resumes, so no game appears twice.

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::settings::files::for_each_line;
use crate::settings::limits::MAX_LOG_LINE_BYTES;

/// The games file of a run directory.
pub const GAMES_FILE: &str = "games.jsonl";

/// One line of games.jsonl.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameLine {
    /// Games learned in the run, this one included (as in metrics.jsonl).
    pub game: u64,
    /// The game's number as handed out, and the network version it was played with.
    pub index: u64,
    pub net_version: u64,
    /// +1 P0 won, -1 P1 won, 0 draw.
    pub result_p0: f32,
    /// The moves, in the game's notation.
    pub moves: Vec<String>,
    /// The search's value before each move (P0's view), rounded to 1/1000; empty when not
    /// recorded.
    pub values_p0: Vec<f32>,
}

/// The append-only games file.
pub struct GamesLog {
    file: fs::File,
}

impl GamesLog {
    /// Opens `path` for appending, first cutting the lines of games after `games_kept` (those
    /// learned after the checkpoint being resumed) and a last line left incomplete by a kill.
    ///
    /// # Errors
    /// The file cannot be read or written.
    pub fn open(path: &Path, games_kept: u64) -> anyhow::Result<GamesLog> {
        let keep = kept_length(path, games_kept)?;
        let file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        file.set_len(keep)?;
        Ok(GamesLog { file })
    }

    /// Appends one line.
    ///
    /// # Errors
    /// A failed write.
    pub fn write(&mut self, line: &GameLine) -> anyhow::Result<()> {
        let mut text = serde_json::to_string(line)?;
        text.push('\n');
        self.file.write_all(text.as_bytes())?;
        Ok(())
    }
}

/// The length of the leading complete lines of the file `path` whose game is at most
/// `games_kept`, read line by line (0 for a missing file).
fn kept_length(path: &Path, games_kept: u64) -> anyhow::Result<u64> {
    use std::ops::ControlFlow;
    let mut kept = 0;
    for_each_line(path, MAX_LOG_LINE_BYTES, |line| {
        let game = serde_json::from_slice::<serde_json::Value>(line)
            .ok()
            .and_then(|v| v.get("game")?.as_u64());
        match game {
            Some(game) if game <= games_kept && line.ends_with(b"\n") => {
                kept += line.len() as u64;
                ControlFlow::Continue(())
            }
            _ => ControlFlow::Break(()),
        }
    })?;
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resume_keeps_only_the_games_of_its_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(GAMES_FILE);
        let line = |game| GameLine {
            game,
            index: game + 10,
            net_version: game - 1,
            result_p0: 1.0,
            moves: vec!["a1".into(), "b2".into()],
            values_p0: vec![0.5, -0.25],
        };
        let mut log = GamesLog::open(&path, 0).unwrap();
        for game in 1..=5 {
            log.write(&line(game)).unwrap();
        }
        drop(log);
        // A kill in the middle of a line.
        fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"game\":6,\"ind")
            .unwrap();
        let mut log = GamesLog::open(&path, 3).unwrap();
        log.write(&line(4)).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let games: Vec<GameLine> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(games, vec![line(1), line(2), line(3), line(4)]);
        drop(log);
        GamesLog::open(&path, 10).unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            text,
            "a later checkpoint keeps all"
        );
    }
}
