//! Saving and loading a value network: the weights as burnpack (`<name>.bpk`) beside a JSON
//! manifest (`<name>.json`) naming the game, the architecture, the encoding version and the
//! input shape. Loading checks the manifest against what the caller expects, so a file made for
//! another game, shape or encoding is a clear error, not a panic. Both files are written
//! atomically (temporary file, fsync, rename).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use burn::prelude::*;
use serde::{Deserialize, Serialize};

use super::architecture::Architecture;
use super::checksum::{check_digest, sha256_hex};
use super::network::ValueNet;
use super::policy_value_net::PolicyValueNet;
use crate::search::TerminalEval;
use crate::settings::files::{Existing, read_regular, read_regular_text, write_atomically};
use crate::settings::limits::{MAX_NET_FILE_BYTES, MAX_SMALL_FILE_BYTES};

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
    /// The number of action ids of the policy head of a policy-value network (AlphaZero's);
    /// absent for a value network. Searches other than PUCT use its value head alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_actions: Option<usize>,
    /// Whether the value head was trained: `false` for ExIt's networks before its value joins
    /// (`value_from`), whose value head is as initialised; `true` for every other network a
    /// policy-value run saves. Absent in value networks and older files: trained.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_head_trained: Option<bool>,
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
            policy_actions: None,
            value_head_trained: None,
        }
    }

    /// Whether the network's value head was trained (`value_head_trained`, absent: yes).
    pub fn value_is_trained(&self) -> bool {
        self.value_head_trained != Some(false)
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

/// The weights of `net` (a `ValueNet` or a `PolicyValueNet`) as burnpack bytes.
///
/// # Errors
/// The weights cannot be serialised.
pub fn burnpack_bytes<M: Module>(net: &M) -> anyhow::Result<Vec<u8>> {
    Ok(net
        .clone()
        .into_record()
        .into_bytes()
        .map_err(|e| anyhow::anyhow!("cannot serialise the network: {e:?}"))?
        .to_vec())
}

/// A loaded network: a value network, or a policy-value network (an AlphaZero run's).
/// One per loaded model, never in a collection: the sizes of its variants do not matter.
#[allow(clippy::large_enum_variant)]
pub enum LoadedNet {
    Value(ValueNet),
    PolicyValue(Box<PolicyValueNet>),
}

impl LoadedNet {
    /// The value network (a policy-value network's value part).
    pub fn into_value_net(self) -> ValueNet {
        match self {
            LoadedNet::Value(net) => net,
            LoadedNet::PolicyValue(net) => net.value,
        }
    }
}

/// The network `manifest` describes — a policy-value network when it gives `policy_actions` —
/// with the weights in the burnpack `bytes`.
///
/// # Errors
/// Bytes that are not burnpack weights of the manifest's network.
pub fn any_net_from_burnpack(
    bytes: Vec<u8>,
    manifest: &NetManifest,
    device: &Device,
    source: &str,
) -> anyhow::Result<LoadedNet> {
    Ok(match manifest.policy_actions {
        Some(_) => LoadedNet::PolicyValue(Box::new(policy_value_net_from_burnpack(
            bytes, manifest, device, source,
        )?)),
        None => LoadedNet::Value(net_from_burnpack(bytes, manifest, device, source)?),
    })
}

/// The value network `manifest` describes, with the weights in the burnpack `bytes`; `source`
/// names where they came from in errors. A policy-value network gives its value part.
///
/// # Errors
/// Bytes that are not burnpack weights of the manifest's architecture.
pub fn net_from_burnpack(
    bytes: Vec<u8>,
    manifest: &NetManifest,
    device: &Device,
    source: &str,
) -> anyhow::Result<ValueNet> {
    if manifest.policy_actions.is_some() {
        return policy_value_net_from_burnpack(bytes, manifest, device, source).map(|n| n.value);
    }
    let architecture = manifest_architecture(manifest, source)?;
    let net = ValueNet::new(
        &architecture,
        manifest.input_shape,
        manifest.tanh_output,
        device,
    );
    let net = net
        .try_load_record(burnpack_record(bytes, source)?)
        .map_err(|e| weights_misfit(manifest, source, e))?;
    finite(net.non_finite_parameter(), source)?;
    Ok(net)
}

/// The policy-value network `manifest` describes (one with `policy_actions`), with the weights
/// in the burnpack `bytes`.
///
/// # Errors
/// A value network's manifest, bytes that are not burnpack weights of the manifest's network.
pub fn policy_value_net_from_burnpack(
    bytes: Vec<u8>,
    manifest: &NetManifest,
    device: &Device,
    source: &str,
) -> anyhow::Result<PolicyValueNet> {
    let Some(actions) = manifest.policy_actions else {
        bail!(
            "{source}: a value network, without the policy head this needs (an AlphaZero run's network has one)"
        );
    };
    let architecture = manifest_architecture(manifest, source)?;
    let net = PolicyValueNet::new(&architecture, manifest.input_shape, actions, device)
        .try_load_record(burnpack_record(bytes, source)?)
        .map_err(|e| weights_misfit(manifest, source, e))?;
    finite(net.non_finite_parameter(), source)?;
    Ok(net)
}

fn manifest_architecture(manifest: &NetManifest, source: &str) -> anyhow::Result<Architecture> {
    manifest
        .architecture
        .parse()
        .map_err(|e: crate::ConfigError| anyhow::anyhow!("{source}: {e}"))
}

fn burnpack_record(bytes: Vec<u8>, source: &str) -> anyhow::Result<burn::store::ModuleRecord> {
    burn::store::ModuleRecord::from_bytes(burn::tensor::Bytes::from_bytes_vec(bytes))
        .map_err(|e| anyhow::anyhow!("{source}: the weights are not burnpack: {e:?}"))
}

fn weights_misfit(manifest: &NetManifest, source: &str, e: impl std::fmt::Debug) -> anyhow::Error {
    let head = match manifest.policy_actions {
        Some(n) => format!(" policy-value ({n} actions)"),
        None => String::new(),
    };
    anyhow::anyhow!(
        "{source}: the weights do not fit a {}{head} network: {e:?}",
        manifest.architecture
    )
}

fn finite(non_finite: Option<f32>, source: &str) -> anyhow::Result<()> {
    match non_finite {
        Some(value) => Err(anyhow::anyhow!(
            "{source}: a weight is {value}: a network whose learning diverged cannot be used (take an earlier checkpoint)"
        )),
        None => Ok(()),
    }
}

/// Saves `net` as `<base>.bpk` + `<base>.json`, the weights' checksum in the manifest (written
/// last: a network is complete once its manifest is there).
///
/// # Errors
/// A failed write.
pub fn save_net(net: &ValueNet, manifest: &NetManifest, base: &Path) -> anyhow::Result<()> {
    save_module(net, net.non_finite_parameter(), manifest, base)
}

/// `save_net` for a policy-value network; the manifest must give its `policy_actions`.
///
/// # Errors
/// A failed write.
pub fn save_policy_value_net(
    net: &PolicyValueNet,
    manifest: &NetManifest,
    base: &Path,
) -> anyhow::Result<()> {
    anyhow::ensure!(
        manifest.policy_actions == Some(net.num_actions()),
        "{}: the manifest's policy_actions {:?} is not the network's {}",
        base.display(),
        manifest.policy_actions,
        net.num_actions()
    );
    save_module(net, net.non_finite_parameter(), manifest, base)
}

fn save_module<M: Module>(
    net: &M,
    non_finite: Option<f32>,
    manifest: &NetManifest,
    base: &Path,
) -> anyhow::Result<()> {
    let (weights, manifest_path) = paths(base);
    if let Some(value) = non_finite {
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
    write_atomically(&weights, &bytes, Existing::Replace)?;
    write_atomically(
        &manifest_path,
        serde_json::to_string_pretty(&manifest)?.as_bytes(),
        Existing::Replace,
    )
}

/// Reads the manifest of a saved network.
///
/// # Errors
/// A missing or malformed `net.json`.
pub fn read_manifest(base: &Path) -> anyhow::Result<NetManifest> {
    let (_, manifest_path) = paths(base);
    let text = read_regular_text(&manifest_path, MAX_SMALL_FILE_BYTES).with_context(|| {
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

/// Whether a network trained on the game `network_game` plays `played` (spec texts): the same
/// game, the rules of play aside (`GameSpec::plays_networks_of`: Go's komi, superko, move limit).
pub fn plays_network_game(played: &str, network_game: &str) -> bool {
    use crate::games::GameSpec;
    match (played.parse::<GameSpec>(), network_game.parse::<GameSpec>()) {
        (Ok(played), Ok(network)) => played.plays_networks_of(&network),
        _ => played == network_game,
    }
}

/// Checks that the network at `base`, whose manifest is `found`, was made for `expected`'s
/// game (the rules of play aside), encoding version, input shape and architecture.
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
    anyhow::ensure!(
        plays_network_game(&expected.game, &found.game),
        "{} was saved for game {}, but {} is expected",
        base.display(),
        found.game,
        expected.game
    );
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
/// them against the manifest's checksum (a policy-value network gives its value part).
///
/// # Errors
/// Missing or damaged weights.
pub fn load_weights(base: &Path, found: &NetManifest, device: &Device) -> anyhow::Result<ValueNet> {
    let (bytes, source) = checked_weights(base, found)?;
    net_from_burnpack(bytes, found, device, &source)
}

/// `load_weights` keeping a policy-value network whole.
///
/// # Errors
/// Missing or damaged weights.
pub fn load_any_weights(
    base: &Path,
    found: &NetManifest,
    device: &Device,
) -> anyhow::Result<LoadedNet> {
    let (bytes, source) = checked_weights(base, found)?;
    any_net_from_burnpack(bytes, found, device, &source)
}

/// The weights file's bytes, checked against the manifest's checksum, and its name.
fn checked_weights(base: &Path, found: &NetManifest) -> anyhow::Result<(Vec<u8>, String)> {
    let (weights, manifest_path) = paths(base);
    let bytes = read_regular(&weights, MAX_NET_FILE_BYTES)
        .with_context(|| format!("cannot read the network weights {}", weights.display()))?;
    if let Some(recorded) = &found.weights_sha256 {
        check_digest(&weights, &sha256_hex(&bytes), recorded, &manifest_path)?;
    }
    Ok((bytes, weights.display().to_string()))
}
