//! `CpuTrainer`: the training step of a value network — or of a policy-value network, both heads
//! (`CpuTrainer::with_policy`) — written out for the CPU: forward pass, backward pass and Adam,
//! beside `CpuNet`, the direct inference pass. A minibatch is cut into
//! chunks of about `CHUNK` positions that run on rayon's threads, each with its own activations and
//! gradients (kept between steps: no allocation once warm); then the chunks' gradients are summed
//! in chunk order (the same result whatever the number of threads) and Adam steps, in one
//! element-wise pass over the flat parameter vector cut into a piece per thread. Products run on
//! `matrixmultiply` (see `cpu_training/matmul.rs`).
//!
//! Parameters live in one flat vector laid out as the passes read them (`flat.rs`,
//! `Parameter::working_order`) and keep burn's parameter ids; the trained network is a
//! `ValueNet` (or `PolicyValueNet`) again once converted back to burn's layouts
//! (`inference_net`, `inference_policy_value_net`), and Adam's state is
//! burn's optimiser-state file: the same network and optimiser files as training on burn
//! (`NetOptimizer` or `PolicyValueTrainer` on a burn device), which stays the reference this
//! engine is tested against (gradients and Adam steps on every architecture, both heads,
//! tests/training/cpu_training.rs).

mod adam;
mod backward;
mod flat;
pub mod implicit_conv;
pub mod matmul;
mod pass;
mod plan;
pub mod row_kernel;

use burn::prelude::*;
use multiversion::multiversion;
use rayon::prelude::*;

use self::adam::{Adam, StepFactors};
use self::backward::Targets;
use self::flat::FlatLayout;
use self::pass::Chunk;
pub use self::plan::TrainedNet;
use self::plan::{Parameter, Plan, with_values};
use crate::value::minibatch::{Minibatch, MinibatchRef, MinibatchSource};
use crate::value::net_optimizer::AdamSettings;
use crate::value::network::ValueNet;
use crate::value::policy_value_net::{PolicyValueLoss, PolicyValueNet, ValueLoss};

/// Each parameter's values in the trainer's order (each layer's weight, then its bias) and
/// burn's layouts.
pub fn parameter_values(net: &ValueNet) -> Vec<Vec<f32>> {
    plan::read_parameters(&TrainedNet::Value(Box::new(net.clone()))).1
}

/// `parameter_values` of a policy-value network: the value network's, then the policy head's.
pub fn policy_value_parameter_values(net: &PolicyValueNet) -> Vec<Vec<f32>> {
    plan::read_parameters(&TrainedNet::PolicyValue(Box::new(net.clone()))).1
}

/// Positions per chunk of a minibatch, about (a batch of 128: two chunks, one per core here).
pub const CHUNK: usize = 64;

/// How a minibatch of `batch` positions is cut: `CHUNK` positions a chunk, about — as many
/// chunks as `batch / CHUNK` rounds to, of equal lengths but the last (a batch of 129 in two
/// chunks of 65 and 64, not three with one position in the last). Returns the chunks' count
/// and length.
pub fn chunking(batch: usize) -> (usize, usize) {
    let count = ((batch + CHUNK / 2) / CHUNK).max(1);
    let len = batch.div_ceil(count);
    (batch.div_ceil(len), len)
}

/// A network being trained by the direct CPU step, with Adam's state.
pub struct CpuTrainer {
    plan: Plan,
    parameters: Vec<Parameter>,
    layout: FlatLayout,
    /// Every parameter's values, laid out as the passes read them
    /// (`Parameter::working_order`), one after the other (`layout`).
    values: Vec<f32>,
    adam: Adam,
    settings: AdamSettings,
    chunks: Vec<Chunk>,
    /// Each chunk's positions, where its minibatch source gathers them.
    chunk_positions: Vec<Minibatch>,
    /// Each chunk's gradient of every parameter, laid out as `values`.
    chunk_grads: Vec<Vec<f32>>,
    /// Adam's factors for the step being taken, per parameter (scratch).
    factors: Vec<StepFactors>,
    /// The network as given (on the plain CPU device): its structure and parameter ids.
    template: TrainedNet,
    device: Device,
}

/// The batch's losses summed over its positions, as the chunks found them.
#[derive(Clone, Copy, Debug, Default)]
struct LossSums {
    value: f64,
    cross_entropy: f64,
}

/// Runs `op` on one of rayon's threads, so that a step wakes the pool once for its passes and
/// its update together.
pub(crate) fn in_pool<R: Send>(op: impl FnOnce() -> R + Send) -> R {
    if rayon::current_thread_index().is_some() {
        op()
    } else {
        rayon::scope(|_| op())
    }
}

/// Adds the elements `start..start + sum.len()` of each of `others` to `sum`, in their order.
#[inline]
fn add_chunks(sum: &mut [f32], others: &[Vec<f32>], start: usize) {
    let end = start + sum.len();
    for other in others {
        sum.iter_mut()
            .zip(&other[start..end])
            .for_each(|(s, &o)| *s += o);
    }
}

/// What the update of one piece of the flat vectors reads.
struct Update<'a> {
    parameters: &'a [Parameter],
    layout: &'a FlatLayout,
    factors: &'a [StepFactors],
    l2_slope: f32,
    /// The gradients of every chunk but the first, which holds the sum.
    other_chunks: &'a [Vec<f32>],
}

/// The batch's gradient of the elements `start..start + weights.len()` into `grad` (the first
/// chunk's, the others added in chunk order: the same sum whatever the threads), then Adam's
/// step on them, with the L2 penalty's `2λW` on kernels. Compiled for AVX-512 and AVX2 too
/// (chosen at run time): the same operations in the same order, on wider vectors.
// The macro's copies of the function cannot name an elided lifetime.
#[allow(elided_lifetimes_in_paths)]
#[multiversion(targets("x86_64+avx512f+avx2+fma", "x86_64+avx2+fma"))]
fn update_piece(
    update: &Update,
    start: usize,
    weights: &mut [f32],
    grad: &mut [f32],
    [m, v]: [&mut [f32]; 2],
) {
    let end = start + weights.len();
    add_chunks(grad, update.other_chunks, start);
    for (p, range) in update.layout.ranges().iter().enumerate() {
        let (lo, hi) = (range.start.max(start), range.end.min(end));
        if lo >= hi {
            continue;
        }
        let r = lo - start..hi - start;
        if update.parameters[p].kernel && update.l2_slope > 0.0 {
            for (g, &w) in grad[r.clone()].iter_mut().zip(&weights[r.clone()]) {
                *g += update.l2_slope * w;
            }
        }
        let (m, v) = (&mut m[r.clone()], &mut v[r.clone()]);
        adam::step(&update.factors[p], &mut weights[r.clone()], &grad[r], m, v);
    }
}

impl CpuTrainer {
    /// Starts training `net`, for inputs of shape `[planes, rows, cols]`.
    pub fn new(net: ValueNet, settings: AdamSettings, shape: [usize; 3]) -> CpuTrainer {
        CpuTrainer::for_net(TrainedNet::Value(Box::new(net)), settings, shape)
    }

    /// Starts training a policy-value network, both heads, for inputs of shape
    /// `[planes, rows, cols]`.
    pub fn with_policy(net: PolicyValueNet, settings: AdamSettings, shape: [usize; 3]) -> Self {
        CpuTrainer::for_net(TrainedNet::PolicyValue(Box::new(net)), settings, shape)
    }

    fn for_net(net: TrainedNet, settings: AdamSettings, shape: [usize; 3]) -> CpuTrainer {
        let device = Device::flex();
        let template = match net {
            TrainedNet::Value(net) => TrainedNet::Value(Box::new(net.to_device(&device))),
            TrainedNet::PolicyValue(net) => {
                TrainedNet::PolicyValue(Box::new(net.to_device(&device)))
            }
        };
        let (plan, parameters, burn_values) = Plan::new(&template, shape);
        let layout = FlatLayout::new(parameters.iter().map(Parameter::len));
        let mut values = vec![0.0; layout.len()];
        for (p, parameter) in parameters.iter().enumerate() {
            parameter.to_working(&burn_values[p], &mut values[layout.range(p)]);
        }
        CpuTrainer {
            adam: Adam::new(settings, &layout),
            plan,
            parameters,
            layout,
            values,
            settings,
            chunks: Vec::new(),
            chunk_positions: Vec::new(),
            chunk_grads: Vec::new(),
            factors: Vec::new(),
            template,
            device,
        }
    }

    /// Takes the next steps with step size `learning_rate`.
    pub fn set_learning_rate(&mut self, learning_rate: f64) {
        self.settings.learning_rate = learning_rate;
        self.adam.set_learning_rate(learning_rate);
    }

    /// One Adam step on a minibatch of `targets.len()` encoded positions (`inputs`, laid out
    /// `[batch, planes, rows, cols]`), on the MSE plus the kernels' L2 penalty; returns the MSE
    /// before the step.
    pub fn step(&mut self, inputs: &[f32], targets: &[f32]) -> f32 {
        self.step_from(&self.checked(inputs, targets, &[]))
    }

    /// One Adam step of a policy-value network (`with_policy`) on `values.len()` encoded
    /// positions: `policies` the target distributions over the action ids, `values` the
    /// outcomes (P0's view), on the value loss `value_loss` plus the policy cross-entropy plus
    /// the kernels' L2 penalty, as `PolicyValueTrainer` on burn. Returns the losses before the
    /// step (means over the minibatch).
    pub fn step_policy_value(
        &mut self,
        inputs: &[f32],
        policies: &[f32],
        values: &[f32],
        value_loss: ValueLoss,
    ) -> PolicyValueLoss {
        let minibatch = self.checked(inputs, values, policies);
        let batch = values.len().max(1) as f64;
        let sums = in_pool(|| {
            let (count, sums) = self.run_chunks(&minibatch, value_loss);
            self.apply_gradients(count);
            sums
        });
        PolicyValueLoss {
            value: (sums.value / batch) as f32,
            policy_cross_entropy: (sums.cross_entropy / batch) as f32,
        }
    }

    /// `inputs`, `targets` and `policies` as a minibatch, if `inputs` holds `targets.len()`
    /// encoded positions and `policies` a distribution over the action ids for each (none
    /// for a value network).
    fn checked<'a>(
        &self,
        inputs: &'a [f32],
        targets: &'a [f32],
        policies: &'a [f32],
    ) -> MinibatchRef<'a> {
        let batch = targets.len();
        assert_eq!(
            inputs.len(),
            batch * self.plan.planes * self.plan.cells,
            "inputs are not {batch} encoded positions"
        );
        let actions = self.plan.policy.map_or(0, |p| p.actions());
        assert_eq!(
            policies.len(),
            batch * actions,
            "policies are not {batch} distributions over {actions} action ids"
        );
        MinibatchRef {
            inputs,
            targets,
            policies,
        }
    }

    /// `step` on a minibatch each chunk's thread reads (or gathers) its own positions of.
    pub fn step_from(&mut self, minibatch: &dyn MinibatchSource) -> f32 {
        let batch = minibatch.len();
        if batch == 0 {
            return f32::NAN;
        }
        let sums = in_pool(|| {
            let (count, sums) = self.run_chunks(minibatch, ValueLoss::Mse);
            self.apply_gradients(count);
            sums
        });
        (sums.value / batch as f64) as f32
    }

    /// The forward and backward passes of the minibatch, chunk by chunk on rayon's threads;
    /// returns how many chunks hold its gradients and the batch's summed losses.
    fn run_chunks(
        &mut self,
        minibatch: &dyn MinibatchSource,
        value_loss: ValueLoss,
    ) -> (usize, LossSums) {
        let batch = minibatch.len();
        let size = self.plan.planes * self.plan.cells;
        let actions = self.plan.policy.map_or(0, |p| p.actions());
        let (count, len) = chunking(batch);
        self.make_chunks(count);
        let (plan, layout) = (&self.plan, &self.layout);
        let params = layout.view(&self.values);
        self.chunks[..count]
            .par_iter_mut()
            .zip(&mut self.chunk_grads[..count])
            .zip(&mut self.chunk_positions[..count])
            .enumerate()
            .for_each(|(c, ((chunk, grads), scratch))| {
                let range = c * len..((c + 1) * len).min(batch);
                let positions = minibatch.read(range.clone(), scratch);
                assert!(
                    positions.targets.len() == range.len()
                        && positions.inputs.len() == range.len() * size
                        && positions.policies.len() == range.len() * actions,
                    "positions {range:?} of the minibatch are not {} encoded positions",
                    range.len()
                );
                let targets = Targets {
                    values: positions.targets,
                    policies: positions.policies,
                    value_loss,
                };
                let mut grads = layout.view_mut(grads);
                plan.forward(params, positions.inputs, range.len(), chunk);
                plan.backward(params, &targets, batch, chunk, &mut grads);
            });
        let chunks = &self.chunks[..count];
        let sums = LossSums {
            value: chunks.iter().map(|c| c.value_loss).sum(),
            cross_entropy: chunks.iter().map(|c| c.cross_entropy).sum(),
        };
        (count, sums)
    }

    /// At least `count` chunks, each with a gradient vector.
    fn make_chunks(&mut self, count: usize) {
        if self.chunks.len() < count {
            self.chunks.resize_with(count, Chunk::default);
            self.chunk_positions.resize_with(count, Minibatch::default);
            let len = self.layout.len();
            self.chunk_grads.resize_with(count, || vec![0.0; len]);
        }
    }

    /// Sums the first `count` chunks' gradients and takes Adam's step (with the L2 penalty) on
    /// every parameter, the flat vectors cut into one piece per thread.
    fn apply_gradients(&mut self, count: usize) {
        self.adam.advance(&mut self.factors);
        let (first, other_chunks) = self.chunk_grads[..count]
            .split_first_mut()
            .expect("a chunk");
        let update = Update {
            parameters: &self.parameters,
            layout: &self.layout,
            factors: &self.factors,
            l2_slope: 2.0 * self.settings.l2,
            other_chunks,
        };
        let piece = self
            .values
            .len()
            .div_ceil(rayon::current_num_threads())
            .next_multiple_of(64)
            .max(64);
        self.values
            .par_chunks_mut(piece)
            .zip(first.par_chunks_mut(piece))
            .zip(self.adam.moment_1.par_chunks_mut(piece))
            .zip(self.adam.moment_2.par_chunks_mut(piece))
            .enumerate()
            .for_each(|(i, (((weights, grad), m), v))| {
                update_piece(&update, i * piece, weights, grad, [m, v]);
            });
    }

    /// The gradient of the minibatch's MSE (without the L2 penalty) for every parameter, in
    /// `read_parameters`' order and burn's layouts, computed as `step` computes it, without a
    /// step (for tests).
    pub fn gradients(&mut self, inputs: &[f32], targets: &[f32]) -> Vec<Vec<f32>> {
        self.policy_value_gradients(inputs, &[], targets, ValueLoss::Mse)
    }

    /// The gradient of a policy-value network's loss (without the L2 penalty) for every
    /// parameter, as `step_policy_value` computes it, without a step (for tests).
    pub fn policy_value_gradients(
        &mut self,
        inputs: &[f32],
        policies: &[f32],
        values: &[f32],
        value_loss: ValueLoss,
    ) -> Vec<Vec<f32>> {
        let minibatch = self.checked(inputs, values, policies);
        let (count, _) = in_pool(|| self.run_chunks(&minibatch, value_loss));
        let (first, others) = self.chunk_grads[..count]
            .split_first_mut()
            .expect("a chunk");
        add_chunks(first, others, 0);
        self.burn_layout(&self.chunk_grads[0])
    }

    /// A flat vector laid out as `values`, parameter by parameter in burn's layouts.
    fn burn_layout(&self, flat: &[f32]) -> Vec<Vec<f32>> {
        self.parameters
            .iter()
            .enumerate()
            .map(|(p, parameter)| parameter.to_burn_layout(&flat[self.layout.range(p)]))
            .collect()
    }

    /// Takes the Adam step (with the L2 penalty) that `step` takes after computing the
    /// gradients, from given gradients of the MSE in burn's layouts (for tests).
    pub fn step_with_gradients(&mut self, gradients: &[Vec<f32>]) {
        self.make_chunks(1);
        for (p, parameter) in self.parameters.iter().enumerate() {
            let slot = &mut self.chunk_grads[0][self.layout.range(p)];
            parameter.to_working(&gradients[p], slot);
        }
        in_pool(|| self.apply_gradients(1));
    }

    /// Each parameter's burn id and shape, in the order `gradients` lists them.
    pub fn parameters(&self) -> Vec<(burn::module::ParamId, Vec<usize>)> {
        self.parameters
            .iter()
            .map(|p| (p.id, p.shape.clone()))
            .collect()
    }

    /// A copy of the current weights for inference (on the plain CPU device): the network, or
    /// a policy-value network's trunk and value head.
    pub fn inference_net(&self) -> ValueNet {
        match self.trained_net() {
            TrainedNet::Value(net) => *net,
            TrainedNet::PolicyValue(net) => net.value,
        }
    }

    /// A copy of a policy-value network's current weights, both heads (on the plain CPU
    /// device).
    ///
    /// # Panics
    /// A trainer of a value network (`new`).
    pub fn inference_policy_value_net(&self) -> PolicyValueNet {
        match self.trained_net() {
            TrainedNet::PolicyValue(net) => *net,
            TrainedNet::Value(_) => panic!("a value network's trainer has no policy head"),
        }
    }

    fn trained_net(&self) -> TrainedNet {
        with_values(
            &self.template,
            &self.burn_layout(&self.values),
            &self.device,
        )
    }

    /// Adam's state in burn's optimiser-state format.
    ///
    /// # Errors
    /// The state cannot be serialised.
    pub fn optimizer_bytes(&self) -> anyhow::Result<Vec<u8>> {
        self.adam.to_bytes(&self.parameters, &self.layout)
    }

    /// Restores a state saved by `optimizer_bytes` or by burn's optimiser.
    ///
    /// # Errors
    /// Bytes that are not an optimiser state of this network.
    pub fn load_optimizer_bytes(&mut self, bytes: Vec<u8>) -> anyhow::Result<()> {
        self.adam.load_bytes(bytes, &self.parameters, &self.layout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::architecture::Architecture;

    /// The same gradients whether the convolutions run implicit (`implicit_conv`) or on im2col
    /// rows: the paper's CNN on Connect Four's board (a 2-plane stem, 64 channels), a
    /// squeeze-excitation resnet with a pooled head on Awale's (16), configs/awale.yaml's net on
    /// a 7-plane encoding (its stem's windows read through a table).
    #[test]
    fn implicit_and_im2col_convolutions_give_the_same_gradients() {
        if !row_kernel::available() {
            eprintln!("no AVX-512 here: every convolution runs on im2col rows");
            return;
        }
        for (architecture, shape) in [
            ("paper-cnn", [2, 6, 7]),
            ("resnet-b2c16-se-gsp8-fc8", [2, 2, 6]),
            ("resnet-b0c32-fc64", [7, 2, 6]),
        ] {
            let architecture: Architecture = architecture.parse().unwrap();
            let positions = 70;
            let per_position: usize = shape.iter().product();
            let inputs: Vec<f32> = (0..positions * per_position)
                .map(|i| ((i * 7919 + i / 5) % 3) as f32 * 0.5)
                .collect();
            let targets: Vec<f32> = (0..positions).map(|i| (i % 5) as f32 / 2.0 - 1.0).collect();
            // The comparison means something only if the gradients do: a random network whose
            // units are all dead on these inputs (about one in forty of the small SE network's)
            // has almost none, so up to five networks are drawn until one has; every one drawn
            // is compared.
            let live = (0..5).any(|_| {
                let net = ValueNet::new(&architecture, shape, true, &Device::flex());
                let mut trainer = CpuTrainer::new(net, AdamSettings::default(), shape);
                let implicit = trainer.gradients(&inputs, &targets);
                trainer.plan.implicit_convs = false;
                let im2col = trainer.gradients(&inputs, &targets);
                let largest = |g: &[f32]| g.iter().fold(0.0f32, |m, x| m.max(x.abs()));
                // A parameter's gradients 100 × smaller than the largest are sums that cancel:
                // compared to a hundredth of the largest, not to their own size.
                let whole = im2col.iter().map(|g| largest(g)).fold(0.0f32, f32::max);
                let mut nonzero = 0;
                for (p, (a, b)) in implicit.iter().zip(&im2col).enumerate() {
                    let scale = largest(b);
                    nonzero += usize::from(scale > 1e-6);
                    for (x, y) in a.iter().zip(b) {
                        assert!(
                            (x - y).abs() <= 1e-5 * scale.max(whole / 100.0),
                            "{architecture}, parameter {p}: {x} vs {y}"
                        );
                    }
                }
                nonzero * 4 >= implicit.len() * 3
            });
            assert!(live, "{architecture}: five networks without gradients");
        }
    }

    #[test]
    fn a_minibatch_is_cut_in_chunks_of_about_chunk_positions() {
        for (batch, expected) in [
            (1, (1, 1)),
            (70, (1, 70)),
            (96, (2, 48)),
            (128, (2, 64)),
            (129, (2, 65)),
            (191, (3, 64)),
            (300, (5, 60)),
        ] {
            assert_eq!(chunking(batch), expected, "batch of {batch}");
        }
    }
}
