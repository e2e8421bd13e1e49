//! Recipes that train a policy-value network in rounds — AlphaZero, ExIt, Gumbel AlphaZero:
//! each round's games played, then learned. `RoundRecipe` is what such a recipe decides;
//! `Rounds` drives one through the one session (`run::session`). A checkpoint holds the
//! policy-value network, Adam's state (where the recipe keeps one across rounds), the positions
//! kept (`replay.bin.zst`, the window's own format) and the run state with the random stream:
//! a resumed run goes on exactly where the checkpoint left it.

pub mod progress;
pub mod self_play;
pub mod self_play_trainer;
pub mod settings;
pub mod window;

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use rand::rngs::Xoshiro256PlusPlus;

use crate::games::Game;
use crate::learn::augment::Augmentation;
use crate::search::{Budget, SearchSpec, TerminalEval};
use crate::selfplay::config::{EvaluationSettings, TrainSettings};
use crate::selfplay::recipes::rounds::progress::{RoundProgress, RoundReport};
use crate::selfplay::recipes::rounds::window::Window;
use crate::selfplay::run::checkpoint::check_resume_settings;
use crate::selfplay::run::periodic_eval::{EvalRun, evaluate_player};
use crate::selfplay::run::replay_file::REPLAY_FILE;
use crate::selfplay::run::run_dir::OPTIMIZER_FILE;
use crate::selfplay::run::run_state::RunState;
use crate::selfplay::run::session::{Opened, Recipe, RunStart};
use crate::selfplay::run::session::{Session, StopReason};
use crate::selfplay::run::streams::{STREAM_LEARNER, stream_rng};
use crate::selfplay::telemetry::eval_report::EvalReport;
use crate::settings::files::{Existing, write_atomically};
use crate::value::policy_value_net::PolicyValueNet;
use crate::value::saved_net::{
    LoadedNet, NetManifest, load_any_weights, read_manifest, save_policy_value_net,
};
use crate::value::{NetDevice, PolicyValueEvaluator};

/// A recipe that plays and learns in rounds of games, with a policy-value network.
pub trait RoundRecipe<G: Game>: Sized {
    /// The metrics line's `kind` of a round, e.g. `alphazero_round`.
    const ROUND_KIND: &'static str;

    /// Plays and learns one round; `budget_used` is the share of the run's budget (time or
    /// games, whichever is further) spent before it, in [0, 1] (0 for a run without one).
    fn round(&mut self, budget_used: f64) -> RoundReport;

    /// The network as trained so far.
    fn net(&self) -> &PolicyValueNet;

    /// The positions kept for learning, to checkpoint.
    fn window(&self) -> &Window;

    /// The learner's random stream, to checkpoint.
    fn rng(&self) -> &Xoshiro256PlusPlus;

    /// Adam's state, to checkpoint; `None` for a recipe that keeps none across rounds.
    ///
    /// # Errors
    /// The state cannot be serialised.
    fn optimizer_bytes(&self) -> anyhow::Result<Option<Vec<u8>>>;

    /// Whether the value head is learned and used (ExIt's switch; always for AlphaZero).
    fn value_on(&self) -> bool {
        true
    }

    /// Opens a new run, or resumes the checkpoint `start.checkpoint` (its parts read with
    /// `read_round_checkpoint`); `manifest` is its networks'.
    ///
    /// # Errors
    /// Settings this recipe cannot run, a checkpoint that cannot be resumed under them.
    fn open(start: &RunStart<'_, G>, manifest: &NetManifest) -> anyhow::Result<(Self, RunState)>;

    /// The search the current network plays in evaluations, at `budget` a move, and its name
    /// in the metrics (`model=<current>`).
    fn evaluation_search(&self, budget: Budget) -> (String, SearchSpec);
}

/// A round recipe as the session drives it.
pub struct Rounds<T>(pub T);

/// The session of a round recipe.
type RoundSession<'a, G, T> = Session<'a, G, Rounds<T>>;

impl<G: Game, T: RoundRecipe<G>> Recipe<G> for Rounds<T> {
    /// The network, and whether its value head is trained.
    type Net = (PolicyValueNet, bool);

    fn open(start: &RunStart<'_, G>) -> anyhow::Result<Opened<Self>> {
        let mut manifest = NetManifest::new(
            &start.settings.game.to_string(),
            &start.settings.architecture,
            G::ENCODING_VERSION,
            G::ENCODING.dims(),
            TerminalEval::Classic,
        );
        manifest.policy_actions = Some(G::NUM_ACTIONS);
        let (trainer, state) = T::open(start, &manifest)?;
        Ok(Opened {
            recipe: Rounds(trainer),
            state,
            manifest,
        })
    }

    fn play_and_learn(
        &mut self,
        session: &mut RoundSession<'_, G, T>,
    ) -> anyhow::Result<StopReason> {
        loop {
            if let Some(reason) = session.stop_reason(session.state.games) {
                return Ok(reason);
            }
            let games_before = session.state.games;
            let start = Instant::now();
            let round = self.0.round(session.budget_used());
            let seconds = start.elapsed().as_secs_f64();
            self.after_round(session, &round, seconds)?;
            // A round started just before self-play stops runs its whole length: kept out too.
            session.end_reserve.unit_took(seconds, &session.clock);
            session.network_changed(|| self.net())?;
            session.learned(self, games_before)?;
        }
    }

    fn net(&self) -> (PolicyValueNet, bool) {
        (self.0.net().clone(), self.0.value_on())
    }

    fn save_net(
        (net, value_trained): &(PolicyValueNet, bool),
        manifest: &NetManifest,
        base: &Path,
    ) -> anyhow::Result<()> {
        let manifest = NetManifest {
            value_head_trained: Some(*value_trained),
            ..manifest.clone()
        };
        save_policy_value_net(net, &manifest, base)
    }

    fn write_checkpoint_files(&self, dir: &Path) -> anyhow::Result<()> {
        if let Some(optimizer) = self.0.optimizer_bytes()? {
            write_atomically(&dir.join(OPTIMIZER_FILE), &optimizer, Existing::Replace)?;
        }
        let window = self.0.window().to_bytes(G::ENCODING.len(), G::NUM_ACTIONS);
        write_atomically(
            &dir.join(REPLAY_FILE),
            &zstd::encode_all(&window[..], 3)?,
            Existing::Replace,
        )
    }

    fn learner_rng(&self) -> &Xoshiro256PlusPlus {
        self.0.rng()
    }

    /// The network searching as its recipe plays (`RoundRecipe::evaluation_search`).
    fn evaluate(
        &self,
        initial: &G,
        device: &NetDevice,
        evaluation: &EvaluationSettings,
        run: EvalRun,
    ) -> EvalReport {
        let evaluator = PolicyValueEvaluator::<G>::new(self.0.net().clone(), device);
        let player = self.0.evaluation_search(evaluation.budget.clone());
        let classic = TerminalEval::Classic;
        evaluate_player(
            initial,
            player,
            Arc::new(evaluator),
            evaluation,
            classic,
            run,
        )
    }
}

impl<T> Rounds<T> {
    /// Counts and logs a round.
    fn after_round<G: Game>(
        &self,
        session: &mut RoundSession<'_, G, T>,
        round: &RoundReport,
        seconds: f64,
    ) -> anyhow::Result<()>
    where
        T: RoundRecipe<G>,
    {
        if let Some(loss) = round.loss
            && !(loss.value.is_finite() && loss.policy_cross_entropy.is_finite())
        {
            anyhow::bail!(
                "the learning of games {}-{} diverged (loss {loss:?}); the run stops without checkpointing it. Lower optimizer.learning_rate, then resume",
                session.state.games + 1,
                session.state.games + round.games
            );
        }
        session.state.games += round.games;
        session.state.pairs_added += round.positions;
        session.state.pairs_learned += round.samples_learned;
        session.state.positions_evaluated += round.evaluated_positions;
        let split = &mut session.state.time_split;
        split.learn_seconds += round.learn_seconds;
        split.search_seconds += (seconds - round.learn_seconds).max(0.0);
        session.state.value_learned = self.0.value_on();
        session.metrics.write(&serde_json::json!({
            "kind": T::ROUND_KIND,
            "game": session.state.games,
            "games": round.games,
            "positions": round.positions,
            "steps": round.steps,
            "evaluated_positions": round.evaluated_positions,
            "samples_learned": round.samples_learned,
            "learn_seconds": round.learn_seconds,
            "learning_rate": round.learning_rate,
            "value_loss": round.loss.map(|l| l.value),
            "value_learned": self.0.value_on(),
            "policy_cross_entropy": round.loss.map(|l| l.policy_cross_entropy),
            "seconds": seconds,
            "elapsed_seconds": session.clock.elapsed(),
        }))
    }
}

/// Refuses symmetry augmentation of policy targets in a game whose action ids cannot be imaged
/// without the position (`Game::ACTION_IMAGES_BY_TABLE`).
pub fn check_policy_images<G: Game>(augmentation: Augmentation) -> anyhow::Result<()> {
    anyhow::ensure!(
        augmentation == Augmentation::None || G::SYMMETRIES.is_empty() || G::ACTION_IMAGES_BY_TABLE,
        "learning.augment_symmetries: {} numbers its moves by position, so a policy target cannot be imaged from the stored board; set `learning: {{augment_symmetries: none}}` for this recipe",
        G::NAME
    );
    Ok(())
}

/// The state of a new run.
pub fn new_state(settings: &TrainSettings) -> RunState {
    RunState::new(
        settings.game.to_string(),
        stream_rng(settings.seed, STREAM_LEARNER, 0),
        format!("{:?}", TerminalEval::Classic),
    )
}

/// What every round recipe's checkpoint holds: the run state, the policy-value network, the
/// window of `capacity` positions, and the progress (Adam steps counted from this process's start:
/// only a round's own steps are reported).
pub struct CheckpointParts {
    pub state: RunState,
    pub net: PolicyValueNet,
    pub window: Window,
    pub progress: RoundProgress,
}

pub fn read_round_checkpoint<G: Game>(
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
    let progress = RoundProgress {
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
