//! Layer `search`: the tree searches of docs/algorithms.md §1-2, generic over `Game`, seeing values only
//! through `Evaluator` (so they run and are tested without a network).

pub mod alphabeta;
pub mod budget;
pub mod decision;
pub mod descent;
pub mod duration_text;
pub mod evaluator;
pub mod greedy;
pub mod limits;
pub mod mcts;
pub mod table;
pub mod terminal_eval;

pub use alphabeta::{AlphaBeta, AlphaBetaOptions, AlphaBetaResult};
pub use budget::Budget;
pub use decision::Decision;
pub use descent::{SearchStats, TreeSearch, TreeSearchOptions, Variant};
pub use duration_text::DurationText;
pub use evaluator::{ConstantEvaluator, Evaluator, RandomEvaluator, ScoreEvaluator};
pub use mcts::{FinalMove, LeafValue, Mcts, MctsOptions, TreePolicy};
pub use table::{ChildEdge, Node, Table, Triple};
pub use terminal_eval::TerminalEval;
