//! The distributed learner's claim on its run and its heartbeat, renewed every
//! [`RENEW_EVERY`] by a thread of its own over its own connection: however long a batch of
//! games takes to learn, the claim never lapses while the learner lives, so workers never see
//! it as gone and a second learner of the run is always refused. A renewal retries a lost
//! server for the broker's patience (`DESCENT_BROKER_PATIENCE`): a claim that lapsed meanwhile
//! (a Redis stall or a partition longer than its 30 s) is taken again only if no other learner
//! took it (the claim is compare-and-set); if one did, this learner stops, naming it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::selfplay::distributed::broker::Broker;

/// How often the claim and heartbeat are renewed (they live 30 s).
pub const RENEW_EVERY: Duration = Duration::from_secs(2);
/// A learner that has not said how it is for this long (it learns a game in seconds) is taken
/// as hung: its claim is left to lapse, so that workers see it gone and it can be replaced.
pub const SILENT_LEARNER: Duration = Duration::from_secs(600);

/// The learner's side of what the thread publishes.
struct Shared {
    stop: AtomicBool,
    /// Training seconds so far and the heartbeat's JSON, as the learner last said, and when.
    status: Mutex<(f64, String, Instant)>,
    /// Why the claim could not be renewed (another learner holds the run, the server is gone
    /// past the broker's patience): the learner stops with it.
    lost: Mutex<Option<String>>,
}

/// The renewing thread, stopped when dropped.
pub struct LearnerHeartbeat {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl LearnerHeartbeat {
    /// Starts renewing the claim of `identity` on run `run` of the server at `url`.
    ///
    /// # Errors
    /// The server cannot be reached.
    pub fn start(
        url: &str,
        run: &str,
        identity: String,
        (elapsed_seconds, status_json): (f64, String),
    ) -> anyhow::Result<LearnerHeartbeat> {
        let mut broker = Broker::connect(url)?;
        broker.use_run(run)?;
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            status: Mutex::new((elapsed_seconds, status_json, Instant::now())),
            lost: Mutex::new(None),
        });
        let thread_shared = shared.clone();
        let thread = std::thread::Builder::new()
            .name("learner-heartbeat".into())
            .spawn(move || renew(&mut broker, &identity, &thread_shared))?;
        Ok(LearnerHeartbeat {
            shared,
            thread: Some(thread),
        })
    }

    /// What the next renewal publishes.
    pub fn update(&self, elapsed_seconds: f64, status_json: String) {
        *self.shared.status.lock().expect("heartbeat lock") =
            (elapsed_seconds, status_json, Instant::now());
    }

    /// # Errors
    /// The claim could not be renewed: the learner must stop.
    pub fn check(&self) -> anyhow::Result<()> {
        match self.shared.lost.lock().expect("heartbeat lock").as_ref() {
            Some(why) => Err(anyhow::anyhow!("{why}")),
            None => Ok(()),
        }
    }
}

/// Renews until asked to stop or until a renewal fails.
fn renew(broker: &mut Broker, identity: &str, shared: &Shared) {
    let mut last = Instant::now();
    while !shared.stop.load(Ordering::Relaxed) {
        if last.elapsed() >= RENEW_EVERY {
            let (elapsed, status, said) = shared.status.lock().expect("heartbeat lock").clone();
            if said.elapsed() > SILENT_LEARNER {
                tracing::warn!(
                    "the learner has said nothing for {} s: its claim is left to lapse",
                    said.elapsed().as_secs()
                );
                return;
            }
            if let Err(why) = broker.learner_alive(identity, elapsed, &status) {
                *shared.lost.lock().expect("heartbeat lock") = Some(format!("{why:#}"));
                return;
            }
            last = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

impl Drop for LearnerHeartbeat {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
