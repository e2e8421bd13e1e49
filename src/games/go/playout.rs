//! Go's random playouts (`Game::playout_outcome`), on the lighter rules Monte-Carlo Go programs
//! play them by: only the stones, the simple-ko point and the last pass are kept — no board
//! history (a playout never checks positional superko, under either `superko` rule), no hash,
//! no mobility. The moves are `playout_actions`' under `superko=draw` (the placements less the
//! mover's eyes, a pass only when there is none), drawn uniformly; the playout ends after two
//! passes in a row or at the game's `max_plies`, and is scored as the game is (Tromp-Taylor,
//! komi). It plays the same moves, and reaches the same result, as `play` would, except where
//! `play` would stop at a recreated board.

use rand::{Rng, RngExt};

use super::Go;
use crate::games::game::{Action, Outcome, Player};

impl<const N: usize> Go<N> {
    /// The moves of a playout at `stones`, `mover` to play and `ko` forbidden, into `out`
    /// (cleared first): the placements that are neither suicide nor the mover's eyes, lowest
    /// point first, or else a pass. Positional superko is not checked.
    pub(super) fn playout_moves(
        stones: &[u128; 2],
        mover: Player,
        ko: Option<usize>,
        out: &mut Vec<Action>,
    ) {
        out.clear();
        let empty = !(stones[0] | stones[1]) & Self::BOARD;
        let open = empty & !ko.map_or(0, |cell| 1u128 << cell) & !Self::eyes_of(stones, mover);
        let with_liberty = open & Self::neighbours(empty);
        let mut placeable = with_liberty;
        let mut to_test = open & !with_liberty;
        while to_test != 0 {
            let cell = to_test.trailing_zeros() as usize;
            to_test &= to_test - 1;
            if Self::place(stones, mover, cell).is_some() {
                placeable |= 1 << cell;
            }
        }
        Self::push_points(placeable, out);
        if out.is_empty() {
            out.push(Self::PASS);
        }
    }

    /// One playout from this position to its end (see the module doc), its moves appended to
    /// `played`; `actions` is scratch.
    pub(super) fn light_playout<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        actions: &mut Vec<Action>,
        played: &mut Vec<(Player, Action)>,
    ) -> Outcome {
        if let Some(outcome) = self.outcome {
            return outcome;
        }
        let (mut stones, mut mover, mut ko) = (self.stones, self.to_move, self.ko);
        let mut last_was_pass = self.last_was_pass;
        let max_plies = self.max_plies();
        for _ in self.ply as usize..max_plies {
            Self::playout_moves(&stones, mover, ko, actions);
            let action = actions[rng.random_range(0..actions.len())];
            played.push((mover, action));
            if action == Self::PASS {
                if last_was_pass {
                    break;
                }
                last_was_pass = true;
                ko = None;
            } else {
                let cell = action as usize;
                let placed = Self::place(&stones, mover, cell).expect("a playout move is legal");
                ko = Self::ko_after(&stones, mover, cell, &placed);
                stones = placed.stones;
                last_was_pass = false;
            }
            mover = mover.opponent();
        }
        Self::scored(&stones, self.params.komi)
    }
}
