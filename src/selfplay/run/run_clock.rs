//! `RunClock`: a run's training time — wall time, resumes included, without the periodic
//! evaluations — read by the learner and, in `parallel` mode, by the player threads.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Training time shared by the learner and the players.
pub struct RunClock {
    /// Training time of the sessions before this one.
    before_seconds: f64,
    started: Instant,
    /// Wall time of this session's evaluations (not training time), in nanoseconds.
    paused_nanos: AtomicU64,
    /// Training time kept at the run's end for its last evaluation (`end_reserve`), in
    /// nanoseconds: self-play stops that long before `run.max_time`.
    end_reserve_nanos: AtomicU64,
}

impl RunClock {
    /// A clock started now, `before_seconds` into the run.
    pub fn start(before_seconds: f64) -> RunClock {
        RunClock {
            before_seconds,
            started: Instant::now(),
            paused_nanos: AtomicU64::new(0),
            end_reserve_nanos: AtomicU64::new(0),
        }
    }

    /// Training time of this session.
    pub fn session_seconds(&self) -> f64 {
        let paused = self.paused_nanos.load(Ordering::Relaxed) as f64 * 1e-9;
        (self.started.elapsed().as_secs_f64() - paused).max(0.0)
    }

    /// Training time of the run, resumes included.
    pub fn elapsed(&self) -> f64 {
        self.before_seconds + self.session_seconds()
    }

    /// Wall time of this session's evaluations.
    pub fn paused_seconds(&self) -> f64 {
        self.paused_nanos.load(Ordering::Relaxed) as f64 * 1e-9
    }

    /// Keeps `seconds` of training time at the run's end for its last evaluation.
    pub fn set_end_reserve(&self, seconds: f64) {
        self.end_reserve_nanos
            .store((seconds.max(0.0) * 1e9) as u64, Ordering::Relaxed);
    }

    /// Whether self-play must stop for a run of `max_time` seconds: its training time and the
    /// time kept for the evaluation at its end reach it.
    pub fn self_play_time_is_up(&self, max_time: f64) -> bool {
        let reserve = self.end_reserve_nanos.load(Ordering::Relaxed) as f64 * 1e-9;
        self.elapsed() + reserve >= max_time
    }

    /// Training time left until `max_time` (0 once past it).
    pub fn left_until(&self, max_time: f64) -> f64 {
        (max_time - self.elapsed()).max(0.0)
    }

    /// Takes `seconds` of wall time out of the training time (an evaluation's).
    pub fn pause_for(&self, seconds: f64) {
        self.paused_nanos
            .fetch_add((seconds * 1e9) as u64, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluations_are_not_training_time() {
        let clock = RunClock::start(100.0);
        std::thread::sleep(std::time::Duration::from_millis(30));
        let before = clock.elapsed();
        assert!(before >= 100.03, "{before}");
        clock.pause_for(0.02);
        let after = clock.elapsed();
        assert!(
            after < before,
            "{after} after a pause of 20 ms, {before} before"
        );
        assert!(after >= 100.0);
        assert!((clock.paused_seconds() - 0.02).abs() < 1e-6);
        clock.pause_for(10.0);
        assert_eq!(clock.session_seconds(), 0.0, "never negative");
    }

    #[test]
    fn self_play_stops_the_reserve_before_the_limit() {
        let clock = RunClock::start(100.0);
        assert!(!clock.self_play_time_is_up(110.0));
        clock.set_end_reserve(9.5);
        assert!(!clock.self_play_time_is_up(110.0));
        clock.set_end_reserve(10.0);
        assert!(clock.self_play_time_is_up(110.0));
        assert!(clock.left_until(110.0) <= 10.0 && clock.left_until(110.0) > 9.0);
        assert_eq!(clock.left_until(50.0), 0.0);
    }
}
