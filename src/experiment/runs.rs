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
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use anyhow::{Context, bail};
use serde::Serialize;

use super::config::ExperimentPlan;
use crate::search::StopToken;
use crate::selfplay::run::run_state::{RunState, TimeSplit};
use crate::selfplay::{RunDir, TrainConfig, TrainSettings, TrainingObserver, train};

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

/// Receives the experiment's training progress; with `parallel_runs`, from several runs at
/// once.
pub trait ExperimentObserver: Sync {
    /// Run `index` of `total` (`variant`, repetition `repeat` from 1) is starting; returns the
    /// observer of its training, dropped when the run ends.
    fn on_run(
        &self,
        variant: &str,
        repeat: u32,
        index: usize,
        total: usize,
        start: RunStart,
    ) -> Box<dyn TrainingObserver + Send>;
}

/// The run directory of `variant`, repetition `repeat` (from 1).
pub fn run_path(experiment_dir: &Path, variant: &str, repeat: u32) -> PathBuf {
    experiment_dir
        .join("runs")
        .join(variant)
        .join(format!("rep-{repeat}"))
}

/// Trains every run of the plan that is not finished yet, repetition by repetition (so that an
/// experiment stopped early has whole repetitions), `plan.parallel_runs` at a time, each with
/// its own pool of `plan.learning_threads` for its learning steps. After a run fails no other
/// starts; those under way finish.
///
/// # Errors
/// A run that cannot be created, resumed or trained (the first one, in the plan's order).
pub fn train_runs(
    plan: &ExperimentPlan,
    experiment_dir: &Path,
    observer: &dyn ExperimentObserver,
    stop: &StopToken,
) -> anyhow::Result<()> {
    let jobs: Vec<(usize, u32)> = (0..plan.repeats)
        .flat_map(|repeat| (0..plan.variants.len()).map(move |variant| (variant, repeat)))
        .collect();
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let errors: Mutex<Vec<(usize, anyhow::Error)>> = Mutex::new(Vec::new());
    let worker = || {
        // After a stop request (Ctrl-C) no new run starts; those under way checkpoint and stop.
        while !failed.load(Ordering::SeqCst) && !stop.is_stopped() {
            let index = next.fetch_add(1, Ordering::SeqCst);
            let Some(&(variant, repeat)) = jobs.get(index) else {
                return;
            };
            let run = || {
                train_one(
                    plan,
                    experiment_dir,
                    observer,
                    variant,
                    repeat,
                    (index + 1, jobs.len(), stop),
                )
            };
            let result = match plan.learning_threads {
                None => run(),
                Some(threads) => rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .context("cannot start a run's learning threads")
                    .and_then(|pool| pool.install(run)),
            };
            if let Err(e) = result {
                failed.store(true, Ordering::SeqCst);
                errors.lock().expect("no panic holds it").push((index, e));
            }
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..plan.parallel_runs.min(jobs.len()) {
            scope.spawn(worker);
        }
        worker();
    });
    let mut errors = errors.into_inner().expect("no panic holds it");
    errors.sort_by_key(|(index, _)| *index);
    match errors.into_iter().next() {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

/// Trains run `index` of `total` (from 1): `variant` (an index into the plan), repetition
/// `repeat` (from 0), unless it is finished.
fn train_one(
    plan: &ExperimentPlan,
    experiment_dir: &Path,
    observer: &dyn ExperimentObserver,
    variant: usize,
    repeat: u32,
    (index, total, stop): (usize, usize, &StopToken),
) -> anyhow::Result<()> {
    let variant = &plan.variants[variant];
    let config = &variant.configs[repeat as usize];
    let settings = &TrainSettings {
        stop: stop.clone(),
        ..variant.settings[repeat as usize].clone()
    };
    let path = run_path(experiment_dir, &variant.name, repeat + 1);
    let (run_dir, start) = open_run(&path, config, plan)?;
    let mut run_observer = observer.on_run(&variant.name, repeat + 1, index, total, start);
    if start != RunStart::Finished {
        train(
            settings,
            &run_dir,
            start == RunStart::Resumed,
            run_observer.as_mut(),
        )
        .with_context(|| format!("training {}", path.display()))?;
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
    /// Training time (seconds) at which it was made: the end of the learning that produced it.
    pub train_seconds: f64,
}

/// The network of a stage whose mark is `mark` seconds of training: the last of `kept` (oldest
/// first) made at or before it — the run's network at the mark (`selfplay::run::mark_nets`
/// keeps it), never one whose learning ended after the mark.
fn stage_net_at(kept: &[StageNet], mark: f64) -> Option<&StageNet> {
    kept.iter().rev().find(|net| net.train_seconds <= mark)
}

/// The networks of one run: `stages[k]` is its network at `(k + 1) × stage_every` of training
/// (the last made at or before that mark); the last stage, at `train_time`, is the final
/// network.
#[derive(Clone, Debug)]
pub struct RunNets {
    pub variant: usize,
    /// From 1.
    pub repeat: u32,
    pub stages: Vec<StageNet>,
    /// What the run computed, from its latest checkpoint.
    pub compute: RunCompute,
}

/// A run's network compute over its whole training (its latest checkpoint's counts): what lets
/// a reader see whether every recipe had the same machine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct RunCompute {
    pub games: u64,
    pub train_seconds: f64,
    /// Positions the network evaluated in self-play (every row of every call).
    pub positions_evaluated: u64,
    /// Minibatch rows learned (symmetric images included).
    pub samples_learned: u64,
    /// Where its time went: self-play, learning, pre-training, evaluations.
    pub time_split: TimeSplit,
}

impl RunCompute {
    /// Reads the counts of the run directory's latest checkpoint.
    fn of(run_dir: &RunDir) -> anyhow::Result<RunCompute> {
        let Some(latest) = run_dir.latest_checkpoint()? else {
            return Ok(RunCompute::default());
        };
        let state = RunState::read(&latest)?;
        Ok(RunCompute {
            games: state.games,
            train_seconds: state.elapsed_seconds,
            positions_evaluated: state.positions_evaluated,
            samples_learned: state.pairs_learned,
            time_split: state.time_split,
        })
    }
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
            let trained = run_dir
                .checkpoint_times()?
                .into_values()
                .fold(0.0, f64::max);
            let made_at = run_dir.net_made_at_times()?;
            let kept: Vec<StageNet> = run_dir
                .kept_nets()?
                .into_iter()
                .filter_map(|(games, base)| {
                    made_at.get(&games).map(|&train_seconds| StageNet {
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
            let Some(first) = kept.first() else {
                bail!("{}: no network kept (has it trained?)", path.display());
            };
            if trained < plan.train_time.as_secs_f64() {
                bail!(
                    "{}: trained {:.0} s of {:.0} s; run the experiment again to finish it",
                    path.display(),
                    trained,
                    plan.train_time.as_secs_f64()
                );
            }
            let every = plan.stage_every.as_secs_f64();
            let stages = (1..=plan.stages())
                .map(|k| {
                    let mark = (k as f64 * every).min(plan.train_time.as_secs_f64());
                    stage_net_at(&kept, mark).unwrap_or(first).clone()
                })
                .collect();
            all.push(RunNets {
                variant: variant_index,
                repeat,
                stages,
                compute: RunCompute::of(&run_dir)?,
            });
        }
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::ExperimentConfig;
    use std::sync::Arc;
    use std::time::Instant;

    /// When a run started and ended, and the threads of the pool it learned on.
    struct RunSpan {
        name: String,
        start: Instant,
        end: Option<Instant>,
        pool: usize,
    }

    #[derive(Default)]
    struct Timeline(Mutex<Vec<RunSpan>>);

    struct RunTimer {
        name: String,
        timeline: Arc<Timeline>,
    }

    impl TrainingObserver for RunTimer {
        fn on_start(&mut self, _: u64, _: Option<u64>, _: Option<&Path>) {
            let mut all = self.timeline.0.lock().unwrap();
            all.push(RunSpan {
                name: self.name.clone(),
                start: Instant::now(),
                end: None,
                pool: rayon::current_num_threads(),
            });
        }
    }

    impl Drop for RunTimer {
        fn drop(&mut self) {
            let mut all = self.timeline.0.lock().unwrap();
            if let Some(run) = all.iter_mut().find(|run| run.name == self.name) {
                run.end = Some(Instant::now());
            }
        }
    }

    struct Recorder(Arc<Timeline>);

    impl ExperimentObserver for Recorder {
        fn on_run(
            &self,
            variant: &str,
            repeat: u32,
            _: usize,
            _: usize,
            _: RunStart,
        ) -> Box<dyn TrainingObserver + Send> {
            Box::new(RunTimer {
                name: format!("{variant}#{repeat}"),
                timeline: self.0.clone(),
            })
        }
    }

    /// Two runs at once on two cores: both train at the same time, each learning on a pool of
    /// one thread, and both finish their whole training time.
    #[test]
    fn parallel_runs_train_at_once_each_on_its_share_of_the_cores() {
        let text = "game: tic_tac_toe\ntrain_time: 2s\nstage_every: 1s\nparallel_runs: 2\n\
                    set:\n  search.iters: 10\n  network.architecture: resnet-b0c8-fc16\n  \
                    replay: {games: 4, duplication: 2, batch_size: 16}\n\
                    variants:\n  - name: a\n  - name: b\n";
        let config = ExperimentConfig::from_yaml(text).unwrap();
        let plan = config.plan("x", 2, &|_| unreachable!("no base")).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let timeline = Arc::new(Timeline::default());
        train_runs(
            &plan,
            dir.path(),
            &Recorder(timeline.clone()),
            &StopToken::new(),
        )
        .unwrap();
        let runs = timeline.0.lock().unwrap();
        assert_eq!(runs.len(), 2);
        for run in runs.iter() {
            assert_eq!(
                run.pool, 1,
                "{} learned on its own one-thread pool",
                run.name
            );
            assert!(run.end.is_some(), "{} ended", run.name);
        }
        let (a, b) = (&runs[0], &runs[1]);
        assert!(
            b.start < a.end.unwrap() && a.start < b.end.unwrap(),
            "the runs overlap in time"
        );
        let nets = stage_nets(&plan, dir.path()).unwrap();
        assert_eq!(nets.len(), 2);
        // Both trained their whole time; each final network is the one in effect at 2 s.
        assert!(nets.iter().all(|run| run.compute.train_seconds >= 2.0));
        assert!(nets.iter().all(|run| run.final_net().train_seconds <= 2.0));
    }
}
