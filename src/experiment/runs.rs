//! The training half of the protocol: every variant trains for the same time in every
//! repetition, in its own run directory, keeping its network at every stage; then the
//! networks of each stage are gathered for evaluation.
//!
//! ```text
//! <experiment-dir>/runs/<variant>/rep-<r>/   a run directory (see selfplay::run_dir)
//! ```
//! A run already finished is kept as it is; one cut short (the process was killed) resumes from
//! its latest checkpoint; one whose configuration differs from the experiment's is refused.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::config::ExperimentPlan;
use crate::selfplay::run::run_state::RunState;
use crate::selfplay::{RunDir, TrainConfig, TrainingObserver, train};

/// What happens to one run when the experiment starts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStart {
    /// Trained from scratch.
    New,
    /// Resumed from its latest checkpoint.
    Resumed,
    /// Already trained for the whole time: kept.
    Finished,
}

/// Receives the experiment's training progress.
pub trait ExperimentObserver {
    /// Run `index` of `total` (`variant`, repetition `repeat` from 1) is starting; returns the
    /// observer of its training.
    fn on_run(
        &mut self,
        variant: &str,
        repeat: u32,
        index: usize,
        total: usize,
        start: RunStart,
    ) -> &mut dyn TrainingObserver;
}

/// The run directory of `variant`, repetition `repeat` (from 1).
pub fn run_path(experiment_dir: &Path, variant: &str, repeat: u32) -> PathBuf {
    experiment_dir
        .join("runs")
        .join(variant)
        .join(format!("rep-{repeat}"))
}

/// Trains every run of the plan that is not finished yet, repetition by repetition (so that an
/// experiment stopped early has whole repetitions).
///
/// # Errors
/// A run that cannot be created, resumed or trained.
pub fn train_runs(
    plan: &ExperimentPlan,
    experiment_dir: &Path,
    observer: &mut dyn ExperimentObserver,
) -> anyhow::Result<()> {
    let total = plan.variants.len() * plan.repeats as usize;
    let mut index = 0;
    for repeat in 0..plan.repeats {
        for variant in &plan.variants {
            index += 1;
            let config = &variant.configs[repeat as usize];
            let settings = &variant.settings[repeat as usize];
            let path = run_path(experiment_dir, &variant.name, repeat + 1);
            let (run_dir, start) = open_run(&path, config, plan)?;
            let run_observer = observer.on_run(&variant.name, repeat + 1, index, total, start);
            if start != RunStart::Finished {
                train(settings, &run_dir, start == RunStart::Resumed, run_observer)
                    .with_context(|| format!("training {}", path.display()))?;
            }
        }
    }
    Ok(())
}

/// Opens (or creates) the run directory of one run and says what is left to do.
fn open_run(
    path: &Path,
    config: &TrainConfig,
    plan: &ExperimentPlan,
) -> anyhow::Result<(RunDir, RunStart)> {
    if !path
        .join(crate::selfplay::run::run_dir::CONFIG_FILE)
        .exists()
    {
        return Ok((RunDir::create(path, &config.to_yaml())?, RunStart::New));
    }
    let run_dir = RunDir::open_for_writing(path)?;
    let found = TrainConfig::from_yaml(&run_dir.config_text()?)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    if &found != config {
        bail!(
            "{} was trained with another configuration than this experiment gives it; \
             keep the experiment file as it was, or write the experiment elsewhere (--out)",
            path.display()
        );
    }
    let start = match run_dir.latest_checkpoint()? {
        Some(latest)
            if RunState::read(&latest)?.elapsed_seconds >= plan.train_time.as_secs_f64() =>
        {
            RunStart::Finished
        }
        // Cut short, possibly before its first checkpoint.
        _ => RunStart::Resumed,
    };
    Ok((run_dir, start))
}

/// A network kept by a run.
#[derive(Clone, Debug, PartialEq)]
pub struct StageNet {
    /// The saved network's base path.
    pub base: PathBuf,
    /// The same, relative to the experiment directory (for reports).
    pub name: String,
    /// Self-play games it had learned.
    pub games: u64,
    /// Training time when it was saved (seconds).
    pub train_seconds: f64,
}

/// The networks of one run: `stages[k]` is the first kept after `(k + 1) × stage_every` of
/// training (the final network when the run ended first); the last stage is the final network.
#[derive(Clone, Debug)]
pub struct RunNets {
    pub variant: usize,
    /// From 1.
    pub repeat: u32,
    pub stages: Vec<StageNet>,
}

impl RunNets {
    pub fn final_net(&self) -> &StageNet {
        self.stages.last().expect("a run has at least one stage")
    }
}

/// Gathers the stage networks of every finished run.
///
/// # Errors
/// A run directory without the networks of its stages.
pub fn stage_nets(plan: &ExperimentPlan, experiment_dir: &Path) -> anyhow::Result<Vec<RunNets>> {
    let mut all = Vec::new();
    for repeat in 1..=plan.repeats {
        for (variant_index, variant) in plan.variants.iter().enumerate() {
            let path = run_path(experiment_dir, &variant.name, repeat);
            let run_dir = RunDir::open(&path)?;
            let times = run_dir.checkpoint_times()?;
            let kept: Vec<StageNet> = run_dir
                .kept_nets()?
                .into_iter()
                .filter_map(|(games, base)| {
                    times.get(&games).map(|&train_seconds| StageNet {
                        name: base
                            .strip_prefix(experiment_dir)
                            .unwrap_or(&base)
                            .display()
                            .to_string(),
                        base,
                        games,
                        train_seconds,
                    })
                })
                .collect();
            let Some(last) = kept.last() else {
                bail!("{}: no network kept (has it trained?)", path.display());
            };
            if last.train_seconds < plan.train_time.as_secs_f64() {
                bail!(
                    "{}: trained {:.0} s of {:.0} s; run the experiment again to finish it",
                    path.display(),
                    last.train_seconds,
                    plan.train_time.as_secs_f64()
                );
            }
            let every = plan.stage_every.as_secs_f64();
            let stages = (1..=plan.stages())
                .map(|k| {
                    let mark = (k as f64 * every).min(plan.train_time.as_secs_f64());
                    kept.iter()
                        .find(|net| net.train_seconds >= mark)
                        .unwrap_or(last)
                        .clone()
                })
                .collect();
            all.push(RunNets {
                variant: variant_index,
                repeat,
                stages,
            });
        }
    }
    Ok(all)
}
