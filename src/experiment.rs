//! Layer `experiment`: the paper's comparison protocol (section 3.3, docs/algorithms.md §8) —
//! several training variants, each trained for the same time in R repetitions with its network kept
//! at regular stages; every stage network plays the final networks of all variants with a fixed
//! evaluation player (depth-1 minimax by default), both colours; the scores over training time give
//! the curves of the paper's Figure 2, the all-play-all of the final networks its tables. Above
//! `selfplay` (it trains) and `arena` (it plays).

pub mod config;
pub mod evaluation;
pub mod match_cache;
pub mod report;
pub mod runs;

pub use config::{ExperimentConfig, ExperimentPlan};
pub use evaluation::{ExperimentReport, evaluate, evaluation_games};
pub use runs::{ExperimentObserver, RunStart, stage_nets, train_runs};
