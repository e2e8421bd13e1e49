//! The checks every section of a run's YAML makes: a key refused with its message, a size
//! above its limit.

use std::fmt;

use crate::settings::config_error::ConfigError;
use crate::settings::limits::at_most;

/// The error of `key`.
pub(crate) fn error(key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::new(key, message)
}

/// `Ok` when `ok`, else the error of `key` with `message`.
pub(crate) fn check(ok: bool, key: &str, message: &str) -> Result<(), ConfigError> {
    if ok { Ok(()) } else { Err(error(key, message)) }
}

/// Refuses `value` above `max` (sizes that would exhaust memory: see `settings::limits`).
pub(crate) fn limit<T: PartialOrd + fmt::Display>(
    key: &str,
    value: T,
    max: T,
) -> Result<(), ConfigError> {
    at_most(key, value, max).map(|_| ())
}
