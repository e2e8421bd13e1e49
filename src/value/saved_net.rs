//! Saving and loading a value network: the weights as burnpack (`<name>.bpk`) beside a JSON
//! manifest (`<name>.json`) naming the game, the architecture, the encoding version and the
//! input shape. Loading checks the manifest against what the caller expects, so a file made for
//! another game, shape or encoding is a clear error, not a panic. Both files are written
//! atomically (temporary file, fsync, rename).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use burn::prelude::*;
use serde::{Deserialize, Serialize};

use super::architecture::Architecture;
use super::checksum::{check_digest, sha256_hex};
use super::network::ValueNet;
use crate::search::TerminalEval;

/// What a saved network is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NetManifest {
    /// Always "descent-value-net".
    pub format: String,
    /// The game spec, e.g. "awale".
    pub game: String,
    /// The architecture name, e.g. "paper-cnn".
    pub architecture: String,
    pub encoding_version: u32,
    /// `[planes, rows, cols]`.
    pub input_shape: [usize; 3],
    pub tanh_output: bool,
    /// The terminal evaluation f_t the network was trained with: its values are on f_t's scale,
    /// and a search with the network must value terminal states with it. Absent in manifests
    /// written before it was recorded (then: the classic gain if `tanh_output`).
    #[serde(default)]
    pub terminal_eval: Option<TerminalEval>,
    /// SHA-256 of the weights file (`.bpk`), checked when they are loaded. Absent in manifests
    /// written before checksums (their weights load unchecked) and in a manifest describing a
    /// network not yet saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights_sha256: Option<String>,
    /// The version of a network saved by training: the number of self-play games it has
    /// learned. Absent outside training runs and in manifests written before versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_version: Option<u64>,
}

const FORMAT: &str = "descent-value-net";

impl NetManifest {
    pub fn new(
        game: &str,
        architecture: &Architecture,
        encoding_version: u32,
        input_shape: [usize; 3],
        terminal_eval: TerminalEval,
    ) -> Self {
        NetManifest {
            format: FORMAT.to_string(),
            game: game.to_string(),
            architecture: architecture.to_string(),
            encoding_version,
            input_shape,
            tanh_output: terminal_eval.is_bounded(),
            terminal_eval: Some(terminal_eval),
            weights_sha256: None,
            net_version: None,
        }
    }

    /// The terminal evaluation to search with alongside this network.
    ///
    /// # Errors
    /// A terminal evaluation this build does not know.
    pub fn search_terminal_eval(&self) -> anyhow::Result<TerminalEval> {
        match self.terminal_eval {
            Some(eval) => Ok(eval),
            None if self.tanh_output => Ok(TerminalEval::Classic),
            None => bail!(
                "this {} network has a linear output but its manifest does not say which terminal evaluation it was trained with",
                self.game
            ),
        }
    }
}

fn paths(base: &Path) -> (PathBuf, PathBuf) {
    (base.with_extension("bpk"), base.with_extension("json"))
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, fsync, rename.
/// A failure (a full disk) removes the temporary file and leaves `path` as it was.
///
/// # Errors
/// A failed write or rename, or a path that is a directory (the temporary file is removed).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if path.is_dir() {
        bail!("{} is a directory, not a file", path.display());
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let written = (|| {
        let mut file =
            fs::File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        file.write_all(bytes)
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        file.sync_all()
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        fs::rename(&tmp, path)
            .with_context(|| format!("cannot rename {} to {}", tmp.display(), path.display()))
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// The weights of `net` as burnpack bytes.
///
/// # Errors
/// The weights cannot be serialised.
pub fn burnpack_bytes(net: &ValueNet) -> anyhow::Result<Vec<u8>> {
    Ok(net
        .clone()
        .into_record()
        .into_bytes()
        .map_err(|e| anyhow::anyhow!("cannot serialise the network: {e:?}"))?
        .to_vec())
}

/// The network `manifest` describes, with the weights in the burnpack `bytes`; `source` names
/// where they came from in errors.
///
/// # Errors
/// Bytes that are not burnpack weights of the manifest's architecture.
pub fn net_from_burnpack(
    bytes: Vec<u8>,
    manifest: &NetManifest,
    device: &Device,
    source: &str,
) -> anyhow::Result<ValueNet> {
    let architecture: Architecture = manifest
        .architecture
        .parse()
        .map_err(|e: crate::ConfigError| anyhow::anyhow!("{source}: {e}"))?;
    let record = burn::store::ModuleRecord::from_bytes(burn::tensor::Bytes::from_bytes_vec(bytes))
        .map_err(|e| anyhow::anyhow!("{source}: the weights are not burnpack: {e:?}"))?;
    ValueNet::new(
        &architecture,
        manifest.input_shape,
        manifest.tanh_output,
        device,
    )
    .try_load_record(record)
    .map_err(|e| {
        anyhow::anyhow!(
            "{source}: the weights do not fit a {} network: {e:?}",
            manifest.architecture
        )
    })
    .and_then(|net| match net.non_finite_parameter() {
        Some(value) => Err(anyhow::anyhow!(
            "{source}: a weight is {value}: a network whose learning diverged cannot be used (take an earlier checkpoint)"
        )),
        None => Ok(net),
    })
}

/// Saves `net` as `<base>.bpk` + `<base>.json`, the weights' checksum in the manifest (written
/// last: a network is complete once its manifest is there).
///
/// # Errors
/// A failed write.
pub fn save_net(net: &ValueNet, manifest: &NetManifest, base: &Path) -> anyhow::Result<()> {
    let (weights, manifest_path) = paths(base);
    if let Some(value) = net.non_finite_parameter() {
        bail!(
            "{}: not written: a weight is {value} (a network whose learning diverged)",
            weights.display()
        );
    }
    let bytes = burnpack_bytes(net)?;
    let manifest = NetManifest {
        weights_sha256: Some(sha256_hex(&bytes)),
        ..manifest.clone()
    };
    write_atomically(&weights, &bytes)?;
    write_atomically(
        &manifest_path,
        serde_json::to_string_pretty(&manifest)?.as_bytes(),
    )
}

/// Reads the manifest of a saved network.
///
/// # Errors
/// A missing or malformed `net.json`.
pub fn read_manifest(base: &Path) -> anyhow::Result<NetManifest> {
    let (_, manifest_path) = paths(base);
    let text = fs::read_to_string(&manifest_path).with_context(|| {
        format!(
            "cannot read the network manifest {}",
            manifest_path.display()
        )
    })?;
    let manifest: NetManifest = serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not a descent network manifest",
            manifest_path.display()
        )
    })?;
    if manifest.format != FORMAT {
        bail!(
            "{}: format {:?}, expected {FORMAT:?}",
            manifest_path.display(),
            manifest.format
        );
    }
    Ok(manifest)
}

/// Loads a network saved by `save_net`, checking that it was made for `expected`'s game,
/// architecture, encoding version and input shape.
///
/// # Errors
/// Missing or damaged files, or a network of another game or architecture.
pub fn load_net(base: &Path, expected: &NetManifest, device: &Device) -> anyhow::Result<ValueNet> {
    let found = read_manifest(base)?;
    check_manifest(base, &found, expected)?;
    load_weights(base, &found, device)
}

/// Checks that the network at `base`, whose manifest is `found`, was made for `expected`'s
/// game, encoding version, input shape and architecture.
///
/// # Errors
/// A manifest of another game, encoding version or shape.
pub fn check_manifest(
    base: &Path,
    found: &NetManifest,
    expected: &NetManifest,
) -> anyhow::Result<()> {
    let check = |field: &str, found: String, wanted: String| {
        if found == wanted {
            Ok(())
        } else {
            Err(anyhow::anyhow!(
                "{} was saved for {field} {found}, but {wanted} is expected",
                base.display()
            ))
        }
    };
    check("game", found.game.clone(), expected.game.clone())?;
    check(
        "encoding version",
        found.encoding_version.to_string(),
        expected.encoding_version.to_string(),
    )?;
    check(
        "input shape",
        format!("{:?}", found.input_shape),
        format!("{:?}", expected.input_shape),
    )?;
    check(
        "architecture",
        found.architecture.clone(),
        expected.architecture.clone(),
    )
}

/// Loads the weights of the network at `base` as its manifest `found` describes them, checking
/// them against the manifest's checksum.
///
/// # Errors
/// Missing or damaged weights.
pub fn load_weights(base: &Path, found: &NetManifest, device: &Device) -> anyhow::Result<ValueNet> {
    let (weights, manifest_path) = paths(base);
    let bytes = fs::read(&weights)
        .with_context(|| format!("cannot read the network weights {}", weights.display()))?;
    if let Some(recorded) = &found.weights_sha256 {
        check_digest(&weights, &sha256_hex(&bytes), recorded, &manifest_path)?;
    }
    net_from_burnpack(bytes, found, device, &weights.display().to_string())
}
