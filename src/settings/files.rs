//! How descent touches the files people name and the files of its runs: it reads regular files
//! only (a FIFO or a device is refused at once, never waited on), and it writes every file
//! atomically — a temporary file beside the target, fsync, rename — over nothing but a regular
//! file, and over one that exists only where the caller allows it (a command's `--force`, or a
//! run's own files). The checks run before the work whose result the file holds
//! ([`check_output`]) and again at the write.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// Whether a write may replace a regular file already at its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Replace it: a run's own files (checkpoints, checksums), or a command given `--force`.
    Replace,
    /// Refuse: the file was not ours to replace (a command without `--force`).
    Refuse,
}

impl Existing {
    /// `Replace` when the command's `--force` was given.
    pub fn replaced_if(force: bool) -> Existing {
        if force {
            Existing::Replace
        } else {
            Existing::Refuse
        }
    }
}

/// Checks that `path` can be written: its directory exists, and nothing is there but (when
/// `existing` allows it) a regular file. Called before the work whose result the file holds,
/// so that a bad path costs nothing.
///
/// # Errors
/// A missing directory; a directory, device, FIFO or socket at `path`; an existing file that
/// `existing` does not let us replace.
pub fn check_output(path: &Path, existing: Existing) -> anyhow::Result<()> {
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        bail!(
            "{}: the directory {} does not exist",
            path.display(),
            parent.display()
        );
    }
    // Follows a symbolic link: a link to /dev/null is a device.
    let Ok(found) = fs::metadata(path) else {
        if fs::symlink_metadata(path).is_ok() {
            bail!(
                "{} is a symbolic link to nothing; remove it or choose another path",
                path.display()
            );
        }
        return Ok(());
    };
    if found.is_dir() {
        bail!("{} is a directory, not a file", path.display());
    }
    if !found.is_file() {
        bail!(
            "{} exists and is not a regular file (a device, FIFO or socket): descent writes regular files only",
            path.display()
        );
    }
    if existing == Existing::Refuse {
        bail!(
            "{} already exists; remove it or pass --force to replace it",
            path.display()
        );
    }
    Ok(())
}

/// `path` with `suffix` added to its file name: `net.json` → `net.json.tmp`.
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, of a name no other write
/// uses (this process's id and a count: two processes or threads writing one file never
/// share one), created new, fsync, rename. A failure (a full disk) removes the temporary file
/// and leaves `path` as it was.
///
/// # Errors
/// Whatever [`check_output`] refuses; a failed write or rename.
pub fn write_atomically(path: &Path, bytes: &[u8], existing: Existing) -> anyhow::Result<()> {
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    check_output(path, existing)?;
    // A name left by a killed process of the same id (a container's pid 1) is skipped.
    let (tmp, mut file) = (|| {
        let mut tries = 0;
        loop {
            let write = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let tmp = with_suffix(path, &format!(".{}-{write}.tmp", std::process::id()));
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)
            {
                Ok(file) => return Ok((tmp, file)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < 1000 => {
                    tries += 1;
                }
                Err(e) => {
                    return Err(e).with_context(|| format!("cannot create {}", tmp.display()));
                }
            }
        }
    })()?;
    let written = (|| {
        file.write_all(bytes)
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        file.sync_all()
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        // Checked again just before the rename: what is at `path` may have changed meanwhile.
        check_output(path, existing)?;
        fs::rename(&tmp, path)
            .with_context(|| format!("cannot rename {} to {}", tmp.display(), path.display()))
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// Opens `path` for reading if it is a regular file: a FIFO, a device or a directory is refused
/// at once instead of blocking the thread (opened without waiting, then checked on the open
/// file, so it cannot change in between).
///
/// # Errors
/// A missing or unreadable path, or one that is not a regular file.
pub fn open_regular(path: &Path) -> std::io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other(format!(
            "{} is {}, not a regular file",
            path.display(),
            kind_of(path)
        )));
    }
    Ok(file)
}

/// What [`kind_of`] says of a path that does not exist.
pub const MISSING: &str = "missing";

/// What `path` is, in words for a message: "a regular file", "a directory", "a FIFO", "a
/// device", "a socket", [`MISSING`] (a link to nothing included), or "unreadable (…)".
pub fn kind_of(path: &Path) -> String {
    use std::os::unix::fs::FileTypeExt;
    match fs::metadata(path) {
        Ok(meta) => {
            let kind = meta.file_type();
            let words = if kind.is_file() {
                "a regular file"
            } else if kind.is_dir() {
                "a directory"
            } else if kind.is_fifo() {
                "a FIFO"
            } else if kind.is_block_device() || kind.is_char_device() {
                "a device"
            } else if kind.is_socket() {
                "a socket"
            } else {
                "not a regular file"
            };
            words.to_string()
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => MISSING.to_string(),
        Err(e) => format!("unreadable ({e})"),
    }
}

/// Checks that `path`, if it exists, is a regular file (or a link to one): a log about to be
/// opened for appending or read line by line, which a FIFO would block and a device flood.
///
/// # Errors
/// `path` exists and is not a regular file.
pub fn regular_or_absent(path: &Path) -> anyhow::Result<()> {
    match fs::metadata(path) {
        Ok(meta) if !meta.is_file() => bail!("{} is not a regular file", path.display()),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// The lines of the regular file `path` (none if it is missing), each with its `\n` where it
/// has one, read one at a time: a line longer than `max_line` bytes ends the reading with an
/// error, so that memory stays bounded however long the file.
///
/// # Errors
/// What [`open_regular`] refuses (a missing file aside), a failed read, a line too long.
pub fn for_each_line(
    path: &Path,
    max_line: u64,
    mut each: impl FnMut(&[u8]) -> std::ops::ControlFlow<()>,
) -> anyhow::Result<()> {
    use std::io::BufRead;
    let file = match open_regular(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut reader = std::io::BufReader::new(file);
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut reader)
            .take(max_line + 1)
            .read_until(b'\n', &mut line)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if read == 0 {
            return Ok(());
        }
        if line.len() as u64 > max_line {
            bail!("{}: a line longer than {max_line} bytes", path.display());
        }
        if each(&line).is_break() {
            return Ok(());
        }
    }
}

/// The bytes of the regular file `path`, at most `max_bytes` of them.
///
/// # Errors
/// What [`open_regular`] refuses, a failed read, or a file longer than `max_bytes`.
pub fn read_regular(path: &Path, max_bytes: u64) -> anyhow::Result<Vec<u8>> {
    let file = open_regular(path).with_context(|| format!("cannot read {}", path.display()))?;
    let length = file.metadata().map(|m| m.len()).unwrap_or(0);
    if length > max_bytes {
        bail!(
            "{}: {length} bytes, more than the {max_bytes} expected at most",
            path.display()
        );
    }
    let mut bytes = Vec::with_capacity(length as usize);
    file.take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    if bytes.len() as u64 > max_bytes {
        bail!(
            "{}: more than the {max_bytes} bytes expected at most",
            path.display()
        );
    }
    Ok(bytes)
}

/// The text of the regular file `path`, at most `max_bytes` long.
///
/// # Errors
/// What [`read_regular`] refuses, or text that is not UTF-8.
pub fn read_regular_text(path: &Path, max_bytes: u64) -> anyhow::Result<String> {
    String::from_utf8(read_regular(path, max_bytes)?)
        .map_err(|e| anyhow::anyhow!("{}: not UTF-8 text ({e})", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_replaces_a_regular_file_only_where_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        write_atomically(&path, b"one", Existing::Refuse).unwrap();
        let refused = write_atomically(&path, b"two", Existing::Refuse).unwrap_err();
        assert!(refused.to_string().contains("--force"), "{refused}");
        assert_eq!(fs::read(&path).unwrap(), b"one");
        write_atomically(&path, b"two", Existing::Replace).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }

    /// Two writers of one file (two `ladder` runs, two threads) each leave a whole file: the
    /// one renamed last, never a mix or a half.
    #[test]
    fn concurrent_writes_of_one_file_never_mix() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ladder.json");
        let contents = [vec![b'a'; 1 << 16], vec![b'b'; 1 << 16]];
        std::thread::scope(|s| {
            for bytes in &contents {
                let path = &path;
                s.spawn(move || {
                    for _ in 0..100 {
                        write_atomically(path, bytes, Existing::Replace).unwrap();
                    }
                });
            }
            s.spawn(|| {
                for _ in 0..200 {
                    if let Ok(read) = fs::read(&path) {
                        assert!(contents.contains(&read), "a mixed or partial file");
                    }
                }
            });
        });
        assert!(contents.contains(&fs::read(&path).unwrap()));
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }

    #[test]
    fn a_fifo_is_never_replaced_nor_opened() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: mkfifo is not available");
            return;
        }
        let refused = write_atomically(&fifo, b"x", Existing::Replace).unwrap_err();
        assert!(
            refused.to_string().contains("not a regular file"),
            "{refused}"
        );
        assert!(!fs::symlink_metadata(&fifo).unwrap().is_file());
        // Reading one is refused at once.
        let read = read_regular(&fifo, 10).unwrap_err();
        assert!(
            format!("{read:#}").contains("not a regular file"),
            "{read:#}"
        );
    }

    #[test]
    fn a_missing_directory_and_a_directory_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let error = check_output(&dir.path().join("no/such/file"), Existing::Replace).unwrap_err();
        assert!(error.to_string().contains("does not exist"), "{error}");
        let error = check_output(dir.path(), Existing::Replace).unwrap_err();
        assert!(error.to_string().contains("is a directory"), "{error}");
    }

    #[test]
    fn a_read_past_its_limit_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        fs::write(&path, [0u8; 100]).unwrap();
        assert_eq!(read_regular(&path, 100).unwrap().len(), 100);
        assert!(read_regular(&path, 99).is_err());
    }
}
