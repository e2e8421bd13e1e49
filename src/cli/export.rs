//! `descent export`: a checkpoint → one self-describing file for `play`, `engine`, `eval`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::selfplay::run::export::export_checkpoint;

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// A checkpoint directory (`runs/awale/ckpt-120`) or a run directory (its latest checkpoint).
    checkpoint: PathBuf,
    /// The export file to write, e.g. awale.descent.
    #[arg(long)]
    out: PathBuf,
    /// Do not also write the weights as `<out>.safetensors`.
    #[arg(long)]
    no_safetensors: bool,
    /// Replace existing files.
    #[arg(long)]
    force: bool,
}

/// # Errors
/// Bad arguments or a failed subcommand, as one message for the user.
pub fn run(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let summary = export_checkpoint(
        &args.checkpoint,
        &args.out,
        !args.no_safetensors,
        args.force,
    )?;
    let m = &summary.manifest;
    println!(
        "exported {} ({} network, encoding v{}, terminal evaluation {}) after {} games of run {:?}",
        summary.file.display(),
        m.net.architecture,
        m.net.encoding_version,
        m.net
            .terminal_eval
            .unwrap_or(crate::search::TerminalEval::Classic),
        m.provenance.games,
        m.provenance.run
    );
    if let Some(path) = &summary.safetensors {
        println!("weights also as {}", path.display());
    }
    if let Some(path) = &summary.onnx {
        println!(
            "ONNX model {} (input [batch, planes, rows, cols] → value [batch, 1]; reference values in {})",
            path.display(),
            crate::selfplay::run::export::beside(&summary.file, ".onnx-check.json").display()
        );
    }
    // A network plays with its recipe's own search: UBFM_s, PUCT, Gumbel search, ExIt's expert.
    let search = crate::selfplay::run::export::player_kind(m);
    println!(
        "play it: descent play --game {} --agent {search}:model={},time=1s",
        m.net.game,
        summary.file.display()
    );
    Ok(ExitCode::SUCCESS)
}
