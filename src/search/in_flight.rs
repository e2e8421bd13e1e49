//! Many searches in flight on one thread, their evaluations gathered into one call (what KataGo
//! and lc0 do with many games per thread).
//!
//! Each task (a whole self-play game, say) runs as a stackful coroutine (`corosensei`) with an
//! ordinary, unchanged search inside. Its evaluator does not evaluate: it stages the positions
//! asked for and suspends the task. The scheduler resumes every task in turn until each one is
//! waiting for values (or finished), then evaluates all the staged positions in one call per
//! evaluator key (a network version), hands each task its own values and resumes them all again.
//!
//! Within one task the search stays sequential — it asks, waits, goes on — so no virtual loss is
//! needed and a task computes exactly what it computes alone: with an evaluator whose value of a
//! position does not depend on the other positions of its call, N tasks in flight give the
//! results of N tasks run one after another (`tests/search/in_flight.rs`). The price is that
//! only a time budget would read other tasks' work as its own: a task's clock runs while the
//! others compute (self-play with games in flight takes iteration budgets only).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Instant;

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

use super::evaluator::Evaluator;
use crate::games::Game;

/// Stack of each task (the size of a spawned thread's, which every search runs in today).
const TASK_STACK_BYTES: usize = 2 << 20;

/// A task: runs to its end with the evaluator it is given, which suspends it at each call.
pub type Task<G, R> = Box<dyn FnOnce(&dyn Evaluator<G>) -> R>;

/// Counters of one scheduler's calls.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct InFlightStats {
    /// Evaluator calls made (one per key per round).
    pub calls: u64,
    /// Positions evaluated.
    pub positions: u64,
    /// Tasks finished.
    pub tasks: u64,
    /// Wall seconds inside the evaluator calls.
    pub evaluation_seconds: f64,
}

impl InFlightStats {
    /// Mean positions per evaluator call.
    pub fn mean_batch(&self) -> f64 {
        self.positions as f64 / self.calls.max(1) as f64
    }
}

/// One staged request: whose, where its positions are in the round's batch, whether it wants
/// logits.
struct Request {
    slot: usize,
    start: usize,
    len: usize,
    with_policy: bool,
}

/// The requests of one round, their positions in one batch, and (once evaluated) the answers.
struct Round<G> {
    positions: Vec<G>,
    requests: Vec<Request>,
    values: Vec<f32>,
    logits: Vec<f32>,
    /// Whether the evaluator of each request's call gave logits.
    had_policy: Vec<bool>,
    /// The index of each slot's request (`usize::MAX`: none).
    request_by_slot: Vec<usize>,
}

impl<G: Game> Round<G> {
    fn new() -> Self {
        Round {
            positions: Vec::new(),
            requests: Vec::new(),
            values: Vec::new(),
            logits: Vec::new(),
            had_policy: Vec::new(),
            request_by_slot: Vec::new(),
        }
    }

    fn stage(&mut self, slot: usize, positions: &[G], with_policy: bool) {
        if self.request_by_slot.len() <= slot {
            self.request_by_slot.resize(slot + 1, usize::MAX);
        }
        self.request_by_slot[slot] = self.requests.len();
        self.requests.push(Request {
            slot,
            start: self.positions.len(),
            len: positions.len(),
            with_policy,
        });
        self.positions.extend_from_slice(positions);
    }

    /// Empties the round, keeping its buffers.
    fn clear(&mut self) {
        self.positions.clear();
        self.requests.clear();
        self.request_by_slot.fill(usize::MAX);
    }
}

/// The round being staged and the round last answered: a resumed task reads its answer from
/// the one and stages its next request into the other.
struct Staging<G> {
    pending: Round<G>,
    answered: Round<G>,
}

/// The evaluator a task sees: stages its positions and suspends until the scheduler answers.
struct SuspendingEvaluator<'y, G> {
    slot: usize,
    staging: Rc<RefCell<Staging<G>>>,
    yielder: &'y Yielder<(), ()>,
}

impl<G: Game> SuspendingEvaluator<'_, G> {
    /// Stages `positions`, suspends, and returns the index of the answer in the answered round.
    fn ask(&self, positions: &[G], with_policy: bool) -> usize {
        self.staging
            .borrow_mut()
            .pending
            .stage(self.slot, positions, with_policy);
        self.yielder.suspend(());
        self.staging.borrow().answered.request_by_slot[self.slot]
    }
}

impl<G: Game> Evaluator<G> for SuspendingEvaluator<'_, G> {
    fn evaluate(&self, positions: &[G], values_p0: &mut [f32]) {
        if positions.is_empty() {
            return;
        }
        let index = self.ask(positions, false);
        let round = &self.staging.borrow().answered;
        let request = &round.requests[index];
        values_p0.copy_from_slice(&round.values[request.start..request.start + request.len]);
    }

    fn evaluate_with_policy(
        &self,
        positions: &[G],
        values_p0: &mut [f32],
        logits: &mut [f32],
    ) -> bool {
        if positions.is_empty() {
            return false;
        }
        let index = self.ask(positions, true);
        let staging = self.staging.borrow();
        let round = &staging.answered;
        let request = &round.requests[index];
        let range = request.start..request.start + request.len;
        values_p0.copy_from_slice(&round.values[range.clone()]);
        if !round.had_policy[index] {
            return false;
        }
        let a = G::NUM_ACTIONS;
        logits.copy_from_slice(&round.logits[range.start * a..range.end * a]);
        true
    }
}

/// A task in a slot: its coroutine, the evaluator (and its key) its positions go to, whether it
/// waits for values, the evaluation time it has waited through.
struct Running<E, R> {
    coroutine: Coroutine<(), (), R, DefaultStack>,
    key: u64,
    evaluator: E,
    waiting: bool,
    evaluation_seconds: f64,
}

/// What a source of tasks answers when asked for the next one.
pub enum NextTask<T> {
    /// Here it is.
    Task(T),
    /// None now, maybe later (asked without waiting).
    NotYet,
    /// None any more.
    Done,
}

/// A task to start: the key of its evaluator (tasks of one key are evaluated together), the
/// evaluator its positions go to, and the task.
pub type KeyedTask<G, E, R> = (u64, E, Task<G, R>);

/// What the scheduler is given: new tasks for free slots, and where finished ones go.
pub trait TaskSource<G: Game, E, R> {
    /// A task for `slot`. With `wait` false the source answers at once (`NotYet` if it has
    /// none now); with `wait` true (asked only when no task is in flight) it may block.
    fn next_task(&mut self, slot: usize, wait: bool) -> NextTask<KeyedTask<G, E, R>>;

    /// `slot`'s task finished with `result`, having waited `evaluation_seconds` for the
    /// evaluator calls its requests were in.
    fn finished(&mut self, slot: usize, result: R, evaluation_seconds: f64);

    /// Whether to abandon the tasks in flight now (asked after each round of evaluations): they
    /// are dropped unfinished, their stacks unwound. Never, unless the source says so.
    fn abandon(&mut self) -> bool {
        false
    }
}

/// Runs tasks from `source`, at most `capacity` in flight, until it gives no more and every
/// task has finished.
///
/// # Panics
/// If a task panics (the panic goes on from here), or a stack cannot be mapped.
pub fn run_in_flight<G: Game, E: Evaluator<G>, R: 'static>(
    capacity: usize,
    source: &mut dyn TaskSource<G, E, R>,
) -> InFlightStats {
    let mut scheduler = Scheduler {
        slots: (0..capacity.max(1)).map(|_| None).collect(),
        spare_stacks: Vec::new(),
        staging: Rc::new(RefCell::new(Staging {
            pending: Round::new(),
            answered: Round::new(),
        })),
        stats: InFlightStats::default(),
        exhausted: false,
        keys: Vec::new(),
        mine: Vec::new(),
    };
    while scheduler.advance(source) {
        scheduler.evaluate_round();
        if source.abandon() {
            scheduler.slots.clear();
            break;
        }
    }
    scheduler.stats
}

struct Scheduler<G, E, R> {
    slots: Vec<Option<Running<E, R>>>,
    spare_stacks: Vec<DefaultStack>,
    staging: Rc<RefCell<Staging<G>>>,
    stats: InFlightStats,
    exhausted: bool,
    /// A round's distinct keys, and one key's requests: buffers kept between rounds.
    keys: Vec<u64>,
    mine: Vec<usize>,
}

impl<G: Game, E: Evaluator<G>, R: 'static> Scheduler<G, E, R> {
    /// Starts tasks in free slots and resumes every task not waiting, until each is waiting or
    /// no task is left; returns whether some task waits. When no task is in flight and the
    /// source has none now, waits for one.
    fn advance(&mut self, source: &mut dyn TaskSource<G, E, R>) -> bool {
        loop {
            for slot in 0..self.slots.len() {
                self.advance_slot(slot, source);
            }
            if self.slots.iter().any(Option::is_some) {
                return true;
            }
            if self.exhausted || !self.start(0, source, true) {
                return false;
            }
        }
    }

    /// Resumes `slot`'s task (starting new ones there as tasks finish) until it waits or the
    /// source has no task for it now.
    fn advance_slot(&mut self, slot: usize, source: &mut dyn TaskSource<G, E, R>) {
        loop {
            if self.slots[slot].is_none() && !self.start(slot, source, false) {
                return;
            }
            let running = self.slots[slot].as_mut().expect("started");
            if running.waiting {
                return;
            }
            match running.coroutine.resume(()) {
                CoroutineResult::Yield(()) => running.waiting = true,
                CoroutineResult::Return(result) => {
                    let done = self.slots[slot].take().expect("running");
                    self.spare_stacks.push(done.coroutine.into_stack());
                    self.stats.tasks += 1;
                    source.finished(slot, result, done.evaluation_seconds);
                }
            }
        }
    }

    /// A new task in the free `slot`; false when the source has none (now, or any more).
    fn start(&mut self, slot: usize, source: &mut dyn TaskSource<G, E, R>, wait: bool) -> bool {
        if self.exhausted {
            return false;
        }
        let (key, evaluator, task) = match source.next_task(slot, wait) {
            NextTask::Task(task) => task,
            NextTask::NotYet => return false,
            NextTask::Done => {
                self.exhausted = true;
                return false;
            }
        };
        let stack = match self.spare_stacks.pop() {
            Some(stack) => stack,
            None => DefaultStack::new(TASK_STACK_BYTES).expect("a task's stack is mapped"),
        };
        let staging = Rc::clone(&self.staging);
        let coroutine = Coroutine::with_stack(stack, move |yielder: &Yielder<(), ()>, ()| {
            let evaluator = SuspendingEvaluator {
                slot,
                staging,
                yielder,
            };
            task(&evaluator)
        });
        self.slots[slot] = Some(Running {
            coroutine,
            key,
            evaluator,
            waiting: false,
            evaluation_seconds: 0.0,
        });
        true
    }

    /// Evaluates the pending round, one call per key (in the order the keys were first
    /// staged), makes it the answered round and marks every task as answered.
    fn evaluate_round(&mut self) {
        let start = Instant::now();
        let shared = Rc::clone(&self.staging);
        let mut staging = shared.borrow_mut();
        let staging = &mut *staging;
        let round = &mut staging.pending;
        round.values.resize(round.positions.len(), 0.0);
        round.had_policy.clear();
        round.had_policy.resize(round.requests.len(), false);
        let mut keys = std::mem::take(&mut self.keys);
        self.keys_in_order(&round.requests, &mut keys);
        for &key in &keys {
            let mut mine = std::mem::take(&mut self.mine);
            mine.clear();
            mine.extend(
                (0..round.requests.len()).filter(|&i| self.key_of(round.requests[i].slot) == key),
            );
            self.evaluate_key(&mine, round);
            self.mine = mine;
        }
        self.keys = keys;
        let seconds = start.elapsed().as_secs_f64();
        self.stats.evaluation_seconds += seconds;
        self.stats.positions += round.positions.len() as u64;
        std::mem::swap(&mut staging.pending, &mut staging.answered);
        staging.pending.clear();
        for running in self.slots.iter_mut().flatten() {
            running.waiting = false;
            running.evaluation_seconds += seconds;
        }
    }

    /// The distinct keys of `requests` into `keys`, in order of first appearance.
    fn keys_in_order(&self, requests: &[Request], keys: &mut Vec<u64>) {
        keys.clear();
        for request in requests {
            let key = self.key_of(request.slot);
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }

    fn key_of(&self, slot: usize) -> u64 {
        self.slots[slot].as_ref().expect("a staged slot runs").key
    }

    /// One evaluator call over the requests `mine` (those of one key). When they are all the
    /// requests of the round (the usual case) they are evaluated in place; otherwise gathered
    /// first.
    fn evaluate_key(&mut self, mine: &[usize], staging: &mut Round<G>) {
        let first_slot = staging.requests[mine[0]].slot;
        let evaluator = &self.slots[first_slot].as_ref().expect("runs").evaluator;
        let with_policy = mine.iter().any(|&i| staging.requests[i].with_policy);
        let a = G::NUM_ACTIONS;
        self.stats.calls += 1;
        if mine.len() == staging.requests.len() {
            let n = staging.positions.len();
            let had = if with_policy {
                staging.logits.resize(n * a, 0.0);
                evaluator.evaluate_with_policy(
                    &staging.positions,
                    &mut staging.values,
                    &mut staging.logits,
                )
            } else {
                evaluator.evaluate(&staging.positions, &mut staging.values);
                false
            };
            staging.had_policy.fill(had);
            return;
        }
        // Requests of several keys in one round (games that straddle a new network version):
        // gather this key's positions, evaluate, scatter back.
        let positions: Vec<G> = mine
            .iter()
            .flat_map(|&i| {
                let r = &staging.requests[i];
                staging.positions[r.start..r.start + r.len].iter().cloned()
            })
            .collect();
        let mut values = vec![0.0; positions.len()];
        let mut logits = vec![0.0; if with_policy { positions.len() * a } else { 0 }];
        let had = if with_policy {
            evaluator.evaluate_with_policy(&positions, &mut values, &mut logits)
        } else {
            evaluator.evaluate(&positions, &mut values);
            false
        };
        staging.logits.resize(staging.positions.len() * a, 0.0);
        let mut offset = 0;
        for &i in mine {
            let r = &staging.requests[i];
            let range = r.start..r.start + r.len;
            staging.values[range.clone()].copy_from_slice(&values[offset..offset + r.len]);
            if had {
                staging.logits[range.start * a..range.end * a]
                    .copy_from_slice(&logits[offset * a..(offset + r.len) * a]);
            }
            staging.had_policy[i] = had;
            offset += r.len;
        }
    }
}
