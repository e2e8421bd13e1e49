//! The replay buffer and the choice of each learning phase's data (docs/algorithms.md §6, paper
//! sections 3.1 and 3.2, Algorithm 8).
//!
//! - `LastGame`: each phase learns the pairs of the game just played, once.
//! - Experience replay (μ, σ): a FIFO of at most μ pairs, or of the pairs of the last μ games;
//!   a phase trains on all of it while it holds at most σ·μ pairs, else on σ·μ pairs drawn at
//!   random without replacement. With a capacity in games, holding k games, the same rule in
//!   games: all pairs while k ≤ σ·μ, else the fraction σ·μ / k of them — so the amount learned
//!   grows continuously as the buffer fills and is σ of the held pairs once μ games are held.
//! - Stratified experience replay (μ games, duplication δ): per game i of the last μ, the pairs
//!   not yet learned D_i and those learned D'_i. A phase takes `ceil(δ/μ · |game i|)` pairs of
//!   every game without replacement, moving them from D_i to D'_i; when D_i runs out it is
//!   refilled from D'_i. Implemented as rounds: each round is a random permutation of the game's
//!   pairs, read in order across phases, and a new round never starts with a pair already taken
//!   in the same phase. A game stays for μ phases, so each pair is learned ⌊δ⌋ or ⌈δ⌉ times
//!   when `δ/μ · |game i|` is a whole number (about δ times otherwise).
//!
//! Limits a run may set game by game (`ReplayLimits`, docs/algorithms.md §6): the window now
//! (μ growing with the games played up to the policy's μ: stratified replay then takes
//! `ceil(δ/window · |game i|)`), the pairs held (whole oldest games evicted, the newest kept),
//! and the pairs a phase learns (a stratified phase's takes scaled down together, in
//! proportion, so that their sum is the bound; other policies draw that many at random).
//!
//! The chosen n pairs are dealt into `g = max(1, ⌊n/B⌋)` minibatches (or g + 1 if that brings
//! ⌊n/g⌋ closer to B) as Algorithm 8 deals them: each pair to a minibatch drawn from a deck of
//! the g, so sizes differ by at most one and every game gives each minibatch its share of its
//! pairs, ⌊l/g⌋ or ⌈l/g⌉ (`LearningPhase::deal`).
//!
//! Pairs are stored encoded (`[planes, rows, cols]` floats) so that the buffer is independent of
//! the game type and can be saved in a checkpoint.

use std::collections::VecDeque;
use std::ops::Range;

use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

pub use crate::value::minibatch::Minibatch;
use crate::value::minibatch::{MinibatchRef, MinibatchSource};

/// What the buffer holds at most.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Capacity {
    Pairs(usize),
    Games(usize),
}

/// How each learning phase picks its data.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum ReplayPolicy {
    LastGame,
    Experience { capacity: Capacity, fraction: f64 },
    Stratified { games: usize, duplication: f64 },
}

/// Limits set on the buffer game by game (none by default: the policy alone).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplayLimits {
    /// The window in games now, at most the policy's μ (stratified, or experience by games).
    pub window_games: Option<usize>,
    /// Pairs held at most: the oldest whole games are evicted first, the newest always kept.
    pub max_pairs_held: Option<usize>,
    /// Pairs one learning phase learns at most.
    pub max_pairs_learned: Option<usize>,
}

/// The pairs of one game. `order[..learned]` is D' (learned), `order[learned..]` is D.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct GamePairs {
    inputs: Vec<f32>,
    targets: Vec<f32>,
    order: Vec<u32>,
    learned: usize,
}

impl GamePairs {
    fn len(&self) -> usize {
        self.targets.len()
    }
}

/// One learning phase's pairs dealt into `count` minibatches as Algorithm 8 deals them, stored
/// minibatch after minibatch (`dealt`) so that a minibatch's list is contiguous; minibatch `k`
/// is `dealt[starts[k]..starts[k + 1]]`.
#[derive(Clone, Debug, Default)]
pub struct LearningPhase {
    dealt: Vec<(usize, u32)>,
    starts: Vec<usize>,
}

impl LearningPhase {
    /// Deals `chosen` (grouped by game: a game's pairs are consecutive) into `count` minibatches
    /// as Algorithm 8 does: each pair goes to a minibatch drawn without replacement from a deck
    /// of all `count`, the deck refilled when empty and carried from one game to the next, so
    /// minibatch sizes differ by at most one. One constraint the paper leaves to chance: a
    /// game's pairs never meet twice in one minibatch within one pass of the deck, so a game
    /// with `l` pairs gives each minibatch `⌊l/count⌋` or `⌈l/count⌉` of them — its share.
    fn deal<R: Rng + ?Sized>(chosen: &[(usize, u32)], count: usize, rng: &mut R) -> LearningPhase {
        let mut batch_of = Vec::with_capacity(chosen.len());
        let mut deck: Vec<usize> = Vec::with_capacity(count);
        for game in chosen.chunk_by(|a, b| a.0 == b.0) {
            for k in 0..game.len() - game.len() % count {
                batch_of.push(k % count);
            }
            let mut this_game = Vec::with_capacity(game.len() % count);
            for _ in 0..game.len() % count {
                if deck.is_empty() {
                    deck.extend(0..count);
                }
                let eligible = |b: &usize| !this_game.contains(b);
                let pick = rng.random_range(0..deck.iter().filter(|b| eligible(b)).count());
                let (at, _) = deck
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| eligible(b))
                    .nth(pick)
                    .unwrap();
                let batch = deck.swap_remove(at);
                this_game.push(batch);
                batch_of.push(batch);
            }
        }
        let mut given = vec![0usize; count];
        for &batch in &batch_of {
            given[batch] += 1;
        }
        let mut starts = Vec::with_capacity(count + 1);
        starts.push(0);
        for k in 0..count {
            starts.push(starts[k] + given[k]);
        }
        let mut next = starts.clone();
        let mut dealt = vec![(0, 0); chosen.len()];
        for (&pair, &batch) in chosen.iter().zip(&batch_of) {
            dealt[next[batch]] = pair;
            next[batch] += 1;
        }
        LearningPhase { dealt, starts }
    }

    pub fn minibatches(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Minibatch `k`'s `(game index, pair index)` list.
    fn pairs(&self, k: usize) -> &[(usize, u32)] {
        &self.dealt[self.starts[k]..self.starts[k + 1]]
    }
}

/// Minibatch `k` of a learning phase: the pairs `LearningPhase::deal` gave it, gathered from
/// the buffer by whoever reads them.
pub struct PhaseMinibatch<'a> {
    buffer: &'a ReplayBuffer,
    phase: &'a LearningPhase,
    k: usize,
}

impl MinibatchSource for PhaseMinibatch<'_> {
    fn len(&self) -> usize {
        self.phase.pairs(self.k).len()
    }

    /// Also asks the CPU to fetch the same positions of the phase's next minibatch, which the
    /// same thread most likely gathers next: the buffer's pairs lie across hundreds of
    /// megabytes, and each one read from memory while the step waits costs it the memory's
    /// latency.
    fn read<'a>(&'a self, range: Range<usize>, scratch: &'a mut Minibatch) -> MinibatchRef<'a> {
        scratch.clear();
        for &pair in &self.phase.pairs(self.k)[range.clone()] {
            let (input, &target) = self.buffer.pair(pair);
            scratch.inputs.extend_from_slice(input);
            scratch.targets.push(target);
        }
        if self.k + 1 < self.phase.minibatches() {
            let next = self.phase.pairs(self.k + 1);
            for &pair in &next[range.start.min(next.len())..range.end.min(next.len())] {
                let (input, target) = self.buffer.pair(pair);
                prefetch(input);
                prefetch(std::slice::from_ref(target));
            }
        }
        scratch.as_ref()
    }
}

/// Asks the CPU to bring `values` into its caches (a hint: nothing is read or waited for):
/// every 64-byte line from the first value's to the last's.
#[inline]
fn prefetch(values: &[f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let last = values.as_ptr_range().end.wrapping_sub(1);
        for line in values.chunks(16).map(<[f32]>::as_ptr).chain([last]) {
            // SAFETY: a prefetch reads nothing and cannot fault (SSE, on every x86-64 CPU).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line.cast()) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = values;
}

/// The replay buffer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayBuffer {
    policy: ReplayPolicy,
    /// Floats per encoded position.
    encoding_len: usize,
    games: VecDeque<GamePairs>,
    pairs: usize,
}

fn shuffle<T, R: Rng + ?Sized>(items: &mut [T], rng: &mut R) {
    for k in (1..items.len()).rev() {
        items.swap(k, rng.random_range(0..=k));
    }
}

/// A replay buffer that breaks its invariants (one read from a damaged or hostile file).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InconsistentBuffer(pub String);

impl ReplayBuffer {
    /// Pair `i` of held game `g`: its encoded position and its target.
    fn pair(&self, (g, i): (usize, u32)) -> (&[f32], &f32) {
        let (pairs, i, len) = (&self.games[g], i as usize, self.encoding_len);
        (&pairs.inputs[i * len..(i + 1) * len], &pairs.targets[i])
    }

    pub fn new(policy: ReplayPolicy, encoding_len: usize) -> ReplayBuffer {
        ReplayBuffer {
            policy,
            encoding_len,
            games: VecDeque::new(),
            pairs: 0,
        }
    }

    pub fn policy(&self) -> ReplayPolicy {
        self.policy
    }

    /// Floats per encoded position.
    pub fn encoding_len(&self) -> usize {
        self.encoding_len
    }

    /// Pairs held.
    pub fn len(&self) -> usize {
        self.pairs
    }

    pub fn is_empty(&self) -> bool {
        self.pairs == 0
    }

    /// Games with pairs held.
    pub fn num_games(&self) -> usize {
        self.games.len()
    }

    /// Checks what a buffer read from a file must hold (every game's inputs are its targets'
    /// encoded positions, its order a permutation of its pairs, the counts add up, the policy's
    /// limits hold): a buffer that fails would panic in a learning phase.
    ///
    /// # Errors
    /// What is wrong, the first thing found.
    pub fn check_consistent(&self) -> Result<(), InconsistentBuffer> {
        if self.encoding_len == 0 {
            return Err(InconsistentBuffer("encoded positions of 0 floats".into()));
        }
        let mut pairs = 0usize;
        for (g, game) in self.games.iter().enumerate() {
            let len = game.len();
            if Some(game.inputs.len()) != len.checked_mul(self.encoding_len) {
                return Err(InconsistentBuffer(format!(
                    "game {g}: inputs are not {len} encoded positions"
                )));
            }
            if game.order.len() != len || game.learned > len {
                return Err(InconsistentBuffer(format!(
                    "game {g}: its learning order does not fit its pairs"
                )));
            }
            let mut seen = vec![false; len];
            for &i in &game.order {
                match seen.get_mut(i as usize) {
                    Some(slot) if !*slot => *slot = true,
                    _ => {
                        return Err(InconsistentBuffer(format!(
                            "game {g}: its learning order is not a permutation"
                        )));
                    }
                }
            }
            if !game.targets.iter().all(|t| t.is_finite()) {
                return Err(InconsistentBuffer(format!(
                    "game {g}: a target is not a finite number"
                )));
            }
            pairs += len;
        }
        if pairs != self.pairs {
            return Err(InconsistentBuffer(format!(
                "{} pairs counted, {pairs} held",
                self.pairs
            )));
        }
        let games_limit = match self.policy {
            ReplayPolicy::LastGame => Some(1),
            ReplayPolicy::Stratified { games, .. }
            | ReplayPolicy::Experience {
                capacity: Capacity::Games(games),
                ..
            } => Some(games),
            ReplayPolicy::Experience { .. } => None,
        };
        if games_limit.is_some_and(|limit| self.games.len() > limit) {
            return Err(InconsistentBuffer(format!(
                "{} games, more than its policy keeps",
                self.games.len()
            )));
        }
        Ok(())
    }

    /// Adds a finished game's pairs (`targets.len()` encoded positions in `inputs`) and evicts
    /// what no longer fits.
    ///
    /// # Panics
    /// If `inputs` does not hold `targets.len()` encoded positions of the buffer's encoding size.
    pub fn add_game<R: Rng + ?Sized>(&mut self, inputs: Vec<f32>, targets: Vec<f32>, rng: &mut R) {
        self.add_game_within(inputs, targets, ReplayLimits::default(), rng);
    }

    /// `add_game` under `limits`' window and bound on the pairs held.
    ///
    /// # Panics
    /// As `add_game`.
    pub fn add_game_within<R: Rng + ?Sized>(
        &mut self,
        inputs: Vec<f32>,
        targets: Vec<f32>,
        limits: ReplayLimits,
        rng: &mut R,
    ) {
        assert_eq!(
            inputs.len(),
            targets.len() * self.encoding_len,
            "inputs are not {} encoded positions",
            targets.len()
        );
        let mut order: Vec<u32> = (0..targets.len() as u32).collect();
        shuffle(&mut order, rng);
        self.pairs += targets.len();
        self.games.push_back(GamePairs {
            inputs,
            targets,
            order,
            learned: 0,
        });
        let window = |games: usize| limits.window_games.map_or(games, |w| w.clamp(1, games));
        match self.policy {
            ReplayPolicy::LastGame => self.keep_games(1),
            ReplayPolicy::Stratified { games, .. } => self.keep_games(window(games)),
            ReplayPolicy::Experience {
                capacity: Capacity::Games(games),
                ..
            } => self.keep_games(window(games)),
            ReplayPolicy::Experience {
                capacity: Capacity::Pairs(capacity),
                ..
            } => self.keep_pairs(capacity),
        }
        if let Some(max) = limits.max_pairs_held {
            while self.pairs > max && self.games.len() > 1 {
                self.drop_oldest_game();
            }
        }
    }

    /// Evicts the oldest game held.
    fn drop_oldest_game(&mut self) {
        let dropped = self.games.pop_front().expect("a game held");
        self.pairs -= dropped.len();
    }

    fn keep_games(&mut self, games: usize) {
        while self.games.len() > games {
            self.drop_oldest_game();
        }
    }

    /// Evicts the oldest pairs (whole games first, then the front of the oldest) down to
    /// `capacity`.
    fn keep_pairs(&mut self, capacity: usize) {
        while self.pairs > capacity {
            let excess = self.pairs - capacity;
            let front = self.games.front_mut().expect("pairs held");
            if front.len() <= excess {
                self.drop_oldest_game();
            } else {
                // Drop the first `excess` pairs of the oldest game (in storage order).
                front.inputs.drain(..excess * self.encoding_len);
                front.targets.drain(..excess);
                front.order = (0..front.targets.len() as u32).collect();
                front.learned = 0;
                self.pairs -= excess;
            }
        }
    }

    /// Picks the data of one learning phase and deals it into minibatches of about
    /// `batch_size` pairs.
    pub fn learning_phase<R: Rng + ?Sized>(
        &mut self,
        batch_size: usize,
        rng: &mut R,
    ) -> Vec<Minibatch> {
        let phase = self.plan_learning_phase(batch_size, ReplayLimits::default(), rng);
        (0..phase.minibatches())
            .map(|k| {
                let mut batch = Minibatch::default();
                self.fill_minibatch(&phase, k, &mut batch);
                batch
            })
            .collect()
    }

    /// Picks the data of one learning phase, shuffled and dealt into minibatches of about
    /// `batch_size` pairs that `fill_minibatch` copies out one at a time (what
    /// `learning_phase` returns, without holding the whole phase's copy).
    pub fn plan_learning_phase<R: Rng + ?Sized>(
        &mut self,
        batch_size: usize,
        limits: ReplayLimits,
        rng: &mut R,
    ) -> LearningPhase {
        let mut chosen = self.choose(limits, rng);
        if chosen.is_empty() {
            return LearningPhase::default();
        }
        let count = minibatch_count(chosen.len(), batch_size);
        chosen.sort_by_key(|&(game, _)| game);
        LearningPhase::deal(&chosen, count, rng)
    }

    /// Minibatch `k` of `phase` into `batch` (its buffers reused).
    pub fn fill_minibatch(&self, phase: &LearningPhase, k: usize, batch: &mut Minibatch) {
        let minibatch = self.minibatch(phase, k);
        minibatch.read(0..minibatch.len(), batch);
    }

    /// Minibatch `k` of `phase`, read where its pairs lie by the training step's threads
    /// (`NetOptimizer::step_from`): the same pairs in the same order as `fill_minibatch`.
    pub fn minibatch<'a>(&'a self, phase: &'a LearningPhase, k: usize) -> PhaseMinibatch<'a> {
        assert!(
            k < phase.minibatches(),
            "minibatch {k} of a phase of {}",
            phase.minibatches()
        );
        PhaseMinibatch {
            buffer: self,
            phase,
            k,
        }
    }

    /// `(game index, pair index)` of the pairs this phase learns.
    fn choose<R: Rng + ?Sized>(&mut self, limits: ReplayLimits, rng: &mut R) -> Vec<(usize, u32)> {
        let cap = limits.max_pairs_learned.unwrap_or(usize::MAX);
        let all = |games: &VecDeque<GamePairs>| {
            games
                .iter()
                .enumerate()
                .flat_map(|(g, pairs)| (0..pairs.len() as u32).map(move |i| (g, i)))
                .collect::<Vec<_>>()
        };
        let mut chosen = match self.policy {
            ReplayPolicy::LastGame => all(&self.games),
            ReplayPolicy::Experience { capacity, fraction } => {
                let (held, limit) = match capacity {
                    Capacity::Pairs(pairs) => (self.pairs, fraction * pairs as f64),
                    Capacity::Games(games) => (self.games.len(), fraction * games as f64),
                };
                let mut chosen = all(&self.games);
                if held as f64 > limit {
                    let sample = match capacity {
                        Capacity::Pairs(_) => limit.ceil() as usize,
                        Capacity::Games(_) => {
                            (self.pairs as f64 * limit / held as f64).ceil() as usize
                        }
                    };
                    uniform_subset(&mut chosen, sample, rng);
                }
                chosen
            }
            ReplayPolicy::Stratified { games, duplication } => {
                let window = limits.window_games.map_or(games, |w| w.clamp(1, games));
                let takes: Vec<usize> = self
                    .games
                    .iter()
                    .map(|pairs| {
                        let take = (duplication / window as f64) * pairs.len() as f64;
                        (take.ceil() as usize).min(pairs.len())
                    })
                    .collect();
                return self.take_stratified(&scaled_to(&takes, cap), rng);
            }
        };
        uniform_subset(&mut chosen, cap, rng);
        chosen
    }

    /// Takes `takes[g]` pairs of each held game `g` for a stratified phase: the next ones of
    /// its round, a new round started where D runs out.
    fn take_stratified<R: Rng + ?Sized>(
        &mut self,
        takes: &[usize],
        rng: &mut R,
    ) -> Vec<(usize, u32)> {
        let mut chosen = Vec::new();
        for ((g, pairs), &take) in self.games.iter_mut().enumerate().zip(takes) {
            let unlearned = pairs.len() - pairs.learned;
            if take > unlearned {
                // D runs out: take what is left, then start a new round over all the game's
                // pairs in a new random order whose head (taken now) holds no pair taken
                // earlier in this phase.
                let more = take - unlearned;
                let (before, just_taken) = pairs.order.split_at(pairs.learned);
                chosen.extend(just_taken.iter().map(|&i| (g, i)));
                let mut head = before.to_vec();
                shuffle(&mut head, rng);
                let mut tail = head.split_off(more);
                tail.extend_from_slice(just_taken);
                shuffle(&mut tail, rng);
                chosen.extend(head.iter().map(|&i| (g, i)));
                head.extend_from_slice(&tail);
                pairs.order = head;
                pairs.learned = more;
            } else {
                let start = pairs.learned;
                chosen.extend(pairs.order[start..start + take].iter().map(|&i| (g, i)));
                pairs.learned += take;
            }
        }
        chosen
    }
}

/// Keeps a uniform draw of `count` of `items` (all of them if there are no more): a partial
/// Fisher-Yates, whose first `count` entries are the draw.
fn uniform_subset<T, R: Rng + ?Sized>(items: &mut Vec<T>, count: usize, rng: &mut R) {
    if count == usize::MAX {
        return;
    }
    for k in 0..count.min(items.len()) {
        let j = rng.random_range(k..items.len());
        items.swap(k, j);
    }
    items.truncate(count);
}

/// `takes` scaled down together so that they sum to at most `cap`: each take in proportion,
/// rounded by cumulative sums (take `g` becomes `⌊C_g·cap/T⌋ − ⌊C_{g−1}·cap/T⌋`, `C_g` the
/// sum of the first g + 1 takes, `T` of all), so that the sum is exactly `cap` and no take
/// grows. Unchanged when they already fit.
fn scaled_to(takes: &[usize], cap: usize) -> Vec<usize> {
    let total: usize = takes.iter().sum();
    if total <= cap {
        return takes.to_vec();
    }
    let (mut sum, mut given) = (0u128, 0usize);
    takes
        .iter()
        .map(|&take| {
            sum += take as u128;
            let upto = (sum * cap as u128 / total as u128) as usize;
            let scaled = upto - given;
            given = upto;
            scaled
        })
        .collect()
}

/// Number of minibatches for n pairs and batch size B, as Algorithm 8: `g = max(1, ⌊n/B⌋)`,
/// or g + 1 when `|⌊n/g⌋ − B| > |⌊n/(g+1)⌋ − B|`.
pub fn minibatch_count(n: usize, batch_size: usize) -> usize {
    let g = (n / batch_size.max(1)).max(1);
    let error = |count: usize| (n / count).abs_diff(batch_size);
    if error(g) > error(g + 1) { g + 1 } else { g }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::Xoshiro256PlusPlus;

    /// A game of `len` pairs whose targets are unique ids `first..first+len` (encoding length 2:
    /// both floats equal to the id, so inputs can be checked against targets).
    fn game(first: usize, len: usize) -> (Vec<f32>, Vec<f32>) {
        let targets: Vec<f32> = (first..first + len).map(|i| i as f32).collect();
        let inputs = targets.iter().flat_map(|&t| [t, t]).collect();
        (inputs, targets)
    }

    fn learned_ids(batches: &[Minibatch]) -> Vec<usize> {
        let mut ids = Vec::new();
        for b in batches {
            assert_eq!(b.inputs.len(), 2 * b.targets.len());
            for (k, &t) in b.targets.iter().enumerate() {
                assert_eq!(b.inputs[2 * k], t, "inputs travel with their target");
                ids.push(t as usize);
            }
        }
        ids
    }

    /// A stratified buffer (μ, δ) holding games of `len` pairs with ids from each of `firsts`.
    fn stratified_buffer(
        (games, duplication): (usize, f64),
        firsts: &[usize],
        len: usize,
        rng: &mut Xoshiro256PlusPlus,
    ) -> ReplayBuffer {
        let policy = ReplayPolicy::Stratified { games, duplication };
        let mut buffer = ReplayBuffer::new(policy, 2);
        for &first in firsts {
            let (inputs, targets) = game(first, len);
            buffer.add_game(inputs, targets, rng);
        }
        buffer
    }

    #[test]
    fn a_damaged_buffer_is_found_inconsistent() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let buffer = stratified_buffer((3, 1.0), &[0, 10], 5, &mut rng);
        assert_eq!(buffer.check_consistent(), Ok(()));
        let damaged: [fn(&mut ReplayBuffer); 6] = [
            |b| b.encoding_len = 3,
            |b| b.pairs += 1,
            |b| b.games[1].order[0] = b.games[1].order[1],
            |b| b.games[0].order[2] = 99,
            |b| b.games[0].learned = 6,
            |b| {
                b.games[1].inputs.pop();
            },
        ];
        for (k, damage) in damaged.iter().enumerate() {
            let mut copy = buffer.clone();
            damage(&mut copy);
            assert!(copy.check_consistent().is_err(), "damage {k} not found");
        }
    }

    #[test]
    fn stratified_rounds_a_fractional_quota_up() {
        // μ = 4, δ = 3, |game| = 7: δ/μ·|game| = 5.25 → 6 pairs of the game per phase.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
        let policy = ReplayPolicy::Stratified {
            games: 4,
            duplication: 3.0,
        };
        let mut buffer = ReplayBuffer::new(policy, 2);
        let (inputs, targets) = game(0, 7);
        buffer.add_game(inputs, targets, &mut rng);
        let mut seen = vec![0usize; 7];
        for phase in 0..3 {
            let ids = learned_ids(&buffer.learning_phase(128, &mut rng));
            assert_eq!(ids.len(), 6, "phase {phase}");
            for id in ids {
                seen[id] += 1;
            }
        }
        // 18 draws over 7 pairs, rounds without repeats: each pair 2 or 3 times.
        assert!(seen.iter().all(|&n| n == 2 || n == 3), "{seen:?}");
        assert_eq!(seen.iter().sum::<usize>(), 18);
    }

    /// The learning rule's bound: a stratified phase's takes scaled down together to exactly
    /// the bound (each game its share, by cumulative rounding), other policies a draw of that
    /// many; no bound, no change.
    #[test]
    fn a_phase_learns_at_most_its_bound_each_game_its_share() {
        assert_eq!(scaled_to(&[6, 6, 3], 100), vec![6, 6, 3]);
        // T = 15, cap 5: cumulative 6, 12, 15 → ⌊2⌋, ⌊4⌋, ⌊5⌋ → 2, 2, 1.
        assert_eq!(scaled_to(&[6, 6, 3], 5), vec![2, 2, 1]);
        assert_eq!(scaled_to(&[7, 0, 1], 4), vec![3, 0, 1]);
        assert_eq!(scaled_to(&[5, 5], 0), vec![0, 0]);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let mut buffer = stratified_buffer((2, 2.0), &[0, 100], 40, &mut rng);
        // Unbounded: δ/μ · 40 = 40 pairs of each game.
        let mut unbounded = buffer.clone();
        let phase = unbounded.plan_learning_phase(16, ReplayLimits::default(), &mut rng);
        let all: usize = (0..phase.minibatches()).map(|k| phase.pairs(k).len()).sum();
        assert_eq!(all, 80);
        let limits = ReplayLimits {
            max_pairs_learned: Some(30),
            ..ReplayLimits::default()
        };
        let phase = buffer.plan_learning_phase(16, limits, &mut rng);
        let mut per_game = [0usize; 2];
        for k in 0..phase.minibatches() {
            for &(g, _) in phase.pairs(k) {
                per_game[g] += 1;
            }
        }
        assert_eq!(per_game, [15, 15], "30 pairs, half from each game");
        // Experience replay: a uniform draw of the bound.
        let mut last = ReplayBuffer::new(ReplayPolicy::LastGame, 2);
        let (inputs, targets) = game(0, 50);
        last.add_game(inputs, targets, &mut rng);
        let ids = learned_ids(&last.learning_phase(128, &mut rng));
        assert_eq!(ids.len(), 50);
        let phase = last.plan_learning_phase(128, limits, &mut rng);
        assert_eq!(phase.pairs(0).len(), 30);
        let distinct: std::collections::BTreeSet<_> = phase.pairs(0).iter().collect();
        assert_eq!(distinct.len(), 30, "drawn without replacement");
    }

    /// A growing window keeps `window` games and takes δ/window of each; a bound on the pairs
    /// held evicts the oldest whole games, never the newest.
    #[test]
    fn the_window_grows_and_the_pairs_held_are_bounded() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let policy = ReplayPolicy::Stratified {
            games: 8,
            duplication: 2.0,
        };
        let mut buffer = ReplayBuffer::new(policy, 2);
        let limits = |window| ReplayLimits {
            window_games: Some(window),
            ..ReplayLimits::default()
        };
        for (n, window) in [1, 1, 2, 2, 3].into_iter().enumerate() {
            let (inputs, targets) = game(100 * n, 10);
            buffer.add_game_within(inputs, targets, limits(window), &mut rng);
            assert_eq!(buffer.num_games(), window, "after game {n}");
        }
        // A window of 3: ⌈2/3 · 10⌉ = 7 pairs of each of the 3 games.
        let phase = buffer.plan_learning_phase(64, limits(3), &mut rng);
        assert_eq!(phase.pairs(0).len(), 21);
        // A window past μ is μ.
        for n in 5..15 {
            let (inputs, targets) = game(100 * n, 10);
            buffer.add_game_within(inputs, targets, limits(1000), &mut rng);
        }
        assert_eq!(buffer.num_games(), 8);
        let held = ReplayLimits {
            max_pairs_held: Some(25),
            ..ReplayLimits::default()
        };
        let (inputs, targets) = game(5000, 10);
        buffer.add_game_within(inputs, targets, held, &mut rng);
        assert_eq!((buffer.num_games(), buffer.len()), (2, 20));
        let (inputs, targets) = game(6000, 40);
        buffer.add_game_within(inputs, targets, held, &mut rng);
        assert_eq!(
            (buffer.num_games(), buffer.len()),
            (1, 40),
            "the newest game stays"
        );
        buffer.check_consistent().unwrap();
    }

    #[test]
    fn minibatch_sizes() {
        assert_eq!(minibatch_count(10, 128), 1);
        assert_eq!(minibatch_count(256, 128), 2);
        // 300/2 = 150 vs 300/3 = 100: |150-128| = 22 < 28 → 2.
        assert_eq!(minibatch_count(300, 128), 2);
        // 360/2 = 180 vs 120: 3.
        assert_eq!(minibatch_count(360, 128), 3);
        // ⌊n/g⌋ as Algorithm 8: 641/5 = 128.2 and 641/6 = 106.8 — g = 5; 767/5 = 153, 767/6
        // = 127 (the means 153.4 vs 127.8): 6.
        assert_eq!(minibatch_count(641, 128), 5);
        assert_eq!(minibatch_count(767, 128), 6);
    }

    #[test]
    fn stratified_learns_each_pair_delta_times_and_keeps_mu_games() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let (mu, delta) = (5usize, 3.0);
        let mut buffer = ReplayBuffer::new(
            ReplayPolicy::Stratified {
                games: mu,
                duplication: delta,
            },
            2,
        );
        // Games of 10, 25 and 40 pairs: δ/μ·len = 6, 15, 24 pairs per phase.
        let sizes = [10usize, 25, 40, 10, 25, 40, 10, 25, 40, 10, 25, 40];
        let mut counts = vec![0u32; sizes.iter().sum()];
        let mut first = 0;
        let mut firsts = Vec::new();
        for &len in &sizes {
            let (inputs, targets) = game(first, len);
            buffer.add_game(inputs, targets, &mut rng);
            firsts.push(first);
            first += len;
            assert!(buffer.num_games() <= mu);
            let batches = buffer.learning_phase(16, &mut rng);
            let ids = learned_ids(&batches);
            // Without replacement within a phase.
            let mut unique = ids.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), ids.len(), "a pair twice in one phase");
            for id in ids {
                counts[id] += 1;
            }
        }
        assert_eq!(buffer.num_games(), mu);
        assert_eq!(
            buffer.len(),
            sizes[sizes.len() - mu..].iter().sum::<usize>()
        );
        // The games that have left the buffer stayed μ phases: each of their pairs was learned
        // ⌊δ⌋ or ⌈δ⌉ times (δ = 3 exactly here).
        for g in 0..sizes.len() - mu {
            for (id, &count) in counts.iter().enumerate().skip(firsts[g]).take(sizes[g]) {
                assert_eq!(count, 3, "pair {id} of game {g}");
            }
        }
    }

    #[test]
    fn stratified_with_fractional_duplication() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        // μ = 4, δ = 2.5, games of 8 pairs: 5 pairs per phase, 20 over a stay → 2 or 3 each.
        let mut buffer = ReplayBuffer::new(
            ReplayPolicy::Stratified {
                games: 4,
                duplication: 2.5,
            },
            2,
        );
        let mut counts = vec![0u32; 8 * 10];
        for g in 0..10 {
            let (inputs, targets) = game(8 * g, 8);
            buffer.add_game(inputs, targets, &mut rng);
            for id in learned_ids(&buffer.learning_phase(4, &mut rng)) {
                counts[id] += 1;
            }
        }
        for (id, count) in counts.iter().enumerate().take(8 * 6) {
            assert!((2..=3).contains(count), "pair {id}: {count}");
        }
        let total: u32 = counts[..8 * 6].iter().sum();
        assert_eq!(total, 6 * 4 * 5);
    }

    #[test]
    fn experience_replay_is_a_fifo_and_samples_sigma_mu_once_full() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut buffer = ReplayBuffer::new(
            ReplayPolicy::Experience {
                capacity: Capacity::Pairs(100),
                fraction: 0.25,
            },
            2,
        );
        // 15 pairs: ≤ σμ = 25, everything is learned.
        let (inputs, targets) = game(0, 15);
        buffer.add_game(inputs, targets, &mut rng);
        let mut ids = learned_ids(&buffer.learning_phase(8, &mut rng));
        ids.sort_unstable();
        assert_eq!(ids, (0..15).collect::<Vec<_>>());
        // 15 + 7·15 = 120 pairs offered: the oldest 20 are evicted.
        for g in 1..8 {
            let (inputs, targets) = game(15 * g, 15);
            buffer.add_game(inputs, targets, &mut rng);
        }
        assert_eq!(buffer.len(), 100);
        let ids = learned_ids(&buffer.learning_phase(8, &mut rng));
        assert_eq!(ids.len(), 25);
        assert!(
            ids.iter().all(|&id| id >= 20),
            "evicted pair learned: {ids:?}"
        );
        let mut unique = ids.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), 25);
    }

    #[test]
    fn experience_replay_in_games_and_last_game() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(6);
        let mut buffer = ReplayBuffer::new(
            ReplayPolicy::Experience {
                capacity: Capacity::Games(4),
                fraction: 0.5,
            },
            2,
        );
        for g in 0..6 {
            let (inputs, targets) = game(10 * g, 10);
            buffer.add_game(inputs, targets, &mut rng);
        }
        assert_eq!(buffer.num_games(), 4);
        assert_eq!(buffer.len(), 40);
        // 4 games = μ > σμ = 2: half of the 40 pairs.
        assert_eq!(learned_ids(&buffer.learning_phase(8, &mut rng)).len(), 20);

        let mut last = ReplayBuffer::new(ReplayPolicy::LastGame, 2);
        for g in 0..3 {
            let (inputs, targets) = game(10 * g, 10);
            last.add_game(inputs, targets, &mut rng);
        }
        let mut ids = learned_ids(&last.learning_phase(4, &mut rng));
        ids.sort_unstable();
        assert_eq!(ids, (20..30).collect::<Vec<_>>());
    }

    #[test]
    fn experience_replay_by_games_learns_a_continuous_amount_as_it_fills() {
        // μ = 20 games, σ = 0.25: all pairs up to 5 games, then 5/k of the k games' pairs.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let mut buffer = ReplayBuffer::new(
            ReplayPolicy::Experience {
                capacity: Capacity::Games(20),
                fraction: 0.25,
            },
            2,
        );
        let mut learned = Vec::new();
        for g in 0..24 {
            let (inputs, targets) = game(1000 * g, 177);
            buffer.add_game(inputs, targets, &mut rng);
            learned.push(learned_ids(&buffer.learning_phase(64, &mut rng)).len());
        }
        let expected: Vec<usize> = (1..=24usize)
            .map(|k| {
                let held = k.min(20);
                if held <= 5 {
                    177 * held
                } else {
                    (177.0 * held as f64 * 5.0 / held as f64).ceil() as usize
                }
            })
            .collect();
        assert_eq!(learned, expected);
        // No drop when the buffer passes σμ games: 885 after game 5, 885 after game 6.
        assert_eq!((learned[4], learned[5]), (885, 885));
    }

    #[test]
    fn minibatches_mix_games() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
        let mut buffer = ReplayBuffer::new(
            ReplayPolicy::Experience {
                capacity: Capacity::Games(2),
                fraction: 1.0,
            },
            2,
        );
        for g in 0..2 {
            let (inputs, targets) = game(100 * g, 100);
            buffer.add_game(inputs, targets, &mut rng);
        }
        let batches = buffer.learning_phase(50, &mut rng);
        assert_eq!(batches.len(), 4);
        for b in &batches {
            assert_eq!(b.targets.len(), 50);
            assert!(b.targets.iter().any(|&t| t < 100.0) && b.targets.iter().any(|&t| t >= 100.0));
        }
    }

    /// Algorithm 8's deal: every chosen pair in exactly one minibatch, sizes within one of each
    /// other, and each game's pairs in a minibatch within one of its share l/g — for stratified
    /// phases of 40 games of uneven lengths (the old shuffle-then-round-robin deal gave a game
    /// of 8 pairs two in one of 30 minibatches).
    #[test]
    #[allow(clippy::needless_range_loop)] // k indexes both the minibatches and the counts
    fn a_phase_deals_each_games_share_to_every_minibatch() {
        for (seed, batch_size) in [(0, 7), (1, 16), (2, 50), (3, 128), (4, 1000)] {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let policy = ReplayPolicy::Stratified {
                games: 40,
                duplication: 3.0,
            };
            let mut buffer = ReplayBuffer::new(policy, 2);
            let mut first = 0;
            for g in 0..40 {
                let len = 20 + (g * 37) % 90;
                let (inputs, targets) = game(first, len);
                buffer.add_game(inputs, targets, &mut rng);
                first += len;
            }
            let phase = buffer.plan_learning_phase(batch_size, ReplayLimits::default(), &mut rng);
            let count = phase.minibatches();
            let mut per_game = vec![vec![0usize; count]; 40];
            let mut all = Vec::new();
            for k in 0..count {
                for &(g, i) in phase.pairs(k) {
                    per_game[g][k] += 1; // game g's pairs in minibatch k
                    all.push((g, i));
                }
            }
            let sizes: Vec<usize> = (0..count).map(|k| phase.pairs(k).len()).collect();
            let (smallest, largest) = (sizes.iter().min(), sizes.iter().max());
            assert!(largest.unwrap() - smallest.unwrap() <= 1, "sizes {sizes:?}");
            assert_eq!(count, minibatch_count(all.len(), batch_size));
            all.sort_unstable();
            all.dedup();
            assert_eq!(all.len(), sizes.iter().sum::<usize>(), "a pair dealt twice");
            for (g, counts) in per_game.iter().enumerate() {
                let taken: usize = counts.iter().sum();
                let (floor, ceil) = (taken / count, taken.div_ceil(count));
                assert!(
                    counts.iter().all(|&c| c == floor || c == ceil),
                    "batch size {batch_size}: game {g} with {taken} pairs over {count} minibatches: {counts:?}"
                );
            }
        }
    }

    /// A minibatch read in parts, from either end, gathers the same positions as a whole.
    #[test]
    fn a_minibatch_reads_the_same_in_any_parts() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut buffer = ReplayBuffer::new(ReplayPolicy::LastGame, 2);
        let (inputs, targets) = game(0, 300);
        buffer.add_game(inputs, targets, &mut rng);
        let phase = buffer.plan_learning_phase(64, ReplayLimits::default(), &mut rng);
        let (mut whole, mut parts) = (Minibatch::default(), Minibatch::default());
        for k in 0..phase.minibatches() {
            buffer.fill_minibatch(&phase, k, &mut whole);
            let minibatch = buffer.minibatch(&phase, k);
            assert_eq!(minibatch.len(), whole.targets.len());
            let cut = minibatch.len() / 3;
            let mut scratch = Minibatch::default();
            parts.clear();
            for range in [0..cut, cut..minibatch.len()] {
                let read = minibatch.read(range, &mut scratch);
                parts.inputs.extend_from_slice(read.inputs);
                parts.targets.extend_from_slice(read.targets);
            }
            assert_eq!(parts, whole);
            for (pair, &id) in whole.inputs.chunks(2).zip(&whole.targets) {
                assert_eq!(pair, [id, id], "a position with its own target");
            }
        }
    }
}
