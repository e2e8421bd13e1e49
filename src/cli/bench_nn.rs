//! `descent bench nn <game> --arch … --batch 1,6,32,256 [--device …] [--train] [--json]`:
//! inference positions/s and GFLOP/s per batch size on random positions; with `--train`, the
//! training step's samples/s and GFLOP/s on each engine (the direct CPU step and burn), next to
//! the matrix peak measured in the same run.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::Args;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::Serialize;

use crate::games::{Game, GameSpec, GameVisitor};
use crate::settings::config_error::ConfigError;
use crate::settings::limits::{MAX_BATCH, at_most};
use crate::value::direct::cpu_training::matmul::{Strides, View, library_matmul};
use crate::value::{
    AdamSettings, Architecture, DeviceChoice, InferenceNet, NetDevice, NetOptimizer, ValueNet,
};

#[derive(Args, Debug)]
pub struct NnArgs {
    /// Game spec (gives the input encoding), e.g. awale.
    #[arg(value_parser = super::parse_game)]
    game: GameSpec,
    /// Architecture: paper-cnn or resnet-b<blocks>c<filters>-fc<n>[-fc<n>].
    #[arg(long, default_value = "paper-cnn", value_parser = |s: &str| s.parse::<Architecture>())]
    arch: Architecture,
    /// Inference batch sizes, comma-separated.
    #[arg(long, default_value = "1,6,32,256", value_delimiter = ',')]
    batch: Vec<usize>,
    /// Also measure the training step: on the direct CPU engine (`descent-cpu`), on burn-flex, and on
    /// --device if it is another, with the matrix peak of this machine.
    #[arg(long)]
    train: bool,
    /// Training minibatch size.
    #[arg(long, default_value_t = 128)]
    train_batch: usize,
    /// Device: descent-cpu (descent's own direct CPU passes), flex (burn-flex), ndarray, wgpu, cuda or cuda:N
    /// (GPU backends need their cargo feature).
    #[arg(long, default_value = "descent-cpu", value_parser = |s: &str| s.parse::<DeviceChoice>())]
    device: DeviceChoice,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize, Clone, Copy)]
struct InferenceFigure {
    batch: usize,
    positions_per_s: f64,
    gflops: f64,
    ms_per_batch: f64,
}

#[derive(Serialize)]
struct TrainingFigure {
    engine: String,
    samples_per_s: f64,
    /// The median of the steps' times: steadier than the mean on a machine shared with others.
    median_step_ms: f64,
    gflops: f64,
    /// `gflops` over the matrix peak.
    share_of_peak: f64,
}

#[derive(Serialize)]
struct NnReport {
    bench: &'static str,
    game: String,
    arch: String,
    device: String,
    flops_per_position: u64,
    inference: Vec<InferenceFigure>,
    train_batch: usize,
    training_flops_per_sample: u64,
    training: Vec<TrainingFigure>,
    /// GFLOP/s of 1024³ products on every thread at once (with `--train`).
    matrix_peak_gflops: Option<f64>,
}

struct NnBench {
    arch: Architecture,
    batches: Vec<usize>,
    train_batch: usize,
    device: NetDevice,
    /// The training engines to time, by name (empty: no training measurement).
    engines: Vec<(String, NetDevice)>,
    seconds: Duration,
}

/// What the bench measured for one game.
struct NnFigures {
    inference: Vec<InferenceFigure>,
    /// What each engine's steps took.
    training: Vec<(String, StepTimes)>,
}

/// An engine's training steps, timed.
struct StepTimes {
    samples_per_s: f64,
    median_step_ms: f64,
}

/// Encoded random positions: `count` of them, contiguous.
fn random_inputs<G: Game>(initial: &G, count: usize) -> Vec<f32> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0);
    let size = G::ENCODING.len();
    let mut out = vec![0.0; count * size];
    let mut actions = Vec::new();
    for slot in out.chunks_exact_mut(size) {
        let mut p = initial.clone();
        for _ in 0..rng.random_range(0..30) {
            p.legal_actions(&mut actions);
            if actions.is_empty() {
                break;
            }
            p.play(actions[rng.random_range(0..actions.len())]);
        }
        p.encode(slot);
    }
    out
}

impl NnBench {
    /// Inference figures of `net` at each batch size, after checking the timed engine agrees
    /// with burn's forward pass.
    fn inference<G: Game>(
        &self,
        initial: &G,
        net: &ValueNet,
    ) -> anyhow::Result<Vec<InferenceFigure>> {
        let e = G::ENCODING;
        let shape = e.dims();
        let flops = self.arch.flops(e.planes, e.rows, e.cols);
        let inference = InferenceNet::new(net.clone(), shape, &self.device);
        let mut figures = Vec::new();
        for &batch in &self.batches {
            let inputs = random_inputs(initial, batch);
            let expected = net.predict(inputs.clone(), batch, shape, &self.device.burn);
            let mut values = vec![f32::NAN; batch];
            inference.predict_into(&inputs, &mut values);
            anyhow::ensure!(
                values
                    .iter()
                    .zip(&expected)
                    .all(|(v, e)| v.is_finite() && (v - e).abs() <= 1e-4 * (1.0 + e.abs())),
                "the network returned bad values: {values:?}, burn gives {expected:?}"
            );
            let start = Instant::now();
            let mut passes = 0u64;
            while start.elapsed() < self.seconds {
                inference.predict_into(&inputs, &mut values);
                passes += 1;
            }
            let seconds = start.elapsed().as_secs_f64();
            let positions_per_s = (passes * batch as u64) as f64 / seconds;
            figures.push(InferenceFigure {
                batch,
                positions_per_s,
                gflops: positions_per_s * flops as f64 / 1e9,
                ms_per_batch: seconds * 1e3 / passes as f64,
            });
        }
        Ok(figures)
    }

    /// Training samples/s of `net` on `engine`, stepping on one minibatch of random positions.
    fn training<G: Game>(
        &self,
        initial: &G,
        net: &ValueNet,
        engine: &NetDevice,
    ) -> anyhow::Result<StepTimes> {
        let inputs = random_inputs(initial, self.train_batch);
        let targets: Vec<f32> = (0..self.train_batch)
            .map(|i| if i % 2 == 0 { 0.5 } else { -0.5 })
            .collect();
        let mut net_optimizer = NetOptimizer::new(
            net.clone(),
            AdamSettings::default(),
            engine,
            G::ENCODING.dims(),
        );
        let first = net_optimizer.step(&inputs, &targets);
        let start = Instant::now();
        let mut step_seconds = Vec::with_capacity(1 << 16);
        let mut last = first;
        while start.elapsed() < self.seconds {
            let step_start = Instant::now();
            last = net_optimizer.step(&inputs, &targets);
            step_seconds.push(step_start.elapsed().as_secs_f64());
        }
        anyhow::ensure!(
            last.is_finite() && last <= first,
            "training diverged: loss {first} -> {last}"
        );
        let steps = step_seconds.len();
        let samples_per_s = (steps * self.train_batch) as f64 / start.elapsed().as_secs_f64();
        anyhow::ensure!(steps > 0, "no training step fits in --seconds");
        let (_, median, _) = step_seconds.select_nth_unstable_by(steps / 2, f64::total_cmp);
        let median_step_ms = *median * 1e3;
        Ok(StepTimes {
            samples_per_s,
            median_step_ms,
        })
    }
}

impl GameVisitor for NnBench {
    type Output = anyhow::Result<NnFigures>;
    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let net = ValueNet::new(&self.arch, G::ENCODING.dims(), true, &self.device.burn);
        let inference = self.inference(&initial, &net)?;
        let training = self
            .engines
            .iter()
            .map(|(name, engine)| Ok((name.clone(), self.training(&initial, &net, engine)?)))
            .collect::<anyhow::Result<_>>()?;
        Ok(NnFigures {
            inference,
            training,
        })
    }
}

/// GFLOP/s of 1024 × 1024 × 1024 products by the training step's matrix library
/// (`matrixmultiply`), one on each of rayon's threads at once (how the training step runs its
/// chunks): the peak its products can reach on this machine.
fn matrix_peak(budget: Duration) -> f64 {
    const N: usize = 1024;
    let a: Vec<f32> = (0..N * N).map(|i| (i % 7) as f32 * 0.25).collect();
    let b: Vec<f32> = (0..N * N).map(|i| (i % 5) as f32 * 0.5).collect();
    let products = AtomicU64::new(0);
    let start = Instant::now();
    rayon::broadcast(|_| {
        let mut c = vec![0.0f32; N * N];
        while start.elapsed() < budget {
            library_matmul(
                [N, N, N],
                View::row_major(&a, N),
                View::row_major(&b, N),
                &mut c,
                Strides::row_major(N),
                false,
            );
            products.fetch_add(1, Ordering::Relaxed);
        }
    });
    let flops = products.into_inner() as f64 * 2.0 * (N * N * N) as f64;
    flops / start.elapsed().as_secs_f64() / 1e9
}

/// The training engines `--train` times: the direct CPU step, burn-flex, and `device` if it
/// is neither.
fn training_engines(device: DeviceChoice) -> Result<Vec<(String, NetDevice)>, ConfigError> {
    let mut choices = vec![DeviceChoice::DescentCpu, DeviceChoice::Flex];
    if !choices.contains(&device) {
        choices.push(device);
    }
    choices
        .into_iter()
        .map(|choice| Ok((choice.to_string(), choice.device()?)))
        .collect()
}

/// # Errors
/// Bad arguments or a failed subcommand, as one message for the user.
pub fn run(args: NnArgs) -> anyhow::Result<ExitCode> {
    let seconds = super::seconds_arg(args.seconds)?;
    anyhow::ensure!(
        !args.batch.is_empty() && args.batch.iter().all(|&b| b > 0),
        "--batch sizes must be positive"
    );
    for &batch in args.batch.iter().chain([&args.train_batch]) {
        at_most("--batch / --train-batch", batch, MAX_BATCH)?;
    }
    args.arch
        .check_size(args.game.encoding_dims())
        .map_err(anyhow::Error::msg)?;
    anyhow::ensure!(args.train_batch > 0, "--train-batch must be positive");
    let device = args.device.device().map_err(anyhow::Error::msg)?;
    let engines = if args.train {
        training_engines(args.device).map_err(anyhow::Error::msg)?
    } else {
        Vec::new()
    };
    let bench = NnBench {
        arch: args.arch.clone(),
        batches: args.batch.clone(),
        train_batch: args.train_batch,
        device,
        engines,
        seconds,
    };
    let figures = args.game.visit(bench)?;
    let peak = args.train.then(|| matrix_peak(seconds));
    print_report(&report(&args, figures, peak), args.json)
}

/// The report of `figures`, each training figure set against the matrix `peak` (GFLOP/s).
fn report(args: &NnArgs, figures: NnFigures, peak: Option<f64>) -> NnReport {
    let [planes, rows, cols] = args.game.encoding_dims();
    let training_flops = args.arch.training_flops(planes, rows, cols);
    let training = figures
        .training
        .into_iter()
        .map(|(engine, times)| {
            let gflops = times.samples_per_s * training_flops as f64 / 1e9;
            TrainingFigure {
                engine,
                samples_per_s: times.samples_per_s,
                median_step_ms: times.median_step_ms,
                gflops,
                share_of_peak: peak.map_or(f64::NAN, |p| gflops / p),
            }
        })
        .collect();
    NnReport {
        bench: "nn",
        game: args.game.to_string(),
        arch: args.arch.to_string(),
        device: args.device.to_string(),
        flops_per_position: args.arch.flops(planes, rows, cols),
        inference: figures.inference,
        train_batch: args.train_batch,
        training_flops_per_sample: training_flops,
        training,
        matrix_peak_gflops: peak,
    }
}

fn print_report(report: &NnReport, json: bool) -> anyhow::Result<ExitCode> {
    if json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{} on {} ({}), {:.2} MFLOP per position",
        report.arch,
        report.game,
        report.device,
        report.flops_per_position as f64 / 1e6
    );
    for f in &report.inference {
        println!(
            "  inference batch {:>5}: {:>10.0} positions/s {:>7.1} GFLOP/s {:>8.3} ms/batch",
            f.batch, f.positions_per_s, f.gflops, f.ms_per_batch
        );
    }
    for t in &report.training {
        println!(
            "  training batch {:>4} on {:>11}: {:>10.0} samples/s {:>7.1} GFLOP/s ({:.0} % of the matrix peak), median step {:.3} ms",
            report.train_batch,
            t.engine,
            t.samples_per_s,
            t.gflops,
            100.0 * t.share_of_peak,
            t.median_step_ms
        );
    }
    if let Some(peak) = report.matrix_peak_gflops {
        println!(
            "  matrix peak: {peak:.1} GFLOP/s (1024³ sgemm products on {} threads at once); training counts {:.2} MFLOP per sample",
            rayon::current_num_threads(),
            report.training_flops_per_sample as f64 / 1e6
        );
    }
    Ok(ExitCode::SUCCESS)
}
