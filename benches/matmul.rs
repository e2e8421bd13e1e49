//! The matrix products of the value network side by side: `descent`'s packed AVX2/FMA kernel
//! (`value::direct::packed_matmul`, what `CpuNet` runs) against the `gemm` crate (used by candle
//! and faer; AVX-512 at run time) and `matrixmultiply`, at the shapes the networks multiply (im2col
//! convolutions and dense layers of the paper CNN on Awale and Connect Four, batch 1 to 256) and at
//! a large square product (the machine's matrix peak). One thread each: self-play runs one
//! inference per game thread. Each product's result is checked against the packed kernel's. Then
//! the products of the direct training step (`value::direct::cpu_training`, on `matrixmultiply`
//! with strided operands) on one chunk of Connect Four and Awale positions: forward, weight
//! gradient, input gradient. `cargo bench --features bench --bench matmul`; figures in the README
//! ("Matrix kernels").

use std::time::{Duration, Instant};

use descent::value::direct::cpu_training::CHUNK;
use descent::value::direct::cpu_training::matmul::{Strides, View, library_matmul, matmul};
use descent::value::direct::packed_matmul::{Activation, PackedMatrix};

/// `rows × k` times `k × n`.
struct Shape {
    name: &'static str,
    rows: usize,
    k: usize,
    n: usize,
}

fn shapes() -> Vec<Shape> {
    let mut shapes = Vec::new();
    // (game, cells, input planes, dense inputs) of the paper CNN: 3×3 convolutions to 64
    // channels, then a dense layer to 100.
    for (game, cells, planes) in [("awale", 12, 7), ("connect4", 42, 3)] {
        for batch in [1, 32, 256] {
            let rows = batch * cells;
            shapes.push(Shape {
                name: leak(format!("{game} conv1 b{batch}")),
                rows,
                k: 9 * planes,
                n: 64,
            });
            shapes.push(Shape {
                name: leak(format!("{game} conv2 b{batch}")),
                rows,
                k: 9 * 64,
                n: 64,
            });
            shapes.push(Shape {
                name: leak(format!("{game} dense b{batch}")),
                rows: batch,
                k: 64 * cells,
                n: 100,
            });
        }
    }
    shapes.push(Shape {
        name: "square 1024 (peak)",
        rows: 1024,
        k: 1024,
        n: 1024,
    });
    shapes
}

fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// GFLOP/s of `run` (2·rows·k·n flops per call), timed for about `budget`.
fn gflops(shape: &Shape, budget: Duration, mut run: impl FnMut()) -> f64 {
    run();
    let start = Instant::now();
    let mut calls = 0u64;
    while start.elapsed() < budget {
        run();
        calls += 1;
    }
    let flops = 2.0 * (shape.rows * shape.k * shape.n) as f64 * calls as f64;
    flops / start.elapsed().as_secs_f64() / 1e9
}

fn check(name: &str, what: &str, got: &[f32], want: &[f32]) {
    let worst = got
        .iter()
        .zip(want)
        .map(|(a, b)| (a - b).abs() / (1.0 + b.abs()))
        .fold(0.0f32, f32::max);
    assert!(
        worst < 1e-4,
        "{name}: {what} differs from the packed kernel by {worst}"
    );
}

/// One product of the training step: `m × k` times `k × n`, the left operand read transposed
/// or not, the right one too.
struct TrainingProduct {
    name: &'static str,
    mkn: [usize; 3],
    left_transposed: bool,
    right_transposed: bool,
}

fn training_products() -> Vec<TrainingProduct> {
    let mut products = Vec::new();
    for (game, cells) in [("awale", 12), ("connect4", 42)] {
        let rows = CHUNK * cells;
        let product = |what: &str, mkn, left_transposed, right_transposed| TrainingProduct {
            name: leak(format!("{game} {what}")),
            mkn,
            left_transposed,
            right_transposed,
        };
        products.extend([
            product("conv2 forward", [rows, 576, 64], false, false),
            product("conv2 dW = Xᵀ·dY", [576, rows, 64], true, false),
            product("conv2 dX = dY·Wᵀ", [rows, 64, 576], false, true),
            product("dense forward", [CHUNK, 64 * cells, 100], false, false),
            product("dense dW", [64 * cells, CHUNK, 100], true, false),
            product("dense dX", [CHUNK, 100, 64 * cells], false, true),
        ]);
    }
    // `resnet-b0c32-fc64` on Awale (configs/awale.yaml): one 3×3 convolution of the 7 input
    // planes to 32 channels, a dense layer of 64.
    let rows = CHUNK * 12;
    products.extend(
        [
            ("awale small conv forward", [rows, 63, 32], false, false),
            ("awale small conv dW", [63, rows, 32], true, false),
            ("awale small dense forward", [CHUNK, 384, 64], false, false),
            ("awale small dense dW", [384, CHUNK, 64], true, false),
            ("awale small dense dX", [CHUNK, 64, 384], false, true),
        ]
        .map(
            |(name, mkn, left_transposed, right_transposed)| TrainingProduct {
                name,
                mkn,
                left_transposed,
                right_transposed,
            },
        ),
    );
    products
}

fn bench_training_products(budget: Duration) {
    println!(
        "\n{:<28} {:>6} {:>6} {:>6} {:>10} {:>10}   GFLOP/s, one thread, chunk of {CHUNK} positions",
        "training product", "m", "k", "n", "mmul", "matmul"
    );
    for product in training_products() {
        let [m, k, n] = product.mkn;
        let a: Vec<f32> = (0..m * k).map(|i| (i % 13) as f32 * 0.1 - 0.6).collect();
        let b: Vec<f32> = (0..k * n).map(|i| (i % 11) as f32 * 0.1 - 0.5).collect();
        let view = |data, rows, cols, transposed| {
            if transposed {
                View::row_major(data, rows).transposed()
            } else {
                View::row_major(data, cols)
            }
        };
        let (left, right) = (
            view(&a, m, k, product.left_transposed),
            view(&b, k, n, product.right_transposed),
        );
        let mut c = vec![0.0f32; m * n];
        let shape = Shape {
            name: product.name,
            rows: m,
            k,
            n,
        };
        let library = gflops(&shape, budget, || {
            library_matmul([m, k, n], left, right, &mut c, Strides::row_major(n), false)
        });
        let expected = c.clone();
        let routed = gflops(&shape, budget, || {
            matmul([m, k, n], left, right, &mut c, Strides::row_major(n), false)
        });
        check(product.name, "matmul", &c, &expected);
        println!(
            "{:<28} {m:>6} {k:>6} {n:>6} {library:>10.1} {routed:>10.1}",
            product.name
        );
    }
}

fn main() {
    let budget = Duration::from_millis(300);
    bench_kernels(budget);
    bench_training_products(budget);
}

fn bench_kernels(budget: Duration) {
    println!(
        "{:<22} {:>6} {:>6} {:>5} {:>10} {:>10} {:>10}   GFLOP/s, one thread",
        "shape", "rows", "k", "n", "packed", "gemm", "mmul"
    );
    for shape in shapes() {
        let (m, k, n) = (shape.rows, shape.k, shape.n);
        let x: Vec<f32> = (0..m * k)
            .map(|i| ((i * 7919) % 200) as f32 / 100.0 - 1.0)
            .collect();
        let w: Vec<f32> = (0..k * n)
            .map(|i| ((i * 104729) % 200) as f32 / 1000.0 - 0.1)
            .collect();
        let packed = PackedMatrix::new(k, n, |i, o| w[i * n + o], &vec![0.0; n]);
        let mut reference = vec![0.0f32; m * n];
        let packed_gflops = gflops(&shape, budget, || {
            packed.apply(&x, m, &mut reference, Activation::Identity, false)
        });
        let mut out = vec![0.0f32; m * n];
        let gemm_gflops = gflops(&shape, budget, || unsafe {
            // dst := 0·dst + 1·x·w, row-major (row stride first).
            gemm::gemm(
                m,
                n,
                k,
                out.as_mut_ptr(),
                1,
                n as isize,
                false,
                x.as_ptr(),
                1,
                k as isize,
                w.as_ptr(),
                1,
                n as isize,
                0.0,
                1.0,
                false,
                false,
                false,
                gemm::Parallelism::None,
            )
        });
        check(shape.name, "gemm", &out, &reference);
        let mut out = vec![0.0f32; m * n];
        let mmul_gflops = gflops(&shape, budget, || unsafe {
            matrixmultiply::sgemm(
                m,
                k,
                n,
                1.0,
                x.as_ptr(),
                k as isize,
                1,
                w.as_ptr(),
                n as isize,
                1,
                0.0,
                out.as_mut_ptr(),
                n as isize,
                1,
            )
        });
        check(shape.name, "matrixmultiply", &out, &reference);
        println!(
            "{:<22} {m:>6} {k:>6} {n:>5} {packed_gflops:>10.1} {gemm_gflops:>10.1} {mmul_gflops:>10.1}",
            shape.name
        );
    }
}
