//! `descent worker`: an actor of a distributed run. It needs nothing but the Redis URL: it reads
//! the run's configuration and the latest network from the broker, plays self-play games on N
//! threads — each game with the network version current when it starts — and sends each
//! finished game as a `GameRecord`. Between games it picks up newer versions and says it is
//! alive; it stops when the learner marks the run finished (or after `--max-games`). Killed at
//! any instant, it loses only its games in progress.

use crate::search::StopToken;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::games::{Game, GameVisitor};
use crate::search::TerminalEval;
use crate::selfplay::TrainConfig;
use crate::selfplay::config::TrainSettings;
use crate::selfplay::distributed::broker::Broker;
use crate::selfplay::recipes::athenan::game_pool::TimedEvaluator;
use crate::selfplay::recipes::athenan::game_record::{GameRecord, RecordOrigin};
use crate::selfplay::recipes::athenan::learnable_game::Finished;
use crate::selfplay::recipes::athenan::self_play::{SelfPlaySettings, SelfPlayer};
use crate::selfplay::recipes::athenan::settings::AthenanSettings;
use crate::selfplay::run::run_progress::RunProgress;
use crate::selfplay::run::streams::{STREAM_GAME, stream_rng};
use crate::value::saved_net::{NetManifest, net_from_burnpack};
use crate::value::{BatchingEvaluator, DeviceChoice, NetDevice};

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    pub url: String,
    /// Games played at once.
    pub threads: usize,
    /// Where the network runs (default: the run's `run.device`).
    pub device: Option<DeviceChoice>,
    /// The worker's name in heartbeats (default: host name and process id).
    pub id: Option<String>,
    /// Stop after this many games (default: when the run is finished).
    pub max_games: Option<u64>,
    /// The run to join (default: the only run on the database, or the only live one).
    pub run: Option<String>,
    /// Stops the worker (its Ctrl-C or SIGTERM): it finishes and sends the games in play.
    pub stop: StopToken,
}

/// What a worker did.
#[derive(Clone, Debug)]
pub struct WorkerSummary {
    pub id: String,
    pub games: u64,
    /// Bytes of the records sent (compressed, as on the wire).
    pub bytes_sent: u64,
    pub seconds: f64,
}

/// Joins the run on `options.url` and plays until it is finished.
///
/// # Errors
/// A broker that does not answer, a published configuration or network this build cannot use.
pub fn run_worker(options: &WorkerOptions) -> anyhow::Result<WorkerSummary> {
    let mut broker = Broker::connect(&options.url)?;
    let mut waiting_since: Option<Instant> = None;
    let (yaml, hash) = loop {
        let chosen = match &options.run {
            Some(name) => Some(name.clone()),
            None => broker.only_run()?,
        };
        if let Some(name) = chosen {
            broker.use_run(&name)?;
            if let Some(run) = broker.run_config()? {
                break run;
            }
        }
        if options.stop.is_stopped() {
            return Ok(WorkerSummary {
                id: options.id.clone().unwrap_or_else(default_worker_id),
                games: 0,
                bytes_sent: 0,
                seconds: 0.0,
            });
        }
        if waiting_since.is_none() {
            tracing::info!(
                "{}: no run yet; waiting for a learner (descent train --broker)",
                broker.url()
            );
            waiting_since = Some(Instant::now());
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    if broker.run_finished()? {
        bail!(
            "{}: run {} is finished (its learner reached its limit): nothing to play; extend it with \
             descent train --resume RUN --broker URL --max-games N (or --max-time), then start the worker again",
            broker.url(),
            broker.run_name().unwrap_or("")
        );
    }
    let config = TrainConfig::from_yaml(&yaml).context("the published configuration")?;
    if config.learned_hash() != hash {
        bail!(
            "{}: the published configuration does not match its hash {hash}",
            broker.url()
        );
    }
    let settings = config
        .validate()
        .map_err(|e| anyhow::anyhow!("the published configuration: {e}"))?;
    let Some(athenan) = settings.athenan() else {
        bail!(
            "{}: the published configuration is a {} run; workers play athenan runs only",
            broker.url(),
            config.recipe.name()
        );
    };
    let id = options.id.clone().unwrap_or_else(default_worker_id);
    let options = &WorkerOptions {
        run: broker.run_name().map(str::to_string),
        ..options.clone()
    };
    settings.game.visit(WorkerVisitor {
        options,
        settings: &settings,
        athenan,
        hash: &hash,
        id: &id,
    })
}

/// A connection to the run `options.run` (chosen by `run_worker`).
fn connect(options: &WorkerOptions) -> anyhow::Result<Broker> {
    let mut broker = Broker::connect(&options.url)?;
    broker.use_run(options.run.as_deref().expect("the run chosen"))?;
    Ok(broker)
}

fn default_worker_id() -> String {
    let host =
        crate::selfplay::distributed::host_name::host_name().unwrap_or_else(|| "worker".into());
    format!("{host}-{}", std::process::id())
}

struct WorkerVisitor<'a> {
    options: &'a WorkerOptions,
    settings: &'a TrainSettings,
    athenan: &'a AthenanSettings,
    hash: &'a str,
    id: &'a str,
}

impl GameVisitor for WorkerVisitor<'_> {
    type Output = anyhow::Result<WorkerSummary>;
    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let id = self.id.to_string();
        match Worker::<G>::start(initial, self)? {
            Some(worker) => worker.run(),
            // Stopped (SIGTERM, Ctrl-C) while waiting for the first network: nothing played.
            None => Ok(WorkerSummary {
                id,
                games: 0,
                bytes_sent: 0,
                seconds: 0.0,
            }),
        }
    }
}

/// A worker's shared state: the network versions its players evaluate with, its counters.
struct Worker<'a, G: Game> {
    initial: G,
    options: &'a WorkerOptions,
    settings: &'a TrainSettings,
    origin: RecordOrigin,
    device: NetDevice,
    player_settings: SelfPlaySettings,
    shared: BatchingEvaluator<G>,
    games: AtomicU64,
    /// Bytes of the records sent.
    bytes_sent: AtomicU64,
    /// Games taken (started), for `--max-games`.
    taken: AtomicU64,
    /// Stops the players: the worker's own stop (its end), a child of the options' (a signal).
    stop: StopToken,
    /// The learner's heartbeat was missing at the last look.
    waiting_for_learner: AtomicBool,
    /// Player threads waiting for the learner to read its backlog (`wait_for_room`).
    waiting_for_room: AtomicUsize,
    /// Held while a network is fetched and published: a thread that fetched an older version
    /// never publishes it over a newer one another thread fetched meanwhile.
    taking_net: std::sync::Mutex<()>,
    started: Instant,
}

impl<'a, G: Game> Worker<'a, G> {
    /// Waits for the first network and builds the players' settings; `None` if a stop was
    /// asked for (a signal) while waiting.
    fn start(initial: G, visitor: WorkerVisitor<'a>) -> anyhow::Result<Option<Self>> {
        let WorkerVisitor {
            options,
            settings,
            athenan,
            hash,
            id,
        } = visitor;
        crate::value::direct::denormals::flush_denormals_to_zero();
        let device = options.device.unwrap_or(settings.run.device).device()?;
        let mut broker = connect(options)?;
        let mut said_waiting = false;
        let (version, manifest, net) = loop {
            if let Some((version, manifest, weights)) = broker.fetch_net()? {
                let (manifest, net) = decode_net::<G>(&manifest, weights, &device)?;
                break (version, manifest, net);
            }
            if options.stop.is_stopped() {
                return Ok(None);
            }
            if !std::mem::replace(&mut said_waiting, true) {
                tracing::info!("worker {id}: waiting for the learner's first network");
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        let terminal_eval: TerminalEval = manifest.search_terminal_eval()?;
        let max_batch =
            BatchingEvaluator::<G>::players_max_batch(options.threads, 1, device.direct_inference);
        let shared = BatchingEvaluator::with_version(
            net,
            version,
            &device,
            max_batch,
            Duration::from_micros(500),
        );
        tracing::info!(
            "worker {id}: run {hash}, network version {version}, {} threads",
            options.threads
        );
        Ok(Some(Worker {
            initial,
            options,
            settings,
            origin: RecordOrigin {
                game: settings.game.to_string(),
                config_hash: hash.to_string(),
                worker: id.to_string(),
            },
            device,
            player_settings: SelfPlaySettings::of(athenan, terminal_eval),
            shared,
            games: AtomicU64::new(0),
            bytes_sent: AtomicU64::new(0),
            taken: AtomicU64::new(0),
            stop: options.stop.child(),
            waiting_for_learner: AtomicBool::new(false),
            waiting_for_room: AtomicUsize::new(0),
            taking_net: std::sync::Mutex::new(()),
            started: Instant::now(),
        }))
    }

    /// Plays on the worker's threads; this thread picks up new versions and sends heartbeats.
    fn run(self) -> anyhow::Result<WorkerSummary> {
        let mut broker = connect(self.options)?;
        let result = std::thread::scope(|scope| {
            let players: Vec<_> = (0..self.options.threads)
                .map(|_| scope.spawn(|| self.player()))
                .collect();
            let watched = self.watch(&mut broker, &players);
            self.stop.stop();
            let mut outcome = watched;
            for player in players {
                let played = player
                    .join()
                    .map_err(|_| anyhow::anyhow!("a player thread panicked"));
                if outcome.is_ok() {
                    outcome = played.and_then(|r| r);
                }
            }
            outcome
        });
        result?;
        Ok(WorkerSummary {
            id: self.origin.worker.clone(),
            games: self.games.load(Ordering::Relaxed),
            bytes_sent: self.bytes_sent.load(Ordering::Relaxed),
            seconds: self.started.elapsed().as_secs_f64(),
        })
    }

    /// Until the players stop: newer networks, heartbeats, the learner's. A learner silent
    /// for the broker's patience stops the worker with an error; the worker's heartbeat is
    /// removed when it stops.
    fn watch(
        &self,
        broker: &mut Broker,
        players: &[std::thread::ScopedJoinHandle<'_, anyhow::Result<()>>],
    ) -> anyhow::Result<()> {
        let watched = self.watch_until_done(broker, players);
        self.stop.stop();
        let gone = broker.worker_gone(&self.origin.worker);
        watched.and(gone)
    }

    fn watch_until_done(
        &self,
        broker: &mut Broker,
        players: &[std::thread::ScopedJoinHandle<'_, anyhow::Result<()>>],
    ) -> anyhow::Result<()> {
        let mut learner = LearnerWatch::new(broker.patience());
        while !players.iter().all(|p| p.is_finished()) {
            // Ctrl-C or SIGTERM stops the players through `self.stop` (a child of the
            // options' token): the games in play finish and are sent, no other starts.
            self.take_published_net(broker)?;
            let alive = broker.run_finished()? || broker.learner_is_alive()?;
            learner.saw(alive, broker.url())?;
            self.waiting_for_learner.store(!alive, Ordering::Relaxed);
            broker.worker_alive(&self.origin.worker, &self.status_json())?;
            // Nothing to pick up quickly while the learner is gone or reads nothing (a learner
            // stopped while its heartbeat lives on): every player waits for room.
            let stalled = self.waiting_for_room.load(Ordering::Relaxed) >= self.options.threads;
            let idle = !alive || stalled;
            std::thread::sleep(Duration::from_millis(if idle { 1000 } else { 100 }));
        }
        Ok(())
    }

    fn status_json(&self) -> String {
        let games = self.games.load(Ordering::Relaxed);
        let seconds = self.started.elapsed().as_secs_f64();
        serde_json::json!({
            "games": games,
            "games_per_hour": games as f64 * 3600.0 / seconds.max(1e-9),
            "version": self.shared.version(),
            "threads": self.options.threads,
            "seconds": seconds,
            "bytes_sent": self.bytes_sent.load(Ordering::Relaxed),
            "state": if self.waiting_for_learner.load(Ordering::Relaxed) {
                "waiting for the learner"
            } else {
                "playing"
            },
        })
        .to_string()
    }

    /// Takes the published network when its version differs from the one played with: any
    /// other version, older included (a learner resumed from an earlier checkpoint publishes
    /// that one again, and games must name versions it made).
    fn take_published_net(&self, broker: &mut Broker) -> anyhow::Result<()> {
        let _taking = self
            .taking_net
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let published = broker.net_version()?;
        if published.is_some_and(|v| v != self.shared.version())
            && let Some((version, manifest, weights)) = broker.fetch_net()?
        {
            let (_, net) = decode_net::<G>(&manifest, weights, &self.device)?;
            self.shared.publish(net, version);
        }
        Ok(())
    }

    /// One player thread: takes a game number, plays, sends, until the run is finished.
    fn player(&self) -> anyhow::Result<()> {
        let mut broker = connect(self.options)?;
        let mut player = SelfPlayer::<G>::new(self.player_settings.clone());
        let max_time = self.settings.run.max_time.map(|t| t.as_secs_f64());
        loop {
            if self.stop.is_stopped() || broker.run_finished()? || !self.take() {
                return Ok(());
            }
            if !self.wait_for_room(&mut broker)? {
                return Ok(());
            }
            // Each game starts with the newest network, not the one the watcher last saw (up
            // to 100 ms old: dozens of short games, whose lag would pass run.max_lag).
            self.take_published_net(&mut broker)?;
            let index = broker.take_game_index()?;
            let progress = RunProgress {
                by_games: self
                    .settings
                    .run
                    .max_games
                    .map_or(0.0, |m| index as f64 / m as f64),
                elapsed_at_start: broker.progress_seconds()?,
                max_time,
                started: Instant::now(),
            };
            let pinned = self.shared.pin();
            let timed = TimedEvaluator::new(&pinned);
            let mut rng = stream_rng(self.settings.seed, STREAM_GAME, index);
            let game = player.play(&self.initial, &timed, &progress, &mut rng);
            let finished = Finished {
                game,
                index,
                net_version: pinned.version(),
                net_seconds: timed.seconds(),
            };
            let record = GameRecord::from_game(&self.initial, &finished, self.origin.clone());
            let bytes = record.to_bytes();
            broker.send_game(&bytes)?;
            self.bytes_sent
                .fetch_add(bytes.len() as u64, Ordering::Relaxed);
            self.games.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Waits while the learner has `run.max_lag / 2` games (at least 2) not yet read: games it
    /// could only drop for their lag would be played for nothing. False if the run finished
    /// meanwhile.
    ///
    /// The wait grows from 20 ms to 1 s while the backlog stays (a learner gone does not make
    /// every player poll Redis 50 times a second).
    fn wait_for_room(&self, broker: &mut Broker) -> anyhow::Result<bool> {
        let limit = (self.settings.run.max_lag / 2).max(2);
        if broker.backlog()? < limit {
            return Ok(true);
        }
        self.waiting_for_room.fetch_add(1, Ordering::Relaxed);
        let waited = (|| {
            let mut wait = Duration::from_millis(20);
            loop {
                if self.stop.is_stopped() || broker.run_finished()? {
                    return Ok(false);
                }
                std::thread::sleep(wait);
                wait = (wait * 2).min(Duration::from_secs(1));
                if broker.backlog()? < limit {
                    return Ok(true);
                }
            }
        })();
        self.waiting_for_room.fetch_sub(1, Ordering::Relaxed);
        waited
    }

    /// Takes a game within `--max-games`; false once that many were taken.
    fn take(&self) -> bool {
        let taken = self.taken.fetch_add(1, Ordering::Relaxed);
        self.options.max_games.is_none_or(|max| taken < max)
    }
}

/// How long the learner's heartbeat has been missing, said once when it goes and when it
/// comes back; past the patience, an error.
struct LearnerWatch {
    patience: Duration,
    missing_since: Option<Instant>,
}

impl LearnerWatch {
    fn new(patience: Duration) -> LearnerWatch {
        LearnerWatch {
            patience,
            missing_since: None,
        }
    }

    /// Notes whether the learner is alive now.
    ///
    /// # Errors
    /// It has been missing for longer than the patience.
    fn saw(&mut self, alive: bool, url: &str) -> anyhow::Result<()> {
        match (alive, self.missing_since) {
            (true, Some(since)) => {
                tracing::info!(
                    "{url}: the learner is back after {:.0} s",
                    since.elapsed().as_secs_f64()
                );
                self.missing_since = None;
            }
            (false, None) => {
                tracing::warn!(
                    "{url}: no heartbeat from the learner; waiting up to {:.0} s ({})",
                    self.patience.as_secs_f64(),
                    crate::selfplay::distributed::broker::PATIENCE_ENV
                );
                self.missing_since = Some(Instant::now());
            }
            (false, Some(since)) if since.elapsed() > self.patience => bail!(
                "{url}: no heartbeat from the learner for {:.0} s: giving up (resume it with descent train --resume RUN --broker URL, then start the workers again)",
                since.elapsed().as_secs_f64()
            ),
            _ => {}
        }
        Ok(())
    }
}

/// The published network: its manifest and weights, checked against the game `G`.
fn decode_net<G: Game>(
    manifest: &str,
    weights: Vec<u8>,
    device: &NetDevice,
) -> anyhow::Result<(NetManifest, crate::value::ValueNet)> {
    let manifest: NetManifest =
        serde_json::from_str(manifest).context("the published network's manifest")?;
    if manifest.input_shape != G::ENCODING.dims()
        || manifest.encoding_version != G::ENCODING_VERSION
    {
        bail!(
            "the published network takes inputs {:?} (encoding {}), but {} encodes {:?} (encoding {})",
            manifest.input_shape,
            manifest.encoding_version,
            G::NAME,
            G::ENCODING.dims(),
            G::ENCODING_VERSION
        );
    }
    let net = net_from_burnpack(weights, &manifest, &device.burn, "the published network")?;
    Ok((manifest, net))
}
