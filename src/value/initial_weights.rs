//! A fresh network's weights drawn from a seed. burn draws each layer's initial weights from
//! its backend's one generator, which `Device::seed` resets: a network made between a seed and
//! its last layer, with no other network made in between on any thread, is the same network
//! for the same seed. Every fresh network is made under one process-wide lock, seeded or not,
//! so that an unseeded one (a bench, a file's network before its weights are read) never takes
//! draws from the middle of a seeded one.

use std::sync::Mutex;

use burn::prelude::Device;

/// Held from the seed to the network's last layer.
static DRAWING: Mutex<()> = Mutex::new(());

/// `make`'s network, its weights drawn from `seed` (from wherever burn's generator stands
/// when `None`).
pub fn drawn<T>(device: &Device, seed: Option<u64>, make: impl FnOnce() -> T) -> T {
    let _drawing = DRAWING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(seed) = seed {
        device.seed(seed);
    }
    make()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::ValueNet;
    use crate::value::direct::cpu_training::parameter_values;

    /// The same seed draws the same weights, whatever other networks are made meanwhile on
    /// other threads; another seed draws others.
    #[test]
    fn a_seed_draws_the_same_network() {
        let architecture = "resnet-b1c8-fc16".parse().unwrap();
        let device = Device::flex();
        let weights = |seed| {
            let net = ValueNet::seeded(&architecture, [2, 4, 4], true, &device, seed);
            parameter_values(&net)
        };
        let first = weights(7);
        let others = std::thread::spawn(move || {
            for _ in 0..50 {
                ValueNet::new(
                    &"paper-cnn".parse().unwrap(),
                    [2, 4, 4],
                    true,
                    &Device::flex(),
                );
            }
        });
        for _ in 0..20 {
            assert_eq!(weights(7), first);
        }
        others.join().unwrap();
        assert_ne!(weights(8), first);
    }
}
