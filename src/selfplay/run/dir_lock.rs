//! An exclusive lock on a directory that a process writes into (a run directory, an experiment
//! directory): two `descent train --resume` of one run, or two `descent experiment` writing one
//! directory, would interleave their games, metrics and checkpoints. The lock is an advisory
//! `flock` on `<dir>/.lock`, which the system releases when the process ends however it ends, so
//! a lock left by a killed process never blocks the next one. The file holds the holder's pid
//! and command, for the message the second process prints.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// The lock file in a locked directory.
pub const LOCK_FILE: &str = ".lock";

/// Whether `dir` holds anything but its lock file (a directory a new run or experiment may not
/// take).
///
/// # Errors
/// The directory cannot be read.
pub fn holds_more_than_its_lock(dir: &Path) -> anyhow::Result<bool> {
    for entry in fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        if entry?.file_name() != LOCK_FILE {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A held lock; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct DirLock {
    _file: fs::File,
    path: PathBuf,
}

impl DirLock {
    /// Locks `dir` (which must exist) for this process, or says which process holds it.
    /// `what` names the directory's kind in the message ("run", "experiment").
    ///
    /// # Errors
    /// The lock file cannot be created, or another process holds the lock.
    pub fn acquire(dir: &Path, what: &str) -> anyhow::Result<DirLock> {
        let path = dir.join(LOCK_FILE);
        let mut file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .with_context(|| format!("cannot open the lock file {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                let holder = fs::read_to_string(&path).unwrap_or_default();
                let holder = holder.trim();
                let holder = if holder.is_empty() {
                    "another descent process".to_string()
                } else {
                    format!("another descent process ({holder})")
                };
                bail!(
                    "{} is in use: {holder} is writing this {what}; wait for it to finish or stop it (two processes writing one {what} would corrupt it)",
                    dir.display()
                );
            }
            Err(fs::TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("cannot lock {}", path.display()));
            }
        }
        let command: Vec<String> = std::env::args().collect();
        file.set_len(0)?;
        writeln!(file, "pid {}: {}", std::process::id(), command.join(" "))?;
        Ok(DirLock { _file: file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = DirLock::acquire(dir.path(), "run").unwrap();
        let message = DirLock::acquire(dir.path(), "run").unwrap_err().to_string();
        assert!(message.contains("is in use"), "{message}");
        assert!(
            message.contains(&format!("pid {}", std::process::id())),
            "{message}"
        );
        assert!(first.path().ends_with(LOCK_FILE));
        drop(first);
        DirLock::acquire(dir.path(), "run").unwrap();
    }
}
