//! The trainer of a round recipe that searches its self-play moves with its network
//! (AlphaZero, Gumbel AlphaZero; docs/algorithms.md §12): rounds of `parallel_games` games
//! played in lockstep (rounds/self_play.rs), each position learned with its search's policy
//! target and the game's outcome as its value target (or a mix of it with the search's value,
//! `q_ratio`); a window of the latest positions sampled uniformly for minibatches of Adam on
//! value MSE + policy cross-entropy + L2. The recipe (`SelfPlaySearch`) decides the search.

use std::marker::PhantomData;
use std::time::{Duration, Instant};

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use crate::games::Game;
use crate::search::{Budget, SearchSpec};
use crate::selfplay::recipes::rounds::progress::{RoundProgress, RoundReport};
use crate::selfplay::recipes::rounds::self_play::{SelfPlayGame, SelfPlaySearch, play_round_games};
use crate::selfplay::recipes::rounds::settings::SelfPlaySettings;
use crate::selfplay::recipes::rounds::window::{Sample, SampleBatch, Window};
use crate::selfplay::recipes::rounds::{
    RoundRecipe, check_policy_images, new_state, read_round_checkpoint,
};
use crate::selfplay::run::run_dir::OPTIMIZER_FILE;
use crate::selfplay::run::run_progress::budget_share;
use crate::selfplay::run::run_state::RunState;
use crate::selfplay::run::session::RunStart;
use crate::selfplay::run::streams::network_seed;
use crate::value::policy_value_net::{PolicyValueNet, PolicyValueTrainer};
use crate::value::saved_net::NetManifest;
use crate::value::{NetDevice, PolicyValueInference};

/// A self-play round recipe `S` training on one game.
pub struct SelfPlayTrainer<G: Game, S: SelfPlaySearch<G>> {
    initial: G,
    settings: SelfPlaySettings<S::Options>,
    trainer: PolicyValueTrainer,
    net: PolicyValueNet,
    /// `net` as self-play evaluates it (on `descent-cpu`, the direct CPU pass).
    inference: PolicyValueInference,
    device: NetDevice,
    window: Window,
    rng: Xoshiro256PlusPlus,
    progress: RoundProgress,
    recipe: PhantomData<S>,
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

impl<G: Game, S: SelfPlaySearch<G>> SelfPlayTrainer<G, S> {
    /// A new network for `initial`'s game, trained and evaluated on `device`'s engines.
    pub fn new(
        initial: &G,
        settings: SelfPlaySettings<S::Options>,
        device: &NetDevice,
    ) -> SelfPlayTrainer<G, S> {
        let shape = G::ENCODING.dims();
        let net = PolicyValueNet::seeded(
            &settings.architecture,
            shape,
            G::NUM_ACTIONS,
            &device.burn,
            network_seed(settings.seed),
        );
        let trainer = PolicyValueTrainer::new(net.clone(), settings.adam, device, shape);
        let window = settings.window;
        SelfPlayTrainer {
            initial: initial.clone(),
            rng: Xoshiro256PlusPlus::seed_from_u64(settings.seed),
            settings,
            trainer,
            inference: PolicyValueInference::new(net.clone(), shape, device),
            net,
            device: device.clone(),
            window: Window::new(window),
            progress: RoundProgress::default(),
            recipe: PhantomData,
        }
    }

    /// A trainer resumed from a checkpoint's parts.
    ///
    /// # Errors
    /// An optimiser state that does not fit the network.
    pub fn resume(
        initial: &G,
        settings: SelfPlaySettings<S::Options>,
        device: &NetDevice,
        parts: ResumedParts,
    ) -> anyhow::Result<SelfPlayTrainer<G, S>> {
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
        Ok(SelfPlayTrainer {
            initial: initial.clone(),
            settings,
            trainer,
            inference: PolicyValueInference::new(net.clone(), shape, device),
            net,
            device: device.clone(),
            window,
            rng,
            progress,
            recipe: PhantomData,
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

    /// Plays `parallel_games` games to their ends (rounds/self_play.rs); returns the positions
    /// added to the window, game by game in the order the games are returned.
    fn play_round(&mut self) -> usize {
        let round = play_round_games::<G, S>(
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
    fn finish(&mut self, game: SelfPlayGame<G, S>) -> usize {
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

impl<G: Game, S: SelfPlaySearch<G>> RoundRecipe<G> for SelfPlayTrainer<G, S> {
    const ROUND_KIND: &'static str = S::ROUND_KIND;

    fn open(start: &RunStart<'_, G>, manifest: &NetManifest) -> anyhow::Result<(Self, RunState)> {
        let (settings, device) = (start.settings, start.device);
        let Some(recipe) = S::settings(&settings.recipe) else {
            anyhow::bail!(
                "a run of {} lines without its recipe's settings",
                S::ROUND_KIND
            );
        };
        check_policy_images::<G>(recipe.augmentation)?;
        let Some(dir) = start.checkpoint else {
            let trainer = SelfPlayTrainer::new(start.initial, recipe.clone(), device);
            return Ok((trainer, new_state(settings)));
        };
        let parts = read_round_checkpoint::<G>(dir, settings, manifest, device, recipe.window)?;
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
        let trainer = SelfPlayTrainer::resume(start.initial, recipe.clone(), device, resumed)?;
        Ok((trainer, parts.state))
    }

    fn round(&mut self, budget_used: f64) -> RoundReport {
        SelfPlayTrainer::round(self, budget_used)
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

    /// The recipe's own search, without its exploration noise.
    fn evaluation_search(&self, budget: Budget) -> (String, SearchSpec) {
        S::evaluation_search(&self.settings.search, budget)
    }
}
