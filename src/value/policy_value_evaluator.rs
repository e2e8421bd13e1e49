//! `PolicyValueEvaluator`: a policy-value network (AlphaZero's) as the search's `Evaluator`.
//! PUCT asks for values and policy logits together (burn's forward pass of both heads); every
//! other search asks for values alone, which the value part answers on the device's inference
//! path (`InferenceNet`, the direct CPU pass on `descent-cpu`).

use std::marker::PhantomData;

use burn::prelude::Device;

use super::device::NetDevice;
use super::inference_net::InferenceNet;
use super::net_evaluator::{encode_batch, evaluate_now};
use super::policy_value_net::PolicyValueNet;
use crate::games::Game;
use crate::search::Evaluator;

/// A policy-value network evaluating positions of game `G` (inference only).
pub struct PolicyValueEvaluator<G> {
    net: PolicyValueNet,
    value: InferenceNet,
    device: Device,
    _game: PhantomData<fn() -> G>,
}

impl<G: Game> PolicyValueEvaluator<G> {
    pub fn new(net: PolicyValueNet, device: &NetDevice) -> Self {
        assert_eq!(net.num_actions(), G::NUM_ACTIONS, "one logit per action id");
        PolicyValueEvaluator {
            value: InferenceNet::new(net.value.clone(), G::ENCODING.dims(), device),
            net,
            device: device.burn.clone(),
            _game: PhantomData,
        }
    }
}

impl<G: Game> Evaluator<G> for PolicyValueEvaluator<G> {
    fn evaluate(&self, positions: &[G], values_p0: &mut [f32]) {
        assert_eq!(positions.len(), values_p0.len(), "one value per position");
        if !positions.is_empty() {
            evaluate_now(&self.value, positions, values_p0);
        }
    }

    fn evaluate_with_policy(
        &self,
        positions: &[G],
        values_p0: &mut [f32],
        logits: &mut [f32],
    ) -> bool {
        assert_eq!(positions.len(), values_p0.len(), "one value per position");
        assert_eq!(logits.len(), positions.len() * G::NUM_ACTIONS, "logits");
        if positions.is_empty() {
            return true;
        }
        let inputs = encode_batch(positions);
        let (values, policy) =
            self.net
                .predict(inputs, positions.len(), G::ENCODING.dims(), &self.device);
        values_p0.copy_from_slice(&values);
        logits.copy_from_slice(&policy);
        true
    }
}
