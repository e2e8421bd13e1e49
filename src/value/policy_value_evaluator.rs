//! `PolicyValueEvaluator`: a policy-value network (AlphaZero's, ExIt's) as the search's
//! `Evaluator`. PUCT asks for values and policy logits together, every other search for values
//! alone; both run on the device's inference path (`PolicyValueInference`).

use std::marker::PhantomData;

use super::device::NetDevice;
use super::net_evaluator::with_encoded;
use super::policy_value_inference::PolicyValueInference;
use super::policy_value_net::PolicyValueNet;
use crate::games::Game;
use crate::search::Evaluator;

/// A policy-value network evaluating positions of game `G` (inference only).
pub struct PolicyValueEvaluator<G> {
    net: PolicyValueInference,
    _game: PhantomData<fn() -> G>,
}

impl<G: Game> PolicyValueEvaluator<G> {
    pub fn new(net: PolicyValueNet, device: &NetDevice) -> Self {
        assert_eq!(net.num_actions(), G::NUM_ACTIONS, "one logit per action id");
        PolicyValueEvaluator {
            net: PolicyValueInference::new(net, G::ENCODING.dims(), device),
            _game: PhantomData,
        }
    }
}

impl<G: Game> Evaluator<G> for PolicyValueEvaluator<G> {
    fn evaluate(&self, positions: &[G], values_p0: &mut [f32]) {
        assert_eq!(positions.len(), values_p0.len(), "one value per position");
        if !positions.is_empty() {
            with_encoded(positions, |inputs| {
                self.net.predict_into(inputs, values_p0, None);
            });
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
        if !positions.is_empty() {
            with_encoded(positions, |inputs| {
                self.net.predict_into(inputs, values_p0, Some(logits));
            });
        }
        true
    }
}
