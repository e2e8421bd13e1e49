//! `Conv3x3`: a 3×3 'same' convolution of the inference pass (`CpuNet`). Where the CPU has
//! AVX-512 it runs implicit, as the training step's forward does (`cpu_training::
//! implicit_conv`): the layer's input is copied once into zero-padded boards and the row kernel
//! reads each cell's nine neighbours where they lie, so nothing is copied nine times; elsewhere
//! it runs on im2col rows times the packed kernel (`PackedMatrix`). The two differ by float
//! rounding only (each sums the same products in its own order; tested).

use rayon::prelude::*;

use super::board_layout::{add_bias, im2col, take};
use super::cpu_training::implicit_conv::{self, Windows};
use super::cpu_training::matmul::View;
use super::packed_matmul::{Activation, PackedMatrix};

/// A 3×3 convolution's weights, laid out for the way it runs (one copy: a large network's
/// weights are most of its memory).
pub enum Conv3x3 {
    /// `[9 · inputs, outputs]` in panels, for im2col rows.
    Packed(PackedMatrix),
    /// `[9 · inputs, outputs]` row-major (tap-major rows) and the bias, read by the row kernel.
    Implicit {
        inputs: usize,
        outputs: usize,
        weight: Vec<f32>,
        bias: Vec<f32>,
    },
}

/// Multiply-adds above which an implicit product is split over rayon's threads.
const PARALLEL_WORK: usize = 1 << 21;
/// Rows of a share of a split implicit product, at least.
const SPLIT_ROWS: usize = 64;

/// One thread's buffers for convolutions, grown on demand and kept.
#[derive(Default)]
pub struct ConvScratch {
    padded: Vec<f32>,
    corners: Vec<usize>,
    columns: Vec<f32>,
}

/// Whether convolutions from `inputs` to `outputs` channels run implicit on this CPU.
pub fn runs_implicit(inputs: usize, outputs: usize) -> bool {
    implicit_conv::suits(inputs, outputs)
}

impl Conv3x3 {
    /// `weight(row, o)` for row `tap · inputs + channel`, and the bias; `implicit` chooses the
    /// layout (`runs_implicit`).
    pub fn new(
        [inputs, outputs]: [usize; 2],
        weight: impl Fn(usize, usize) -> f32,
        bias: &[f32],
        implicit: bool,
    ) -> Conv3x3 {
        if !implicit {
            return Conv3x3::Packed(PackedMatrix::new(9 * inputs, outputs, weight, bias));
        }
        let weight = (0..9 * inputs * outputs)
            .map(|i| weight(i / outputs, i % outputs))
            .collect();
        Conv3x3::Implicit {
            inputs,
            outputs,
            weight,
            bias: bias.to_vec(),
        }
    }

    pub fn inputs(&self) -> usize {
        match self {
            Conv3x3::Packed(packed) => packed.inputs() / 9,
            Conv3x3::Implicit { inputs, .. } => *inputs,
        }
    }

    pub fn outputs(&self) -> usize {
        match self {
            Conv3x3::Packed(packed) => packed.outputs(),
            Conv3x3::Implicit { outputs, .. } => *outputs,
        }
    }

    /// `out = activation(conv(x))` for `x` of `[positions · cells, inputs]`; `taps` are the
    /// board's cells' neighbours, `windows` its cells' windows (made for this convolution's
    /// input channels; needed where it runs implicit).
    ///
    /// # Panics
    /// An implicit convolution without `windows`.
    pub fn apply(
        &self,
        x: &[f32],
        (windows, taps): (Option<&Windows>, &[[usize; 9]]),
        scratch: &mut ConvScratch,
        out: &mut [f32],
        (activation, split): (Activation, bool),
    ) {
        match self {
            Conv3x3::Packed(packed) => {
                let channels = packed.inputs() / 9;
                let rows = x.len() / channels;
                let columns = take(&mut scratch.columns, rows * packed.inputs());
                im2col(taps, x, channels, columns);
                packed.apply(columns, rows, out, activation, split);
            }
            Conv3x3::Implicit { .. } => {
                let windows = windows.expect("an implicit convolution reads windows");
                self.implicit(x, windows, scratch, out, activation, split);
            }
        }
    }

    fn implicit(
        &self,
        x: &[f32],
        windows: &Windows,
        scratch: &mut ConvScratch,
        out: &mut [f32],
        activation: Activation,
        split: bool,
    ) {
        let Conv3x3::Implicit {
            inputs: channels,
            outputs,
            weight,
            bias,
        } = self
        else {
            unreachable!("a packed convolution runs on im2col rows")
        };
        let (channels, outputs) = (*channels, *outputs);
        let rows = x.len() / channels;
        let positions = rows / windows.cells();
        let padded = take(&mut scratch.padded, windows.padded_len(positions, channels));
        windows.pad(x, channels, padded);
        windows.corners(positions, &mut scratch.corners);
        let weight = View::row_major(weight, outputs);
        let relu = activation == Activation::Relu;
        let product = |corners: &[usize], out: &mut [f32]| {
            windows.forward(padded, channels, corners, weight, out);
            add_bias(out, bias, relu);
        };
        let threads = rayon::current_num_threads();
        if split && threads > 1 && rows * 9 * channels * outputs >= PARALLEL_WORK {
            let chunk = rows.div_ceil(threads).max(SPLIT_ROWS);
            scratch
                .corners
                .par_chunks(chunk)
                .zip(out.par_chunks_mut(chunk * outputs))
                .for_each(|(corners, out)| product(corners, out));
        } else {
            product(&scratch.corners, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::direct::board_layout::board_taps;

    /// A 3×3 'same' convolution by the book, in f64: `x` `[positions · cells, inputs]`,
    /// `weight(tap · inputs + channel, o)`.
    fn reference(
        x: &[f32],
        [rows, cols, inputs, outputs]: [usize; 4],
        weight: &impl Fn(usize, usize) -> f32,
        bias: &[f32],
    ) -> Vec<f32> {
        let cells = rows * cols;
        let positions = x.len() / (cells * inputs);
        let mut out = vec![0.0; positions * cells * outputs];
        for p in 0..positions {
            for cell in 0..cells {
                let (r, c) = ((cell / cols) as isize, (cell % cols) as isize);
                for o in 0..outputs {
                    let mut sum = bias[o] as f64;
                    for tap in 0..9 {
                        let (nr, nc) = (r + tap as isize / 3 - 1, c + tap as isize % 3 - 1);
                        if nr < 0 || nc < 0 || nr >= rows as isize || nc >= cols as isize {
                            continue;
                        }
                        let neighbour = p * cells + nr as usize * cols + nc as usize;
                        for i in 0..inputs {
                            let w = weight(tap * inputs + i, o) as f64;
                            sum += x[neighbour * inputs + i] as f64 * w;
                        }
                    }
                    out[(p * cells + cell) * outputs + o] = sum as f32;
                }
            }
        }
        out
    }

    #[test]
    fn both_layouts_convolve_as_the_book_does() {
        // Connect Four's board; a stem of 3 planes, 5 channels (a depth table, not runs of a
        // power of two), 64 channels; one position and 9 (several row tiles, a product split
        // over threads at 64 channels).
        let (rows, cols) = (6, 7);
        let taps = board_taps(rows, cols);
        for (inputs, outputs) in [(3, 64), (5, 17), (64, 64)] {
            let windows = Windows::new(rows, cols, [inputs]);
            let weight = |row: usize, o: usize| (((row * 31 + o * 17) % 23) as f32 - 11.0) / 23.0;
            let bias: Vec<f32> = (0..outputs).map(|o| (o % 5) as f32 * 0.1 - 0.2).collect();
            for positions in [1, 9] {
                let len = positions * rows * cols * inputs;
                let x: Vec<f32> = (0..len)
                    .map(|i| ((i * 7) % 13) as f32 / 6.5 - 1.0)
                    .collect();
                let shape = [rows, cols, inputs, outputs];
                let want = reference(&x, shape, &weight, &bias);
                let mut layouts = vec![false];
                if runs_implicit(inputs, outputs) {
                    layouts.push(true);
                } else {
                    eprintln!("no AVX-512 here: only the packed layout runs");
                }
                for implicit in layouts {
                    let conv = Conv3x3::new([inputs, outputs], weight, &bias, implicit);
                    assert_eq!([conv.inputs(), conv.outputs()], [inputs, outputs]);
                    for (activation, split) in
                        [(Activation::Identity, false), (Activation::Relu, true)]
                    {
                        let mut out = vec![f32::NAN; want.len()];
                        let mut scratch = ConvScratch::default();
                        let board = (Some(&windows), &taps[..]);
                        conv.apply(&x, board, &mut scratch, &mut out, (activation, split));
                        for (i, (&got, &want)) in out.iter().zip(&want).enumerate() {
                            let want = match activation {
                                Activation::Relu => want.max(0.0),
                                Activation::Identity => want,
                            };
                            assert!(
                                (got - want).abs() <= 1e-4 * (1.0 + want.abs()),
                                "implicit {implicit}, {inputs}→{outputs}, {positions} positions, \
                                 {activation:?}: element {i} is {got}, want {want}"
                            );
                        }
                    }
                }
            }
        }
    }
}
