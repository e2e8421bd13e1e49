//! The direct CPU training step (`CpuTrainer`) against burn's autodiff and optimiser, the
//! reference: gradients on every architecture, Adam's step from the same gradients, whole
//! steps with the L2 penalty, and optimiser states carried from one engine to the other.

use burn::module::ParamId;
use burn::optim::{AdamConfig, GradientsParams};
use burn::prelude::*;
use descent::games::{Awale, AwaleParams, ConnectFour, Game, TicTacToe};
use descent::value::net_evaluator::encode_batch;
use descent::value::{
    AdamSettings, Architecture, CpuTrainer, Minibatch, MinibatchRef, MinibatchSource, NetDevice,
    NetOptimizer, ValueNet,
};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// Every kind of layer the trainer handles: the paper's CNN, plain and squeeze-excitation
/// blocks, two dense layers, the pooled head, a net without blocks.
const ARCHITECTURES: [&str; 6] = [
    "paper-cnn",
    "resnet-b2c16-fc32",
    "resnet-b1c8-fc16-fc8",
    "resnet-b2c32-se-fc16",
    "resnet-b1c32-se-gsp16-fc16",
    "resnet-b0c32-fc64",
];

/// Fresh networks are drawn from burn's generator: seeded, the tests see the same ones each run.
const SEED: u64 = 20261123;

/// burn's generator is one for the process and the tests run side by side: each test holds
/// this lock from its seeding to its end, so that its draws do not depend on the others'.
static GENERATOR: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Seeds burn's generator and keeps it for the calling test until the guard drops.
fn seeded() -> std::sync::MutexGuard<'static, ()> {
    let guard = GENERATOR
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    Device::flex().seed(SEED);
    guard
}

/// `count` encoded positions reached by random play, and random targets in (−0.9, 0.9).
fn batch<G: Game>(initial: &G, count: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut positions = Vec::new();
    let mut actions = Vec::new();
    while positions.len() < count {
        let mut p = initial.clone();
        for _ in 0..rng.random_range(0..25) {
            p.legal_actions(&mut actions);
            if actions.is_empty() {
                break;
            }
            p.play(actions[rng.random_range(0..actions.len())]);
        }
        positions.push(p);
    }
    let targets = (0..count).map(|_| rng.random_range(-0.9..0.9)).collect();
    (encode_batch(&positions), targets)
}

fn flat<const D: usize>(tensor: Tensor<D>) -> Vec<f32> {
    tensor.into_data().try_into_vec::<f32>().unwrap()
}

/// burn's gradient of the batch's MSE for each parameter (by id and shape).
fn burn_gradients(
    net: &ValueNet,
    shape: [usize; 3],
    (inputs, targets): (&[f32], &[f32]),
    parameters: &[(ParamId, Vec<usize>)],
) -> Vec<Vec<f32>> {
    let device = Device::flex().autodiff();
    let model = net.clone().fork(&device).train();
    let [planes, rows, cols] = shape;
    let batch = targets.len();
    let x = Tensor::<4>::from_data(
        TensorData::new(inputs.to_vec(), [batch, planes, rows, cols]),
        &device,
    );
    let y = Tensor::<2>::from_data(TensorData::new(targets.to_vec(), [batch, 1]), &device);
    let loss = (model.forward(x) - y).square().mean();
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    parameters
        .iter()
        .map(|(id, shape)| match shape.len() {
            1 => flat(grads.get::<1>(*id).unwrap()),
            2 => flat(grads.get::<2>(*id).unwrap()),
            4 => flat(grads.get::<4>(*id).unwrap()),
            rank => panic!("a parameter of rank {rank}"),
        })
        .collect()
}

fn max_abs(values: &[f32]) -> f32 {
    values.iter().fold(0.0, |m, v| m.max(v.abs()))
}

/// Each parameter's gradient equals burn's to 1e-5 of that parameter's largest gradient.
fn check_gradients<G: Game>(initial: &G, architecture: &str, tanh: bool, positions: usize) {
    let architecture: Architecture = architecture.parse().unwrap();
    let shape = G::ENCODING.dims();
    let net = ValueNet::new(&architecture, shape, tanh, &Device::flex());
    let (inputs, targets) = batch(initial, positions, 7);
    let mut trainer = CpuTrainer::new(net.clone(), AdamSettings::default(), shape);
    let ours = trainer.gradients(&inputs, &targets);
    let parameters = trainer.parameters();
    let reference = burn_gradients(&net, shape, (&inputs, &targets), &parameters);
    assert_eq!(ours.len(), reference.len());
    let mut nonzero = 0;
    for (p, (ours, reference)) in ours.iter().zip(&reference).enumerate() {
        assert_eq!(ours.len(), reference.len(), "parameter {p}");
        let scale = max_abs(reference);
        for (i, (a, b)) in ours.iter().zip(reference).enumerate() {
            assert!(
                (a - b).abs() <= 1e-5 * scale + 1e-9,
                "{architecture} on {}, parameter {p} {:?}, element {i}: {a} vs burn's {b} (largest {scale})",
                G::NAME,
                parameters[p].1
            );
        }
        nonzero += usize::from(scale > 1e-6);
    }
    // The comparison means something only if the gradients do.
    assert!(
        nonzero * 4 >= ours.len() * 3,
        "{architecture}: only {nonzero} of {} parameters have a gradient",
        ours.len()
    );
}

#[test]
fn gradients_equal_burns_on_every_architecture() {
    let _generator = seeded();
    let awale = Awale::new(&AwaleParams::default());
    for architecture in ARCHITECTURES {
        // 100 positions: two chunks of 50 (`cpu_training::chunking`), summed.
        check_gradients(&awale, architecture, true, 100);
    }
    check_gradients(&awale, "resnet-b1c16-se-gsp8-fc8", false, 9);
    check_gradients(
        &ConnectFour::new(&Default::default()),
        "paper-cnn",
        true,
        20,
    );
    check_gradients(
        &ConnectFour::new(&Default::default()),
        "resnet-b1c16-se-gsp8-fc8-fc8",
        false,
        20,
    );
    check_gradients(
        &TicTacToe::new(&Default::default()),
        "resnet-b2c8-se-fc8",
        true,
        16,
    );
}

/// burn's Adam step from `gradients` (of the MSE) plus the L2 penalty's 2λW on the kernels.
fn burn_adam_step(
    net: &ValueNet,
    settings: AdamSettings,
    parameters: &[(ParamId, Vec<usize>)],
    gradients: &[Vec<f32>],
) -> ValueNet {
    let device = Device::flex().autodiff();
    let model = net.clone().fork(&device).train();
    let mut optimizer = AdamConfig::new()
        .with_beta_1(settings.beta1)
        .with_beta_2(settings.beta2)
        .with_epsilon(settings.epsilon)
        .init();
    let mut grads = GradientsParams::new();
    let plain = Device::flex();
    for ((id, shape), gradient) in parameters.iter().zip(gradients) {
        let data = TensorData::new(gradient.clone(), shape.clone());
        match shape.len() {
            1 => grads.register(*id, Tensor::<1>::from_data(data, &plain)),
            2 => grads.register(*id, Tensor::<2>::from_data(data, &plain)),
            _ => grads.register(*id, Tensor::<4>::from_data(data, &plain)),
        }
    }
    optimizer.step(settings.learning_rate, model, grads).valid()
}

/// Every parameter's values, in the trainer's order.
fn weights(net: &ValueNet) -> Vec<Vec<f32>> {
    descent::value::direct::cpu_training::parameter_values(net)
}

#[test]
fn adam_steps_equal_burns_from_the_same_gradients() {
    let _generator = seeded();
    let awale = Awale::new(&AwaleParams::default());
    let shape = Awale::ENCODING.dims();
    let (inputs, targets) = batch(&awale, 40, 3);
    for architecture in ["paper-cnn", "resnet-b1c32-se-gsp16-fc16"] {
        let architecture: Architecture = architecture.parse().unwrap();
        let net = ValueNet::new(&architecture, shape, true, &Device::flex());
        let settings = AdamSettings {
            l2: 0.0,
            ..AdamSettings::default()
        };
        let mut trainer = CpuTrainer::new(net.clone(), settings, shape);
        let gradients = trainer.gradients(&inputs, &targets);
        trainer.step_with_gradients(&gradients);
        let reference = burn_adam_step(&net, settings, &trainer.parameters(), &gradients);
        let (ours, theirs) = (weights(&trainer.inference_net()), weights(&reference));
        let before = weights(&net);
        for (p, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(a, b, "{architecture}: parameter {p} after one Adam step");
        }
        // (A parameter behind ReLUs dead on every position has no gradient and stays.)
        let moved = ours.iter().zip(&before).filter(|(a, w)| a != w).count();
        assert!(
            moved * 4 >= ours.len() * 3,
            "{architecture}: {moved} parameters moved"
        );
    }
}

/// `steps` steps on `inputs` / `targets` by `engine`; the losses and the trained net.
fn train(
    net: &ValueNet,
    engine: &NetDevice,
    settings: AdamSettings,
    (inputs, targets): (&[f32], &[f32]),
    steps: usize,
) -> (Vec<f32>, ValueNet) {
    let shape = Awale::ENCODING.dims();
    let mut trainer = NetOptimizer::new(net.clone(), settings, engine, shape);
    let losses = (0..steps).map(|_| trainer.step(inputs, targets)).collect();
    (losses, trainer.inference_net())
}

#[test]
fn whole_steps_with_the_l2_penalty_follow_burns() {
    let _generator = seeded();
    let awale = Awale::new(&AwaleParams::default());
    let shape = Awale::ENCODING.dims();
    let (inputs, targets) = batch(&awale, 128, 5);
    let settings = AdamSettings {
        l2: 0.01,
        ..AdamSettings::default()
    };
    for architecture in ["paper-cnn", "resnet-b1c16-se-fc32"] {
        let net = ValueNet::new(&architecture.parse().unwrap(), shape, true, &Device::flex());
        let data = (inputs.as_slice(), targets.as_slice());
        let (ours, ours_net) = train(&net, &NetDevice::cpu(), settings, data, 5);
        let burn = NetDevice::burn(Device::flex());
        let (theirs, theirs_net) = train(&net, &burn, settings, data, 5);
        for (step, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert!(
                (a - b).abs() <= 1e-4 * b.abs(),
                "{architecture}, step {step}: loss {a} vs burn's {b}"
            );
        }
        assert!(ours[4] < ours[0], "{architecture}: {ours:?}");
        // The engines sum in different orders, and Adam's first steps magnify the rounding of
        // a gradient near zero to a full step: compare the mean difference to the mean move.
        let (start, ours_w, theirs_w) = (weights(&net), weights(&ours_net), weights(&theirs_net));
        let mean_gap = |x: &[Vec<f32>], y: &[Vec<f32>]| {
            let pairs = x.iter().flatten().zip(y.iter().flatten());
            pairs.map(|(a, b)| (a - b).abs() as f64).sum::<f64>()
                / x.iter().flatten().count() as f64
        };
        let (gap, moved) = (mean_gap(&ours_w, &theirs_w), mean_gap(&ours_w, &start));
        assert!(
            gap < 0.01 * moved,
            "{architecture}: weights differ by {gap} on average, moved {moved}"
        );
    }
}

#[test]
fn optimizer_states_carry_over_between_engines() {
    let _generator = seeded();
    let awale = Awale::new(&AwaleParams::default());
    let shape = Awale::ENCODING.dims();
    let (inputs, targets) = batch(&awale, 64, 9);
    let settings = AdamSettings::default();
    let net = ValueNet::new(
        &"resnet-b1c16-se-gsp8-fc16".parse().unwrap(),
        shape,
        true,
        &Device::flex(),
    );
    let engines = [NetDevice::cpu(), NetDevice::burn(Device::flex())];
    for (from, to) in [(0, 1), (1, 0), (0, 0)] {
        let mut first = NetOptimizer::new(net.clone(), settings, &engines[from], shape);
        for _ in 0..3 {
            first.step(&inputs, &targets);
        }
        let state = first.optimizer_bytes().unwrap();
        let mut second = NetOptimizer::new(first.inference_net(), settings, &engines[to], shape);
        second.load_optimizer_bytes(state).unwrap();
        // With its moments, the next step is the first trainer's; without them (a fresh
        // optimiser) it would be a first step, of a different size.
        let mut fresh = NetOptimizer::new(first.inference_net(), settings, &engines[to], shape);
        for trainer in [&mut first, &mut second, &mut fresh] {
            trainer.step(&inputs, &targets);
        }
        let (a, b, c) = (
            weights(&first.inference_net()),
            weights(&second.inference_net()),
            weights(&fresh.inference_net()),
        );
        let differ = |x: &[Vec<f32>], y: &[Vec<f32>]| {
            x.iter()
                .flatten()
                .zip(y.iter().flatten())
                .map(|(p, q)| (p - q).abs())
                .fold(0.0, f32::max)
        };
        let carried = differ(&a, &b);
        if from == to {
            assert_eq!(carried, 0.0, "a restored state steps identically");
        }
        assert!(carried < 2e-5, "{from} -> {to}: {carried}");
        assert!(
            differ(&a, &c) > 1e-4,
            "{from} -> {to}: a fresh state steps the same"
        );
    }
}

#[test]
fn an_optimizer_state_of_another_network_is_refused() {
    let _generator = seeded();
    let shape = Awale::ENCODING.dims();
    let settings = AdamSettings::default();
    let awale = Awale::new(&AwaleParams::default());
    let (inputs, targets) = batch(&awale, 8, 1);
    let net = |name: &str| ValueNet::new(&name.parse().unwrap(), shape, true, &Device::flex());
    let mut one = NetOptimizer::new(net("resnet-b0c8-fc8"), settings, &NetDevice::cpu(), shape);
    one.step(&inputs, &targets);
    let mut other = NetOptimizer::new(net("resnet-b0c8-fc8"), settings, &NetDevice::cpu(), shape);
    let message = other
        .load_optimizer_bytes(one.optimizer_bytes().unwrap())
        .unwrap_err()
        .to_string();
    assert!(message.contains("another network"), "{message}");
    let message = other
        .load_optimizer_bytes(b"not a burnpack".to_vec())
        .unwrap_err()
        .to_string();
    assert!(message.contains("not an optimiser state"), "{message}");
}

/// A minibatch held in reverse order, gathered position by position into the reader's scratch
/// (as a replay buffer's minibatch is gathered by each chunk's thread).
struct Reversed<'a> {
    inputs: &'a [f32],
    targets: &'a [f32],
}

impl MinibatchSource for Reversed<'_> {
    fn len(&self) -> usize {
        self.targets.len()
    }

    fn read<'a>(
        &'a self,
        range: std::ops::Range<usize>,
        scratch: &'a mut Minibatch,
    ) -> MinibatchRef<'a> {
        scratch.clear();
        let (size, last) = (self.inputs.len() / self.len(), self.len() - 1);
        for i in range {
            let at = last - i;
            scratch
                .inputs
                .extend_from_slice(&self.inputs[at * size..(at + 1) * size]);
            scratch.targets.push(self.targets[at]);
        }
        scratch.as_ref()
    }
}

#[test]
fn steps_from_a_gathered_minibatch_equal_steps_from_held_positions() {
    let _generator = seeded();
    let awale = Awale::new(&AwaleParams::default());
    let shape = Awale::ENCODING.dims();
    let (inputs, targets) = batch(&awale, 129, 9);
    let size = inputs.len() / targets.len();
    let reversed_inputs: Vec<f32> = inputs.chunks(size).rev().flatten().copied().collect();
    let reversed_targets: Vec<f32> = targets.iter().rev().copied().collect();
    let gathered = Reversed {
        inputs: &reversed_inputs,
        targets: &reversed_targets,
    };
    let net = ValueNet::new(
        &"resnet-b0c32-fc64".parse().unwrap(),
        shape,
        true,
        &Device::flex(),
    );
    for engine in [NetDevice::cpu(), NetDevice::burn(Device::flex())] {
        let settings = AdamSettings::default();
        let mut held = NetOptimizer::new(net.clone(), settings, &engine, shape);
        let mut read = NetOptimizer::new(net.clone(), settings, &engine, shape);
        for step in 0..3 {
            let (a, b) = (held.step(&inputs, &targets), read.step_from(&gathered));
            assert_eq!(a, b, "loss of step {step}");
        }
        let (a, b) = (
            weights(&held.inference_net()),
            weights(&read.inference_net()),
        );
        assert_eq!(a, b, "the same weights after three steps");
        assert_ne!(a, weights(&net), "the steps moved the weights");
    }
}
