//! The policy-value network of AlphaZero and ExIt: the value network's trunk and value head, and
//! beside the value head a policy head as the Athénan paper's §8.4.2 describes ExIt's — a 1×1
//! convolution with one filter, then a dense layer with one output per action id (the logits;
//! the softmax is taken over the legal actions by whoever reads them).
//!
//! `PolicyValueTrainer`: Adam on `(v − z)² − Σ_a π(a) log p(a) + λ Σ‖W‖²` (value MSE, policy
//! cross-entropy over all action ids, the L2 penalty on every kernel as the value network's),
//! on burn's autodiff.

use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{Linear, LinearConfig};
use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::prelude::*;
use burn::tensor::activation::{log_softmax, relu};

use super::architecture::Architecture;
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
        let [_, rows, cols] = shape;
        let (filters, _) = architecture.conv_shape();
        PolicyValueNet {
            value: ValueNet::new(architecture, shape, true, device),
            policy_conv: Conv2dConfig::new([filters, 1], [1, 1]).init(device),
            policy_out: LinearConfig::new(rows * cols, num_actions).init(device),
        }
    }

    /// `[batch, planes, rows, cols]` → (values `[batch, 1]` from P0's view, policy logits
    /// `[batch, num_actions]` for the player to move).
    pub fn forward(&self, x: Tensor<4>) -> (Tensor<2>, Tensor<2>) {
        let h = self.value.trunk(x);
        let policy = relu(self.policy_conv.forward(h.clone())).flatten(1, 3);
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
    pub value_mse: f32,
    pub policy_cross_entropy: f32,
}

/// A policy-value network being trained, with its Adam state (burn's autodiff).
pub struct PolicyValueTrainer {
    model: PolicyValueNet,
    optimizer: ModuleOptimizer,
    settings: AdamSettings,
    device: Device,
    shape: [usize; 3],
}

impl PolicyValueTrainer {
    /// Starts training `net` on `device`'s autodiff twin.
    pub fn new(
        net: PolicyValueNet,
        settings: AdamSettings,
        device: &Device,
        shape: [usize; 3],
    ) -> PolicyValueTrainer {
        let device = device.clone().autodiff();
        PolicyValueTrainer {
            model: net.fork(&device).train(),
            optimizer: new_optimizer(&settings),
            settings,
            device,
            shape,
        }
    }

    /// One Adam step on `values.len()` positions: `inputs` encoded, `policies` the target
    /// distributions over the action ids (`num_actions` each), `values` the outcomes (P0's
    /// view). Returns the losses before the step.
    pub fn step(&mut self, inputs: &[f32], policies: &[f32], values: &[f32]) -> PolicyValueLoss {
        let batch = values.len();
        let [planes, rows, cols] = self.shape;
        let num_actions = policies.len() / batch.max(1);
        assert_eq!(inputs.len(), batch * planes * rows * cols, "inputs");
        assert_eq!(policies.len(), batch * num_actions, "policies");
        let device = &self.device;
        let x = encoded_batch(inputs.to_vec(), batch, self.shape, device);
        let z = Tensor::<2>::from_data(TensorData::new(values.to_vec(), [batch, 1]), device);
        let pi = Tensor::<2>::from_data(
            TensorData::new(policies.to_vec(), [batch, num_actions]),
            device,
        );
        let (v, logits) = self.model.forward(x);
        let value_mse = (v - z).square().mean();
        let cross_entropy = (pi * log_softmax(logits, 1)).sum_dim(1).mean().neg();
        let scalar = |t: &Tensor<1>| t.clone().into_data().try_into_vec::<f32>().unwrap()[0];
        let loss = PolicyValueLoss {
            value_mse: scalar(&value_mse),
            policy_cross_entropy: scalar(&cross_entropy),
        };
        let mut objective = value_mse + cross_entropy;
        if self.settings.l2 > 0.0 {
            objective = objective + self.model.kernel_square_sum().mul_scalar(self.settings.l2);
        }
        let grads = GradientsParams::from_grads(objective.backward(), &self.model);
        self.model = self
            .optimizer
            .step(self.settings.learning_rate, self.model.clone(), grads);
        loss
    }

    /// A copy of the current weights for inference (on the plain device).
    pub fn inference_net(&self) -> PolicyValueNet {
        self.model.valid()
    }

    /// Adam's state, to checkpoint.
    ///
    /// # Errors
    /// The state cannot be serialised.
    pub fn optimizer_bytes(&self) -> anyhow::Result<Vec<u8>> {
        Ok(self
            .optimizer
            .into_bytes()
            .map_err(|e| anyhow::anyhow!("cannot serialise the optimiser state: {e:?}"))?
            .to_vec())
    }

    /// Restores Adam's state saved by `optimizer_bytes`.
    ///
    /// # Errors
    /// Bytes that are not an optimiser state.
    pub fn load_optimizer_bytes(&mut self, bytes: Vec<u8>) -> anyhow::Result<()> {
        self.optimizer = new_optimizer(&self.settings)
            .from_bytes(burn::tensor::Bytes::from_bytes_vec(bytes))
            .map_err(|e| anyhow::anyhow!("not an optimiser state: {e:?}"))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cross-entropy the step reports is −Σ π log softmax(logits), by hand; and steps on
    /// one position move the policy toward its target and the value toward its outcome.
    #[test]
    fn the_step_minimises_the_value_error_and_the_policy_cross_entropy() {
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
        let mut trainer = PolicyValueTrainer::new(net, settings, &device, shape);
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
        assert!(last.value_mse < 1e-3, "{last:?}");
        let (values, _) = trainer.inference_net().predict(inputs, 1, shape, &device);
        assert!((values[0] - 0.5).abs() < 0.05, "{values:?}");
    }
}
