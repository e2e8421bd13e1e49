//! The training loop (paper Algorithm 3 with the options of docs/algorithms.md §3-6):
//!
//! ```text
//! repeat until the run's limit:
//!     play a self-play game (completed Descent, the table kept across the game's moves,
//!         each move drawn from the root's children with the configured distribution)
//!     pairs ← the game's learning pairs (tree, root or terminal learning), augmented if asked
//!     add them to the replay buffer; run one learning phase
//!     the players pick up the new weights before their next move
//! ```
//! N games are played at once on N threads sharing one batching evaluator. The network is
//! versioned: version n is the network after n games learned, and each game is played with the
//! version current when it started, to its last move. In `sequential` mode the learner (this
//! thread) trains after each finished game on that game's data and then hands out the next
//! game; with N = 1 a game starts only after the previous one has been learned: exactly the
//! paper's sequential loop, reproducible from the seed (each game's random choices come from
//! its own stream, seeded by the run seed and the game's number). In `parallel` mode the
//! players never wait: the learner learns the games as they come. Either way a game more than
//! `run.max_lag` versions behind the learner when its turn comes is dropped, not learned.
//!
//! This file is the loop; its parts live beside it: `game_pool.rs` (the player threads),
//! `learner.rs` (a learning phase: the replay buffer and minibatches), `checkpoint.rs` (load,
//! resume checks, save), `run_state.rs`, `metrics.rs`, `observer.rs`, `streams.rs` (the random
//! streams) and `terminal_eval_choice.rs` (f_t's parameters).

mod distributed;
pub mod learner_heartbeat;
pub mod learner_stages;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::games::{Game, GameVisitor};
use crate::learn::ReplayBuffer;
use crate::learn::pretrain::random_terminal_pairs;
use crate::search::TerminalEval;
use crate::selfplay::config::{EvaluationSettings, RunMode, TrainSettings};
use crate::selfplay::distributed::game_record::{GameRecord, RecordCheck, RecordOrigin};
use crate::selfplay::run::checkpoint::{
    checkpoint_line, load_checkpoint, next_mark, save_checkpoint, stamp_checkpoint_state,
};
use crate::selfplay::run::end_reserve::EndReserve;
use crate::selfplay::run::game_pool::{GameSink, Limits, Players, play_games};
use crate::selfplay::run::learnable_game::LearnableGame;
use crate::selfplay::run::learner::{GameToLearn, Learner, PhaseReport};
use crate::selfplay::run::mark_nets::{MarkNets, StampedNet};
use crate::selfplay::run::pending_games::{PENDING_DIR, PendingGames};
use crate::selfplay::run::periodic_eval::{
    EvalReport, EvalRun, FirstEvaluation, LastEvaluation, evaluate_against_baseline,
};
use crate::selfplay::run::run_clock::RunClock;
use crate::selfplay::run::run_dir::{MetricsLog, RunDir};
use crate::selfplay::run::run_state::RunState;
use crate::selfplay::run::self_play::{RunProgress, SelfPlaySettings};
use crate::selfplay::run::streams::{STREAM_LEARNER, STREAM_SETUP, stream_rng};
use crate::selfplay::run::terminal_eval_choice::{resolve_terminal_eval, trained_terminal_eval};
use crate::selfplay::telemetry::games_log::{GAMES_FILE, GameLine, GamesLog};
use crate::selfplay::telemetry::metrics::{DroppedGame, EvalMetrics, GameMetrics};
use crate::selfplay::telemetry::observer::TrainingObserver;
use crate::value::saved_net::NetManifest;
use crate::value::saved_net::save_net;
use crate::value::{BatchingEvaluator, NetDevice, NetEvaluator, NetOptimizer, ValueNet};

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    MaxGames,
    MaxTime,
    /// A stop was asked for (`TrainSettings::stop`: the first Ctrl-C of `descent train`).
    Requested,
}

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

/// Trains (or resumes, with `resume`) the run in `run_dir` with `settings`.
///
/// ```
/// use descent::selfplay::{RunDir, SilentObserver, TrainConfig, train};
///
/// let yaml = "game: tic_tac_toe\nsearch: {iters: 20}\nrun: {max_games: 3}\n\
///             evaluation: {games: 2, iterations_per_move: 10}\n";
/// let config = TrainConfig::from_yaml(yaml).unwrap();
/// let settings = config.validate().unwrap();
/// let dir = tempfile::tempdir().unwrap();
/// let run_dir = RunDir::create(&dir.path().join("run"), &config.to_yaml()).unwrap();
/// let summary = train(&settings, &run_dir, false, &mut SilentObserver).unwrap();
/// assert_eq!(summary.total_games, 3);
/// assert!(summary.last_checkpoint.unwrap().ends_with("ckpt-3"));
/// // The final network against UCT at 10 iterations a move, 2 games (`evaluation.at_end`).
/// assert_eq!(summary.strength.unwrap().games, 2);
/// ```
///
/// # Errors
/// A checkpoint that cannot be read or resumed under these settings, a device not compiled
/// in, a failed write.
pub fn train(
    settings: &TrainSettings,
    run_dir: &RunDir,
    resume: bool,
    observer: &mut dyn TrainingObserver,
) -> anyhow::Result<TrainSummary> {
    settings.game.visit(TrainVisitor {
        settings,
        run_dir,
        resume,
        observer,
    })
}

struct TrainVisitor<'a> {
    settings: &'a TrainSettings,
    run_dir: &'a RunDir,
    resume: bool,
    observer: &'a mut dyn TrainingObserver,
}

impl GameVisitor for TrainVisitor<'_> {
    type Output = anyhow::Result<TrainSummary>;
    fn visit<G: Game>(self, initial: G) -> Self::Output {
        if let Some(alphazero) = &self.settings.alphazero {
            return crate::selfplay::run::round_run::train_alphazero(
                initial,
                self.settings,
                alphazero,
                self.run_dir,
                self.resume,
                self.observer,
            );
        }
        if let Some(exit) = &self.settings.exit {
            return crate::selfplay::run::round_run::train_exit(
                initial,
                self.settings,
                exit,
                self.run_dir,
                self.resume,
                self.observer,
            );
        }
        train_game(
            initial,
            self.settings,
            self.run_dir,
            self.resume,
            self.observer,
        )
    }
}

/// The learner's side of a training session.
struct Session<'a, G: Game> {
    settings: &'a TrainSettings,
    run_dir: &'a RunDir,
    observer: &'a mut dyn TrainingObserver,
    initial: G,
    device: NetDevice,
    manifest: NetManifest,
    terminal_eval: TerminalEval,
    learner: Learner,
    state: RunState,
    metrics: MetricsLog,
    games_log: GamesLog,
    /// Training time, shared with the players in `parallel` mode.
    clock: Arc<RunClock>,
    games_at_start: u64,
    /// The training time (seconds, resumes included) at which the next time-based checkpoint
    /// is due: the next multiple of `checkpoint.every_time`, so that checkpoints fall on a
    /// regular grid of training time whatever the resumes.
    next_timed_checkpoint: f64,
    last_checkpoint: Option<PathBuf>,
    /// Checkpoints written by this session (a distributed learner acknowledges its games then).
    checkpoints_written: u64,
    /// `checkpointed_counts()` at the last checkpoint.
    last_checkpoint_counts: (u64, u64, u64),
    last_evaluation: LastEvaluation,
    first_evaluation: FirstEvaluation,
    /// The time kept at the run's end for its last evaluation.
    end_reserve: EndReserve,
    /// The network at each time mark.
    marks: MarkNets<ValueNet>,
    /// `parallel` runs: the finished games no checkpoint holds yet, learned again on resume.
    pending: Option<PendingGames>,
}

/// Algorithm 3 on the run directory: open the session (a new run, or the latest checkpoint),
/// pre-train if asked, then play, learn and checkpoint until the run's limit.
fn train_game<G: Game>(
    initial: G,
    settings: &TrainSettings,
    run_dir: &RunDir,
    resume: bool,
    observer: &mut dyn TrainingObserver,
) -> anyhow::Result<TrainSummary> {
    let mut session = Session::open(initial, settings, run_dir, resume, observer)?;
    if session.last_checkpoint.is_none() && settings.learning.pretrain_terminal_states > 0 {
        session.pretrain()?;
    }
    session.run()
}

/// The latest complete checkpoint of `run_dir` when resuming (its checksums verified).
pub(crate) fn checkpoint_to_resume(
    run_dir: &RunDir,
    resume: bool,
) -> anyhow::Result<Option<PathBuf>> {
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

/// A new run's learner (a fresh network) and state.
fn new_run<G: Game>(
    settings: &TrainSettings,
    manifest: &NetManifest,
    terminal_eval: TerminalEval,
    device: &NetDevice,
) -> (Learner, RunState) {
    let shape = manifest.input_shape;
    let net = ValueNet::new(
        &settings.architecture,
        shape,
        manifest.tanh_output,
        &device.burn,
    );
    let learner = Learner::new(
        NetOptimizer::new(net, settings.adam, device, shape),
        ReplayBuffer::new(settings.replay.policy, G::ENCODING.len()),
        settings,
        stream_rng(settings.seed, STREAM_LEARNER, 0),
    );
    let state = RunState::new(
        settings.game.to_string(),
        learner.rng.clone(),
        format!("{terminal_eval:?}"),
    );
    (learner, state)
}

impl<'a, G: Game> Session<'a, G> {
    /// Opens a session: resumes the latest checkpoint (with `resume`) or starts a new run, and
    /// reopens metrics.jsonl where the checkpoint left it.
    fn open(
        initial: G,
        settings: &'a TrainSettings,
        run_dir: &'a RunDir,
        resume: bool,
        observer: &'a mut dyn TrainingObserver,
    ) -> anyhow::Result<Self> {
        let checkpoint = checkpoint_to_resume(run_dir, resume)?;
        crate::value::direct::denormals::flush_denormals_to_zero();
        let device = settings.run.device.device()?;
        device.burn.seed(settings.seed);
        let terminal_eval = match &checkpoint {
            Some(dir) => trained_terminal_eval(dir, settings, &initial)?,
            None => resolve_terminal_eval(settings, &initial)?,
        };
        let manifest = NetManifest::new(
            &settings.game.to_string(),
            &settings.architecture,
            G::ENCODING_VERSION,
            G::ENCODING.dims(),
            terminal_eval,
        );
        let (learner, state) = match &checkpoint {
            Some(dir) => load_checkpoint::<G>(dir, settings, &manifest, terminal_eval, &device)?,
            None => new_run::<G>(settings, &manifest, terminal_eval, &device),
        };
        run_dir.remove_kept_nets_after(state.games)?;
        let closing_line = match &checkpoint {
            Some(_) => checkpoint_line(&state)?,
            None => String::new(),
        };
        let mut metrics = MetricsLog::open(
            &run_dir.metrics_path(),
            (state.metrics_bytes, state.games),
            &closing_line,
            settings.run.tensorboard,
        )?;
        // The session's terminal evaluation, its parameters resolved (additive depth's P̃ …).
        metrics.write(&serde_json::json!({
            "kind": "session",
            "game": state.games,
            "terminal_eval": terminal_eval.to_string(),
        }))?;
        observer.on_start(state.games, settings.run.max_games, checkpoint.as_deref());
        let (state_games, state_dropped, state_rejected) =
            (state.games, state.games_dropped, state.records_rejected);
        let marks = MarkNets::new(
            settings.checkpoint.every_time.map(|t| t.as_secs_f64()),
            settings.run.max_time.map(|t| t.as_secs_f64()),
            state.elapsed_seconds,
            StampedNet {
                net: learner.net_optimizer.inference_net(),
                games: state.games,
                made_at_seconds: state.net_made_at_seconds.unwrap_or(0.0),
            },
        );
        let first_evaluation =
            FirstEvaluation::new(settings.evaluation.clone(), state.elapsed_seconds);
        // Kept by `parallel` runs; left by one resumed in another mode, learned all the same.
        let left = run_dir.root().join(PENDING_DIR).is_dir();
        let pending = match (settings.run.mode, &settings.broker) {
            (RunMode::Parallel, None) => Some(PendingGames::open(run_dir.root())?),
            (_, None) if left => Some(PendingGames::open(run_dir.root())?),
            _ => None,
        };
        let clock = Arc::new(RunClock::start(state.elapsed_seconds));
        let end_reserve = EndReserve::for_run(settings, &initial, &clock);
        Ok(Session {
            end_reserve,
            pending,
            marks,
            settings,
            run_dir,
            observer,
            initial,
            device,
            manifest,
            terminal_eval,
            learner,
            clock,
            games_at_start: state.games,
            next_timed_checkpoint: next_mark(settings.checkpoint.every_time, state.elapsed_seconds),
            games_log: GamesLog::open(&run_dir.root().join(GAMES_FILE), state.games)?,
            state,
            metrics,
            last_checkpoint: checkpoint,
            checkpoints_written: 0,
            last_checkpoint_counts: (state_games, state_dropped, state_rejected),
            last_evaluation: LastEvaluation::default(),
            first_evaluation,
        })
    }

    /// Training time so far, resumes included: wall time without the periodic evaluations.
    fn elapsed(&self) -> f64 {
        self.clock.elapsed()
    }

    /// The run's progress for a game starting now: by games (fixed for the game) and by
    /// training time (read at each of its moves), the nearer of the limits.
    fn progress(&self) -> RunProgress {
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

    /// Whether the run must stop before handing out game number `issued` (0-based).
    fn stop_reason(&self, issued: u64) -> Option<StopReason> {
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

    /// Pre-training (docs/algorithms.md §6): the network fitted on random terminal states,
    /// within `learning.pretrain_time_share` of `run.max_time` (the states are drawn first,
    /// then learned until the share is spent).
    fn pretrain(&mut self) -> anyhow::Result<()> {
        let learning = &self.settings.learning;
        let budget = match (learning.pretrain_time_share, self.settings.run.max_time) {
            (Some(share), Some(max)) => Some(share * max.as_secs_f64()),
            _ => None,
        };
        let deadline = budget.map(|seconds| {
            let left = (seconds - self.elapsed()).max(0.0);
            Instant::now() + Duration::from_secs_f64(left)
        });
        let start = Instant::now();
        // Drawing the states may take at most half the budget (one chunk past it).
        let drawing_ends = budget.map(|seconds| start + Duration::from_secs_f64(seconds / 2.0));
        let mut rng = stream_rng(self.settings.seed, STREAM_SETUP, 1);
        let mut pairs = Vec::new();
        while pairs.len() < learning.pretrain_terminal_states
            && drawing_ends.is_none_or(|end| Instant::now() < end)
        {
            let chunk = 1024.min(learning.pretrain_terminal_states - pairs.len());
            let drawn = random_terminal_pairs(&self.initial, chunk, &self.terminal_eval, &mut rng);
            pairs.extend(drawn);
        }
        let fit = self.learner.fit(&pairs, learning.pretrain_epochs, deadline);
        let seconds = start.elapsed().as_secs_f64();
        self.state.time_split.pretrain_seconds += seconds;
        self.metrics.write(&serde_json::json!({
            "kind": "pretrain",
            "pairs": pairs.len(),
            "rows": fit.rows,
            "rows_learned": fit.rows_learned,
            "epochs": learning.pretrain_epochs,
            "loss": fit.mean_loss,
            "seconds": seconds,
            "budget_seconds": budget,
            "stopped_at_budget": fit.stopped_at_deadline,
        }))?;
        self.observer.on_pretrain(fit.rows_learned, fit.mean_loss);
        Ok(())
    }

    /// Plays and learns games until the run's limit, then checkpoints what is not yet.
    fn run(self) -> anyhow::Result<TrainSummary> {
        match (&self.settings.broker, self.settings.run.mode) {
            (Some(url), _) => {
                let url = url.clone();
                self.run_distributed(&url)
            }
            (None, RunMode::Distributed) => anyhow::bail!(
                "run.mode is distributed: give the Redis server with --broker redis://HOST:PORT"
            ),
            (None, _) => self.run_local(),
        }
    }

    /// Games learned, dropped and records refused: what a checkpoint must hold.
    fn checkpointed_counts(&self) -> (u64, u64, u64) {
        let s = &self.state;
        (s.games, s.games_dropped, s.records_rejected)
    }

    /// The evaluation at the run's end (`evaluates_at_end`), then the summary of the session.
    fn finish(&mut self, stopped_by: StopReason) -> anyhow::Result<TrainSummary> {
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
            games_dropped: self.state.games_dropped,
            elapsed_seconds: self.elapsed(),
            last_checkpoint: self.last_checkpoint.clone(),
            stopped_by,
            strength: self.last_evaluation.strength(games),
        })
    }

    /// Checkpoints what the last checkpoint does not hold yet (games learned, dropped or
    /// refused).
    fn final_checkpoint(&mut self) -> anyhow::Result<()> {
        if self.checkpointed_counts() != self.last_checkpoint_counts
            || self.last_checkpoint.is_none()
        {
            self.checkpoint()?;
        }
        Ok(())
    }

    /// `sequential` and `parallel`: the players are threads of this process.
    fn run_local(mut self) -> anyhow::Result<TrainSummary> {
        let threads = self.settings.run.threads;
        let games_per_thread = self.settings.run.games_per_thread;
        // Requests merged across threads wait at most half a millisecond for the others (with
        // games in flight, a thread's request holds all its games' positions).
        let max_batch = BatchingEvaluator::<G>::players_max_batch(
            threads,
            games_per_thread,
            self.device.direct_inference,
        );
        let shared = BatchingEvaluator::<G>::with_version(
            self.learner.net_optimizer.inference_net(),
            self.state.games,
            &self.device,
            max_batch,
            Duration::from_micros(500),
        )
        .chunked_for(threads);
        let player_settings = SelfPlaySettings {
            search: self.settings.search.clone(),
            terminal_eval: self.terminal_eval,
            targets: self.settings.learning.targets,
            selection: self.settings.selection,
            keep_resolved: self.settings.keep_resolved,
        };
        self.learn_pending_games(&shared)?;
        let parallel = self.settings.run.mode == RunMode::Parallel;
        let record_origin = parallel.then(|| RecordOrigin {
            game: self.manifest.game.clone(),
            config_hash: self.settings.config.learned_hash(),
            worker: "local".into(),
        });
        let initial = self.initial.clone();
        let players = Players {
            record_origin,
            initial: &initial,
            settings: &player_settings,
            seed: self.settings.seed,
            threads,
            games_per_thread,
            shared: &shared,
            first_index: self.state.next_game_index(),
        };
        // The session's clock, which the players read in `parallel` mode.
        let clock = Arc::clone(&self.clock);
        let limits = Limits {
            max_games: self.settings.run.max_games,
            max_time: self.settings.run.max_time.map(|max| max.as_secs_f64()),
            clock: &clock,
        };
        let mode = self.settings.run.mode;
        let mut sink = SessionSink {
            session: &mut self,
            shared: &shared,
        };
        let stopped_by = play_games(&players, mode, &limits, &mut sink)?;
        self.final_checkpoint()?;
        self.finish(stopped_by)
    }

    /// `parallel` runs, before play: learns the finished games of `pending/` that the
    /// checkpoint resumed from does not hold (in the order they were numbered), and removes
    /// the records of those it holds.
    fn learn_pending_games(&mut self, shared: &BatchingEvaluator<G>) -> anyhow::Result<()> {
        let Some(pending) = self.pending.clone() else {
            return Ok(());
        };
        pending.remove_taken(&self.state.games_taken)?;
        let numbers = pending.numbers()?;
        if !numbers.is_empty() {
            tracing::info!(
                "{} finished games no checkpoint holds: learning them first",
                numbers.len()
            );
        }
        let config_hash = self.settings.config.learned_hash();
        for number in numbers {
            let check = RecordCheck {
                game: &self.manifest.game,
                config_hash: &config_hash,
                // The run's own games: played with networks of the lost session, numbered by it.
                learner_version: u64::MAX,
                handed_out: u64::MAX,
                terminal_eval: self.terminal_eval,
            };
            let replayed = pending
                .read(number)
                .and_then(|bytes| Ok(GameRecord::from_bytes(&bytes)?))
                .and_then(|record| Ok(record.replay(&self.initial, &check)?));
            match replayed {
                Ok(game) if game.index == number => {
                    self.after_game(game, &mut |net, version| {
                        shared.publish(net, version);
                        Ok(())
                    })?
                }
                Ok(game) => {
                    self.set_aside_pending(&pending, number, &format!("holds game {}", game.index))?
                }
                Err(why) => self.set_aside_pending(&pending, number, &format!("{why:#}"))?,
            }
        }
        Ok(())
    }

    /// A pending record that cannot be learned: moved aside with its reason, warned about
    /// once; new games are numbered after it, so its number is not reused.
    fn set_aside_pending(
        &mut self,
        pending: &PendingGames,
        number: u64,
        why: &str,
    ) -> anyhow::Result<()> {
        let moved_to = pending.set_aside(number, why)?;
        tracing::warn!(
            "pending game {number} not learned ({why}): moved to {}",
            moved_to.display()
        );
        self.state.next_game_index = self.state.next_game_index.max(number + 1);
        Ok(())
    }

    /// Learns a finished game (or drops it when its network is too old), logs it, publishes
    /// the new version, and evaluates / checkpoints when due.
    fn after_game(
        &mut self,
        mut finished: LearnableGame,
        publish: &mut dyn FnMut(ValueNet, u64) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        self.state.next_game_index = self.state.next_game_index.max(finished.index + 1);
        self.state.positions_evaluated += finished.search.evaluated_positions;
        if let Some(pending) = &self.pending {
            // Kept until a checkpoint holds the game, whatever happens to this process.
            if let Some(record) = finished.record.take() {
                pending.write(finished.index, &record)?;
            }
            self.state.games_taken.insert(finished.index);
        }
        let lag = self.state.games.saturating_sub(finished.net_version);
        if lag > self.settings.run.max_lag {
            return self.drop_game(&finished, lag);
        }
        let learn_start = Instant::now();
        let pairs = std::mem::take(&mut finished.pairs);
        let game = GameToLearn {
            progress: self.progress().now(),
            evaluated_positions: finished.search.evaluated_positions,
            games_learned: self.state.games,
        };
        let phase: PhaseReport = self.learner.learn_game::<G>(pairs, game);
        let net = self.learner.net_optimizer.inference_net();
        self.refuse_divergence(&phase, &net, &finished)?;
        self.state.games += 1;
        self.network_changed(&net)?;
        publish(net, self.state.games)?;
        let learn_seconds = learn_start.elapsed().as_secs_f64();
        self.state.time_split.search_seconds += finished.seconds;
        self.state.time_split.learn_seconds += learn_seconds;
        // A game started just before self-play stops runs its whole length: kept out too.
        self.end_reserve
            .unit_took(finished.seconds + learn_seconds, &self.clock);
        self.state.pairs_added += phase.pairs_added as u64;
        self.state.pairs_learned += phase.pairs_learned as u64;
        let line = self.game_metrics(&finished, &phase, learn_seconds, lag);
        self.metrics.write(&line)?;
        self.games_log
            .write(&GameLine::new(&self.initial, &finished, self.state.games))?;
        self.observer.on_game(&line);
        if let Some(evaluation) = &self.settings.evaluation {
            let every = evaluation.every_games;
            let by_games = every > 0 && self.state.games.is_multiple_of(every);
            if self.first_evaluation.due(self.elapsed()) || by_games {
                self.evaluate(evaluation, false)?;
            }
        }
        let every_games = self.settings.checkpoint.every_games;
        let by_games = every_games > 0 && self.state.games.is_multiple_of(every_games);
        let by_time = self.elapsed() >= self.next_timed_checkpoint;
        if by_games || by_time {
            self.checkpoint()?;
        }
        Ok(())
    }

    /// Stops the run where a learning phase made the loss or a weight non-finite: nothing of it
    /// is published or checkpointed, so the last checkpoint (and the workers' network) is the
    /// last good one.
    fn refuse_divergence(
        &self,
        phase: &PhaseReport,
        net: &ValueNet,
        game: &LearnableGame,
    ) -> anyhow::Result<()> {
        let Some(what) = divergence(phase, net) else {
            return Ok(());
        };
        let kept = match &self.last_checkpoint {
            Some(path) => format!("{} holds the last good network", path.display()),
            None => "no checkpoint was written yet".into(),
        };
        anyhow::bail!(
            "the learning phase of game {} (number {}) diverged: {what}; the run stops without publishing or checkpointing it ({kept}). Lower optimizer.learning_rate, then resume",
            self.state.games + 1,
            game.index,
        )
    }

    /// Counts and logs a game not learned because its network is `lag` versions old.
    fn drop_game(&mut self, finished: &LearnableGame, lag: u64) -> anyhow::Result<()> {
        self.state.games_dropped += 1;
        tracing::debug!(
            "game {} dropped: played with network version {}, {lag} versions behind the learner",
            finished.index,
            finished.net_version
        );
        self.metrics.write(&DroppedGame {
            kind: "dropped",
            index: finished.index,
            net_version: finished.net_version,
            lag,
            learner_version: self.state.games,
            games_dropped: self.state.games_dropped,
        })
    }

    /// The metrics line of the game just learned.
    fn game_metrics(
        &self,
        game: &LearnableGame,
        phase: &PhaseReport,
        learn_seconds: f64,
        lag: u64,
    ) -> GameMetrics {
        let search = game.search;
        let session_games = (self.state.games - self.games_at_start) as f64;
        let session_training_seconds = self.clock.session_seconds();
        GameMetrics {
            kind: "game",
            game: self.state.games,
            index: game.index,
            net_version: game.net_version,
            lag,
            games_dropped: self.state.games_dropped,
            plies: game.plies,
            result_p0: game.outcome.value_p0(),
            final_value_p0: game.final_value_p0,
            pairs_added: phase.pairs_added,
            pairs_learned: phase.pairs_learned,
            minibatches: phase.minibatches,
            loss: phase.mean_loss,
            learning_rate: phase.learning_rate,
            replay_pairs: self.learner.replay.len(),
            replay_games: self.learner.replay.num_games(),
            iterations: search.iterations,
            table_states: game.table_states,
            evaluated_positions: search.evaluated_positions,
            mean_eval_batch: search.mean_batch(),
            game_seconds: game.seconds,
            net_seconds: game.net_seconds,
            learn_seconds,
            states_per_second: game.table_states as f64 / game.seconds.max(1e-9),
            evaluations_per_second: search.evaluated_positions as f64 / game.seconds.max(1e-9),
            elapsed_seconds: self.elapsed(),
            games_per_hour: session_games * 3600.0 / session_training_seconds.max(1e-9),
            unix_time: crate::selfplay::telemetry::tensorboard::unix_time(),
        }
    }

    /// An evaluation (not counted as training time), logged: periodic on one thread, or the one
    /// at the run's end (`at_end`) on the run's threads.
    fn evaluate(&mut self, evaluation: &EvaluationSettings, at_end: bool) -> anyhow::Result<()> {
        let run = EvalRun::for_session(self.settings, self.state.games, at_end, &self.clock);
        let start = Instant::now();
        let net = NetEvaluator::<G>::new(self.learner.net_optimizer.inference_net(), &self.device);
        let report = evaluate_against_baseline(
            &self.initial,
            std::sync::Arc::new(net),
            evaluation,
            self.terminal_eval,
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
        let games = self.state.games;
        self.last_evaluation.record(games, &report);
        let line = EvalMetrics::new((games, at_end), evaluation, seconds, report);
        self.metrics.write(&line)?;
        self.observer.on_evaluation(&line);
        Ok(())
    }

    /// Stamps the network a learning phase just made (`net`, of `state.games` games) and, when
    /// the run keeps networks, keeps the one it replaced when a time mark passed since
    /// (`mark_nets`; without kept networks nothing is copied).
    fn network_changed(&mut self, net: &ValueNet) -> anyhow::Result<()> {
        let made_at_seconds = self.elapsed();
        self.state.net_made_at_seconds = Some(made_at_seconds);
        if !self.settings.checkpoint.keep_nets {
            return Ok(());
        }
        let made = StampedNet {
            net: net.clone(),
            games: self.state.games,
            made_at_seconds,
        };
        let manifest = &self.manifest;
        let save = |net: &ValueNet, games: u64, base: &Path| {
            let manifest = NetManifest {
                net_version: Some(games),
                ..manifest.clone()
            };
            save_net(net, &manifest, base)
        };
        self.marks
            .keep_at_marks(made, self.run_dir, &mut self.metrics, save)
    }

    /// Writes checkpoint `ckpt-<games>`, points `latest` at it, then logs it (a checkpoint
    /// that failed is not logged).
    fn checkpoint(&mut self) -> anyhow::Result<()> {
        let elapsed = self.elapsed();
        let line = stamp_checkpoint_state(
            &mut self.state,
            elapsed,
            self.metrics.len(),
            &self.learner.rng,
            &self.settings.config,
        )?;
        let path = save_checkpoint(
            self.run_dir,
            &self.learner,
            &self.state,
            &self.manifest,
            self.settings.checkpoint.keep_nets,
        )?;
        self.metrics.write_text(&line)?;
        if let Some(pending) = &self.pending {
            pending.remove_taken(&self.state.games_taken)?;
        }
        self.run_dir.prune(self.settings.checkpoint.keep_last)?;
        self.next_timed_checkpoint = next_mark(
            self.settings.checkpoint.every_time,
            self.state.elapsed_seconds,
        );
        self.observer.on_checkpoint(self.state.games, &path);
        self.last_checkpoint = Some(path);
        self.checkpoints_written += 1;
        self.last_checkpoint_counts = self.checkpointed_counts();
        Ok(())
    }
}

/// What is not finite after a learning phase — its mean loss, a weight — if anything.
fn divergence(phase: &PhaseReport, net: &ValueNet) -> Option<String> {
    let loss = phase.mean_loss.unwrap_or(0.0);
    match (loss.is_finite(), net.non_finite_parameter()) {
        (true, None) => None,
        (_, Some(weight)) => Some(format!("mean loss {loss}, a weight is {weight}")),
        (false, None) => Some(format!("mean loss {loss}")),
    }
}

/// The session as the game pool's sink: hands out games until the run's limit, learns each.
struct SessionSink<'s, 'a, G: Game> {
    session: &'s mut Session<'a, G>,
    shared: &'s BatchingEvaluator<G>,
}

impl<G: Game> GameSink<G> for SessionSink<'_, '_, G> {
    fn next_game(&self, index: u64) -> Result<RunProgress, StopReason> {
        match self.session.stop_reason(index) {
            Some(reason) => Err(reason),
            None => Ok(self.session.progress()),
        }
    }

    fn game_finished(&mut self, finished: LearnableGame) -> anyhow::Result<()> {
        let shared = self.shared;
        self.session.after_game(finished, &mut |net, version| {
            shared.publish(net, version);
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::module::{Module, ModuleMapper, Param};
    use burn::prelude::{Device, Tensor};

    /// One bias times NaN (the first one met).
    struct PoisonOne {
        done: bool,
    }

    impl ModuleMapper for PoisonOne {
        fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
            if self.done || D != 1 {
                return param;
            }
            self.done = true;
            param.map(|t| t.mul_scalar(f32::NAN))
        }
    }

    #[test]
    fn a_phase_with_a_non_finite_loss_or_weight_is_a_divergence() {
        let architecture = "resnet-b0c8-fc8".parse().unwrap();
        let net = ValueNet::new(&architecture, [3, 3, 3], true, &Device::flex());
        let finite = PhaseReport {
            mean_loss: Some(0.25),
            ..PhaseReport::default()
        };
        assert_eq!(divergence(&finite, &net), None);
        assert_eq!(divergence(&PhaseReport::default(), &net), None, "no step");
        let nan_loss = PhaseReport {
            mean_loss: Some(f64::NAN),
            ..finite
        };
        assert_eq!(
            divergence(&nan_loss, &net).as_deref(),
            Some("mean loss NaN")
        );
        let poisoned = net.map(&mut PoisonOne { done: false });
        let found = divergence(&finite, &poisoned).expect("a NaN weight");
        assert!(found.contains("a weight is NaN"), "{found}");
        // Nor is such a network ever written.
        let dir = tempfile::tempdir().unwrap();
        let manifest = NetManifest::new(
            "tic_tac_toe",
            &architecture,
            1,
            [3, 3, 3],
            TerminalEval::Classic,
        );
        let base = dir.path().join("net");
        let error = crate::value::saved_net::save_net(&poisoned, &manifest, &base).unwrap_err();
        assert!(error.to_string().contains("not written"), "{error}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
