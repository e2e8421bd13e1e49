//! AlphaZero as a training recipe (docs/algorithms.md §12): self-play with PUCT (`search::puct`)
//! guided by a policy-value network, Dirichlet noise at the root, moves drawn in proportion to
//! the visits for the opening plies and the most visited after; each position learned with the
//! normalised visit counts as its policy target and the game's outcome as its value target;
//! a window of the latest positions sampled uniformly for minibatches of Adam on
//! value MSE + policy cross-entropy + L2.
//!
//! Self-play runs `parallel_games` games at once and evaluates their leaves together, one
//! batch per step of all their searches (batched leaf evaluation without virtual loss: each
//! game contributes one leaf per batch).

use std::time::{Duration, Instant};

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use super::alphazero_window::{Sample, SampleBatch, Window};
use super::round_recipe::RoundRecipe;
use crate::games::{Action, Game};
use crate::learn::augment::Augmentation;
use crate::search::puct::{Leaf, PuctOptions, PuctTree, choose_by_visits, visit_distribution};
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
    /// Simulations per move (AlphaZero: 800).
    pub simulations: u32,
    /// Plies whose move is drawn in proportion to the visits (AlphaZero: 30); the most
    /// visited after.
    pub temperature_plies: usize,
    /// Games played at once, their leaves evaluated in one batch.
    pub parallel_games: usize,
    /// Positions kept for learning, the latest (OpenSpiel: 2^16).
    pub window: usize,
    pub batch_size: usize,
    /// How many times each new position is learned on average (OpenSpiel's buffer reuse: 3).
    pub reuse: f64,
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
            simulations: 800,
            temperature_plies: 30,
            parallel_games: 32,
            window: 1 << 16,
            batch_size: 1024,
            reuse: 3.0,
            adam: AdamSettings {
                l2: 1e-4,
                ..AdamSettings::default()
            },
            augmentation: Augmentation::One,
            seed: 1,
        }
    }
}

/// A game of self-play in progress.
struct SelfPlayGame<G: Game> {
    position: G,
    tree: PuctTree<G>,
    /// Encoding and policy target of each position played from.
    history: Vec<(Vec<f32>, Vec<f32>)>,
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
}

impl AlphaZeroProgress {
    /// What was done since `before`, as a round's report.
    pub fn since(&self, before: &AlphaZeroProgress) -> RoundReport {
        RoundReport {
            games: self.games - before.games,
            positions: self.positions - before.positions,
            steps: self.steps - before.steps,
            loss: (self.steps > before.steps)
                .then_some(self.last_loss)
                .flatten(),
            evaluated_positions: self.evaluated - before.evaluated,
            samples_learned: self.learned - before.learned,
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
    /// passed (whichever first; a round in progress is finished).
    pub fn train(&mut self, games: Option<u64>, time: Option<Duration>) -> AlphaZeroProgress {
        let start = Instant::now();
        let more = |p: &AlphaZeroProgress| {
            games.is_none_or(|g| p.games < g) && time.is_none_or(|t| start.elapsed() < t)
        };
        while more(&self.progress) {
            self.round();
        }
        self.progress
    }

    /// Plays `parallel_games` games, then learns their positions.
    pub fn round(&mut self) -> RoundReport {
        let before = self.progress;
        let samples = self.play_round();
        self.progress.games += self.settings.parallel_games as u64;
        self.progress.positions += samples as u64;
        self.learn(samples);
        self.progress.since(&before)
    }

    /// Plays `parallel_games` games to their ends; returns the positions added to the window.
    fn play_round(&mut self) -> usize {
        let options = self.settings.puct;
        let mut games: Vec<SelfPlayGame<G>> = (0..self.settings.parallel_games)
            .map(|_| SelfPlayGame {
                position: self.initial.clone(),
                tree: PuctTree::new(&self.initial, options),
                history: Vec::new(),
            })
            .collect();
        let actions = G::NUM_ACTIONS;
        let (mut inputs, mut values, mut logits) = (Vec::new(), Vec::new(), Vec::new());
        let mut waiting = Vec::new();
        let mut added = 0;
        while !games.is_empty() {
            inputs.clear();
            waiting.clear();
            let mut g = 0;
            while g < games.len() {
                if self.advance(&mut games[g], &mut inputs) {
                    waiting.push(g);
                    g += 1;
                } else {
                    added += self.finish(games.swap_remove(g));
                }
            }
            if waiting.is_empty() {
                continue;
            }
            values.resize(waiting.len(), 0.0);
            logits.resize(waiting.len() * actions, 0.0);
            self.progress.evaluated += waiting.len() as u64;
            self.inference
                .predict_into(&inputs, &mut values, Some(&mut logits));
            for (k, &g) in waiting.iter().enumerate() {
                let logits = &logits[k * actions..(k + 1) * actions];
                games[g].tree.expand(values[k], logits, &mut self.rng);
            }
        }
        added
    }

    /// Runs `game`'s search to its next leaf needing the network, whose encoding it appends to
    /// `inputs`, playing moves whenever the search of one is complete; false when the game is
    /// over.
    fn advance(&mut self, game: &mut SelfPlayGame<G>, inputs: &mut Vec<f32>) -> bool {
        loop {
            if game.position.is_terminal() {
                return false;
            }
            if game.tree.simulations() > self.settings.simulations {
                self.play_move(game);
                continue;
            }
            if let Leaf::Evaluate(position) = game.tree.next_leaf() {
                let at = inputs.len();
                inputs.resize(at + G::ENCODING.len(), 0.0);
                position.encode(&mut inputs[at..]);
                return true;
            }
        }
    }

    /// Records the position with its visit distribution and plays the chosen move.
    fn play_move(&mut self, game: &mut SelfPlayGame<G>) {
        let visits = game.tree.root_visits();
        let mut input = vec![0.0; G::ENCODING.len()];
        game.position.encode(&mut input);
        let mut policy = Vec::new();
        visit_distribution(&visits, G::NUM_ACTIONS, &mut policy);
        game.history.push((input, policy));
        let temperature = match game.position.ply() < self.settings.temperature_plies {
            true => 1.0,
            false => 0.0,
        };
        let action: Action = choose_by_visits(&visits, temperature, &mut self.rng);
        game.position.play(action);
        game.tree = PuctTree::new(&game.position, self.settings.puct);
    }

    /// Moves a finished game's positions into the window with its outcome.
    fn finish(&mut self, game: SelfPlayGame<G>) -> usize {
        let outcome_p0 = game.position.outcome().expect("a finished game").value_p0();
        let added = game.history.len();
        for (input, policy) in game.history {
            self.window.push(Sample {
                input,
                policy,
                outcome_p0,
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
    }
}

impl<G: Game> RoundRecipe<G> for AlphaZeroTrainer<G> {
    const ROUND_KIND: &'static str = "alphazero_round";

    fn round(&mut self, _budget_used: f64) -> RoundReport {
        AlphaZeroTrainer::round(self)
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
