//! `descent`: trains value networks for two-player board games by self-play with the Athénan
//! recipe (completed Descent search, tree learning, reinforcement heuristics, stratified
//! experience replay), evaluates them against baselines and exports them for play.
//!
//! Layers, imports pointing one way only (a layer uses those before it, never those after;
//! `tests/cli/docs.rs` checks it):
//!
//! ```text
//! games → search → value → arena → learn → selfplay → experiment → web → cli
//! ```
//!
//! - [`games`]: the `Game` trait and the 21 registered games (docs/games.md), each with its
//!   parameters (`GameParams`); the registry (one line per game), perft.
//! - [`search`]: the search table, completed Descent, UBFM / UBFM_s, MCTS / UCT, alpha-beta,
//!   greedy and random, all through the `Evaluator` trait; PUCT (AlphaZero) on a policy-value
//!   network's outputs.
//! - [`value`]: the value network (architectures as burn modules, `NetEvaluator`; descent's own
//!   CPU engine, device `descent-cpu`: the direct forward pass `CpuNet` and training step
//!   `CpuTrainer`, checked against burn's).
//! - [`arena`]: agents from spec strings, matches, tournaments, their statistics (used by
//!   training's periodic evaluation, hence below `selfplay`).
//! - [`learn`]: learning targets, move selection, replay buffers.
//! - [`selfplay`]: the training loop, run directory, checkpoints.
//! - [`experiment`]: the paper's protocol comparing training variants (curves over training
//!   time, final all-play-all).
//! - [`web`]: `descent serve` — runs with live curves, their games, a board to play any agent;
//!   the `Host` check, the agent cache and limits that keep it safe from a hostile page.
//! - [`cli`]: argument parsing and the subcommands; the only layer that reads files named on the
//!   command line.
//!
//! Below every layer, [`settings`]: what a user writes and every layer parses some of —
//! `ConfigError`, the one error type of those settings (YAML files, agent and search specs, names
//! of architectures and devices), the limits on the sizes they give, and durations (`90s`).
//!
//! Reports and charts: the SVG charts (`arena::svg_chart`) are pure functions from match,
//! tournament and experiment results to SVG text, with no I/O. They sit in `arena`, beside the
//! results they draw, because both the CLI (`eval`, `tournament`) and the `experiment` layer
//! (its curves over training time) draw them, and `experiment` may not import `cli`. Writing them
//! to files, like every terminal output, is the CLI's (and `experiment`'s report directory's).
//!
//! Sign convention, everywhere: values are from P0's point of view (P0 maximises).

pub mod arena;
pub mod cli;
pub mod experiment;
pub mod games;
pub mod learn;
pub mod search;
pub mod selfplay;
pub mod settings;
pub mod value;
pub mod web;

pub use settings::ConfigError;
