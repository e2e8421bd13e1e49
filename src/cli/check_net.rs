//! `descent check-net MODEL --game G [--device D] [--positions N] [--out F] [--against F]`:
//! the model's values of N fixed random positions on `--device`, compared with descent's own
//! CPU pass in the same process and, with `--against`, with the values another machine wrote
//! (`--out`) — the check that a network moved between machines or backends still gives the
//! same values. Any value apart by more than `--tolerance` × (1 + |reference|) fails.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;
use serde::{Deserialize, Serialize};

use crate::arena::agent_spec::ModelSource;
use crate::arena::model::load_model;
use crate::games::random_positions::encoded_random_positions;
use crate::games::{Game, GameSpec, GameVisitor};
use crate::settings::files::{Existing, check_output, write_atomically};
use crate::settings::limits::{MAX_BATCH, at_most};
use crate::value::{DeviceChoice, InferenceNet};

/// The largest `--against` file read.
const MAX_VALUES_FILE_BYTES: u64 = 64 << 20;

#[derive(Args, Debug)]
pub struct CheckNetArgs {
    /// A run directory, checkpoint directory, saved network or .descent export.
    model: PathBuf,
    /// Game spec the network plays, e.g. connect_four.
    #[arg(long, value_parser = super::parse_game)]
    game: GameSpec,
    /// Where to evaluate: descent-cpu, flex, ndarray, wgpu, cuda:N.
    #[arg(long, default_value = "descent-cpu", value_parser = |s: &str| s.parse::<DeviceChoice>())]
    device: DeviceChoice,
    /// How many positions (random playouts of up to 29 plies from the initial position).
    #[arg(long, default_value_t = 256)]
    positions: usize,
    /// Seed of the positions' playouts.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Largest accepted difference, relative to 1 + |reference value|.
    #[arg(long, default_value_t = 1e-4)]
    tolerance: f64,
    /// Write this machine's values (JSON) for `--against` elsewhere.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Replace an existing `--out` file.
    #[arg(long)]
    force: bool,
    /// Compare with the values of a `--out` file written elsewhere.
    #[arg(long)]
    against: Option<PathBuf>,
}

/// The values of one device, as `--out` writes them.
#[derive(Serialize, Deserialize, Debug)]
struct DeviceValues {
    game: String,
    model: String,
    device: String,
    seed: u64,
    /// Player 0's view, one per position.
    values: Vec<f32>,
}

/// One comparison: the largest difference and where.
struct Difference {
    largest: f64,
    position: usize,
}

/// The largest relative difference between `values` and `reference` (same lengths).
fn difference(values: &[f32], reference: &[f32]) -> Difference {
    let mut worst = Difference {
        largest: 0.0,
        position: 0,
    };
    for (position, (&v, &r)) in values.iter().zip(reference).enumerate() {
        let d = f64::from((v - r).abs()) / (1.0 + f64::from(r.abs()));
        // A NaN on either side is the largest difference there is.
        if d.is_nan() || d > worst.largest {
            worst = Difference {
                largest: if d.is_nan() { f64::INFINITY } else { d },
                position,
            };
        }
    }
    worst
}

struct ValuesOn<'a> {
    args: &'a CheckNetArgs,
    device: DeviceChoice,
}

impl GameVisitor for ValuesOn<'_> {
    type Output = anyhow::Result<Vec<f32>>;
    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let device = self.device.device().map_err(anyhow::Error::msg)?;
        let source = ModelSource::Path(self.args.model.clone());
        let model = load_model::<G>(&source, &self.args.game.to_string(), &device.burn)?;
        let net = InferenceNet::new(model.net.into_value_net(), G::ENCODING.dims(), &device);
        let inputs = encoded_random_positions(&initial, self.args.positions, self.args.seed);
        let mut values = vec![f32::NAN; self.args.positions];
        net.predict_into(&inputs, &mut values);
        Ok(values)
    }
}

/// Refuses values that are not all finite (a network whose activations overflow f32): a
/// comparison of NaN with NaN says nothing.
fn check_finite(values: &[f32], model: &Path, device: &str) -> anyhow::Result<()> {
    let mut bad = values.iter().enumerate().filter(|(_, v)| !v.is_finite());
    if let Some((first, value)) = bad.next() {
        bail!(
            "{} on {device}: the network's values are not finite at {} of {} positions (position {first}: {value}) — its weights or activations overflow f32",
            model.display(),
            1 + bad.count(),
            values.len()
        );
    }
    Ok(())
}

/// The values a `--out` file holds, checked to be comparable with `args`.
fn read_values(path: &Path, args: &CheckNetArgs) -> anyhow::Result<DeviceValues> {
    let text = crate::settings::files::read_regular_text(path, MAX_VALUES_FILE_BYTES)
        .with_context(|| format!("{}: not a check-net values file", path.display()))?;
    let found: DeviceValues = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a check-net values file", path.display()))?;
    let game = args.game.to_string();
    anyhow::ensure!(
        found.game == game && found.seed == args.seed && found.values.len() == args.positions,
        "{}: values of {} positions of {} (seed {}), expected {} positions of {game} (seed {}): run check-net with the same --game, --positions and --seed",
        path.display(),
        found.values.len(),
        found.game,
        found.seed,
        args.positions,
        args.seed
    );
    Ok(found)
}

/// Prints one comparison and says whether it is within the tolerance.
fn report(label: &str, values: &[f32], reference: &[f32], tolerance: f64) -> bool {
    let d = difference(values, reference);
    let within = d.largest <= tolerance;
    println!(
        "{label}: largest difference {:.2e} at position {} ({} vs {}) — {}",
        d.largest,
        d.position,
        values.get(d.position).copied().unwrap_or(f32::NAN),
        reference.get(d.position).copied().unwrap_or(f32::NAN),
        if within { "same values" } else { "DIFFERENT" }
    );
    within
}

/// # Errors
/// Bad arguments, a model that does not load, an unreadable `--against` file.
pub fn run(args: CheckNetArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(args.positions > 0, "--positions must be positive");
    at_most("--positions", args.positions, MAX_BATCH)?;
    anyhow::ensure!(
        args.tolerance.is_finite() && args.tolerance >= 0.0,
        "--tolerance must be a non-negative number, got {}",
        args.tolerance
    );
    if let Some(path) = &args.out {
        check_output(path, Existing::replaced_if(args.force))
            .map_err(|e| anyhow::anyhow!("--out: {e:#}"))?;
    }
    let against = args
        .against
        .as_deref()
        .map(|path| read_values(path, &args))
        .transpose()?;
    let values = args.game.visit(ValuesOn {
        args: &args,
        device: args.device,
    })?;
    let reference = args.game.visit(ValuesOn {
        args: &args,
        device: DeviceChoice::DescentCpu,
    })?;
    check_finite(&values, &args.model, &args.device.to_string())?;
    check_finite(&reference, &args.model, "descent-cpu")?;
    println!(
        "{} positions of {} (seed {}), {} on {}",
        args.positions,
        args.game,
        args.seed,
        args.model.display(),
        args.device
    );
    let mut same = report(
        &format!("{} against descent-cpu", args.device),
        &values,
        &reference,
        args.tolerance,
    );
    if let Some(found) = &against {
        same &= report(
            &format!(
                "{} against {} of {}",
                args.device, found.device, found.model
            ),
            &values,
            &found.values,
            args.tolerance,
        );
    }
    if let Some(path) = &args.out {
        let written = DeviceValues {
            game: args.game.to_string(),
            model: args.model.display().to_string(),
            device: args.device.to_string(),
            seed: args.seed,
            values,
        };
        write_atomically(
            path,
            serde_json::to_string(&written)?.as_bytes(),
            Existing::replaced_if(args.force),
        )?;
        println!("values written to {}", path.display());
    }
    Ok(if same {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_difference_is_relative_and_nan_is_the_largest() {
        let d = difference(&[0.5, -0.2, 0.0], &[0.5, -0.2003, 0.0]);
        assert_eq!(d.position, 1);
        assert!((d.largest - 0.0003 / 1.2003).abs() < 1e-7, "{}", d.largest);
        let d = difference(&[0.5, f32::NAN, 0.1], &[0.5, 0.0, 0.9]);
        assert_eq!((d.position, d.largest), (1, f64::INFINITY));
        assert_eq!(difference(&[0.25], &[0.25]).largest, 0.0);
    }
}
