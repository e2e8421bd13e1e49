//! Symmetry augmentation (SPEC §3): each learning pair is added again under every
//! value-preserving symmetry of the board, with the same value.

use crate::games::Game;

/// Encodes `pairs` into `(inputs, targets)`, each followed by its images under `G::SYMMETRIES`
/// when `augment` is on. `inputs` is `[pairs, planes, rows, cols]`.
pub fn encode_pairs<G: Game>(pairs: &[(G, f32)], augment: bool) -> (Vec<f32>, Vec<f32>) {
    let len = G::ENCODING.len();
    let copies = if augment { 1 + G::SYMMETRIES.len() } else { 1 };
    let mut inputs = vec![0.0f32; pairs.len() * copies * len];
    let mut targets = Vec::with_capacity(pairs.len() * copies);
    for (pair, (position, value_p0)) in inputs.chunks_exact_mut(copies * len).zip(pairs) {
        // [original, image 1, image 2, …], each `len` floats.
        let (original, images) = pair.split_at_mut(len);
        position.encode(original);
        for (symmetry, image) in G::SYMMETRIES.iter().zip(images.chunks_exact_mut(len)) {
            symmetry.permute_encoding(G::ENCODING, original, image);
        }
        targets.extend(std::iter::repeat_n(*value_p0, copies));
    }
    (inputs, targets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{ConnectFour, GameExt, TicTacToe};

    #[test]
    fn images_encode_the_symmetric_positions() {
        let mut p = TicTacToe::new(&Default::default());
        p.play_moves("a1 b2 c2").unwrap();
        let (inputs, targets) = encode_pairs(&[(p, 0.25)], true);
        let len = TicTacToe::ENCODING.len();
        assert_eq!(targets, vec![0.25; 8]);
        for (k, _) in TicTacToe::SYMMETRIES.iter().enumerate() {
            let mut expected = vec![0.0; len];
            p.apply_symmetry(k).encode(&mut expected);
            assert_eq!(&inputs[(k + 1) * len..(k + 2) * len], &expected[..]);
        }
        let c4 = ConnectFour::new(&Default::default());
        let (inputs, targets) = encode_pairs(&[(c4, -1.0)], false);
        assert_eq!(
            (inputs.len(), targets.len()),
            (ConnectFour::ENCODING.len(), 1)
        );
    }
}
