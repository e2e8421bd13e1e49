//! The distributed mode's parts outside the learner's loop: the Redis broker, `descent worker`,
//! the wire format of a finished game (`game_record`) and its replay into learnable pairs, game
//! numbers and host names.

pub mod broker;
pub mod game_numbers;
pub mod game_record;
pub mod host_name;
pub mod worker;
