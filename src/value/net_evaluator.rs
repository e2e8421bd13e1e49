//! `NetEvaluator`: the value network as the search's `Evaluator` — a batch of positions is
//! encoded into one buffer and evaluated in one forward pass.

use std::cell::RefCell;
use std::marker::PhantomData;

use super::device::NetDevice;
use super::inference_net::InferenceNet;
use super::network::ValueNet;
use crate::games::Game;
use crate::search::Evaluator;

/// Encodes `positions` into one contiguous buffer, `[batch, planes, rows, cols]`.
pub fn encode_batch<G: Game>(positions: &[G]) -> Vec<f32> {
    let mut inputs = Vec::new();
    encode_batch_into(positions, &mut inputs);
    inputs
}

/// Encodes `positions` into `inputs` (replacing its contents; its capacity is reused).
pub fn encode_batch_into<G: Game>(positions: &[G], inputs: &mut Vec<f32>) {
    let size = G::ENCODING.len();
    inputs.clear();
    inputs.resize(size * positions.len(), 0.0);
    for (position, slot) in positions.iter().zip(inputs.chunks_exact_mut(size)) {
        position.encode(slot);
    }
}

thread_local! {
    /// Each thread's encoding buffer, reused from call to call.
    static ENCODED: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// Encodes `positions` in this thread's reusable buffer and hands the encoding to `read`.
pub(super) fn with_encoded<G: Game, R>(positions: &[G], read: impl FnOnce(&[f32]) -> R) -> R {
    ENCODED.with(|buffer| {
        let mut inputs = buffer.borrow_mut();
        encode_batch_into(positions, &mut inputs);
        read(&inputs)
    })
}

/// Encodes `positions` in this thread's reusable buffer and evaluates them with `net` at once.
pub(super) fn evaluate_now<G: Game>(net: &InferenceNet, positions: &[G], values_p0: &mut [f32]) {
    with_encoded(positions, |inputs| net.predict_into(inputs, values_p0));
}

/// A network evaluating positions of game `G` (inference only).
pub struct NetEvaluator<G> {
    net: InferenceNet,
    _game: PhantomData<fn() -> G>,
}

impl<G: Game> NetEvaluator<G> {
    pub fn new(net: ValueNet, device: &NetDevice) -> Self {
        NetEvaluator {
            net: InferenceNet::new(net, G::ENCODING.dims(), device),
            _game: PhantomData,
        }
    }
}

impl<G: Game> Evaluator<G> for NetEvaluator<G> {
    fn evaluate(&self, positions: &[G], values_p0: &mut [f32]) {
        assert_eq!(positions.len(), values_p0.len(), "one value per position");
        if positions.is_empty() {
            return;
        }
        evaluate_now(&self.net, positions, values_p0);
    }
}
