//! Why a run stopped: its games, its time, or a stop asked for.

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    MaxGames,
    MaxTime,
    /// A stop was asked for (`TrainSettings::stop`: the first Ctrl-C of `descent train`).
    Requested,
}
