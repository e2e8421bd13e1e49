//! SHA-256 checksums of the files descent writes, so that a corrupted file (a flipped bit, a
//! truncated copy) is a clear error naming it instead of a network or a replay buffer silently
//! wrong. A directory's checksums are kept in `checksums.sha256`, in the format of coreutils'
//! `sha256sum` (`<hex>  <file name>` per line), so that `sha256sum -c checksums.sha256` in the
//! directory checks them too.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::Path;

use anyhow::{Context, bail};
use sha2::{Digest, Sha256};

use crate::settings::files::{Existing, write_atomically};

/// The checksum file of a directory.
pub const CHECKSUM_FILE: &str = "checksums.sha256";

/// The SHA-256 of `bytes`, as 64 lower-case hexadecimal digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The SHA-256 of the whole file at `path`, read in blocks.
///
/// # Errors
/// The file cannot be read.
pub fn sha256_file(path: &Path) -> anyhow::Result<String> {
    let mut file = crate::settings::files::open_regular(path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut block = vec![0u8; 1 << 20];
    loop {
        let read = file
            .read(&mut block)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if read == 0 {
            break;
        }
        hasher.update(&block[..read]);
    }
    Ok(hex(&hasher.finalize()))
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Checks that `found` (the checksum of `path`) is `recorded` (as `recorded_in` records it).
///
/// # Errors
/// The digest differs from the expected one.
pub fn check_digest(
    path: &Path,
    found: &str,
    recorded: &str,
    recorded_in: &Path,
) -> anyhow::Result<()> {
    if found != recorded {
        bail!(
            "{} is corrupt: its SHA-256 is {found}, but {} records {recorded}",
            path.display(),
            recorded_in.display()
        );
    }
    Ok(())
}

/// Writes `dir/checksums.sha256` with the checksum of every regular file in `dir` (itself
/// excepted). Call it once the directory's other files are written.
///
/// # Errors
/// A file that cannot be read or written.
pub fn write_checksum_file(dir: &Path) -> anyhow::Result<()> {
    let mut text = String::new();
    for (name, path) in files_of(dir)? {
        text.push_str(&format!("{}  {name}\n", sha256_file(&path)?));
    }
    write_atomically(&dir.join(CHECKSUM_FILE), text.as_bytes(), Existing::Replace)
}

/// The regular files of `dir` by name, the checksum file and temporary files excepted.
fn files_of(dir: &Path) -> anyhow::Result<BTreeMap<String, std::path::PathBuf>> {
    let mut files = BTreeMap::new();
    for entry in fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type()?.is_file() && name != CHECKSUM_FILE && !name.ends_with(".tmp") {
            files.insert(name, entry.path());
        }
    }
    Ok(files)
}

/// The checksums `dir/checksums.sha256` records, by file name; `None` without the file.
///
/// # Errors
/// A malformed checksum file.
pub fn read_checksum_file(dir: &Path) -> anyhow::Result<Option<BTreeMap<String, String>>> {
    let path = dir.join(CHECKSUM_FILE);
    if !path.exists() {
        return Ok(None);
    }
    let text =
        crate::settings::files::read_regular(&path, crate::settings::limits::MAX_SMALL_FILE_BYTES)?;
    let bad = || {
        anyhow::anyhow!(
            "{} is corrupt: not a list of SHA-256 checksums",
            path.display()
        )
    };
    let text = String::from_utf8(text).map_err(|_| bad())?;
    let mut sums = BTreeMap::new();
    for line in text.lines() {
        let (digest, name) = line.split_once("  ").ok_or_else(bad)?;
        if digest.len() != 64 || !digest.bytes().all(|b| b.is_ascii_hexdigit()) || name.is_empty() {
            return Err(bad());
        }
        sums.insert(name.to_string(), digest.to_string());
    }
    Ok(Some(sums))
}

/// Checks every file `dir/checksums.sha256` lists, and that each of `required` is listed.
/// Returns false (nothing checked) for a directory written before checksums existed.
///
/// # Errors
/// A missing file, or one whose digest differs.
pub fn verify_checksum_file(dir: &Path, required: &[&str]) -> anyhow::Result<bool> {
    let Some(sums) = read_checksum_file(dir)? else {
        return Ok(false);
    };
    let list = dir.join(CHECKSUM_FILE);
    for name in required {
        if !sums.contains_key(*name) {
            bail!("{} is corrupt: it does not list {name}", list.display());
        }
    }
    for (name, recorded) in &sums {
        let path = dir.join(name);
        if !path.is_file() {
            bail!(
                "{} is {} ({} lists it as a file)",
                path.display(),
                crate::settings::files::kind_of(&path),
                list.display()
            );
        }
        check_digest(&path, &sha256_file(&path)?, recorded, &list)?;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        // FIPS 180-2 test vectors.
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn a_flipped_bit_a_missing_file_and_an_unlisted_one_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a.bin"), vec![7u8; 3_000_000]).unwrap();
        fs::write(root.join("b.json"), b"{}").unwrap();
        assert!(!verify_checksum_file(root, &["a.bin"]).unwrap());
        write_checksum_file(root).unwrap();
        assert!(verify_checksum_file(root, &["a.bin", "b.json"]).unwrap());
        let listed = read_checksum_file(root).unwrap().unwrap();
        assert_eq!(listed["b.json"], sha256_hex(b"{}"));
        // sha256sum's format: two spaces between the digest and the name.
        let text = fs::read_to_string(root.join(CHECKSUM_FILE)).unwrap();
        assert!(
            text.lines().all(|l| l.len() > 66 && &l[64..66] == "  "),
            "{text}"
        );

        let mut bytes = fs::read(root.join("a.bin")).unwrap();
        bytes[2_500_000] ^= 0x10;
        fs::write(root.join("a.bin"), &bytes).unwrap();
        let message = verify_checksum_file(root, &[]).unwrap_err().to_string();
        assert!(message.contains("a.bin is corrupt"), "{message}");

        let message = verify_checksum_file(root, &["c.bpk"])
            .unwrap_err()
            .to_string();
        assert!(message.contains("does not list c.bpk"), "{message}");
        fs::remove_file(root.join("b.json")).unwrap();
        write_checksum_file(root).unwrap();
        fs::write(
            root.join(CHECKSUM_FILE),
            format!("{}  b.json\n", sha256_hex(b"{}")),
        )
        .unwrap();
        let message = verify_checksum_file(root, &[]).unwrap_err().to_string();
        assert!(message.contains("b.json is missing"), "{message}");
    }
}
