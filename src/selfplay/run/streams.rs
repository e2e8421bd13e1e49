//! The run's random streams: each use (games, evaluations, set-up, the learner) and each instance
//! (game number) has its own, seeded from the run seed, so that a run replays from its seed
//! whatever the threads and resumes.

use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

/// A random stream of the run: `stream` names its use, `index` its instance.
pub fn stream_rng(seed: u64, stream: u64, index: u64) -> Xoshiro256PlusPlus {
    let mixed = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(stream.wrapping_mul(0xD1B5_4A32_D192_ED03))
        .wrapping_add(index);
    Xoshiro256PlusPlus::seed_from_u64(mixed)
}

pub const STREAM_GAME: u64 = 1;
pub const STREAM_EVAL: u64 = 2;
pub const STREAM_SETUP: u64 = 3;
pub const STREAM_LEARNER: u64 = 4;
/// The fresh network's initial weights (`network_seed`).
pub const STREAM_NETWORK: u64 = 5;

/// The seed a run's fresh network draws its initial weights from (`value::initial_weights`).
pub fn network_seed(seed: u64) -> u64 {
    rand::Rng::next_u64(&mut stream_rng(seed, STREAM_NETWORK, 0))
}
