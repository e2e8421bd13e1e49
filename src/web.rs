//! Layer `web`: `descent serve`, a local web application over run directories — the runs with
//! live curves, their checkpoints and evaluations, a viewer of their self-play games, and a
//! board where a person plays any registered game against any agent spec. The page and its
//! script are embedded in the binary; the server reads run directories and never writes them.
//!
//! Between `experiment` and `cli` in the layers: it uses games, arena (agents) and selfplay
//! (the run directory's files), and only `cli` uses it.

pub mod agent_cache;
pub mod board_svg;
pub mod connections;
pub mod host_check;
pub mod play;
pub mod runs;
pub mod server;
pub mod web_error;

pub use server::{ServerState, router};
pub use web_error::WebError;
