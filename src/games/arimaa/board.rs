//! Arimaa's board: the pieces as bitboards and a mailbox, with the Zobrist hash of the board
//! and of its mirror image; the bit helpers of the rules.

use super::*;

#[inline(always)]
pub(super) fn piece_key(color: usize, kind: usize, square: usize) -> u64 {
    PIECE_KEYS[(color * KINDS + kind) * CELLS + square]
}

/// The squares orthogonally next to any square of `bits`.
#[inline(always)]
pub(super) fn neighbours(bits: u64) -> u64 {
    ((bits & NOT_FILE_A) >> 1) | ((bits & NOT_FILE_H) << 1) | (bits << 8) | (bits >> 8)
}

/// The square one step from `square` in `direction`, if on the board.
#[inline(always)]
pub(super) fn target(square: usize, direction: usize) -> Option<usize> {
    let file = square % 8;
    match direction {
        0 if square < 56 => Some(square + 8),
        1 if file < 7 => Some(square + 1),
        2 if square >= 8 => Some(square - 8),
        3 if file > 0 => Some(square - 1),
        _ => None,
    }
}

/// The square mirrored left to right (files a ↔ h).
#[inline(always)]
pub(super) const fn mirror_square(square: usize) -> usize {
    square ^ 7
}

/// A direction mirrored left to right (E ↔ W).
#[inline(always)]
pub(super) const fn mirror_direction(direction: usize) -> usize {
    if direction % 2 == 1 {
        4 - direction
    } else {
        direction
    }
}

/// The pieces, with the Zobrist hash of the board and of its mirror image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Board {
    pub(super) pieces: [[u64; KINDS]; 2],
    pub(super) occupied: [u64; 2],
    /// `color · KINDS + kind` of the piece on each square, or `EMPTY`.
    pub(super) mailbox: [u8; CELLS],
    pub(super) hash: u64,
    pub(super) mirror_hash: u64,
}

impl Board {
    pub(super) const EMPTY: Board = Board {
        pieces: [[0; KINDS]; 2],
        occupied: [0; 2],
        mailbox: [EMPTY; CELLS],
        hash: 0,
        mirror_hash: 0,
    };

    /// Puts a piece on an empty square, or takes it off its square.
    #[inline(always)]
    pub(super) fn toggle(&mut self, color: usize, kind: usize, square: usize) {
        let bit = 1 << square;
        self.pieces[color][kind] ^= bit;
        self.occupied[color] ^= bit;
        self.mailbox[square] = if self.mailbox[square] == EMPTY {
            (color * KINDS + kind) as u8
        } else {
            EMPTY
        };
        self.hash ^= piece_key(color, kind, square);
        self.mirror_hash ^= piece_key(color, kind, mirror_square(square));
    }

    /// The colour and kind of the piece on `square`.
    #[inline(always)]
    pub(super) fn piece(&self, square: usize) -> Option<(usize, usize)> {
        let code = self.mailbox[square];
        (code != EMPTY).then_some((code as usize / KINDS, code as usize % KINDS))
    }

    #[inline(always)]
    pub(super) fn empty(&self) -> u64 {
        !(self.occupied[0] | self.occupied[1])
    }

    /// `color`'s pieces that may move: not next to a stronger enemy piece, or next to a friend.
    pub(super) fn unfrozen(&self, color: usize) -> u64 {
        let guarded = neighbours(self.occupied[color]);
        let mut frozen = 0;
        let mut stronger_enemies = 0;
        for kind in (0..KINDS).rev() {
            frozen |= self.pieces[color][kind] & neighbours(stronger_enemies) & !guarded;
            stronger_enemies |= self.pieces[1 - color][kind];
        }
        self.occupied[color] & !frozen
    }

    /// `color`'s unfrozen pieces stronger than `kind`, for each kind.
    pub(super) fn unfrozen_stronger(&self, color: usize) -> [u64; KINDS] {
        let unfrozen = self.unfrozen(color);
        let mut stronger = [0; KINDS];
        let mut above = 0;
        for kind in (0..KINDS).rev() {
            stronger[kind] = above;
            above |= self.pieces[color][kind] & unfrozen;
        }
        stronger
    }

    /// Moves the piece on `from` to the empty `to`, then removes a piece of its colour left
    /// unguarded on a trap next to `from` (at most one). Returns whether a piece was removed.
    pub(super) fn step(&mut self, from: usize, to: usize) -> bool {
        let (color, kind) = self.piece(from).expect("a piece on the step's square");
        self.toggle(color, kind, from);
        self.toggle(color, kind, to);
        let unguarded = neighbours(1 << from) & TRAPS & !neighbours(self.occupied[color]);
        let trapped = unguarded & self.occupied[color];
        if trapped != 0 {
            let square = trapped.trailing_zeros() as usize;
            let (_, trapped_kind) = self.piece(square).expect("a trapped piece");
            self.toggle(color, trapped_kind, square);
        }
        trapped != 0
    }

    pub(super) fn material(&self, color: usize) -> i32 {
        (0..KINDS)
            .map(|kind| VALUES[kind] * self.pieces[color][kind].count_ones() as i32)
            .sum()
    }

    pub(super) fn hash_from_scratch(&self) -> (u64, u64) {
        let (mut hash, mut mirror) = (0, 0);
        for square in 0..CELLS {
            if let Some((color, kind)) = self.piece(square) {
                hash ^= piece_key(color, kind, square);
                mirror ^= piece_key(color, kind, mirror_square(square));
            }
        }
        (hash, mirror)
    }

    pub(super) fn mirrored(&self) -> Board {
        let mut image = Board::EMPTY;
        for square in 0..CELLS {
            if let Some((color, kind)) = self.piece(square) {
                image.toggle(color, kind, mirror_square(square));
            }
        }
        image
    }
}

#[inline(always)]
pub(super) fn for_each_bit(mut bits: u64, mut f: impl FnMut(usize) -> bool) {
    while bits != 0 {
        if !f(bits.trailing_zeros() as usize) {
            return;
        }
        bits &= bits - 1;
    }
}
