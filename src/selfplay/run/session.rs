//! The one training session and the `Recipe` trait it drives. A recipe decides what differs between
//! Athénan, AlphaZero, ExIt and Gumbel AlphaZero — how its self-play games are played and learned,
//! what its checkpoint holds beside the run state, which player it evaluates — each in its folder
//! under `selfplay/recipes/`. Whatever the recipe, the session opens the run directory (a new run,
//! or the latest complete checkpoint), reopens metrics.jsonl where the checkpoint left it, keeps
//! the limits and the training clock, evaluates the network when due and at the run's end,
//! checkpoints when due and at the end, keeps the networks at time marks, and sums the session up.
//! The recipe plays and learns, calling `Session::network_changed` and `Session::learned` after
//! each game or round it learns.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use rand::rngs::Xoshiro256PlusPlus;

use crate::games::Game;
use crate::selfplay::config::{EvaluationSettings, TrainSettings};
use crate::selfplay::run::checkpoint::{
    checkpoint_line, checkpoint_pause, next_mark, stamp_checkpoint_state,
};
use crate::selfplay::run::end_reserve::EndReserve;
use crate::selfplay::run::mark_nets::{MarkNets, StampedNet};
use crate::selfplay::run::periodic_eval::{EvalRun, FirstEvaluation, LastEvaluation};
use crate::selfplay::run::run_clock::RunClock;
use crate::selfplay::run::run_dir::{MetricsLog, RunDir, STATE_FILE};
use crate::selfplay::run::run_progress::{RunProgress, budget_share};
use crate::selfplay::run::run_state::RunState;
pub use crate::selfplay::run::stop_reason::StopReason;
use crate::selfplay::telemetry::eval_report::EvalReport;
use crate::selfplay::telemetry::metrics::EvalMetrics;
use crate::selfplay::telemetry::observer::TrainingObserver;
use crate::settings::files::{Existing, write_atomically};
use crate::value::NetDevice;
use crate::value::saved_net::NetManifest;

/// What a call to `train` did.
#[derive(Clone, Debug)]
pub struct TrainSummary {
    pub games_this_session: u64,
    pub total_games: u64,
    /// Games played but not learned (too far behind the learner), in all.
    pub games_dropped: u64,
    pub elapsed_seconds: f64,
    pub last_checkpoint: Option<PathBuf>,
    pub stopped_by: StopReason,
    /// The evaluation of the final network against the baseline: the one at the run's end
    /// (`evaluation.at_end`), or a periodic one that fell on the last game.
    pub strength: Option<EvalReport>,
}

/// What a recipe is opened with: a new run (`checkpoint` `None`) or the verified checkpoint to
/// resume from.
pub struct RunStart<'s, G: Game> {
    pub settings: &'s TrainSettings,
    pub run_dir: &'s RunDir,
    pub initial: &'s G,
    pub checkpoint: Option<&'s Path>,
    pub device: &'s NetDevice,
}

/// What a recipe opened: itself, the run's state (new, or the checkpoint's) and the manifest of
/// its networks.
pub struct Opened<R> {
    pub recipe: R,
    pub state: RunState,
    pub manifest: NetManifest,
}

/// A training recipe, driven by the one session (`Session`).
pub trait Recipe<G: Game>: Sized {
    /// The network as kept at time marks and under `nets/` (a policy-value recipe keeps whether
    /// its value head is trained beside it).
    type Net: Clone;

    /// Opens a new run, or the checkpoint `start.checkpoint` (checking that it can be resumed
    /// under these settings).
    ///
    /// # Errors
    /// A checkpoint that cannot be read or resumed under these settings.
    fn open(start: &RunStart<'_, G>) -> anyhow::Result<Opened<Self>>;

    /// Plays and learns until `session.stop_reason` says stop; after each game or round
    /// learned, calls `session.network_changed` (time marks; it copies the new network only
    /// when the run keeps networks) and then `session.learned` (evaluations and checkpoints
    /// when due). Returns why it stopped; the session then checkpoints what is not yet and
    /// evaluates at the run's end.
    ///
    /// # Errors
    /// A failed write, a learning phase that diverged.
    fn play_and_learn(&mut self, session: &mut Session<'_, G, Self>) -> anyhow::Result<StopReason>;

    /// The network now.
    fn net(&self) -> Self::Net;

    /// Saves `net` under `base` (`.bpk` and `.json`) with `manifest`.
    ///
    /// # Errors
    /// A failed write, a network with a non-finite weight.
    fn save_net(net: &Self::Net, manifest: &NetManifest, base: &Path) -> anyhow::Result<()>;

    /// Writes what the recipe's checkpoint holds beside its network and `state.json` into the
    /// checkpoint's directory `dir` (optimiser state, replay).
    ///
    /// # Errors
    /// A failed write.
    fn write_checkpoint_files(&self, dir: &Path) -> anyhow::Result<()>;

    /// The learner's random stream, kept in the checkpoint.
    fn learner_rng(&self) -> &Xoshiro256PlusPlus;

    /// Plays the evaluation of the network now against the baseline.
    fn evaluate(
        &self,
        initial: &G,
        device: &NetDevice,
        evaluation: &EvaluationSettings,
        run: EvalRun,
    ) -> EvalReport;

    /// Once a checkpoint holding `state` is written (Athénan removes the pending records it
    /// holds).
    ///
    /// # Errors
    /// A failed removal.
    fn checkpointed(&mut self, _state: &RunState) -> anyhow::Result<()> {
        Ok(())
    }
}

/// Trains (or resumes, with `resume`) the run in `run_dir` with recipe `R`: opens the session,
/// lets the recipe play and learn to the run's limit, checkpoints what is not yet, evaluates at
/// the run's end when due.
///
/// # Errors
/// A checkpoint that cannot be read or resumed under these settings, a device not compiled
/// in, a failed write, a learning phase that diverged.
pub fn train_recipe<G: Game, R: Recipe<G>>(
    initial: G,
    settings: &TrainSettings,
    run_dir: &RunDir,
    resume: bool,
    observer: &mut dyn TrainingObserver,
) -> anyhow::Result<TrainSummary> {
    let (mut session, mut recipe) =
        Session::<G, R>::open(initial, settings, run_dir, resume, observer)?;
    let stopped_by = recipe.play_and_learn(&mut session)?;
    session.final_checkpoint(&mut recipe)?;
    session.finish(&recipe, stopped_by)
}

/// The latest complete checkpoint of `run_dir` when resuming (its checksums verified).
///
/// # Errors
/// A run directory this process does not hold the lock of, a damaged checkpoint.
pub fn checkpoint_to_resume(run_dir: &RunDir, resume: bool) -> anyhow::Result<Option<PathBuf>> {
    anyhow::ensure!(
        run_dir.is_locked(),
        "{}: a run is trained only by the process holding its lock",
        run_dir.root().display()
    );
    if !resume {
        return Ok(None);
    }
    run_dir.remove_partial_checkpoints()?;
    let checkpoint = run_dir.latest_checkpoint()?;
    match &checkpoint {
        // Before any of its files is read.
        Some(dir) => run_dir.verify_checkpoint(dir)?,
        None => {
            let logged = std::fs::metadata(run_dir.metrics_path()).map_or(0, |m| m.len());
            if logged > 0 {
                tracing::warn!(
                    "{} has no checkpoint: the run starts again from game 0 and its metrics.jsonl ({logged} bytes) is cut",
                    run_dir.root().display()
                );
            }
        }
    }
    Ok(checkpoint)
}

/// A training session of recipe `R` on a run directory: what every recipe shares.
pub struct Session<'a, G: Game, R: Recipe<G>> {
    pub settings: &'a TrainSettings,
    pub run_dir: &'a RunDir,
    pub observer: &'a mut dyn TrainingObserver,
    pub initial: G,
    pub device: NetDevice,
    /// The manifest of the run's networks (`net_version` set when one is saved).
    pub manifest: NetManifest,
    pub state: RunState,
    pub metrics: MetricsLog,
    /// Training time, shared with the players of a `parallel` run.
    pub clock: Arc<RunClock>,
    pub games_at_start: u64,
    /// The time kept at the run's end for its last evaluation.
    pub end_reserve: EndReserve,
    /// The checkpoint this session last wrote, or resumed from.
    pub last_checkpoint: Option<PathBuf>,
    /// Checkpoints written by this session (a distributed learner acknowledges its games then).
    pub checkpoints_written: u64,
    /// The training time (seconds, resumes included) at which the next time-based checkpoint
    /// is due: the next multiple of `checkpoint.every_time`, so that checkpoints fall on a
    /// regular grid of training time whatever the resumes.
    next_timed_checkpoint: f64,
    /// `checkpointed_counts()` at the last checkpoint.
    last_checkpoint_counts: (u64, u64, u64),
    last_evaluation: LastEvaluation,
    first_evaluation: FirstEvaluation,
    /// The network at each time mark.
    marks: MarkNets<R::Net>,
}

impl<'a, G: Game, R: Recipe<G>> Session<'a, G, R> {
    /// Opens a session and its recipe: resumes the latest checkpoint (with `resume`) or starts
    /// a new run, and reopens metrics.jsonl where the checkpoint left it.
    fn open(
        initial: G,
        settings: &'a TrainSettings,
        run_dir: &'a RunDir,
        resume: bool,
        observer: &'a mut dyn TrainingObserver,
    ) -> anyhow::Result<(Self, R)> {
        let checkpoint = checkpoint_to_resume(run_dir, resume)?;
        crate::value::direct::denormals::flush_denormals_to_zero();
        let device = settings.run.device.device()?;
        device.burn.seed(settings.seed);
        let start = RunStart {
            settings,
            run_dir,
            initial: &initial,
            checkpoint: checkpoint.as_deref(),
            device: &device,
        };
        let Opened {
            recipe,
            state,
            manifest,
        } = R::open(&start)?;
        run_dir.remove_kept_nets_after(state.games)?;
        let closing_line = match &checkpoint {
            Some(_) => checkpoint_line(&state)?,
            None => String::new(),
        };
        let metrics = MetricsLog::open(
            &run_dir.metrics_path(),
            (state.metrics_bytes, state.games),
            &closing_line,
            settings.run.tensorboard,
        )?;
        observer.on_start(state.games, settings.run.max_games, checkpoint.as_deref());
        let marks = MarkNets::new(
            settings.checkpoint.every_time.map(|t| t.as_secs_f64()),
            settings.run.max_time.map(|t| t.as_secs_f64()),
            state.elapsed_seconds,
            StampedNet {
                net: recipe.net(),
                games: state.games,
                made_at_seconds: state.net_made_at_seconds.unwrap_or(0.0),
            },
        );
        let clock = Arc::new(RunClock::start(state.elapsed_seconds));
        let session = Session {
            end_reserve: EndReserve::for_run(settings, &initial, &clock),
            first_evaluation: FirstEvaluation::new(
                settings.evaluation.clone(),
                state.elapsed_seconds,
            ),
            next_timed_checkpoint: next_mark(settings.checkpoint.every_time, state.elapsed_seconds),
            last_checkpoint_counts: checkpointed_counts(&state),
            games_at_start: state.games,
            marks,
            settings,
            run_dir,
            observer,
            initial,
            device,
            manifest,
            clock,
            state,
            metrics,
            last_checkpoint: checkpoint,
            checkpoints_written: 0,
            last_evaluation: LastEvaluation::default(),
        };
        Ok((session, recipe))
    }

    /// Training time so far, resumes included: wall time without the periodic evaluations.
    pub fn elapsed(&self) -> f64 {
        self.clock.elapsed()
    }

    /// The run's progress for a game starting now: by games (fixed for the game) and by
    /// training time (read at each of its moves), the nearer of the limits.
    pub fn progress(&self) -> RunProgress {
        RunProgress {
            by_games: self
                .settings
                .run
                .max_games
                .map_or(0.0, |max| self.state.games as f64 / max as f64),
            elapsed_at_start: self.elapsed(),
            max_time: self.settings.run.max_time.map(|max| max.as_secs_f64()),
            started: Instant::now(),
        }
    }

    /// The share of the run's budget spent: time or games, whichever is further (0 without
    /// either).
    pub fn budget_used(&self) -> f64 {
        let run = &self.settings.run;
        budget_share(
            self.state.games,
            run.max_games,
            self.clock.elapsed(),
            run.max_time,
        )
    }

    /// Whether the run must stop before starting game number `issued` (0-based; a recipe
    /// playing in rounds gives the games learned).
    pub fn stop_reason(&self, issued: u64) -> Option<StopReason> {
        if self.settings.stop.is_stopped() {
            return Some(StopReason::Requested);
        }
        if self.settings.run.max_games.is_some_and(|max| issued >= max) {
            return Some(StopReason::MaxGames);
        }
        if self
            .settings
            .run
            .max_time
            .is_some_and(|max| self.clock.self_play_time_is_up(max.as_secs_f64()))
        {
            return Some(StopReason::MaxTime);
        }
        None
    }

    /// After a game or a round learned (`games_before` games learned before it) and its
    /// network stamped (`network_changed`): evaluates and checkpoints when due.
    ///
    /// # Errors
    /// A failed write.
    pub fn learned(&mut self, recipe: &mut R, games_before: u64) -> anyhow::Result<()> {
        let games = self.state.games;
        if let Some(evaluation) = &self.settings.evaluation {
            let by_games = crosses(games_before, games, evaluation.every_games);
            if self.first_evaluation.due(self.elapsed()) || by_games {
                self.evaluate(recipe, evaluation, false)?;
            }
        }
        let by_games = crosses(games_before, games, self.settings.checkpoint.every_games);
        if by_games || self.elapsed() >= self.next_timed_checkpoint {
            self.checkpoint(recipe)?;
        }
        Ok(())
    }

    /// Stamps the network just made (of `state.games` games) and, when the run keeps networks,
    /// keeps the one it replaced when a time mark passed since (`mark_nets`). `net` copies the
    /// new network; it is called only when the run keeps networks, so that without them nothing
    /// is copied after each game.
    ///
    /// # Errors
    /// A failed write of a kept network.
    pub fn network_changed(&mut self, net: impl FnOnce() -> R::Net) -> anyhow::Result<()> {
        let made_at_seconds = self.elapsed();
        self.state.net_made_at_seconds = Some(made_at_seconds);
        if !self.settings.checkpoint.keep_nets {
            return Ok(());
        }
        let made = StampedNet {
            net: net(),
            games: self.state.games,
            made_at_seconds,
        };
        let manifest = &self.manifest;
        let save = |net: &R::Net, games: u64, base: &Path| {
            let manifest = NetManifest {
                net_version: Some(games),
                ..manifest.clone()
            };
            R::save_net(net, &manifest, base)
        };
        self.marks
            .keep_at_marks(made, self.run_dir, &mut self.metrics, save)
    }

    /// An evaluation (not counted as training time), logged: periodic on one thread, or the one
    /// at the run's end (`at_end`) on the run's threads.
    fn evaluate(
        &mut self,
        recipe: &R,
        evaluation: &EvaluationSettings,
        at_end: bool,
    ) -> anyhow::Result<()> {
        let run = EvalRun::for_session(self.settings, self.state.games, at_end, &self.clock);
        let start = Instant::now();
        let report = recipe.evaluate(&self.initial, &self.device, evaluation, run);
        let seconds = start.elapsed().as_secs_f64();
        self.clock.pause_for(seconds);
        self.end_reserve
            .measured(seconds, report.games, run.threads);
        self.end_reserve.keep_on(&self.clock);
        if report.games == 0 {
            // The run's time ran out before a game: nothing measured, nothing logged.
            tracing::warn!("no time was left for the evaluation at the run's end");
            return Ok(());
        }
        self.state.time_split.evaluation_seconds += seconds;
        let games = self.state.games;
        self.last_evaluation.record(games, &report);
        let line = EvalMetrics::new((games, at_end), evaluation, seconds, report);
        self.metrics.write(&line)?;
        self.observer.on_evaluation(&line);
        Ok(())
    }

    /// Writes checkpoint `ckpt-<games>` (the network kept under `nets/` first with
    /// `checkpoint.keep_nets`), points `latest` at it, then logs it (a checkpoint that failed
    /// is not logged).
    ///
    /// # Errors
    /// A failed write (the partial checkpoint is removed).
    pub fn checkpoint(&mut self, recipe: &mut R) -> anyhow::Result<()> {
        let elapsed = self.elapsed();
        let line = stamp_checkpoint_state(
            &mut self.state,
            elapsed,
            self.metrics.len(),
            recipe.learner_rng(),
            &self.settings.config,
        )?;
        let games = self.state.games;
        let manifest = NetManifest {
            net_version: Some(games),
            ..self.manifest.clone()
        };
        let net = recipe.net();
        if self.settings.checkpoint.keep_nets {
            // Before the checkpoint: a checkpoint on disk always has its network kept.
            R::save_net(&net, &manifest, &self.run_dir.kept_net_base(games)?)?;
        }
        let state = &self.state;
        let path = self.run_dir.write_checkpoint(games, |dir| {
            R::save_net(&net, &manifest, &dir.join("net"))?;
            recipe.write_checkpoint_files(dir)?;
            if let Some(pause) = checkpoint_pause() {
                std::thread::sleep(pause);
            }
            write_atomically(
                &dir.join(STATE_FILE),
                serde_json::to_string_pretty(state)?.as_bytes(),
                Existing::Replace,
            )
        })?;
        self.metrics.write_text(&line)?;
        recipe.checkpointed(&self.state)?;
        self.run_dir.prune(self.settings.checkpoint.keep_last)?;
        self.next_timed_checkpoint = next_mark(self.settings.checkpoint.every_time, elapsed);
        self.observer.on_checkpoint(games, &path);
        self.last_checkpoint = Some(path);
        self.checkpoints_written += 1;
        self.last_checkpoint_counts = checkpointed_counts(&self.state);
        Ok(())
    }

    /// Checkpoints what the last checkpoint does not hold yet (games learned, dropped or
    /// refused).
    ///
    /// # Errors
    /// A failed write.
    pub fn final_checkpoint(&mut self, recipe: &mut R) -> anyhow::Result<()> {
        if checkpointed_counts(&self.state) != self.last_checkpoint_counts
            || self.last_checkpoint.is_none()
        {
            self.checkpoint(recipe)?;
        }
        Ok(())
    }

    /// The evaluation at the run's end (`evaluates_at_end`), then the summary of the session.
    fn finish(&mut self, recipe: &R, stopped_by: StopReason) -> anyhow::Result<TrainSummary> {
        let (games, session_games) = (self.state.games, self.state.games - self.games_at_start);
        let at_end = &self.settings.evaluation;
        if let Some(e) =
            self.last_evaluation
                .due_at_end(at_end.clone(), stopped_by, (session_games, games))
        {
            self.evaluate(recipe, &e, true)?;
        }
        Ok(TrainSummary {
            games_this_session: session_games,
            total_games: games,
            games_dropped: self.state.games_dropped,
            elapsed_seconds: self.elapsed(),
            last_checkpoint: self.last_checkpoint.clone(),
            stopped_by,
            strength: self.last_evaluation.strength(games),
        })
    }
}

/// Games learned, dropped and records refused: what a checkpoint must hold.
fn checkpointed_counts(state: &RunState) -> (u64, u64, u64) {
    (state.games, state.games_dropped, state.records_rejected)
}

/// Whether a multiple of `every` lies in `(before, after]` (never, for `every` 0).
fn crosses(before: u64, after: u64, every: u64) -> bool {
    every > 0 && after / every > before / every
}

#[cfg(test)]
mod tests {
    use super::crosses;

    #[test]
    fn a_multiple_is_crossed_once_whatever_the_step() {
        assert!(crosses(9, 10, 10));
        assert!(!crosses(10, 11, 10));
        assert!(crosses(7, 23, 10), "a round of 16 games passes 10 and 20");
        assert!(!crosses(11, 19, 10));
        assert!(!crosses(0, 100, 0), "every 0: never");
    }
}
