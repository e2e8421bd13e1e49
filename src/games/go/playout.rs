//! Go's random playouts (`Game::playout_outcome`), on the lighter rules Monte-Carlo Go programs
//! play them by: only the stones, the simple-ko point and the last move are kept — no board
//! history (a playout never checks positional superko, under either `superko` rule), no hash,
//! no mobility. A move answers the opponent's last placement when it can, as MoGo's playouts do
//! (Gelly et al., *Modification of UCT with patterns in Monte-Carlo Go*, 2006): a capture of an
//! enemy chain in atari beside it, else the escape of one's own chain it put in atari; any other
//! move is drawn uniformly from `playout_actions`' moves under `superko=draw` (the placements
//! less the mover's eyes, a pass only when there is none). The playout ends after two passes in
//! a row or at the game's `max_plies` and is scored as the game is (Tromp-Taylor, komi). Without
//! the answers (`light_playout(false, …)`) it plays the same moves, to the same result, as
//! `play` would, except where `play` would stop at a recreated board.

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
    /// `played`; `actions` is scratch. With `tactics`, a move answering the opponent's last
    /// placement comes first when there is one (`answer_to`); otherwise every move is uniform.
    pub fn light_playout<R: Rng + ?Sized>(
        &self,
        tactics: bool,
        rng: &mut R,
        actions: &mut Vec<Action>,
        played: &mut Vec<(Player, Action)>,
    ) -> Outcome {
        if let Some(outcome) = self.outcome {
            return outcome;
        }
        let (mut stones, mut mover, mut ko) = (self.stones, self.to_move, self.ko);
        let mut last_was_pass = self.last_was_pass;
        let mut last_placement = self.last_placement.map(usize::from);
        let max_plies = self.max_plies();
        for _ in self.ply as usize..max_plies {
            let answer = last_placement
                .filter(|_| tactics)
                .and_then(|last| Self::answer_to(&stones, mover, ko, last, rng));
            let action = match answer {
                Some(cell) => cell as Action,
                None => {
                    Self::playout_moves(&stones, mover, ko, actions);
                    actions[rng.random_range(0..actions.len())]
                }
            };
            played.push((mover, action));
            if action == Self::PASS {
                if last_was_pass {
                    break;
                }
                last_was_pass = true;
                ko = None;
                last_placement = None;
            } else {
                let cell = action as usize;
                let placed = Self::place(&stones, mover, cell).expect("a playout move is legal");
                ko = Self::ko_after(&stones, mover, cell, &placed);
                stones = placed.stones;
                last_was_pass = false;
                last_placement = Some(cell);
            }
            mover = mover.opponent();
        }
        Self::scored(&stones, self.params.komi)
    }

    /// The playout's answer to the opponent's placement on `last`, as MoGo's playouts answer
    /// (Gelly et al., 2006), chosen at random among the first kind there is: a capture of an
    /// enemy chain in atari next to `last` or the one `last` belongs to; else the only liberty
    /// of a `mover` chain next to `last` that `last` put in atari, when playing there leaves it
    /// at least two liberties. Never the ko point, nor suicide.
    fn answer_to<R: Rng + ?Sized>(
        stones: &[u128; 2],
        mover: Player,
        ko: Option<usize>,
        last: usize,
        rng: &mut R,
    ) -> Option<usize> {
        let (mine, theirs) = (stones[mover.index()], stones[1 - mover.index()]);
        let empty = !(mine | theirs) & Self::BOARD;
        let allowed = empty & !ko.map_or(0, |cell| 1u128 << cell);
        let around = 1u128 << last | Self::neighbours(1 << last) | Self::diagonals(1 << last);
        let captures = Self::liberties_of_chains_in_atari(theirs & around, theirs, empty);
        if captures & allowed != 0 {
            return Some(Self::random_point(captures & allowed, rng));
        }
        let mut escapes = 0u128;
        let mut in_atari =
            Self::liberties_of_chains_in_atari(mine & Self::neighbours(1 << last), mine, empty)
                & allowed;
        while in_atari != 0 {
            let cell = in_atari.trailing_zeros() as usize;
            in_atari &= in_atari - 1;
            let saved = Self::place(stones, mover, cell).is_some_and(|placed| {
                let chain = Self::chain(placed.stones[mover.index()], cell);
                let empty_after = !(placed.stones[0] | placed.stones[1]) & Self::BOARD;
                (Self::neighbours(chain) & empty_after).count_ones() >= 2
            });
            if saved {
                escapes |= 1 << cell;
            }
        }
        (escapes != 0).then(|| Self::random_point(escapes, rng))
    }

    /// The single liberties of the chains of `stones` through the points of `seeds` that have
    /// only one.
    fn liberties_of_chains_in_atari(mut seeds: u128, stones: u128, empty: u128) -> u128 {
        let mut liberties = 0;
        while seeds != 0 {
            let chain = Self::chain(stones, seeds.trailing_zeros() as usize);
            seeds &= !chain;
            let chain_liberties = Self::neighbours(chain) & empty;
            if chain_liberties.count_ones() == 1 {
                liberties |= chain_liberties;
            }
        }
        liberties
    }

    /// One of the points of `bits` (not empty), uniformly.
    fn random_point<R: Rng + ?Sized>(bits: u128, rng: &mut R) -> usize {
        let mut rest = bits;
        for _ in 0..rng.random_range(0..bits.count_ones()) {
            rest &= rest - 1;
        }
        rest.trailing_zeros() as usize
    }
}
