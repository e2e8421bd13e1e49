//! ONNX export of a value network (cargo feature `onnx`, burn-onnx 0.22, experimental): the
//! forward pass is captured on burn's capture device, with a dynamic batch axis
//! (`input: [batch, planes, rows, cols]` → `value: [batch, 1]`), the weights embedded.
//!
//! The capture is made on an independent copy of the network, loaded from its burnpack bytes:
//! capturing moves the module's tensors onto the capture device, and the original would then
//! fail on its next forward pass. With the model come reference inputs and burn's outputs on
//! them (`OnnxCheck`), for checking another runtime (`scripts/check_onnx.py`).

use burn::prelude::*;
use burn_onnx::export::{AxisSpec, InputSpec, OnnxExporter};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::Serialize;

use super::ValueNet;
use super::saved_net::{NetManifest, burnpack_bytes, net_from_burnpack};

/// Reference inputs (uniform in [0, 1], fixed seed) and burn's outputs on them.
#[derive(Clone, Debug, Serialize)]
pub struct OnnxCheck {
    /// `[batch, planes, rows, cols]`.
    pub input_shape: [usize; 4],
    /// Row-major, `input_shape` elements.
    pub inputs: Vec<f32>,
    /// One value per position, P0's view.
    pub outputs: Vec<f32>,
}

/// Positions in the reference batch.
const CHECK_BATCH: usize = 16;

/// The ONNX model of `net` (described by `manifest`) and its reference check.
///
/// # Errors
/// A network the ONNX export does not support.
pub fn onnx_model(net: &ValueNet, manifest: &NetManifest) -> anyhow::Result<(Vec<u8>, OnnxCheck)> {
    let device = Device::flex();
    let [planes, rows, cols] = manifest.input_shape;
    let copy = net_from_burnpack(burnpack_bytes(net)?, manifest, &device, "onnx export")?;
    let zeros = |batch: usize| Tensor::<4>::zeros([batch, planes, rows, cols], &device);
    let specs = [InputSpec::new([
        AxisSpec::dynamic("batch"),
        AxisSpec::Static,
        AxisSpec::Static,
        AxisSpec::Static,
    ])];
    let model = OnnxExporter::new()
        .export_dynamic(&copy, zeros(2), zeros(5), &specs, |m: &ValueNet, x| {
            m.forward(x)
        })
        .map_err(|e| anyhow::anyhow!("ONNX export of a {} network: {e}", manifest.architecture))?;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x0_AB5E);
    let inputs: Vec<f32> = (0..CHECK_BATCH * planes * rows * cols)
        .map(|_| rng.random::<f32>())
        .collect();
    let outputs = net.predict(inputs.clone(), CHECK_BATCH, manifest.input_shape, &device);
    Ok((
        model.into_bytes(),
        OnnxCheck {
            input_shape: [CHECK_BATCH, planes, rows, cols],
            inputs,
            outputs,
        },
    ))
}
