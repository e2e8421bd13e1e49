//! The distributed mode's transport: the Redis broker and host names (the workers that play
//! through it, and the wire format of a finished game, are Athénan's: `recipes/athenan/`).

pub mod broker;
pub mod host_name;
