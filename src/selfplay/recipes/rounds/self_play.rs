//! The self-play of a round recipe that searches every move with its network — AlphaZero with
//! PUCT, Gumbel AlphaZero with Gumbel search: `parallel_games` games played to their ends in
//! lockstep, each step one leaf of every game's search evaluated in one network call (batched
//! leaf evaluation without virtual loss: each game contributes one leaf per call). What differs
//! between the recipes — the tree of a move's search, the move played, the policy learned — is
//! the recipe's `SelfPlaySearch`; the rest is here.
//!
//! With `threads` above 1 the round's games are shared by that many threads (thread `t` of `n`
//! plays `(games + n - 1 - t) / n` of them: the counts differ by one at most), each with its own
//! lockstep loop, network calls and random stream, seeded by one draw each from the trainer's
//! stream: a round plays the same games whatever the machine's timing, for one seed and thread
//! count. One thread plays from the trainer's stream itself, as the recipe always did. A game
//! starts from the initial position, or with `random_opening_plies` from a random opening drawn
//! from its thread's stream. With `fast_simulations` (playout cap randomisation, KataGo's),
//! each move's search is drawn full or fast from the thread's stream before it starts, and only
//! the positions of full searches are learned.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use crate::games::random_positions::random_opening;
use crate::games::{Action, Game};
use crate::search::{Budget, SearchSpec};
use crate::selfplay::config::RecipeSettings;
use crate::selfplay::recipes::rounds::settings::SelfPlaySettings;
use crate::value::PolicyValueInference;

/// What a round recipe that searches every self-play move with its network decides; the
/// lockstep self-play (`play_round_games`) and the trainer (`SelfPlayTrainer`) do the rest.
pub trait SelfPlaySearch<G: Game>: Sized + 'static {
    /// The metrics line's `kind` of a round, e.g. `alphazero_round`.
    const ROUND_KIND: &'static str;
    /// The search's own settings (its section's keys beyond the ones every such recipe has).
    type Options: Clone + std::fmt::Debug + PartialEq + Send + Sync;
    /// The tree of one move's search.
    type Tree: MoveTree<G> + Send;

    /// The recipe's settings, when `recipe` is this recipe's.
    fn settings(recipe: &RecipeSettings) -> Option<&SelfPlaySettings<Self::Options>>;

    /// The search of a move from `position`: a full one (learned, with its exploration noise)
    /// or a fast one (played only, without noise), of `simulations` simulations.
    fn new_tree(position: &G, options: &Self::Options, simulations: u32, full: bool) -> Self::Tree;

    /// The move to play from the searched tree at `ply` (the position's ply).
    fn play_choice(
        tree: &mut Self::Tree,
        ply: usize,
        options: &Self::Options,
        rng: &mut Xoshiro256PlusPlus,
    ) -> Action;

    /// The search the network plays in evaluations at `budget` a move, without exploration
    /// noise, and its name in the metrics (`model=<current>`).
    fn evaluation_search(options: &Self::Options, budget: Budget) -> (String, SearchSpec);
}

/// The tree of one move's search, as the lockstep self-play drives it: a leaf at a time.
pub trait MoveTree<G: Game> {
    /// Whether the move's search is complete after `simulations` simulations.
    fn is_done(&self, simulations: u32) -> bool;

    /// The next leaf to evaluate, `None` when the simulation ended on a terminal state.
    fn next_leaf(&mut self) -> Option<&G>;

    /// Expands the leaf last returned with the network's value (P0's view) and logits.
    fn expand(&mut self, value_p0: f32, logits: &[f32], rng: &mut Xoshiro256PlusPlus);

    /// The policy target over every action id, into `out`.
    fn policy_target(&mut self, out: &mut Vec<f32>);

    /// The value learned with the position when the move `played` is played, P0's view.
    fn root_value_p0(&self, played: Action) -> f32;
}

/// A game of self-play in progress.
pub struct SelfPlayGame<G: Game, S: SelfPlaySearch<G>> {
    pub position: G,
    search: MoveSearch<S::Tree>,
    /// Each position played from after a full search, in order.
    pub history: Vec<PlayedPosition>,
}

/// The search of a game's next move: its tree, the simulations it runs, and whether it is a
/// full search (learned) or a fast one (played only).
struct MoveSearch<T> {
    tree: T,
    simulations: u32,
    full: bool,
}

/// A position of a self-play game with what its search found.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayedPosition {
    /// The position's encoding.
    pub input: Vec<f32>,
    /// The policy target: the root's visit distribution (PUCT) or improved policy (Gumbel).
    pub policy: Vec<f32>,
    /// The root's mean value after the search, P0's view.
    pub root_value_p0: f32,
}

/// What a round's self-play returns: its finished games, thread by thread and in the order they
/// ended, and the positions the network evaluated.
pub struct RoundGames<G: Game, S: SelfPlaySearch<G>> {
    pub finished: Vec<SelfPlayGame<G, S>>,
    pub evaluated: u64,
}

/// Plays `settings.parallel_games` games from `initial` on `settings.threads` threads, each
/// move searched as the recipe `S` searches.
pub fn play_round_games<G: Game, S: SelfPlaySearch<G>>(
    initial: &G,
    settings: &SelfPlaySettings<S::Options>,
    inference: &PolicyValueInference,
    rng: &mut Xoshiro256PlusPlus,
) -> RoundGames<G, S> {
    let threads = settings.threads.clamp(1, settings.parallel_games.max(1));
    let player = |games: usize, rng: &mut Xoshiro256PlusPlus| {
        LockstepPlayer {
            settings,
            inference,
            rng,
        }
        .play::<G, S>(initial, games)
    };
    if threads == 1 {
        return player(settings.parallel_games, rng);
    }
    let seeds: Vec<u64> = (0..threads).map(|_| rand::Rng::next_u64(rng)).collect();
    let per_thread: Vec<RoundGames<G, S>> = std::thread::scope(|scope| {
        let handles: Vec<_> = seeds
            .iter()
            .enumerate()
            .map(|(t, &seed)| {
                let games = (settings.parallel_games + threads - 1 - t) / threads;
                scope.spawn(move || player(games, &mut Xoshiro256PlusPlus::seed_from_u64(seed)))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a self-play thread panicked"))
            .collect()
    });
    let mut round = RoundGames {
        finished: Vec::with_capacity(settings.parallel_games),
        evaluated: 0,
    };
    for part in per_thread {
        round.finished.extend(part.finished);
        round.evaluated += part.evaluated;
    }
    round
}

/// One thread's games, advanced in lockstep with one network call a step.
struct LockstepPlayer<'a, O> {
    settings: &'a SelfPlaySettings<O>,
    inference: &'a PolicyValueInference,
    rng: &'a mut Xoshiro256PlusPlus,
}

impl<O> LockstepPlayer<'_, O> {
    /// Plays `count` games from `initial` to their ends.
    fn play<G: Game, S: SelfPlaySearch<G, Options = O>>(
        mut self,
        initial: &G,
        count: usize,
    ) -> RoundGames<G, S> {
        let mut games: Vec<SelfPlayGame<G, S>> =
            (0..count).map(|_| self.new_game::<G, S>(initial)).collect();
        let actions = G::NUM_ACTIONS;
        let (mut inputs, mut values, mut logits) = (Vec::new(), Vec::new(), Vec::new());
        let mut waiting = Vec::new();
        let mut finished = Vec::with_capacity(count);
        let mut evaluated = 0;
        while !games.is_empty() {
            inputs.clear();
            waiting.clear();
            let mut g = 0;
            while g < games.len() {
                if self.advance(&mut games[g], &mut inputs) {
                    waiting.push(g);
                    g += 1;
                } else {
                    finished.push(games.swap_remove(g));
                }
            }
            if waiting.is_empty() {
                continue;
            }
            values.resize(waiting.len(), 0.0);
            logits.resize(waiting.len() * actions, 0.0);
            evaluated += waiting.len() as u64;
            self.inference
                .predict_into(&inputs, &mut values, Some(&mut logits));
            for (k, &g) in waiting.iter().enumerate() {
                let logits = &logits[k * actions..(k + 1) * actions];
                games[g].search.tree.expand(values[k], logits, self.rng);
            }
        }
        RoundGames {
            finished,
            evaluated,
        }
    }

    /// A game from `initial`, or from a random opening (`random_opening_plies`; no random draw
    /// when it is 0, so that such runs play the games they always did).
    fn new_game<G: Game, S: SelfPlaySearch<G, Options = O>>(
        &mut self,
        initial: &G,
    ) -> SelfPlayGame<G, S> {
        let most = self.settings.random_opening_plies;
        let position = match most {
            0 => initial.clone(),
            _ => {
                let plies = self.rng.random_range(0..=most);
                random_opening(initial, plies, &mut *self.rng)
            }
        };
        SelfPlayGame {
            search: self.new_search::<G, S>(&position),
            position,
            history: Vec::new(),
        }
    }

    /// The search of the next move from `position`: a full one (the settings' simulations,
    /// exploration noise, learned), or with `fast_simulations` and a draw against
    /// `full_search_fraction`, a fast one without noise (no draw when it is off).
    fn new_search<G: Game, S: SelfPlaySearch<G, Options = O>>(
        &mut self,
        position: &G,
    ) -> MoveSearch<S::Tree> {
        let settings = self.settings;
        let fast = settings
            .fast_simulations
            .filter(|_| !self.rng.random_bool(settings.full_search_fraction));
        let simulations = fast.unwrap_or(settings.simulations);
        let full = fast.is_none();
        MoveSearch {
            tree: S::new_tree(position, &settings.search, simulations, full),
            simulations,
            full,
        }
    }

    /// Runs `game`'s search to its next leaf needing the network, whose encoding it appends to
    /// `inputs`, playing moves whenever the search of one is complete; false when the game is
    /// over.
    fn advance<G: Game, S: SelfPlaySearch<G, Options = O>>(
        &mut self,
        game: &mut SelfPlayGame<G, S>,
        inputs: &mut Vec<f32>,
    ) -> bool {
        loop {
            if game.position.is_terminal() {
                return false;
            }
            if game.search.tree.is_done(game.search.simulations) {
                self.play_move::<G, S>(game);
                continue;
            }
            if let Some(position) = game.search.tree.next_leaf() {
                let at = inputs.len();
                inputs.resize(at + G::ENCODING.len(), 0.0);
                position.encode(&mut inputs[at..]);
                return true;
            }
        }
    }

    /// Records the position with its policy target after a full search, and plays the
    /// recipe's move.
    fn play_move<G: Game, S: SelfPlaySearch<G, Options = O>>(
        &mut self,
        game: &mut SelfPlayGame<G, S>,
    ) {
        let ply = game.position.ply();
        let tree = &mut game.search.tree;
        let action = S::play_choice(tree, ply, &self.settings.search, self.rng);
        if game.search.full {
            let mut input = vec![0.0; G::ENCODING.len()];
            game.position.encode(&mut input);
            let mut policy = Vec::new();
            tree.policy_target(&mut policy);
            game.history.push(PlayedPosition {
                input,
                policy,
                root_value_p0: tree.root_value_p0(action),
            });
        }
        game.position.play(action);
        game.search = self.new_search::<G, S>(&game.position);
    }
}
