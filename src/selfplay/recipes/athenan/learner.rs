//! The learner: the replay buffer and the network being trained. After each finished game it
//! adds the game's pairs (augmented if asked) to the buffer and runs one learning phase — one
//! pass of Adam steps over the minibatches the buffer deals (docs/algorithms.md §6) — *when* the
//! network learns; the steps themselves are `value::NetOptimizer`'s, the targets and the buffer
//! the `learn` layer's.

use std::time::Instant;

use rand::rngs::Xoshiro256PlusPlus;

use crate::games::Game;
use crate::learn::augment::{Augmentation, EncodedPairs, augment, encode_pairs};
use crate::learn::{ReplayBuffer, ReplayLimits};
use crate::selfplay::recipes::athenan::settings::{AthenanSettings, ReplaySettings};
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
    /// Pre-training's symmetric images.
    pub pretrain_augment_symmetries: Augmentation,
    /// The window's growth and the bound on the rows held (`replay:`).
    pub replay_settings: ReplaySettings,
    /// Rows learned a game at most per position its search evaluated (the learning rule).
    pub rows_per_evaluation: Option<f64>,
    pub rng: Xoshiro256PlusPlus,
}

/// What a finished game brings to its learning phase besides its pairs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameToLearn {
    /// Where the run is in its budget, in [0, 1] (the step size's schedule).
    pub progress: f64,
    /// Positions the game's search evaluated (the learning rule's count).
    pub evaluated_positions: u64,
    /// Games learned before this one (the window's growth).
    pub games_learned: u64,
}

impl Learner {
    /// A learner with the run's replay, batch size and augmentation settings.
    pub fn new(
        net_optimizer: NetOptimizer,
        replay: ReplayBuffer,
        settings: &AthenanSettings,
        rng: Xoshiro256PlusPlus,
    ) -> Learner {
        Learner {
            net_optimizer,
            replay,
            batch_size: settings.replay.batch_size,
            augment_symmetries: settings.learning.augment_symmetries,
            pretrain_augment_symmetries: settings.learning.pretrain_augment_symmetries,
            replay_settings: settings.replay,
            rows_per_evaluation: settings.learning.rows_per_evaluation,
            rng,
        }
    }

    /// The replay's limits for `game`'s phase: the window grown so far, the rows held, and the
    /// learning rule's bound (`rows_per_evaluation` × the positions evaluated, rounded up).
    pub fn limits(&self, game: &GameToLearn) -> ReplayLimits {
        ReplayLimits {
            window_games: self.replay_settings.window_games(game.games_learned),
            max_pairs_held: self.replay_settings.max_rows,
            max_pairs_learned: self.rows_per_evaluation.map(|rows| {
                let bound = (rows * game.evaluated_positions as f64).ceil();
                bound.min(usize::MAX as f64) as usize
            }),
        }
    }

    /// Adds a game's pairs (encoded, before augmentation) and runs a learning phase at the
    /// step size of the game's `progress` ∈ [0, 1] of the run's budget, within the replay's
    /// limits (`limits`).
    pub fn learn_game<G: Game>(&mut self, pairs: EncodedPairs, game: GameToLearn) -> PhaseReport {
        let limits = self.limits(&game);
        let (inputs, targets) = augment::<G, _>(pairs, self.augment_symmetries, &mut self.rng);
        let pairs_added = targets.len();
        self.replay
            .add_game_within(inputs, targets, limits, &mut self.rng);
        let phase = self
            .replay
            .plan_learning_phase(self.batch_size, limits, &mut self.rng);
        let mut report = PhaseReport {
            pairs_added,
            minibatches: phase.minibatches(),
            learning_rate: self.net_optimizer.set_progress(game.progress),
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
    /// (pre-initialisation), stopping before the first minibatch that would start past
    /// `deadline`.
    pub fn fit<G: Game>(
        &mut self,
        pairs: &[(G, f32)],
        epochs: usize,
        deadline: Option<Instant>,
    ) -> FitReport {
        let augmentation = self.pretrain_augment_symmetries;
        let (inputs, targets) = encode_pairs(pairs, augmentation, &mut self.rng);
        let mut fixed = ReplayBuffer::new(crate::learn::ReplayPolicy::LastGame, G::ENCODING.len());
        fixed.add_game(inputs, targets, &mut self.rng);
        let mut report = FitReport {
            rows: fixed.len(),
            ..FitReport::default()
        };
        for _ in 0..epochs {
            let (mut sum, mut steps) = (0.0, 0);
            for batch in fixed.learning_phase(self.batch_size, &mut self.rng) {
                if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                    report.stopped_at_deadline = true;
                    break;
                }
                sum += self.net_optimizer.step(&batch.inputs, &batch.targets) as f64;
                steps += 1;
                report.rows_learned += batch.targets.len();
            }
            if steps > 0 {
                report.mean_loss = Some(sum / steps as f64);
            }
            if report.stopped_at_deadline {
                break;
            }
        }
        report
    }
}

/// What pre-training did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FitReport {
    /// Rows of the fixed set (images included) and rows learned (each pass counts).
    pub rows: usize,
    pub rows_learned: usize,
    /// Mean loss of the last pass's steps (`None`: no step).
    pub mean_loss: Option<f64>,
    /// Whether the deadline cut it short.
    pub stopped_at_deadline: bool,
}
