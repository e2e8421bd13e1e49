//! Upper limits on the sizes people write in configurations and on command lines. Each is far
//! beyond any useful value and far below what would exhaust memory or abort the process, so
//! that a typo (an extra three zeros) is refused with a message naming the key, before anything
//! is allocated or written.

use crate::settings::config_error::ConfigError;

/// Threads (self-play games at once, match threads, benchmark threads).
pub const MAX_THREADS: usize = 1024;
/// Games of one evaluation, match or tournament pairing.
pub const MAX_GAMES: u64 = 1_000_000;
/// Repetitions of each variant of an experiment.
pub const MAX_REPEATS: u32 = 1000;
/// Variants of one experiment.
pub const MAX_VARIANTS: usize = 100;
/// Evaluation stages of one experiment (`train_time` ÷ `stage_every`).
pub const MAX_STAGES: usize = 10_000;
/// Random terminal states of the pre-initialisation.
pub const MAX_PRETRAIN_STATES: usize = 10_000_000;
/// Positions in one minibatch or one benchmark batch.
pub const MAX_BATCH: usize = 1 << 20;
/// Parameters of a value network (800 MB of f32 weights, about 3 GB with Adam's state).
pub const MAX_NET_PARAMETERS: u64 = 200_000_000;
/// Bytes of one network file (weights, or an export): twice what `MAX_NET_PARAMETERS` f32
/// weights take, room for a policy head and the format's own bytes.
pub const MAX_NET_FILE_BYTES: u64 = 8 * MAX_NET_PARAMETERS;
/// Bytes of a network manifest or another small JSON or YAML file (a few kilobytes in use): a
/// configuration, an experiment file, a checkpoint's `state.json`.
pub const MAX_SMALL_FILE_BYTES: u64 = 1 << 20;
/// Bytes of one line of a run's logs (`metrics.jsonl`, `games.jsonl`; a few hundred in use).
pub const MAX_LOG_LINE_BYTES: u64 = 16 << 20;
/// Bytes of a whole run log read at once (the metrics log rebuilt into TensorBoard's file).
pub const MAX_LOG_FILE_BYTES: u64 = 1 << 30;

/// `Err` naming `key` when `value` is above `max`.
///
/// # Errors
/// `value > max`.
pub fn at_most<T: PartialOrd + std::fmt::Display>(
    key: &str,
    value: T,
    max: T,
) -> Result<T, ConfigError> {
    if value > max {
        Err(ConfigError::new(
            key,
            format!("{value} is more than the limit of {max}"),
        ))
    } else {
        Ok(value)
    }
}
