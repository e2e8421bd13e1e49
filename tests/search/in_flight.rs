//! Many games in flight on one thread (`search::in_flight`): their evaluations gathered into
//! calls of several games' positions, each game the same as when played alone.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use descent::games::{Awale, ConnectFour, Game, TicTacToe};

use descent::search::in_flight::{KeyedTask, NextTask, Task, TaskSource, run_in_flight};
use descent::search::{ConstantEvaluator, Evaluator, RandomEvaluator, SearchSpec};
use descent::selfplay::recipes::athenan::self_play::{FinishedGame, SelfPlaySettings, SelfPlayer};
use descent::selfplay::run::run_progress::RunProgress;
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

fn settings(search: &str) -> SelfPlaySettings {
    SelfPlaySettings::plain(SearchSpec::parse(search, true).unwrap())
}

/// Counts the calls and positions an evaluator gets, and the largest call.
struct Counting<E> {
    inner: E,
    calls: Cell<u64>,
    positions: Cell<u64>,
    largest: Cell<usize>,
}

impl<E> Counting<E> {
    fn new(inner: E) -> Self {
        Counting {
            inner,
            calls: Cell::new(0),
            positions: Cell::new(0),
            largest: Cell::new(0),
        }
    }

    fn count(&self, n: usize) {
        self.calls.set(self.calls.get() + 1);
        self.positions.set(self.positions.get() + n as u64);
        self.largest.set(self.largest.get().max(n));
    }
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for Counting<E> {
    fn evaluate(&self, positions: &[G], values_p0: &mut [f32]) {
        self.count(positions.len());
        self.inner.evaluate(positions, values_p0);
    }

    fn evaluate_with_policy(
        &self,
        positions: &[G],
        values_p0: &mut [f32],
        logits: &mut [f32],
    ) -> bool {
        self.count(positions.len());
        self.inner
            .evaluate_with_policy(positions, values_p0, logits)
    }
}

type Played<G> = (SelfPlayer<G>, FinishedGame<G>);

/// Self-play games numbered 0.. with their own seeds, `slots` players (one a slot).
struct Games<'e, G: Game, E> {
    initial: G,
    settings: SelfPlaySettings,
    evaluator: &'e E,
    next: u64,
    games: u64,
    idle: Vec<Option<SelfPlayer<G>>>,
    in_play: Vec<u64>,
    finished: Vec<(u64, FinishedGame<G>)>,
}

impl<'e, G: Game, E: Evaluator<G>> TaskSource<G, &'e E, Played<G>> for Games<'e, G, E> {
    fn next_task(&mut self, slot: usize, _wait: bool) -> NextTask<KeyedTask<G, &'e E, Played<G>>> {
        if self.next == self.games {
            return NextTask::Done;
        }
        let index = self.next;
        self.next += 1;
        self.in_play[slot] = index;
        let mut player = self.idle[slot]
            .take()
            .unwrap_or_else(|| SelfPlayer::new(self.settings.clone()));
        let initial = self.initial.clone();
        let task: Task<G, Played<G>> = Box::new(move |evaluator: &dyn Evaluator<G>| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(1000 + index);
            let game = player.play(&initial, &evaluator, &RunProgress::fixed(0.5), &mut rng);
            (player, game)
        });
        NextTask::Task((0, self.evaluator, task))
    }

    fn finished(&mut self, slot: usize, (player, game): Played<G>, _seconds: f64) {
        self.idle[slot] = Some(player);
        self.finished.push((self.in_play[slot], game));
    }
}

/// The games played `slots` at a time, by game number.
fn in_flight<G: Game, E: Evaluator<G>>(
    initial: &G,
    search: &str,
    evaluator: &E,
    games: u64,
    slots: usize,
) -> Vec<FinishedGame<G>> {
    let mut source = Games {
        initial: initial.clone(),
        settings: settings(search),
        evaluator,
        next: 0,
        games,
        idle: (0..slots).map(|_| None).collect(),
        in_play: vec![0; slots],
        finished: Vec::new(),
    };
    let stats = run_in_flight(slots, &mut source);
    assert_eq!(stats.tasks, games);
    let mut finished = source.finished;
    finished.sort_by_key(|(index, _)| *index);
    assert!(
        finished
            .iter()
            .enumerate()
            .all(|(i, (n, _))| i as u64 == *n)
    );
    finished.into_iter().map(|(_, game)| game).collect()
}

/// The same games played one after another, each by a fresh player.
fn one_at_a_time<G: Game, E: Evaluator<G>>(
    initial: &G,
    search: &str,
    evaluator: &E,
    games: u64,
) -> Vec<FinishedGame<G>> {
    (0..games)
        .map(|index| {
            let mut player = SelfPlayer::new(settings(search));
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(1000 + index);
            player.play(initial, evaluator, &RunProgress::fixed(0.5), &mut rng)
        })
        .collect()
}

fn assert_same_games<G: Game>(alone: &[FinishedGame<G>], together: &[FinishedGame<G>], what: &str) {
    assert_eq!(alone.len(), together.len());
    for (i, (a, b)) in alone.iter().zip(together).enumerate() {
        assert_eq!(a.moves, b.moves, "{what}: game {i}'s moves");
        assert_eq!(a.values_p0, b.values_p0, "{what}: game {i}'s values");
        assert_eq!(a.outcome, b.outcome, "{what}: game {i}'s outcome");
        assert_eq!(a.pairs.len(), b.pairs.len(), "{what}: game {i}'s pairs");
        for (p, q) in a.pairs.iter().zip(&b.pairs) {
            assert_eq!((p.0.hash(), p.1), (q.0.hash(), q.1), "{what}: game {i}");
        }
        assert_eq!(a.search.iterations, b.search.iterations);
        assert_eq!(a.search.evaluated_positions, b.search.evaluated_positions);
    }
}

#[test]
fn games_in_flight_are_the_games_played_alone() {
    let evaluator = RandomEvaluator::new(7);
    for search in ["descent:iters=12", "ubfms:iters=25", "puct:iters=40"] {
        let c4 = ConnectFour::new(&Default::default());
        let alone = one_at_a_time(&c4, search, &evaluator, 10);
        for slots in [1, 3, 10, 32] {
            let together = in_flight(&c4, search, &evaluator, 10, slots);
            assert_same_games(&alone, &together, &format!("{search}, {slots} slots"));
        }
        let awale = Awale::new(&Default::default());
        let alone = one_at_a_time(&awale, search, &evaluator, 4);
        let together = in_flight(&awale, search, &evaluator, 4, 4);
        assert_same_games(&alone, &together, &format!("awale, {search}"));
    }
    // The games differ from each other (else the comparison proves little).
    let c4 = ConnectFour::new(&Default::default());
    let games = in_flight(&c4, "descent:iters=12", &evaluator, 10, 4);
    assert!(games.iter().any(|g| g.moves != games[0].moves));
}

#[test]
fn one_call_gathers_the_positions_of_every_game_waiting() {
    let c4 = ConnectFour::new(&Default::default());
    let search = "descent:iters=12";
    let alone = Counting::new(RandomEvaluator::new(3));
    one_at_a_time(&c4, search, &alone, 16);
    let together = Counting::new(RandomEvaluator::new(3));
    in_flight(&c4, search, &together, 16, 16);
    // The same positions in all, in far fewer calls, some holding many games' children (one
    // game asks for at most the 7 children of a position).
    assert_eq!(together.positions.get(), alone.positions.get());
    assert_eq!(alone.largest.get(), 7);
    assert!(
        together.largest.get() > 7 * 8,
        "largest call {}",
        together.largest.get()
    );
    assert!(
        together.calls.get() * 5 < alone.calls.get(),
        "{} calls together, {} alone",
        together.calls.get(),
        alone.calls.get()
    );
}

/// An evaluator whose logits say who it is.
struct Named(f32);

impl Evaluator<TicTacToe> for Named {
    fn evaluate(&self, positions: &[TicTacToe], values_p0: &mut [f32]) {
        assert!(!positions.is_empty());
        values_p0.fill(self.0);
    }

    fn evaluate_with_policy(
        &self,
        positions: &[TicTacToe],
        values_p0: &mut [f32],
        logits: &mut [f32],
    ) -> bool {
        self.evaluate(positions, values_p0);
        logits.fill(10.0 * self.0);
        true
    }
}

/// What each task saw: its number and the values (and a logit) it was given.
type Seen = Rc<RefCell<Vec<(usize, Vec<f32>)>>>;

/// Tasks asking three times (once with logits) for `task number + 1` positions each, through
/// the evaluator of their key (even tasks key 0, odd key 1).
struct Askers<'e> {
    evaluators: [&'e Named; 2],
    started: usize,
    tasks: usize,
    results: Seen,
}

impl<'e> TaskSource<TicTacToe, &'e Named, ()> for Askers<'e> {
    fn next_task(
        &mut self,
        _slot: usize,
        _wait: bool,
    ) -> NextTask<KeyedTask<TicTacToe, &'e Named, ()>> {
        if self.started == self.tasks {
            return NextTask::Done;
        }
        let task_number = self.started;
        self.started += 1;
        let key = task_number % 2;
        let results = Rc::clone(&self.results);
        let task: Task<TicTacToe, ()> = Box::new(move |evaluator: &dyn Evaluator<TicTacToe>| {
            let positions = vec![TicTacToe::new(&Default::default()); 1 + task_number];
            let mut seen = Vec::new();
            for round in 0..3 {
                let mut values = vec![f32::NAN; positions.len()];
                if round == 1 {
                    let mut logits = vec![f32::NAN; positions.len() * TicTacToe::NUM_ACTIONS];
                    assert!(evaluator.evaluate_with_policy(&positions, &mut values, &mut logits));
                    seen.extend_from_slice(&logits[..1]);
                    assert!(logits.iter().all(|&l| l == logits[0]));
                } else {
                    evaluator.evaluate(&positions, &mut values);
                }
                assert!(values.iter().all(|&v| v == values[0]));
                seen.push(values[0]);
            }
            results.borrow_mut().push((task_number, seen));
        });
        NextTask::Task((key as u64, self.evaluators[key], task))
    }

    fn finished(&mut self, _slot: usize, (): (), _seconds: f64) {}
}

#[test]
fn each_task_gets_the_values_and_logits_of_its_own_evaluator() {
    let (plus, minus) = (Named(0.25), Named(-0.5));
    let results = Rc::new(RefCell::new(Vec::new()));
    let mut source = Askers {
        evaluators: [&plus, &minus],
        started: 0,
        tasks: 7,
        results: Rc::clone(&results),
    };
    let stats = run_in_flight(4, &mut source);
    let mut results = results.take();
    results.sort_by_key(|r| r.0);
    assert_eq!(results.len(), 7);
    for (task, seen) in results {
        let v = if task % 2 == 0 { 0.25 } else { -0.5 };
        assert_eq!(seen, vec![v, 10.0 * v, v, v], "task {task}");
    }
    // Two keys in flight: two calls a round.
    assert_eq!(stats.tasks, 7);
    assert_eq!(stats.positions, 3 * (1..=7).sum::<u64>());
    assert!(
        stats.calls >= 6 && stats.calls.is_multiple_of(2),
        "{} calls",
        stats.calls
    );
}

/// Counts drops: the tasks abandoned have their stacks unwound.
struct DropCount(Rc<Cell<u32>>);

impl Drop for DropCount {
    fn drop(&mut self) {
        self.0.set(self.0.get() + 1);
    }
}

struct Endless {
    drops: Rc<Cell<u32>>,
    rounds: u32,
}

impl TaskSource<TicTacToe, ConstantEvaluator, ()> for Endless {
    fn next_task(
        &mut self,
        _slot: usize,
        _wait: bool,
    ) -> NextTask<KeyedTask<TicTacToe, ConstantEvaluator, ()>> {
        let guard = DropCount(Rc::clone(&self.drops));
        let task: Task<TicTacToe, ()> = Box::new(move |evaluator: &dyn Evaluator<TicTacToe>| {
            let _guard = guard;
            let position = [TicTacToe::new(&Default::default())];
            loop {
                evaluator.evaluate(&position, &mut [0.0]);
            }
        });
        NextTask::Task((0, ConstantEvaluator(0.0), task))
    }

    fn finished(&mut self, _slot: usize, (): (), _seconds: f64) {
        unreachable!("endless tasks never finish")
    }

    fn abandon(&mut self) -> bool {
        self.rounds += 1;
        self.rounds == 5
    }
}

#[test]
fn abandoned_tasks_are_dropped_unfinished() {
    let drops = Rc::new(Cell::new(0));
    let mut source = Endless {
        drops: Rc::clone(&drops),
        rounds: 0,
    };
    let stats = run_in_flight(6, &mut source);
    assert_eq!(stats.tasks, 0);
    assert_eq!(stats.calls, 5);
    assert_eq!(stats.positions, 30);
    assert_eq!(drops.get(), 6, "every abandoned task's stack was unwound");
}
