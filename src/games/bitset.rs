//! Fixed-size sets of board cells, `W` words of 64 bits, `Copy`, no allocation: `Bits<1>` is a
//! plain bitboard (Othello 8 × 8), `Bits<4>` holds 256 cells (Othello 16 × 16), [`CellSet`]
//! (six words, 384 cells) every board up to Hex 19 and Havannah 10. Cells are indices
//! `0..64·W`; the loops over words unroll, so one word costs what a `u64` does.

/// A set of up to `64·W` cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bits<const W: usize>([u64; W]);

/// A set of up to 384 cells.
pub type CellSet = Bits<6>;

/// The largest number of cells a [`CellSet`] holds.
pub const MAX_CELLS: usize = 6 * 64;

impl<const W: usize> Default for Bits<W> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<const W: usize> Bits<W> {
    /// The empty set.
    pub const EMPTY: Bits<W> = Bits([0; W]);

    /// The cells `0..count`.
    pub const fn first(count: usize) -> Bits<W> {
        assert!(count <= W * 64, "more cells than the set holds");
        let mut words = [0u64; W];
        let mut word = 0;
        while word < W {
            let low = word * 64;
            words[word] = if count >= low + 64 {
                !0
            } else if count > low {
                (1 << (count - low)) - 1
            } else {
                0
            };
            word += 1;
        }
        Bits(words)
    }

    /// The set with `cell` added (for building constant sets).
    pub const fn with(self, cell: usize) -> Bits<W> {
        let mut words = self.0;
        words[cell / 64] |= 1 << (cell % 64);
        Bits(words)
    }

    /// The cells of `self` not in `other` (for building constant sets).
    pub const fn and_not(self, other: Bits<W>) -> Bits<W> {
        let mut words = self.0;
        let mut word = 0;
        while word < W {
            words[word] &= !other.0[word];
            word += 1;
        }
        Bits(words)
    }

    #[inline(always)]
    pub fn contains(&self, cell: usize) -> bool {
        self.0[cell / 64] >> (cell % 64) & 1 == 1
    }

    #[inline(always)]
    pub fn insert(&mut self, cell: usize) {
        self.0[cell / 64] |= 1 << (cell % 64);
    }

    #[inline(always)]
    pub fn remove(&mut self, cell: usize) {
        self.0[cell / 64] &= !(1 << (cell % 64));
    }

    #[inline]
    pub fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// The cells of `self` not in `other`.
    #[inline]
    pub fn minus(&self, other: &Bits<W>) -> Bits<W> {
        Bits(std::array::from_fn(|w| self.0[w] & !other.0[w]))
    }

    /// The cells in both sets.
    #[inline]
    pub fn intersection(&self, other: &Bits<W>) -> Bits<W> {
        Bits(std::array::from_fn(|w| self.0[w] & other.0[w]))
    }

    /// The cells in either set.
    #[inline]
    pub fn union(&self, other: &Bits<W>) -> Bits<W> {
        Bits(std::array::from_fn(|w| self.0[w] | other.0[w]))
    }

    /// Whether the set has no cell.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// Every cell moved by `offset` (`cell + offset`, `-63..=63`); cells moved outside
    /// `0..64·W` are dropped. Bit-parallel steps for flood fills and neighbourhoods.
    #[inline]
    pub fn shifted(&self, offset: i32) -> Bits<W> {
        debug_assert!(offset.unsigned_abs() < 64, "shift {offset} out of -63..=63");
        let k = offset.unsigned_abs();
        if k == 0 {
            return *self;
        }
        let w = &self.0;
        Bits(std::array::from_fn(|i| {
            if offset > 0 {
                let carry = if i > 0 { w[i - 1] >> (64 - k) } else { 0 };
                w[i] << k | carry
            } else {
                let carry = if i + 1 < W { w[i + 1] << (64 - k) } else { 0 };
                w[i] >> k | carry
            }
        }))
    }

    /// The smallest cell, if any.
    #[inline]
    pub fn first_cell(&self) -> Option<usize> {
        self.0
            .iter()
            .position(|&w| w != 0)
            .map(|w| w * 64 + self.0[w].trailing_zeros() as usize)
    }

    /// The image of the set under a cell permutation: cell `c` goes to `table[c]`.
    pub fn mapped(&self, table: &[u16]) -> Bits<W> {
        let mut image = Bits::EMPTY;
        self.cells()
            .for_each(|cell| image.insert(table[cell] as usize));
        image
    }

    /// The cells in increasing order.
    #[inline]
    pub fn cells(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let cell = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    cell
                })
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_hold_what_was_put_in_them() {
        let mut set = CellSet::EMPTY;
        for cell in [0, 63, 64, 200, 383] {
            set.insert(cell);
        }
        assert_eq!(set.cells().collect::<Vec<_>>(), [0, 63, 64, 200, 383]);
        assert_eq!(set.len(), 5);
        assert_eq!(set.first_cell(), Some(0));
        set.remove(0);
        assert!(!set.contains(0) && set.contains(383));
        assert_eq!(set.first_cell(), Some(63));
        assert_eq!(CellSet::first(130).len(), 130);
        assert!(CellSet::first(130).contains(129) && !CellSet::first(130).contains(130));
        assert_eq!(CellSet::first(121).minus(&set).len(), 121 - 2);
        assert_eq!(CellSet::EMPTY.len(), 0);
        assert!(CellSet::EMPTY.first_cell().is_none());
        assert!(CellSet::EMPTY.is_empty() && !set.is_empty());
    }

    #[test]
    fn shifts_move_every_cell_across_words_and_drop_the_ends() {
        let set = CellSet::EMPTY
            .with(0)
            .with(5)
            .with(63)
            .with(64)
            .with(200)
            .with(383);
        for offset in [-63, -20, -1, 1, 19, 63] {
            let expected: Vec<usize> = set
                .cells()
                .map(|c| c as i64 + offset as i64)
                .filter(|c| (0..MAX_CELLS as i64).contains(c))
                .map(|c| c as usize)
                .collect();
            assert_eq!(
                set.shifted(offset).cells().collect::<Vec<_>>(),
                expected,
                "offset {offset}"
            );
        }
        assert_eq!(set.shifted(0), set);
    }
}
