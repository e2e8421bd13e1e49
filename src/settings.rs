//! Below every layer: what a user writes (YAML files, spec strings, command lines) and every
//! layer parses some of — `ConfigError`, the one error type of those settings; the limits on the
//! sizes they give, refused with the key named before anything is allocated; durations as
//! people write them (`90s`, `1h30m`); how every file is read and written (regular files only,
//! atomic writes that replace nothing without consent).

pub mod config_error;
pub mod duration_text;
pub mod files;
pub mod key_values;
pub mod limits;

pub use config_error::ConfigError;
pub use duration_text::DurationText;
