//! `InferenceNet`: the copy of the network that evaluates positions — burn's module on its
//! device, or on device `descent-cpu` the direct CPU pass (`CpuNet`).

use burn::prelude::Device;

use super::device::NetDevice;
use super::direct::cpu_net::CpuNet;
use super::network::ValueNet;

/// A network ready to evaluate encoded positions.
pub enum InferenceNet {
    Burn {
        net: Box<ValueNet>,
        device: Device,
        shape: [usize; 3],
    },
    Direct(CpuNet),
}

impl InferenceNet {
    /// `net` (for inputs of `shape`) as `device` evaluates it.
    pub fn new(net: ValueNet, shape: [usize; 3], device: &NetDevice) -> InferenceNet {
        if device.direct_inference {
            InferenceNet::Direct(CpuNet::new(&net, shape))
        } else {
            InferenceNet::Burn {
                net: Box::new(net),
                device: device.burn.clone(),
                shape,
            }
        }
    }

    /// Values (P0's view) of the `values.len()` encoded positions laid out contiguously in
    /// `inputs`.
    pub fn predict_into(&self, inputs: &[f32], values: &mut [f32]) {
        match self {
            InferenceNet::Direct(net) => net.predict_into(inputs, values),
            InferenceNet::Burn { net, device, shape } => {
                let out = net.predict(inputs.to_vec(), values.len(), *shape, device);
                values.copy_from_slice(&out);
            }
        }
    }
}
