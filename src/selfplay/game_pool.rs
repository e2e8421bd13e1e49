//! The self-play players of a session: N threads, each with its own `SelfPlayer`, sharing one
//! batching evaluator. The learner (the calling thread) hands out numbered games and receives
//! them finished, one at a time; with N = 1 a game starts only after the previous one has been
//! learned (the paper's sequential loop).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Instant;

use anyhow::Context;

use super::self_play::{FinishedGame, RunProgress, SelfPlaySettings, SelfPlayer};
use super::streams::{STREAM_GAME, stream_rng};
use super::training::StopReason;
use crate::games::Game;
use crate::search::Evaluator;

/// A finished game and the wall time of its network calls.
pub struct Finished<G> {
    pub game: FinishedGame<G>,
    pub net_seconds: f64,
}

/// The learner's side of the pool.
pub trait GameSink<G: Game> {
    /// The progress for game number `index` (0-based, resumes included), or why no more games
    /// are started.
    fn next_game(&self, index: u64) -> Result<RunProgress, StopReason>;

    /// Learns (and logs, checkpoints …) a finished game before the next one is handed out.
    fn game_finished(&mut self, finished: Finished<G>) -> anyhow::Result<()>;
}

/// Plays games numbered from `first_index` on `threads` players until `sink` stops them, and
/// returns why.
///
/// # Errors
/// A player thread died, or the sink failed to learn a game.
pub fn play_games<G: Game, E: Evaluator<G>>(
    initial: &G,
    settings: &SelfPlaySettings,
    seed: u64,
    threads: usize,
    shared: &E,
    first_index: u64,
    sink: &mut dyn GameSink<G>,
) -> anyhow::Result<StopReason> {
    let (ticket_tx, ticket_rx) = mpsc::channel::<Ticket>();
    let ticket_rx = Arc::new(Mutex::new(ticket_rx));
    let (done_tx, done_rx) = mpsc::channel::<Finished<G>>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tickets = Arc::clone(&ticket_rx);
            let done = done_tx.clone();
            let settings = settings.clone();
            scope.spawn(move || player_loop(initial, settings, seed, shared, &tickets, &done));
        }
        drop(done_tx);
        let mut issued = first_index;
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
        for _ in 0..threads {
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

/// A game handed to a player: its number and the run's progress.
struct Ticket {
    index: u64,
    progress: RunProgress,
}

/// One player thread: plays the games it is handed until the tickets end.
fn player_loop<G: Game, E: Evaluator<G>>(
    initial: &G,
    settings: SelfPlaySettings,
    seed: u64,
    shared: &E,
    tickets: &Mutex<mpsc::Receiver<Ticket>>,
    done: &mpsc::Sender<Finished<G>>,
) {
    let mut player = SelfPlayer::<G>::new(settings);
    loop {
        let ticket = tickets.lock().expect("ticket lock").recv();
        let Ok(ticket) = ticket else { break };
        let timed = TimedEvaluator {
            inner: shared,
            nanos: AtomicU64::new(0),
        };
        let mut rng = stream_rng(seed, STREAM_GAME, ticket.index);
        let game = player.play(initial, &timed, &ticket.progress, &mut rng);
        let net_seconds = timed.nanos.load(Ordering::Relaxed) as f64 * 1e-9;
        if done.send(Finished { game, net_seconds }).is_err() {
            break;
        }
    }
}

/// The evaluator the players share, timing the calls of one player.
struct TimedEvaluator<'a, E> {
    inner: &'a E,
    nanos: AtomicU64,
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for TimedEvaluator<'_, E> {
    fn evaluate(&self, positions: &[G], values_p0: &mut [f32]) {
        let start = Instant::now();
        self.inner.evaluate(positions, values_p0);
        self.nanos
            .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }
}
