//! The self-play players of a session: N threads, each with its own `SelfPlayer`s, sharing one
//! batching evaluator, each game played with the network version current when it starts
//! (pinned to its last move). A thread plays one game at a time, or with `run.games_per_thread`
//! several in flight (`search::in_flight`): their network calls merged into one per round.
//! Two ways to hand out games (`run.mode`):
//!
//! - `sequential`: the learner (the calling thread) hands out numbered games and receives them
//!   finished, one at a time, and hands out the next only after learning one: with N = 1 a
//!   game starts only after the previous one has been learned (the paper's loop);
//! - `parallel`: the players number their games themselves and start the next as soon as one
//!   ends; the learner learns the finished games as they come, so learning does not stop play —
//!   unless the learner falls behind by N finished games waiting: then a player waits before its
//!   next game (games the learner could only drop for their lag would take its processor).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, mpsc};
use std::time::Instant;

use anyhow::Context;

use crate::games::Game;
use crate::search::Evaluator;
use crate::search::in_flight::{KeyedTask, NextTask, TaskSource, run_in_flight};
use crate::selfplay::config::RunMode;
use crate::selfplay::recipes::athenan::game_record::{GameRecord, RecordOrigin};
use crate::selfplay::recipes::athenan::learnable_game::{Finished, LearnableGame};
use crate::selfplay::recipes::athenan::self_play::{FinishedGame, SelfPlaySettings, SelfPlayer};
use crate::selfplay::run::run_clock::RunClock;
use crate::selfplay::run::run_progress::RunProgress;
use crate::selfplay::run::stop_reason::StopReason;
use crate::selfplay::run::streams::{STREAM_GAME, stream_rng};
use crate::value::BatchingEvaluator;
use crate::value::batching_evaluator::PinnedEvaluator;

/// The learner's side of the pool.
pub trait GameSink<G: Game> {
    /// The progress for game number `index` (0-based, resumes included), or why no more games
    /// are started. In `parallel` mode it is asked after each game learned, with the number of
    /// the next game to start.
    fn next_game(&self, index: u64) -> Result<RunProgress, StopReason>;

    /// Learns (and logs, checkpoints …) a finished game.
    fn game_finished(&mut self, finished: LearnableGame) -> anyhow::Result<()>;
}

/// What the players play and with what.
pub struct Players<'a, G: Game> {
    pub initial: &'a G,
    pub settings: &'a SelfPlaySettings,
    pub seed: u64,
    pub threads: usize,
    /// Games in flight on each thread (1: one game at a time).
    pub games_per_thread: usize,
    pub shared: &'a BatchingEvaluator<G>,
    /// The number of the first game to hand out.
    pub first_index: u64,
    /// Where each finished game's record is made for `pending/` (`parallel` mode), its origin.
    pub record_origin: Option<RecordOrigin>,
}

/// The run's limits as the players check them in `parallel` mode.
pub struct Limits<'a> {
    pub max_games: Option<u64>,
    pub max_time: Option<f64>,
    pub clock: &'a RunClock,
}

/// Plays games on `players.threads` threads until `sink` (or, in `parallel` mode, `limits`)
/// stops them, and returns why.
///
/// # Errors
/// A player thread died, or the sink failed to learn a game.
pub fn play_games<G: Game>(
    players: &Players<'_, G>,
    mode: RunMode,
    limits: &Limits<'_>,
    sink: &mut dyn GameSink<G>,
) -> anyhow::Result<StopReason> {
    match mode {
        // `auto` is resolved when the settings are validated: never here.
        RunMode::Sequential | RunMode::Auto => play_sequential(players, sink),
        // A distributed session's players are `descent worker`s: it never gets here.
        RunMode::Parallel | RunMode::Distributed => play_parallel(players, limits, sink),
    }
}

/// `sequential`: the learner hands out each game after learning one.
fn play_sequential<G: Game>(
    players: &Players<'_, G>,
    sink: &mut dyn GameSink<G>,
) -> anyhow::Result<StopReason> {
    let (ticket_tx, ticket_rx) = mpsc::channel::<Ticket>();
    let ticket_rx = Mutex::new(ticket_rx);
    let take = |wait: bool| {
        let rx = ticket_rx.lock().expect("ticket lock");
        if wait {
            return rx.recv().map_or(NextTask::Done, NextTask::Task);
        }
        match rx.try_recv() {
            Ok(ticket) => NextTask::Task(ticket),
            Err(mpsc::TryRecvError::Empty) => NextTask::NotYet,
            Err(mpsc::TryRecvError::Disconnected) => NextTask::Done,
        }
    };
    std::thread::scope(|scope| {
        let done_rx = spawn_players(scope, players, &take);
        let mut issued = players.first_index;
        let mut outstanding = 0usize;
        let mut stop = None;
        let mut issue = |sink: &dyn GameSink<G>, outstanding: &mut usize| {
            let progress = sink.next_game(issued)?;
            let ticket = Ticket {
                index: issued,
                progress,
            };
            ticket_tx.send(ticket).expect("players are waiting");
            issued += 1;
            *outstanding += 1;
            Ok(())
        };
        for _ in 0..players.in_flight() {
            if let Err(reason) = issue(sink, &mut outstanding) {
                stop = Some(reason);
                break;
            }
        }
        while outstanding > 0 {
            let finished = done_rx.recv().context("a self-play thread died")?;
            outstanding -= 1;
            sink.game_finished(finished)?;
            if stop.is_none() {
                stop = issue(sink, &mut outstanding).err();
            }
        }
        drop(ticket_tx);
        Ok(stop.unwrap_or(StopReason::MaxGames))
    })
}

/// `parallel`: the players take their games themselves; the learner learns what comes and
/// stops the players when the sink says so.
fn play_parallel<G: Game>(
    players: &Players<'_, G>,
    limits: &Limits<'_>,
    sink: &mut dyn GameSink<G>,
) -> anyhow::Result<StopReason> {
    let tickets = FreeTickets::new(players.first_index, players.in_flight(), limits);
    let take = |wait: bool| tickets.next(wait);
    std::thread::scope(|scope| {
        let done_rx = spawn_players(scope, players, &take);
        // Stops the players whatever happens below (an error included).
        let _stop_on_exit = StopOnDrop(&tickets);
        // Ends when every player has stopped and its last game is learned.
        for finished in done_rx {
            tickets.received();
            sink.game_finished(finished)?;
            if let Err(reason) = sink.next_game(tickets.next_index()) {
                tickets.stop(reason);
            }
        }
        Ok(tickets.stop_reason())
    })
}

/// Starts `players.threads` player threads taking their games from `take`; returns where
/// their finished games arrive (closed once every player has stopped).
fn spawn_players<'scope, G: Game>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    players: &'scope Players<'_, G>,
    take: &'scope Take<'scope>,
) -> mpsc::Receiver<LearnableGame> {
    let (done_tx, done_rx) = mpsc::channel::<LearnableGame>();
    for _ in 0..players.threads {
        let done = done_tx.clone();
        scope.spawn(move || player_loop(players, take, &done));
    }
    done_rx
}

impl<G: Game> Players<'_, G> {
    /// Games in play at once, on all threads.
    fn in_flight(&self) -> usize {
        self.threads * self.games_per_thread
    }

    /// `finished` as the learner takes it, encoded here, off the learner's thread (with its
    /// record where the run keeps one).
    fn learnable(&self, finished: &Finished<G>) -> LearnableGame {
        let mut game = LearnableGame::from_finished(finished);
        if let Some(origin) = &self.record_origin {
            let record = GameRecord::from_game(self.initial, finished, origin.clone());
            game.record = Some(record.to_bytes());
        }
        game
    }
}

/// How a player takes its next game: waiting for one (`true`) or not.
type Take<'a> = dyn Fn(bool) -> NextTask<Ticket> + Sync + 'a;

/// A game handed to a player: its number and the run's progress.
struct Ticket {
    index: u64,
    progress: RunProgress,
}

/// The tickets of `parallel` mode: numbered in order, until the run's limits or a stop; a
/// ticket waits while 2 × n games are handed out and not yet received by the learner, n the
/// games in play at once (so at least n finished ones waiting).
struct FreeTickets<'a> {
    next: AtomicU64,
    first_index: u64,
    in_flight: u64,
    limits: &'a Limits<'a>,
    stopped: Mutex<Option<StopReason>>,
    /// Games the learner has received.
    received: Mutex<u64>,
    room: Condvar,
}

impl<'a> FreeTickets<'a> {
    fn new(first_index: u64, in_flight: usize, limits: &'a Limits<'a>) -> Self {
        FreeTickets {
            next: AtomicU64::new(first_index),
            first_index,
            in_flight: in_flight as u64,
            limits,
            stopped: Mutex::new(None),
            received: Mutex::new(0),
            room: Condvar::new(),
        }
    }

    /// The learner has taken a finished game.
    fn received(&self) {
        *self.received.lock().expect("received lock") += 1;
        self.room.notify_one();
    }

    /// Whether a game may be handed out now: a stop, or the learner less than 2 × n games
    /// behind.
    fn has_room(&self, received: u64) -> bool {
        let handed_out = self.next.load(Ordering::Relaxed) - self.first_index;
        let stopped = self.stopped.lock().expect("stop lock").is_some();
        stopped || handed_out < received + 2 * self.in_flight
    }

    /// The next game, waiting for room (`wait`) or not.
    fn next(&self, wait: bool) -> NextTask<Ticket> {
        if !wait && !self.has_room(*self.received.lock().expect("received lock")) {
            return NextTask::NotYet;
        }
        self.take().map_or(NextTask::Done, NextTask::Task)
    }

    /// Waits while the learner is 2 × n games behind (or until a stop).
    fn wait_for_room(&self) {
        let mut received = self.received.lock().expect("received lock");
        loop {
            if self.has_room(*received) {
                return;
            }
            received = self
                .room
                .wait_timeout(received, std::time::Duration::from_millis(50))
                .expect("received lock")
                .0;
        }
    }

    /// The next game, or why there is none.
    fn take(&self) -> Result<Ticket, StopReason> {
        self.wait_for_room();
        if let Some(reason) = *self.stopped.lock().expect("stop lock") {
            return Err(reason);
        }
        let elapsed = self.limits.clock.elapsed();
        if self
            .limits
            .max_time
            .is_some_and(|max| self.limits.clock.self_play_time_is_up(max))
        {
            return Err(self.stop(StopReason::MaxTime));
        }
        let index = self.next.fetch_add(1, Ordering::Relaxed);
        if self.limits.max_games.is_some_and(|max| index >= max) {
            return Err(self.stop(StopReason::MaxGames));
        }
        let progress = RunProgress {
            by_games: self
                .limits
                .max_games
                .map_or(0.0, |max| index as f64 / max as f64),
            elapsed_at_start: elapsed,
            max_time: self.limits.max_time,
            started: Instant::now(),
        };
        Ok(Ticket { index, progress })
    }

    fn next_index(&self) -> u64 {
        self.next.load(Ordering::Relaxed)
    }

    /// Stops handing out games (the first reason given stays); returns the reason kept.
    fn stop(&self, reason: StopReason) -> StopReason {
        *self
            .stopped
            .lock()
            .expect("stop lock")
            .get_or_insert(reason)
    }

    fn stop_reason(&self) -> StopReason {
        self.stopped
            .lock()
            .expect("stop lock")
            .unwrap_or(StopReason::MaxGames)
    }
}

struct StopOnDrop<'t, 'a>(&'t FreeTickets<'a>);

impl Drop for StopOnDrop<'_, '_> {
    fn drop(&mut self) {
        self.0.stop(StopReason::MaxGames);
    }
}

/// One player thread: plays the games it takes until there are none, each with the network
/// version current when it starts.
fn player_loop<G: Game>(
    players: &Players<'_, G>,
    take: &Take<'_>,
    done: &mpsc::Sender<LearnableGame>,
) {
    if players.games_per_thread > 1 {
        return play_in_flight(players, take, done);
    }
    let mut player = SelfPlayer::<G>::new(players.settings.clone());
    while let NextTask::Task(ticket) = take(true) {
        let pinned = players.shared.pin();
        let timed = TimedEvaluator::new(&pinned);
        let mut rng = stream_rng(players.seed, STREAM_GAME, ticket.index);
        let game = player.play(players.initial, &timed, &ticket.progress, &mut rng);
        let finished = Finished {
            game,
            index: ticket.index,
            net_version: pinned.version(),
            net_seconds: timed.seconds(),
        };
        if done.send(players.learnable(&finished)).is_err() {
            break;
        }
    }
}

/// One player thread with `players.games_per_thread` games in flight, each with its own
/// `SelfPlayer` (a slot's player plays that slot's games one after another).
fn play_in_flight<G: Game>(
    players: &Players<'_, G>,
    take: &Take<'_>,
    done: &mpsc::Sender<LearnableGame>,
) {
    let slots = players.games_per_thread;
    let mut games = GamesInFlight {
        players,
        take,
        done,
        idle_players: (0..slots)
            .map(|_| Some(SelfPlayer::new(players.settings.clone())))
            .collect(),
        in_play: vec![(0, 0); slots],
        stopped: false,
    };
    run_in_flight(slots, &mut games);
}

/// A finished task of `play_in_flight`: the slot's player back, and its game.
type PlayedGame<G> = (SelfPlayer<G>, FinishedGame<G>);

/// The games of one thread's slots: their players, the number and network version of each
/// slot's game in play.
struct GamesInFlight<'p, 'a, G: Game> {
    players: &'p Players<'a, G>,
    take: &'p Take<'p>,
    done: &'p mpsc::Sender<LearnableGame>,
    idle_players: Vec<Option<SelfPlayer<G>>>,
    in_play: Vec<(u64, u64)>,
    /// The learner is gone.
    stopped: bool,
}

impl<'a, G: Game> TaskSource<G, PinnedEvaluator<'a, G>, PlayedGame<G>>
    for GamesInFlight<'_, 'a, G>
{
    fn next_task(
        &mut self,
        slot: usize,
        wait: bool,
    ) -> NextTask<KeyedTask<G, PinnedEvaluator<'a, G>, PlayedGame<G>>> {
        if self.stopped {
            return NextTask::Done;
        }
        let ticket = match (self.take)(wait) {
            NextTask::Task(ticket) => ticket,
            NextTask::NotYet => return NextTask::NotYet,
            NextTask::Done => return NextTask::Done,
        };
        let pinned = self.players.shared.pin();
        let version = pinned.version();
        self.in_play[slot] = (ticket.index, version);
        let mut player = self.idle_players[slot]
            .take()
            .expect("a free slot's player");
        let initial = self.players.initial.clone();
        let mut rng = stream_rng(self.players.seed, STREAM_GAME, ticket.index);
        let progress = ticket.progress;
        let task = Box::new(move |evaluator: &dyn Evaluator<G>| {
            let game = player.play(&initial, &evaluator, &progress, &mut rng);
            (player, game)
        });
        NextTask::Task((version, pinned, task))
    }

    fn finished(&mut self, slot: usize, (player, game): PlayedGame<G>, net_seconds: f64) {
        self.idle_players[slot] = Some(player);
        let (index, net_version) = self.in_play[slot];
        let finished = Finished {
            game,
            index,
            net_version,
            net_seconds,
        };
        if self.done.send(self.players.learnable(&finished)).is_err() {
            self.stopped = true;
        }
    }
}

/// The evaluator of one game, timing its calls.
pub struct TimedEvaluator<'a, E> {
    inner: &'a E,
    nanos: AtomicU64,
}

impl<'a, E> TimedEvaluator<'a, E> {
    pub fn new(inner: &'a E) -> Self {
        TimedEvaluator {
            inner,
            nanos: AtomicU64::new(0),
        }
    }

    /// Wall time spent in the evaluator so far.
    pub fn seconds(&self) -> f64 {
        self.nanos.load(Ordering::Relaxed) as f64 * 1e-9
    }
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for TimedEvaluator<'_, E> {
    fn evaluate(&self, positions: &[G], values_p0: &mut [f32]) {
        let start = Instant::now();
        self.inner.evaluate(positions, values_p0);
        self.nanos
            .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }
}
