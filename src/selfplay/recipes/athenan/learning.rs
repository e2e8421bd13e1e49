//! A finished Athénan game learned: its learning pairs through one learning phase, the new
//! network published, the game logged — or the game dropped when the network it was played
//! with is more than `run.max_lag` versions old; a phase that diverged stops the run before
//! anything of it is published or checkpointed.

use std::time::Instant;

use super::{Athenan, AthenanSession};
use crate::games::Game;
use crate::selfplay::recipes::athenan::learnable_game::LearnableGame;
use crate::selfplay::recipes::athenan::learner::{GameToLearn, PhaseReport};
use crate::selfplay::telemetry::metrics::{DroppedGame, GameMetrics};
use crate::value::ValueNet;

impl<G: Game> Athenan<G> {
    /// Learns a finished game (or drops it when its network is too old), logs it, publishes
    /// the new version, and evaluates / checkpoints when due.
    pub(super) fn after_game(
        &mut self,
        session: &mut AthenanSession<'_, G>,
        mut finished: LearnableGame,
        publish: &mut dyn FnMut(ValueNet, u64) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        session.state.next_game_index = session.state.next_game_index.max(finished.index + 1);
        session.state.positions_evaluated += finished.search.evaluated_positions;
        if let Some(pending) = &self.pending {
            // Kept until a checkpoint holds the game, whatever happens to this process.
            if let Some(record) = finished.record.take() {
                pending.write(finished.index, &record)?;
            }
            session.state.games_taken.insert(finished.index);
        }
        let lag = session.state.games.saturating_sub(finished.net_version);
        if lag > session.settings.run.max_lag {
            return drop_game(session, &finished, lag);
        }
        let learn_start = Instant::now();
        let pairs = std::mem::take(&mut finished.pairs);
        let game = GameToLearn {
            progress: session.progress().now(),
            evaluated_positions: finished.search.evaluated_positions,
            games_learned: session.state.games,
        };
        let phase: PhaseReport = self.learner.learn_game::<G>(pairs, game);
        let net = self.learner.net_optimizer.inference_net();
        refuse_divergence(session, &phase, &net, &finished)?;
        session.state.games += 1;
        session.network_changed(|| net.clone())?;
        publish(net, session.state.games)?;
        let learn_seconds = learn_start.elapsed().as_secs_f64();
        session.state.time_split.search_seconds += finished.seconds;
        session.state.time_split.learn_seconds += learn_seconds;
        // A game started just before self-play stops runs its whole length: kept out too.
        session
            .end_reserve
            .unit_took(finished.seconds + learn_seconds, &session.clock);
        session.state.pairs_added += phase.pairs_added as u64;
        session.state.pairs_learned += phase.pairs_learned as u64;
        let line = self.game_metrics(session, &finished, &phase, learn_seconds, lag);
        session.metrics.write(&line)?;
        self.games_log
            .write(&finished.games_line(&session.initial, session.state.games))?;
        session.observer.on_game(&line);
        session.learned(self, session.state.games - 1)
    }

    /// The metrics line of the game just learned.
    fn game_metrics(
        &self,
        session: &AthenanSession<'_, G>,
        game: &LearnableGame,
        phase: &PhaseReport,
        learn_seconds: f64,
        lag: u64,
    ) -> GameMetrics {
        let search = game.search;
        let session_games = (session.state.games - session.games_at_start) as f64;
        let session_training_seconds = session.clock.session_seconds();
        GameMetrics {
            kind: "game",
            game: session.state.games,
            index: game.index,
            net_version: game.net_version,
            lag,
            games_dropped: session.state.games_dropped,
            plies: game.plies,
            result_p0: game.outcome.value_p0(),
            final_value_p0: game.final_value_p0,
            pairs_added: phase.pairs_added,
            pairs_learned: phase.pairs_learned,
            minibatches: phase.minibatches,
            loss: phase.mean_loss,
            learning_rate: phase.learning_rate,
            replay_pairs: self.learner.replay.len(),
            replay_games: self.learner.replay.num_games(),
            iterations: search.iterations,
            table_states: game.table_states,
            evaluated_positions: search.evaluated_positions,
            mean_eval_batch: search.mean_batch(),
            game_seconds: game.seconds,
            net_seconds: game.net_seconds,
            learn_seconds,
            states_per_second: game.table_states as f64 / game.seconds.max(1e-9),
            evaluations_per_second: search.evaluated_positions as f64 / game.seconds.max(1e-9),
            elapsed_seconds: session.elapsed(),
            games_per_hour: session_games * 3600.0 / session_training_seconds.max(1e-9),
            unix_time: crate::selfplay::telemetry::tensorboard::unix_time(),
        }
    }
}

/// Stops the run where a learning phase made the loss or a weight non-finite: nothing of it
/// is published or checkpointed, so the last checkpoint (and the workers' network) is the
/// last good one.
fn refuse_divergence<G: Game>(
    session: &AthenanSession<'_, G>,
    phase: &PhaseReport,
    net: &ValueNet,
    game: &LearnableGame,
) -> anyhow::Result<()> {
    let Some(what) = divergence(phase, net) else {
        return Ok(());
    };
    let kept = match &session.last_checkpoint {
        Some(path) => format!("{} holds the last good network", path.display()),
        None => "no checkpoint was written yet".into(),
    };
    anyhow::bail!(
        "the learning phase of game {} (number {}) diverged: {what}; the run stops without publishing or checkpointing it ({kept}). Lower optimizer.learning_rate, then resume",
        session.state.games + 1,
        game.index,
    )
}

/// Counts and logs a game not learned because its network is `lag` versions old.
fn drop_game<G: Game>(
    session: &mut AthenanSession<'_, G>,
    finished: &LearnableGame,
    lag: u64,
) -> anyhow::Result<()> {
    session.state.games_dropped += 1;
    tracing::debug!(
        "game {} dropped: played with network version {}, {lag} versions behind the learner",
        finished.index,
        finished.net_version
    );
    session.metrics.write(&DroppedGame {
        kind: "dropped",
        index: finished.index,
        net_version: finished.net_version,
        lag,
        learner_version: session.state.games,
        games_dropped: session.state.games_dropped,
    })
}

/// What is not finite after a learning phase — its mean loss, a weight — if anything.
fn divergence(phase: &PhaseReport, net: &ValueNet) -> Option<String> {
    let loss = phase.mean_loss.unwrap_or(0.0);
    match (loss.is_finite(), net.non_finite_parameter()) {
        (true, None) => None,
        (_, Some(weight)) => Some(format!("mean loss {loss}, a weight is {weight}")),
        (false, None) => Some(format!("mean loss {loss}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::module::{Module, ModuleMapper, Param};
    use burn::prelude::{Device, Tensor};

    use crate::search::TerminalEval;
    use crate::value::saved_net::NetManifest;

    /// One bias times NaN (the first one met).
    struct PoisonOne {
        done: bool,
    }

    impl ModuleMapper for PoisonOne {
        fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
            if self.done || D != 1 {
                return param;
            }
            self.done = true;
            param.map(|t| t.mul_scalar(f32::NAN))
        }
    }

    #[test]
    fn a_phase_with_a_non_finite_loss_or_weight_is_a_divergence() {
        let architecture = "resnet-b0c8-fc8".parse().unwrap();
        let net = ValueNet::new(&architecture, [3, 3, 3], true, &Device::flex());
        let finite = PhaseReport {
            mean_loss: Some(0.25),
            ..PhaseReport::default()
        };
        assert_eq!(divergence(&finite, &net), None);
        assert_eq!(divergence(&PhaseReport::default(), &net), None, "no step");
        let nan_loss = PhaseReport {
            mean_loss: Some(f64::NAN),
            ..finite
        };
        assert_eq!(
            divergence(&nan_loss, &net).as_deref(),
            Some("mean loss NaN")
        );
        let poisoned = net.map(&mut PoisonOne { done: false });
        let found = divergence(&finite, &poisoned).expect("a NaN weight");
        assert!(found.contains("a weight is NaN"), "{found}");
        // Nor is such a network ever written.
        let dir = tempfile::tempdir().unwrap();
        let manifest = NetManifest::new(
            "tic_tac_toe",
            &architecture,
            1,
            [3, 3, 3],
            TerminalEval::Classic,
        );
        let base = dir.path().join("net");
        let error = crate::value::saved_net::save_net(&poisoned, &manifest, &base).unwrap_err();
        assert!(error.to_string().contains("not written"), "{error}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
