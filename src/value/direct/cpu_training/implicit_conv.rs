//! 3×3 'same' convolutions without im2col rows: a layer's input is copied once into a
//! zero-padded board (`[positions · padded cells, channels]`, a ring of zeros around each
//! board), and the row kernel reads each output row's nine neighbours where they lie
//! (`row_kernel::Left`: each row from its window's top-left corner, the depth in nine runs of
//! `channels`, one per tap). The weight gradient reads the same board transposed (its depth is
//! the rows), and the input gradient is the convolution of the zero-padded output gradient with
//! the kernel flipped and transposed. Against im2col, nothing is copied nine times (6 MB per
//! chunk and layer on Connect Four's 64-channel layers), nothing is added back (col2im), and
//! no operand is packed. Runs on the row kernel for any channel counts: a window's depth steps
//! through its nine taps in runs of `channels` (a shift and a mask for a power of two, else a
//! table of its `9 · channels` offsets, made once per channel count in `Windows::new`).

use super::matmul::View;
use super::row_kernel::{self, Left, Offsets, gathered_product};
use crate::value::direct::board_layout::take;

/// Where each cell's 3×3 window lies on a zero-padded board.
#[derive(Clone, Debug)]
pub struct Windows {
    /// Columns of a padded board: the board's and one zero on either side.
    padded_cols: usize,
    /// Cells of a padded board, zeros included.
    padded_cells: usize,
    /// For each cell of a board (row-major), its window's top-left corner on the padded board.
    corners: Vec<usize>,
    /// Tap `t`'s offset from the corner: `(t / 3) · padded_cols + t mod 3` padded cells.
    taps: [usize; 9],
    /// For each channel count other than a power of two that a window is read with: the offset
    /// in floats of each of the window's `9 · channels` elements from its corner.
    depth_tables: Vec<(usize, Vec<usize>)>,
}

/// Whether a convolution from `inputs` to `outputs` channels runs here: on a CPU with the row
/// kernel (any channel counts).
pub fn suits(inputs: usize, outputs: usize) -> bool {
    inputs > 0 && outputs > 0 && row_kernel::available()
}

impl Windows {
    /// The windows of a `rows × cols` board, read with any of `channel_counts` channels (the
    /// convolutions' inputs, and their outputs for the input gradients).
    pub fn new(
        rows: usize,
        cols: usize,
        channel_counts: impl IntoIterator<Item = usize>,
    ) -> Windows {
        let padded_cols = cols + 2;
        let taps = std::array::from_fn(|t| t / 3 * padded_cols + t % 3);
        let mut depth_tables: Vec<(usize, Vec<usize>)> = Vec::new();
        for channels in channel_counts {
            if channels.is_power_of_two() || depth_tables.iter().any(|(c, _)| *c == channels) {
                continue;
            }
            let table = (0..9 * channels)
                .map(|l| taps[l / channels] * channels + l % channels)
                .collect();
            depth_tables.push((channels, table));
        }
        Windows {
            padded_cols,
            padded_cells: (rows + 2) * padded_cols,
            corners: (0..rows * cols)
                .map(|cell| cell / cols * padded_cols + cell % cols)
                .collect(),
            taps,
            depth_tables,
        }
    }

    /// Cells of a board.
    pub fn cells(&self) -> usize {
        self.corners.len()
    }

    /// Floats of the padded boards of `positions` positions of `channels` channels.
    pub fn padded_len(&self, positions: usize, channels: usize) -> usize {
        positions * self.padded_cells * channels
    }

    /// Each row of `positions` boards (`[positions · cells]`): its window's corner on the
    /// padded boards, into `corners`.
    pub fn corners(&self, positions: usize, corners: &mut Vec<usize>) {
        corners.clear();
        for position in 0..positions {
            let first = position * self.padded_cells;
            corners.extend(self.corners.iter().map(|&corner| first + corner));
        }
    }

    /// `x` (`[positions · cells, channels]`) zero-padded into `padded` (`padded_len` floats).
    pub fn pad(&self, x: &[f32], channels: usize, padded: &mut [f32]) {
        let cols = self.padded_cols - 2;
        let line = cols * channels;
        let padded_line = self.padded_cols * channels;
        let cells = self.corners.len();
        for (board, padded) in x
            .chunks_exact(cells * channels)
            .zip(padded.chunks_exact_mut(self.padded_cells * channels))
        {
            let (top, rest) = padded.split_at_mut(padded_line);
            top.fill(0.0);
            let (middle, bottom) = rest.split_at_mut(rest.len() - padded_line);
            bottom.fill(0.0);
            for (row, padded_row) in board
                .chunks_exact(line)
                .zip(middle.chunks_exact_mut(padded_line))
            {
                padded_row[..channels].fill(0.0);
                padded_row[channels..channels + line].copy_from_slice(row);
                padded_row[channels + line..].fill(0.0);
            }
        }
    }

    /// The nine taps' offsets in floats on a board of `channels` channels.
    fn tap_starts(&self, channels: usize) -> [usize; 9] {
        self.taps.map(|tap| tap * channels)
    }

    /// The offsets from a window's corner of its `9 · channels` elements, tap-major: runs of
    /// `channels` from each of `taps` (`tap_starts`) for a power of two, else the table made
    /// for `channels`.
    ///
    /// # Panics
    /// If `channels` is neither a power of two nor one of `new`'s channel counts.
    fn window_depth<'a>(&'a self, channels: usize, taps: &'a [usize; 9]) -> Offsets<'a> {
        if channels.is_power_of_two() {
            return Offsets::Runs {
                starts: taps,
                shift: channels.trailing_zeros(),
            };
        }
        let (_, table) = self
            .depth_tables
            .iter()
            .find(|(c, _)| *c == channels)
            .unwrap_or_else(|| panic!("windows of {channels} channels were not prepared"));
        Offsets::Table { table, scale: 1 }
    }

    /// A padded board read as im2col rows: row `r` is the window of `corners[r]`, tap-major.
    fn windows_of<'a>(
        &'a self,
        padded: &'a [f32],
        channels: usize,
        corners: &'a [usize],
        taps: &'a [usize; 9],
    ) -> Left<'a> {
        Left {
            data: padded,
            rows: Offsets::Table {
                table: corners,
                scale: channels,
            },
            depth: self.window_depth(channels, taps),
        }
    }

    /// `out [rows, outputs] = windows(padded) · weight`, `weight` tap-major
    /// (`[9 · inputs, outputs]`, row-major), one row per corner.
    pub fn forward(
        &self,
        padded: &[f32],
        inputs: usize,
        corners: &[usize],
        weight: View<'_>,
        out: &mut [f32],
    ) {
        let outputs = weight.strides.rows;
        let taps = self.tap_starts(inputs);
        let left = self.windows_of(padded, inputs, corners, &taps);
        let shape = [corners.len(), 9 * inputs, outputs];
        gathered_product(shape, left, weight, (out, outputs), false);
    }

    /// `grad_weight [9 · inputs, outputs] = windows(padded)ᵀ · grad_out`, `grad_out`
    /// `[rows, outputs]`, one row per corner.
    pub fn weight_gradient(
        &self,
        padded: &[f32],
        inputs: usize,
        corners: &[usize],
        grad_out: &[f32],
        outputs: usize,
        grad_weight: &mut [f32],
    ) {
        let taps = self.tap_starts(inputs);
        let transposed = Left {
            data: padded,
            rows: self.window_depth(inputs, &taps),
            depth: Offsets::Table {
                table: corners,
                scale: inputs,
            },
        };
        let shape = [9 * inputs, corners.len(), outputs];
        let grad_out = View::row_major(&grad_out[..corners.len() * outputs], outputs);
        gathered_product(shape, transposed, grad_out, (grad_weight, outputs), false);
    }

    /// `grad_x [rows, inputs] (+)= ` the gradient of `forward`'s input, given its output's
    /// `grad_out` (`[rows, outputs]`): the padded `grad_out` convolved with the kernel flipped
    /// and transposed (`flipped`: row `tap · outputs + output` is the weight's row
    /// `(8 − tap) · inputs + ·` at column `output`), read through `[padded, flipped]` scratch.
    #[allow(clippy::too_many_arguments)]
    pub fn input_gradient(
        &self,
        grad_out: &[f32],
        corners: &[usize],
        weight: &[f32],
        [inputs, outputs]: [usize; 2],
        [padded, flipped]: [&mut Vec<f32>; 2],
        grad_x: &mut [f32],
        accumulate: bool,
    ) {
        let rows = corners.len();
        let padded = take(padded, self.padded_len(rows / self.corners.len(), outputs));
        self.pad(&grad_out[..rows * outputs], outputs, padded);
        let flipped = take(flipped, 9 * outputs * inputs);
        flip(weight, [inputs, outputs], flipped);
        let taps = self.tap_starts(outputs);
        let left = self.windows_of(padded, outputs, corners, &taps);
        let shape = [rows, 9 * outputs, inputs];
        let right = View::row_major(flipped, inputs);
        gathered_product(
            shape,
            left,
            right,
            (&mut grad_x[..rows * inputs], inputs),
            accumulate,
        );
    }
}

/// `weight` (`[9 · inputs, outputs]`, tap-major) flipped and transposed into `flipped`
/// (`[9 · outputs, inputs]`): `flipped[tap · outputs + o][i] = weight[(8 − tap) · inputs + i][o]`.
fn flip(weight: &[f32], [inputs, outputs]: [usize; 2], flipped: &mut [f32]) {
    for (tap, block) in flipped.chunks_exact_mut(outputs * inputs).enumerate() {
        let source = &weight[(8 - tap) * inputs * outputs..][..inputs * outputs];
        for (i, weights) in source.chunks_exact(outputs).enumerate() {
            for (o, &w) in weights.iter().enumerate() {
                block[o * inputs + i] = w;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::direct::board_layout::{board_taps, col2im_add, im2col};

    fn filled(len: usize, seed: usize) -> Vec<f32> {
        (0..len)
            .map(|i| (((i * 37 + seed * 11) % 23) as f32 - 11.0) / 7.0)
            .collect()
    }

    /// `a [m × k] · b [k × n]`, both row-major, in f64.
    fn naive_product([m, k, n]: [usize; 3], a: &[f32], b: &[f32]) -> Vec<f32> {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                let sum: f64 = (0..k)
                    .map(|l| a[i * k + l] as f64 * b[l * n + j] as f64)
                    .sum();
                c[i * n + j] = sum as f32;
            }
        }
        c
    }

    fn transposed(a: &[f32], [m, n]: [usize; 2]) -> Vec<f32> {
        (0..n * m).map(|i| a[i % m * n + i / m]).collect()
    }

    fn close(got: &[f32], expected: &[f32], depth: usize, what: &str) {
        assert_eq!(got.len(), expected.len(), "{what}");
        let tolerance = 1e-5 * depth as f32 * 2.6 * 1.6;
        for (i, (x, y)) in got.iter().zip(expected).enumerate() {
            assert!(
                (x - y).abs() <= tolerance,
                "{what}: element {i} is {x}, not {y}"
            );
        }
    }

    /// Forward, weight gradient and input gradient against im2col rows and a naive product
    /// (and col2im for the input gradient), on boards with and without a centre, channel counts
    /// in and out of a tile, both ways of writing the input gradient.
    #[test]
    fn implicit_convolutions_equal_im2col_products() {
        if !row_kernel::available() {
            eprintln!("no AVX-512 here: convolutions run on im2col rows, nothing to compare");
            return;
        }
        for ([rows, cols], positions, [inputs, outputs]) in [
            ([6, 7], 3, [64, 64]),
            ([2, 6], 5, [8, 32]),
            ([3, 4], 2, [16, 8]),
            ([1, 1], 9, [32, 16]),
            ([2, 6], 4, [7, 32]),
            ([6, 7], 2, [2, 64]),
            ([3, 5], 3, [3, 5]),
            ([4, 4], 2, [12, 1]),
        ] {
            let windows = Windows::new(rows, cols, [inputs, outputs]);
            let taps = board_taps(rows, cols);
            let cells = rows * cols;
            let n_rows = positions * cells;
            let x = filled(n_rows * inputs, 1);
            let weight = filled(9 * inputs * outputs, 2);
            let grad_out = filled(n_rows * outputs, 3);
            let mut columns = vec![f32::NAN; n_rows * 9 * inputs];
            im2col(&taps, &x, inputs, &mut columns);
            let mut corners = Vec::new();
            windows.corners(positions, &mut corners);
            let mut padded = vec![f32::NAN; windows.padded_len(positions, inputs)];
            windows.pad(&x, inputs, &mut padded);
            let what = format!("{rows}×{cols}, {inputs} → {outputs}");

            let mut out = vec![f32::NAN; n_rows * outputs];
            let view = View::row_major(&weight, outputs);
            windows.forward(&padded, inputs, &corners, view, &mut out);
            let expected = naive_product([n_rows, 9 * inputs, outputs], &columns, &weight);
            close(&out, &expected, 9 * inputs, &format!("forward {what}"));

            let mut grad_weight = vec![f32::NAN; 9 * inputs * outputs];
            windows.weight_gradient(
                &padded,
                inputs,
                &corners,
                &grad_out,
                outputs,
                &mut grad_weight,
            );
            let columns_t = transposed(&columns, [n_rows, 9 * inputs]);
            let expected = naive_product([9 * inputs, n_rows, outputs], &columns_t, &grad_out);
            close(
                &grad_weight,
                &expected,
                n_rows,
                &format!("weight gradient {what}"),
            );

            let weight_t = transposed(&weight, [9 * inputs, outputs]);
            let grad_columns = naive_product([n_rows, outputs, 9 * inputs], &grad_out, &weight_t);
            for accumulate in [false, true] {
                let start = filled(n_rows * inputs, 4);
                let mut expected = if accumulate {
                    start.clone()
                } else {
                    vec![0.0; start.len()]
                };
                col2im_add(&taps, &grad_columns, inputs, &mut expected);
                let mut grad_x = if accumulate {
                    start
                } else {
                    vec![f32::NAN; n_rows * inputs]
                };
                let scratch = [&mut Vec::new(), &mut Vec::new()];
                windows.input_gradient(
                    &grad_out,
                    &corners,
                    &weight,
                    [inputs, outputs],
                    scratch,
                    &mut grad_x,
                    accumulate,
                );
                close(
                    &grad_x,
                    &expected,
                    9 * outputs,
                    &format!("input gradient {what}, accumulate {accumulate}"),
                );
            }
        }
    }

    #[test]
    fn a_padded_board_has_its_cells_inside_a_ring_of_zeros() {
        let windows = Windows::new(2, 3, [1]);
        let x: Vec<f32> = (1..=12).map(|v| v as f32).collect(); // 2 positions, 1 channel
        let mut padded = vec![f32::NAN; windows.padded_len(2, 1)];
        windows.pad(&x, 1, &mut padded);
        #[rustfmt::skip]
        let first = [
            0., 0., 0., 0., 0.,
            0., 1., 2., 3., 0.,
            0., 4., 5., 6., 0.,
            0., 0., 0., 0., 0.,
        ];
        assert_eq!(&padded[..20], &first);
        assert_eq!(&padded[26..29], &[7., 8., 9.]);
        let mut corners = Vec::new();
        windows.corners(2, &mut corners);
        // Cell (1, 2) of the second board: its window's corner is padded (1, 2) of that board.
        assert_eq!(corners[11], 20 + 5 + 2);
        // Its centre tap is the cell itself.
        assert_eq!(padded[corners[11] + windows.taps[4]], 12.0);
    }

    #[test]
    fn suits_any_channel_counts_on_the_row_kernel() {
        let here = row_kernel::available();
        assert_eq!(suits(64, 64), here);
        assert_eq!(suits(7, 32), here, "the stem of Awale's 7-plane encoding");
        assert_eq!(suits(64, 100), here);
        assert!(!suits(0, 8));
    }

    /// A window's depth read through a table (7 channels) lists the same elements, in the same
    /// order, as im2col's row: each tap's channels, tap after tap.
    #[test]
    fn a_window_read_through_its_table_is_an_im2col_row() {
        let (rows, cols, channels) = (2, 6, 7);
        let windows = Windows::new(rows, cols, [channels]);
        let x: Vec<f32> = (0..rows * cols * channels)
            .map(|v| v as f32 + 1.0)
            .collect();
        let mut padded = vec![f32::NAN; windows.padded_len(1, channels)];
        windows.pad(&x, channels, &mut padded);
        let mut columns = vec![f32::NAN; rows * cols * 9 * channels];
        im2col(&board_taps(rows, cols), &x, channels, &mut columns);
        let taps = windows.tap_starts(channels);
        let depth = windows.window_depth(channels, &taps);
        assert!(matches!(depth, Offsets::Table { .. }));
        for (cell, &corner) in windows.corners.iter().enumerate() {
            let row: Vec<f32> = (0..9 * channels)
                .map(|l| padded[corner * channels + depth.at(l)])
                .collect();
            assert_eq!(
                row,
                columns[cell * 9 * channels..][..9 * channels],
                "cell {cell}"
            );
        }
    }
}
