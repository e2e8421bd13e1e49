//! Arimaa's turn under way: the board, the steps taken, the push or pull pending, and which
//! steps the rules allow (one that leaves the turn impossible to end legally is not).

use super::*;

/// The last step's consequence for the next one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pending {
    Nothing,
    /// An own piece of `kind` left `from`: a weaker enemy piece next to `from` may be pulled in.
    Pull {
        kind: u8,
        from: u8,
    },
    /// An enemy piece of `kind` was pushed off `from`: a stronger own piece must step in.
    Push {
        kind: u8,
        from: u8,
    },
}

impl Pending {
    pub(super) fn key(self) -> u64 {
        match self {
            Pending::Nothing => 0,
            Pending::Pull { kind, from } => PULL_KEYS[kind as usize * CELLS + from as usize],
            Pending::Push { kind, from } => PUSH_KEYS[kind as usize * CELLS + from as usize],
        }
    }

    pub(super) fn mirrored(self) -> Pending {
        match self {
            Pending::Nothing => Pending::Nothing,
            Pending::Pull { kind, from } => Pending::Pull {
                kind,
                from: mirror_square(from as usize) as u8,
            },
            Pending::Push { kind, from } => Pending::Push {
                kind,
                from: mirror_square(from as usize) as u8,
            },
        }
    }
}

/// The board and the turn in progress: everything a step's legality depends on, except the
/// repetition history.
#[derive(Clone, Copy, Debug)]
pub(super) struct Turn {
    pub(super) board: Board,
    pub(super) mover: u8,
    /// Steps taken in this turn (0-3; a fourth ends the turn).
    pub(super) steps: u8,
    pub(super) pending: Pending,
    /// The board's hash and mirror hash when the turn started.
    pub(super) start: (u64, u64),
}

impl Turn {
    /// Calls `f(square, direction)` for every step the rules allow here, in increasing action id
    /// order, without asking whether the turn can be ended afterwards; stops when `f` returns
    /// false.
    pub(super) fn for_each_step(&self, mut f: impl FnMut(usize, usize) -> bool) {
        let me = self.mover as usize;
        let board = &self.board;
        let empty = board.empty();
        if let Pending::Push { kind, from } = self.pending {
            let hole = from as usize;
            let pushers = board.unfrozen_stronger(me)[kind as usize] & neighbours(1 << hole);
            for_each_bit(pushers, |square| {
                let direction = (0..4).find(|&d| target(square, d) == Some(hole));
                f(square, direction.expect("a neighbour of the hole"))
            });
            return;
        }
        let unfrozen = board.unfrozen(me);
        let stronger = board.unfrozen_stronger(me);
        let can_push = self.steps + 2 <= MAX_STEPS;
        let pull = match self.pending {
            Pending::Pull { kind, from } => Some((kind as usize, from as usize)),
            _ => None,
        };
        for_each_bit(board.occupied[0] | board.occupied[1], |square| {
            let (color, kind) = board.piece(square).expect("an occupied square");
            let movable = if color == me {
                unfrozen & (1 << square) != 0
            } else {
                kind != ELEPHANT
            };
            if !movable {
                return true;
            }
            let pushable = color != me && can_push && neighbours(1 << square) & stronger[kind] != 0;
            for direction in 0..4 {
                let Some(to) = target(square, direction) else {
                    continue;
                };
                if empty & (1 << to) == 0 {
                    continue;
                }
                let allowed = if color == me {
                    kind != RABBIT || direction != BACKWARD[me]
                } else {
                    pushable || pull.is_some_and(|(k, from)| from == to && kind < k)
                };
                if allowed && !f(square, direction) {
                    return false;
                }
            }
            true
        });
    }

    /// Plays the step of the piece on `square` in `direction`; returns whether a piece was
    /// captured on a trap.
    pub(super) fn step(&mut self, square: usize, direction: usize) -> bool {
        let to = target(square, direction).expect("a step on the board");
        let (color, kind) = self.board.piece(square).expect("a piece to step");
        let captured = self.board.step(square, to);
        self.pending = if color == self.mover as usize {
            match self.pending {
                Pending::Push { .. } => Pending::Nothing,
                _ => Pending::Pull {
                    kind: kind as u8,
                    from: square as u8,
                },
            }
        } else {
            match self.pending {
                Pending::Pull { kind: k, from } if from as usize == to && kind < k as usize => {
                    Pending::Nothing
                }
                _ => Pending::Push {
                    kind: kind as u8,
                    from: square as u8,
                },
            }
        };
        self.steps += 1;
        captured
    }

    /// The repetition key of the position after this turn ends: the board, the opponent to move.
    pub(super) fn end_key(&self) -> u64 {
        self.board.hash ^ side_key(1 - self.mover as usize)
    }

    /// Whether the turn may end here: a step taken, no push to complete, the board changed, and
    /// not the third time this position occurs.
    pub(super) fn can_end(&self, history: &RepetitionHistory) -> bool {
        self.steps > 0
            && !matches!(self.pending, Pending::Push { .. })
            && self.board.hash != self.start.0
            && history.count(self.end_key()) < 2
    }

    /// Whether the turn, after the steps taken, can still end legally (a fourth step ends it).
    pub(super) fn completable(&self, history: &RepetitionHistory) -> bool {
        let can_end = self.can_end(history);
        if can_end || self.steps == MAX_STEPS {
            return can_end;
        }
        let mut found = false;
        self.for_each_step(|square, direction| {
            let mut next = *self;
            next.step(square, direction);
            found = next.completable(history);
            !found
        });
        found
    }

    /// Whether stepping the piece on `square` in `direction` is legal: the rules allow it and
    /// the turn can still be ended afterwards.
    pub(super) fn step_is_legal(
        &self,
        square: usize,
        direction: usize,
        history: &RepetitionHistory,
    ) -> bool {
        let mut next = *self;
        next.step(square, direction);
        next.completable(history)
    }

    /// Calls `f` with each legal action id (steps, then `end`), in increasing order.
    pub(super) fn for_each_legal(&self, history: &RepetitionHistory, mut f: impl FnMut(Action)) {
        self.for_each_step(|square, direction| {
            if self.step_is_legal(square, direction, history) {
                f(step_id(square, direction));
            }
            true
        });
        if self.can_end(history) {
            f(END_TURN as Action);
        }
    }

    /// Whether the mover has any legal action.
    pub(super) fn has_legal_action(&self, history: &RepetitionHistory) -> bool {
        let mut found = self.can_end(history);
        if !found {
            self.for_each_step(|square, direction| {
                found = self.step_is_legal(square, direction, history);
                !found
            });
        }
        found
    }
}
