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
//! N games are played at once on N threads sharing one batching evaluator; the learner (this
//! thread) trains after each finished game on that game's data and then hands out the next
//! game. With N = 1 a game starts only after the previous one has been learned: exactly the
//! paper's sequential loop, reproducible from the seed (each game's random choices come from
//! its own stream, seeded by the run seed and the game's number).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use burn::prelude::Device;
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use super::config::{TerminalEvalName, TrainSettings};
use super::learner::{Learner, PhaseReport};
use super::periodic_eval::{EvalReport, evaluate_against_baseline};
use super::replay_file::{read_replay, write_replay};
use super::run_dir::{MetricsLog, RunDir, STATE_FILE};
use super::self_play::{FinishedGame, RunProgress, SelfPlaySettings, SelfPlayer};
use crate::games::{Game, GameVisitor};
use crate::learn::ReplayBuffer;
use crate::learn::pretrain::{longest_random_game, mean_random_game_length, random_terminal_pairs};
use crate::search::{Evaluator, TerminalEval};
use crate::value::saved_net::{NetManifest, load_net, read_manifest, save_net, write_atomically};
use crate::value::{BatchingEvaluator, NetDevice, NetEvaluator, Trainer, ValueNet};

/// Environment variable (a testing aid): pause this many milliseconds in the middle of every
/// checkpoint write, so that a test can kill the process there.
pub const CHECKPOINT_PAUSE_ENV: &str = "DESCENT_CHECKPOINT_PAUSE_MS";

const STATE_FORMAT: u32 = 1;

/// Everything of a run that is not the network, the optimiser or the replay buffer; saved as
/// `state.json` in each checkpoint.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunState {
    pub format: u32,
    /// The game spec the run trains.
    pub game: String,
    /// Self-play games finished and learned.
    pub games: u64,
    pub pairs_added: u64,
    pub pairs_learned: u64,
    /// Training time so far, resumes included.
    pub elapsed_seconds: f64,
    /// The learner's random stream (replay sampling and minibatch order).
    pub learner_rng: Xoshiro256PlusPlus,
    /// Length of metrics.jsonl when the checkpoint was taken.
    pub metrics_bytes: u64,
    /// The terminal evaluation in use, its parameters resolved.
    pub terminal_eval: String,
    /// The configuration the run was trained with (YAML), to refuse a resume that would change
    /// what is learned. Absent in checkpoints of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_yaml: Option<String>,
}

impl RunState {
    /// Reads `state.json` of the checkpoint directory `dir`.
    pub fn read(dir: &Path) -> anyhow::Result<RunState> {
        let state_path = dir.join(STATE_FILE);
        let state: RunState = serde_json::from_str(
            &std::fs::read_to_string(&state_path)
                .with_context(|| format!("cannot read {}", state_path.display()))?,
        )
        .with_context(|| format!("{} is not a descent run state", state_path.display()))?;
        if state.format != STATE_FORMAT {
            bail!(
                "{}: state format {}, this descent reads format {STATE_FORMAT}",
                state_path.display(),
                state.format
            );
        }
        Ok(state)
    }
}

/// One line of metrics.jsonl per self-play game.
#[derive(Clone, Debug, Serialize)]
pub struct GameMetrics {
    pub kind: &'static str,
    /// Games finished in the run, this one included.
    pub game: u64,
    pub plies: usize,
    /// +1 P0 won, -1 P1 won, 0 draw.
    pub result_p0: f32,
    pub final_value_p0: f32,
    pub pairs_added: usize,
    pub pairs_learned: usize,
    pub minibatches: usize,
    pub loss: Option<f64>,
    pub replay_pairs: usize,
    pub replay_games: usize,
    pub iterations: u64,
    pub table_states: usize,
    pub evaluated_positions: u64,
    pub mean_eval_batch: f64,
    /// Wall time of the game (searches and network), of its network calls, and of the
    /// learning phase that followed.
    pub game_seconds: f64,
    pub net_seconds: f64,
    pub learn_seconds: f64,
    pub states_per_second: f64,
    pub evaluations_per_second: f64,
    pub elapsed_seconds: f64,
    pub games_per_hour: f64,
}

/// One line of metrics.jsonl per periodic evaluation.
#[derive(Clone, Debug, Serialize)]
pub struct EvalMetrics {
    pub kind: &'static str,
    pub game: u64,
    pub opponent: String,
    pub seconds: f64,
    #[serde(flatten)]
    pub report: EvalReport,
}

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    MaxGames,
    MaxTime,
}

/// What a call to `train` did.
#[derive(Clone, Debug)]
pub struct TrainSummary {
    pub games_this_session: u64,
    pub total_games: u64,
    pub elapsed_seconds: f64,
    pub last_checkpoint: Option<PathBuf>,
    pub stopped_by: StopReason,
}

/// Receives the run's progress (the command line draws a progress bar from it).
pub trait TrainingObserver {
    fn on_start(
        &mut self,
        _games_done: u64,
        _max_games: Option<u64>,
        _resumed_from: Option<&Path>,
    ) {
    }
    fn on_pretrain(&mut self, _pairs: usize, _loss: Option<f64>) {}
    fn on_game(&mut self, _metrics: &GameMetrics) {}
    fn on_evaluation(&mut self, _metrics: &EvalMetrics) {}
    fn on_checkpoint(&mut self, _games: u64, _path: &Path) {}
}

/// An observer that ignores everything.
pub struct SilentObserver;
impl TrainingObserver for SilentObserver {}

/// Trains (or resumes, with `resume`) the run in `run_dir` with `settings`.
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
        train_game(
            initial,
            self.settings,
            self.run_dir,
            self.resume,
            self.observer,
        )
    }
}

/// A random stream of the run: `stream` names its use, `index` its instance.
fn stream_rng(seed: u64, stream: u64, index: u64) -> Xoshiro256PlusPlus {
    let mixed = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(stream.wrapping_mul(0xD1B5_4A32_D192_ED03))
        .wrapping_add(index);
    Xoshiro256PlusPlus::seed_from_u64(mixed)
}

const STREAM_GAME: u64 = 1;
const STREAM_EVAL: u64 = 2;
const STREAM_SETUP: u64 = 3;
const STREAM_LEARNER: u64 = 4;

/// f_t with its parameters resolved for this game.
pub fn resolve_terminal_eval<G: Game>(
    settings: &TrainSettings,
    initial: &G,
) -> anyhow::Result<TerminalEval> {
    Ok(match settings.learning.terminal_eval {
        TerminalEvalName::Classic => TerminalEval::Classic,
        TerminalEvalName::AdditiveDepth => TerminalEval::AdditiveDepth {
            max_length: match settings.learning.max_length {
                Some(length) => length,
                None => {
                    let mut rng = stream_rng(settings.seed, STREAM_SETUP, 2);
                    longest_random_game(initial, 1000, &mut rng)
                }
            },
        },
        TerminalEvalName::MultiplicativeDepth => TerminalEval::MultiplicativeDepth {
            mean_length: match settings.learning.mean_length {
                Some(length) => length,
                None => {
                    let mut rng = stream_rng(settings.seed, STREAM_SETUP, 0);
                    mean_random_game_length(initial, 1000, &mut rng)
                }
            },
        },
        TerminalEvalName::Score => {
            if initial.score_p0().is_none() {
                bail!(
                    "learning.terminal_eval: score needs a game with its own score (awale); {} has none",
                    G::NAME
                );
            }
            TerminalEval::Score
        }
        TerminalEvalName::Mobility => TerminalEval::Mobility,
        TerminalEvalName::Presence => TerminalEval::Presence,
    })
}

/// The evaluator the players share, timing the calls of one player.
struct TimedEvaluator<'a, E> {
    inner: &'a E,
    nanos: AtomicU64,
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for TimedEvaluator<'_, E> {
    fn evaluate(&self, positions: &[G], values_p0: &mut [f32]) {
        let start = Instant::now();
        self.inner.evaluate(positions, values_p0);
        self.nanos
            .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }
}

/// A game handed to a player: its number and the run's progress.
struct Ticket {
    index: u64,
    progress: RunProgress,
}

struct Finished<G> {
    game: FinishedGame<G>,
    net_seconds: f64,
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
    started: Instant,
    elapsed_before: f64,
    /// Wall time of this session's periodic evaluations (not training time).
    evaluation_seconds: f64,
    games_at_start: u64,
    last_checkpoint_games: u64,
    /// The training time (seconds, resumes included) at which the next time-based checkpoint
    /// is due: the next multiple of `checkpoint.every_time`, so that checkpoints fall on a
    /// regular grid of training time whatever the resumes.
    next_timed_checkpoint: f64,
    last_checkpoint: Option<PathBuf>,
}

fn train_game<G: Game>(
    initial: G,
    settings: &TrainSettings,
    run_dir: &RunDir,
    resume: bool,
    observer: &mut dyn TrainingObserver,
) -> anyhow::Result<TrainSummary> {
    anyhow::ensure!(
        run_dir.is_locked(),
        "{}: a run is trained only by the process holding its lock",
        run_dir.root().display()
    );
    crate::value::denormals::flush_denormals_to_zero();
    let device = settings.run.device.device().map_err(|e| anyhow::anyhow!(e))?;
    device.burn.seed(settings.seed);
    let checkpoint = if resume {
        run_dir.remove_partial_checkpoints()?;
        run_dir.latest_checkpoint()?
    } else {
        None
    };
    if let Some(dir) = &checkpoint {
        // Before any of its files is read.
        RunDir::verify_checkpoint(dir)?;
    }
    let terminal_eval = match &checkpoint {
        Some(dir) => trained_terminal_eval(dir, settings, &initial)?,
        None => resolve_terminal_eval(settings, &initial)?,
    };
    let shape = G::ENCODING.dims();
    let manifest = NetManifest::new(
        &settings.game.to_string(),
        &settings.architecture,
        G::ENCODING_VERSION,
        shape,
        terminal_eval,
    );
    if resume && checkpoint.is_none() {
        let logged = std::fs::metadata(run_dir.metrics_path()).map_or(0, |m| m.len());
        if logged > 0 {
            tracing::warn!(
                "{} has no checkpoint: the run starts again from game 0 and its metrics.jsonl ({logged} bytes) is cut",
                run_dir.root().display()
            );
        }
    }
    let (learner, state) = match &checkpoint {
        Some(dir) => load_checkpoint::<G>(dir, settings, &manifest, terminal_eval, &device.burn)?,
        None => {
            let net = ValueNet::new(
                &settings.architecture,
                shape,
                manifest.tanh_output,
                &device.burn,
            );
            let learner = Learner::new(
                Trainer::new(net, settings.adam, &device.burn, shape),
                ReplayBuffer::new(settings.replay.policy, G::ENCODING.len()),
                settings,
                stream_rng(settings.seed, STREAM_LEARNER, 0),
            );
            let state = RunState {
                format: STATE_FORMAT,
                game: settings.game.to_string(),
                games: 0,
                pairs_added: 0,
                pairs_learned: 0,
                elapsed_seconds: 0.0,
                learner_rng: learner.rng.clone(),
                metrics_bytes: 0,
                terminal_eval: format!("{terminal_eval:?}"),
                config_yaml: None,
            };
            (learner, state)
        }
    };
    run_dir.remove_kept_nets_after(state.games)?;
    let closing_line = match &checkpoint {
        Some(_) => checkpoint_line(state.games, state.elapsed_seconds)?,
        None => String::new(),
    };
    let mut metrics =
        MetricsLog::open(&run_dir.metrics_path(), state.metrics_bytes, &closing_line)?;
    // The session's terminal evaluation, its parameters resolved (additive depth's P̃ …).
    metrics.write(&serde_json::json!({
        "kind": "session",
        "game": state.games,
        "terminal_eval": terminal_eval.to_string(),
    }))?;
    observer.on_start(state.games, settings.run.max_games, checkpoint.as_deref());
    let elapsed_before = state.elapsed_seconds;
    let mut session = Session {
        settings,
        run_dir,
        observer,
        initial,
        device,
        manifest,
        terminal_eval,
        learner,
        elapsed_before,
        evaluation_seconds: 0.0,
        games_at_start: state.games,
        last_checkpoint_games: state.games,
        state,
        metrics,
        started: Instant::now(),
        next_timed_checkpoint: next_mark(settings.checkpoint.every_time, elapsed_before),
        last_checkpoint: checkpoint.clone(),
    };
    if checkpoint.is_none() && settings.learning.pretrain_terminal_states > 0 {
        session.pretrain()?;
    }
    session.run()
}

/// The terminal evaluation a resumed run goes on with: the one its checkpoint's network was
/// trained with (so that a default estimated at the start, such as additive depth's P̃, stays
/// what it was), unless the configuration gives its parameter; of the configured kind.
fn trained_terminal_eval<G: Game>(
    dir: &Path,
    settings: &TrainSettings,
    initial: &G,
) -> anyhow::Result<TerminalEval> {
    let trained = read_manifest(&dir.join("net"))?.search_terminal_eval()?;
    let (same_kind, parameter_given) = match (settings.learning.terminal_eval, trained) {
        (TerminalEvalName::AdditiveDepth, TerminalEval::AdditiveDepth { .. }) => {
            (true, settings.learning.max_length.is_some())
        }
        (TerminalEvalName::MultiplicativeDepth, TerminalEval::MultiplicativeDepth { .. }) => {
            (true, settings.learning.mean_length.is_some())
        }
        _ => (false, true),
    };
    // The configured one otherwise (estimating a default only when it is used); a different
    // kind is then refused by the resume check.
    if same_kind && !parameter_given {
        Ok(trained)
    } else {
        resolve_terminal_eval(settings, initial)
    }
}

/// The first multiple of `every` after `elapsed` seconds (never, without `every`).
fn next_mark(every: Option<Duration>, elapsed: f64) -> f64 {
    match every {
        Some(every) => {
            let every = every.as_secs_f64();
            ((elapsed / every).floor() + 1.0) * every
        }
        None => f64::INFINITY,
    }
}

/// The metrics line of the checkpoint after `games` games and `elapsed_seconds` of training.
fn checkpoint_line(games: u64, elapsed_seconds: f64) -> anyhow::Result<String> {
    MetricsLog::line_text(&serde_json::json!({
        "kind": "checkpoint",
        "game": games,
        "elapsed_seconds": elapsed_seconds,
    }))
}

/// Refuses to resume the checkpoint `dir` (state `state`) under settings that would change what
/// is learned, naming the keys.
fn check_resume_settings(
    dir: &Path,
    state: &RunState,
    settings: &TrainSettings,
    terminal_eval: TerminalEval,
) -> anyhow::Result<()> {
    let refuse = |keys: &str| {
        anyhow::anyhow!(
            "{} was trained with another {keys} than the run's configuration now gives; a resume may change only {} (put config.yaml back as it was, or start a new run)",
            dir.display(),
            super::config::RESUME_SAFE_KEYS.join(", ")
        )
    };
    if let Some(yaml) = &state.config_yaml {
        let trained = super::TrainConfig::from_yaml(yaml)
            .map_err(|e| anyhow::anyhow!("{}: its configuration: {e}", dir.display()))?;
        let changes = settings.config.learning_changes(&trained);
        if !changes.is_empty() {
            return Err(refuse(&changes.join(", ")));
        }
    }
    if state.terminal_eval != format!("{terminal_eval:?}") {
        return Err(refuse("learning.terminal_eval"));
    }
    Ok(())
}

/// Loads the checkpoint at `dir` (its checksums verified by the caller).
fn load_checkpoint<G: Game>(
    dir: &Path,
    settings: &TrainSettings,
    manifest: &NetManifest,
    terminal_eval: TerminalEval,
    device: &Device,
) -> anyhow::Result<(Learner, RunState)> {
    let state = RunState::read(dir)?;
    if state.game != manifest.game {
        bail!(
            "{} is a checkpoint of game {}, but the run's configuration says {}",
            dir.display(),
            state.game,
            manifest.game
        );
    }
    check_resume_settings(dir, &state, settings, terminal_eval)?;
    let net = load_net(&dir.join("net"), manifest, device)?;
    let mut trainer = Trainer::new(net, settings.adam, device, manifest.input_shape);
    let optimizer_path = dir.join("optimizer.bpk");
    trainer
        .load_optimizer_bytes(
            std::fs::read(&optimizer_path)
                .with_context(|| format!("cannot read {}", optimizer_path.display()))?,
        )
        .with_context(|| format!("{}", optimizer_path.display()))?;
    let (replay, replay_path) = read_replay(dir)?;
    if replay.encoding_len() != G::ENCODING.len() {
        bail!(
            "{} holds positions of {} floats, but {} encodes {}",
            replay_path.display(),
            replay.encoding_len(),
            G::NAME,
            G::ENCODING.len()
        );
    }
    if replay.policy() != settings.replay.policy {
        bail!(
            "{} was filled under replay {:?}, but the configuration now says {:?}",
            replay_path.display(),
            replay.policy(),
            settings.replay.policy
        );
    }
    let learner = Learner::new(trainer, replay, settings, state.learner_rng.clone());
    Ok((learner, state))
}

impl<G: Game> Session<'_, G> {
    /// Training time so far, resumes included: wall time without the periodic evaluations.
    fn elapsed(&self) -> f64 {
        self.elapsed_before + self.started.elapsed().as_secs_f64() - self.evaluation_seconds
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
        if self.settings.run.max_games.is_some_and(|max| issued >= max) {
            return Some(StopReason::MaxGames);
        }
        if self
            .settings
            .run
            .max_time
            .is_some_and(|max| self.elapsed() >= max.as_secs_f64())
        {
            return Some(StopReason::MaxTime);
        }
        None
    }

    fn pretrain(&mut self) -> anyhow::Result<()> {
        let mut rng = stream_rng(self.settings.seed, STREAM_SETUP, 1);
        let pairs = random_terminal_pairs(
            &self.initial,
            self.settings.learning.pretrain_terminal_states,
            &self.terminal_eval,
            &mut rng,
        );
        let loss = self.learner.fit(&pairs, self.settings.learning.pretrain_epochs);
        self.metrics.write(&serde_json::json!({
            "kind": "pretrain",
            "pairs": pairs.len(),
            "epochs": self.settings.learning.pretrain_epochs,
            "loss": loss,
        }))?;
        self.observer.on_pretrain(pairs.len(), loss);
        Ok(())
    }

    fn run(mut self) -> anyhow::Result<TrainSummary> {
        let threads = self.settings.run.threads;
        // One thread, or the direct CPU pass (whose cost per call is too small to be worth
        // waiting for other threads): every request is a full batch, evaluated at once by its
        // own thread. Otherwise merge the players' child batches, waiting at most half a
        // millisecond for the others.
        let max_batch = if threads == 1 || self.device.direct_inference {
            1
        } else {
            threads * G::NUM_ACTIONS / 2
        };
        let shared = BatchingEvaluator::<G>::new(
            self.learner.trainer.inference_net(),
            &self.device,
            max_batch,
            Duration::from_micros(500),
        );
        let player_settings = SelfPlaySettings {
            search: self.settings.search.clone(),
            terminal_eval: self.terminal_eval,
            targets: self.settings.learning.targets,
            selection: self.settings.selection,
            keep_resolved: self.settings.keep_resolved,
        };
        let seed = self.settings.seed;
        let initial = self.initial.clone();
        let (ticket_tx, ticket_rx) = mpsc::channel::<Ticket>();
        let ticket_rx = Arc::new(Mutex::new(ticket_rx));
        let (done_tx, done_rx) = mpsc::channel::<Finished<G>>();
        let stopped_by = std::thread::scope(|scope| -> anyhow::Result<StopReason> {
            for _ in 0..threads {
                let tickets = Arc::clone(&ticket_rx);
                let done = done_tx.clone();
                let shared = &shared;
                let initial = &initial;
                let player_settings = player_settings.clone();
                scope.spawn(move || {
                    let mut player = SelfPlayer::<G>::new(player_settings);
                    loop {
                        let ticket = tickets.lock().expect("ticket lock").recv();
                        let Ok(ticket) = ticket else { break };
                        let timed = TimedEvaluator {
                            inner: shared,
                            nanos: AtomicU64::new(0),
                        };
                        let mut rng = stream_rng(seed, STREAM_GAME, ticket.index);
                        let game = player.play(initial, &timed, &ticket.progress, &mut rng);
                        let net_seconds = timed.nanos.load(Ordering::Relaxed) as f64 * 1e-9;
                        if done.send(Finished { game, net_seconds }).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(done_tx);
            let mut issued = self.state.games;
            let mut outstanding = 0usize;
            let mut stop = None;
            let issue = |session: &Self, issued: &mut u64, outstanding: &mut usize| {
                if let Some(reason) = session.stop_reason(*issued) {
                    return Some(reason);
                }
                let ticket = Ticket {
                    index: *issued,
                    progress: session.progress(),
                };
                ticket_tx.send(ticket).expect("players are waiting");
                *issued += 1;
                *outstanding += 1;
                None
            };
            for _ in 0..threads {
                if let Some(reason) = issue(&self, &mut issued, &mut outstanding) {
                    stop = Some(reason);
                    break;
                }
            }
            while outstanding > 0 {
                let finished = done_rx.recv().context("a self-play thread died")?;
                outstanding -= 1;
                self.after_game(finished, &shared)?;
                if stop.is_none() {
                    stop = issue(&self, &mut issued, &mut outstanding);
                }
            }
            drop(ticket_tx);
            Ok(stop.unwrap_or(StopReason::MaxGames))
        })?;
        if self.state.games != self.last_checkpoint_games || self.last_checkpoint.is_none() {
            self.checkpoint()?;
        }
        Ok(TrainSummary {
            games_this_session: self.state.games - self.games_at_start,
            total_games: self.state.games,
            elapsed_seconds: self.elapsed(),
            last_checkpoint: self.last_checkpoint.clone(),
            stopped_by,
        })
    }

    /// Learns a finished game, logs it, and evaluates / checkpoints when due.
    fn after_game(
        &mut self,
        finished: Finished<G>,
        shared: &BatchingEvaluator<G>,
    ) -> anyhow::Result<()> {
        let learn_start = Instant::now();
        let game = finished.game;
        let phase: PhaseReport = self.learner.learn_game(&game.pairs);
        shared.set_net(self.learner.trainer.inference_net());
        let learn_seconds = learn_start.elapsed().as_secs_f64();
        self.state.games += 1;
        self.state.pairs_added += phase.pairs_added as u64;
        self.state.pairs_learned += phase.pairs_learned as u64;
        let elapsed = self.elapsed();
        let session_games = (self.state.games - self.games_at_start) as f64;
        let search = game.search;
        let line = GameMetrics {
            kind: "game",
            game: self.state.games,
            plies: game.moves.len(),
            result_p0: game.outcome.value_p0(),
            final_value_p0: game.final_value_p0,
            pairs_added: phase.pairs_added,
            pairs_learned: phase.pairs_learned,
            minibatches: phase.minibatches,
            loss: phase.mean_loss,
            replay_pairs: self.learner.replay.len(),
            replay_games: self.learner.replay.num_games(),
            iterations: search.iterations,
            table_states: game.table_states,
            evaluated_positions: search.evaluated_positions,
            mean_eval_batch: search.mean_batch(),
            game_seconds: game.seconds,
            net_seconds: finished.net_seconds,
            learn_seconds,
            states_per_second: game.table_states as f64 / game.seconds.max(1e-9),
            evaluations_per_second: search.evaluated_positions as f64 / game.seconds.max(1e-9),
            elapsed_seconds: elapsed,
            games_per_hour: session_games * 3600.0
                / (self.started.elapsed().as_secs_f64() - self.evaluation_seconds).max(1e-9),
        };
        self.metrics.write(&line)?;
        self.observer.on_game(&line);
        if let Some(evaluation) = self.settings.evaluation
            && self.state.games.is_multiple_of(evaluation.every_games)
        {
            let start = Instant::now();
            let net = NetEvaluator::<G>::new(self.learner.trainer.inference_net(), &self.device);
            let report = evaluate_against_baseline(
                &self.initial,
                std::sync::Arc::new(net),
                &evaluation,
                self.terminal_eval,
                rand::Rng::next_u64(&mut stream_rng(
                    self.settings.seed,
                    STREAM_EVAL,
                    self.state.games,
                )),
            );
            let seconds = start.elapsed().as_secs_f64();
            self.evaluation_seconds += seconds;
            let line = EvalMetrics {
                kind: "evaluation",
                game: self.state.games,
                opponent: format!("{:?}", evaluation.opponent).to_lowercase(),
                seconds,
                report,
            };
            self.metrics.write(&line)?;
            self.observer.on_evaluation(&line);
        }
        let by_games = self.settings.checkpoint.every_games > 0
            && self
                .state
                .games
                .is_multiple_of(self.settings.checkpoint.every_games);
        let by_time = self.elapsed() >= self.next_timed_checkpoint;
        if by_games || by_time {
            self.checkpoint()?;
        }
        Ok(())
    }

    /// Writes checkpoint `ckpt-<games>`, points `latest` at it, then logs it (a checkpoint
    /// that failed is not logged).
    fn checkpoint(&mut self) -> anyhow::Result<()> {
        let elapsed = self.elapsed();
        let line = checkpoint_line(self.state.games, elapsed)?;
        self.state.elapsed_seconds = elapsed;
        self.state.metrics_bytes = self.metrics.len() + line.len() as u64;
        self.state.learner_rng = self.learner.rng.clone();
        self.state.config_yaml = Some(self.settings.config.to_yaml());
        let pause = std::env::var(CHECKPOINT_PAUSE_ENV)
            .ok()
            .and_then(|ms| ms.parse::<u64>().ok());
        let learner = &self.learner;
        let state = &self.state;
        let manifest = &self.manifest;
        let net = learner.trainer.inference_net();
        if self.settings.checkpoint.keep_nets {
            // Before the checkpoint: a checkpoint on disk always has its network kept.
            save_net(&net, manifest, &self.run_dir.kept_net_base(state.games)?)?;
        }
        let path = self.run_dir.write_checkpoint(state.games, |dir| {
            save_net(&net, manifest, &dir.join("net"))?;
            write_atomically(
                &dir.join("optimizer.bpk"),
                &learner.trainer.optimizer_bytes()?,
            )?;
            if let Some(ms) = pause {
                std::thread::sleep(Duration::from_millis(ms));
            }
            write_replay(dir, &learner.replay)?;
            write_atomically(
                &dir.join(STATE_FILE),
                serde_json::to_string_pretty(state)?.as_bytes(),
            )
        })?;
        self.metrics.write_text(&line)?;
        self.run_dir.prune(self.settings.checkpoint.keep_last)?;
        self.last_checkpoint_games = self.state.games;
        self.next_timed_checkpoint = next_mark(
            self.settings.checkpoint.every_time,
            self.state.elapsed_seconds,
        );
        self.observer.on_checkpoint(self.state.games, &path);
        self.last_checkpoint = Some(path);
        Ok(())
    }
}
