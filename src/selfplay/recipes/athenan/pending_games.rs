//! `pending/`: the finished games of a `parallel` run that no checkpoint holds yet, one record
//! each (`pending/game-<number>.rec`, the distributed mode's `GameRecord` bytes), written before
//! the game is learned. A checkpoint lists the numbers of the games it holds (learned or
//! dropped, `RunState::games_taken`); once it is written their records are removed. A run
//! killed at any instant therefore finds on resume exactly the finished games its checkpoint
//! does not hold — those learned after it (their learning was lost with the process) and those
//! still waiting for the learner — and learns each of them once, before playing on
//! (docs/run-directory.md). A record of a game the checkpoint holds (the process stopped
//! between writing the checkpoint and removing the records) is removed, not learned again. A
//! record that cannot be learned (damaged, or holding another game) is moved to
//! `pending/set-aside/` beside a `.why` file saying why, so it is reported once and kept for a
//! look, not warned about on every resume.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::selfplay::recipes::athenan::game_record::MAX_RECORD_BYTES;
use crate::selfplay::run::game_numbers::GameNumbers;
use crate::settings::files::{Existing, read_regular, write_atomically};

/// The directory of a run's pending records.
pub const PENDING_DIR: &str = "pending";

/// The directory, inside `pending/`, of the records that could not be learned.
pub const SET_ASIDE_DIR: &str = "set-aside";

/// A run's `pending/` directory.
#[derive(Clone, Debug)]
pub struct PendingGames {
    dir: PathBuf,
}

impl PendingGames {
    /// The pending records of the run at `run_root` (the directory made if missing).
    ///
    /// # Errors
    /// A directory that cannot be made.
    pub fn open(run_root: &Path) -> anyhow::Result<PendingGames> {
        let dir = run_root.join(PENDING_DIR);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(PendingGames { dir })
    }

    fn path(&self, number: u64) -> PathBuf {
        self.dir.join(format!("game-{number}.rec"))
    }

    /// Writes game `number`'s record, atomically and synced (before the game is learned).
    ///
    /// # Errors
    /// A failed write.
    pub fn write(&self, number: u64, record: &[u8]) -> anyhow::Result<()> {
        write_atomically(&self.path(number), record, Existing::Replace)
    }

    /// The numbers of the records held, in increasing order (a name that is not a record's,
    /// such as a temporary file left by a killed write, is not one).
    ///
    /// # Errors
    /// A directory that cannot be read.
    pub fn numbers(&self) -> anyhow::Result<Vec<u64>> {
        let entries = std::fs::read_dir(&self.dir)
            .with_context(|| format!("cannot read {}", self.dir.display()))?;
        let mut numbers = Vec::new();
        for entry in entries {
            let name = entry?.file_name();
            let number = name
                .to_str()
                .and_then(|n| n.strip_prefix("game-"))
                .and_then(|n| n.strip_suffix(".rec"))
                .and_then(|n| n.parse::<u64>().ok());
            numbers.extend(number);
        }
        numbers.sort_unstable();
        Ok(numbers)
    }

    /// Game `number`'s record (a regular file of at most `MAX_RECORD_BYTES`).
    ///
    /// # Errors
    /// A missing, unreadable or oversized record.
    pub fn read(&self, number: u64) -> anyhow::Result<Vec<u8>> {
        read_regular(&self.path(number), MAX_RECORD_BYTES)
    }

    /// Moves game `number`'s record out of the way into `pending/set-aside/` with `why` in a
    /// `.why` file beside it (names made unique, so nothing set aside before is replaced);
    /// returns the record's new path.
    ///
    /// # Errors
    /// A directory that cannot be made, a file that cannot be written or moved.
    pub fn set_aside(&self, number: u64, why: &str) -> anyhow::Result<PathBuf> {
        let aside = self.dir.join(SET_ASIDE_DIR);
        std::fs::create_dir_all(&aside)
            .with_context(|| format!("cannot create {}", aside.display()))?;
        let stem = (0u32..)
            .map(|copy| match copy {
                0 => format!("game-{number}"),
                _ => format!("game-{number}.{copy}"),
            })
            .find(|stem| !aside.join(format!("{stem}.rec")).exists())
            .expect("a free name");
        write_atomically(
            &aside.join(format!("{stem}.why")),
            format!("{why}\n").as_bytes(),
            Existing::Replace,
        )?;
        let target = aside.join(format!("{stem}.rec"));
        let source = self.path(number);
        std::fs::rename(&source, &target)
            .with_context(|| format!("cannot move {} to {}", source.display(), target.display()))?;
        Ok(target)
    }

    /// Removes the records of the games in `taken` (a checkpoint holds them); returns how many.
    ///
    /// # Errors
    /// A directory that cannot be read, a record that cannot be removed.
    pub fn remove_taken(&self, taken: &GameNumbers) -> anyhow::Result<usize> {
        let mut removed = 0;
        for number in self.numbers()? {
            if taken.contains(number) {
                let path = self.path(number);
                std::fs::remove_file(&path)
                    .with_context(|| format!("cannot remove {}", path.display()))?;
                removed += 1;
            }
        }
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_listed_by_number_and_removed_once_taken() {
        let dir = tempfile::tempdir().unwrap();
        let pending = PendingGames::open(dir.path()).unwrap();
        for number in [12, 3, 7] {
            pending.write(number, &[number as u8; 4]).unwrap();
        }
        std::fs::write(dir.path().join(PENDING_DIR).join("game-9.rec.tmp"), b"x").unwrap();
        assert_eq!(pending.numbers().unwrap(), vec![3, 7, 12]);
        assert_eq!(pending.read(7).unwrap(), vec![7; 4]);
        let mut taken = GameNumbers::default();
        for number in 0..8 {
            taken.insert(number);
        }
        assert_eq!(pending.remove_taken(&taken).unwrap(), 2);
        assert_eq!(pending.numbers().unwrap(), vec![12]);
        assert!(pending.read(3).is_err());
    }

    #[test]
    fn a_record_set_aside_leaves_the_list_and_keeps_its_bytes_and_reason() {
        let dir = tempfile::tempdir().unwrap();
        let pending = PendingGames::open(dir.path()).unwrap();
        pending.write(4, b"first").unwrap();
        let first = pending.set_aside(4, "not a record").unwrap();
        assert_eq!(pending.numbers().unwrap(), Vec::<u64>::new());
        assert_eq!(std::fs::read(&first).unwrap(), b"first");
        let why = first.with_extension("why");
        assert_eq!(std::fs::read_to_string(why).unwrap(), "not a record\n");
        // A second record of the same number set aside later replaces nothing.
        pending.write(4, b"second").unwrap();
        let second = pending.set_aside(4, "holds game 9").unwrap();
        assert_ne!(first, second);
        assert_eq!(std::fs::read(&first).unwrap(), b"first");
        assert_eq!(std::fs::read(&second).unwrap(), b"second");
    }
}
