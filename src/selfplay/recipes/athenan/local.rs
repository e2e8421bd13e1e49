//! An Athénan run's players as threads of this process (`sequential` and `parallel`), and the
//! finished games of a `parallel` run that no checkpoint holds yet (`pending/`), learned first
//! on resume.

use std::sync::Arc;
use std::time::Duration;

use super::{Athenan, AthenanSession};
use crate::games::Game;
use crate::selfplay::config::RunMode;
use crate::selfplay::recipes::athenan::game_pool::{GameSink, Limits, Players, play_games};
use crate::selfplay::recipes::athenan::game_record::{GameRecord, RecordCheck, RecordOrigin};
use crate::selfplay::recipes::athenan::learnable_game::LearnableGame;
use crate::selfplay::recipes::athenan::pending_games::PendingGames;
use crate::selfplay::recipes::athenan::self_play::SelfPlaySettings;
use crate::selfplay::run::run_progress::RunProgress;
use crate::selfplay::run::stop_reason::StopReason;
use crate::value::BatchingEvaluator;

impl<G: Game> Athenan<G> {
    /// `sequential` and `parallel`: plays and learns until the run's limit.
    pub(super) fn run_local(
        &mut self,
        session: &mut AthenanSession<'_, G>,
    ) -> anyhow::Result<StopReason> {
        let settings = session.settings;
        let (threads, games_per_thread) = (settings.run.threads, settings.run.games_per_thread);
        // Requests merged across threads wait at most half a millisecond for the others (with
        // games in flight, a thread's request holds all its games' positions).
        let max_batch = BatchingEvaluator::<G>::players_max_batch(
            threads,
            games_per_thread,
            session.device.direct_inference,
        );
        let shared = BatchingEvaluator::<G>::with_version(
            self.learner.net_optimizer.inference_net(),
            session.state.games,
            &session.device,
            max_batch,
            Duration::from_micros(500),
        )
        .chunked_for(threads);
        let player_settings = SelfPlaySettings::of(&self.settings, self.terminal_eval);
        self.learn_pending_games(session, &shared)?;
        let parallel = settings.run.mode == RunMode::Parallel;
        let record_origin = parallel.then(|| RecordOrigin {
            game: session.manifest.game.clone(),
            config_hash: settings.config.learned_hash(),
            worker: "local".into(),
        });
        let initial = session.initial.clone();
        let players = Players {
            record_origin,
            initial: &initial,
            settings: &player_settings,
            seed: settings.seed,
            threads,
            games_per_thread,
            shared: &shared,
            first_index: session.state.next_game_index(),
        };
        // The session's clock, which the players read in `parallel` mode.
        let clock = Arc::clone(&session.clock);
        let limits = Limits {
            max_games: settings.run.max_games,
            max_time: settings.run.max_time.map(|max| max.as_secs_f64()),
            clock: &clock,
        };
        let mut sink = SessionSink {
            recipe: self,
            session,
            shared: &shared,
        };
        play_games(&players, settings.run.mode, &limits, &mut sink)
    }

    /// `parallel` runs, before play: learns the finished games of `pending/` that the
    /// checkpoint resumed from does not hold (in the order they were numbered), and removes
    /// the records of those it holds.
    fn learn_pending_games(
        &mut self,
        session: &mut AthenanSession<'_, G>,
        shared: &BatchingEvaluator<G>,
    ) -> anyhow::Result<()> {
        let Some(pending) = self.pending.clone() else {
            return Ok(());
        };
        pending.remove_taken(&session.state.games_taken)?;
        let numbers = pending.numbers()?;
        if !numbers.is_empty() {
            tracing::info!(
                "{} finished games no checkpoint holds: learning them first",
                numbers.len()
            );
        }
        let config_hash = session.settings.config.learned_hash();
        for number in numbers {
            let check = RecordCheck {
                game: &session.manifest.game,
                config_hash: &config_hash,
                // The run's own games: played with networks of the lost session, numbered by it.
                learner_version: u64::MAX,
                handed_out: u64::MAX,
                terminal_eval: self.terminal_eval,
            };
            let replayed = pending
                .read(number)
                .and_then(|bytes| Ok(GameRecord::from_bytes(&bytes)?))
                .and_then(|record| Ok(record.replay(&session.initial, &check)?));
            match replayed {
                Ok(game) if game.index == number => {
                    self.after_game(session, game, &mut |net, version| {
                        shared.publish(net, version);
                        Ok(())
                    })?
                }
                Ok(game) => {
                    let why = format!("holds game {}", game.index);
                    set_aside_pending(&pending, number, &why)?
                }
                Err(why) => set_aside_pending(&pending, number, &format!("{why:#}"))?,
            }
        }
        Ok(())
    }
}

/// A pending record that cannot be learned: moved aside with its reason, warned about once.
/// Its number is not taken (no game of it was learned): a later game may carry it, and the run's
/// game budget, counted in numbers handed out, is not spent by it.
fn set_aside_pending(pending: &PendingGames, number: u64, why: &str) -> anyhow::Result<()> {
    let moved_to = pending.set_aside(number, why)?;
    tracing::warn!(
        "pending game {number} not learned ({why}): moved to {}",
        moved_to.display()
    );
    Ok(())
}

/// The session as the game pool's sink: hands out games until the run's limit, learns each.
struct SessionSink<'s, 'a, G: Game> {
    recipe: &'s mut Athenan<G>,
    session: &'s mut AthenanSession<'a, G>,
    shared: &'s BatchingEvaluator<G>,
}

impl<G: Game> GameSink<G> for SessionSink<'_, '_, G> {
    fn next_game(&self, index: u64) -> Result<RunProgress, StopReason> {
        match self.session.stop_reason(index) {
            Some(reason) => Err(reason),
            None => Ok(self.session.progress()),
        }
    }

    fn game_finished(&mut self, finished: LearnableGame) -> anyhow::Result<()> {
        let shared = self.shared;
        self.recipe
            .after_game(self.session, finished, &mut |net, version| {
                shared.publish(net, version);
                Ok(())
            })
    }
}
