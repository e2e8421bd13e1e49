//! The backward pass of a chunk, after `Plan::forward` on it: the gradient of the batch's mean
//! loss — the value loss (MSE, ExIt's cross-entropy, or none) plus a policy head's cross-entropy
//! — flows from the outputs back to the first convolution, leaving each parameter's gradient
//! (summed over the chunk's positions) in `Chunk::grads`.

use std::mem::swap;

use super::flat::{Params, ParamsMut};
use super::pass::{BlockCache, Chunk, affine_backward, bias_gradient, relu_backward};
use super::plan::{Affine, BlockPlan, Plan, PolicyPlan};
use crate::value::direct::board_layout::take;
use crate::value::policy_value_loss::{softmax_cross_entropy_gradient, value_loss_and_slope};
use crate::value::policy_value_net::ValueLoss;

/// What a chunk's positions are trained toward.
#[derive(Clone, Copy, Debug)]
pub struct Targets<'a> {
    /// Value targets (P0's view), one per position.
    pub values: &'a [f32],
    /// Policy targets, a distribution over the action ids per position (a policy-value
    /// network's; else empty).
    pub policies: &'a [f32],
    pub value_loss: ValueLoss,
}

/// A residual block's gradient buffers.
struct BlockScratch<'a> {
    residual: &'a mut Vec<f32>,
    hidden: &'a mut Vec<f32>,
    conv: &'a mut [Vec<f32>; 2],
    se: &'a mut [Vec<f32>; 3],
}

impl Plan {
    /// Sets `grads` to the gradient of the chunk's positions' losses (`targets`, one per
    /// position `forward` saw) over `batch` — `Σ (value − target)² / batch` for the MSE, plus
    /// the policy cross-entropy's `−Σ π log softmax(logits) / batch` — and `chunk.value_loss`
    /// and `chunk.cross_entropy` to the sums.
    pub fn backward(
        &self,
        params: Params<'_>,
        targets: &Targets<'_>,
        batch: usize,
        chunk: &mut Chunk,
        grads: &mut ParamsMut<'_>,
    ) {
        let positions = targets.values.len();
        let rows = positions * self.cells;
        let Chunk {
            boards,
            corners,
            blocks,
            layers,
            grad_policy,
            grad_boards,
            grad_residual,
            grad_hidden,
            grad_conv,
            grad_se,
            grad_layers,
            grad_features,
            ..
        } = chunk;
        let [grad_output, spare] = grad_layers;
        chunk.value_loss = self.output_gradient(
            &chunk.values[..positions],
            targets,
            batch,
            take(grad_output, positions),
        );
        let [grad_board, grad_spare] = grad_boards.each_mut();
        let filters = self.filters();
        let stages = self.convs.len() + self.blocks.len();
        let board = &boards[stages][..rows * filters];
        let grad = take(grad_board, rows * filters);
        match &self.head {
            Some(head) => {
                let features = take(grad_features, positions * head.outputs);
                let dense = [grad_output, spare];
                self.dense_backward(params, grads, board, layers, dense, features, positions);
                let head_cells = &chunk.head_cells[..rows * head.outputs];
                self.head_backward(
                    head,
                    params,
                    grads,
                    board,
                    head_cells,
                    features,
                    grad_residual,
                    grad,
                );
            }
            // The dense layers read the board itself.
            None => {
                let dense = [grad_output, spare];
                self.dense_backward(params, grads, board, layers, dense, grad, positions);
            }
        }
        chunk.cross_entropy = match &self.policy {
            Some(policy) => self.policy_backward(
                policy,
                (params, grads),
                (board, &mut chunk.policy_cells, &mut chunk.logits),
                targets.policies,
                batch,
                grad_policy,
                &mut grad_board[..rows * filters],
            ),
            None => 0.0,
        };
        let mut scratch = BlockScratch {
            residual: grad_residual,
            hidden: grad_hidden,
            conv: grad_conv,
            se: grad_se,
        };
        let model = (boards.as_slice(), blocks.as_slice(), corners.as_slice());
        let pair = [grad_board, grad_spare];
        let [grad_board, grad_spare] =
            self.blocks_backward((params, grads), model, rows, pair, &mut scratch);
        let grad_conv = scratch.conv;
        let scratch = ([grad_board, grad_spare], grad_conv);
        self.convs_backward(
            params,
            grads,
            boards,
            (&chunk.conv_inputs, corners),
            scratch,
        );
    }

    /// Back through a 3×3 convolution from `grad_out`, its output's gradient (`[rows,
    /// outputs]`, a row per corner, the ReLU's mask applied): its weight's and bias's gradients
    /// into `grads`, and its input's into `grad_x` if asked (added to what is there when the
    /// flag says so). `input` is what `conv_forward` kept.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn conv_backward(
        &self,
        conv: &Affine,
        params: Params<'_>,
        grads: &mut ParamsMut<'_>,
        (input, corners): (&[f32], &[usize]),
        grad_out: &[f32],
        grad_x: Option<(&mut [f32], bool)>,
        scratch: &mut [Vec<f32>; 2],
    ) {
        let (channels, rows) = (conv.inputs / 9, corners.len());
        let grad_out = &grad_out[..rows * conv.outputs];
        if self.implicit(conv) {
            let grad_weight = &mut grads[conv.weight];
            let outputs = conv.outputs;
            self.windows
                .weight_gradient(input, channels, corners, grad_out, outputs, grad_weight);
            bias_gradient(grad_out, &mut grads[conv.bias()]);
            if let Some((grad_x, accumulate)) = grad_x {
                self.windows.input_gradient(
                    grad_out,
                    corners,
                    &params[conv.weight],
                    [channels, outputs],
                    scratch.each_mut(),
                    grad_x,
                    accumulate,
                );
            }
            return;
        }
        let Some((grad_x, accumulate)) = grad_x else {
            affine_backward(conv, params, grads, input, grad_out, rows, None);
            return;
        };
        let grad_columns = take(&mut scratch[0], rows * conv.inputs);
        affine_backward(
            conv,
            params,
            grads,
            input,
            grad_out,
            rows,
            Some(grad_columns),
        );
        let grad_x = &mut grad_x[..rows * channels];
        if !accumulate {
            grad_x.fill(0.0);
        }
        self.col2im_add(grad_columns, channels, grad_x);
    }

    /// Back through the plain convolutions, last to first, from the gradient of the last one's
    /// output (in `grad_board`); the input gets none.
    fn convs_backward(
        &self,
        params: Params<'_>,
        grads: &mut ParamsMut<'_>,
        boards: &[Vec<f32>],
        (inputs, corners): (&[Vec<f32>], &[usize]),
        ([mut grad_board, mut grad_spare], grad_conv): ([&mut Vec<f32>; 2], &mut [Vec<f32>; 2]),
    ) {
        let rows = corners.len();
        for (i, conv) in self.convs.iter().enumerate().rev() {
            let grad_out = &mut grad_board[..rows * conv.outputs];
            relu_backward(grad_out, &boards[i + 1][..rows * conv.outputs]);
            let input = (&inputs[i][..], corners);
            // The input needs no gradient.
            let grad_x = (i > 0).then(|| (take(grad_spare, rows * conv.inputs / 9), false));
            self.conv_backward(conv, params, grads, input, grad_out, grad_x, grad_conv);
            swap(&mut grad_board, &mut grad_spare);
        }
    }

    /// The gradient of the value loss summed over the chunk, over `batch`, with respect to each
    /// output before its tanh, into `grad`; returns the sum of the losses.
    fn output_gradient(
        &self,
        values: &[f32],
        targets: &Targets<'_>,
        batch: usize,
        grad: &mut [f32],
    ) -> f64 {
        let mut sum = 0.0;
        for ((g, &v), &t) in grad.iter_mut().zip(values).zip(targets.values) {
            let (loss, slope) = value_loss_and_slope(targets.value_loss, v, t);
            sum += loss;
            let tanh_slope = if self.tanh_output { 1.0 - v * v } else { 1.0 };
            *g = slope / batch as f32 * tanh_slope;
        }
        sum
    }

    /// Back through the policy head from its cross-entropy against `policies`: the head's
    /// gradients into `grads`, the board's added to `grad_board`; returns the chunk's summed
    /// cross-entropy.
    #[allow(clippy::too_many_arguments)]
    fn policy_backward(
        &self,
        policy: &PolicyPlan,
        (params, grads): (Params<'_>, &mut ParamsMut<'_>),
        (board, policy_cells, logits): (&[f32], &[f32], &[f32]),
        policies: &[f32],
        batch: usize,
        [grad_logits, grad_cells, grad_through]: &mut [Vec<f32>; 3],
        grad_board: &mut [f32],
    ) -> f64 {
        let actions = policy.actions();
        let positions = policies.len() / actions;
        let rows = positions * self.cells;
        let grad_logits = take(grad_logits, positions * actions);
        let cross_entropy = softmax_cross_entropy_gradient(
            &logits[..positions * actions],
            policies,
            actions,
            batch,
            grad_logits,
        );
        let grad_cells = take(grad_cells, rows);
        let dense_input = &policy_cells[..rows];
        let into_cells = Some(&mut grad_cells[..]);
        affine_backward(
            &policy.dense,
            params,
            grads,
            dense_input,
            grad_logits,
            positions,
            into_cells,
        );
        let grad_through = take(grad_through, grad_board.len());
        affine_backward(
            &policy.conv,
            params,
            grads,
            board,
            grad_cells,
            rows,
            Some(grad_through),
        );
        grad_board
            .iter_mut()
            .zip(grad_through.iter())
            .for_each(|(g, &p)| *g += p);
        cross_entropy
    }

    /// Back through the output and the dense layers, from the output's gradient (in the first
    /// scratch buffer) to the features' (`grad_features`).
    #[allow(clippy::too_many_arguments)]
    fn dense_backward(
        &self,
        params: Params<'_>,
        grads: &mut ParamsMut<'_>,
        board: &[f32],
        layers: &[Vec<f32>],
        [mut grad, mut spare]: [&mut Vec<f32>; 2],
        grad_features: &mut [f32],
        positions: usize,
    ) {
        let last = self.dense.len();
        for i in (0..=last).rev() {
            let layer = if i == last { &self.out } else { &self.dense[i] };
            let grad_out = &mut grad[..positions * layer.outputs];
            if i < last {
                relu_backward(grad_out, &layers[i + 1][..positions * layer.outputs]);
            }
            let x = self.dense_input(i, board, layers);
            let grad_in = if i == 0 {
                &mut *grad_features
            } else {
                take(spare, positions * layer.inputs)
            };
            affine_backward(layer, params, grads, x, grad_out, positions, Some(grad_in));
            swap(&mut grad, &mut spare);
        }
    }

    /// From the pooled features' gradient to the board's: summing over the board spreads each
    /// sum's gradient to every cell, then back through `relu(head(board))`.
    #[allow(clippy::too_many_arguments)]
    fn head_backward(
        &self,
        head: &Affine,
        params: Params<'_>,
        grads: &mut ParamsMut<'_>,
        board: &[f32],
        head_cells: &[f32],
        grad_features: &[f32],
        scratch: &mut Vec<f32>,
        grad_board: &mut [f32],
    ) {
        let (cells, n) = (self.cells, head.outputs);
        let rows = board.len() / self.filters();
        let grad_cells = take(scratch, rows * n);
        for (position, sums) in grad_cells
            .chunks_exact_mut(cells * n)
            .zip(grad_features.chunks_exact(n))
        {
            position
                .chunks_exact_mut(n)
                .for_each(|cell| cell.copy_from_slice(sums));
        }
        relu_backward(grad_cells, head_cells);
        affine_backward(
            head,
            params,
            grads,
            board,
            grad_cells,
            rows,
            Some(grad_board),
        );
    }

    /// The residual blocks' backward passes, last block first: the first of `pair` holds the
    /// gradient at the last block's output; the first of the pair returned, the gradient at
    /// the first block's input.
    fn blocks_backward<'g>(
        &self,
        (params, grads): (Params<'_>, &mut ParamsMut<'_>),
        (boards, blocks, corners): (&[Vec<f32>], &[BlockCache], &[usize]),
        rows: usize,
        [mut grad_board, mut grad_spare]: [&'g mut Vec<f32>; 2],
        scratch: &mut BlockScratch<'_>,
    ) -> [&'g mut Vec<f32>; 2] {
        let n = rows * self.filters();
        for (j, block) in self.blocks.iter().enumerate().rev() {
            let k = self.convs.len() + j;
            let scratch = BlockScratch {
                residual: &mut *scratch.residual,
                hidden: &mut *scratch.hidden,
                conv: &mut *scratch.conv,
                se: &mut *scratch.se,
            };
            let grad_x = take(grad_spare, n);
            let x_out = [&boards[k][..n], &boards[k + 1][..n]];
            let cache = (&blocks[j], corners);
            let grad_out = &mut grad_board[..n];
            self.block_backward(
                block, params, grads, cache, x_out, grad_out, grad_x, scratch,
            );
            swap(&mut grad_board, &mut grad_spare);
        }
        [grad_board, grad_spare]
    }

    /// Back through `relu(se(c2(relu(c1(x)))) + x)`: `grad_out` (the output's gradient, used as
    /// scratch) to `grad_x`.
    #[allow(clippy::too_many_arguments)]
    fn block_backward(
        &self,
        block: &BlockPlan,
        params: Params<'_>,
        grads: &mut ParamsMut<'_>,
        (cache, corners): (&BlockCache, &[usize]),
        [x, out]: [&[f32]; 2],
        grad_out: &mut [f32],
        grad_x: &mut [f32],
        scratch: BlockScratch<'_>,
    ) {
        let channels = block.c1.outputs;
        let rows = x.len() / channels;
        // The gradient of the sum before the last ReLU: the skip's and the residual's.
        relu_backward(grad_out, out);
        let grad_residual = take(scratch.residual, rows * channels);
        match &block.se {
            None => grad_residual.copy_from_slice(grad_out),
            Some(se) => self.se_backward(
                se,
                params,
                grads,
                cache,
                grad_out,
                grad_residual,
                scratch.se,
            ),
        }
        let grad_hidden = take(scratch.hidden, rows * channels);
        let c2 = (&cache.c2_input[..], corners);
        let into_hidden = Some((&mut grad_hidden[..], false));
        self.conv_backward(
            &block.c2,
            params,
            grads,
            c2,
            grad_residual,
            into_hidden,
            scratch.conv,
        );
        relu_backward(grad_hidden, &cache.hidden[..rows * channels]);
        // The skip's gradient, then the residual's added.
        grad_x.copy_from_slice(grad_out);
        let c1 = (&cache.c1_input[..], corners);
        let into_x = Some((grad_x, true));
        self.conv_backward(
            &block.c1,
            params,
            grads,
            c1,
            grad_hidden,
            into_x,
            scratch.conv,
        );
    }

    /// Back through `residual ⊙ sigmoid(excite(relu(squeeze(mean(residual)))))`: the gradient
    /// of the product (`grad_scaled`) to the residual's (`grad_residual`), both paths.
    #[allow(clippy::too_many_arguments)]
    fn se_backward(
        &self,
        [squeeze, excite]: &[Affine; 2],
        params: Params<'_>,
        grads: &mut ParamsMut<'_>,
        cache: &BlockCache,
        grad_scaled: &[f32],
        grad_residual: &mut [f32],
        [grad_gates, grad_squeezed, grad_means]: &mut [Vec<f32>; 3],
    ) {
        let (cells, channels) = (self.cells, excite.outputs);
        let positions = grad_scaled.len() / (cells * channels);
        let grad_gates = take(grad_gates, positions * channels);
        grad_gates.fill(0.0);
        let per_position = cells * channels;
        for (p, grad_gate) in grad_gates.chunks_exact_mut(channels).enumerate() {
            let gate = &cache.gates[p * channels..(p + 1) * channels];
            for cell in 0..cells {
                let at = p * per_position + cell * channels;
                for c in 0..channels {
                    let g = grad_scaled[at + c];
                    grad_gate[c] += g * cache.residual[at + c];
                    grad_residual[at + c] = g * gate[c];
                }
            }
        }
        for (d, &g) in grad_gates.iter_mut().zip(&cache.gates) {
            *d *= g * (1.0 - g);
        }
        let grad_squeezed = take(grad_squeezed, positions * squeeze.outputs);
        affine_backward(
            excite,
            params,
            grads,
            &cache.squeezed,
            grad_gates,
            positions,
            Some(grad_squeezed),
        );
        relu_backward(
            grad_squeezed,
            &cache.squeezed[..positions * squeeze.outputs],
        );
        let grad_means = take(grad_means, positions * channels);
        affine_backward(
            squeeze,
            params,
            grads,
            &cache.means,
            grad_squeezed,
            positions,
            Some(grad_means),
        );
        for (position, means) in grad_residual
            .chunks_exact_mut(per_position)
            .zip(grad_means.chunks_exact(channels))
        {
            for cell in position.chunks_exact_mut(channels) {
                for (g, &m) in cell.iter_mut().zip(means) {
                    *g += m / cells as f32;
                }
            }
        }
    }
}
