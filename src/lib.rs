//! `descent`: trains value networks for two-player board games by self-play with the Athénan
//! recipe (completed Descent search, tree learning, reinforcement heuristics, stratified
//! experience replay), evaluates them against baselines and exports them for play.
//!
//! Layers, imports pointing one way only (a layer uses those before it, never those after):
//!
//! ```text
//! games → search → value → learn → selfplay → arena → cli
//! ```
//!
//! - [`games`]: the `Game` trait, Awale, Connect Four, tic-tac-toe, the registry, perft.
//! - [`search`]: the search table, completed Descent, UBFM / UBFM_s, MCTS / UCT, alpha-beta,
//!   greedy and random, all through the `Evaluator` trait.
//! - [`value`]: the value network on burn (architectures, `NetEvaluator`, the update step).
//! - [`cli`]: argument parsing and the subcommands; the only layer that reads files named on the
//!   command line.
//!
//! Sign convention, everywhere: values are from P0's point of view (P0 maximises).

pub mod cli;
pub mod games;
pub mod learn;
pub mod search;
pub mod selfplay;
pub mod value;
