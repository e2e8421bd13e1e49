//! The learner of a `distributed` run (`descent train … --broker redis://…`): it publishes the
//! run's configuration and each network version through the broker, and learns the games that
//! `descent worker` processes send, each checked (`GameRecord::replay`) — a bad record is
//! refused and counted, never learned. Games are acknowledged once a checkpoint holds them; the
//! checkpoint keeps the last entry read, so a resumed learner re-reads exactly what it had not
//! checkpointed (see `broker.rs`).

use super::learner_heartbeat::LearnerHeartbeat;
use super::learner_stages::LearnerStages;
use super::{Athenan, AthenanSession};
use crate::games::Game;
use crate::selfplay::distributed::broker::{Broker, StreamEntry, entry_order, run_name_of};
use crate::selfplay::distributed::host_name::host_name;
use crate::selfplay::recipes::athenan::game_record::{GameRecord, RecordCheck, RecordError};
use crate::selfplay::run::stop_reason::StopReason;
use crate::selfplay::telemetry::metrics::RejectedRecord;
use crate::value::ValueNet;
use crate::value::saved_net::{NetManifest, burnpack_bytes};

/// Entries read from the stream at a time.
const READ_COUNT: usize = 16;
/// How long a read waits for a game before the learner looks at its limits again.
const READ_BLOCK_MS: usize = 1000;

impl<G: Game> Athenan<G> {
    /// Learns the workers' games until the run's limit, then checkpoints, acknowledges and
    /// marks the run finished.
    pub(super) fn run_distributed(
        &mut self,
        session: &mut AthenanSession<'_, G>,
        url: &str,
    ) -> anyhow::Result<StopReason> {
        let mut broker = Broker::connect(url)?;
        let dir_name = session
            .run_dir
            .root()
            .file_name()
            .map(|n| n.to_string_lossy());
        broker.use_run(&run_name_of(dir_name.as_deref().unwrap_or("run")))?;
        let yaml = session.settings.config.to_yaml();
        let hash = session.settings.config.learned_hash();
        let identity = learner_identity(session);
        // Before anything of the database is written: it may be another run's.
        broker.claim_learner(&identity)?;
        // Live before the run is listed: a worker naming no run joins the only live one, so a
        // listed run without a heartbeat would send it to another run.
        let mut stages = LearnerStages::default();
        let status = status_json(session, 0, &stages);
        broker.learner_alive(&identity, session.elapsed(), &status)?;
        let run = broker.run_name().unwrap_or("run").to_string();
        let heartbeat =
            LearnerHeartbeat::start(url, &run, identity.clone(), (session.elapsed(), status))?;
        broker.open_run(&yaml, &hash, session.state.next_game_index())?;
        let net = self.learner.net_optimizer.inference_net();
        publish_net(&mut broker, &session.manifest, net, session.state.games)?;
        tracing::info!(
            "learner of run {} ({hash}) on {}: network version {} published, waiting for workers",
            broker.run_name().unwrap_or(""),
            broker.url(),
            session.state.games
        );
        let mut unacknowledged: Vec<String> = Vec::new();
        // Re-read the entries delivered to this learner but not acknowledged (after a start, and
        // after a lost connection, whose read may have delivered entries whose reply was lost),
        // from the stream's start, then new ones (">").
        let mut pending_after: Option<String> = Some("0".into());
        let mut reconnections = broker.reconnections();
        let stopped_by = loop {
            if let Some(reason) =
                session.stop_reason(session.state.games + session.state.games_dropped)
            {
                break reason;
            }
            heartbeat.update(
                session.elapsed(),
                status_json(session, unacknowledged.len(), &stages),
            );
            heartbeat.check()?;
            // No more than the budget needs: what is read and not learned stays pending.
            let budget_left = session.settings.run.max_games.map_or(u64::MAX, |max| {
                max.saturating_sub(session.state.games + session.state.games_dropped)
            });
            let count = READ_COUNT.min(usize::try_from(budget_left).unwrap_or(usize::MAX));
            let entries = LearnerStages::time(&mut stages.redis, || {
                broker.read_games(pending_after.as_deref(), count.max(1), READ_BLOCK_MS)
            })?;
            if broker.reconnections() != reconnections {
                reconnections = broker.reconnections();
                pending_after = Some("0".into());
                continue;
            }
            if pending_after.is_some() {
                pending_after = entries.last().map(|e| e.id.clone());
            }
            // Read after the entries: every number sent in them was handed out before.
            let taken = Taken {
                hash: &hash,
                handed_out: if entries.is_empty() {
                    0
                } else {
                    LearnerStages::time(&mut stages.redis, || broker.handed_out())?
                },
            };
            let read = (&mut broker, &heartbeat, &taken);
            self.take_entries(session, read, entries, &mut unacknowledged, &mut stages)?;
        };
        session.final_checkpoint(self)?;
        broker.acknowledge(&unacknowledged)?;
        if stopped_by != StopReason::Requested {
            // Stopped by hand, the run is not over: its workers wait for a resumed learner.
            broker.finish_run()?;
        }
        // Stopped and checkpointed: a learner resumed elsewhere need not wait for the claim to
        // lapse.
        drop(heartbeat);
        broker.release_learner(&identity)?;
        Ok(stopped_by)
    }

    /// Takes the entries read, one by one (`take_entry`), saying how many are left to learn
    /// and beating the heart after each, until the run's limit.
    fn take_entries(
        &mut self,
        session: &mut AthenanSession<'_, G>,
        (broker, heartbeat, taken): (&mut Broker, &LearnerHeartbeat, &Taken<'_>),
        entries: Vec<StreamEntry>,
        unacknowledged: &mut Vec<String>,
        stages: &mut LearnerStages,
    ) -> anyhow::Result<()> {
        let mut to_learn = entries.len();
        LearnerStages::time(&mut stages.redis, || broker.note_read_not_learned(to_learn))?;
        for entry in entries {
            to_learn -= 1;
            if unacknowledged.contains(&entry.id) {
                // Delivered again after a reconnection: already taken this session.
                continue;
            }
            self.take_entry(session, broker, taken, entry, unacknowledged, stages)?;
            LearnerStages::time(&mut stages.redis, || broker.note_read_not_learned(to_learn))?;
            heartbeat.update(
                session.elapsed(),
                status_json(session, unacknowledged.len(), stages),
            );
            heartbeat.check()?;
            if session
                .stop_reason(session.state.games + session.state.games_dropped)
                .is_some()
            {
                break;
            }
        }
        Ok(())
    }

    /// Learns (or drops, or refuses) one entry of the games stream; acknowledges what a
    /// checkpoint written meanwhile holds.
    fn take_entry(
        &mut self,
        session: &mut AthenanSession<'_, G>,
        broker: &mut Broker,
        taken: &Taken<'_>,
        entry: StreamEntry,
        unacknowledged: &mut Vec<String>,
        stages: &mut LearnerStages,
    ) -> anyhow::Result<()> {
        let held = session
            .state
            .stream_position
            .as_deref()
            .and_then(entry_order);
        if held.is_some() && entry_order(&entry.id) <= held {
            // Read before the checkpoint this session resumed from: already learned.
            return LearnerStages::time(&mut stages.redis, || broker.acknowledge(&[entry.id]));
        }
        session.state.stream_position = Some(entry.id.clone());
        let checkpoints_before = session.checkpoints_written;
        let check = RecordCheck {
            game: &session.manifest.game,
            config_hash: taken.hash,
            learner_version: session.state.games,
            handed_out: taken.handed_out,
            terminal_eval: self.terminal_eval,
        };
        let games_taken = &session.state.games_taken;
        let bytes = entry
            .record
            .as_deref()
            .map_err(|why| RecordError::Malformed(why.clone()));
        let record = LearnerStages::time(&mut stages.decode, || {
            bytes.and_then(GameRecord::from_bytes)
        });
        let game = LearnerStages::time(&mut stages.replay, || {
            record.and_then(|record| {
                // Before the replay: a game sent again costs nothing.
                if games_taken.contains(record.index) {
                    return Err(RecordError::AlreadyLearned(record.index));
                }
                record.replay(&session.initial, &check)
            })
        });
        unacknowledged.push(entry.id.clone());
        match game {
            Ok(game) => {
                session.state.games_taken.insert(game.index);
                let manifest = session.manifest.clone();
                let mut publish = 0.0;
                let learn = LearnerStages::time(&mut stages.learn, || {
                    self.after_game(session, game, &mut |net, version| {
                        LearnerStages::time(&mut publish, || {
                            publish_net(broker, &manifest, net, version)
                        })
                    })
                });
                stages.learn -= publish;
                stages.publish += publish;
                learn?;
            }
            Err(why) => reject(session, &entry.id, &why)?,
        }
        if session.checkpoints_written != checkpoints_before {
            LearnerStages::time(&mut stages.redis, || broker.acknowledge(unacknowledged))?;
            unacknowledged.clear();
        }
        Ok(())
    }
}

/// Counts and logs a refused record.
fn reject<G: Game>(
    session: &mut AthenanSession<'_, G>,
    entry: &str,
    why: &RecordError,
) -> anyhow::Result<()> {
    session.state.records_rejected += 1;
    tracing::warn!("game record {entry} refused: {why}");
    session.metrics.write(&RejectedRecord {
        kind: "rejected",
        entry: entry.to_string(),
        reason: why.to_string(),
        records_rejected: session.state.records_rejected,
    })
}

/// Who this learner is, in its claim on the database: its host and run directory (a resume
/// of the same run takes over the claim of its killed predecessor at once; the run
/// directory's lock keeps two processes from training one run).
fn learner_identity<G: Game>(session: &AthenanSession<'_, G>) -> String {
    let host = host_name().unwrap_or_else(|| "localhost".into());
    let dir = std::fs::canonicalize(session.run_dir.root())
        .unwrap_or_else(|_| session.run_dir.root().to_path_buf());
    format!("learner of {} on {host}", dir.display())
}

/// The learner's heartbeat: its version, counts, queue and where its time went.
fn status_json<G: Game>(
    session: &AthenanSession<'_, G>,
    unacknowledged: usize,
    stages: &LearnerStages,
) -> String {
    serde_json::json!({
        "version": session.state.games,
        "games": session.state.games,
        "games_dropped": session.state.games_dropped,
        "records_rejected": session.state.records_rejected,
        "elapsed_seconds": session.elapsed(),
        "unacknowledged": unacknowledged,
        "max_games": session.settings.run.max_games,
        "stage_seconds": stages,
    })
    .to_string()
}

/// What a record is checked against besides the session's own state.
struct Taken<'a> {
    /// The run's hash (`TrainConfig::learned_hash`).
    hash: &'a str,
    /// Game numbers handed out when the entries were read.
    handed_out: u64,
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
