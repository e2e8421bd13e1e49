//! The channels-last board layout shared by the direct CPU passes (`CpuNet` for inference,
//! `CpuTrainer` for learning): activations `[positions · cells, channels]`, the 3×3
//! neighbourhood of each cell, sums over a board, and scratch buffers grown on demand.

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

/// The first `len` floats of `buffer`, growing it if needed (contents unspecified).
#[inline]
pub fn take(buffer: &mut Vec<f32>, len: usize) -> &mut [f32] {
    if buffer.len() < len {
        buffer.resize(len, 0.0);
    }
    &mut buffer[..len]
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
    fn taps_of_a_corner_and_of_an_inner_cell() {
        let taps = board_taps(3, 4);
        let x = OFF_BOARD;
        assert_eq!(taps[0], [x, x, x, x, 0, 1, x, 4, 5]);
        assert_eq!(taps[5], [0, 1, 2, 4, 5, 6, 8, 9, 10]);
        assert_eq!(taps[11], [6, 7, x, 10, 11, x, x, x, x]);
    }
}
