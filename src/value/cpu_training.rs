//! `CpuTrainer`: the value network's training step written out for the CPU — forward pass,
//! backward pass and Adam — beside `CpuNet`, the direct inference pass. A minibatch is cut into
//! chunks of `CHUNK` positions that run on rayon's threads, each with its own activations and
//! gradients (kept between steps: no allocation once warm), whose gradients are then summed in
//! chunk order — the same result whatever the number of threads. Products run on
//! `matrixmultiply` (see `cpu_training/matmul.rs`).
//!
//! Parameters stay in burn's layouts and keep burn's parameter ids, so the trained network is a
//! `ValueNet` again at no cost (`inference_net`), and Adam's state is burn's optimiser-state file:
//! the same network and optimiser files as training on burn (`NetOptimizer` on a burn device),
//! which stays the reference this engine is tested against (gradients and Adam steps on every
//! architecture, tests/cpu_training.rs).

mod adam;
mod backward;
pub mod matmul;
mod pass;
mod plan;

use burn::prelude::*;
use rayon::prelude::*;

use self::adam::Adam;
use self::pass::Chunk;
use self::plan::{Parameter, Plan, with_values};
use super::net_optimizer::AdamSettings;
use super::network::ValueNet;

/// Every parameter's values in the trainer's order (each layer's weight, then its bias) and
/// burn's layouts.
pub fn parameter_values(net: &ValueNet) -> Vec<Vec<f32>> {
    plan::read_parameters(net).1
}

/// Positions per chunk of a minibatch (a batch of 128: two chunks, one per core here).
pub const CHUNK: usize = 64;

/// A network being trained by the direct CPU step, with Adam's state.
pub struct CpuTrainer {
    plan: Plan,
    parameters: Vec<Parameter>,
    /// Each parameter's values, in burn's layout.
    values: Vec<Vec<f32>>,
    /// The same, laid out as the passes read them (`Parameter::working_order`).
    working: Vec<Vec<f32>>,
    adam: Adam,
    settings: AdamSettings,
    chunks: Vec<Chunk>,
    /// The batch's gradient of one parameter (scratch).
    gradient: Vec<f32>,
    /// The network as given (on the plain CPU device): its structure and parameter ids.
    template: ValueNet,
    device: Device,
}

impl CpuTrainer {
    /// Starts training `net`, for inputs of shape `[planes, rows, cols]`.
    pub fn new(net: ValueNet, settings: AdamSettings, shape: [usize; 3]) -> CpuTrainer {
        let device = Device::flex();
        let template = net.to_device(&device);
        let (plan, parameters, values) = Plan::new(&template, shape);
        let adam = Adam::new(settings, values.iter().map(Vec::len));
        let mut trainer = CpuTrainer {
            plan,
            parameters,
            values,
            working: Vec::new(),
            adam,
            settings,
            chunks: Vec::new(),
            gradient: Vec::new(),
            template,
            device,
        };
        trainer.refresh_working();
        trainer
    }

    /// Lays the values out for the passes.
    fn refresh_working(&mut self) {
        self.working.resize_with(self.values.len(), Vec::new);
        for ((parameter, values), working) in self
            .parameters
            .iter()
            .zip(&self.values)
            .zip(&mut self.working)
        {
            parameter.to_working(values, working);
        }
    }

    /// One Adam step on a minibatch of `targets.len()` encoded positions (`inputs`, laid out
    /// `[batch, planes, rows, cols]`), on the MSE plus the kernels' L2 penalty; returns the MSE
    /// before the step.
    pub fn step(&mut self, inputs: &[f32], targets: &[f32]) -> f32 {
        let batch = targets.len();
        if batch == 0 {
            return f32::NAN;
        }
        let (count, squared_error) = self.run_chunks(inputs, targets);
        for p in 0..self.parameters.len() {
            self.batch_gradient(p, count);
            self.update(p);
        }
        self.refresh_working();
        (squared_error / batch as f64) as f32
    }

    /// The forward and backward passes of the minibatch, chunk by chunk on rayon's threads;
    /// returns how many chunks hold its gradients and the batch's Σ (value − target)².
    fn run_chunks(&mut self, inputs: &[f32], targets: &[f32]) -> (usize, f64) {
        let batch = targets.len();
        let size = self.plan.planes * self.plan.cells;
        assert_eq!(
            inputs.len(),
            batch * size,
            "inputs are not {batch} encoded positions"
        );
        let count = batch.div_ceil(CHUNK);
        if self.chunks.len() < count {
            self.chunks.resize_with(count, Chunk::default);
        }
        let (plan, values) = (&self.plan, &self.working);
        self.chunks[..count]
            .par_iter_mut()
            .zip(inputs.par_chunks(CHUNK * size))
            .zip(targets.par_chunks(CHUNK))
            .for_each(|((chunk, inputs), targets)| {
                plan.forward(values, inputs, targets.len(), chunk);
                plan.backward(values, targets, batch, chunk);
            });
        let squared_error = self.chunks[..count].iter().map(|c| c.squared_error).sum();
        (count, squared_error)
    }

    /// Sums parameter `p`'s gradient over the first `count` chunks, in chunk order, into
    /// `self.gradient` (burn's layout).
    fn batch_gradient(&mut self, p: usize, count: usize) {
        let parameter = &self.parameters[p];
        self.gradient.clear();
        self.gradient.resize(self.values[p].len(), 0.0);
        for chunk in &self.chunks[..count] {
            parameter.add_to_burn_layout(&chunk.grads[p], &mut self.gradient);
        }
    }

    /// Adds the L2 penalty's `2λW` to `self.gradient` if parameter `p` is a kernel, and takes
    /// Adam's step on it. The passes see the new values after `refresh_working`.
    fn update(&mut self, p: usize) {
        let weights = &mut self.values[p];
        let l2_slope = 2.0 * self.settings.l2;
        if self.parameters[p].kernel && l2_slope > 0.0 {
            for (g, &w) in self.gradient.iter_mut().zip(weights.iter()) {
                *g += l2_slope * w;
            }
        }
        self.adam.step(p, weights, &self.gradient);
    }

    /// The gradient of the minibatch's MSE (without the L2 penalty) for every parameter, in
    /// `read_parameters`' order and burn's layouts, computed as `step` computes it, without a
    /// step (for tests).
    pub fn gradients(&mut self, inputs: &[f32], targets: &[f32]) -> Vec<Vec<f32>> {
        let (count, _) = self.run_chunks(inputs, targets);
        (0..self.parameters.len())
            .map(|p| {
                self.batch_gradient(p, count);
                self.gradient.clone()
            })
            .collect()
    }

    /// Takes the Adam step (with the L2 penalty) that `step` takes after computing the
    /// gradients, from given gradients of the MSE in burn's layouts (for tests).
    pub fn step_with_gradients(&mut self, gradients: &[Vec<f32>]) {
        for (p, gradient) in gradients.iter().enumerate() {
            self.gradient.clone_from(gradient);
            self.update(p);
        }
        self.refresh_working();
    }

    /// Each parameter's burn id and shape, in the order `gradients` lists them.
    pub fn parameters(&self) -> Vec<(burn::module::ParamId, Vec<usize>)> {
        self.parameters
            .iter()
            .map(|p| (p.id, p.shape.clone()))
            .collect()
    }

    /// A copy of the current weights for inference (on the plain CPU device).
    pub fn inference_net(&self) -> ValueNet {
        with_values(&self.template, &self.values, &self.device)
    }

    /// Adam's state in burn's optimiser-state format.
    ///
    /// # Errors
    /// The state cannot be serialised.
    pub fn optimizer_bytes(&self) -> anyhow::Result<Vec<u8>> {
        self.adam.to_bytes(&self.parameters)
    }

    /// Restores a state saved by `optimizer_bytes` or by burn's optimiser.
    ///
    /// # Errors
    /// Bytes that are not an optimiser state of this network.
    pub fn load_optimizer_bytes(&mut self, bytes: Vec<u8>) -> anyhow::Result<()> {
        self.adam.load_bytes(bytes, &self.parameters)
    }
}
