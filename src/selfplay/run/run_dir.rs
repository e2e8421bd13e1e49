//! The run directory (docs/run-directory.md):
//!
//! ```text
//! <run-dir>/
//!   config.yaml              the resolved configuration
//!   metrics.jsonl            one JSON line per game / evaluation / checkpoint
//!   games.jsonl              one JSON line per game learned: its moves and values (games_log)
//!   events.out.tfevents.*    TensorBoard's events, derived from metrics.jsonl (tensorboard)
//!   ckpt-<games>/            net.bpk + net.json, optimizer.bpk, replay.bin.zst, state.json,
//!                            checksums.sha256 (written last)
//!   latest -> ckpt-<games>   replaced last, atomically
//!   nets/net-<games>.{bpk,json}   each checkpoint's network, with `checkpoint.keep_nets`
//!   .lock                    held by the process training the run (see `dir_lock`)
//! ```
//! A checkpoint is written into a hidden temporary directory, every file fsynced, its checksums
//! written, then renamed into place and the directory fsynced; `latest` is a symbolic link
//! replaced by a rename. A run killed at any instant therefore finds `latest` pointing at a
//! complete checkpoint; leftover temporary directories are removed on resume. A run whose
//! `latest` is missing or dangling (a copy tool dropped the link) resumes from its newest
//! complete checkpoint, with a warning. Loading a checkpoint checks every file's checksum.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};

use crate::selfplay::run::dir_lock::{DirLock, holds_more_than_its_lock};
use crate::settings::files::{
    Existing, for_each_line, read_regular, read_regular_text, regular_or_absent, write_atomically,
};
use crate::settings::limits::{MAX_LOG_FILE_BYTES, MAX_LOG_LINE_BYTES, MAX_SMALL_FILE_BYTES};
use crate::value::checksum::{
    CHECKSUM_FILE, read_checksum_file, verify_checksum_file, write_checksum_file,
};

/// The `kind` of the metrics lines of networks kept at a time mark
/// (`checkpoint::mark_net_line`).
pub const MARK_NET_KIND: &str = "mark_net";

pub const CONFIG_FILE: &str = "config.yaml";
pub const METRICS_FILE: &str = "metrics.jsonl";
pub const LATEST: &str = "latest";
const CHECKPOINT_PREFIX: &str = "ckpt-";
const TEMP_PREFIX: &str = ".tmp-";
const NETS_DIR: &str = "nets";
const KEPT_NET_PREFIX: &str = "net-";
/// The files every checkpoint holds, each listed in its `checksums.sha256`.
pub const CHECKPOINT_FILES: [&str; 4] = [
    "net.bpk",
    "net.json",
    crate::selfplay::run::replay_file::REPLAY_FILE,
    STATE_FILE,
];
/// Adam's state: in the checkpoints of every recipe but ExIt (which trains a fresh network
/// each phase), and of every checkpoint written before checksums existed.
pub const OPTIMIZER_FILE: &str = "optimizer.bpk";
/// `descent ladder`'s ratings of the run's networks (written by the ladder, read by the run's
/// page; training never touches it).
pub const LADDER_FILE: &str = "ladder.json";
/// The run state of a checkpoint.
pub const STATE_FILE: &str = "state.json";

/// A run directory. One opened for writing holds its lock (shared by clones) until the last
/// clone is dropped.
#[derive(Clone, Debug)]
pub struct RunDir {
    root: PathBuf,
    lock: Option<Arc<DirLock>>,
    /// A checkpoint without `checksums.sha256` may be resumed (the user said so).
    unverified_accepted: bool,
}

/// Refuses a checkpoint file longer than any descent writes before anything is hashed or read:
/// its small JSON files, its network and Adam's state (a 5 GB `state.json` costs a `stat`,
/// not a pass over 5 GB).
fn check_checkpoint_sizes(dir: &Path) -> anyhow::Result<()> {
    use crate::settings::limits::{MAX_NET_FILE_BYTES, MAX_SMALL_FILE_BYTES};
    let limits = [
        (STATE_FILE, MAX_SMALL_FILE_BYTES),
        ("net.json", MAX_SMALL_FILE_BYTES),
        (CHECKSUM_FILE, MAX_SMALL_FILE_BYTES),
        ("net.bpk", MAX_NET_FILE_BYTES),
        // Adam's state: two moments a weight beside the weights.
        (OPTIMIZER_FILE, 2 * MAX_NET_FILE_BYTES),
    ];
    for (name, max_bytes) in limits {
        let path = dir.join(name);
        if let Ok(meta) = fs::metadata(&path)
            && meta.len() > max_bytes
        {
            bail!(
                "{}: {} bytes, more than the {max_bytes} a checkpoint's {name} holds at most",
                path.display(),
                meta.len()
            );
        }
    }
    Ok(())
}

fn sync_dir(path: &Path) -> anyhow::Result<()> {
    fs::File::open(path)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("cannot sync directory {}", path.display()))
}

impl RunDir {
    /// Creates a run directory for a new run, locks it and writes its configuration. Refuses a
    /// directory that already holds a run or anything else (nothing is overwritten).
    ///
    /// # Errors
    /// The directory already holds a run, or cannot be created and locked.
    pub fn create(root: &Path, config_yaml: &str) -> anyhow::Result<RunDir> {
        let refuse_existing = || -> anyhow::Result<()> {
            if root.join(CONFIG_FILE).exists() {
                bail!(
                    "{} already holds a run: resume it with `descent train --resume {}` or choose another --run-dir",
                    root.display(),
                    root.display()
                );
            }
            if root.exists() && holds_more_than_its_lock(root)? {
                bail!(
                    "{} exists and is not empty: choose another --run-dir",
                    root.display()
                );
            }
            Ok(())
        };
        refuse_existing()?;
        fs::create_dir_all(root)
            .with_context(|| format!("cannot create the run directory {}", root.display()))?;
        let lock = DirLock::acquire(root, "run")?;
        // Another process may have created the run between the check and the lock.
        refuse_existing()?;
        write_atomically(
            &root.join(CONFIG_FILE),
            config_yaml.as_bytes(),
            Existing::Replace,
        )?;
        Ok(RunDir {
            root: root.to_path_buf(),
            lock: Some(Arc::new(lock)),
            unverified_accepted: false,
        })
    }

    /// Opens an existing run directory to read it (its checkpoints, its kept networks).
    ///
    /// # Errors
    /// The directory (or file) is missing or not what it should be.
    pub fn open(root: &Path) -> anyhow::Result<RunDir> {
        let config = root.join(CONFIG_FILE);
        if !config.is_file() {
            match crate::settings::files::kind_of(&config) {
                kind if kind == crate::settings::files::MISSING => bail!(
                    "{} is not a run directory (no {CONFIG_FILE} in it)",
                    root.display()
                ),
                kind => bail!(
                    "{}: {kind}, where a run directory holds its configuration as a regular file",
                    config.display()
                ),
            }
        }
        Ok(RunDir {
            root: root.to_path_buf(),
            lock: None,
            unverified_accepted: false,
        })
    }

    /// Opens an existing run directory to train it (resume): locks it, so that a second
    /// process is refused while this one runs.
    ///
    /// # Errors
    /// The run is missing, or another process holds its lock.
    pub fn open_for_writing(root: &Path) -> anyhow::Result<RunDir> {
        let mut run_dir = RunDir::open(root)?;
        run_dir.lock = Some(Arc::new(DirLock::acquire(root, "run")?));
        Ok(run_dir)
    }

    /// Lets a checkpoint without `checksums.sha256` (one of an older descent, or one whose
    /// list was deleted) be resumed with its files unverified.
    pub fn accept_unverified_checkpoint(&mut self) {
        self.unverified_accepted = true;
    }

    /// Whether this process holds the run's lock (needed to train it).
    pub fn is_locked(&self) -> bool {
        self.lock.is_some()
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The configuration text the run was started with.
    ///
    /// # Errors
    /// `config.yaml` cannot be read.
    pub fn config_text(&self) -> anyhow::Result<String> {
        read_regular_text(&self.root.join(CONFIG_FILE), MAX_SMALL_FILE_BYTES)
    }

    pub fn metrics_path(&self) -> PathBuf {
        self.root.join(METRICS_FILE)
    }

    /// The checkpoint `latest` points at; if the link is missing or dangling, the newest
    /// complete checkpoint (with a warning); `None` when the run has none.
    ///
    /// # Errors
    /// The run directory cannot be read.
    pub fn latest_checkpoint(&self) -> anyhow::Result<Option<PathBuf>> {
        let link = self.root.join(LATEST);
        let problem = match fs::read_link(&link) {
            Ok(target) => {
                let path = self.root.join(&target);
                // A checkpoint of this run: `ckpt-N` beside the link, nothing else.
                let own = matches!(
                    target.components().collect::<Vec<_>>()[..],
                    [std::path::Component::Normal(name)] if name.to_string_lossy().starts_with("ckpt-")
                );
                if !own {
                    format!(
                        "{} points at {}, which is not a checkpoint of this run",
                        link.display(),
                        target.display()
                    )
                } else if path.is_dir() {
                    return Ok(Some(path));
                } else {
                    format!(
                        "{} points at {}, which is missing",
                        link.display(),
                        path.display()
                    )
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                format!("{} is missing", link.display())
            }
            // Not a link: a file, a FIFO or a directory put in its place.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => format!(
                "{} is not a link to a checkpoint but {}",
                link.display(),
                crate::settings::files::kind_of(&link)
            ),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", link.display())),
        };
        let newest = self.newest_complete_checkpoint()?;
        if let Some(path) = &newest {
            tracing::warn!(
                "{problem}: using the newest complete checkpoint, {}",
                path.display()
            );
        }
        Ok(newest)
    }

    /// The newest checkpoint directory holding all its files (an incomplete one, say from a
    /// copy cut short, is skipped with a warning).
    fn newest_complete_checkpoint(&self) -> anyhow::Result<Option<PathBuf>> {
        for (_, path) in self.checkpoints()?.into_iter().rev() {
            // The files its checksum list names besides the ones every checkpoint holds; one
            // without a list (written before checksums) holds Adam's state too.
            let listed: Vec<String> = match read_checksum_file(&path) {
                Ok(Some(sums)) => sums.into_keys().collect(),
                Ok(None) => vec![OPTIMIZER_FILE.to_string()],
                Err(_) => Vec::new(),
            };
            let unusable: Vec<(&str, String)> = CHECKPOINT_FILES
                .iter()
                .chain([&CHECKSUM_FILE])
                .copied()
                .chain(listed.iter().map(String::as_str))
                .filter(|name| !path.join(name).is_file())
                .map(|name| (name, crate::settings::files::kind_of(&path.join(name))))
                .collect();
            // Checkpoints written before checksums have no checksum file.
            let missing_list_only = matches!(&unusable[..], [(name, kind)]
                if *name == CHECKSUM_FILE && kind == crate::settings::files::MISSING);
            if unusable.is_empty() || missing_list_only {
                return Ok(Some(path));
            }
            let problems: Vec<String> = unusable
                .iter()
                .map(|(name, kind)| format!("{name} is {kind}"))
                .collect();
            tracing::warn!(
                "{} is incomplete ({}): skipped",
                path.display(),
                problems.join(", ")
            );
        }
        Ok(None)
    }

    /// Checks the checksums of the checkpoint at `dir` before it is loaded. A checkpoint
    /// without its checksum list is refused, unless [`RunDir::accept_unverified_checkpoint`]
    /// was called (then it is loaded with a warning).
    ///
    /// # Errors
    /// A file that does not match its checksum, a missing one, or no checksum list.
    pub fn verify_checkpoint(&self, dir: &Path) -> anyhow::Result<()> {
        check_checkpoint_sizes(dir)?;
        if verify_checksum_file(dir, &CHECKPOINT_FILES)? {
            return Ok(());
        }
        if !self.unverified_accepted {
            bail!(
                "{} has no {CHECKSUM_FILE}: its files cannot be verified (an older descent, or the list was removed); \
                 resume it anyway with `descent train --resume {} --accept-unverified-checkpoint`",
                dir.display(),
                self.root.display()
            );
        }
        tracing::warn!(
            "{} has no {CHECKSUM_FILE}: its files are not verified (--accept-unverified-checkpoint)",
            dir.display()
        );
        Ok(())
    }

    /// Removes temporary directories left by a run killed while checkpointing.
    ///
    /// # Errors
    /// A directory that cannot be removed.
    pub fn remove_partial_checkpoints(&self) -> anyhow::Result<usize> {
        let mut removed = 0;
        for entry in fs::read_dir(&self.root)? {
            let entry = entry?;
            if entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
                if entry.file_type()?.is_dir() {
                    fs::remove_dir_all(entry.path())?;
                } else {
                    fs::remove_file(entry.path())?;
                }
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Writes checkpoint `ckpt-<games>`: `write` fills a temporary directory (fsyncing its
    /// files), their checksums are added, and the directory is renamed into place; `latest` is
    /// replaced last. A failure (a full disk) removes the temporary directory.
    ///
    /// # Errors
    /// A failed write or rename (the temporary directory is removed).
    pub fn write_checkpoint(
        &self,
        games: u64,
        write: impl FnOnce(&Path) -> anyhow::Result<()>,
    ) -> anyhow::Result<PathBuf> {
        anyhow::ensure!(
            self.is_locked(),
            "{} is written without its lock",
            self.root.display()
        );
        let name = format!("{CHECKPOINT_PREFIX}{games}");
        let temp = self.root.join(format!("{TEMP_PREFIX}{name}"));
        if temp.exists() {
            fs::remove_dir_all(&temp)?;
        }
        fs::create_dir(&temp).with_context(|| format!("cannot create {}", temp.display()))?;
        let filled = write(&temp)
            .and_then(|()| write_checksum_file(&temp))
            .and_then(|()| sync_dir(&temp));
        if let Err(e) = filled {
            let _ = fs::remove_dir_all(&temp);
            return Err(e);
        }
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
    ///
    /// # Errors
    /// `nets/` cannot be created.
    pub fn kept_net_base(&self, games: u64) -> anyhow::Result<PathBuf> {
        let dir = self.root.join(NETS_DIR);
        fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(dir.join(format!("{KEPT_NET_PREFIX}{games}")))
    }

    /// The kept networks, oldest first, as `(games, base path)`.
    ///
    /// # Errors
    /// `nets/` cannot be read.
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
    ///
    /// # Errors
    /// A file that cannot be removed.
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
    ///
    /// # Errors
    /// `metrics.jsonl` cannot be read.
    pub fn checkpoint_times(&self) -> anyhow::Result<std::collections::BTreeMap<u64, f64>> {
        self.seconds_by_games(|line| match line["kind"].as_str() {
            Some("checkpoint") => line["elapsed_seconds"].as_f64(),
            _ => None,
        })
    }

    /// When each kept network was made (seconds of training), by games learned: from the
    /// checkpoint lines of the metrics log (`net_made_at_seconds`, else the checkpoint's own
    /// time in runs of older versions) and the `mark_net` lines (`mark_nets`).
    ///
    /// # Errors
    /// The metrics log cannot be read.
    pub fn net_made_at_times(&self) -> anyhow::Result<std::collections::BTreeMap<u64, f64>> {
        self.seconds_by_games(|line| match line["kind"].as_str() {
            Some("checkpoint") => line["net_made_at_seconds"]
                .as_f64()
                .or(line["elapsed_seconds"].as_f64()),
            Some(MARK_NET_KIND) => line["net_made_at_seconds"].as_f64(),
            _ => None,
        })
    }

    /// The seconds `seconds_of` reads from each line of the metrics log that has them, by the
    /// line's `game` (lines that are not JSON are skipped).
    fn seconds_by_games(
        &self,
        seconds_of: impl Fn(&serde_json::Value) -> Option<f64>,
    ) -> anyhow::Result<std::collections::BTreeMap<u64, f64>> {
        let mut times = std::collections::BTreeMap::new();
        for_each_line(&self.metrics_path(), MAX_LOG_LINE_BYTES, |line| {
            if let Ok(value) = serde_json::from_slice::<serde_json::Value>(line)
                && let (Some(games), Some(seconds)) = (value["game"].as_u64(), seconds_of(&value))
            {
                times.insert(games, seconds);
            }
            std::ops::ControlFlow::Continue(())
        })?;
        Ok(times)
    }

    /// The checkpoints present, oldest first, as `(games, path)`.
    ///
    /// # Errors
    /// The run directory cannot be read.
    pub fn checkpoints(&self) -> anyhow::Result<Vec<(u64, PathBuf)>> {
        numbered_entries(&self.root, CHECKPOINT_PREFIX, "")
    }

    /// Every network of the run, oldest first, as `(games, what an agent's model= takes)`: the
    /// checkpoints' directories, and the networks kept in `nets/` (`checkpoint.keep_nets`) of
    /// checkpoints since pruned.
    ///
    /// # Errors
    /// The run directory cannot be read.
    pub fn networks(&self) -> anyhow::Result<Vec<(u64, PathBuf)>> {
        let mut networks: std::collections::BTreeMap<u64, PathBuf> = self
            .kept_nets()?
            .into_iter()
            .map(|(games, base)| (games, base.with_extension("json")))
            .collect();
        networks.extend(self.checkpoints()?);
        Ok(networks.into_iter().collect())
    }

    /// Deletes all but the last `keep` checkpoints (0: keep all); `latest` is never deleted.
    ///
    /// # Errors
    /// A checkpoint that cannot be removed.
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

/// The whole `evaluation` lines at `games` games in `path` after its first `from` bytes (at most
/// the last 16 MiB of them are read: a longer tail holds no such line, evaluations being made
/// at the game they name).
fn evaluations_after(path: &Path, from: u64, games: u64) -> anyhow::Result<String> {
    use std::io::{Read, Seek, SeekFrom};
    const MAX_TAIL: u64 = 16 << 20;
    let mut file =
        fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let length = file.metadata()?.len();
    let start = from.max(length.saturating_sub(MAX_TAIL));
    file.seek(SeekFrom::Start(start))?;
    let mut tail = Vec::new();
    file.take(MAX_TAIL).read_to_end(&mut tail)?;
    let tail = String::from_utf8_lossy(&tail);
    let mut kept = String::new();
    for line in tail.split_inclusive('\n').filter(|l| l.ends_with('\n')) {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if value["kind"] == "evaluation" && value["game"].as_u64() == Some(games) {
            kept.push_str(line);
        }
    }
    Ok(kept)
}

/// The append-only metrics log: one JSON object per line, flushed after each.
pub struct MetricsLog {
    file: fs::File,
    bytes: u64,
    /// The TensorBoard event file fed with every line (`run.tensorboard`).
    tensorboard: Option<crate::selfplay::telemetry::tensorboard::TensorBoardLog>,
}

impl MetricsLog {
    /// Opens the log for appending, first cutting it to `keep_bytes` (the length it had at the
    /// checkpoint being resumed, so that lines of games lost in a kill do not remain) — all but
    /// the evaluations of the checkpoint's own network (`evaluation` lines at `checkpoint_games`
    /// games, such as the one at the run's end, made after its final checkpoint). The log
    /// then ends with `closing_line`, the resumed checkpoint's own line (written after the
    /// checkpoint, so a kill between the two leaves it out: it is written again here). With
    /// `tensorboard`, the run's TensorBoard event file is rebuilt from the lines kept and fed
    /// with each line written (`selfplay::tensorboard`).
    ///
    /// # Errors
    /// The directory (or file) is missing or not what it should be.
    pub fn open(
        path: &Path,
        (keep_bytes, checkpoint_games): (u64, u64),
        closing_line: &str,
        tensorboard: bool,
    ) -> anyhow::Result<MetricsLog> {
        regular_or_absent(path)?;
        let mut file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        let length = file.metadata()?.len();
        let before_line = keep_bytes.saturating_sub(closing_line.len() as u64);
        let bytes = if length >= keep_bytes {
            let kept = evaluations_after(path, keep_bytes, checkpoint_games)?;
            file.set_len(keep_bytes)?;
            file.write_all(kept.as_bytes())?;
            file.flush()?;
            keep_bytes + kept.len() as u64
        } else {
            if length < before_line {
                tracing::warn!(
                    "{} is shorter ({length} bytes) than its checkpoint recorded ({keep_bytes}): lines are missing",
                    path.display()
                );
            }
            file.set_len(length.min(before_line))?;
            file.write_all(closing_line.as_bytes())?;
            file.flush()?;
            length.min(before_line) + closing_line.len() as u64
        };
        let tensorboard = match tensorboard {
            true => {
                let kept = read_regular(path, MAX_LOG_FILE_BYTES)?;
                let dir = path.parent().unwrap_or(Path::new("."));
                let log = crate::selfplay::telemetry::tensorboard::TensorBoardLog::rebuild(
                    dir,
                    &String::from_utf8_lossy(&kept),
                )?;
                Some(log)
            }
            false => None,
        };
        Ok(MetricsLog {
            file,
            bytes,
            tensorboard,
        })
    }

    /// `line` as the text `write` appends.
    ///
    /// # Errors
    /// The record cannot be serialised (not expected).
    pub fn line_text(line: &impl serde::Serialize) -> anyhow::Result<String> {
        let mut text = serde_json::to_string(line)?;
        text.push('\n');
        Ok(text)
    }

    /// Appends one line.
    ///
    /// # Errors
    /// A failed write.
    pub fn write(&mut self, line: &impl serde::Serialize) -> anyhow::Result<()> {
        self.write_text(&Self::line_text(line)?)
    }

    /// Appends a line made by `line_text`.
    ///
    /// # Errors
    /// A failed write.
    pub fn write_text(&mut self, text: &str) -> anyhow::Result<()> {
        self.file.write_all(text.as_bytes())?;
        self.file.flush()?;
        self.bytes += text.len() as u64;
        if let Some(tensorboard) = &mut self.tensorboard
            && let Err(e) = tensorboard.add_line(text)
        {
            tracing::warn!("TensorBoard events are no longer written: {e:#}");
            self.tensorboard = None;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_checkpoint_leaves_nothing_and_latest_where_it_was() {
        let tmp = tempfile::tempdir().unwrap();
        let run = RunDir::create(&tmp.path().join("run"), "game: tic_tac_toe\n").unwrap();
        run.write_checkpoint(2, |dir| Ok(fs::write(dir.join(STATE_FILE), "{}")?))
            .unwrap();
        let failed = run.write_checkpoint(4, |dir| {
            fs::write(dir.join("net.bpk"), "half")?;
            bail!("no space left on device")
        });
        assert!(failed.unwrap_err().to_string().contains("no space"));
        assert!(!run.root().join(".tmp-ckpt-4").exists());
        assert!(!run.root().join("ckpt-4").exists());
        assert_eq!(
            fs::read_link(run.root().join(LATEST)).unwrap(),
            Path::new("ckpt-2")
        );
        assert_eq!(
            fs::read_to_string(run.root().join("ckpt-2").join(CHECKSUM_FILE))
                .unwrap()
                .lines()
                .count(),
            1
        );
        // A reader does not hold the lock, and cannot write; a second writer is refused.
        let reader = RunDir::open(run.root()).unwrap();
        assert!(reader.write_checkpoint(6, |_| Ok(())).is_err());
        let message = RunDir::open_for_writing(run.root())
            .unwrap_err()
            .to_string();
        assert!(message.contains("is in use"), "{message}");
        drop(run);
        assert!(RunDir::open_for_writing(reader.root()).unwrap().is_locked());
    }

    /// A checkpoint file longer than any descent writes is refused from its length before it
    /// is hashed (a sparse 5 GB `state.json` here; the checksum's mismatch is the refusal it got
    /// after hashing all of it).
    #[test]
    fn a_checkpoint_file_too_long_is_refused_before_it_is_hashed() {
        let tmp = tempfile::tempdir().unwrap();
        let run = RunDir::create(&tmp.path().join("run"), "game: tic_tac_toe\n").unwrap();
        run.write_checkpoint(2, |dir| Ok(fs::write(dir.join(STATE_FILE), "{}")?))
            .unwrap();
        let checkpoint = run.root().join("ckpt-2");
        let state = fs::OpenOptions::new()
            .write(true)
            .open(checkpoint.join(STATE_FILE))
            .unwrap();
        state.set_len(5 << 30).unwrap();
        let refused = run.verify_checkpoint(&checkpoint).unwrap_err().to_string();
        assert!(
            refused.contains("5368709120 bytes") && refused.contains("state.json"),
            "{refused}"
        );
    }
}
