//! `PackedMatrix`: a weight matrix `W [inputs, outputs]` and its bias, packed once in panels of
//! 16 output columns, multiplied by row-major activations as `out = act(x · W + b)` with a
//! register-tiled kernel. Where the CPU has AVX-512, a tile is up to 6 rows × 4 panels (24
//! accumulators: each step loads 4 weight vectors and 6 inputs for 24 fused multiply-adds, so
//! the multiply-adds, not the loads, set the pace), or 12 rows × 2 or 1 panels for the last
//! panels of a matrix; with AVX2 + FMA 6 rows × 1 panel; plain loops elsewhere. Nothing is
//! allocated per multiply; big products may be split by rows over rayon.

use rayon::prelude::*;

/// Output columns per packed panel (two 8-lane vectors).
pub const PANEL: usize = 16;
/// Rows of activations per register tile, at most (each kernel's: `Kernel::tile_rows`).
const TILE_ROWS: usize = 12;
/// Panels per register tile, at most (each kernel's: `Kernel::group`).
const GROUP: usize = 4;
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
        let panel_count = self.bias.len() / PANEL;
        // Every kernel writes each row of the tile it is given whole: zeroed once here, not
        // a `memset` call a tile.
        let mut block = [[[0.0f32; PANEL]; GROUP]; TILE_ROWS];
        let mut p = 0;
        while p < panel_count {
            let group = kernel.group(panel_count - p, rows);
            let (first, last) = (p * PANEL, (p + group) * PANEL);
            let panels = &self.panels[first * k..last * k];
            let bias = &self.bias[first..last];
            let mut row = 0;
            while row < rows {
                let tile_rows = kernel.rows_for(group).min(rows - row);
                let tile = Tile {
                    x: &x[row * k..(row + tile_rows) * k],
                    inputs: k,
                    panels,
                    bias,
                    relu,
                };
                kernel.run(&tile, &mut block[..tile_rows]);
                for (r, values) in block[..tile_rows].iter().enumerate() {
                    copy_row(&values[..group], &mut out[(row + r) * n..][..n], first);
                }
                row += tile_rows;
            }
            p += group;
        }
    }
}

/// A tile row's panels into the output row `out` from column `first` (the columns past the
/// matrix's last are dropped): a whole panel as one array, since a slice copy of 16 floats is
/// a `memcpy` call.
fn copy_row(values: &[[f32; PANEL]], out: &mut [f32], first: usize) {
    for (j, panel) in values.iter().enumerate() {
        let start = first + j * PANEL;
        let cols = PANEL.min(out.len().saturating_sub(start));
        match <&mut [f32; PANEL]>::try_from(&mut out[start..start + cols]) {
            Ok(whole) => *whole = *panel,
            Err(_) => out[start..start + cols].copy_from_slice(&panel[..cols]),
        }
    }
}

/// One register tile: up to `TILE_ROWS` rows of `x` times `GROUP` or fewer consecutive panels
/// (`panels`: theirs, one after the other; `bias`: their columns').
struct Tile<'a> {
    x: &'a [f32],
    inputs: usize,
    panels: &'a [f32],
    bias: &'a [f32],
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

    /// Rows of activations per tile, at most (a multiple of every `rows_for`).
    fn tile_rows(self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => 12,
            _ => 6,
        }
    }

    /// Panels of the tile when `left` panels of the matrix are left, for a block of `rows`
    /// rows: the widest tile, unless its rows would split a block that a narrower tile takes
    /// whole (a batch of 7 to 12 positions' dense layer then reads each weight once, not once
    /// for 6 rows and again for the rest).
    fn group(self, left: usize, rows: usize) -> usize {
        let fits = |g: usize| g <= left && (rows <= self.rows_for(g) || rows > self.tile_rows());
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => [4, 2, 1].into_iter().find(|&g| fits(g)).unwrap_or(1),
            _ => 1,
        }
    }

    /// Rows of a tile of `group` panels, at most: its accumulators fill the registers.
    fn rows_for(self, group: usize) -> usize {
        if group == 4 {
            self.tile_rows() / 2
        } else {
            self.tile_rows()
        }
    }

    /// Writes the tile's `block.len()` rows × its panels into `block`.
    fn run(self, tile: &Tile<'_>, block: &mut [[[f32; PANEL]; GROUP]]) {
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

fn portable_tile(tile: &Tile<'_>, block: &mut [[[f32; PANEL]; GROUP]]) {
    assert_eq!(tile.bias.len(), PANEL, "one panel a portable tile");
    for (r, out) in block.iter_mut().enumerate() {
        let out = &mut out[0];
        out.copy_from_slice(tile.bias);
        let x = &tile.x[r * tile.inputs..(r + 1) * tile.inputs];
        for (&xi, w) in x.iter().zip(tile.panels.chunks_exact(PANEL)) {
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

    use super::{GROUP, PANEL, Tile};

    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn tile(tile: &Tile<'_>, block: &mut [[[f32; PANEL]; GROUP]]) {
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
    fn rows<const R: usize>(tile: &Tile<'_>, block: &mut [[[f32; PANEL]; GROUP]]) {
        let k = tile.inputs;
        assert!(block.len() == R && tile.x.len() >= R * k && tile.panels.len() == k * PANEL);
        assert_eq!(tile.bias.len(), PANEL, "one panel an AVX2 tile");
        let x = tile.x.as_ptr();
        let w = tile.panels.as_ptr();
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
                _mm256_storeu_ps(out[0].as_mut_ptr(), acc[0]);
                _mm256_storeu_ps(out[0].as_mut_ptr().add(8), acc[1]);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::{GROUP, PANEL, Tile};

    /// Calls `rows::<R, P>` for the tile's rows `R` and panels `P` (4 panels: 1 to 6 rows; 2 or
    /// 1: 1 to 12).
    macro_rules! dispatch {
        ($tile:expr, $block:expr, $panels:expr, $($p:literal => [$($r:literal)*]),*) => {
            match ($panels, $block.len()) {
                $($(($p, $r) => rows::<$r, $p>($tile, $block),)*)*
                (p, r) => unreachable!("no AVX-512 tile of {r} rows × {p} panels"),
            }
        };
    }

    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn tile(tile: &Tile<'_>, block: &mut [[[f32; PANEL]; GROUP]]) {
        let panels = tile.bias.len() / PANEL;
        dispatch!(tile, block, panels,
            4 => [1 2 3 4 5 6],
            2 => [1 2 3 4 5 6 7 8 9 10 11 12],
            1 => [1 2 3 4 5 6 7 8 9 10 11 12])
    }

    /// R rows × P panels, each row's 16 columns of a panel in one register.
    #[target_feature(enable = "avx512f")]
    fn rows<const R: usize, const P: usize>(tile: &Tile<'_>, block: &mut [[[f32; PANEL]; GROUP]]) {
        let k = tile.inputs;
        assert!(block.len() == R && tile.x.len() >= R * k && P <= GROUP);
        assert!(tile.panels.len() == P * k * PANEL && tile.bias.len() == P * PANEL);
        let x = tile.x.as_ptr();
        let w = tile.panels.as_ptr();
        // SAFETY: every load below is inside `tile.x` (R rows of k), `tile.panels` (P panels of
        // k rows of PANEL) or `tile.bias` (P × PANEL), as asserted; stores go to `block`, R rows
        // of at least P panels.
        unsafe {
            let zero = _mm512_setzero_ps();
            let mut bias = [zero; P];
            for (j, bias) in bias.iter_mut().enumerate() {
                *bias = _mm512_loadu_ps(tile.bias.as_ptr().add(j * PANEL));
            }
            let mut acc = [bias; R];
            let mut wi = [zero; P];
            for i in 0..k {
                for (j, wi) in wi.iter_mut().enumerate() {
                    *wi = _mm512_loadu_ps(w.add((j * k + i) * PANEL));
                }
                for (r, acc) in acc.iter_mut().enumerate() {
                    let xi = _mm512_set1_ps(*x.add(r * k + i));
                    for (acc, &wi) in acc.iter_mut().zip(&wi) {
                        *acc = _mm512_fmadd_ps(xi, wi, *acc);
                    }
                }
            }
            for (out, acc) in block.iter_mut().zip(acc) {
                for (out, mut acc) in out.iter_mut().zip(acc) {
                    if tile.relu {
                        acc = _mm512_max_ps(acc, zero);
                    }
                    _mm512_storeu_ps(out.as_mut_ptr(), acc);
                }
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
            (13, 30, 80),
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
