//! `descent export`: a checkpoint (or a run's latest) → one self-describing `.descent` file
//! (see `value::exported_net`), plus the same weights as safetensors for other tools.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use burn::prelude::Device;

use crate::games::GameSpec;
use crate::selfplay::config::{RecipeName, TrainConfig};
use crate::selfplay::run::run_dir::RunDir;
use crate::selfplay::run::run_state::RunState;
use crate::settings::files::{Existing, check_output, write_atomically};
use crate::value::exported_net::{
    EXPORT_FORMAT_VERSION, ExportManifest, Provenance, fnv1a64, safetensors_bytes, write_export,
};
use crate::value::saved_net::{LoadedNet, load_any_weights, read_manifest};

/// What `export_checkpoint` wrote.
#[derive(Clone, Debug)]
pub struct ExportSummary {
    pub manifest: ExportManifest,
    pub file: PathBuf,
    pub safetensors: Option<PathBuf>,
    /// `<out>.onnx` (and its reference check `<out>.onnx-check.json`), with the cargo feature
    /// `onnx`.
    pub onnx: Option<PathBuf>,
}

/// A file written beside an export file: `<out><suffix>`, e.g. `awale.descent.safetensors`.
pub fn beside(out: &Path, suffix: &str) -> PathBuf {
    crate::settings::files::with_suffix(out, suffix)
}

/// The agent kind an exported network plays as: its run's recipe's player when the manifest
/// records the recipe; otherwise PUCT for a policy-value network, UBFM_s for a value network.
pub fn player_kind(manifest: &ExportManifest) -> &'static str {
    let recipe = manifest
        .provenance
        .recipe
        .as_deref()
        .and_then(RecipeName::from_name);
    match (recipe, manifest.net.policy_actions) {
        (Some(recipe), _) => recipe.player_kind(),
        (None, Some(_)) => "puct",
        (None, None) => "ubfms",
    }
}

/// The safetensors file written beside an export file: `<out>.safetensors`.
pub fn safetensors_path(out: &Path) -> PathBuf {
    beside(out, ".safetensors")
}

/// Exports the checkpoint at `source` (a checkpoint directory, or a run directory: its latest
/// checkpoint) to `out`, and its weights to `<out>.safetensors` when `safetensors` is set.
/// Refuses to replace an existing file unless `overwrite`.
///
/// # Errors
/// No checkpoint at `source`, `out` a directory or an existing file (without `overwrite`), a
/// damaged network, a failed write (the files written so far are removed).
pub fn export_checkpoint(
    source: &Path,
    out: &Path,
    safetensors: bool,
    overwrite: bool,
) -> anyhow::Result<ExportSummary> {
    let checkpoint = checkpoint_of(source)?;
    if out.is_dir() {
        bail!(
            "{} is a directory: --out names the file to write, e.g. {}",
            out.display(),
            out.join("net.descent").display()
        );
    }
    let existing = Existing::replaced_if(overwrite);
    let side = safetensors_path(out);
    let onnx = cfg!(feature = "onnx").then(|| beside(out, ".onnx"));
    let onnx_check = beside(out, ".onnx-check.json");
    for path in std::iter::once(out)
        .chain(safetensors.then_some(side.as_path()))
        .chain(onnx.as_deref())
        .chain(onnx.is_some().then_some(onnx_check.as_path()))
    {
        check_output(path, existing)?;
    }
    let (manifest, net) = read_export(&checkpoint)?;
    // Everything is computed before anything is written: a failed export leaves no files.
    #[cfg(feature = "onnx")]
    let onnx_files = {
        let value_manifest = crate::value::saved_net::NetManifest {
            policy_actions: None,
            ..manifest.net.clone()
        };
        crate::value::onnx_export::onnx_model(&value_part(&net), &value_manifest)?
    };
    // A failure part way (a full disk) removes the files this export wrote.
    let mut written: Vec<PathBuf> = Vec::new();
    let result = (|| -> anyhow::Result<Option<PathBuf>> {
        let safetensors_file = match &net {
            LoadedNet::Value(net) => {
                write_export(out, &manifest, net, existing)?;
                safetensors.then(|| safetensors_bytes(net, &manifest))
            }
            LoadedNet::PolicyValue(net) => {
                write_export(out, &manifest, &**net, existing)?;
                safetensors.then(|| safetensors_bytes(&**net, &manifest))
            }
        };
        written.push(out.to_path_buf());
        if let Some(bytes) = safetensors_file {
            write_atomically(&side, &bytes?, existing)?;
            written.push(side.clone());
        }
        #[cfg(feature = "onnx")]
        if let Some(path) = &onnx {
            let (model, check) = onnx_files;
            write_atomically(path, &model, existing)?;
            written.push(path.clone());
            write_atomically(
                &onnx_check,
                serde_json::to_string(&check)?.as_bytes(),
                existing,
            )?;
        }
        Ok(safetensors.then(|| side.clone()))
    })();
    let safetensors = result.inspect_err(|_| {
        for path in &written {
            let _ = fs::remove_file(path);
        }
    })?;
    Ok(ExportSummary {
        manifest,
        file: out.to_path_buf(),
        safetensors,
        onnx,
    })
}

/// The checkpoint directory `source` names: itself, or a run directory's latest checkpoint.
fn checkpoint_of(source: &Path) -> anyhow::Result<PathBuf> {
    if source.join("net.json").is_file() {
        Ok(source.to_path_buf())
    } else if source.join("config.yaml").is_file() {
        RunDir::open(source)?
            .latest_checkpoint()?
            .with_context(|| format!("run {} has no checkpoint yet", source.display()))
    } else {
        bail!(
            "{}: not a checkpoint directory (no net.json) nor a run directory (no config.yaml)",
            source.display()
        );
    }
}

/// The checkpoint's network (checked) and the manifest of its export, with its provenance.
fn read_export(checkpoint: &Path) -> anyhow::Result<(ExportManifest, LoadedNet)> {
    let base = checkpoint.join("net");
    let net_manifest = read_manifest(&base)?;
    net_manifest
        .game
        .parse::<GameSpec>()
        .map_err(|e| anyhow::anyhow!("{}: {e}", base.display()))?;
    net_manifest.search_terminal_eval()?;
    let net = load_any_weights(&base, &net_manifest, &Device::flex())?;
    // A checkpoint has its run state; a bare saved network has none (0 games known).
    let games = if checkpoint.join("state.json").exists() {
        RunState::read(checkpoint)?.games
    } else {
        0
    };
    let run_root = checkpoint
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let config = crate::settings::files::read_regular(
        &run_root.join("config.yaml"),
        crate::settings::limits::MAX_SMALL_FILE_BYTES,
    )
    .ok();
    let config_hash = config
        .as_ref()
        .map(|bytes| format!("{:016x}", fnv1a64(bytes)))
        .unwrap_or_default();
    let recipe = config
        .as_deref()
        .and_then(|bytes| std::str::from_utf8(bytes).ok())
        .and_then(|text| TrainConfig::from_yaml(text).ok())
        .map(|config| config.recipe.name().to_string());
    let name = |p: &Path| {
        fs::canonicalize(p)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default()
    };
    let manifest = ExportManifest {
        format_version: EXPORT_FORMAT_VERSION,
        net: net_manifest,
        provenance: Provenance {
            run: name(&run_root),
            checkpoint: name(checkpoint),
            games,
            config_fnv1a64: config_hash,
            descent_version: env!("CARGO_PKG_VERSION").to_string(),
            recipe,
        },
    };
    Ok((manifest, net))
}

/// The value network ONNX describes: a policy-value network's value part (its policy head is
/// not in the ONNX graph).
#[cfg(feature = "onnx")]
fn value_part(net: &LoadedNet) -> crate::value::ValueNet {
    match net {
        LoadedNet::Value(net) => net.clone(),
        LoadedNet::PolicyValue(net) => net.value.clone(),
    }
}
