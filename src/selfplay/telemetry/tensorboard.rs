//! TensorBoard event files beside `metrics.jsonl` (`run.tensorboard`, on by default), so that
//! `tensorboard --logdir checkpoints/` shows every run's curves.
//!
//! `metrics.jsonl` stays the record; the event file is derived from it, line by line, by
//! `ScalarMapper`. A session starts by rebuilding the event file from the metrics lines kept at
//! its start (a resume cuts the lines of games lost in a kill, so the curves never hold a game
//! twice): a new file `events.out.tfevents.<unix time>.descent.<pid>` is written under a
//! temporary name, synced, renamed into place, and only then are the earlier sessions' event
//! files removed. Each metrics line written afterwards adds its event.
//!
//! Scalars (step = games learned):
//! - `learn/loss`, `learn/learning_rate`, `learn/pairs_learned` (this game's),
//!   `learn/pairs_learned_total`, `learn/pairs_added`, `learn/replay_pairs`, `learn/seconds`
//!   (the learning phase);
//! - `selfplay/games_per_hour`, `selfplay/plies`, `selfplay/result_p0`, `selfplay/seconds`,
//!   `selfplay/states_per_second`, `selfplay/evaluations_per_second`;
//! - `actors/lag`, `actors/games_dropped`, `actors/records_rejected`;
//! - `eval/<opponent>/score` (wins − losses over games, in [−1, 1]) with `…/score_low`,
//!   `…/score_high` (its 95 % interval), `…/wins`, `…/draws`, `…/losses`.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context;
use serde_json::Value;

use crate::selfplay::telemetry::event_file::{Event, FILE_VERSION, Scalar, write_record};

/// Event files are named `events.out.tfevents.…` (TensorBoard finds them by this).
pub const EVENT_FILE_PREFIX: &str = "events.out.tfevents.";
const TEMP_EVENT_FILE: &str = ".tmp-tfevents";

/// Seconds since the Unix epoch.
pub fn unix_time() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Turns metrics lines into events; keeps what spans lines (the running total of pairs learned,
/// the last step seen).
#[derive(Clone, Debug, Default)]
pub struct ScalarMapper {
    pairs_learned_total: f64,
    step: i64,
}

fn number(line: &Value, key: &str) -> Option<f64> {
    line.get(key).and_then(Value::as_f64)
}

/// An evaluation line's interval of win − loss: `win_minus_loss_ci95` (`[low, high]`), or, on
/// lines written before it, `score` ± `ci95`.
fn win_minus_loss_interval(line: &Value, score: Option<f64>) -> [Option<f64>; 2] {
    match line.get("win_minus_loss_ci95").and_then(Value::as_array) {
        Some(bounds) => [0, 1].map(|i| bounds.get(i).and_then(Value::as_f64)),
        None => {
            let half = number(line, "ci95").unwrap_or(0.0);
            [score.map(|s| s - half), score.map(|s| s + half)]
        }
    }
}

impl ScalarMapper {
    /// The event of one metrics line, or `None` for lines without scalars (sessions,
    /// checkpoints, anything not understood). `now` is the wall time of lines without their
    /// own `unix_time`.
    pub fn event(&mut self, line: &Value, now: f64) -> Option<Event> {
        let kind = line.get("kind")?.as_str()?;
        let mut scalars = Vec::new();
        let mut add = |tag: &str, value: Option<f64>| {
            if let Some(value) = value.filter(|v| v.is_finite()) {
                scalars.push(Scalar {
                    tag: tag.to_string(),
                    value: value as f32,
                });
            }
        };
        match kind {
            "game" => {
                self.step = number(line, "game")? as i64;
                let learned = number(line, "pairs_learned");
                self.pairs_learned_total += learned.unwrap_or(0.0);
                add("learn/loss", number(line, "loss"));
                add("learn/learning_rate", number(line, "learning_rate"));
                add("learn/pairs_learned", learned);
                add("learn/pairs_learned_total", Some(self.pairs_learned_total));
                add("learn/pairs_added", number(line, "pairs_added"));
                add("learn/replay_pairs", number(line, "replay_pairs"));
                add("learn/seconds", number(line, "learn_seconds"));
                add("selfplay/games_per_hour", number(line, "games_per_hour"));
                add("selfplay/plies", number(line, "plies"));
                add("selfplay/result_p0", number(line, "result_p0"));
                add("selfplay/seconds", number(line, "game_seconds"));
                add(
                    "selfplay/states_per_second",
                    number(line, "states_per_second"),
                );
                add(
                    "selfplay/evaluations_per_second",
                    number(line, "evaluations_per_second"),
                );
                add("actors/lag", number(line, "lag"));
                add("actors/games_dropped", number(line, "games_dropped"));
            }
            "dropped" => {
                self.step = self.step.max(number(line, "learner_version")? as i64);
                add("actors/games_dropped", number(line, "games_dropped"));
                add("actors/dropped_lag", number(line, "lag"));
            }
            "rejected" => add("actors/records_rejected", number(line, "records_rejected")),
            "evaluation" => {
                self.step = number(line, "game")? as i64;
                let opponent = line
                    .get("opponent")
                    .and_then(Value::as_str)
                    .unwrap_or("baseline");
                let score = number(line, "win_minus_loss");
                let [low, high] = win_minus_loss_interval(line, score);
                add(&format!("eval/{opponent}/score"), score);
                add(&format!("eval/{opponent}/score_low"), low);
                add(&format!("eval/{opponent}/score_high"), high);
                for count in ["wins", "draws", "losses"] {
                    add(&format!("eval/{opponent}/{count}"), number(line, count));
                }
                for key in ["mean_score", "best_score", "baseline_mean_score"] {
                    add(&format!("eval/{opponent}/{key}"), number(line, key));
                }
            }
            _ => return None,
        }
        Some(Event {
            wall_time: number(line, "unix_time").unwrap_or(now),
            step: self.step,
            file_version: None,
            scalars,
        })
        .filter(|event| !event.scalars.is_empty())
    }
}

/// The event file of the current session.
pub struct TensorBoardLog {
    file: BufWriter<fs::File>,
    path: PathBuf,
    mapper: ScalarMapper,
}

impl TensorBoardLog {
    /// Starts the session's event file in `dir` with the events of `metrics_text` (the metrics
    /// lines kept), then removes earlier sessions' event files.
    ///
    /// # Errors
    /// The directory cannot be written.
    pub fn rebuild(dir: &Path, metrics_text: &str) -> anyhow::Result<TensorBoardLog> {
        let now = unix_time();
        let temp = dir.join(TEMP_EVENT_FILE);
        let file =
            fs::File::create(&temp).with_context(|| format!("cannot create {}", temp.display()))?;
        let mut log = TensorBoardLog {
            file: BufWriter::new(file),
            path: temp.clone(),
            mapper: ScalarMapper::default(),
        };
        log.write_event(&Event {
            wall_time: now,
            file_version: Some(FILE_VERSION.into()),
            ..Event::default()
        })?;
        for line in metrics_text.lines() {
            log.add_line_at(line, now)?;
        }
        log.file.flush()?;
        log.file.get_ref().sync_all()?;
        let name = format!(
            "{EVENT_FILE_PREFIX}{:010}.descent.{}",
            now as u64,
            std::process::id()
        );
        let path = dir.join(&name);
        fs::rename(&temp, &path)
            .with_context(|| format!("cannot rename {} to {}", temp.display(), path.display()))?;
        log.path = path;
        for old in event_files(dir)? {
            if old != log.path {
                fs::remove_file(&old)
                    .with_context(|| format!("cannot remove {}", old.display()))?;
            }
        }
        Ok(log)
    }

    /// The event file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Adds the event of one metrics line (a line without scalars adds nothing).
    ///
    /// # Errors
    /// A failed write.
    pub fn add_line(&mut self, line_text: &str) -> anyhow::Result<()> {
        self.add_line_at(line_text, unix_time())?;
        self.file.flush()?;
        Ok(())
    }

    fn add_line_at(&mut self, line_text: &str, now: f64) -> anyhow::Result<()> {
        let Ok(line) = serde_json::from_str::<Value>(line_text) else {
            return Ok(());
        };
        match self.mapper.event(&line, now) {
            Some(event) => self.write_event(&event),
            None => Ok(()),
        }
    }

    fn write_event(&mut self, event: &Event) -> anyhow::Result<()> {
        write_record(&mut self.file, &event.encode())
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

/// The event files in `dir`, by name.
///
/// # Errors
/// The directory cannot be read.
pub fn event_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let entry = entry?;
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with(EVENT_FILE_PREFIX)
        {
            found.push(entry.path());
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selfplay::telemetry::event_file::read_events;

    fn scalar(event: &Event, tag: &str) -> Option<f32> {
        event.scalars.iter().find(|s| s.tag == tag).map(|s| s.value)
    }

    #[test]
    fn game_and_evaluation_lines_become_scalars_at_their_game() {
        let mut mapper = ScalarMapper::default();
        let game = serde_json::json!({"kind": "game", "game": 7, "loss": 0.5, "pairs_learned": 100,
            "games_per_hour": 1200.0, "lag": 2, "unix_time": 1.5e9});
        let event = mapper.event(&game, 0.0).unwrap();
        assert_eq!((event.step, event.wall_time), (7, 1.5e9));
        assert_eq!(scalar(&event, "learn/loss"), Some(0.5));
        assert_eq!(scalar(&event, "actors/lag"), Some(2.0));
        let second =
            serde_json::json!({"kind": "game", "game": 8, "loss": null, "pairs_learned": 50});
        let event = mapper.event(&second, 9.0).unwrap();
        assert_eq!(scalar(&event, "learn/pairs_learned_total"), Some(150.0));
        assert_eq!(
            scalar(&event, "learn/loss"),
            None,
            "a null loss is left out"
        );
        assert_eq!(event.wall_time, 9.0);
        let eval = serde_json::json!({"kind": "evaluation", "game": 8, "opponent": "mcts",
            "win_minus_loss": 0.25, "win_minus_loss_ci95": [-0.125, 0.5],
            "wins": 5, "draws": 0, "losses": 3});
        let event = mapper.event(&eval, 0.0).unwrap();
        assert_eq!(scalar(&event, "eval/mcts/score_low"), Some(-0.125));
        assert_eq!(scalar(&event, "eval/mcts/score_high"), Some(0.5));
        assert_eq!(scalar(&event, "eval/mcts/wins"), Some(5.0));
        let older = serde_json::json!({"kind": "evaluation", "game": 8, "opponent": "mcts",
            "win_minus_loss": 0.25, "ci95": 0.5});
        let event = mapper.event(&older, 0.0).unwrap();
        assert_eq!(scalar(&event, "eval/mcts/score_low"), Some(-0.25));
        assert_eq!(scalar(&event, "eval/mcts/score_high"), Some(0.75));
        for silent in [
            serde_json::json!({"kind": "checkpoint", "game": 8}),
            serde_json::json!({"kind": "session", "game": 8}),
            serde_json::json!({"game": 8}),
        ] {
            assert_eq!(mapper.event(&silent, 0.0), None);
        }
    }

    #[test]
    fn a_rebuild_replaces_earlier_event_files_with_the_metrics_kept() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir
            .path()
            .join(format!("{EVENT_FILE_PREFIX}0000000001.descent.1"));
        fs::write(&stale, b"an earlier session's events").unwrap();
        let metrics = "{\"kind\":\"game\",\"game\":1,\"loss\":0.5}\nnot json\n\
                       {\"kind\":\"game\",\"game\":2,\"loss\":0.25}\n";
        let mut log = TensorBoardLog::rebuild(dir.path(), metrics).unwrap();
        log.add_line("{\"kind\":\"game\",\"game\":3,\"loss\":0.125}\n")
            .unwrap();
        let files = event_files(dir.path()).unwrap();
        assert_eq!(files, vec![log.path().to_path_buf()]);
        assert!(!dir.path().join(TEMP_EVENT_FILE).exists());
        let events = read_events(&mut fs::File::open(&files[0]).unwrap()).unwrap();
        assert_eq!(events[0].file_version.as_deref(), Some(FILE_VERSION));
        let losses: Vec<(i64, Option<f32>)> = events[1..]
            .iter()
            .map(|e| (e.step, scalar(e, "learn/loss")))
            .collect();
        assert_eq!(
            losses,
            vec![(1, Some(0.5)), (2, Some(0.25)), (3, Some(0.125))]
        );
    }
}
