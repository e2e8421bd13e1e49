//! `BatchingEvaluator`: many concurrent searches (threads) submit their child batches; the
//! requests are merged into one forward pass of at most about `max_batch` positions, and each
//! caller gets back exactly its own values. This is what makes parallel self-play and GPUs pay
//! off: one pass of 256 positions costs far less than 40 passes of 6.
//!
//! No background thread: a caller whose request fills the batch runs the pass for everyone
//! pending (it becomes the leader); a caller still waiting after `max_wait` flushes whatever is
//! pending, its own request included.
//!
//! Network versions: the learner `publish`es numbered versions; a self-play game `pin`s the
//! version current when it starts and is evaluated with it to its last move, whatever is
//! published meanwhile (each request carries its version; a pass runs one version, so
//! requests of two versions pending together make two passes).

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::time::{Duration, Instant};

use super::device::NetDevice;
use super::inference_net::InferenceNet;
use super::net_evaluator::{encode_batch, evaluate_now};
use super::network::ValueNet;
use crate::games::Game;
use crate::search::Evaluator;

/// The most positions of one direct CPU pass (`descent-cpu`) of players on several threads.
const DIRECT_CHUNK: usize = 8;

/// Where a request's values are delivered.
#[derive(Default)]
struct Slot {
    values: Mutex<Option<Vec<f32>>>,
    ready: Condvar,
}

struct Request {
    inputs: Vec<f32>,
    count: usize,
    slot: Arc<Slot>,
    net: Arc<NetVersion>,
}

/// One published version of the network: its number and the weights as evaluated.
pub struct NetVersion {
    pub number: u64,
    net: InferenceNet,
}

#[derive(Default)]
struct Pending {
    requests: Vec<Request>,
    positions: usize,
}

/// Counters of the merged passes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BatchingStats {
    pub passes: u64,
    pub requests: u64,
    pub positions: u64,
}

impl BatchingStats {
    /// Mean positions per forward pass.
    pub fn mean_batch(&self) -> f64 {
        self.positions as f64 / self.passes.max(1) as f64
    }
}

/// A network shared by concurrent searches, evaluating their requests in merged batches.
pub struct BatchingEvaluator<G> {
    current: RwLock<Arc<NetVersion>>,
    device: NetDevice,
    max_batch: usize,
    max_wait: Duration,
    /// The most positions of one pass of a request evaluated at once (`usize::MAX`: all).
    direct_chunk: usize,
    pending: Mutex<Pending>,
    passes: AtomicU64,
    requests: AtomicU64,
    positions: AtomicU64,
    _game: PhantomData<fn() -> G>,
}

impl<G: Game> BatchingEvaluator<G> {
    /// `net` as version 0. `max_batch`: a pass runs as soon as this many positions are pending;
    /// `max_wait`: how long a request waits for others before it runs the pass itself.
    pub fn new(net: ValueNet, device: &NetDevice, max_batch: usize, max_wait: Duration) -> Self {
        Self::with_version(net, 0, device, max_batch, max_wait)
    }

    /// The `max_batch` of self-play players on `threads` threads with `games_per_thread` games
    /// in flight each: 1 (every request evaluated at once by its own thread) with one thread or
    /// the direct CPU pass, whose cost per call is too small to be worth waiting for other
    /// threads; otherwise about half the children of every game in play.
    pub fn players_max_batch(threads: usize, games_per_thread: usize, direct_pass: bool) -> usize {
        if threads == 1 || direct_pass {
            1
        } else {
            threads * games_per_thread * G::NUM_ACTIONS / 2
        }
    }

    /// The same evaluator for players on `threads` threads: on the direct CPU pass with more
    /// than one thread, a request (all the games in flight of a thread) is evaluated in passes
    /// of at most 8 positions. Each thread's pass then stays as small as one game's, where
    /// passes of two threads at once run fastest (docs/gpu.md: on 2 cores, 2 threads × 16 games
    /// in flight lose 15 % to one game a thread in whole passes, 5 % in chunks); one thread
    /// alone keeps its large passes, which spread over the cores.
    pub fn chunked_for(mut self, threads: usize) -> Self {
        if threads > 1 && self.device.direct_inference {
            self.direct_chunk = DIRECT_CHUNK;
        }
        self
    }

    /// `net` as version `version` (a resumed run's).
    pub fn with_version(
        net: ValueNet,
        version: u64,
        device: &NetDevice,
        max_batch: usize,
        max_wait: Duration,
    ) -> Self {
        assert!(max_batch >= 1, "max_batch must be at least 1");
        let first = NetVersion {
            number: version,
            net: InferenceNet::new(net, G::ENCODING.dims(), device),
        };
        BatchingEvaluator {
            current: RwLock::new(Arc::new(first)),
            device: device.clone(),
            max_batch,
            max_wait,
            direct_chunk: usize::MAX,
            pending: Mutex::new(Pending::default()),
            passes: AtomicU64::new(0),
            requests: AtomicU64::new(0),
            positions: AtomicU64::new(0),
            _game: PhantomData,
        }
    }

    /// Publishes `net` as version `version`: games that pin a version from now on get it;
    /// games already pinned to an older one keep theirs.
    pub fn publish(&self, net: ValueNet, version: u64) {
        let net = NetVersion {
            number: version,
            net: InferenceNet::new(net, G::ENCODING.dims(), &self.device),
        };
        *self.current.write().expect("network lock poisoned") = Arc::new(net);
    }

    /// The number of the version published last.
    pub fn version(&self) -> u64 {
        self.current_version().number
    }

    fn current_version(&self) -> Arc<NetVersion> {
        Arc::clone(&self.current.read().expect("network lock poisoned"))
    }

    /// The current version, for one game: every evaluation through the returned evaluator uses
    /// it, whatever is published later.
    pub fn pin(&self) -> PinnedEvaluator<'_, G> {
        PinnedEvaluator {
            batching: self,
            net: self.current_version(),
        }
    }

    pub fn stats(&self) -> BatchingStats {
        BatchingStats {
            passes: self.passes.load(Ordering::Relaxed),
            requests: self.requests.load(Ordering::Relaxed),
            positions: self.positions.load(Ordering::Relaxed),
        }
    }

    /// Runs the forward passes over `requests` (one per network version among them) and
    /// delivers each its values.
    fn flush(&self, mut requests: Vec<Request>) {
        while let Some(first) = requests.first() {
            let net = Arc::clone(&first.net);
            let (same, others) = requests
                .into_iter()
                .partition(|r| Arc::ptr_eq(&r.net, &net));
            self.flush_one_version(&net, same);
            requests = others;
        }
    }

    /// One forward pass of `net` over `requests`.
    fn flush_one_version(&self, net: &NetVersion, requests: Vec<Request>) {
        let e = G::ENCODING;
        let total: usize = requests.iter().map(|r| r.count).sum();
        let mut inputs = Vec::with_capacity(total * e.len()); // [batch, planes, rows, cols]
        for r in &requests {
            inputs.extend_from_slice(&r.inputs);
        }
        let mut values = vec![0.0; total];
        net.net.predict_into(&inputs, &mut values);
        self.passes.fetch_add(1, Ordering::Relaxed);
        self.positions.fetch_add(total as u64, Ordering::Relaxed);
        let mut offset = 0;
        for r in requests {
            let mine = values[offset..offset + r.count].to_vec();
            offset += r.count;
            *r.slot.values.lock().expect("slot lock poisoned") = Some(mine);
            r.slot.ready.notify_one();
        }
    }

    fn take_pending(pending: &mut Pending) -> Vec<Request> {
        pending.positions = 0;
        std::mem::take(&mut pending.requests)
    }
}

/// The batching evaluator with one network version pinned (one self-play game's).
pub struct PinnedEvaluator<'a, G> {
    batching: &'a BatchingEvaluator<G>,
    net: Arc<NetVersion>,
}

impl<G> PinnedEvaluator<'_, G> {
    /// The number of the pinned version.
    pub fn version(&self) -> u64 {
        self.net.number
    }
}

impl<G: Game> Evaluator<G> for PinnedEvaluator<'_, G> {
    fn evaluate(&self, positions: &[G], values_p0: &mut [f32]) {
        self.batching.evaluate_with(&self.net, positions, values_p0);
    }
}

/// Evaluates with the version current at each call.
impl<G: Game> Evaluator<G> for BatchingEvaluator<G> {
    fn evaluate(&self, positions: &[G], values_p0: &mut [f32]) {
        self.evaluate_with(&self.current_version(), positions, values_p0);
    }
}

impl<G: Game> BatchingEvaluator<G> {
    /// Values of `positions` by `net`: at once when every request is a batch of its own, else
    /// merged with the other callers' requests.
    fn evaluate_with(&self, net: &Arc<NetVersion>, positions: &[G], values_p0: &mut [f32]) {
        assert_eq!(positions.len(), values_p0.len(), "one value per position");
        if positions.is_empty() {
            return;
        }
        self.requests.fetch_add(1, Ordering::Relaxed);
        if self.max_batch == 1 {
            // Every request is a full batch on its own: evaluate it here, without the queue (in
            // chunks when `direct_chunk` says so).
            let chunk = self.direct_chunk.min(positions.len());
            for (positions, values_p0) in positions.chunks(chunk).zip(values_p0.chunks_mut(chunk)) {
                evaluate_now(&net.net, positions, values_p0);
                self.passes.fetch_add(1, Ordering::Relaxed);
            }
            self.positions
                .fetch_add(positions.len() as u64, Ordering::Relaxed);
            return;
        }
        let inputs = encode_batch(positions);
        let slot = Arc::new(Slot::default());
        let leader_batch = {
            let mut pending = self.pending.lock().expect("pending lock poisoned");
            pending.requests.push(Request {
                inputs,
                count: positions.len(),
                slot: slot.clone(),
                net: Arc::clone(net),
            });
            pending.positions += positions.len();
            (pending.positions >= self.max_batch).then(|| Self::take_pending(&mut pending))
        };
        if let Some(requests) = leader_batch {
            self.flush(requests);
        }
        self.wait_for(&slot, values_p0);
    }

    /// Waits for `slot`'s values (running the pending pass itself after `max_wait`) and copies
    /// them into `values_p0`.
    fn wait_for(&self, slot: &Arc<Slot>, values_p0: &mut [f32]) {
        let deadline = Instant::now() + self.max_wait;
        let mut values = slot.values.lock().expect("slot lock poisoned");
        loop {
            if let Some(mine) = values.take() {
                values_p0.copy_from_slice(&mine);
                return;
            }
            let now = Instant::now();
            if now >= deadline {
                // Waited long enough: run whatever is pending, if our request still is.
                drop(values);
                let requests = {
                    let mut pending = self.pending.lock().expect("pending lock poisoned");
                    if pending.requests.iter().any(|r| Arc::ptr_eq(&r.slot, slot)) {
                        Self::take_pending(&mut pending)
                    } else {
                        Vec::new() // another caller is running our pass
                    }
                };
                self.flush(requests);
                values = slot.values.lock().expect("slot lock poisoned");
                if values.is_none() {
                    values = slot.ready.wait(values).expect("slot lock poisoned");
                }
                continue;
            }
            values = slot
                .ready
                .wait_timeout(values, deadline - now)
                .expect("slot lock poisoned")
                .0;
        }
    }
}
