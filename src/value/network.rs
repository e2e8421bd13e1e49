//! The value network f_θ on burn: `[batch, planes, rows, cols]` → `[batch]` values, P0's view.

use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{Linear, LinearConfig, PaddingConfig2d};
use burn::prelude::*;
use burn::tensor::activation::relu;

use super::architecture::Architecture;

fn conv3x3(input: usize, output: usize, device: &Device) -> Conv2d {
    Conv2dConfig::new([input, output], [3, 3])
        .with_padding(PaddingConfig2d::Same)
        .init(device)
}

/// Two 3×3 convolutions with a skip connection: `relu(c2(relu(c1(x))) + x)`.
#[derive(Module, Debug)]
pub struct ResidualBlock {
    c1: Conv2d,
    c2: Conv2d,
}

impl ResidualBlock {
    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let h = self.c2.forward(relu(self.c1.forward(x.clone())));
        relu(h + x)
    }
}

/// The value network. Built by `ValueNet::new` from an architecture and an input shape.
#[derive(Module, Debug)]
pub struct ValueNet {
    /// Plain convolutions (paper-cnn: 3; resnet: the stem).
    convs: Vec<Conv2d>,
    blocks: Vec<ResidualBlock>,
    dense: Vec<Linear>,
    out: Linear,
    /// tanh on the output (classic gain); linear otherwise.
    tanh_output: bool,
}

impl ValueNet {
    /// A freshly initialised network for inputs of shape `[planes, rows, cols]`.
    pub fn new(
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
        let blocks = (0..blocks)
            .map(|_| ResidualBlock {
                c1: conv3x3(filters, filters, device),
                c2: conv3x3(filters, filters, device),
            })
            .collect();
        let mut width = filters * rows * cols;
        let mut dense = Vec::new();
        for size in architecture.dense() {
            dense.push(LinearConfig::new(width, size).init(device));
            width = size;
        }
        let out = LinearConfig::new(width, 1).init(device);
        ValueNet {
            convs,
            blocks,
            dense,
            out,
            tanh_output,
        }
    }

    /// `[batch, planes, rows, cols]` → `[batch, 1]`.
    pub fn forward(&self, x: Tensor<4>) -> Tensor<2> {
        let mut h = x;
        for conv in &self.convs {
            h = relu(conv.forward(h));
        }
        for block in &self.blocks {
            h = block.forward(h);
        }
        let mut flat: Tensor<2> = h.flatten(1, 3); // [batch, filters·rows·cols]
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
        let [planes, rows, cols] = shape;
        let x =
            Tensor::<4>::from_data(TensorData::new(inputs, [batch, planes, rows, cols]), device);
        self.forward(x)
            .into_data()
            .try_into_vec::<f32>()
            .expect("f32 network output")
    }
}
