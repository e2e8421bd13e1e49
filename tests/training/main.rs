//! Training end to end: the value network and the direct CPU training step against burn, the
//! self-play layer, `descent train` and `descent experiment` as child processes, what survives
//! what, TensorBoard files, game records, and the distributed mode against a real redis-server.

#[path = "../common/mod.rs"]
mod common;

mod alphazero;
mod cpu_policy_value;
mod cpu_training;
mod distributed;
mod exit;
mod experiment;
mod fault_script;
mod game_record;
mod keys_added;
mod learning_budget;
mod recipes_killed;
mod reliability;
mod run_modes;
mod selfplay;
mod tensorboard;
mod train;
mod value;
