//! Adam on the flat parameter vector, operation for operation as burn 0.22's `Adam` computes it
//! (so both engines take the same step from the same gradient), and its state read from and
//! written to burn's optimiser-state format (burnpack, keyed by parameter id, burn's layouts): a
//! checkpoint written by one engine resumes on the other.

use std::collections::BTreeMap;

use anyhow::{Context, bail, ensure};
use burn::tensor::{Bytes, DType, TensorData};
use burn_pack::Scalar;

use super::flat::FlatLayout;
use super::plan::Parameter;
use crate::value::net_optimizer::AdamSettings;

/// Adam's moments (flat, laid out as the trainer's values) and step count for each parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
    settings: AdamSettings,
    /// Steps taken on each parameter (0: no state yet).
    time: Vec<usize>,
    pub(super) moment_1: Vec<f32>,
    pub(super) moment_2: Vec<f32>,
}

/// The constants of one parameter's next step.
#[derive(Clone, Copy, Debug)]
pub struct StepFactors {
    beta1: f32,
    beta2: f32,
    /// √(1 − β₂ᵗ) / (1 − β₁ᵗ): both bias corrections.
    factor: f32,
    scaled_epsilon: f32,
    learning_rate: f32,
}

/// burn's names for a parameter's state entries: `{id}.momentum.moment_1` and so on.
fn entry(id: u64, leaf: &str) -> String {
    match leaf {
        "__rank" => format!("{id}.__rank"),
        _ => format!("{id}.momentum.{leaf}"),
    }
}

impl Adam {
    /// A fresh state for the parameters of `layout`.
    pub fn new(settings: AdamSettings, layout: &FlatLayout) -> Adam {
        Adam {
            settings,
            time: vec![0; layout.ranges().len()],
            moment_1: vec![0.0; layout.len()],
            moment_2: vec![0.0; layout.len()],
        }
    }

    /// Takes the next steps with step size `learning_rate`.
    pub fn set_learning_rate(&mut self, learning_rate: f64) {
        self.settings.learning_rate = learning_rate;
    }

    /// Counts one more step on every parameter; returns each one's factors for it.
    pub fn advance(&mut self, factors: &mut Vec<StepFactors>) {
        let AdamSettings {
            learning_rate,
            beta1,
            beta2,
            epsilon,
            ..
        } = self.settings;
        factors.clear();
        for time in &mut self.time {
            *time += 1;
            let t = *time as i32;
            let correction2 = (1.0 - beta2.powi(t)).sqrt();
            factors.push(StepFactors {
                beta1,
                beta2,
                factor: correction2 / (1.0 - beta1.powi(t)),
                scaled_epsilon: epsilon * correction2,
                learning_rate: learning_rate as f32,
            });
        }
    }
}

/// One step on a parameter's elements: the moments `m`, `v` take in `grad`, then
/// `weights -= lr · m̂ / (√v̂ + ε)` in burn's arrangement (ε scaled by √(1 − β₂ᵗ), both
/// corrections in one factor).
#[inline]
pub fn step(f: &StepFactors, weights: &mut [f32], grad: &[f32], m: &mut [f32], v: &mut [f32]) {
    for (((w, &g), m), v) in weights.iter_mut().zip(grad).zip(m).zip(v) {
        *m = *m * f.beta1 + g * (1.0 - f.beta1);
        *v = *v * f.beta2 + g * g * (1.0 - f.beta2);
        let delta = *m * f.factor / (v.sqrt() + f.scaled_epsilon);
        *w -= delta * f.learning_rate;
    }
}

impl Adam {
    /// The state in burn's optimiser-state format (burnpack bytes).
    ///
    /// # Errors
    /// The writer failed.
    pub fn to_bytes(
        &self,
        parameters: &[Parameter],
        layout: &FlatLayout,
    ) -> anyhow::Result<Vec<u8>> {
        let mut tensors = Vec::new();
        let mut scalars = BTreeMap::new();
        for (p, parameter) in parameters.iter().enumerate() {
            if self.time[p] == 0 {
                continue;
            }
            let id = parameter.id.val();
            for (leaf, moment) in [("moment_1", &self.moment_1), ("moment_2", &self.moment_2)] {
                let values = parameter.to_burn_layout(&moment[layout.range(p)]);
                let data = TensorData::new(values, parameter.shape.clone());
                let (bytes, shape, dtype) = data.into_parts();
                tensors.push(burn_pack::Tensor::new(
                    entry(id, leaf),
                    dtype,
                    shape,
                    Some(id),
                    bytes,
                ));
            }
            scalars.insert(entry(id, "time"), Scalar::from(self.time[p]));
            scalars.insert(entry(id, "__rank"), Scalar::from(parameter.shape.len()));
        }
        let mut writer = burn_pack::Writer::new(tensors);
        for (key, value) in &scalars {
            writer = writer.with_scalar(key, *value);
        }
        let bytes = writer
            .into_bytes()
            .map_err(|e| anyhow::anyhow!("cannot write the optimiser state: {e}"))?;
        Ok(bytes.to_vec())
    }

    /// Reads a state written by `to_bytes` or by burn's optimiser for these parameters.
    ///
    /// # Errors
    /// Bytes that are not an optimiser state, or a state of another network.
    pub fn load_bytes(
        &mut self,
        bytes: Vec<u8>,
        parameters: &[Parameter],
        layout: &FlatLayout,
    ) -> anyhow::Result<()> {
        let reader = burn_pack::Reader::from_bytes(Bytes::from_bytes_vec(bytes))
            .map_err(|e| anyhow::anyhow!("not an optimiser state: {e}"))?;
        let scalars = reader.scalars().clone();
        let mut moments: BTreeMap<String, Vec<f32>> = BTreeMap::new();
        for tensor in reader
            .into_tensors()
            .map_err(|e| anyhow::anyhow!("not an optimiser state: {e}"))?
        {
            let (name, dtype, shape, _, bytes) = tensor
                .into_parts()
                .map_err(|e| anyhow::anyhow!("not an optimiser state: {e}"))?;
            ensure!(
                dtype == DType::F32,
                "optimiser state {name} is {dtype:?}, not f32"
            );
            let values = TensorData::from_bytes(bytes, shape, dtype)
                .try_into_vec::<f32>()
                .map_err(|e| anyhow::anyhow!("optimiser state {name}: {e:?}"))?;
            moments.insert(name, values);
        }
        let mut loaded = Adam::new(self.settings, layout);
        let mut used = 0;
        for (p, parameter) in parameters.iter().enumerate() {
            let id = parameter.id.val();
            let Some(&time) = scalars.get(&entry(id, "time")) else {
                continue;
            };
            loaded.time[p] = usize::try_from(time)
                .map_err(|_| anyhow::anyhow!("optimiser state {id}: step count {time:?}"))?;
            for (leaf, moment) in [
                ("moment_1", &mut loaded.moment_1),
                ("moment_2", &mut loaded.moment_2),
            ] {
                let slot = &mut moment[layout.range(p)];
                let name = entry(id, leaf);
                let values = moments
                    .remove(&name)
                    .with_context(|| format!("optimiser state: no {name}"))?;
                ensure!(
                    values.len() == slot.len(),
                    "optimiser state {name} has {} values, the parameter {}",
                    values.len(),
                    slot.len()
                );
                parameter.to_working(&values, slot);
            }
            used += 1;
        }
        if used == 0 && !moments.is_empty() {
            bail!(
                "the optimiser state is for another network: none of its parameters is this network's"
            );
        }
        *self = loaded;
        Ok(())
    }
}
