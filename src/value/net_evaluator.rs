//! `NetEvaluator`: the value network as the search's `Evaluator` — a batch of positions is
//! encoded into one buffer and evaluated in one forward pass.

use std::marker::PhantomData;

use burn::prelude::Device;

use super::network::ValueNet;
use crate::games::Game;
use crate::search::Evaluator;

/// Encodes `positions` into one contiguous buffer, `[batch, planes, rows, cols]`.
pub fn encode_batch<G: Game>(positions: &[G]) -> Vec<f32> {
    let size = G::ENCODING.len();
    let mut inputs = vec![0.0f32; size * positions.len()];
    for (position, slot) in positions.iter().zip(inputs.chunks_exact_mut(size)) {
        position.encode(slot);
    }
    inputs
}

/// A network evaluating positions of game `G` on `device` (inference only).
pub struct NetEvaluator<G> {
    net: ValueNet,
    device: Device,
    _game: PhantomData<fn() -> G>,
}

impl<G: Game> NetEvaluator<G> {
    pub fn new(net: ValueNet, device: Device) -> Self {
        NetEvaluator {
            net,
            device,
            _game: PhantomData,
        }
    }

    pub fn net(&self) -> &ValueNet {
        &self.net
    }

    /// Replaces the weights (after a learning phase).
    pub fn set_net(&mut self, net: ValueNet) {
        self.net = net;
    }
}

impl<G: Game> Evaluator<G> for NetEvaluator<G> {
    fn evaluate(&self, positions: &[G], values_p0: &mut [f32]) {
        assert_eq!(positions.len(), values_p0.len(), "one value per position");
        if positions.is_empty() {
            return;
        }
        let inputs = encode_batch(positions);
        let values = self
            .net
            .predict(inputs, positions.len(), G::ENCODING.dims(), &self.device);
        values_p0.copy_from_slice(&values);
    }
}
