//! What a finished self-play game teaches (docs/algorithms.md §3, paper section 3.1).
//!
//! - tree learning: every state of S — expanded or terminal — with its minimax value v(s);
//!   leaves that were only evaluated by the network are never learned (with MCTS and alpha-beta,
//!   self-play gathers the states of their trees instead: see `selfplay::self_play`);
//! - root learning: the positions where a move was searched, with the search's value there,
//!   and the final position with f_t (Algorithm 4 adds it after the loop);
//! - terminal learning (AlphaZero's choice): the same positions, each with f_t of the final
//!   position, and the final position itself (Algorithm 5).
//!
//! Values are P0's view, like the network's output.

use crate::games::Game;
use crate::search::Table;

/// Which states and values are learned after a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Targets {
    Tree,
    Root,
    Terminal,
}

/// A position where self-play searched and moved, with the search's value of it (P0's view).
#[derive(Clone, Debug)]
pub struct SearchedPosition<G> {
    pub position: G,
    pub value_p0: f32,
}

/// Appends the game's learning pairs to `out`, as `(position, target value P0's view)`.
/// `table` is the game's table (needed only for tree learning, which needs it built with
/// `keep_positions`); `final_value_p0` is f_t of the final position `last`.
pub fn collect_pairs<G: Game>(
    targets: Targets,
    table: Option<&Table<G>>,
    searched: &[SearchedPosition<G>],
    last: &G,
    final_value_p0: f32,
    out: &mut Vec<(G, f32)>,
) {
    match targets {
        Targets::Tree => {
            let table = table.expect("tree learning needs the game's search table");
            out.extend(table.learning_pairs().map(|(p, v)| (p.clone(), v)));
        }
        Targets::Root => {
            out.extend(searched.iter().map(|s| (s.position.clone(), s.value_p0)));
            out.push((last.clone(), final_value_p0));
        }
        Targets::Terminal => {
            out.extend(
                searched
                    .iter()
                    .map(|s| (s.position.clone(), final_value_p0)),
            );
            out.push((last.clone(), final_value_p0));
        }
    }
}
