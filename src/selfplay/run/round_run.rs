//! A run of a policy-value recipe that trains in rounds — `recipe: alphazero`
//! (docs/algorithms.md §12) or `recipe: exit` (§13) — in a run directory, with the same run
//! directory, lock, limits, metrics, evaluations and checkpoints as the Athénan loop
//! (`training.rs`): each round's games played, then learned. A checkpoint holds the
//! policy-value network, Adam's state (AlphaZero; ExIt trains a fresh network each phase),
//! the positions kept (`replay.bin.zst`, the window's own format), and the run state with the
//! random stream: a resumed run goes on exactly where the checkpoint left it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crate::games::Game;
use crate::learn::augment::Augmentation;
use crate::search::TerminalEval;
use crate::selfplay::alphazero::{
    AlphaZeroProgress, AlphaZeroSettings, AlphaZeroTrainer, ResumedParts, RoundReport,
};
use crate::selfplay::alphazero_window::Window;
use crate::selfplay::config::{EvaluationSettings, TrainSettings};
use crate::selfplay::exit::{ExitResumed, ExitSettings, ExitTrainer};
use crate::selfplay::round_recipe::RoundRecipe;
use crate::selfplay::run::checkpoint::{
    check_resume_settings, checkpoint_line, next_mark, stamp_checkpoint_state,
};
use crate::selfplay::run::end_reserve::EndReserve;
use crate::selfplay::run::mark_nets::{MarkNets, StampedNet};
use crate::selfplay::run::periodic_eval::{
    EvalRun, FirstEvaluation, LastEvaluation, evaluate_player,
};
use crate::selfplay::run::replay_file::REPLAY_FILE;
use crate::selfplay::run::run_clock::RunClock;
use crate::selfplay::run::run_dir::{MetricsLog, OPTIMIZER_FILE, RunDir, STATE_FILE};
use crate::selfplay::run::run_state::RunState;
use crate::selfplay::run::self_play::budget_share;
use crate::selfplay::run::streams::{STREAM_LEARNER, stream_rng};
use crate::selfplay::run::training::{StopReason, TrainSummary, checkpoint_to_resume};
use crate::selfplay::telemetry::metrics::EvalMetrics;
use crate::selfplay::telemetry::observer::TrainingObserver;
use crate::settings::files::{Existing, write_atomically};
use crate::value::policy_value_net::PolicyValueNet;
use crate::value::saved_net::{
    LoadedNet, NetManifest, load_any_weights, read_manifest, save_policy_value_net,
};
use crate::value::{NetDevice, PolicyValueEvaluator};

/// A session of a round recipe `R` on a run directory.
struct RoundSession<'a, G: Game, R: RoundRecipe<G>> {
    settings: &'a TrainSettings,
    run_dir: &'a RunDir,
    observer: &'a mut dyn TrainingObserver,
    initial: G,
    device: NetDevice,
    manifest: NetManifest,
    trainer: R,
    state: RunState,
    metrics: MetricsLog,
    clock: RunClock,
    games_at_start: u64,
    next_timed_checkpoint: f64,
    last_checkpoint: Option<PathBuf>,
    checkpointed_games: Option<u64>,
    last_evaluation: LastEvaluation,
    /// The time kept at the run's end for its last evaluation.
    end_reserve: EndReserve,
    first_evaluation: FirstEvaluation,
    /// The network at each time mark (with whether its value head was trained).
    marks: MarkNets<(PolicyValueNet, bool)>,
}

/// Trains (or resumes) the AlphaZero run in `run_dir`.
///
/// # Errors
/// A checkpoint that cannot be read or resumed under these settings, a failed write.
pub fn train_alphazero<G: Game>(
    initial: G,
    settings: &TrainSettings,
    alphazero: &AlphaZeroSettings,
    run_dir: &RunDir,
    resume: bool,
    observer: &mut dyn TrainingObserver,
) -> anyhow::Result<TrainSummary> {
    check_policy_images::<G>(alphazero.augmentation)?;
    let open =
        |initial: &G, checkpoint: Option<&Path>, manifest: &NetManifest, device: &NetDevice| {
            match checkpoint {
                Some(dir) => resume_alphazero(initial, dir, settings, alphazero, manifest, device),
                None => {
                    let trainer = AlphaZeroTrainer::new(initial, alphazero.clone(), device);
                    Ok((trainer, new_state(settings)))
                }
            }
        };
    RoundSession::open(initial, settings, run_dir, resume, observer, open)?.run()
}

/// Trains (or resumes) the ExIt run in `run_dir`.
///
/// # Errors
/// A run without a budget to place `exit.value_from` in, a checkpoint that cannot be read or
/// resumed under these settings, a failed write.
pub fn train_exit<G: Game>(
    initial: G,
    settings: &TrainSettings,
    exit: &ExitSettings,
    run_dir: &RunDir,
    resume: bool,
    observer: &mut dyn TrainingObserver,
) -> anyhow::Result<TrainSummary> {
    anyhow::ensure!(
        settings.run.max_time.is_some() || settings.run.max_games.is_some(),
        "an exit run needs run.max_time or run.max_games (or --max-time / --max-games): exit.value_from ({}) is a share of it",
        exit.value_from
    );
    check_policy_images::<G>(exit.augmentation)?;
    let open =
        |initial: &G, checkpoint: Option<&Path>, manifest: &NetManifest, device: &NetDevice| {
            match checkpoint {
                Some(dir) => resume_exit(initial, dir, settings, exit, manifest, device),
                None => Ok((
                    ExitTrainer::new(initial, exit.clone(), device, None),
                    new_state(settings),
                )),
            }
        };
    RoundSession::open(initial, settings, run_dir, resume, observer, open)?.run()
}

/// Refuses symmetry augmentation of policy targets in a game whose action ids cannot be imaged
/// without the position (`Game::ACTION_IMAGES_BY_TABLE`).
fn check_policy_images<G: Game>(augmentation: Augmentation) -> anyhow::Result<()> {
    anyhow::ensure!(
        augmentation == Augmentation::None || G::SYMMETRIES.is_empty() || G::ACTION_IMAGES_BY_TABLE,
        "learning.augment_symmetries: {} numbers its moves by position, so a policy target cannot be imaged from the stored board; set `learning: {{augment_symmetries: none}}` for this recipe",
        G::NAME
    );
    Ok(())
}

impl<'a, G: Game, R: RoundRecipe<G>> RoundSession<'a, G, R> {
    fn open(
        initial: G,
        settings: &'a TrainSettings,
        run_dir: &'a RunDir,
        resume: bool,
        observer: &'a mut dyn TrainingObserver,
        open_trainer: impl FnOnce(
            &G,
            Option<&Path>,
            &NetManifest,
            &NetDevice,
        ) -> anyhow::Result<(R, RunState)>,
    ) -> anyhow::Result<Self> {
        let checkpoint = checkpoint_to_resume(run_dir, resume)?;
        let device = settings.run.device.device()?;
        device.burn.seed(settings.seed);
        let mut manifest = NetManifest::new(
            &settings.game.to_string(),
            &settings.architecture,
            G::ENCODING_VERSION,
            G::ENCODING.dims(),
            TerminalEval::Classic,
        );
        manifest.policy_actions = Some(G::NUM_ACTIONS);
        let (trainer, state) = open_trainer(&initial, checkpoint.as_deref(), &manifest, &device)?;
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
                net: (trainer.net().clone(), trainer.value_on()),
                games: state.games,
                made_at_seconds: state.net_made_at_seconds.unwrap_or(0.0),
            },
        );
        let first_evaluation =
            FirstEvaluation::new(settings.evaluation.clone(), state.elapsed_seconds);
        let clock = RunClock::start(state.elapsed_seconds);
        let end_reserve = EndReserve::for_run(settings, &initial, &clock);
        Ok(RoundSession {
            end_reserve,
            marks,
            settings,
            run_dir,
            observer,
            initial,
            device,
            manifest,
            trainer,
            clock,
            games_at_start: state.games,
            next_timed_checkpoint: next_mark(settings.checkpoint.every_time, state.elapsed_seconds),
            checkpointed_games: checkpoint.as_ref().map(|_| state.games),
            last_evaluation: LastEvaluation::default(),
            first_evaluation,
            state,
            metrics,
            last_checkpoint: checkpoint,
        })
    }

    /// The share of the run's budget spent: time or games, whichever is further (0 without
    /// either).
    fn budget_used(&self) -> f64 {
        let run = &self.settings.run;
        budget_share(
            self.state.games,
            run.max_games,
            self.clock.elapsed(),
            run.max_time,
        )
    }

    fn stop_reason(&self) -> Option<StopReason> {
        if self.settings.stop.is_stopped() {
            return Some(StopReason::Requested);
        }
        let run = &self.settings.run;
        if run.max_games.is_some_and(|max| self.state.games >= max) {
            return Some(StopReason::MaxGames);
        }
        if run
            .max_time
            .is_some_and(|max| self.clock.self_play_time_is_up(max.as_secs_f64()))
        {
            return Some(StopReason::MaxTime);
        }
        None
    }

    fn run(mut self) -> anyhow::Result<TrainSummary> {
        let stopped_by = loop {
            if let Some(reason) = self.stop_reason() {
                break reason;
            }
            let games_before = self.state.games;
            let start = Instant::now();
            let round = self.trainer.round(self.budget_used());
            let seconds = start.elapsed().as_secs_f64();
            self.after_round(&round, seconds)?;
            // A round started just before self-play stops runs its whole length: kept out too.
            self.end_reserve.unit_took(seconds, &self.clock);
            self.network_changed()?;
            if let Some(evaluation) = &self.settings.evaluation {
                let by_games = crosses(games_before, self.state.games, evaluation.every_games);
                if self.first_evaluation.due(self.clock.elapsed()) || by_games {
                    self.evaluate(evaluation, false)?;
                }
            }
            let every = self.settings.checkpoint.every_games;
            if (every > 0 && crosses(games_before, self.state.games, every))
                || self.clock.elapsed() >= self.next_timed_checkpoint
            {
                self.checkpoint()?;
            }
        };
        if self.checkpointed_games != Some(self.state.games) {
            self.checkpoint()?;
        }
        let (games, session_games) = (self.state.games, self.state.games - self.games_at_start);
        let at_end = &self.settings.evaluation;
        if let Some(e) =
            self.last_evaluation
                .due_at_end(at_end.clone(), stopped_by, (session_games, games))
        {
            self.evaluate(&e, true)?;
        }
        Ok(TrainSummary {
            games_this_session: games - self.games_at_start,
            total_games: games,
            games_dropped: 0,
            elapsed_seconds: self.clock.elapsed(),
            last_checkpoint: self.last_checkpoint.clone(),
            stopped_by,
            strength: self.last_evaluation.strength(games),
        })
    }

    /// Counts and logs a round.
    fn after_round(&mut self, round: &RoundReport, seconds: f64) -> anyhow::Result<()> {
        if let Some(loss) = round.loss
            && !(loss.value.is_finite() && loss.policy_cross_entropy.is_finite())
        {
            anyhow::bail!(
                "the learning of games {}-{} diverged (loss {loss:?}); the run stops without checkpointing it. Lower optimizer.learning_rate, then resume",
                self.state.games + 1,
                self.state.games + round.games
            );
        }
        self.state.games += round.games;
        self.state.pairs_added += round.positions;
        self.state.pairs_learned += round.samples_learned;
        self.state.positions_evaluated += round.evaluated_positions;
        let split = &mut self.state.time_split;
        split.learn_seconds += round.learn_seconds;
        split.search_seconds += (seconds - round.learn_seconds).max(0.0);
        self.state.value_learned = self.trainer.value_on();
        self.metrics.write(&serde_json::json!({
            "kind": R::ROUND_KIND,
            "game": self.state.games,
            "games": round.games,
            "positions": round.positions,
            "steps": round.steps,
            "evaluated_positions": round.evaluated_positions,
            "samples_learned": round.samples_learned,
            "learn_seconds": round.learn_seconds,
            "learning_rate": round.learning_rate,
            "value_loss": round.loss.map(|l| l.value),
            "value_learned": self.trainer.value_on(),
            "policy_cross_entropy": round.loss.map(|l| l.policy_cross_entropy),
            "seconds": seconds,
            "elapsed_seconds": self.clock.elapsed(),
        }))
    }

    /// Stamps the network a round just made and, when the run keeps networks, keeps the one it
    /// replaced when a time mark passed since (`mark_nets`; without kept networks nothing is
    /// copied).
    fn network_changed(&mut self) -> anyhow::Result<()> {
        let made_at_seconds = self.clock.elapsed();
        self.state.net_made_at_seconds = Some(made_at_seconds);
        if !self.settings.checkpoint.keep_nets {
            return Ok(());
        }
        let made = StampedNet {
            net: (self.trainer.net().clone(), self.trainer.value_on()),
            games: self.state.games,
            made_at_seconds,
        };
        let manifest = &self.manifest;
        let save = |(net, value_trained): &(PolicyValueNet, bool), games: u64, base: &Path| {
            let manifest = NetManifest {
                net_version: Some(games),
                value_head_trained: Some(*value_trained),
                ..manifest.clone()
            };
            save_policy_value_net(net, &manifest, base)
        };
        self.marks
            .keep_at_marks(made, self.run_dir, &mut self.metrics, save)
    }

    /// The current network, searching as its recipe plays (`RoundRecipe::evaluation_search`),
    /// against the baseline at the evaluation's budget per move: periodic on one thread, or at
    /// the run's end (`at_end`) on the run's threads.
    fn evaluate(&mut self, evaluation: &EvaluationSettings, at_end: bool) -> anyhow::Result<()> {
        let run = EvalRun::for_session(self.settings, self.state.games, at_end, &self.clock);
        let start = Instant::now();
        let evaluator = PolicyValueEvaluator::<G>::new(self.trainer.net().clone(), &self.device);
        let player = self.trainer.evaluation_search(evaluation.budget.clone());
        let report = evaluate_player(
            &self.initial,
            player,
            Arc::new(evaluator),
            evaluation,
            TerminalEval::Classic,
            run,
        );
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
        self.last_evaluation.record(self.state.games, &report);
        let line = EvalMetrics::new((self.state.games, at_end), evaluation, seconds, report);
        self.metrics.write(&line)?;
        self.observer.on_evaluation(&line);
        Ok(())
    }

    fn checkpoint(&mut self) -> anyhow::Result<()> {
        let elapsed = self.clock.elapsed();
        let line = stamp_checkpoint_state(
            &mut self.state,
            elapsed,
            self.metrics.len(),
            self.trainer.rng(),
            &self.settings.config,
        )?;
        let optimizer = self.trainer.optimizer_bytes()?;
        let window = self
            .trainer
            .window()
            .to_bytes(G::ENCODING.len(), G::NUM_ACTIONS);
        let manifest = NetManifest {
            net_version: Some(self.state.games),
            value_head_trained: Some(self.trainer.value_on()),
            ..self.manifest.clone()
        };
        let net = self.trainer.net();
        if self.settings.checkpoint.keep_nets {
            let base = self.run_dir.kept_net_base(self.state.games)?;
            save_policy_value_net(net, &manifest, &base)?;
        }
        let state = &self.state;
        let path = self.run_dir.write_checkpoint(state.games, |dir| {
            save_policy_value_net(net, &manifest, &dir.join("net"))?;
            if let Some(optimizer) = &optimizer {
                write_atomically(&dir.join(OPTIMIZER_FILE), optimizer, Existing::Replace)?;
            }
            write_atomically(
                &dir.join(REPLAY_FILE),
                &zstd::encode_all(&window[..], 3)?,
                Existing::Replace,
            )?;
            write_atomically(
                &dir.join(STATE_FILE),
                serde_json::to_string_pretty(state)?.as_bytes(),
                Existing::Replace,
            )
        })?;
        self.metrics.write_text(&line)?;
        self.run_dir.prune(self.settings.checkpoint.keep_last)?;
        self.next_timed_checkpoint = next_mark(self.settings.checkpoint.every_time, elapsed);
        self.observer.on_checkpoint(self.state.games, &path);
        self.checkpointed_games = Some(self.state.games);
        self.last_checkpoint = Some(path);
        Ok(())
    }
}

/// Whether a multiple of `every` lies in `(before, after]`.
fn crosses(before: u64, after: u64, every: u64) -> bool {
    every > 0 && after / every > before / every
}

/// The state of a new run.
fn new_state(settings: &TrainSettings) -> RunState {
    RunState::new(
        settings.game.to_string(),
        stream_rng(settings.seed, STREAM_LEARNER, 0),
        format!("{:?}", TerminalEval::Classic),
    )
}

/// What every round recipe's checkpoint holds: the run state, the policy-value network, the
/// window of `capacity` positions, and the progress (Adam steps counted from this process's start:
/// only a round's own steps are reported).
struct CheckpointParts {
    state: RunState,
    net: PolicyValueNet,
    window: Window,
    progress: AlphaZeroProgress,
}

fn read_checkpoint<G: Game>(
    dir: &Path,
    settings: &TrainSettings,
    manifest: &NetManifest,
    device: &NetDevice,
    capacity: usize,
) -> anyhow::Result<CheckpointParts> {
    let state = RunState::read(dir)?;
    check_resume_settings(dir, &state, settings, TerminalEval::Classic)?;
    let base = dir.join("net");
    let found = read_manifest(&base)?;
    crate::value::saved_net::check_manifest(&base, &found, manifest)?;
    let LoadedNet::PolicyValue(net) = load_any_weights(&base, &found, &device.burn)? else {
        anyhow::bail!(
            "{}: a value network, not a policy-value run's",
            base.display()
        );
    };
    let window_path = dir.join(REPLAY_FILE);
    let window_bytes = read_window_file(
        &window_path,
        capacity,
        G::ENCODING.len() + G::NUM_ACTIONS + 1,
    )?;
    let window = Window::from_bytes(&window_bytes, G::ENCODING.len(), G::NUM_ACTIONS, capacity)
        .map_err(|e| anyhow::anyhow!("{}: {e}", window_path.display()))?;
    let progress = AlphaZeroProgress {
        games: state.games,
        positions: state.pairs_added,
        steps: 0,
        last_loss: None,
        evaluated: state.positions_evaluated,
        learned: state.pairs_learned,
        learn_seconds: state.time_split.learn_seconds,
    };
    Ok(CheckpointParts {
        state,
        net: *net,
        window,
        progress,
    })
}

fn resume_alphazero<G: Game>(
    initial: &G,
    dir: &Path,
    settings: &TrainSettings,
    alphazero: &AlphaZeroSettings,
    manifest: &NetManifest,
    device: &NetDevice,
) -> anyhow::Result<(AlphaZeroTrainer<G>, RunState)> {
    let capacity = alphazero.window;
    let parts = read_checkpoint::<G>(dir, settings, manifest, device, capacity)?;
    let optimizer_path = dir.join(OPTIMIZER_FILE);
    let optimizer = std::fs::read(&optimizer_path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", optimizer_path.display()))?;
    let resumed = ResumedParts {
        net: parts.net,
        optimizer,
        window: parts.window,
        rng: parts.state.learner_rng.clone(),
        progress: parts.progress,
    };
    let trainer = AlphaZeroTrainer::resume(initial, alphazero.clone(), device, resumed)?;
    Ok((trainer, parts.state))
}

fn resume_exit<G: Game>(
    initial: &G,
    dir: &Path,
    settings: &TrainSettings,
    exit: &ExitSettings,
    manifest: &NetManifest,
    device: &NetDevice,
) -> anyhow::Result<(ExitTrainer<G>, RunState)> {
    let capacity = exit.max_positions;
    let parts = read_checkpoint::<G>(dir, settings, manifest, device, capacity)?;
    let resumed = ExitResumed {
        net: parts.net,
        data: parts.window,
        rng: parts.state.learner_rng.clone(),
        progress: parts.progress,
        value_on: parts.state.value_learned,
    };
    Ok((
        ExitTrainer::new(initial, exit.clone(), device, Some(resumed)),
        parts.state,
    ))
}

/// The decompressed window file, refused when it would exceed a full window of `capacity`
/// positions of `floats` floats each (no allocation beyond what the run itself would hold).
fn read_window_file(path: &Path, capacity: usize, floats: usize) -> anyhow::Result<Vec<u8>> {
    use std::io::Read;
    let limit = 64 + capacity.saturating_mul(floats).saturating_mul(4) as u64;
    let file = std::fs::File::open(path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    zstd::stream::Decoder::new(file)?
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    anyhow::ensure!(
        bytes.len() as u64 <= limit,
        "{}: more positions than the window holds ({capacity})",
        path.display()
    );
    Ok(bytes)
}
