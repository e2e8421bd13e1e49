//! Layer `arena`: agents built from spec strings, matches between two agents, tournaments, and
//! the statistics of their results (docs/algorithms.md §8, the Awale MCTS thesis, "Method", paper
//! sections 3.3 and 8.5). Training's periodic evaluation plays its games through this layer.

pub mod agent;
pub mod agent_spec;
pub mod analysis;
pub mod bootstrap;
pub mod game_session;
pub mod match_play;
pub mod model;
pub mod network_gain;
pub mod perfect_moves;
pub mod score_statistics;
pub mod statistics;
pub mod svg_chart;
pub mod tournament;

pub use agent::{Agent, AgentFactory, AgentRng, MoveChoice};
pub use agent_spec::{AgentSpec, ModelSource};
pub use game_session::{GameSession, Side, parse_player};
pub use match_play::{GameRecord, MatchReport, play_match};
pub use score_statistics::ScoreComparison;
pub use statistics::{ResultSummary, Verdict};
pub use tournament::{TournamentReport, play_tournament};
