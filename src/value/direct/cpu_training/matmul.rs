//! The training step's matrix products: every operand is a strided view, so a transposed weight
//! or activation matrix is read in place, never copied. Products whose left operand is row-major
//! run on the row kernel (`row_kernel`, AVX-512) where the CPU has it, the others on
//! `matrixmultiply`'s sgemm.

use super::row_kernel;

/// How a matrix lies in its slice: element `(row, col)` is at `row * rows + col * cols`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strides {
    pub rows: usize,
    pub cols: usize,
}

impl Strides {
    /// A row-major matrix with `width` columns.
    pub const fn row_major(width: usize) -> Strides {
        Strides {
            rows: width,
            cols: 1,
        }
    }

    /// The same elements read as the transposed matrix.
    pub const fn transposed(self) -> Strides {
        Strides {
            rows: self.cols,
            cols: self.rows,
        }
    }
}

/// A matrix of `rows × cols` elements of `data` laid out by `strides`.
#[derive(Clone, Copy)]
pub struct View<'a> {
    pub data: &'a [f32],
    pub strides: Strides,
}

impl<'a> View<'a> {
    pub const fn row_major(data: &'a [f32], width: usize) -> View<'a> {
        View {
            data,
            strides: Strides::row_major(width),
        }
    }

    pub const fn transposed(self) -> View<'a> {
        View {
            data: self.data,
            strides: self.strides.transposed(),
        }
    }
}

/// Panics unless a `rows × cols` matrix laid out by `strides` fits in `len` elements.
fn check_fits(what: &str, len: usize, rows: usize, cols: usize, strides: Strides) {
    if rows == 0 || cols == 0 {
        return;
    }
    let last = (rows - 1) * strides.rows + (cols - 1) * strides.cols;
    assert!(
        last < len,
        "{what}: a {rows}×{cols} matrix with strides {strides:?} needs {} elements, the slice has {len}",
        last + 1
    );
}

/// `c = a · b` (or `c += a · b` when `accumulate`), `a` being `m × k`, `b` `k × n`, `c` `m × n`
/// laid out by `c_strides`: on the row kernel (`row_kernel`) where the CPU has AVX-512 and `a`
/// and `c` are row-major with at least a tile of rows and half a panel of columns, else on
/// `matrixmultiply`.
pub fn matmul(
    [m, k, n]: [usize; 3],
    a: View<'_>,
    b: View<'_>,
    c: &mut [f32],
    c_strides: Strides,
    accumulate: bool,
) {
    if row_kernel_suits([m, k, n], a.strides, b.strides, c_strides) {
        check_fits("left operand", a.data.len(), m, k, a.strides);
        check_fits("right operand", b.data.len(), k, n, b.strides);
        check_fits("product", c.len(), m, n, c_strides);
        row_kernel::product([m, k, n], a, b, (c, c_strides.rows), accumulate);
    } else {
        library_matmul([m, k, n], a, b, c, c_strides, accumulate);
    }
}

/// Whether `matmul` runs a product on the row kernel: the right operand and the product
/// row-major (a transposed right operand is `matrixmultiply`'s, which packs it), at least a tile
/// of rows and half a panel of columns. A left operand read transposed (a weight gradient
/// `Xᵀ · dY`) goes there only where the bench measured it faster (`cargo bench --features bench
/// --bench matmul`): when it fits in L2 (`TRANSPOSED_LEFT_MAX`; past it, reading 8 columns at a
/// time across its rows loses to sgemm's packing: 101 against 111 GFLOP/s on Connect Four's second
/// convolution) and the last panel is at least half used (`n` = 100 computes 128 columns).
fn row_kernel_suits([m, k, n]: [usize; 3], a: Strides, b: Strides, c: Strides) -> bool {
    let left_fits = a.cols == 1
        || (a.rows == 1 && m * k <= TRANSPOSED_LEFT_MAX && (n % 32 == 0 || n % 32 >= 16));
    left_fits && b.cols == 1 && c.cols == 1 && m >= 8 && k > 0 && n >= 16 && row_kernel::available()
}

/// The most elements of a transposed left operand the row kernel takes (2 MiB of f32).
const TRANSPOSED_LEFT_MAX: usize = 1 << 19;

/// `matmul` on `matrixmultiply`'s sgemm, whatever the shape (both operands packed).
pub fn library_matmul(
    [m, k, n]: [usize; 3],
    a: View<'_>,
    b: View<'_>,
    c: &mut [f32],
    c_strides: Strides,
    accumulate: bool,
) {
    check_fits("left operand", a.data.len(), m, k, a.strides);
    check_fits("right operand", b.data.len(), k, n, b.strides);
    check_fits("product", c.len(), m, n, c_strides);
    if m == 0 || n == 0 {
        return;
    }
    let beta = if accumulate { 1.0 } else { 0.0 };
    // SAFETY: the three checks above keep every element sgemm touches inside its slice; `c`
    // is borrowed mutably, so it aliases neither operand.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            1.0,
            a.data.as_ptr(),
            a.strides.rows as isize,
            a.strides.cols as isize,
            b.data.as_ptr(),
            b.strides.rows as isize,
            b.strides.cols as isize,
            beta,
            c.as_mut_ptr(),
            c_strides.rows as isize,
            c_strides.cols as isize,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The product by the definition, reading every operand through its strides.
    fn naive(
        [m, k, n]: [usize; 3],
        a: View<'_>,
        b: View<'_>,
        c: &mut [f32],
        c_strides: Strides,
        accumulate: bool,
    ) {
        for i in 0..m {
            for j in 0..n {
                let mut sum = 0.0f64;
                for l in 0..k {
                    let x = a.data[i * a.strides.rows + l * a.strides.cols];
                    let y = b.data[l * b.strides.rows + j * b.strides.cols];
                    sum += x as f64 * y as f64;
                }
                let slot = &mut c[i * c_strides.rows + j * c_strides.cols];
                *slot = if accumulate {
                    *slot + sum as f32
                } else {
                    sum as f32
                };
            }
        }
    }

    #[test]
    fn strided_products_match_the_definition() {
        let values = |len: usize, seed: usize| -> Vec<f32> {
            (0..len)
                .map(|i| (((i * 37 + seed * 11) % 23) as f32 - 11.0) / 7.0)
                .collect()
        };
        let [m, k, n] = [5, 7, 3];
        let a = values(m * k, 1);
        let b = values(k * n, 2);
        for (a_strides, b_strides, c_strides) in [
            (
                Strides::row_major(k),
                Strides::row_major(n),
                Strides::row_major(n),
            ),
            (
                Strides::row_major(m).transposed(),
                Strides::row_major(k).transposed(),
                Strides::row_major(m).transposed(),
            ),
        ] {
            for accumulate in [false, true] {
                let start = values(m * n, 3);
                let (mut ours, mut expected) = (start.clone(), start);
                let a = View {
                    data: &a,
                    strides: a_strides,
                };
                let b = View {
                    data: &b,
                    strides: b_strides,
                };
                matmul([m, k, n], a, b, &mut ours, c_strides, accumulate);
                naive([m, k, n], a, b, &mut expected, c_strides, accumulate);
                for (x, y) in ours.iter().zip(&expected) {
                    assert!((x - y).abs() < 1e-5, "{ours:?} vs {expected:?}");
                }
            }
        }
    }

    /// Deterministic values in [-1.6, 1.6], different for each seed.
    fn filled(len: usize, seed: usize) -> Vec<f32> {
        (0..len)
            .map(|i| (((i * 37 + seed * 11) % 23) as f32 - 11.0) / 7.0)
            .collect()
    }

    /// Every element of `got` within f32 rounding of a depth-`k` sum of `expected`.
    fn close([m, k, n]: [usize; 3], got: &[f32], expected: &[f32], engine: &str) {
        let scale = k as f32 * 2.6 * 1.6;
        for (i, (x, y)) in got.iter().zip(expected).enumerate() {
            assert!(
                (x - y).abs() <= 1e-6 * scale,
                "{engine} {m}×{k}×{n}: element {i} is {x}, not {y}"
            );
        }
    }

    /// Both engines of `matmul`, and the row kernel itself, against the definition on tall
    /// products: rows not a multiple of the tile, columns not a multiple of the panel (nor of
    /// its halves), depths beyond a block, a left operand with padding between rows or read
    /// transposed (a weight gradient's `Xᵀ`, padded too), a right one read transposed (which
    /// goes to `matrixmultiply`).
    #[test]
    fn row_kernel_and_library_products_match_the_definition() {
        if !row_kernel::available() {
            eprintln!("no AVX-512 here: the row kernel is not run, only matrixmultiply");
        }
        for [m, k, n] in [
            [8, 1, 16],
            [13, 5, 17],
            [77, 300, 45],
            [64, 576, 100],
            [9, 257, 32],
            [30, 40, 70],
        ] {
            let (row_major, transposed) = (filled(m * (k + 3), m), filled(k * (m + 2), k));
            let lefts = [
                View::row_major(&row_major, k + 3),
                View::row_major(&transposed, m + 2).transposed(),
            ];
            let b = filled(k * n, n);
            let rights = [View::row_major(&b, n), View::row_major(&b, k).transposed()];
            for (left, right) in lefts.into_iter().flat_map(|l| rights.map(|r| (l, r))) {
                for accumulate in [false, true] {
                    check_product([m, k, n], left, right, accumulate);
                }
            }
        }
    }

    /// `matmul`, `library_matmul` and (where it can run) the row kernel against `naive`.
    fn check_product([m, k, n]: [usize; 3], left: View<'_>, right: View<'_>, accumulate: bool) {
        let start = filled(m * n, 5);
        let c_strides = Strides::row_major(n);
        let mut expected = start.clone();
        naive([m, k, n], left, right, &mut expected, c_strides, accumulate);
        let routed = row_kernel_suits([m, k, n], left.strides, right.strides, c_strides);
        let in_place = row_kernel::available() && right.strides.cols == 1;
        if left.strides.cols == 1 {
            assert_eq!(
                routed, in_place,
                "a row-major left operand goes to the row kernel"
            );
        }
        if in_place {
            let mut got = start.clone();
            row_kernel::product([m, k, n], left, right, (&mut got, n), accumulate);
            close([m, k, n], &got, &expected, "row kernel");
        }
        for engine in [matmul, library_matmul] {
            let mut got = start.clone();
            engine([m, k, n], left, right, &mut got, c_strides, accumulate);
            close([m, k, n], &got, &expected, "matmul");
        }
    }

    #[test]
    #[should_panic(expected = "right operand")]
    fn a_view_too_short_for_its_shape_is_refused() {
        let (a, b) = (vec![1.0; 6], vec![1.0; 5]);
        let mut c = vec![0.0; 6];
        matmul(
            [2, 3, 2],
            View::row_major(&a, 3),
            View::row_major(&b, 2),
            &mut c,
            Strides::row_major(2),
            false,
        );
    }
}
