//! The Athénan recipe (paper Algorithm 3 with the options of docs/algorithms.md §3-6):
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
//! This file is the recipe as the session drives it; its parts live beside it: `local.rs`
//! (the players as threads of this process, and the pending games of a `parallel` run),
//! `learning.rs` (a finished game learned or dropped), `distributed.rs` (the learner of a
//! `distributed` run, with its heartbeat and time split), `self_play.rs` (one game),
//! `game_pool.rs` (the players), `learner.rs` and `learner_checkpoint.rs` (the learner and what
//! its checkpoint holds), `learnable_game.rs` and `game_record.rs` (a finished game as the
//! learner takes it, and on the wire), `pending_games.rs`, `terminal_eval_choice.rs` (f_t) and
//! `worker.rs` (`descent worker`).

mod distributed;
pub mod game_pool;
pub mod game_record;
pub mod learnable_game;
pub mod learner;
mod learner_checkpoint;
pub mod learner_heartbeat;
pub mod learner_stages;
mod learning;
mod local;
pub mod pending_games;
pub mod self_play;
pub mod settings;
pub mod terminal_eval_choice;
pub mod worker;

use std::marker::PhantomData;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use rand::rngs::Xoshiro256PlusPlus;

use crate::games::Game;
use crate::learn::ReplayBuffer;
use crate::learn::pretrain::random_terminal_pairs;
use crate::search::TerminalEval;
use crate::selfplay::config::{EvaluationSettings, RunMode};
use crate::selfplay::recipes::athenan::learner::Learner;
use crate::selfplay::recipes::athenan::learner_checkpoint::{load_checkpoint, write_learner_files};
use crate::selfplay::recipes::athenan::pending_games::{PENDING_DIR, PendingGames};
use crate::selfplay::recipes::athenan::settings::AthenanSettings;
use crate::selfplay::recipes::athenan::terminal_eval_choice::{
    resolve_terminal_eval, trained_terminal_eval,
};
use crate::selfplay::run::games_log::{GAMES_FILE, GamesLog};
use crate::selfplay::run::periodic_eval::{EvalRun, evaluate_against_baseline};
use crate::selfplay::run::run_state::RunState;
use crate::selfplay::run::session::{Opened, Recipe, RunStart};
use crate::selfplay::run::session::{Session, StopReason};
use crate::selfplay::run::streams::{STREAM_LEARNER, STREAM_SETUP, network_seed, stream_rng};
use crate::selfplay::telemetry::eval_report::EvalReport;
use crate::value::saved_net::{NetManifest, save_net};
use crate::value::{NetDevice, NetEvaluator, NetOptimizer, ValueNet};

/// The session of an Athénan run.
type AthenanSession<'a, G> = Session<'a, G, Athenan<G>>;

/// The Athénan recipe's own state: the learner (network, Adam, replay buffer), the terminal
/// evaluation, the games log, and a `parallel` run's pending games.
pub struct Athenan<G: Game> {
    /// The recipe's own settings (`search:`, `learning:`, `selection:`, `replay:` …).
    settings: AthenanSettings,
    learner: Learner,
    terminal_eval: TerminalEval,
    games_log: GamesLog,
    /// `parallel` runs: the finished games no checkpoint holds yet, learned again on resume.
    pending: Option<PendingGames>,
    game: PhantomData<G>,
}

impl<G: Game> Recipe<G> for Athenan<G> {
    type Net = ValueNet;

    fn open(start: &RunStart<'_, G>) -> anyhow::Result<Opened<Self>> {
        let settings = start.settings;
        let athenan = settings
            .athenan()
            .context("the athenan recipe was handed a run of another recipe")?
            .clone();
        let (seed, learning) = (settings.seed, &athenan.learning);
        let terminal_eval = match start.checkpoint {
            Some(dir) => trained_terminal_eval(dir, seed, learning, start.initial)?,
            None => resolve_terminal_eval(seed, learning, start.initial)?,
        };
        let manifest = NetManifest::new(
            &settings.game.to_string(),
            &settings.architecture,
            G::ENCODING_VERSION,
            G::ENCODING.dims(),
            terminal_eval,
        );
        let (learner, state) = match start.checkpoint {
            Some(dir) => load_checkpoint::<G>(
                dir,
                settings,
                &athenan,
                &manifest,
                terminal_eval,
                start.device,
            )?,
            None => new_run::<G>(start, &athenan, &manifest, terminal_eval),
        };
        // Kept by `parallel` runs; left by one resumed in another mode, learned all the same.
        let root = start.run_dir.root();
        let left = root.join(PENDING_DIR).is_dir();
        let pending = match (settings.run.mode, &settings.broker) {
            (RunMode::Parallel, None) => Some(PendingGames::open(root)?),
            (_, None) if left => Some(PendingGames::open(root)?),
            _ => None,
        };
        let recipe = Athenan {
            settings: athenan,
            games_log: GamesLog::open(&root.join(GAMES_FILE), state.games)?,
            learner,
            terminal_eval,
            pending,
            game: PhantomData,
        };
        Ok(Opened {
            recipe,
            state,
            manifest,
        })
    }

    fn play_and_learn(
        &mut self,
        session: &mut AthenanSession<'_, G>,
    ) -> anyhow::Result<StopReason> {
        // The session's terminal evaluation, its parameters resolved (additive depth's P̃ …).
        session.metrics.write(&serde_json::json!({
            "kind": "session",
            "game": session.state.games,
            "terminal_eval": self.terminal_eval.to_string(),
        }))?;
        let settings = session.settings;
        let pretrain = self.settings.learning.pretrain_terminal_states > 0;
        if session.last_checkpoint.is_none() && pretrain {
            self.pretrain(session)?;
        }
        match (&settings.broker, settings.run.mode) {
            (Some(url), _) => self.run_distributed(session, url),
            (None, RunMode::Distributed) => anyhow::bail!(
                "run.mode is distributed: give the Redis server with --broker redis://HOST:PORT"
            ),
            (None, _) => self.run_local(session),
        }
    }

    fn net(&self) -> ValueNet {
        self.learner.net_optimizer.inference_net()
    }

    fn save_net(net: &ValueNet, manifest: &NetManifest, base: &Path) -> anyhow::Result<()> {
        save_net(net, manifest, base)
    }

    fn write_checkpoint_files(&self, dir: &Path) -> anyhow::Result<()> {
        write_learner_files(dir, &self.learner)
    }

    fn learner_rng(&self) -> &Xoshiro256PlusPlus {
        &self.learner.rng
    }

    fn evaluate(
        &self,
        initial: &G,
        device: &NetDevice,
        evaluation: &EvaluationSettings,
        run: EvalRun,
    ) -> EvalReport {
        let net = NetEvaluator::<G>::new(self.net(), device);
        evaluate_against_baseline(initial, Arc::new(net), evaluation, self.terminal_eval, run)
    }

    fn checkpointed(&mut self, state: &RunState) -> anyhow::Result<()> {
        if let Some(pending) = &self.pending {
            pending.remove_taken(&state.games_taken)?;
        }
        Ok(())
    }
}

/// A new run's learner (a fresh network) and state.
fn new_run<G: Game>(
    start: &RunStart<'_, G>,
    athenan: &AthenanSettings,
    manifest: &NetManifest,
    terminal_eval: TerminalEval,
) -> (Learner, RunState) {
    let settings = start.settings;
    let shape = manifest.input_shape;
    let net = ValueNet::seeded(
        &settings.architecture,
        shape,
        manifest.tanh_output,
        &start.device.burn,
        network_seed(settings.seed),
    );
    let learner = Learner::new(
        NetOptimizer::new(net, settings.adam, start.device, shape),
        ReplayBuffer::new(athenan.replay.policy, G::ENCODING.len()),
        athenan,
        stream_rng(settings.seed, STREAM_LEARNER, 0),
    );
    let state = RunState::new(
        settings.game.to_string(),
        learner.rng.clone(),
        format!("{terminal_eval:?}"),
    );
    (learner, state)
}

impl<G: Game> Athenan<G> {
    /// Pre-training (docs/algorithms.md §6): the network fitted on random terminal states,
    /// within `learning.pretrain_time_share` of `run.max_time` (the states are drawn first,
    /// then learned until the share is spent).
    fn pretrain(&mut self, session: &mut AthenanSession<'_, G>) -> anyhow::Result<()> {
        let learning = self.settings.learning;
        let budget = match (learning.pretrain_time_share, session.settings.run.max_time) {
            (Some(share), Some(max)) => Some(share * max.as_secs_f64()),
            _ => None,
        };
        let deadline = budget.map(|seconds| {
            let left = (seconds - session.elapsed()).max(0.0);
            Instant::now() + Duration::from_secs_f64(left)
        });
        let start = Instant::now();
        // Drawing the states may take at most half the budget (one chunk past it).
        let drawing_ends = budget.map(|seconds| start + Duration::from_secs_f64(seconds / 2.0));
        let mut rng = stream_rng(session.settings.seed, STREAM_SETUP, 1);
        let mut pairs = Vec::new();
        while pairs.len() < learning.pretrain_terminal_states
            && drawing_ends.is_none_or(|end| Instant::now() < end)
        {
            let chunk = 1024.min(learning.pretrain_terminal_states - pairs.len());
            let drawn =
                random_terminal_pairs(&session.initial, chunk, &self.terminal_eval, &mut rng);
            pairs.extend(drawn);
        }
        let fit = self.learner.fit(&pairs, learning.pretrain_epochs, deadline);
        let seconds = start.elapsed().as_secs_f64();
        session.state.time_split.pretrain_seconds += seconds;
        session.metrics.write(&serde_json::json!({
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
        session
            .observer
            .on_pretrain(fit.rows_learned, fit.mean_loss);
        Ok(())
    }
}
