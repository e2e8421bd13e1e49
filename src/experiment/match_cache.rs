//! The evaluation matches an experiment has finished, each kept as a file in its directory
//! (`evaluation/NAME.json`) the moment it ends, so that an evaluation cut short (Ctrl-C, a
//! crash, a reboot) continues where it stopped: a match whose file holds the same players,
//! games, seed and openings is read back instead of played again.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Context;
use serde::{Deserialize, Serialize};
use tracing::warn;

use crate::arena::{GameRecord, MatchReport};
use crate::settings::files::{Existing, read_regular_text, write_atomically};

/// The directory of the kept matches, under the experiment's.
pub const EVALUATION_DIR: &str = "evaluation";

/// A kept match file larger than this is refused (and the match played again).
const MAX_MATCH_BYTES: u64 = 64 << 20;

/// What makes two matches the same one: who played, how many games, from what seeds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchKey {
    pub agent: String,
    pub opponent: String,
    pub games: u64,
    /// The seed of the match's games.
    pub seed: u64,
    /// The openings: random plies and their seed.
    pub opening_plies: u32,
    pub opening_seed: u64,
}

/// A kept match: its key and its games.
#[derive(Serialize, Deserialize)]
struct KeptMatch {
    key: MatchKey,
    games: Vec<GameRecord>,
}

/// The kept matches of one experiment directory.
pub struct MatchCache {
    dir: PathBuf,
    one_player: bool,
    /// Matches read back rather than played, this session.
    reused: AtomicU64,
}

impl MatchCache {
    /// The kept matches under `experiment_dir` (the directory is made); `one_player` as the
    /// game is (its reports compare scores).
    ///
    /// # Errors
    /// The directory cannot be made.
    pub fn open(experiment_dir: &Path, one_player: bool) -> anyhow::Result<MatchCache> {
        let dir = experiment_dir.join(EVALUATION_DIR);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(MatchCache {
            dir,
            one_player,
            reused: AtomicU64::new(0),
        })
    }

    /// The match `name` with `key`: read back when kept (then `true`), else `play()`ed and
    /// kept when it played all its games (a match cut short by Ctrl-C is not kept).
    pub fn match_or_play(
        &self,
        name: &str,
        key: &MatchKey,
        play: &dyn Fn() -> MatchReport,
    ) -> (MatchReport, bool) {
        let path = self.dir.join(format!("{name}.json"));
        if let Some(games) = self.kept(&path, key) {
            self.reused.fetch_add(1, Ordering::Relaxed);
            let names = [key.agent.clone(), key.opponent.clone()];
            return (
                MatchReport::from_records(names, games, self.one_player),
                true,
            );
        }
        let report = play();
        if report.games.len() as u64 == key.games {
            let kept = KeptMatch {
                key: key.clone(),
                games: report.games.clone(),
            };
            let written = serde_json::to_vec(&kept)
                .map_err(anyhow::Error::from)
                .and_then(|bytes| write_atomically(&path, &bytes, Existing::Replace));
            if let Err(e) = written {
                warn!("the match {name} is not kept (it will be played again): {e:#}");
            }
        }
        (report, false)
    }

    /// How many matches were read back rather than played.
    pub fn reused(&self) -> u64 {
        self.reused.load(Ordering::Relaxed)
    }

    /// The games kept at `path` for `key`; `None` when there is no such file, or it holds
    /// another match, or it is damaged (then said, and the match is played again).
    fn kept(&self, path: &Path, key: &MatchKey) -> Option<Vec<GameRecord>> {
        if !path.exists() {
            return None;
        }
        let read = read_regular_text(path, MAX_MATCH_BYTES).and_then(|text| {
            serde_json::from_str::<KeptMatch>(&text)
                .with_context(|| format!("{} is not a kept match", path.display()))
        });
        let kept = match read {
            Ok(kept) => kept,
            Err(e) => {
                warn!("{e:#}; playing the match again");
                return None;
            }
        };
        if let Err(why) = check_games(&kept.games, key.games) {
            warn!("{}: {why}; playing the match again", path.display());
            return None;
        }
        (kept.key == *key).then_some(kept.games)
    }
}

/// Why a kept match is not the match asked for (it is played again).
#[derive(Debug, PartialEq, thiserror::Error)]
enum NotThisMatch {
    #[error("{found} games where {expected} were played")]
    GameCount { found: usize, expected: u64 },
    #[error("game {0} is not a game of this match")]
    ForeignGame(usize),
}

/// Checks that `games` are the `expected` games of one match, each with a possible outcome.
fn check_games(games: &[GameRecord], expected: u64) -> Result<(), NotThisMatch> {
    if games.len() as u64 != expected {
        return Err(NotThisMatch::GameCount {
            found: games.len(),
            expected,
        });
    }
    for (index, game) in games.iter().enumerate() {
        let side_ok = matches!(game.agent_side.as_str(), "p0" | "p1");
        let results_ok = [game.agent_result, game.result_p0]
            .iter()
            .all(|r| (-1..=1).contains(r));
        if game.index != index as u64 || !side_ok || !results_ok {
            return Err(NotThisMatch::ForeignGame(index));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(index: u64, agent_result: i8) -> GameRecord {
        let agent_side = if index.is_multiple_of(2) { "p0" } else { "p1" };
        GameRecord {
            index,
            seed: index,
            agent_side: agent_side.into(),
            moves: vec!["a1".into()],
            opening_plies: 0,
            result_p0: if index.is_multiple_of(2) {
                agent_result
            } else {
                -agent_result
            },
            agent_result,
            score_p0: None,
        }
    }

    fn key(games: u64) -> MatchKey {
        MatchKey {
            agent: "a".into(),
            opponent: "b".into(),
            games,
            seed: 7,
            opening_plies: 2,
            opening_seed: 9,
        }
    }

    fn report(games: Vec<GameRecord>) -> MatchReport {
        MatchReport::from_records(["a".into(), "b".into()], games, false)
    }

    #[test]
    fn a_finished_match_is_read_back_and_another_or_a_damaged_one_is_played_again() {
        let dir = tempfile::tempdir().unwrap();
        let cache = MatchCache::open(dir.path(), false).unwrap();
        let played = || report(vec![record(0, 1), record(1, 0)]);
        let (first, reused) = cache.match_or_play("m", &key(2), &played);
        assert_eq!((first.summary.wins, reused), (1, false));
        let never = || -> MatchReport { panic!("a kept match is not played again") };
        assert_eq!(cache.match_or_play("m", &key(2), &never), (first, true));
        assert_eq!(cache.reused(), 1);
        // Another seed is another match.
        let other = MatchKey { seed: 8, ..key(2) };
        let again = || report(vec![record(0, -1), record(1, -1)]);
        assert_eq!(cache.match_or_play("m", &other, &again).0.summary.losses, 2);
        // A damaged file: said, and played again.
        let path = dir.path().join(EVALUATION_DIR).join("m.json");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            text.replace("\"agent_result\":-1", "\"agent_result\":9"),
        )
        .unwrap();
        assert_eq!(cache.match_or_play("m", &other, &again).0.summary.losses, 2);
        std::fs::write(&path, "{").unwrap();
        assert_eq!(cache.match_or_play("m", &other, &again).0.summary.losses, 2);
        assert_eq!(cache.reused(), 1);
    }

    #[test]
    fn a_match_cut_short_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let cache = MatchCache::open(dir.path(), false).unwrap();
        let cut = || report(vec![record(0, 1)]);
        assert_eq!(cache.match_or_play("m", &key(2), &cut).0.summary.games, 1);
        assert!(!dir.path().join(EVALUATION_DIR).join("m.json").exists());
    }
}
