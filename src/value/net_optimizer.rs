//! `NetOptimizer`: the network being trained with its Adam state, and the update step on one
//! minibatch (docs/algorithms.md §6) — *how* the network learns. *What* it learns (targets,
//! replay, augmentation) is the `learn` layer's; *when* (a learning phase after each game) is
//! `selfplay::learner`'s.
//!
//! The update step: mean squared error `(f_θ(s) - v)²` plus the paper's L2 penalty
//! `λ Σ‖W‖²` on the kernels (TensorFlow's `kernel_regularizer=l2(λ)`: gradient 2λW on every
//! convolution and dense weight, biases untouched), Adam, minibatches. The trained weights
//! reach the inference copy through `inference_net` — a device copy, no disk round trip.

use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::prelude::*;

use super::device::NetDevice;
use super::direct::cpu_training::CpuTrainer;
use super::minibatch::{Minibatch, MinibatchSource};
use super::network::{ValueNet, encoded_batch};

/// Adam's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamSettings {
    pub learning_rate: f64,
    pub beta1: f32,
    pub beta2: f32,
    pub epsilon: f32,
    /// L2 penalty λ on the kernels, `λ Σ‖W‖²` added to the loss (0: none). The paper uses 0.001.
    pub l2: f32,
    /// The step size at the end of the run's budget, reached from `learning_rate` by cosine
    /// annealing (`None`: `learning_rate` throughout).
    pub final_learning_rate: Option<f64>,
}

impl AdamSettings {
    /// The step size at `progress` ∈ [0, 1] of the run's budget: `learning_rate` at 0, then
    /// down a half cosine to `final_learning_rate` at 1 (Loshchilov and Hutter's SGDR schedule
    /// without restarts); `learning_rate` throughout without a final rate.
    pub fn learning_rate_at(&self, progress: f64) -> f64 {
        let Some(end) = self.final_learning_rate else {
            return self.learning_rate;
        };
        let progress = if progress.is_nan() {
            0.0
        } else {
            progress.clamp(0.0, 1.0)
        };
        let cosine = 0.5 * (1.0 + (std::f64::consts::PI * progress).cos());
        end + (self.learning_rate - end) * cosine
    }
}

impl Default for AdamSettings {
    fn default() -> Self {
        AdamSettings {
            learning_rate: 1e-3,
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
            l2: 1e-3,
            final_learning_rate: None,
        }
    }
}

/// A network being trained, with its optimiser state.
pub struct NetOptimizer {
    engine: Engine,
    shape: [usize; 3],
    /// The settings as configured: the schedule `set_progress` reads.
    settings: AdamSettings,
}

/// Who computes the step.
enum Engine {
    /// burn's autodiff and optimiser, on any backend (the reference, and the GPU path).
    Burn(Box<BurnStep>),
    /// The direct CPU step (`CpuTrainer`), on device `descent-cpu`.
    Direct(Box<CpuTrainer>),
}

/// The network on burn's autodiff device with burn's optimiser.
struct BurnStep {
    model: ValueNet,
    optimizer: ModuleOptimizer,
    settings: AdamSettings,
    /// The autodiff device training runs on.
    device: Device,
}

impl NetOptimizer {
    /// Starts training `net` on `device`: the direct CPU step where `device.direct_training`,
    /// else burn on `device.burn`'s autodiff twin.
    pub fn new(
        net: ValueNet,
        settings: AdamSettings,
        device: &NetDevice,
        shape: [usize; 3],
    ) -> NetOptimizer {
        let engine = if device.direct_training {
            Engine::Direct(Box::new(CpuTrainer::new(net, settings, shape)))
        } else {
            let device = device.burn.clone().autodiff();
            Engine::Burn(Box::new(BurnStep {
                model: net.fork(&device).train(),
                optimizer: new_optimizer(&settings),
                settings,
                device,
            }))
        };
        NetOptimizer {
            engine,
            shape,
            settings,
        }
    }

    /// Sets the step size for `progress` ∈ [0, 1] of the run's budget
    /// (`AdamSettings::learning_rate_at`); returns it.
    pub fn set_progress(&mut self, progress: f64) -> f64 {
        let learning_rate = self.settings.learning_rate_at(progress);
        match &mut self.engine {
            Engine::Direct(trainer) => trainer.set_learning_rate(learning_rate),
            Engine::Burn(burn_step) => burn_step.settings.learning_rate = learning_rate,
        }
        learning_rate
    }

    /// One Adam step on a minibatch of `targets.len()` encoded positions, on the MSE plus the
    /// kernels' L2 penalty; returns the MSE before the step.
    pub fn step(&mut self, inputs: &[f32], targets: &[f32]) -> f32 {
        let batch = targets.len();
        let [planes, rows, cols] = self.shape;
        assert_eq!(
            inputs.len(),
            batch * planes * rows * cols,
            "inputs are not {batch} encoded positions"
        );
        match &mut self.engine {
            Engine::Direct(trainer) => trainer.step(inputs, targets),
            Engine::Burn(burn_step) => {
                let BurnStep {
                    model,
                    optimizer,
                    settings,
                    device,
                } = &mut **burn_step;
                let x = encoded_batch(inputs.to_vec(), batch, self.shape, device);
                let y =
                    Tensor::<2>::from_data(TensorData::new(targets.to_vec(), [batch, 1]), &*device);
                let loss = (model.forward(x) - y).square().mean();
                let loss_value = loss
                    .clone()
                    .into_data()
                    .try_into_vec::<f32>()
                    .expect("scalar loss")[0];
                let objective = if settings.l2 > 0.0 {
                    loss + model.kernel_square_sum().mul_scalar(settings.l2)
                } else {
                    loss
                };
                let grads = GradientsParams::from_grads(objective.backward(), &*model);
                *model = optimizer.step(settings.learning_rate, model.clone(), grads);
                loss_value
            }
        }
    }

    /// `step` on a minibatch read where it lies: by each chunk's thread on the direct CPU
    /// step (no copy beforehand, no pause of its threads between steps), copied out first on
    /// burn's engines.
    pub fn step_from(&mut self, minibatch: &dyn MinibatchSource) -> f32 {
        match &mut self.engine {
            Engine::Direct(trainer) => trainer.step_from(minibatch),
            Engine::Burn(_) => {
                let mut held = Minibatch::default();
                let positions = minibatch.read(0..minibatch.len(), &mut held);
                self.step(positions.inputs, positions.targets)
            }
        }
    }

    /// Runs `steps` (a learning phase: `step` after `step`) where they run best. The direct CPU
    /// step runs inside rayon's pool, so that its threads are not woken from outside for every
    /// step (one hand-off per phase, not one per step); burn's engines run on this thread.
    pub fn run_steps<R: Send>(&mut self, steps: impl FnOnce(&mut NetOptimizer) -> R + Send) -> R {
        match self.engine {
            Engine::Direct(_) => crate::value::direct::cpu_training::in_pool(|| steps(self)),
            Engine::Burn(_) => steps(self),
        }
    }

    /// A copy of the current weights for inference (on the plain device).
    pub fn inference_net(&self) -> ValueNet {
        match &self.engine {
            Engine::Direct(trainer) => trainer.inference_net(),
            Engine::Burn(burn_step) => burn_step.model.valid(),
        }
    }

    /// The optimiser state (Adam's moments and step counts) as burnpack bytes, in burn's
    /// optimiser-state format whichever engine trains.
    ///
    /// # Errors
    /// The optimiser state cannot be serialised.
    pub fn optimizer_bytes(&self) -> anyhow::Result<Vec<u8>> {
        match &self.engine {
            Engine::Direct(trainer) => trainer.optimizer_bytes(),
            Engine::Burn(burn_step) => {
                let bytes = burn_step
                    .optimizer
                    .into_bytes()
                    .map_err(|e| anyhow::anyhow!("cannot serialise the optimiser state: {e:?}"))?;
                Ok(bytes.to_vec())
            }
        }
    }

    /// Restores an optimiser state saved by `optimizer_bytes` (by either engine).
    ///
    /// # Errors
    /// Bytes that are not an optimiser state of this network.
    pub fn load_optimizer_bytes(&mut self, bytes: Vec<u8>) -> anyhow::Result<()> {
        match &mut self.engine {
            Engine::Direct(trainer) => trainer.load_optimizer_bytes(bytes),
            Engine::Burn(burn_step) => {
                burn_step.optimizer = new_optimizer(&burn_step.settings)
                    .from_bytes(burn::tensor::Bytes::from_bytes_vec(bytes))
                    .map_err(|e| anyhow::anyhow!("not an optimiser state: {e:?}"))?;
                Ok(())
            }
        }
    }
}

/// Adam as configured (the L2 penalty is in the loss, not a weight decay).
pub(super) fn new_optimizer(settings: &AdamSettings) -> ModuleOptimizer {
    AdamConfig::new()
        .with_beta_1(settings.beta1)
        .with_beta_2(settings.beta2)
        .with_epsilon(settings.epsilon)
        .init()
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::module::Param;

    fn values<const D: usize>(param: &Param<Tensor<D>>) -> Vec<f32> {
        param.val().into_data().try_into_vec::<f32>().unwrap()
    }

    /// Every kernel's and every bias's values, in a fixed order.
    fn kernels_and_biases(net: &ValueNet) -> (Vec<f32>, Vec<f32>) {
        let (mut kernels, mut biases) = (Vec::new(), Vec::new());
        let mut convs: Vec<&burn::nn::conv::Conv2d> = net.convs.iter().collect();
        for block in &net.blocks {
            convs.extend([&block.c1, &block.c2]);
            if let Some(se) = &block.se {
                convs.extend([&se.squeeze, &se.excite]);
            }
        }
        convs.extend(net.head.iter());
        for conv in convs {
            kernels.extend(values(&conv.weight));
            biases.extend(conv.bias.as_ref().map(values).unwrap_or_default());
        }
        for linear in net.dense.iter().chain([&net.out]) {
            kernels.extend(values(&linear.weight));
            biases.extend(linear.bias.as_ref().map(values).unwrap_or_default());
        }
        (kernels, biases)
    }

    #[test]
    fn the_l2_penalty_is_on_the_kernels_only() {
        let device = Device::flex();
        let shape = [3, 3, 3];
        let architecture = "resnet-b1c16-se-gsp4-fc8".parse().unwrap();
        let net = ValueNet::new(&architecture, shape, true, &device);
        let (kernels, biases) = kernels_and_biases(&net);
        let expected: f64 = kernels.iter().map(|&w| (w as f64).powi(2)).sum();
        let penalty = net
            .kernel_square_sum()
            .into_data()
            .try_into_vec::<f32>()
            .unwrap()[0];
        assert!(
            (penalty as f64 - expected).abs() < 1e-4 * expected,
            "{penalty} vs {expected}"
        );
        assert!(
            biases.iter().any(|&b| b != 0.0),
            "biases that weight decay would move"
        );

        // One step on the same minibatch with and without the penalty: the biases move the
        // same way (the penalty does not touch them), the kernels do not.
        let inputs: Vec<f32> = (0..4 * 27).map(|i| ((i * 7) % 5) as f32 / 4.0).collect();
        let targets = [0.5, -0.25, 0.0, 0.75];
        let stepped = |l2: f32| {
            let settings = AdamSettings {
                l2,
                ..AdamSettings::default()
            };
            let mut net_optimizer = NetOptimizer::new(
                net.clone(),
                settings,
                &NetDevice::burn(device.clone()),
                shape,
            );
            net_optimizer.step(&inputs, &targets);
            kernels_and_biases(&net_optimizer.inference_net())
        };
        let (plain_kernels, plain_biases) = stepped(0.0);
        let (l2_kernels, l2_biases) = stepped(0.01);
        assert_eq!(plain_biases, l2_biases);
        assert_ne!(plain_kernels, l2_kernels);
    }

    /// The step size by the schedule: constant without a final rate; with one, the start at 0,
    /// the mean of both at ½, the final rate at 1 and beyond, falling in between.
    #[test]
    fn the_step_size_anneals_by_a_half_cosine_to_the_final_rate() {
        let constant = AdamSettings {
            learning_rate: 0.003,
            ..AdamSettings::default()
        };
        for p in [0.0, 0.5, 1.0] {
            assert_eq!(constant.learning_rate_at(p), 0.003);
        }
        let annealed = AdamSettings {
            final_learning_rate: Some(0.001),
            ..constant
        };
        let at = |p: f64| annealed.learning_rate_at(p);
        assert_eq!(at(0.0), 0.003);
        assert!((at(0.5) - 0.002).abs() < 1e-12, "{}", at(0.5));
        assert!((at(0.25) - (0.001 + 0.002 * (0.5 + 0.5 * 0.5f64.sqrt()))).abs() < 1e-12);
        assert!((at(1.0) - 0.001).abs() < 1e-12);
        assert_eq!((at(2.0), at(-1.0), at(f64::NAN)), (at(1.0), 0.003, 0.003));
        let mut last = at(0.0);
        for k in 1..=100 {
            let now = at(f64::from(k) / 100.0);
            assert!(now < last, "{k}: {now} after {last}");
            last = now;
        }
    }

    /// `set_progress` sets the step both engines take: annealed to 0, a step at the budget's
    /// end leaves the weights as they are, where one at its start moves them.
    #[test]
    fn a_step_at_the_end_of_a_schedule_to_zero_moves_nothing() {
        let shape = [3, 3, 3];
        let net = ValueNet::new(
            &crate::value::Architecture::PaperCnn,
            shape,
            true,
            &Device::flex(),
        );
        let inputs: Vec<f32> = (0..2 * 27).map(|i| ((i * 5) % 7) as f32 / 6.0).collect();
        let targets = [0.5, -0.5];
        let settings = AdamSettings {
            final_learning_rate: Some(0.0),
            ..AdamSettings::default()
        };
        for device in [NetDevice::burn(Device::flex()), NetDevice::cpu()] {
            let stepped = |progress: f64| {
                let mut net_optimizer = NetOptimizer::new(net.clone(), settings, &device, shape);
                let rate = net_optimizer.set_progress(progress);
                net_optimizer.step(&inputs, &targets);
                (rate, kernels_and_biases(&net_optimizer.inference_net()))
            };
            let before = kernels_and_biases(&net);
            let (rate, after) = stepped(1.0);
            assert_eq!(rate, 0.0);
            assert!(after == before, "a step at rate 0 moved the weights");
            let (rate, after) = stepped(0.0);
            assert_eq!(rate, settings.learning_rate);
            assert!(after.0 != before.0, "a step at the start moved nothing");
        }
    }
}
