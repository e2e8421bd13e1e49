//! The hashes of the positions since the last irreversible move, for the games whose rules end
//! or forbid repetitions (Awale, Lines of Action): a few inline, the rest in a vector shared
//! between clones (copy on write), so that cloning a position for a search stays cheap.

use std::sync::Arc;

/// Hashes inline before spilling (see the module doc); 31 × 8 bytes keeps a position at 320 bytes.
const INLINE_HISTORY: usize = 31;

/// Hashes of the positions since the last irreversible move (a capture), in order.
#[derive(Clone, Debug, Default)]
pub(super) struct RepetitionHistory {
    /// Older hashes, moved out of `recent` when it fills; shared between clones.
    older: Option<Arc<Vec<u64>>>,
    recent: [u64; INLINE_HISTORY],
    recent_len: u8,
    /// A 256-bit Bloom filter of every hash held (bit = low 8 bits of the hash): most positions
    /// are new, and a clear bit proves it without scanning.
    seen_bits: [u64; 4],
}

impl RepetitionHistory {
    #[inline]
    pub(super) fn clear(&mut self) {
        self.recent_len = 0;
        self.older = None;
        self.seen_bits = [0; 4];
    }

    #[inline(always)]
    fn bloom_bit(hash: u64) -> (usize, u64) {
        (((hash >> 6) & 3) as usize, 1 << (hash & 63))
    }

    #[inline]
    pub(super) fn contains(&self, hash: u64) -> bool {
        let (word, bit) = Self::bloom_bit(hash);
        if self.seen_bits[word] & bit == 0 {
            return false;
        }
        self.recent[..self.recent_len as usize].contains(&hash)
            || self
                .older
                .as_ref()
                .is_some_and(|older| older.contains(&hash))
    }

    /// How many times `hash` was pushed.
    pub(super) fn count(&self, hash: u64) -> usize {
        let (word, bit) = Self::bloom_bit(hash);
        if self.seen_bits[word] & bit == 0 {
            return 0;
        }
        let older = self
            .older
            .as_ref()
            .map_or(0, |older| older.iter().filter(|&&h| h == hash).count());
        older
            + self.recent[..self.recent_len as usize]
                .iter()
                .filter(|&&h| h == hash)
                .count()
    }

    #[inline]
    pub(super) fn push(&mut self, hash: u64) {
        if self.recent_len as usize == INLINE_HISTORY {
            let older = self.older.get_or_insert_with(Default::default);
            Arc::make_mut(older).extend_from_slice(&self.recent);
            self.recent_len = 0;
        }
        self.recent[self.recent_len as usize] = hash;
        self.recent_len += 1;
        let (word, bit) = Self::bloom_bit(hash);
        self.seen_bits[word] |= bit;
    }
}
