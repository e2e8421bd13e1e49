//! The distributed mode's parts outside the learner's loop: the Redis broker, `descent worker`
//! and host names (the wire format of a finished game is the run's `run::game_record`, which a
//! `parallel` run's pending games use too).

pub mod broker;
pub mod host_name;
pub mod worker;
