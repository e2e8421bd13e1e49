//! Loading an agent's network from wherever it is: a run directory (its latest checkpoint), a
//! checkpoint directory, a saved network (`…/net.json` / `…/net.bpk` / `…/net`), an exported
//! `.descent` file — or a freshly initialised one. Every path is checked against the game being
//! played (game, encoding version, input shape).

use std::path::{Path, PathBuf};

use anyhow::Context;
use burn::prelude::Device;

use super::agent_spec::ModelSource;
use crate::games::Game;
use crate::search::TerminalEval;
use crate::value::ValueNet;
use crate::value::exported_net::{
    ExpectedNet, ExportManifest, is_export_path, load_export, load_export_bytes, read_export,
};
use crate::value::saved_net::{
    LoadedNet, NetManifest, check_manifest, load_any_weights, read_manifest,
};
use crate::value::shipped_nets::{shipped_games, shipped_net};

/// A network ready to evaluate, with the terminal evaluation its values are scaled to.
pub struct LoadedModel {
    pub net: LoadedNet,
    pub terminal_eval: TerminalEval,
    /// Whether its value head was trained (`NetManifest::value_is_trained`; an untrained
    /// network asked for as such counts as trained: it is what was asked for).
    pub value_trained: bool,
    /// Where it came from, for reports.
    pub origin: String,
    /// The SHA-256 of its weights as its file records it (none for an untrained network or a
    /// file older than checksums).
    pub weights_sha256: Option<String>,
}

/// Where a `model=` path points: a run directory (its latest checkpoint), a checkpoint
/// directory, or a saved network's base path (with or without its extension).
pub fn network_base(path: &Path) -> PathBuf {
    if path.join("latest").join("net.json").is_file() {
        path.join("latest").join("net")
    } else if path.join("net.json").is_file() {
        path.join("net")
    } else {
        path.with_extension("")
    }
}

/// [`network_base`], refusing a directory that holds no run or checkpoint (rather than
/// looking for a `.json` manifest beside it).
fn saved_net_base(path: &Path) -> anyhow::Result<PathBuf> {
    let base = network_base(path);
    if path.is_dir() && base == path.with_extension("") {
        anyhow::bail!(
            "model {}: a directory that holds no run or checkpoint (no latest/net.json or net.json in it)",
            path.display()
        );
    }
    Ok(base)
}

/// The game `source`'s network was trained on (its manifest's), `None` for an untrained one:
/// what `--game` defaults to.
///
/// # Errors
/// A missing or unreadable network file.
pub fn model_game(source: &ModelSource) -> anyhow::Result<Option<String>> {
    match source {
        ModelSource::Untrained(_) | ModelSource::Shipped | ModelSource::Playouts => Ok(None),
        ModelSource::Path(path) if is_export_path(path) => Ok(Some(read_export(path)?.0.net.game)),
        ModelSource::Path(path) => Ok(Some(read_manifest(&saved_net_base(path)?)?.game)),
    }
}

/// Loads the network of `source` for game `game` (its spec text, e.g. "awale").
///
/// # Errors
/// A missing or damaged network file, a network of another game, an unknown architecture.
pub fn load_model<G: Game>(
    source: &ModelSource,
    game: &str,
    device: &Device,
) -> anyhow::Result<LoadedModel> {
    let shape = G::ENCODING.dims();
    let expected = ExpectedNet {
        game,
        encoding_version: G::ENCODING_VERSION,
        input_shape: shape,
    };
    match source {
        ModelSource::Playouts => anyhow::bail!("model=playouts: random playouts, no network"),
        ModelSource::Untrained(architecture) => Ok(LoadedModel {
            // The size limit of configs applies to every agent spec, wherever it comes from.
            net: architecture
                .check_size(shape)
                .map(|()| LoadedNet::Value(ValueNet::new(architecture, shape, true, device)))
                .map_err(|e| anyhow::anyhow!("arch={architecture}: {}", e.message))?,
            terminal_eval: TerminalEval::Classic,
            value_trained: true,
            origin: format!("untrained {architecture}"),
            weights_sha256: None,
        }),
        ModelSource::Shipped => {
            let shipped = shipped_net(game).with_context(|| {
                format!(
                    "model=shipped: no network ships for {game} (they ship for {})",
                    shipped_games()
                )
            })?;
            let (net, manifest) =
                load_export_bytes(shipped.bytes, shipped.file, &expected, device)?;
            exported_model(net, &manifest, shipped.file)
        }
        ModelSource::Path(path) if is_export_path(path) => {
            let (net, manifest) = load_export(path, &expected, device)?;
            exported_model(net, &manifest, &path.display().to_string())
        }
        ModelSource::Path(path) => {
            if !path.exists() && !path.with_extension("json").exists() {
                anyhow::bail!(
                    "model {}: no such file or directory (expected a run directory, a checkpoint directory, a saved network or a .descent export)",
                    path.display()
                );
            }
            let base = saved_net_base(path)?;
            let found = read_manifest(&base)?;
            // The architecture is the file's own; the game, encoding and shape must be ours.
            let expected = NetManifest {
                game: game.to_string(),
                encoding_version: G::ENCODING_VERSION,
                input_shape: shape,
                ..found.clone()
            };
            check_manifest(&base, &found, &expected)?;
            let net = load_any_weights(&base, &found, device)?;
            Ok(LoadedModel {
                net,
                terminal_eval: expected
                    .search_terminal_eval()
                    .with_context(|| base.display().to_string())?,
                value_trained: found.value_is_trained(),
                origin: base.display().to_string(),
                weights_sha256: found.weights_sha256,
            })
        }
    }
}

/// A loaded export file's network with what its manifest says.
fn exported_model(
    net: LoadedNet,
    manifest: &ExportManifest,
    origin: &str,
) -> anyhow::Result<LoadedModel> {
    Ok(LoadedModel {
        net,
        terminal_eval: manifest
            .net
            .search_terminal_eval()
            .with_context(|| origin.to_string())?,
        value_trained: manifest.net.value_is_trained(),
        origin: origin.to_string(),
        weights_sha256: manifest.net.weights_sha256.clone(),
    })
}
