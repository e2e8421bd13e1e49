//! What `descent serve` reads of the run directories under its root: which runs there are,
//! their metrics (from a byte offset, so that a page polls only what is new), checkpoints and
//! the latest self-play games. Read only: nothing here writes, locks or creates a file.

use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};

use super::web_error::WebError;
use crate::selfplay::config::RecipeName;
use crate::selfplay::run::run_dir::{CONFIG_FILE, LADDER_FILE, METRICS_FILE};
use crate::settings::files::open_regular;

/// The file of a run's self-play games (one JSON line per game learned).
pub use crate::selfplay::run::games_log::GAMES_FILE;

/// The largest configuration read (a run's config.yaml is a few kilobytes).
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// A regular file's text, at most `MAX_CONFIG_BYTES`.
fn read_small_text(path: &Path) -> std::io::Result<String> {
    let mut text = String::new();
    open_regular(path)?
        .take(MAX_CONFIG_BYTES)
        .read_to_string(&mut text)?;
    Ok(text)
}

/// At most this many bytes of metrics are sent in one reply (the page asks again for more).
const MAX_METRICS_BYTES: u64 = 4 << 20;

/// One run, as the list of runs shows it.
#[derive(Clone, Debug, Serialize)]
pub struct RunSummary {
    /// The run's directory relative to the root ("." for the root itself).
    pub name: String,
    /// The game spec of its configuration.
    pub game: Option<String>,
    /// Games learned so far, and training time, by the last game line.
    pub games: u64,
    pub elapsed_seconds: f64,
    /// Seconds since metrics.jsonl last changed.
    pub idle_seconds: f64,
    /// The games of its checkpoints, oldest first.
    pub checkpoints: Vec<u64>,
    /// Its last evaluation against the baseline (a metrics `evaluation` line, as the page
    /// draws it), if any: how strong the run is now.
    pub strength: Option<Value>,
    /// The run's recipe (`athenan`, `alphazero`, `exit`) and the agent kind its networks play
    /// as (`ubfms`, `puct`, `exit`).
    pub recipe: String,
    pub player: String,
}

/// Whether the run directory `path` lies under `root` once links are followed: a link in the
/// served directory to a run elsewhere is not served — neither listed, nor its files, nor its
/// networks (`model=`), one rule for all.
fn served(root: &Path, path: &Path) -> bool {
    match (fs::canonicalize(root), fs::canonicalize(path)) {
        (Ok(root), Ok(path)) => path.starts_with(root),
        _ => false,
    }
}

/// The runs under `root` (the root itself when it is one, and its subdirectories that are),
/// by name.
///
/// # Errors
/// `root` cannot be read.
pub fn list_runs(root: &Path) -> Result<Vec<RunSummary>, WebError> {
    let mut runs = Vec::new();
    if root.join(METRICS_FILE).is_file() {
        runs.push(summary(root, ".".into()));
    }
    let entries = fs::read_dir(root)
        .map_err(|e| WebError::internal(format!("cannot read {}: {e}", root.display())))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.join(METRICS_FILE).is_file() && served(root, &path) {
            runs.push(summary(
                &path,
                entry.file_name().to_string_lossy().into_owned(),
            ));
        }
    }
    runs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(runs)
}

/// The directory of run `name` under `root`: one directory name (or "."), holding a
/// metrics.jsonl.
///
/// # Errors
/// A name with a path separator or `..`, or no such run.
pub fn run_path(root: &Path, name: &str) -> Result<PathBuf, WebError> {
    let plain = !name.is_empty()
        && name != ".."
        && !name.contains(['/', '\\'])
        && !name.chars().any(char::is_control);
    let path = if name == "." {
        root.to_path_buf()
    } else {
        root.join(name)
    };
    if !plain || !path.join(METRICS_FILE).is_file() || !served(root, &path) {
        return Err(WebError::not_found(format!(
            "no run {name:?} under {} (the list of runs is at /api/runs)",
            root.display()
        )));
    }
    Ok(path)
}

/// The summary of the run in `path`, listed as `name`.
pub fn summary(path: &Path, name: String) -> RunSummary {
    let metrics = path.join(METRICS_FILE);
    let idle_seconds = fs::metadata(&metrics)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .map_or(0.0, |d| d.as_secs_f64());
    let tail = last_lines(&metrics, 64 << 10);
    let last_of = |kind: &str| {
        tail.iter()
            .rev()
            .find(|line| line.get("kind").and_then(Value::as_str) == Some(kind))
    };
    let last_game = last_of("game");
    let number = |key: &str| last_game.and_then(|l| l.get(key)?.as_f64());
    let recipe = run_recipe(path);
    RunSummary {
        game: run_game(path),
        games: number("game").unwrap_or(0.0) as u64,
        elapsed_seconds: number("elapsed_seconds").unwrap_or(0.0),
        idle_seconds,
        checkpoints: checkpoints(path),
        strength: last_of("evaluation").and_then(chart_point),
        player: recipe.player_kind().to_string(),
        recipe: recipe.name().to_string(),
        name,
    }
}

/// The recipe named by the run's config.yaml (`athenan` when it names none or cannot be read).
fn run_recipe(run: &Path) -> RecipeName {
    read_small_text(&run.join(CONFIG_FILE))
        .ok()
        .and_then(|text| serde_saphyr::from_str::<Value>(&text).ok())
        .and_then(|config| serde_json::from_value(config.get("recipe")?.clone()).ok())
        .unwrap_or_default()
}

/// The largest ladder or evaluation report read (a ladder without its games is a few
/// kilobytes; an evaluation's report holds every game's moves).
const MAX_REPORT_BYTES: u64 = 16 << 20;

/// The run's ladder (`descent ladder`), if one was written: its networks with their ratings,
/// the anchor, the best.
pub fn ladder(run: &Path) -> Option<Value> {
    let mut text = String::new();
    open_regular(&run.join(LADDER_FILE))
        .ok()?
        .take(MAX_REPORT_BYTES)
        .read_to_string(&mut text)
        .ok()?;
    let report: Value = serde_json::from_str(&text).ok()?;
    let keep = ["anchor", "games_per_pair", "networks", "best", "seconds"];
    Some(Value::Object(
        keep.iter()
            .filter_map(|k| Some(((*k).to_string(), report.get(*k)?.clone())))
            .collect(),
    ))
}

/// The reports of `descent eval --out DIR` written inside the run (DIR one level under it),
/// newest first, at most 20: each one's directory, agents and result.
pub fn evaluation_reports(run: &Path) -> Vec<Value> {
    let mut found: Vec<(std::time::SystemTime, Value)> = fs::read_dir(run)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let path = entry.path().join("report.json");
            let file = open_regular(&path).ok()?;
            let modified = file.metadata().ok()?.modified().ok()?;
            let mut text = String::new();
            file.take(MAX_REPORT_BYTES).read_to_string(&mut text).ok()?;
            let report: Value = serde_json::from_str(&text).ok()?;
            let summary = report.get("summary")?;
            Some((
                modified,
                json!({
                    "dir": entry.file_name().to_string_lossy(),
                    "agent": report.get("agent")?,
                    "opponent": report.get("opponent")?,
                    "games": summary.get("games")?,
                    "wins": summary.get("wins")?,
                    "draws": summary.get("draws")?,
                    "losses": summary.get("losses")?,
                    "win_minus_loss": summary.get("win_minus_loss")?,
                    "win_minus_loss_ci95": summary.get("win_minus_loss_ci95")?,
                }),
            ))
        })
        .collect();
    found.sort_by_key(|(modified, _)| std::cmp::Reverse(*modified));
    found.into_iter().take(20).map(|(_, v)| v).collect()
}

/// The game spec named by the run's config.yaml.
pub fn run_game(run: &Path) -> Option<String> {
    let text = read_small_text(&run.join(CONFIG_FILE)).ok()?;
    let config: Value = serde_saphyr::from_str(&text).ok()?;
    match config.get("game")? {
        Value::String(game) => Some(game.clone()),
        other => Some(other.to_string()),
    }
}

/// The run's configuration text.
pub fn config_text(run: &Path) -> String {
    read_small_text(&run.join(CONFIG_FILE)).unwrap_or_default()
}

/// The games of the run's complete checkpoints (`ckpt-<games>` with its checksums), oldest
/// first.
pub fn checkpoints(run: &Path) -> Vec<u64> {
    let mut found: Vec<u64> = fs::read_dir(run)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("checksums.sha256").is_file())
        .filter_map(|e| e.file_name().to_str()?.strip_prefix("ckpt-")?.parse().ok())
        .collect();
    found.sort_unstable();
    found
}

/// The metrics lines from byte `from` on (complete lines only), reduced to what the page
/// draws, and the offset to ask from next. A log shorter than `from` was cut by a resume: its
/// lines are sent again from the start, with `restarted`.
///
/// # Errors
/// The file cannot be read.
pub fn metrics_since(run: &Path, from: u64) -> Result<Value, WebError> {
    let path = run.join(METRICS_FILE);
    let mut file = open_regular(&path)
        .map_err(|e| WebError::internal(format!("cannot read {}: {e}", path.display())))?;
    let length = file.metadata().map(|m| m.len()).unwrap_or(0);
    let restarted = from > length;
    let start = if restarted { 0 } else { from };
    let mut bytes = Vec::new();
    file.seek(SeekFrom::Start(start))
        .and_then(|_| file.take(MAX_METRICS_BYTES).read_to_end(&mut bytes))
        .map_err(|e| WebError::internal(format!("cannot read {}: {e}", path.display())))?;
    let mut complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut skipped = false;
    if complete == 0 && bytes.len() as u64 == MAX_METRICS_BYTES {
        // One line longer than a reply (no line of descent's is): skipped, not waited on
        // forever — the reply moves past it and says so.
        complete = bytes.len();
        skipped = true;
    }
    let lines: Vec<Value> = String::from_utf8_lossy(&bytes[..complete])
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|line| chart_point(&line))
        .collect();
    Ok(json!({
        "lines": lines,
        "next": start + complete as u64,
        "restarted": restarted,
        "skipped_long_line": skipped,
    }))
}

/// The fields of a metrics line that the page draws: game lines and evaluations.
fn chart_point(line: &Value) -> Option<Value> {
    let pick = |keys: &[&str]| {
        let mut point = serde_json::Map::new();
        for key in keys {
            if let Some(value) = line.get(*key) {
                point.insert((*key).to_string(), value.clone());
            }
        }
        Some(Value::Object(point))
    };
    match line.get("kind")?.as_str()? {
        "game" => pick(&[
            "kind",
            "game",
            "elapsed_seconds",
            "loss",
            "games_per_hour",
            "lag",
            "result_p0",
            "plies",
            "pairs_learned",
        ]),
        "evaluation" => pick(&[
            "kind",
            "game",
            "at_end",
            "baseline",
            "opponent",
            "win_minus_loss",
            "win_minus_loss_ci95",
            "mean_score",
            "ci95",
            "wins",
            "draws",
            "losses",
            "games",
        ]),
        _ => None,
    }
}

/// The last `count` self-play games of the run (newest last).
pub fn recent_games(run: &Path, count: usize) -> Vec<Value> {
    let mut games = last_lines(&run.join(GAMES_FILE), 1 << 20);
    let keep = games.len().saturating_sub(count);
    games.drain(..keep);
    games
}

/// The self-play game numbered `number` (games.jsonl's `game`, what the SGF export and the
/// metrics carry): a stable address however long the run grows, unlike a place in the list.
/// The log is read a line at a time, each line's number read before the rest is parsed.
///
/// # Errors
/// A log that is not a regular file, or a line longer than any game's.
pub fn game_by_number(run: &Path, number: u64) -> Result<Option<Value>, WebError> {
    #[derive(serde::Deserialize)]
    struct Numbered {
        game: u64,
    }
    let mut found = None;
    crate::settings::files::for_each_line(
        &run.join(GAMES_FILE),
        crate::settings::limits::MAX_LOG_LINE_BYTES,
        |line| {
            let numbered = serde_json::from_slice::<Numbered>(line).ok();
            if numbered.is_some_and(|n| n.game == number) {
                found = serde_json::from_slice(line).ok();
                return std::ops::ControlFlow::Break(());
            }
            std::ops::ControlFlow::Continue(())
        },
    )
    .map_err(|e| WebError::internal(format!("{e:#}")))?;
    Ok(found)
}

/// The complete JSON lines among the last `window` bytes of `path` (none if it is missing).
fn last_lines(path: &Path, window: u64) -> Vec<Value> {
    let Ok(mut file) = open_regular(path) else {
        return Vec::new();
    };
    let length = file.metadata().map(|m| m.len()).unwrap_or(0);
    let start = length.saturating_sub(window);
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(start)).is_err() || file.read_to_end(&mut bytes).is_err() {
        return Vec::new();
    }
    let skip = if start > 0 {
        bytes
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| i + 1)
    } else {
        0
    };
    String::from_utf8_lossy(&bytes[skip..])
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_run(root: &Path, name: &str, metrics: &str) -> PathBuf {
        let run = root.join(name);
        fs::create_dir_all(run.join("ckpt-4")).unwrap();
        fs::write(run.join("ckpt-4/checksums.sha256"), "").unwrap();
        fs::create_dir_all(run.join(".tmp-ckpt-8")).unwrap();
        fs::write(run.join(CONFIG_FILE), "game: awale\nseed: 1\n").unwrap();
        fs::write(run.join(METRICS_FILE), metrics).unwrap();
        run
    }

    /// A run's strength: its last evaluation in the list; its ladder and the evaluation
    /// reports written inside it on its page; nothing for what is not there or not valid.
    #[test]
    fn a_runs_strength_ladder_and_evaluation_reports_are_found() {
        let root = tempfile::tempdir().unwrap();
        let run = write_run(
            root.path(),
            "r",
            "{\"kind\":\"evaluation\",\"game\":2,\"win_minus_loss\":0.1,\"win_minus_loss_ci95\":[-0.3,0.5]}\n\
             {\"kind\":\"game\",\"game\":3}\n\
             {\"kind\":\"evaluation\",\"game\":3,\"at_end\":true,\"baseline\":\"mcts:time=100ms\",\"win_minus_loss\":0.5,\"win_minus_loss_ci95\":[0.1,0.8],\"player\":\"not drawn\"}\n",
        );
        fs::write(
            run.join(CONFIG_FILE),
            "game: connect_four\nrecipe: alphazero\n",
        )
        .unwrap();
        let summary = summary(&run, "r".into());
        let strength = summary.strength.unwrap();
        assert_eq!(
            (strength["game"].as_u64(), &strength["at_end"]),
            (Some(3), &json!(true))
        );
        assert_eq!(strength["win_minus_loss_ci95"], json!([0.1, 0.8]));
        assert!(strength.get("player").is_none(), "only what the page draws");
        assert_eq!(
            (summary.recipe.as_str(), summary.player.as_str()),
            ("alphazero", "puct")
        );

        assert_eq!(ladder(&run), None);
        fs::write(run.join(LADDER_FILE), "{not json").unwrap();
        assert_eq!(ladder(&run), None);
        fs::write(
            run.join(LADDER_FILE),
            r#"{"anchor": "random", "best": 4, "networks": [{"games": 4, "elo": 120.0}], "tournament": {"matches": []}}"#,
        )
        .unwrap();
        let found = ladder(&run).unwrap();
        assert_eq!(
            (found["anchor"].as_str(), found["best"].as_u64()),
            (Some("random"), Some(4))
        );
        assert!(found.get("tournament").is_none());

        assert!(evaluation_reports(&run).is_empty());
        let report = json!({"agent": "puct:model=r,time=1s", "opponent": "mcts:time=1s",
            "summary": {"games": 4, "wins": 3, "draws": 0, "losses": 1, "win_minus_loss": 0.5,
            "win_minus_loss_ci95": [-0.2, 0.9]}, "games": []});
        fs::create_dir(run.join("vs-mcts")).unwrap();
        fs::write(run.join("vs-mcts/report.json"), report.to_string()).unwrap();
        fs::create_dir(run.join("broken")).unwrap();
        fs::write(run.join("broken/report.json"), "[]").unwrap();
        let reports = evaluation_reports(&run);
        assert_eq!(reports.len(), 1, "{reports:?}");
        assert_eq!(
            (reports[0]["dir"].as_str(), reports[0]["wins"].as_u64()),
            (Some("vs-mcts"), Some(3))
        );
    }

    #[test]
    fn runs_are_listed_with_their_game_games_and_checkpoints() {
        let root = tempfile::tempdir().unwrap();
        write_run(
            root.path(),
            "b",
            "{\"kind\":\"game\",\"game\":3,\"elapsed_seconds\":9.5}\n{\"kind\":\"checkpoint\"}\n",
        );
        write_run(root.path(), "a", "");
        fs::create_dir(root.path().join("not-a-run")).unwrap();
        let runs = list_runs(root.path()).unwrap();
        let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(runs[1].games, 3);
        assert_eq!(runs[1].elapsed_seconds, 9.5);
        assert_eq!(runs[1].game.as_deref(), Some("awale"));
        assert_eq!(
            runs[1].checkpoints,
            [4],
            "a temporary checkpoint is not one"
        );
    }

    #[test]
    fn run_names_cannot_leave_the_root() {
        let root = tempfile::tempdir().unwrap();
        write_run(root.path(), "run", "");
        assert!(run_path(root.path(), "run").is_ok());
        for bad in ["..", "../run", "run/..", "/etc", "", "missing", "."] {
            assert!(run_path(root.path(), bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn metrics_are_read_from_an_offset_in_complete_lines() {
        let root = tempfile::tempdir().unwrap();
        let first = "{\"kind\":\"game\",\"game\":1,\"loss\":0.5,\"table_states\":9}\n";
        let run = write_run(root.path(), "run", &format!("{first}{{\"kind\":\"ga"));
        let reply = metrics_since(&run, 0).unwrap();
        assert_eq!(reply["lines"].as_array().unwrap().len(), 1);
        assert_eq!(reply["lines"][0]["loss"], 0.5);
        assert!(reply["lines"][0].get("table_states").is_none(), "reduced");
        assert_eq!(reply["next"], first.len() as u64, "the partial line waits");
        let again = metrics_since(&run, first.len() as u64).unwrap();
        assert!(again["lines"].as_array().unwrap().is_empty());
        let cut = metrics_since(&run, 10_000).unwrap();
        assert_eq!(cut["restarted"], true);
        assert_eq!(cut["lines"].as_array().unwrap().len(), 1);
    }
}
