//! `CpuNet`: the value network's forward pass written out for the CPU. Boards are small (Awale
//! has 12 cells, Connect Four 42), so a pass of a few positions is dominated by a general
//! framework's per-operation costs (tensor allocation, im2col set-up, thread hand-offs), not by
//! arithmetic. `CpuNet` copies the weights of a `ValueNet` once, packed for `PackedMatrix`, and
//! evaluates with scratch buffers reused per thread: no allocation per call once warm.
//!
//! Layout: activations are `[positions · cells, channels]` (channels last); a 3×3 'same'
//! convolution (`inference_conv::Conv3x3`) reads each cell's neighbours on zero-padded boards
//! where the CPU has AVX-512, else an im2col row per cell (`9 · channels`, zero where a tap
//! falls off the board) times the packed kernel. The result equals `ValueNet::forward` up to
//! float rounding (tested).
//!
//! A policy-value network's (`CpuNet::with_policy`) adds the policy head on the same trunk: the
//! 1×1 convolution to one channel, then the dense layer from the board's cells to one logit per
//! action id, as `PolicyValueNet::forward` (tested against it).

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};

use burn::nn::Linear;
use burn::nn::conv::Conv2d;
use burn::prelude::*;

use super::board_layout::{board_taps, channels_last, sum_over_cells, take};
use super::cpu_training::implicit_conv::Windows;
use super::inference_conv::{Conv3x3, ConvScratch, runs_implicit};
use super::packed_matmul::{Activation, PackedMatrix};
use crate::value::network::{SqueezeExcitation, ValueNet};
use crate::value::policy_value_net::PolicyValueNet;

struct SeLayer {
    squeeze: PackedMatrix,
    excite: PackedMatrix,
}

struct Block {
    c1: Conv3x3,
    c2: Conv3x3,
    se: Option<SeLayer>,
}

/// A policy-value network's policy head: the 1×1 convolution from the trunk's channels to one,
/// then the dense layer from the board's cells (one value each) to the action ids' logits.
struct PolicyHead {
    conv: PackedMatrix,
    dense: PackedMatrix,
}

/// A `ValueNet`'s weights (and a `PolicyValueNet`'s policy head) laid out for a direct forward
/// pass on the CPU.
pub struct CpuNet {
    planes: usize,
    cells: usize,
    /// For each cell, its 3×3 neighbourhood row by row (`OFF_BOARD` past an edge).
    taps: Vec<[usize; 9]>,
    /// The cells' windows on zero-padded boards, where convolutions run implicit.
    windows: Option<Box<Windows>>,
    /// Plain convolutions, each followed by ReLU.
    convs: Vec<Conv3x3>,
    blocks: Vec<Block>,
    /// The 1×1 convolution before the global sum pooling.
    head: Option<PackedMatrix>,
    /// Dense hidden layers, each followed by ReLU. Without a pooled head the first one reads
    /// the board channels-last (its rows are permuted from burn's channels-first flattening).
    dense: Vec<PackedMatrix>,
    out: PackedMatrix,
    tanh_output: bool,
    policy: Option<Box<PolicyHead>>,
}

/// Buffers of one thread's forward passes, grown on demand and kept.
#[derive(Default)]
struct Scratch {
    input: Vec<f32>,
    columns: Vec<f32>,
    conv: ConvScratch,
    activations: [Vec<f32>; 3],
    pooled: Vec<f32>,
    hidden: Vec<f32>,
    flat: [Vec<f32>; 2],
    /// The policy head's one channel, per cell.
    policy_cells: Vec<f32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Forward passes running now, in all threads. A pass that starts alone splits its big
/// products over rayon's threads; one that starts beside others (parallel self-play or
/// arena games, which already keep the cores busy) runs on its own thread.
static PASSES_IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Set by `keep_passes_on_this_thread`: this thread's passes never split.
    static PASSES_STAY_HERE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// From now on, every pass made on the calling thread runs on it alone, never split over
/// rayon's threads: a match's players (`arena`), whose network must not take time from the
/// match beside it or give one side more cores than the other under a time budget.
pub fn keep_passes_on_this_thread() {
    PASSES_STAY_HERE.with(|here| here.set(true));
}

/// Whether passes made on the calling thread stay on it (`keep_passes_on_this_thread`).
pub fn passes_stay_on_this_thread() -> bool {
    PASSES_STAY_HERE.with(std::cell::Cell::get)
}

/// Counts a pass in `PASSES_IN_FLIGHT` until dropped.
struct InFlight;

impl InFlight {
    /// Enters a pass; true if no other pass is running.
    fn enter() -> (InFlight, bool) {
        let alone = PASSES_IN_FLIGHT.fetch_add(1, Ordering::Relaxed) == 0;
        (InFlight, alone)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        PASSES_IN_FLIGHT.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A tensor's values, flat (the network's weights are f32).
pub(super) fn values<const D: usize>(tensor: Tensor<D>) -> Vec<f32> {
    tensor
        .into_data()
        .try_into_vec::<f32>()
        .expect("f32 network weights")
}

fn bias(bias: &Option<burn::module::Param<Tensor<1>>>, outputs: usize) -> Vec<f32> {
    match bias {
        Some(b) => values(b.val()),
        None => vec![0.0; outputs],
    }
}

/// A 3×3 convolution `[out, in, 3, 3]` as `[9 · in, out]`, row `tap · in + channel`.
fn pack_conv3x3(conv: &Conv2d, implicit: bool) -> Conv3x3 {
    let [outputs, inputs, kh, kw] = conv.weight.shape().dims();
    assert_eq!([kh, kw], [3, 3], "a 3×3 convolution");
    let w = values(conv.weight.val());
    Conv3x3::new(
        [inputs, outputs],
        |row, o| {
            let (tap, channel) = (row / inputs, row % inputs);
            w[(o * inputs + channel) * 9 + tap]
        },
        &bias(&conv.bias, outputs),
        implicit,
    )
}

/// A 1×1 convolution `[out, in, 1, 1]` as `[in, out]`.
fn pack_conv1x1(conv: &Conv2d) -> PackedMatrix {
    let [outputs, inputs, kh, kw] = conv.weight.shape().dims();
    assert_eq!([kh, kw], [1, 1], "a 1×1 convolution");
    let w = values(conv.weight.val());
    PackedMatrix::new(
        inputs,
        outputs,
        |i, o| w[o * inputs + i],
        &bias(&conv.bias, outputs),
    )
}

/// A dense layer (burn stores `[in, out]`); `row_of(i)` maps our input `i` to burn's row.
fn pack_linear(linear: &Linear, row_of: impl Fn(usize) -> usize) -> PackedMatrix {
    let [inputs, outputs] = linear.weight.shape().dims();
    let w = values(linear.weight.val());
    PackedMatrix::new(
        inputs,
        outputs,
        |i, o| w[row_of(i) * outputs + o],
        &bias(&linear.bias, outputs),
    )
}

fn pack_se(se: &SqueezeExcitation) -> SeLayer {
    SeLayer {
        squeeze: pack_conv1x1(&se.squeeze),
        excite: pack_conv1x1(&se.excite),
    }
}

impl CpuNet {
    /// Copies `net`'s weights for inputs of shape `[planes, rows, cols]`.
    pub fn new(net: &ValueNet, shape: [usize; 3]) -> CpuNet {
        let [planes, rows, cols] = shape;
        let cells = rows * cols;
        let taps = board_taps(rows, cols);
        // Every convolution implicit, or none: one board layout for the pass.
        let implicit = net
            .convs
            .iter()
            .chain(net.blocks.iter().flat_map(|b| [&b.c1, &b.c2]))
            .all(|conv| {
                let [outputs, inputs, _, _] = conv.weight.shape().dims();
                runs_implicit(inputs, outputs)
            });
        let pack = |conv| pack_conv3x3(conv, implicit);
        let convs: Vec<Conv3x3> = net.convs.iter().map(pack).collect();
        let blocks = net
            .blocks
            .iter()
            .map(|b| Block {
                c1: pack(&b.c1),
                c2: pack(&b.c2),
                se: b.se.as_ref().map(pack_se),
            })
            .collect();
        let head = net.head.as_ref().map(pack_conv1x1);
        let filters = convs.last().expect("a stem convolution").outputs();
        let dense = net
            .dense
            .iter()
            .enumerate()
            .map(|(i, layer)| {
                if i == 0 && head.is_none() {
                    // Ours is (cell, channel); burn flattens (channel, cell).
                    pack_linear(layer, |row| (row % filters) * cells + row / filters)
                } else {
                    pack_linear(layer, |row| row)
                }
            })
            .collect();
        assert_eq!(
            convs[0].inputs(),
            planes,
            "the network was built for another encoding"
        );
        let channel_counts = convs.iter().map(Conv3x3::inputs).chain([filters]);
        let windows = implicit.then(|| Box::new(Windows::new(rows, cols, channel_counts)));
        CpuNet {
            planes,
            cells,
            taps,
            windows,
            convs,
            blocks,
            head,
            dense,
            out: pack_linear(&net.out, |row| row),
            tanh_output: net.tanh_output,
            policy: None,
        }
    }

    /// Copies a policy-value network's weights, both heads, for inputs of shape
    /// `[planes, rows, cols]`.
    pub fn with_policy(net: &PolicyValueNet, shape: [usize; 3]) -> CpuNet {
        let mut cpu_net = CpuNet::new(&net.value, shape);
        let conv = pack_conv1x1(&net.policy_conv);
        assert_eq!(
            conv.outputs(),
            1,
            "the policy head's convolution has one filter"
        );
        // burn flattens the one channel's `[rows, cols]` in cell order: our rows as they are.
        let dense = pack_linear(&net.policy_out, |row| row);
        assert_eq!(dense.inputs(), cpu_net.cells, "a dense input per cell");
        cpu_net.policy = Some(Box::new(PolicyHead { conv, dense }));
        cpu_net
    }

    /// The number of action ids of the policy head (0 without one).
    pub fn num_actions(&self) -> usize {
        self.policy.as_ref().map_or(0, |p| p.dense.outputs())
    }

    /// Values (P0's view) of `values.len()` encoded positions laid out contiguously in
    /// `inputs` as `[batch, planes, rows, cols]`.
    pub fn predict_into(&self, inputs: &[f32], values: &mut [f32]) {
        self.predict_heads(inputs, values, None);
    }

    /// Values (P0's view) and policy logits (`num_actions` per position, for the player to
    /// move) of `values.len()` encoded positions, as `predict_into` lays them out.
    ///
    /// # Panics
    /// A network without a policy head (`CpuNet::new`), or `logits` of another length.
    pub fn predict_with_policy_into(&self, inputs: &[f32], values: &mut [f32], logits: &mut [f32]) {
        assert!(self.policy.is_some(), "a value network has no policy head");
        assert_eq!(logits.len(), values.len() * self.num_actions(), "logits");
        self.predict_heads(inputs, values, Some(logits));
    }

    fn predict_heads(&self, inputs: &[f32], values: &mut [f32], logits: Option<&mut [f32]>) {
        let batch = values.len();
        assert_eq!(
            inputs.len(),
            batch * self.planes * self.cells,
            "inputs are not {batch} encoded positions"
        );
        if batch == 0 {
            return;
        }
        let (_in_flight, alone) = InFlight::enter();
        let split = alone && !passes_stay_on_this_thread();
        SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
            Ok(mut scratch) => self.forward(&mut scratch, inputs, (values, logits), split),
            // A pass nested in this thread's own (a rayon worker waiting on a split product
            // may run another task): fresh buffers for it.
            Err(_) => self.forward(&mut Scratch::default(), inputs, (values, logits), split),
        });
    }

    fn forward(
        &self,
        scratch: &mut Scratch,
        inputs: &[f32],
        (values, logits): (&mut [f32], Option<&mut [f32]>),
        split: bool,
    ) {
        let batch = values.len();
        let (planes, cells) = (self.planes, self.cells);
        let rows = batch * cells;
        let Scratch {
            input,
            columns,
            conv,
            activations,
            pooled,
            hidden,
            flat,
            policy_cells,
        } = scratch;
        let input = take(input, rows * planes);
        channels_last(inputs, input, planes, cells);
        // The plain convolutions, then the residual blocks; `current` names the buffer holding
        // the board's activations, `[rows, channels]`.
        let mut current = 0;
        let mut channels = self.convs[0].outputs();
        let out = take(&mut activations[0], rows * channels);
        self.convolve(&self.convs[0], input, conv, out, Activation::Relu, split);
        for layer in &self.convs[1..] {
            let next = (current + 1) % 3;
            let [x, out] = activations.get_disjoint_mut([current, next]).unwrap();
            let out = take(out, rows * layer.outputs());
            let x = &x[..rows * channels];
            self.convolve(layer, x, conv, out, Activation::Relu, split);
            (current, channels) = (next, layer.outputs());
        }
        for block in &self.blocks {
            // relu(se(c2(relu(c1(x)))) + x)
            let (first, second) = ((current + 1) % 3, (current + 2) % 3);
            let [x, h1, h2] = activations
                .get_disjoint_mut([current, first, second])
                .unwrap();
            let (x, h1) = (&x[..rows * channels], take(h1, rows * channels));
            self.convolve(&block.c1, x, conv, h1, Activation::Relu, split);
            let h2 = take(h2, rows * channels);
            self.convolve(&block.c2, h1, conv, h2, Activation::Identity, split);
            if let Some(se) = &block.se {
                self.squeeze_excite(se, h2, channels, [pooled, hidden, columns], split);
            }
            for (h, &skip) in h2.iter_mut().zip(x) {
                *h = (*h + skip).max(0.0);
            }
            current = second;
        }
        let board = &activations[current][..rows * channels];
        // The features of each position in flat[0]: the pooled head's sums, or the board.
        let [features, spare] = flat;
        match &self.head {
            Some(head) => {
                let n = head.outputs();
                let per_cell = take(columns, rows * n);
                head.apply(board, rows, per_cell, Activation::Relu, split);
                sum_over_cells(per_cell, cells, n, take(features, batch * n));
            }
            None => take(features, board.len()).copy_from_slice(board),
        }
        self.dense_layers(features, spare, values, split);
        if let (Some(policy), Some(logits)) = (&self.policy, logits) {
            let per_cell = take(policy_cells, rows);
            policy
                .conv
                .apply(board, rows, per_cell, Activation::Identity, split);
            policy
                .dense
                .apply(per_cell, batch, logits, Activation::Identity, split);
        }
    }

    /// The dense layers and the output on the features in `features` (one row per position),
    /// alternating between the two flat buffers; the values into `values`.
    fn dense_layers(
        &self,
        features: &mut Vec<f32>,
        spare: &mut Vec<f32>,
        values: &mut [f32],
        split: bool,
    ) {
        let batch = values.len();
        let layers = self.dense.len() + 1;
        for (i, layer) in self.dense.iter().chain([&self.out]).enumerate() {
            let (x, out) = if i % 2 == 0 {
                (&*features, &mut *spare)
            } else {
                (&*spare, &mut *features)
            };
            let activation = if i + 1 < layers {
                Activation::Relu
            } else {
                Activation::Identity
            };
            let out = take(out, batch * layer.outputs());
            layer.apply(&x[..batch * layer.inputs()], batch, out, activation, split);
        }
        let output = if layers % 2 == 1 { spare } else { features };
        for (value, &raw) in values.iter_mut().zip(output.iter()) {
            *value = if self.tanh_output { raw.tanh() } else { raw };
        }
    }

    /// Scales each channel of each position of `h` (`[positions · cells, channels]`) by
    /// `sigmoid(excite(relu(squeeze(its mean over the board))))`.
    fn squeeze_excite(
        &self,
        se: &SeLayer,
        h: &mut [f32],
        channels: usize,
        [pooled, hidden, gates]: [&mut Vec<f32>; 3],
        split: bool,
    ) {
        let cells = self.cells;
        let batch = h.len() / (cells * channels);
        let means = take(pooled, batch * channels);
        sum_over_cells(h, cells, channels, means);
        for m in means.iter_mut() {
            *m /= cells as f32;
        }
        let squeezed = take(hidden, batch * se.squeeze.outputs());
        se.squeeze
            .apply(means, batch, squeezed, Activation::Relu, split);
        let gates = take(gates, batch * channels);
        se.excite
            .apply(squeezed, batch, gates, Activation::Identity, split);
        for g in gates.iter_mut() {
            *g = 1.0 / (1.0 + (-*g).exp());
        }
        for (position, gate) in h
            .chunks_exact_mut(cells * channels)
            .zip(gates.chunks_exact(channels))
        {
            for cell in position.chunks_exact_mut(channels) {
                for (v, &g) in cell.iter_mut().zip(gate) {
                    *v *= g;
                }
            }
        }
    }

    /// `out = activation(conv3x3(x))` for `x` of `[rows, channels]` (`channels` = the
    /// convolution's inputs).
    fn convolve(
        &self,
        conv: &Conv3x3,
        x: &[f32],
        scratch: &mut ConvScratch,
        out: &mut [f32],
        activation: Activation,
        split: bool,
    ) {
        let board = (self.windows.as_deref(), &self.taps[..]);
        conv.apply(x, board, scratch, out, (activation, split));
    }
}
