//! Layer `learn`: what self-play learns and how — targets (tree, root, terminal learning),
//! the self-play action selection, the replay buffer (experience and stratified replay),
//! symmetry augmentation and pre-initialisation. The terminal evaluations (reinforcement
//! heuristics) live in `search::terminal_eval`, since the searches need them too.

pub mod augment;
pub mod pretrain;
pub mod replay;
pub mod selection;
pub mod targets;

pub use replay::{Capacity, Minibatch, ReplayBuffer, ReplayLimits, ReplayPolicy};
pub use selection::{ActionSelection, Distribution, Exploitation};
pub use targets::{SearchedPosition, Targets};
