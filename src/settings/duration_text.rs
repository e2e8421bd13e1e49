//! Durations as people write them in configs and on the command line: `90s`, `20m`, `1h30m`,
//! `250ms`, `1.5h`. The unit is required: a bare `50` is refused ("add a unit: 50ms, 50s or 50m"),
//! as `time=50` silently meaning 50 seconds a move surprised users who meant milliseconds. At
//! most [`MAX_DURATION`] (100 years): longer texts are refused with a message instead of
//! overflowing.

use std::fmt;
use std::str::FromStr;

use crate::settings::config_error::ConfigError;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A duration parsed from text; displays back in the same notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct DurationText(pub Duration);

const EXPECTED: &str = "a duration such as 90s, 20m, 1h30m or 250ms, at most 36500d";

/// The longest duration accepted anywhere (100 years of 365 days): far beyond any run, and far
/// from the limits of `Duration` and `Instant` arithmetic.
pub const MAX_DURATION: Duration = Duration::from_secs(100 * 365 * 86400);

impl FromStr for DurationText {
    type Err = ConfigError;

    fn from_str(text: &str) -> Result<Self, ConfigError> {
        let bad = || ConfigError::new("bad duration", format!("{text:?}: expected {EXPECTED}"));
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(bad());
        }
        if trimmed.chars().all(|c| c.is_ascii_digit() || c == '.') {
            return Err(unit_missing(trimmed));
        }
        let mut total = 0.0f64;
        let mut rest = trimmed;
        while !rest.is_empty() {
            let number_end = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .ok_or_else(bad)?;
            if number_end == 0 {
                return Err(bad());
            }
            let number: f64 = rest[..number_end].parse().map_err(|_| bad())?;
            rest = &rest[number_end..];
            let unit_end = rest
                .find(|c: char| c.is_ascii_digit() || c == '.')
                .unwrap_or(rest.len());
            let scale = match &rest[..unit_end] {
                "ms" => 1e-3,
                "s" => 1.0,
                "m" | "min" => 60.0,
                "h" => 3600.0,
                "d" => 86400.0,
                _ => return Err(bad()),
            };
            total += number * scale;
            rest = &rest[unit_end..];
        }
        seconds_to_duration(total).map(DurationText).ok_or_else(bad)
    }
}

/// The error of a number written without its unit.
fn unit_missing(number: &str) -> ConfigError {
    ConfigError::new(
        "bad duration",
        format!("{number:?} has no unit: add a unit: {number}ms, {number}s or {number}m"),
    )
}

/// `seconds` as a `Duration`, if it is a number in [0, MAX_DURATION].
pub fn seconds_to_duration(seconds: f64) -> Option<Duration> {
    (seconds.is_finite() && seconds >= 0.0 && seconds <= MAX_DURATION.as_secs_f64())
        .then(|| Duration::from_secs_f64(seconds))
}

impl fmt::Display for DurationText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0.as_millis();
        if !ms.is_multiple_of(1000) || ms == 0 {
            return write!(f, "{ms}ms");
        }
        let mut seconds = ms / 1000;
        let hours = seconds / 3600;
        seconds %= 3600;
        let minutes = seconds / 60;
        seconds %= 60;
        if hours > 0 {
            write!(f, "{hours}h")?;
        }
        if minutes > 0 {
            write!(f, "{minutes}m")?;
        }
        if seconds > 0 {
            write!(f, "{seconds}s")?;
        }
        Ok(())
    }
}

impl Serialize for DurationText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for DurationText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = DurationText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<DurationText, E> {
                v.parse().map_err(E::custom)
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<DurationText, E> {
                Err(E::custom(unit_missing(&v.to_string())))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<DurationText, E> {
                Err(E::custom(unit_missing(&v.to_string())))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<DurationText, E> {
                Err(E::custom(unit_missing(&v.to_string())))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        let d = |t: &str| t.parse::<DurationText>().map(|d| d.0);
        assert_eq!(d("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(d("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(d("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(d("1.5h"), Ok(Duration::from_secs(5400)));
        assert_eq!(d("0ms"), Ok(Duration::ZERO));
        for bad in [
            "",
            "h",
            "10 parsecs",
            "-3s",
            "1x",
            "m5",
            "99999999999999999999d",
            "1e300",
            "36501d",
            "inf",
            "NaN",
            "1e20",
        ] {
            assert!(
                d(bad)
                    .unwrap_err()
                    .to_string()
                    .contains("expected a duration"),
                "{bad}"
            );
        }
        assert_eq!(d("36500d"), Ok(MAX_DURATION));
        for bare in ["50", "2", "0.5", " 12 "] {
            let message = d(bare).unwrap_err().to_string();
            let number = bare.trim();
            assert!(
                message.contains(&format!("add a unit: {number}ms, {number}s or {number}m")),
                "{bare}: {message}"
            );
        }
        assert_eq!(DurationText(Duration::from_secs(5400)).to_string(), "1h30m");
        assert_eq!(
            DurationText(Duration::from_millis(1500)).to_string(),
            "1500ms"
        );
        assert_eq!(
            DurationText(Duration::from_secs(20 * 60)).to_string(),
            "20m"
        );
    }
}
