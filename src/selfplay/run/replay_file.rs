//! The replay buffer in a checkpoint: bincode, compressed with zstd (level 1) as it is encoded —
//! the one-hot planes of the encodings compress ~15× (Awale after 20 minutes: 0.92 GB → 64 MB),
//! in about a second per gigabyte. Checkpoints written before compression (`replay.bin`, plain
//! bincode) still load.

use std::io::{BufReader, Read};
use std::path::Path;

use anyhow::{Context, bail};

use crate::learn::ReplayBuffer;
use crate::settings::files::{Existing, open_regular, write_atomically};

/// The compressed replay file of a checkpoint.
pub const REPLAY_FILE: &str = "replay.bin.zst";
/// The uncompressed one of older checkpoints.
const PLAIN_REPLAY_FILE: &str = "replay.bin";
const LEVEL: i32 = 1;

/// Writes `replay` into the checkpoint directory `dir` (atomically), with zstd's content
/// checksum.
///
/// # Errors
/// A failed write.
pub fn write_replay(dir: &Path, replay: &ReplayBuffer) -> anyhow::Result<()> {
    let mut encoder = zstd::Encoder::new(Vec::new(), LEVEL)?;
    encoder.include_checksum(true)?;
    bincode::serde::encode_into_std_write(replay, &mut encoder, bincode::config::standard())
        .context("cannot serialise the replay buffer")?;
    write_atomically(
        &dir.join(REPLAY_FILE),
        &encoder.finish()?,
        Existing::Replace,
    )
}

/// Reads the replay buffer of the checkpoint directory `dir`; returns it with the path read.
/// The compressed file is read to its end (so that zstd checks its checksum), and the buffer
/// must be consistent: a damaged file is an error naming it, never a panic later.
///
/// # Errors
/// A missing, damaged or inconsistent replay file.
pub fn read_replay(dir: &Path) -> anyhow::Result<(ReplayBuffer, std::path::PathBuf)> {
    let (replay, path) = decode_replay(dir)?;
    if let Err(problem) = replay.check_consistent() {
        bail!("{} is corrupt: {problem}", path.display());
    }
    Ok((replay, path))
}

fn decode_replay(dir: &Path) -> anyhow::Result<(ReplayBuffer, std::path::PathBuf)> {
    let compressed = dir.join(REPLAY_FILE);
    let plain = dir.join(PLAIN_REPLAY_FILE);
    let config = bincode::config::standard();
    let not_replay = |path: &Path| format!("{} is not a replay buffer", path.display());
    if compressed.exists() {
        let file = open_regular(&compressed)
            .with_context(|| format!("cannot read {}", compressed.display()))?;
        let mut decoder = zstd::Decoder::new(file).with_context(|| not_replay(&compressed))?;
        let replay: ReplayBuffer = bincode::serde::decode_from_std_read(&mut decoder, config)
            .with_context(|| not_replay(&compressed))?;
        // Read on to the frame's end, where zstd checks its checksum: one byte more than the
        // buffer is already damage (nothing after it is decompressed or held).
        let mut rest = [0u8; 1];
        let after = decoder
            .read(&mut rest)
            .with_context(|| format!("{} is corrupt", compressed.display()))?;
        if after > 0 {
            bail!(
                "{} is corrupt: bytes after the replay buffer",
                compressed.display()
            );
        }
        Ok((replay, compressed))
    } else {
        let file = open_regular(&plain)
            .with_context(|| format!("cannot read {}", compressed.display()))?;
        let replay: ReplayBuffer =
            bincode::serde::decode_from_std_read(&mut BufReader::new(file), config)
                .with_context(|| not_replay(&plain))?;
        Ok((replay, plain))
    }
}
