//! The export file (`descent export`): one self-describing file holding everything needed to
//! evaluate positions with a trained network, nothing from the run directory.
//!
//! Layout (all integers little-endian):
//!
//! ```text
//! "descent-export\n"            15 bytes of magic
//! u32                           file format version (EXPORT_FORMAT_VERSION)
//! u64 + bytes                   the manifest, JSON (ExportManifest)
//! u64 + bytes                   the inference weights, burnpack
//! u64 + 32 bytes                SHA-256 of every byte before this section (format 2 on)
//! ```
//!
//! The manifest is the network's (game with its parameters, architecture, encoding version,
//! input shape, output layer, terminal evaluation) plus provenance. A reader refuses files of a
//! newer format, another game, or an encoding version it does not have, and a file whose
//! checksum does not match (a flipped bit, a truncated copy). Format 1 files (no checksum) still
//! load.

use std::path::Path;

use anyhow::{Context, bail};
use burn::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::saved_net::{
    LoadedNet, NetManifest, any_net_from_burnpack, burnpack_bytes, plays_network_game,
};
use crate::settings::files::{Existing, write_atomically};

const MAGIC: &[u8; 15] = b"descent-export\n";
/// Version of the file layout and manifest; bumped on incompatible changes.
pub const EXPORT_FORMAT_VERSION: u32 = 2;
/// The first format version with the closing checksum.
const FIRST_CHECKSUMMED_VERSION: u32 = 2;

/// Where an exported network came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The run directory's name.
    pub run: String,
    /// The checkpoint's directory name, e.g. "ckpt-120".
    pub checkpoint: String,
    /// Self-play games the network was trained on.
    pub games: u64,
    /// FNV-1a 64-bit hash of the run's resolved config.yaml, hex.
    pub config_fnv1a64: String,
    /// The `descent` version that wrote the file.
    pub descent_version: String,
    /// The recipe of the run that trained it (`athenan`, `alphazero`, `exit`): which search
    /// the network was made to play. Absent in files written before it was recorded and when
    /// the run's configuration could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipe: Option<String>,
}

/// The manifest of an export file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExportManifest {
    pub format_version: u32,
    pub net: NetManifest,
    pub provenance: Provenance,
}

/// Whether `path` is an export file (by its magic bytes).
pub fn is_export_file(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; MAGIC.len()];
    crate::settings::files::open_regular(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && &magic == MAGIC
}

/// Whether the model path `path` is to be read as an export file: a file with the export's
/// magic bytes, or anything else there but a directory or a saved network's `.json` / `.bpk`
/// (an empty or damaged `awale.descent`, a FIFO or a device is then refused naming it, not its
/// missing `awale.json`).
pub fn is_export_path(path: &Path) -> bool {
    let saved_net_file = matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("json" | "bpk")
    );
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    !meta.is_dir() && (!meta.is_file() || is_export_file(path) || !saved_net_file)
}

/// Writes an export file atomically, over an existing one only where `existing` allows it.
///
/// # Errors
/// A failed write, or a path [`check_output`](crate::settings::files::check_output) refuses.
pub fn write_export<M: Module>(
    path: &Path,
    manifest: &ExportManifest,
    net: &M,
    existing: Existing,
) -> anyhow::Result<()> {
    let weights = burnpack_bytes(net)?;
    let mut manifest = manifest.clone();
    manifest.net.weights_sha256 = Some(super::checksum::sha256_hex(&weights));
    let json = serde_json::to_vec_pretty(&manifest)?;
    let mut bytes = Vec::with_capacity(MAGIC.len() + 20 + json.len() + weights.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&EXPORT_FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&(json.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&json);
    bytes.extend_from_slice(&(weights.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&weights);
    let digest = Sha256::digest(&bytes);
    bytes.extend_from_slice(&(digest.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&digest);
    write_atomically(path, &bytes, existing)
}

/// Splits `bytes` into a length-prefixed section and the rest.
fn section<'a>(bytes: &'a [u8], what: &str, origin: &str) -> anyhow::Result<(&'a [u8], &'a [u8])> {
    let truncated = || anyhow::anyhow!("{origin}: truncated export file (in the {what})");
    let (length, rest) = bytes.split_first_chunk::<8>().ok_or_else(truncated)?;
    let length = usize::try_from(u64::from_le_bytes(*length)).map_err(|_| truncated())?;
    if rest.len() < length {
        return Err(truncated());
    }
    Ok(rest.split_at(length))
}

/// Reads an export file: its manifest and the burnpack bytes of its weights.
///
/// # Errors
/// A file that is not a `descent` export, of another format version, or damaged.
pub fn read_export(path: &Path) -> anyhow::Result<(ExportManifest, Vec<u8>)> {
    let bytes =
        crate::settings::files::read_regular(path, crate::settings::limits::MAX_NET_FILE_BYTES)
            .with_context(|| format!("cannot read the export file {}", path.display()))?;
    let (manifest, weights) = parse_export(&bytes, &path.display().to_string())?;
    Ok((manifest, weights.to_vec()))
}

/// Reads an export file's bytes (`origin` names them in errors): its manifest and the burnpack
/// bytes of its weights.
///
/// # Errors
/// Bytes that are not a `descent` export, of another format version, or damaged.
pub fn parse_export<'a>(
    bytes: &'a [u8],
    origin: &str,
) -> anyhow::Result<(ExportManifest, &'a [u8])> {
    let Some(rest) = bytes.strip_prefix(MAGIC.as_slice()) else {
        bail!("{origin} is not a descent export file (made by `descent export`)");
    };
    let (version, rest) = rest
        .split_first_chunk::<4>()
        .with_context(|| format!("{origin}: truncated export file"))?;
    let version = u32::from_le_bytes(*version);
    if version > EXPORT_FORMAT_VERSION {
        bail!(
            "{origin}: export format version {version} is newer than this descent reads ({EXPORT_FORMAT_VERSION}); upgrade descent"
        );
    }
    let (json, rest) = section(rest, "manifest", origin)?;
    let (weights, mut trailing) = section(rest, "weights", origin)?;
    if version >= FIRST_CHECKSUMMED_VERSION {
        let covered = &bytes[..bytes.len() - trailing.len()];
        let (digest, rest) = section(trailing, "checksum", origin)?;
        let found = Sha256::digest(covered);
        if digest != found.as_slice() {
            bail!(
                "{origin} is corrupt: its SHA-256 checksum does not match its contents (export it again)"
            );
        }
        trailing = rest;
    }
    let manifest: ExportManifest = serde_json::from_slice(json)
        .with_context(|| format!("{origin}: the manifest is not valid"))?;
    if !trailing.is_empty() {
        bail!("{origin}: {} unexpected bytes at the end", trailing.len());
    }
    Ok((manifest, weights))
}

/// What a network must have been made for: the game (its spec text), the input encoding
/// version and shape of this descent.
pub struct ExpectedNet<'a> {
    pub game: &'a str,
    pub encoding_version: u32,
    pub input_shape: [usize; 3],
}

/// Loads the network of an export file made for `expected`.
///
/// # Errors
/// A file that cannot be read as an export, or weights that do not fit its manifest.
pub fn load_export(
    path: &Path,
    expected: &ExpectedNet<'_>,
    device: &Device,
) -> anyhow::Result<(LoadedNet, ExportManifest)> {
    let (manifest, weights) = read_export(path)?;
    load_export_parts(
        manifest,
        weights,
        &path.display().to_string(),
        expected,
        device,
    )
}

/// Loads the network of an export file's bytes (`origin` names them in errors) made for
/// `expected`.
///
/// # Errors
/// Bytes that cannot be read as an export, or weights that do not fit its manifest.
pub fn load_export_bytes(
    bytes: &[u8],
    origin: &str,
    expected: &ExpectedNet<'_>,
    device: &Device,
) -> anyhow::Result<(LoadedNet, ExportManifest)> {
    let (manifest, weights) = parse_export(bytes, origin)?;
    load_export_parts(manifest, weights.to_vec(), origin, expected, device)
}

fn load_export_parts(
    manifest: ExportManifest,
    weights: Vec<u8>,
    origin: &str,
    expected: &ExpectedNet<'_>,
    device: &Device,
) -> anyhow::Result<(LoadedNet, ExportManifest)> {
    let ExpectedNet {
        game,
        encoding_version,
        input_shape,
    } = *expected;
    let net_manifest = &manifest.net;
    if !plays_network_game(game, &net_manifest.game) {
        bail!(
            "{origin} was exported for {}, not {game}",
            net_manifest.game
        );
    }
    if net_manifest.encoding_version > encoding_version {
        bail!(
            "{origin} uses input encoding version {} of {game}, newer than this descent's ({encoding_version}); upgrade descent",
            net_manifest.encoding_version
        );
    }
    if net_manifest.encoding_version != encoding_version || net_manifest.input_shape != input_shape
    {
        bail!(
            "{origin} uses input encoding version {} ({:?}) of {game}; this descent encodes version {encoding_version} ({input_shape:?})",
            net_manifest.encoding_version,
            net_manifest.input_shape
        );
    }
    let net = any_net_from_burnpack(weights, net_manifest, device, origin)?;
    Ok((net, manifest))
}

/// The weights as safetensors (for other tools), the manifest in its metadata under
/// "descent_manifest".
///
/// # Errors
/// The weights cannot be serialised.
pub fn safetensors_bytes<M: burn::store::ModuleSnapshot>(
    net: &M,
    manifest: &ExportManifest,
) -> anyhow::Result<Vec<u8>> {
    use burn::store::SafetensorsStore;
    let mut store = SafetensorsStore::from_bytes(None)
        .metadata("descent_manifest", serde_json::to_string(manifest)?);
    net.save_into(&mut store)
        .map_err(|e| anyhow::anyhow!("cannot write safetensors: {e:?}"))?;
    store
        .get_bytes()
        .map_err(|e| anyhow::anyhow!("cannot write safetensors: {e:?}"))
}

/// FNV-1a, 64 bits: a stable fingerprint of a config file's bytes.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |hash, &b| {
        (hash ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
