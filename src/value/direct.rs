//! descent's own network engine (device `descent-cpu`), beside burn's backends: `CpuNet` (the
//! value network's forward pass, from the same weights), `inference_conv` (its 3×3
//! convolutions), `packed_matmul` (its packed matrix products), `cpu_training/` (the direct
//! training step, `CpuTrainer`: forward, backward and Adam, checked against burn by
//! tests/training/cpu_training.rs), `board_layout` (im2col and the board's taps) and
//! `denormals` (flushing them to zero on the threads that run it).

pub mod board_layout;
pub mod cpu_net;
pub mod cpu_training;
pub mod denormals;
pub mod inference_conv;
pub mod packed_matmul;
