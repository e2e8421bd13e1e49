//! Go's random playouts (`Game::playout_outcome`), on the lighter rules Monte-Carlo Go programs
//! play them by: only the stones, the simple-ko point and the last move are kept — no board
//! history (a playout never checks positional superko, under either `superko` rule), no hash,
//! no mobility. A move replies to the opponent's last placement when it can, as MoGo's playouts
//! do (Gelly et al., *Modification of UCT with patterns in Monte-Carlo Go*, 2006): a capture of
//! an enemy chain in atari beside it, else the escape of one's own chain it put in atari, else a
//! point around it that matches one of MoGo's 3 × 3 patterns (`patterns.rs`) and is no
//! self-atari. Any other move is drawn uniformly from `playout_actions`' moves under
//! `superko=draw` (the placements less the mover's eyes, a pass only when there is none),
//! drawing again while it would leave a chain of two stones or more in atari. The playout ends
//! after two passes in a row or at the game's `max_plies` and is scored as the game is
//! (Tromp-Taylor, komi). Without these tactics (`light_playout(false, …)`) it plays the same
//! moves, to the same result, as `play` would, except where `play` would stop at a recreated
//! board.

use rand::{Rng, RngExt};

use super::{Go, Placement, patterns};
use crate::games::game::{Action, Outcome, Player};

/// What a playout move is chosen from: the stones, the player to move and the point a simple ko
/// forbids it.
#[derive(Clone, Copy)]
struct Turn<'a> {
    stones: &'a [u128; 2],
    mover: Player,
    ko: Option<usize>,
}

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
        let open = empty & !Self::ko_bit(ko) & !Self::eyes_of(stones, mover);
        let placeable = Self::non_suicides(stones, mover, open);
        Self::push_points(placeable, out);
        if out.is_empty() {
            out.push(Self::PASS);
        }
    }

    /// One playout from this position to its end (see the module doc), its moves appended to
    /// `played`; `actions` is scratch. With `tactics`, a reply to the opponent's last placement
    /// comes first when there is one (`reply_to`), and random moves avoid self-ataris of chains
    /// (`random_move`); without, every move is uniform.
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
            let turn = Turn {
                stones: &stones,
                mover,
                ko,
            };
            let reply = last_placement
                .filter(|_| tactics)
                .and_then(|last| Self::reply_to(turn, last, rng));
            let (action, placed) = match reply {
                Some(cell) => (cell as Action, None),
                None => Self::random_move(turn, tactics, rng, actions),
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
                let placed = placed
                    .or_else(|| Self::place(&stones, mover, cell))
                    .expect("a playout move is legal");
                ko = Self::ko_after(&stones, mover, cell, &placed);
                stones = placed.stones;
                last_was_pass = false;
                last_placement = Some(cell);
            }
            mover = mover.opponent();
        }
        Self::scored(&stones, self.params.komi)
    }

    /// The playout's reply to the opponent's placement on `last`: its answer to an atari
    /// (`answer_to`), else a move that matches a MoGo pattern (`pattern_reply`).
    fn reply_to<R: Rng + ?Sized>(turn: Turn<'_>, last: usize, rng: &mut R) -> Option<usize> {
        Self::answer_to(turn, last, rng).or_else(|| Self::pattern_reply(turn, last, rng))
    }

    /// One of the empty points among the eight around `last` whose neighbourhood matches one of
    /// MoGo's 3 × 3 patterns (`patterns.rs`), at random; never the ko point, suicide or a
    /// self-atari.
    fn pattern_reply<R: Rng + ?Sized>(turn: Turn<'_>, last: usize, rng: &mut R) -> Option<usize> {
        let Turn { stones, mover, ko } = turn;
        let empty = !(stones[0] | stones[1]) & Self::BOARD;
        let around = Self::neighbours(1 << last) | Self::diagonals(1 << last);
        let mut candidates = around & empty & !Self::ko_bit(ko);
        let mut replies = 0u128;
        while candidates != 0 {
            let cell = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            if patterns::matches(Self::neighbourhood(stones, cell))
                && Self::place(stones, mover, cell)
                    .is_some_and(|placed| Self::self_atari(&placed.stones, mover, cell) == 0)
            {
                replies |= 1 << cell;
            }
        }
        (replies != 0).then(|| Self::random_point(replies, rng))
    }

    /// A move drawn uniformly from `playout_moves` (into `actions`), with its placement when it
    /// computed one. With `tactics`, a draw that puts a chain of two stones or more in atari is
    /// put back and another drawn (a lone stone in atari may be a throw-in), unless it is the
    /// last move left.
    fn random_move<R: Rng + ?Sized>(
        turn: Turn<'_>,
        tactics: bool,
        rng: &mut R,
        actions: &mut Vec<Action>,
    ) -> (Action, Option<Placement>) {
        let Turn { stones, mover, ko } = turn;
        Self::playout_moves(stones, mover, ko, actions);
        loop {
            let index = rng.random_range(0..actions.len());
            let action = actions[index];
            if !tactics || action == Self::PASS {
                return (action, None);
            }
            let cell = action as usize;
            let placed = Self::place(stones, mover, cell).expect("a playout move is legal");
            if actions.len() == 1 || Self::self_atari(&placed.stones, mover, cell) < 2 {
                return (action, Some(placed));
            }
            actions.swap_remove(index);
        }
    }

    /// The size of `mover`'s chain through `cell` on `stones` if it has a single liberty, else
    /// 0.
    fn self_atari(stones: &[u128; 2], mover: Player, cell: usize) -> u32 {
        let chain = Self::chain(stones[mover.index()], cell);
        let empty = !(stones[0] | stones[1]) & Self::BOARD;
        if (Self::neighbours(chain) & empty).count_ones() == 1 {
            chain.count_ones()
        } else {
            0
        }
    }

    /// The playout's answer to the opponent's placement on `last`, as MoGo's playouts answer
    /// (Gelly et al., 2006), chosen at random among the first kind there is: a capture of an
    /// enemy chain in atari next to `last` or the one `last` belongs to; else the only liberty
    /// of a `mover` chain next to `last` that `last` put in atari, when playing there leaves it
    /// at least two liberties. Never the ko point, nor suicide.
    fn answer_to<R: Rng + ?Sized>(turn: Turn<'_>, last: usize, rng: &mut R) -> Option<usize> {
        let Turn { stones, mover, ko } = turn;
        let (mine, theirs) = (stones[mover.index()], stones[1 - mover.index()]);
        let empty = !(mine | theirs) & Self::BOARD;
        let allowed = empty & !Self::ko_bit(ko);
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
            // A legal placement keeps a liberty: no self-atari means two or more.
            let saved = Self::place(stones, mover, cell)
                .is_some_and(|placed| Self::self_atari(&placed.stones, mover, cell) == 0);
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

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::Xoshiro256PlusPlus;

    use super::*;
    use crate::games::{Game, GameExt, GoRules};

    #[test]
    fn random_moves_put_back_a_self_atari_of_two_stones_but_not_of_one() {
        // White's a1 beside Black's a3 and b2: a2 would leave White's a1 a2 one liberty (b1),
        // b1 keeps two (a2, c1). A White stone on c1, between Black's c2 and d1, would be alone
        // with one liberty (b1): a throw-in, kept.
        let mut position = Go::<9>::new(&GoRules::default());
        position.play_moves("a3 a1 b2 j9 d1 j8 c2").unwrap();
        let draws_of = |point: &str, tactics: bool| {
            let target = Go::<9>::action_from_text(Player::P1, point).unwrap();
            let mut actions = Vec::new();
            (0..3000)
                .filter(|&seed| {
                    let rng = &mut Xoshiro256PlusPlus::seed_from_u64(seed);
                    let turn = Turn {
                        stones: &position.stones,
                        mover: position.to_move,
                        ko: position.ko,
                    };
                    let (action, _) = Go::<9>::random_move(turn, tactics, rng, &mut actions);
                    action == target
                })
                .count()
        };
        // Uniform draws reach each point about 3000/72 times.
        assert_eq!(draws_of("a2", true), 0);
        assert!(draws_of("a2", false) > 10);
        assert!(draws_of("c1", true) > 10);
    }
}
