//! One self-play game (the inner loop of paper Algorithm 3): search from the current position
//! with the table kept across the game's moves, draw the move from the root's children with
//! the configured distribution, play it; at the end, turn the game into learning pairs.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rand::RngExt;

use crate::games::{Action, Game, Outcome};
use crate::learn::targets::collect_pairs;
use crate::learn::{ActionSelection, Distribution, Exploitation, SearchedPosition, Targets};
use crate::search::{
    Budget, Evaluator, KeepForLearning, SearchRng, SearchSpec, SearchStats, Searcher, Table,
    TerminalEval,
};
use crate::selfplay::recipes::athenan::settings::AthenanSettings;
use crate::selfplay::run::run_progress::RunProgress;

/// How self-play searches and moves.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlaySettings {
    /// The search (its budget per move included).
    pub search: SearchSpec,
    pub terminal_eval: TerminalEval,
    pub targets: Targets,
    pub selection: ActionSelection,
    /// Keep resolved states across games, emptied this often.
    pub keep_resolved: Option<Duration>,
}

impl SelfPlaySettings {
    /// The players' settings of an Athénan run that searches with `terminal_eval`.
    pub fn of(settings: &AthenanSettings, terminal_eval: TerminalEval) -> SelfPlaySettings {
        SelfPlaySettings {
            search: settings.search.clone(),
            terminal_eval,
            targets: settings.learning.targets,
            selection: settings.selection,
            keep_resolved: settings.keep_resolved,
        }
    }

    /// `search` with the paper's §8.3 self-play around it: tree learning, the classic
    /// terminal evaluation, completed ordinal selection with ε' = 0.5, no resolved states kept
    /// (the settings of benchmarks and tests that need a plain self-play player).
    pub fn plain(search: SearchSpec) -> SelfPlaySettings {
        SelfPlaySettings {
            search,
            terminal_eval: TerminalEval::Classic,
            targets: Targets::Tree,
            selection: ActionSelection {
                distribution: Distribution::Ordinal,
                exploitation: Exploitation::Fixed(0.5),
                completed: true,
            },
            keep_resolved: None,
        }
    }
}

/// What a finished game produced.
#[derive(Clone, Debug)]
pub struct FinishedGame<G> {
    /// The learning pairs `(position, target P0's view)`, before augmentation.
    pub pairs: Vec<(G, f32)>,
    pub moves: Vec<Action>,
    /// The search's value of the position before each move (P0's view).
    pub values_p0: Vec<f32>,
    pub outcome: Outcome,
    /// f_t of the final position.
    pub final_value_p0: f32,
    /// The searches' work, summed over the game's moves.
    pub search: SearchStats,
    /// Wall time of the whole game.
    pub seconds: f64,
    /// States in the game's table at the end (tree searches).
    pub table_states: usize,
}

/// A self-play player: its searcher (with the table it keeps across a game's moves).
pub struct SelfPlayer<G: Game> {
    settings: SelfPlaySettings,
    searcher: Box<dyn Searcher<G>>,
    budget: Budget,
    last_reset: Instant,
    actions: Vec<Action>,
    /// Tree learning with a search without a table (MCTS, alpha-beta): the states of the
    /// game's searches, each once with the value of the last search that valued it, in the
    /// order first seen.
    searched_states: Vec<(G, f32)>,
    searched_index: rustc_hash::FxHashMap<u64, usize>,
    scratch: Vec<(G, f32)>,
    /// Counts every move played, games unfinished included (`descent bench selfplay`).
    moves_played: Option<Arc<AtomicU64>>,
}

impl<G: Game> SelfPlayer<G> {
    /// # Panics
    /// If the search of `settings` has no budget (a one-ply player: the configuration refuses it).
    pub fn new(settings: SelfPlaySettings) -> Self {
        let keep = KeepForLearning {
            terminal_states: true,
            positions: settings.targets == Targets::Tree,
        };
        SelfPlayer {
            searcher: settings.search.build(settings.terminal_eval, keep),
            budget: settings
                .search
                .budget()
                .expect("a self-play search has a budget per move"),
            settings,
            last_reset: Instant::now(),
            actions: Vec::new(),
            searched_states: Vec::new(),
            searched_index: Default::default(),
            scratch: Vec::new(),
            moves_played: None,
        }
    }

    /// The same player, adding one to `counter` at each move it plays.
    pub fn counting_moves_in(mut self, counter: Arc<AtomicU64>) -> Self {
        self.moves_played = Some(counter);
        self
    }

    /// Whether tree learning takes the states of the searches (no table: MCTS, alpha-beta).
    fn learns_searched_states(&self) -> bool {
        self.settings.targets == Targets::Tree && self.searcher.table().is_none()
    }

    /// Records the states in `self.scratch` (a search's tree) for tree learning.
    fn record_searched_states(&mut self) {
        for (position, value_p0) in self.scratch.drain(..) {
            let key = crate::search::table::key_of(&position);
            match self.searched_index.get(&key) {
                Some(&index) => self.searched_states[index].1 = value_p0,
                None => {
                    self.searched_index.insert(key, self.searched_states.len());
                    self.searched_states.push((position, value_p0));
                }
            }
        }
    }

    /// The table of the last game (its states are the tree-learning pairs), for searches with
    /// one.
    pub fn table(&self) -> Option<&Table<G>> {
        self.searcher.table()
    }

    /// Plays one game from `initial`; `progress` is the run's progress, read at each move
    /// (annealing).
    pub fn play<E: Evaluator<G>>(
        &mut self,
        initial: &G,
        evaluator: &E,
        progress: &RunProgress,
        rng: &mut SearchRng,
    ) -> FinishedGame<G> {
        let start = Instant::now();
        self.start_game();
        let mut position = initial.clone();
        let mut searched = Vec::new();
        let mut moves = Vec::new();
        let mut stats = SearchStats::default();
        while !position.is_terminal() {
            let exploitation = self.settings.selection.exploitation_at(progress.now(), rng);
            let (action, value_p0) =
                self.choose_move(&position, evaluator, exploitation, &mut stats, rng);
            searched.push(SearchedPosition {
                position: position.clone(),
                value_p0,
            });
            moves.push(action);
            position.play(action);
            if let Some(counter) = &self.moves_played {
                counter.fetch_add(1, Ordering::Relaxed);
            }
        }
        let outcome = position.outcome().expect("the game is over");
        let final_value_p0 = self.settings.terminal_eval.value_p0(&position);
        let mut pairs = Vec::new();
        if self.learns_searched_states() {
            pairs = std::mem::take(&mut self.searched_states);
        } else {
            let table = self
                .searcher
                .table()
                .filter(|_| self.settings.targets == Targets::Tree);
            collect_pairs(
                self.settings.targets,
                table,
                &searched,
                &position,
                final_value_p0,
                &mut pairs,
            );
        }
        FinishedGame {
            values_p0: searched.iter().map(|s| s.value_p0).collect(),
            pairs,
            moves,
            outcome,
            final_value_p0,
            search: stats,
            seconds: start.elapsed().as_secs_f64(),
            table_states: self.searcher.table().map_or(0, Table::len),
        }
    }

    /// Empties the table, or keeps its resolved states (emptied every `keep_resolved`).
    fn start_game(&mut self) {
        self.searched_states.clear();
        self.searched_index.clear();
        let keep_resolved = match self.settings.keep_resolved {
            Some(period) if self.last_reset.elapsed() < period => true,
            Some(_) => {
                self.last_reset = Instant::now();
                false
            }
            None => false,
        };
        self.searcher.new_game(keep_resolved);
    }

    /// Searches `position` and draws the move; returns it with the search's value of the
    /// position (P0's view).
    fn choose_move<E: Evaluator<G>>(
        &mut self,
        position: &G,
        evaluator: &E,
        exploitation: f64,
        stats: &mut SearchStats,
        rng: &mut SearchRng,
    ) -> (Action, f32) {
        let done = self.searcher.search(position, evaluator, &self.budget, rng);
        stats.add(&done);
        if self.learns_searched_states() {
            self.searcher.searched_states(position, &mut self.scratch);
            self.record_searched_states();
        }
        let root = self.searcher.root(position);
        let value_p0 = root.value_p0.unwrap_or(0.0);
        if !root.children.is_empty() {
            let children = root.children;
            let index =
                self.settings
                    .selection
                    .choose(children, position.to_move(), exploitation, rng);
            return (children[index].action, value_p0);
        }
        // A search that values only its best move (alpha-beta; ε-greedy only, checked by the
        // configuration): that move, or a uniformly random one with probability 1 - ε'.
        position.legal_actions(&mut self.actions);
        let best = self
            .searcher
            .decide(position, rng)
            .unwrap_or(self.actions[0]);
        let action = if rng.random::<f64>() < exploitation {
            best
        } else {
            self.actions[rng.random_range(0..self.actions.len())]
        };
        (action, value_p0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_moves_with_training_time_during_a_game() {
        let progress = RunProgress {
            by_games: 0.2,
            elapsed_at_start: 50.0,
            max_time: Some(100.0),
            started: Instant::now(),
        };
        assert_eq!(progress.at(0.0), 0.5);
        assert_eq!(progress.at(30.0), 0.8);
        assert_eq!(progress.at(400.0), 1.0);
        assert!(progress.now() >= 0.5);
        let by_games = RunProgress {
            by_games: 0.7,
            elapsed_at_start: 10.0,
            max_time: Some(100.0),
            started: Instant::now(),
        };
        assert_eq!(by_games.at(5.0), 0.7, "the nearer limit");
        assert_eq!(RunProgress::fixed(0.3).at(1e6), 0.3);
    }
}
