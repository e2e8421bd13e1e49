//! What the direct training step computes, read off a `ValueNet` or a `PolicyValueNet`
//! (`TrainedNet`): its layers as affine maps on channels-last rows, and its parameters as flat
//! vectors in burn's own layouts (so Adam's state and the trained network go back to burn without
//! any reordering).

use burn::module::{Param, ParamId};
use burn::nn::Linear;
use burn::nn::conv::Conv2d;
use burn::prelude::*;

use super::implicit_conv::Windows;
use super::matmul::Strides;
use crate::value::direct::board_layout::board_taps;
use crate::value::direct::cpu_net::values;
use crate::value::network::ValueNet;
use crate::value::policy_value_net::PolicyValueNet;

/// The network a `CpuTrainer` trains.
#[derive(Clone, Debug)]
pub enum TrainedNet {
    Value(Box<ValueNet>),
    /// A value network with AlphaZero's (and ExIt's) policy head.
    PolicyValue(Box<PolicyValueNet>),
}

impl TrainedNet {
    /// The value network, or the policy-value network's trunk and value head.
    pub fn value(&self) -> &ValueNet {
        match self {
            TrainedNet::Value(net) => net,
            TrainedNet::PolicyValue(net) => &net.value,
        }
    }
}

/// A layer's product: input rows of `inputs` values times a weight matrix `[inputs, outputs]`,
/// read through `strides` from the parameter's working layout, plus a bias of `outputs`. A 3×3
/// convolution's inputs are its im2col rows, tap-major (`tap · in + channel`).
#[derive(Clone, Copy, Debug)]
pub struct Affine {
    /// Index of the weight in the parameter list; the bias is the next one.
    pub weight: usize,
    pub inputs: usize,
    pub outputs: usize,
    pub strides: Strides,
}

impl Affine {
    pub fn bias(&self) -> usize {
        self.weight + 1
    }
}

/// A residual block: `relu(se(c2(relu(c1(x)))) + x)`.
#[derive(Clone, Copy, Debug)]
pub struct BlockPlan {
    pub c1: Affine,
    pub c2: Affine,
    /// Squeeze and excite, both on `[positions, channels]`.
    pub se: Option<[Affine; 2]>,
}

/// The network's layers in the order of its forward pass.
#[derive(Clone, Debug)]
pub struct Plan {
    pub planes: usize,
    pub cells: usize,
    pub taps: Vec<[usize; 9]>,
    /// The 3×3 windows on zero-padded boards, for the convolutions that run implicit.
    pub windows: Windows,
    /// Whether convolutions whose channels suit it run implicit (`implicit_conv`); off, every
    /// one runs on im2col rows (the two are compared in tests).
    pub implicit_convs: bool,
    /// Plain 3×3 convolutions, each followed by ReLU.
    pub convs: Vec<Affine>,
    pub blocks: Vec<BlockPlan>,
    /// The 1×1 convolution before the global sum pooling.
    pub head: Option<Affine>,
    /// Dense hidden layers, each followed by ReLU; without a pooled head the first reads the
    /// board flattened channels first, as burn flattens it.
    pub dense: Vec<Affine>,
    pub out: Affine,
    pub tanh_output: bool,
    /// A policy-value network's policy head.
    pub policy: Option<PolicyPlan>,
}

/// The policy head: a 1×1 convolution from the trunk's channels to one, then a dense layer
/// from the board's cells (that one channel, in cell order as burn flattens it) to the logits.
#[derive(Clone, Copy, Debug)]
pub struct PolicyPlan {
    pub conv: Affine,
    pub dense: Affine,
}

impl PolicyPlan {
    /// The number of action ids (logits per position).
    pub fn actions(&self) -> usize {
        self.dense.outputs
    }
}

/// A trainable tensor: its identity (which keys Adam's state), burn's shape, whether the L2
/// penalty applies (kernels yes, biases no), and how the passes lay it out.
#[derive(Clone, Debug)]
pub struct Parameter {
    pub id: ParamId,
    pub shape: Vec<usize>,
    pub kernel: bool,
    /// For a 3×3 kernel, which the passes read tap-major (`[9 · in, out]`, row
    /// `tap · in + channel`, so that an im2col row is nine copies of a cell's channels): the
    /// burn index of each element of that layout. `None`: the passes read burn's layout.
    pub working_order: Option<Vec<usize>>,
}

/// The burn index (`[out, in, 3, 3]`) of each element of the tap-major `[9 · in, out]` layout.
fn tap_major_order(outputs: usize, inputs: usize) -> Vec<usize> {
    let mut order = Vec::with_capacity(9 * inputs * outputs);
    for tap in 0..9 {
        for channel in 0..inputs {
            for output in 0..outputs {
                order.push((output * inputs + channel) * 9 + tap);
            }
        }
    }
    order
}

/// The burn index (`[inputs, outputs]`, input `channel · cells + cell` as burn flattens a
/// board) of each element of the dense weight that reads the board channels last instead
/// (input `cell · channels + channel`).
fn channels_last_rows_order(cells: usize, channels: usize, outputs: usize) -> Vec<usize> {
    let mut order = Vec::with_capacity(cells * channels * outputs);
    for cell in 0..cells {
        for channel in 0..channels {
            for output in 0..outputs {
                order.push((channel * cells + cell) * outputs + output);
            }
        }
    }
    order
}

impl Parameter {
    /// Elements of the tensor.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// `values` (burn's layout) as the passes read them, into `working` (as long).
    pub fn to_working(&self, values: &[f32], working: &mut [f32]) {
        match &self.working_order {
            Some(order) => working
                .iter_mut()
                .zip(order)
                .for_each(|(w, &i)| *w = values[i]),
            None => working.copy_from_slice(values),
        }
    }

    /// `working` (laid out as the passes read this parameter) in burn's layout.
    pub fn to_burn_layout(&self, working: &[f32]) -> Vec<f32> {
        match &self.working_order {
            Some(order) => {
                let mut values = vec![0.0; working.len()];
                order.iter().zip(working).for_each(|(&i, &w)| values[i] = w);
                values
            }
            None => working.to_vec(),
        }
    }
}

/// A layer of a `ValueNet`, mutably.
enum LayerMut<'a> {
    Conv(&'a mut Conv2d),
    Linear(&'a mut Linear),
}

/// Every layer in the canonical order: plain convolutions, then each block's c1, c2, squeeze,
/// excite, then the head, the dense layers and the output; then a policy head's convolution and
/// dense layer.
fn layers_mut(net: &mut TrainedNet) -> Vec<LayerMut<'_>> {
    match net {
        TrainedNet::Value(net) => value_layers_mut(net),
        TrainedNet::PolicyValue(net) => {
            let PolicyValueNet {
                value,
                policy_conv,
                policy_out,
            } = &mut **net;
            let mut layers = value_layers_mut(value);
            layers.extend([LayerMut::Conv(policy_conv), LayerMut::Linear(policy_out)]);
            layers
        }
    }
}

/// A value network's layers in the canonical order.
fn value_layers_mut(net: &mut ValueNet) -> Vec<LayerMut<'_>> {
    let mut layers: Vec<LayerMut<'_>> = net.convs.iter_mut().map(LayerMut::Conv).collect();
    for block in &mut net.blocks {
        layers.extend([LayerMut::Conv(&mut block.c1), LayerMut::Conv(&mut block.c2)]);
        if let Some(se) = &mut block.se {
            layers.extend([
                LayerMut::Conv(&mut se.squeeze),
                LayerMut::Conv(&mut se.excite),
            ]);
        }
    }
    layers.extend(net.head.iter_mut().map(LayerMut::Conv));
    layers.extend(net.dense.iter_mut().map(LayerMut::Linear));
    layers.push(LayerMut::Linear(&mut net.out));
    layers
}

fn flat<const D: usize>(param: &Param<Tensor<D>>) -> Vec<f32> {
    values(param.val())
}

fn bias_of(bias: &Option<Param<Tensor<1>>>) -> &Param<Tensor<1>> {
    bias.as_ref().expect("the network's layers all have biases")
}

/// Appends `param` to the parameter list and its values to `values`.
fn push<const D: usize>(
    param: &Param<Tensor<D>>,
    kernel: bool,
    parameters: &mut Vec<Parameter>,
    values: &mut Vec<Vec<f32>>,
) {
    parameters.push(Parameter {
        id: param.id,
        shape: param.shape().dims::<D>().to_vec(),
        kernel,
        working_order: None,
    });
    values.push(flat(param));
}

/// The parameters of `net` in the canonical order (each layer's weight, then its bias), their
/// values, and each layer's affine map.
pub fn read_parameters(net: &TrainedNet) -> (Vec<Parameter>, Vec<Vec<f32>>, Vec<Affine>) {
    let mut net = net.clone();
    let (mut parameters, mut values, mut affines) = (Vec::new(), Vec::new(), Vec::new());
    for layer in layers_mut(&mut net) {
        let weight = parameters.len();
        let affine = match layer {
            LayerMut::Conv(conv) => {
                push(&conv.weight, true, &mut parameters, &mut values);
                push(bias_of(&conv.bias), false, &mut parameters, &mut values);
                let [outputs, inputs, kh, kw] = conv.weight.shape().dims();
                let width = inputs * kh * kw;
                let strides = if [kh, kw] == [3, 3] {
                    parameters[weight].working_order = Some(tap_major_order(outputs, inputs));
                    Strides::row_major(outputs)
                } else {
                    // A 1×1 convolution: burn's [out, in, 1, 1] is our [in, out] transposed.
                    Strides::row_major(width).transposed()
                };
                Affine {
                    weight,
                    inputs: width,
                    outputs,
                    strides,
                }
            }
            LayerMut::Linear(linear) => {
                push(&linear.weight, true, &mut parameters, &mut values);
                push(bias_of(&linear.bias), false, &mut parameters, &mut values);
                let [inputs, outputs] = linear.weight.shape().dims();
                Affine {
                    weight,
                    inputs,
                    outputs,
                    strides: Strides::row_major(outputs),
                }
            }
        };
        affines.push(affine);
    }
    (parameters, values, affines)
}

fn replaced<const D: usize>(
    param: &Param<Tensor<D>>,
    values: &[f32],
    device: &Device,
) -> Param<Tensor<D>> {
    let shape: [usize; D] = param.shape().dims();
    let tensor = Tensor::<D>::from_data(TensorData::new(values.to_vec(), shape), device);
    // A trainable parameter (as burn's loading makes one), with the identity Adam's state is
    // keyed by.
    let mut trainable = Param::from_tensor(tensor);
    trainable.id = param.id;
    trainable
}

/// A copy of `template` (on `device`) holding `values` (in `read_parameters`' order), every
/// parameter keeping its identity.
pub fn with_values(template: &TrainedNet, values: &[Vec<f32>], device: &Device) -> TrainedNet {
    let mut net = template.clone();
    let mut values = values.iter();
    let mut next = || values.next().expect("a value for every parameter");
    for layer in layers_mut(&mut net) {
        match layer {
            LayerMut::Conv(conv) => {
                conv.weight = replaced(&conv.weight, next(), device);
                conv.bias = Some(replaced(bias_of(&conv.bias), next(), device));
            }
            LayerMut::Linear(linear) => {
                linear.weight = replaced(&linear.weight, next(), device);
                linear.bias = Some(replaced(bias_of(&linear.bias), next(), device));
            }
        }
    }
    assert!(values.next().is_none(), "more values than parameters");
    net
}

impl Plan {
    /// The plan of `trained` for inputs of shape `[planes, rows, cols]`, and its parameters
    /// and their values.
    pub fn new(
        trained: &TrainedNet,
        [planes, rows, cols]: [usize; 3],
    ) -> (Plan, Vec<Parameter>, Vec<Vec<f32>>) {
        let (parameters, values, affines) = read_parameters(trained);
        let net = trained.value();
        let mut affines = affines.into_iter();
        let mut next = || affines.next().expect("an affine map per layer");
        let convs: Vec<Affine> = net.convs.iter().map(|_| next()).collect();
        let blocks: Vec<BlockPlan> = net
            .blocks
            .iter()
            .map(|block| BlockPlan {
                c1: next(),
                c2: next(),
                se: block.se.as_ref().map(|_| [next(), next()]),
            })
            .collect();
        let head = net.head.as_ref().map(|_| next());
        let dense: Vec<Affine> = net.dense.iter().map(|_| next()).collect();
        let out = next();
        let policy = match trained {
            TrainedNet::Value(_) => None,
            TrainedNet::PolicyValue(_) => Some(PolicyPlan {
                conv: next(),
                dense: next(),
            }),
        };
        assert_eq!(
            convs[0].inputs,
            9 * planes,
            "the network was built for another encoding"
        );
        let mut parameters = parameters;
        if net.head.is_none() {
            // The first dense layer (or the output) reads the board channels last.
            let reader = dense.first().unwrap_or(&out);
            let (cells, filters) = (rows * cols, convs.last().expect("a stem").outputs);
            parameters[reader.weight].working_order =
                Some(channels_last_rows_order(cells, filters, reader.outputs));
        }
        // A window is read with a convolution's input channels (forward, weight gradient) and
        // with its output channels (input gradient).
        let windowed = convs
            .iter()
            .chain(blocks.iter().flat_map(|b| [&b.c1, &b.c2]));
        let channel_counts = windowed.flat_map(|conv| [conv.inputs / 9, conv.outputs]);
        let plan = Plan {
            planes,
            cells: rows * cols,
            taps: board_taps(rows, cols),
            windows: Windows::new(rows, cols, channel_counts),
            implicit_convs: true,
            convs,
            blocks,
            head,
            dense,
            out,
            tanh_output: net.tanh_output,
            policy,
        };
        (plan, parameters, values)
    }

    /// Channels of the board after the convolutions.
    pub fn filters(&self) -> usize {
        self.convs.last().expect("a stem convolution").outputs
    }
}
