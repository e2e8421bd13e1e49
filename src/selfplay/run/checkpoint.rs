//! Checkpoints of a run: the checks before one is resumed (refusing a configuration that would
//! change what is learned), the state stamped before one is written, and when the next is due
//! (the session writes the network and the state: `session.rs`, docs/run-directory.md; each
//! recipe what it keeps beside them).

use std::path::Path;
use std::time::Duration;

use crate::search::TerminalEval;
use crate::selfplay::config::{RESUME_SAFE_KEYS, TrainConfig, TrainSettings};
use crate::selfplay::run::run_dir::{MARK_NET_KIND, MetricsLog};
use crate::selfplay::run::run_state::RunState;

/// Environment variable (a testing aid): pause this many milliseconds in the middle of every
/// checkpoint write, so that a test can kill the process there.
pub const CHECKPOINT_PAUSE_ENV: &str = "DESCENT_CHECKPOINT_PAUSE_MS";

/// The first multiple of `every` after `elapsed` seconds (never, without `every`).
pub fn next_mark(every: Option<Duration>, elapsed: f64) -> f64 {
    match every {
        Some(every) => {
            let every = every.as_secs_f64();
            ((elapsed / every).floor() + 1.0) * every
        }
        None => f64::INFINITY,
    }
}

/// The metrics line of the checkpoint `state`: its games, training time and, where known, when
/// its network was made (`net_made_at_seconds`, which an experiment's stages read).
///
/// # Errors
/// The line cannot be serialised (not expected).
pub fn checkpoint_line(state: &RunState) -> anyhow::Result<String> {
    let mut line = serde_json::json!({
        "kind": "checkpoint",
        "game": state.games,
        "elapsed_seconds": state.elapsed_seconds,
    });
    if let Some(made_at_seconds) = state.net_made_at_seconds {
        line["net_made_at_seconds"] = made_at_seconds.into();
    }
    MetricsLog::line_text(&line)
}

/// The metrics line of a network kept because it was the run's network at a time mark
/// (`mark_nets`): its games and when it was made.
pub fn mark_net_line(games: u64, made_at_seconds: f64) -> serde_json::Value {
    serde_json::json!({
        "kind": MARK_NET_KIND,
        "game": games,
        "net_made_at_seconds": made_at_seconds,
    })
}

/// Brings `state` up to a checkpoint taken after `elapsed` seconds of training: the learner's
/// random stream `learner_rng`, the run's `config`, and the length metrics.jsonl will have once
/// the checkpoint's own line (returned, `metrics_len` bytes before it) is written after it.
///
/// # Errors
/// The line cannot be serialised.
pub fn stamp_checkpoint_state(
    state: &mut RunState,
    elapsed: f64,
    metrics_len: u64,
    learner_rng: &rand::rngs::Xoshiro256PlusPlus,
    config: &TrainConfig,
) -> anyhow::Result<String> {
    state.elapsed_seconds = elapsed;
    let line = checkpoint_line(state)?;
    state.metrics_bytes = metrics_len + line.len() as u64;
    state.learner_rng = learner_rng.clone();
    state.config_yaml = Some(config.to_yaml());
    Ok(line)
}

/// Refuses to resume the checkpoint `dir` (state `state`) under settings that would change what
/// is learned, naming the keys.
pub fn check_resume_settings(
    dir: &Path,
    state: &RunState,
    settings: &TrainSettings,
    terminal_eval: TerminalEval,
) -> anyhow::Result<()> {
    let refuse = |keys: &str| {
        anyhow::anyhow!(
            "{} was trained with another {keys} than the run's configuration now gives; a resume may change only {} (put config.yaml back as it was, or start a new run)",
            dir.display(),
            RESUME_SAFE_KEYS.join(", ")
        )
    };
    if let Some(yaml) = &state.config_yaml {
        let trained = TrainConfig::from_yaml(yaml)
            .map_err(|e| anyhow::anyhow!("{}: its configuration: {e}", dir.display()))?;
        // A key the checkpoint's descent did not have yet says nothing of what it trained with:
        // the run's file may set it (to what that descent did) without a refusal.
        let changes = trained.changes_named_in(yaml, settings.config.learning_changes(&trained));
        if !changes.is_empty() {
            return Err(refuse(&changes.join(", ")));
        }
    }
    if state.terminal_eval != format!("{terminal_eval:?}") {
        return Err(refuse("learning.terminal_eval"));
    }
    Ok(())
}

/// The pause of `CHECKPOINT_PAUSE_ENV`, if set.
pub fn checkpoint_pause() -> Option<Duration> {
    std::env::var(CHECKPOINT_PAUSE_ENV)
        .ok()
        .and_then(|ms| ms.parse::<u64>().ok())
        .map(Duration::from_millis)
}
