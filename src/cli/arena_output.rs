//! What `eval` and `tournament` share: the progress bar, the device, and the output directory
//! (JSON report + SVG chart, written atomically, never over an earlier report).

use std::path::Path;

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::value::saved_net::write_atomically;

/// A progress bar on stderr over `games` games (hidden with `quiet` or when stderr is not a
/// terminal).
pub fn games_progress(games: u64, quiet: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(
        Some(games),
        if quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        },
    );
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games  {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar
}

/// Checks that `dir` can take a report named `report_name` without overwriting one.
pub fn check_out_dir(dir: &Path, report_name: &str) -> anyhow::Result<()> {
    let report = dir.join(report_name);
    if report.exists() {
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

/// Writes `files` (name, contents) into `dir`, each atomically.
pub fn write_out_dir(dir: &Path, files: &[(&str, &[u8])]) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for (name, bytes) in files {
        write_atomically(&dir.join(name), bytes)?;
    }
    Ok(())
}
