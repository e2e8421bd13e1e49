//! The learner: the replay buffer and the network being trained. After each finished game it
//! adds the game's pairs (augmented if asked) to the buffer and runs one learning phase — one
//! pass of Adam steps over the minibatches the buffer deals (docs/algorithms.md §6) — *when* the
//! network learns; the steps themselves are `value::NetOptimizer`'s, the targets and the buffer
//! the `learn` layer's.

use rand::rngs::Xoshiro256PlusPlus;

use crate::games::Game;
use crate::learn::ReplayBuffer;
use crate::learn::augment::{Augmentation, EncodedPairs, augment, encode_pairs};
use crate::selfplay::config::TrainSettings;
use crate::value::{MinibatchSource, NetOptimizer};

/// What one learning phase did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseReport {
    /// Pairs added to the buffer (after augmentation).
    pub pairs_added: usize,
    /// Pairs trained on, and in how many minibatches.
    pub pairs_learned: usize,
    pub minibatches: usize,
    /// Mean of the minibatches' losses (before each step); `None` when nothing was learned.
    pub mean_loss: Option<f64>,
    /// Adam's step size in the phase (`optimizer.final_learning_rate`'s schedule).
    pub learning_rate: f64,
}

/// The replay buffer and the net_optimizer.
pub struct Learner {
    pub net_optimizer: NetOptimizer,
    pub replay: ReplayBuffer,
    pub batch_size: usize,
    pub augment_symmetries: Augmentation,
    pub rng: Xoshiro256PlusPlus,
}

impl Learner {
    /// A learner with the run's replay, batch size and augmentation settings.
    pub fn new(
        net_optimizer: NetOptimizer,
        replay: ReplayBuffer,
        settings: &TrainSettings,
        rng: Xoshiro256PlusPlus,
    ) -> Learner {
        Learner {
            net_optimizer,
            replay,
            batch_size: settings.replay.batch_size,
            augment_symmetries: settings.learning.augment_symmetries,
            rng,
        }
    }

    /// Adds a game's pairs (encoded, before augmentation) and runs a learning phase at the
    /// step size of `progress` ∈ [0, 1] of the run's budget.
    pub fn learn_game<G: Game>(&mut self, pairs: EncodedPairs, progress: f64) -> PhaseReport {
        let (inputs, targets) = augment::<G, _>(pairs, self.augment_symmetries, &mut self.rng);
        let pairs_added = targets.len();
        self.replay.add_game(inputs, targets, &mut self.rng);
        let phase = self
            .replay
            .plan_learning_phase(self.batch_size, &mut self.rng);
        let mut report = PhaseReport {
            pairs_added,
            minibatches: phase.minibatches(),
            learning_rate: self.net_optimizer.set_progress(progress),
            ..PhaseReport::default()
        };
        let Learner {
            net_optimizer,
            replay,
            ..
        } = self;
        let (pairs_learned, loss_sum) = net_optimizer.run_steps(|net_optimizer| {
            let (mut pairs, mut loss_sum) = (0, 0.0);
            for k in 0..phase.minibatches() {
                let minibatch = replay.minibatch(&phase, k);
                pairs += minibatch.len();
                loss_sum += net_optimizer.step_from(&minibatch) as f64;
            }
            (pairs, loss_sum)
        });
        report.pairs_learned = pairs_learned;
        if report.minibatches > 0 {
            report.mean_loss = Some(loss_sum / report.minibatches as f64);
        }
        report
    }

    /// Fits the network on fixed pairs for `epochs` passes in shuffled minibatches
    /// (pre-initialisation); returns the mean loss of the last pass.
    pub fn fit<G: Game>(&mut self, pairs: &[(G, f32)], epochs: usize) -> Option<f64> {
        let (inputs, targets) = encode_pairs(pairs, self.augment_symmetries, &mut self.rng);
        let mut fixed = ReplayBuffer::new(crate::learn::ReplayPolicy::LastGame, G::ENCODING.len());
        fixed.add_game(inputs, targets, &mut self.rng);
        let mut last = None;
        for _ in 0..epochs {
            let batches = fixed.learning_phase(self.batch_size, &mut self.rng);
            let count = batches.len();
            let sum: f64 = batches
                .into_iter()
                .map(|b| self.net_optimizer.step(&b.inputs, &b.targets) as f64)
                .sum();
            last = (count > 0).then(|| sum / count as f64);
        }
        last
    }
}
