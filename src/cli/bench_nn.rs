//! `descent bench nn <game> --arch … --batch 1,6,32,256 [--device …] [--train] [--policy]
//! [--json]`: inference positions/s and GFLOP/s per batch size on random positions; with
//! `--train`, the training step's samples/s and GFLOP/s on each engine (the direct CPU step and
//! burn), next to the matrix peak measured in the same run. With `--policy`, every figure is
//! measured for the value network and for the policy-value network on the same trunk
//! (AlphaZero's and ExIt's, both heads), one line each.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::Args;
use serde::Serialize;

use crate::games::random_positions::encoded_random_positions;
use crate::games::{Game, GameSpec, GameVisitor};
use crate::settings::config_error::ConfigError;
use crate::settings::limits::{MAX_BATCH, at_most};
use crate::value::direct::cpu_training::matmul::{Strides, View, library_matmul};
use burn::prelude::{Device, Tensor};
use burn::tensor::Distribution;

use crate::value::policy_value_net::PolicyValueTrainer;
use crate::value::{
    AdamSettings, Architecture, DeviceChoice, InferenceNet, NetDevice, NetOptimizer,
    PolicyValueInference, PolicyValueNet,
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
    /// Also measure the training step: on the direct CPU engine (`descent-cpu`), on burn-flex, and
    /// on --device if it is another, with the matrix peak of this machine — or, with a GPU
    /// --device, on the GPU alone, with the GPU's matrix peak.
    #[arg(long)]
    train: bool,
    /// Also measure the policy-value network on the same trunk (AlphaZero's and ExIt's: the
    /// policy head beside the value head), every figure beside the value network's.
    #[arg(long)]
    policy: bool,
    /// Training minibatch sizes, comma-separated.
    #[arg(long, default_value = "128", value_delimiter = ',')]
    train_batch: Vec<usize>,
    /// Device: descent-cpu (descent's own direct CPU passes), flex (burn-flex), ndarray, wgpu, cuda
    /// or cuda:N (GPU backends need their cargo feature).
    #[arg(long, default_value = "descent-cpu", value_parser = |s: &str| s.parse::<DeviceChoice>())]
    device: DeviceChoice,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Which network a figure measured.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum Heads {
    /// The value network (Athénan's).
    Value,
    /// The same trunk with the policy head beside the value head (AlphaZero's, ExIt's).
    PolicyValue,
}

impl Heads {
    fn name(self) -> &'static str {
        match self {
            Heads::Value => "value",
            Heads::PolicyValue => "policy-value",
        }
    }
}

#[derive(Serialize, Clone, Copy)]
struct InferenceFigure {
    net: Heads,
    batch: usize,
    positions_per_s: f64,
    gflops: f64,
    ms_per_batch: f64,
}

#[derive(Serialize)]
struct TrainingFigure {
    net: Heads,
    engine: String,
    batch: usize,
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
    train_batches: Vec<usize>,
    training_flops_per_sample: u64,
    training: Vec<TrainingFigure>,
    /// GFLOP/s of the matrix products the peak is measured by (with `--train`).
    matrix_peak_gflops: Option<f64>,
    /// What the peak measured.
    matrix_peak_of: Option<String>,
}

struct NnBench {
    arch: Architecture,
    batches: Vec<usize>,
    train_batches: Vec<usize>,
    device: NetDevice,
    /// The training engines to time, by name (empty: no training measurement).
    engines: Vec<(String, NetDevice)>,
    /// The networks to measure.
    heads: Vec<Heads>,
    seconds: Duration,
}

/// What the bench measured for one game.
struct NnFigures {
    inference: Vec<InferenceFigure>,
    /// What each engine's steps took, by network, engine and batch.
    training: Vec<(Heads, String, usize, StepTimes)>,
}

/// An engine's training steps, timed.
struct StepTimes {
    samples_per_s: f64,
    median_step_ms: f64,
}

impl NnBench {
    /// The inference figure of `net` (with `heads`) at `batch`, after checking the timed engine
    /// agrees with burn's forward pass.
    fn inference<G: Game>(
        &self,
        initial: &G,
        (net, heads): (&PolicyValueNet, Heads),
        batch: usize,
    ) -> anyhow::Result<InferenceFigure> {
        let e = G::ENCODING;
        let shape = e.dims();
        let flops = self.arch.flops(e.planes, e.rows, e.cols);
        let inference = BenchedNet::new(net, heads, shape, &self.device);
        let inputs = encoded_random_positions(initial, batch, 0);
        let expected = match heads {
            Heads::Value => net
                .value
                .predict(inputs.clone(), batch, shape, &self.device.burn),
            Heads::PolicyValue => {
                net.predict(inputs.clone(), batch, shape, &self.device.burn)
                    .0
            }
        };
        let mut values = vec![f32::NAN; batch];
        let mut logits = vec![f32::NAN; batch * net.num_actions()];
        inference.predict(&inputs, &mut values, &mut logits);
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
            inference.predict(&inputs, &mut values, &mut logits);
            passes += 1;
        }
        let seconds = start.elapsed().as_secs_f64();
        let positions_per_s = (passes * batch as u64) as f64 / seconds;
        Ok(InferenceFigure {
            net: heads,
            batch,
            positions_per_s,
            gflops: positions_per_s * flops as f64 / 1e9,
            ms_per_batch: seconds * 1e3 / passes as f64,
        })
    }

    /// Training samples/s of `net` (with `heads`) on `engine`, stepping on one minibatch of
    /// `batch` random positions (value targets ±0.5, uniform policy targets).
    fn training<G: Game>(
        &self,
        initial: &G,
        (net, heads): (&PolicyValueNet, Heads),
        engine: &NetDevice,
        batch: usize,
    ) -> anyhow::Result<StepTimes> {
        let inputs = encoded_random_positions(initial, batch, 0);
        let targets: Vec<f32> = (0..batch)
            .map(|i| if i % 2 == 0 { 0.5 } else { -0.5 })
            .collect();
        let policies = vec![1.0 / G::NUM_ACTIONS as f32; batch * G::NUM_ACTIONS];
        let (settings, shape) = (AdamSettings::default(), G::ENCODING.dims());
        let mut trainer = match heads {
            Heads::Value => BenchedTrainer::Value(NetOptimizer::new(
                net.value.clone(),
                settings,
                engine,
                shape,
            )),
            Heads::PolicyValue => BenchedTrainer::PolicyValue(PolicyValueTrainer::new(
                net.clone(),
                settings,
                engine,
                shape,
            )),
        };
        let mut step = || trainer.step(&inputs, &policies, &targets);
        let first = step();
        let start = Instant::now();
        let mut step_seconds = Vec::with_capacity(1 << 16);
        // Adam on one repeated minibatch may overshoot on a large network: the steps learn if
        // some loss went below the first, and none is NaN or infinite.
        let (mut lowest, mut finite) = (first, first.is_finite());
        while start.elapsed() < self.seconds {
            let step_start = Instant::now();
            let loss = step();
            step_seconds.push(step_start.elapsed().as_secs_f64());
            finite &= loss.is_finite();
            lowest = lowest.min(loss);
        }
        anyhow::ensure!(
            finite && (lowest < first || step_seconds.is_empty()),
            "training does not learn: first loss {first}, lowest {lowest}{}",
            if finite { "" } else { ", some not finite" }
        );
        let steps = step_seconds.len();
        let samples_per_s = (steps * batch) as f64 / start.elapsed().as_secs_f64();
        anyhow::ensure!(steps > 0, "no training step fits in --seconds");
        let (_, median, _) = step_seconds.select_nth_unstable_by(steps / 2, f64::total_cmp);
        let median_step_ms = *median * 1e3;
        Ok(StepTimes {
            samples_per_s,
            median_step_ms,
        })
    }
}

/// The network a bench times, as the engine evaluates it.
enum BenchedNet {
    Value(InferenceNet),
    PolicyValue(PolicyValueInference),
}

impl BenchedNet {
    fn new(net: &PolicyValueNet, heads: Heads, shape: [usize; 3], device: &NetDevice) -> Self {
        match heads {
            Heads::Value => BenchedNet::Value(InferenceNet::new(net.value.clone(), shape, device)),
            Heads::PolicyValue => {
                BenchedNet::PolicyValue(PolicyValueInference::new(net.clone(), shape, device))
            }
        }
    }

    /// Values (and, for the policy-value network, logits) of the encoded `inputs`.
    fn predict(&self, inputs: &[f32], values: &mut [f32], logits: &mut [f32]) {
        match self {
            BenchedNet::Value(net) => net.predict_into(inputs, values),
            BenchedNet::PolicyValue(net) => net.predict_into(inputs, values, Some(logits)),
        }
    }
}

/// The network a bench trains.
enum BenchedTrainer {
    Value(NetOptimizer),
    PolicyValue(PolicyValueTrainer),
}

impl BenchedTrainer {
    /// One step; the loss it minimises (the policy-value network's: value plus policy).
    fn step(&mut self, inputs: &[f32], policies: &[f32], targets: &[f32]) -> f32 {
        match self {
            BenchedTrainer::Value(trainer) => trainer.step(inputs, targets),
            BenchedTrainer::PolicyValue(trainer) => {
                let loss = trainer.step(inputs, policies, targets);
                loss.value + loss.policy_cross_entropy
            }
        }
    }
}

impl GameVisitor for NnBench {
    type Output = anyhow::Result<NnFigures>;
    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let (shape, actions) = (G::ENCODING.dims(), G::NUM_ACTIONS);
        let net = PolicyValueNet::new(&self.arch, shape, actions, &self.device.burn);
        // Each batch is timed on both networks one after the other (and each training batch on
        // each engine), so that the two are compared in the same seconds of a machine whose
        // speed drifts; the lines are printed network by network.
        let mut inference = Vec::new();
        for &batch in &self.batches {
            for &heads in &self.heads {
                inference.push(self.inference(&initial, (&net, heads), batch)?);
            }
        }
        inference.sort_by_key(|f| f.net == Heads::PolicyValue);
        let mut training = Vec::new();
        for (name, engine) in &self.engines {
            for &batch in &self.train_batches {
                for &heads in &self.heads {
                    let times = self.training(&initial, (&net, heads), engine, batch)?;
                    training.push((heads, name.clone(), batch, times));
                }
            }
        }
        Ok(NnFigures {
            inference,
            training,
        })
    }
}

/// GFLOP/s of 1024 × 1024 × 1024 products by the training step's matrix library
/// (`matrixmultiply`), one on each of rayon's threads at once (how the training step runs its
/// chunks): the peak its products can reach on this machine.
pub(super) fn matrix_peak(budget: Duration) -> f64 {
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

/// The side of the square products `device_matrix_peak` times.
pub(super) const DEVICE_PEAK_SIZE: usize = 4096;

/// GFLOP/s of `n`³ f32 products through burn on `device` (a GPU), products queued back to
/// back for `budget` after one warm-up, the device synchronised before the clock stops.
///
/// # Errors
/// The device failed to run or synchronise.
pub(super) fn device_matrix_peak(
    device: &Device,
    n: usize,
    budget: Duration,
) -> anyhow::Result<f64> {
    let a = Tensor::<2>::random([n, n], Distribution::Default, device);
    let b = Tensor::<2>::random([n, n], Distribution::Default, device);
    let sync = || {
        device
            .sync()
            .map_err(|e| anyhow::anyhow!("{device:?}: {e:?}"))
    };
    let mut checksum = a.clone().matmul(b.clone()).sum();
    sync()?;
    let start = Instant::now();
    let mut products = 0u64;
    while start.elapsed() < budget {
        // Eight at a time, so the queue never runs dry while the host loops.
        for _ in 0..8 {
            checksum = checksum + a.clone().matmul(b.clone()).sum();
        }
        sync()?;
        products += 8;
    }
    let seconds = start.elapsed().as_secs_f64();
    let checksum = checksum
        .try_into_scalar::<f32>()
        .map_err(|e| anyhow::anyhow!("{device:?}: {e:?}"))?;
    anyhow::ensure!(checksum.is_finite(), "{device:?} gave non-finite products");
    Ok(products as f64 * 2.0 * (n * n * n) as f64 / seconds / 1e9)
}

/// The training engines `--train` times: a GPU alone; else the direct CPU step, burn-flex, and
/// `device` if it is neither.
fn training_engines(device: DeviceChoice) -> Result<Vec<(String, NetDevice)>, ConfigError> {
    let mut choices = vec![DeviceChoice::DescentCpu, DeviceChoice::Flex];
    if device.is_gpu() {
        choices = vec![device];
    } else if !choices.contains(&device) {
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
    for &batch in args.batch.iter().chain(&args.train_batch) {
        at_most("--batch / --train-batch", batch, MAX_BATCH)?;
    }
    args.arch
        .check_size(args.game.encoding_dims())
        .map_err(anyhow::Error::msg)?;
    anyhow::ensure!(
        !args.train_batch.is_empty() && args.train_batch.iter().all(|&b| b > 0),
        "--train-batch sizes must be positive"
    );
    let device = args.device.device().map_err(anyhow::Error::msg)?;
    let engines = if args.train {
        training_engines(args.device).map_err(anyhow::Error::msg)?
    } else {
        Vec::new()
    };
    let bench = NnBench {
        arch: args.arch.clone(),
        batches: args.batch.clone(),
        train_batches: args.train_batch.clone(),
        device: device.clone(),
        engines,
        heads: if args.policy {
            vec![Heads::Value, Heads::PolicyValue]
        } else {
            vec![Heads::Value]
        },
        seconds,
    };
    let figures = args.game.visit(bench)?;
    let peak = match (args.train, args.device.is_gpu()) {
        (false, _) => None,
        (true, false) => Some((
            matrix_peak(seconds),
            format!(
                "1024³ sgemm products on {} threads at once",
                rayon::current_num_threads()
            ),
        )),
        (true, true) => Some((
            device_matrix_peak(&device.burn, DEVICE_PEAK_SIZE, seconds)?,
            format!(
                "{DEVICE_PEAK_SIZE}³ f32 products through burn on {}",
                args.device
            ),
        )),
    };
    print_report(&report(&args, figures, peak), args.json)
}

/// The report of `figures`, each training figure set against the matrix `peak` (GFLOP/s, and
/// what it measured).
fn report(args: &NnArgs, figures: NnFigures, peak: Option<(f64, String)>) -> NnReport {
    let [planes, rows, cols] = args.game.encoding_dims();
    let training_flops = args.arch.training_flops(planes, rows, cols);
    let training = figures
        .training
        .into_iter()
        .map(|(net, engine, batch, times)| {
            let gflops = times.samples_per_s * training_flops as f64 / 1e9;
            TrainingFigure {
                net,
                engine,
                batch,
                samples_per_s: times.samples_per_s,
                median_step_ms: times.median_step_ms,
                gflops,
                share_of_peak: peak.as_ref().map_or(f64::NAN, |(p, _)| gflops / p),
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
        train_batches: args.train_batch.clone(),
        training_flops_per_sample: training_flops,
        training,
        matrix_peak_gflops: peak.as_ref().map(|(p, _)| *p),
        matrix_peak_of: peak.map(|(_, of)| of),
    }
}

/// Each policy-value figure as a share of the value network's of the same batch (and engine):
/// what the policy head costs.
fn print_policy_shares(report: &NnReport) {
    for f in report
        .inference
        .iter()
        .filter(|f| f.net == Heads::PolicyValue)
    {
        let value = report
            .inference
            .iter()
            .find(|v| v.net == Heads::Value && v.batch == f.batch);
        if let Some(v) = value {
            println!(
                "  policy-value / value, inference batch {:>5}: {:.0} %",
                f.batch,
                100.0 * f.positions_per_s / v.positions_per_s
            );
        }
    }
    for t in report
        .training
        .iter()
        .filter(|t| t.net == Heads::PolicyValue)
    {
        let value = report
            .training
            .iter()
            .find(|v| v.net == Heads::Value && v.batch == t.batch && v.engine == t.engine);
        if let Some(v) = value {
            println!(
                "  policy-value / value, training batch {:>4} on {}: {:.0} %",
                t.batch,
                t.engine,
                100.0 * t.samples_per_s / v.samples_per_s
            );
        }
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
            "  {:>12} inference batch {:>5}: {:>10.0} positions/s {:>7.1} GFLOP/s {:>8.3} ms/batch",
            f.net.name(),
            f.batch,
            f.positions_per_s,
            f.gflops,
            f.ms_per_batch,
        );
    }
    for t in &report.training {
        println!(
            "  {:>12} training batch {:>4} on {:>11}: {:>10.0} samples/s {:>7.1} GFLOP/s ({:.0} % of the matrix peak), median step {:.3} ms",
            t.net.name(),
            t.batch,
            t.engine,
            t.samples_per_s,
            t.gflops,
            100.0 * t.share_of_peak,
            t.median_step_ms
        );
    }
    print_policy_shares(report);
    if let (Some(peak), Some(of)) = (report.matrix_peak_gflops, &report.matrix_peak_of) {
        println!(
            "  matrix peak: {peak:.1} GFLOP/s ({of}); training counts {:.2} MFLOP per sample",
            report.training_flops_per_sample as f64 / 1e6
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_device_peak_times_real_products() {
        // On burn-flex (the CPU) with small products: a positive, finite rate, and a few
        // products at least, so the clock ran over work.
        let budget = Duration::from_millis(50);
        let gflops = device_matrix_peak(&Device::flex(), 64, budget).unwrap();
        assert!(
            gflops.is_finite() && gflops > 8.0 * 2.0 * 64f64.powi(3) / 1e9 / 1.0,
            "{gflops}"
        );
    }
}
