//! The network in effect at each time mark of a run (every `checkpoint.every_time` of training,
//! and `run.max_time`): what an experiment's stage `k` evaluates, so that a recipe whose rounds
//! are long (ExIt's phases, AlphaZero's rounds) is judged on the network it had at the mark,
//! never on one finished after it.
//!
//! The run reports each change of its network (after a game's learning, after a round) with the
//! training time it happened at. When a mark has passed since the previous change, the network
//! in effect at the mark was the previous one: it is returned, to be kept (`nets/net-<games>`)
//! and logged as a `mark_net` line of metrics.jsonl with the time it was made (`made_at_seconds`).
//! A change that straddles a mark (a phase's retraining running across it) therefore never
//! counts for that mark.

use std::path::Path;

use crate::selfplay::run::checkpoint::mark_net_line;
use crate::selfplay::run::run_dir::{MetricsLog, RunDir};

/// A network and when it was made.
#[derive(Clone, Debug, PartialEq)]
pub struct StampedNet<N> {
    pub net: N,
    /// Games learned by it (its version).
    pub games: u64,
    /// Training time (seconds) at which it was made: the end of the learning that produced it.
    pub made_at_seconds: f64,
}

/// Watches a run's network changes for the marks that pass between them.
#[derive(Clone, Debug)]
pub struct MarkNets<N> {
    every: Option<f64>,
    end: Option<f64>,
    next: Option<f64>,
    current: StampedNet<N>,
}

impl<N: Clone> MarkNets<N> {
    /// Marks every `every` seconds of training and at `end` (either may be absent); `current`
    /// is the network now, `elapsed` seconds into the run's training.
    pub fn new(
        every: Option<f64>,
        end: Option<f64>,
        elapsed: f64,
        current: StampedNet<N>,
    ) -> MarkNets<N> {
        let mut marks = MarkNets {
            every: every.filter(|&e| e > 0.0),
            end,
            next: None,
            current,
        };
        marks.next = marks.first_mark_after(elapsed);
        marks
    }

    /// The first mark strictly after `elapsed`, if any.
    fn first_mark_after(&self, elapsed: f64) -> Option<f64> {
        let periodic = self
            .every
            .map(|every| ((elapsed / every).floor() + 1.0) * every);
        let end = self.end.filter(|&end| end > elapsed);
        match (periodic, end) {
            (Some(p), Some(e)) => Some(p.min(e)),
            (p, e) => p.or(e),
        }
    }

    /// The network changed to `new` at training time `new.made_at_seconds`. When one or more marks
    /// passed since the previous change, returns the previous network: the one in effect at
    /// them.
    pub fn changed(&mut self, new: StampedNet<N>) -> Option<StampedNet<N>> {
        let passed = self.next.is_some_and(|mark| new.made_at_seconds >= mark);
        if passed {
            self.next = self.first_mark_after(new.made_at_seconds);
        }
        let previous = std::mem::replace(&mut self.current, new);
        passed.then_some(previous)
    }

    /// The network now.
    pub fn current(&self) -> &StampedNet<N> {
        &self.current
    }

    /// The network changed to `made` (`changed`); when a mark passed, the network in effect at
    /// it is saved with `save` as the run's kept `nets/net-<games>` (unless kept already) and
    /// its `mark_net` line is logged.
    pub fn keep_at_marks(
        &mut self,
        made: StampedNet<N>,
        run_dir: &RunDir,
        metrics: &mut MetricsLog,
        save: impl FnOnce(&N, u64, &Path) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let Some(at_mark) = self.changed(made) else {
            return Ok(());
        };
        let base = run_dir.kept_net_base(at_mark.games)?;
        if !base.with_extension("json").exists() {
            save(&at_mark.net, at_mark.games, &base)?;
        }
        metrics.write(&mark_net_line(at_mark.games, at_mark.made_at_seconds))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(games: u64, made_at_seconds: f64) -> StampedNet<u64> {
        StampedNet {
            net: games,
            games,
            made_at_seconds,
        }
    }

    /// Marks every 10 s and at 25 s: each one passed returns the network made before it; a
    /// change that straddles a mark does not count for it; two marks passed in one change
    /// return the previous network once.
    #[test]
    fn the_network_in_effect_at_each_mark_is_the_one_before_the_change_that_passed_it() {
        let mut marks = MarkNets::new(Some(10.0), Some(25.0), 0.0, net(0, 0.0));
        assert_eq!(marks.changed(net(1, 4.0)), None);
        assert_eq!(marks.changed(net(2, 9.9)), None);
        // The learning of game 3 ended after the mark at 10 s: game 2's network was in effect.
        assert_eq!(marks.changed(net(3, 10.2)), Some(net(2, 9.9)));
        assert_eq!(marks.changed(net(4, 19.0)), None);
        // One change across the marks at 20 s and 25 s (the run's end).
        assert_eq!(marks.changed(net(5, 31.0)), Some(net(4, 19.0)));
        assert_eq!(marks.changed(net(6, 39.0)), None);
        assert_eq!(marks.changed(net(7, 40.0)), Some(net(6, 39.0)));
        assert_eq!(marks.current(), &net(7, 40.0));
    }

    /// A resumed run starts after the marks already passed; without marks nothing is returned.
    #[test]
    fn a_resume_starts_from_the_next_mark_and_no_marks_return_nothing() {
        let mut marks = MarkNets::new(Some(10.0), None, 12.0, net(3, 11.0));
        assert_eq!(marks.changed(net(4, 15.0)), None);
        assert_eq!(marks.changed(net(5, 21.0)), Some(net(4, 15.0)));
        let mut none = MarkNets::new(None, None, 0.0, net(0, 0.0));
        assert_eq!(none.changed(net(1, 1e9)), None);
    }
}
