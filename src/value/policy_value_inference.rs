//! `PolicyValueInference`: the copy of a policy-value network that evaluates positions, both
//! heads or the value alone — on device `descent-cpu` the direct CPU pass with the policy head
//! (`CpuNet::with_policy`), the engine Athénan's value network runs on; elsewhere burn's forward
//! pass on the device.

use burn::prelude::Device;

use super::device::NetDevice;
use super::direct::cpu_net::CpuNet;
use super::policy_value_net::PolicyValueNet;

/// A policy-value network ready to evaluate encoded positions.
pub enum PolicyValueInference {
    Direct(CpuNet),
    Burn {
        net: Box<PolicyValueNet>,
        device: Device,
        shape: [usize; 3],
    },
}

impl PolicyValueInference {
    /// `net` (for inputs of `shape`) as `device` evaluates it.
    pub fn new(net: PolicyValueNet, shape: [usize; 3], device: &NetDevice) -> Self {
        if device.direct_inference {
            PolicyValueInference::Direct(CpuNet::with_policy(&net, shape))
        } else {
            PolicyValueInference::Burn {
                net: Box::new(net),
                device: device.burn.clone(),
                shape,
            }
        }
    }

    /// Values (P0's view) of the `values.len()` encoded positions laid out contiguously in
    /// `inputs`, and with `logits` (`values.len()` times the action ids) their policy logits.
    pub fn predict_into(&self, inputs: &[f32], values: &mut [f32], logits: Option<&mut [f32]>) {
        match (self, logits) {
            (PolicyValueInference::Direct(net), Some(logits)) => {
                net.predict_with_policy_into(inputs, values, logits);
            }
            (PolicyValueInference::Direct(net), None) => net.predict_into(inputs, values),
            (PolicyValueInference::Burn { net, device, shape }, logits) => {
                let (batch, inputs) = (values.len(), inputs.to_vec());
                if let Some(logits) = logits {
                    let (v, policy) = net.predict(inputs, batch, *shape, device);
                    values.copy_from_slice(&v);
                    logits.copy_from_slice(&policy);
                } else {
                    values.copy_from_slice(&net.value.predict(inputs, batch, *shape, device));
                }
            }
        }
    }
}
