//! Layer `value`: the learned evaluator f_θ — architectures, the network (a burn module, run on
//! burn's backends or on descent's own direct CPU engine, `CpuNet` and `CpuTrainer`, device
//! `descent-cpu`), the search's `NetEvaluator`, and the update step. Values are from P0's point
//! of view, as everywhere.

pub mod architecture;
pub mod batching_evaluator;
pub mod checksum;
pub mod device;
pub mod direct;
pub mod exported_net;
pub mod inference_net;
pub mod initial_weights;
pub mod minibatch;
pub mod net_evaluator;
pub mod net_optimizer;
pub mod network;
#[cfg(feature = "onnx")]
pub mod onnx_export;
pub mod policy_value_evaluator;
pub mod policy_value_inference;
pub mod policy_value_loss;
pub mod policy_value_net;
pub mod saved_net;
pub mod shipped_nets;

pub use architecture::Architecture;
pub use batching_evaluator::{BatchingEvaluator, BatchingStats, PinnedEvaluator};
pub use device::{DeviceChoice, NetDevice};
pub use direct::cpu_net::CpuNet;
pub use direct::cpu_training::CpuTrainer;
pub use inference_net::InferenceNet;
pub use minibatch::{Minibatch, MinibatchRef, MinibatchSource};
pub use net_evaluator::NetEvaluator;
pub use net_optimizer::{AdamSettings, NetOptimizer};
pub use network::ValueNet;
pub use policy_value_evaluator::PolicyValueEvaluator;
pub use policy_value_inference::PolicyValueInference;
pub use policy_value_net::PolicyValueNet;
