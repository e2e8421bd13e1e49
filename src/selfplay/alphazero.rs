//! AlphaZero as a training recipe (docs/algorithms.md §12): self-play with PUCT (`search::puct`)
//! guided by a policy-value network, Dirichlet noise at the root, moves drawn in proportion to
//! the visits for the opening plies and the most visited after; each position learned with the
//! normalised visit counts as its policy target and the game's outcome as its value target
//! (or a mix of it with the search's root value, `q_ratio`);
//! a window of the latest positions sampled uniformly for minibatches of Adam on
//! value MSE + policy cross-entropy + L2.
//!
//! Self-play runs `parallel_games` games at once and evaluates their leaves together, one
//! batch per step of all their searches, on one or more threads (alphazero_selfplay.rs).

use std::time::{Duration, Instant};

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use super::alphazero_selfplay::{SelfPlayGame, play_round_games};
use super::alphazero_window::{Sample, SampleBatch, Window};
use super::round_recipe::RoundRecipe;
use super::run::self_play::budget_share;
use crate::games::Game;
use crate::learn::augment::Augmentation;
use crate::search::gumbel::GumbelOptions;
use crate::search::puct::PuctOptions;
use crate::search::{Budget, SearchSpec};
use crate::selfplay::run::periodic_eval::budget_text;
use crate::value::policy_value_net::{PolicyValueLoss, PolicyValueNet, PolicyValueTrainer};
use crate::value::{AdamSettings, Architecture, NetDevice, PolicyValueInference};

/// AlphaZero's training settings.
#[derive(Clone, Debug, PartialEq)]
pub struct AlphaZeroSettings {
    pub architecture: Architecture,
    /// PUCT in self-play (its Dirichlet fraction the AlphaZero paper's 0.25).
    pub puct: PuctOptions,
    /// Gumbel search in self-play instead of PUCT (Gumbel AlphaZero, docs/algorithms.md §14):
    /// the improved policy is the policy target, the root's Gumbel noise the exploration.
    pub gumbel: Option<GumbelOptions>,
    /// Simulations per move (AlphaZero: 800).
    pub simulations: u32,
    /// Playout cap randomisation (KataGo; Wu 2019, §3.1): with `Some(n)`, a move's search is
    /// the full one (`simulations`, root noise, learned) with probability
    /// `full_search_fraction`, else a fast one of `n` simulations, without noise and not
    /// learned. `None`: every search full (AlphaZero's).
    pub fast_simulations: Option<u32>,
    /// The share of full searches when `fast_simulations` is set (KataGo: 0.25).
    pub full_search_fraction: f64,
    /// Plies whose move is drawn in proportion to the visits (AlphaZero: 30); the most
    /// visited after.
    pub temperature_plies: usize,
    /// Each self-play game opens with a number of uniformly random moves drawn uniformly from 0
    /// to this (0: every game from the initial position), never one that ends the game; those
    /// plies are not learned.
    pub random_opening_plies: usize,
    /// Games played at once in a round, their leaves evaluated in one batch a thread.
    pub parallel_games: usize,
    /// Threads a round's games are dealt to (`run.threads`; at most `parallel_games`).
    pub threads: usize,
    /// Positions kept for learning, the latest (OpenSpiel: 2^16).
    pub window: usize,
    pub batch_size: usize,
    /// How many times each new position is learned on average (OpenSpiel's buffer reuse: 3).
    pub reuse: f64,
    /// The value target's share of the search's root value: `(1 − q_ratio)·z + q_ratio·q`, z the
    /// game's outcome, q the root's mean value after the move's search (0: AlphaZero's z).
    pub q_ratio: f32,
    pub adam: AdamSettings,
    /// Each drawn position learned with its images under the board's symmetries
    /// (`learning.augment_symmetries`, as the Athénan recipe learns its pairs).
    pub augmentation: Augmentation,
    pub seed: u64,
}

impl AlphaZeroSettings {
    /// The AlphaZero paper's search settings with OpenSpiel's learning sizes.
    pub fn new(architecture: Architecture) -> AlphaZeroSettings {
        AlphaZeroSettings {
            architecture,
            puct: PuctOptions {
                dirichlet_fraction: 0.25,
                ..PuctOptions::default()
            },
            gumbel: None,
            simulations: 800,
            fast_simulations: None,
            full_search_fraction: 0.25,
            temperature_plies: 30,
            random_opening_plies: 0,
            parallel_games: 32,
            threads: 1,
            window: 1 << 16,
            batch_size: 1024,
            reuse: 3.0,
            q_ratio: 0.0,
            adam: AdamSettings {
                l2: 1e-4,
                ..AdamSettings::default()
            },
            augmentation: Augmentation::One,
            seed: 1,
        }
    }
}

/// What a training session did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AlphaZeroProgress {
    pub games: u64,
    pub positions: u64,
    /// Adam steps since this process started (a resumed run counts from 0 again).
    pub steps: u64,
    pub last_loss: Option<PolicyValueLoss>,
    /// Positions the network evaluated in self-play (rows of its calls).
    pub evaluated: u64,
    /// Rows of every minibatch learned (symmetric images included).
    pub learned: u64,
    /// Wall time of the learning (minibatches gathered and stepped), in seconds.
    pub learn_seconds: f64,
}

impl AlphaZeroProgress {
    /// What was done since `before`, as a round's report, learnt at `learning_rate`.
    pub fn since(&self, before: &AlphaZeroProgress, learning_rate: f64) -> RoundReport {
        RoundReport {
            games: self.games - before.games,
            positions: self.positions - before.positions,
            steps: self.steps - before.steps,
            loss: (self.steps > before.steps)
                .then_some(self.last_loss)
                .flatten(),
            evaluated_positions: self.evaluated - before.evaluated,
            samples_learned: self.learned - before.learned,
            learn_seconds: self.learn_seconds - before.learn_seconds,
            learning_rate,
        }
    }
}

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
    progress: AlphaZeroProgress,
}

/// What a checkpoint holds of a trainer: its network, Adam's state, window, random stream and
/// progress.
pub struct ResumedParts {
    pub net: PolicyValueNet,
    pub optimizer: Vec<u8>,
    pub window: Window,
    pub rng: Xoshiro256PlusPlus,
    pub progress: AlphaZeroProgress,
}

/// What one round of self-play and learning did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundReport {
    pub games: u64,
    pub positions: u64,
    pub steps: u64,
    /// The loss of the round's last step (`None`: no step).
    pub loss: Option<PolicyValueLoss>,
    /// Positions the network evaluated in the round's self-play.
    pub evaluated_positions: u64,
    /// Rows learned (minibatch rows, symmetric images included).
    pub samples_learned: u64,
    /// Adam's step size in the round's learning.
    pub learning_rate: f64,
    /// Wall time of the round's learning; the rest of the round is self-play.
    pub learn_seconds: f64,
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
            progress: AlphaZeroProgress::default(),
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
    pub fn train(&mut self, games: Option<u64>, time: Option<Duration>) -> AlphaZeroProgress {
        let start = Instant::now();
        let budget_used = |p: &AlphaZeroProgress| {
            budget_share(p.games, games, start.elapsed().as_secs_f64(), time)
        };
        let more = |p: &AlphaZeroProgress| {
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

    /// Plays `parallel_games` games to their ends (alphazero_selfplay.rs); returns the positions
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
