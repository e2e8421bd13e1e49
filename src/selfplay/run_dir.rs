//! The run directory (DESIGN.md "Run directory"):
//!
//! ```text
//! <run-dir>/
//!   config.yaml              the resolved configuration
//!   metrics.jsonl            one JSON line per game / evaluation / checkpoint
//!   ckpt-<games>/            net.bpk + net.json, optimizer.bpk, replay.bin.zst, state.json
//!   latest -> ckpt-<games>   replaced last, atomically
//!   nets/net-<games>.{bpk,json}   each checkpoint's network, with `checkpoint.keep_nets`
//! ```
//! A checkpoint is written into a hidden temporary directory, every file fsynced, then renamed
//! into place and the directory fsynced; `latest` is a symbolic link replaced by a rename. A run
//! killed at any instant therefore finds `latest` pointing at a complete checkpoint; leftover
//! temporary directories are removed on resume.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

pub const CONFIG_FILE: &str = "config.yaml";
pub const METRICS_FILE: &str = "metrics.jsonl";
pub const LATEST: &str = "latest";
const CHECKPOINT_PREFIX: &str = "ckpt-";
const TEMP_PREFIX: &str = ".tmp-";
const NETS_DIR: &str = "nets";
const KEPT_NET_PREFIX: &str = "net-";

/// A run directory.
#[derive(Clone, Debug)]
pub struct RunDir {
    root: PathBuf,
}

fn sync_dir(path: &Path) -> anyhow::Result<()> {
    fs::File::open(path)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("cannot sync directory {}", path.display()))
}

impl RunDir {
    /// Creates a run directory for a new run and writes its configuration. Refuses a directory
    /// that already holds a run (nothing is overwritten).
    pub fn create(root: &Path, config_yaml: &str) -> anyhow::Result<RunDir> {
        if root.join(CONFIG_FILE).exists() {
            bail!(
                "{} already holds a run: resume it with `descent train --resume {}` or choose another --run-dir",
                root.display(),
                root.display()
            );
        }
        if root.exists() && fs::read_dir(root)?.next().is_some() {
            bail!(
                "{} exists and is not empty: choose another --run-dir",
                root.display()
            );
        }
        fs::create_dir_all(root)
            .with_context(|| format!("cannot create the run directory {}", root.display()))?;
        crate::value::saved_net::write_atomically(&root.join(CONFIG_FILE), config_yaml.as_bytes())?;
        Ok(RunDir {
            root: root.to_path_buf(),
        })
    }

    /// Opens an existing run directory (for resume).
    pub fn open(root: &Path) -> anyhow::Result<RunDir> {
        if !root.join(CONFIG_FILE).is_file() {
            bail!(
                "{} is not a run directory (no {CONFIG_FILE} in it)",
                root.display()
            );
        }
        Ok(RunDir {
            root: root.to_path_buf(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The configuration text the run was started with.
    pub fn config_text(&self) -> anyhow::Result<String> {
        let path = self.root.join(CONFIG_FILE);
        fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))
    }

    pub fn metrics_path(&self) -> PathBuf {
        self.root.join(METRICS_FILE)
    }

    /// The checkpoint `latest` points at, if any.
    pub fn latest_checkpoint(&self) -> anyhow::Result<Option<PathBuf>> {
        let link = self.root.join(LATEST);
        match fs::read_link(&link) {
            Ok(target) => {
                let path = self.root.join(target);
                if !path.is_dir() {
                    bail!(
                        "{} points at {}, which is missing",
                        link.display(),
                        path.display()
                    );
                }
                Ok(Some(path))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", link.display())),
        }
    }

    /// Removes temporary directories left by a run killed while checkpointing.
    pub fn remove_partial_checkpoints(&self) -> anyhow::Result<usize> {
        let mut removed = 0;
        for entry in fs::read_dir(&self.root)? {
            let entry = entry?;
            if entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
                fs::remove_dir_all(entry.path())?;
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Writes checkpoint `ckpt-<games>`: `write` fills a temporary directory (fsyncing its
    /// files), which is then renamed into place; `latest` is replaced last.
    pub fn write_checkpoint(
        &self,
        games: u64,
        write: impl FnOnce(&Path) -> anyhow::Result<()>,
    ) -> anyhow::Result<PathBuf> {
        let name = format!("{CHECKPOINT_PREFIX}{games}");
        let temp = self.root.join(format!("{TEMP_PREFIX}{name}"));
        if temp.exists() {
            fs::remove_dir_all(&temp)?;
        }
        fs::create_dir(&temp).with_context(|| format!("cannot create {}", temp.display()))?;
        write(&temp)?;
        sync_dir(&temp)?;
        let path = self.root.join(&name);
        if path.exists() {
            fs::remove_dir_all(&path)?;
        }
        fs::rename(&temp, &path)
            .with_context(|| format!("cannot rename {} to {}", temp.display(), path.display()))?;
        let link_temp = self.root.join(format!("{TEMP_PREFIX}{LATEST}"));
        let _ = fs::remove_file(&link_temp);
        #[cfg(unix)]
        std::os::unix::fs::symlink(&name, &link_temp)
            .with_context(|| format!("cannot create {}", link_temp.display()))?;
        #[cfg(not(unix))]
        compile_error!("run directories use symbolic links: a unix system is needed");
        fs::rename(&link_temp, self.root.join(LATEST))?;
        sync_dir(&self.root)?;
        Ok(path)
    }

    /// Where the network of the checkpoint after `games` games is kept (`checkpoint.keep_nets`):
    /// a saved network's base path (`.bpk` + `.json`). Creates `nets/` if needed.
    pub fn kept_net_base(&self, games: u64) -> anyhow::Result<PathBuf> {
        let dir = self.root.join(NETS_DIR);
        fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(dir.join(format!("{KEPT_NET_PREFIX}{games}")))
    }

    /// The kept networks, oldest first, as `(games, base path)`.
    pub fn kept_nets(&self) -> anyhow::Result<Vec<(u64, PathBuf)>> {
        let dir = self.root.join(NETS_DIR);
        if !dir.is_dir() {
            return Ok(Vec::new());
        }
        // A kept network is complete once its manifest (written last) is there.
        numbered_entries(&dir, KEPT_NET_PREFIX, ".json")
    }

    /// Deletes the kept networks of more than `games` games: on resume, those of checkpoints
    /// lost in a kill, which the resumed run replaces.
    pub fn remove_kept_nets_after(&self, games: u64) -> anyhow::Result<()> {
        for (kept_games, base) in self.kept_nets()? {
            if kept_games > games {
                for extension in ["json", "bpk"] {
                    let path = base.with_extension(extension);
                    if path.exists() {
                        fs::remove_file(&path)
                            .with_context(|| format!("cannot remove {}", path.display()))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Training time (seconds) of every checkpoint the metrics log records, by games played.
    pub fn checkpoint_times(&self) -> anyhow::Result<std::collections::BTreeMap<u64, f64>> {
        let path = self.metrics_path();
        let text =
            fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let mut times = std::collections::BTreeMap::new();
        for line in text.lines() {
            let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            if value["kind"] == "checkpoint"
                && let (Some(games), Some(seconds)) =
                    (value["game"].as_u64(), value["elapsed_seconds"].as_f64())
            {
                times.insert(games, seconds);
            }
        }
        Ok(times)
    }

    /// The checkpoints present, oldest first, as `(games, path)`.
    pub fn checkpoints(&self) -> anyhow::Result<Vec<(u64, PathBuf)>> {
        numbered_entries(&self.root, CHECKPOINT_PREFIX, "")
    }

    /// Deletes all but the last `keep` checkpoints (0: keep all); `latest` is never deleted.
    pub fn prune(&self, keep: usize) -> anyhow::Result<()> {
        if keep == 0 {
            return Ok(());
        }
        let latest = self.latest_checkpoint()?;
        let all = self.checkpoints()?;
        for (_, path) in all.iter().take(all.len().saturating_sub(keep)) {
            if Some(path) != latest.as_ref() {
                fs::remove_dir_all(path)?;
            }
        }
        Ok(())
    }
}

/// The entries `<prefix><number><suffix>` of `dir`, by number, as `(number, the entry's path
/// without the suffix)`.
fn numbered_entries(dir: &Path, prefix: &str, suffix: &str) -> anyhow::Result<Vec<(u64, PathBuf)>> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if let Some(number) = name
            .strip_prefix(prefix)
            .and_then(|n| n.strip_suffix(suffix))
            .and_then(|n| n.parse::<u64>().ok())
        {
            found.push((number, dir.join(&name[..name.len() - suffix.len()])));
        }
    }
    found.sort();
    Ok(found)
}

/// The append-only metrics log: one JSON object per line, flushed after each.
pub struct MetricsLog {
    file: fs::File,
    bytes: u64,
}

impl MetricsLog {
    /// Opens the log for appending, first cutting it to `keep_bytes` (the length it had at the
    /// checkpoint being resumed, so that lines of games lost in a kill do not remain).
    pub fn open(path: &Path, keep_bytes: u64) -> anyhow::Result<MetricsLog> {
        let file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        let length = file.metadata()?.len();
        if length > keep_bytes {
            file.set_len(keep_bytes)?;
        }
        Ok(MetricsLog {
            file,
            bytes: keep_bytes.min(length),
        })
    }

    /// Appends one line.
    pub fn write(&mut self, line: &impl serde::Serialize) -> anyhow::Result<()> {
        let mut text = serde_json::to_string(line)?;
        text.push('\n');
        self.file.write_all(text.as_bytes())?;
        self.file.flush()?;
        self.bytes += text.len() as u64;
        Ok(())
    }

    /// Bytes written so far.
    pub fn len(&self) -> u64 {
        self.bytes
    }

    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }
}
