//! Random playouts: the rules benchmark (uniform over the legal moves), and the leaf evaluation
//! of classic MCTS (uniform over `Game::playout_actions`).

use rand::{Rng, RngExt};

use super::game::{Action, Game, Outcome, Player};

/// Plays uniformly random legal moves from `position` until the game ends. `actions` is a
/// scratch buffer (no allocation once it has grown). Returns the outcome and the plies played.
#[inline]
pub fn random_playout<G: Game, R: Rng + ?Sized>(
    position: &mut G,
    rng: &mut R,
    actions: &mut Vec<Action>,
) -> (Outcome, usize) {
    playout_over(position, rng, actions, G::legal_actions, |_, _| {})
}

/// Plays uniformly random moves among `Game::playout_actions` from `position` until the game
/// ends (in Go, never filling one's own eye), on the game's own rules, and appends each move
/// with its player to `played`: the default of `Game::playout_outcome`.
#[inline]
pub fn search_playout<G: Game, R: Rng + ?Sized>(
    position: &mut G,
    rng: &mut R,
    actions: &mut Vec<Action>,
    played: &mut Vec<(Player, Action)>,
) -> (Outcome, usize) {
    playout_over(
        position,
        rng,
        actions,
        G::playout_actions,
        |player, action| {
            played.push((player, action));
        },
    )
}

#[inline]
fn playout_over<G: Game, R: Rng + ?Sized>(
    position: &mut G,
    rng: &mut R,
    actions: &mut Vec<Action>,
    moves: impl Fn(&G, &mut Vec<Action>),
    mut on_move: impl FnMut(Player, Action),
) -> (Outcome, usize) {
    let start = position.ply();
    loop {
        moves(position, actions);
        if actions.is_empty() {
            let outcome = position
                .outcome()
                .expect("a position without legal actions is over");
            return (outcome, position.ply() - start);
        }
        let action = actions[rng.random_range(0..actions.len())];
        on_move(position.to_move(), action);
        position.play(action);
    }
}

/// Totals of a batch of random playouts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlayoutTotals {
    pub games: u64,
    pub moves: u64,
    /// Sum of P0's results (+1 / 0 / -1).
    pub sum_value_p0: f64,
    /// The longest game seen, in plies.
    pub longest: usize,
}

impl PlayoutTotals {
    pub fn add(&mut self, other: &PlayoutTotals) {
        self.games += other.games;
        self.moves += other.moves;
        self.sum_value_p0 += other.sum_value_p0;
        self.longest = self.longest.max(other.longest);
    }
}

/// Plays random games from `initial` until `keep_going(games so far)` says stop (asked before
/// each game). Panics if a game outlasts the game's declared maximum length: a benchmark that
/// asserts a correct result while it times.
pub fn run_playouts<G: Game, R: Rng + ?Sized>(
    initial: &G,
    rng: &mut R,
    mut keep_going: impl FnMut(u64) -> bool,
) -> PlayoutTotals {
    let mut totals = PlayoutTotals::default();
    let mut actions = Vec::with_capacity(G::NUM_ACTIONS);
    let max_length = initial.max_game_length();
    loop {
        if !keep_going(totals.games) {
            return totals;
        }
        let mut position = initial.clone();
        let (outcome, plies) = random_playout(&mut position, rng, &mut actions);
        assert!(
            plies <= max_length,
            "{} game of {plies} plies exceeds its maximum {max_length}",
            G::NAME
        );
        totals.games += 1;
        totals.moves += plies as u64;
        totals.sum_value_p0 += outcome.value_p0() as f64;
        totals.longest = totals.longest.max(plies);
    }
}
