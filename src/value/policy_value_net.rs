//! The policy-value network of AlphaZero and ExIt: the value network's trunk and value head, and
//! beside the value head a policy head as the Athénan paper's §8.4.2 describes ExIt's — a 1×1
//! convolution with one filter, then a dense layer with one output per action id (the logits;
//! the softmax is taken over the legal actions by whoever reads them).
//!
//! `PolicyValueTrainer`: Adam on `(v − z)² − Σ_a π(a) log p(a) + λ Σ‖W‖²` (value MSE, policy
//! cross-entropy over all action ids, the L2 penalty on every kernel as the value network's),
//! on the device's training engine as the value network's: on `descent-cpu` the direct CPU step
//! (`CpuTrainer::with_policy`), elsewhere burn's autodiff (the reference it is tested against).

use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{Linear, LinearConfig};
use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::prelude::*;
use burn::tensor::activation::log_softmax;

use super::architecture::Architecture;
use super::device::NetDevice;
use super::direct::cpu_training::CpuTrainer;
use super::initial_weights::drawn;
use super::net_optimizer::{AdamSettings, new_optimizer};
use super::network::{ValueNet, encoded_batch};

/// A value network with a policy head.
#[derive(Module, Debug)]
pub struct PolicyValueNet {
    pub value: ValueNet,
    /// 1×1 convolution, the trunk's filters → 1.
    pub policy_conv: Conv2d,
    /// rows·cols → one logit per action id.
    pub policy_out: Linear,
}

impl PolicyValueNet {
    /// A freshly initialised network for inputs of shape `[planes, rows, cols]` and
    /// `num_actions` action ids; the value output is tanh (the classic gain, as AlphaZero's).
    pub fn new(
        architecture: &Architecture,
        shape: [usize; 3],
        num_actions: usize,
        device: &Device,
    ) -> PolicyValueNet {
        drawn(device, None, || {
            Self::layers(architecture, shape, num_actions, device)
        })
    }

    /// `new`'s network with its weights drawn from `seed`: the same network for the same seed.
    pub fn seeded(
        architecture: &Architecture,
        shape: [usize; 3],
        num_actions: usize,
        device: &Device,
        seed: u64,
    ) -> PolicyValueNet {
        drawn(device, Some(seed), || {
            Self::layers(architecture, shape, num_actions, device)
        })
    }

    fn layers(
        architecture: &Architecture,
        shape: [usize; 3],
        num_actions: usize,
        device: &Device,
    ) -> PolicyValueNet {
        let [_, rows, cols] = shape;
        let (filters, _) = architecture.conv_shape();
        PolicyValueNet {
            value: ValueNet::layers(architecture, shape, true, device),
            policy_conv: Conv2dConfig::new([filters, 1], [1, 1]).init(device),
            policy_out: LinearConfig::new(rows * cols, num_actions).init(device),
        }
    }

    /// `[batch, planes, rows, cols]` → (values `[batch, 1]` from P0's view, policy logits
    /// `[batch, num_actions]` for the player to move).
    ///
    /// The policy head is the paper's "convolutional 1×1 layer with 1 filter followed by a
    /// final dense layer" (§8.4.2) with no activation between them: a ReLU on its one channel
    /// can be dead for every position of a fresh network, and its policy then never learns
    /// (3 of 8 fresh tic-tac-toe apprentices stayed uniform in `selfplay::recipes::exit`'s test).
    pub fn forward(&self, x: Tensor<4>) -> (Tensor<2>, Tensor<2>) {
        let h = self.value.trunk(x);
        let policy = self.policy_conv.forward(h.clone()).flatten(1, 3);
        (self.value.value_head(h), self.policy_out.forward(policy))
    }

    /// The number of action ids of the policy head.
    pub fn num_actions(&self) -> usize {
        self.policy_out.weight.dims()[1]
    }

    /// The first weight or bias that is not a finite number, if any.
    pub fn non_finite_parameter(&self) -> Option<f32> {
        let head = [
            self.policy_conv.weight.val().flatten::<1>(0, 3),
            self.policy_out.weight.val().flatten::<1>(0, 1),
        ];
        let biases = [&self.policy_conv.bias, &self.policy_out.bias]
            .into_iter()
            .flatten()
            .map(|b| b.val());
        self.value.non_finite_parameter().or_else(|| {
            head.into_iter()
                .chain(biases)
                .flat_map(|t| t.into_data().try_into_vec::<f32>().unwrap_or_default())
                .find(|v| !v.is_finite())
        })
    }

    /// Σ‖W‖² over every kernel of both heads and the trunk (biases left out).
    pub fn kernel_square_sum(&self) -> Tensor<1> {
        self.value.kernel_square_sum()
            + self.policy_conv.weight.val().square().sum()
            + self.policy_out.weight.val().square().sum()
    }

    /// Values (P0's view) and logits of `batch` encoded positions laid out in `inputs`:
    /// `(values[batch], logits[batch · num_actions])`.
    pub fn predict(
        &self,
        inputs: Vec<f32>,
        batch: usize,
        shape: [usize; 3],
        device: &Device,
    ) -> (Vec<f32>, Vec<f32>) {
        let (values, logits) = self.forward(encoded_batch(inputs, batch, shape, device));
        let read = |t: Tensor<2>| t.into_data().try_into_vec::<f32>().expect("f32 outputs");
        (read(values), read(logits))
    }
}

/// The losses of one step, before it (means over the minibatch).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolicyValueLoss {
    /// The value loss of the trainer's `ValueLoss` (0 when it is off).
    pub value: f32,
    pub policy_cross_entropy: f32,
}

/// How the value head learns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ValueLoss {
    /// `(v − z)²` (AlphaZero).
    #[default]
    Mse,
    /// ExIt's "KL loss" `−z' log v' − (1 − z') log(1 − v')` with `v' = (v + 1) / 2` and
    /// `z' = (z + 1) / 2` in [0, 1] (paper §8.1), `v'` kept within [1e-6, 1 − 1e-6].
    CrossEntropy,
    /// Not learned (ExIt before its value joins).
    Off,
}

/// The smallest probability the value cross-entropy takes the log of.
pub const VALUE_EPSILON: f32 = 1e-6;

/// The mean losses of a batch's outputs — values `v` and policy `logits` — against outcomes
/// `z` (P0's view) and policy targets `pi` (over every action id): the value loss `kind` and
/// the policy cross-entropy. What the trainer minimises (before L2) and what ExIt's early
/// stopping measures on held-out positions.
fn mean_losses(
    v: Tensor<2>,
    logits: Tensor<2>,
    z: Tensor<2>,
    pi: Tensor<2>,
    kind: ValueLoss,
) -> (Tensor<1>, Tensor<1>) {
    let value = match kind {
        ValueLoss::Mse => (v - z).square().mean(),
        ValueLoss::CrossEntropy => {
            let p = ((v + 1.0) / 2.0).clamp(VALUE_EPSILON, 1.0 - VALUE_EPSILON);
            let t = (z + 1.0) / 2.0;
            let one = |t: &Tensor<2>| t.ones_like();
            let q = one(&p) - p.clone();
            let u = one(&t) - t.clone();
            (t * p.log() + u * q.log()).mean().neg()
        }
        ValueLoss::Off => (v * 0.0).mean(),
    };
    let cross_entropy = (pi * log_softmax(logits, 1)).sum_dim(1).mean().neg();
    (value, cross_entropy)
}

/// A batch of `values.len()` positions as tensors on `device`: the encoded inputs, the outcomes
/// `[batch, 1]` and the policy targets `[batch, actions]`.
fn batch_tensors(
    inputs: &[f32],
    policies: &[f32],
    values: &[f32],
    shape: [usize; 3],
    device: &Device,
) -> (Tensor<4>, Tensor<2>, Tensor<2>) {
    let batch = values.len();
    let [planes, rows, cols] = shape;
    let num_actions = policies.len() / batch.max(1);
    assert_eq!(inputs.len(), batch * planes * rows * cols, "inputs");
    assert_eq!(policies.len(), batch * num_actions, "policies");
    let x = encoded_batch(inputs.to_vec(), batch, shape, device);
    let z = Tensor::<2>::from_data(TensorData::new(values.to_vec(), [batch, 1]), device);
    let pi = Tensor::<2>::from_data(
        TensorData::new(policies.to_vec(), [batch, num_actions]),
        device,
    );
    (x, z, pi)
}

/// The first element of a one-element tensor.
fn scalar(t: &Tensor<1>) -> f32 {
    t.clone().into_data().try_into_vec::<f32>().expect("f32")[0]
}

impl PolicyValueNet {
    /// The mean losses of this network on a batch (as `PolicyValueTrainer::step` reports them,
    /// without a step): the value loss `kind` and the policy cross-entropy.
    pub fn losses(
        &self,
        batch: (&[f32], &[f32], &[f32]),
        shape: [usize; 3],
        kind: ValueLoss,
        device: &Device,
    ) -> PolicyValueLoss {
        let (value, cross_entropy) = self.loss_tensors(batch, shape, kind, device);
        PolicyValueLoss {
            value: scalar(&value),
            policy_cross_entropy: scalar(&cross_entropy),
        }
    }

    /// The losses of `losses` as burn's one-element tensors (on an autodiff `device`, what the
    /// gradients of the reference step are taken of).
    pub fn loss_tensors(
        &self,
        (inputs, policies, values): (&[f32], &[f32], &[f32]),
        shape: [usize; 3],
        kind: ValueLoss,
        device: &Device,
    ) -> (Tensor<1>, Tensor<1>) {
        let (x, z, pi) = batch_tensors(inputs, policies, values, shape, device);
        let (v, logits) = self.forward(x);
        mean_losses(v, logits, z, pi, kind)
    }
}

/// A policy-value network being trained, with its Adam state.
pub struct PolicyValueTrainer {
    engine: Engine,
    shape: [usize; 3],
    /// How the value head learns (default MSE).
    pub value_loss: ValueLoss,
    /// The settings as configured: the schedule `set_progress` reads.
    settings: AdamSettings,
}

/// Who computes the step.
enum Engine {
    /// burn's autodiff and optimiser, on any backend.
    Burn(Box<BurnStep>),
    /// The direct CPU step, on device `descent-cpu`.
    Direct(Box<CpuTrainer>),
}

/// The network on burn's autodiff device with burn's optimiser.
struct BurnStep {
    model: PolicyValueNet,
    optimizer: ModuleOptimizer,
    settings: AdamSettings,
    device: Device,
}

impl PolicyValueTrainer {
    /// Starts training `net` on `device`: the direct CPU step where `device.direct_training`,
    /// else burn on `device.burn`'s autodiff twin.
    pub fn new(
        net: PolicyValueNet,
        settings: AdamSettings,
        device: &NetDevice,
        shape: [usize; 3],
    ) -> PolicyValueTrainer {
        let engine = if device.direct_training {
            Engine::Direct(Box::new(CpuTrainer::with_policy(net, settings, shape)))
        } else {
            let device = device.burn.clone().autodiff();
            Engine::Burn(Box::new(BurnStep {
                model: net.fork(&device).train(),
                optimizer: new_optimizer(&settings),
                settings,
                device,
            }))
        };
        PolicyValueTrainer {
            engine,
            shape,
            value_loss: ValueLoss::Mse,
            settings,
        }
    }

    /// Sets the step size for `progress` ∈ [0, 1] of the run's budget
    /// (`AdamSettings::learning_rate_at`); returns it.
    pub fn set_progress(&mut self, progress: f64) -> f64 {
        let learning_rate = self.settings.learning_rate_at(progress);
        match &mut self.engine {
            Engine::Direct(trainer) => trainer.set_learning_rate(learning_rate),
            Engine::Burn(step) => step.settings.learning_rate = learning_rate,
        }
        learning_rate
    }

    /// One Adam step on `values.len()` positions: `inputs` encoded, `policies` the target
    /// distributions over the action ids (`num_actions` each), `values` the outcomes (P0's
    /// view). Returns the losses before the step.
    pub fn step(&mut self, inputs: &[f32], policies: &[f32], values: &[f32]) -> PolicyValueLoss {
        match &mut self.engine {
            Engine::Direct(trainer) => {
                trainer.step_policy_value(inputs, policies, values, self.value_loss)
            }
            Engine::Burn(step) => step.step(inputs, policies, values, self.shape, self.value_loss),
        }
    }

    /// A copy of the current weights for inference (on the plain device).
    pub fn inference_net(&self) -> PolicyValueNet {
        match &self.engine {
            Engine::Direct(trainer) => trainer.inference_policy_value_net(),
            Engine::Burn(step) => step.model.valid(),
        }
    }

    /// Adam's state, to checkpoint (burn's optimiser-state format on either engine).
    ///
    /// # Errors
    /// The state cannot be serialised.
    pub fn optimizer_bytes(&self) -> anyhow::Result<Vec<u8>> {
        match &self.engine {
            Engine::Direct(trainer) => trainer.optimizer_bytes(),
            Engine::Burn(step) => Ok(step
                .optimizer
                .into_bytes()
                .map_err(|e| anyhow::anyhow!("cannot serialise the optimiser state: {e:?}"))?
                .to_vec()),
        }
    }

    /// Restores Adam's state saved by `optimizer_bytes` (by either engine).
    ///
    /// # Errors
    /// Bytes that are not an optimiser state.
    pub fn load_optimizer_bytes(&mut self, bytes: Vec<u8>) -> anyhow::Result<()> {
        match &mut self.engine {
            Engine::Direct(trainer) => trainer.load_optimizer_bytes(bytes),
            Engine::Burn(step) => {
                step.optimizer = new_optimizer(&step.settings)
                    .from_bytes(burn::tensor::Bytes::from_bytes_vec(bytes))
                    .map_err(|e| anyhow::anyhow!("not an optimiser state: {e:?}"))?;
                Ok(())
            }
        }
    }
}

impl BurnStep {
    fn step(
        &mut self,
        inputs: &[f32],
        policies: &[f32],
        values: &[f32],
        shape: [usize; 3],
        kind: ValueLoss,
    ) -> PolicyValueLoss {
        let (x, z, pi) = batch_tensors(inputs, policies, values, shape, &self.device);
        let (v, logits) = self.model.forward(x);
        let (value_loss, cross_entropy) = mean_losses(v, logits, z, pi, kind);
        let loss = PolicyValueLoss {
            value: scalar(&value_loss),
            policy_cross_entropy: scalar(&cross_entropy),
        };
        let mut objective = value_loss + cross_entropy;
        if self.settings.l2 > 0.0 {
            objective = objective + self.model.kernel_square_sum().mul_scalar(self.settings.l2);
        }
        let grads = GradientsParams::from_grads(objective.backward(), &self.model);
        self.model = self
            .optimizer
            .step(self.settings.learning_rate, self.model.clone(), grads);
        loss
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both training engines: burn's autodiff (the reference) and the direct CPU step.
    fn engines() -> [NetDevice; 2] {
        [NetDevice::burn(Device::flex()), NetDevice::cpu()]
    }

    /// The value loss `kind` of values `v` and outcomes `z` (P0's view), by hand in f64: the
    /// oracle the tensor version is checked against.
    fn value_loss(kind: ValueLoss, v: &[f32], z: &[f32]) -> f64 {
        let per = |(&v, &z): (&f32, &f32)| -> f64 {
            match kind {
                ValueLoss::Mse => f64::from((v - z) * (v - z)),
                ValueLoss::CrossEntropy => {
                    let p = ((v + 1.0) / 2.0).clamp(VALUE_EPSILON, 1.0 - VALUE_EPSILON) as f64;
                    let t = ((z + 1.0) / 2.0) as f64;
                    -t * p.ln() - (1.0 - t) * (1.0 - p).ln()
                }
                ValueLoss::Off => 0.0,
            }
        };
        v.iter().zip(z).map(per).sum::<f64>() / v.len().max(1) as f64
    }

    /// The cross-entropy the step reports is −Σ π log softmax(logits), by hand; and steps on
    /// one position move the policy toward its target and the value toward its outcome.
    #[test]
    fn the_step_minimises_the_value_error_and_the_policy_cross_entropy() {
        for engine in engines() {
            the_step_minimises_the_value_error_and_the_policy_cross_entropy_on(&engine);
        }
    }

    fn the_step_minimises_the_value_error_and_the_policy_cross_entropy_on(engine: &NetDevice) {
        let device = Device::flex();
        let architecture: Architecture = "resnet-b0c8-fc16".parse().unwrap();
        let shape = [2, 3, 3];
        let net = PolicyValueNet::new(&architecture, shape, 9, &device);
        let inputs: Vec<f32> = (0..18).map(|i| ((i * 7) % 5) as f32 / 4.0).collect();
        let (_, logits) = net.predict(inputs.clone(), 1, shape, &device);
        let mut target = vec![0.0f32; 9];
        target[4] = 0.75;
        target[0] = 0.25;
        let log_sum = logits.iter().map(|l| l.exp()).sum::<f32>().ln();
        let by_hand: f32 = -target
            .iter()
            .zip(&logits)
            .map(|(p, l)| p * (l - log_sum))
            .sum::<f32>();
        let settings = AdamSettings {
            learning_rate: 0.01,
            l2: 0.0,
            ..AdamSettings::default()
        };
        let mut trainer = PolicyValueTrainer::new(net, settings, engine, shape);
        let first = trainer.step(&inputs, &target, &[0.5]);
        assert!(
            (first.policy_cross_entropy - by_hand).abs() < 1e-4,
            "{} vs {by_hand}",
            first.policy_cross_entropy
        );
        let mut last = first;
        // The logits of the seven actions without target mass fall slowly (about 500 steps to
        // within 0.05 of the floor from a typical start); 1 000 steps leave a margin.
        for _ in 0..1000 {
            last = trainer.step(&inputs, &target, &[0.5]);
        }
        // The cross-entropy's floor is the target's entropy, 0.562.
        let entropy = -(0.75f32 * 0.75f32.ln() + 0.25 * 0.25f32.ln());
        assert!(last.policy_cross_entropy < entropy + 0.05, "{last:?}");
        assert!(last.value < 1e-3, "{last:?}");
        let (values, _) = trainer.inference_net().predict(inputs, 1, shape, &device);
        assert!((values[0] - 0.5).abs() < 0.05, "{values:?}");
    }

    /// ExIt's value loss: the step reports the cross-entropy `value_loss` computes by hand,
    /// learns the outcome's probability (z = 0.5 → v = 0.5), and with the value off reports 0
    /// and leaves the value where it was.
    #[test]
    fn the_value_cross_entropy_learns_the_outcome_and_off_leaves_the_value() {
        for engine in engines() {
            the_value_cross_entropy_learns_the_outcome_and_off_leaves_the_value_on(&engine);
        }
    }

    fn the_value_cross_entropy_learns_the_outcome_and_off_leaves_the_value_on(engine: &NetDevice) {
        let device = Device::flex();
        let architecture: Architecture = "resnet-b0c8-fc16".parse().unwrap();
        let shape = [2, 3, 3];
        let net = PolicyValueNet::new(&architecture, shape, 9, &device);
        let inputs: Vec<f32> = (0..18).map(|i| ((i * 3) % 7) as f32 / 6.0).collect();
        let target = [1.0 / 9.0; 9];
        let (v0, _) = net.predict(inputs.clone(), 1, shape, &device);
        let settings = AdamSettings {
            learning_rate: 0.01,
            l2: 0.0,
            ..AdamSettings::default()
        };
        let mut off = PolicyValueTrainer::new(net.clone(), settings, engine, shape);
        off.value_loss = ValueLoss::Off;
        for _ in 0..50 {
            assert_eq!(off.step(&inputs, &target, &[1.0]).value, 0.0);
        }
        let (v_off, _) = off
            .inference_net()
            .predict(inputs.clone(), 1, shape, &device);
        let mut trainer = PolicyValueTrainer::new(net, settings, engine, shape);
        trainer.value_loss = ValueLoss::CrossEntropy;
        let first = trainer.step(&inputs, &target, &[0.5]);
        let by_hand = value_loss(ValueLoss::CrossEntropy, &v0, &[0.5]) as f32;
        assert!(
            (first.value - by_hand).abs() < 1e-5,
            "{first:?} vs {by_hand}"
        );
        for _ in 0..500 {
            trainer.step(&inputs, &target, &[0.5]);
        }
        let (values, _) = trainer.inference_net().predict(inputs, 1, shape, &device);
        assert!((values[0] - 0.5).abs() < 0.05, "{values:?}");
        // The value head's weights are shared with nothing the policy moves but the trunk:
        // with the value off the value moved less than the learned one.
        assert!(
            (v_off[0] - v0[0]).abs() < (values[0] - v0[0]).abs(),
            "{v0:?} {v_off:?} {values:?}"
        );
    }

    /// The policy head's one channel passes negative values on: with its pre-activations all
    /// negative (a dead ReLU, as some fresh networks have), two positions with different
    /// targets are still told apart (a ReLU there left only the dense bias to learn: both
    /// positions got the same policy, cross-entropy ≥ ln 2).
    #[test]
    fn the_policy_learns_through_a_negative_channel() {
        for engine in engines() {
            the_policy_learns_through_a_negative_channel_on(&engine);
        }
    }

    fn the_policy_learns_through_a_negative_channel_on(engine: &NetDevice) {
        let device = Device::flex();
        let architecture: Architecture = "resnet-b0c8-fc16".parse().unwrap();
        let shape = [2, 3, 3];
        let mut net = PolicyValueNet::new(&architecture, shape, 9, &device);
        let bias = Tensor::<1>::full([1], -100.0, &device);
        net.policy_conv.bias = Some(burn::module::Param::from_tensor(bias));
        let mut inputs = vec![0.0f32; 36];
        inputs[0] = 1.0; // position A: a stone on the first cell of plane 0
        inputs[18 + 8] = 1.0; // position B: a stone on the last cell of plane 0
        let mut target = vec![0.0f32; 18];
        target[8] = 1.0; // A → action 8
        target[9] = 1.0; // B → action 0
        let settings = AdamSettings {
            learning_rate: 0.01,
            l2: 0.0,
            ..AdamSettings::default()
        };
        let mut trainer = PolicyValueTrainer::new(net, settings, engine, shape);
        trainer.value_loss = ValueLoss::Off;
        let mut last = None;
        for _ in 0..300 {
            last = Some(trainer.step(&inputs, &target, &[0.0, 0.0]));
        }
        let last = last.unwrap();
        assert!(last.policy_cross_entropy < 0.2, "{last:?}");
    }
}
