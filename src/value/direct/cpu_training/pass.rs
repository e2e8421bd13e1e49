//! One chunk of a minibatch forward through the network, keeping what the backward pass needs,
//! then back: the gradient of the chunk's share of the batch's mean loss (the value loss, and a
//! policy-value network's policy cross-entropy) with respect to every parameter. Boards are
//! channels-last rows (`[positions · cells, channels]`), a 3×3 convolution a product on its
//! zero-padded input read in place (`implicit_conv`) or, where that does not run, on im2col rows;
//! buffers live in the `Chunk` and are reused step after step.

use multiversion::multiversion;

use super::flat::{Params, ParamsMut};
use super::implicit_conv;
use super::matmul::{Strides, View, matmul};
use super::plan::{Affine, BlockPlan, Plan};
use crate::value::direct::board_layout::{
    add_bias, channels_last, col2im_add, im2col, sum_over_cells, take,
};

/// What a residual block's forward pass keeps for its backward pass.
#[derive(Default)]
pub(super) struct BlockCache {
    /// What `c1` read (`Plan::conv_forward`): `x` zero-padded, or its im2col rows.
    pub(super) c1_input: Vec<f32>,
    /// `relu(c1(x))`.
    pub(super) hidden: Vec<f32>,
    /// What `c2` read: `hidden` zero-padded, or its im2col rows.
    pub(super) c2_input: Vec<f32>,
    /// `c2(hidden)`, before squeeze-excitation.
    pub(super) residual: Vec<f32>,
    /// Squeeze-excitation: each position's channel means, the squeezed layer, the gates.
    pub(super) means: Vec<f32>,
    pub(super) squeezed: Vec<f32>,
    pub(super) gates: Vec<f32>,
}

/// A chunk's activations, gradients and scratch buffers.
#[derive(Default)]
pub struct Chunk {
    /// `boards[0]`: the input, channels last; then each plain convolution's output, then each
    /// residual block's.
    pub(super) boards: Vec<Vec<f32>>,
    /// What each plain convolution read (`Plan::conv_forward`): its input zero-padded, or its
    /// im2col rows.
    pub(super) conv_inputs: Vec<Vec<f32>>,
    /// Each row's 3×3 window on the zero-padded boards (`Windows::corners`).
    pub(super) corners: Vec<usize>,
    pub(super) blocks: Vec<BlockCache>,
    /// `relu(head(board))`, per cell.
    pub(super) head_cells: Vec<f32>,
    /// `layers[0]`: the pooled head's features (without a pooled head, the dense layers read
    /// the board itself); then each dense layer's output.
    pub(super) layers: Vec<Vec<f32>>,
    /// The network's outputs.
    pub(super) values: Vec<f32>,
    /// The policy head's one channel per cell, and its logits per position.
    pub(super) policy_cells: Vec<f32>,
    pub(super) logits: Vec<f32>,
    /// The policy head's gradients: of the logits, of its channel, of the board through it.
    pub(super) grad_policy: [Vec<f32>; 3],
    pub(super) grad_boards: [Vec<f32>; 2],
    pub(super) grad_residual: Vec<f32>,
    pub(super) grad_hidden: Vec<f32>,
    /// A convolution's input gradient's scratch (`Plan::conv_backward`): the zero-padded output
    /// gradient and the flipped kernel, or the gradient of the im2col rows.
    pub(super) grad_conv: [Vec<f32>; 2],
    pub(super) grad_se: [Vec<f32>; 3],
    pub(super) grad_layers: [Vec<f32>; 2],
    pub(super) grad_features: Vec<f32>,
    /// The value loss summed over this chunk's positions (Σ (value − target)² for the MSE).
    pub value_loss: f64,
    /// The policy cross-entropy summed over this chunk's positions (0 for a value network).
    pub cross_entropy: f64,
}

/// `out = x · W + b` on `rows` rows, then ReLU if `relu`.
pub(super) fn affine(
    a: &Affine,
    params: Params<'_>,
    x: &[f32],
    rows: usize,
    out: &mut [f32],
    relu: bool,
) {
    let weight = View {
        data: &params[a.weight],
        strides: a.strides,
    };
    let x = View::row_major(&x[..rows * a.inputs], a.inputs);
    let out = &mut out[..rows * a.outputs];
    matmul(
        [rows, a.inputs, a.outputs],
        x,
        weight,
        out,
        Strides::row_major(a.outputs),
        false,
    );
    add_bias(out, &params[a.bias()], relu);
}

/// The gradient of a bias added to every row: the sum of the rows of `dz`.
#[multiversion(targets("x86_64+avx512f+avx2+fma", "x86_64+avx2+fma"))]
pub(super) fn bias_gradient(dz: &[f32], grad_bias: &mut [f32]) {
    grad_bias.fill(0.0);
    for row in dz.chunks_exact(grad_bias.len()) {
        for (g, &d) in grad_bias.iter_mut().zip(row) {
            *g += d;
        }
    }
}

/// Given `dz`, the gradient of `x · W + b` on `rows` rows: the weight's and the bias's
/// gradients into `grads`, and the input's into `dx` if asked.
pub(super) fn affine_backward(
    a: &Affine,
    params: Params<'_>,
    grads: &mut ParamsMut<'_>,
    x: &[f32],
    dz: &[f32],
    rows: usize,
    dx: Option<&mut [f32]>,
) {
    let (x, dz) = (&x[..rows * a.inputs], &dz[..rows * a.outputs]);
    let grad_weight = &mut grads[a.weight];
    matmul(
        [a.inputs, rows, a.outputs],
        View::row_major(x, a.inputs).transposed(),
        View::row_major(dz, a.outputs),
        grad_weight,
        a.strides,
        false,
    );
    bias_gradient(dz, &mut grads[a.bias()]);
    if let Some(dx) = dx {
        let weight = View {
            data: &params[a.weight],
            strides: a.strides.transposed(),
        };
        matmul(
            [rows, a.outputs, a.inputs],
            View::row_major(dz, a.outputs),
            weight,
            &mut dx[..rows * a.inputs],
            Strides::row_major(a.inputs),
            false,
        );
    }
}

/// Zeroes the gradient `grad` where the ReLU output `out` is zero.
#[multiversion(targets("x86_64+avx512f+avx2+fma", "x86_64+avx2+fma"))]
pub(super) fn relu_backward(grad: &mut [f32], out: &[f32]) {
    // A select rather than a branch: vectorised.
    for (g, &o) in grad.iter_mut().zip(out) {
        *g = if o > 0.0 { *g } else { 0.0 };
    }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

impl Plan {
    /// im2col of `x` (`[rows, channels]`) into `columns`, grown to `[rows, 9 · channels]`.
    fn im2col(&self, x: &[f32], channels: usize, columns: &mut Vec<f32>) {
        im2col(&self.taps, x, channels, take(columns, x.len() * 9));
    }

    /// The adjoint of `im2col`: adds each column's gradient to the cell it was read from.
    pub(super) fn col2im_add(&self, grad_columns: &[f32], channels: usize, grad_x: &mut [f32]) {
        col2im_add(&self.taps, grad_columns, channels, grad_x);
    }

    /// Whether `conv` runs on its zero-padded input in place (`implicit_conv`) rather than on
    /// im2col rows.
    pub(super) fn implicit(&self, conv: &Affine) -> bool {
        self.implicit_convs && implicit_conv::suits(conv.inputs / 9, conv.outputs)
    }

    /// A 3×3 convolution of `x` (`[rows, conv.inputs / 9]`, a row per corner) into `out`, then
    /// ReLU if `relu`, keeping in `input` what its backward pass reads: `x` zero-padded where
    /// the convolution runs implicit, else its im2col rows.
    #[allow(clippy::too_many_arguments)]
    fn conv_forward(
        &self,
        conv: &Affine,
        params: Params<'_>,
        x: &[f32],
        corners: &[usize],
        input: &mut Vec<f32>,
        out: &mut [f32],
        relu: bool,
    ) {
        let (channels, rows) = (conv.inputs / 9, corners.len());
        let (x, out) = (&x[..rows * channels], &mut out[..rows * conv.outputs]);
        if self.implicit(conv) {
            let padded = take(input, self.windows.padded_len(rows / self.cells, channels));
            self.windows.pad(x, channels, padded);
            let weight = View {
                data: &params[conv.weight],
                strides: conv.strides,
            };
            self.windows.forward(padded, channels, corners, weight, out);
            add_bias(out, &params[conv.bias()], relu);
        } else {
            self.im2col(x, channels, input);
            affine(conv, params, input, rows, out, relu);
        }
    }

    /// The forward pass of `positions` encoded positions (`inputs`, planes first), keeping
    /// every activation in `chunk`.
    pub fn forward(&self, params: Params<'_>, inputs: &[f32], positions: usize, chunk: &mut Chunk) {
        let rows = positions * self.cells;
        let stages = self.convs.len() + self.blocks.len();
        chunk.boards.resize_with(stages + 1, Vec::new);
        chunk.conv_inputs.resize_with(self.convs.len(), Vec::new);
        self.windows.corners(positions, &mut chunk.corners);
        chunk
            .blocks
            .resize_with(self.blocks.len(), BlockCache::default);
        chunk.layers.resize_with(self.dense.len() + 1, Vec::new);
        let input = take(&mut chunk.boards[0], rows * self.planes);
        channels_last(inputs, input, self.planes, self.cells);
        for (i, conv) in self.convs.iter().enumerate() {
            let (done, rest) = chunk.boards.split_at_mut(i + 1);
            let out = take(&mut rest[0], rows * conv.outputs);
            let input = &mut chunk.conv_inputs[i];
            self.conv_forward(conv, params, &done[i], &chunk.corners, input, out, true);
        }
        let filters = self.filters();
        for (j, block) in self.blocks.iter().enumerate() {
            let k = self.convs.len() + j;
            let (done, rest) = chunk.boards.split_at_mut(k + 1);
            let out = take(&mut rest[0], rows * filters);
            let x = &done[k][..rows * filters];
            let cache = &mut chunk.blocks[j];
            self.block_forward(block, params, x, &chunk.corners, cache, out);
        }
        let board = &chunk.boards[stages][..rows * filters];
        if let Some(head) = &self.head {
            let (head_cells, features) = (&mut chunk.head_cells, &mut chunk.layers[0]);
            self.pooled_head(head, params, board, positions, [head_cells, features]);
        }
        for (i, layer) in self.dense.iter().enumerate() {
            let (done, rest) = chunk.layers.split_at_mut(i + 1);
            let x = self.dense_input(i, board, done);
            let out = take(&mut rest[0], positions * layer.outputs);
            affine(layer, params, x, positions, out, true);
        }
        let values = take(&mut chunk.values, positions);
        let x = self.dense_input(self.dense.len(), board, &chunk.layers);
        affine(&self.out, params, x, positions, values, false);
        if self.tanh_output {
            values.iter_mut().for_each(|v| *v = v.tanh());
        }
        if let Some(policy) = &self.policy {
            let per_cell = take(&mut chunk.policy_cells, rows);
            affine(&policy.conv, params, board, rows, per_cell, false);
            let logits = take(&mut chunk.logits, positions * policy.actions());
            affine(&policy.dense, params, per_cell, positions, logits, false);
        }
    }

    /// `out = relu(se(c2(relu(c1(x)))) + x)`.
    fn block_forward(
        &self,
        block: &BlockPlan,
        params: Params<'_>,
        x: &[f32],
        corners: &[usize],
        cache: &mut BlockCache,
        out: &mut [f32],
    ) {
        let channels = block.c1.outputs;
        let rows = x.len() / channels;
        let hidden = take(&mut cache.hidden, rows * channels);
        self.conv_forward(
            &block.c1,
            params,
            x,
            corners,
            &mut cache.c1_input,
            hidden,
            true,
        );
        let residual = take(&mut cache.residual, rows * channels);
        let input = &mut cache.c2_input;
        self.conv_forward(&block.c2, params, hidden, corners, input, residual, false);
        out.copy_from_slice(residual);
        if let Some([squeeze, excite]) = &block.se {
            let positions = rows / self.cells;
            let means = take(&mut cache.means, positions * channels);
            sum_over_cells(residual, self.cells, channels, means);
            means.iter_mut().for_each(|m| *m /= self.cells as f32);
            let squeezed = take(&mut cache.squeezed, positions * squeeze.outputs);
            affine(squeeze, params, means, positions, squeezed, true);
            let gates = take(&mut cache.gates, positions * channels);
            affine(excite, params, squeezed, positions, gates, false);
            gates.iter_mut().for_each(|g| *g = sigmoid(*g));
            for (position, gate) in out
                .chunks_exact_mut(self.cells * channels)
                .zip(gates.chunks_exact(channels))
            {
                for cell in position.chunks_exact_mut(channels) {
                    cell.iter_mut().zip(gate).for_each(|(v, &g)| *v *= g);
                }
            }
        }
        for (o, &skip) in out.iter_mut().zip(x) {
            *o = (*o + skip).max(0.0);
        }
    }

    /// What dense layer `i` (the output layer when `i` is their count) reads: the features
    /// for the first, the previous layer's output after. The features are the pooled head's
    /// sums (`layers[0]`), or the board itself: the first layer's weight rows are kept in the
    /// board's channels-last order (`Parameter::working_order`), so burn's flattening costs no
    /// copy.
    pub(super) fn dense_input<'a>(
        &self,
        i: usize,
        board: &'a [f32],
        layers: &'a [Vec<f32>],
    ) -> &'a [f32] {
        if i == 0 && self.head.is_none() {
            board
        } else {
            &layers[i]
        }
    }

    /// The pooled head: `relu(head(board))` per cell into `head_cells`, summed over each board
    /// into `features`.
    fn pooled_head(
        &self,
        head: &Affine,
        params: Params<'_>,
        board: &[f32],
        positions: usize,
        [head_cells, features]: [&mut Vec<f32>; 2],
    ) {
        let cells = self.cells;
        let per_cell = take(head_cells, positions * cells * head.outputs);
        affine(head, params, board, positions * cells, per_cell, true);
        sum_over_cells(
            per_cell,
            cells,
            head.outputs,
            take(features, positions * head.outputs),
        );
    }
}
