//! AlphaZero as a training recipe (docs/algorithms.md §12): self-play with PUCT (`search::puct`)
//! guided by a policy-value network, Dirichlet noise at the root, moves drawn in proportion to
//! the visits for the opening plies and the most visited after; each position learned with the
//! normalised visit counts as its policy target and the game's outcome as its value target
//! (or a mix of it with the search's root value, `q_ratio`);
//! a window of the latest positions sampled uniformly for minibatches of Adam on
//! value MSE + policy cross-entropy + L2.
//!
//! Self-play runs `parallel_games` games at once and evaluates their leaves together, one
//! batch per step of all their searches, on one or more threads (alphazero/selfplay.rs).

pub mod selfplay;
pub mod settings;

pub use settings::AlphaZeroSettings;

use std::time::{Duration, Instant};

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use crate::games::Game;
use crate::search::gumbel::GumbelOptions;
use crate::search::puct::PuctOptions;
use crate::search::{Budget, SearchSpec};
use crate::selfplay::config::RecipeSettings;
use crate::selfplay::recipes::alphazero::selfplay::{SelfPlayGame, play_round_games};
use crate::selfplay::recipes::rounds::progress::{RoundProgress, RoundReport};
use crate::selfplay::recipes::rounds::window::{Sample, SampleBatch, Window};
use crate::selfplay::recipes::rounds::{
    RoundRecipe, check_policy_images, new_state, read_round_checkpoint,
};
use crate::selfplay::run::periodic_eval::budget_text;
use crate::selfplay::run::run_dir::OPTIMIZER_FILE;
use crate::selfplay::run::run_state::RunState;
use crate::selfplay::run::self_play::budget_share;
use crate::selfplay::run::session::RunStart;
use crate::value::policy_value_net::{PolicyValueNet, PolicyValueTrainer};
use crate::value::saved_net::NetManifest;
use crate::value::{NetDevice, PolicyValueInference};

/// AlphaZero training on one game.
pub struct AlphaZeroTrainer<G: Game> {
    initial: G,
    settings: AlphaZeroSettings,
    trainer: PolicyValueTrainer,
    net: PolicyValueNet,
    /// `net` as self-play evaluates it (on `descent-cpu`, the direct CPU pass).
    inference: PolicyValueInference,
    device: NetDevice,
    window: Window,
    rng: Xoshiro256PlusPlus,
    progress: RoundProgress,
}

/// What a checkpoint holds of a trainer: its network, Adam's state, window, random stream and
/// progress.
pub struct ResumedParts {
    pub net: PolicyValueNet,
    pub optimizer: Vec<u8>,
    pub window: Window,
    pub rng: Xoshiro256PlusPlus,
    pub progress: RoundProgress,
}

impl<G: Game> AlphaZeroTrainer<G> {
    /// A new network for `initial`'s game, trained and evaluated on `device`'s engines.
    pub fn new(
        initial: &G,
        settings: AlphaZeroSettings,
        device: &NetDevice,
    ) -> AlphaZeroTrainer<G> {
        let shape = G::ENCODING.dims();
        let net = PolicyValueNet::new(&settings.architecture, shape, G::NUM_ACTIONS, &device.burn);
        let trainer = PolicyValueTrainer::new(net.clone(), settings.adam, device, shape);
        let window = settings.window;
        AlphaZeroTrainer {
            initial: initial.clone(),
            rng: Xoshiro256PlusPlus::seed_from_u64(settings.seed),
            settings,
            trainer,
            inference: PolicyValueInference::new(net.clone(), shape, device),
            net,
            device: device.clone(),
            window: Window::new(window),
            progress: RoundProgress::default(),
        }
    }

    /// A trainer resumed from a checkpoint's parts.
    ///
    /// # Errors
    /// An optimiser state that does not fit the network.
    pub fn resume(
        initial: &G,
        settings: AlphaZeroSettings,
        device: &NetDevice,
        parts: ResumedParts,
    ) -> anyhow::Result<AlphaZeroTrainer<G>> {
        let ResumedParts {
            net,
            optimizer,
            window,
            rng,
            progress,
        } = parts;
        let shape = G::ENCODING.dims();
        let mut trainer = PolicyValueTrainer::new(net.clone(), settings.adam, device, shape);
        trainer.load_optimizer_bytes(optimizer)?;
        Ok(AlphaZeroTrainer {
            initial: initial.clone(),
            settings,
            trainer,
            inference: PolicyValueInference::new(net.clone(), shape, device),
            net,
            device: device.clone(),
            window,
            rng,
            progress,
        })
    }

    /// The network as trained so far.
    pub fn net(&self) -> &PolicyValueNet {
        &self.net
    }

    /// Plays and learns rounds of `parallel_games` games until `games` games or `time` have
    /// passed (whichever first; a round in progress is finished); the step size follows the
    /// share of the nearer limit spent.
    pub fn train(&mut self, games: Option<u64>, time: Option<Duration>) -> RoundProgress {
        let start = Instant::now();
        let budget_used =
            |p: &RoundProgress| budget_share(p.games, games, start.elapsed().as_secs_f64(), time);
        let more = |p: &RoundProgress| {
            games.is_none_or(|g| p.games < g) && time.is_none_or(|t| start.elapsed() < t)
        };
        while more(&self.progress) {
            self.round(budget_used(&self.progress));
        }
        self.progress
    }

    /// Plays `parallel_games` games, then learns their positions.
    pub fn round(&mut self, budget_used: f64) -> RoundReport {
        let before = self.progress;
        let samples = self.play_round();
        self.progress.games += self.settings.parallel_games as u64;
        self.progress.positions += samples as u64;
        let learning_rate = self.trainer.set_progress(budget_used);
        self.learn(samples);
        self.progress.since(&before, learning_rate)
    }

    /// Plays `parallel_games` games to their ends (alphazero/selfplay.rs); returns the positions
    /// added to the window, game by game in the order the games are returned.
    fn play_round(&mut self) -> usize {
        let round = play_round_games(
            &self.initial,
            &self.settings,
            &self.inference,
            &mut self.rng,
        );
        self.progress.evaluated += round.evaluated;
        round.finished.into_iter().map(|g| self.finish(g)).sum()
    }

    /// Moves a finished game's positions into the window, each valued by the game's outcome
    /// mixed with its search's root value (`q_ratio`).
    fn finish(&mut self, game: SelfPlayGame<G>) -> usize {
        let outcome_p0 = game.position.outcome().expect("a finished game").value_p0();
        let added = game.history.len();
        let q_ratio = self.settings.q_ratio;
        for played in game.history {
            self.window.push(Sample {
                input: played.input,
                policy: played.policy,
                value_p0: (1.0 - q_ratio) * outcome_p0 + q_ratio * played.root_value_p0,
            });
        }
        added
    }

    /// `ceil(new · reuse / B)` Adam steps on minibatches drawn uniformly from the window.
    fn learn(&mut self, new: usize) {
        let window = &self.window.samples;
        let batch = self.settings.batch_size.min(window.len());
        if batch == 0 {
            return;
        }
        let steps = (new as f64 * self.settings.reuse / batch as f64).ceil() as usize;
        let start = Instant::now();
        let mut minibatch = SampleBatch::default();
        let mut drawn = Vec::with_capacity(batch);
        for _ in 0..steps {
            drawn.clear();
            drawn.extend((0..batch).map(|_| self.rng.random_range(0..window.len())));
            let (inputs, policies, values) = minibatch.fill_with_images::<G, _>(
                drawn.iter().map(|&i| &window[i]),
                self.settings.augmentation,
                &mut self.rng,
            );
            self.progress.learned += values.len() as u64;
            self.progress.last_loss = Some(self.trainer.step(inputs, policies, values));
            self.progress.steps += 1;
        }
        self.net = self.trainer.inference_net();
        self.inference =
            PolicyValueInference::new(self.net.clone(), G::ENCODING.dims(), &self.device);
        self.progress.learn_seconds += start.elapsed().as_secs_f64();
    }
}

impl<G: Game> RoundRecipe<G> for AlphaZeroTrainer<G> {
    const ROUND_KIND: &'static str = "alphazero_round";

    fn open(start: &RunStart<'_, G>, manifest: &NetManifest) -> anyhow::Result<(Self, RunState)> {
        let (settings, device) = (start.settings, start.device);
        let RecipeSettings::Alphazero(alphazero) = &settings.recipe else {
            anyhow::bail!("an alphazero run without its `alphazero:` settings");
        };
        check_policy_images::<G>(alphazero.augmentation)?;
        let Some(dir) = start.checkpoint else {
            let trainer = AlphaZeroTrainer::new(start.initial, alphazero.clone(), device);
            return Ok((trainer, new_state(settings)));
        };
        let parts = read_round_checkpoint::<G>(dir, settings, manifest, device, alphazero.window)?;
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
        let trainer = AlphaZeroTrainer::resume(start.initial, alphazero.clone(), device, resumed)?;
        Ok((trainer, parts.state))
    }

    fn round(&mut self, budget_used: f64) -> RoundReport {
        AlphaZeroTrainer::round(self, budget_used)
    }

    fn net(&self) -> &PolicyValueNet {
        &self.net
    }

    fn window(&self) -> &Window {
        &self.window
    }

    fn rng(&self) -> &Xoshiro256PlusPlus {
        &self.rng
    }

    fn optimizer_bytes(&self) -> anyhow::Result<Option<Vec<u8>>> {
        Ok(Some(self.trainer.optimizer_bytes()?))
    }

    /// PUCT, the run's own search without the root noise.
    fn evaluation_search(&self, budget: Budget) -> (String, SearchSpec) {
        if let Some(options) = self.settings.gumbel {
            let options = GumbelOptions {
                noise: false,
                ..options
            };
            return (
                format!("gumbel:model=<current>,{}", budget_text(&budget)),
                SearchSpec::Gumbel { budget, options },
            );
        }
        let options = PuctOptions {
            dirichlet_fraction: 0.0,
            ..self.settings.puct
        };
        (
            format!("puct:model=<current>,{}", budget_text(&budget)),
            SearchSpec::Puct { budget, options },
        )
    }
}
