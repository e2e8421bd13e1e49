//! The policy-value network (AlphaZero's and ExIt's) on descent's own CPU engine against burn,
//! the reference: the direct forward pass with the policy head (`CpuNet::with_policy`) gives
//! burn's values and logits, the direct step (`CpuTrainer::with_policy`) burn's gradients of
//! each value loss plus the policy cross-entropy, whole steps follow burn's, and the held-out
//! losses computed from the outputs (`policy_value_loss::mean_losses`) are burn's.

use burn::module::ParamId;
use burn::optim::GradientsParams;
use burn::prelude::*;
use descent::games::{Awale, AwaleParams, Breakthrough, ConnectFour, Game, Othello, TicTacToe};
use descent::value::net_evaluator::encode_batch;
use descent::value::policy_value_loss::mean_losses;
use descent::value::policy_value_net::{PolicyValueTrainer, ValueLoss};
use descent::value::{AdamSettings, Architecture, CpuNet, CpuTrainer, NetDevice, PolicyValueNet};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// burn's generator is one for the process: each test holds this lock from its seeding on.
static GENERATOR: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn seeded() -> std::sync::MutexGuard<'static, ()> {
    let guard = GENERATOR
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    Device::flex().seed(20261127);
    guard
}

/// `count` positions reached by random play, encoded; outcomes in (−0.9, 0.9); policy targets
/// drawn at random over the action ids (about half of them zero), each summing to 1.
struct Batch {
    inputs: Vec<f32>,
    policies: Vec<f32>,
    values: Vec<f32>,
}

fn batch<G: Game>(initial: &G, count: usize, seed: u64) -> Batch {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut positions, mut actions) = (Vec::new(), Vec::new());
    while positions.len() < count {
        let mut p = initial.clone();
        for _ in 0..rng.random_range(0..20) {
            p.legal_actions(&mut actions);
            if actions.is_empty() {
                break;
            }
            p.play(actions[rng.random_range(0..actions.len())]);
        }
        positions.push(p);
    }
    let mut policies = Vec::with_capacity(count * G::NUM_ACTIONS);
    for _ in 0..count {
        let row: Vec<f32> = (0..G::NUM_ACTIONS)
            .map(|_| {
                if rng.random_bool(0.5) {
                    rng.random_range(0.0..1.0)
                } else {
                    0.0
                }
            })
            .collect();
        let total: f32 = row.iter().sum::<f32>().max(1e-6);
        policies.extend(row.iter().map(|p| p / total));
    }
    let values = (0..count).map(|_| rng.random_range(-0.9..0.9)).collect();
    Batch {
        inputs: encode_batch(&positions),
        policies,
        values,
    }
}

fn flat<const D: usize>(tensor: Tensor<D>) -> Vec<f32> {
    tensor.into_data().try_into_vec::<f32>().unwrap()
}

fn max_abs(values: &[f32]) -> f32 {
    values.iter().fold(0.0, |m, v| m.max(v.abs()))
}

/// burn's gradient of the value loss `kind` plus the policy cross-entropy, per parameter.
fn burn_gradients(
    net: &PolicyValueNet,
    shape: [usize; 3],
    data: &Batch,
    kind: ValueLoss,
    parameters: &[(ParamId, Vec<usize>)],
) -> Vec<Vec<f32>> {
    let device = Device::flex().autodiff();
    let model = net.clone().fork(&device).train();
    let batch = (&data.inputs[..], &data.policies[..], &data.values[..]);
    let (value, cross_entropy) = model.loss_tensors(batch, shape, kind, &device);
    let grads = GradientsParams::from_grads((value + cross_entropy).backward(), &model);
    parameters
        .iter()
        .map(|(id, shape)| match shape.len() {
            1 => grads.get::<1>(*id).map(flat),
            2 => grads.get::<2>(*id).map(flat),
            4 => grads.get::<4>(*id).map(flat),
            rank => panic!("a parameter of rank {rank}"),
        })
        // A parameter the loss does not reach (the value head with the value loss off) has
        // no gradient in burn's map: zero.
        .zip(parameters)
        .map(|(g, (_, shape))| g.unwrap_or_else(|| vec![0.0; shape.iter().product()]))
        .collect()
}

/// Each parameter's gradient from the direct step equals burn's to 1e-4 of that parameter's
/// largest gradient, for every value loss; the policy head's gradients are not zero.
fn check_gradients<G: Game>(initial: &G, architecture: &str, positions: usize) {
    let architecture: Architecture = architecture.parse().unwrap();
    let shape = G::ENCODING.dims();
    let net = PolicyValueNet::new(&architecture, shape, G::NUM_ACTIONS, &Device::flex());
    let data = batch(initial, positions, 7);
    for kind in [ValueLoss::Mse, ValueLoss::CrossEntropy, ValueLoss::Off] {
        let mut trainer = CpuTrainer::with_policy(net.clone(), AdamSettings::default(), shape);
        let ours = trainer.policy_value_gradients(&data.inputs, &data.policies, &data.values, kind);
        let parameters = trainer.parameters();
        let reference = burn_gradients(&net, shape, &data, kind, &parameters);
        assert_eq!(ours.len(), reference.len());
        for (p, (ours, reference)) in ours.iter().zip(&reference).enumerate() {
            let scale = max_abs(reference);
            for (i, (a, b)) in ours.iter().zip(reference).enumerate() {
                assert!(
                    (a - b).abs() <= 1e-4 * scale + 1e-9,
                    "{architecture} on {}, {kind:?}, parameter {p} {:?}, element {i}: \
                     {a} vs burn's {b} (largest {scale})",
                    G::NAME,
                    parameters[p].1
                );
            }
        }
        // The last four parameters are the policy head's: the comparison means something.
        for (p, reference) in reference.iter().enumerate().rev().take(4) {
            assert!(max_abs(reference) > 1e-6, "{architecture}: parameter {p}");
        }
    }
}

#[test]
fn policy_value_gradients_equal_burns_for_every_value_loss() {
    let _generator = seeded();
    // 100 positions: two chunks, summed; the paper's CNN, a pooled squeeze-excitation head,
    // plain blocks, and a net whose dense layer reads the board itself.
    check_gradients(&ConnectFour::new(&Default::default()), "paper-cnn", 100);
    check_gradients(
        &Awale::new(&AwaleParams::default()),
        "resnet-b1c16-se-gsp8-fc16",
        40,
    );
    check_gradients(
        &Breakthrough::new(&Default::default()),
        "resnet-b2c16-fc32",
        20,
    );
    check_gradients(
        &Othello::<8, 1>::new(&Default::default()),
        "resnet-b0c32-fc64",
        20,
    );
}

/// The direct pass's values and logits equal burn's forward pass (1e-4 of their scale) on
/// batches of 1, 5 and 300, and the logits differ from position to position.
fn check_inference<G: Game>(initial: &G, architecture: &str) {
    let architecture: Architecture = architecture.parse().unwrap();
    let shape = G::ENCODING.dims();
    let net = PolicyValueNet::new(&architecture, shape, G::NUM_ACTIONS, &Device::flex());
    let direct = CpuNet::with_policy(&net, shape);
    assert_eq!(direct.num_actions(), G::NUM_ACTIONS);
    let data = batch(initial, 300, 3);
    for count in [1, 5, 300] {
        let inputs = &data.inputs[..count * G::ENCODING.len()];
        let (values, logits) = net.predict(inputs.to_vec(), count, shape, &Device::flex());
        let (mut ours, mut our_logits) = (vec![0.0; count], vec![0.0; count * G::NUM_ACTIONS]);
        direct.predict_with_policy_into(inputs, &mut ours, &mut our_logits);
        for (name, got, want) in [("values", &ours, &values), ("logits", &our_logits, &logits)] {
            let scale = max_abs(want).max(1e-1);
            for (i, (a, b)) in got.iter().zip(want.iter()).enumerate() {
                assert!(
                    (a - b).abs() <= 1e-4 * scale,
                    "{architecture} on {}, batch {count}, {name}[{i}]: {a} vs burn's {b}",
                    G::NAME
                );
            }
        }
        // The value-only pass gives the same values.
        let mut alone = vec![0.0; count];
        direct.predict_into(inputs, &mut alone);
        assert_eq!(alone, ours);
        if count == 300 {
            let first = &logits[..G::NUM_ACTIONS];
            let differs = logits
                .chunks(G::NUM_ACTIONS)
                .filter(|row| row.iter().zip(first).any(|(a, b)| (a - b).abs() > 1e-3))
                .count();
            assert!(differs > 100, "{architecture}: logits barely differ");
        }
    }
}

#[test]
fn the_direct_pass_with_the_policy_head_equals_burns() {
    let _generator = seeded();
    for architecture in [
        "paper-cnn",
        "resnet-b2c16-se-gsp8-fc16",
        "resnet-b0c32-fc64",
    ] {
        check_inference(&ConnectFour::new(&Default::default()), architecture);
        check_inference(&Othello::<8, 1>::new(&Default::default()), architecture);
        check_inference(&TicTacToe::new(&Default::default()), architecture);
    }
}

/// Every parameter's values, in the trainer's order.
fn weights(net: &PolicyValueNet) -> Vec<f32> {
    descent::value::direct::cpu_training::policy_value_parameter_values(net)
        .into_iter()
        .flatten()
        .collect()
}

/// Five whole steps (with the L2 penalty, ExIt's value cross-entropy) on each engine report
/// the same losses (1e-4) and leave weights that differ by under 1 % of how far they moved;
/// Adam's state saved by one engine steps on in the other.
#[test]
fn whole_policy_value_steps_follow_burns_and_their_states_carry_over() {
    let _generator = seeded();
    let initial = ConnectFour::new(&Default::default());
    let shape = ConnectFour::ENCODING.dims();
    let data = batch(&initial, 128, 11);
    let settings = AdamSettings {
        l2: 0.01,
        ..AdamSettings::default()
    };
    let net = PolicyValueNet::new(
        &"resnet-b1c16-fc32".parse().unwrap(),
        shape,
        ConnectFour::NUM_ACTIONS,
        &Device::flex(),
    );
    let engines = [NetDevice::cpu(), NetDevice::burn(Device::flex())];
    let mut trained = Vec::new();
    for engine in &engines {
        let mut trainer = PolicyValueTrainer::new(net.clone(), settings, engine, shape);
        trainer.value_loss = ValueLoss::CrossEntropy;
        let losses: Vec<_> = (0..5)
            .map(|_| trainer.step(&data.inputs, &data.policies, &data.values))
            .collect();
        trained.push((losses, trainer));
    }
    let [(ours, direct), (theirs, burn)] = &trained[..] else {
        unreachable!()
    };
    for (step, (a, b)) in ours.iter().zip(theirs).enumerate() {
        assert!(
            (a.value - b.value).abs() <= 1e-4 * b.value.abs()
                && (a.policy_cross_entropy - b.policy_cross_entropy).abs()
                    <= 1e-4 * b.policy_cross_entropy.abs(),
            "step {step}: {a:?} vs burn's {b:?}"
        );
    }
    assert!(ours[4].policy_cross_entropy < ours[0].policy_cross_entropy);
    let (start, a, b) = (
        weights(&net),
        weights(&direct.inference_net()),
        weights(&burn.inference_net()),
    );
    let mean_gap = |x: &[f32], y: &[f32]| {
        x.iter()
            .zip(y)
            .map(|(p, q)| (p - q).abs() as f64)
            .sum::<f64>()
            / x.len() as f64
    };
    let (gap, moved) = (mean_gap(&a, &b), mean_gap(&a, &start));
    assert!(gap < 0.01 * moved, "weights differ by {gap}, moved {moved}");
    for (from, to) in [(direct, &engines[1]), (burn, &engines[0])] {
        let mut next = PolicyValueTrainer::new(from.inference_net(), settings, to, shape);
        next.load_optimizer_bytes(from.optimizer_bytes().unwrap())
            .unwrap();
        next.step(&data.inputs, &data.policies, &data.values);
    }
}

/// ExIt's held-out losses from the direct pass's outputs equal burn's `PolicyValueNet::losses`.
#[test]
fn losses_from_the_outputs_equal_burns() {
    let _generator = seeded();
    let initial = Breakthrough::new(&Default::default());
    let shape = Breakthrough::ENCODING.dims();
    let actions = Breakthrough::NUM_ACTIONS;
    let net = PolicyValueNet::new(
        &"resnet-b1c16-fc32".parse().unwrap(),
        shape,
        actions,
        &Device::flex(),
    );
    let data = batch(&initial, 50, 5);
    let direct = CpuNet::with_policy(&net, shape);
    let (mut values, mut logits) = (vec![0.0; 50], vec![0.0; 50 * actions]);
    direct.predict_with_policy_into(&data.inputs, &mut values, &mut logits);
    for kind in [ValueLoss::Mse, ValueLoss::CrossEntropy, ValueLoss::Off] {
        let ours = mean_losses((&values, &logits), (&data.values, &data.policies), kind);
        let batch = (&data.inputs[..], &data.policies[..], &data.values[..]);
        let theirs = net.losses(batch, shape, kind, &Device::flex());
        assert!(
            (ours.value - theirs.value).abs() <= 1e-5 + 1e-5 * theirs.value.abs()
                && (ours.policy_cross_entropy - theirs.policy_cross_entropy).abs()
                    <= 1e-5 * theirs.policy_cross_entropy,
            "{kind:?}: {ours:?} vs burn's {theirs:?}"
        );
    }
}
