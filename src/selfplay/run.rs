//! One training run, whatever its recipe: the one session and the `Recipe` trait it drives
//! (`session`), why a run stopped (`stop_reason`), checkpoints and the run state, the run
//! directory, its lock and clock, the time kept for the evaluation at its end (`end_reserve`), the
//! periodic evaluation, the networks kept at time marks, the export of a run's network, the random
//! streams; and the parts of Athénan's self-play the distributed workers share: self-play games and
//! their pool, the learner, the replay file, the pending games, and a finished game as the learner
//! takes it (`learnable_game`, from a thread or from a record).
pub mod checkpoint;
pub mod dir_lock;
pub mod end_reserve;
pub mod export;
pub mod game_numbers;
pub mod game_pool;
pub mod game_record;
pub mod games_log;
pub mod learnable_game;
pub mod learner;
pub mod mark_nets;
pub mod pending_games;
pub mod periodic_eval;
pub mod replay_file;
pub mod run_clock;
pub mod run_dir;
pub mod run_state;
pub mod self_play;
pub mod session;
pub mod stop_reason;
pub mod streams;
pub mod terminal_eval_choice;
