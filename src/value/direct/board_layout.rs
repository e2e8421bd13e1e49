//! The channels-last board layout shared by the direct CPU passes (`CpuNet` for inference,
//! `CpuTrainer` for learning): activations `[positions · cells, channels]`, the 3×3
//! neighbourhood of each cell, sums over a board, a bias added to rows, and scratch buffers grown
//! on demand.

use multiversion::multiversion;

/// Marks a 3×3 tap that falls off the board.
pub const OFF_BOARD: usize = usize::MAX;

/// For each cell of a `rows × cols` board, its 3×3 neighbourhood row by row (`OFF_BOARD` past
/// an edge): tap `t` is the cell at offset `(t / 3 - 1, t % 3 - 1)`.
pub fn board_taps(rows: usize, cols: usize) -> Vec<[usize; 9]> {
    (0..rows * cols)
        .map(|cell| {
            let (r, c) = ((cell / cols) as isize, (cell % cols) as isize);
            let mut taps = [OFF_BOARD; 9];
            for (tap, slot) in taps.iter_mut().enumerate() {
                let (nr, nc) = (r + tap as isize / 3 - 1, c + tap as isize % 3 - 1);
                if (0..rows as isize).contains(&nr) && (0..cols as isize).contains(&nc) {
                    *slot = nr as usize * cols + nc as usize;
                }
            }
            taps
        })
        .collect()
}

/// `inputs` (planes first: `[position][plane][cell]`) into `out` channels last:
/// `[position][cell][plane]`.
#[inline]
pub fn channels_last(inputs: &[f32], out: &mut [f32], planes: usize, cells: usize) {
    for (position, out) in inputs
        .chunks_exact(planes * cells)
        .zip(out.chunks_exact_mut(planes * cells))
    {
        for (plane, plane_values) in position.chunks_exact(cells).enumerate() {
            for (cell, &v) in plane_values.iter().enumerate() {
                out[cell * planes + plane] = v;
            }
        }
    }
}

/// im2col for a 3×3 'same' convolution: `x` (`[positions · cells, channels]`, each cell's
/// neighbourhood in `taps`) into `columns` (`[positions · cells, 9 · channels]`), each row the
/// nine neighbours' channels one after the other (tap-major), zeros where a tap falls off the
/// board. The common widths are copied as fixed-size arrays: a slice copy of a few channels
/// (a stem's 2-8 input planes) is a call to `memcpy` a tap, which cost Othello's small network
/// a fifth of its pass.
pub fn im2col(taps: &[[usize; 9]], x: &[f32], channels: usize, columns: &mut [f32]) {
    match channels {
        1 => im2col_fixed::<1>(taps, x, columns),
        2 => im2col_fixed::<2>(taps, x, columns),
        3 => im2col_fixed::<3>(taps, x, columns),
        4 => im2col_fixed::<4>(taps, x, columns),
        5 => im2col_fixed::<5>(taps, x, columns),
        6 => im2col_fixed::<6>(taps, x, columns),
        7 => im2col_fixed::<7>(taps, x, columns),
        8 => im2col_fixed::<8>(taps, x, columns),
        16 => im2col_fixed::<16>(taps, x, columns),
        32 => im2col_fixed::<32>(taps, x, columns),
        64 => im2col_fixed::<64>(taps, x, columns),
        _ => im2col_any(taps, x, channels, columns),
    }
}

/// `im2col` for `C` channels, each tap copied as one `[f32; C]`.
fn im2col_fixed<const C: usize>(taps: &[[usize; 9]], x: &[f32], columns: &mut [f32]) {
    let cells = taps.len();
    for (position, position_columns) in x
        .chunks_exact(cells * C)
        .zip(columns.chunks_exact_mut(cells * 9 * C))
    {
        let (cell_values, _) = position.as_chunks::<C>();
        for (taps, row) in taps.iter().zip(position_columns.chunks_exact_mut(9 * C)) {
            let (slots, _) = row.as_chunks_mut::<C>();
            for (&neighbour, slot) in taps.iter().zip(slots) {
                *slot = match neighbour {
                    OFF_BOARD => [0.0; C],
                    cell => cell_values[cell],
                };
            }
        }
    }
}

/// `im2col` for any number of channels.
fn im2col_any(taps: &[[usize; 9]], x: &[f32], channels: usize, columns: &mut [f32]) {
    let (cells, width) = (taps.len(), 9 * channels);
    for (position, position_columns) in x
        .chunks_exact(cells * channels)
        .zip(columns.chunks_exact_mut(cells * width))
    {
        for (taps, row) in taps.iter().zip(position_columns.chunks_exact_mut(width)) {
            for (&neighbour, slot) in taps.iter().zip(row.chunks_exact_mut(channels)) {
                if neighbour == OFF_BOARD {
                    slot.fill(0.0);
                } else {
                    slot.copy_from_slice(&position[neighbour * channels..][..channels]);
                }
            }
        }
    }
}

/// The adjoint of `im2col`: adds each column's gradient (`grad_columns`, laid out as `im2col`
/// writes) to the cell it was read from in `grad_x`.
pub fn col2im_add(taps: &[[usize; 9]], grad_columns: &[f32], channels: usize, grad_x: &mut [f32]) {
    let (cells, width) = (taps.len(), 9 * channels);
    for (position, position_columns) in grad_x
        .chunks_exact_mut(cells * channels)
        .zip(grad_columns.chunks_exact(cells * width))
    {
        for (taps, row) in taps.iter().zip(position_columns.chunks_exact(width)) {
            for (&neighbour, grad) in taps.iter().zip(row.chunks_exact(channels)) {
                if neighbour != OFF_BOARD {
                    let cell = &mut position[neighbour * channels..][..channels];
                    cell.iter_mut().zip(grad).for_each(|(x, &g)| *x += g);
                }
            }
        }
    }
}

/// The first `len` floats of `buffer`, growing it if needed (contents unspecified).
#[inline]
pub fn take(buffer: &mut Vec<f32>, len: usize) -> &mut [f32] {
    if buffer.len() < len {
        buffer.resize(len, 0.0);
    }
    &mut buffer[..len]
}

/// `bias` added to each row of `out`, then ReLU if `relu`: an affine layer's bias, after its
/// product (both passes).
#[multiversion(targets("x86_64+avx512f+avx2+fma", "x86_64+avx2+fma"))]
pub fn add_bias(out: &mut [f32], bias: &[f32], relu: bool) {
    for row in out.chunks_exact_mut(bias.len()) {
        for (v, &b) in row.iter_mut().zip(bias) {
            *v = if relu { (*v + b).max(0.0) } else { *v + b };
        }
    }
}

/// Each position's channels summed over its `cells` cells: `board` is
/// `[positions · cells, channels]`, `sums` `[positions, channels]`.
#[inline]
pub fn sum_over_cells(board: &[f32], cells: usize, channels: usize, sums: &mut [f32]) {
    for (sum, position) in sums
        .chunks_exact_mut(channels)
        .zip(board.chunks_exact(cells * channels))
    {
        sum.fill(0.0);
        for cell in position.chunks_exact(channels) {
            for (s, &v) in sum.iter_mut().zip(cell) {
                *s += v;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn col2im_is_the_adjoint_of_im2col() {
        // ⟨im2col(x), g⟩ = ⟨x, col2im(g)⟩ for any x and g, on two 2×3 boards of 2 channels.
        let taps = board_taps(2, 3);
        let channels = 2;
        let x: Vec<f32> = (0..2 * 6 * channels)
            .map(|i| (i as f32 * 0.37).sin())
            .collect();
        let g: Vec<f32> = (0..2 * 6 * 9 * channels)
            .map(|i| (i as f32 * 0.11).cos())
            .collect();
        let mut columns = vec![f32::NAN; g.len()];
        im2col(&taps, &x, channels, &mut columns);
        let mut back = vec![0.0; x.len()];
        col2im_add(&taps, &g, channels, &mut back);
        let left: f32 = columns.iter().zip(&g).map(|(a, b)| a * b).sum();
        let right: f32 = x.iter().zip(&back).map(|(a, b)| a * b).sum();
        assert!((left - right).abs() < 1e-4, "{left} vs {right}");
        // Cell 0's row: taps off the board are zeros, tap 4 is the cell itself.
        assert_eq!(&columns[..2 * channels], &[0.0; 4]);
        assert_eq!(&columns[4 * channels..5 * channels], &x[..channels]);
    }

    #[test]
    fn every_fixed_width_im2col_writes_what_the_general_one_writes() {
        // Two 3×4 boards; the widths with their own copy and two without.
        let taps = board_taps(3, 4);
        for channels in [1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 32, 33, 64] {
            let x: Vec<f32> = (0..2 * 12 * channels)
                .map(|i| (i as f32 * 0.71).sin())
                .collect();
            let mut fixed = vec![f32::NAN; 2 * 12 * 9 * channels];
            let mut general = vec![f32::NAN; fixed.len()];
            im2col(&taps, &x, channels, &mut fixed);
            im2col_any(&taps, &x, channels, &mut general);
            assert_eq!(fixed, general, "{channels} channels");
            // Cell 5's row holds its nine neighbours, none off the board.
            let row = &fixed[5 * 9 * channels..6 * 9 * channels];
            for (tap, &cell) in taps[5].iter().enumerate() {
                assert_eq!(
                    &row[tap * channels..][..channels],
                    &x[cell * channels..][..channels]
                );
            }
        }
    }

    #[test]
    fn taps_of_a_corner_and_of_an_inner_cell() {
        let taps = board_taps(3, 4);
        let x = OFF_BOARD;
        assert_eq!(taps[0], [x, x, x, x, 0, 1, x, 4, 5]);
        assert_eq!(taps[5], [0, 1, 2, 4, 5, 6, 8, 9, 10]);
        assert_eq!(taps[11], [6, 7, x, 10, 11, x, x, x, x]);
    }
}
