//! Symmetry augmentation (docs/algorithms.md §3, paper sections 10-12): a learning pair is added
//! again under the board's value-preserving symmetries, with the same value — under one symmetry
//! drawn at random per pair (`One`, the paper's way), under every symmetry (`All`), or not at all.

use rand::{Rng, RngExt};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::games::{Game, Symmetry};

/// How many symmetric images of each pair are learned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Augmentation {
    /// The pair alone.
    None,
    /// The pair and one image under a symmetry drawn uniformly at random (the paper).
    One,
    /// The pair and its images under every symmetry.
    All,
}

impl Augmentation {
    /// Copies of each pair (itself included) for a game with `symmetries` symmetries.
    fn copies(self, symmetries: usize) -> usize {
        match self {
            Augmentation::None => 1,
            Augmentation::One => 1 + symmetries.min(1),
            Augmentation::All => 1 + symmetries,
        }
    }
}

const EXPECTED: &str = "none, one or all (or false / true: none / all)";

/// Written `none`, `one` or `all` in configurations; `false` and `true` (an older form) read as
/// `none` and `all`.
impl Serialize for Augmentation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(match self {
            Augmentation::None => "none",
            Augmentation::One => "one",
            Augmentation::All => "all",
        })
    }
}

impl<'de> Deserialize<'de> for Augmentation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Augmentation;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Augmentation, E> {
                Ok(if v {
                    Augmentation::All
                } else {
                    Augmentation::None
                })
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Augmentation, E> {
                match v {
                    "none" => Ok(Augmentation::None),
                    "one" => Ok(Augmentation::One),
                    "all" => Ok(Augmentation::All),
                    _ => Err(E::custom(format!(
                        "bad augmentation {v:?}: expected {EXPECTED}"
                    ))),
                }
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// A game's learning pairs encoded, before augmentation: `targets.len()` positions laid out
/// `[pairs, planes, rows, cols]` in `inputs`, in the order of the pairs. What the learner
/// learns from, wherever the game was played.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EncodedPairs {
    pub inputs: Vec<f32>,
    pub targets: Vec<f32>,
}

impl EncodedPairs {
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }
}

/// Encodes `pairs` (positions and targets), in order.
pub fn encode_positions<G: Game>(pairs: &[(G, f32)]) -> EncodedPairs {
    let len = G::ENCODING.len();
    let mut inputs = vec![0.0f32; pairs.len() * len];
    for (planes, (position, _)) in inputs.chunks_exact_mut(len).zip(pairs) {
        position.encode(planes);
    }
    EncodedPairs {
        inputs,
        targets: pairs.iter().map(|&(_, value_p0)| value_p0).collect(),
    }
}

/// Encodes `pairs` into `(inputs, targets)`, each pair followed by its images as `augmentation`
/// says (`One` draws its symmetry from `rng`). `inputs` is `[pairs, planes, rows, cols]`.
pub fn encode_pairs<G: Game, R: Rng + ?Sized>(
    pairs: &[(G, f32)],
    augmentation: Augmentation,
    rng: &mut R,
) -> (Vec<f32>, Vec<f32>) {
    augment::<G, R>(encode_positions(pairs), augmentation, rng)
}

/// `encoded`'s pairs, each followed by its images as `augmentation` says (`One` draws its
/// symmetry from `rng`), as `(inputs, targets)`: `encoded`'s own vectors when there are no
/// images (a game's pairs are tens of megabytes: no copy).
pub fn augment<G: Game, R: Rng + ?Sized>(
    encoded: EncodedPairs,
    augmentation: Augmentation,
    rng: &mut R,
) -> (Vec<f32>, Vec<f32>) {
    let len = G::ENCODING.len();
    let copies = augmentation.copies(G::SYMMETRIES.len());
    if copies == 1 {
        return (encoded.inputs, encoded.targets);
    }
    let mut inputs = vec![0.0f32; encoded.len() * copies * len];
    let mut targets = Vec::with_capacity(encoded.len() * copies);
    let sources = encoded.inputs.chunks_exact(len).zip(&encoded.targets);
    for (pair, (source, value_p0)) in inputs.chunks_exact_mut(copies * len).zip(sources) {
        // [original, image 1, image 2, …], each `len` floats.
        let (original, images) = pair.split_at_mut(len);
        original.copy_from_slice(source);
        let symmetries = drawn_symmetries::<G, R>(augmentation, rng);
        for (symmetry, image) in symmetries.iter().zip(images.chunks_exact_mut(len)) {
            symmetry.permute_encoding(G::ENCODING, original, image);
        }
        targets.extend(std::iter::repeat_n(*value_p0, copies));
    }
    (inputs, targets)
}

/// The symmetries whose images `augmentation` adds to one pair: none, one drawn uniformly from
/// `rng`, or all of the game's.
fn drawn_symmetries<G: Game, R: Rng + ?Sized>(
    augmentation: Augmentation,
    rng: &mut R,
) -> &'static [Symmetry] {
    match augmentation {
        Augmentation::None => &G::SYMMETRIES[..0],
        Augmentation::One if G::SYMMETRIES.is_empty() => &G::SYMMETRIES[..0],
        Augmentation::One => {
            let k = rng.random_range(0..G::SYMMETRIES.len());
            &G::SYMMETRIES[k..k + 1]
        }
        Augmentation::All => G::SYMMETRIES,
    }
}

/// Appends the images of one policy-value sample — `input` (one encoded position) and `policy`
/// (a target over every action id) — as `augmentation` says, to `inputs` and `policies`: the
/// encoding permuted as the board is, and `image[action_image[a]] = policy[a]`. The sample
/// itself is not appended. Returns the number of images. AlphaZero's and ExIt's minibatches
/// learn each position followed by its images, as the Athénan learner does (`augment`).
///
/// # Panics
/// If `input` is not one encoded position or `policy` not one value per action id.
pub fn push_policy_images<G: Game, R: Rng + ?Sized>(
    (input, policy): (&[f32], &[f32]),
    augmentation: Augmentation,
    rng: &mut R,
    inputs: &mut Vec<f32>,
    policies: &mut Vec<f32>,
) -> usize {
    let (len, actions) = (G::ENCODING.len(), G::NUM_ACTIONS);
    assert_eq!(
        policy.len(),
        actions,
        "a policy target over every action id"
    );
    let symmetries = drawn_symmetries::<G, R>(augmentation, rng);
    for symmetry in symmetries {
        let at = inputs.len();
        inputs.resize(at + len, 0.0);
        symmetry.permute_encoding(G::ENCODING, input, &mut inputs[at..]);
        let at = policies.len();
        policies.resize(at + actions, 0.0);
        for (&image, &p) in symmetry.action_image.iter().zip(policy) {
            policies[at + image as usize] = p;
        }
    }
    symmetries.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Awale, ConnectFour, GameExt, TicTacToe};
    use rand::SeedableRng;
    use rand::rngs::Xoshiro256PlusPlus;

    fn images(p: &TicTacToe) -> Vec<Vec<f32>> {
        let len = TicTacToe::ENCODING.len();
        (0..TicTacToe::SYMMETRIES.len())
            .map(|k| {
                let mut expected = vec![0.0; len];
                p.apply_symmetry(k).encode(&mut expected);
                expected
            })
            .collect()
    }

    #[test]
    fn all_adds_every_image_and_none_the_pair_alone() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let mut p = TicTacToe::new(&Default::default());
        p.play_moves("a1 b2 c2").unwrap();
        let (inputs, targets) = encode_pairs(&[(p, 0.25)], Augmentation::All, &mut rng);
        let len = TicTacToe::ENCODING.len();
        assert_eq!(targets, vec![0.25; 8]);
        for (k, expected) in images(&p).iter().enumerate() {
            assert_eq!(&inputs[(k + 1) * len..(k + 2) * len], &expected[..]);
        }
        let c4 = ConnectFour::new(&Default::default());
        let (inputs, targets) = encode_pairs(&[(c4, -1.0)], Augmentation::None, &mut rng);
        assert_eq!(
            (inputs.len(), targets.len()),
            (ConnectFour::ENCODING.len(), 1)
        );
    }

    #[test]
    fn one_adds_a_single_image_drawn_at_random() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let mut p = TicTacToe::new(&Default::default());
        p.play_moves("a1 b2 c2").unwrap();
        let all = images(&p);
        let len = TicTacToe::ENCODING.len();
        let mut drawn = vec![0usize; all.len()];
        for _ in 0..700 {
            let (inputs, targets) = encode_pairs(&[(p, -0.5)], Augmentation::One, &mut rng);
            assert_eq!(targets, [-0.5, -0.5]);
            let image = &inputs[len..];
            let k = all
                .iter()
                .position(|e| e[..] == *image)
                .expect("a symmetric image");
            drawn[k] += 1;
        }
        // Uniform over the 7 symmetries: 100 each expected.
        assert!(drawn.iter().all(|&n| (60..140).contains(&n)), "{drawn:?}");
        // A game without symmetries: the pair alone.
        let awale = Awale::new(&Default::default());
        let (_, targets) = encode_pairs(&[(awale, 1.0)], Augmentation::One, &mut rng);
        assert_eq!(targets.len(), 1);
    }

    /// Every image of a policy-value sample is the encoding of the position's image, and its
    /// policy puts each move's weight on that move's image (checked against the game's own
    /// `apply_symmetry` and `symmetric_action`).
    #[test]
    fn policy_images_move_the_targets_with_the_board() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut p = TicTacToe::new(&Default::default());
        p.play_moves("a1 b2 c2").unwrap();
        let len = TicTacToe::ENCODING.len();
        let mut input = vec![0.0; len];
        p.encode(&mut input);
        // Distinct weights on the legal moves.
        let mut policy = vec![0.0; TicTacToe::NUM_ACTIONS];
        let mut legal = Vec::new();
        p.legal_actions(&mut legal);
        for (k, &a) in legal.iter().enumerate() {
            policy[a as usize] = (k + 1) as f32;
        }
        let (mut inputs, mut policies) = (Vec::new(), Vec::new());
        let n = push_policy_images::<TicTacToe, _>(
            (&input, &policy),
            Augmentation::All,
            &mut rng,
            &mut inputs,
            &mut policies,
        );
        assert_eq!(n, 7);
        for (k, expected) in images(&p).iter().enumerate() {
            assert_eq!(&inputs[k * len..(k + 1) * len], &expected[..], "image {k}");
            let image_policy = &policies[k * 9..(k + 1) * 9];
            for &a in &legal {
                let moved = p.symmetric_action(k, a);
                assert_eq!(
                    image_policy[moved as usize], policy[a as usize],
                    "image {k}"
                );
            }
            let mut image_legal = Vec::new();
            p.apply_symmetry(k).legal_actions(&mut image_legal);
            for (a, &weight) in image_policy.iter().enumerate() {
                if !image_legal.contains(&(a as crate::games::Action)) {
                    assert_eq!(weight, 0.0, "no weight off the legal moves");
                }
            }
        }
        let n = push_policy_images::<TicTacToe, _>(
            (&input, &policy),
            Augmentation::None,
            &mut rng,
            &mut inputs,
            &mut policies,
        );
        assert_eq!((n, inputs.len(), policies.len()), (0, 7 * len, 7 * 9));
    }

    #[test]
    fn configurations_name_the_modes_and_read_the_older_booleans() {
        #[derive(serde::Deserialize)]
        struct Doc {
            a: Augmentation,
        }
        let read = |text: &str| serde_saphyr::from_str::<Doc>(text).map(|d| d.a);
        assert_eq!(read("a: one").unwrap(), Augmentation::One);
        assert_eq!(read("a: all").unwrap(), Augmentation::All);
        assert_eq!(read("a: none").unwrap(), Augmentation::None);
        assert_eq!(read("a: true").unwrap(), Augmentation::All);
        assert_eq!(read("a: false").unwrap(), Augmentation::None);
        assert!(
            read("a: some")
                .unwrap_err()
                .to_string()
                .contains("none, one or all")
        );
    }
}
