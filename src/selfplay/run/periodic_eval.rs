//! The evaluation run inside training (paper section 8.5): the current network plays with
//! completed UBFM_s against a baseline — UCT with random playouts, or random moves — with the
//! same budget per move, half the games as P0 and half as P1, through the arena's matches.
//! Logged as the win rate minus the loss rate with its 95 % interval; in a one-player game, as
//! each side's mean score (each plays half the games alone).

use std::sync::Arc;

use crate::arena::agent::SharedEvaluator;
use crate::arena::match_play::{MatchRun, Openings, play_match_until};
use crate::arena::{AgentFactory, AgentSpec};
use crate::games::Game;
use crate::search::{Decision, MctsOptions, SearchSpec, TerminalEval, Variant};
use crate::selfplay::config::{EvalOpponent, EvaluationSettings, TrainSettings};
use crate::selfplay::run::run_clock::RunClock;
use crate::selfplay::run::stop_reason::StopReason;
use crate::selfplay::run::streams::{STREAM_EVAL, stream_rng};
use crate::selfplay::telemetry::eval_report::EvalReport;

/// The baseline agent of `settings`.
pub fn baseline_spec(settings: &EvaluationSettings) -> AgentSpec {
    match settings.opponent {
        EvalOpponent::Mcts => AgentSpec {
            text: format!("mcts:{}", budget_text(&settings.budget)),
            search: SearchSpec::Mcts {
                budget: settings.budget.clone(),
                options: MctsOptions::uct(),
            },
            model: None,
        },
        EvalOpponent::Random => "random".parse().expect("a valid spec"),
    }
}

pub fn budget_text(budget: &crate::search::Budget) -> String {
    let mut parts = Vec::new();
    if let Some(n) = budget.iterations {
        parts.push(format!("iters={n}"));
    }
    if let Some(t) = budget.time {
        parts.push(format!("time={}", crate::settings::DurationText(t)));
    }
    parts.join(",")
}

/// How an evaluation's match runs: its seed, its threads, and the instant after which it starts
/// no move (the evaluation at the run's end, inside `run.max_time`).
#[derive(Clone, Copy, Debug)]
pub struct EvalRun {
    pub seed: u64,
    pub threads: usize,
    pub deadline: Option<std::time::Instant>,
}

impl EvalRun {
    /// A session's evaluation after `games` games: periodic on one thread; the one at the run's
    /// end (`at_end`) on the run's threads, starting no move once `run.max_time` is reached.
    pub fn for_session(
        settings: &TrainSettings,
        games: u64,
        at_end: bool,
        clock: &RunClock,
    ) -> EvalRun {
        let mut rng = stream_rng(settings.seed, STREAM_EVAL, games);
        let deadline = settings.run.max_time.filter(|_| at_end).map(|max| {
            std::time::Instant::now()
                + std::time::Duration::from_secs_f64(clock.left_until(max.as_secs_f64()))
        });
        EvalRun {
            seed: rand::Rng::next_u64(&mut rng),
            threads: if at_end { settings.run.threads } else { 1 },
            deadline,
        }
    }
}

/// Plays `settings.games` games between the network (`net`, with completed UBFM_s) and the
/// baseline, both with `settings.budget` per move, on `threads` threads.
pub fn evaluate_against_baseline<G: Game>(
    initial: &G,
    net: SharedEvaluator<G>,
    settings: &EvaluationSettings,
    terminal_eval: TerminalEval,
    run: EvalRun,
) -> EvalReport {
    let player = SearchSpec::TreeSearch {
        budget: settings.budget.clone(),
        variant: Variant::Ubfm,
        completed: true,
        decision: Decision::Safest,
    };
    let text = format!("ubfms:model=<current>,{}", budget_text(&settings.budget));
    evaluate_player(initial, (text, player), net, settings, terminal_eval, run)
}

/// `evaluate_against_baseline` with the network searching with `player` (its spec text and
/// search; an AlphaZero run's network plays PUCT).
pub fn evaluate_player<G: Game>(
    initial: &G,
    (text, search): (String, SearchSpec),
    net: SharedEvaluator<G>,
    settings: &EvaluationSettings,
    terminal_eval: TerminalEval,
    EvalRun {
        seed,
        threads,
        deadline,
    }: EvalRun,
) -> EvalReport {
    let player = AgentFactory::with_evaluator(
        AgentSpec {
            text: text.clone(),
            search,
            model: None,
        },
        net,
        terminal_eval,
        "the run's current network".to_string(),
    );
    let baseline_spec = baseline_spec(settings);
    let baseline_text = baseline_spec.text.clone();
    let baseline = AgentFactory::with_evaluator(
        baseline_spec,
        Arc::new(crate::search::ConstantEvaluator::default()),
        TerminalEval::Classic,
        String::new(),
    );
    let report = play_match_until(
        (initial, Openings::default()),
        [&player, &baseline],
        settings.games,
        MatchRun::new(seed, threads).until(deadline),
        &|_| {},
    );
    let s = report.summary;
    EvalReport {
        player: text,
        baseline: baseline_text,
        games: s.games,
        games_asked: settings.games,
        seed,
        wins: s.wins,
        draws: s.draws,
        losses: s.losses,
        win_minus_loss: s.win_minus_loss,
        win_minus_loss_ci95: s.win_minus_loss_ci95,
        as_p0: report.as_p0,
        as_p1: report.as_p1,
        mean_score: report.scores.as_ref().map(|c| c.agent.mean),
        mean_score_ci95: report.scores.as_ref().map(|c| c.agent.ci95),
        best_score: report.scores.as_ref().map(|c| c.agent.best),
        baseline_mean_score: report.scores.as_ref().map(|c| c.opponent.mean),
    }
}

/// The evaluation by training time (`evaluation.first_after`): due once, when the run's
/// training time first reaches it (a run resumed past it has had it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FirstEvaluation(Option<f64>);

impl FirstEvaluation {
    /// For a session starting at `elapsed_at_start` seconds of training.
    pub fn new(settings: Option<EvaluationSettings>, elapsed_at_start: f64) -> Self {
        let at = settings
            .and_then(|e| e.first_after)
            .map(|t| t.as_secs_f64());
        FirstEvaluation(at.filter(|&at| at > elapsed_at_start))
    }

    /// Whether it is due at `elapsed` seconds of training; once due, never again.
    pub fn due(&mut self, elapsed: f64) -> bool {
        let due = self.0.is_some_and(|at| elapsed >= at);
        if due {
            self.0 = None;
        }
        due
    }
}

/// A session's last evaluation: the game count it was made at, and its report.
#[derive(Clone, Debug, Default)]
pub struct LastEvaluation(Option<(u64, EvalReport)>);

impl LastEvaluation {
    pub fn record(&mut self, games: u64, report: &EvalReport) {
        self.0 = Some((games, report.clone()));
    }

    /// The evaluation due at the run's end (`evaluation.at_end`) for a session that stopped by
    /// `stopped_by` after `session_games` games, `games` in all: when it played games and
    /// reached its limit (not after Ctrl-C: the user wants it to stop), unless its network was
    /// evaluated already.
    pub fn due_at_end(
        &self,
        settings: Option<EvaluationSettings>,
        stopped_by: StopReason,
        (session_games, games): (u64, u64),
    ) -> Option<EvaluationSettings> {
        let evaluated = self.0.as_ref().is_some_and(|(at, _)| *at == games);
        settings.filter(|e| {
            e.at_end && stopped_by != StopReason::Requested && session_games > 0 && !evaluated
        })
    }

    /// The report of the evaluation made after `games` games, if the last one was.
    pub fn strength(&self, games: u64) -> Option<EvalReport> {
        self.0
            .as_ref()
            .filter(|(at, _)| *at == games)
            .map(|(_, report)| report.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Budget;
    use std::time::Duration;

    fn settings(first_after: Option<u64>) -> EvaluationSettings {
        EvaluationSettings {
            every_games: 0,
            first_after: first_after.map(Duration::from_secs),
            at_end: true,
            games: 2,
            opponent: crate::selfplay::config::EvalOpponent::Random,
            budget: Budget::iterations(1),
        }
    }

    #[test]
    fn the_first_evaluation_is_due_once_when_training_time_reaches_it() {
        let mut first = FirstEvaluation::new(Some(settings(Some(120))), 0.0);
        assert!(!first.due(119.9));
        assert!(first.due(120.0));
        assert!(!first.due(500.0), "due twice");
        // A run resumed past it has had it; one resumed before it still gets it.
        assert!(!FirstEvaluation::new(Some(settings(Some(120))), 130.0).due(500.0));
        assert!(FirstEvaluation::new(Some(settings(Some(120))), 60.0).due(121.0));
        // None by time, or evaluations off.
        assert!(!FirstEvaluation::new(Some(settings(None)), 0.0).due(1e9));
        assert!(!FirstEvaluation::new(None, 0.0).due(1e9));
    }
}
