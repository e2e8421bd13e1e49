//! The self-play of an AlphaZero round: `parallel_games` games played to their ends in lockstep,
//! each step one leaf of every game's PUCT search evaluated in one network call (batched leaf
//! evaluation without virtual loss: each game contributes one leaf per call).
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
use crate::search::gumbel::{self, GumbelOptions, GumbelTree};
use crate::search::puct::{Leaf, PuctOptions, PuctTree, choose_by_visits, visit_distribution};
use crate::selfplay::recipes::alphazero::settings::AlphaZeroSettings;
use crate::value::PolicyValueInference;

/// A game of self-play in progress.
pub struct SelfPlayGame<G: Game> {
    pub position: G,
    search: MoveSearch<G>,
    /// Each position played from after a full search, in order.
    pub history: Vec<PlayedPosition>,
}

/// The search of a game's next move: its tree, the simulations it runs, and whether it is a
/// full search (learned) or a fast one (played only).
struct MoveSearch<G: Game> {
    tree: MoveTree<G>,
    simulations: u32,
    full: bool,
}

/// The tree of a move's search: PUCT (AlphaZero) or Gumbel search (`alphazero.search: gumbel`,
/// Gumbel AlphaZero).
enum MoveTree<G: Game> {
    Puct(PuctTree<G>),
    Gumbel(GumbelTree<G>),
}

impl<G: Game> MoveTree<G> {
    /// Whether the move's search is complete after `simulations` simulations.
    fn is_done(&self, simulations: u32) -> bool {
        match self {
            MoveTree::Puct(tree) => tree.simulations() > simulations,
            MoveTree::Gumbel(tree) => tree.is_done(),
        }
    }

    /// The next leaf to evaluate, `None` when the simulation ended on a terminal state.
    fn next_leaf(&mut self) -> Option<&G> {
        match self {
            MoveTree::Puct(tree) => match tree.next_leaf() {
                Leaf::Evaluate(position) => Some(position),
                Leaf::Resolved => None,
            },
            MoveTree::Gumbel(tree) => match tree.next_leaf() {
                gumbel::Leaf::Evaluate(position) => Some(position),
                gumbel::Leaf::Resolved => None,
            },
        }
    }

    fn expand(&mut self, value_p0: f32, logits: &[f32], rng: &mut Xoshiro256PlusPlus) {
        match self {
            MoveTree::Puct(tree) => tree.expand(value_p0, logits, rng),
            MoveTree::Gumbel(tree) => tree.expand(value_p0, Some(logits), rng),
        }
    }

    /// The policy target: the root's visit distribution (PUCT) or its improved policy
    /// (Gumbel), over every action id.
    fn policy_target(&mut self, out: &mut Vec<f32>) {
        match self {
            MoveTree::Puct(tree) => visit_distribution(&tree.root_visits(), G::NUM_ACTIONS, out),
            MoveTree::Gumbel(tree) => tree.improved_policy_target(out),
        }
    }

    /// The root's value after the search, P0's view: PUCT's mean; Gumbel's, the mean of the
    /// move it plays.
    fn root_value_p0(&self, played: Action) -> f32 {
        match self {
            MoveTree::Puct(tree) => tree.root_value_p0(),
            MoveTree::Gumbel(tree) => tree.child_value_p0(played),
        }
    }

    /// The move to play: PUCT's drawn from its visits at `temperature`; Gumbel's its own
    /// choice (the root's Gumbel noise is its exploration).
    fn play_choice(&mut self, temperature: f32, rng: &mut Xoshiro256PlusPlus) -> Action {
        match self {
            MoveTree::Puct(tree) => choose_by_visits(&tree.root_visits(), temperature, rng),
            MoveTree::Gumbel(tree) => tree.chosen(),
        }
    }
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
pub struct RoundGames<G: Game> {
    pub finished: Vec<SelfPlayGame<G>>,
    pub evaluated: u64,
}

/// Plays `settings.parallel_games` games from `initial` on `settings.threads` threads.
pub fn play_round_games<G: Game>(
    initial: &G,
    settings: &AlphaZeroSettings,
    inference: &PolicyValueInference,
    rng: &mut Xoshiro256PlusPlus,
) -> RoundGames<G> {
    let threads = settings.threads.clamp(1, settings.parallel_games.max(1));
    let player = |games: usize, rng: &mut Xoshiro256PlusPlus| {
        LockstepPlayer {
            settings,
            inference,
            rng,
        }
        .play(initial, games)
    };
    if threads == 1 {
        return player(settings.parallel_games, rng);
    }
    let seeds: Vec<u64> = (0..threads).map(|_| rand::Rng::next_u64(rng)).collect();
    let per_thread: Vec<RoundGames<G>> = std::thread::scope(|scope| {
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
struct LockstepPlayer<'a> {
    settings: &'a AlphaZeroSettings,
    inference: &'a PolicyValueInference,
    rng: &'a mut Xoshiro256PlusPlus,
}

impl LockstepPlayer<'_> {
    /// Plays `count` games from `initial` to their ends.
    fn play<G: Game>(mut self, initial: &G, count: usize) -> RoundGames<G> {
        let mut games: Vec<SelfPlayGame<G>> = (0..count).map(|_| self.new_game(initial)).collect();
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
    fn new_game<G: Game>(&mut self, initial: &G) -> SelfPlayGame<G> {
        let most = self.settings.random_opening_plies;
        let position = match most {
            0 => initial.clone(),
            _ => {
                let plies = self.rng.random_range(0..=most);
                random_opening(initial, plies, &mut *self.rng)
            }
        };
        SelfPlayGame {
            search: self.new_search(&position),
            position,
            history: Vec::new(),
        }
    }

    /// The search of the next move from `position`: a full one (the settings' simulations, root
    /// noise, learned), or with `fast_simulations` and a draw against `full_search_fraction`, a
    /// fast one without noise (no draw when it is off).
    fn new_search<G: Game>(&mut self, position: &G) -> MoveSearch<G> {
        let settings = self.settings;
        let fast = settings
            .fast_simulations
            .filter(|_| !self.rng.random_bool(settings.full_search_fraction));
        let simulations = fast.unwrap_or(settings.simulations);
        let tree = match settings.gumbel {
            Some(gumbel) => MoveTree::Gumbel(GumbelTree::new(
                position,
                GumbelOptions {
                    noise: fast.is_none(),
                    ..gumbel
                },
                simulations as usize,
            )),
            None => MoveTree::Puct(PuctTree::new(
                position,
                match fast {
                    Some(_) => PuctOptions {
                        dirichlet_fraction: 0.0,
                        ..settings.puct
                    },
                    None => settings.puct,
                },
            )),
        };
        MoveSearch {
            tree,
            simulations,
            full: fast.is_none(),
        }
    }

    /// Runs `game`'s search to its next leaf needing the network, whose encoding it appends to
    /// `inputs`, playing moves whenever the search of one is complete; false when the game is
    /// over.
    fn advance<G: Game>(&mut self, game: &mut SelfPlayGame<G>, inputs: &mut Vec<f32>) -> bool {
        loop {
            if game.position.is_terminal() {
                return false;
            }
            if game.search.tree.is_done(game.search.simulations) {
                self.play_move(game);
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

    /// Records the position with its visit distribution after a full search, and plays the
    /// chosen move.
    fn play_move<G: Game>(&mut self, game: &mut SelfPlayGame<G>) {
        let temperature = match game.position.ply() < self.settings.temperature_plies {
            true => 1.0,
            false => 0.0,
        };
        let action: Action = game.search.tree.play_choice(temperature, self.rng);
        if game.search.full {
            let mut input = vec![0.0; G::ENCODING.len()];
            game.position.encode(&mut input);
            let mut policy = Vec::new();
            game.search.tree.policy_target(&mut policy);
            game.history.push(PlayedPosition {
                input,
                policy,
                root_value_p0: game.search.tree.root_value_p0(action),
            });
        }
        game.position.play(action);
        game.search = self.new_search(&game.position);
    }
}
