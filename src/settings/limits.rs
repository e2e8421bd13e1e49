//! Upper limits on the sizes people write in configurations and on command lines. Each is far
//! beyond any useful value and far below what would exhaust memory or abort the process, so
//! that a typo (an extra three zeros) is refused with a message naming the key, before anything
//! is allocated or written.

use crate::settings::config_error::ConfigError;

/// Threads (self-play games at once, match threads, benchmark threads).
pub const MAX_THREADS: usize = 1024;
/// Games of one evaluation, match or tournament pairing.
pub const MAX_GAMES: u64 = 1_000_000;
/// Random terminal states of the pre-initialisation.
pub const MAX_PRETRAIN_STATES: usize = 10_000_000;
/// Positions in one minibatch or one benchmark batch.
pub const MAX_BATCH: usize = 1 << 20;
/// Parameters of a value network (800 MB of f32 weights, about 3 GB with Adam's state).
pub const MAX_NET_PARAMETERS: u64 = 200_000_000;

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
