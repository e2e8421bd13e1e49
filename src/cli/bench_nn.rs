//! `descent bench nn <game> --arch … --batch 1,6,32,256 [--device …] [--json]`: inference
//! positions/s and GFLOP/s per batch size, and training samples/s, on random positions.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Args;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::Serialize;

use crate::games::{Game, GameSpec, GameVisitor};
use crate::search::limits::{MAX_BATCH, at_most};
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
    /// Training minibatch size (0: skip the training measurement).
    #[arg(long, default_value_t = 128)]
    train_batch: usize,
    /// Device: cpu (inference by the direct CPU pass, training on burn-flex), flex (burn-flex
    /// for both), ndarray, wgpu, cuda or cuda:N (GPU backends need their cargo feature).
    #[arg(long, default_value = "cpu", value_parser = |s: &str| s.parse::<DeviceChoice>())]
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
struct NnReport {
    bench: &'static str,
    game: String,
    arch: String,
    device: String,
    flops_per_position: u64,
    inference: Vec<InferenceFigure>,
    train_batch: usize,
    train_samples_per_s: Option<f64>,
}

struct NnBench {
    arch: Architecture,
    batches: Vec<usize>,
    train_batch: usize,
    device: NetDevice,
    seconds: Duration,
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

impl GameVisitor for NnBench {
    type Output = anyhow::Result<(u64, Vec<InferenceFigure>, Option<f64>)>;
    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let e = G::ENCODING;
        let shape = e.dims();
        let flops = self.arch.flops(e.planes, e.rows, e.cols);
        let net = ValueNet::new(&self.arch, shape, true, &self.device.burn);
        let inference = InferenceNet::new(net.clone(), shape, &self.device);
        let budget = self.seconds;
        let mut figures = Vec::new();
        for &batch in &self.batches {
            let inputs = random_inputs(&initial, batch);
            // The timed engine must agree with burn's forward pass.
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
            while start.elapsed() < budget {
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
        let train = if self.train_batch > 0 {
            let inputs = random_inputs(&initial, self.train_batch);
            let targets: Vec<f32> = (0..self.train_batch)
                .map(|i| if i % 2 == 0 { 0.5 } else { -0.5 })
                .collect();
            let mut net_optimizer =
                NetOptimizer::new(net, AdamSettings::default(), &self.device, shape);
            let first = net_optimizer.step(inputs.clone(), &targets);
            let start = Instant::now();
            let mut steps = 0u64;
            let mut last = first;
            while start.elapsed() < budget {
                last = net_optimizer.step(inputs.clone(), &targets);
                steps += 1;
            }
            anyhow::ensure!(
                last.is_finite() && last <= first,
                "training diverged: loss {first} -> {last}"
            );
            Some((steps * self.train_batch as u64) as f64 / start.elapsed().as_secs_f64())
        } else {
            None
        };
        Ok((flops, figures, train))
    }
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
    let device = args.device.device().map_err(anyhow::Error::msg)?;
    let bench = NnBench {
        arch: args.arch.clone(),
        batches: args.batch.clone(),
        train_batch: args.train_batch,
        device,
        seconds,
    };
    let (flops, inference, train) = args.game.visit(bench)?;
    let report = NnReport {
        bench: "nn",
        game: args.game.to_string(),
        arch: args.arch.to_string(),
        device: args.device.to_string(),
        flops_per_position: flops,
        inference,
        train_batch: args.train_batch,
        train_samples_per_s: train,
    };
    if args.json {
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
    if let Some(t) = report.train_samples_per_s {
        println!(
            "  training batch {:>6}: {:>10.0} samples/s",
            report.train_batch, t
        );
    }
    Ok(ExitCode::SUCCESS)
}
