//! One training run, whatever its recipe: the one session and the `Recipe` trait it drives
//! (`session`), why a run stopped (`stop_reason`), checkpoints and the run state, the run
//! directory, its lock and clock, the share of its budget spent (`run_progress`), the time kept
//! for the evaluation at its end (`end_reserve`), the periodic evaluation, the networks kept at
//! time marks, the export of a run's network, the random streams, the games' numbers, the games
//! log and the replay file. What one recipe alone does lives in its folder (`recipes/`).
pub mod checkpoint;
pub mod dir_lock;
pub mod end_reserve;
pub mod export;
pub mod game_numbers;
pub mod games_log;
pub mod mark_nets;
pub mod periodic_eval;
pub mod replay_file;
pub mod run_clock;
pub mod run_dir;
pub mod run_progress;
pub mod run_state;
pub mod session;
pub mod stop_reason;
pub mod streams;
