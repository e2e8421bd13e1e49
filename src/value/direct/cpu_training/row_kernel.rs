//! `c = a · b` (or `c += a · b`) with both operands read in place: an AVX-512 kernel for the
//! training step's products whose right operand's rows are contiguous — the forward products (a
//! tall row-major left operand: im2col rows, a layer's activations, times a weight matrix) and the
//! weight gradients (the transposed activations times the output gradient, `Xᵀ · dY`).
//! A general sgemm packs both operands for every product; here neither is: the right one's rows
//! are read in panels of 32 columns, and each left element is broadcast from where it lies,
//! whatever the left operand's strides (8 consecutive elements of a column of `Xᵀ` are one
//! row's 8 neighbours of `X`). A tile of 8 rows × 32 columns is 16 accumulators; the depth is cut
//! into blocks whose panel stays in L1. The left operand may also be gathered (`Left`): each
//! row and each depth at an offset of its own, so a 3×3 convolution reads its zero-padded input
//! board in place instead of im2col rows (`implicit_conv`). Nothing is allocated.

use super::matmul::View;

/// Where the rows (or the depths) of a left operand start: element `(row, depth)` of a `Left`
/// is at `rows.at(row) + depth.at(depth)`.
#[derive(Clone, Copy, Debug)]
pub enum Offsets<'a> {
    /// `i · stride`.
    Stride(usize),
    /// `table[i] · scale`.
    Table { table: &'a [usize], scale: usize },
    /// Runs of `2^shift` consecutive elements: `starts[i >> shift] + (i mod 2^shift)`.
    Runs { starts: &'a [usize], shift: u32 },
}

impl Offsets<'_> {
    /// Offset `i`.
    #[inline(always)]
    pub fn at(&self, i: usize) -> usize {
        match *self {
            Offsets::Stride(stride) => i * stride,
            Offsets::Table { table, scale } => table[i] * scale,
            Offsets::Runs { starts, shift } => starts[i >> shift] + (i & ((1 << shift) - 1)),
        }
    }

    /// The largest offset of the first `count` (at least one).
    fn last(&self, count: usize) -> usize {
        match *self {
            Offsets::Stride(stride) => (count - 1) * stride,
            _ => (0..count).map(|i| self.at(i)).max().unwrap_or(0),
        }
    }
}

/// A left operand read where its elements lie, through two sets of offsets.
#[derive(Clone, Copy, Debug)]
pub struct Left<'a> {
    pub data: &'a [f32],
    pub rows: Offsets<'a>,
    pub depth: Offsets<'a>,
}

/// Columns of a panel: two 16-lane vectors.
const PANEL: usize = 32;
/// Rows of a register tile.
const TILE_ROWS: usize = 8;
/// Depth of a block: a panel's block of 256 rows × 32 floats (32 KiB) stays in L1.
const DEPTH_BLOCK: usize = 256;

/// Whether this CPU runs the kernel (AVX-512 F, detected once).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `c [m × n] (+)= a [m × k] · b [k × n]`, `a` laid out by any strides, `b`'s rows contiguous,
/// `c` row-major with `c_row`.
///
/// # Panics
/// If the CPU lacks AVX-512 (callers check `available`), if `b`'s rows are not contiguous, or if
/// an operand is too short for its shape.
pub fn product(
    [m, k, n]: [usize; 3],
    a: View<'_>,
    b: View<'_>,
    (c, c_row): (&mut [f32], usize),
    accumulate: bool,
) {
    let left = Left {
        data: a.data,
        rows: Offsets::Stride(a.strides.rows),
        depth: Offsets::Stride(a.strides.cols),
    };
    gathered_product([m, k, n], left, b, (c, c_row), accumulate);
}

/// `c [m × n] (+)= a [m × k] · b [k × n]`, `a` read through its offsets (checked once here),
/// `b`'s rows contiguous, `c` row-major with `c_row`.
///
/// # Panics
/// As `product`, or if an offset of `a` is out of its slice (a table or runs too short for
/// the shape panics indexing them).
pub fn gathered_product(
    [m, k, n]: [usize; 3],
    a: Left<'_>,
    b: View<'_>,
    (c, c_row): (&mut [f32], usize),
    accumulate: bool,
) {
    assert!(available(), "the row kernel needs AVX-512");
    assert!(m > 0 && k > 0 && n > 0, "empty product {m}×{k}×{n}");
    let last_a = a.rows.last(m) + a.depth.last(k);
    assert!(last_a < a.data.len(), "left operand too short");
    assert!((m - 1) * c_row + n <= c.len(), "product too short");
    assert_eq!(
        b.strides.cols, 1,
        "the right operand's rows must be contiguous"
    );
    let last_b = (k - 1) * b.strides.rows + n - 1;
    assert!(last_b < b.data.len(), "right operand too short");
    let right = Right {
        data: b.data,
        row: b.strides.rows,
    };
    run([m, k, n], a, right, (c, c_row), accumulate);
}

/// The right operand as the kernel reads it: row `l` starts at `l · row`, its columns
/// contiguous (read masked past column `n`).
#[derive(Clone, Copy)]
struct Right<'a> {
    data: &'a [f32],
    row: usize,
}

fn run(mkn: [usize; 3], a: Left<'_>, b: Right<'_>, c: (&mut [f32], usize), accumulate: bool) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: AVX-512 F is present (asserted by `gathered_product`), whose checks keep every
    // element the blocks touch (the right operand's through masked loads) inside `a`, `b`
    // and `c`.
    unsafe {
        match a.depth {
            Offsets::Stride(stride) => avx512::blocks(mkn, a, Stride(stride), b, c, accumulate),
            Offsets::Table { table, scale } => {
                avx512::blocks(mkn, a, Table(table, scale), b, c, accumulate)
            }
            Offsets::Runs { starts, shift } => {
                avx512::blocks(mkn, a, Runs(starts, shift), b, c, accumulate)
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    unreachable!("{mkn:?} {:?} {} {} {accumulate}", a.rows, b.row, c.1)
}

/// A left operand's depth offsets as the kernel steps through them, one type per kind of
/// `Offsets` so that each kernel is compiled for its own (no match per step).
trait Depth: Copy {
    /// The offset of depth `l`.
    ///
    /// # Safety
    /// `l` is below the operand's depth, which `gathered_product` checked.
    unsafe fn at(self, l: usize) -> usize;

    /// From depth `l`, how many depths (at least one) lie at equal steps, and the step: the
    /// kernel then walks them with an addition each rather than an offset looked up each.
    fn run(self, l: usize) -> (usize, usize);
}

#[derive(Clone, Copy)]
struct Stride(usize);

#[derive(Clone, Copy)]
struct Table<'a>(&'a [usize], usize);

#[derive(Clone, Copy)]
struct Runs<'a>(&'a [usize], u32);

impl Depth for Stride {
    #[inline(always)]
    unsafe fn at(self, l: usize) -> usize {
        l * self.0
    }

    #[inline(always)]
    fn run(self, _: usize) -> (usize, usize) {
        (usize::MAX, self.0)
    }
}

impl Depth for Table<'_> {
    #[inline(always)]
    unsafe fn at(self, l: usize) -> usize {
        // SAFETY: the caller's: `l` is inside the table.
        unsafe { *self.0.get_unchecked(l) * self.1 }
    }

    #[inline(always)]
    fn run(self, _: usize) -> (usize, usize) {
        (1, 0)
    }
}

impl Depth for Runs<'_> {
    #[inline(always)]
    unsafe fn at(self, l: usize) -> usize {
        // SAFETY: the caller's: `l`'s run is inside the starts.
        unsafe { *self.0.get_unchecked(l >> self.1) + (l & ((1 << self.1) - 1)) }
    }

    #[inline(always)]
    fn run(self, l: usize) -> (usize, usize) {
        ((1 << self.1) - (l & ((1 << self.1) - 1)), 1)
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::{DEPTH_BLOCK, Depth, Left, PANEL, Right, TILE_ROWS};

    /// Where one tile reads and writes.
    struct Tile<D> {
        /// The left operand, its tile's rows' offsets, the depths' offsets and the block's
        /// first depth.
        a: *const f32,
        a_rows: [usize; TILE_ROWS],
        a_depth: D,
        start: usize,
        /// The right operand's panel, at the block's first depth, and the step between its rows.
        b: *const f32,
        b_row: usize,
        depth: usize,
        c: *mut f32,
        c_row: usize,
        /// Which of the panel's two 16-column halves' lanes are columns of `c`.
        masks: [__mmask16; 2],
        /// Add to `c` rather than overwrite it.
        add: bool,
    }

    /// The product block by block: depth blocks outermost (each adds to what the previous
    /// wrote), then tiles of rows, then panels, so a tile's rows stay in L1 across panels.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn blocks<D: Depth>(
        [m, k, n]: [usize; 3],
        a: Left<'_>,
        a_depth: D,
        b: Right<'_>,
        (c, c_row): (&mut [f32], usize),
        accumulate: bool,
    ) {
        let panels = n.div_ceil(PANEL);
        for start in (0..k).step_by(DEPTH_BLOCK) {
            let depth = DEPTH_BLOCK.min(k - start);
            for first_row in (0..m).step_by(TILE_ROWS) {
                let rows = TILE_ROWS.min(m - first_row);
                let mut a_rows = [0; TILE_ROWS];
                for (r, offset) in a_rows[..rows].iter_mut().enumerate() {
                    *offset = a.rows.at(first_row + r);
                }
                for p in 0..panels {
                    let width = PANEL.min(n - p * PANEL);
                    let tile = Tile {
                        a: a.data.as_ptr(),
                        a_rows,
                        a_depth,
                        start,
                        // SAFETY (both): inside the slices, by `gathered_product`'s checks.
                        b: unsafe { b.data.as_ptr().add(p * PANEL + start * b.row) },
                        b_row: b.row,
                        depth,
                        c: unsafe { c.as_mut_ptr().add(first_row * c_row + p * PANEL) },
                        c_row,
                        masks: [lanes(width), lanes(width.saturating_sub(16))],
                        add: accumulate || start > 0,
                    };
                    // SAFETY: AVX-512 F is enabled here; the tile lies inside the operands.
                    unsafe { dispatch(rows, &tile) }
                }
            }
        }
    }

    /// The first `count` lanes (at most 16).
    fn lanes(count: usize) -> __mmask16 {
        if count >= 16 {
            0xFFFF
        } else {
            ((1u32 << count) - 1) as __mmask16
        }
    }

    #[target_feature(enable = "avx512f")]
    unsafe fn dispatch<D: Depth>(rows: usize, tile: &Tile<D>) {
        // SAFETY: the caller's.
        unsafe {
            match rows {
                8 => kernel::<8, D>(tile),
                7 => kernel::<7, D>(tile),
                6 => kernel::<6, D>(tile),
                5 => kernel::<5, D>(tile),
                4 => kernel::<4, D>(tile),
                3 => kernel::<3, D>(tile),
                2 => kernel::<2, D>(tile),
                _ => kernel::<1, D>(tile),
            }
        }
    }

    /// `R` rows × 32 columns over the block's depth: per step of the depth, the panel's row
    /// (two vectors, masked past the last column) times each row's element (broadcast), 2R
    /// fused multiply-adds. A masked load or store touches no lane outside its mask.
    #[target_feature(enable = "avx512f")]
    unsafe fn kernel<const R: usize, D: Depth>(tile: &Tile<D>) {
        let mut acc = [[_mm512_setzero_ps(); 2]; R];
        let mut a_rows = [tile.a; R];
        for (pointer, &offset) in a_rows.iter_mut().zip(&tile.a_rows) {
            *pointer = pointer.wrapping_add(offset);
        }
        // SAFETY: the caller keeps `a`'s R rows × depth, the panel's depth × 32 and `c`'s
        // R rows × the masked columns inside their slices.
        unsafe {
            // The depth in runs of equally spaced offsets (one, for a table).
            let mut l = 0;
            while l < tile.depth {
                let (run, step) = tile.a_depth.run(tile.start + l);
                let end = l + run.min(tile.depth - l);
                let mut depth = tile.a_depth.at(tile.start + l);
                let mut row = tile.b.add(l * tile.b_row);
                for _ in l..end {
                    let b0 = _mm512_maskz_loadu_ps(tile.masks[0], row);
                    let b1 = _mm512_maskz_loadu_ps(tile.masks[1], row.wrapping_add(16));
                    for (acc, &a_row) in acc.iter_mut().zip(&a_rows) {
                        let x = _mm512_set1_ps(*a_row.add(depth));
                        acc[0] = _mm512_fmadd_ps(x, b0, acc[0]);
                        acc[1] = _mm512_fmadd_ps(x, b1, acc[1]);
                    }
                    depth = depth.wrapping_add(step);
                    row = row.wrapping_add(tile.b_row);
                }
                l = end;
            }
            for (r, acc) in acc.iter().enumerate() {
                for (half, &sum) in acc.iter().enumerate() {
                    let mask = tile.masks[half];
                    let out = tile.c.add(r * tile.c_row + 16 * half);
                    let value = if tile.add {
                        _mm512_add_ps(_mm512_maskz_loadu_ps(mask, out), sum)
                    } else {
                        sum
                    };
                    _mm512_mask_storeu_ps(out, mask, value);
                }
            }
        }
    }
}
