//! An AlphaZero run (`recipe: alphazero`, docs/algorithms.md §12) in a run directory, with the
//! same run directory, lock, limits, metrics, evaluations and checkpoints as the Athénan loop
//! (`training.rs`): rounds of `alphazero.parallel_games` self-play games, each round learned
//! at once. A checkpoint holds the policy-value network, Adam's state, the window of positions
//! (`replay.bin.zst`, the window's own format), and the run state with the random stream: a
//! resumed run goes on exactly where the checkpoint left it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crate::games::Game;
use crate::search::puct::PuctOptions;
use crate::search::{SearchSpec, TerminalEval};
use crate::selfplay::alphazero::{
    AlphaZeroProgress, AlphaZeroSettings, AlphaZeroTrainer, ResumedParts, RoundReport,
};
use crate::selfplay::alphazero_window::Window;
use crate::selfplay::config::{EvaluationSettings, TrainSettings};
use crate::selfplay::run::checkpoint::{check_resume_settings, checkpoint_line, next_mark};
use crate::selfplay::run::periodic_eval::{budget_text, evaluate_player};
use crate::selfplay::run::replay_file::REPLAY_FILE;
use crate::selfplay::run::run_clock::RunClock;
use crate::selfplay::run::run_dir::{MetricsLog, RunDir, STATE_FILE};
use crate::selfplay::run::run_state::RunState;
use crate::selfplay::run::streams::{STREAM_EVAL, STREAM_LEARNER, stream_rng};
use crate::selfplay::run::training::{StopReason, TrainSummary, checkpoint_to_resume};
use crate::selfplay::telemetry::metrics::EvalMetrics;
use crate::selfplay::telemetry::observer::TrainingObserver;
use crate::value::saved_net::{
    LoadedNet, NetManifest, load_any_weights, read_manifest, save_policy_value_net,
    write_atomically,
};
use crate::value::{NetDevice, PolicyValueEvaluator};

/// An AlphaZero session on a run directory.
struct AlphaZeroSession<'a, G: Game> {
    settings: &'a TrainSettings,
    alphazero: &'a AlphaZeroSettings,
    run_dir: &'a RunDir,
    observer: &'a mut dyn TrainingObserver,
    initial: G,
    device: NetDevice,
    manifest: NetManifest,
    trainer: AlphaZeroTrainer<G>,
    state: RunState,
    metrics: MetricsLog,
    clock: RunClock,
    games_at_start: u64,
    next_timed_checkpoint: f64,
    last_checkpoint: Option<PathBuf>,
    checkpointed_games: Option<u64>,
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
    AlphaZeroSession::open(initial, settings, alphazero, run_dir, resume, observer)?.run()
}

impl<'a, G: Game> AlphaZeroSession<'a, G> {
    fn open(
        initial: G,
        settings: &'a TrainSettings,
        alphazero: &'a AlphaZeroSettings,
        run_dir: &'a RunDir,
        resume: bool,
        observer: &'a mut dyn TrainingObserver,
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
        let (trainer, state) = match &checkpoint {
            Some(dir) => resume_trainer(&initial, dir, settings, alphazero, &manifest, &device)?,
            None => new_trainer(&initial, settings, alphazero, &device),
        };
        run_dir.remove_kept_nets_after(state.games)?;
        let closing_line = match &checkpoint {
            Some(_) => checkpoint_line(state.games, state.elapsed_seconds)?,
            None => String::new(),
        };
        let metrics = MetricsLog::open(
            &run_dir.metrics_path(),
            state.metrics_bytes,
            &closing_line,
            settings.run.tensorboard,
        )?;
        observer.on_start(state.games, settings.run.max_games, checkpoint.as_deref());
        Ok(AlphaZeroSession {
            settings,
            alphazero,
            run_dir,
            observer,
            initial,
            device,
            manifest,
            trainer,
            clock: RunClock::start(state.elapsed_seconds),
            games_at_start: state.games,
            next_timed_checkpoint: next_mark(settings.checkpoint.every_time, state.elapsed_seconds),
            checkpointed_games: checkpoint.as_ref().map(|_| state.games),
            state,
            metrics,
            last_checkpoint: checkpoint,
        })
    }

    fn stop_reason(&self) -> Option<StopReason> {
        if crate::selfplay::run::stop_request::stop_requested() {
            return Some(StopReason::Requested);
        }
        let run = &self.settings.run;
        if run.max_games.is_some_and(|max| self.state.games >= max) {
            return Some(StopReason::MaxGames);
        }
        if run
            .max_time
            .is_some_and(|max| self.clock.elapsed() >= max.as_secs_f64())
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
            let round = self.trainer.round();
            self.after_round(&round, start.elapsed().as_secs_f64())?;
            if let Some(evaluation) = self.settings.evaluation
                && crosses(games_before, self.state.games, evaluation.every_games)
            {
                self.evaluate(&evaluation)?;
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
        Ok(TrainSummary {
            games_this_session: self.state.games - self.games_at_start,
            total_games: self.state.games,
            games_dropped: 0,
            elapsed_seconds: self.clock.elapsed(),
            last_checkpoint: self.last_checkpoint.clone(),
            stopped_by,
        })
    }

    /// Counts and logs a round.
    fn after_round(&mut self, round: &RoundReport, seconds: f64) -> anyhow::Result<()> {
        if let Some(loss) = round.loss
            && !(loss.value_mse.is_finite() && loss.policy_cross_entropy.is_finite())
        {
            anyhow::bail!(
                "the learning of games {}-{} diverged (loss {loss:?}); the run stops without checkpointing it. Lower optimizer.learning_rate, then resume",
                self.state.games + 1,
                self.state.games + round.games
            );
        }
        self.state.games += round.games;
        self.state.pairs_added += round.positions;
        self.state.pairs_learned += round.steps * self.alphazero.batch_size as u64;
        self.metrics.write(&serde_json::json!({
            "kind": "alphazero_round",
            "game": self.state.games,
            "games": round.games,
            "positions": round.positions,
            "steps": round.steps,
            "value_mse": round.loss.map(|l| l.value_mse),
            "policy_cross_entropy": round.loss.map(|l| l.policy_cross_entropy),
            "seconds": seconds,
            "elapsed_seconds": self.clock.elapsed(),
        }))
    }

    /// The current network, searching with PUCT (the run's own search, no noise), against the
    /// baseline at the evaluation's budget per move.
    fn evaluate(&mut self, evaluation: &EvaluationSettings) -> anyhow::Result<()> {
        let start = Instant::now();
        let evaluator = PolicyValueEvaluator::<G>::new(self.trainer.net().clone(), &self.device);
        let mut rng = stream_rng(self.settings.seed, STREAM_EVAL, self.state.games);
        let options = PuctOptions {
            dirichlet_fraction: 0.0,
            ..self.alphazero.puct
        };
        let player = (
            format!("puct:model=<current>,{}", budget_text(&evaluation.budget)),
            SearchSpec::Puct {
                budget: evaluation.budget,
                options,
            },
        );
        let report = evaluate_player(
            &self.initial,
            player,
            Arc::new(evaluator),
            evaluation,
            TerminalEval::Classic,
            rand::Rng::next_u64(&mut rng),
        );
        let seconds = start.elapsed().as_secs_f64();
        self.clock.pause_for(seconds);
        let line = EvalMetrics::new(self.state.games, evaluation, seconds, report);
        self.metrics.write(&line)?;
        self.observer.on_evaluation(&line);
        Ok(())
    }

    fn checkpoint(&mut self) -> anyhow::Result<()> {
        let elapsed = self.clock.elapsed();
        let line = checkpoint_line(self.state.games, elapsed)?;
        let (optimizer, window, rng) = self.trainer.checkpoint_parts()?;
        self.state.elapsed_seconds = elapsed;
        self.state.metrics_bytes = self.metrics.len() + line.len() as u64;
        self.state.learner_rng = rng.clone();
        self.state.config_yaml = Some(self.settings.config.to_yaml());
        let window = window.to_bytes(G::ENCODING.len(), G::NUM_ACTIONS);
        let manifest = NetManifest {
            net_version: Some(self.state.games),
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
            write_atomically(&dir.join("optimizer.bpk"), &optimizer)?;
            write_atomically(&dir.join(REPLAY_FILE), &zstd::encode_all(&window[..], 3)?)?;
            write_atomically(
                &dir.join(STATE_FILE),
                serde_json::to_string_pretty(state)?.as_bytes(),
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

fn new_trainer<G: Game>(
    initial: &G,
    settings: &TrainSettings,
    alphazero: &AlphaZeroSettings,
    device: &NetDevice,
) -> (AlphaZeroTrainer<G>, RunState) {
    let trainer = AlphaZeroTrainer::new(initial, alphazero.clone(), &device.burn);
    let state = RunState::new(
        settings.game.to_string(),
        stream_rng(settings.seed, STREAM_LEARNER, 0),
        format!("{:?}", TerminalEval::Classic),
    );
    (trainer, state)
}

fn resume_trainer<G: Game>(
    initial: &G,
    dir: &Path,
    settings: &TrainSettings,
    alphazero: &AlphaZeroSettings,
    manifest: &NetManifest,
    device: &NetDevice,
) -> anyhow::Result<(AlphaZeroTrainer<G>, RunState)> {
    let state = RunState::read(dir)?;
    check_resume_settings(dir, &state, settings, TerminalEval::Classic)?;
    let base = dir.join("net");
    let found = read_manifest(&base)?;
    crate::value::saved_net::check_manifest(&base, &found, manifest)?;
    let LoadedNet::PolicyValue(net) = load_any_weights(&base, &found, &device.burn)? else {
        anyhow::bail!(
            "{}: a value network, not an AlphaZero run's",
            base.display()
        );
    };
    let optimizer = std::fs::read(dir.join("optimizer.bpk"))?;
    let window_path = dir.join(REPLAY_FILE);
    let window_bytes = read_window_file(
        &window_path,
        alphazero.window,
        G::ENCODING.len() + G::NUM_ACTIONS + 1,
    )?;
    let window = Window::from_bytes(
        &window_bytes,
        G::ENCODING.len(),
        G::NUM_ACTIONS,
        alphazero.window,
    )
    .map_err(|e| anyhow::anyhow!("{}: {e}", window_path.display()))?;
    let progress = AlphaZeroProgress {
        games: state.games,
        positions: state.pairs_added,
        steps: state.pairs_learned / alphazero.batch_size.max(1) as u64,
        last_loss: None,
    };
    let parts = ResumedParts {
        net: *net,
        optimizer,
        window,
        rng: state.learner_rng.clone(),
        progress,
    };
    let trainer = AlphaZeroTrainer::resume(initial, alphazero.clone(), &device.burn, parts)?;
    Ok((trainer, state))
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
