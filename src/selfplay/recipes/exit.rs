//! ExIt as a training recipe (paper §8.1, Algorithm 15, parameters §8.4.2; docs/algorithms.md
//! §13). Phases of `games_per_phase` games:
//!
//! - **warm start** (the first `warm_start_games` games): base MCTS (random playouts, UCT
//!   constant `warm_start_c`) plays itself; every searched position is learned with its visit
//!   distribution and the game's outcome;
//! - **expert iteration**: the apprentice plays the games alone (no search: moves drawn from
//!   the softmax of its policy at temperature `temperature`, all games' positions evaluated in
//!   one batch per ply); one position per game, drawn uniformly, is searched by the expert
//!   (`search::mcts` with `TreePolicy::Exit`, `expert_iterations` simulations) and learned with
//!   the expert's visit distribution and the game's outcome. The phase's expert searches run
//!   together (`search::in_flight`), their leaves evaluated in one network call a step, as
//!   §8.4.2 runs them; each search has its own seed, drawn from the run's generator.
//!
//! After each phase the network is **reset** and trained on all the data so far (∪ D_j, at most
//! `max_positions`, the latest) with early stopping: every tenth position is held out, epochs of
//! minibatches of `batch_size` run until the held-out loss has not improved for `patience`
//! epochs (at most `max_epochs`), and the best epoch's network is kept. The loss is the tree-
//! policy cross-entropy, plus ExIt's value cross-entropy once the value is used (from
//! `value_from`, a share of the run's budget; then the expert adds `w_v · Q̂` too).

pub mod settings;

pub use settings::ExitSettings;

use burn::prelude::Device;
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

use crate::games::{Action, Game};
use crate::search::in_flight::{KeyedTask, NextTask, Task, TaskSource, run_in_flight};
use crate::search::mcts::{Mcts, MctsOptions, TreePolicy};
use crate::search::puct::visit_distribution;
use crate::search::{Budget, ConstantEvaluator, Evaluator, SearchSpec};
use crate::selfplay::config::RecipeSettings;
use crate::selfplay::recipes::rounds::progress::{RoundProgress, RoundReport};
use crate::selfplay::recipes::rounds::window::{Sample, SampleBatch, Window};
use crate::selfplay::recipes::rounds::{
    RoundRecipe, check_policy_images, new_state, read_round_checkpoint,
};
use crate::selfplay::run::periodic_eval::budget_text;
use crate::selfplay::run::run_state::RunState;
use crate::selfplay::run::session::RunStart;
use crate::selfplay::run::streams::network_seed;
use crate::value::policy_value_loss::mean_losses;
use crate::value::policy_value_net::{PolicyValueNet, PolicyValueTrainer, ValueLoss};
use crate::value::saved_net::NetManifest;
use crate::value::{Architecture, NetDevice, PolicyValueEvaluator, PolicyValueInference};

/// One expert search of a phase: the state, its game's outcome, the seed of its search.
struct ExpertSearch<G> {
    state: G,
    outcome_p0: f32,
    seed: u64,
}

/// A phase's expert searches as tasks of `search::in_flight`; each finished one a sample.
struct ExpertPhase<'e, G: Game, I> {
    searches: I,
    evaluator: &'e PolicyValueEvaluator<G>,
    options: MctsOptions,
    budget: Budget,
    samples: Vec<(usize, Sample)>,
}

impl<'e, G: Game, I: Iterator<Item = (usize, ExpertSearch<G>)>>
    TaskSource<G, &'e PolicyValueEvaluator<G>, (usize, Sample)> for ExpertPhase<'e, G, I>
{
    fn next_task(
        &mut self,
        _slot: usize,
        _wait: bool,
    ) -> NextTask<KeyedTask<G, &'e PolicyValueEvaluator<G>, (usize, Sample)>> {
        let Some((index, search)) = self.searches.next() else {
            return NextTask::Done;
        };
        let (options, budget) = (self.options, self.budget.clone());
        let task: Task<G, (usize, Sample)> = Box::new(move |evaluator: &dyn Evaluator<G>| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(search.seed);
            let mut expert = Mcts::<G>::new(options);
            expert.search(&search.state, &evaluator, &budget, &mut rng);
            let (input, policy) = encoded_with_visits(&search.state, &expert);
            let sample = Sample {
                input,
                policy,
                value_p0: search.outcome_p0,
            };
            (index, sample)
        });
        NextTask::Task((0, self.evaluator, task))
    }

    fn finished(&mut self, _slot: usize, result: (usize, Sample), _seconds: f64) {
        self.samples.push(result);
    }
}

/// `position`'s encoding and the visit distribution of `mcts`'s root there.
fn encoded_with_visits<G: Game>(position: &G, mcts: &Mcts<G>) -> (Vec<f32>, Vec<f32>) {
    let mut input = vec![0.0; G::ENCODING.len()];
    position.encode(&mut input);
    let visits: Vec<(Action, u32)> = mcts
        .root_children()
        .iter()
        .map(|c| (c.action, c.visits))
        .collect();
    let mut policy = Vec::new();
    visit_distribution(&visits, G::NUM_ACTIONS, &mut policy);
    (input, policy)
}

/// A learned position: its encoding and its policy target.
type EncodedTarget = (Vec<f32>, Vec<f32>);

/// One game of base MCTS against itself from `initial` on `seed`: each position's encoding
/// with its visit distribution, and the outcome (P0's view).
fn base_mcts_game<G: Game>(
    initial: &G,
    options: MctsOptions,
    budget: &Budget,
    seed: u64,
) -> (Vec<EncodedTarget>, f32) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut mcts = Mcts::<G>::new(options);
    let mut position = initial.clone();
    let mut inputs = Vec::new();
    while !position.is_terminal() {
        mcts.search(&position, &ConstantEvaluator(0.0), budget, &mut rng);
        inputs.push(encoded_with_visits(&position, &mcts));
        let action = mcts.decide(&mut rng).expect("a move");
        mcts.advance(&[action]);
        position.play(action);
    }
    (inputs, position.outcome().expect("finished").value_p0())
}

/// `jobs` cut into `threads` contiguous parts (at most one a job), each given to `work` on its
/// own thread (on this one when there is one part); the results in the jobs' order.
fn in_order_on_threads<J: Send, T: Send>(
    jobs: Vec<J>,
    threads: usize,
    work: impl Fn(Vec<J>) -> Vec<T> + Sync,
) -> Vec<T> {
    let threads = threads.clamp(1, jobs.len().max(1));
    if threads == 1 {
        return work(jobs);
    }
    let per_part = jobs.len().div_ceil(threads);
    let mut parts: Vec<Vec<J>> = Vec::with_capacity(threads);
    let mut jobs = jobs.into_iter().peekable();
    while jobs.peek().is_some() {
        parts.push(jobs.by_ref().take(per_part).collect());
    }
    let work = &work;
    std::thread::scope(|scope| {
        let handles: Vec<_> = parts
            .into_iter()
            .map(|part| scope.spawn(move || work(part)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("an ExIt thread panicked"))
            .collect()
    })
}

/// One position in this many is held out for early stopping.
pub const VALIDATION_EVERY: usize = 10;

/// ExIt training on one game.
pub struct ExitTrainer<G: Game> {
    initial: G,
    settings: ExitSettings,
    net: PolicyValueNet,
    device: NetDevice,
    data: Window,
    rng: Xoshiro256PlusPlus,
    progress: RoundProgress,
    value_on: bool,
}

/// What a checkpoint holds of an ExIt trainer: the apprentice, the data so far, the random
/// stream, the progress, and whether the value had joined.
pub struct ExitResumed {
    pub net: PolicyValueNet,
    pub data: Window,
    pub rng: Xoshiro256PlusPlus,
    pub progress: RoundProgress,
    pub value_on: bool,
}

impl<G: Game> ExitTrainer<G> {
    /// A new apprentice (untrained) for `initial`'s game, or one resumed from a checkpoint.
    pub fn new(
        initial: &G,
        settings: ExitSettings,
        device: &NetDevice,
        resumed: Option<ExitResumed>,
    ) -> ExitTrainer<G> {
        let resumed = resumed.unwrap_or_else(|| ExitResumed {
            net: fresh_net::<G>(
                &settings.architecture,
                &device.burn,
                network_seed(settings.seed),
            ),
            data: Window::new(settings.max_positions),
            rng: Xoshiro256PlusPlus::seed_from_u64(settings.seed),
            progress: RoundProgress::default(),
            value_on: false,
        });
        ExitTrainer {
            initial: initial.clone(),
            settings,
            net: resumed.net,
            device: device.clone(),
            data: resumed.data,
            rng: resumed.rng,
            progress: resumed.progress,
            value_on: resumed.value_on,
        }
    }

    /// Whether the value is learned and used (from `value_from` of the budget on, for good).
    pub fn value_on(&self) -> bool {
        self.value_on
    }

    /// One phase — warm start or expert iteration — then the network retrained from scratch;
    /// `budget_used` is the share of the run's budget spent so far.
    pub fn round(&mut self, budget_used: f64) -> RoundReport {
        self.value_on |= budget_used >= self.settings.value_from;
        let before = self.progress;
        let warm = self.settings.warm_start_games.saturating_sub(before.games);
        let (games, positions) = if warm > 0 {
            let games = warm.min(self.settings.games_per_phase as u64);
            (games, self.warm_start(games))
        } else {
            let games = self.settings.games_per_phase;
            (games as u64, self.expert_iteration(games))
        };
        self.progress.games += games;
        self.progress.positions += positions as u64;
        self.retrain();
        self.progress
            .since(&before, self.settings.adam.learning_rate)
    }

    /// Base MCTS against itself for `games` games, each on its own seed (drawn from the run's
    /// generator in game order) and dealt to `threads` threads; every position learned, in game
    /// order: the same data whatever the threads.
    fn warm_start(&mut self, games: u64) -> usize {
        let options = MctsOptions {
            tree_policy: TreePolicy::Uct {
                c: self.settings.warm_start_c,
            },
            ..MctsOptions::uct()
        };
        let budget = Budget::iterations(self.settings.expert_iterations);
        let seeds: Vec<u64> = (0..games).map(|_| self.rng.random()).collect();
        let initial = &self.initial;
        let played = in_order_on_threads(seeds, self.settings.threads, |seeds| {
            let play = |&seed: &u64| base_mcts_game(initial, options, &budget, seed);
            seeds.iter().map(play).collect()
        });
        let mut added = 0;
        for (inputs, outcome_p0) in played {
            added += inputs.len();
            for (input, policy) in inputs {
                self.data.push(Sample {
                    input,
                    policy,
                    value_p0: outcome_p0,
                });
            }
        }
        added
    }

    /// `games` apprentice games; one position of each searched by the expert and learned.
    fn expert_iteration(&mut self, games: usize) -> usize {
        let histories = self.apprentice_games(games);
        let evaluator = PolicyValueEvaluator::<G>::new(self.net.clone(), &self.device);
        let options = MctsOptions {
            tree_policy: TreePolicy::Exit {
                c: self.settings.c,
                w_a: self.settings.w_a,
                w_v: if self.value_on {
                    self.settings.w_v
                } else {
                    0.0
                },
            },
            ..MctsOptions::uct()
        };
        let budget = Budget::iterations(self.settings.expert_iterations);
        let searches: Vec<ExpertSearch<G>> = histories
            .iter()
            .map(|(history, outcome_p0)| ExpertSearch {
                state: history[self.rng.random_range(0..history.len())].clone(),
                outcome_p0: *outcome_p0,
                seed: self.rng.random(),
            })
            .collect();
        // §8.4.2 runs a phase's expert searches "synchronously so that their states are
        // evaluated simultaneously": all of a thread's in flight, their leaves in one call a step.
        let in_flight = searches.len().div_ceil(self.settings.threads).max(1);
        let parts = in_order_on_threads(
            searches.into_iter().enumerate().collect(),
            self.settings.threads,
            |part| {
                let mut phase = ExpertPhase {
                    searches: part.into_iter(),
                    evaluator: &evaluator,
                    options,
                    budget: budget.clone(),
                    samples: Vec::new(),
                };
                let stats = run_in_flight(in_flight, &mut phase);
                vec![(stats.positions, phase.samples)]
            },
        );
        let mut samples = Vec::with_capacity(histories.len());
        for (positions, part) in parts {
            self.progress.evaluated += positions;
            samples.extend(part);
        }
        samples.sort_by_key(|(index, _)| *index);
        for (_, sample) in samples {
            self.data.push(sample);
        }
        histories.len()
    }

    /// `games` games of the apprentice alone, all plies of all games evaluated in one batch per
    /// ply: each game's non-terminal positions and its outcome (P0's view).
    fn apprentice_games(&mut self, games: usize) -> Vec<(Vec<G>, f32)> {
        let mut positions = vec![self.initial.clone(); games];
        let mut histories: Vec<Vec<G>> = vec![Vec::new(); games];
        let (mut inputs, mut actions, mut weights) = (Vec::new(), Vec::new(), Vec::new());
        let (mut values, mut logits) = (Vec::new(), Vec::new());
        let apprentice =
            PolicyValueInference::new(self.net.clone(), G::ENCODING.dims(), &self.device);
        loop {
            let playing: Vec<usize> = (0..games)
                .filter(|&g| !positions[g].is_terminal())
                .collect();
            if playing.is_empty() {
                break;
            }
            inputs.clear();
            inputs.resize(playing.len() * G::ENCODING.len(), 0.0);
            for (k, &g) in playing.iter().enumerate() {
                positions[g]
                    .encode(&mut inputs[k * G::ENCODING.len()..(k + 1) * G::ENCODING.len()]);
            }
            values.resize(playing.len(), 0.0);
            logits.resize(playing.len() * G::NUM_ACTIONS, 0.0);
            self.progress.evaluated += playing.len() as u64;
            apprentice.predict_into(&inputs, &mut values, Some(&mut logits));
            for (k, &g) in playing.iter().enumerate() {
                let logits = &logits[k * G::NUM_ACTIONS..(k + 1) * G::NUM_ACTIONS];
                positions[g].legal_actions(&mut actions);
                let action = self.draw(logits, &actions, &mut weights);
                histories[g].push(positions[g].clone());
                positions[g].play(action);
            }
        }
        histories
            .into_iter()
            .zip(&positions)
            .map(|(h, p)| (h, p.outcome().expect("finished").value_p0()))
            .collect()
    }

    /// A move of `actions` drawn from the softmax of their logits at the apprentice's
    /// temperature (uniform when the logits are not finite).
    fn draw(&mut self, logits: &[f32], actions: &[Action], weights: &mut Vec<f64>) -> Action {
        let t = self.settings.temperature as f64;
        let max = actions
            .iter()
            .map(|&a| logits[a as usize] as f64)
            .fold(f64::NEG_INFINITY, f64::max);
        weights.clear();
        weights.extend(
            actions
                .iter()
                .map(|&a| ((logits[a as usize] as f64 - max) / t).exp()),
        );
        let total: f64 = weights.iter().sum();
        if !(total.is_finite() && total > 0.0) {
            return actions[self.rng.random_range(0..actions.len())];
        }
        let mut r = self.rng.random_range(0.0..total);
        for (&a, &w) in actions.iter().zip(weights.iter()) {
            if r < w {
                return a;
            }
            r -= w;
        }
        *actions.last().expect("a legal move")
    }

    /// A fresh network trained on all the data with early stopping; the best epoch's is kept.
    fn retrain(&mut self) {
        let start = std::time::Instant::now();
        let kind = if self.value_on {
            ValueLoss::CrossEntropy
        } else {
            ValueLoss::Off
        };
        let shape = G::ENCODING.dims();
        let seed = self.rng.random();
        let mut trainer = PolicyValueTrainer::new(
            fresh_net::<G>(&self.settings.architecture, &self.device.burn, seed),
            self.settings.adam,
            &self.device,
            shape,
        );
        trainer.value_loss = kind;
        let samples = &self.data.samples;
        let (held_out, mut training): (Vec<usize>, Vec<usize>) =
            (0..samples.len()).partition(|i| i % VALIDATION_EVERY == VALIDATION_EVERY - 1);
        let mut best = (f64::INFINITY, trainer.inference_net());
        let mut since_best = 0;
        let batch = self.settings.batch_size;
        let mut minibatch = SampleBatch::default();
        for _ in 0..self.settings.max_epochs {
            training.shuffle(&mut self.rng);
            for chunk in training.chunks(batch) {
                let (inputs, policies, values) = minibatch.fill_with_images::<G, _>(
                    chunk.iter().map(|&i| &samples[i]),
                    self.settings.augmentation,
                    &mut self.rng,
                );
                self.progress.learned += values.len() as u64;
                self.progress.last_loss = Some(trainer.step(inputs, policies, values));
                self.progress.steps += 1;
            }
            let net = trainer.inference_net();
            let loss = held_out_loss::<G>(&net, samples, &held_out, kind, &self.device);
            if loss < best.0 {
                best = (loss, net);
                since_best = 0;
            } else {
                since_best += 1;
                if since_best >= self.settings.patience {
                    break;
                }
            }
        }
        // No held-out positions yet (fewer than ten): the last epoch's network.
        self.net = if held_out.is_empty() {
            trainer.inference_net()
        } else {
            best.1
        };
        self.progress.learn_seconds += start.elapsed().as_secs_f64();
    }
}

impl<G: Game> RoundRecipe<G> for ExitTrainer<G> {
    const ROUND_KIND: &'static str = "exit_round";

    fn open(start: &RunStart<'_, G>, manifest: &NetManifest) -> anyhow::Result<(Self, RunState)> {
        let (settings, device) = (start.settings, start.device);
        let RecipeSettings::Exit(exit) = &settings.recipe else {
            anyhow::bail!("an exit run without its `exit:` settings");
        };
        anyhow::ensure!(
            settings.run.max_time.is_some() || settings.run.max_games.is_some(),
            "an exit run needs run.max_time or run.max_games (or --max-time / --max-games): exit.value_from ({}) is a share of it",
            exit.value_from
        );
        check_policy_images::<G>(exit.augmentation)?;
        let Some(dir) = start.checkpoint else {
            let trainer = ExitTrainer::new(start.initial, exit.clone(), device, None);
            return Ok((trainer, new_state(settings)));
        };
        let capacity = exit.max_positions;
        let parts = read_round_checkpoint::<G>(dir, settings, manifest, device, capacity)?;
        let resumed = ExitResumed {
            net: parts.net,
            data: parts.window,
            rng: parts.state.learner_rng.clone(),
            progress: parts.progress,
            value_on: parts.state.value_learned,
        };
        let trainer = ExitTrainer::new(start.initial, exit.clone(), device, Some(resumed));
        Ok((trainer, parts.state))
    }

    fn round(&mut self, budget_used: f64) -> RoundReport {
        ExitTrainer::round(self, budget_used)
    }

    fn net(&self) -> &PolicyValueNet {
        &self.net
    }

    fn window(&self) -> &Window {
        &self.data
    }

    fn rng(&self) -> &Xoshiro256PlusPlus {
        &self.rng
    }

    /// None: each phase trains a fresh network with a fresh Adam.
    fn optimizer_bytes(&self) -> anyhow::Result<Option<Vec<u8>>> {
        Ok(None)
    }

    fn value_on(&self) -> bool {
        self.value_on
    }

    /// The expert (`exit:`) with the constants after the warm start, `w_v` once the value is on.
    fn evaluation_search(&self, budget: Budget) -> (String, SearchSpec) {
        let s = &self.settings;
        let w_v = if self.value_on { s.w_v } else { 0.0 };
        let name = format!(
            "exit:model=<current>,{},c={},w_a={},w_v={w_v}",
            budget_text(&budget),
            s.c,
            s.w_a
        );
        let options = MctsOptions {
            tree_policy: TreePolicy::Exit {
                c: s.c,
                w_a: s.w_a,
                w_v,
            },
            ..MctsOptions::uct()
        };
        (name, SearchSpec::Mcts { budget, options })
    }
}

/// A freshly initialised policy-value network for `G`.
fn fresh_net<G: Game>(architecture: &Architecture, device: &Device, seed: u64) -> PolicyValueNet {
    PolicyValueNet::seeded(
        architecture,
        G::ENCODING.dims(),
        G::NUM_ACTIONS,
        device,
        seed,
    )
}

/// Held-out positions evaluated per network call.
const HELD_OUT_BATCH: usize = 256;

/// The mean loss of `net` on the samples `indices`: policy cross-entropy plus the value loss
/// `kind` (the trainer's own loss), the network run on `device`'s inference engine.
fn held_out_loss<G: Game>(
    net: &PolicyValueNet,
    samples: &std::collections::VecDeque<Sample>,
    indices: &[usize],
    kind: ValueLoss,
    device: &NetDevice,
) -> f64 {
    let inference = PolicyValueInference::new(net.clone(), G::ENCODING.dims(), device);
    let mut batch = SampleBatch::default();
    let (mut values, mut logits) = (Vec::new(), Vec::new());
    let mut sum = 0.0;
    for part in indices.chunks(HELD_OUT_BATCH) {
        let (inputs, policies, outcomes) = batch.fill(part.iter().map(|&i| &samples[i]));
        values.resize(part.len(), 0.0);
        logits.resize(part.len() * G::NUM_ACTIONS, 0.0);
        inference.predict_into(inputs, &mut values, Some(&mut logits));
        let loss = mean_losses((&values, &logits), (outcomes, policies), kind);
        let mean = f64::from(loss.value) + f64::from(loss.policy_cross_entropy);
        sum += mean * part.len() as f64;
    }
    sum / indices.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::ConnectFour;
    use crate::learn::augment::Augmentation;
    use crate::value::AdamSettings;

    fn settings() -> ExitSettings {
        ExitSettings {
            architecture: "resnet-b0c8-fc16".parse().unwrap(),
            expert_iterations: 60,
            warm_start_games: 4,
            warm_start_c: 0.25,
            c: 0.05,
            w_a: 100.0,
            w_v: 0.75,
            temperature: 0.1,
            games_per_phase: 4,
            batch_size: 32,
            patience: 2,
            max_epochs: 5,
            value_from: 0.5,
            max_positions: 10_000,
            adam: AdamSettings::default(),
            augmentation: Augmentation::One,
            threads: 1,
            seed: 3,
        }
    }

    /// Two threads learn what one learns: the warm start's games (each on its own seed) and a
    /// phase's expert searches (each on its own seed, its leaves evaluated alone or beside
    /// others) give the same samples in the same order, and the same network after them.
    #[test]
    fn two_threads_learn_what_one_learns() {
        let initial = ConnectFour::new(&Default::default());
        let run = |threads: usize| {
            let settings = ExitSettings {
                threads,
                warm_start_games: 5,
                games_per_phase: 5,
                ..settings()
            };
            let mut trainer =
                ExitTrainer::<ConnectFour>::new(&initial, settings, &NetDevice::cpu(), None);
            let (warm, expert) = (trainer.round(0.0), trainer.round(0.6));
            (
                trainer.data.samples,
                warm.positions,
                expert.evaluated_positions,
                expert.loss,
            )
        };
        let (one, two) = (run(1), run(2));
        assert_eq!(one.0.len(), two.0.len());
        assert!(one.0.len() as u64 == one.1 + 5, "{} samples", one.0.len());
        for (i, (a, b)) in one.0.iter().zip(&two.0).enumerate() {
            assert_eq!(
                a,
                b,
                "sample {i} of {} ({} of the warm start)",
                one.0.len(),
                one.1
            );
        }
        assert_eq!(one.2, two.2, "positions the expert phase evaluated");
        assert_eq!(one.3, two.3, "the retrained network's loss");
    }

    /// The warm start learns every position of base-MCTS games with its visit distribution;
    /// an expert phase learns exactly one position per apprentice game, a distribution over
    /// legal moves; the value joins at `value_from`.
    #[test]
    fn phases_learn_what_algorithm_15_says() {
        let initial = ConnectFour::new(&Default::default());
        let mut trainer =
            ExitTrainer::<ConnectFour>::new(&initial, settings(), &NetDevice::cpu(), None);
        let warm = trainer.round(0.0);
        assert_eq!(warm.games, 4);
        assert!(warm.positions >= 4 * 7, "{warm:?}");
        assert_eq!(trainer.data.samples.len() as u64, warm.positions);
        assert!(warm.steps > 0 && !trainer.value_on());
        for sample in &trainer.data.samples {
            let total: f32 = sample.policy.iter().sum();
            assert!((total - 1.0).abs() < 1e-4, "{:?}", sample.policy);
            assert!([-1.0, 0.0, 1.0].contains(&sample.value_p0));
        }
        let expert = trainer.round(0.6);
        assert_eq!((expert.games, expert.positions), (4, 4));
        assert!(trainer.value_on());
        assert_eq!(trainer.data.samples.len() as u64, warm.positions + 4);
        assert_eq!(trainer.progress.games, 8);
        // The expert's targets: visits of the searched position's legal moves only.
        for sample in trainer.data.samples.iter().skip(warm.positions as usize) {
            let total: f32 = sample.policy.iter().sum();
            assert!((total - 1.0).abs() < 1e-4, "{:?}", sample.policy);
        }
        assert!(expert.loss.is_some_and(|l| l.value > 0.0), "{expert:?}");
    }

    /// The retrained apprentice imitates the warm start's MCTS: on tic-tac-toe the excess of
    /// its policy cross-entropy over the targets' own entropy (their KL divergence) falls to
    /// well under a fresh network's.
    #[test]
    fn the_apprentice_learns_the_experts_visit_distributions() {
        use crate::games::TicTacToe;
        let initial = TicTacToe::new(&Default::default());
        let settings = ExitSettings {
            expert_iterations: 200,
            warm_start_games: 40,
            games_per_phase: 40,
            max_epochs: 60,
            patience: 10,
            batch_size: 16,
            adam: AdamSettings {
                learning_rate: 0.01,
                ..AdamSettings::default()
            },
            ..settings()
        };
        let device = NetDevice::cpu();
        let mut trainer = ExitTrainer::<TicTacToe>::new(&initial, settings, &device, None);
        let fresh = fresh_net::<TicTacToe>(&trainer.settings.architecture, &device.burn, 1);
        trainer.round(0.0);
        let indices: Vec<usize> = (0..trainer.data.samples.len()).collect();
        let loss = |net: &PolicyValueNet| {
            held_out_loss::<TicTacToe>(
                net,
                &trainer.data.samples,
                &indices,
                ValueLoss::Off,
                &device,
            )
        };
        let entropy: f64 = trainer
            .data
            .samples
            .iter()
            .map(|s| {
                let h = s.policy.iter().filter(|&&p| p > 0.0);
                -h.map(|&p| p as f64 * (p as f64).ln()).sum::<f64>()
            })
            .sum::<f64>()
            / indices.len() as f64;
        let (before, after) = (loss(&fresh) - entropy, loss(trainer.net()) - entropy);
        assert!(after < 0.7 * before, "KL {before} -> {after}");
    }

    /// The apprentice's draw follows the softmax at temperature 0.1: a logit 0.2 above the
    /// others is drawn e² ≈ 7.4 times as often as each of them.
    #[test]
    fn the_apprentice_draws_from_its_tempered_softmax() {
        let initial = ConnectFour::new(&Default::default());
        let mut trainer =
            ExitTrainer::<ConnectFour>::new(&initial, settings(), &NetDevice::cpu(), None);
        let mut logits = vec![0.0f32; 7];
        logits[3] = 0.2;
        let actions: Vec<Action> = (0..7).collect();
        let mut weights = Vec::new();
        let mut counts = [0u32; 7];
        for _ in 0..20_000 {
            counts[trainer.draw(&logits, &actions, &mut weights) as usize] += 1;
        }
        let expected = 20_000.0 * 7.389 / (7.389 + 6.0);
        assert!((counts[3] as f64 - expected).abs() < 300.0, "{counts:?}");
    }
}
