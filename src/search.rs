//! Layer `search`: the tree searches of docs/algorithms.md §1-2, generic over `Game`, seeing values
//! only through `Evaluator` (so they run and are tested without a network), all behind one
//! interface (`Searcher`, built from a `SearchSpec`).

pub mod alphabeta;
pub mod budget;
pub mod connect_four_solver;
pub mod decision;
pub mod descent;
pub mod evaluator;
pub mod greedy;
pub mod gumbel;
pub mod in_flight;
pub mod mcts;
pub mod playout_evaluator;
pub mod puct;
pub mod puct_searcher;
pub mod searcher;
pub mod spec;
pub mod stats;
pub mod stop_token;
pub mod table;
pub mod terminal_eval;

pub use alphabeta::{AlphaBeta, AlphaBetaOptions, AlphaBetaResult};
pub use budget::Budget;
pub use decision::Decision;
pub use descent::{TreeSearch, TreeSearchOptions, Variant};
pub use evaluator::{ConstantEvaluator, Evaluator, RandomEvaluator, ScoreEvaluator};
pub use mcts::{FinalMove, LeafValue, Mcts, MctsOptions, TreePolicy};
pub use playout_evaluator::PlayoutEvaluator;
pub use searcher::{SearchRng, SearchRoot, Searcher};
pub use spec::{KeepForLearning, SearchSpec};
pub use stats::SearchStats;
pub use stop_token::StopToken;
pub use table::{ChildEdge, Node, Table, Triple};
pub use terminal_eval::TerminalEval;
