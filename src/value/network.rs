//! The value network f_θ on burn: `[batch, planes, rows, cols]` → `[batch]` values, P0's view.

use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{Linear, LinearConfig, PaddingConfig2d};
use burn::prelude::*;
use burn::tensor::activation::{relu, sigmoid};

use super::architecture::{Architecture, se_channels};
use super::initial_weights::drawn;

fn conv3x3(input: usize, output: usize, device: &Device) -> Conv2d {
    Conv2dConfig::new([input, output], [3, 3])
        .with_padding(PaddingConfig2d::Same)
        .init(device)
}

/// Squeeze-and-excitation: each channel scaled by `sigmoid(w2 · relu(w1 · mean over the
/// board))`. The two dense layers are 1×1 convolutions on the `[batch, channels, 1, 1]` means:
/// the same function, without reshapes (which would pin the batch size in an ONNX export).
#[derive(Module, Debug)]
pub struct SqueezeExcitation {
    pub(super) squeeze: Conv2d,
    pub(super) excite: Conv2d,
}

impl SqueezeExcitation {
    fn new(filters: usize, device: &Device) -> Self {
        let hidden = se_channels(filters);
        SqueezeExcitation {
            squeeze: Conv2dConfig::new([filters, hidden], [1, 1]).init(device),
            excite: Conv2dConfig::new([hidden, filters], [1, 1]).init(device),
        }
    }

    fn forward(&self, h: Tensor<4>) -> Tensor<4> {
        // The means [batch, channels, 1, 1] as sums (burn-onnx lowers sums, not means).
        let [_, _, rows, cols] = h.dims();
        let pooled = h
            .clone()
            .sum_dim(2)
            .sum_dim(3)
            .div_scalar((rows * cols) as f32);
        h * sigmoid(self.excite.forward(relu(self.squeeze.forward(pooled))))
    }
}

/// Two 3×3 convolutions with a skip connection: `relu(se(c2(relu(c1(x)))) + x)`.
#[derive(Module, Debug)]
pub struct ResidualBlock {
    pub(super) c1: Conv2d,
    pub(super) c2: Conv2d,
    pub(super) se: Option<SqueezeExcitation>,
}

impl ResidualBlock {
    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let mut h = self.c2.forward(relu(self.c1.forward(x.clone())));
        if let Some(se) = &self.se {
            h = se.forward(h);
        }
        relu(h + x)
    }
}

/// The value network. Built by `ValueNet::new` from an architecture and an input shape.
#[derive(Module, Debug)]
pub struct ValueNet {
    /// Plain convolutions (paper-cnn: 3; resnet: the stem).
    pub(super) convs: Vec<Conv2d>,
    pub(super) blocks: Vec<ResidualBlock>,
    /// The 1×1 convolution before the global sum pooling (`-gsp`).
    pub(super) head: Option<Conv2d>,
    pub(super) dense: Vec<Linear>,
    pub(super) out: Linear,
    /// tanh on the output (classic gain); linear otherwise.
    pub(super) tanh_output: bool,
}

impl ValueNet {
    /// The first weight or bias that is not a finite number, if any (a network whose learning
    /// diverged: it is never published, checkpointed or loaded).
    pub fn non_finite_parameter(&self) -> Option<f32> {
        super::direct::cpu_training::parameter_values(self)
            .into_iter()
            .flatten()
            .find(|v| !v.is_finite())
    }

    /// A freshly initialised network for inputs of shape `[planes, rows, cols]`.
    pub fn new(
        architecture: &Architecture,
        shape: [usize; 3],
        tanh_output: bool,
        device: &Device,
    ) -> ValueNet {
        drawn(device, None, || {
            Self::layers(architecture, shape, tanh_output, device)
        })
    }

    /// `new`'s network with its weights drawn from `seed`: the same network for the same seed.
    pub fn seeded(
        architecture: &Architecture,
        shape: [usize; 3],
        tanh_output: bool,
        device: &Device,
        seed: u64,
    ) -> ValueNet {
        drawn(device, Some(seed), || {
            Self::layers(architecture, shape, tanh_output, device)
        })
    }

    /// `new`'s layers, each drawn where burn's generator stands (under `initial_weights`' lock).
    pub(super) fn layers(
        architecture: &Architecture,
        shape: [usize; 3],
        tanh_output: bool,
        device: &Device,
    ) -> ValueNet {
        let [planes, rows, cols] = shape;
        let (filters, blocks) = architecture.conv_shape();
        let convs = match architecture {
            Architecture::PaperCnn => {
                vec![
                    conv3x3(planes, filters, device),
                    conv3x3(filters, filters, device),
                    conv3x3(filters, filters, device),
                ]
            }
            Architecture::ResNet { .. } => vec![conv3x3(planes, filters, device)],
        };
        let (squeeze_excitation, sum_pool_head) = match architecture {
            Architecture::ResNet {
                squeeze_excitation,
                sum_pool_head,
                ..
            } => (*squeeze_excitation, *sum_pool_head),
            Architecture::PaperCnn => (false, None),
        };
        let blocks = (0..blocks)
            .map(|_| ResidualBlock {
                c1: conv3x3(filters, filters, device),
                c2: conv3x3(filters, filters, device),
                se: squeeze_excitation.then(|| SqueezeExcitation::new(filters, device)),
            })
            .collect();
        let head = sum_pool_head.map(|n| Conv2dConfig::new([filters, n], [1, 1]).init(device));
        let mut width = sum_pool_head.unwrap_or(filters * rows * cols);
        let mut dense = Vec::new();
        for size in architecture.dense() {
            dense.push(LinearConfig::new(width, size).init(device));
            width = size;
        }
        let out = LinearConfig::new(width, 1).init(device);
        ValueNet {
            convs,
            blocks,
            head,
            dense,
            out,
            tanh_output,
        }
    }

    /// Σ‖W‖² over the kernels — every convolution's and dense layer's weights, biases left
    /// out: the penalty of TensorFlow's `kernel_regularizer=l2(λ)`, which the paper uses.
    pub fn kernel_square_sum(&self) -> Tensor<1> {
        let mut kernels: Vec<Tensor<1>> = Vec::new();
        let mut conv = |c: &Conv2d| kernels.push(c.weight.val().square().sum());
        self.convs.iter().for_each(&mut conv);
        for block in &self.blocks {
            conv(&block.c1);
            conv(&block.c2);
            if let Some(se) = &block.se {
                conv(&se.squeeze);
                conv(&se.excite);
            }
        }
        if let Some(head) = &self.head {
            conv(head);
        }
        for linear in self.dense.iter().chain([&self.out]) {
            kernels.push(linear.weight.val().square().sum());
        }
        Tensor::cat(kernels, 0).sum()
    }

    /// `[batch, planes, rows, cols]` → `[batch, 1]`.
    pub fn forward(&self, x: Tensor<4>) -> Tensor<2> {
        self.value_head(self.trunk(x))
    }

    /// The convolutions and residual blocks: `[batch, planes, rows, cols]` → `[batch, filters,
    /// rows, cols]` (what a policy head reads beside the value head).
    pub fn trunk(&self, x: Tensor<4>) -> Tensor<4> {
        let mut h = x;
        for conv in &self.convs {
            h = relu(conv.forward(h));
        }
        for block in &self.blocks {
            h = block.forward(h);
        }
        h
    }

    /// The value head on the trunk's features: `[batch, filters, rows, cols]` → `[batch, 1]`.
    pub fn value_head(&self, h: Tensor<4>) -> Tensor<2> {
        let mut flat: Tensor<2> = match &self.head {
            // [batch, n]: the 1×1 convolution summed over the board.
            Some(head) => relu(head.forward(h)).sum_dim(2).sum_dim(3).flatten(1, 3),
            None => h.flatten(1, 3), // [batch, filters·rows·cols]
        };
        for layer in &self.dense {
            flat = relu(layer.forward(flat));
        }
        let out = self.out.forward(flat);
        if self.tanh_output { out.tanh() } else { out }
    }

    /// Values of `batch` encoded positions laid out contiguously in `inputs`.
    pub fn predict(
        &self,
        inputs: Vec<f32>,
        batch: usize,
        shape: [usize; 3],
        device: &Device,
    ) -> Vec<f32> {
        self.forward(encoded_batch(inputs, batch, shape, device))
            .into_data()
            .try_into_vec::<f32>()
            .expect("f32 network output")
    }
}

/// `batch` encoded positions of shape `[planes, rows, cols]`, laid out contiguously in
/// `inputs`, as the networks' input tensor `[batch, planes, rows, cols]` on `device`.
pub fn encoded_batch(
    inputs: Vec<f32>,
    batch: usize,
    shape: [usize; 3],
    device: &Device,
) -> Tensor<4> {
    let [planes, rows, cols] = shape;
    Tensor::<4>::from_data(TensorData::new(inputs, [batch, planes, rows, cols]), device)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squeeze_excitation_scales_each_channel_of_each_position_by_its_own_gate() {
        let device = Device::flex();
        let se = SqueezeExcitation::new(32, &device);
        let [batch, channels, rows, cols] = [2, 32, 2, 3];
        let data: Vec<f32> = (0..batch * channels * rows * cols)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 25.0)
            .collect();
        let h = Tensor::<4>::from_data(
            TensorData::new(data.clone(), [batch, channels, rows, cols]),
            &device,
        );
        let out: Vec<f32> = se.forward(h).into_data().try_into_vec().unwrap();
        // The gates by hand: each position's channel means through the two dense layers.
        let cells = rows * cols;
        for b in 0..batch {
            let means: Vec<f32> = (0..channels)
                .map(|c| {
                    let start = (b * channels + c) * cells;
                    data[start..start + cells].iter().sum::<f32>() / cells as f32
                })
                .collect();
            let pooled =
                Tensor::<4>::from_data(TensorData::new(means, [1, channels, 1, 1]), &device);
            let gates: Vec<f32> = sigmoid(se.excite.forward(relu(se.squeeze.forward(pooled))))
                .into_data()
                .try_into_vec()
                .unwrap();
            for (c, gate) in gates.iter().enumerate() {
                for cell in 0..cells {
                    let i = (b * channels + c) * cells + cell;
                    assert!(
                        (out[i] - data[i] * gate).abs() < 1e-5,
                        "batch {b} channel {c} cell {cell}: {} vs {}",
                        out[i],
                        data[i] * gate
                    );
                }
            }
        }
    }
}
