//! Progress of a long command (`eval`, `tournament`, `ladder`, `experiment`'s evaluation,
//! `accuracy`): a bar on stderr where stderr is a terminal; where it is not (a script, `nohup`,
//! SLURM, a pipe), a plain line at intervals — one line each, no carriage return, as cargo and
//! pip write into logs. `--quiet` silences both.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The environment variable that sets the seconds between plain progress lines.
pub const PROGRESS_SECONDS_VAR: &str = "DESCENT_PROGRESS_SECONDS";
/// Seconds between plain progress lines unless [`PROGRESS_SECONDS_VAR`] says otherwise.
const DEFAULT_PROGRESS_SECONDS: f64 = 30.0;
/// The longest interval accepted (a day).
const MAX_PROGRESS_SECONDS: f64 = 86_400.0;

/// The interval between plain progress lines: [`PROGRESS_SECONDS_VAR`] (0 = every step) or 30 s;
/// a value that is not a number of seconds from 0 to a day is named in a warning and the
/// default used.
pub fn plain_interval() -> Duration {
    let Ok(text) = std::env::var(PROGRESS_SECONDS_VAR) else {
        return Duration::from_secs_f64(DEFAULT_PROGRESS_SECONDS);
    };
    match text.trim().parse::<f64>() {
        Ok(seconds) if (0.0..=MAX_PROGRESS_SECONDS).contains(&seconds) => {
            Duration::from_secs_f64(seconds)
        }
        _ => {
            tracing::warn!(
                "{PROGRESS_SECONDS_VAR}={text:?} is not a number of seconds from 0 to {MAX_PROGRESS_SECONDS}: progress every {DEFAULT_PROGRESS_SECONDS} s"
            );
            Duration::from_secs_f64(DEFAULT_PROGRESS_SECONDS)
        }
    }
}

/// Whether progress goes to a terminal (a bar) rather than into a log (plain lines).
pub fn stderr_is_terminal() -> bool {
    std::io::IsTerminal::is_terminal(&std::io::stderr())
}

/// When a plain progress line is due: at the first step, then once an interval at most.
pub struct PlainTimer {
    every: Duration,
    last: Option<Instant>,
}

impl PlainTimer {
    /// A timer for a log (`None` where stderr is a terminal, or with `quiet`).
    pub fn for_log(quiet: bool) -> Option<PlainTimer> {
        (!quiet && !stderr_is_terminal()).then(|| PlainTimer {
            every: plain_interval(),
            last: None,
        })
    }

    /// Whether a line is due at `now`; if so, the next waits an interval from `now`.
    pub fn due(&mut self, now: Instant) -> bool {
        if self.last.is_some_and(|last| now - last < self.every) {
            return false;
        }
        self.last = Some(now);
        true
    }
}

/// A progress over `len` things counted in `unit`.
pub struct Progress {
    bar: ProgressBar,
    plain: Option<Mutex<PlainLines>>,
}

/// The state of the plain lines.
struct PlainLines {
    unit: String,
    timer: PlainTimer,
    started: Instant,
    message: String,
}

impl Progress {
    /// A bar on a terminal, plain lines elsewhere, nothing with `quiet`.
    pub fn new(len: u64, unit: &str, quiet: bool) -> Progress {
        let terminal = stderr_is_terminal();
        let bar = ProgressBar::with_draw_target(
            Some(len),
            if quiet || !terminal {
                ProgressDrawTarget::hidden()
            } else {
                ProgressDrawTarget::stderr()
            },
        );
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "{{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} {unit}, ~{{eta}} left  {{msg}}"
            ))
            .expect("a valid template")
            .progress_chars("=> "),
        );
        let plain = PlainTimer::for_log(quiet).map(|timer| {
            Mutex::new(PlainLines {
                unit: unit.to_string(),
                timer,
                started: Instant::now(),
                message: String::new(),
            })
        });
        Progress { bar, plain }
    }

    pub fn inc(&self, delta: u64) {
        self.bar.inc(delta);
        self.report();
    }

    pub fn set_position(&self, position: u64) {
        self.bar.set_position(position);
        self.report();
    }

    /// The text after the counts (a running W/D/L); shown with the next step.
    pub fn set_message(&self, message: String) {
        if let Some(plain) = &self.plain {
            plain.lock().unwrap_or_else(|e| e.into_inner()).message = message.clone();
        }
        self.bar.set_message(message);
    }

    pub fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
    }

    /// A plain line if one is due: the first step, then one an interval at most.
    fn report(&self) {
        let Some(plain) = &self.plain else { return };
        let mut plain = plain.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if !plain.timer.due(now) {
            return;
        }
        let (done, len) = (self.bar.position(), self.bar.length().unwrap_or(0));
        eprintln!("{}", plain.line(done, len, now));
    }
}

impl PlainLines {
    /// "12/40 games (30 %), 1:02 elapsed, ~2:25 left  agent W/D/L 5/2/5".
    fn line(&self, done: u64, len: u64, now: Instant) -> String {
        let elapsed = (now - self.started).as_secs_f64();
        let percent = (100 * done).checked_div(len).unwrap_or(0);
        let left = if done > 0 {
            clock(elapsed * (len.saturating_sub(done)) as f64 / done as f64)
        } else {
            "?".to_string()
        };
        let mut line = format!(
            "{done}/{len} {} ({percent} %), {} elapsed, ~{left} left",
            self.unit,
            clock(elapsed)
        );
        if !self.message.is_empty() {
            line += "  ";
            line += &self.message;
        }
        line
    }
}

/// "1:02", "1:00:05".
pub fn clock(seconds: f64) -> String {
    let s = seconds.max(0.0) as u64;
    match s / 3600 {
        0 => format!("{}:{:02}", s / 60, s % 60),
        h => format!("{h}:{:02}:{:02}", s / 60 % 60, s % 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_line_gives_the_counts_the_times_and_the_message() {
        let started = Instant::now();
        let lines = PlainLines {
            unit: "games".into(),
            timer: PlainTimer {
                every: Duration::ZERO,
                last: None,
            },
            started,
            message: "agent W/D/L 5/2/5".into(),
        };
        assert_eq!(
            lines.line(12, 40, started + Duration::from_secs(62)),
            "12/40 games (30 %), 1:02 elapsed, ~2:24 left  agent W/D/L 5/2/5"
        );
        assert_eq!(
            lines.line(0, 40, started),
            "0/40 games (0 %), 0:00 elapsed, ~? left  agent W/D/L 5/2/5"
        );
        assert_eq!(clock(3605.0), "1:00:05");
    }
}
