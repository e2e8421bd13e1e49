//! Zobrist keys: fixed pseudo-random 64-bit numbers generated at compile time by SplitMix64
//! (Steele, Lea & Flood 2014), so hashes are identical across runs, machines and builds.

use super::bitset::Bits;

/// One SplitMix64 step: returns the next state and its output.
const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

/// `N` keys drawn from SplitMix64 seeded with `seed` (use a different seed per game).
pub const fn keys<const N: usize>(seed: u64) -> [u64; N] {
    let mut out = [0u64; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        let (next, value) = splitmix64(state);
        state = next;
        out[i] = value;
        i += 1;
    }
    out
}

/// The Zobrist hash of both players' stones in cell sets: the XOR of `keys[player·stride +
/// cell]` over every stone.
pub fn of_cell_sets<const W: usize>(stones: &[Bits<W>; 2], keys: &[u64], stride: usize) -> u64 {
    let mut hash = 0;
    for (player, set) in stones.iter().enumerate() {
        for cell in set.cells() {
            hash ^= keys[player * stride + cell];
        }
    }
    hash
}

/// The XOR of `keys[cell]` over the cells of a bitboard (bit `cell` set): a board's part of a
/// Zobrist hash recomputed from scratch.
#[inline]
pub fn of_bits(bits: u128, keys: &[u64]) -> u64 {
    let mut hash = 0;
    let mut rest = bits;
    while rest != 0 {
        hash ^= keys[rest.trailing_zeros() as usize];
        rest &= rest - 1;
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_reference_output() {
        // Reference values of SplitMix64 seeded with 0 (first three outputs), as published with
        // the algorithm's reference C implementation.
        let k: [u64; 3] = keys(0);
        assert_eq!(
            k,
            [
                0xE220_A839_7B1D_CDAF,
                0x6E78_9E6A_A1B9_65F4,
                0x06C4_5D18_8009_454F
            ]
        );
    }

    #[test]
    fn keys_are_distinct() {
        let k: [u64; 1024] = keys(42);
        let mut sorted = k.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), k.len());
    }
}
