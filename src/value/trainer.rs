//! The update step (SPEC §6): mean squared error `(f_θ(s) - v)²`, Adam with L2 regularisation
//! (coupled weight decay, the paper's "Adam with L2"), minibatches. The trained weights reach
//! the inference copy through `inference_net` — a device copy, no disk round trip.

use burn::optim::decay::WeightDecayConfig;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::prelude::*;

use super::network::ValueNet;

/// Adam's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamSettings {
    pub learning_rate: f64,
    pub beta1: f32,
    pub beta2: f32,
    pub epsilon: f32,
    /// L2 penalty λ (0: none). The paper uses 0.001.
    pub l2: f32,
}

impl Default for AdamSettings {
    fn default() -> Self {
        AdamSettings {
            learning_rate: 1e-3,
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
            l2: 1e-3,
        }
    }
}

/// A network being trained, with its optimiser state.
pub struct Trainer {
    model: ValueNet,
    optimizer: ModuleOptimizer,
    settings: AdamSettings,
    /// The autodiff device training runs on.
    device: Device,
    shape: [usize; 3],
}

impl Trainer {
    /// Starts training `net` (moved onto `device`'s autodiff twin).
    pub fn new(
        net: ValueNet,
        settings: AdamSettings,
        device: &Device,
        shape: [usize; 3],
    ) -> Trainer {
        let device = device.clone().autodiff();
        let model = net.fork(&device).train();
        let optimizer = new_optimizer(&settings);
        Trainer {
            model,
            optimizer,
            settings,
            device,
            shape,
        }
    }

    /// One Adam step on a minibatch of `targets.len()` encoded positions; returns the MSE before
    /// the step.
    pub fn step(&mut self, inputs: Vec<f32>, targets: &[f32]) -> f32 {
        let batch = targets.len();
        let [planes, rows, cols] = self.shape;
        assert_eq!(
            inputs.len(),
            batch * planes * rows * cols,
            "inputs are not {batch} encoded positions"
        );
        let x = Tensor::<4>::from_data(
            TensorData::new(inputs, [batch, planes, rows, cols]),
            &self.device,
        );
        let y = Tensor::<2>::from_data(TensorData::new(targets.to_vec(), [batch, 1]), &self.device);
        let loss = (self.model.forward(x) - y).square().mean();
        let loss_value = loss
            .clone()
            .into_data()
            .try_into_vec::<f32>()
            .expect("scalar loss")[0];
        let grads = GradientsParams::from_grads(loss.backward(), &self.model);
        let model = self.model.clone();
        self.model = self
            .optimizer
            .step(self.settings.learning_rate, model, grads);
        loss_value
    }

    /// A copy of the current weights for inference (on the plain device).
    pub fn inference_net(&self) -> ValueNet {
        self.model.valid()
    }

    pub fn optimizer(&self) -> &ModuleOptimizer {
        &self.optimizer
    }

    /// The optimiser state (Adam's moments and step counts) as burnpack bytes.
    pub fn optimizer_bytes(&self) -> anyhow::Result<Vec<u8>> {
        let bytes = self
            .optimizer
            .into_bytes()
            .map_err(|e| anyhow::anyhow!("cannot serialise the optimiser state: {e:?}"))?;
        Ok(bytes.to_vec())
    }

    /// Restores an optimiser state saved by `optimizer_bytes`.
    pub fn load_optimizer_bytes(&mut self, bytes: Vec<u8>) -> anyhow::Result<()> {
        let fresh = new_optimizer(&self.settings);
        self.optimizer = fresh
            .from_bytes(burn::tensor::Bytes::from_bytes_vec(bytes))
            .map_err(|e| anyhow::anyhow!("not an optimiser state: {e:?}"))?;
        Ok(())
    }
}

/// Adam with coupled L2 weight decay, as configured.
fn new_optimizer(settings: &AdamSettings) -> ModuleOptimizer {
    let weight_decay = (settings.l2 > 0.0).then(|| WeightDecayConfig::new(settings.l2));
    AdamConfig::new()
        .with_beta_1(settings.beta1)
        .with_beta_2(settings.beta2)
        .with_epsilon(settings.epsilon)
        .with_weight_decay(weight_decay)
        .init()
}
