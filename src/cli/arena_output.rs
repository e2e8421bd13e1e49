//! What `eval` and `tournament` share: their common options, the progress bar, the device, and
//! the output directory (JSON report + SVG chart, written atomically, never over an earlier
//! report).

use std::path::{Path, PathBuf};

use super::progress::Progress;
use anyhow::{Context, bail};
use clap::Args;

use crate::games::GameSpec;
use crate::settings::files::{Existing, write_atomically};
use crate::value::{DeviceChoice, NetDevice};

/// Options of every command that plays matches.
#[derive(Args, Debug)]
pub struct PlayOptions {
    /// Seeds every game (with iteration budgets, a match replays exactly).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Where networks run: descent-cpu (descent's own engine), or burn's flex, ndarray, wgpu,
    /// cuda:N (all but descent-cpu and flex need their cargo feature).
    #[arg(long, default_value = "descent-cpu")]
    pub device: DeviceChoice,
    /// One JSON object on stdout (the report without the games).
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// The options of `eval` and `tournament`: `PlayOptions` and where to write the report.
#[derive(Args, Debug)]
pub struct MatchOptions {
    #[command(flatten)]
    pub play: PlayOptions,
    /// Write the JSON report (every game's moves) and an SVG chart into this directory.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

impl std::ops::Deref for MatchOptions {
    type Target = PlayOptions;

    fn deref(&self) -> &PlayOptions {
        &self.play
    }
}

impl MatchOptions {
    /// Checks the options before any game is played; `report_name` is the JSON file `--out`
    /// will hold.
    ///
    /// # Errors
    /// A size above its limit (threads, games).
    pub fn check(&self, report_name: &str) -> anyhow::Result<()> {
        super::threads_arg("--threads", self.threads)?;
        match &self.out {
            Some(dir) => check_out_dir(dir, report_name),
            None => Ok(()),
        }
    }

    /// The report as JSON with the game, the seed and the time it took; written into `--out`
    /// with `chart_svg` (the report as `report_name`, the chart as `chart_name`).
    ///
    /// # Errors
    /// The report file cannot be written.
    pub fn write_report(
        &self,
        report: &impl serde::Serialize,
        game: &GameSpec,
        seconds: f64,
        (report_name, chart_name, chart_svg): (&str, &str, String),
    ) -> anyhow::Result<serde_json::Value> {
        let mut json = serde_json::to_value(report)?;
        json["game"] = game.to_string().into();
        json["seed"] = self.seed.into();
        json["seconds"] = seconds.into();
        if let Some(dir) = &self.out {
            write_out_dir(
                dir,
                &[
                    (report_name, serde_json::to_string_pretty(&json)?.as_bytes()),
                    (chart_name, chart_svg.as_bytes()),
                ],
            )?;
        }
        Ok(json)
    }
}

impl PlayOptions {
    /// The device for networks, seeded.
    ///
    /// # Errors
    /// A device whose backend is not compiled in.
    pub fn device(&self) -> anyhow::Result<NetDevice> {
        let device = self.device.device().map_err(anyhow::Error::msg)?;
        device.burn.seed(self.seed);
        Ok(device)
    }

    pub fn progress(&self, games: u64) -> Progress {
        games_progress(games, self.quiet || self.json)
    }
}

/// The progress of `games` games on stderr: a bar on a terminal, plain lines in a log, nothing
/// with `quiet` (`super::progress`).
pub(super) fn games_progress(games: u64, quiet: bool) -> Progress {
    Progress::new(games, "games", quiet)
}

/// Checks that `dir` can take a report named `report_name` without overwriting one.
fn check_out_dir(dir: &Path, report_name: &str) -> anyhow::Result<()> {
    let report = dir.join(report_name);
    if std::fs::symlink_metadata(&report).is_ok() {
        bail!(
            "{} already exists; choose another --out directory (reports are never overwritten)",
            report.display()
        );
    }
    if dir.exists() && !dir.is_dir() {
        bail!("--out {}: not a directory", dir.display());
    }
    Ok(())
}

/// Writes `files` (name, contents) into `dir`, each atomically; the first is the report.
fn write_out_dir(dir: &Path, files: &[(&str, &[u8])]) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    // The report is never replaced; a chart drawn from an earlier one may be.
    for (index, (name, bytes)) in files.iter().enumerate() {
        let existing = if index == 0 {
            Existing::Refuse
        } else {
            Existing::Replace
        };
        write_atomically(&dir.join(name), bytes, existing)?;
    }
    Ok(())
}
