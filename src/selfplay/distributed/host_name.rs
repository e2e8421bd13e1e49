//! This machine's host name, as a distributed run's learner and workers name themselves and as
//! `descent serve` recognises requests for itself.

/// The host name (Linux's `/proc/sys/kernel/hostname`), if there is one.
pub fn host_name() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
}
