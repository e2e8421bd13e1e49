//! `NetEvaluator`: the value network as the search's `Evaluator` — a batch of positions is
//! encoded into one buffer and evaluated in one forward pass.

use std::marker::PhantomData;

use burn::prelude::Device;

use super::network::ValueNet;
use crate::games::Game;
use crate::search::Evaluator;

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

    fn shape() -> [usize; 3] {
        let e = G::ENCODING;
        [e.planes, e.rows, e.cols]
    }
}

impl<G: Game> Evaluator<G> for NetEvaluator<G> {
    fn evaluate(&self, positions: &[G], values_p0: &mut [f32]) {
        assert_eq!(positions.len(), values_p0.len(), "one value per position");
        if positions.is_empty() {
            return;
        }
        let size = G::ENCODING.len();
        let mut inputs = vec![0.0f32; size * positions.len()]; // [batch, planes, rows, cols]
        for (position, slot) in positions.iter().zip(inputs.chunks_exact_mut(size)) {
            position.encode(slot);
        }
        let values = self
            .net
            .predict(inputs, positions.len(), Self::shape(), &self.device);
        values_p0.copy_from_slice(&values);
    }
}
