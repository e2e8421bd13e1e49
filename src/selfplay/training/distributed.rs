//! The learner of a `distributed` run (`descent train … --broker redis://…`): it publishes the
//! run's configuration and each network version through the broker, and learns the games that
//! `descent worker` processes send, each checked (`GameRecord::replay`) — a bad record is
//! refused and counted, never learned. Games are acknowledged once a checkpoint holds them; the
//! checkpoint keeps the last entry read, so a resumed learner re-reads exactly what it had not
//! checkpointed (see `broker.rs`).

use std::collections::{HashSet, VecDeque};
use std::time::Instant;

use super::{Session, TrainSummary};
use crate::games::Game;
use crate::selfplay::broker::{Broker, StreamEntry, entry_order};
use crate::selfplay::game_record::{GameRecord, RecordCheck, RecordError, config_hash};
use crate::selfplay::learnable_game::LearnableGame;
use crate::selfplay::metrics::RejectedRecord;
use crate::value::ValueNet;
use crate::value::saved_net::{NetManifest, burnpack_bytes};

/// Entries read from the stream at a time.
const READ_COUNT: usize = 16;
/// How long a read waits for a game before the learner looks at its limits again.
const READ_BLOCK_MS: usize = 1000;

impl<G: Game> Session<'_, G> {
    /// Learns the workers' games until the run's limit, then checkpoints, acknowledges and
    /// marks the run finished.
    pub(super) fn run_distributed(mut self, url: &str) -> anyhow::Result<TrainSummary> {
        let mut broker = Broker::connect(url)?;
        let yaml = self.settings.config.to_yaml();
        let hash = config_hash(&yaml);
        broker.open_run(&yaml, &hash, self.state.next_game_index())?;
        let net = self.learner.net_optimizer.inference_net();
        publish_net(&mut broker, &self.manifest, net, self.state.games)?;
        tracing::info!(
            "learner of run {hash} on {}: network version {} published, waiting for workers",
            broker.url(),
            self.state.games
        );
        let mut unacknowledged: Vec<String> = Vec::new();
        let mut recent = RecentGames::default();
        // Re-read the entries delivered to this learner but not acknowledged (after a start, and
        // after a lost connection, whose read may have delivered entries whose reply was lost),
        // from the stream's start, then new ones (">").
        let mut pending_after: Option<String> = Some("0".into());
        let mut reconnections = broker.reconnections();
        let mut last_heartbeat: Option<Instant> = None;
        let stopped_by = loop {
            if let Some(reason) = self.stop_reason(self.state.games + self.state.games_dropped) {
                break reason;
            }
            if last_heartbeat.is_none_or(|t| t.elapsed().as_secs() >= 2) {
                broker.learner_alive(self.elapsed(), &self.status_json(unacknowledged.len()))?;
                last_heartbeat = Some(Instant::now());
            }
            // No more than the budget needs: what is read and not learned stays pending.
            let budget_left = self.settings.run.max_games.map_or(u64::MAX, |max| {
                max.saturating_sub(self.state.games + self.state.games_dropped)
            });
            let count = READ_COUNT.min(usize::try_from(budget_left).unwrap_or(usize::MAX));
            let entries =
                broker.read_games(pending_after.as_deref(), count.max(1), READ_BLOCK_MS)?;
            if broker.reconnections() != reconnections {
                reconnections = broker.reconnections();
                pending_after = Some("0".into());
                continue;
            }
            if pending_after.is_some() {
                pending_after = entries.last().map(|e| e.id.clone());
            }
            for entry in entries {
                if unacknowledged.contains(&entry.id) {
                    // Delivered again after a reconnection: already taken this session.
                    continue;
                }
                self.take_entry(&mut broker, &hash, entry, &mut unacknowledged, &mut recent)?;
                if self
                    .stop_reason(self.state.games + self.state.games_dropped)
                    .is_some()
                {
                    break;
                }
            }
        };
        self.final_checkpoint()?;
        broker.acknowledge(&unacknowledged)?;
        broker.finish_run()?;
        Ok(self.summary(stopped_by))
    }

    /// Learns (or drops, or refuses) one entry of the games stream; acknowledges what a
    /// checkpoint written meanwhile holds.
    fn take_entry(
        &mut self,
        broker: &mut Broker,
        hash: &str,
        entry: StreamEntry,
        unacknowledged: &mut Vec<String>,
        recent: &mut RecentGames,
    ) -> anyhow::Result<()> {
        let held = self.state.stream_position.as_deref().and_then(entry_order);
        if held.is_some() && entry_order(&entry.id) <= held {
            // Read before the checkpoint this session resumed from: already learned.
            return broker.acknowledge(&[entry.id]);
        }
        self.state.stream_position = Some(entry.id.clone());
        let checkpoints_before = self.checkpoints_written;
        let check = RecordCheck {
            game: &self.manifest.game,
            config_hash: hash,
            learner_version: self.state.games,
            terminal_eval: self.terminal_eval,
        };
        let game = GameRecord::from_bytes(&entry.record)
            .and_then(|r| r.replay(&self.initial, &check))
            .and_then(|game| recent.first_time(game));
        unacknowledged.push(entry.id.clone());
        match game {
            Ok(game) => {
                let manifest = self.manifest.clone();
                self.after_game(game, &mut |net, version| {
                    publish_net(broker, &manifest, net, version)
                })?;
            }
            Err(why) => self.reject(&entry.id, &why)?,
        }
        if self.checkpoints_written != checkpoints_before {
            broker.acknowledge(unacknowledged)?;
            unacknowledged.clear();
        }
        Ok(())
    }

    /// Counts and logs a refused record.
    fn reject(&mut self, entry: &str, why: &RecordError) -> anyhow::Result<()> {
        self.state.records_rejected += 1;
        tracing::warn!("game record {entry} refused: {why}");
        self.metrics.write(&RejectedRecord {
            kind: "rejected",
            entry: entry.to_string(),
            reason: why.to_string(),
            records_rejected: self.state.records_rejected,
        })
    }

    /// The learner's heartbeat: its version, counts and queue.
    fn status_json(&self, unacknowledged: usize) -> String {
        serde_json::json!({
            "version": self.state.games,
            "games": self.state.games,
            "games_dropped": self.state.games_dropped,
            "records_rejected": self.state.records_rejected,
            "elapsed_seconds": self.elapsed(),
            "unacknowledged": unacknowledged,
            "max_games": self.settings.run.max_games,
        })
        .to_string()
    }
}

/// The numbers of the games received lately: a worker that sent a game while Redis went down
/// may send it again (the first write may have been kept), and a game is learned once.
#[derive(Default)]
struct RecentGames {
    order: VecDeque<u64>,
    seen: HashSet<u64>,
}

impl RecentGames {
    const KEPT: usize = 1 << 16;

    /// `game`, or why not: it was received already.
    fn first_time(&mut self, game: LearnableGame) -> Result<LearnableGame, RecordError> {
        if !self.seen.insert(game.index) {
            return Err(RecordError::Malformed(format!(
                "game {} was received already",
                game.index
            )));
        }
        self.order.push_back(game.index);
        if self.order.len() > Self::KEPT
            && let Some(old) = self.order.pop_front()
        {
            self.seen.remove(&old);
        }
        Ok(game)
    }
}

/// Publishes `net` as `version` with its manifest.
fn publish_net(
    broker: &mut Broker,
    manifest: &NetManifest,
    net: ValueNet,
    version: u64,
) -> anyhow::Result<()> {
    let manifest = NetManifest {
        net_version: Some(version),
        ..manifest.clone()
    };
    let manifest = serde_json::to_string(&manifest)?;
    broker.publish_net(version, &manifest, &burnpack_bytes(&net)?)
}
