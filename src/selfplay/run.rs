//! One training run: Algorithm 3's loop (`training`, its distributed learner in
//! `training/distributed`), self-play games and their pool, the learner, checkpoints and the run
//! state, the run directory, its lock and clock, the time kept for the evaluation at its end
//! (`end_reserve`), stop requests, the periodic evaluation, the replay file, the export of a
//! run's network, the random streams, and a finished game as the learner takes it
//! (`learnable_game`, from a thread or from a record).
pub mod checkpoint;
pub mod dir_lock;
pub mod end_reserve;
pub mod export;
pub mod game_pool;
pub mod learnable_game;
pub mod learner;
pub mod mark_nets;
pub mod pending_games;
pub mod periodic_eval;
pub mod replay_file;
pub mod round_run;
pub mod run_clock;
pub mod run_dir;
pub mod run_state;
pub mod self_play;
pub mod streams;
pub mod terminal_eval_choice;
pub mod training;
