//! `PackedMatrix`: a weight matrix `W [inputs, outputs]` and its bias, packed once in panels of
//! 16 output columns, multiplied by row-major activations as `out = act(x · W + b)` with a
//! register-tiled kernel: 12 rows × 16 columns in one AVX-512 register a row where the CPU has
//! AVX-512 (twelve accumulators hide the fused multiply-add's latency, and a self-play batch of
//! up to twelve positions reads each weight once), 6 rows × 16 columns with AVX2 + FMA, plain
//! loops elsewhere. Nothing is allocated per multiply; big products may be split by rows over
//! rayon.

use rayon::prelude::*;

/// Output columns per packed panel (two 8-lane vectors).
pub const PANEL: usize = 16;
/// Rows of activations per register tile, at most (each kernel's: `Kernel::tile_rows`).
const TILE_ROWS: usize = 12;
/// Bytes of activation rows multiplied by every panel before moving on (a share of L2).
const BLOCK_BYTES: usize = 96 * 1024;
/// Multiply-adds above which a product is split over rayon's threads.
const PARALLEL_WORK: usize = 1 << 21;

/// What follows the affine map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    Identity,
    Relu,
}

/// `W [inputs, outputs]` with its bias, packed in panels of `PANEL` columns: panel `p` holds
/// `W[i][PANEL·p .. PANEL·p + PANEL]` for every row `i`, contiguously, zero past `outputs`.
#[derive(Clone, Debug)]
pub struct PackedMatrix {
    inputs: usize,
    outputs: usize,
    /// `[panels][inputs][PANEL]`.
    panels: Vec<f32>,
    /// `[panels · PANEL]`, zero past `outputs`.
    bias: Vec<f32>,
}

impl PackedMatrix {
    /// Packs `weight(i, o)` (row `i < inputs`, column `o < outputs`) and `bias[o]`.
    pub fn new(
        inputs: usize,
        outputs: usize,
        weight: impl Fn(usize, usize) -> f32,
        bias: &[f32],
    ) -> PackedMatrix {
        assert!(inputs > 0 && outputs > 0, "empty matrix {inputs}×{outputs}");
        assert_eq!(bias.len(), outputs, "one bias per output");
        let panel_count = outputs.div_ceil(PANEL);
        let mut panels = vec![0.0; panel_count * inputs * PANEL];
        for (p, panel) in panels.chunks_exact_mut(inputs * PANEL).enumerate() {
            for (i, row) in panel.chunks_exact_mut(PANEL).enumerate() {
                for (j, w) in row.iter_mut().enumerate() {
                    let o = p * PANEL + j;
                    if o < outputs {
                        *w = weight(i, o);
                    }
                }
            }
        }
        let mut padded_bias = vec![0.0; panel_count * PANEL];
        padded_bias[..outputs].copy_from_slice(bias);
        PackedMatrix {
            inputs,
            outputs,
            panels,
            bias: padded_bias,
        }
    }

    pub fn inputs(&self) -> usize {
        self.inputs
    }

    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// `out [rows, outputs] = activation(x [rows, inputs] · W + b)`, both row-major. With
    /// `split`, a big product is cut by rows over rayon's threads (the values are the same:
    /// each row is summed in the same order either way).
    pub fn apply(
        &self,
        x: &[f32],
        rows: usize,
        out: &mut [f32],
        activation: Activation,
        split: bool,
    ) {
        self.apply_with(x, rows, out, activation, split, Kernel::detect());
    }

    fn apply_with(
        &self,
        x: &[f32],
        rows: usize,
        out: &mut [f32],
        activation: Activation,
        split: bool,
        kernel: Kernel,
    ) {
        let (k, n) = (self.inputs, self.outputs);
        assert_eq!(x.len(), rows * k, "{rows} rows of {k} inputs");
        assert_eq!(out.len(), rows * n, "{rows} rows of {n} outputs");
        let tile_rows = kernel.tile_rows();
        if split && rows * k * n >= PARALLEL_WORK && rows >= 2 * tile_rows {
            let threads = rayon::current_num_threads().max(1);
            let chunk = rows.div_ceil(threads).next_multiple_of(tile_rows);
            out.par_chunks_mut(chunk * n)
                .zip(x.par_chunks(chunk * k))
                .for_each(|(out, x)| self.apply_rows(x, out, activation, kernel));
        } else {
            self.apply_rows(x, out, activation, kernel);
        }
    }

    /// The product on one contiguous range of rows (`x` and `out` cut alike), a cache-sized
    /// block of rows at a time: each block is read from memory once and stays cached while
    /// every panel passes over it.
    fn apply_rows(&self, x: &[f32], out: &mut [f32], activation: Activation, kernel: Kernel) {
        let (k, n) = (self.inputs, self.outputs);
        let block_rows = (BLOCK_BYTES / (4 * k))
            .max(1)
            .next_multiple_of(kernel.tile_rows());
        for (x, out) in x.chunks(block_rows * k).zip(out.chunks_mut(block_rows * n)) {
            self.apply_block(x, out, activation, kernel);
        }
    }

    fn apply_block(&self, x: &[f32], out: &mut [f32], activation: Activation, kernel: Kernel) {
        let (k, n) = (self.inputs, self.outputs);
        let rows = x.len() / k;
        let relu = activation == Activation::Relu;
        // Every kernel writes each row of the tile it is given whole: zeroed once here, not
        // a `memset` call a tile.
        let mut block = [[0.0f32; PANEL]; TILE_ROWS];
        for (p, panel) in self.panels.chunks_exact(k * PANEL).enumerate() {
            let bias: &[f32; PANEL] = self.bias[p * PANEL..][..PANEL].try_into().unwrap();
            let first_col = p * PANEL;
            let cols = PANEL.min(n - first_col);
            let mut row = 0;
            while row < rows {
                let tile_rows = kernel.tile_rows().min(rows - row);
                let tile = Tile {
                    x: &x[row * k..(row + tile_rows) * k],
                    inputs: k,
                    panel,
                    bias,
                    relu,
                };
                kernel.run(&tile, &mut block[..tile_rows]);
                for (r, values) in block[..tile_rows].iter().enumerate() {
                    let start = (row + r) * n + first_col;
                    // A whole panel as one array: a slice copy of 16 floats is a `memcpy`
                    // call a tile row.
                    match <&mut [f32; PANEL]>::try_from(&mut out[start..start + cols]) {
                        Ok(whole) => *whole = *values,
                        Err(_) => out[start..start + cols].copy_from_slice(&values[..cols]),
                    }
                }
                row += tile_rows;
            }
        }
    }
}

/// One register tile: up to `TILE_ROWS` rows of `x` times one panel.
struct Tile<'a> {
    x: &'a [f32],
    inputs: usize,
    panel: &'a [f32],
    bias: &'a [f32; PANEL],
    relu: bool,
}

/// The tile kernel in use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx2Fma,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Kernel {
    /// Every kernel, the slowest first.
    const ALL: &[Kernel] = &[
        Kernel::Portable,
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2Fma,
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512,
    ];

    /// Whether this CPU has the instructions the kernel uses (cached flags, nothing allocated).
    fn runs_here(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        use std::arch::is_x86_feature_detected as has;
        match self {
            Kernel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2Fma => has!("avx2") && has!("fma"),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => has!("avx512f"),
        }
    }

    /// The fastest kernel this CPU runs (asked at every product).
    fn detect() -> Kernel {
        let fastest = Kernel::ALL.iter().rev().find(|kernel| kernel.runs_here());
        fastest.copied().unwrap_or(Kernel::Portable)
    }

    /// Every kernel this CPU runs, the fastest last (the tests run each).
    #[cfg(test)]
    fn available() -> Vec<Kernel> {
        Kernel::ALL
            .iter()
            .copied()
            .filter(|kernel| kernel.runs_here())
            .collect()
    }

    /// Rows of activations per tile.
    fn tile_rows(self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => 12,
            _ => 6,
        }
    }

    /// Writes the tile's `block.len()` rows × `PANEL` columns into `block`.
    fn run(self, tile: &Tile<'_>, block: &mut [[f32; PANEL]]) {
        match self {
            Kernel::Portable => portable_tile(tile, block),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `detect` chose this kernel only where the CPU has AVX2 and FMA.
            Kernel::Avx2Fma => unsafe { avx2::tile(tile, block) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `detect` chose this kernel only where the CPU has AVX-512F.
            Kernel::Avx512 => unsafe { avx512::tile(tile, block) },
        }
    }
}

fn portable_tile(tile: &Tile<'_>, block: &mut [[f32; PANEL]]) {
    for (r, out) in block.iter_mut().enumerate() {
        *out = *tile.bias;
        let x = &tile.x[r * tile.inputs..(r + 1) * tile.inputs];
        for (&xi, w) in x.iter().zip(tile.panel.chunks_exact(PANEL)) {
            for (o, &wi) in out.iter_mut().zip(w) {
                *o += xi * wi;
            }
        }
        if tile.relu {
            for o in out.iter_mut() {
                *o = o.max(0.0);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{PANEL, Tile};

    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn tile(tile: &Tile<'_>, block: &mut [[f32; PANEL]]) {
        match block.len() {
            6 => rows::<6>(tile, block),
            5 => rows::<5>(tile, block),
            4 => rows::<4>(tile, block),
            3 => rows::<3>(tile, block),
            2 => rows::<2>(tile, block),
            1 => rows::<1>(tile, block),
            n => unreachable!("an AVX2 tile has 1 to 6 rows, not {n}"),
        }
    }

    #[target_feature(enable = "avx2,fma")]
    fn rows<const R: usize>(tile: &Tile<'_>, block: &mut [[f32; PANEL]]) {
        let k = tile.inputs;
        assert!(block.len() == R && tile.x.len() >= R * k && tile.panel.len() == k * PANEL);
        let x = tile.x.as_ptr();
        let w = tile.panel.as_ptr();
        // SAFETY: every load below is inside `tile.x` (R rows of k) or `tile.panel` (k rows of
        // PANEL), as asserted; stores go to `block`, R rows of PANEL.
        unsafe {
            let b0 = _mm256_loadu_ps(tile.bias.as_ptr());
            let b1 = _mm256_loadu_ps(tile.bias.as_ptr().add(8));
            let mut acc = [[b0, b1]; R];
            for i in 0..k {
                let w0 = _mm256_loadu_ps(w.add(i * PANEL));
                let w1 = _mm256_loadu_ps(w.add(i * PANEL + 8));
                for (r, acc) in acc.iter_mut().enumerate() {
                    let xi = _mm256_broadcast_ss(&*x.add(r * k + i));
                    acc[0] = _mm256_fmadd_ps(xi, w0, acc[0]);
                    acc[1] = _mm256_fmadd_ps(xi, w1, acc[1]);
                }
            }
            let zero = _mm256_setzero_ps();
            for (out, mut acc) in block.iter_mut().zip(acc) {
                if tile.relu {
                    acc = [_mm256_max_ps(acc[0], zero), _mm256_max_ps(acc[1], zero)];
                }
                _mm256_storeu_ps(out.as_mut_ptr(), acc[0]);
                _mm256_storeu_ps(out.as_mut_ptr().add(8), acc[1]);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::{PANEL, Tile};

    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn tile(tile: &Tile<'_>, block: &mut [[f32; PANEL]]) {
        match block.len() {
            12 => rows::<12>(tile, block),
            11 => rows::<11>(tile, block),
            10 => rows::<10>(tile, block),
            9 => rows::<9>(tile, block),
            8 => rows::<8>(tile, block),
            7 => rows::<7>(tile, block),
            6 => rows::<6>(tile, block),
            5 => rows::<5>(tile, block),
            4 => rows::<4>(tile, block),
            3 => rows::<3>(tile, block),
            2 => rows::<2>(tile, block),
            1 => rows::<1>(tile, block),
            n => unreachable!("an AVX-512 tile has 1 to 12 rows, not {n}"),
        }
    }

    /// R rows × one panel, each row's 16 columns in one register.
    #[target_feature(enable = "avx512f")]
    fn rows<const R: usize>(tile: &Tile<'_>, block: &mut [[f32; PANEL]]) {
        let k = tile.inputs;
        assert!(block.len() == R && tile.x.len() >= R * k && tile.panel.len() == k * PANEL);
        let x = tile.x.as_ptr();
        let w = tile.panel.as_ptr();
        // SAFETY: every load below is inside `tile.x` (R rows of k) or `tile.panel` (k rows of
        // PANEL), as asserted; stores go to `block`, R rows of PANEL.
        unsafe {
            let mut acc = [_mm512_loadu_ps(tile.bias.as_ptr()); R];
            for i in 0..k {
                let wi = _mm512_loadu_ps(w.add(i * PANEL));
                for (r, acc) in acc.iter_mut().enumerate() {
                    let xi = _mm512_set1_ps(*x.add(r * k + i));
                    *acc = _mm512_fmadd_ps(xi, wi, *acc);
                }
            }
            let zero = _mm512_setzero_ps();
            for (out, mut acc) in block.iter_mut().zip(acc) {
                if tile.relu {
                    acc = _mm512_max_ps(acc, zero);
                }
                _mm512_storeu_ps(out.as_mut_ptr(), acc);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `act(x · W + b)` by the book, in f64.
    fn reference(
        x: &[f32],
        rows: usize,
        k: usize,
        n: usize,
        w: &[f32],
        b: &[f32],
        relu: bool,
    ) -> Vec<f32> {
        let mut out = vec![0.0; rows * n];
        for r in 0..rows {
            for o in 0..n {
                let mut sum = b[o] as f64;
                for i in 0..k {
                    sum += x[r * k + i] as f64 * w[i * n + o] as f64;
                }
                out[r * n + o] = if relu { sum.max(0.0) } else { sum } as f32;
            }
        }
        out
    }

    fn values(count: usize, seed: usize) -> Vec<f32> {
        (0..count)
            .map(|i| (((i * 7919 + seed * 104_729) % 2003) as f32 - 1001.0) / 1001.0)
            .collect()
    }

    fn kernels() -> Vec<Kernel> {
        let kernels = Kernel::available();
        assert_eq!(
            kernels.last(),
            Some(&Kernel::detect()),
            "the pass runs the fastest"
        );
        kernels
    }

    #[test]
    fn products_match_the_textbook_for_every_kernel_and_ragged_shape() {
        // Rows not a multiple of the tile, columns not a multiple of the panel, a single
        // output column, and a product big enough to be split over threads.
        for (rows, k, n) in [
            (1, 1, 1),
            (7, 63, 32),
            (13, 5, 17),
            (25, 40, 33),
            (10, 2048, 64),
            (6, 100, 1),
            (5, 9, 100),
            (1536, 576, 64),
        ] {
            let x = values(rows * k, 1);
            let w = values(k * n, 2);
            let b = values(n, 3);
            let packed = PackedMatrix::new(k, n, |i, o| w[i * n + o], &b);
            for relu in [false, true] {
                let expected = reference(&x, rows, k, n, &w, &b, relu);
                let activation = if relu {
                    Activation::Relu
                } else {
                    Activation::Identity
                };
                for kernel in kernels() {
                    let mut out = vec![f32::NAN; rows * n];
                    packed.apply_with(&x, rows, &mut out, activation, false, kernel);
                    for (i, (got, want)) in out.iter().zip(&expected).enumerate() {
                        assert!(
                            (got - want).abs() <= 1e-4 * (1.0 + want.abs()),
                            "{kernel:?} {rows}×{k}×{n} relu {relu}: element {i} is {got}, want {want}"
                        );
                    }
                    // Split over threads: the same values, bit for bit.
                    let mut split = vec![f32::NAN; rows * n];
                    packed.apply_with(&x, rows, &mut split, activation, true, kernel);
                    assert!(
                        split
                            .iter()
                            .zip(&out)
                            .all(|(a, b)| a.to_bits() == b.to_bits()),
                        "{kernel:?} {rows}×{k}×{n}: a split product differs"
                    );
                }
            }
        }
    }
}
